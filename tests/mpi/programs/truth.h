/* What the ground-truth programs share: the machine's own clock, which the
 * library's test clocks leave alone (they skew what the library reads, not
 * what the program reads), a spin on it, and the median of a sample. */
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

#endif
