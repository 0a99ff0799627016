#pragma once
// The one place the library waits for MPI. On an oversubscribed node a
// blocking call spins inside MPI (MPICH never yields) and keeps the rank it
// waits for off the core, so there the library polls and yields instead.
#include <mpi.h>

namespace harmonize::sync {

// Completes `request` (started with `status`, which is returned when it is
// not MPI_SUCCESS). Throws nothing.
int wait_for(MPI_Request& request, int status, bool yield);

}  // namespace harmonize::sync
