#pragma once
// The adaptive slack of the harmonized barrier (pure; run by the root, which
// sets the deadlines). Paper 000 grows the slack by 1.5 after a miss and never
// shrinks it, so one scheduling hiccup makes every later call wait longer.
// Here every call moves it, within [min, max]:
//   miss    -> slack *= growth
//   success -> slack *= growth^(-r / (1 - r))
// which settles where the fraction of calls that miss is r (the target miss
// rate): below that the slack shrinks, above it grows. Misses that no slack
// prevents (a process preempted for 20 us over TCP) then no longer inflate
// every later call, as they did when each miss only ever grew it.
namespace harmonize::logic {

struct SlackSettings {
  double initial = 0;
  double min = 0;
  double max = 0;
  double growth = 1.1;
  double target_miss_rate = 0.004;
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
