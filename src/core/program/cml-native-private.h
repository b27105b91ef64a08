/* cml-native-private.h — what the files of native code share: the names of cache
 * entries, the trimming of the cache and the compiler's working directories (cml-native.c,
 * cml-native-cache.c, cml-native-workdir.c).  Nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-native.h"

G_BEGIN_DECLS

#define STALE_AGE            3600                            /* s: an old-style partial file */
#define HASH_LEN             64                              /* hex digits of a SHA-256 */

/* cml-native-cache.c: whether TEXT is a hash as the cache names its entries; the cache
 * in the directory DFD trimmed to LIMIT bytes, least recently used first, KEEP kept */
gboolean cml_native_is_hash (const char *text);
void     cml_native_trim_cache (int dfd, guint64 limit, const char *keep);

/* cml-native-workdir.c: the compiler's private working directory tmp-XXXXXX in the cache
 * DFD, held locked (NAME, its descriptor FD and the locked file's LOCK) until removed */
typedef struct
{
  char *name;
  int   fd;
  int   lock;
} CmlNativeWorkdir;

/* Makes a new directory in the cache DFD and locks it: FALSE with ERROR set when none
 * can be made. */
gboolean cml_native_workdir_make     (int dfd, CmlNativeWorkdir *wd, GError **error);
/* Removes WD whole (every entry, links not followed) and releases its lock. */
void     cml_native_workdir_remove   (int dfd, CmlNativeWorkdir *wd);
/* Removes the directories of the cache DFD left by runs that ended (their lock free). */
void     cml_native_workdir_sweep    (int dfd);
/* Whether NAME has the form of such a directory's name. */
gboolean cml_native_workdir_is_name  (const char *name);

G_END_DECLS
