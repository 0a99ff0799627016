/* Steals the CPU from one rank at regular intervals, as a scheduler does on a
 * loaded node: a SIGALRM handler busy-waits `stall_us` every `period_us` on
 * rank `victim`, so that some of its harmonized barriers are interrupted
 * while spinning towards the deadline and leave late. Runs blocks of 500
 * barriers for `seconds` (rank 0 decides, so every rank runs the same count
 * however loaded the machine is).
 *
 *   preempted_spin [seconds] [victim] [period_us] [stall_us]
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long stall_ns = 200000;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void stall(int signal_number) {
  (void)signal_number;
  const long long until = now_ns() + stall_ns;
  while (now_ns() < until) {
  }
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  const int victim = argc > 2 ? atoi(argv[2]) : 1;
  const long period_us = argc > 3 ? atol(argv[3]) : 997;
  stall_ns = 1000L * (argc > 4 ? atol(argv[4]) : 200);

  /* The MPI library's own threads inherit a mask that blocks the alarm, so
   * it is always the main thread that loses the CPU. */
  sigset_t alarm_only;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm_only, NULL);
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == victim) {
    struct sigaction action = {0};
    action.sa_handler = stall;
    action.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &action, NULL);
    pthread_sigmask(SIG_UNBLOCK, &alarm_only, NULL);
    struct itimerval timer = {{0, period_us}, {0, period_us}};
    setitimer(ITIMER_REAL, &timer, NULL);
  }
  const double start = MPI_Wtime();
  long barriers = 0;
  for (int more = 1; more;) {
    for (int i = 0; i < 500; ++i) MPI_Barrier(MPI_COMM_WORLD);
    barriers += 500;
    more = MPI_Wtime() - start < seconds;
    MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (rank == victim) {
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
  }
  if (rank == 0) printf("program done: %ld barriers\n", barriers);
  MPI_Finalize();
  return 0;
}
