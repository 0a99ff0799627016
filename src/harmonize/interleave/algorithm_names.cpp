#include "harmonize/interleave/algorithm_names.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace harmonize::interleave {
namespace {

bool is_choice_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) ||
         std::isdigit(static_cast<unsigned char>(c)) || c == '_';
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// One "<word><spaces>- " of the description: where the word starts, its
// length and the padding's.
struct Marker {
  std::size_t start, word, padding;
};

std::vector<Marker> markers(std::string_view text) {
  std::vector<Marker> found;
  for (std::size_t dash = text.find("- "); dash != std::string_view::npos;
       dash = text.find("- ", dash + 1)) {
    std::size_t end = dash;
    while (end > 0 && text[end - 1] == ' ') --end;
    const std::size_t padding = dash - end;
    if (padding == 0) continue;
    std::size_t start = end;
    while (start > 0 && is_word_char(text[start - 1])) --start;
    found.push_back({start, end - start, padding});
  }
  return found;
}

}  // namespace

std::vector<std::string> mpich_algorithm_choices(std::string_view description) {
  constexpr std::string_view kHeader = "Variable to select ";
  if (description.substr(0, kHeader.size()) != kHeader) return {};
  const std::size_t after = description.find(" algorithm");
  if (after == std::string_view::npos) return {};
  const std::string_view text = description.substr(after + 10);
  const std::vector<Marker> found = markers(text);
  if (found.empty() || found.front().start != 0 || found.front().word == 0) return {};
  std::size_t width = 0;
  for (std::size_t i = 1; i < found.size() && width == 0; ++i)
    if (found[i].start > 0 && text[found[i].start - 1] == ')')
      width = found[i].word + found[i].padding;
  if (width == 0) return {};
  std::vector<std::string> choices{std::string(text.substr(0, found.front().word))};
  for (std::size_t i = 1; i < found.size(); ++i) {
    const Marker& marker = found[i];
    if (marker.padding >= width || width - marker.padding > marker.word) return {};
    const std::size_t length = width - marker.padding;
    const std::string_view choice = text.substr(marker.start + marker.word - length, length);
    if (!std::all_of(choice.begin(), choice.end(), is_choice_char)) return {};
    choices.emplace_back(choice);
  }
  return choices;
}

std::optional<int> algorithm_value(std::string_view choice, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == choice) return static_cast<int>(i);
  int number = -1;
  const auto [end, error] = std::from_chars(choice.data(), choice.data() + choice.size(), number);
  if (error != std::errc() || end != choice.data() + choice.size() || number < 0 ||
      static_cast<std::size_t>(number) >= names.size())
    return std::nullopt;
  return number;
}

}  // namespace harmonize::interleave
