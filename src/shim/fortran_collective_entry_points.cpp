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

// Every spelling a Fortran binding may call (see the top of this file), for
// each line of HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp), of
// its HARMONIZE_PARAMS_<UPPER>, HARMONIZE_ARGS_<UPPER>, HARMONIZE_BYTES_<UPPER>
// and HARMONIZE_ROOT_<UPPER> below (pasted here, so that each reaches the
// entry as one macro argument).
#define HARMONIZE_FORTRAN_MANGLINGS(lower, Mixed, upper)                                          \
  HARMONIZE_FORTRAN_COLLECTIVE(mpi_##lower, Collective::lower, HARMONIZE_PARAMS_##upper,          \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)                                            \
  HARMONIZE_FORTRAN_COLLECTIVE(mpi_##lower##_, Collective::lower, HARMONIZE_PARAMS_##upper,       \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)                                            \
  HARMONIZE_FORTRAN_COLLECTIVE(mpi_##lower##__, Collective::lower, HARMONIZE_PARAMS_##upper,      \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)                                            \
  HARMONIZE_FORTRAN_COLLECTIVE(MPI_##upper, Collective::lower, HARMONIZE_PARAMS_##upper,          \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)                                            \
  HARMONIZE_FORTRAN_COLLECTIVE(mpi_##lower##_f08_, Collective::lower, HARMONIZE_PARAMS_##upper,   \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)                                            \
  HARMONIZE_FORTRAN_COLLECTIVE(mpi_##lower##_f08ts_, Collective::lower, HARMONIZE_PARAMS_##upper, \
                               HARMONIZE_ARGS_##upper, HARMONIZE_BYTES_##upper,                   \
                               HARMONIZE_ROOT_##upper)

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

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_FORTRAN_MANGLINGS)
