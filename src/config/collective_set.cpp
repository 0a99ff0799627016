#include "config/collective_set.hpp"

#include <cctype>

namespace harmonize::config {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::optional<Collective> parse_collective(std::string_view name) {
  if (name.size() > 4 && same_ignoring_case(name.substr(0, 4), "mpi_")) name.remove_prefix(4);
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i)
    if (same_ignoring_case(name, kCollectiveNames[i])) return static_cast<Collective>(i);
  return std::nullopt;
}

}  // namespace

std::optional<CollectiveSet> parse_collective_set(std::string_view text) {
  text = trimmed(text);
  if (text == "all") return kAllCollectives;
  if (text == "none") return kNoCollectives;
  CollectiveSet set = kNoCollectives;
  while (true) {
    const std::size_t comma = text.find(',');
    const auto collective = parse_collective(trimmed(text.substr(0, comma)));
    if (!collective) return std::nullopt;
    set |= bit_of(*collective);
    if (comma == std::string_view::npos) return set;
    text.remove_prefix(comma + 1);
  }
}

std::string collective_set_text(CollectiveSet set) {
  if (set == kAllCollectives) return "all";
  if (set == kNoCollectives) return "none";
  std::string text;
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i) {
    if ((set & bit_of(static_cast<Collective>(i))) == 0) continue;
    if (!text.empty()) text += ',';
    text += kCollectiveNames[i];
  }
  return text;
}

}  // namespace harmonize::config
