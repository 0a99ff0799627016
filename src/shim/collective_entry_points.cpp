// The exported blocking collectives (HARMONIZE_COLLECTIVES): each is timed at
// entry and exit and otherwise passed through unchanged. Thin on purpose:
// everything but the two stamps and one record happens later, off the hot
// path (harmonize/collectives/collective_timer.hpp). mpi4py calls these; Fortran
// programs come through fortran_collective_entry_points.cpp.
#include <mpi.h>

#include <cstdint>

#include "shim/timed_call.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using harmonize::Collective;

// Bytes per process as OSU and IMB name a message size: count x type size
// of what this process contributes (its send side; the receive side where
// the send buffer is MPI_IN_PLACE). Read after the call: outside the timed
// interval.
using harmonize::shim::bytes_of;
using harmonize::shim::rank_of;
using harmonize::shim::size_of;

long long sum_of(const int counts[], int n) {
  long long total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i];
  return total;
}

std::uint64_t in_or_out(const void* sendbuf, long long sendcount, MPI_Datatype sendtype,
                        long long recvcount, MPI_Datatype recvtype) {
  return sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
}

template <typename Bytes, typename Call>
int timed(Collective operation, MPI_Comm comm, int root, Bytes bytes, Call call) {
  return harmonize::shim::timed(
      operation, [comm] { return comm; }, [root] { return root; }, bytes, call);
}

}  // namespace

HARMONIZE_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                   MPI_Op op, MPI_Comm comm) {
  return timed(
      Collective::allreduce, comm, -1, [&] { return bytes_of(count, type); },
      [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); });
}

HARMONIZE_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                MPI_Op op, int root, MPI_Comm comm) {
  return timed(
      Collective::reduce, comm, root, [&] { return bytes_of(count, type); },
      [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); });
}

HARMONIZE_EXPORT int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root,
                               MPI_Comm comm) {
  return timed(
      Collective::bcast, comm, root, [&] { return bytes_of(count, type); },
      [&] { return PMPI_Bcast(buffer, count, type, root, comm); });
}

HARMONIZE_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm) {
  return timed(
      Collective::allgather, comm, -1,
      [&] { return in_or_out(sendbuf, sendcount, sendtype, recvcount, recvtype); },
      [&] {
        return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

HARMONIZE_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void* recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm) {
  return timed(
      Collective::allgatherv, comm, -1,
      [&] {
        return sendbuf == MPI_IN_PLACE ? bytes_of(recvcounts[rank_of(comm)], recvtype)
                                       : bytes_of(sendcount, sendtype);
      },
      [&] {
        return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                               comm);
      });
}

HARMONIZE_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm) {
  return timed(
      Collective::alltoall, comm, -1,
      [&] { return in_or_out(sendbuf, sendcount, sendtype, recvcount, recvtype); },
      [&] {
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

HARMONIZE_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return timed(
      Collective::alltoallv, comm, -1,
      [&] {
        const int n = size_of(comm);
        return sendbuf == MPI_IN_PLACE ? bytes_of(sum_of(recvcounts, n), recvtype)
                                       : bytes_of(sum_of(sendcounts, n), sendtype);
      },
      [&] {
        return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, comm);
      });
}

HARMONIZE_EXPORT int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf,
                                   const int recvcounts[], const int rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return timed(
      Collective::alltoallw, comm, -1,
      [&] {
        const bool in_place = sendbuf == MPI_IN_PLACE;
        const int* counts = in_place ? recvcounts : sendcounts;
        const MPI_Datatype* types = in_place ? recvtypes : sendtypes;
        std::uint64_t total = 0;
        for (int i = 0, n = size_of(comm); counts != nullptr && types != nullptr && i < n; ++i)
          total += bytes_of(counts[i], types[i]);
        return total;
      },
      [&] {
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                              recvtypes, comm);
      });
}

HARMONIZE_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm) {
  return timed(
      Collective::gather, comm, root,
      [&] { return in_or_out(sendbuf, sendcount, sendtype, recvcount, recvtype); },
      [&] {
        return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      });
}

HARMONIZE_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return timed(
      Collective::gatherv, comm, root,
      [&] {
        return sendbuf == MPI_IN_PLACE ? bytes_of(recvcounts[root], recvtype)
                                       : bytes_of(sendcount, sendtype);
      },
      [&] {
        return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            root, comm);
      });
}

HARMONIZE_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm) {
  return timed(
      Collective::scatter, comm, root,
      [&] {
        return recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype)
                                       : bytes_of(recvcount, recvtype);
      },
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
      });
}

HARMONIZE_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                  MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return timed(
      Collective::scatterv, comm, root,
      [&] {
        return recvbuf == MPI_IN_PLACE ? bytes_of(sendcounts[root], sendtype)
                                       : bytes_of(recvcount, recvtype);
      },
      [&] {
        return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                             root, comm);
      });
}

HARMONIZE_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                        MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return timed(
      Collective::reduce_scatter, comm, -1,
      [&] { return bytes_of(sum_of(recvcounts, size_of(comm)), type); },
      [&] { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm); });
}

HARMONIZE_EXPORT int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                              MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return timed(
      Collective::reduce_scatter_block, comm, -1, [&] { return bytes_of(recvcount, type); },
      [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm); });
}

HARMONIZE_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                              MPI_Op op, MPI_Comm comm) {
  return timed(
      Collective::scan, comm, -1, [&] { return bytes_of(count, type); },
      [&] { return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm); });
}

HARMONIZE_EXPORT int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                                MPI_Op op, MPI_Comm comm) {
  return timed(
      Collective::exscan, comm, -1, [&] { return bytes_of(count, type); },
      [&] { return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm); });
}
