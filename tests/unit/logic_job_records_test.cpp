#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "harmonize/logic/job_records.hpp"
#include "report/json_report.hpp"
#include "sync/tree_schedule.hpp"

using namespace harmonize;
using namespace harmonize::logic;

namespace {

// One process's records of a job: MPI_COMM_WORLD, a communicator of the
// even world ranks (comm rank = world rank / 2), the size-1 aggregate, and a
// folded record rooted at world rank 0; every number drawn from `seed`.
ProcessContribution process_of(int world_rank, int world_size, std::uint32_t seed) {
  std::mt19937 random(seed * 7919u + static_cast<std::uint32_t>(world_rank));
  std::uniform_int_distribution<int> small(0, 5);
  std::uniform_real_distribution<double> seconds(1e-7, 1e-4);
  const auto stats_of = [&](const std::string& name, int size, const std::string& kind) {
    report::CommStats s;
    s.name = name;
    s.size = size;
    s.kind = kind;
    s.calls = 40;
    s.harmonized_calls = 40;
    s.missed_calls = static_cast<std::uint64_t>(small(random));
    s.late_calls = static_cast<std::uint64_t>(small(random)) / 2;
    s.truth_late_calls = static_cast<std::uint64_t>(small(random));
    s.resyncs = 1;
    s.resync_seconds = seconds(random);
    s.slack_initial = 1e-6 * (world_rank + 1);
    s.slack_final = 2e-6 * (world_rank + 1);
    for (int i = 0; i < 40; ++i) {
      s.wait.add(seconds(random));
      s.time_in_call.add(seconds(random));
      if (world_rank == 0) s.exit_skew.add(seconds(random));
    }
    if (s.missed_calls > 0) s.lateness.add(seconds(random));
    const report::CollectiveKey allreduce{2, 64, -1};
    s.collectives.add_local(allreduce, small(random) > 0, seconds(random));
    if (world_rank == 0) {
      s.collectives.add_matched({allreduce, seconds(random), seconds(random), seconds(random),
                                 seconds(random), seconds(random), true});
    }
    return s;
  };
  ProcessContribution process;
  process.host = "node" + std::to_string(world_rank / 32);
  CommRecord world;
  world.key = {0, 0};
  world.rank = world_rank;
  world.stats = stats_of("MPI_COMM_WORLD", world_size, "intra");
  if (world_rank == 0) {
    world.missed_any = 7;
    world.late_any = 2;
  }
  for (int call = 0; call < 3; ++call) {
    world.pending.push_back({1.0 + call + seconds(random), 0.0, 0.0, small(random) == 0, false,
                             seconds(random), 0.0, 0.0, 0.0});
  }
  process.records.push_back(world);
  if (world_rank % 2 == 0) {
    CommRecord even;
    even.key = {0, 1};
    even.rank = world_rank / 2;
    even.stats = stats_of("comm#1@0 (size " + std::to_string((world_size + 1) / 2) + ")",
                          (world_size + 1) / 2, "intra");
    process.records.push_back(even);
  }
  // Comm ranks in the reverse order of world ranks: its rank 0 comes last.
  CommRecord reversed;
  reversed.key = {static_cast<std::uint64_t>(world_size - 1), 2};
  reversed.rank = world_size - 1 - world_rank;
  reversed.stats = stats_of("reversed", world_size, "intra");
  if (reversed.rank == 0) reversed.missed_any = 3;
  process.records.push_back(reversed);
  CommRecord self;
  self.key = {kPerProcessRoot, 0};
  self.rank = world_rank;
  self.stats =
      stats_of("size-1 communicators (MPI_COMM_SELF and others, all processes)", 1, "self");
  process.records.push_back(self);
  if (world_rank < 4) {
    CommRecord folded;
    folded.key = {0, kFoldedSerialBase + 4};
    folded.rank = world_rank;
    folded.stats =
        stats_of("freed communicators of size 4 rooted at world rank 0 (folded)", 4, "intra");
    process.records.push_back(folded);
  }
  if (world_rank % 5 == 3) {
    process.clock_fallback = {1e-6 * world_rank, world_rank / 32, {world_rank / 32}, true};
  }
  process.threaded = world_rank % 7 == 1;
  process.refused_resyncs = world_rank % 5 == 2 ? 2 : 0;
  return process;
}

// What world rank 0 holds after the binomial tree, every message encoded and
// decoded on the way, as sync::merge_up_tree runs it.
JobRecords tree_merge(int size, std::uint32_t seed) {
  std::map<int, std::vector<double>> sent;
  JobRecords root;
  for (int rank = size - 1; rank >= 0; --rank) {
    JobRecords mine = records_of(process_of(rank, size, seed));
    for (const int child : sync::tree_children(rank, size)) {
      auto decoded = decode_job_records(sent.at(child));
      REQUIRE(decoded);
      merge_into(mine, *decoded);
      sent.erase(child);
    }
    if (rank == 0) {
      root = std::move(mine);
    } else {
      sent[rank] = encode(mine);
    }
  }
  return root;
}

// The same records merged one process after another (the reference).
JobRecords linear_merge(int size, std::uint32_t seed) {
  JobRecords all;
  for (int rank = 0; rank < size; ++rank) merge_into(all, records_of(process_of(rank, size, seed)));
  return all;
}

// Sums of many doubles may round differently in another grouping: numbers
// are compared to 12 significant digits, everything else exactly.
nlohmann::json rounded(nlohmann::json value) {
  if (value.is_number_float()) {
    const double x = value.get<double>();
    if (x == 0) return 0.0;
    const double scale = std::pow(10.0, 11 - std::floor(std::log10(std::fabs(x))));
    return std::round(x * scale) / scale;
  }
  if (value.is_structured()) {
    for (auto& item : value) item = rounded(item);
  }
  return value;
}

nlohmann::json report_of(const JobRecords& records) {
  nlohmann::json out = nlohmann::json::array();
  for (const MergedCommunicator& comm : finish(records, true)) {
    nlohmann::json one = report::to_json(comm.summary);
    one["space_violations"] =
        comm.space_violations ? nlohmann::json(*comm.space_violations) : nlohmann::json();
    out.push_back(rounded(one));
  }
  return out;
}

}  // namespace

