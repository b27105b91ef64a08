/* bench-variational.h — the long-run benchmark of the variational integrators.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* Prints max |ΔH| and the largest constraint residual of every integrator on the published
 * test problems (bench-variational.c); nothing when ONLY (NULL-terminated, or NULL for
 * everything) does not name "variational". */
void bench_variational (gboolean quick, const char *const *only);

/* With a directory (--csv DIR): the time series of |H − H₀| of every run go to
 * DIR/MODEL.csv and, when the benchmark is built with the render library, a plot of them
 * to DIR/MODEL.png. */
void bench_variational_set_csv_dir (const char *dir);
