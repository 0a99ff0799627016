/* Barriers on communicators every process has its own of: rank r calls
 * MPI_Barrier on MPI_COMM_SELF 1000 + r times, then every process calls it
 * 100 times on an intercommunicator between the even and the odd ranks.
 * Needs an even number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 1000 + rank; ++i) MPI_Barrier(MPI_COMM_SELF);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  for (int i = 0; i < 100; ++i) MPI_Barrier(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  if (rank == 0) printf("per-process communicators done\n");
  MPI_Finalize();
  return 0;
}
