#pragma once
// Test clocks with known truth (pure). Every (virtual) node - or, to break
// the shared-clock assumption on purpose, every process - gets an offset and
// a drift drawn deterministically from the seed, so every rank can compute
// any other rank's skew and hence the true error of the global clock.
#include <cstdint>
#include <vector>

#include "clock/global_clock.hpp"

namespace harmonize::clock {

struct TestClockSpec {
  double max_offset = 0;  // seconds
  double max_drift = 0;   // fraction (50 ppm = 50e-6)
  std::uint64_t seed = 1;
  int node_size = 0;  // ranks per virtual node; <= 0: one rank per node
  // Every process its own skew (keyed by world rank) instead of one per
  // virtual node; the nodes are then not virtual unless node_size > 0.
  bool per_process = false;
  // One skew per shared-memory node MPI finds (HARMONIZE_TEST_CLOCK_SCOPE=host):
  // `host_of_rank[world rank]` is filled after node discovery, numbered by
  // each node's lowest world rank, so world rank 0 reads host 0's clock.
  bool per_host = false;
  std::vector<int> host_of_rank;
};

struct Skew {
  double offset;
  double drift;
};

// The scopes node and process (positional, for the tests' tables).
inline TestClockSpec test_clocks(double max_offset, double max_drift, std::uint64_t seed,
                                 int node_size, bool per_process = false) {
  TestClockSpec spec;
  spec.max_offset = max_offset;
  spec.max_drift = max_drift;
  spec.seed = seed;
  spec.node_size = node_size;
  spec.per_process = per_process;
  return spec;
}

bool test_clock_active(const TestClockSpec& spec);

// Uniform in [-max, +max] for both; node 0 is skewed too, so the reference
// itself is not the truth and errors are measured against what it reads.
Skew skew_for_node(const TestClockSpec& spec, int node);

int virtual_node_of(const TestClockSpec& spec, int world_rank);

// The skew of the clock `world_rank` reads: its virtual node's, its host's,
// or its own. Throws std::out_of_range for a host scope without the rank.
Skew skew_of_rank(const TestClockSpec& spec, int world_rank);

// Whether the nodes the sync sees are the virtual ones (virtual_node_of)
// rather than the shared-memory nodes: with node_size > 0, or when every
// virtual node has a test clock of its own.
bool uses_virtual_nodes(const TestClockSpec& spec);

// What a clock with this skew reads at true time `truth`.
inline double skewed_time(const Skew& skew, double truth) {
  return truth * (1.0 + skew.drift) + skew.offset;
}

// Ground truth: how far `clock` (read by a process whose source has skew
// `own`) is from the reference clock (skew `reference`) at true time `truth`,
// both evaluated at that one instant, so no gap between two reads counts.
inline double true_clock_error(const GlobalClock& clock, const Skew& own, const Skew& reference,
                               double truth) {
  return clock.to_global(skewed_time(own, truth)) - skewed_time(reference, truth);
}

}  // namespace harmonize::clock
