/* harmonize: MPI processes synchronized in space and time.
 *
 * Programs preloaded with libharmonize.so need nothing from this header: their
 * MPI_Barrier calls are harmonized according to HARMONIZE_MODE. Programs that
 * want the harmonized barrier explicitly (and discard iterations whose
 * deadline was missed, paper 000 Listing 1) link -lharmonize and call it here.
 */
#ifndef HARMONIZE_MPIX_HARMONIZE_H
#define HARMONIZE_MPIX_HARMONIZE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HARMONIZE_VERSION_MAJOR 0
#define HARMONIZE_VERSION_MINOR 1

/* Harmonized barrier on `comm` (collective over comm): no process leaves
 * before all have entered, and all leave at the same instant of the
 * synchronized global clock.
 *
 * `flag` (out, may be NULL) is local to the calling process: 1 when it met
 * the deadline and waited for it, 0 when it missed it (its exit time is then
 * late; the measurement that follows is not time-synchronized). The flag is
 * never agreed upon inside the call: combine the flags of all processes later
 * (e.g. every 16 iterations with MPI_Allreduce(MPI_LAND)) to decide which
 * iterations are valid.
 *
 * Works whatever HARMONIZE_MODE is (off and observe included), on any
 * intracommunicator; size-1 communicators return at once with flag = 1.
 * Returns MPI_SUCCESS, or the error code of the failing MPI call. */
int MPIX_Harmonize(MPI_Comm comm, int* flag);

/* The flag of the last harmonized barrier this process completed on `comm`
 * (through MPI_Barrier under HARMONIZE_MODE=harmonize, or MPIX_Harmonize):
 * 1 met, 0 missed, -1 when there was none yet. Does not communicate. */
int MPIX_Harmonize_last_flag(MPI_Comm comm, int* flag);

/* The global clock: `*time` is this process's reading of it (seconds, on
 * world rank 0's clock), `*bound` the proven limit of how far that reading
 * can be from rank 0's at the same instant (seconds). From any thread,
 * between MPI_Init and MPI_Finalize, in modes observe and harmonize; does
 * not communicate. Returns MPI_SUCCESS; MPI_ERR_OTHER when there is no
 * global clock (before MPI_Init, after MPI_Finalize, mode off, or a program
 * not run with the library), MPI_ERR_ARG for a null pointer.
 * Fortran: CALL MPIX_HARMONIZE_GETTIME(T, BOUND, IERROR) with
 * DOUBLE PRECISION T, BOUND and INTEGER IERROR.
 * HARMONIZE_WTIME=global makes MPI_Wtime return the same clock. */
int MPIX_Harmonize_gettime(double* time, double* bound);

#ifdef __cplusplus
}
#endif

#endif /* HARMONIZE_MPIX_HARMONIZE_H */
