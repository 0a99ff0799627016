#pragma once
// The C binding of the timed collectives' signatures
// (HARMONIZE_TIMED_COLLECTIVES, common/collective_kind.hpp): the types of its
// parameters as mpi.h declares them, and what the root and the bytes are
// read with. Used by the blocking entry points (collective_entry_points.cpp)
// and the non-blocking ones (nonblocking_entry_points.cpp).
#include <mpi.h>

#include <cstdint>

#include "shim/timed_call.hpp"

namespace harmonize::shim {

inline long long sum_of(const int counts[], int n) {
  long long total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i];
  return total;
}

// Bytes per process as OSU and IMB name a message size: count x type size
// of what this process contributes (its send side; the receive side where
// the send buffer is MPI_IN_PLACE). Read after the call: outside the timed
// interval.
struct CBinding {
  using SendBuf = const void*;
  using RecvBuf = void*;
  using Count = int;
  using Counts = const int*;  // one per member
  using Type = MPI_Datatype;
  using Types = const MPI_Datatype*;
  using Op = MPI_Op;
  using Root = int;
  using Comm = MPI_Comm;

  static MPI_Comm comm(MPI_Comm comm) { return comm; }
  static int root(int root) { return root; }
  static int rank(MPI_Comm comm) { return rank_of(comm); }
  static bool in_place(const void* buffer) { return buffer == MPI_IN_PLACE; }
  static std::uint64_t bytes(long long count, MPI_Datatype type) { return bytes_of(count, type); }
  static std::uint64_t bytes_at(const int counts[], int member, MPI_Datatype type) {
    return bytes_of(counts[member], type);
  }
  static std::uint64_t bytes_of_members(const int counts[], MPI_Datatype type, MPI_Comm comm) {
    return bytes_of(sum_of(counts, size_of(comm)), type);
  }
  static std::uint64_t typed_bytes_of_members(const int counts[], const MPI_Datatype types[],
                                              MPI_Comm comm) {
    std::uint64_t total = 0;
    for (int i = 0, n = size_of(comm); counts != nullptr && types != nullptr && i < n; ++i)
      total += bytes_of(counts[i], types[i]);
    return total;
  }
};

}  // namespace harmonize::shim
