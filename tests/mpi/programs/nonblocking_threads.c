/* Non-blocking collectives from two threads at once (MPI_THREAD_MULTIPLE):
 * each thread starts N MPI_Iallreduce on its own duplicate of
 * MPI_COMM_WORLD and completes them, one thread with MPI_Wait, the other
 * with MPI_Test, while the other thread's requests are open. Every call
 * must be matched on its communicator.
 * Usage: nonblocking_threads N */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "program.h"

static int n = 200;

struct work {
  MPI_Comm comm;
  int by_test;
};

static void* run(void* arg) {
  const struct work* w = arg;
  for (int i = 0; i < n; ++i) {
    double value = i, sum = 0;
    MPI_Request request;
    MPI_Iallreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, w->comm, &request);
    if (w->by_test) {
      int done = 0;
      while (!done) MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    if (i % 50 == 49) MPI_Barrier(w->comm);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (!start_threads(&argc, &argv)) return 0;
  n = int_arg(argc, argv, 1, 200);
  struct work works[2] = {{MPI_COMM_NULL, 0}, {MPI_COMM_NULL, 1}};
  MPI_Comm_dup(MPI_COMM_WORLD, &works[0].comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &works[1].comm);
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, run, &works[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("done %d\n", n);
  MPI_Finalize();
  return 0;
}
