/* What the test programs share: their start (MPI_Init, and this process's
 * place in MPI_COMM_WORLD) and their numeric arguments. */
#ifndef HARMONIZE_TESTS_PROGRAM_H
#define HARMONIZE_TESTS_PROGRAM_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static inline void start_world(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE; 0 (after MPI_Finalize and
 * a line the tests read as a skip) when the MPI cannot give it. */
static inline int start_threads(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided >= MPI_THREAD_MULTIPLE) return 1;
  printf("MPI_THREAD_MULTIPLE not provided\n");
  MPI_Finalize();
  return 0;
}

/* argv[at], or `otherwise` when the program was given fewer arguments. */
static inline int int_arg(int argc, char** argv, int at, int otherwise) {
  return argc > at ? atoi(argv[at]) : otherwise;
}
static inline double double_arg(int argc, char** argv, int at, double otherwise) {
  return argc > at ? atof(argv[at]) : otherwise;
}

#endif
