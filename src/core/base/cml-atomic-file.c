/* cml-atomic-file.c — complete-or-absent files that never replace what is not ours.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one place where cmlab decides how a file is written (CSV/JSON output, sessions,
 * plot exports, PNG frames and videos, the native-code cache); see the header for the
 * rules.  Nothing here calls umask(), which is process-wide and racy with threads: a
 * new file's mode comes from open()'s 0666 less the umask, as for any create.
 */
#define G_LOG_DOMAIN "cml-atomic-file"

#include "cml-atomic-file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"
#include "cml-dir-stream.h"

#define TMP_MARK      ".cmlab-tmp-"
#define MAX_LINKS     40    /* as the kernel's own limit on a chain of symbolic links */
#define MAX_HOST      63    /* bytes of the host name kept in a temporary's name */
/* bytes of NAME kept in a temporary's name: NAME_MAX (255) less the dot, the mark, the
 * origin (host, 8 hex digits, a 20-digit namespace), a 10-digit PID and "-XXXXXX" */
#define MAX_BASE_KEPT 130
/* s: a temporary whose PID says nothing here (another host's, boot's or PID namespace's)
 * is removed only when nothing has written to it for a week */
#define FOREIGN_STALE_AGE (7 * 24 * 3600)

struct _CmlAtomicFile
{
  CmlAtomicFileFlags flags;
  char    *path;     /* as given */
  char    *target;   /* what is written: PATH with symbolic links followed */
  char    *tmp_path; /* the temporary, or NULL when the target is written directly */
  int      fd;
  FILE    *fp;
  gboolean direct;   /* a character device or a FIFO */
  gboolean existed;  /* a regular file is replaced: keep its mode */
  mode_t   mode;
  gboolean done;
};

/* ---- stale temporaries --------------------------------------------------------------- */

/* Where this process runs, as written in its temporaries' names: "HOST-BOOT-PIDNS", the
 * host name (letters, digits, '.' and '_' only, at most MAX_HOST bytes), the first eight
 * hex digits of the kernel's boot id and the inode of our PID namespace.  A PID means a
 * process only on the same host, since the same boot, in the same PID namespace. */
static gpointer
make_origin (gpointer unused)
{
  char host[256] = "";
  g_autofree char *boot = NULL;
  GString *s = g_string_new (NULL);
  GStatBuf st;
  guint64 ns = 0;

  if (gethostname (host, sizeof host - 1) != 0 || host[0] == '\0')
    g_strlcpy (host, "localhost", sizeof host);
  for (const char *c = host; *c && s->len < MAX_HOST; c++)
    g_string_append_c (s, g_ascii_isalnum (*c) || *c == '.' || *c == '_' ? *c : '_');
  g_string_append_c (s, '-');
  if (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot, NULL, NULL) && strlen (boot) >= 8
      && strspn (boot, "0123456789abcdef") >= 8)
    g_string_append_len (s, boot, 8);
  else
    g_string_append (s, "00000000");
  if (g_stat ("/proc/self/ns/pid", &st) == 0)
    ns = (guint64) st.st_ino;
  g_string_append_printf (s, "-%" G_GUINT64_FORMAT, ns);
  return g_string_free (s, FALSE);
}

const char *
cml_atomic_file_origin (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, make_origin, NULL);
}

/* The digits at P (at most 19), up to END; -1 when there are none or P stops elsewhere. */
static gint64
parse_digits (const char *p, const char *end)
{
  gint64 n = 0;

  if (p >= end || end - p > 19)
    return -1;
  for (; p < end; p++)
    {
      if (!g_ascii_isdigit (*p))
        return -1;
      n = n * 10 + (*p - '0');
    }
  return n;
}

/* Splits a temporary's name: the writer's PID, and its origin ("HOST-BOOT-PIDNS", written
 * by this version; NULL for the `.NAME.cmlab-tmp-PID-XXXXXX` of earlier ones). */
