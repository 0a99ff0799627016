// Fortran collectives (HARMONIZE_COLLECTIVES). Open MPI's and MPICH's
// Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call the C profiling
// functions directly, so the C entry points never see a Fortran program's
// collectives: every mangling is defined here, timed like the C ones
// (shim/timed_call.hpp), and handed to the MPI library's own definition of
// the same name, found after ours (RTLD_NEXT): the binding does its own
// argument handling (MPI_IN_PLACE, MPI_BOTTOM, descriptors of mpi_f08
// buffers), which we pass through untouched. Names checked with `nm -D` on
// Open MPI's libmpi_mpifh/libmpi_usempif08 and MPICH's libmpichfort:
// lowercase with 0, 1 or 2 trailing underscores, all-caps, `_f08_` (Open
// MPI mpi_f08) and `_f08ts_` (MPICH mpi_f08).
//
// Bytes are the send side's count x type size (a Fortran MPI_IN_PLACE is an
// address in a common block, which C cannot recognize; the key takes the
// largest of the members').
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>

#include "shim/timed_call.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using harmonize::Collective;

MPI_Comm c_comm(const MPI_Fint* comm) {
  return PMPI_Comm_f2c(*comm);
}

std::uint64_t type_bytes(long long count, const MPI_Fint* type) {
  return harmonize::shim::bytes_of(count, PMPI_Type_f2c(*type));
}

long long sum_over_members(const MPI_Fint* counts, const MPI_Fint* comm) {
  long long total = 0;
  for (int i = 0, n = harmonize::shim::size_of(c_comm(comm)); i < n; ++i) total += counts[i];
  return total;
}

std::uint64_t typed_sum_over_members(const MPI_Fint* counts, const MPI_Fint* types,
                                     const MPI_Fint* comm) {
  std::uint64_t total = 0;
  for (int i = 0, n = harmonize::shim::size_of(c_comm(comm)); i < n; ++i)
    total += type_bytes(counts[i], &types[i]);
  return total;
}

// The MPI library's definition of `name`: the next one after ours.
template <typename Function>
Function* next_definition(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_NEXT, name));
}

// An entry whose definition MPI lacks (a binding we do not know) cannot be
// called by a program that links: unreachable in practice, an error if not.
void no_definition(MPI_Fint* ierror) {
  if (ierror != nullptr) *ierror = MPI_ERR_INTERN;
}

}  // namespace

// One exported Fortran entry: `exported` timed, then handed on.
#define HARMONIZE_FORTRAN_COLLECTIVE(exported, operation, params, args, bytes, root)          \
  HARMONIZE_EXPORT void exported(params, MPI_Fint* ierror) {                                  \
    using Function = void(params, MPI_Fint*);                                                 \
    static Function* const next = next_definition<Function>(#exported);                       \
    if (next == nullptr) return no_definition(ierror);                                        \
    harmonize::shim::timed(                                                                   \
        operation, [&] { return c_comm(comm); }, [&] { return root; }, [&] { return bytes; }, \
        [&] {                                                                                 \
          next(args, ierror);                                                                 \
          return 0;                                                                           \
        });                                                                                   \
  }

#define HARMONIZE_PARAMS_ALLREDUCE \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLREDUCE sendbuf, recvbuf, count, datatype, op, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allreduce, Collective::allreduce, HARMONIZE_PARAMS_ALLREDUCE,
                             HARMONIZE_ARGS_ALLREDUCE, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allreduce_, Collective::allreduce, HARMONIZE_PARAMS_ALLREDUCE,
                             HARMONIZE_ARGS_ALLREDUCE, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allreduce__, Collective::allreduce, HARMONIZE_PARAMS_ALLREDUCE,
                             HARMONIZE_ARGS_ALLREDUCE, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLREDUCE, Collective::allreduce, HARMONIZE_PARAMS_ALLREDUCE,
                             HARMONIZE_ARGS_ALLREDUCE, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allreduce_f08_, Collective::allreduce, HARMONIZE_PARAMS_ALLREDUCE,
                             HARMONIZE_ARGS_ALLREDUCE, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allreduce_f08ts_, Collective::allreduce,
                             HARMONIZE_PARAMS_ALLREDUCE, HARMONIZE_ARGS_ALLREDUCE,
                             type_bytes(*count, datatype), -1)

#define HARMONIZE_PARAMS_REDUCE                                                                    \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE sendbuf, recvbuf, count, datatype, op, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce__, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_REDUCE, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_f08_, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_f08ts_, Collective::reduce, HARMONIZE_PARAMS_REDUCE,
                             HARMONIZE_ARGS_REDUCE, type_bytes(*count, datatype), *root)

