#pragma once
// The adaptive slack of the harmonized barrier (pure; run by the root, which
// sets the deadlines). Paper 000 grows the slack by 1.5 after a miss and never
// shrinks it, so one scheduling hiccup makes every later call wait longer.
// Here it also shrinks again after a run of successes, within [min, max]:
//   miss    -> slack = min(max, slack * growth), run reset
//   success -> after `shrink_after` successes in a row,
//              slack = max(min, slack / growth^(1/shrink_steps)), run reset
// so recovering from one miss takes shrink_steps runs, and probing below the
// level that works costs at most one miss per shrink_after calls.
#include <cstdint>

namespace harmonize::logic {

struct SlackSettings {
  double initial = 0;
  double min = 0;
  double max = 0;
  double growth = 1.5;
  int shrink_after = 128;
  int shrink_steps = 4;
};

class SlackController {
 public:
  explicit SlackController(const SlackSettings& settings);

  double current() const { return slack_; }
  double initial() const { return settings_.initial; }
  double largest() const { return largest_; }
  double smallest() const { return smallest_; }

  void on_outcome(bool any_missed);

 private:
  SlackSettings settings_;
  double slack_;
  double largest_;
  double smallest_;
  double shrink_factor_;
  int successes_ = 0;
};

// Derived bounds for HARMONIZE_SLACK=auto, from the measured broadcast
// latency (the time between the root taking the deadline and the last
// process receiving it). Explicit settings win over derived ones.
struct MeasuredLatency {
  double median = 0;
  double p90 = 0;
};
SlackSettings derive_slack(const MeasuredLatency& latency, double growth,
                           const double* explicit_initial, const double* explicit_min,
                           const double* explicit_max);

}  // namespace harmonize::logic
