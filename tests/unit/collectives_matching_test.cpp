// Matching the timed calls of one communicator across its members
// (harmonize/collectives/collective_matching.hpp), exactly: the members run on
// the simulator (its transport gives the collectives), each with a global
// clock of known offset and error bound, and the calls' stamps are dyadic so
// that every figure is exact in binary.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "clock/error_bound.hpp"
#include "clock/global_clock.hpp"
#include "clock/model_stack.hpp"
#include "fixed_source.hpp"
#include "harmonize/collectives/collective_matching.hpp"
#include "report/comm_stats.hpp"
#include "sync/sim_world.hpp"

using harmonize::Collective;
using namespace harmonize::collectives;
using harmonize::report::CollectiveKey;
using harmonize::report::CollectiveStats;
using harmonize::report::CollectiveTable;
using harmonize::report::CommStats;
namespace clk = harmonize::clock;
namespace sim = harmonize::sync::simulator;

namespace {

constexpr CommId kComm{1};
constexpr int kAllreduce = static_cast<int>(Collective::allreduce);
constexpr int kBcast = static_cast<int>(Collective::bcast);

TimedCall call(Collective operation, std::uint64_t bytes, std::int32_t root, double entry,
               double exit, bool after_barrier = false, double delay = 0) {
  return {.entry = entry,
          .exit = exit,
          .bytes = bytes,
          .comm = kComm,
          .delay = delay,
          .root = root,
          .operation = operation,
          .after_barrier = after_barrier};
}

// One member: its local clock reads global time + `offset`, within `bound`
// of the reference.
struct Member {
  double offset = 0;
  double bound = 0;
  PendingCalls pending;
};

// Every member matches its calls at once, as at a barrier; their records by rank.
std::vector<CommStats> match_on(const std::vector<Member>& members) {
  sim::SimSpec spec;
  for (std::size_t rank = 0; rank < members.size(); ++rank) {
    spec.node_of_rank.push_back(static_cast<int>(rank));
    spec.node_clocks.push_back({});
  }
  sim::SimWorld world(spec);
  std::vector<CommStats> stats(members.size());
  world.run([&](sim::SimProcess& self, harmonize::sync::Transport& transport) {
    const auto me = static_cast<std::size_t>(self.world_rank());
    const Member& member = members[me];
    const clk::testing::FixedSource unused(0.0);  // the stamps are already read
    const clk::GlobalClock clock(
        unused,
        clk::ModelStack{}.with({0.0, member.offset}, clk::ErrorBound{0.0, member.bound, 0.0}));
    match_collectives(transport, clock, member.pending, stats[me]);
  });
  return stats;
}

const CollectiveStats& key_of(const CommStats& stats, const CollectiveKey& key) {
  const auto& keys = stats.collectives.keys();
  const auto found = std::find_if(keys.begin(), keys.end(),
                                  [&](const CollectiveStats& s) { return s.key == key; });
  INFO("key {" << key.operation << ", " << key.bytes << ", " << key.root << "}");
  REQUIRE(found != keys.end());
  return *found;
}

}  // namespace

TEST_CASE("a communicator of one process: each call is its own t_global, no skew",
          "[protocol][collectives]") {
  PendingCalls pending;
  pending.calls = {call(Collective::allreduce, 8, -1, 1.0, 1.25, true, 2e-6),
                   call(Collective::bcast, 1024, 0, 2.0, 2.5),
                   call(Collective::allreduce, 8, -1, 3.0, 3.125)};
  pending.calls_seen = 5;  // two beyond what was kept
  CommStats stats;
  match_alone(pending, stats);

  CHECK(stats.collective_calls_unmatched == 2);
  REQUIRE(stats.collectives.keys().size() == 2);
  const CollectiveStats& allreduce = stats.collectives.keys()[0];  // sorted by key
  CHECK(allreduce.key == CollectiveKey{kAllreduce, 8, -1});
  CHECK(allreduce.calls == 2);
  CHECK(allreduce.valid_calls == 1);  // the first followed a barrier left in time
  CHECK(allreduce.clock_error_bound == 0.0);
  CHECK(allreduce.arrival_skew.count() == 2);
  CHECK(allreduce.arrival_skew.max() == 0.0);
  CHECK(allreduce.t_global.min() == 0.125);
  CHECK(allreduce.t_global.max() == 0.25);
  CHECK(allreduce.t_all_present == allreduce.t_global);
  CHECK(allreduce.local == allreduce.t_global);
  CHECK(allreduce.valid_t_global.count() == 1);
  CHECK(allreduce.valid_t_global.max() == 0.25);
  CHECK(allreduce.valid_local.count() == 1);
  CHECK(allreduce.valid_local.max() == 0.25);
  CHECK(allreduce.valid_arrival_error.max() == 0.0);  // alone: no pattern to miss
  const CollectiveStats& bcast = stats.collectives.keys()[1];
  CHECK(bcast.key == CollectiveKey{kBcast, 1024, 0});
  CHECK(bcast.calls == 1);
  CHECK(bcast.valid_calls == 0);
  CHECK(bcast.t_global.max() == 0.5);
  CHECK(bcast.local.max() == 0.5);
  CHECK(bcast.valid_local.empty());
}

