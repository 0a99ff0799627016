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
#include <mpi.h>

#include "shim/fortran_collective_signatures.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

using harmonize::Collective;
using namespace harmonize::shim;

// One exported Fortran entry: `exported` timed, then handed on; of the
// collective `lower`, whose signature is HARMONIZE_PARAMS_<upper> and the
// rest (fortran_collective_signatures.hpp).
#define HARMONIZE_FORTRAN_COLLECTIVE(exported, lower, upper)                                     \
  HARMONIZE_EXPORT void exported(HARMONIZE_PARAMS_##upper, MPI_Fint* ierror) {                   \
    using Function = void(HARMONIZE_PARAMS_##upper, MPI_Fint*);                                  \
    static Function* const next = next_definition<Function>(#exported);                          \
    if (next == nullptr) return no_definition(ierror);                                           \
    harmonize::shim::timed(                                                                      \
        Collective::lower, [&] { return c_comm(comm); }, [&] { return HARMONIZE_ROOT_##upper; }, \
        [&] { return HARMONIZE_BYTES_##upper; },                                                 \
        [&] {                                                                                    \
          next(HARMONIZE_ARGS_##upper, ierror);                                                  \
          return 0;                                                                              \
        });                                                                                      \
  }

#define HARMONIZE_FORTRAN_MANGLINGS(lower, Mixed, upper) \
  HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_COLLECTIVE, lower, upper, lower, upper)

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_FORTRAN_MANGLINGS)
