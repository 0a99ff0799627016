/* Which allreduce algorithm each call ran, call by call: CALLS (argv[1],
 * default 40) times an MPI_Barrier then one MPI_Allreduce of 8 ints through a
 * user-defined commutative operation, whose calls tell the algorithm as in
 * reduction_signature.c (on 2 processes: recursive doubling calls it once on
 * every process, a reduce-and-broadcast such as MPICH's smp only at the
 * root). Rank 0 prints one line per call, "call <i> <op calls of rank 0>
 * <of rank 1> ...", and every process exits 1 on a wrong sum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "program.h"
#include "signature_op.h"

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const int calls = int_arg(argc, argv, 1, 40);
  int* seen = malloc(sizeof(int) * (size_t)(calls > 0 ? calls : 1));
  if (calls < 1 || !seen) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Op op;
  MPI_Op_create(signature_add, 1, &op);
  int mine[8], sum[8], wrong = 0;
  for (int i = 0; i < 8; ++i) mine[i] = rank + 1;
  for (int call = 0; call < calls; ++call) {
    MPI_Barrier(MPI_COMM_WORLD);
    signature_calls = 0;
    MPI_Allreduce(mine, sum, 8, MPI_INT, op, MPI_COMM_WORLD);
    seen[call] = signature_calls;
    for (int i = 0; i < 8; ++i) wrong |= sum[i] != size * (size + 1) / 2;
  }
  int* all = rank == 0 ? malloc(sizeof(int) * (size_t)size * (size_t)calls) : NULL;
  if (rank == 0 && !all) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Gather(seen, calls, MPI_INT, all, calls, MPI_INT, 0, MPI_COMM_WORLD);
  for (int call = 0; rank == 0 && call < calls; ++call) {
    printf("call %d", call);
    for (int r = 0; r < size; ++r) printf(" %d", all[r * calls + call]);
    printf("\n");
  }
  free(all);
  free(seen);
  MPI_Op_free(&op);
  MPI_Finalize();
  return wrong;
}
