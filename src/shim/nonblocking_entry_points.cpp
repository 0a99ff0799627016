// The exported non-blocking collectives (MPI-3, HARMONIZE_COLLECTIVES): each
// start call is stamped around and recorded with its request; the call that
// completes the request (request_entry_points.cpp) stamps the end. mpi4py
// calls these.
//
// One entry per line of HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp):
// MPI_I<lower> takes the blocking signature's arguments
// (c_collective_signatures.hpp) and a request. MPI_Ibarrier apart.
#include <mpi.h>

#include "shim/c_collective_signatures.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using harmonize::Collective;
using namespace harmonize::shim;

template <typename Bytes, typename Call>
int started(Collective operation, MPI_Comm comm, int root, Bytes bytes, MPI_Request* request,
            Call call) {
  return harmonize::shim::started(
      operation, [comm] { return comm; }, [root] { return root; }, bytes, request, call);
}

}  // namespace

// clang-format off
#define HARMONIZE_C_NONBLOCKING_ENTRY(lower, Mixed, UPPER)                               \
  HARMONIZE_EXPORT int MPI_I##lower(HARMONIZE_C_PARAMS_##Mixed, MPI_Request* request) {  \
    return started(                                                                      \
        Collective::i##lower, comm, HARMONIZE_C_ROOT_##Mixed,                            \
        [&] { return HARMONIZE_C_BYTES_##Mixed; }, request,                              \
        [&] { return PMPI_I##lower(HARMONIZE_C_ARGS_##Mixed, request); });               \
  }
// clang-format on

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_C_NONBLOCKING_ENTRY)

HARMONIZE_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return started(
      Collective::ibarrier, comm, -1, [] { return std::uint64_t{0}; }, request,
      [&] { return PMPI_Ibarrier(comm, request); });
}
