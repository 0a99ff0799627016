/* harmonize-tune --check's witness: which algorithm an MPI library ran for
 * one collective call, told by what the call does rather than by what the
 * library says (Open MPI 4.1's release build says nothing). One call of
 * COLLECTIVE on MPI_COMM_WORLD (root 0), BYTES bytes per process (each
 * process's block for allgather, alltoall, gather and scatter). The
 * reductions (allreduce, reduce) go through a user-defined commutative
 * operation, whose calls differ by algorithm (how many, on how many bytes, on
 * which process); with Open MPI's PML monitoring on, the messages each
 * process sent to each other are the witness of every collective, written by
 * the library at MPI_Finalize.
 *
 * usage: collective_signature COLLECTIVE BYTES DIR
 * Each process writes DIR/<rank>.json: {"rank", "op_calls", "lengths"}; no
 * other communication, so that the monitoring sees the one call alone. Exit
 * 1 on a wrong result, 2 on bad arguments. Compiled by harmonize-tune with
 * the launcher's own mpicc; never linked with libharmonize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kKept = 64 };
static int op_calls = 0;
static int lengths[kKept];

static void add_bytes(void* in, void* inout, int* length, MPI_Datatype* type) {
  (void)type;
  if (op_calls < kKept) lengths[op_calls] = *length;
  op_calls++;
  for (int i = 0; i < *length; ++i)
    ((unsigned char*)inout)[i] =
        (unsigned char)(((unsigned char*)inout)[i] + ((const unsigned char*)in)[i]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bytes = argc > 3 ? atoi(argv[2]) : -1;
  const char* collective = argc > 3 ? argv[1] : "";
  /* Room for every process's block (the gathers, alltoall). */
  const size_t room = (bytes > 0 ? (size_t)bytes : 1) * (size_t)size;
  unsigned char* mine = malloc(room);
  unsigned char* result = malloc(room);
  if (bytes < 0 || !mine || !result) {
    if (rank == 0)
      fprintf(stderr,
              "usage: collective_signature "
              "allreduce|reduce|bcast|allgather|alltoall|gather|scatter BYTES DIR\n");
    MPI_Finalize();
    return 2;
  }
  /* Block b of process r holds r + 1 + b: every block of every process
   * differs from its neighbours', so a misplaced one is seen. */
  for (int b = 0; b < size; ++b)
    for (int i = 0; i < bytes; ++i) mine[b * bytes + i] = (unsigned char)(rank + 1 + b);
  MPI_Op op;
  MPI_Op_create(add_bytes, 1, &op);
  const unsigned char sum = (unsigned char)(size * (size + 1) / 2);
  int wrong = 0;
  if (strcmp(collective, "allreduce") == 0) {
    MPI_Allreduce(mine, result, bytes, MPI_BYTE, op, MPI_COMM_WORLD);
    for (int i = 0; i < bytes; ++i) wrong |= result[i] != sum;
  } else if (strcmp(collective, "reduce") == 0) {
    MPI_Reduce(mine, result, bytes, MPI_BYTE, op, 0, MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < bytes; ++i) wrong |= result[i] != sum;
  } else if (strcmp(collective, "bcast") == 0) {
    MPI_Bcast(mine, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < bytes; ++i) wrong |= mine[i] != 1;
  } else if (strcmp(collective, "allgather") == 0 || strcmp(collective, "gather") == 0) {
    /* Block r of the result: process r's first block, r + 1. */
    const int all = strcmp(collective, "allgather") == 0;
    if (all)
      MPI_Allgather(mine, bytes, MPI_BYTE, result, bytes, MPI_BYTE, MPI_COMM_WORLD);
    else
      MPI_Gather(mine, bytes, MPI_BYTE, result, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int r = 0; (all || rank == 0) && r < size; ++r)
      for (int i = 0; i < bytes; ++i) wrong |= result[r * bytes + i] != (unsigned char)(r + 1);
  } else if (strcmp(collective, "alltoall") == 0) {
    /* Block r of the result: process r's block for this one, r + 1 + rank. */
    MPI_Alltoall(mine, bytes, MPI_BYTE, result, bytes, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < bytes; ++i)
        wrong |= result[r * bytes + i] != (unsigned char)(r + 1 + rank);
  } else if (strcmp(collective, "scatter") == 0) {
    /* This process's block of the root's buffer: 1 + rank. */
    MPI_Scatter(mine, bytes, MPI_BYTE, result, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < bytes; ++i) wrong |= result[i] != (unsigned char)(1 + rank);
  } else {
    if (rank == 0) fprintf(stderr, "collective_signature: no witness for %s\n", collective);
    MPI_Finalize();
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%d.json", argv[3], rank);
  FILE* out = fopen(path, "w");
  if (out) {
    fprintf(out, "{\"rank\": %d, \"op_calls\": %d, \"lengths\": [", rank, op_calls);
    for (int i = 0; i < op_calls && i < kKept; ++i) fprintf(out, "%s%d", i ? ", " : "", lengths[i]);
    fprintf(out, "]}\n");
    wrong |= fclose(out) != 0;
  } else {
    wrong = 1;
  }
  MPI_Op_free(&op);
  free(mine);
  free(result);
  MPI_Finalize();
  return wrong;
}
