/* Ground truth for the harmonized barrier and HARMONIZE_ARRIVAL: N iterations of
 *   MPI_Barrier; MPI_Allreduce of 8 bytes
 * with each process stamping the untouched clock (CLOCK_MONOTONIC, the
 * truth of the test clocks, one clock for every process of the machine, lab
 * nodes included) right before the allreduce: its true arrival.
 * The program itself delays nobody; whatever pattern the arrivals show, the
 * barrier imposed. It asks the preloaded library (when there is one) whether
 * every process left the barrier in time (MPIX_Harmonize_last_flag, found at
 * run time: the program does not link the library). Rank 0 prints one line
 * per call, valid 1 when every flag was 1:
 *   arrivals <call> <valid> <entry of rank 0> <entry of rank 1> ...
 * Usage: arrival_truth N [B [PHASE...]]: B barriers before each allreduce
 * (default 1). Each PHASE runs the N iterations on a new communicator, freed
 * after it, and is announced by a line `phase <PHASE> <size>` before its
 * arrivals (entries in the communicator's rank order):
 *   world     a duplicate of MPI_COMM_WORLD
 *   first:K   the first K world ranks (IMB's -npmin sequence: 2, 4, ...)
 *   parity    the ranks of world rank 0's parity
 * The processes outside a phase's communicator wait for it asleep (IMB's
 * wait in MPI_Barrier): on a machine of few cores a polling process would
 * take a core from the members, whose exits are what is measured. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "program.h"
#include "truth.h"

static void wait_asleep(MPI_Comm comm) {
  MPI_Request request;
  int done = 0;
  MPI_Ibarrier(comm, &request);
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) usleep(5000);
  }
}

/* The iterations on `comm`; its rank 0 prints them. */
static void run(MPI_Comm comm, int n, int barriers) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int (*last_flag)(MPI_Comm, int*) =
      (int (*)(MPI_Comm, int*))dlsym(RTLD_DEFAULT, "MPIX_Harmonize_last_flag");
  double* entries = malloc(sizeof(double) * (size_t)n);
  int* flags = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double value = rank, sum = 0;
    for (int b = 0; b < barriers; ++b) MPI_Barrier(comm);
    entries[i] = truth();
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    flags[i] = 1;
    if (last_flag) last_flag(comm, &flags[i]);
  }
  int* all_flags = rank == 0 ? malloc(sizeof(int) * (size_t)n) : NULL;
  /* PMPI: the reduce and the gather are the test's own, not calls under test. */
  PMPI_Reduce(flags, all_flags, n, MPI_INT, MPI_MIN, 0, comm);
  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)n * (size_t)size) : NULL;
  PMPI_Gather(entries, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      printf("arrivals %d %d", i, all_flags[i] == 1);
      for (int p = 0; p < size; ++p) printf(" %.9f", all[(size_t)p * (size_t)n + (size_t)i]);
      printf("\n");
    }
    fflush(stdout);
  }
  free(all);
  free(all_flags);
  free(entries);
  free(flags);
}

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const int n = int_arg(argc, argv, 1, 100);
  const int barriers = int_arg(argc, argv, 2, 1);
  if (argc <= 3) run(MPI_COMM_WORLD, n, barriers);
  for (int phase = 3; phase < argc; ++phase) {
    const char* spec = argv[phase];
    int color = 0;
    if (strncmp(spec, "first:", 6) == 0) {
      color = rank < atoi(spec + 6) ? 0 : MPI_UNDEFINED;
    } else if (strcmp(spec, "parity") == 0) {
      color = rank % 2;
    } else if (strcmp(spec, "world") != 0) {
      if (rank == 0) fprintf(stderr, "arrival_truth: unknown phase '%s'\n", spec);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (color == 1) color = MPI_UNDEFINED;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &comm);
    if (comm != MPI_COMM_NULL) {
      int members;
      MPI_Comm_size(comm, &members);
      if (rank == 0) printf("phase %s %d\n", spec, members);
      run(comm, n, barriers);
      MPI_Comm_free(&comm);
    }
    wait_asleep(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
