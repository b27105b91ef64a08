/* bench-stats.c — the medians, the sorting order and the clocks the benchmark's figures
 * share (bench-stats.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "bench-stats.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
bench_median (double *v, guint n)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof (double), bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double
bench_wall_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

double
bench_thread_cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}
