#include "harmonize/startup_check.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

namespace harmonize {

void stop_job_on_policy_errors(const config::PolicyResult& result, MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // Ranks normally share one environment; should they differ, the lowest
  // failing rank speaks so that the message is printed exactly once.
  const int mine = result.ok() ? size : rank;
  int first_failing = size;
  PMPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, comm);
  if (first_failing == size) return;
  if (rank == first_failing) {
    for (const std::string& error : result.errors) {
      std::fprintf(stderr, "harmonize: error: %s\n", error.c_str());
    }
    std::fprintf(stderr, "harmonize: error: stopping the job before it runs (exit status 2)\n");
    std::fflush(stderr);
    // Give the launcher a moment to forward the line: MPICH's Hydra tears the
    // job down on abort and may drop output still in flight.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Never returns in practice: the aborting rank takes the job down.
  PMPI_Barrier(comm);
  PMPI_Abort(MPI_COMM_WORLD, 2);
}

}  // namespace harmonize
