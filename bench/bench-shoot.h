/* bench-shoot.h — the benchmark's timing of shooting (bench-shoot.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-json.h"

/* Times shooting to a Martinet target from guesses within 20 %, prints the result and adds
 * a "shoot" object to JSON.  FALSE if a shooting failed. */
gboolean bench_shoot (CmlJson *json, gboolean quick);
