/* MPI_Barrier on communicators a barrier interposer must leave to MPI:
 * MPI_COMM_NULL, an intercommunicator and MPI_COMM_SELF. Prints the return
 * code and error class of each, so a test can compare the output with and
 * without the library preloaded. Needs an even number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>

static void report(const char* what, int code) {
  int error_class = -1;
  if (code != MPI_SUCCESS) MPI_Error_class(code, &error_class);
  printf("%s: code=%s class=%d\n", what, code == MPI_SUCCESS ? "success" : "error", error_class);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  const int null_code = MPI_Barrier(MPI_COMM_NULL);
  const int self_code = MPI_Barrier(MPI_COMM_SELF);

  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
  const int inter_code = MPI_Barrier(inter);

  if (rank == 0) {
    report("null", null_code);
    report("self", self_code);
    report("inter", inter_code);
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
