/* bench-csv.h — reading what the benchmark's child processes write: `cmlab-cli simulate`
 * CSV files and the peers' "name value" lines.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* Name → value (double*) of the last row of a `cmlab-cli simulate` CSV file: after its "#"
 * lines, the header row, then one row per output time.  NULL, with ERROR set, when the file
 * cannot be read, has no rows, or its last row does not match the header. */
GHashTable *bench_csv_last_row (const char *path, GError **error);

/* Name → value (double*) from "name value" lines (bench/peers.py, the Boost peer). */
GHashTable *bench_parse_pairs (const char *text);
