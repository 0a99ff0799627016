#pragma once
// The Fortran binding of the timed collectives' signatures
// (HARMONIZE_TIMED_COLLECTIVES, common/collective_kind.hpp): every argument
// is a reference (MPI_Fint*, buffers void*), and what the root and the bytes
// are read with. Used by the blocking entry points
// (fortran_collective_entry_points.cpp) and the non-blocking ones
// (fortran_nonblocking_entry_points.cpp); with what every Fortran entry needs
// to hand a call on to the MPI library's own definition of its name.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>

#include "shim/timed_call.hpp"

namespace harmonize::shim {

// A Fortran request's C handle (MPI_REQUEST_NULL for none).
inline MPI_Request c_request(const MPI_Fint* request) {
  return request == nullptr ? MPI_REQUEST_NULL : PMPI_Request_f2c(*request);
}

inline MPI_Comm c_comm(const MPI_Fint* comm) {
  return PMPI_Comm_f2c(*comm);
}

// Bytes are the send side's count x type size, the receive side's for
// scatter: a Fortran MPI_IN_PLACE is an address in a common block, which C
// cannot recognize (the key takes the largest of the members').
struct FortranBinding {
  using SendBuf = void*;
  using RecvBuf = void*;
  using Count = MPI_Fint*;
  using Counts = MPI_Fint*;  // one per member
  using Type = MPI_Fint*;
  using Types = MPI_Fint*;
  using Op = MPI_Fint*;
  using Root = MPI_Fint*;
  using Comm = MPI_Fint*;

  static MPI_Comm comm(const MPI_Fint* comm) { return c_comm(comm); }
  static int root(const MPI_Fint* root) { return *root; }
  static int rank(const MPI_Fint* comm) { return rank_of(c_comm(comm)); }
  static bool in_place(const void*) { return false; }
  static std::uint64_t bytes(const MPI_Fint* count, const MPI_Fint* type) {
    return bytes_of(*count, PMPI_Type_f2c(*type));
  }
  static std::uint64_t bytes_at(const MPI_Fint* counts, int member, const MPI_Fint* type) {
    return bytes_of(counts[member], PMPI_Type_f2c(*type));
  }
  static std::uint64_t bytes_of_members(const MPI_Fint* counts, const MPI_Fint* type,
                                        const MPI_Fint* comm) {
    long long total = 0;
    for (int i = 0, n = size_of(c_comm(comm)); i < n; ++i) total += counts[i];
    return bytes_of(total, PMPI_Type_f2c(*type));
  }
  static std::uint64_t typed_bytes_of_members(const MPI_Fint* counts, const MPI_Fint* types,
                                              const MPI_Fint* comm) {
    std::uint64_t total = 0;
    for (int i = 0, n = size_of(c_comm(comm)); i < n; ++i)
      total += bytes_of(counts[i], PMPI_Type_f2c(types[i]));
    return total;
  }
};

// The MPI library's definition of `name`: the next one after ours.
template <typename Function>
Function* next_definition(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_NEXT, name));
}

// An entry whose definition MPI lacks (a binding we do not know) cannot be
// called by a program that links: unreachable in practice, an error if not.
inline void no_definition(MPI_Fint* ierror) {
  if (ierror != nullptr) *ierror = MPI_ERR_INTERN;
}

}  // namespace harmonize::shim

// Every spelling a Fortran binding may call of the name `name` (`NAME` in
// capitals): lowercase with 0, 1 or 2 trailing underscores, all-caps,
// `_f08_` (Open MPI mpi_f08) and `_f08ts_` (MPICH mpi_f08). Each is
// ENTRY(exported, ...), the rest of the arguments handed on as they are.
#define HARMONIZE_FORTRAN_SPELLINGS(ENTRY, name, NAME, ...) \
  ENTRY(mpi_##name, __VA_ARGS__)                            \
  ENTRY(mpi_##name##_, __VA_ARGS__)                         \
  ENTRY(mpi_##name##__, __VA_ARGS__)                        \
  ENTRY(MPI_##NAME, __VA_ARGS__)                            \
  ENTRY(mpi_##name##_f08_, __VA_ARGS__)                     \
  ENTRY(mpi_##name##_f08ts_, __VA_ARGS__)
