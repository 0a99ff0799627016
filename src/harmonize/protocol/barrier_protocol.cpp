#include "harmonize/protocol/barrier_protocol.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <limits>
#include <vector>

#include "harmonize/logic/barrier_decision.hpp"

namespace harmonize::protocol {
namespace {

// Broadcast instead of a deadline to ask for a resync. Not a negative number:
// global time may legitimately be negative (a skewed or MPI_Wtime source).
constexpr double kResyncSignal = std::numeric_limits<double>::quiet_NaN();
// An observed call has no deadline (ground truth checks the clock only).
constexpr double kNoDeadline = std::numeric_limits<double>::quiet_NaN();

// What one read of the global clock costs here: the granularity of a spin's
// exit, from which the late-exit threshold derives.
double median_read_cost(const clock::GlobalClock& clock) {
  constexpr int kSamples = 63;
  std::array<double, kSamples> costs{};
  double before = clock.now();
  for (double& cost : costs) {
    const double after = clock.now();
    cost = after - before;
    before = after;
  }
  std::nth_element(costs.begin(), costs.begin() + kSamples / 2, costs.end());
  return costs[kSamples / 2];
}

// Flags travel as doubles through a MAX reduction: any member's is everybody's.
double as_double(bool value) {
  return value ? 1.0 : 0.0;
}

}  // namespace

BarrierProtocol::BarrierProtocol(sync::Collectives& members, CommClock& clock,
                                 ProtocolSettings settings, logic::CommRecord record)
    : members_(members),
      clock_(clock),
      settings_(std::move(settings)),
      record_(std::move(record)) {}

void BarrierProtocol::resync_agreed() {
  std::string failure;
  const double start = settings_.truth ? settings_.truth->now() : 0.0;
  try {
    clock_.resync();
  } catch (const std::exception& error) {
    failure = std::string("clock sync: ") + error.what();
  }
  record_.stats.resyncs += 1;
  if (settings_.truth) record_.stats.resync_seconds += settings_.truth->now() - start;
  double failed = as_double(!failure.empty());
  double any = 0;
  members_.reduce_to_root(std::span(&failed, 1), std::span(&any, 1), sync::ReduceOp::max, 0);
  members_.broadcast_from_root(std::span(&any, 1), 0);
  if (any == 0) return;
  not_harmonized_ = failure.empty() ? "a clock sync failed on another member" : failure;
  if (settings_.on_give_up) settings_.on_give_up(not_harmonized_);
}

void BarrierProtocol::prepare_first_call() {
  // All members are here. The slack is measured on the global clock, so an
  // inherited clock that has aged (a communicator created seconds after the
  // last world sync, offset-only, drifting) would turn its error into the
  // slack: resync first when it has expired (or when there is no clock yet).
  double expired = as_double(!clock_.ready() || clock_.clock().now() > clock_.expires_at());
  double any = 0;
  members_.reduce_to_root(std::span(&expired, 1), std::span(&any, 1), sync::ReduceOp::max, 0);
  members_.broadcast_from_root(std::span(&any, 1), 0);
  if (any != 0) resync_agreed();
  if (!given_up()) measure_slack();
}

void BarrierProtocol::measure_slack() {
  // The deadline must reach every process before it passes: measure how long
  // the root's broadcast takes to arrive, on the global clock, after a
  // warm-up that pays for lazy connection set-up (over TCP the first
  // messages of a pair take milliseconds and would inflate the slack).
  constexpr int kWarmUp = 8;
  constexpr int kRounds = 32;
  const int rank = members_.rank();
  std::vector<double> latencies;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    double sent = rank == 0 ? clock_.clock().now() : 0.0;
    members_.broadcast_from_root(std::span(&sent, 1), 0);
    const double arrival = rank == 0 ? 0.0 : clock_.clock().now() - sent;
    double latest = 0;
    members_.reduce_to_root(std::span(&arrival, 1), std::span(&latest, 1), sync::ReduceOp::max, 0);
    if (round >= kWarmUp) latencies.push_back(latest);
  }
  slack_measured_ = true;
  late_threshold_ = logic::late_exit_threshold(median_read_cost(clock_.clock()));
  if (rank != 0) return;
  std::sort(latencies.begin(), latencies.end());
  const logic::MeasuredLatency measured{latencies[latencies.size() / 2],
                                        latencies[latencies.size() * 9 / 10]};
  const auto pointer = [](const std::optional<double>& value) { return value ? &*value : nullptr; };
  slack_.emplace(logic::derive_slack(measured, settings_.slack_growth, pointer(settings_.slack),
                                     pointer(settings_.slack_min), pointer(settings_.slack_max)));
}

