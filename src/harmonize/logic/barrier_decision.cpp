#include "harmonize/logic/barrier_decision.hpp"

#include <algorithm>
#include <cmath>

namespace harmonize::logic {

bool wants_resync(const ResyncInputs& in) {
  if (in.expired) return true;
  return in.misses_in_a_row >= kMissesInARowForResync && in.sync_age > kMinSyncAgeForMissResync &&
         !(in.missed_by > 2 * in.error_bound);
}

double resync_interval(int syncs, double configured) {
  constexpr double kFirstInterval = 10e-3;
  constexpr double kRamp = 3.0;
  const double ramp = kFirstInterval * std::pow(kRamp, std::max(0, syncs - 1));
  return std::min(configured, ramp);
}

std::size_t calls_until_expiry(double until_expiry, double per_call, std::size_t capacity) {
  if (!(until_expiry > 0)) return 1;
  if (!(per_call > 0)) return capacity;
  const double calls = std::max(1.0, std::ceil(until_expiry / per_call));
  return calls >= static_cast<double>(capacity) ? capacity : static_cast<std::size_t>(calls);
}

double late_exit_threshold(double clock_read_cost) {
  const double reads = std::isfinite(clock_read_cost) && clock_read_cost > 0
                           ? kLateExitReads * clock_read_cost
                           : 0.0;
  return std::max(kLateExitFloor, reads);
}

double spin_tail_after_yield(double yield_cost) {
  const double yields =
      std::isfinite(yield_cost) && yield_cost > 0 ? kSpinTailYields * yield_cost : 0.0;
  return std::max(kSpinTailFloor, yields);
}

bool keeps_old_clock(double old_bound, double new_bound) {
  return new_bound > kWorseResyncFactor * old_bound && new_bound - old_bound > kWorseResyncFloor;
}

}  // namespace harmonize::logic
