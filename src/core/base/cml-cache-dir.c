/* cml-cache-dir.c — a private cache directory, kept under a size limit (cml-cache-dir.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a cache holds is read back into the process (titles, derived equations, native
 * code), so a cache directory is used only when it is ours alone: created 0700, and
 * refused when it is a symbolic link, belongs to someone else or others may write to it —
 * checked on the descriptor it is then used through (see the header).  Files are written
 * by the atomic writer (cml-atomic-file.c) in the directory's descriptor; trimming removes
 * the least recently used first.
 */
#define G_LOG_DOMAIN "cml-cache"

#include "cml-cache-dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "cml-dir-stream.h"

char *
cml_cache_dir_path (const char *env, const char *leaf)
{
  const char *v = g_getenv (env);

  if (v != NULL && *v != '\0')
    return g_strdup (v);
  return g_build_filename (g_get_user_cache_dir (), "cmlab", leaf, NULL);
}

int
cml_cache_dir_open_fd (const char *dir, const char **why, gboolean *cannot_create)
{
  struct stat st;
  int fd;

  *cannot_create = FALSE;
  *why = NULL;
  if (g_mkdir_with_parents (dir, 0700) != 0 && errno != EEXIST)
    {
      *cannot_create = TRUE;
      *why = g_strerror (errno);
      return -1;
    }
  /* once, not followed if it is a link; then only the descriptor is checked and used */
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      GStatBuf lst;
      if (e == ELOOP || (g_lstat (dir, &lst) == 0 && S_ISLNK (lst.st_mode)))
        *why = "it is a symbolic link";
      else if (e == ENOTDIR)
        *why = "it is not a directory";
      else
        *why = g_strerror (e);
      return -1;
    }
  if (fstat (fd, &st) != 0)
    *why = g_strerror (errno);
  else if (!S_ISDIR (st.st_mode))
    *why = "it is not a directory";
  else if (st.st_uid != geteuid ())
    *why = "it belongs to another user";
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    *why = "others may write to it (chmod 700 makes it private)";
  if (*why != NULL)
    {
      close (fd);
      return -1;
    }
  return fd;
}

const char *
cml_cache_dir_unusable (const char *dir, gboolean *cannot_create)
{
  const char *why;
  int fd = cml_cache_dir_open_fd (dir, &why, cannot_create);

  if (fd >= 0)
    close (fd);
  return why;
}

int
cml_cache_open_file (int dirfd, const char *name, guint64 cap, struct stat *st)
{
  struct stat local;
  int fd;

  if (st == NULL)
    st = &local;
  /* O_NONBLOCK: opening a FIFO does not wait for a writer (and it is refused below) */
  fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode) || (guint64) st->st_size > cap)
    {
      int e = errno;
      if (fstat (fd, st) == 0)
        e = !S_ISREG (st->st_mode) ? EINVAL : EFBIG;
      close (fd);
      errno = e;
      return -1;
    }
  return fd;
}

char *
cml_cache_read_fd (int fd, gsize cap, gsize *len)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 buf[16384];
  off_t at = 0;

  for (;;)
    {
      ssize_t n = pread (fd, buf, sizeof buf, at);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      /* a file that grew past its cap since it was checked is refused all the same */
      if (bytes->len + (gsize) n > cap)
        return NULL;
      g_byte_array_append (bytes, buf, (guint) n);
      at += n;
    }
  if (len)
    *len = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&bytes), FALSE);
}

char *
cml_cache_read_at (int dirfd, const char *name, gsize cap, gsize *len)
{
  int fd = cml_cache_open_file (dirfd, name, cap, NULL);
  char *data;

  if (fd < 0)
    return NULL;
  data = cml_cache_read_fd (fd, cap, len);
  close (fd);
  return data;
}

char *
cml_cache_read (const char *path, gsize cap, gsize *len)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  gboolean cannot_create;
  const char *why;
  char *data;
  int dfd = cml_cache_dir_open_fd (dir, &why, &cannot_create);

  if (dfd < 0)
    return NULL;
  data = cml_cache_read_at (dfd, base, cap, len);
  close (dfd);
  return data;
}

gboolean
cml_cache_write (const char *path, const void *data, gsize size, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  gboolean cannot_create, ok;
  const char *why;
  int dfd = cml_cache_dir_open_fd (dir, &why, &cannot_create);

  if (dfd < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "the cache %s is not used: %s", dir, why);
      return FALSE;
    }
  ok = cml_atomic_file_set_contents_at (dfd, base, data, size, CML_ATOMIC_FILE_UNSYNCED, error);
  close (dfd);
  return ok;
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
  g_autofree char *base = keep ? g_path_get_basename (keep) : NULL;
  gboolean cannot_create;
  const char *why;
  int dfd = cml_cache_dir_open_fd (dir, &why, &cannot_create);

  if (dfd < 0)
    return;
  cml_cache_dir_trim_at (dfd, suffix, limit, base);
  close (dfd);
}

void
cml_cache_dir_trim_at (int dirfd, const char *suffix, guint64 limit, const char *keep)
{
  g_autoptr (GArray) files = g_array_new (FALSE, FALSE, sizeof (CacheFile));
  guint64 total = 0;
  struct dirent *de;
  DIR *d = cml_dir_stream_at (dirfd);

  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      const char *name = de->d_name;
      struct stat st;

      if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode))
        continue;
      total += st.st_size;
      if (cml_atomic_file_is_temporary (name, NULL) || !g_str_has_suffix (name, suffix)
          || g_strcmp0 (name, keep) == 0)
        continue;
      CacheFile f = { g_strdup (name),
                      (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec,
                      st.st_size };
      g_array_append_val (files, f);
    }
  closedir (d);
  g_array_sort (files, by_use);
  for (guint i = 0; i < files->len; i++)
    {
      CacheFile *f = &g_array_index (files, CacheFile, i);
      if (total > limit && unlinkat (dirfd, f->path, 0) == 0)
        total -= MIN (total, (guint64) f->bytes);
      g_free (f->path);
    }
}

void
cml_cache_touch (const char *path)
{
  if (utimensat (AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW) != 0)
    g_debug ("cannot touch %s: %s", path, g_strerror (errno));
}

void
cml_cache_touch_at (int dirfd, const char *name)
{
  if (utimensat (dirfd, name, NULL, AT_SYMLINK_NOFOLLOW) != 0)
    g_debug ("cannot touch %s: %s", name, g_strerror (errno));
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
