/* Duplicates MPI_COMM_WORLD until MPI refuses (or argv[1] communicators are
 * live), one barrier on each, under MPI_ERRORS_RETURN, the way a careless
 * program exhausts an MPI library's context ids. Then checks that the
 * program's own calls still work, frees everything and prints
 * "live N barrier_errors E". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int cap = argc > 1 ? atoi(argv[1]) : 4096;
  MPI_Comm* comms = malloc(sizeof(MPI_Comm) * (size_t)cap);
  int live = 0;
  int barrier_errors = 0;
  while (live < cap) {
    MPI_Comm comm = MPI_COMM_NULL;
    const int ok = MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS;
    int all_ok = 0;
    /* Ranks agree before using the new communicator: a dup that failed on
     * one rank only must not leave the others in a barrier. */
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) break;
    if (!all_ok) {
      if (ok) MPI_Comm_free(&comm);
      break;
    }
    if (MPI_Barrier(comm) != MPI_SUCCESS) ++barrier_errors;
    comms[live++] = comm;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int one = 1, sum = 0;
  const int world_ok =
      MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS &&
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
  for (int i = 0; i < live; ++i) MPI_Comm_free(&comms[i]);
  free(comms);
  if (rank == 0) printf("live %d barrier_errors %d world_ok %d\n", live, barrier_errors, world_ok);
  MPI_Finalize();
  return 0;
}
