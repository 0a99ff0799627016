/* Calls MPIX_Harmonize directly (paper 000, Listing 1): harmonized
 * iterations, local flags combined every 16 iterations, invalid ones
 * discarded. Linked against libharmonize, not preloaded. */
#include <harmonize/mpix_harmonize.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int iterations = argc > 1 ? atoi(argv[1]) : 256;
  int before = 7;
  MPIX_Harmonize_last_flag(MPI_COMM_WORLD, &before);
  int valid = 0, local_ok = 1;
  for (int i = 0; i < iterations; ++i) {
    int flag = -1;
    if (MPIX_Harmonize(MPI_COMM_WORLD, &flag) != MPI_SUCCESS) return 1;
    int last = -2;
    MPIX_Harmonize_last_flag(MPI_COMM_WORLD, &last);
    if (last != flag || (flag != 0 && flag != 1)) {
      printf("rank %d: inconsistent flag %d / last %d\n", rank, flag, last);
      return 1;
    }
    local_ok &= flag;
    if (i % 16 == 15) {
      int all_ok = 0;
      MPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      valid += all_ok ? 16 : 0;
      local_ok = 1;
    }
  }
  int self_flag = -1;
  MPIX_Harmonize(MPI_COMM_SELF, &self_flag);
  if (rank == 0)
    printf("explicit: before=%d valid=%d of %d self_flag=%d\n", before, valid, iterations,
           self_flag);
  MPI_Finalize();
  return 0;
}
