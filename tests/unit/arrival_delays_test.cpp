#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "harmonize/arrival/arrival_delays.hpp"
#include "harmonize/arrival/job_arrival.hpp"

using harmonize::ArrivalKind;
using harmonize::ArrivalPattern;
using namespace harmonize::arrival;

namespace {

ArrivalPattern pattern(ArrivalKind kind, double delay, std::vector<int> late = {}) {
  ArrivalPattern p;
  p.kind = kind;
  p.delay = delay;
  p.late = std::move(late);
  return p;
}

}  // namespace

TEST_CASE("each pattern gives each process its delay", "[logic][arrival]") {
  const auto at = [](const ArrivalPattern& p, int rank, int size, int node = 0,
                     std::uint64_t call = 0) {
    return arrival_delay(p, ArrivalPlace{rank, size, node}, call);
  };
  CHECK(at(ArrivalPattern{}, 0, 4) == 0.0);

  const ArrivalPattern one = pattern(ArrivalKind::rank, 10e-6, {2});
  CHECK(at(one, 2, 4) == 10e-6);
  CHECK(at(one, 1, 4) == 0.0);

  const ArrivalPattern some = pattern(ArrivalKind::ranks, 5e-6, {0, 3});
  CHECK(at(some, 0, 4) == 5e-6);
  CHECK(at(some, 3, 4) == 5e-6);
  CHECK(at(some, 2, 4) == 0.0);

  const ArrivalPattern node = pattern(ArrivalKind::node, 1e-3, {1});
  CHECK(at(node, 0, 4, 1) == 1e-3);
  CHECK(at(node, 3, 4, 0) == 0.0);

  // d_r = r / (P - 1) * MAX: exact for these.
  const ArrivalPattern linear = pattern(ArrivalKind::linear, 30e-6);
  CHECK(at(linear, 0, 4) == 0.0);
  CHECK(at(linear, 1, 4) == 30e-6 * 1 / 3);
  CHECK(at(linear, 3, 4) == 30e-6);
  CHECK(at(linear, 0, 1) == 0.0);  // alone: nobody to be late for

  ArrivalPattern file = pattern(ArrivalKind::file, 0);
  file.per_rank = {1e-6, 0, 7e-6};
  CHECK(at(file, 2, 3) == 7e-6);
  CHECK(at(file, 5, 8) == 0.0);  // beyond the file (a misfit the session refuses)
}

TEST_CASE("a random pattern draws anew each call, the same on every process", "[logic][arrival]") {
  ArrivalPattern random = pattern(ArrivalKind::random, 100e-6);
  random.seed = 7;
  const ArrivalDelays rank0(random, {0, 4, 0});
  const ArrivalDelays rank0_again(random, {0, 4, 1});  // the node does not matter
  const ArrivalDelays rank1(random, {1, 4, 0});
  std::set<double> seen;
  double low = 1, high = 0;
  for (std::uint64_t call = 0; call < 2000; ++call) {
    const double d = rank0.at(call);
    CHECK(d == rank0_again.at(call));  // reproducible
    CHECK(d == 100e-6 * arrival_draw(7, call, 0));
    seen.insert(d);
    low = std::min(low, d);
    high = std::max(high, d);
    CHECK(d >= 0.0);
    CHECK(d < 100e-6);
  }
  CHECK(seen.size() == 2000);  // anew each call
  CHECK(low < 1e-6);           // spread over [0, MAX)
  CHECK(high > 99e-6);
  CHECK(rank1.at(0) != rank0.at(0));
  random.seed = 8;
  CHECK(ArrivalDelays(random, {0, 4, 0}).at(0) != rank0.at(0));
  // The documented draw (docs/arrival.md), pinned with values computed
  // from that formula in Python: a change would change every published
  // pattern.
  CHECK(arrival_draw(1, 0, 0) == 6246602021646768 * 0x1.0p-53);
  CHECK(arrival_draw(1, 0, 0) == 0.6935121390102292);
  CHECK(arrival_draw(7, 3, 2) == 0.03624310559487476);
}

