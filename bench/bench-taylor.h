/* bench-taylor.h — the work–precision benchmark of the Taylor integrator against rk8pd.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* Prints, for every built-in with a closed form, the Taylor method at 1e-14 against rk8pd
 * at the tolerance that gives it the same error (bench-taylor.c); nothing when ONLY
 * (NULL-terminated, or NULL for everything) does not name "taylor". */
void bench_taylor (gboolean quick, const char *const *only);
