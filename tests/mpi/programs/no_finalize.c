/* Initializes MPI, does a barrier and returns without MPI_Finalize: the
 * library must not crash at process exit. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("returning without MPI_Finalize\n");
  fflush(stdout);
  return 0;
}
