#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "report/json_report.hpp"
#include "report_samples.hpp"

using namespace harmonize::report;

namespace {

JobReport sample_report() {
  JobReport r;
  r.mode = "harmonize";
  r.job = {"1234",
           2,
           1,
           {"node1"},
           "Open MPI v4.1.4",
           "osu_allreduce",
           "2026-11-22T00:00:00Z",
           "2026-11-22T00:01:00Z"};
  r.config = {{"HARMONIZE_MODE", "harmonize"}, {"HARMONIZE_SYNC", "h2hca"}};
  r.clock.scheme = "h2hca";
  r.clock.time_source = "monotonic";
  r.clock.model = "linear";
  r.clock.offset_alg = "skampi";
  r.clock.fitpoints = 20;
  r.clock.pingpongs = 10;
  r.clock.initial_sync_seconds = 0.05;
  r.clock.sync_count = 3;
  r.clock.sync_seconds_total = 0.08;
  CommSummary world = testing::summary_of("MPI_COMM_WORLD", 2, "intra", 1000, 3);
  world.missed_events_per_rank = {1, 2};
  world.failure_rate = 0.003;
  world.resyncs = 2;
  world.resync_seconds = 0.01;
  world.slack_initial = 1e-5;
  world.slack_final = 2e-5;
  world.slack_max = 2e-5;
  world.slack_min = 1e-5;
  for (int i = 0; i < 10; ++i) world.exit_skew.add(42e-9);
  CommSummary self = testing::summary_of("MPI_COMM_SELF", 1, "self", 5, 1);
  self.exit_skew.add(0.0);
  r.communicators = {world, self};
  return r;
}

}  // namespace

TEST_CASE("a distribution serialises to count/mean/min/p50/p90/p99/max", "[report][json]") {
  Distribution d;
  d.add(1.0);
  d.add(3.0);
  const auto j = to_json(d);
  CHECK(j.size() == 7);
  CHECK(j["count"] == 2);
  CHECK(j["mean"] == 2.0);
  CHECK(j["min"] == 1.0);
  CHECK(j["max"] == 3.0);
  CHECK(j["p50"] == 1.0);
  CHECK(j["p99"] == 3.0);
  CHECK(to_json(Distribution{})["count"] == 0);
  CHECK(to_json(Distribution{})["p50"] == 0.0);
}

TEST_CASE("the job report has the documented top-level shape", "[report][json]") {
  const auto j = to_json(sample_report());
  CHECK(j["version"] == 1);
  CHECK(j["mode"] == "harmonize");
  CHECK(j["job"]["id"] == "1234");
  CHECK(j["job"]["ranks"] == 2);
  CHECK(j["job"]["nodes"] == 1);
  CHECK(j["job"]["hosts"] == nlohmann::json::array({"node1"}));
  CHECK(j["job"]["started"] == "2026-11-22T00:00:00Z");
  CHECK(j["config"]["HARMONIZE_SYNC"] == "h2hca");
  CHECK(j["clock"]["scheme"] == "h2hca");
  CHECK(j["clock"]["fitpoints"] == 20);
  CHECK(j["clock"]["test_clock"].is_null());
  REQUIRE(j["communicators"].size() == 2);
  const auto& world = j["communicators"][0];
  CHECK(world["name"] == "MPI_COMM_WORLD");
  CHECK(world["missed_events_per_rank"] == nlohmann::json::array({1, 2}));
  CHECK(world["failure_rate"] == 0.003);
  CHECK(world["slack"]["initial"] == 1e-5);
  CHECK(world["exit_skew"]["p50"] == 42e-9);
  CHECK(world["truth_exit_skew"]["count"] == 0);
  CHECK(j["totals"]["communicators"] == 2);
  CHECK(j["totals"]["calls"] == 1005);
  CHECK(j["totals"]["missed_calls_any"] == 4);
  CHECK(j["totals"]["failure_rate"] == 4.0 / 1005.0);
  CHECK(j["totals"]["exit_skew"]["count"] == 11);
  CHECK_FALSE(j.contains("report_file"));
}

TEST_CASE("the arrival pattern and its delta appear in mode harmonize", "[report][json]") {
  auto r = sample_report();
  CHECK(to_json(r)["arrival"].is_null());
  r.arrival = ArrivalInfo{"linear:30us", 30e-6};
  const auto j = to_json(r);
  CHECK(j["arrival"]["pattern"] == "linear:30us");
  CHECK(j["arrival"]["delta"] == 30e-6);
}

TEST_CASE("test clock parameters appear when active", "[report][json]") {
  auto r = sample_report();
  r.clock.test_clock = TestClockInfo{1e-3, 1e-6, 7, 2, "process"};
  const auto j = to_json(r);
  CHECK(j["clock"]["test_clock"]["scope"] == "process");
  CHECK(j["clock"]["test_clock"]["max_offset"] == 1e-3);
  CHECK(j["clock"]["test_clock"]["max_drift"] == 1e-6);
  CHECK(j["clock"]["test_clock"]["seed"] == 7);
  CHECK(j["clock"]["test_clock"]["node_size"] == 2);
}

TEST_CASE("the rendered report parses back and survives bad UTF-8", "[report][json]") {
  auto r = sample_report();
  r.job.program = "bench\xff";
  const std::string text = render_report(r);
  CHECK(text.back() == '\n');
  const auto parsed = nlohmann::json::parse(text);
  CHECK(parsed["version"] == 1);
  CHECK(parsed["communicators"][1]["name"] == "MPI_COMM_SELF");
}

TEST_CASE("one rendering holds what the session used to patch in", "[report][json]") {
  // The sync layer, the shared-clock check, the threads and the ground truth
  // were added to the JSON after rendering; now the report holds them.
  auto r = sample_report();
  auto plain = to_json(r);
  CHECK_FALSE(plain["clock"].contains("sync_nodes"));
  CHECK(plain["clock"]["shared_clock_check"].is_null());
  CHECK(plain["concurrent_harmonized_barriers"].is_null());
  CHECK(plain["communicators"][0]["truth_late_calls"].is_null());
  CHECK(plain["communicators"][0]["truth_space_violations"].is_null());

  r.clock.sync_layer = SyncLayerInfo{2, 2, "fell back"};
  SharedClockCheckInfo check;
  check.tolerance = 1e-6;
  check.checked_groups = 3;
  check.worst_host = "node1";
  check.worst_world_ranks = "4-7";
  r.clock.shared_clock_check = check;
  r.concurrent_harmonized_barriers = ThreadsInfo{1, 2};
  r.truth_known = true;
  r.communicators[0].truth_late_calls = 5;
  r.communicators[0].truth_space_violations = 0;
  const auto j = nlohmann::json::parse(render_report(r));
  CHECK(j["clock"]["sync_nodes"] == 2);
  CHECK(j["clock"]["sync_levels"] == 2);
  CHECK(j["clock"]["sync_note"] == "fell back");
  CHECK(j["clock"]["shared_clock_check"]["checked_groups"] == 3);
  CHECK(j["clock"]["shared_clock_check"]["worst_node"]["host"] == "node1");
  CHECK(j["clock"]["shared_clock_check"]["worst_node"]["world_ranks"] == "4-7");
  CHECK(j["concurrent_harmonized_barriers"]["peak_threads_rank0"] == 2);
  CHECK(j["communicators"][0]["truth_late_calls"] == 5);
  CHECK(j["communicators"][0]["truth_space_violations"] == 0);
  CHECK(j["communicators"][1]["truth_space_violations"].is_null());  // an aggregate
}