int BarrierProtocol::native() {
  record_.stats.not_harmonized_calls += 1;
  record_.stats.calls += 1;
  last_flag_ = 0;  // nobody left at a common deadline
  members_.barrier();
  return 0;
}

int BarrierProtocol::unharmonized_call() {
  // The protocol's reduce and broadcast already made this call a barrier:
  // every member had entered before any member got past the broadcast.
  record_.stats.calls += 1;
  record_.stats.not_harmonized_calls += 1;
  last_flag_ = 0;
  return 0;
}

// Clock reads cost tens of nanoseconds on a VM: the hot paths below read each
// clock as few times as they can, and the untouched truth only when test
// clocks make it meaningful.
void BarrierProtocol::observed() {
  if (log_.full()) flush_log();
  if (given_up()) {
    native();
    return;
  }
  const bool truth = settings_.record_truth;
  logic::CallTimes call;
  if (truth) call.enter_truth = settings_.truth->now();
  const double entered = clock_.clock().now();
  members_.barrier();
  // Exit times first, bookkeeping after: nothing between the barrier and the
  // program but the clock reads.
  call.exit_global = clock_.clock().now();
  if (truth) call.exit_truth = settings_.truth->now();
  call.bound = clock_.clock().error_bound_at(call.exit_global);
  if (truth) check_true_exit(kNoDeadline, call);
  log_.add(call);
  record_.stats.calls += 1;
  record_.stats.time_in_call.add(call.exit_global - entered);
}

int BarrierProtocol::harmonized() {
  if (given_up()) return native();
  if (log_.full()) flush_log();
  if (!slack_measured_) {
    prepare_first_call();
    if (given_up()) return unharmonized_call();
  }
  const bool truth = settings_.record_truth;
  logic::CallTimes call;
  if (truth) call.enter_truth = settings_.truth->now();
  report::CommStats& stats = record_.stats;
  const clock::GlobalClock* clock = &clock_.clock();
  double entered = clock->now();

  // Paper 000, Algorithm 1: any member's flags reach rank 0, which decides.
  double flags[2] = {as_double(last_failed_), as_double(entered > clock_.expires_at())};
  double any[2] = {0, 0};
  members_.reduce_to_root(flags, any, sync::ReduceOp::max, 0);
  double deadline = 0;
  if (members_.rank() == 0) {
    slack_->on_outcome(any[0] != 0);
    const double now = clock->now();
    const logic::Decision decision =
        logic::decide({any[0] != 0, any[1] != 0}, now, now - clock_.last_sync(), slack_->current());
    deadline = decision.resync ? kResyncSignal : decision.deadline;
  }
  members_.broadcast_from_root(std::span(&deadline, 1), 0);
  if (std::isnan(deadline)) {
    const double waited = clock->now() - entered;
    resync_agreed();
    if (given_up()) return unharmonized_call();
    clock = &clock_.clock();
    entered = clock->now() - waited;  // the entry time on the new clock
    if (members_.rank() == 0) deadline = clock->now() + slack_->current();
    members_.broadcast_from_root(std::span(&deadline, 1), 0);
  }

  double t = clock->now();
  if (deadline < t) {
    last_failed_ = true;
    last_flag_ = 0;
    call.missed = true;
    stats.missed_calls += 1;
    stats.lateness.add(t - deadline);
  } else {
    last_failed_ = false;
    stats.wait.add(deadline - t);
    if (settings_.yield_while_spinning) {
      while (t < deadline) {
        sched_yield();
        t = clock->now();
      }
    }
    while (t < deadline) t = clock->now();
    // A process descheduled while spinning wakes after the deadline: it saw
    // the deadline in time, yet it leaves late, and only it can know. Not fed
    // to the slack (a longer spin is more exposed to preemption, not less)
    // nor to the resync decision (the clock is not at fault).
    call.late = t - deadline > late_threshold_;
    last_flag_ = call.late ? 0 : 1;
  }
  // The read that ended the spin is the exit time: one read less per call.
  call.exit_global = t;
  if (truth) call.exit_truth = settings_.truth->now();
  if (call.late) {
    stats.late_calls += 1;
    stats.late_by.add(t - deadline);
  }
  call.bound = clock->error_bound_at(t);
  if (truth) check_true_exit(deadline, call);
  log_.add(call);
  stats.calls += 1;
  stats.harmonized_calls += 1;
  stats.time_in_call.add(t - entered);
  return last_flag_;
}

