/* Half of the ranks barrier on their sub-communicator while the other half
 * does something else entirely (a reduce loop, no barrier); then communicators
 * are created and freed in a loop, each used for barriers, and the growth of
 * the resident set is printed. A barrier on a sub-communicator must never
 * start a world-wide collective: if it did, this program would hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "program.h"

static long resident_kib(void) {
  long pages = 0, resident = 0;
  FILE* f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const int barriers = int_arg(argc, argv, 1, 2000);
  const int loops = int_arg(argc, argv, 2, 200);

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_set_name(half, rank % 2 == 0 ? "even" : "odd");
  if (rank % 2 == 0) {
    for (int i = 0; i < barriers; ++i) MPI_Barrier(half);
  } else {
    double x = rank, y = 0;
    for (int i = 0; i < barriers / 10; ++i) MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, half);
  }
  MPI_Comm_free(&half);

  /* Warm-up round, then measure: allocator pools settle in the first loops. */
  long before = 0;
  for (int i = 0; i < loops; ++i) {
    if (i == loops / 4) before = resident_kib();
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Barrier(c);
    MPI_Barrier(c);
    MPI_Comm_free(&c);
  }
  const long after = resident_kib();
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d resident growth %ld KiB over %d create/free loops\n", rank, after - before,
         loops - loops / 4);
  MPI_Finalize();
  return 0;
}
