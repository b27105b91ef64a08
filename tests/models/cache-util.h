/* cache-util.h — a private temporary cache directory for a test (tests/models), set as the
 * cache its environment variable names, and its removal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* A new directory (0700, as g_dir_make_tmp makes it), set as $ENV. */
static inline char *
cache_dir_new (const char *env)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("cmlab-cache-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv (env, dir, TRUE);
  return dir;
}

/* DIR and the files in it (any flat temporary directory of a test). */
static inline void
cache_dir_remove (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;
  while (d && (e = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, e, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}
