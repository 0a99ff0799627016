/* Every way a non-blocking collective's request can end, N times each, on
 * MPI_COMM_WORLD (expected report: see tests/mpi/test_nonblocking.py):
 *   an MPI_Iallreduce completed by MPI_Waitall beside point-to-point
 *   requests (an MPI_Isend/MPI_Irecv ring), an MPI_Igather by MPI_Waitany,
 *   an MPI_Ialltoall by MPI_Testsome and an MPI_Iscan by MPI_Testall, each
 *   polled; then an MPI_Ibarrier waited for only after the next iteration's
 *   MPI_Barrier, where the library may match the calls so far: it is then
 *   still open.
 * Then `many` MPI_Ibcast started before any is waited for (MPI_Waitall),
 * more than the library follows at once. (MPI_Request_free on a
 * collective's request is erroneous, and both Open MPI and MPICH refuse it:
 * the unit tests cover it.)
 * Usage: nonblocking_endings N many */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "program.h"

static void poll_some(MPI_Request* request) {
  int outcount = 0, index = 0;
  MPI_Status status;
  while (*request != MPI_REQUEST_NULL) MPI_Testsome(1, request, &outcount, &index, &status);
}

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const int n = int_arg(argc, argv, 1, 50);
  const int many = int_arg(argc, argv, 2, 2000);
  MPI_Request ibarrier = MPI_REQUEST_NULL;
  int* gathered = malloc(sizeof(int) * (size_t)size);
  int* sent = malloc(sizeof(int) * (size_t)size);
  int* received = malloc(sizeof(int) * (size_t)size);
  for (int p = 0; p < size; ++p) sent[p] = rank;
  for (int i = 0; i < n; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&ibarrier, MPI_STATUS_IGNORE);
    double value = rank, sum = 0;
    int out = rank, in = -1, index = -1, flag = 0, scanned = 0;
    MPI_Request requests[3];
    MPI_Status statuses[3];
    MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &requests[0]);
    MPI_Iallreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &requests[2]);
    MPI_Waitall(3, requests, statuses);
    MPI_Igather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, 0, MPI_COMM_WORLD, &requests[0]);
    MPI_Waitany(1, requests, &index, MPI_STATUS_IGNORE);
    MPI_Ialltoall(sent, 1, MPI_INT, received, 1, MPI_INT, MPI_COMM_WORLD, &requests[0]);
    poll_some(&requests[0]);
    MPI_Iscan(&rank, &scanned, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[0]);
    while (!flag) MPI_Testall(1, requests, &flag, statuses);
    MPI_Ibarrier(MPI_COMM_WORLD, &ibarrier);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Wait(&ibarrier, MPI_STATUS_IGNORE);
  MPI_Request* burst = malloc(sizeof(MPI_Request) * (size_t)many);
  MPI_Status* statuses = malloc(sizeof(MPI_Status) * (size_t)many);
  int* values = malloc(sizeof(int) * (size_t)many);
  for (int i = 0; i < many; ++i) {
    values[i] = i;
    MPI_Ibcast(&values[i], 1, MPI_INT, 0, MPI_COMM_WORLD, &burst[i]);
  }
  MPI_Waitall(many, burst, statuses);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("done %d %d\n", n, many);
  free(burst);
  free(statuses);
  free(values);
  free(gathered);
  free(sent);
  free(received);
  MPI_Finalize();
  return 0;
}
