#include "harmonize/logic/slack_controller.hpp"

#include <algorithm>
#include <cmath>

namespace harmonize::logic {

SlackController::SlackController(const SlackSettings& settings)
    : settings_(settings),
      slack_(std::clamp(settings.initial, settings.min, settings.max)),
      largest_(slack_),
      smallest_(slack_),
      shrink_factor_(std::pow(settings.growth, -1.0 / std::max(1, settings.shrink_steps))) {}

void SlackController::on_outcome(bool any_missed) {
  if (any_missed) {
    slack_ = std::min(settings_.max, slack_ * settings_.growth);
    successes_ = 0;
  } else if (++successes_ >= settings_.shrink_after) {
    slack_ = std::max(settings_.min, slack_ * shrink_factor_);
    successes_ = 0;
  }
  largest_ = std::max(largest_, slack_);
  smallest_ = std::min(smallest_, slack_);
}

SlackSettings derive_slack(const MeasuredLatency& latency, double growth,
                           const double* explicit_initial, const double* explicit_min,
                           const double* explicit_max) {
  // Floors: below ~1 us a clock read plus a cache miss already eat the slack.
  constexpr double kFloor = 1e-6;
  constexpr double kCeiling = 1.0;
  SlackSettings s;
  s.growth = growth;
  s.min = explicit_min ? *explicit_min : std::max(kFloor, latency.median);
  s.max = explicit_max ? *explicit_max
                       : std::min(kCeiling, std::max(1000 * std::max(latency.median, kFloor), 10e-3));
  // Twice the 90th percentile covers the broadcast and the spread of its
  // arrival; the controller trims it from there.
  s.initial = explicit_initial ? *explicit_initial : std::max(kFloor, 2 * latency.p90);
  s.max = std::max(s.max, s.min);
  s.initial = std::clamp(s.initial, s.min, s.max);
  return s;
}

}  // namespace harmonize::logic
