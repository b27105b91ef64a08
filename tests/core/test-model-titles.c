/* test-model-titles.c — the cache of the built-in models' titles (cml-model-titles.c):
 * what it gives is what loading gives; a stale or damaged entry is never trusted; it
 * stays under its size limit; processes writing it at once leave it whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-model-titles"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml-model.h"
#include "cml-model-titles.h"
#include "../test-tmp.h"

static char *tmpdir;
static char *source_models; /* the built-in models of the source tree */

/* A fresh cache directory and a copy of the built-in models, both under tmpdir/NAME. */
static void
setup_dirs (const char *name, char **models_out, char **cache_out)
{
  g_autofree char *base = g_build_filename (tmpdir, name, NULL);
  char *models = g_build_filename (base, "models", NULL);
  char *cache = g_build_filename (base, "cache", NULL);
  g_auto (GStrv) names = NULL;

  g_assert_cmpint (g_mkdir_with_parents (models, 0700), ==, 0);
  g_setenv ("CMLAB_MODELS_DIR", source_models, TRUE);
  names = cml_model_list_builtin ();
  for (guint k = 0; names[k]; k++)
    {
      g_autofree char *file = g_strconcat (names[k], ".cml", NULL);
      g_autofree char *from = g_build_filename (source_models, file, NULL);
      g_autofree char *to = g_build_filename (models, file, NULL);
      g_autofree char *text = NULL;
      gsize len = 0;
      g_assert_true (g_file_get_contents (from, &text, &len, NULL));
      g_assert_true (g_file_set_contents (to, text, len, NULL));
    }
  g_setenv ("CMLAB_MODELS_DIR", models, TRUE);
  g_setenv ("CMLAB_TITLES_CACHE", cache, TRUE);
  *models_out = models;
  *cache_out = cache;
}

/* Each title as loading the model gives it (its title or its error). */
static void
assert_as_loaded (char **names, char **titles)
{
  for (guint k = 0; names[k]; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (names[k], &error);
      g_assert_cmpstr (titles[k], ==, model ? model->title : error->message);
    }
}

static char *
the_cache_file (const char *cache)
{
  g_autoptr (GDir) d = g_dir_open (cache, 0, NULL);
  const char *name;
  char *found = NULL;

  while (d && (name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".titles"))
      {
        g_assert_null (found);
        found = g_build_filename (cache, name, NULL);
      }
  g_assert_nonnull (found);
  return found;
}

static void
test_same_as_loading (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  setup_dirs ("same", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  guint n = g_strv_length (names), cached = 99;

  g_assert_cmpuint (n, >, 3);
  g_auto (GStrv) first = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, 0);
  assert_as_loaded (names, first);
  g_auto (GStrv) second = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n);
  for (guint k = 0; k < n; k++)
    g_assert_cmpstr (second[k], ==, first[k]);
}

/* A title is read in the user's language (title[es]): the cache never gives one
 * language's title to another, and each language keeps its own titles. */
static void
test_language (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  g_autofree char *saved = g_strdup (g_getenv ("LANGUAGE"));
  setup_dirs ("language", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  guint n = g_strv_length (names), cached = 99, ball = n;

  for (guint k = 0; k < n; k++)
    if (g_str_equal (names[k], "rolling-ball"))
      ball = k;
  g_assert_cmpuint (ball, <, n);

  g_setenv ("LANGUAGE", "en", TRUE);
  g_auto (GStrv) en = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, 0);
  g_assert_cmpstr (en[ball], ==, "Rolling ball on a rotating table");

  g_setenv ("LANGUAGE", "es", TRUE);
  g_auto (GStrv) es = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, 0);
  g_assert_cmpstr (es[ball], ==, "Bola que rueda sobre una mesa giratoria");
  assert_as_loaded (names, es);
  g_auto (GStrv) es2 = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n);
  g_assert_cmpstr (es2[ball], ==, es[ball]);

  g_setenv ("LANGUAGE", "en", TRUE);
  g_auto (GStrv) en2 = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n);
  g_assert_cmpstr (en2[ball], ==, en[ball]);
  assert_as_loaded (names, en2);

  if (saved)
    g_setenv ("LANGUAGE", saved, TRUE);
  else
    g_unsetenv ("LANGUAGE");
}

