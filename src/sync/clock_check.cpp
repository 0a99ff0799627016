#include "sync/clock_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sync/offset_estimate.hpp"
#include "sync/offset_measure.hpp"

namespace harmonize::sync {
namespace {

// What a checked rank sends back: offset, uncertainty, bound, reference bound.
using Result = std::array<double, 4>;

bool takes_part(int rank, int size) {
  return rank > 0 && rank < size;
}

ClockCheck measure(Transport& group, const clock::GlobalClock& clk) {
  Settings settings;
  settings.offset = OffsetAlgorithm::skampi;
  settings.pingpongs = kCheckPingpongs;
  settings.min_rtt_patience = 0;
  OffsetMeasurement best;
  best.point.bound = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kCheckMeasurements; ++i) {
    const OffsetMeasurement m = measure_offset_with_bound(group, 0, clk, settings, 0.0);
    if (m.point.bound < best.point.bound) best = m;
  }
  release_reference(group, 0);
  ClockCheck check;
  check.rank = group.rank();
  check.offset = best.point.offset;
  // Proven assuming the two clocks drift apart by at most the physical
  // maximum during the ten exchanges; synchronized clocks drift far less.
  check.uncertainty = best.point.bound;
  check.bound = clk.error_bound_at(best.point.t);
  check.reference_bound = best.reference_bound;
  return check;
}

}  // namespace

bool ClockCheck::consistent() const {
  return std::abs(offset) <= bound + reference_bound + uncertainty;
}

std::vector<ClockCheck> check_global_clock(Transport& group, const clock::GlobalClock& clk,
                                           std::span<const int> checked) {
  if (checked.size() > static_cast<std::size_t>(kMaxCheckedRanks))
    throw std::invalid_argument("check_global_clock: more than kMaxCheckedRanks ranks");
  const int me = group.rank();
  const int size = group.size();
  std::vector<ClockCheck> results;
  if (me == 0) {
    for (auto it = checked.begin(); it != checked.end(); ++it) {
      const int rank = *it;
      // A rank listed twice measures once.
      if (!takes_part(rank, size) || std::find(checked.begin(), it, rank) != it) continue;
      serve_as_reference(group, rank, clk);
      Result result{};
      group.recv(rank, result);
      results.push_back(ClockCheck{rank, result[0], result[1], result[2], result[3]});
    }
    return results;
  }
  if (std::find(checked.begin(), checked.end(), me) == checked.end()) return results;
  const ClockCheck mine = measure(group, clk);
  const Result result{mine.offset, mine.uncertainty, mine.bound, mine.reference_bound};
  group.send(0, result);
  results.push_back(mine);
  return results;
}

std::vector<int> sample_ranks(int size, int count) {
  std::vector<int> ranks;
  const int others = size - 1;
  if (others <= 0 || count <= 0) return ranks;
  if (others <= count) {
    for (int r = 1; r < size; ++r) ranks.push_back(r);
    return ranks;
  }
  // Steps of others / count >= 1: distinct, ending at the last rank.
  for (int i = 1; i <= count; ++i)
    ranks.push_back(static_cast<int>(static_cast<long long>(i) * others / count));
  return ranks;
}

}  // namespace harmonize::sync
