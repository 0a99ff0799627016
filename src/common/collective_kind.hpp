#pragma once
// The blocking collectives the library times (HARMONIZE_COLLECTIVES), their
// names and sets of them. std only: the shim, the policy, the session and the
// report all speak of them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace harmonize {

enum class Collective : std::uint8_t {
  allreduce,
  reduce,
  bcast,
  allgather,
  allgatherv,
  alltoall,
  alltoallv,
  alltoallw,
  gather,
  gatherv,
  scatter,
  scatterv,
  reduce_scatter,
  reduce_scatter_block,
  scan,
  exscan,
  // Where the native barrier is the operation under test (osu_barrier):
  // mode observe, and every second barrier with HARMONIZE_ALTERNATE; the
  // harmonized barrier has figures of its own.
  barrier,
};
inline constexpr std::array<std::string_view, 17> kCollectiveNames{
    "allreduce",      "reduce",
    "bcast",          "allgather",
    "allgatherv",     "alltoall",
    "alltoallv",      "alltoallw",
    "gather",         "gatherv",
    "scatter",        "scatterv",
    "reduce_scatter", "reduce_scatter_block",
    "scan",           "exscan",
    "barrier"};
static_assert(static_cast<std::size_t>(Collective::barrier) + 1 == kCollectiveNames.size());

constexpr std::string_view name_of(Collective collective) {
  return kCollectiveNames[static_cast<std::size_t>(collective)];
}

// Bit i: kCollectiveNames[i].
using CollectiveSet = std::uint32_t;
inline constexpr CollectiveSet kNoCollectives = 0;
inline constexpr CollectiveSet kAllCollectives = (CollectiveSet{1} << kCollectiveNames.size()) - 1;

constexpr CollectiveSet bit_of(Collective collective) {
  return CollectiveSet{1} << static_cast<unsigned>(collective);
}

}  // namespace harmonize
