#pragma once
// The C signatures of the timed collectives, one set per line of
// HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp), shared by the
// blocking entry points (collective_entry_points.cpp) and the non-blocking
// ones (nonblocking_entry_points.cpp, whose MPI_I<lower> takes the same
// arguments and a request): HARMONIZE_C_PARAMS_<Mixed> (as mpi.h declares
// it), HARMONIZE_C_ARGS_<Mixed>, HARMONIZE_C_BYTES_<Mixed> (read after the
// call) and HARMONIZE_C_ROOT_<Mixed> (-1: none).
#include <mpi.h>

#include <cstdint>

#include "shim/timed_call.hpp"

namespace harmonize::shim {

// Bytes per process as OSU and IMB name a message size: count x type size
// of what this process contributes (its send side; the receive side where
// the send buffer is MPI_IN_PLACE). Read after the call: outside the timed
// interval.

inline long long sum_of(const int counts[], int n) {
  long long total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i];
  return total;
}

inline std::uint64_t in_or_out(const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                               long long recvcount, MPI_Datatype recvtype) {
  return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
}

// Bytes of the v and w variants, where a member's share is one of a list.
inline std::uint64_t allgatherv_bytes(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      const int recvcounts[], MPI_Datatype recvtype,
                                      MPI_Comm comm) {
  return sendbuf == MPI_IN_PLACE ? bytes_of(recvcounts[rank_of(comm)], recvtype)
                                 : bytes_of(sendcount, sendtype);
}

inline std::uint64_t alltoallv_bytes(const void* sendbuf, const int sendcounts[],
                                     MPI_Datatype sendtype, const int recvcounts[],
                                     MPI_Datatype recvtype, MPI_Comm comm) {
  const int n = size_of(comm);
  return sendbuf == MPI_IN_PLACE ? bytes_of(sum_of(recvcounts, n), recvtype)
                                 : bytes_of(sum_of(sendcounts, n), sendtype);
}

inline std::uint64_t alltoallw_bytes(const void* sendbuf, const int sendcounts[],
                                     const MPI_Datatype sendtypes[], const int recvcounts[],
                                     const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const int* counts = in_place ? recvcounts : sendcounts;
  const MPI_Datatype* types = in_place ? recvtypes : sendtypes;
  std::uint64_t total = 0;
  for (int i = 0, n = size_of(comm); counts != nullptr && types != nullptr && i < n; ++i)
    total += bytes_of(counts[i], types[i]);
  return total;
}

}  // namespace harmonize::shim

// clang-format off
#define HARMONIZE_C_PARAMS_Allreduce \
  const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define HARMONIZE_C_ARGS_Allreduce sendbuf, recvbuf, count, type, op, comm
#define HARMONIZE_C_BYTES_Allreduce bytes_of(count, type)
#define HARMONIZE_C_ROOT_Allreduce -1

#define HARMONIZE_C_PARAMS_Reduce \
  const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, \
  MPI_Comm comm
#define HARMONIZE_C_ARGS_Reduce sendbuf, recvbuf, count, type, op, root, comm
#define HARMONIZE_C_BYTES_Reduce bytes_of(count, type)
#define HARMONIZE_C_ROOT_Reduce root

#define HARMONIZE_C_PARAMS_Bcast void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm
#define HARMONIZE_C_ARGS_Bcast buffer, count, type, root, comm
#define HARMONIZE_C_BYTES_Bcast bytes_of(count, type)
#define HARMONIZE_C_ROOT_Bcast root

#define HARMONIZE_C_PARAMS_Allgather \
  const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, \
  MPI_Datatype recvtype, MPI_Comm comm
#define HARMONIZE_C_ARGS_Allgather sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define HARMONIZE_C_BYTES_Allgather in_or_out(sendbuf, sendcount, sendtype, recvcount, recvtype)
#define HARMONIZE_C_ROOT_Allgather -1

#define HARMONIZE_C_PARAMS_Allgatherv \
  const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, \
  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm
#define HARMONIZE_C_ARGS_Allgatherv \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define HARMONIZE_C_BYTES_Allgatherv \
  allgatherv_bytes(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm)
#define HARMONIZE_C_ROOT_Allgatherv -1

