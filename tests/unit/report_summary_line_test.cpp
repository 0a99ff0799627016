#include <catch2/catch.hpp>

#include "common/collective_kind.hpp"
#include "report/summary_line.hpp"
#include "report_samples.hpp"

using namespace harmonize::report;

namespace {

CommSummary world_summary() {
  CommSummary c = testing::summary_of("MPI_COMM_WORLD", 2, "intra", 1000, 3);
  c.failure_rate = 0.003;
  c.resyncs = 2;
  // 50 samples: p99 has rank 50, the exact maximum.
  for (int i = 0; i < 50; ++i) c.exit_skew.add(i < 49 ? 42e-9 : 130e-9);
  return c;
}

JobReport harmonize_report() {
  JobReport r;
  r.mode = "harmonize";
  r.job.ranks = 2;
  r.job.nodes = 1;
  r.clock.scheme = "h2hca";
  r.communicators = {world_summary()};
  r.report_file = "harmonize-1234.json";
  return r;
}

}  // namespace

TEST_CASE("the summary line of a harmonized run", "[report][summary]") {
  CHECK(summary_line(harmonize_report()) ==
        "harmonize: mode=harmonize 2 ranks 1 node sync=h2hca | MPI_COMM_WORLD: 1000 barriers, "
        "3 missed (0.3%), 0 late, exit skew p50 42 ns p99 130 ns, 2 resyncs | report "
        "harmonize-1234.json");
}

TEST_CASE("late exits are shown beside the misses", "[report][summary]") {
  auto r = harmonize_report();
  r.communicators[0].late_calls_any = 7;
  r.communicators[0].late_rate = 0.007;
  CHECK(summary_line(r).find("3 missed (0.3%), 7 late (0.7%), exit skew") != std::string::npos);
}

TEST_CASE("observe mode shows no deadline figures", "[report][summary]") {
  auto r = harmonize_report();
  r.mode = "observe";
  r.report_file.clear();
  CHECK(summary_line(r) ==
        "harmonize: mode=observe 2 ranks 1 node sync=h2hca | MPI_COMM_WORLD: 1000 barriers, "
        "exit skew p50 42 ns p99 130 ns | report none");
}

TEST_CASE("other communicators are summed after the busiest one", "[report][summary]") {
  auto r = harmonize_report();
  CommSummary sub;
  sub.name = "comm#3 (size 1)";
  sub.calls = 10;
  sub.harmonized_calls = 10;
  sub.missed_calls_any = 1;
  sub.failure_rate = 0.1;
  r.communicators.insert(r.communicators.begin(), sub);
  r.communicators.push_back(sub);
  const std::string line = summary_line(r);
  CHECK(line.find("| MPI_COMM_WORLD: 1000 barriers") != std::string::npos);
  CHECK(line.find("| +2 communicators: 20 barriers, 2 missed (10%), 0 late |") !=
        std::string::npos);
}

TEST_CASE("a job without communicators still gets a line", "[report][summary]") {
  JobReport r;
  r.mode = "off";
  r.job.ranks = 1;
  r.job.nodes = 1;
  CHECK(summary_line(r) == "harmonize: mode=off 1 rank 1 node | report none");
}

TEST_CASE("the summary line is a single line", "[report][summary]") {
  CHECK(summary_line(harmonize_report()).find('\n') == std::string::npos);
}

TEST_CASE("the skew carries the clock-error bound and the end check", "[report][summary]") {
  auto r = harmonize_report();
  for (int i = 0; i < 3; ++i) r.communicators[0].clock_error_bound.add(180e-9);
  ClockCheckInfo check;
  check.checked = 1;
  check.max_offset = 12e-9;
  check.max_uncertainty = 400e-9;
  r.clock.end_check = check;
  CHECK(summary_line(r).find("exit skew p50 42 ns p99 130 ns (clock error <= 180 ns, checked "
                             "12 ns +- 400 ns at end), 2 resyncs") != std::string::npos);
  r.clock.end_check->inconsistent = 1;
  CHECK(summary_line(r).find("at end (beyond the bound))") != std::string::npos);
  // The likely bound follows where it is tighter, and only there.
  for (int i = 0; i < 3; ++i) r.communicators[0].clock_error_likely.add(180e-9);
  CHECK(summary_line(r).find("likely") == std::string::npos);
  r.communicators[0].clock_error_likely = {};
  for (int i = 0; i < 3; ++i) r.communicators[0].clock_error_likely.add(30e-9);
  CHECK(summary_line(r).find("(clock error <= 180 ns, likely <= 30 ns, checked ") !=
        std::string::npos);
}

TEST_CASE("the collective calls timed are counted in the line", "[report][summary]") {
  JobReport r = harmonize_report();
  MatchedCall call;
  call.key = {0, 8, -1};
  call.valid = true;
  r.communicators[0].collectives.add_matched(call);
  call.valid = false;
  r.communicators[0].collectives.add_matched(call);
  call.key = {2, 1024, 1};
  r.communicators[0].collectives.add_matched(call);
  r.communicators[0].collective_calls_unmatched = 5;
  CHECK_THAT(summary_line(r),
             Catch::Contains("2 resyncs, 3 collective calls timed (1 valid, 2 keys), 5 unmatched "
                             "| report"));
}

