#include "harmonize/logic/barrier_decision.hpp"

#include <algorithm>
#include <cmath>

namespace harmonize::logic {

Decision decide(const CallFlags& any, double now, double sync_age, double slack) {
  if (any.expired || (any.failed && sync_age > kMinSyncAgeForMissResync)) return {true, 0};
  return {false, now + slack};
}

double resync_interval(int syncs, double configured) {
  constexpr double kFirstInterval = 10e-3;
  constexpr double kRamp = 3.0;
  const double ramp = kFirstInterval * std::pow(kRamp, std::max(0, syncs - 1));
  return std::min(configured, ramp);
}

double late_exit_threshold(double clock_read_cost) {
  const double reads = std::isfinite(clock_read_cost) && clock_read_cost > 0
                           ? kLateExitReads * clock_read_cost
                           : 0.0;
  return std::max(kLateExitFloor, reads);
}

}  // namespace harmonize::logic
