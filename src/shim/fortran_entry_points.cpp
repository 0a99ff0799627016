// Fortran entry points. Open MPI's mpif.h / `use mpi` / `use mpi_f08`
// wrappers call PMPI_Init, PMPI_Barrier, PMPI_Finalize directly, so
// interposing the C symbols misses Fortran programs entirely: every mangling a
// Fortran compiler or binding may resolve to is defined here (names checked
// with `nm -D` on Open MPI's libmpi_mpifh / libmpi_usempif08 and MPICH's
// libmpifort). Init and finalize call the MPI library's own Fortran profiling
// entry (pmpi_init_ ...), which does the binding-specific set-up (Fortran
// constants, MPI_BOTTOM, ...); those are weak so C programs load us unchanged.
#include <mpi.h>

#include "harmonize/lifecycle.hpp"
#include "shim/export.hpp"
#include "shim/reentrancy_guard.hpp"

using FortranInit = void(MPI_Fint*);
using FortranInitThread = void(MPI_Fint*, MPI_Fint*, MPI_Fint*);
using FortranFinalize = void(MPI_Fint*);

// The MPI library's Fortran profiling entries, present only when the program
// uses Fortran MPI. Each binding spells them differently.
#define HARMONIZE_WEAK_FORTRAN(name_suffix)                                         \
  extern "C" FortranInit pmpi_init##name_suffix __attribute__((weak));              \
  extern "C" FortranInitThread pmpi_init_thread##name_suffix __attribute__((weak)); \
  extern "C" FortranFinalize pmpi_finalize##name_suffix __attribute__((weak));
HARMONIZE_WEAK_FORTRAN()
HARMONIZE_WEAK_FORTRAN(_)
HARMONIZE_WEAK_FORTRAN(__)
HARMONIZE_WEAK_FORTRAN(_f08_)  // Open MPI mpi_f08
extern "C" FortranInit PMPI_INIT __attribute__((weak));
extern "C" FortranInitThread PMPI_INIT_THREAD __attribute__((weak));
extern "C" FortranFinalize PMPI_FINALIZE __attribute__((weak));
extern "C" FortranInit pmpir_init_f08_ __attribute__((weak));  // MPICH mpi_f08
extern "C" FortranInitThread pmpir_init_thread_f08_ __attribute__((weak));
extern "C" FortranFinalize pmpir_finalize_f08_ __attribute__((weak));

namespace {

// The mpi_f08 binding passes an absent optional ierror as a null pointer.
void set_error(MPI_Fint* ierror, int status) {
  if (ierror != nullptr) *ierror = static_cast<MPI_Fint>(status);
}

FortranInit* first(FortranInit* a, FortranInit* b) {
  return a != nullptr ? a : b;
}
FortranInitThread* first(FortranInitThread* a, FortranInitThread* b) {
  return a != nullptr ? a : b;
}

void fortran_init(FortranInit* original, MPI_Fint* ierror) {
  MPI_Fint status = MPI_SUCCESS;
  if (original != nullptr) {
    original(&status);
  } else {
    status = PMPI_Init(nullptr, nullptr);  // a binding we do not know: C set-up only
  }
  if (status == MPI_SUCCESS) {
    harmonize::shim::ReentrancyGuard guard;
    status = harmonize::initialize_library();
  }
  set_error(ierror, status);
}

void fortran_init_thread(FortranInitThread* original, MPI_Fint* required, MPI_Fint* provided,
                         MPI_Fint* ierror) {
  MPI_Fint status = MPI_SUCCESS;
  if (original != nullptr) {
    original(required, provided, &status);
  } else {
    int provided_c = 0;
    status = PMPI_Init_thread(nullptr, nullptr, *required, &provided_c);
    *provided = provided_c;
  }
  if (status == MPI_SUCCESS) {
    harmonize::shim::ReentrancyGuard guard;
    status = harmonize::initialize_library();
  }
  set_error(ierror, status);
}

void fortran_finalize(FortranFinalize* original, MPI_Fint* ierror) {
  {
    harmonize::shim::ReentrancyGuard guard;
    if (guard.outermost()) harmonize::finalize_library();
  }
  MPI_Fint status = MPI_SUCCESS;
  if (original != nullptr) {
    original(&status);
  } else {
    status = PMPI_Finalize();
  }
  set_error(ierror, status);
}

void fortran_barrier(const MPI_Fint* comm, MPI_Fint* ierror) {
  const MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
  int status;
  if (!harmonize::g_intercept_barrier) {
    status = PMPI_Barrier(c_comm);
  } else {
    harmonize::shim::ReentrancyGuard guard;
    status = guard.outermost() ? harmonize::intercepted_barrier(c_comm, harmonize::Entry::fortran)
                               : PMPI_Barrier(c_comm);
  }
  set_error(ierror, status);
}

}  // namespace

