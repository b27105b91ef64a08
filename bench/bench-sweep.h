/* bench-sweep.h — the benchmark's sweep figure: a parameter sweep on one thread and on
 * two (bench-sweep.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-json.h"

/* Prints the figure and writes its numbers as the object "sweep" of JSON.  QUICK: a tenth
 * of the points. */
void bench_sweep (gboolean quick, CmlJson *json);
