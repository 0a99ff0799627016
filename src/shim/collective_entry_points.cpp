// The exported blocking collectives (HARMONIZE_COLLECTIVES): each is timed at
// entry and exit and otherwise passed through unchanged. Thin on purpose:
// everything but the two stamps and one record happens later, off the hot
// path (harmonize/collectives/collective_timer.hpp). mpi4py calls these; Fortran
// programs come through fortran_collective_entry_points.cpp.
//
// One entry per line of HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp),
// its signature in the C binding (c_binding.hpp).
#include <mpi.h>

#include "harmonize/collectives/mpi/side_comm.hpp"
#include "shim/c_binding.hpp"
#include "shim/export.hpp"

namespace {

using harmonize::Collective;
using harmonize::collectives::SideCall;
using namespace harmonize::shim;
using Binding = CBinding;

}  // namespace

#define HARMONIZE_C_ENTRY(lower, Mixed, UPPER, parameters, arguments, root_expr, bytes_expr) \
  HARMONIZE_EXPORT int MPI_##Mixed parameters {                                              \
    return timed(                                                                            \
        Collective::lower, [&] { return Binding::comm(comm); }, [&] { return root_expr; },   \
        [&] { return bytes_expr; },                                                          \
        [&] {                                                                                \
          const SideCall side(comm);                                                         \
          return PMPI_##Mixed arguments;                                                     \
        });                                                                                  \
  }

#define HARMONIZE_C_ENTRY_OF(lower, Mixed, UPPER, signature) \
  HARMONIZE_WITH_SIGNATURE(HARMONIZE_C_ENTRY, lower, Mixed, UPPER, signature)

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_C_ENTRY_OF)
