#include "sync/shared_clock_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "sync/offset_measure.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {
namespace {

Settings check_settings() {
  Settings settings;
  // SKaMPI whatever the policy says: only its interval is a proof.
  settings.offset = OffsetAlgorithm::skampi;
  settings.pingpongs = kSharedClockPingpongs;
  settings.min_rtt_patience = 0;
  settings.fitpoints = 1;
  return settings;
}

// How far the interval [offset - uncertainty, offset + uncertainty] misses
// 0, the largest over the measurements (each is a proof of its own).
double disagreement_with(Transport& group, int parent, const clock::GlobalClock& clk,
                         int attempts) {
  const Settings settings = check_settings();
  double disagreement = 0.0;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const FitPoint point = measure_offset_as_client(group, parent, clk, settings, -1.0);
    disagreement = std::max(disagreement, std::abs(point.offset) - point.uncertainty);
    if (disagreement > kSharedClockTolerance || point.uncertainty <= kSharedClockConclusive) break;
  }
  release_reference(group, parent);
  return std::max(0.0, disagreement);
}

int floor_log2(int value) {
  int log = 0;
  while ((2 << log) <= value) ++log;
  return log;
}

constexpr std::size_t kTallyWords = 4;

std::array<double, kTallyWords> encode(const SharedClockTally& tally) {
  return {static_cast<double>(tally.checked_groups), static_cast<double>(tally.fell_back_groups),
          tally.worst_disagreement, static_cast<double>(tally.worst_node)};
}

SharedClockTally decode(const std::array<double, kTallyWords>& words) {
  return SharedClockTally{static_cast<int>(words[0]), static_cast<int>(words[1]), words[2],
                          static_cast<int>(words[3])};
}

SharedClockTally combined(const SharedClockTally& a, const SharedClockTally& b) {
  SharedClockTally sum = a;
  sum.checked_groups += b.checked_groups;
  sum.fell_back_groups += b.fell_back_groups;
  if (b.worst_disagreement > a.worst_disagreement) {
    sum.worst_disagreement = b.worst_disagreement;
    sum.worst_node = b.worst_node;
  }
  return sum;
}

}  // namespace

double measure_shared_clock_disagreement(Transport& group, const clock::GlobalClock& clk,
                                         int attempts) {
  const int p = group.size();
  const int r = group.rank();
  if (p <= 1) return 0.0;
  // The pairs of HCA3's tree: each round doubles the ranks that have been
  // compared, and no process is in two pairs of one round.
  const int rounds = floor_log2(p);
  const int max_power = 1 << rounds;
  double mine = 0.0;
  for (int i = rounds; i >= 1 && r < max_power; --i) {
    const int running_power = 1 << i;
    const int next_power = 1 << (i - 1);
    if (r % running_power == 0) {
      serve_as_reference(group, r + next_power, clk);
    } else if (r % running_power == next_power) {
      mine = disagreement_with(group, r - next_power, clk, attempts);
    }
  }
  if (r >= max_power) {
    mine = disagreement_with(group, r - max_power, clk, attempts);
  } else if (r < p - max_power) {
    serve_as_reference(group, r + max_power, clk);
  }
  // Every member must take the same decision (fall back or not). With two
  // members the client's measurement is the verdict (rank 0 measures
  // nothing): only rank 0 needs telling, and a message back would cost a
  // time slice on a busy core.
  double worst = mine;
  group.reduce_to_root(std::span(&mine, 1), std::span(&worst, 1), ReduceOp::max, 0);
  if (p > 2) group.broadcast_from_root(std::span(&worst, 1), 0);
  return worst;
}

SharedClockTally reduce_tallies(Transport& group, const SharedClockTally& mine) {
  const int n = group.size();
  const int rank = group.rank();
  SharedClockTally partial = mine;
  std::array<double, kTallyWords> incoming{};
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rank & mask) {
      const auto words = encode(partial);
      group.send(rank - mask, words);
      return mine;
    }
    if (rank + mask < n) {
      group.recv(rank + mask, incoming);
      partial = combined(partial, decode(incoming));
    }
  }
  return partial;
}

}  // namespace harmonize::sync
