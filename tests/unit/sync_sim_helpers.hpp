#pragma once
// Shared set-up of the simulator tests: a cluster with test-clock-like skews
// and a function that synchronizes it and measures against the truth.
#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <vector>

#include "clock/test_clock.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync/sim_world.hpp"

namespace harmonize::sync::testing {

// Ranks 0..p-1 in consecutive virtual nodes of the given sizes (cycled).
inline std::vector<int> nodes_of(int processes, std::vector<int> node_sizes) {
  std::vector<int> node_of_rank;
  int node = 0;
  for (std::size_t i = 0; static_cast<int>(node_of_rank.size()) < processes; ++i, ++node) {
    const int size = node_sizes[i % node_sizes.size()];
    for (int k = 0; k < size && static_cast<int>(node_of_rank.size()) < processes; ++k)
      node_of_rank.push_back(node);
  }
  return node_of_rank;
}

// ±1 ms / ±50 ppm like the MPI tests, with a little random-walk wander.
inline simulator::SimSpec spec_for(std::vector<int> node_of_rank, std::uint64_t seed,
                                   double wander = 5e-9) {
  simulator::SimSpec spec;
  const int nodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;
  const clock::TestClockSpec clocks = clock::test_clocks(1e-3, 50e-6, seed, 0);
  for (int node = 0; node < nodes; ++node) {
    const auto skew = clock::skew_for_node(clocks, node);
    spec.node_clocks.push_back({skew.offset, skew.drift, wander});
  }
  spec.node_of_rank = std::move(node_of_rank);
  spec.seed = seed;
  return spec;
}

// Like spec_for, but every process reads a clock of its own (skews drawn
// per rank), as processes of one machine in different time namespaces: the
// nodes are where the processes sit, no longer what they read.
inline simulator::SimSpec per_process_spec(std::vector<int> node_of_rank, std::uint64_t seed,
                                           double wander = 5e-9) {
  simulator::SimSpec spec = spec_for(node_of_rank, seed, wander);
  const clock::TestClockSpec clocks = clock::test_clocks(1e-3, 50e-6, seed, 0);
  for (std::size_t rank = 0; rank < spec.node_of_rank.size(); ++rank) {
    const auto skew = clock::skew_for_node(clocks, static_cast<int>(rank));
    spec.rank_clocks.push_back({skew.offset, skew.drift, wander});
  }
  return spec;
}

struct Outcome {
  std::vector<clock::ModelStack> models;  // per rank, after the last sync
  std::vector<LevelStats> stats;
  std::vector<SharedClockReport> shared_clock;  // per rank, after the last sync
  double end_truth = 0;                         // true time when the last process finished
};

inline Settings with_scheme(Scheme scheme) {
  Settings settings;
  settings.scheme = scheme;
  return settings;
}

// Where each rank sits (its node, and its socket or -1).
using PlacementOf = std::function<Placement(int rank)>;

// Nodes of 4 ranks, 2 sockets of 2 ranks each (H3HCA's socket level).
inline Placement two_sockets_of_two(int rank) {
  return Placement{rank / 4, (rank / 2) % 2};
}

// `syncs` synchronizations spaced by `interval` seconds of true time.
inline Outcome synchronize_world(simulator::SimWorld& world, const Settings& settings, int syncs,
                                 double interval, const PlacementOf& placement_of) {
  Outcome outcome;
  outcome.models.resize(static_cast<std::size_t>(world.size()));
  outcome.stats.resize(static_cast<std::size_t>(world.size()));
  outcome.shared_clock.resize(static_cast<std::size_t>(world.size()));
  std::mutex mutex;
  world.run([&](simulator::SimProcess& self, Transport& transport) {
    const auto me = static_cast<std::size_t>(self.world_rank());
    HierarchicalSync sync(transport, settings, placement_of(self.world_rank()));
    const clock::GlobalClock base(self, {});
    clock::GlobalClock result = base;
    for (int i = 0; i < syncs; ++i) {
      if (i > 0) self.advance(interval);
      result = sync.synchronize(base);
    }
    std::lock_guard lock(mutex);
    outcome.models[me] = result.models();
    outcome.stats[me] = sync.stats();
    outcome.shared_clock[me] = sync.shared_clock();
    outcome.end_truth = std::max(outcome.end_truth, self.true_now());
  });
  return outcome;
}

// Ranks on the nodes `node_of_rank` names, sockets unknown.
inline Outcome synchronize_world(simulator::SimWorld& world, const Settings& settings, int syncs,
                                 double interval, const std::vector<int>& node_of_rank) {
  return synchronize_world(world, settings, syncs, interval, [&node_of_rank](int rank) {
    return Placement{node_of_rank[static_cast<std::size_t>(rank)], -1};
  });
}

// Global-clock error of `rank` against rank 0's clock at true time `truth`.
inline double error_at(const simulator::SimWorld& world, const Outcome& outcome, int rank,
                       double truth) {
  const double global =
      outcome.models[static_cast<std::size_t>(rank)].apply(world.local_time(rank, truth));
  const double reference = outcome.models[0].apply(world.local_time(0, truth));
  return global - reference;
}

inline double max_abs_error(const simulator::SimWorld& world, const Outcome& outcome,
                            double truth) {
  double worst = 0;
  for (int rank = 0; rank < world.size(); ++rank)
    worst = std::max(worst, std::abs(error_at(world, outcome, rank, truth)));
  return worst;
}

}  // namespace harmonize::sync::testing