TEST_CASE("a communicator of one process keeps 64 keys; calls under others are counted",
          "[protocol][collectives]") {
  PendingCalls pending;
  const std::size_t keys = CollectiveTable::kMaxKeys + 2;
  for (std::uint64_t bytes = 1; bytes <= keys; ++bytes)
    pending.calls.push_back(call(Collective::allreduce, bytes, -1, 1.0, 1.5));
  pending.calls.push_back(call(Collective::allreduce, keys, -1, 2.0, 2.5));  // over the limit again
  pending.calls.push_back(call(Collective::allreduce, 1, -1, 3.0, 3.25));    // a kept key
  pending.calls_seen = pending.calls.size();
  CommStats stats;
  match_alone(pending, stats);
  CHECK(stats.collectives.keys().size() == CollectiveTable::kMaxKeys);
  CHECK(stats.collectives.calls_over_key_limit() == 3);
  CHECK(stats.collectives.keys().back().key.bytes == CollectiveTable::kMaxKeys);
  const CollectiveStats& first = stats.collectives.keys().front();
  CHECK(first.calls == 2);
  CHECK(first.local.count() == 2);
  CHECK(stats.collective_calls_unmatched == 0);
}

TEST_CASE("members' calls are matched on the global clock: skew, t_global, validity, bounds",
          "[protocol][collectives]") {
  std::vector<Member> members(3);
  // Global time = local - offset. Call 0: an allreduce right after a
  // harmonized barrier every member left in time, with delays 0, 0.25 and
  // 0.125 (HARMONIZE_ARRIVAL); entries at global 10, 10.25, 10.125, exits
  // at 10.5, 10.75, 10.625. Call 1: a bcast from root 1 whose members name
  // different sizes (a v variant), entries at global 20, 20.5, 20, exits at
  // 20.25, 20.75, 20.5, not after a barrier.
  members[0] = {0.0, 1e-6, {}};
  members[0].pending.calls = {call(Collective::allreduce, 8, -1, 10.0, 10.5, true, 0.0),
                              call(Collective::bcast, 1024, 1, 20.0, 20.25)};
  members[1] = {1.0, 4e-6, {}};
  members[1].pending.calls = {call(Collective::allreduce, 8, -1, 11.25, 11.75, true, 0.25),
                              call(Collective::bcast, 1024, 1, 21.5, 21.75)};
  members[2] = {-2.0, 2e-6, {}};
  members[2].pending.calls = {call(Collective::allreduce, 8, -1, 8.125, 8.625, true, 0.125),
                              call(Collective::bcast, 2048, 1, 18.0, 18.5)};
  for (Member& member : members) member.pending.calls_seen = 2;

  const std::vector<CommStats> stats = match_on(members);

  // Rank 0: the cross-member figures.
  const CommStats& root = stats[0];
  REQUIRE(root.collectives.keys().size() == 2);
  const CollectiveStats& allreduce = key_of(root, {kAllreduce, 8, -1});
  CHECK(allreduce.calls == 1);
  CHECK(allreduce.valid_calls == 1);
  CHECK(allreduce.arrival_skew.max() == 0.25);  // 10.25 - 10
  CHECK(allreduce.t_global.max() == 0.75);      // 10.75 - 10
  CHECK(allreduce.t_all_present.max() == 0.5);  // 10.75 - 10.25
  CHECK(allreduce.clock_error_bound == 4e-6);   // the largest member's
  CHECK(allreduce.valid_arrival_skew.max() == 0.25);
  CHECK(allreduce.valid_arrival_error.count() == 1);
  CHECK(allreduce.valid_arrival_error.max() == 0.0);  // exactly the imposed pattern
  CHECK(allreduce.valid_t_global.max() == 0.75);
  const CollectiveStats& bcast = key_of(root, {kBcast, 2048, 1});  // the largest size
  CHECK(bcast.calls == 1);
  CHECK(bcast.valid_calls == 0);
  CHECK(bcast.arrival_skew.max() == 0.5);
  CHECK(bcast.t_global.max() == 0.75);
  CHECK(bcast.t_all_present.max() == 0.25);
  CHECK(bcast.valid_t_global.empty());

  // Every member: its own time in each call, under the agreed key.
  const double bcast_local[3] = {0.25, 0.25, 0.5};
  for (std::size_t rank = 0; rank < stats.size(); ++rank) {
    INFO("rank " << rank);
    CHECK(stats[rank].collective_calls_unmatched == 0);
    REQUIRE(stats[rank].collectives.keys().size() == 2);
    const CollectiveStats& mine = key_of(stats[rank], {kAllreduce, 8, -1});
    CHECK(mine.local.count() == 1);
    CHECK(mine.local.max() == 0.5);
    CHECK(mine.valid_local.max() == 0.5);
    const CollectiveStats& theirs = key_of(stats[rank], {kBcast, 2048, 1});
    CHECK(theirs.local.max() == bcast_local[rank]);
    CHECK(theirs.valid_local.empty());
    if (rank > 0) {
      CHECK(mine.calls == 0);  // the cross-member figures are rank 0's
      CHECK(mine.t_global.empty());
    }
  }
}

