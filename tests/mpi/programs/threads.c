/* MPI_THREAD_MULTIPLE: two threads per process, each barriers on its own
 * communicator at the same time.
 *
 * Halfway, the odd ranks' threads sleep 200 ms before their barrier: the even
 * ranks' two threads then wait inside that barrier together, so the calls
 * overlap however fast the machine runs the rest (on a fast one, a thread
 * could otherwise finish its loop before the other starts). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "program.h"

static int iterations = 500;

static int rank = 0;

static void* worker(void* arg) {
  MPI_Comm comm = *(MPI_Comm*)arg;
  for (int i = 0; i < iterations; ++i) {
    if (i == iterations / 2 && rank % 2 == 1) {
      struct timespec pause = {0, 200 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
    MPI_Barrier(comm);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (!start_threads(&argc, &argv)) return 0;
  if (argc > 1) iterations = atoi(argv[1]);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comms[2];
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_set_name(comms[0], "thread-0");
  MPI_Comm_set_name(comms[1], "thread-1");
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, worker, &comms[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  MPI_Comm_free(&comms[0]);
  MPI_Comm_free(&comms[1]);
  if (rank == 0) printf("threads done\n");
  MPI_Finalize();
  return 0;
}
