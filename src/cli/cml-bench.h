/* cml-bench.h — `cmlab-cli bench`: the engine measured against hand-written C, XPPAUT and
 * SciPy, the integrators' work–precision and long-run behaviour, constraint residuals.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Runs the benchmark with the arguments after "bench" ([--quick] [--json FILE]
 * [--only NAME[,NAME…]]).  Returns the exit status: 0, 1 when the generic and the
 * hand-written right-hand sides disagree (or a run that must succeed fails), 2 for usage
 * errors. */
int cml_bench_main (int argc, char **argv);

G_END_DECLS
