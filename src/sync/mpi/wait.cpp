#include "sync/mpi/wait.hpp"

#include <sched.h>

namespace harmonize::sync {

int wait_for(MPI_Request& request, int status, bool yield) {
  if (status != MPI_SUCCESS) return status;
  if (!yield) return PMPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int done = 0;;) {
    status = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done || status != MPI_SUCCESS) return status;
    sched_yield();
  }
}

}  // namespace harmonize::sync
