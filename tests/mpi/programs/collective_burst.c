/* N back-to-back MPI_Allreduce calls on MPI_COMM_WORLD with no barrier in
 * between (IMB's loops look like this), then one MPI_Barrier unless the
 * second argument is "nobarrier", and a split communicator's own burst of N
 * MPI_Bcast calls, freed before any barrier on it.
 * Usage: collective_burst N [nobarrier] */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const int barrier = !(argc > 2 && strcmp(argv[2], "nobarrier") == 0);
  int value = 1, sum = 0;
  for (int i = 0; i < n; ++i) MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (barrier) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  for (int i = 0; i < n; ++i) MPI_Bcast(&value, 1, MPI_INT, 0, copy);
  MPI_Comm_free(&copy);
  MPI_Finalize();
  return 0;
}
