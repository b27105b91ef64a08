/* bench-startup.h — the benchmark's start-up timings of cmlab-cli (bench-startup.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-json.h"

/* Times `cmlab-cli simulate martinet --t-end 0 --dt-out 1` and `cmlab-cli list` (CLI, with
 * their caches filled), prints a table and adds a "startup" object to JSON.  Nothing when
 * ONLY (NULL-terminated, or NULL for everything) does not name "startup".  FALSE if a
 * command failed. */
gboolean bench_startup (const char *cli, const char *bench_dir, CmlJson *json, gboolean quick, const char *const *only);
