// The exported non-blocking collectives (MPI-3, HARMONIZE_COLLECTIVES): each
// start call is stamped around and recorded with its request; the call that
// completes the request (request_entry_points.cpp) stamps the end. mpi4py
// calls these.
//
// One entry per line of HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp):
// MPI_I<lower> takes the blocking signature's arguments (in the C binding,
// c_binding.hpp) and a request. MPI_Ibarrier apart.
#include <mpi.h>

#include "harmonize/collectives/mpi/side_comm.hpp"
#include "shim/c_binding.hpp"
#include "shim/export.hpp"

namespace {

using harmonize::Collective;
using harmonize::collectives::SideCall;
using namespace harmonize::shim;
using Binding = CBinding;

template <typename Bytes, typename Call>
int started(Collective operation, MPI_Comm comm, int root, Bytes bytes, MPI_Request* request,
            Call call) {
  return harmonize::shim::started(
      operation, [comm] { return comm; }, [root] { return root; }, bytes, request, call);
}

}  // namespace

#define HARMONIZE_C_NONBLOCKING_ENTRY(lower, Mixed, UPPER, parameters, arguments, root_expr,       \
                                      bytes_expr)                                                  \
  HARMONIZE_EXPORT int MPI_I##lower(HARMONIZE_UNPAREN parameters, MPI_Request* request) {          \
    return started(                                                                                \
        Collective::i##lower, Binding::comm(comm), root_expr, [&] { return bytes_expr; }, request, \
        [&] {                                                                                      \
          const SideCall side(comm);                                                               \
          return PMPI_I##lower(HARMONIZE_UNPAREN arguments, request);                              \
        });                                                                                        \
  }

#define HARMONIZE_C_NONBLOCKING_ENTRY_OF(lower, Mixed, UPPER, signature) \
  HARMONIZE_WITH_SIGNATURE(HARMONIZE_C_NONBLOCKING_ENTRY, lower, Mixed, UPPER, signature)

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_C_NONBLOCKING_ENTRY_OF)

HARMONIZE_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return started(
      Collective::ibarrier, comm, -1, [] { return std::uint64_t{0}; }, request,
      [&] { return PMPI_Ibarrier(comm, request); });
}
