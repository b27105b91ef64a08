/* cml-native-private.h — what the files of native code share: the names of cache
 * entries and the trimming of the cache (cml-native.c, cml-native-cache.c).  Nowhere
 * else.
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

G_END_DECLS