static gboolean
parse_temporary (const char *basename, GPid *pid, char **origin)
{
  const char *mark, *p, *end, *dash;
  gint64 n;

  if (basename == NULL || basename[0] != '.')
    return FALSE;
  mark = g_strrstr (basename, TMP_MARK);
  if (mark == NULL || mark == basename)
    return FALSE;
  p = mark + strlen (TMP_MARK);
  end = p + strlen (p);
  /* "-XXXXXX" at the end */
  if (end - p < 8 || end[-7] != '-')
    return FALSE;
  end -= 7;
  dash = end;
  while (dash > p && dash[-1] != '-')
    dash--;
  n = parse_digits (dash, end);
  if (n <= 0 || n >= G_MAXINT)
    return FALSE;
  if (dash == p)
    {
      /* an earlier version's: only the PID */
      if (origin)
        *origin = NULL;
    }
  else
    {
      /* HOST-BOOT-PIDNS before the PID: a host of letters, digits, '.' and '_', eight hex
       * digits, a number */
      const char *o_end = dash - 1, *ns = o_end, *boot;
      while (ns > p && ns[-1] != '-')
        ns--;
      if (ns == p || ns == o_end || o_end - ns > 20 || (gsize) (o_end - ns) != strspn (ns, "0123456789"))
        return FALSE;
      boot = ns - 1 - 8;
      if (boot - 1 <= p || boot[-1] != '-' || strspn (boot, "0123456789abcdef") < 8)
        return FALSE;
      for (const char *c = p; c < boot - 1; c++)
        if (!(g_ascii_isalnum (*c) || *c == '.' || *c == '_'))
          return FALSE;
      if (origin)
        *origin = g_strndup (p, o_end - p);
    }
  if (pid)
    *pid = (GPid) n;
  return TRUE;
}

gboolean
cml_atomic_file_is_temporary (const char *basename, GPid *pid)
{
  return parse_temporary (basename, pid, NULL);
}

gboolean
cml_atomic_file_temporary_is_local (const char *basename)
{
  g_autofree char *origin = NULL;

  return parse_temporary (basename, NULL, &origin) && origin != NULL
         && g_str_equal (origin, cml_atomic_file_origin ());
}

guint
cml_atomic_file_clean_stale_at (int dirfd)
{
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  struct dirent *de;
  DIR *d = cml_dir_stream_at (dirfd);
  guint n = 0;

  if (d == NULL)
    return 0;
  while ((de = readdir (d)) != NULL)
    {
      const char *name = de->d_name;
      g_autofree char *origin = NULL;
      struct stat st;
      GPid pid;

      if (!parse_temporary (name, &pid, &origin))
        continue;
      if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode)
          || st.st_uid != geteuid ())
        continue;
      if (origin != NULL && g_str_equal (origin, cml_atomic_file_origin ()))
        {
          /* our host, boot and PID namespace: the PID says whether its writer runs (EPERM:
           * alive, another user's; only "no such process" is dead) */
          if (pid == getpid () || kill (pid, 0) == 0 || errno != ESRCH)
            continue;
        }
      else if (now - (gint64) st.st_mtime < FOREIGN_STALE_AGE)
        {
          /* another host's, another boot's, another PID namespace's, or an earlier
           * version's: its PID says nothing here; only its age does */
          continue;
        }
      if (unlinkat (dirfd, name, 0) == 0)
        {
          g_debug ("removed %s, left by process %d (%s)", name, (int) pid, origin ? origin : "an earlier version");
          n++;
        }
    }
  closedir (d);
  return n;
}

guint
cml_atomic_file_clean_stale (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint n;

  if (fd < 0)
    return 0;
  n = cml_atomic_file_clean_stale_at (fd);
  close (fd);
  return n;
}

/* Cleans the directory DIRFD the first time this process writes into it (known by its
 * device and inode). */
static void
clean_stale_once (int dirfd)
{
  static GMutex lock;
  static GHashTable *cleaned;
  struct stat st;
  gboolean first;

  if (fstat (dirfd, &st) != 0)
    return;
  g_autofree char *id = g_strdup_printf ("%ju:%ju", (uintmax_t) st.st_dev, (uintmax_t) st.st_ino);
  g_mutex_lock (&lock);
  if (cleaned == NULL)
    cleaned = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = !g_hash_table_contains (cleaned, id);
  if (first)
    g_hash_table_add (cleaned, g_steal_pointer (&id));
  g_mutex_unlock (&lock);
  if (first)
    cml_atomic_file_clean_stale_at (dirfd);
}

static void
clean_stale_once_path (const char *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    return;
  clean_stale_once (fd);
  close (fd);
}

/* ---- opening --------------------------------------------------------------------------- */

/* PATH with every symbolic link of its last component followed; ST describes what it
 * names (*EXISTS FALSE: nothing yet, a new file goes there).  NULL with errno set. */