#define HARMONIZE_PARAMS_BCAST \
  void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_BCAST buffer, count, datatype, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_bcast, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_bcast_, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_bcast__, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_BCAST, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_bcast_f08_, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_bcast_f08ts_, Collective::bcast, HARMONIZE_PARAMS_BCAST,
                             HARMONIZE_ARGS_BCAST, type_bytes(*count, datatype), *root)

#define HARMONIZE_PARAMS_ALLGATHER                                                            \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLGATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgather, Collective::allgather, HARMONIZE_PARAMS_ALLGATHER,
                             HARMONIZE_ARGS_ALLGATHER, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgather_, Collective::allgather, HARMONIZE_PARAMS_ALLGATHER,
                             HARMONIZE_ARGS_ALLGATHER, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgather__, Collective::allgather, HARMONIZE_PARAMS_ALLGATHER,
                             HARMONIZE_ARGS_ALLGATHER, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLGATHER, Collective::allgather, HARMONIZE_PARAMS_ALLGATHER,
                             HARMONIZE_ARGS_ALLGATHER, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgather_f08_, Collective::allgather, HARMONIZE_PARAMS_ALLGATHER,
                             HARMONIZE_ARGS_ALLGATHER, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgather_f08ts_, Collective::allgather,
                             HARMONIZE_PARAMS_ALLGATHER, HARMONIZE_ARGS_ALLGATHER,
                             type_bytes(*sendcount, sendtype), -1)

#define HARMONIZE_PARAMS_ALLGATHERV                                                            \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, \
      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLGATHERV \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgatherv, Collective::allgatherv, HARMONIZE_PARAMS_ALLGATHERV,
                             HARMONIZE_ARGS_ALLGATHERV, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgatherv_, Collective::allgatherv, HARMONIZE_PARAMS_ALLGATHERV,
                             HARMONIZE_ARGS_ALLGATHERV, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgatherv__, Collective::allgatherv, HARMONIZE_PARAMS_ALLGATHERV,
                             HARMONIZE_ARGS_ALLGATHERV, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLGATHERV, Collective::allgatherv, HARMONIZE_PARAMS_ALLGATHERV,
                             HARMONIZE_ARGS_ALLGATHERV, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgatherv_f08_, Collective::allgatherv,
                             HARMONIZE_PARAMS_ALLGATHERV, HARMONIZE_ARGS_ALLGATHERV,
                             type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_allgatherv_f08ts_, Collective::allgatherv,
                             HARMONIZE_PARAMS_ALLGATHERV, HARMONIZE_ARGS_ALLGATHERV,
                             type_bytes(*sendcount, sendtype), -1)

#define HARMONIZE_PARAMS_ALLTOALL                                                             \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLTOALL sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoall, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoall_, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoall__, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLTOALL, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoall_f08_, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoall_f08ts_, Collective::alltoall, HARMONIZE_PARAMS_ALLTOALL,
                             HARMONIZE_ARGS_ALLTOALL, type_bytes(*sendcount, sendtype), -1)

#define HARMONIZE_PARAMS_ALLTOALLV                                                           \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype, void *recvbuf, \
      MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLTOALLV \
  sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallv, Collective::alltoallv, HARMONIZE_PARAMS_ALLTOALLV,
                             HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallv_, Collective::alltoallv, HARMONIZE_PARAMS_ALLTOALLV,
                             HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallv__, Collective::alltoallv, HARMONIZE_PARAMS_ALLTOALLV,
                             HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLTOALLV, Collective::alltoallv, HARMONIZE_PARAMS_ALLTOALLV,
                             HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallv_f08_, Collective::alltoallv, HARMONIZE_PARAMS_ALLTOALLV,
                             HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallv_f08ts_, Collective::alltoallv,
                             HARMONIZE_PARAMS_ALLTOALLV, HARMONIZE_ARGS_ALLTOALLV,
                             type_bytes(sum_over_members(sendcounts, comm), sendtype), -1)

#define HARMONIZE_PARAMS_ALLTOALLW                                                            \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes, void *recvbuf, \
      MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm
#define HARMONIZE_ARGS_ALLTOALLW \
  sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallw, Collective::alltoallw, HARMONIZE_PARAMS_ALLTOALLW,
                             HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallw_, Collective::alltoallw, HARMONIZE_PARAMS_ALLTOALLW,
                             HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallw__, Collective::alltoallw, HARMONIZE_PARAMS_ALLTOALLW,
                             HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_ALLTOALLW, Collective::alltoallw, HARMONIZE_PARAMS_ALLTOALLW,
                             HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallw_f08_, Collective::alltoallw, HARMONIZE_PARAMS_ALLTOALLW,
                             HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_alltoallw_f08ts_, Collective::alltoallw,
                             HARMONIZE_PARAMS_ALLTOALLW, HARMONIZE_ARGS_ALLTOALLW,
                             typed_sum_over_members(sendcounts, sendtypes, comm), -1)

