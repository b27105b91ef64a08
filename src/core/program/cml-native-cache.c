/* cml-native-cache.c — the native-code cache's names and size: which entries are named
 * by a hash, and trimming the cache to its size limit after a build, least recently used
 * objects first (by modification time, which a cache hit renews) with their sources and
 * digests; the partial files of a killed build are removed on the same host, boot and PID
 * namespace, elsewhere after a week (cml-native.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-native"

#include "cml-native-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-cache-dir.h"
#include "cml-dir-stream.h"

typedef struct
{
  char   *hash;
  guint64 bytes;
  gint64  used;   /* the object's modification time (ns), renewed by each hit */
  gboolean has_object;
} CacheEntry;

static void
cache_entry_free (gpointer p)
{
  CacheEntry *e = p;
  g_free (e->hash);
  g_free (e);
}

static gint
by_use (gconstpointer a, gconstpointer b)
{
  const CacheEntry *x = *(CacheEntry *const *) a, *y = *(CacheEntry *const *) b;
  return x->used < y->used ? -1 : x->used > y->used;
}

/* Whether NAME starts with a SHA-256 in hex; the rest in *REST. */
static gboolean
hashed_name (const char *name, const char **rest)
{
  for (int i = 0; i < HASH_LEN; i++)
    if (!g_ascii_isxdigit (name[i]) || g_ascii_isupper (name[i]))
      return FALSE;
  *rest = name + HASH_LEN;
  return TRUE;
}

/* Whether TEXT is a SHA-256 in hex and nothing else. */
gboolean
cml_native_is_hash (const char *text)
{
  const char *rest;
  return text != NULL && strlen (text) == HASH_LEN && hashed_name (text, &rest);
}

static void
remove_entry (int dfd, const char *hash)
{
  static const char *const suffixes[] = { ".so", ".so.sha256", ".c", ".key" };
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *base = g_strconcat (hash, suffixes[i], NULL);
      unlinkat (dfd, base, 0);
    }
}

/* Removes partial files (ours of dead processes, old-style ones that are old), then the
 * least recently used objects until the cache DFD fits LIMIT bytes; KEEP (a hash) stays. */
void
cml_native_trim_cache (int dfd, guint64 limit, const char *keep)
{
  g_autoptr (GHashTable) entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, cache_entry_free);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  guint64 total = 0;
  struct dirent *de;
  DIR *d;

  cml_atomic_file_clean_stale_at (dfd);
  d = cml_dir_stream_at (dfd);
  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      const char *name = de->d_name, *rest;
      struct stat st;

      if (fstatat (dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode))
        continue;
      if (cml_atomic_file_is_temporary (name, NULL))
        {
          total += st.st_size; /* another build's, under way */
          continue;
        }
      if (!hashed_name (name, &rest)
          || !(g_str_equal (rest, ".so") || g_str_equal (rest, ".so.sha256") || g_str_equal (rest, ".c")
               || g_str_equal (rest, ".key")))
        {
          /* earlier versions compiled to NAME.so.XXXXXX: a killed compile left it */
          if (now - (gint64) st.st_mtime > STALE_AGE)
            unlinkat (dfd, name, 0);
          else
            total += st.st_size;
          continue;
        }
      g_autofree char *hash = g_strndup (name, HASH_LEN);
      CacheEntry *e = g_hash_table_lookup (entries, hash);
      if (e == NULL)
        {
          e = g_new0 (CacheEntry, 1);
          e->hash = g_steal_pointer (&hash);
          e->used = G_MININT64;
          g_hash_table_insert (entries, e->hash, e);
          g_ptr_array_add (order, e);
        }
      e->bytes += st.st_size;
      total += st.st_size;
      if (g_str_equal (rest, ".so"))
        {
          e->has_object = TRUE;
          e->used = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
        }
      else if (!e->has_object)
        e->used = MAX (e->used, (gint64) st.st_mtime * G_GINT64_CONSTANT (1000000000));
    }
  closedir (d);

  g_ptr_array_sort (order, by_use);
  for (guint i = 0; i < order->len && total > limit; i++)
    {
      CacheEntry *e = order->pdata[i];
      if (g_strcmp0 (e->hash, keep) == 0)
        continue;
      g_debug ("cache over %" G_GUINT64_FORMAT " bytes: removing %s", limit, e->hash);
      remove_entry (dfd, e->hash);
      total -= MIN (total, e->bytes);
    }
}
