#pragma once
// The decisions of the harmonized barrier, one pure function each, so that
// every rule is unit-tested exactly (the protocol only moves their inputs
// and outputs between processes).
#include <cstddef>

namespace harmonize::logic {

// Whether this process asks for a resync at the start of a call (the wishes
// are combined with MAX, so any member's is everybody's, and every member
// decides on the same agreed value).
//   - `expired`: its clock's last sync is older than the resync interval;
//   - or its clock may be at fault: it missed its last
//     kMissesInARowForResync deadlines (latency misses at the budget's rate
//     come alone; a clock that runs ahead misses call after call), the last
//     by `missed_by`, within what two clocks each within `error_bound` of the
//     reference can disagree by. A miss by more than that is latency or
//     scheduling, and a resync (milliseconds over TCP) would not have
//     prevented it. Paper 000 resyncs after every miss; over a noisy network
//     that was one resync every ~100 ms, each paid by one call.
// A miss this soon after a sync is never the clock's (on an oversubscribed
// node a sync takes up to a second).
inline constexpr double kMinSyncAgeForMissResync = 0.1;
inline constexpr int kMissesInARowForResync = 3;
struct ResyncInputs {
  bool expired = false;
  int misses_in_a_row = 0;
  double missed_by = 0;    // seconds past the deadline, when it missed
  double error_bound = 0;  // of its clock now
  double sync_age = 0;     // seconds since the last sync
};
bool wants_resync(const ResyncInputs& in);

// How long a sync stays valid, given how many syncs the clock has had. A
// first sync cannot know the drift (its points span a millisecond), so the
// clock runs offset-only and errs by drift x elapsed time: resyncs come
// quickly at first - 10 ms, 30 ms, 90 ms, ... - each one lengthening the
// baseline of the drift estimate, until `configured`
// (HARMONIZE_RESYNC_INTERVAL) is reached.
double resync_interval(int syncs, double configured);

// Whether a resync's clock is so much worse than the one it would replace
// (error bounds at the same instant, seconds) that the old one is kept: a
// disturbed sync (a rank descheduled mid-exchange) once swapped a 16 us
// bound for 520 us, and the clock was 492 us off for 130 ms. Worse by more
// than kWorseResyncFactor and by more than kWorseResyncFloor seconds.
inline constexpr double kWorseResyncFactor = 4.0;
inline constexpr double kWorseResyncFloor = 1e-6;
bool keeps_old_clock(double old_bound, double new_bound);

// Observe mode: the members agree on nothing but at a log flush, so an
// expired clock waits there for its resync. The next flush is set where the
// clock expires, `until_expiry` seconds ahead at the pace of the batch just
// flushed (`per_call` seconds a call): at least 1 call, at most `capacity`.
// At 512 calls a flush, a program with a barrier every 5 ms had resynced
// every 2.6 s against an interval of 1 s, and its bound aged to 256 us.
std::size_t calls_until_expiry(double until_expiry, double per_call, std::size_t capacity);

// A process whose spin ended more than this after the deadline left late: it
// was descheduled or interrupted while spinning (or the clock read stalled).
// An undisturbed spin overshoots by at most one clock read (p99 22-30 ns on
// this VM), so the threshold is many reads, and never below 500 ns: the
// flag promises a valid call's exits within 1 us of each other, and two
// valid exits differ by up to the threshold plus both clocks' errors. At
// 1 us (50 reads of a test clock: 1.35 us) exits 0.8-1.35 us late passed
// as valid, a third of the valid calls over TCP whose true skew exceeded
// 1 us; at 500 ns they are flagged, ~0.1 % more calls.
inline constexpr double kLateExitFloor = 500e-9;
inline constexpr double kLateExitReads = 10.0;
double late_exit_threshold(double clock_read_cost);

// A process that yields the CPU while it waits (an oversubscribed node)
// stops yielding this long before its deadline and spins the rest: one
// sched_yield and read took 0.85 us at p50 on this VM with nobody else to
// run, more than the late-exit threshold, so a yield up to the deadline left
// 75 % of the calls late by that much though nothing was descheduled (4 ranks
// on 2 cores, 2 of them asleep outside the communicator). The tail is a few
// such rounds, never below 2 us; a process that shares its core with a
// member waiting for the same deadline is late by the scheduler's round
// either way.
inline constexpr double kSpinTailFloor = 2e-6;
inline constexpr double kSpinTailYields = 4.0;
double spin_tail_after_yield(double yield_cost);

}  // namespace harmonize::logic