#define HARMONIZE_PARAMS_GATHER                                                               \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_GATHER sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gather, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gather_, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gather__, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_GATHER, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gather_f08_, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gather_f08ts_, Collective::gather, HARMONIZE_PARAMS_GATHER,
                             HARMONIZE_ARGS_GATHER, type_bytes(*sendcount, sendtype), *root)

#define HARMONIZE_PARAMS_GATHERV                                                               \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts, \
      MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_GATHERV \
  sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gatherv, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gatherv_, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gatherv__, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_GATHERV, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gatherv_f08_, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_gatherv_f08ts_, Collective::gatherv, HARMONIZE_PARAMS_GATHERV,
                             HARMONIZE_ARGS_GATHERV, type_bytes(*sendcount, sendtype), *root)

#define HARMONIZE_PARAMS_SCATTER                                                              \
  void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount, \
      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_SCATTER \
  sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatter, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatter_, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatter__, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_SCATTER, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatter_f08_, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatter_f08ts_, Collective::scatter, HARMONIZE_PARAMS_SCATTER,
                             HARMONIZE_ARGS_SCATTER, type_bytes(*recvcount, recvtype), *root)

#define HARMONIZE_PARAMS_SCATTERV                                                           \
  void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype, void *recvbuf, \
      MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm
#define HARMONIZE_ARGS_SCATTERV \
  sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatterv, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatterv_, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatterv__, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_SCATTERV, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatterv_f08_, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scatterv_f08ts_, Collective::scatterv, HARMONIZE_PARAMS_SCATTERV,
                             HARMONIZE_ARGS_SCATTERV, type_bytes(*recvcount, recvtype), *root)

#define HARMONIZE_PARAMS_REDUCE_SCATTER                                                 \
  void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE_SCATTER sendbuf, recvbuf, recvcounts, datatype, op, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter__, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_REDUCE_SCATTER, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_f08_, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_f08ts_, Collective::reduce_scatter,
                             HARMONIZE_PARAMS_REDUCE_SCATTER, HARMONIZE_ARGS_REDUCE_SCATTER,
                             type_bytes(sum_over_members(recvcounts, comm), datatype), -1)

#define HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK                                          \
  void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype, MPI_Fint *op, \
      MPI_Fint *comm
#define HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK sendbuf, recvbuf, recvcount, datatype, op, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_block, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_block_, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_block__, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_REDUCE_SCATTER_BLOCK, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_block_f08_, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_reduce_scatter_block_f08ts_, Collective::reduce_scatter_block,
                             HARMONIZE_PARAMS_REDUCE_SCATTER_BLOCK,
                             HARMONIZE_ARGS_REDUCE_SCATTER_BLOCK, type_bytes(*recvcount, datatype),
                             -1)

#define HARMONIZE_PARAMS_SCAN \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm
#define HARMONIZE_ARGS_SCAN sendbuf, recvbuf, count, datatype, op, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scan, Collective::scan, HARMONIZE_PARAMS_SCAN, HARMONIZE_ARGS_SCAN,
                             type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scan_, Collective::scan, HARMONIZE_PARAMS_SCAN,
                             HARMONIZE_ARGS_SCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scan__, Collective::scan, HARMONIZE_PARAMS_SCAN,
                             HARMONIZE_ARGS_SCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_SCAN, Collective::scan, HARMONIZE_PARAMS_SCAN, HARMONIZE_ARGS_SCAN,
                             type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scan_f08_, Collective::scan, HARMONIZE_PARAMS_SCAN,
                             HARMONIZE_ARGS_SCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_scan_f08ts_, Collective::scan, HARMONIZE_PARAMS_SCAN,
                             HARMONIZE_ARGS_SCAN, type_bytes(*count, datatype), -1)

#define HARMONIZE_PARAMS_EXSCAN \
  void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm
#define HARMONIZE_ARGS_EXSCAN sendbuf, recvbuf, count, datatype, op, comm
HARMONIZE_FORTRAN_COLLECTIVE(mpi_exscan, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_exscan_, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_exscan__, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(MPI_EXSCAN, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_exscan_f08_, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
HARMONIZE_FORTRAN_COLLECTIVE(mpi_exscan_f08ts_, Collective::exscan, HARMONIZE_PARAMS_EXSCAN,
                             HARMONIZE_ARGS_EXSCAN, type_bytes(*count, datatype), -1)
