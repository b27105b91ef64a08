/* bench-dop853.h — the benchmark's figure "dop853" (bench-dop853.c): Martinet with cmlab's
 * dop853 beside XPPAUT, Boost.Odeint and SciPy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-json.h"

/* Times CLI (cmlab-cli), XPPAUT, BOOST_PEER (bench/boost-peer.cpp, NULL when not built) and
 * SciPy (BENCH_DIR/peers.py) on Martinet, prints a table and the targets, adds a "dop853"
 * object to JSON.  Nothing when ONLY (NULL-terminated, or NULL for everything) does not
 * name "dop853".  FALSE if cmlab's run failed. */
gboolean bench_dop853 (const char *cli, const char *bench_dir, const char *boost_peer, CmlJson *json,
                       gboolean quick, const char *const *only);