// mpif.h and `use mpi`: lowercase with 0, 1 or 2 trailing underscores, and all-caps.
#define HARMONIZE_FORTRAN_ENTRIES(suffix, init, init_thread, finalize)                  \
  HARMONIZE_EXPORT void mpi_init##suffix(MPI_Fint* ierror) {                            \
    fortran_init(init, ierror);                                                         \
  }                                                                                     \
  HARMONIZE_EXPORT void mpi_init_thread##suffix(MPI_Fint* required, MPI_Fint* provided, \
                                                MPI_Fint* ierror) {                     \
    fortran_init_thread(init_thread, required, provided, ierror);                       \
  }                                                                                     \
  HARMONIZE_EXPORT void mpi_finalize##suffix(MPI_Fint* ierror) {                        \
    fortran_finalize(finalize, ierror);                                                 \
  }                                                                                     \
  HARMONIZE_EXPORT void mpi_barrier##suffix(MPI_Fint* comm, MPI_Fint* ierror) {         \
    fortran_barrier(comm, ierror);                                                      \
  }

HARMONIZE_FORTRAN_ENTRIES(, pmpi_init, pmpi_init_thread, pmpi_finalize)
HARMONIZE_FORTRAN_ENTRIES(_, pmpi_init_, pmpi_init_thread_, pmpi_finalize_)
HARMONIZE_FORTRAN_ENTRIES(__, pmpi_init__, pmpi_init_thread__, pmpi_finalize__)
// `use mpi_f08`: type(MPI_Comm) arrives as a pointer to its integer handle.
HARMONIZE_FORTRAN_ENTRIES(_f08_, first(pmpi_init_f08_, pmpir_init_f08_),
                          first(pmpi_init_thread_f08_, pmpir_init_thread_f08_),
                          first(pmpi_finalize_f08_, pmpir_finalize_f08_))

HARMONIZE_EXPORT void MPI_INIT(MPI_Fint* ierror) {
  fortran_init(PMPI_INIT, ierror);
}
HARMONIZE_EXPORT void MPI_INIT_THREAD(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  fortran_init_thread(PMPI_INIT_THREAD, required, provided, ierror);
}
HARMONIZE_EXPORT void MPI_FINALIZE(MPI_Fint* ierror) {
  fortran_finalize(PMPI_FINALIZE, ierror);
}
HARMONIZE_EXPORT void MPI_BARRIER(MPI_Fint* comm, MPI_Fint* ierror) {
  fortran_barrier(comm, ierror);
}

// MPI_WTIME, a function of no argument in every binding: mpif.h and `use
// mpi` resolve to the lowercase and all-caps manglings, `use mpi_f08` to
// MPI_Wtime_f08 (Open MPI) or mpi_wtime_f08_ (MPICH); each calls PMPI_Wtime
// in the MPI library, past the C entry.
namespace {

double fortran_wtime() {
  return harmonize::g_global_wtime ? harmonize::global_wtime() : PMPI_Wtime();
}

// MPIX_HARMONIZE_GETTIME(T, BOUND, IERROR): DOUBLE PRECISION T, BOUND; INTEGER IERROR.
void fortran_gettime(double* time, double* bound, MPI_Fint* ierror) {
  set_error(ierror, harmonize::global_time(time, bound));
}

}  // namespace

#define HARMONIZE_FORTRAN_CLOCK(suffix)                                             \
  HARMONIZE_EXPORT double mpi_wtime##suffix() {                                     \
    return fortran_wtime();                                                         \
  }                                                                                 \
  HARMONIZE_EXPORT void mpix_harmonize_gettime##suffix(double* time, double* bound, \
                                                       MPI_Fint* ierror) {          \
    fortran_gettime(time, bound, ierror);                                           \
  }
HARMONIZE_FORTRAN_CLOCK()
HARMONIZE_FORTRAN_CLOCK(_)
HARMONIZE_FORTRAN_CLOCK(__)

HARMONIZE_EXPORT double MPI_WTIME() {
  return fortran_wtime();
}
HARMONIZE_EXPORT double MPI_Wtime_f08() {
  return fortran_wtime();
}
HARMONIZE_EXPORT double mpi_wtime_f08_() {
  return fortran_wtime();
}
HARMONIZE_EXPORT void MPIX_HARMONIZE_GETTIME(double* time, double* bound, MPI_Fint* ierror) {
  fortran_gettime(time, bound, ierror);
}
