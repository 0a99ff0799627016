#pragma once
// The hot path shared by the C and Fortran collective entry points: two
// stamps around the call, one record after it. What the record needs besides
// the stamps (communicator, root, bytes) is computed after the exit stamp,
// outside the timed interval.
#include <mpi.h>

#include <cstdint>

#include "harmonize/collective_timer.hpp"
#include "shim/reentrancy_guard.hpp"

namespace harmonize::shim {

// count x type size; 0 for an empty or invalid type (MPI reports that).
inline std::uint64_t bytes_of(long long count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

inline int size_of(MPI_Comm comm) {
  int size = 0;
  return PMPI_Comm_size(comm, &size) == MPI_SUCCESS ? size : 0;
}

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS ? rank : 0;
}

// `call` returns the MPI status, returned as it is.
template <typename Comm, typename Root, typename Bytes, typename Call>
int timed(Collective operation, Comm comm, Root root, Bytes bytes, Call call) {
  CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->times(operation)) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const double entry = timer->now();
  const int status = call();
  const double exit = timer->now();
  timer->add({.entry = entry,
              .exit = exit,
              .bytes = bytes(),
              .comm = comm(),
              .root = root(),
              .operation = operation});
  return status;
}

}  // namespace harmonize::shim