TEST_CASE("native barriers timed as the operation under test are counted apart",
          "[report][summary]") {
  // Mode observe: "100 barriers ... 100 collective calls timed (0 valid,
  // 1 key)" counted each barrier twice, as if 100 other calls were made.
  JobReport r = harmonize_report();
  MatchedCall call;
  call.key = {static_cast<int>(harmonize::Collective::barrier), 0, -1};
  for (int i = 0; i < 3; ++i) r.communicators[0].collectives.add_matched(call);
  const std::string line = summary_line(r);
  CHECK_THAT(line,
             Catch::Contains(", 3 of the barriers timed as the operation under test | report"));
  CHECK_THAT(line, !Catch::Contains("collective call"));
  call.key = {0, 8, -1};
  call.valid = true;
  r.communicators[0].collectives.add_matched(call);
  CHECK_THAT(summary_line(r),
             Catch::Contains("1 collective call timed (1 valid, 1 key), 3 of the barriers timed as "
                             "the operation under test"));
}

TEST_CASE("a timeline written nowhere is said in the line", "[report][summary]") {
  JobReport r = harmonize_report();
  r.trace = TraceInfo{};
  CHECK_THAT(summary_line(r), !Catch::Contains("timeline lost"));
  r.trace->lost = "/gone/t.json";
  CHECK_THAT(summary_line(r),
             Catch::Contains(" | timeline lost: /gone/t.json not written | report"));
}

TEST_CASE("the line is about a real communicator, not the sum of the size-1 ones",
          "[report][summary]") {
  JobReport r = harmonize_report();
  CommSummary alone;
  alone.name = "size-1 communicators (MPI_COMM_SELF and others, all processes)";
  alone.kind = "self";
  alone.calls = 5000;  // summed over every process
  r.communicators.push_back(alone);
  CHECK_THAT(summary_line(r), Catch::Contains("| MPI_COMM_WORLD: 1000 barriers"));
}

TEST_CASE("an arrival pattern is named, and the skew said to be against it",
          "[report][summary][arrival]") {
  JobReport r = harmonize_report();
  r.arrival = ArrivalInfo{"rank:0:10us", 10e-6};
  CHECK(summary_line(r) ==
        "harmonize: mode=harmonize 2 ranks 1 node sync=h2hca arrival=rank:0:10us | "
        "MPI_COMM_WORLD: 1000 barriers, 3 missed (0.3%), 0 late, exit skew vs pattern p50 42 ns "
        "p99 130 ns, 2 resyncs | report harmonize-1234.json");
  r.arrival = ArrivalInfo{"none", 0};  // harmonized, no pattern: as before
  CHECK(summary_line(r) == summary_line(harmonize_report()));
}

// Issue 25, D4: the intercommunicators' record sums every process's calls.
TEST_CASE("the line is about a real communicator, not the sum of the intercommunicators",
          "[report][summary]") {
  JobReport r = harmonize_report();
  r.mode = "observe";
  r.communicators[0].calls = 10;
  CommSummary inter;
  inter.name = "intercommunicators (all processes)";
  inter.kind = "inter";
  inter.calls = 200;  // 2 processes x 100
  inter.collective_calls_unmatched = 400;
  r.communicators.push_back(inter);
  CHECK(summary_line(r) ==
        "harmonize: mode=observe 2 ranks 1 node sync=h2hca | MPI_COMM_WORLD: 10 barriers, exit "
        "skew p50 42 ns p99 130 ns | +1 communicator: 200 barriers, 400 collective calls on "
        "intercommunicators (not matched) | report harmonize-1234.json");
  // Alone, it is shown, its calls said to be not matched.
  r.communicators.erase(r.communicators.begin());
  CHECK_THAT(summary_line(r),
             Catch::Contains("| intercommunicators (all processes): 200 barriers, 400 collective "
                             "calls on intercommunicators (not matched) |"));
}

// Issue 25, minor (d): matched calls beyond the 64 keys are counted, and said.
TEST_CASE("calls over the key limit are said in the line", "[report][summary]") {
  JobReport r = harmonize_report();
  MatchedCall call;
  call.key = {0, 8, -1};
  r.communicators[0].collectives.add_matched(call);
  r.communicators[0].collectives.calls_over_key_limit() = 44544;
  CHECK_THAT(summary_line(r),
             Catch::Contains("2 resyncs, 1 collective call timed (0 valid, 1 key), 44544 more not "
                             "recorded per key (over the 64-key limit) | report"));
  CommSummary sub;
  sub.name = "comm#1@0 (size 2)";
  sub.kind = "intra";
  sub.calls = 5;
  sub.collectives.calls_over_key_limit() = 7;
  sub.collective_calls_unmatched = 3;
  r.communicators.push_back(sub);
  CHECK_THAT(summary_line(r),
             Catch::Contains("| +1 communicator: 5 barriers, 0 missed, 0 late, 7 collective calls "
                             "not recorded per key, 3 collective calls unmatched | report"));
}

// Issue 25, minor (c): the nodes are the library's (node:N's), hosts beside.
TEST_CASE("virtual nodes are counted as nodes, the hosts said beside", "[report][summary]") {
  JobReport r = harmonize_report();
  r.job.ranks = 4;
  r.job.nodes = 2;
  r.job.hosts = {"vm"};
  CHECK_THAT(summary_line(r), Catch::StartsWith("harmonize: mode=harmonize 4 ranks 2 nodes (1 "
                                                "host) sync=h2hca |"));
  r.job.hosts = {"a", "b"};
  CHECK_THAT(summary_line(r), Catch::StartsWith("harmonize: mode=harmonize 4 ranks 2 nodes sync="));
}

// Issue 25, D6: a report written nowhere is not "report none".
TEST_CASE("a lost report is said to be lost", "[report][summary]") {
  JobReport r = harmonize_report();
  r.report_file.clear();
  r.report_lost = "out/r.json";
  CHECK_THAT(summary_line(r), Catch::EndsWith("| report lost: out/r.json not written"));
}
