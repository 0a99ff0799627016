#pragma once
// The barrier protocols of one communicator, written against
// sync::Collectives so that they run on MPI (the user's communicator) and on
// the simulator alike. `harmonized()` is paper 000's Algorithm 1 (every
// member leaves at one deadline of the global clock); `observed()` is the
// native barrier with its exit times logged. Both log every call and reduce
// the log to rank 0 every 512 calls, at the start of a call (observe: sooner
// where the clock expires, see logic::calls_until_expiry).
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "clock/test_clock.hpp"
#include "clock/time_source.hpp"
#include "harmonize/arrival/arrival_delays.hpp"
#include "harmonize/logic/call_log.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/logic/slack_controller.hpp"
#include "harmonize/protocol/comm_clock.hpp"
#include "harmonize/trace/events.hpp"
#include "sync/collectives.hpp"

namespace harmonize::protocol {

struct ProtocolSettings {
  std::optional<double> slack;  // initial; nullopt: derived from the measured latency
  std::optional<double> slack_min;
  std::optional<double> slack_max;
  double miss_target = 0;  // HARMONIZE_MISS_TARGET (from the policy: its default lives there)
  // In observe mode the log flush is the only point where members agree on
  // anything, so that is where an expired clock is resynchronized.
  bool resync_at_flush = false;
  // Sharing a core with another rank: spinning would keep that rank from
  // reaching its own deadline (or the broadcast from arriving).
  bool yield_while_spinning = false;
  // The untouched clock: times the resyncs, and with `record_truth` (test
  // clocks) stamps every entry and exit for the ground-truth checks.
  const clock::TimeSource* truth = nullptr;
  bool record_truth = false;
  // With test clocks: the skew of the reference clock (world rank 0's), so
  // that a deadline of the global clock maps to an instant of the truth, and
  // this process's own, so that its clock's true error at an instant of the
  // truth is exact (no gap between two reads).
  std::optional<clock::Skew> reference_skew;
  clock::Skew own_skew{0.0, 0.0};
  // HARMONIZE_ARRIVAL: this member leaves each harmonized call that long
  // after the deadline (nullopt: at the deadline).
  std::optional<arrival::ArrivalDelays> arrival;
  // Its delta on this communicator: an iteration lasts at least that long.
  double arrival_delta = 0;
  // Told once when the protocol gives up on the communicator.
  std::function<void(const std::string& reason)> on_give_up;
  // HARMONIZE_TRACE: the communicator's timeline, which outlives the
  // protocol; null without one.
  trace::CommTrace* trace = nullptr;
};

class BarrierProtocol {
 public:
  // `record` holds the key, name, kind and size; the protocol fills the rest.
  BarrierProtocol(sync::Collectives& members, CommClock& clock, ProtocolSettings settings,
                  logic::CommRecord record);

  // One harmonized call; returns the local flag (1: left at the deadline, 0:
  // missed it, left late - see logic::late_exit_threshold - or the
  // communicator was given up on). Throws what the collectives throw
  // (sync::MpiError with the user's status). `arrival`: the delays to leave
  // with instead of the settings' (HARMONIZE_INTERLEAVE's side).
  int harmonized(const arrival::ArrivalDelays* arrival = nullptr);
  // One observed (native) call. Throws like harmonized().
  void observed();
  // A communicator given up on runs the native barrier, counted.
  bool given_up() const { return !not_harmonized_.empty(); }
  int native();

  int last_flag() const { return last_flag_; }
  // The delay this member left the last harmonized call with (HARMONIZE_ARRIVAL).
  double last_delay() const { return last_delay_; }
  // The record to keep when the communicator goes (slack, pending calls and
  // the last exit included).
  logic::CommRecord final_record();

 private:
  void flush_log();
  void prepare_first_call();
  void measure_slack();
  // One agreement on a deadline (see the .cpp); `delay`: how long after it
  // this process leaves (HARMONIZE_ARRIVAL); `arrival`: when this process
  // learned it, on the global clock.
  struct Agreement {
    double deadline = 0;
    bool resync = false;
    double arrival = 0;
  };
  Agreement agree(double start, bool wants_resync, double delay);
  void apply_pending_update();
  void settle_exit();
  // Ground truth (test clocks), with the bound already in `call`: this
  // process's true clock error at the exit against its bound; and, when there
  // was a target (its deadline plus its delay; NaN: none), whether it truly
  // left late and its flag did not say so.
  void check_true_exit(double target, logic::CallTimes& call);
  // Members learn together whether the sync failed anywhere; if it did, the
  // communicator is given up on. Also absorbs the jitter a sync leaves.
  void resync_agreed();
  int unharmonized_call();

  sync::Collectives& members_;
  CommClock& clock_;
  ProtocolSettings settings_;
  logic::CommRecord record_;
  logic::CallLog log_{512};
  std::optional<logic::SlackController> slack_;  // the same on every member
  // The last agreement's need, late exit, slack and longest delay (sent with
  // the next), and what the slack learns from them at the start of the next
  // call.
  double pending_need_ = -1;
  bool pending_late_ = false;
  double pending_slack_ = 0;
  double pending_delay_ = 0;
  struct SlackUpdate {
    logic::SlackController::Outcome outcome;
    double last_entry;
  };
  std::optional<SlackUpdate> pending_update_;
  double last_missed_by_ = 0;
  bool slack_measured_ = false;
  double late_threshold_ = 0;  // set with the slack, at the first call
  // Set with it when yielding: how long before its deadline a wait stops
  // yielding and spins (nullopt: it never yields).
  std::optional<double> yield_tail_;
  int misses_in_a_row_ = 0;
  int last_flag_ = -1;
  // Harmonized calls so far, the same on every member: what a random
  // arrival pattern draws anew from at each call.
  std::uint64_t arrival_calls_ = 0;
  double last_delay_ = 0;
  std::string not_harmonized_;
  // The last call's exit, recorded (statistics, log, trace) at the start of
  // the next call or when the record is taken: settle_exit(). An observed
  // call has no deadline, target (NaN) or slack.
  struct PendingExit {
    logic::CallTimes call;
    double entered = 0;
    bool harmonized = false;
    double deadline = 0;
    double target = std::numeric_limits<double>::quiet_NaN();
    double slack = 0;
    double between = std::numeric_limits<double>::quiet_NaN();  // since the previous exit
  };
  std::optional<PendingExit> pending_exit_;
  double previous_exit_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace harmonize::protocol
