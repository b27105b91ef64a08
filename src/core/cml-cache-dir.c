/* cml-cache-dir.c — a private cache directory, kept under a size limit (cml-cache-dir.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a cache holds is read back into the process (titles, derived equations, native
 * code), so a cache directory is used only when it is ours alone: created 0700, and
 * refused when it is a symbolic link, belongs to someone else or others may write to it.
 * Files are written by the atomic writer (cml-atomic-file.c); trimming removes the least
 * recently used first.
 */
#define G_LOG_DOMAIN "cml-cache"

#include "cml-cache-dir.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"

char *
cml_cache_dir_path (const char *env, const char *leaf)
{
  const char *v = g_getenv (env);

  if (v != NULL && *v != '\0')
    return g_strdup (v);
  return g_build_filename (g_get_user_cache_dir (), "cmlab", leaf, NULL);
}

const char *
cml_cache_dir_unusable (const char *dir, gboolean *cannot_create)
{
  GStatBuf st;

  *cannot_create = FALSE;
  if (g_mkdir_with_parents (dir, 0700) != 0 && errno != EEXIST)
    {
      *cannot_create = TRUE;
      return g_strerror (errno);
    }
  if (g_lstat (dir, &st) != 0)
    return g_strerror (errno);
  if (S_ISLNK (st.st_mode))
    return "it is a symbolic link";
  if (!S_ISDIR (st.st_mode))
    return "it is not a directory";
  if (st.st_uid != geteuid ())
    return "it belongs to another user";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "others may write to it (chmod 700 makes it private)";
  return NULL;
}

char *
cml_cache_dir_open (const char *env, const char *leaf)
{
  g_autofree char *dir = cml_cache_dir_path (env, leaf);
  gboolean cannot_create;
  const char *why = cml_cache_dir_unusable (dir, &cannot_create);

  if (why != NULL)
    {
      g_debug ("the cache %s is not used: %s", dir, why);
      return NULL;
    }
  return g_steal_pointer (&dir);
}

guint64
cml_cache_env_number (const char *env, guint64 def)
{
  const char *v = g_getenv (env);
  guint64 n = 0;

  if (v == NULL || !g_ascii_string_to_unsigned (v, 10, 1, G_MAXUINT64, &n, NULL))
    return def;
  return n;
}

typedef struct
{
  char  *path;
  gint64 used;
  gint64 bytes;
} CacheFile;

static gint
by_use (gconstpointer a, gconstpointer b)
{
  const CacheFile *x = a, *y = b;
  return x->used < y->used ? -1 : x->used > y->used;
}

void
cml_cache_dir_trim (const char *dir, const char *suffix, guint64 limit, const char *keep)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GArray) files = g_array_new (FALSE, FALSE, sizeof (CacheFile));
  guint64 total = 0;
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      GStatBuf st;

      if (g_lstat (p, &st) != 0 || !S_ISREG (st.st_mode))
        continue;
      total += st.st_size;
      if (cml_atomic_file_is_temporary (name, NULL) || !g_str_has_suffix (name, suffix)
          || g_strcmp0 (p, keep) == 0)
        continue;
      CacheFile f = { g_steal_pointer (&p),
                      (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec,
                      st.st_size };
      g_array_append_val (files, f);
    }
  g_array_sort (files, by_use);
  for (guint i = 0; i < files->len; i++)
    {
      CacheFile *f = &g_array_index (files, CacheFile, i);
      if (total > limit && g_unlink (f->path) == 0)
        total -= MIN (total, (guint64) f->bytes);
      g_free (f->path);
    }
}

void
cml_cache_touch (const char *path)
{
  if (utimensat (AT_FDCWD, path, NULL, 0) != 0)
    g_debug ("cannot touch %s: %s", path, g_strerror (errno));
}

/* Each step h = (h ^ w) · P followed by h ^= h >> 32 to bring the high bits down; every
 * step is a bijection of h.  A byte at a time, the hash was most of what `cmlab-cli list`
 * cost (the built-in models are some 80 KB). */
guint64
cml_cache_hash64 (const void *data, gsize len)
{
  const guchar *text = data;
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 w;
      memcpy (&w, text + i, 8);
      h = (h ^ GUINT64_FROM_LE (w)) * G_GUINT64_CONSTANT (1099511628211);
      h ^= h >> 32;
    }
  for (; i < len; i++)
    {
      h ^= text[i];
      h *= G_GUINT64_CONSTANT (1099511628211);
    }
  return h;
}
