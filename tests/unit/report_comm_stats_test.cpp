#include <catch2/catch.hpp>

#include <vector>

#include "report/comm_stats.hpp"

using harmonize::report::CommStats;
using harmonize::report::read_comm_stats;
using harmonize::report::summarize;
using harmonize::report::to_flat;

namespace {

CommStats rank_stats(int rank) {
  CommStats s;
  s.name = "MPI_COMM_WORLD";
  s.size = 3;
  s.kind = "intra";
  s.calls = 100;
  s.harmonized_calls = 98;
  s.missed_calls = static_cast<std::uint64_t>(rank);
  s.resyncs = 2;
  s.resync_seconds = 0.001 * (rank + 1);
  s.slack_initial = 1e-5 * (rank + 1);
  s.slack_final = 2e-5 * (rank + 1);
  s.slack_max = 4e-5 * (rank + 1);
  s.slack_min = 1e-6 * (rank + 1);
  if (rank == 0) s.exit_skew.add(5e-7);
  if (rank == 0) s.need.add(8e-6);
  s.lateness.add(1e-6 * (rank + 1));
  s.wait.add(2e-6);
  s.time_in_call.add(3e-6);
  return s;
}

}  // namespace

TEST_CASE("CommStats round-trips through the flat encoding", "[report][comm]") {
  CommStats s = rank_stats(1);
  s.truth_exit_skew.add(-1e-9);
  std::vector<double> flat;
  append_to(flat, s);
  append_to(flat, rank_stats(2));
  std::size_t offset = 0;
  auto back = read_comm_stats(flat, offset);
  auto second = read_comm_stats(flat, offset);
  REQUIRE(back);
  REQUIRE(second);
  CHECK(offset == flat.size());
  // Name and kind are not sent: rank 0 knows them.
  back->name = s.name;
  back->kind = s.kind;
  CHECK(*back == s);
  CHECK(second->missed_calls == 2);
}

TEST_CASE("a truncated CommStats encoding is rejected", "[report][comm]") {
  const auto flat = to_flat(rank_stats(0));
  std::size_t offset = 0;
  CHECK_FALSE(read_comm_stats(std::span(flat).first(flat.size() - 1), offset));
  CHECK(offset == 0);
}

TEST_CASE("summarize merges the ranks of one communicator", "[report][comm]") {
  const std::vector<CommStats> ranks{rank_stats(0), rank_stats(1), rank_stats(2)};
  const auto summary = summarize(ranks, 2);
  CHECK(summary.name == "MPI_COMM_WORLD");
  CHECK(summary.size == 3);
  CHECK(summary.kind == "intra");
  CHECK(summary.calls == 100);
  CHECK(summary.harmonized_calls == 98);
  CHECK(summary.missed_calls_any == 2);
  CHECK(summary.missed_events_per_rank == std::vector<std::uint64_t>{0, 1, 2});
  CHECK(summary.failure_rate == 2.0 / 98.0);
  CHECK(summary.resyncs == 2);
  CHECK(summary.resync_seconds == 0.003);
  CHECK(summary.slack_initial == 1e-5);  // rank 0 decides the deadline
  CHECK(summary.slack_final == 2e-5);
  CHECK(summary.slack_max == 4e-5);  // the root's: other ranks hold no slack
  CHECK(summary.slack_min == 1e-6);
  CHECK(summary.exit_skew.count() == 1);
  CHECK(summary.need.count() == 1);  // rank 0 reports the need every member agreed on
  CHECK(summary.lateness.count() == 3);
  CHECK(summary.lateness.max() == 3e-6);
  CHECK(summary.wait.count() == 3);
  CHECK(summary.time_in_call.count() == 3);
  CHECK(summary.truth_exit_skew.empty());
}

TEST_CASE("summarize without harmonized calls has a zero failure rate", "[report][comm]") {
  CommStats s;
  s.name = "MPI_COMM_SELF";
  s.size = 1;
  s.kind = "self";
  s.calls = 10;
  const auto summary = summarize(std::vector<CommStats>{s}, 0);
  CHECK(summary.failure_rate == 0.0);
  CHECK(summary.calls == 10);
  CHECK(summarize(std::vector<CommStats>{}, 0).calls == 0);
}

TEST_CASE("accumulate adds another communicator's record", "[report]") {
  using harmonize::report::CommStats;
  CommStats total;
  total.calls = 2;
  total.missed_calls = 1;
  total.resync_seconds = 0.5;
  total.slack_min = 2e-6;
  total.slack_max = 3e-6;
  total.wait.add(1e-6);
  CommStats more;
  more.calls = 3;
  more.harmonized_calls = 3;
  more.resyncs = 1;
  more.resync_seconds = 0.25;
  more.slack_min = 1e-6;
  more.slack_max = 5e-6;
  more.slack_final = 4e-6;
  more.wait.add(2e-6);
  harmonize::report::accumulate(total, more);
  CHECK(total.calls == 5);
  CHECK(total.harmonized_calls == 3);
  CHECK(total.missed_calls == 1);
  CHECK(total.resyncs == 1);
  CHECK(total.resync_seconds == 0.75);
  CHECK(total.slack_min == 1e-6);
  CHECK(total.slack_max == 5e-6);
  CHECK(total.slack_final == 4e-6);
  CHECK(total.wait.count() == 2);
  CHECK(total.wait.max() == 2e-6);
}

TEST_CASE("per-process records add their calls up; one communicator's ranks do not",
          "[report][comm]") {
  // Issue 8 item 6: 4 processes' MPI_COMM_SELF barriers were reported as the
  // most of one process.
  std::vector<CommStats> processes;
  for (int rank = 0; rank < 4; ++rank) {
    CommStats s;
    s.name = "size-1 communicators";
    s.kind = "self";
    s.size = 1;
    s.calls = 1000 + static_cast<std::uint64_t>(rank);
    s.not_harmonized_calls = static_cast<std::uint64_t>(rank);
    s.resyncs = 1;
    processes.push_back(s);
  }
  const auto summed = summarize(processes, 0, harmonize::report::Merge::per_process);
  CHECK(summed.calls == 4006);
  CHECK(summed.not_harmonized_calls == 6);
  CHECK(summed.resyncs == 4);
  const auto same = summarize(processes, 0, harmonize::report::Merge::same_calls);
  CHECK(same.calls == 1003);
  CHECK(same.not_harmonized_calls == 3);
  CHECK(same.resyncs == 1);
}

TEST_CASE("calls not harmonized travel with the statistics, the reason with the summary",
          "[report][comm]") {
  CommStats s = rank_stats(0);
  s.not_harmonized_calls = 17;
  std::size_t offset = 0;
  const std::vector<double> flat = to_flat(s);
  const auto back = read_comm_stats(flat, offset);
  REQUIRE(back);
  CHECK(back->not_harmonized_calls == 17);
  std::vector<CommStats> ranks{rank_stats(0), rank_stats(1)};
  ranks[1].not_harmonized_calls = 5;
  ranks[1].not_harmonized_reason = "clock sync: PMPI_Send failed";
  const auto summary = summarize(ranks, 0);
  CHECK(summary.not_harmonized_calls == 5);
  CHECK(summary.not_harmonized_reason == "clock sync: PMPI_Send failed");
}
