#pragma once
// Per-call times of one communicator, kept locally and combined later (pure).
// Observing must not add communication after the barrier, so each process
// only appends here; every `capacity` calls the log is reduced to the
// communicator's rank 0 *before* a barrier (the exit pattern of a barrier
// does not depend on when processes enter it), and what is left at the end
// travels with the final report. Memory stays bounded whatever the calls.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace harmonize::logic {

struct CallTimes {
  double exit_global = 0;  // exit on the communicator's global clock
  double enter_truth = 0;  // on the untouched clock (test clocks only, else 0)
  double exit_truth = 0;
  bool missed = false;  // this process missed the deadline
  // This process saw the deadline in time but left more than the late-exit
  // threshold after it (descheduled while spinning): its flag is 0 too.
  bool late = false;
  // This process's clock-error bound at the exit (clock::ErrorBound), its
  // likely (99 %) bound, and with test clocks its true error there
  // (|global - reference|).
  double bound = 0;
  double likely = 0;
  double truth_error = 0;
  // HARMONIZE_ARRIVAL: how long after the deadline this process was to
  // leave, on the global clock and (test clocks) on the truth, whose
  // seconds the reference clock's drift makes differ. Exit skews are
  // measured against the pattern: of the exits less their delays.
  double delay = 0;
  double truth_delay = 0;
};

// Element-wise reductions of a batch over all processes, in the layout
// pack_for_max()/pack_for_min() produce.
struct CallBatchOutcome {
  std::vector<double> exit_skew;          // max - min (exit_global - delay), per call
  std::vector<double> truth_exit_skew;    // max - min (exit_truth - delay), per call
  std::vector<double> clock_bound;        // max bound over the processes, per call
  std::vector<double> clock_likely;       // max likely bound over the processes, per call
  std::vector<double> truth_clock_error;  // max true clock error over the processes, per call
  std::uint64_t missed_any = 0;           // calls in which any process missed
  std::uint64_t late_any = 0;             // calls in which any process left late (and none missed)
  std::uint64_t space_violations = 0;     // calls where a process left before the last entered
};

class CallLog {
 public:
  explicit CallLog(std::size_t capacity) : capacity_(capacity), flush_at_(capacity) {}
  bool full() const { return calls_.size() >= flush_at_; }
  std::size_t capacity() const { return capacity_; }
  // Full at `calls` calls from now on (1 to the capacity).
  void flush_at(std::size_t calls) { flush_at_ = std::clamp<std::size_t>(calls, 1, capacity_); }
  std::size_t size() const { return calls_.size(); }
  void add(const CallTimes& times) { calls_.push_back(times); }
  void clear() { calls_.clear(); }
  std::span<const CallTimes> calls() const { return calls_; }

  // Layout for an element-wise MAX reduction: [exit_global..., exit_truth...,
  // enter_truth..., missed..., late..., bound..., truth_error..., likely...] and for
  // MIN: [exit_global..., exit_truth..., exit_truth...], the first two of
  // exits less their delays, the last of the exits themselves (whether
  // anybody left before the last one entered).
  std::vector<double> pack_for_max() const;
  std::vector<double> pack_for_min() const;

 private:
  std::size_t capacity_;
  std::size_t flush_at_;
  std::vector<CallTimes> calls_;
};

// `with_truth`: the truth fields are meaningful (test clocks on).
CallBatchOutcome combine_batch(std::span<const double> maxima, std::span<const double> minima,
                               std::size_t calls, bool with_truth);

}  // namespace harmonize::logic
