#include "harmonize/interleave/comm_comparisons.hpp"

#include <map>
#include <set>

#include "harmonize/interleave/schedule.hpp"

namespace harmonize::interleave {

std::uint64_t comparisons_in(std::span<const report::MatchedCall> calls, int sides) {
  std::set<report::CollectiveKey> keys;
  for (const report::MatchedCall& call : calls) keys.insert(call.key);
  return keys.size() * static_cast<std::uint64_t>(sides - 1) * std::size(kFigureNames);
}

std::vector<KeyComparison> compare_calls(std::span<const report::MatchedCall> calls, int sides,
                                         int run, std::uint64_t seed, double alpha) {
  Schedule schedule(sides, run, seed);
  std::map<report::CollectiveKey, std::vector<SideCall>[std::size(kFigureNames)]> by_key;
  for (const report::MatchedCall& call : calls) {
    // The tag is the barrier's index plus 1 (collective_timer.hpp).
    const std::uint64_t index = call.interleaved - 1;
    const int side = schedule.side_of(index);
    const std::uint64_t block = schedule.block_of(index);
    auto& figures = by_key[call.key];
    figures[static_cast<int>(Figure::t_global)].push_back({block, side, call.t_global});
    figures[static_cast<int>(Figure::local_max)].push_back({block, side, call.local_max});
  }
  std::vector<KeyComparison> result;
  for (const auto& [key, figures] : by_key) {
    for (std::size_t figure = 0; figure < std::size(kFigureNames); ++figure) {
      for (const PairedComparison& paired : compare_sides(figures[figure], sides, alpha))
        result.push_back({key, static_cast<Figure>(figure), paired});
    }
  }
  return result;
}

}  // namespace harmonize::interleave