void BarrierProtocol::check_true_exit(double deadline, logic::CallTimes& call) {
  if (!settings_.reference_skew) return;
  const clock::Skew& reference = *settings_.reference_skew;
  // Both clocks at the instant of the truth read: the global clock's reading
  // is rebuilt from its local source, which the test skew makes exact.
  const double error =
      clock::true_clock_error(clock_.clock(), settings_.own_skew, reference, call.exit_truth);
  call.truth_error = std::abs(error);
  record_.stats.truth_bound_checks += 1;
  if (call.truth_error > call.bound) record_.stats.truth_bound_violations += 1;
  if (std::isnan(deadline)) return;  // observed: no deadline to be late for

  // The instant of the truth at which the reference clock reads `deadline`.
  const double true_deadline = (deadline - reference.offset) / (1.0 + reference.drift);
  // The instant of the read that ended the spin (the truth was read a little
  // later; a process preempted in between has left late too, but after its
  // last look at the clock, where no flag can see it). The global clock read
  // `error` more than the reference at the truth read.
  const double global_at_truth = clock::skewed_time(reference, call.exit_truth) + error;
  const double exit_instant = call.exit_truth - (global_at_truth - call.exit_global);
  if (exit_instant - true_deadline <= late_threshold_ + call.bound) return;
  record_.stats.truth_late_calls += 1;
  if (!call.missed && !call.late) record_.stats.truth_late_unflagged += 1;
}

void BarrierProtocol::flush_log() {
  const std::size_t n = log_.size();
  const std::vector<double> maxima = log_.pack_for_max();
  const std::vector<double> minima = log_.pack_for_min();
  const bool root = members_.rank() == 0;
  std::vector<double> max_out(root ? maxima.size() : 0);
  std::vector<double> min_out(root ? minima.size() : 0);
  members_.reduce_to_root(maxima, max_out, sync::ReduceOp::max, 0);
  members_.reduce_to_root(minima, min_out, sync::ReduceOp::min, 0);
  log_.clear();
  double expired = 0;
  if (root) {
    logic::absorb(record_, logic::combine_batch(max_out, min_out, n, settings_.record_truth));
    expired = as_double(clock_.clock().now() > clock_.expires_at());
  }
  if (!settings_.resync_at_flush) return;
  members_.broadcast_from_root(std::span(&expired, 1), 0);
  if (expired != 0) resync_agreed();
}

logic::CommRecord BarrierProtocol::final_record() const {
  logic::CommRecord record = record_;
  if (slack_) {
    record.stats.slack_initial = slack_->initial();
    record.stats.slack_final = slack_->current();
    record.stats.slack_max = slack_->largest();
    record.stats.slack_min = slack_->smallest();
  }
  record.stats.not_harmonized_reason = not_harmonized_;
  record.pending.assign(log_.calls().begin(), log_.calls().end());
  return record;
}

}  // namespace harmonize::protocol
