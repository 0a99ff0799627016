#pragma once
// The collectives the library times (HARMONIZE_COLLECTIVES), blocking and
// non-blocking, their names and sets of them. std only: the shim, the policy, the session and the
// report all speak of them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace harmonize {

// Every timed collective besides the barrier, once: X(lower, Mixed, UPPER),
// the three spellings of its name (collective_kind's enum and the
// HARMONIZE_COLLECTIVES names; the C entry MPI_Mixed; the Fortran entries
// mpi_lower_, MPI_UPPER, ...). The enum, the names, the C entry points
// (shim/collective_entry_points.cpp) and the Fortran ones
// (shim/fortran_collective_entry_points.cpp) follow from this list, and so do
// the non-blocking MPI_I<lower> (shim/nonblocking_entry_points.cpp); the
// exports are the MPI_* and mpi_* patterns of shim/exports.map. Adding a
// collective is a line here, its C and Fortran signatures beside the others,
// and a name in the README.
#define HARMONIZE_TIMED_COLLECTIVES(X)                                \
  X(allreduce, Allreduce, ALLREDUCE)                                  \
  X(reduce, Reduce, REDUCE)                                           \
  X(bcast, Bcast, BCAST)                                              \
  X(allgather, Allgather, ALLGATHER)                                  \
  X(allgatherv, Allgatherv, ALLGATHERV)                               \
  X(alltoall, Alltoall, ALLTOALL)                                     \
  X(alltoallv, Alltoallv, ALLTOALLV)                                  \
  X(alltoallw, Alltoallw, ALLTOALLW)                                  \
  X(gather, Gather, GATHER)                                           \
  X(gatherv, Gatherv, GATHERV)                                        \
  X(scatter, Scatter, SCATTER)                                        \
  X(scatterv, Scatterv, SCATTERV)                                     \
  X(reduce_scatter, Reduce_scatter, REDUCE_SCATTER)                   \
  X(reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK) \
  X(scan, Scan, SCAN)                                                 \
  X(exscan, Exscan, EXSCAN)

#define HARMONIZE_COLLECTIVE_ENUMERATOR(lower, Mixed, UPPER) lower,
#define HARMONIZE_NONBLOCKING_ENUMERATOR(lower, Mixed, UPPER) i##lower,
enum class Collective : std::uint8_t {
  HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_COLLECTIVE_ENUMERATOR)
  // Where the native barrier is the operation under test (osu_barrier):
  // mode observe, and every second barrier with HARMONIZE_ALTERNATE; the
  // harmonized barrier has figures of its own.
  barrier,
  // The non-blocking collectives (MPI-3): each blocking one's MPI_I<lower>,
  // timed from the start call to the completion the program observes
  // (docs/collectives.md "Non-blocking collectives"), then MPI_Ibarrier.
  HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_NONBLOCKING_ENUMERATOR) ibarrier,
};
#undef HARMONIZE_NONBLOCKING_ENUMERATOR
#undef HARMONIZE_COLLECTIVE_ENUMERATOR

#define HARMONIZE_COLLECTIVE_NAME(lower, Mixed, UPPER) std::string_view{#lower},
#define HARMONIZE_NONBLOCKING_NAME(lower, Mixed, UPPER) std::string_view{"i" #lower},
inline constexpr std::array kCollectiveNames{
    HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_COLLECTIVE_NAME) std::string_view{"barrier"},
    HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_NONBLOCKING_NAME) std::string_view{"ibarrier"}};
#undef HARMONIZE_NONBLOCKING_NAME
#undef HARMONIZE_COLLECTIVE_NAME
static_assert(static_cast<std::size_t>(Collective::ibarrier) + 1 == kCollectiveNames.size());

constexpr std::string_view name_of(Collective collective) {
  return kCollectiveNames[static_cast<std::size_t>(collective)];
}

// Started by one call and completed by another (MPI_Wait, MPI_Test, ...).
constexpr bool is_nonblocking(Collective collective) {
  return collective > Collective::barrier;
}

// Bit i: kCollectiveNames[i].
using CollectiveSet = std::uint64_t;
inline constexpr CollectiveSet kNoCollectives = 0;
inline constexpr CollectiveSet kAllCollectives = (CollectiveSet{1} << kCollectiveNames.size()) - 1;

constexpr CollectiveSet bit_of(Collective collective) {
  return CollectiveSet{1} << static_cast<unsigned>(collective);
}

}  // namespace harmonize
