#include "harmonize/collectives/collective_matching.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

namespace harmonize::collectives {

namespace {

// A non-blocking call's overlap; none for a blocking one.
std::optional<double> overlap_of(const TimedCall& call) {
  if (!is_nonblocking(call.operation)) return std::nullopt;
  return call.overlap;
}

// Where a call that did not complete is counted, by how it ended (in the
// order of Ending; a completed one is not). take() closes every open record,
// so `open` is counted with those still open at the matching.
using Counter = std::uint64_t report::CommStats::*;
constexpr Counter kIncompleteCounter[] = {
    nullptr,                                           // returned
    &report::CommStats::nonblocking_open_at_matching,  // open
    nullptr,                                           // completed
    &report::CommStats::nonblocking_cancelled,
    &report::CommStats::nonblocking_freed,
    &report::CommStats::nonblocking_open_at_matching,
    &report::CommStats::nonblocking_untracked,
};
static_assert(std::size(kIncompleteCounter) == static_cast<std::size_t>(Ending::untracked) + 1);

// This process's calls that did not complete (non-blocking ones freed,
// cancelled, still open or not followed), each counted by how it ended.
std::uint64_t count_incomplete(const PendingCalls& pending, report::CommStats& stats) {
  std::uint64_t incomplete = 0;
  for (const TimedCall& call : pending.calls) {
    const Counter counter = kIncompleteCounter[static_cast<std::size_t>(call.ending)];
    if (counter == nullptr) continue;
    stats.*counter += 1;
    incomplete += 1;
  }
  return incomplete;
}

}  // namespace

void match_alone(const PendingCalls& pending, report::CommStats& stats,
                 std::vector<report::MatchedCall>* interleaved) {
  std::uint64_t matched_calls = 0;
  for (const TimedCall& call : pending.calls) {
    if (!is_complete(call.ending)) continue;
    report::MatchedCall matched;
    matched.key = {static_cast<int>(call.operation), call.bytes, call.root};
    matched.t_global = matched.t_all_present = call.exit - call.entry;
    matched.local_max = matched.t_global;
    matched.valid = call.after_barrier;
    matched.interleaved = call.interleaved;
    stats.collectives.add_matched(matched);
    if (interleaved != nullptr && matched.interleaved != 0) interleaved->push_back(matched);
    stats.collectives.add_local(matched.key, matched.valid, matched.t_global, overlap_of(call));
    matched_calls += 1;
  }
  stats.collective_calls_unmatched +=
      pending.calls_seen - matched_calls - count_incomplete(pending, stats);
}

namespace {

// This process's calls, as its timeline shows them: numbered on the
// communicator, whether matched or not. The native barrier timed as the
// operation under test (mode observe) is left out: its barrier event is the
// same call, and twice it took half of the window from the collectives.
void add_to_trace(trace::CommTrace& trace, const clock::GlobalClock& clock,
                  const PendingCalls& pending) {
  std::uint64_t index = trace.collective_calls;
  for (const TimedCall& call : pending.calls) {
    if (call.operation == Collective::barrier) continue;
    const std::uint64_t at = index++;
    if (!is_complete(call.ending)) continue;  // no end to draw
    // On the clock the barriers around it were read with.
    const clock::GlobalClock& then = trace.clock_at(call.entry, clock);
    trace.collectives.add(at, {.entry = then.to_global(call.entry),
                               .exit = then.to_global(call.exit),
                               .bytes = call.bytes,
                               .index = at,
                               .overlap = overlap_of(call).value_or(-1.0),
                               .operation = static_cast<int>(call.operation),
                               .root = call.root,
                               .after_valid_barrier = call.after_barrier});
  }
  // Calls seen but not recorded (over the memory limit) keep their numbers.
  trace.collective_calls = index + (pending.calls_seen - pending.calls.size());
  trace.converted_until(clock.source().now());
}

}  // namespace

void match_collectives(sync::Collectives& members, const clock::GlobalClock& clock,
                       const PendingCalls& pending, report::CommStats& stats,
                       trace::CommTrace* trace, std::vector<report::MatchedCall>* interleaved) {
  if (trace != nullptr) add_to_trace(*trace, clock, pending);
  const bool root = members.rank() == 0;
  // Members keep the same number of calls unless one of them lost some (a
  // program whose members call different collectives, or memory): the
  // common prefix is matched, the rest counted.
  const double kept = static_cast<double>(pending.calls.size());
  const double counts[2] = {kept, -kept};
  double agreed[2] = {0, 0};
  members.all_reduce(counts, agreed, sync::ReduceOp::max);
  const auto n = static_cast<std::size_t>(-agreed[1]);
  // Each member counts its own calls (the report sums them): those that
  // did not complete here by how they ended, the others not matched.
  const std::uint64_t incomplete = count_incomplete(pending, stats);
  const auto unmatched = [&](std::size_t matched) {
    stats.collective_calls_unmatched += pending.calls_seen - matched - incomplete;
  };
  if (n == 0) {
    unmatched(0);
    return;
  }

  using report::CallMaxima;
  using report::CallMinima;
  std::vector<double> maxima(n * CallMaxima::kFields), minima(n * CallMinima::kFields);
  for (std::size_t i = 0; i < n; ++i) {
    const TimedCall& call = pending.calls[i];
    const double entry = clock.to_global(call.entry);
    const double exit = clock.to_global(call.exit);
    const double operation = static_cast<double>(call.operation);
    CallMaxima{.operation = operation,
               .bytes = static_cast<double>(call.bytes),
               .root = static_cast<double>(call.root),
               .entry = entry,
               .exit = exit,
               .invalid = call.after_barrier ? 0.0 : 1.0,
               .clock_error_bound = clock.error_bound_at(exit),
               .undelayed_entry = entry - call.delay,
               .incomplete = is_complete(call.ending) ? 0.0 : 1.0,
               .local = call.exit - call.entry,
               .interleaved = static_cast<double>(call.interleaved)}
        .write(&maxima[i * CallMaxima::kFields]);
    CallMinima{.operation = operation,
               .entry = entry,
               .undelayed_entry = entry - call.delay,
               .interleaved = static_cast<double>(call.interleaved)}
        .write(&minima[i * CallMinima::kFields]);
  }
  std::vector<double> max_out(maxima.size()), min_out(root ? minima.size() : 0);
  members.all_reduce(maxima, max_out, sync::ReduceOp::max);
  members.reduce_to_root(minima, min_out, sync::ReduceOp::min, 0);

  // Every member: its own time in each call complete on all, under the
  // agreed key.
  std::size_t incomplete_somewhere = 0;
  bool parted = false;
  for (std::size_t i = 0; i < n; ++i) {
    const TimedCall& call = pending.calls[i];
    const report::CallMaxima agreed_call =
        report::CallMaxima::read(&max_out[i * report::CallMaxima::kFields]);
    if (agreed_call.incomplete != 0) {
      incomplete_somewhere += 1;
      continue;
    }
    // The sequences part here.
    parted = parted || agreed_call.operation != static_cast<double>(call.operation);
    if (parted) continue;
    const report::CollectiveKey key{static_cast<int>(agreed_call.operation),
                                    static_cast<std::uint64_t>(agreed_call.bytes),
                                    static_cast<int>(agreed_call.root)};
    stats.collectives.add_local(key, agreed_call.invalid == 0, call.exit - call.entry,
                                overlap_of(call));
  }
  // The root alone learns where the sequences part (the minima are its);
  // the others count what exceeds the common length, and the calls
  // incomplete on another member.
  if (!root) {
    unmatched(n - incomplete_somewhere);
    return;
  }
  bool mismatched = false;
  const std::vector<report::MatchedCall> matched =
      report::match_calls(max_out, min_out, n, mismatched);
  for (const report::MatchedCall& call : matched) {
    stats.collectives.add_matched(call);
    if (interleaved != nullptr && call.interleaved != 0) interleaved->push_back(call);
  }
  unmatched(matched.size());
}

}  // namespace harmonize::collectives
