/* Calls MPI_Barrier on MPI_COMM_WORLD N times (argv[1]); then rank 0 sets
 * TMPDIR to argv[2] (unless it is "-") and removes the directories argv[3],
 * argv[4], ... in that order (they must be empty), before MPI_Finalize: the
 * report's directory, or the working directory, vanishing during the run
 * (issue 25, D6). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("program started\n");
  const int n = argc > 1 ? atoi(argv[1]) : 10;
  for (int i = 0; i < n; ++i) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (argc > 2 && strcmp(argv[2], "-") != 0) setenv("TMPDIR", argv[2], 1);
    for (int i = 3; i < argc; ++i) {
      if (rmdir(argv[i]) != 0) perror(argv[i]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("program done\n");
  MPI_Finalize();
  return 0;
}