// The same signature as allgather.
#define HARMONIZE_C_PARAMS_Alltoall HARMONIZE_C_PARAMS_Allgather
#define HARMONIZE_C_ARGS_Alltoall HARMONIZE_C_ARGS_Allgather
#define HARMONIZE_C_BYTES_Alltoall HARMONIZE_C_BYTES_Allgather
#define HARMONIZE_C_ROOT_Alltoall -1

#define HARMONIZE_C_PARAMS_Alltoallv \
  const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, \
  MPI_Comm comm
#define HARMONIZE_C_ARGS_Alltoallv \
  sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define HARMONIZE_C_BYTES_Alltoallv \
  alltoallv_bytes(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm)
#define HARMONIZE_C_ROOT_Alltoallv -1

#define HARMONIZE_C_PARAMS_Alltoallw \
  const void* sendbuf, const int sendcounts[], const int sdispls[], \
  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], \
  const MPI_Datatype recvtypes[], MPI_Comm comm
#define HARMONIZE_C_ARGS_Alltoallw \
  sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define HARMONIZE_C_BYTES_Alltoallw \
  alltoallw_bytes(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm)
#define HARMONIZE_C_ROOT_Alltoallw -1

#define HARMONIZE_C_PARAMS_Gather \
  const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, \
  MPI_Datatype recvtype, int root, MPI_Comm comm
#define HARMONIZE_C_ARGS_Gather \
  sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HARMONIZE_C_BYTES_Gather in_or_out(sendbuf, sendcount, sendtype, recvcount, recvtype)
#define HARMONIZE_C_ROOT_Gather root

#define HARMONIZE_C_PARAMS_Gatherv \
  const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, \
  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm
#define HARMONIZE_C_ARGS_Gatherv \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define HARMONIZE_C_BYTES_Gatherv \
  (sendbuf == MPI_IN_PLACE ? bytes_of(recvcounts[root], recvtype) : bytes_of(sendcount, sendtype))
#define HARMONIZE_C_ROOT_Gatherv root

// The same signature as gather; the bytes are the receive side's.
#define HARMONIZE_C_PARAMS_Scatter HARMONIZE_C_PARAMS_Gather
#define HARMONIZE_C_ARGS_Scatter HARMONIZE_C_ARGS_Gather
#define HARMONIZE_C_BYTES_Scatter \
  (recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype))
#define HARMONIZE_C_ROOT_Scatter root

#define HARMONIZE_C_PARAMS_Scatterv \
  const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define HARMONIZE_C_ARGS_Scatterv \
  sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#define HARMONIZE_C_BYTES_Scatterv \
  (recvbuf == MPI_IN_PLACE ? bytes_of(sendcounts[root], sendtype) : bytes_of(recvcount, recvtype))
#define HARMONIZE_C_ROOT_Scatterv root

#define HARMONIZE_C_PARAMS_Reduce_scatter \
  const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, \
  MPI_Comm comm
#define HARMONIZE_C_ARGS_Reduce_scatter sendbuf, recvbuf, recvcounts, type, op, comm
#define HARMONIZE_C_BYTES_Reduce_scatter bytes_of(sum_of(recvcounts, size_of(comm)), type)
#define HARMONIZE_C_ROOT_Reduce_scatter -1

#define HARMONIZE_C_PARAMS_Reduce_scatter_block \
  const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define HARMONIZE_C_ARGS_Reduce_scatter_block sendbuf, recvbuf, recvcount, type, op, comm
#define HARMONIZE_C_BYTES_Reduce_scatter_block bytes_of(recvcount, type)
#define HARMONIZE_C_ROOT_Reduce_scatter_block -1

// The same signature as allreduce.
#define HARMONIZE_C_PARAMS_Scan HARMONIZE_C_PARAMS_Allreduce
#define HARMONIZE_C_ARGS_Scan HARMONIZE_C_ARGS_Allreduce
#define HARMONIZE_C_BYTES_Scan HARMONIZE_C_BYTES_Allreduce
#define HARMONIZE_C_ROOT_Scan -1
#define HARMONIZE_C_PARAMS_Exscan HARMONIZE_C_PARAMS_Allreduce
#define HARMONIZE_C_ARGS_Exscan HARMONIZE_C_ARGS_Allreduce
#define HARMONIZE_C_BYTES_Exscan HARMONIZE_C_BYTES_Allreduce
#define HARMONIZE_C_ROOT_Exscan -1
// clang-format on
