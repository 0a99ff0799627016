/* What the ground-truth programs share: the machine's own clock, which the
 * library's test clocks leave alone (they skew what the library reads, not
 * what the program reads), a spin on it, the median of a sample, and the
 * true arrival skew and t_global of a collective's calls. */
#ifndef HARMONIZE_TESTS_TRUTH_H
#define HARMONIZE_TESTS_TRUTH_H

#include <stdlib.h>
#include <time.h>

static inline double truth(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void spin(double seconds) {
  const double until = truth() + seconds;
  while (truth() < until) {
  }
}

static inline int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Sorts `values` in place. */
static inline double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof(double), by_value);
  return values[n / 2];
}

/* "N D_us R ...": N calls, before each of which rank R waits D microseconds
 * (defaults 100, 100, 1). */
struct delayed_calls {
  int n;
  double delay; /* seconds */
  int delayed;
};
static inline struct delayed_calls delayed_calls_of(int argc, char** argv) {
  struct delayed_calls calls = {argc > 1 ? atoi(argv[1]) : 100,
                                (argc > 2 ? atof(argv[2]) : 100) * 1e-6,
                                argc > 3 ? atoi(argv[3]) : 1};
  return calls;
}

/* Of n calls, stamped by every process of `size`: the medians of the true
 * arrival skew (last entry - first entry) and of t_global (last exit - first
 * entry, paper 002 eq. 4). `stamp(all, p, i)` is process p's stamps of call
 * i, its entry at [entry] and its exit at [exit]. */
typedef const double* (*stamp_of_call)(const double* all, int n, int p, int i, int op);
static inline void call_spread(const double* all, int size, int n, int op, stamp_of_call stamp,
                               int entry, int exit, double* arrival, double* t_global) {
  double* a = malloc(sizeof(double) * (size_t)n);
  double* g = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double min_entry = 1e300, max_entry = -1e300, max_exit = -1e300;
    for (int p = 0; p < size; ++p) {
      const double* s = stamp(all, n, p, i, op);
      if (s[entry] < min_entry) min_entry = s[entry];
      if (s[entry] > max_entry) max_entry = s[entry];
      if (s[exit] > max_exit) max_exit = s[exit];
    }
    a[i] = max_entry - min_entry;
    g[i] = max_exit - min_entry;
  }
  *arrival = median(a, n);
  *t_global = median(g, n);
  free(a);
  free(g);
}

#endif
