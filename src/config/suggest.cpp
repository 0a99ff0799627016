#include "config/suggest.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "config/variables.hpp"

namespace harmonize::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_variable(std::string_view name) {
  std::string best;
  std::size_t best_distance = std::string_view::npos;
  for (const Variable& variable : all_variables()) {
    const std::size_t distance = edit_distance(name, variable.name);
    if (distance < best_distance) {
      best_distance = distance;
      best = variable.name;
    }
  }
  // Beyond a third of the name, a suggestion is noise rather than help.
  return best_distance <= std::max<std::size_t>(3, name.size() / 3) ? best : std::string();
}

}  // namespace harmonize::config
