/* Ground truth for non-blocking collectives: N iterations of
 *   MPI_Barrier; rank R waits D microseconds;
 *   MPI_Iallreduce of 8 bytes; W microseconds of work; MPI_Wait;
 *   MPI_Ibcast of 1 KiB from root 1; MPI_Test until it completes
 * with each process stamping the untouched clock (CLOCK_MONOTONIC, the
 * truth of the test clocks) right before and after the start and the
 * completing call. Rank 0 prints, per operation, the medians over the calls
 * of the true arrival skew (of the starts), t_global (first start to last
 * completion) and, over every process's calls, the overlap (the start's
 * return to the completing call's entry):
 *   truth iallreduce <arrival> <t_global> <overlap> ibcast <arrival> <t_global> <overlap>
 * With A = 1 the even iterations do no work between start and wait, as
 * OSU's pure loop beside its compute loop: one key, two populations.
 * Usage: nonblocking_truth N D_us R W_us [A] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "program.h"
#include "truth.h"

enum { ops = 2, stamps = 4 }; /* start entry, start return, completion entry, completion exit */

static const double* stamp_of(const double* all, int n, int p, int i, int op) {
  return all + (((size_t)p * (size_t)n + (size_t)i) * ops + (size_t)op) * stamps;
}

static void print_truth(const char* name, const double* all, int size, int n, int op) {
  double arrival, t_global;
  /* The arrival of the starts; t_global to the last completion. */
  call_spread(all, size, n, op, stamp_of, 0, 3, &arrival, &t_global);
  double* o = malloc(sizeof(double) * (size_t)n * (size_t)size);
  for (int i = 0; i < n; ++i) {
    for (int p = 0; p < size; ++p) {
      const double* s = stamp_of(all, n, p, i, op);
      o[(size_t)i * (size_t)size + (size_t)p] = s[2] - s[1];
    }
  }
  printf(" %s %.9f %.9f %.9f", name, arrival, t_global, median(o, n * size));
  free(o);
}

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const struct delayed_calls calls = delayed_calls_of(argc, argv);
  const int n = calls.n;
  const double work = double_arg(argc, argv, 4, 50) * 1e-6;
  const int alternate = int_arg(argc, argv, 5, 0);
  double* mine = malloc(sizeof(double) * (size_t)n * ops * stamps);
  char bytes[1024] = {0};
  for (int i = 0; i < n; ++i) {
    double value = rank, sum = 0;
    MPI_Request request;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == calls.delayed) spin(calls.delay);
    double* s = mine + (size_t)i * ops * stamps;
    s[0] = truth();
    MPI_Iallreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    s[1] = truth();
    spin(alternate && i % 2 == 0 ? 0 : work);
    s[2] = truth();
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    s[3] = truth();
    s += stamps;
    int done = 0;
    s[0] = truth();
    MPI_Ibcast(bytes, (int)sizeof bytes, MPI_CHAR, size > 1 ? 1 : 0, MPI_COMM_WORLD, &request);
    s[1] = truth();
    while (!done) {
      s[2] = truth();
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      s[3] = truth();
    }
  }
  const int per_rank = n * ops * stamps;
  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)per_rank * (size_t)size) : NULL;
  /* PMPI: the gather is the test's own, not a call under test. */
  PMPI_Gather(mine, per_rank, MPI_DOUBLE, all, per_rank, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("truth");
    print_truth("iallreduce", all, size, n, 0);
    print_truth("ibcast", all, size, n, 1);
    printf("\n");
    fflush(stdout);
  }
  free(all);
  free(mine);
  MPI_Finalize();
  return 0;
}
