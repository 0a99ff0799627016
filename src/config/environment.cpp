// The impure edge of the config layer: environ and the file system.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/policy.hpp"

extern char** environ;

namespace harmonize::config {

PolicyResult load_policy_from_environment() {
  Environment environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.rfind("HARMONIZE_", 0) != 0) continue;
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  auto read_file = [](const std::string& path, std::string& why) -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      why = std::strerror(errno);
      return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
      why = "read error";
      return std::nullopt;
    }
    return text.str();
  };
  return build_policy(environment, read_file);
}

}  // namespace harmonize::config
