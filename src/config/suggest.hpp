#pragma once
#include <string>
#include <string_view>

namespace harmonize::config {

// Levenshtein distance; pure, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The known variable closest to `name`, or "" when nothing is reasonably close.
std::string closest_variable(std::string_view name);

}  // namespace harmonize::config