TEST_CASE("the tree schedule reaches every rank once, rank 0 in ceil(log2 P) messages",
          "[logic][tree]") {
  for (const int size : {1, 2, 3, 7, 8, 96, 300, 1000}) {
    std::vector<int> received(static_cast<std::size_t>(size), 0);
    for (int rank = 0; rank < size; ++rank) {
      int previous = rank;
      for (const int child : sync::tree_children(rank, size)) {
        CHECK(sync::tree_parent(child) == rank);
        CHECK(child > previous);  // in increasing order: the merge visits ranks in order
        // A subtree is the ranks right after its root.
        CHECK(sync::tree_subtree_last(child, size) >= child);
        previous = sync::tree_subtree_last(child, size);
        ++received[static_cast<std::size_t>(child)];
      }
      CHECK(previous == sync::tree_subtree_last(rank, size));
    }
    CHECK(std::count(received.begin() + 1, received.end(), 1) == size - 1);
    const auto rounds = static_cast<std::size_t>(std::ceil(std::log2(std::max(size, 1))));
    CHECK(sync::tree_children(0, size).size() == rounds);
  }
}

TEST_CASE("records merged up the tree give the report a linear merge gives", "[logic][tree]") {
  for (const int size : {1, 2, 3, 96, 300}) {
    CAPTURE(size);
    const JobRecords tree = tree_merge(size, 11);
    const JobRecords linear = linear_merge(size, 11);
    CHECK(report_of(tree) == report_of(linear));
    CHECK(tree.hosts == linear.hosts);
    CHECK(tree.threaded_processes == linear.threaded_processes);
    CHECK(tree.refused_resyncs == linear.refused_resyncs);
    std::uint64_t refused = 0;
    for (int rank = 0; rank < size; ++rank) refused += rank % 5 == 2 ? 2 : 0;
    CHECK(tree.refused_resyncs == refused);
    CHECK(tree.fallbacks.worst == linear.fallbacks.worst);
    CHECK(tree.fallbacks.nodes == linear.fallbacks.nodes);
    CHECK(tree.missing.empty());
    // Counts known exactly from the inputs.
    const auto merged = finish(tree, true);
    REQUIRE(merged.size() == 5u);
    CHECK(merged[0].summary.name == "MPI_COMM_WORLD");
    CHECK(merged[0].summary.missed_events_per_rank.size() == static_cast<std::size_t>(size));
    CHECK(merged[0].summary.wait.count() == 40u * static_cast<std::uint64_t>(size));
    CHECK(merged[0].summary.slack_initial == 1e-6);  // world rank 0's
    const auto found = std::find_if(merged.begin(), merged.end(), [](const auto& comm) {
      return comm.summary.name == "reversed";
    });
    REQUIRE(found != merged.end());
    const report::CommSummary& reversed = found->summary;
    CHECK(reversed.slack_initial == 1e-6 * size);  // its rank 0's: the last world rank's
    CHECK(reversed.missed_calls_any == 3);
    CHECK(reversed.missed_events_per_rank.front() ==
          process_of(size - 1, size, 11).records[size % 2 == 1 ? 2 : 1].stats.missed_calls);
    std::uint64_t truth_late = 0;
    for (int rank = 0; rank < size; ++rank)
      truth_late += process_of(rank, size, 11).records.front().stats.truth_late_calls;
    CHECK(merged[0].summary.truth_late_calls == truth_late);
  }
}