/* An edited model (same length, so only its text tells), a broken one and a new one are
 * loaded, not taken from the cache. */
static void
test_stale (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  setup_dirs ("stale", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  guint n = g_strv_length (names), cached = 0;
  g_auto (GStrv) first = cml_model_builtin_titles ((const char *const *) names, NULL);

  /* martinet's title, one letter changed */
  g_autofree char *martinet = g_build_filename (models, "martinet.cml", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (martinet, &text, NULL, NULL));
  char *at = strstr (text, "\ntitle = Martinet sub-Riemannian");
  g_assert_nonnull (at);
  at[strlen ("\ntitle = ")] = 'N';
  g_assert_true (g_file_set_contents (martinet, text, -1, NULL));
  /* rigid-body broken: its [model] group loses its title */
  g_autofree char *rigid = g_build_filename (models, "rigid-body.cml", NULL);
  g_autofree char *rtext = NULL;
  g_assert_true (g_file_get_contents (rigid, &rtext, NULL, NULL));
  char *title = strstr (rtext, "\ntitle");
  g_assert_nonnull (title);
  memcpy (title + 1, "tItle", 5);
  g_assert_true (g_file_set_contents (rigid, rtext, -1, NULL));

  g_auto (GStrv) second = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n - 2);
  assert_as_loaded (names, second);
  for (guint k = 0; k < n; k++)
    if (g_str_equal (names[k], "martinet"))
      g_assert_cmpstr (second[k], ==, "Nartinet sub-Riemannian geodesics");
    else if (g_str_equal (names[k], "rigid-body"))
      g_assert_nonnull (strstr (second[k], "rigid-body.cml:"));
    else
      g_assert_cmpstr (second[k], ==, first[k]);
  /* the broken model is never recorded: loaded (and its error shown) every time */
  g_auto (GStrv) third = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n - 1);
  assert_as_loaded (names, third);
}

/* A cache file that does not match its digest, is truncated or is of another format is
 * ignored whole, and written anew. */
static void
test_damaged (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  setup_dirs ("damaged", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  guint n = g_strv_length (names), cached = 0;
  g_auto (GStrv) first = cml_model_builtin_titles ((const char *const *) names, NULL);
  g_autofree char *file = the_cache_file (cache);
  g_autofree char *good = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (file, &good, &len, NULL));
  for (int damage = 0; damage < 4; damage++)
    {
      g_autofree char *bad = g_strdup (good);
      gsize bad_len = len;
      if (damage == 0)
        {
          /* a title changed, the digest left: "Martinet" → "Mxrtinet" */
          char *at = strstr (bad, "Martinet");
          g_assert_nonnull (at);
          at[1] = 'x';
        }
      else if (damage == 1)
        bad_len = len / 2; /* truncated */
      else if (damage == 2)
        bad[0] = 'X'; /* another format */
      else
        bad_len = 0; /* empty */
      g_assert_true (g_file_set_contents (file, bad, bad_len, NULL));
      g_auto (GStrv) titles = cml_model_builtin_titles ((const char *const *) names, &cached);
      g_assert_cmpuint (cached, ==, 0);
      assert_as_loaded (names, titles);
      /* written anew: whole again */
      g_auto (GStrv) again = cml_model_builtin_titles ((const char *const *) names, &cached);
      g_assert_cmpuint (cached, ==, n);
      assert_as_loaded (names, again);
    }
}

static guint64
dir_bytes (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint64 total = 0;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      GStatBuf st;
      if (g_stat (p, &st) == 0)
        total += st.st_size;
    }
  return total;
}

