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

#include "truth.h"

/* stamps: [process][call][entry, exit] gathered on rank 0. */
static void medians(const double* stamps, int size, int n, int op, int ops, double* arrival,
                    double* t_global) {
  double* a = malloc(sizeof(double) * (size_t)n);
  double* g = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double min_entry = 1e300, max_entry = -1e300, max_exit = -1e300;
    for (int p = 0; p < size; ++p) {
      const double* s =
          stamps + (((size_t)p * (size_t)n + (size_t)i) * (size_t)ops + (size_t)op) * 2;
      if (s[0] < min_entry) min_entry = s[0];
      if (s[0] > max_entry) max_entry = s[0];
      if (s[1] > max_exit) max_exit = s[1];
    }
    a[i] = max_entry - min_entry;
    g[i] = max_exit - min_entry;
  }
  *arrival = median(a, n);
  *t_global = median(g, n);
  free(a);
  free(g);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const double delay = (argc > 2 ? atof(argv[2]) : 100) * 1e-6;
  const int delayed = argc > 3 ? atoi(argv[3]) : 1;
  enum { ops = 2 };
  double* mine = malloc(sizeof(double) * (size_t)n * ops * 2);
  char bytes[1024] = {0};
  for (int i = 0; i < n; ++i) {
    double value = rank, sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == delayed) {
      const double until = truth() + delay;
      while (truth() < until) {
      }
    }
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
    medians(all, size, n, 0, ops, &a0, &g0);
    medians(all, size, n, 1, ops, &a1, &g1);
    printf("truth allreduce %.9g %.9g bcast %.9g %.9g\n", a0, g0, a1, g1);
    free(all);
  }
  free(mine);
  MPI_Finalize();
  return 0;
}
