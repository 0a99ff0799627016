/* Creates a communicator long after MPI_Init (argv[1] seconds of sleep) and
 * barriers on it argv[2] times: its clock is inherited from a world sync that
 * has aged meanwhile, which must not leak into its slack. */
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int seconds = argc > 1 ? atoi(argv[1]) : 2;
  const int barriers = argc > 2 ? atoi(argv[2]) : 200;
  sleep((unsigned)seconds);
  MPI_Comm late;
  MPI_Comm_dup(MPI_COMM_WORLD, &late);
  MPI_Comm_set_name(late, "late");
  for (int i = 0; i < barriers; ++i) MPI_Barrier(late);
  MPI_Comm_free(&late);
  MPI_Finalize();
  return 0;
}
