#include "harmonize/logic/slack_controller.hpp"

#include <algorithm>
#include <cmath>

namespace harmonize::logic {

SlackController::SlackController(const SlackSettings& settings)
    : settings_(settings),
      slack_(std::clamp(settings.initial, settings.min, settings.max)),
      largest_(slack_),
      smallest_(slack_),
      shrink_factor_(std::pow(settings.growth,
                              -settings.target_miss_rate / (1.0 - settings.target_miss_rate))) {}

void SlackController::on_outcome(bool any_missed) {
  slack_ = any_missed ? std::min(settings_.max, slack_ * settings_.growth)
                      : std::max(settings_.min, slack_ * shrink_factor_);
  largest_ = std::max(largest_, slack_);
  smallest_ = std::min(smallest_, slack_);
}

SlackSettings derive_slack(const MeasuredLatency& latency, double growth,
                           const double* explicit_initial, const double* explicit_min,
                           const double* explicit_max) {
  // Below ~100 ns a clock read and a cache miss already eat the slack.
  constexpr double kFloor = 100e-9;
  constexpr double kCeiling = 1.0;
  SlackSettings s;
  s.growth = growth;
  s.min = explicit_min ? *explicit_min : kFloor;
  s.max = explicit_max
              ? *explicit_max
              : std::min(kCeiling, std::max(1000 * std::max(latency.median, kFloor), 10e-3));
  // Twice the 90th percentile covers the broadcast and the spread of its
  // arrival; the controller trims it from there.
  s.initial = explicit_initial ? *explicit_initial : std::max(kFloor, 2 * latency.p90);
  // An explicit slack outside the derived bounds widens them rather than
  // being silently clamped (explicit bounds were checked against it).
  if (explicit_initial && !explicit_min) s.min = std::min(s.min, s.initial);
  if (explicit_initial && !explicit_max) s.max = std::max(s.max, s.initial);
  s.max = std::max(s.max, s.min);
  s.initial = std::clamp(s.initial, s.min, s.max);
  return s;
}

}  // namespace harmonize::logic
