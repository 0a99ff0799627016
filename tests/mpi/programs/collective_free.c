/* Communicators freed right after their last collectives, as IMB does after
 * its largest sizes: a duplicate of MPI_COMM_WORLD (a barrier, then 10
 * allreduces: fewer than one matching's worth) and a communicator of one
 * process each (a barrier, then 5 broadcasts).
 * Usage: collective_free */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm copy, alone;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Comm_set_name(copy, "copy");
  MPI_Barrier(copy);
  for (int i = 0; i < 10; ++i) MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, copy);
  MPI_Comm_free(&copy);
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
  MPI_Barrier(alone);
  for (int i = 0; i < 5; ++i) MPI_Bcast(&value, 1, MPI_INT, 0, alone);
  MPI_Comm_free(&alone);
  MPI_Finalize();
  return 0;
}
