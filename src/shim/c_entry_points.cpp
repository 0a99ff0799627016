// The exported C entry points. Thin on purpose: translate, guard, delegate.
#include <mpi.h>

#include "harmonize/collectives/mpi/comm_id.hpp"
#include "harmonize/lifecycle.hpp"
#include "harmonize/mpix_harmonize.h"
#include "shim/export.hpp"
#include "shim/reentrancy_guard.hpp"
#include "shim/timed_call.hpp"

namespace {

int after_init(int status) {
  if (status != MPI_SUCCESS) return status;
  harmonize::shim::ReentrancyGuard guard;
  return harmonize::initialize_library();
}

}  // namespace

HARMONIZE_EXPORT int MPI_Init(int* argc, char*** argv) {
  return after_init(PMPI_Init(argc, argv));
}

HARMONIZE_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return after_init(PMPI_Init_thread(argc, argv, required, provided));
}

HARMONIZE_EXPORT int MPI_Finalize(void) {
  {
    harmonize::shim::ReentrancyGuard guard;
    if (guard.outermost()) harmonize::finalize_library();
  }
  return PMPI_Finalize();
}

HARMONIZE_EXPORT int MPI_Barrier(MPI_Comm comm) {
  // Pass-through first: in mode off this is the whole cost of the library.
  if (!harmonize::g_intercept_barrier) return PMPI_Barrier(comm);
  harmonize::shim::ReentrancyGuard guard;
  if (!guard.outermost()) return PMPI_Barrier(comm);
  return harmonize::intercepted_barrier(comm, harmonize::Entry::c);
}

HARMONIZE_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  // Its timed calls are matched (or counted) before its handle can be reused.
  const bool timing = harmonize::g_collective_timer != nullptr && comm != nullptr;
  if (timing) {
    harmonize::shim::ReentrancyGuard guard;
    if (guard.outermost()) harmonize::communicator_freeing(*comm);
  }
  const int status = PMPI_Comm_free(comm);
  // After the free: a handle reused from now on is a new communicator.
  if (timing) harmonize::shim::g_communicators_freed.fetch_add(1, std::memory_order_relaxed);
  return status;
}

HARMONIZE_EXPORT int MPIX_Harmonize(MPI_Comm comm, int* flag) {
  harmonize::shim::ReentrancyGuard guard;
  return harmonize::harmonize_barrier(comm, flag);
}

HARMONIZE_EXPORT int MPIX_Harmonize_last_flag(MPI_Comm comm, int* flag) {
  return harmonize::last_harmonize_flag(comm, flag);
}

HARMONIZE_EXPORT int MPIX_Harmonize_gettime(double* time, double* bound) {
  return harmonize::global_time(time, bound);
}

HARMONIZE_EXPORT double MPI_Wtime(void) {
  if (!harmonize::g_global_wtime) return PMPI_Wtime();
  return harmonize::global_wtime();
}

namespace {

// MPI_WTIME_IS_GLOBAL is a predefined attribute of MPI_COMM_WORLD: a
// pointer to an int. Under HARMONIZE_WTIME=global it points to a 1.
int with_global_wtime(MPI_Comm comm, int keyval, void* value, const int* flag, int status) {
  static int global = 1;
  if (status == MPI_SUCCESS && harmonize::g_global_wtime && keyval == MPI_WTIME_IS_GLOBAL &&
      comm == MPI_COMM_WORLD && value != nullptr && flag != nullptr && *flag != 0)
    *static_cast<int**>(value) = &global;
  return status;
}

}  // namespace

HARMONIZE_EXPORT int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  return with_global_wtime(comm, keyval, value, flag,
                           PMPI_Comm_get_attr(comm, keyval, value, flag));
}
