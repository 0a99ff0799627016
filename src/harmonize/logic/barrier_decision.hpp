#pragma once
// The decisions of the harmonized barrier, one pure function each, so that
// every rule is unit-tested exactly (the protocol only moves their inputs
// and outputs between processes).
namespace harmonize::logic {

// What each process contributes at the start of a call (combined with MAX
// over the members, so any process's condition is everybody's).
struct CallFlags {
  bool failed = false;   // this process missed its last deadline
  bool expired = false;  // its clock's last sync is older than the resync interval
};

// A miss this soon after a sync is latency or scheduling, not clock error:
// resynchronizing again would only add cost (on an oversubscribed node a sync
// takes up to a second). Paper 000 resyncs after every miss.
inline constexpr double kMinSyncAgeForMissResync = 0.1;

// Rank 0's choice for one harmonized call (paper 000, Algorithm 1): resync
// first, or the deadline `now + slack`. `sync_age`: seconds since the last
// sync on the communicator's clock.
struct Decision {
  bool resync = false;
  double deadline = 0;  // meaningful when !resync
};
Decision decide(const CallFlags& any, double now, double sync_age, double slack);

// How long a sync stays valid, given how many syncs the clock has had. A
// first sync cannot know the drift (its points span a millisecond), so the
// clock runs offset-only and errs by drift x elapsed time: resyncs come
// quickly at first - 10 ms, 30 ms, 90 ms, ... - each one lengthening the
// baseline of the drift estimate, until `configured`
// (HARMONIZE_RESYNC_INTERVAL) is reached.
double resync_interval(int syncs, double configured);

// A process whose spin ended more than this after the deadline left late: it
// was descheduled while spinning (or the clock read stalled). An undisturbed
// spin overshoots by at most one clock read, so the threshold is many reads,
// and never below 1 us: no benchmark resolves less, and preemption costs
// microseconds to milliseconds.
inline constexpr double kLateExitFloor = 1e-6;
inline constexpr double kLateExitReads = 50.0;
double late_exit_threshold(double clock_read_cost);

}  // namespace harmonize::logic