static char *
follow_links (const char *path, GStatBuf *st, gboolean *exists)
{
  g_autofree char *p = g_strdup (path);

  for (int depth = 0;; depth++)
    {
      if (g_lstat (p, st) != 0)
        {
          if (errno != ENOENT)
            return NULL;
          *exists = FALSE;
          return g_steal_pointer (&p);
        }
      if (!S_ISLNK (st->st_mode))
        {
          *exists = TRUE;
          return g_steal_pointer (&p);
        }
      if (depth >= MAX_LINKS)
        {
          errno = ELOOP;
          return NULL;
        }
      g_autofree char *link = g_file_read_link (p, NULL);
      if (link == NULL)
        return NULL;
      g_autofree char *dir = g_path_get_dirname (p);
      g_free (p);
      p = g_path_is_absolute (link) ? g_steal_pointer (&link) : g_build_filename (dir, link, NULL);
    }
}

static void
set_errno_error (GError **error, const char *path, int e)
{
  if (e == EACCES || e == EPERM)
    g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: permission denied", path);
  else if (e == EISDIR)
    g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: is a directory", path);
  else
    g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
}

/* `.NAME.cmlab-tmp-ORIGIN-PID-XXXXXX`, NAME cut (at a character) to fit a file name. */
static char *
temp_name (const char *base)
{
  gsize n = strlen (base);

  if (n > MAX_BASE_KEPT)
    {
      n = MAX_BASE_KEPT;
      while (n > 0 && ((guchar) base[n] & 0xC0) == 0x80)
        n--;
    }
  return g_strdup_printf (".%.*s" TMP_MARK "%s-%d-XXXXXX", (int) n, base, cml_atomic_file_origin (), (int) getpid ());
}

/* The same in DIR. */
static char *
temp_template (const char *dir, const char *base)
{
  g_autofree char *name = temp_name (base);
  return g_build_filename (dir, name, NULL);
}

CmlAtomicFile *
cml_atomic_file_new (const char *path, CmlAtomicFileFlags flags, GError **error)
{
  g_autoptr (CmlAtomicFile) f = NULL;
  GStatBuf st;
  gboolean exists = FALSE;

  g_return_val_if_fail (path != NULL && *path != '\0', NULL);

  f = g_new0 (CmlAtomicFile, 1);
  f->flags = flags;
  f->fd = -1;
  f->path = g_strdup (path);
  /* what PATH finally names, as the kernel follows it: /dev/stdout leads through
   * /proc/self/fd/1 to a pipe that has no name to follow by hand */
  if (g_stat (path, &st) == 0 && (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode)))
    {
      f->target = g_strdup (path);
      exists = TRUE;
    }
  else
    f->target = follow_links (path, &st, &exists);
  if (f->target == NULL)
    {
      set_errno_error (error, path, errno);
      f->done = TRUE;
      return NULL;
    }

  if (exists)
    {
      if (S_ISDIR (st.st_mode))
        {
          set_errno_error (error, path, EISDIR);
          f->done = TRUE;
          return NULL;
        }
      if (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode))
        {
          /* a device or a pipe is written to, never replaced by a file */
          f->direct = TRUE;
          if (flags & CML_ATOMIC_FILE_EXTERNAL)
            {
              if (access (f->target, W_OK) != 0)
                {
                  set_errno_error (error, path, errno);
                  f->done = TRUE;
                  return NULL;
                }
            }
          else if ((f->fd = open (f->target, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
            {
              set_errno_error (error, path, errno);
              f->done = TRUE;
              return NULL;
            }
          return g_steal_pointer (&f);
        }
      if (!S_ISREG (st.st_mode))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_IO,
                       "%s: not a regular file (a block device or a socket): not replaced", path);
          f->done = TRUE;
          return NULL;
        }
      /* a file we may not write is not ours to replace, whatever the directory allows
       * (root passes access(): the mode bits decide then) */
      if (access (f->target, W_OK) != 0 || (st.st_mode & 0222) == 0)
        {
          int e = errno;
          set_errno_error (error, path, (st.st_mode & 0222) == 0 || e == 0 ? EACCES : e);
          f->done = TRUE;
          return NULL;
        }
      f->existed = TRUE;
      f->mode = st.st_mode & 07777;
    }

  g_autofree char *dir = g_path_get_dirname (f->target);
  g_autofree char *base = g_path_get_basename (f->target);
  clean_stale_once_path (dir);
  f->tmp_path = temp_template (dir, base);
  /* 0666: the kernel takes the umask off, as for any new file */
  f->fd = g_mkstemp_full (f->tmp_path, O_RDWR | O_CLOEXEC, 0666);
  if (f->fd < 0)
    {
      int e = errno;
      g_clear_pointer (&f->tmp_path, g_free);
      set_errno_error (error, path, e);
      f->done = TRUE;
      return NULL;
    }
  if (f->existed)
    {
      /* the replaced file's owner (where we may) and mode; chown first, it clears set-id bits */
      if ((st.st_uid != geteuid () || st.st_gid != getegid ())
          && fchown (f->fd, st.st_uid, st.st_gid) != 0)
        g_debug ("cannot keep the owner of %s: %s", path, g_strerror (errno));
      if (fchmod (f->fd, f->mode) != 0)
        g_debug ("cannot keep the mode of %s: %s", path, g_strerror (errno));
    }
  if (flags & CML_ATOMIC_FILE_EXTERNAL)
    {
      close (f->fd);
      f->fd = -1;
    }
  return g_steal_pointer (&f);
}

