/* Ground truth for the collective timer: N iterations of
 *   MPI_Barrier; rank R waits D microseconds; MPI_Allreduce of 8 bytes;
 *   MPI_Bcast of 1 KiB from root 1
 * with each process stamping the untouched clock (CLOCK_MONOTONIC, the
 * truth of the test clocks) right before and after every collective. Rank 0
 * prints, per operation, the true arrival skew and t_global (paper 002,
 * eq. 4) of every call's median as one line:
 *   truth allreduce <arrival p50> <t_global p50> bcast <arrival p50> <t_global p50>
 * Usage: collective_delays N D_us R */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "program.h"
#include "truth.h"

enum { ops = 2 };

/* stamps: [process][call][op][entry, exit] gathered on rank 0. */
static const double* stamp_of(const double* all, int n, int p, int i, int op) {
  return all + (((size_t)p * (size_t)n + (size_t)i) * ops + (size_t)op) * 2;
}

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const struct delayed_calls calls = delayed_calls_of(argc, argv);
  const int n = calls.n;
  double* mine = malloc(sizeof(double) * (size_t)n * ops * 2);
  char bytes[1024] = {0};
  for (int i = 0; i < n; ++i) {
    double value = rank, sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == calls.delayed) spin(calls.delay);
    double* s = mine + (size_t)i * ops * 2;
    s[0] = truth();
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    s[1] = truth();
    s[2] = truth();
    MPI_Bcast(bytes, (int)sizeof bytes, MPI_CHAR, size > 1 ? 1 : 0, MPI_COMM_WORLD);
    s[3] = truth();
  }
  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)n * ops * 2 * (size_t)size) : NULL;
  /* PMPI: the gather is the test's own, not a call under test. */
  PMPI_Gather(mine, n * ops * 2, MPI_DOUBLE, all, n * ops * 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double a0, g0, a1, g1;
    call_spread(all, size, n, 0, stamp_of, 0, 1, &a0, &g0);
    call_spread(all, size, n, 1, stamp_of, 0, 1, &a1, &g1);
    printf("truth allreduce %.9g %.9g bcast %.9g %.9g\n", a0, g0, a1, g1);
    free(all);
  }
  free(mine);
  MPI_Finalize();
  return 0;
}
