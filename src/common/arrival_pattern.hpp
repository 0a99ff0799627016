#pragma once
// HARMONIZE_ARRIVAL's value, parsed (config/arrival.hpp) and applied
// (harmonize/arrival/arrival_delays.hpp): the delay d_r after the harmonized
// barrier's deadline at which each process leaves, so that the collective
// after it sees a chosen arrival pattern (paper 002). std only: the policy
// parses it, the barrier applies it, the report names it.
#include <cstdint>
#include <string>
#include <vector>

namespace harmonize {

enum class ArrivalKind : std::uint8_t { none, rank, ranks, node, linear, random, file };

struct ArrivalPattern {
  ArrivalKind kind = ArrivalKind::none;
  // rank, ranks: the late ranks of the communicator; node: the late node.
  std::vector<int> late;
  // rank, ranks, node: every late process's delay; linear, random: the
  // largest delay (seconds).
  double delay = 0;
  std::uint64_t seed = 1;  // random
  std::string path;        // file
  // file: one delay per rank (of the communicator whose barrier it is; as
  // many as MPI_COMM_WORLD has ranks, or more), read by build_policy.
  std::vector<double> per_rank;

  bool operator==(const ArrivalPattern&) const = default;
};

}  // namespace harmonize
