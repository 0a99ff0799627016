#pragma once
// MPI_Finalize: every process's part of the report merged up a binomial tree
// to world rank 0 (sync/mpi/tree_merge.hpp: it receives ceil(log2 P)
// messages), a lost subtree named in the records rather than thrown.
#include <mpi.h>

#include "harmonize/logic/job_records.hpp"

namespace harmonize {

// Collective over `world` (the library's copy of MPI_COMM_WORLD); complete on
// world rank 0 only.
logic::JobRecords merge_records_up_tree(MPI_Comm world, int world_rank,
                                        logic::ProcessContribution own);

}  // namespace harmonize
