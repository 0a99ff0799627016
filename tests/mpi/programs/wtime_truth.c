/* Ground truth for the global clock lent to programs (HARMONIZE_WTIME=global,
 * MPIX_Harmonize_gettime). A plain MPI program: N times, after MPI_Barrier,
 * every process stamps MPI_Wtime and MPIX_Harmonize_gettime between two reads
 * of the untouched clock (CLOCK_MONOTONIC, the truth of the test clocks),
 * then sleeps G ms. Rank 0
 * prints, from every process:
 *   sample <rank> <i> <truth before> <truth after> <MPI_Wtime> <bound> <time>
 * where time and bound come from MPIX_Harmonize_gettime (found at run time:
 * the program does not link the library; -1 without it). Also:
 *   wtime_is_global <flag> <value>   MPI_WTIME_IS_GLOBAL of MPI_COMM_WORLD
 *   gettime <when> <status>          before MPI_Init, inside, after MPI_Finalize
 * Usage: wtime_truth [N [G]] (default 40 samples, 5 ms apart). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "truth.h"

typedef int (*GetTime)(double*, double*);

static int status_of(GetTime gettime) {
  double t = 0, bound = 0;
  return gettime ? gettime(&t, &bound) : -1;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 40;
  const int gap_ms = argc > 2 ? atoi(argv[2]) : 5;
  GetTime gettime = (GetTime)dlsym(RTLD_DEFAULT, "MPIX_Harmonize_gettime");
  const int before_init = status_of(gettime);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* is_global = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &is_global, &flag);
  if (rank == 0) {
    printf("gettime before_init %d\n", before_init);
    printf("gettime inside %d\n", status_of(gettime));
    printf("wtime_is_global %d %d\n", flag, flag && is_global ? *is_global : -1);
  }
  double* mine = malloc(sizeof(double) * 5 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = -1, bound = -1;
    const double before = truth();
    const double wtime = MPI_Wtime();
    if (gettime && gettime(&t, &bound) != MPI_SUCCESS) t = bound = -1;
    const double after = truth();
    double* sample = mine + 5 * i;
    sample[0] = before;
    sample[1] = after;
    sample[2] = wtime;
    sample[3] = bound;
    sample[4] = t;
    const struct timespec gap = {0, gap_ms * 1000000L};
    nanosleep(&gap, NULL);
  }
  double* all = rank == 0 ? malloc(sizeof(double) * 5 * (size_t)n * (size_t)size) : NULL;
  MPI_Gather(mine, 5 * n, MPI_DOUBLE, all, 5 * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) {
        const double* s = all + 5 * ((size_t)r * (size_t)n + (size_t)i);
        printf("sample %d %d %.9f %.9f %.9f %.3e %.9f\n", r, i, s[0], s[1], s[2], s[3], s[4]);
      }
  }
  MPI_Finalize();
  if (rank == 0) printf("gettime after_finalize %d\n", status_of(gettime));
  free(mine);
  free(all);
  return 0;
}