/* Many models directories: the least recently used cache files go. */
static void
test_size_limit (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  setup_dirs ("limit", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_auto (GStrv) once = cml_model_builtin_titles ((const char *const *) names, NULL);
  g_autofree char *file = the_cache_file (cache);
  GStatBuf st;
  g_assert_cmpint (g_stat (file, &st), ==, 0);
  /* room for three directories' files */
  g_autofree char *limit = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) (3 * st.st_size + st.st_size / 2));
  g_setenv ("CMLAB_TITLES_CACHE_LIMIT", limit, TRUE);

  for (int i = 0; i < 8; i++)
    {
      g_autofree char *sub = g_strdup_printf ("limit-%d", i);
      g_autofree char *m = NULL, *c = NULL;
      setup_dirs (sub, &m, &c);
      g_setenv ("CMLAB_TITLES_CACHE", cache, TRUE);
      g_auto (GStrv) n2 = cml_model_list_builtin ();
      g_auto (GStrv) titles = cml_model_builtin_titles ((const char *const *) n2, NULL);
      assert_as_loaded (n2, titles);
      g_assert_cmpuint (dir_bytes (cache), <=, g_ascii_strtoull (limit, NULL, 10));
    }
  g_unsetenv ("CMLAB_TITLES_CACHE_LIMIT");
}

/* Processes writing the same cache file at once: every one gets the right titles, and the
 * file left is whole (the next listing takes every title from it). */
static void
test_concurrent_writers (void)
{
  g_autofree char *models = NULL, *cache = NULL;
  setup_dirs ("concurrent", &models, &cache);
  g_auto (GStrv) names = cml_model_list_builtin ();
  guint n = g_strv_length (names), cached = 0;
  const int n_children = 4, rounds = 15;
  g_autofree char *file = NULL;
  GPid pids[4];

  /* the name of the file they fight over */
  {
    g_auto (GStrv) t = cml_model_builtin_titles ((const char *const *) names, NULL);
    file = the_cache_file (cache);
  }
  for (int c = 0; c < n_children; c++)
    {
      pid_t pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          int bad = 0;
          for (int r = 0; r < rounds; r++)
            {
              /* dropped, so that each listing writes it again */
              g_unlink (file);
              g_auto (GStrv) titles = cml_model_builtin_titles ((const char *const *) names, NULL);
              for (guint k = 0; k < n; k++)
                {
                  g_autoptr (CmlModel) model = cml_model_load (names[k], NULL);
                  bad += model == NULL || !g_str_equal (titles[k], model->title);
                }
            }
          _exit (bad ? 1 : 0);
        }
      pids[c] = pid;
    }
  for (int c = 0; c < n_children; c++)
    {
      int status = 0;
      g_assert_cmpint (waitpid (pids[c], &status, 0), ==, pids[c]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    }
  /* whatever was left is whole (or absent, if the last one dropped it) */
  gboolean left = g_file_test (file, G_FILE_TEST_EXISTS);
  g_auto (GStrv) titles = cml_model_builtin_titles ((const char *const *) names, &cached);
  assert_as_loaded (names, titles);
  g_assert_cmpuint (cached, ==, left ? n : 0);
  g_auto (GStrv) again = cml_model_builtin_titles ((const char *const *) names, &cached);
  g_assert_cmpuint (cached, ==, n);
  /* no temporaries left behind */
  g_autoptr (GDir) d = g_dir_open (cache, 0, NULL);
  const char *name;
  while ((name = g_dir_read_name (d)))
    g_assert_true (g_str_has_suffix (name, ".titles"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  source_models = g_strdup (cml_model_builtin_dir ());
  tmpdir = g_dir_make_tmp ("cmlab-titles-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_func ("/model-titles/same-as-loading", test_same_as_loading);
  g_test_add_func ("/model-titles/stale", test_stale);
  g_test_add_func ("/model-titles/language", test_language);
  g_test_add_func ("/model-titles/damaged", test_damaged);
  g_test_add_func ("/model-titles/size-limit", test_size_limit);
  g_test_add_func ("/model-titles/concurrent-writers", test_concurrent_writers);
  int status = g_test_run ();
  test_tmp_remove (tmpdir);
  return status;
}
