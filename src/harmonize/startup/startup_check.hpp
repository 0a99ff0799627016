#pragma once
// Stops the job before it measures anything when the policy is invalid.
#include <mpi.h>

#include "config/policy.hpp"

namespace harmonize {

// Prints "stopping the job before it runs (exit status 2)" and aborts the job.
// PMPI_Abort does not return in practice.
void stop_job_before_it_runs();

// Frees the private world (no-op for MPI_COMM_NULL) at MPI_Finalize.
void leave_private_world(MPI_Comm& world);

// The library's private copy of MPI_COMM_WORLD (errors returned, not fatal),
// made without blocking: a rank launched without the library never joins, so
// after `timeout_seconds` this rank prints one line naming the likely cause
// and aborts the job (exit status 2) instead of hanging in MPI_Init.
MPI_Comm join_private_world(double timeout_seconds);

// Mode off makes no collective: a rank whose policy is invalid prints its
// errors and aborts the job on its own (rank 0 first, so that one copy of
// the lines is printed when every rank has the same environment).
void stop_alone_on_policy_errors(const config::PolicyResult& result);

// Collective over `comm` (a private duplicate of MPI_COMM_WORLD). When any
// rank found errors, the lowest such rank prints them (one line each, on
// stderr, prefixed "harmonize: error: ") and aborts the job through
// PMPI_Abort; the others wait to be killed. Returns only when all are valid.
void stop_job_on_policy_errors(const config::PolicyResult& result, MPI_Comm comm);

// The one of the two above that fits: alone when there is no private world
// (`world` null: mode off), else collective over it.
void stop_on_policy_errors(const config::PolicyResult& result, MPI_Comm world);

// Collective over `comm`. Every rank must run the same policy (a rank in
// another mode would wait in collectives the others never start): when any
// variable but the report's file and verbosity on rank 0 differs, rank 0
// names them and aborts the job.
void stop_job_on_policy_disagreement(const config::PolicyResult& result, MPI_Comm comm);

}  // namespace harmonize
