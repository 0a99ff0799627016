/* Collectives and barriers on an intercommunicator (issue 25, D4): 10
 * barriers on MPI_COMM_WORLD, then N times (argv[1], default 100) a barrier,
 * an allreduce and a bcast on an intercommunicator between the even and the
 * odd ranks; with argv[2] = "nobarrier", the intercommunicator gets only
 * the collectives, and is left to MPI_Finalize unfreed. Needs an even
 * number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  const int barriers = !(argc > 2 && strcmp(argv[2], "nobarrier") == 0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 10; ++i) MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  int half_rank = 0;
  MPI_Comm_rank(half, &half_rank);
  /* The even group's rank 0 broadcasts to the odd group. */
  const int root = rank % 2 == 0 ? (half_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  for (int i = 0; i < n; ++i) {
    if (barriers) MPI_Barrier(inter);
    int in = rank, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, inter);
    MPI_Bcast(&in, 1, MPI_INT, root, inter);
  }
  if (barriers) MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  if (rank == 0) printf("intercommunicator collectives done\n");
  MPI_Finalize();
  return 0;
}
