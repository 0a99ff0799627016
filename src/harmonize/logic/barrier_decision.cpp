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

}  // namespace harmonize::logic
