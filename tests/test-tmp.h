/* test-tmp.h — a test's temporary directories: made under the temporary directory
 * ($TMPDIR, else /tmp: g_dir_make_tmp) and removed whole once the test is done with them,
 * so that a run of the suite leaves nothing there (tools/run-tests checks it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <sys/stat.h>
#include <glib.h>
#include <glib/gstdio.h>

/* A new empty directory (0700) named after TEMPLATE ("cmlab-what-XXXXXX") in the
 * temporary directory; the caller removes it with test_tmp_remove (). */
static inline char *
test_tmp_dir_new (const char *template)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp (template, &error);
  g_assert_no_error (error);
  return dir;
}

/* Removes PATH and, when it is a directory, everything under it, deepest first.  A
 * symbolic link is removed itself, never followed (a test's tree may hold links to
 * places outside it); a directory the test left without read, write or search permission
 * for its owner gets them back first.  Whether PATH is gone (a file that something still
 * writes into the tree, a background compile say, makes it stay). */
static inline gboolean
test_tmp_remove (const char *path)
{
  GStatBuf st;

  if (g_lstat (path, &st) != 0)
    return errno == ENOENT;
  if (!S_ISDIR (st.st_mode))
    return g_unlink (path) == 0 || errno == ENOENT;

  if ((st.st_mode & S_IRWXU) != S_IRWXU)
    g_chmod (path, (st.st_mode & 07777) | S_IRWXU);
  {
    g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        test_tmp_remove (child);
      }
  }
  return g_rmdir (path) == 0 || errno == ENOENT;
}
