// HCA3, H2HCA and H3HCA on the simulator, against the known truth. Clocks:
// +-1 ms, +-50 ppm, 5 ns/sqrt(s) random-walk wander; latency 0.4 us + 0.1 us
// exponential jitter + 1 % outliers of 20 us (shared-memory-like).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "sync/hca3.hpp"
#include "sync/shared_clock_check.hpp"
#include "sync_sim_helpers.hpp"

using namespace harmonize::sync;
using namespace harmonize::sync::testing;

namespace {

// Drift of rank's global clock against rank 0's, over one true second.
double slope_error(const simulator::SimWorld& world, const Outcome& outcome, int rank) {
  const double t = outcome.end_truth;
  return error_at(world, outcome, rank, t + 1.0) - error_at(world, outcome, rank, t);
}

}  // namespace

TEST_CASE("HCA3 recovers offsets at p = 2..64 in ceil(log2 p) rounds", "[sync][sim]") {
  const int p = GENERATE(2, 3, 5, 7, 8, 12, 16, 31, 33, 64);
  const auto nodes = nodes_of(p, {1});
  simulator::SimWorld world(spec_for(nodes, 11));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::hca3), 1, 0, nodes);
  INFO("p = " << p);
  // Per pair a few ns; the tree stacks up to 7 levels, and offset-only
  // models learned in early rounds age by up to 100 ppm x the later rounds
  // (measured 9-60 ns; the simulator is deterministic, the margin is for
  // future changes of the algorithms, not for noise).
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 150e-9);
  // 1 ms offsets removed: the model stacks are not just empty.
  for (int rank = 1; rank < p; ++rank)
    CHECK(outcome.models[static_cast<std::size_t>(rank)].depth() == 1);
  CHECK(outcome.models[0].depth() == 0);
  CHECK(outcome.stats[0].rounds == hca3_rounds(p));
  CHECK(outcome.stats[0].rounds == static_cast<int>(std::ceil(std::log2(p))));
}

TEST_CASE("repeated syncs refine the drift to 0.05 ppm", "[sync][sim]") {
  const int p = GENERATE(2, 7, 64);
  const auto nodes = nodes_of(p, {1});
  simulator::SimWorld world(spec_for(nodes, 5));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::hca3), 5, 1.0, nodes);
  INFO("p = " << p);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 50e-9);  // measured 3-12 ns
  // 10 s after the last sync: the target of the issue is 1 us (2 ranks);
  // measured 1-125 ns.
  CHECK(max_abs_error(world, outcome, outcome.end_truth + 10.0) < 300e-9);
  for (int rank = 1; rank < p; ++rank) CHECK(std::abs(slope_error(world, outcome, rank)) < 50e-9);
}

TEST_CASE("syncs 10 ms apart learn the drift, however deep the tree", "[sync][sim]") {
  // The resync ramp's first intervals: the points are fitted between the time
  // sources, so a reference's error moving from one sync to the next (its
  // own resync) is no drift of its clients, at any depth. Offset-only (or a
  // slope fitted against the references' clocks) errs by up to 100 ppm x
  // 30 ms = 3 us here.
  const int p = GENERATE(8, 64);
  const std::uint64_t seed = GENERATE(1, 2, 3);
  const auto nodes = nodes_of(p, {1});
  simulator::SimWorld world(spec_for(nodes, seed));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::hca3), 3, 10e-3, nodes);
  INFO("p = " << p << ", seed " << seed);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 150e-9);
  CHECK(max_abs_error(world, outcome, outcome.end_truth + 30e-3) < 300e-9);
}

TEST_CASE("a single sync never extrapolates worse than ignoring the drift", "[sync][sim]") {
  const std::uint64_t seed = GENERATE(1, 2, 3, 4, 5);
  const auto nodes = nodes_of(2, {1});
  const auto spec = spec_for(nodes, seed);
  simulator::SimWorld world(spec);
  const auto outcome = synchronize_world(world, with_scheme(Scheme::hca3), 1, 0, nodes);
  const double true_drift = spec.node_clocks[1].drift - spec.node_clocks[0].drift;
  CHECK(std::abs(slope_error(world, outcome, 1)) <= std::abs(true_drift) * 1.001 + 1e-7);
}

TEST_CASE("an explicit linear model fits the drift of a single sync", "[sync][sim]") {
  const auto nodes = nodes_of(2, {1});
  simulator::SimWorld world(spec_for(nodes, 5));
  Settings settings = with_scheme(Scheme::hca3);
  settings.model = ModelKind::linear;
  settings.fitpoints = 32;
  const auto outcome = synchronize_world(world, settings, 1, 0, nodes);
  // ~300 us of baseline and a few ns of noise per point: some ppm.
  CHECK(std::abs(slope_error(world, outcome, 1)) < 20e-6);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 50e-9);
}

