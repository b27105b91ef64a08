/* cml-model-titles.h — the titles of the built-in models, for listing them, from a cache
 * (cml-model-titles.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* For each of NAMES (built-in models, cml_model_list_builtin()), what `cmlab-cli list`
 * shows: the model's title, or the message of the error that keeps it from loading —
 * exactly what cml_model_load (NAME) gives.  A model whose text is the one it had when
 * it was last loaded takes its title from the cache ($CMLAB_TITLES_CACHE, else
 * $XDG_CACHE_HOME/cmlab/titles) without being parsed; the others are loaded and the
 * cache is written anew.  *N_CACHED (may be NULL): how many came from the cache.
 * Returns a NULL-terminated array as long as NAMES. */
char **cml_model_builtin_titles (const char *const *names, guint *n_cached);

G_END_DECLS
