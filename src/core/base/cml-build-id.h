/* cml-build-id.h — which build of cmlab is running.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The GNU build ID of the executable or library that holds cmlab's core — a digest the
 * linker takes of its contents, so that any change to the code changes it — in hex; NULL
 * when it was linked without one.  Caches of what this code derives are keyed by it. */
const char *cml_build_id (void);

G_END_DECLS
