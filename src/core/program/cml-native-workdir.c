/* cml-native-workdir.c — the C compiler's private working directories: made inside the
 * native-code cache, held locked while a compile runs, removed whole afterwards, and
 * removed by a later build when the run that made one ended without doing it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why in the cache directory and not in /tmp: a compile killed with cmlab (the window
 * closed, Ctrl+C, a background compile still going at exit: the compiler dies of
 * PR_SET_PDEATHSIG, cmlab does not run its clean-up) leaves its directory behind, and
 * only a directory that a later run can find again and know for its own can be removed
 * then.  The cache directory is one: it is per user and ours only (0700, checked on its
 * descriptor, cml-cache-dir.c), every later build opens it anyway, nobody else's files
 * are in it (in /tmp we could not tell a dead run's directory from another user's or a
 * live one's), the object is read back within one filesystem, and in the tests it is a
 * directory of the test's ($XDG_CACHE_HOME, $CMLAB_NATIVE_CACHE).  The cache's trimming
 * counts and removes regular files only (cml-native-cache.c): it never enters these.
 *
 * A directory is `tmp-XXXXXX` (six letters or digits), made with mkdirat (0700) from the
 * cache's descriptor — no path through the cache's parents is followed, so a cache
 * directory swapped after its check gets nothing of ours — and holds the file `lock`,
 * which the building process keeps locked (flock, exclusive) from before anything else
 * is written into the directory until it is removed.  The descriptors are close-on-exec,
 * so the compiler does not hold the lock: the kernel releases it when the building
 * process ends, however it ends (even SIGKILL or a power cut).
 *
 * The compiler works in the directory (its working directory, set from the checked
 * descriptor between fork and exec) on relative names, with TMPDIR=. so that GCC's own
 * temporaries (ccXXXXXX.s, ccXXXXXX.o, collect2's) are written there too and go with it.
 *
 * Removal (of ours when the compile returns, or a dead run's by the sweep before every
 * compile) goes through descriptors only: every entry is unlinked with unlinkat, a
 * subdirectory emptied the same way (never followed if it is a link), then the directory
 * itself.  The sweep takes a `tmp-XXXXXX` directory only when it is a directory (not a
 * link), ours, 0700, and its lock can be taken at once (its owner is gone: a live build
 * holds it); one with no lock file yet is being made, or its maker ended before the lock
 * existed (a run that exits just as its background compile starts): it is empty, and is
 * removed (rmdir, which only removes an empty one) once a minute old.  Anything else of
 * that name, and anything of another name, is never touched.
 *
 * Races between a build and a sweep: the builder takes the lock right after making the
 * lock file and then checks that the lock file and the directory are still there (a
 * sweep may have taken the lock first and removed both); if not, it makes another.  A
 * sweep removes a directory only while holding its lock, and the directory only if the
 * name still names the descriptor it emptied.  Where flock is emulated with POSIX locks
 * (NFS), locks do not exclude each other within one process, so a sweep also skips the
 * directories this process has made and not yet removed.
 */
#define G_LOG_DOMAIN "cml-native"

#include "cml-native-private.h"
#include "cml-error.h"
#include "cml-dir-stream.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define WORKDIR_PREFIX "tmp-"
#define WORKDIR_RANDOM 6        /* letters or digits after the prefix */
#define LOCK_NAME      "lock"
#define MAX_DEPTH      8        /* subdirectories followed when emptying one */
#define MAX_ATTEMPTS   100      /* names tried before giving up */
#define LOCKLESS_AGE   60       /* s: a directory with no lock file yet is its maker's */

/* the names of the directories this process made and has not removed yet */
static GMutex live_lock;
static GHashTable *live_names;

static void
live_add (const char *name)
{
  g_mutex_lock (&live_lock);
  if (live_names == NULL)
    live_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_add (live_names, g_strdup (name));
  g_mutex_unlock (&live_lock);
}

static void
live_remove (const char *name)
{
  g_mutex_lock (&live_lock);
  if (live_names != NULL)
    g_hash_table_remove (live_names, name);
  g_mutex_unlock (&live_lock);
}

