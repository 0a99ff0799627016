// Fortran non-blocking collectives (HARMONIZE_COLLECTIVES): every spelling of
// each MPI_I<UPPER> (HARMONIZE_TIMED_COLLECTIVES' signature in the Fortran
// binding, fortran_binding.hpp, and a request), its start timed
// like the C one (shim/timed_call.hpp) and handed to the MPI library's own
// definition of the same name; the request it returns is followed by its C
// handle, so that a completion seen from C or from Fortran
// (fortran_request_entry_points.cpp) ends it.
#include <mpi.h>

#include "harmonize/collectives/mpi/side_comm.hpp"
#include "shim/export.hpp"
#include "shim/fortran_binding.hpp"

using harmonize::Collective;
using harmonize::collectives::SideCall;
using namespace harmonize::shim;

namespace {

// `next` (the binding's start call, writing `*request`) timed as `operation`.
template <typename Comm, typename Root, typename Bytes, typename Next>
void started_f(Collective operation, Comm comm, Root root, Bytes bytes, MPI_Fint* request,
               MPI_Fint* ierror, Next next) {
  // The C request is read after the call: a null one (the start failed, or
  // an unset ierror) is recorded untracked.
  MPI_Request c = MPI_REQUEST_NULL;
  harmonize::shim::started(operation, comm, root, bytes, &c, [&] {
    next();
    c = ierror != nullptr && *ierror != MPI_SUCCESS ? MPI_REQUEST_NULL : c_request(request);
    return ierror != nullptr ? static_cast<int>(*ierror) : MPI_SUCCESS;
  });
}

}  // namespace

using Binding = FortranBinding;

#define HARMONIZE_FORTRAN_NONBLOCKING(exported, lower, parameters, arguments, root_expr,      \
                                      bytes_expr)                                             \
  HARMONIZE_EXPORT void exported(HARMONIZE_UNPAREN parameters, MPI_Fint* request,             \
                                 MPI_Fint* ierror) {                                          \
    using Function = void(HARMONIZE_UNPAREN parameters, MPI_Fint*, MPI_Fint*);                \
    static Function* const next = next_definition<Function>(#exported);                       \
    if (next == nullptr) return no_definition(ierror);                                        \
    started_f(                                                                                \
        Collective::i##lower, [&] { return Binding::comm(comm); }, [&] { return root_expr; }, \
        [&] { return bytes_expr; }, request, ierror,                                          \
        [&] {                                                                                 \
          const SideCall side(comm);                                                          \
          next(HARMONIZE_UNPAREN arguments, request, ierror);                                 \
        });                                                                                   \
  }

#define HARMONIZE_FORTRAN_NONBLOCKING_MANGLINGS(lower, Mixed, UPPER, ...) \
  HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_NONBLOCKING, i##lower, I##UPPER, lower, __VA_ARGS__)

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_FORTRAN_NONBLOCKING_MANGLINGS)

// MPI_IBARRIER: a signature of its own.
#define HARMONIZE_FORTRAN_IBARRIER(exported, ...)                                                \
  HARMONIZE_EXPORT void exported(MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror) {          \
    using Function = void(MPI_Fint*, MPI_Fint*, MPI_Fint*);                                      \
    static Function* const next = next_definition<Function>(#exported);                          \
    if (next == nullptr) return no_definition(ierror);                                           \
    started_f(                                                                                   \
        Collective::ibarrier, [&] { return c_comm(comm); }, [] { return -1; },                   \
        [] { return std::uint64_t{0}; }, request, ierror, [&] { next(comm, request, ierror); }); \
  }

HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_IBARRIER, ibarrier, IBARRIER, ibarrier)
