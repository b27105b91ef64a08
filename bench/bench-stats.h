/* bench-stats.h — the few statistics every figure of the benchmark takes of its timings:
 * the median of repetitions, the order of doubles for sorting them, the wall clock and the
 * thread's CPU clock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* qsort's comparison of two doubles, ascending */
int    bench_cmp_double (const void *a, const void *b);
/* The median of the N values of V (the mean of the middle two for even N; NaN for N = 0);
 * V is left sorted. */
double bench_median (double *v, guint n);
/* Seconds on the monotonic clock. */
double bench_wall_s (void);
/* CPU seconds of the calling thread: in-process timings count only the time this thread
 * ran, not the time it waited for a CPU on a busy machine. */
double bench_thread_cpu_s (void);
