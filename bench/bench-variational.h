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