TEST_CASE("H2HCA with uneven virtual nodes", "[sync][sim]") {
  const int p = GENERATE(4, 9, 17, 64);
  const auto nodes = nodes_of(p, {3, 1, 4, 2});
  simulator::SimWorld world(spec_for(nodes, 21));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), 1, 0, nodes);
  INFO("p = " << p);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
  const int node_count = nodes.back() + 1;
  CHECK(outcome.stats[0].nodes == node_count);
  CHECK(outcome.stats[0].rounds == hca3_rounds(node_count));
  CHECK(outcome.stats[0].levels == 2);
  for (int rank = 0; rank < p; ++rank) {
    const auto r = static_cast<std::size_t>(rank);
    const bool leader = rank == 0 || nodes[r] != nodes[r - 1];
    INFO("rank " << rank);
    // Node leaders only in the inter-node level: everybody else neither
    // joins it nor sends more than the few messages of the shared-clock
    // check (a client once, a reference to its children in the check's
    // tree, its verdict up and down the tree).
    CHECK(outcome.stats[r].inter_node_member == leader);
    const int node_size = static_cast<int>(std::count(nodes.begin(), nodes.end(), nodes[r]));
    if (!leader) {
      CHECK(world.point_to_point_sends(rank) <=
            (kSharedClockPingpongs + 2) * (1 + hca3_rounds(node_size)));
    }
    // Members of a node carry exactly their leader's models.
    const std::size_t leader_rank =
        static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), nodes[r]) - nodes.begin());
    CHECK(outcome.models[r] == outcome.models[leader_rank]);
  }
}

TEST_CASE("H2HCA refines over syncs like HCA3", "[sync][sim]") {
  const auto nodes = nodes_of(24, {4, 2, 5});
  simulator::SimWorld world(spec_for(nodes, 8));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h2hca), 4, 1.0, nodes);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 50e-9);
  CHECK(max_abs_error(world, outcome, outcome.end_truth + 10.0) < 1e-6);
}

TEST_CASE("H3HCA without socket placement falls back to H2HCA and says so", "[sync][sim]") {
  const auto nodes = nodes_of(6, {3});
  simulator::SimWorld world(spec_for(nodes, 2));
  const auto outcome = synchronize_world(world, with_scheme(Scheme::h3hca), 1, 0, nodes);
  CHECK(outcome.stats[0].levels == 2);
  CHECK(outcome.stats[0].fallback_note.find("h2hca") != std::string::npos);
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
}

TEST_CASE("H3HCA uses the socket level when sockets are known", "[sync][sim]") {
  // 3 nodes x 2 sockets x 2 cores; each socket has its own clock, so the
  // simulated "node" of the clock is the socket.
  simulator::SimWorld world(spec_for(nodes_of(12, {2}), 4));
  const Outcome outcome =
      synchronize_world(world, with_scheme(Scheme::h3hca), 1, 0, two_sockets_of_two);
  CHECK(outcome.stats[0].levels == 3);
  CHECK(outcome.stats[0].rounds == hca3_rounds(3) + hca3_rounds(2));
  CHECK(outcome.stats[0].fallback_note.empty());
  CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
  // One model level each (to the node leader's clock for socket leaders that
  // lead no node); the rest of a socket copies its leader's.
  CHECK(outcome.models[6].depth() == 1);
  CHECK(outcome.models[7] == outcome.models[6]);
  CHECK(outcome.models[5] == outcome.models[4]);
  CHECK_FALSE(outcome.models[6] == outcome.models[4]);
}

TEST_CASE("Mean-RTT-Offset and the early stop also synchronize", "[sync][sim]") {
  const auto nodes = nodes_of(8, {1});
  Settings settings = with_scheme(Scheme::hca3);
  SECTION("mean rtt") {
    settings.offset = OffsetAlgorithm::mean_rtt;
    simulator::SimWorld world(spec_for(nodes, 9));
    const auto outcome = synchronize_world(world, settings, 1, 0, nodes);
    // Averages instead of minima: one 20 us outlier among the RTT samples
    // moves the offset by 1 us.
    CHECK(max_abs_error(world, outcome, outcome.end_truth) < 2e-6);
  }
  SECTION("early stop") {
    settings.pingpongs = 100;
    settings.min_rtt_patience = 5;
    simulator::SimWorld world(spec_for(nodes, 9));
    const auto outcome = synchronize_world(world, settings, 1, 0, nodes);
    CHECK(max_abs_error(world, outcome, outcome.end_truth) < 300e-9);
    // Far fewer than 100 exchanges per fit point were needed.
    CHECK(world.point_to_point_sends(1) < 8 * 40);
  }
}