TEST_CASE("a pattern's delta is what paper 002 calls delta", "[logic][arrival]") {
  CHECK(arrival_delta(ArrivalPattern{}, 4, 1) == 0.0);
  CHECK(arrival_delta(pattern(ArrivalKind::rank, 10e-6, {0}), 4, 1) == 10e-6);
  CHECK(arrival_delta(pattern(ArrivalKind::rank, 10e-6, {4}), 4, 1) == 0.0);     // not a member
  CHECK(arrival_delta(pattern(ArrivalKind::rank, 10e-6, {0}), 1, 1) == 0.0);     // alone
  CHECK(arrival_delta(pattern(ArrivalKind::ranks, 2e-6, {0, 1}), 2, 1) == 0.0);  // all late
  CHECK(arrival_delta(pattern(ArrivalKind::ranks, 2e-6, {0, 1}), 3, 1) == 2e-6);
  CHECK(arrival_delta(pattern(ArrivalKind::node, 3e-6, {0}), 4, 2) == 3e-6);
  CHECK(arrival_delta(pattern(ArrivalKind::node, 3e-6, {0}), 4, 1) == 0.0);  // one node
  CHECK(arrival_delta(pattern(ArrivalKind::linear, 9e-6), 4, 1) == 9e-6);
  CHECK(arrival_delta(pattern(ArrivalKind::random, 9e-6), 4, 1) == 9e-6);
  ArrivalPattern file = pattern(ArrivalKind::file, 0);
  file.per_rank = {1e-6, 4e-6, 2e-6, 100e-6};
  CHECK(arrival_delta(file, 3, 1) == 4e-6 - 1e-6);  // of the ranks present
  CHECK(arrival_delta(file, 4, 1) == 100e-6 - 1e-6);
}

TEST_CASE("a pattern that does not fit the job says why", "[logic][arrival]") {
  CHECK_FALSE(arrival_misfit(pattern(ArrivalKind::rank, 1e-6, {3}), 4, 1));
  CHECK(*arrival_misfit(pattern(ArrivalKind::rank, 1e-6, {4}), 4, 1) ==
        "there is no rank 4: the job has 4 processes, ranks 0 to 3");
  CHECK(*arrival_misfit(pattern(ArrivalKind::ranks, 1e-6, {0, 9}), 2, 1) ==
        "there is no rank 9: the job has 2 processes, ranks 0 to 1");
  CHECK_FALSE(arrival_misfit(pattern(ArrivalKind::node, 1e-6, {1}), 4, 2));
  CHECK(*arrival_misfit(pattern(ArrivalKind::node, 1e-6, {1}), 4, 1) ==
        "there is no node 1: the job runs on 1 node, numbered from 0 in the order of their "
        "lowest rank");
  ArrivalPattern file = pattern(ArrivalKind::file, 0);
  file.path = "d.txt";
  file.per_rank = {0, 1e-6};
  CHECK_FALSE(arrival_misfit(file, 2, 1));
  CHECK(*arrival_misfit(file, 3, 1) ==
        "the delay file d.txt gives 2 delays for 3 processes: expected one per rank");
  CHECK_FALSE(arrival_misfit(pattern(ArrivalKind::linear, 1e-6), 1000, 10));
}

TEST_CASE("a job's arrival pattern: its fit, its delays and what the report says",
          "[logic][arrival]") {
  const ArrivalPattern late_node = pattern(ArrivalKind::node, 1e-3, {1});
  const JobArrival two_nodes(late_node, true, 4, 1, 2);
  CHECK(two_nodes.misfit_error().empty());
  REQUIRE(two_nodes.delays(3, 4));
  CHECK(two_nodes.delays(3, 4)->at(0) == 1e-3);  // this process is on node 1
  REQUIRE(two_nodes.report_info());
  CHECK(two_nodes.report_info()->pattern == "node:1:1ms");
  CHECK(two_nodes.report_info()->delta == 1e-3);
  CHECK(two_nodes.imposed_delay(4) == 1e-3);

  // One node: node 1 does not exist, and the error names the variable.
  const JobArrival one_node(late_node, true, 4, 0, 1);
  CHECK(one_node.misfit_error().find("HARMONIZE_ARRIVAL='node:1:1ms' does not fit this job") == 0);

  // Observing imposes nothing and reports nothing; no pattern fits any job.
  const JobArrival observing(late_node, false, 4, 1, 2);
  CHECK_FALSE(observing.delays(3, 4));
  CHECK_FALSE(observing.report_info());
  const JobArrival none(ArrivalPattern{}, true, 4, 0, 1);
  CHECK(none.misfit_error().empty());
  CHECK_FALSE(none.delays(0, 4));
  CHECK(none.imposed_delay(4) == 0.0);
}
