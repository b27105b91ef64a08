/* cache-util.h — a private temporary cache directory for a test (tests/models), set as the
 * cache its environment variable names, and its removal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cml-native.h"
#include "../test-tmp.h"

/* What cache_dir_new () changed: the variable it set to DIR, and the value it had before. */
typedef struct
{
  char *dir, *env, *before;
} CacheDirSet;

static GSList *cache_dirs_set;

/* A new directory (0700, as g_dir_make_tmp makes it), set as $ENV. */
static inline char *
cache_dir_new (const char *env)
{
  char *dir = test_tmp_dir_new ("cmlab-cache-XXXXXX");
  CacheDirSet *set = g_new0 (CacheDirSet, 1);

  set->dir = g_strdup (dir);
  set->env = g_strdup (env);
  set->before = g_strdup (g_getenv (env));
  cache_dirs_set = g_slist_prepend (cache_dirs_set, set);
  g_setenv (env, dir, TRUE);
  return dir;
}

/* DIR and everything under it (test-tmp.h), once the native builds in the background
 * that may still write into it have ended; the variable cache_dir_new () set to DIR, if it
 * still names DIR or a place in it, gets its value before back (else the next case of the
 * process would make that place again, as the cache it names, and leave it behind). */
static inline void
cache_dir_remove (const char *dir)
{
  cml_native_wait ();
  for (GSList *l = cache_dirs_set; l != NULL; l = l->next)
    {
      CacheDirSet *set = l->data;
      if (g_strcmp0 (set->dir, dir) != 0)
        continue;
      const char *now = g_getenv (set->env);
      if (now != NULL && g_str_has_prefix (now, dir)
          && (now[strlen (dir)] == '\0' || now[strlen (dir)] == G_DIR_SEPARATOR))
        {
          if (set->before != NULL)
            g_setenv (set->env, set->before, TRUE);
          else
            g_unsetenv (set->env);
        }
      g_free (set->dir);
      g_free (set->env);
      g_free (set->before);
      g_free (set);
      cache_dirs_set = g_slist_delete_link (cache_dirs_set, l);
      break;
    }
  test_tmp_remove (dir);
}
