#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "harmonize/logic/call_log.hpp"

using namespace harmonize::logic;

namespace {

// What PMPI_Reduce(MAX / MIN) would produce from these processes' logs.
void reduce(const std::vector<CallLog>& logs, std::vector<double>& maxima,
            std::vector<double>& minima) {
  maxima = logs[0].pack_for_max();
  minima = logs[0].pack_for_min();
  for (std::size_t p = 1; p < logs.size(); ++p) {
    const auto mx = logs[p].pack_for_max();
    const auto mn = logs[p].pack_for_min();
    for (std::size_t i = 0; i < mx.size(); ++i) maxima[i] = std::max(maxima[i], mx[i]);
    for (std::size_t i = 0; i < mn.size(); ++i) minima[i] = std::min(minima[i], mn[i]);
  }
}

}  // namespace

TEST_CASE("the log fills up to its capacity", "[logic]") {
  CallLog log(2);
  CHECK_FALSE(log.full());
  log.add({});
  log.add({});
  CHECK(log.full());
  log.clear();
  CHECK(log.size() == 0);
}

TEST_CASE("a batch gives per-call skew, misses and space violations", "[logic]") {
  std::vector<CallLog> logs(3, CallLog(4));
  // call 0: exits 10, 12, 11 (skew 2); truth exits 20, 21, 23; entries 1, 2, 3
  logs[0].add({.exit_global = 10, .enter_truth = 1, .exit_truth = 20, .missed = false});
  logs[1].add({.exit_global = 12, .enter_truth = 2, .exit_truth = 21, .missed = false});
  logs[2].add({.exit_global = 11, .enter_truth = 3, .exit_truth = 23, .missed = false});
  // call 1: one process missed; one left (truth 30) before the last entered (31)
  logs[0].add({.exit_global = 40, .enter_truth = 29, .exit_truth = 30, .missed = false});
  logs[1].add({.exit_global = 40.5, .enter_truth = 31, .exit_truth = 32, .missed = true});
  logs[2].add({.exit_global = 40, .enter_truth = 25, .exit_truth = 33, .missed = false});
  std::vector<double> maxima, minima;
  reduce(logs, maxima, minima);
  const CallBatchOutcome with_truth = combine_batch(maxima, minima, 2, true);
  REQUIRE(with_truth.exit_skew.size() == 2);
  CHECK(with_truth.exit_skew[0] == 2.0);
  CHECK(with_truth.exit_skew[1] == 0.5);
  REQUIRE(with_truth.truth_exit_skew.size() == 2);
  CHECK(with_truth.truth_exit_skew[0] == 3.0);
  CHECK(with_truth.truth_exit_skew[1] == 3.0);
  CHECK(with_truth.missed_any == 1);
  CHECK(with_truth.space_violations == 1);

  CHECK(with_truth.late_any == 0);

  const CallBatchOutcome without_truth = combine_batch(maxima, minima, 2, false);
  CHECK(without_truth.truth_exit_skew.empty());
  CHECK(without_truth.space_violations == 0);
  CHECK(without_truth.missed_any == 1);
}

TEST_CASE("a late exit counts once per call, and a miss outranks it", "[logic]") {
  std::vector<CallLog> logs(2, CallLog(3));
  // call 0: rank 1 left late; call 1: rank 0 missed, rank 1 late; call 2: clean
  logs[0].add({.exit_global = 1});
  logs[1].add({.exit_global = 1, .late = true});
  logs[0].add({.exit_global = 2, .missed = true});
  logs[1].add({.exit_global = 2, .late = true});
  logs[0].add({.exit_global = 3});
  logs[1].add({.exit_global = 3});
  std::vector<double> maxima, minima;
  reduce(logs, maxima, minima);
  const CallBatchOutcome outcome = combine_batch(maxima, minima, 3, false);
  CHECK(outcome.missed_any == 1);
  CHECK(outcome.late_any == 1);
}

TEST_CASE("with an arrival pattern, exit skews are measured against it", "[logic][arrival]") {
  std::vector<CallLog> logs(2, CallLog(4));
  // Process 1 was to leave 50 after the deadline (HARMONIZE_ARRIVAL) and
  // left 1 later than process 0 plus that: a skew of 1 from the pattern.
  logs[0].add({.exit_global = 100, .enter_truth = 1, .exit_truth = 200});
  logs[1].add(
      {.exit_global = 151, .enter_truth = 2, .exit_truth = 251, .delay = 50, .truth_delay = 50});
  std::vector<double> maxima, minima;
  reduce(logs, maxima, minima);
  const CallBatchOutcome outcome = combine_batch(maxima, minima, 1, true);
  CHECK(outcome.exit_skew == std::vector<double>{1.0});
  CHECK(outcome.truth_exit_skew == std::vector<double>{1.0});
  CHECK(outcome.space_violations == 0);
}

TEST_CASE("a batch gives per call the largest proven and likely bounds", "[logic]") {
  std::vector<CallLog> logs(2, CallLog(2));
  logs[0].add({.bound = 5e-6, .likely = 1e-7});
  logs[1].add({.bound = 2e-6, .likely = 4e-7});
  std::vector<double> maxima, minima;
  reduce(logs, maxima, minima);
  const CallBatchOutcome outcome = combine_batch(maxima, minima, 1, false);
  CHECK(outcome.clock_bound == std::vector<double>{5e-6});
  CHECK(outcome.clock_likely == std::vector<double>{4e-7});
}