static gboolean
live_contains (const char *name)
{
  gboolean found;

  g_mutex_lock (&live_lock);
  found = live_names != NULL && g_hash_table_contains (live_names, name);
  g_mutex_unlock (&live_lock);
  return found;
}

/* Whether NAME is of the form of our directories: tmp-XXXXXX, X a letter or a digit. */
gboolean
cml_native_workdir_is_name (const char *name)
{
  if (!g_str_has_prefix (name, WORKDIR_PREFIX) || strlen (name) != strlen (WORKDIR_PREFIX) + WORKDIR_RANDOM)
    return FALSE;
  for (const char *p = name + strlen (WORKDIR_PREFIX); *p; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return TRUE;
}

/* Unlinks every entry of the directory FD except KEEP (may be NULL), emptying and removing
 * subdirectories the same way down to DEPTH levels; links are removed, never followed.
 * FD stays open. */
static void
empty_dir (int fd, const char *keep, int depth)
{
  struct dirent *de;
  DIR *d = cml_dir_stream_at (fd);

  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    {
      const char *name = de->d_name;
      struct stat st;

      if (g_str_equal (name, ".") || g_str_equal (name, "..") || g_strcmp0 (name, keep) == 0)
        continue;
      if (unlinkat (fd, name, 0) == 0 || errno == ENOENT)
        continue;
      /* a directory (EISDIR): emptied through a descriptor that did not follow a link */
      if (depth > 0 && fstatat (fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (st.st_mode))
        {
          int sub = openat (fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub >= 0)
            {
              empty_dir (sub, NULL, depth - 1);
              close (sub);
            }
          unlinkat (fd, name, AT_REMOVEDIR);
        }
    }
  closedir (d);
}

/* Removes the directory NAME of DFD, opened as FD, once emptied: only when the name still
 * names FD's directory. */
static void
remove_emptied (int dfd, const char *name, int fd)
{
  struct stat by_fd, by_name;

  empty_dir (fd, LOCK_NAME, MAX_DEPTH);
  unlinkat (fd, LOCK_NAME, 0);
  if (fstat (fd, &by_fd) == 0 && fstatat (dfd, name, &by_name, AT_SYMLINK_NOFOLLOW) == 0
      && by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino)
    {
      /* (a readdir that unlinks as it goes may pass over an entry: a second round) */
      if (unlinkat (dfd, name, AT_REMOVEDIR) != 0 && errno == ENOTEMPTY)
        {
          empty_dir (fd, NULL, MAX_DEPTH);
          unlinkat (dfd, name, AT_REMOVEDIR);
        }
      if (fstatat (dfd, name, &by_name, AT_SYMLINK_NOFOLLOW) == 0)
        g_debug ("cannot remove the compiler's directory %s", name);
    }
}

/* Whether the descriptor FD (with status ST) is a directory we could have made: ours, no
 * access for group or others. */
static gboolean
ours_only (const struct stat *st)
{
  return S_ISDIR (st->st_mode) && st->st_uid == geteuid () && (st->st_mode & 077) == 0;
}

void
cml_native_workdir_sweep (int dfd)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  struct dirent *de;
  DIR *d = cml_dir_stream_at (dfd);

  if (d == NULL)
    return;
  while ((de = readdir (d)) != NULL)
    if (cml_native_workdir_is_name (de->d_name) && !live_contains (de->d_name))
      g_ptr_array_add (names, g_strdup (de->d_name));
  closedir (d);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      struct stat st, lst;
      int dir, lock;

      /* a directory, not a link to one, ours and closed to others */
      if (fstatat (dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !ours_only (&st))
        continue;
      dir = openat (dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (dir < 0)
        continue;
      if (fstat (dir, &st) != 0 || !ours_only (&st))
        {
          close (dir);
          continue;
        }
      lock = openat (dir, LOCK_NAME, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (lock < 0)
        {
          /* no lock file: being made now, or its maker ended between the two (a run that
           * exits as its background compile starts); nothing is written into it before
           * the lock, so it is empty and only removed as such (rmdir), and a maker that
           * still comes makes another */
          if (errno == ENOENT && now - (gint64) st.st_mtime > LOCKLESS_AGE)
            {
              g_debug ("removing the compiler's directory %s (no lock)", name);
              unlinkat (dfd, name, AT_REMOVEDIR);
            }
          close (dir);
          continue;
        }
      /* a lock that can be taken: its owner is gone */
      if (fstat (lock, &lst) == 0 && S_ISREG (lst.st_mode) && flock (lock, LOCK_EX | LOCK_NB) == 0)
        {
          g_debug ("removing the compiler's directory %s, left by a run that ended", name);
          remove_emptied (dfd, name, dir);
        }
      close (lock);
      close (dir);
    }
}

gboolean
cml_native_workdir_make (int dfd, CmlNativeWorkdir *wd, GError **error)
{
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  int last_errno = 0;

  wd->name = NULL;
  wd->fd = wd->lock = -1;
  for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++)
    {
      char name[sizeof WORKDIR_PREFIX + WORKDIR_RANDOM];
      struct stat by_fd, by_name, lst;
      gboolean locked;
      int dir, lock;

      memcpy (name, WORKDIR_PREFIX, strlen (WORKDIR_PREFIX));
      for (int i = 0; i < WORKDIR_RANDOM; i++)
        name[strlen (WORKDIR_PREFIX) + i] = alphabet[g_random_int_range (0, sizeof alphabet - 1)];
      name[sizeof name - 1] = '\0';

      /* a new name, 0700: nobody else can put a file or a link in it */
      if (mkdirat (dfd, name, 0700) != 0)
        {
          last_errno = errno;
          if (errno == EEXIST)
            continue;
          break;
        }
      live_add (name);
      dir = openat (dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      lock = dir >= 0 ? openat (dir, LOCK_NAME, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
      if (lock < 0)
        {
          /* ENOENT: a sweep took it, still empty (after a minute: a stopped process) */
          gboolean taken = errno == ENOENT;
          last_errno = errno;
          if (dir >= 0)
            close (dir);
          unlinkat (dfd, name, AT_REMOVEDIR);
          live_remove (name);
          if (taken)
            continue;
          break;
        }
      /* held until the directory is removed; where locks are not available at all, no
       * sweep can take it either */
      locked = flock (lock, LOCK_EX | LOCK_NB) == 0;
      if (!locked && (errno == EWOULDBLOCK || errno == EINTR))
        {
          /* a sweep has it: it removes it */
          close (lock);
          close (dir);
          live_remove (name);
          continue;
        }
      if (!locked)
        g_debug ("cannot lock the compiler's directory %s: %s", name, g_strerror (errno));
      /* still there: a sweep that had the lock before us removed it, lock file and all */
      if (fstat (lock, &lst) != 0 || lst.st_nlink == 0 || fstat (dir, &by_fd) != 0 || !ours_only (&by_fd)
          || fstatat (dfd, name, &by_name, AT_SYMLINK_NOFOLLOW) != 0 || by_fd.st_dev != by_name.st_dev
          || by_fd.st_ino != by_name.st_ino)
        {
          close (lock);
          close (dir);
          live_remove (name);
          continue;
        }
      wd->name = g_strdup (name);
      wd->fd = dir;
      wd->lock = lock;
      return TRUE;
    }
  g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot make a directory for the C compiler in the native-code cache: %s",
               g_strerror (last_errno ? last_errno : EEXIST));
  return FALSE;
}

void
cml_native_workdir_remove (int dfd, CmlNativeWorkdir *wd)
{
  if (wd->name == NULL)
    return;
  remove_emptied (dfd, wd->name, wd->fd);
  close (wd->fd);
  /* the lock last: until now no sweep may take the directory */
  close (wd->lock);
  live_remove (wd->name);
  g_clear_pointer (&wd->name, g_free);
  wd->fd = wd->lock = -1;
}
