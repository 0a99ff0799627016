#include "config/preset.hpp"

#include "config/display.hpp"
#include "config/values.hpp"

namespace harmonize::config {
namespace {

bool is_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  }
  return true;
}

}  // namespace

Preset parse_preset(std::string_view text) {
  Preset preset;
  // A byte order mark, as some editors write it, marks the encoding and is
  // no part of the first key.
  if (text.rfind("\xef\xbb\xbf", 0) == 0) text.remove_prefix(3);
  int number = 0;
  while (!text.empty() || number == 0) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    // A '#' starts a comment only at the beginning of a line: values such as
    // report templates may legitimately contain '#'.
    line = trim(line);
    if (line.empty() || line.front() == '#') {
      if (text.empty()) break;
      continue;
    }
    const auto equals = line.find('=');
    const std::string_view key =
        equals == std::string_view::npos ? line : trim(line.substr(0, equals));
    if (equals == std::string_view::npos || !is_key(key)) {
      preset.errors.push_back("line " + std::to_string(number) + ": expected KEY=VALUE, got '" +
                              display_value(line) + "'");
    } else {
      std::string_view value = trim(line.substr(equals + 1));
      // Shell-style quotes are common in .env files; accept one matching pair.
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      preset.entries.push_back({std::string(key), std::string(value), number});
    }
    if (text.empty()) break;
  }
  return preset;
}

}  // namespace harmonize::config
