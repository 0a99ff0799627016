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
// The signatures are HARMONIZE_TIMED_COLLECTIVES' in the Fortran binding
// (fortran_binding.hpp), which says what the bytes are.
#include <mpi.h>

#include "harmonize/collectives/mpi/side_comm.hpp"
#include "shim/export.hpp"
#include "shim/fortran_binding.hpp"

using harmonize::Collective;
using harmonize::collectives::SideCall;
using namespace harmonize::shim;

using Binding = FortranBinding;

// One exported Fortran entry: `exported` timed, then handed on; of the
// collective `lower`, with its signature (HARMONIZE_TIMED_COLLECTIVES).
#define HARMONIZE_FORTRAN_COLLECTIVE(exported, lower, parameters, arguments, root_expr,    \
                                     bytes_expr)                                           \
  HARMONIZE_EXPORT void exported(HARMONIZE_UNPAREN parameters, MPI_Fint* ierror) {         \
    using Function = void(HARMONIZE_UNPAREN parameters, MPI_Fint*);                        \
    static Function* const next = next_definition<Function>(#exported);                    \
    if (next == nullptr) return no_definition(ierror);                                     \
    harmonize::shim::timed(                                                                \
        Collective::lower, [&] { return Binding::comm(comm); }, [&] { return root_expr; }, \
        [&] { return bytes_expr; },                                                        \
        [&] {                                                                              \
          const SideCall side(comm);                                                       \
          next(HARMONIZE_UNPAREN arguments, ierror);                                       \
          return 0;                                                                        \
        });                                                                                \
  }

#define HARMONIZE_FORTRAN_MANGLINGS(lower, Mixed, UPPER, ...) \
  HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_COLLECTIVE, lower, UPPER, lower, __VA_ARGS__)

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_FORTRAN_MANGLINGS)
