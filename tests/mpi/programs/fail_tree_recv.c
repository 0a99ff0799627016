/* Preloaded before libharmonize: world rank 0's receive of the report's
 * tree message from world rank 2 (tag 0 on the library's world) takes the
 * message and then fails, as a broken link would. Everything else passes
 * through. Exercises the library's "records missing" path, which no healthy
 * MPI takes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

typedef int (*recv_fn)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*);

int PMPI_Recv(void* buffer, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  static recv_fn real = 0;
  if (!real) real = (recv_fn)dlsym(RTLD_NEXT, "PMPI_Recv");
  const int rc = real(buffer, count, type, source, tag, comm, status);
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc == MPI_SUCCESS && rank == 0 && source == 2 && tag == 0) return MPI_ERR_TRUNCATE;
  return rc;
}
