#pragma once
// Test clocks with known truth (pure). Every (virtual) node gets an offset
// and a drift drawn deterministically from the seed, so every rank can
// compute any other node's skew and hence the true error of the global clock.
#include <cstdint>

namespace harmonize::clock {

struct TestClockSpec {
  double max_offset = 0;  // seconds
  double max_drift = 0;   // fraction (50 ppm = 50e-6)
  std::uint64_t seed = 1;
  int node_size = 0;  // ranks per virtual node; <= 0: one rank per node
};

struct Skew {
  double offset;
  double drift;
};

bool test_clock_active(const TestClockSpec& spec);

// Uniform in [-max, +max] for both; node 0 is skewed too, so the reference
// itself is not the truth and errors are measured against what it reads.
Skew skew_for_node(const TestClockSpec& spec, int node);

int virtual_node_of(const TestClockSpec& spec, int world_rank);

// What a clock with this skew reads at true time `truth`.
inline double skewed_time(const Skew& skew, double truth) {
  return truth * (1.0 + skew.drift) + skew.offset;
}

}  // namespace harmonize::clock
