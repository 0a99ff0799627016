#pragma once
// Library lifecycle, as seen by the shim: set up right after MPI's own
// initialization, torn down right before its finalization, and the barrier
// entry in between.
#include <mpi.h>

namespace harmonize {

enum class Entry { c, fortran };

// Read by the shim on every MPI_Barrier: false means "pass straight through"
// (mode off without verbose, or before MPI_Init / after MPI_Finalize).
inline bool g_intercept_barrier = false;
// Read by the shim on every MPI_Wtime: HARMONIZE_WTIME=global, between
// MPI_Init and MPI_Finalize.
inline bool g_global_wtime = false;

// Every entry is noexcept: no C++ exception ever reaches the host program
// (an internal one becomes one "harmonize: error:" line and an MPI error code).

// Loads and checks the policy (stopping the job with one clear line on bad
// input), builds the world clock when the mode needs one. Collective over
// MPI_COMM_WORLD, except in mode off, which makes no collective at all.
// Returns MPI_SUCCESS.
int initialize_library() noexcept;

// Gathers statistics, writes the report, frees internal communicators.
// Collective over MPI_COMM_WORLD (mode off: local). Safe to skip: a program
// that never calls MPI_Finalize loses the report, nothing else (no static
// destructor of ours touches MPI).
void finalize_library() noexcept;

int intercepted_barrier(MPI_Comm comm, Entry entry) noexcept;
// Inside MPI_Comm_free, before MPI frees it: the communicator's timed
// collectives are matched.
void communicator_freeing(MPI_Comm comm) noexcept;
int harmonize_barrier(MPI_Comm comm, int* flag) noexcept;
int last_harmonize_flag(MPI_Comm comm, int* flag) noexcept;
// MPIX_Harmonize_gettime: MPI_ERR_OTHER outside MPI_Init ... MPI_Finalize or
// in mode off (no global clock), MPI_ERR_ARG for a null pointer.
int global_time(double* time, double* bound) noexcept;
// MPI_Wtime under HARMONIZE_WTIME=global: the global clock (the MPI
// library's own outside MPI_Init ... MPI_Finalize).
double global_wtime() noexcept;

}  // namespace harmonize
