/* Ground truth for HARMONIZE_ARRIVAL: N iterations of
 *   MPI_Barrier; MPI_Allreduce of 8 bytes
 * with each process stamping the untouched clock (CLOCK_MONOTONIC, the
 * truth of the test clocks) right before the allreduce: its true arrival.
 * The program itself delays nobody; whatever pattern the arrivals show, the
 * barrier imposed. It asks the preloaded library (when there is one) whether
 * every process left the barrier in time (MPIX_Harmonize_last_flag, found at
 * run time: the program does not link the library). Rank 0 prints one line
 * per call, valid 1 when every flag was 1:
 *   arrivals <call> <valid> <entry of rank 0> <entry of rank 1> ...
 * Usage: arrival_truth N [B]: B barriers before each allreduce (default 1). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double truth(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const int barriers = argc > 2 ? atoi(argv[2]) : 1;
  int (*last_flag)(MPI_Comm, int*) =
      (int (*)(MPI_Comm, int*))dlsym(RTLD_DEFAULT, "MPIX_Harmonize_last_flag");
  double* entries = malloc(sizeof(double) * (size_t)n);
  int* flags = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double value = rank, sum = 0;
    for (int b = 0; b < barriers; ++b) MPI_Barrier(MPI_COMM_WORLD);
    entries[i] = truth();
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    flags[i] = 1;
    if (last_flag) last_flag(MPI_COMM_WORLD, &flags[i]);
  }
  int* all_flags = rank == 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
  PMPI_Reduce(flags, all_flags, n, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)n * (size_t)size) : NULL;
  /* PMPI: the gather is the test's own, not a call under test. */
  PMPI_Gather(entries, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      printf("arrivals %d %d", i, all_flags[i] == 1);
      for (int p = 0; p < size; ++p) printf(" %.9f", all[(size_t)p * (size_t)n + (size_t)i]);
      printf("\n");
    }
    free(all);
    free(all_flags);
  }
  free(entries);
  free(flags);
  MPI_Finalize();
  return 0;
}
