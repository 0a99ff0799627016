/* Which allreduce or reduce algorithm the MPI library ran, told by the calls
 * it makes to a user-defined (commutative) operation: recursive doubling on
 * 2 processes calls it once per process on the whole vector, a ring or
 * reduce-scatter on halves, a reduce-and-broadcast (linear, smp) only at the
 * root; a reduce's chain of fan-out F on P processes calls it at the root F
 * times and once at each process inside a chain. One allreduce (argv[2]
 * "allreduce", the default) or reduce to rank 0 ("reduce") of COUNT ints
 * (argv[1], default 8); rank 0 prints one JSON line per rank {"rank",
 * "op_calls", "lengths"}, and a wrong sum exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "signature_op.h"

enum { kKept = kSignatureKept };

int main(int argc, char** argv) {
  int rank, size;
  start_world(&argc, &argv, &rank, &size);
  const int count = int_arg(argc, argv, 1, 8);
  int* mine = malloc(sizeof(int) * (size_t)count);
  int* sum = malloc(sizeof(int) * (size_t)count);
  if (count < 1 || !mine || !sum) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < count; ++i) mine[i] = rank + 1;
  MPI_Op op;
  MPI_Op_create(signature_add, 1, &op);
  const int reduce = argc > 2 && strcmp(argv[2], "reduce") == 0;
  if (reduce)
    MPI_Reduce(mine, sum, count, MPI_INT, op, 0, MPI_COMM_WORLD);
  else
    MPI_Allreduce(mine, sum, count, MPI_INT, op, MPI_COMM_WORLD);
  int wrong = 0;
  for (int i = 0; i < count && (rank == 0 || !reduce); ++i)
    wrong |= sum[i] != size * (size + 1) / 2;
  /* Rank 0 prints every rank's line: the launchers interleave the ranks'
   * output within a line. */
  int mine_record[kKept + 1];
  mine_record[0] = signature_calls;
  for (int i = 0; i < kKept; ++i)
    mine_record[i + 1] = i < signature_calls ? signature_lengths[i] : 0;
  int* all = rank == 0 ? malloc(sizeof(int) * (size_t)(size * (kKept + 1))) : NULL;
  if (rank == 0 && !all) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Gather(mine_record, kKept + 1, MPI_INT, all, kKept + 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; ++r) {
    const int* record = all + r * (kKept + 1);
    printf("{\"rank\": %d, \"op_calls\": %d, \"lengths\": [", r, record[0]);
    for (int i = 0; i < record[0] && i < kKept; ++i) printf("%s%d", i ? ", " : "", record[i + 1]);
    printf("]}\n");
  }
  free(all);
  MPI_Op_free(&op);
  free(mine);
  free(sum);
  MPI_Finalize();
  return wrong;
}
