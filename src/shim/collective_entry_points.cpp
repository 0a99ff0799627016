// The exported blocking collectives (HARMONIZE_COLLECTIVES): each is timed at
// entry and exit and otherwise passed through unchanged. Thin on purpose:
// everything but the two stamps and one record happens later, off the hot
// path (harmonize/collectives/collective_timer.hpp). mpi4py calls these; Fortran
// programs come through fortran_collective_entry_points.cpp.
//
// One entry per line of HARMONIZE_TIMED_COLLECTIVES (common/collective_kind.hpp),
// made of its signature (c_collective_signatures.hpp).
#include <mpi.h>

#include <cstdint>

#include "shim/c_collective_signatures.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using harmonize::Collective;
using namespace harmonize::shim;

template <typename Bytes, typename Call>
int timed(Collective operation, MPI_Comm comm, int root, Bytes bytes, Call call) {
  return harmonize::shim::timed(
      operation, [comm] { return comm; }, [root] { return root; }, bytes, call);
}

}  // namespace

// clang-format off
#define HARMONIZE_C_ENTRY(lower, Mixed, UPPER)                                        \
  HARMONIZE_EXPORT int MPI_##Mixed(HARMONIZE_C_PARAMS_##Mixed) {                      \
    return timed(                                                                     \
        Collective::lower, comm, HARMONIZE_C_ROOT_##Mixed,                            \
        [&] { return HARMONIZE_C_BYTES_##Mixed; },                                    \
        [&] { return PMPI_##Mixed(HARMONIZE_C_ARGS_##Mixed); });                      \
  }
// clang-format on

HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_C_ENTRY)
