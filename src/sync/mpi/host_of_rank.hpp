#pragma once
// Which host every process runs on, for messages that name a node (the
// shared-clock warning). Collective; learned once at MPI_Init.
#include <mpi.h>

#include <string>
#include <vector>

namespace harmonize::sync {

// This process's processor name ("" if MPI cannot tell).
std::string processor_name();

// Rank 0 of `comm` gets every rank's processor name, by rank; the others get
// nothing. Throws MpiError.
std::vector<std::string> gather_host_of_rank(MPI_Comm comm);

}  // namespace harmonize::sync