TEST_CASE("one member's invalid exit makes the call invalid for all", "[protocol][collectives]") {
  std::vector<Member> members(2);
  members[0].pending.calls = {call(Collective::allreduce, 8, -1, 1.0, 2.0, true)};
  members[1].pending.calls = {call(Collective::allreduce, 8, -1, 1.0, 2.0, false)};
  for (Member& member : members) member.pending.calls_seen = 1;
  const std::vector<CommStats> stats = match_on(members);
  const CollectiveStats& root = key_of(stats[0], {kAllreduce, 8, -1});
  CHECK(root.calls == 1);
  CHECK(root.valid_calls == 0);
  for (const CommStats& member : stats)
    CHECK(key_of(member, {kAllreduce, 8, -1}).valid_local.empty());
}

TEST_CASE("members keeping different numbers of calls match the common prefix",
          "[protocol][collectives]") {
  std::vector<Member> members(3);
  for (std::size_t rank = 0; rank < members.size(); ++rank)
    for (int i = 0; i < 3; ++i)
      members[rank].pending.calls.push_back(call(Collective::allreduce, 8, -1, i, i + 0.5));
  members[0].pending.calls_seen = 3;
  members[1].pending.calls.pop_back();  // kept two of four (more than kMaxPending)
  members[1].pending.calls_seen = 4;
  members[2].pending.calls_seen = 3;
  const std::vector<CommStats> stats = match_on(members);
  CHECK(key_of(stats[0], {kAllreduce, 8, -1}).calls == 2);
  // Each member counts what it saw beyond the two matched.
  CHECK(stats[0].collective_calls_unmatched == 1);
  CHECK(stats[1].collective_calls_unmatched == 2);
  CHECK(stats[2].collective_calls_unmatched == 1);
  for (const CommStats& member : stats)
    CHECK(key_of(member, {kAllreduce, 8, -1}).local.count() == 2);
}

TEST_CASE("a member without calls leaves everything unmatched", "[protocol][collectives]") {
  std::vector<Member> members(2);
  members[0].pending.calls_seen = 0;
  members[1].pending.calls = {call(Collective::allreduce, 8, -1, 1.0, 2.0)};
  members[1].pending.calls_seen = 1;
  const std::vector<CommStats> stats = match_on(members);
  CHECK(stats[0].collective_calls_unmatched == 0);
  CHECK(stats[1].collective_calls_unmatched == 1);
  for (const CommStats& member : stats) CHECK(member.collectives.keys().empty());
}

TEST_CASE("members in different collectives end the matching there", "[protocol][collectives]") {
  // Call 1: member 1 is in a bcast where the others are in an allreduce (an
  // erroneous program); call 2 is an allreduce everywhere again.
  std::vector<Member> members(3);
  for (std::size_t rank = 0; rank < members.size(); ++rank) {
    const Collective second = rank == 1 ? Collective::bcast : Collective::allreduce;
    members[rank].pending.calls = {call(Collective::allreduce, 8, -1, 1.0, 1.5),
                                   call(second, 8, -1, 2.0, 2.25),
                                   call(Collective::allreduce, 8, -1, 3.0, 3.125)};
    members[rank].pending.calls_seen = 3;
  }
  const std::vector<CommStats> stats = match_on(members);
  // Rank 0 learns where the sequences part (from the minima): one matched,
  // the rest counted.
  REQUIRE(stats[0].collectives.keys().size() == 1);
  CHECK(key_of(stats[0], {kAllreduce, 8, -1}).calls == 1);
  CHECK(stats[0].collective_calls_unmatched == 2);
  // The others count only what exceeds the common length; each adds its own
  // times while its operation is the largest of the members' (the maxima).
  CHECK(stats[1].collective_calls_unmatched == 0);
  CHECK(stats[2].collective_calls_unmatched == 0);
  CHECK(key_of(stats[2], {kAllreduce, 8, -1}).local.count() == 1);  // stops at call 1
  CHECK(key_of(stats[1], {kAllreduce, 8, -1}).local.count() == 2);  // calls 0 and 2
  CHECK(key_of(stats[1], {kBcast, 8, -1}).local.max() == 0.25);     // its bcast, call 1
}
