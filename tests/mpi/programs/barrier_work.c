/* The plainest real program: MPI_Barrier, then some work, repeated. The
 * work between two barriers is a sleep or a busy spin of a given length, or a
 * mix drawn anew each call (the same draw on every rank: a program whose
 * iteration length changes from call to call).
 *
 *   barrier_work CALLS KIND MICROSECONDS
 *     KIND: sleep | spin | mix (MICROSECONDS ignored: 0, 10, 100, 1000 us,
 *           sleeping or spinning, drawn per call)
 *
 * Rank 0 prints "flagged F of N" over the calls after the first 10 percent
 * (a flag of 0 on any rank flags the call), read through
 * MPIX_Harmonize_last_flag when the library is preloaded. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void work(int spin, long microseconds) {
  if (microseconds <= 0) return;
  if (spin) {
    const long long until = now_ns() + microseconds * 1000LL;
    while (now_ns() < until) {
    }
    return;
  }
  struct timespec duration = {microseconds / 1000000, (microseconds % 1000000) * 1000};
  nanosleep(&duration, NULL);
}

/* splitmix64: every rank draws the same sequence from the call index. */
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: barrier_work CALLS sleep|spin|mix MICROSECONDS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long calls = atol(argv[1]);
  const char* kind = argv[2];
  const long length = atol(argv[3]);
  typedef int (*LastFlag)(MPI_Comm, int*);
  const LastFlag last_flag = (LastFlag)dlsym(RTLD_DEFAULT, "MPIX_Harmonize_last_flag");
  static const long kMix[] = {0, 10, 100, 1000};
  const long counted_from = calls / 10;
  int* flags = malloc(sizeof(int) * (size_t)calls);
  int* all = malloc(sizeof(int) * (size_t)calls);
  for (long call = 0; call < calls; ++call) {
    MPI_Barrier(MPI_COMM_WORLD);
    flags[call] = 1;
    if (last_flag) last_flag(MPI_COMM_WORLD, &flags[call]);
    if (strcmp(kind, "mix") == 0) {
      const uint64_t draw = mix((uint64_t)call);
      work((int)(draw & 1), kMix[(draw >> 1) % 4]);
    } else {
      work(strcmp(kind, "spin") == 0, length);
    }
  }
  /* Nothing but the work between two barriers: the flags meet at the end. */
  MPI_Allreduce(flags, all, (int)calls, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  long flagged = 0;
  for (long call = counted_from; call < calls; ++call) flagged += all[call] == 0;
  if (rank == 0) printf("flagged %ld of %ld\n", flagged, calls - counted_from);
  free(flags);
  free(all);
  MPI_Finalize();
  return 0;
}
