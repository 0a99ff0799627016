#pragma once
// The slack of the harmonized barrier: how long after the last process
// entered the deadline lies (pure; every member runs one, fed the same
// agreed values, so all of them choose the same slack).
//
// Every call measures what it would have needed: the time between the last
// entry and the moment the last process learned the deadline (its "need").
// The controller keeps a decaying log-spaced histogram of the needs and
// chooses the slack that makes a valid call cheapest: a call that ends with
// flag 0 is thrown away by the benchmark (MPIX_Harmonize users discard it),
// so it has to be run again, and the expected cost of one valid call is
//     (base + slack) / (1 - F(slack))
// where base is the rest of an iteration (the median time between two calls'
// last entries, minus the slack) and F the expected share of calls flagged 0:
// P(need > slack) missed, plus the late exits the spin `slack - need` is
// expected to suffer. Above the cheapest slack, the controller takes the
// smallest affordable slack (costing at most twice the cheapest) that keeps
// the miss budget (HARMONIZE_MISS_TARGET), or, if none does, the budget on
// top of the losses no affordable slack prevents (the budget is kept once the
// needs can resolve it: 2 / budget of them, 2000 for the smallest budget,
// 0.1 %). On a machine so noisy that only milliseconds of slack would stop a
// process preempted now and then from missing, those misses are reported, not
// paid for by every call (docs/barrier.md, "Slack").
//
// Paper 000 grows the slack by 1.5 after each miss and never shrinks it; the
// previous controller here steered towards a fixed miss rate and, under a
// CPU hog over TCP, ratcheted the slack up to milliseconds (preemption
// misses no microsecond slack prevents) - every call then paid for it.
#include <array>
#include <cstdint>

namespace harmonize::logic {

struct SlackSettings {
  double initial = 0;
  double min = 0;
  double max = 0;
  double miss_target = 0;  // HARMONIZE_MISS_TARGET
};

// Log-spaced counts of needs, 5 % apart, from 10 ns to ~13 s.
class NeedHistogram {
 public:
  static constexpr double kLowest = 10e-9;
  static constexpr double kRatio = 1.05;
  static constexpr int kBins = 430;

  void add(double need, double weight = 1);
  void scale(double factor);  // forgetting: older needs weigh less
  double total() const { return total_; }
  int highest_bin() const;  // -1: empty
  double count(int bin) const { return counts_[static_cast<std::size_t>(bin)]; }
  static int bin_of(double need);
  static double upper_edge(int bin);

 private:
  std::array<double, kBins> counts_{};
  double total_ = 0;
};

struct SlackChoice {
  double slack = 0;
  // Expected share of calls that end with flag 0: missed (the need exceeded
  // the slack) or late (a process descheduled while it spun).
  double flagged_rate = 0;
  double missed_rate = 0;  // its share of missed calls alone
};
// A few hundred needs are a small sample: the next call may need more than
// any of them, and after n needs the chance is about 1/(n+1) (Laplace's rule
// of succession). Until the needs resolve the budget, the choice counts one
// need beyond them, spread evenly over the log scale from the largest to a
// thousand times it (kUnseenNeedBins bins). Against that spread a slack s
// above the needs saves about (base / (n + 1)) / (s ln 1000) per second of
// slack, so the slack covers up to s = base / ((n + 1) ln 1000): where an
// iteration is long against the needs it reaches far beyond them (10 ms
// iterations after 32 warm-up needs of 1 us: ~44 us; the needs of a 10 ms
// arrival pattern, whose waiting process learns the deadline 30-40 us late,
// missed every call until measured), and where the slack would be a large
// part of the iteration it changes nothing.
constexpr int kUnseenNeedBins = 142;  // 1.05^142 ~ 1000
NeedHistogram with_unseen_need(const NeedHistogram& needs);

// The slack within [min, max] chosen as above. `base_cost`: seconds of an
// iteration besides the slack. `lates_per_spin_second`: how often a spinning
// process has been descheduled, per second of spin (the spin of a call is
// the slack minus its need): a long slack is a long spin, and on a loaded
// node a long spin is preempted. `fixed_spin`: the spin every call has
// whatever the slack (HARMONIZE_ARRIVAL's delays: a member leaves that long
// after the deadline), preempted at the same rate. An empty histogram keeps
// `fallback`.
SlackChoice choose_slack(const NeedHistogram& needs, double base_cost, double miss_target,
                         double min, double max, double fallback, double lates_per_spin_second = 0,
                         double fixed_spin = 0);

// The share of `needs` a slack misses; a slack inside a bin is charged the
// whole bin, as the choice charges it.
double missed_share(const NeedHistogram& needs, double slack);

// How often a spinning process is descheduled, per second of spin, from
// `lates` seen over `spin_seconds` of spinning, counted as if a further
// kLateRatePriorSpin had been spun without a late. The plain ratio divided by
// a spin that did not happen: after calls that missed (no spin) one late
// made any spin look certain to be preempted, the slack fell below the needs,
// every call missed and no spin ever corrected the estimate (1 ms of work
// between barriers: 99.7 % of calls missed; docs/barrier.md, "Long work
// between barriers"). An underestimate corrects itself (a longer slack spins
// more and meets the lates), an overestimate never does.
constexpr double kLateRatePriorSpin = 1e-3;
double late_rate(double lates, double spin_seconds);

// How much further apart two clocks can drift while each one's bound grows
// by `bound_growth`: the slack's margin above the needs seen so far.
double drift_margin(double bound_growth);

class SlackController {
 public:
  // How many needs between two choices. The first choices come sooner, at
  // 16, 32, 64 and 128 calls: the warm-up's needs were measured in lockstep,
  // and under an arrival pattern (a process that spun milliseconds, another
  // that waited as long) a call needs more. A b(delta) sweep's 100-call
  // runs at 100 ms each missed every call with the warm-up's slack. Before
  // the first of them, a call that missed brings the next choice forward.
  static constexpr int kChooseEvery = 256;
  static constexpr int kFirstChoice = 16;
  static bool chooses_after(std::uint64_t calls);
  // Needs are halved in weight every this many calls: the slack follows a
  // change of load within a few thousand calls. After a few halvings the
  // weight stays between 2048 and 4096: enough to resolve the smallest
  // budget (0.1 %, 2000 needs).
  static constexpr int kHalfLife = 2048;
  // A change of the calls: this many misses since the last choice, and more
  // than kChangeFactor times what it predicted (at least the budget).
  static constexpr int kMissesForChange = 4;
  static constexpr double kChangeFactor = 4.0;
  static constexpr double kChangeForget = 0.5;  // the weight the needs before a change keep
  static constexpr int kPeriodsAfterChange = 8;
  static constexpr int kPeriods = 63;