int
cml_atomic_file_get_fd (CmlAtomicFile *f)
{
  g_return_val_if_fail (f != NULL, -1);
  return f->fd;
}

FILE *
cml_atomic_file_get_stream (CmlAtomicFile *f)
{
  g_return_val_if_fail (f != NULL, NULL);
  if (f->fp == NULL && f->fd >= 0)
    f->fp = fdopen (f->fd, "w");
  return f->fp;
}

const char *
cml_atomic_file_get_write_path (CmlAtomicFile *f)
{
  g_return_val_if_fail (f != NULL, NULL);
  return f->direct ? f->target : f->tmp_path;
}

const char *
cml_atomic_file_get_path (CmlAtomicFile *f)
{
  g_return_val_if_fail (f != NULL, NULL);
  return f->path;
}

gboolean
cml_atomic_file_is_direct (CmlAtomicFile *f)
{
  g_return_val_if_fail (f != NULL, FALSE);
  return f->direct;
}

/* Closes the descriptor (and stream); the first error's errno, or 0. */
static int
close_file (CmlAtomicFile *f, gboolean sync)
{
  int e = 0;

  if (f->fp)
    {
      if (fflush (f->fp) != 0)
        e = errno;
      else if (ferror (f->fp))
        e = EIO;
    }
  if (sync && e == 0 && f->fd >= 0 && !f->direct && fsync (f->fd) != 0)
    e = errno;
  if (f->fp)
    {
      if (fclose (f->fp) != 0 && e == 0)
        e = errno;
    }
  else if (f->fd >= 0 && close (f->fd) != 0 && e == 0)
    e = errno;
  f->fp = NULL;
  f->fd = -1;
  return e;
}

gboolean
cml_atomic_file_commit (CmlAtomicFile *f, GError **error)
{
  int e;

  g_return_val_if_fail (f != NULL && !f->done, FALSE);

  e = close_file (f, !(f->flags & CML_ATOMIC_FILE_UNSYNCED));
  if (e == 0 && f->tmp_path != NULL)
    {
      /* a program that wrote by name may have made a new file (a linker does) */
      if ((f->flags & CML_ATOMIC_FILE_EXTERNAL) && f->existed && g_chmod (f->tmp_path, f->mode) != 0)
        g_debug ("cannot keep the mode of %s: %s", f->path, g_strerror (errno));
      if (g_rename (f->tmp_path, f->target) != 0)
        e = errno;
      else
        g_clear_pointer (&f->tmp_path, g_free);
    }
  if (e != 0)
    {
      cml_atomic_file_abort (f);
      if (e == EISDIR)
        set_errno_error (error, f->path, e);
      else
        g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s", f->path, g_strerror (e));
      return FALSE;
    }
  f->done = TRUE;
  return TRUE;
}

void
cml_atomic_file_abort (CmlAtomicFile *f)
{
  g_return_if_fail (f != NULL);
  close_file (f, FALSE);
  if (f->tmp_path)
    {
      g_unlink (f->tmp_path);
      g_clear_pointer (&f->tmp_path, g_free);
    }
  f->done = TRUE;
}

void
cml_atomic_file_free (CmlAtomicFile *f)
{
  if (f == NULL)
    return;
  if (!f->done)
    cml_atomic_file_abort (f);
  g_free (f->path);
  g_free (f->target);
  g_free (f->tmp_path);
  g_free (f);
}

gboolean
cml_atomic_file_set_contents (const char *path, const void *data, gsize size, GError **error)
{
  return cml_atomic_file_set_contents_full (path, data, size, CML_ATOMIC_FILE_DEFAULT, error);
}

