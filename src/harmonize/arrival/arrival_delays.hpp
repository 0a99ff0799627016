#pragma once
// What HARMONIZE_ARRIVAL makes of one process (pure): its delay after the
// harmonized barrier's deadline at each call, the same on every member of
// the communicator for the same call (so that a pattern is the same whoever
// computes it), and what the report names as the pattern's delta.
#include <cstdint>
#include <optional>
#include <string>

#include "common/arrival_pattern.hpp"

namespace harmonize::arrival {

// Where a process sits: its rank and the size of the communicator, and the
// node it runs on (nodes numbered over MPI_COMM_WORLD, 0 first).
struct ArrivalPlace {
  int rank = 0;
  int size = 1;
  int node = 0;
};

class ArrivalDelays {
 public:
  ArrivalDelays(ArrivalPattern pattern, ArrivalPlace place)
      : pattern_(std::move(pattern)), place_(place) {}
  // Seconds after the deadline at which this process leaves its `call`-th
  // harmonized barrier of the communicator (0 first).
  double at(std::uint64_t call) const;

 private:
  ArrivalPattern pattern_;
  ArrivalPlace place_;
};

// d_r of rank `rank` of a communicator of `size` on node `node` at `call`.
double arrival_delay(const ArrivalPattern& pattern, const ArrivalPlace& place, std::uint64_t call);

// random: the uniform draw in [0, 1) of `rank` at `call` for `seed`,
// documented (docs/arrival.md) so that anyone can recompute the pattern.
double arrival_draw(std::uint64_t seed, std::uint64_t call, int rank);

// The pattern's delta on a communicator of `size` spread over `nodes` nodes:
// the largest delay less the smallest, as the pattern states it (random:
// MAX; node: DELAY when there are other nodes): the delay of paper 002's
// b(delta).
double arrival_delta(const ArrivalPattern& pattern, int size, int nodes);

// Why the pattern cannot apply to a job of `world_size` processes on `nodes`
// nodes (a rank or node it does not have, a file with fewer delays than
// ranks); nullopt when it can.
std::optional<std::string> arrival_misfit(const ArrivalPattern& pattern, int world_size, int nodes);

}  // namespace harmonize::arrival
