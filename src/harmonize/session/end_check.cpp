#include "harmonize/session/end_check.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sync/clock_check.hpp"
#include "sync/mpi/group_transport.hpp"

namespace harmonize {

std::optional<report::ClockCheckInfo> check_world_clock_at_end(const EndCheckInputs& in) {
  if (in.world == MPI_COMM_NULL || in.layout == nullptr) return std::nullopt;
  const int size = static_cast<int>(in.layout->of_rank.size());
  if (size < 2) return std::nullopt;
  std::vector<int> everybody(static_cast<std::size_t>(size));
  std::iota(everybody.begin(), everybody.end(), 0);
  // All sync traffic of the world clock is over: its tag is free.
  sync::GroupTransport world(in.world, std::move(everybody), sync::kWorldGroupTag);
  world.set_yield_while_waiting(in.yield_while_waiting);
  const std::vector<int> checked = sync::end_check_ranks(*in.layout);

  const double started = in.clock.source().now();
  const std::vector<sync::ClockCheck> results = sync::check_global_clock(world, in.clock, checked);
  const double seconds = in.clock.source().now() - started;

  // The truth of each checked rank's clock, at one instant of its own.
  double true_error = 0;
  const bool with_truth = in.reference_skew && in.truth != nullptr;
  if (with_truth && world.rank() != 0 && !results.empty()) {
    const double t = in.truth->now();
    true_error = std::abs(clock::true_clock_error(in.clock, in.own_skew, *in.reference_skew, t));
  }
  double largest_true_error = 0;
  world.reduce_to_root(std::span(&true_error, 1), std::span(&largest_true_error, 1),
                       sync::ReduceOp::max, 0);
  if (world.rank() != 0) return std::nullopt;

  report::ClockCheckInfo info;
  info.candidates = size - 1;
  info.checked = static_cast<int>(results.size());
  info.age = in.clock.now() - in.synced_at;
  info.seconds = seconds;
  std::vector<double> offsets;
  for (const sync::ClockCheck& check : results) {
    offsets.push_back(std::abs(check.offset));
    info.max_uncertainty = std::max(info.max_uncertainty, check.uncertainty);
    info.max_bound = std::max(info.max_bound, check.bound);
    if (!check.consistent()) info.inconsistent += 1;
  }
  if (!offsets.empty()) {
    std::sort(offsets.begin(), offsets.end());
    info.max_offset = offsets.back();
    info.median_offset = offsets[(offsets.size() - 1) / 2];
  }
  if (with_truth) info.truth_max_error = largest_true_error;
  return info;
}

}  // namespace harmonize
