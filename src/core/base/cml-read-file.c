/* cml-read-file.c — reading a file a person names or cmlab finds, bounded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * g_file_get_contents and g_key_file_load_from_file read whatever the path names, to its
 * end: a FIFO hangs them, /dev/zero and /dev/urandom fill the memory.  Here a path is
 * opened once, without blocking (a FIFO with no writer opens at once), the open file is
 * checked with fstat (the check and the read are of the same file, whatever the path
 * names afterwards), and only a regular file is read, to a limit the caller gives.
 */
#define G_LOG_DOMAIN "cml-read-file"

#include "cml-read-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"

static void
set_errno_error (GError **error, int e)
{
  g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (e), g_strerror (e));
}

int
cml_read_file_open (const char *path, GError **error)
{
  struct stat st;
  int fd, flags;

  g_return_val_if_fail (path != NULL, -1);
  do
    fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      set_errno_error (error, errno);
      return -1;
    }
  if (fstat (fd, &st) != 0)
    {
      int e = errno;
      close (fd);
      set_errno_error (error, e);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      if (S_ISDIR (st.st_mode))
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, _("a folder, not a file"));
      else if (S_ISFIFO (st.st_mode))
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             _("a pipe (FIFO), not a file: cmlab reads only regular files"));
      else if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode))
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             _("a device, not a file: cmlab reads only regular files"));
      else
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             _("not a regular file (a socket?): cmlab reads only regular files"));
      return -1;
    }
  /* a regular file: reads block as usual again */
  flags = fcntl (fd, F_GETFL);
  if (flags != -1)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

static void
set_too_large (GError **error, const char *what, gsize max_bytes, guint64 size)
{
  const double mib = 1024.0 * 1024.0;

  if (size > 0)
    /* TRANSLATORS: "12.0 MiB, more than 1.0 MiB, the limit for a model file" */
    g_set_error (error, CML_ERROR, CML_ERROR_IO, _("%.1f MiB, more than %.1f MiB, the limit for %s"), size / mib,
                 max_bytes / mib, what);
  else
    g_set_error (error, CML_ERROR, CML_ERROR_IO, _("more than %.1f MiB (it grew while being read), the limit for %s"),
                 max_bytes / mib, what);
}

gboolean
cml_read_file_capped (const char *path, gsize max_bytes, const char *what, char **contents,
                      gsize *length, GError **error)
{
  g_autofree char *buf = NULL;
  gsize got = 0, cap;
  struct stat st;
  int fd;

  g_return_val_if_fail (path != NULL && contents != NULL && max_bytes < G_MAXSIZE - 2, FALSE);
  fd = cml_read_file_open (path, error);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) == 0 && (guint64) st.st_size > max_bytes)
    {
      close (fd);
      set_too_large (error, what, max_bytes, (guint64) st.st_size);
      return FALSE;
    }
  /* the size it has now, one byte more to see it end; grown as needed, to MAX_BYTES + 1 */
  cap = MIN ((gsize) st.st_size, max_bytes) + 1;
  buf = g_malloc (cap + 1);
  for (;;)
    {
      if (got == cap)
        {
          if (cap > max_bytes)
            break;
          cap = MIN (MAX (2 * cap, (gsize) 4096), max_bytes + 1);
          buf = g_realloc (buf, cap + 1);
        }
      ssize_t n = read (fd, buf + got, cap - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;
          close (fd);
          set_errno_error (error, e);
          return FALSE;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);
  if (got > max_bytes)
    {
      set_too_large (error, what, max_bytes, 0);
      return FALSE;
    }
  buf[got] = '\0';
  if (length)
    *length = got;
  *contents = g_steal_pointer (&buf);
  return TRUE;
}
