// The check of the shared-clock assumption of H2HCA/H3HCA and its fallback,
// on the simulator: processes of one node that read clocks of their own (as
// in different time namespaces) are found and synchronized individually;
// nodes that truly share a clock are never flagged.
#include <catch2/catch.hpp>
#include <mutex>

#include "sync/hca3.hpp"
#include "sync/shared_clock_check.hpp"
#include "sync_sim_helpers.hpp"

using namespace harmonize::sync;
using namespace harmonize::sync::testing;

namespace {

// Nodes of more than one process: the groups that are checked.
int crowded_nodes(const std::vector<int>& node_of_rank) {
  int crowded = 0;
  for (std::size_t r = 1; r < node_of_rank.size(); ++r) {
    const bool second_of_its_node = node_of_rank[r] == node_of_rank[r - 1] &&
                                    (r == 1 || node_of_rank[r - 2] != node_of_rank[r]);
    if (second_of_its_node) ++crowded;
  }
  return crowded;
}

std::size_t leader_of(const std::vector<int>& node_of_rank, std::size_t rank) {
  return static_cast<std::size_t>(
      std::find(node_of_rank.begin(), node_of_rank.end(), node_of_rank[rank]) -
      node_of_rank.begin());
}

}  // namespace

TEST_CASE("processes of one node with clocks of their own are caught and synced individually",
          "[sync][sim][shared-clock]") {
  const auto [p, sizes] = GENERATE(
      table<int, std::vector<int>>({{2, {2}}, {4, {4}}, {8, {4}}, {12, {3, 1, 4}}, {17, {5, 2}}}));
  const std::uint64_t seed = GENERATE(1, 2, 3);
  const auto nodes = nodes_of(p, sizes);
  simulator::SimWorld world(per_process_spec(nodes, seed));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), 1, 0, nodes);
  INFO("p = " << p << ", seed " << seed);
  // Without the check the members copy their leader's models and stay off by
  // their clocks' difference (up to 2 ms); individually, the error is that
  // of HCA3 two levels deep (as H2HCA's bound).
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
  const SharedClockReport& total = outcome.shared_clock[0];
  CHECK(total.active);
  CHECK(total.tolerance == kSharedClockTolerance);
  CHECK(total.checked_groups == crowded_nodes(nodes));
  CHECK(total.fell_back_groups == crowded_nodes(nodes));
  CHECK(total.worst_disagreement > 1e-6);  // clocks differ by up to 2 ms
  CHECK(total.worst_node >= 0);
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    INFO("rank " << r);
    const bool alone = std::count(nodes.begin(), nodes.end(), nodes[r]) == 1;
    CHECK(outcome.shared_clock[r].own_group_fell_back == !alone);
    // A model of its own on top of its leader's clock, not a copy.
    if (leader_of(nodes, r) != r) {
      CHECK_FALSE(outcome.models[r] == outcome.models[leader_of(nodes, r)]);
    }
  }
}

TEST_CASE("a node that fell back stays individual, unchecked, and refines its drift",
          "[sync][sim][shared-clock]") {
  const auto nodes = nodes_of(12, {4, 2});
  simulator::SimWorld world(per_process_spec(nodes, 8));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), 4, 1.0, nodes);
  // The bounds of "H2HCA refines over syncs like HCA3".
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 50e-9);
  CHECK(max_abs_error(world, outcome, outcome.end_truth + 10.0) < 1e-6);
  CHECK(outcome.shared_clock[0].fell_back_groups == 4);
  CHECK(outcome.shared_clock[0].checked_groups == 4);
}

TEST_CASE("after the fallback the check costs nothing more", "[sync][sim][shared-clock]") {
  // Rank 1 is the only non-leader of one node. Without jitter no fit point
  // stalls, so message counts are exact: its first sync adds the check (the
  // pings, the release, its verdict) to what HCA3 between the two costs, and
  // every later sync costs exactly what HCA3 does.
  const auto nodes = nodes_of(2, {2});
  auto spec = per_process_spec(nodes, 4);
  spec.latency.jitter = 0;
  spec.latency.outlier_probability = 0;
  const auto sends_after = [&](Scheme scheme, int syncs) {
    simulator::SimWorld world(spec);
    synchronize_world(world, with_scheme(scheme), syncs, 0.1, nodes);
    return world.point_to_point_sends(1);
  };
  const long hca3_per_sync = sends_after(Scheme::hca3, 2) - sends_after(Scheme::hca3, 1);
  CHECK(sends_after(Scheme::h2hca, 1) == sends_after(Scheme::hca3, 1) + kSharedClockPingpongs + 2);
  CHECK(sends_after(Scheme::h2hca, 2) - sends_after(Scheme::h2hca, 1) == hca3_per_sync);
  CHECK(sends_after(Scheme::h2hca, 3) - sends_after(Scheme::h2hca, 2) == hca3_per_sync);
}

