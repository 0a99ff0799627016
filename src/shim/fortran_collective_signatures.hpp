#pragma once
// The Fortran signatures of the timed collectives, one set per line of
// HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp), shared by the
// blocking entry points (fortran_collective_entry_points.cpp) and the
// non-blocking ones (fortran_nonblocking_entry_points.cpp, whose
// MPI_I<UPPER> takes the same arguments and a request):
// HARMONIZE_PARAMS_<UPPER>, HARMONIZE_ARGS_<UPPER>, HARMONIZE_BYTES_<UPPER>
// and HARMONIZE_ROOT_<UPPER>; and what the entries need to hand a call on to
// the MPI library's own definition of its name.
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

inline std::uint64_t type_bytes(long long count, const MPI_Fint* type) {
  return bytes_of(count, PMPI_Type_f2c(*type));
}

inline long long sum_over_members(const MPI_Fint* counts, const MPI_Fint* comm) {
  long long total = 0;
  for (int i = 0, n = size_of(c_comm(comm)); i < n; ++i) total += counts[i];
  return total;
}

inline std::uint64_t typed_sum_over_members(const MPI_Fint* counts, const MPI_Fint* types,
                                            const MPI_Fint* comm) {
  std::uint64_t total = 0;
  for (int i = 0, n = size_of(c_comm(comm)); i < n; ++i) total += type_bytes(counts[i], &types[i]);
  return total;
}

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
// ENTRY(exported, lower, upper), `lower` and `upper` naming the collective
// whose signature it has.
#define HARMONIZE_FORTRAN_SPELLINGS(ENTRY, name, NAME, lower, upper) \
  ENTRY(mpi_##name, lower, upper)                                    \
  ENTRY(mpi_##name##_, lower, upper)                                 \
  ENTRY(mpi_##name##__, lower, upper)                                \
  ENTRY(MPI_##NAME, lower, upper)                                    \
  ENTRY(mpi_##name##_f08_, lower, upper)                             \
  ENTRY(mpi_##name##_f08ts_, lower, upper)

// clang-format off
#define HARMONIZE_PARAMS_ALLREDUCE \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLREDUCE sendbuf, recvbuf, count, datatype, op, comm
#define HARMONIZE_BYTES_ALLREDUCE type_bytes(*count, datatype)
#define HARMONIZE_ROOT_ALLREDUCE -1

#define HARMONIZE_PARAMS_REDUCE                                                                    \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE sendbuf, recvbuf, count, datatype, op, root, comm
#define HARMONIZE_BYTES_REDUCE type_bytes(*count, datatype)
#define HARMONIZE_ROOT_REDUCE *root

#define HARMONIZE_PARAMS_BCAST \
  void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_BCAST buffer, count, datatype, root, comm
#define HARMONIZE_BYTES_BCAST type_bytes(*count, datatype)
#define HARMONIZE_ROOT_BCAST *root

#define HARMONIZE_PARAMS_ALLGATHER                                                            \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLGATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define HARMONIZE_BYTES_ALLGATHER type_bytes(*sendcount, sendtype)
#define HARMONIZE_ROOT_ALLGATHER -1

#define HARMONIZE_PARAMS_ALLGATHERV                                                            \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, \
      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLGATHERV \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define HARMONIZE_BYTES_ALLGATHERV type_bytes(*sendcount, sendtype)
#define HARMONIZE_ROOT_ALLGATHERV -1

// The same signature as allgather.
#define HARMONIZE_PARAMS_ALLTOALL HARMONIZE_PARAMS_ALLGATHER
#define HARMONIZE_ARGS_ALLTOALL HARMONIZE_ARGS_ALLGATHER
#define HARMONIZE_BYTES_ALLTOALL type_bytes(*sendcount, sendtype)
#define HARMONIZE_ROOT_ALLTOALL -1

#define HARMONIZE_PARAMS_ALLTOALLV                                                           \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf, \
      MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLTOALLV \
  sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define HARMONIZE_BYTES_ALLTOALLV type_bytes(sum_over_members(sendcounts, comm), sendtype)
#define HARMONIZE_ROOT_ALLTOALLV -1

#define HARMONIZE_PARAMS_ALLTOALLW                                                            \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf, \
      MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLTOALLW \
  sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define HARMONIZE_BYTES_ALLTOALLW typed_sum_over_members(sendcounts, sendtypes, comm)
#define HARMONIZE_ROOT_ALLTOALLW -1

#define HARMONIZE_PARAMS_GATHER                                                               \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_GATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HARMONIZE_BYTES_GATHER type_bytes(*sendcount, sendtype)
#define HARMONIZE_ROOT_GATHER *root

#define HARMONIZE_PARAMS_GATHERV                                                               \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, \
      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_GATHERV \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define HARMONIZE_BYTES_GATHERV type_bytes(*sendcount, sendtype)
#define HARMONIZE_ROOT_GATHERV *root

// The same signature as gather.
#define HARMONIZE_PARAMS_SCATTER HARMONIZE_PARAMS_GATHER
#define HARMONIZE_ARGS_SCATTER HARMONIZE_ARGS_GATHER
#define HARMONIZE_BYTES_SCATTER type_bytes(*recvcount, recvtype)
#define HARMONIZE_ROOT_SCATTER *root

#define HARMONIZE_PARAMS_SCATTERV                                                           \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf, \
      MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_SCATTERV \
  sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HARMONIZE_BYTES_SCATTERV type_bytes(*recvcount, recvtype)
#define HARMONIZE_ROOT_SCATTERV *root

#define HARMONIZE_PARAMS_REDUCE_SCATTER                                                 \
  void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE_SCATTER sendbuf, recvbuf, recvcounts, datatype, op, comm
#define HARMONIZE_BYTES_REDUCE_SCATTER type_bytes(sum_over_members(recvcounts, comm), datatype)
#define HARMONIZE_ROOT_REDUCE_SCATTER -1

#define HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK                                          \
  void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype, MPI_Fint *op, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK sendbuf, recvbuf, recvcount, datatype, op, comm
#define HARMONIZE_BYTES_REDUCE_SCATTER_BLOCK type_bytes(*recvcount, datatype)
#define HARMONIZE_ROOT_REDUCE_SCATTER_BLOCK -1

// The same signature as allreduce.
#define HARMONIZE_PARAMS_SCAN HARMONIZE_PARAMS_ALLREDUCE
#define HARMONIZE_ARGS_SCAN HARMONIZE_ARGS_ALLREDUCE
#define HARMONIZE_BYTES_SCAN type_bytes(*count, datatype)
#define HARMONIZE_ROOT_SCAN -1

// The same signature as allreduce.
#define HARMONIZE_PARAMS_EXSCAN HARMONIZE_PARAMS_ALLREDUCE
#define HARMONIZE_ARGS_EXSCAN HARMONIZE_ARGS_ALLREDUCE
#define HARMONIZE_BYTES_EXSCAN type_bytes(*count, datatype)
#define HARMONIZE_ROOT_EXSCAN -1
// clang-format on
