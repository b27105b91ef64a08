/* cml-cache-dir.h — a private cache directory: where it is, whether it is ours alone, how
 * it is kept under a size limit, and the 64-bit key of a text.  Shared by the caches of
 * model titles (cml-model-titles.c), derived systems (cml-system-cache.c) and native code
 * (cml-native.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The cache directory: $ENV when it is set and not empty, else
 * $XDG_CACHE_HOME/cmlab/LEAF.  Nothing is created. */
char       *cml_cache_dir_path     (const char *env, const char *leaf);

/* Makes DIR (0700) if needed and checks that it is ours only: a directory, not a symbolic
 * link, owned by us, not writable by group or others.  NULL when it is; otherwise why not,
 * in words (*CANNOT_CREATE set when DIR could not be made). */
const char *cml_cache_dir_unusable (const char *dir, gboolean *cannot_create);

/* DIR (cml_cache_dir_path) when cml_cache_dir_unusable() finds nothing against it, else
 * NULL (the reason goes to the debug log). */
char       *cml_cache_dir_open     (const char *env, const char *leaf);

/* A positive whole number from the environment variable ENV (a size limit in bytes, a
 * time limit in seconds), else DEF. */
guint64     cml_cache_env_number   (const char *env, guint64 def);

/* Removes the least recently used files of DIR whose names end in SUFFIX (by modification
 * time, which a cache hit renews) until everything in DIR fits LIMIT bytes; the file KEEP
 * (a path, or NULL) stays, and so do the temporary files of writes under way. */
void        cml_cache_dir_trim     (const char *dir, const char *suffix, guint64 limit, const char *keep);

/* Marks the file PATH as used now (its modification time): the last to be trimmed. */
void        cml_cache_touch        (const char *path);

/* A 64-bit key of LEN bytes, not a defence (the directory is ours alone): FNV-1a taken
 * eight bytes at a time.  Two texts of the same length that differ in one word always
 * differ in their keys. */
guint64     cml_cache_hash64       (const void *data, gsize len);

G_END_DECLS