TEST_CASE("past kRanksListed ranks the report keeps the worst ranks, exactly", "[logic][tree]") {
  const int size = static_cast<int>(report::kRanksListed) + 300;
  const JobRecords tree = tree_merge(size, 5);
  const auto merged = finish(tree, true);
  const report::CommSummary& world = merged.front().summary;
  CHECK(world.missed_events_per_rank.empty());
  REQUIRE(world.missed_events_worst);
  REQUIRE(world.late_events_worst);
  // The reference: every rank's events, sorted the way the report sorts.
  std::vector<std::pair<int, std::uint64_t>> all;
  std::uint64_t with_missed = 0;
  for (int rank = 0; rank < size; ++rank) {
    const auto missed = process_of(rank, size, 5).records.front().stats.missed_calls;
    with_missed += missed > 0 ? 1 : 0;
    if (missed > 0) all.emplace_back(rank, missed);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  all.resize(report::kWorstRanks);
  CHECK(world.missed_events_worst->worst == all);
  CHECK(world.missed_events_worst->ranks_with_events == with_missed);
  const nlohmann::json json = report::to_json(world);
  CHECK_FALSE(json.contains("missed_events_per_rank"));
  CHECK(json["missed_events_worst_ranks"]["worst"].size() == report::kWorstRanks);
  // The even ranks' communicator is small enough to list.
  CHECK(merged[1].summary.missed_events_per_rank.size() == static_cast<std::size_t>(size + 1) / 2);
}

TEST_CASE("a truncated or foreign tree message is rejected", "[logic][tree]") {
  const std::vector<double> flat = encode(records_of(process_of(1, 4, 3)));
  CHECK(decode_job_records(flat));
  for (std::size_t cut = 0; cut < flat.size(); cut += 7)
    CHECK_FALSE(decode_job_records(std::span(flat).first(cut)));
  std::vector<double> other = flat;
  other.front() = 99;  // another layout
  CHECK_FALSE(decode_job_records(other));
}