gboolean
cml_atomic_file_set_contents_full (const char *path, const void *data, gsize size,
                                   CmlAtomicFileFlags flags, GError **error)
{
  g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, flags, error);
  const guint8 *p = data;

  if (f == NULL)
    return FALSE;
  while (size > 0)
    {
      ssize_t n = write (f->fd, p, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int e = n < 0 ? errno : EIO;
          g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s", path, g_strerror (e));
          return FALSE; /* the free aborts */
        }
      p += n;
      size -= (gsize) n;
    }
  return cml_atomic_file_commit (f, error);
}

/* ---- in a directory's descriptor --------------------------------------------------------- */

int
cml_atomic_file_create_temporary_at (int dirfd, const char *name, char **tmp_name)
{
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  g_autofree char *tmp = temp_name (name);
  char *x = tmp + strlen (tmp) - 6;

  clean_stale_once (dirfd);
  for (int attempt = 0; attempt < 100; attempt++)
    {
      for (int i = 0; i < 6; i++)
        x[i] = letters[g_random_int_range (0, sizeof letters - 1)];
      /* a new name only: O_EXCL never opens what is there, link or not */
      int fd = openat (dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0)
        {
          *tmp_name = g_steal_pointer (&tmp);
          return fd;
        }
      if (errno != EEXIST)
        return -1;
    }
  errno = EEXIST;
  return -1;
}

gboolean
cml_atomic_file_set_contents_at (int dirfd, const char *name, const void *data, gsize size,
                                 CmlAtomicFileFlags flags, GError **error)
{
  g_autofree char *tmp = NULL;
  const guint8 *p = data;
  int fd, e = 0;

  fd = cml_atomic_file_create_temporary_at (dirfd, name, &tmp);
  if (fd < 0)
    {
      set_errno_error (error, name, errno);
      return FALSE;
    }
  while (size > 0 && e == 0)
    {
      ssize_t n = write (fd, p, size);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        e = n < 0 ? errno : EIO;
      else
        {
          p += n;
          size -= (gsize) n;
        }
    }
  if (e == 0 && !(flags & CML_ATOMIC_FILE_UNSYNCED) && fsync (fd) != 0)
    e = errno;
  if (close (fd) != 0 && e == 0)
    e = errno;
  /* renameat replaces whatever NAME is — a link stays unfollowed, its target untouched */
  if (e == 0 && renameat (dirfd, tmp, dirfd, name) != 0)
    e = errno;
  if (e != 0)
    {
      unlinkat (dirfd, tmp, 0);
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s", name, g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

/* ---- interruptions --------------------------------------------------------------------- */

static const int held_signals[] = { SIGINT, SIGTERM, SIGHUP };
static GMutex signal_lock;
static guint signal_holds;
static struct sigaction previous[G_N_ELEMENTS (held_signals)];
static volatile sig_atomic_t caught_signal;

static void
on_signal (int sig)
{
  if (caught_signal == 0)
    caught_signal = sig;
}

void
cml_atomic_file_hold_signals (void)
{
  g_mutex_lock (&signal_lock);
  if (signal_holds++ == 0)
    {
      struct sigaction sa = { 0 };
      /* no SA_RESTART: a blocked write returns and the loop sees the flag */
      sa.sa_handler = on_signal;
      sigemptyset (&sa.sa_mask);
      caught_signal = 0;
      for (guint i = 0; i < G_N_ELEMENTS (held_signals); i++)
        {
          sigaction (held_signals[i], NULL, &previous[i]);
          /* a signal the process ignores (nohup, a background job) stays ignored */
          if (previous[i].sa_handler != SIG_IGN)
            sigaction (held_signals[i], &sa, NULL);
        }
    }
  g_mutex_unlock (&signal_lock);
}

void
cml_atomic_file_release_signals (void)
{
  int sig = 0;

  g_mutex_lock (&signal_lock);
  if (signal_holds == 0)
    {
      g_mutex_unlock (&signal_lock);
      g_critical ("cml_atomic_file_release_signals: not held");
      return;
    }
  if (--signal_holds == 0)
    {
      for (guint i = 0; i < G_N_ELEMENTS (held_signals); i++)
        sigaction (held_signals[i], &previous[i], NULL);
      sig = caught_signal;
      caught_signal = 0;
    }
  g_mutex_unlock (&signal_lock);
  if (sig != 0)
    raise (sig);
}

int
cml_atomic_file_interrupted (void)
{
  return caught_signal;
}
