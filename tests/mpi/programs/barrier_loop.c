/* Calls MPI_Barrier on MPI_COMM_WORLD N times (argv[1], default 10) and
 * prints a marker after MPI_Init, so tests can tell that the program ran. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("program started\n");
  const int n = argc > 1 ? atoi(argv[1]) : 10;
  for (int i = 0; i < n; ++i) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("program done\n");
  MPI_Finalize();
  return 0;
}