TEST_CASE("a slow path makes the check inconclusive, never wrong", "[sync][sim][shared-clock]") {
  // 200 us one way: every interval is ~400 us wide, far less certain than
  // kSharedClockConclusive. One node of two processes on one clock.
  const auto nodes = nodes_of(2, {2});
  auto spec = spec_for(nodes, 5);
  spec.latency.base = 200e-6;
  spec.latency.jitter = 0;
  spec.latency.outlier_probability = 0;
  const auto run = [&](int syncs) {
    simulator::SimWorld world(spec);
    const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), syncs, 0.1, nodes);
    CHECK(outcome.shared_clock[0].fell_back_groups == 0);
    CHECK(outcome.shared_clock[0].worst_disagreement == 0.0);
    return world.point_to_point_sends(1);
  };
  // Rank 1's messages are the check's alone (no HCA3 on one node): the
  // group's first check measures kSharedClockAttempts times, later ones once.
  const long first = run(1);
  CHECK(first == kSharedClockAttempts * kSharedClockPingpongs + 2);
  CHECK(run(2) - first == kSharedClockPingpongs + 2);
  // Clocks of their own are still proven apart: milliseconds against 0.2 ms.
  auto own_clocks = per_process_spec(nodes, 5);
  own_clocks.latency = spec.latency;
  simulator::SimWorld apart(own_clocks);
  const auto outcome = synchronize_world(apart, with_scheme(Scheme::h2hca), 1, 0, nodes);
  CHECK(outcome.shared_clock[0].fell_back_groups == 1);
}

TEST_CASE("nodes that truly share a clock are never flagged", "[sync][sim][shared-clock]") {
  const std::uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6);
  const Scheme scheme = GENERATE(Scheme::h2hca, Scheme::h3hca);  // h3hca: no sockets -> h2hca
  const auto nodes = nodes_of(17, {3, 1, 4, 2});
  simulator::SimWorld world(spec_for(nodes, seed));
  const auto outcome = synchronize_world(world, with_scheme(scheme), 3, 0.5, nodes);
  INFO("seed " << seed);
  const SharedClockReport& total = outcome.shared_clock[0];
  CHECK(total.active);
  CHECK(total.checked_groups == crowded_nodes(nodes));
  CHECK(total.fell_back_groups == 0);
  // Not small: exactly 0. Every proven interval contains 0 on one clock.
  CHECK(total.worst_disagreement == 0.0);
  CHECK(total.worst_node == -1);
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    CHECK_FALSE(outcome.shared_clock[r].own_group_fell_back);
    CHECK(outcome.models[r] == outcome.models[leader_of(nodes, r)]);
  }
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
}

TEST_CASE("only the node whose processes disagree falls back", "[sync][sim][shared-clock]") {
  const auto nodes = nodes_of(9, {3});  // nodes 0, 1, 2
  auto spec = spec_for(nodes, 3, 0.0);
  // Node 1's processes read clocks of their own; the others share their
  // node's (same parameters, no wander: one clock).
  const auto own = per_process_spec(nodes, 3, 0.0).rank_clocks;
  for (std::size_t r = 0; r < nodes.size(); ++r)
    spec.rank_clocks.push_back(nodes[r] == 1 ? own[r] : spec.node_clocks[nodes[r]]);
  simulator::SimWorld world(spec);
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), 2, 0.5, nodes);
  const SharedClockReport& total = outcome.shared_clock[0];
  CHECK(total.checked_groups == 3);
  CHECK(total.fell_back_groups == 1);
  CHECK(total.worst_node == 1);
  CHECK(total.worst_disagreement > 1e-6);
  for (std::size_t r = 0; r < nodes.size(); ++r)
    CHECK(outcome.shared_clock[r].own_group_fell_back == (nodes[r] == 1));
  CHECK(outcome.models[7] == outcome.models[6]);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
}

TEST_CASE("H3HCA checks and falls back per socket", "[sync][sim][shared-clock]") {
  // 2 nodes x 2 sockets x 2 processes, each process with a clock of its own.
  simulator::SimWorld world(per_process_spec(nodes_of(8, {4}), 6));
  const Outcome outcome =
      synchronize_world(world, with_scheme(Scheme::h3hca), 2, 0.5, two_sockets_of_two);
  CHECK(outcome.shared_clock[0].checked_groups == 4);
  CHECK(outcome.shared_clock[0].fell_back_groups == 4);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
}

TEST_CASE("hca3 and one process per node check nothing", "[sync][sim][shared-clock]") {
  const auto alone = nodes_of(5, {1});
  simulator::SimWorld one_per_node(per_process_spec(alone, 2));
  auto outcome = synchronize_world(one_per_node, with_scheme(Scheme::h2hca), 1, 0, alone);
  CHECK_FALSE(outcome.shared_clock[0].active);
  CHECK(outcome.shared_clock[0].checked_groups == 0);

  const auto crowded = nodes_of(4, {2});
  simulator::SimWorld flat(per_process_spec(crowded, 2));
  outcome = synchronize_world(flat, with_scheme(Scheme::hca3), 1, 0, crowded);
  CHECK_FALSE(outcome.shared_clock[0].active);
  CHECK(max_abs_error(flat, outcome, outcome.end_truth) < 150e-9);
}
