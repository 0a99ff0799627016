/* A user-defined commutative sum whose calls tell which algorithm the MPI
 * ran: how many times a process's operation is called, and on how many
 * elements, differs between algorithms (see reduction_signature.c). */
#ifndef HARMONIZE_TESTS_SIGNATURE_OP_H
#define HARMONIZE_TESTS_SIGNATURE_OP_H

#include <mpi.h>

enum { kSignatureKept = 64 };
static int signature_calls = 0;               /* reset by the program */
static int signature_lengths[kSignatureKept]; /* the first calls' lengths */

static void signature_add(void* in, void* inout, int* length, MPI_Datatype* type) {
  (void)type;
  if (signature_calls < kSignatureKept) signature_lengths[signature_calls] = *length;
  signature_calls++;
  for (int i = 0; i < *length; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

#endif
