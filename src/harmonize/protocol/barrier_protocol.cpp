#include "harmonize/protocol/barrier_protocol.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <vector>

#include "harmonize/logic/barrier_decision.hpp"

namespace harmonize::protocol {
namespace {

// What one round of a spin costs here (a read of the global clock, after a
// sched_yield when `yield`): the granularity of a spin's exit, from which
// the late-exit threshold and the spinning tail of a yielding wait derive.
double median_spin_round(const clock::GlobalClock& clock, bool yield) {
  constexpr int kSamples = 63;
  std::array<double, kSamples> costs{};
  double before = clock.now();
  for (double& cost : costs) {
    if (yield) sched_yield();
    const double after = clock.now();
    cost = after - before;
    before = after;
  }
  std::nth_element(costs.begin(), costs.begin() + kSamples / 2, costs.end());
  return costs[kSamples / 2];
}

// Sleeps through `nap` seconds (a wait's head, never its end).
void nap_for(double nap) {
  timespec duration{};
  duration.tv_sec = static_cast<time_t>(nap);
  duration.tv_nsec = static_cast<long>((nap - static_cast<double>(duration.tv_sec)) * 1e9);
  nanosleep(&duration, nullptr);
}

// Spins from the read `t` until `deadline` on `clock`; returns the read that
// ended the spin. A plain spin: the CPU's pause instruction between reads
// (x86 `pause`) was measured against it and left later (docs/barrier.md,
// "Spin"). With `yield_until_tail` it yields the CPU between reads until
// that long before the deadline (logic::spin_tail_after_yield).
double wait_until(const clock::GlobalClock& clock, double deadline, double t,
                  [[maybe_unused]] std::optional<double> yield_until_tail) {
#ifdef HARMONIZE_SMPI
  // In SimGrid every read of the clock is a call into the simulator, wall
  // time that buys nothing, and harmonize-scale makes reads cost no simulated
  // time (smpi/wtime:0), so a spin would never end. Nap (simulated) to the
  // deadline instead: the first nap stops short by what the global clock's
  // rate may differ from simulated time (100 ppm, twice the test clocks'
  // drift), the second closes the rest and a nanosecond more, SimGrid's time
  // precision.
  constexpr double kRate = 1e-4;
  constexpr double kPrecision = 1e-9;
  constexpr int kMostNaps = 16;  // a nap that did not move the clock ends here
  if (deadline - t > 1e-6) {
    nap_for((deadline - t) * (1 - kRate));
    t = clock.now();
  }
  for (int nap = 0; nap < kMostNaps && t < deadline; ++nap) {
    nap_for((deadline - t) * (1 + kRate) + kPrecision);
    t = clock.now();
  }
  return t;
#else
  // A spin of milliseconds (HARMONIZE_ARRIVAL's delays, a slack set that
  // long) is preempted now and then even on an idle node: 1-3 late exits in
  // 60 calls spinning 30 ms. Sleep through all but its last millisecond,
  // which covers a wake-up's latency (the timer slack is 50 us); the exit is
  // a spin's as before.
  constexpr double kSpinTail = 1e-3;
  if (deadline - t > 2 * kSpinTail) {
    nap_for(deadline - t - kSpinTail);
    t = clock.now();
  }
  if (yield_until_tail) {
    while (t < deadline - *yield_until_tail) {
      sched_yield();
      t = clock.now();
    }
  }
  while (t < deadline) t = clock.now();
  return t;
#endif
}

// Flags travel as doubles through a MAX reduction: any member's is everybody's.
double as_double(bool value) {
  return value ? 1.0 : 0.0;
}

}  // namespace

BarrierProtocol::BarrierProtocol(sync::Collectives& members, CommClock& clock,
                                 ProtocolSettings settings, logic::CommRecord record)
    : members_(members), clock_(clock), settings_(std::move(settings)), record_(std::move(record)) {
  // The first flush, at the second call, measures the pace of the calls.
  if (settings_.resync_at_flush) log_.flush_at(1);
}

void BarrierProtocol::resync_agreed() {
  std::string failure;
  const double start = settings_.truth ? settings_.truth->now() : 0.0;
  // The timeline's resync span, timed on the local source (the global clock
  // jumps at the resync, by as much as the old clock's error), and the clock
  // it replaces, for the collective calls made before and converted after.
  std::optional<clock::GlobalClock> replaced;
  double local_start = 0;
  if (settings_.trace && clock_.ready()) {
    replaced = clock_.clock();
    local_start = replaced->source().now();
  }
  try {
    clock_.resync();
  } catch (const std::exception& error) {
    failure = std::string("clock sync: ") + error.what();
  }
  if (settings_.trace && failure.empty()) {
    const double local_end = clock_.clock().source().now();
    const double end = clock_.clock().to_global(local_end);
    const double took = replaced ? local_end - local_start : 0.0;
    settings_.trace->syncs.add(record_.stats.resyncs, {end - took, end, false});
    if (replaced) settings_.trace->replaced(local_start, *replaced);
  }
  record_.stats.resyncs += 1;
  misses_in_a_row_ = 0;  // a fresh clock starts a fresh count
  if (settings_.truth) record_.stats.resync_seconds += settings_.truth->now() - start;
  const double failed = as_double(!failure.empty());
  double any = 0;
  members_.all_reduce(std::span(&failed, 1), std::span(&any, 1), sync::ReduceOp::max);
  if (any == 0) return;
  not_harmonized_ = failure.empty() ? "a clock sync failed on another member" : failure;
  if (settings_.on_give_up) settings_.on_give_up(not_harmonized_);
}

void BarrierProtocol::prepare_first_call() {
  // All members are here. The slack is measured on the global clock, so an
  // inherited clock that has aged (a communicator created seconds after the
  // last world sync, offset-only, drifting) would turn its error into the
  // slack: resync first when it has expired (or when there is no clock yet).
  const double expired = as_double(!clock_.ready() || clock_.clock().now() > clock_.expires_at());
  double any = 0;
  members_.all_reduce(std::span(&expired, 1), std::span(&any, 1), sync::ReduceOp::max);
  if (any != 0) resync_agreed();
  if (!given_up()) measure_slack();
}

void BarrierProtocol::measure_slack() {
  // What a call needs: the time from the last entry until the last process
  // knows the deadline, on the global clock, measured with the agreement
  // itself after a warm-up that pays for lazy connection set-up (over TCP the
  // first messages of a pair take milliseconds and would inflate the slack).
  // Each round carries the previous round's need, so every member ends up
  // with the same needs and derives the same slack.
  constexpr int kWarmUp = 8;
  constexpr int kRounds = 32;
  std::vector<double> needs;
  double need = -1;
  for (int round = 0; round <= kWarmUp + kRounds; ++round) {
    const double in[2] = {clock_.clock().now(), need};
    double agreed[2] = {0, 0};
    members_.all_reduce(in, agreed, sync::ReduceOp::max);
    need = std::max(0.0, clock_.clock().now() - agreed[0]);
    if (round > kWarmUp) needs.push_back(agreed[1]);
  }
  slack_measured_ = true;
  late_threshold_ = logic::late_exit_threshold(median_spin_round(clock_.clock(), false));
  if (settings_.yield_while_spinning)
    yield_tail_ = logic::spin_tail_after_yield(median_spin_round(clock_.clock(), true));
  std::sort(needs.begin(), needs.end());  // the histogram does not mind the order
  const logic::MeasuredLatency measured{needs[needs.size() / 2], needs[needs.size() * 9 / 10]};
  const auto pointer = [](const std::optional<double>& value) { return value ? &*value : nullptr; };
  slack_.emplace(logic::derive_slack(measured, settings_.miss_target, pointer(settings_.slack),
                                     pointer(settings_.slack_min), pointer(settings_.slack_max)));
  for (const double measured_need : needs) slack_->seed(measured_need);
  if (settings_.arrival_delta > 0 && !settings_.slack)
    slack_->expect_base_cost(settings_.arrival_delta);
}

void BarrierProtocol::apply_pending_update() {
  if (!pending_update_) return;
  // Every member learned the same need; one reports it.
  const double need = pending_update_->outcome.need;
  if (need >= 0 && members_.rank() == 0) record_.stats.need.add(need);
  slack_->on_call(pending_update_->outcome, pending_update_->last_entry);
  pending_update_.reset();
}

BarrierProtocol::Agreement BarrierProtocol::agree(double start, bool wants_resync, double delay) {
  // Paper 000, Algorithm 1, with one collective instead of a reduce to rank 0
  // and its broadcast: every member proposes its start plus the slack, and
  // the latest proposal is the deadline. Nobody learns it before everybody
  // has proposed, so it is still a barrier. The longest delay rides along
  // (the slack charges its spin with the lates it suffers), and how far a
  // member's error bound grows before the slack is chosen again or the
  // clock resynchronized (the slack's margin for clocks drifting apart).
  const double slack = slack_->current();
  const double horizon =
      std::min(slack_->margin_horizon(), std::max(0.0, clock_.expires_at() - start));
  const double in[7] = {start + slack,
                        start,
                        as_double(wants_resync),
                        pending_need_,
                        as_double(pending_late_),
                        delay,
                        clock_.clock().error_bound().rate * horizon};
  double agreed[7] = {0, 0, 0, 0, 0, 0, 0};
  members_.all_reduce(in, agreed, sync::ReduceOp::max);
  const double arrival = clock_.clock().now();
  // The previous agreement's outcome, fed to the slack at the start of the
  // next call, not now: the spin must start at once (a choice, every 256
  // calls after the first few, costs microseconds).
  pending_update_ = {{agreed[3], agreed[4] != 0, pending_slack_, pending_delay_, agreed[6]},
                     agreed[1]};
  pending_need_ = std::max(0.0, arrival - agreed[1]);
  pending_late_ = false;  // until this call's spin says otherwise
  pending_slack_ = slack;
  pending_delay_ = agreed[5];
  return {agreed[0], agreed[2] != 0, arrival};
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
  settle_exit();
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
  // Nothing between the barrier and the program but the clock reads: the
  // bookkeeping waits for the next call, as a harmonized exit's does.
  call.exit_global = clock_.clock().now();
  if (truth) call.exit_truth = settings_.truth->now();
  pending_exit_ =
      PendingExit{.call = call, .entered = entered, .between = entered - previous_exit_};
}

int BarrierProtocol::harmonized(const arrival::ArrivalDelays* arrival) {
  settle_exit();
  // Counted before any way out, so that every member draws the same call.
  const std::uint64_t arrival_call = arrival_calls_++;
  last_delay_ = 0;
  // The flush may resync (observe), and that may give up: check after it.
  if (log_.full()) flush_log();
  if (given_up()) return native();
  if (!slack_measured_) {
    prepare_first_call();
    if (given_up()) return unharmonized_call();
  }
  apply_pending_update();
  const bool truth = settings_.record_truth;
  logic::CallTimes call;
  if (truth) call.enter_truth = settings_.truth->now();
  report::CommStats& stats = record_.stats;
  const clock::GlobalClock* clock = &clock_.clock();
  double entered = clock->now();
  const double between = entered - previous_exit_;  // before a resync moves the clock

  logic::ResyncInputs resync{.expired = entered > clock_.expires_at(),
                             .misses_in_a_row = misses_in_a_row_};
  if (misses_in_a_row_ >= logic::kMissesInARowForResync) {
    resync.missed_by = last_missed_by_;
    resync.error_bound = clock->error_bound_at(entered);
    resync.sync_age = entered - clock_.last_sync();
  }
  // HARMONIZE_ARRIVAL: this member's own exit instant. The deadline is what
  // the slack and the misses are about; the delay only moves the exit.
  if (arrival == nullptr && settings_.arrival) arrival = &*settings_.arrival;
  call.delay = arrival ? arrival->at(arrival_call) : 0.0;
  Agreement agreed = agree(entered, logic::wants_resync(resync), call.delay);
  if (agreed.resync) {
    const double waited = agreed.arrival - entered;
    resync_agreed();
    if (given_up()) return unharmonized_call();
    // The previous call's outcome came with the first agreement; this one
    // set no deadline, so it has no need or spin to learn from. Learned
    // before the start is read: a choice of slack costs microseconds, and
    // read after it, they were in the need (35-76 us needs after resyncs
    // of a 30 ms pattern, against 1-2 us without, and three calls missed).
    apply_pending_update();
    pending_need_ = -1;
    clock = &clock_.clock();
    const double now = clock->now();
    entered = now - waited;  // the entry time on the new clock
    agreed = agree(now, false, call.delay);
  }
  const double deadline = agreed.deadline;
  // The global clock runs at the reference clock's rate.
  call.truth_delay =
      settings_.reference_skew ? call.delay / (1.0 + settings_.reference_skew->drift) : call.delay;
  last_delay_ = call.delay;
  const double target = deadline + call.delay;

  double t = agreed.arrival;
  if (deadline < t) {
    misses_in_a_row_ += 1;
    last_missed_by_ = t - deadline;
    last_flag_ = 0;
    call.missed = true;
    stats.missed_calls += 1;
    stats.lateness.add(t - deadline);
    // A delayed member may still leave on the pattern (its flag says 0 all
    // the same: the others left late).
    if (t < target) t = wait_until(*clock, target, t, yield_tail_);
  } else {
    misses_in_a_row_ = 0;
    stats.wait.add(deadline - t);
    t = wait_until(*clock, target, t, yield_tail_);
    // A process descheduled while spinning wakes after the deadline: it saw
    // the deadline in time, yet it leaves late, and only it can know. Fed to
    // the slack as the rate at which spins are preempted (a longer slack is a
    // longer spin), not to the resync decision (the clock is not at fault).
    call.late = t - target > late_threshold_;
    // Sharing a core, a yielding process is late by the scheduler's round
    // whatever the spin's length: charging that to the slack would only turn
    // lates into misses.
    pending_late_ = call.late && !settings_.yield_while_spinning;
    last_flag_ = call.late ? 0 : 1;
  }
  // The read that ended the spin is the exit time: one read less per call.
  call.exit_global = t;
  if (truth) call.exit_truth = settings_.truth->now();
  // Nothing between the exit and the program but the flag: the bookkeeping
  // waits for the next call (or the record). Done here, it took 80-115 ns
  // at the median and over 1 us in 1-2 calls per thousand (interrupts land
  // in it), after the exit and where no flag could see it: the program's
  // own stamp of the exit came that much later.
  pending_exit_ = PendingExit{.call = call,
                              .entered = entered,
                              .harmonized = true,
                              .deadline = deadline,
                              .target = target,
                              .slack = pending_slack_,
                              .between = between};
  return last_flag_;
}

void BarrierProtocol::settle_exit() {
  if (!pending_exit_) return;
  PendingExit& exit = *pending_exit_;
  logic::CallTimes& call = exit.call;
  report::CommStats& stats = record_.stats;
  const double t = call.exit_global;
  if (call.late) {
    stats.late_calls += 1;
    stats.late_by.add(t - exit.target);
  }
  // The clock of the exit: only this communicator's resync replaces it,
  // and that comes after the settling.
  const clock::GlobalClock& clock = clock_.clock();
  call.bound = clock.error_bound_at(t);
  call.likely = clock.likely_error_at(t);
  if (settings_.record_truth) check_true_exit(exit.target, call);
  log_.add(call);
  if (settings_.trace)
    settings_.trace->barriers.add(stats.calls, {.entry = exit.entered,
                                                .exit = t,
                                                .deadline = exit.deadline,
                                                .slack = exit.slack,
                                                .bound = call.bound,
                                                .delay = call.delay,
                                                .harmonized = exit.harmonized,
                                                .missed = call.missed,
                                                .late = call.late,
                                                .index = stats.calls});
  stats.calls += 1;
  if (exit.harmonized) stats.harmonized_calls += 1;
  stats.time_in_call.add(t - exit.entered);
  if (!std::isnan(exit.between)) stats.between_calls.add(std::max(0.0, exit.between));
  previous_exit_ = t;
  pending_exit_.reset();
}

void BarrierProtocol::check_true_exit(double target, logic::CallTimes& call) {
  if (!settings_.reference_skew) return;
  const clock::Skew& reference = *settings_.reference_skew;
  // Both clocks at the instant of the truth read: the global clock's reading
  // is rebuilt from its local source, which the test skew makes exact.
  const double error =
      clock::true_clock_error(clock_.clock(), settings_.own_skew, reference, call.exit_truth);
  call.truth_error = std::abs(error);
  record_.stats.truth_bound_checks += 1;
  if (call.truth_error > call.bound) record_.stats.truth_bound_violations += 1;
  if (call.truth_error > call.likely) record_.stats.truth_likely_violations += 1;
  if (std::isnan(target)) return;  // observed: no deadline to be late for

  // The instant of the truth at which the reference clock reads `target`.
  const double true_target = (target - reference.offset) / (1.0 + reference.drift);
  // The instant of the read that ended the spin (the truth was read a little
  // later; a process preempted in between has left late too, but after its
  // last look at the clock, where no flag can see it). The global clock read
  // `error` more than the reference at the truth read.
  const double global_at_truth = clock::skewed_time(reference, call.exit_truth) + error;
  const double exit_instant = call.exit_truth - (global_at_truth - call.exit_global);
  if (exit_instant - true_target <= late_threshold_ + call.bound) return;
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
  const double batch_start = n > 0 ? log_.calls().front().exit_global : 0.0;
  log_.clear();
  if (root)
    logic::absorb(record_, logic::combine_batch(max_out, min_out, n, settings_.record_truth));
  if (!settings_.resync_at_flush) return;
  // Rank 0 decides, so that every member resyncs, and flushes next, at the
  // same call.
  double per_call = 0;
  const auto next_flush = [&](double now) {
    return static_cast<double>(
        logic::calls_until_expiry(clock_.expires_at() - now, per_call, log_.capacity()));
  };
  double told[2] = {0, 0};  // expired, calls until the next flush
  if (root) {
    const double now = clock_.clock().now();
    per_call = n > 0 ? (now - batch_start) / static_cast<double>(n) : 0.0;
    told[0] = as_double(now > clock_.expires_at());
    if (told[0] == 0) told[1] = next_flush(now);
  }
  members_.broadcast_from_root(told, 0);
  if (told[0] != 0) {
    resync_agreed();
    if (given_up()) return;
    if (root) told[1] = next_flush(clock_.clock().now());
    members_.broadcast_from_root(std::span(&told[1], 1), 0);
  }
  log_.flush_at(static_cast<std::size_t>(told[1]));
}

logic::CommRecord BarrierProtocol::final_record() {
  settle_exit();
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
