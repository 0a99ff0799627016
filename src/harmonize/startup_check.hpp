#pragma once
// Stops the job before it measures anything when the policy is invalid.
#include <mpi.h>

#include "config/policy.hpp"

namespace harmonize {

// Collective over `comm` (a private duplicate of MPI_COMM_WORLD). When any
// rank found errors, the lowest such rank prints them (one line each, on
// stderr, prefixed "harmonize: error: ") and aborts the job through
// PMPI_Abort; the others wait to be killed. Returns only when all are valid.
void stop_job_on_policy_errors(const config::PolicyResult& result, MPI_Comm comm);

// Collective over `comm`. Every rank must run the same policy (a rank in
// another mode would wait in collectives the others never start): when any
// variable but the report's file and verbosity on rank 0 differs, rank 0
// names them and aborts the job.
void stop_job_on_policy_disagreement(const config::PolicyResult& result, MPI_Comm comm);

}  // namespace harmonize