  explicit SlackController(const SlackSettings& settings);

  double current() const { return slack_; }
  double initial() const { return settings_.initial; }
  double largest() const { return largest_; }
  double smallest() const { return smallest_; }

  // What one call showed, identical on every member: its need (max over the
  // members; < 0: none), whether any member left late, the slack it ran
  // with, the longest delay a member spun past the deadline
  // (HARMONIZE_ARRIVAL) and the most a member's clock error bound grows
  // over margin_horizon() (or until its clock expires and is resynchronized,
  // if sooner); and the agreed time of a later call's last entry.
  struct Outcome {
    double need = -1;
    bool late = false;
    double slack = 0;
    double delay = 0;
    double bound_growth = 0;
  };
  // Until about when the slack chosen next stays in force: 256 iterations.
  double margin_horizon() const { return kChooseEvery * (base_cost_ + slack_); }
  void on_call(const Outcome& outcome, double last_entry);
  // Needs measured before the first call (the warm-up rounds).
  void seed(double need) { needs_.add(need); }
  // What an iteration costs besides the slack before one is measured: an
  // imposed arrival pattern's delta (HARMONIZE_ARRIVAL), known to every
  // member. Chooses at once: under a 30 ms pattern the first calls missed
  // with the lockstep warm-up's slack, weighed against an iteration of 0.
  void expect_base_cost(double seconds);

 private:
  // `recent_periods`: how many of the last iterations' costs to take the
  // median of (all kPeriods, or the few since a change of the calls).
  void choose(int recent_periods);

  SlackSettings settings_;
  double slack_;
  double largest_;
  double smallest_;
  NeedHistogram needs_;
  double lates_ = 0;          // decayed with the needs
  double spin_seconds_ = 0;   // the spins those calls' slacks and delays implied
  double delay_seconds_ = 0;  // the delays' share of them
  double outcomes_ = 0;       // calls with a need, decayed likewise
  double bound_growth_ = 0;   // the last call's
  double base_cost_ = 0;      // at the last choice
  double expected_base_cost_ = 0;
  std::array<double, kPeriods> periods_{};
  int periods_seen_ = 0;
  double previous_entry_ = 0;
  bool has_previous_entry_ = false;
  std::uint64_t calls_ = 0;
  int calls_since_choice_ = 0;
  int misses_since_choice_ = 0;
  double predicted_miss_rate_ = 1.0;  // until the first choice: no change to tell
};

// Derived bounds for HARMONIZE_SLACK=auto, from the needs measured before the
// first call. Explicit settings win over derived ones.
struct MeasuredLatency {
  double median = 0;
  double p90 = 0;
};
SlackSettings derive_slack(const MeasuredLatency& latency, double miss_target,
                           const double* explicit_initial, const double* explicit_min,
                           const double* explicit_max);

}  // namespace harmonize::logic
