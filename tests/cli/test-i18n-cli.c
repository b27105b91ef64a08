/* test-i18n-cli.c — cmlab-cli in another language: its --help and its messages for people
 * translated (po/es.po, from the build tree's catalogue), its files unchanged — the CSV
 * written under LANGUAGE=es, and under a Spanish locale with a decimal comma, is the one
 * written under C.  Without the compiled catalogue (a build where gettext's msgfmt was
 * missing: meson then builds no translations) the tests of Spanish text are skipped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "../cli/cli-util.h"

/* The Spanish catalogue the built cmlab-cli reads (the build tree's po/, two levels above
 * the program: cml_cli_init_i18n) is there; if not, the test is skipped with the reason. */
static gboolean
have_catalogue (void)
{
  g_autofree char *dir = g_path_get_dirname (cli_path ());
  g_autofree char *mo = g_build_filename (dir, "..", "..", "po", "es", "LC_MESSAGES", "cmlab.mo", NULL);

  if (g_file_test (mo, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  g_test_skip ("the Spanish catalogue was not built (gettext's msgfmt was missing at setup; "
               "Debian: gettext, then meson setup again)");
  return FALSE;
}

static const char *const csv_args[] = { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.25", NULL };

/* Our environment with LC_ALL=LOCALE and LANGUAGE=LANGUAGE (NULL: unset), LOCPATH=LOCPATH
 * (NULL: unset). */
static char **
env_with (const char *locale, const char *language, const char *locpath)
{
  char **env = g_get_environ ();

  env = g_environ_unsetenv (env, "LANG");
  env = g_environ_unsetenv (env, "LC_MESSAGES");
  env = g_environ_unsetenv (env, "LC_NUMERIC");
  env = g_environ_setenv (env, "LC_ALL", locale, TRUE);
  env = language ? g_environ_setenv (env, "LANGUAGE", language, TRUE) : g_environ_unsetenv (env, "LANGUAGE");
  env = locpath ? g_environ_setenv (env, "LOCPATH", locpath, TRUE) : g_environ_unsetenv (env, "LOCPATH");
  return env;
}

/* --help, a usage error and a run's note come out in Spanish; English under C. */
static void
test_messages_in_spanish (void)
{
  g_auto (GStrv) es = env_with ("C.UTF-8", "es", NULL);
  g_auto (GStrv) c = env_with ("C", NULL, NULL);

  if (!have_catalogue ())
    return;
  {
    g_autofree char *out = NULL;
    const char *args[] = { "--help", NULL };
    g_assert_cmpint (cli_run_argv (es, 0, &out, NULL, args), ==, 0);
    g_assert_true (g_str_has_prefix (out, "Uso:\n"));
    g_assert_nonnull (strstr (out, "cmlab-cli simulate MODELO"));
    g_assert_nonnull (strstr (out, "Integradores: auto (el predeterminado"));
    /* option names stay as they are */
    g_assert_nonnull (strstr (out, "--t-end T [--dt-out H]"));
  }
  {
    g_autofree char *out = NULL;
    const char *args[] = { "--help", NULL };
    g_assert_cmpint (cli_run_argv (c, 0, &out, NULL, args), ==, 0);
    g_assert_true (g_str_has_prefix (out, "Usage:\n"));
  }
  {
    g_autofree char *err = NULL;
    const char *args[] = { "simulate", "rolling-ball", "--dt-out", "1", NULL };
    g_assert_cmpint (cli_run_argv (es, 0, NULL, &err, args), ==, 2);
    g_assert_nonnull (strstr (err, "cmlab-cli: simulate necesita --t-end T"));
    /* the pointer to the command's help, not the usage text */
    g_assert_true (g_str_has_suffix (err, "\nPruebe «cmlab-cli simulate --help».\n"));
  }
  {
    g_autofree char *err = NULL;
    const char *args[] = { "frobnicate", NULL };
    g_assert_cmpint (cli_run_argv (es, 0, NULL, &err, args), ==, 2);
    g_assert_nonnull (strstr (err, "orden desconocida «frobnicate»"));
  }
  {
    g_autofree char *out = NULL;
    const char *args[] = { "info", "rolling-ball", NULL };
    g_assert_cmpint (cli_run_argv (es, 0, &out, NULL, args), ==, 0);
    g_assert_nonnull (strstr (out, "\nParámetros:\n"));
    g_assert_nonnull (strstr (out, "\nColumnas que escribe simulate: t,"));
  }
}

/* LANGUAGE=es with no locale set at all (LANG, LC_ALL unset: the C locale, where gettext
 * alone would ignore LANGUAGE): Spanish, as GNU programs do. */
static void
test_language_without_locale (void)
{
  g_auto (GStrv) env = g_get_environ ();
  g_autofree char *out = NULL;
  const char *args[] = { "--help", NULL };
  const char *const unset[] = { "LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE", "LC_NUMERIC", "LOCPATH" };

  if (!have_catalogue ())
    return;
  for (guint k = 0; k < G_N_ELEMENTS (unset); k++)
    env = g_environ_unsetenv (env, unset[k]);
  env = g_environ_setenv (env, "LANGUAGE", "es", TRUE);
  g_assert_cmpint (cli_run_argv (env, 0, &out, NULL, args), ==, 0);
  g_assert_true (g_str_has_prefix (out, "Uso:\n"));
}

/* The CSV (its '#' lines too) is the same in Spanish as in C. */
static void
test_csv_unchanged (void)
{
  g_auto (GStrv) es = env_with ("C.UTF-8", "es", NULL);
  g_auto (GStrv) c = env_with ("C", NULL, NULL);
  g_autofree char *c_out = NULL, *es_out = NULL;

  g_assert_cmpint (cli_run_argv (c, 0, &c_out, NULL, csv_args), ==, 0);
  g_assert_cmpint (cli_run_argv (es, 0, &es_out, NULL, csv_args), ==, 0);
  g_assert_true (g_str_has_prefix (c_out, "# "));
  g_assert_cmpstr (es_out, ==, c_out);
}

/* Under es_ES.UTF-8 (a decimal comma), compiled into a private directory with localedef:
 * messages in Spanish with the locale's numbers, the CSV still the C one. */
static void
test_spanish_locale (void)
{
  g_autofree char *localedef = g_find_program_in_path ("localedef");
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *target = g_build_filename (dir, "es_ES.UTF-8", NULL);
  int status = 0;

  if (!have_catalogue ())
    {
      cli_remove_dir (dir);
      return;
    }
  if (localedef == NULL)
    {
      g_test_skip ("localedef is not installed (Debian: libc-bin, locales)");
      cli_remove_dir (dir);
      return;
    }
  const char *argv[] = { localedef, "-i", "es_ES", "-f", "UTF-8", target, NULL };
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                     NULL, NULL, NULL, &status, NULL)
      || !g_file_test (target, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("localedef could not make es_ES.UTF-8 (Debian: locales)");
      cli_remove_dir (dir);
      return;
    }

  g_auto (GStrv) es = env_with ("es_ES.UTF-8", "es", dir);
  g_auto (GStrv) c = env_with ("C", NULL, NULL);
  g_autofree char *c_out = NULL, *es_out = NULL, *err = NULL;

  g_assert_cmpint (cli_run_argv (c, 0, &c_out, NULL, csv_args), ==, 0);
  g_assert_cmpint (cli_run_argv (es, 0, &es_out, NULL, csv_args), ==, 0);
  g_assert_cmpstr (es_out, ==, c_out);

  /* a message for people: Spanish words, the locale's decimal comma */
  const char *bad[] = { "simulate", "rolling-ball", "--t-end", "-1.5", "--dt-out", "0.1", NULL };
  g_assert_cmpint (cli_run_argv (es, 0, NULL, &err, bad), ==, 2);
  g_assert_nonnull (strstr (err, "--t-end necesita un número >= 0"));
  g_assert_nonnull (strstr (err, "no -1,5"));
  cli_remove_dir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/i18n/messages-in-spanish", test_messages_in_spanish);
  g_test_add_func ("/cli/i18n/language-without-locale", test_language_without_locale);
  g_test_add_func ("/cli/i18n/csv-unchanged", test_csv_unchanged);
  g_test_add_func ("/cli/i18n/spanish-locale", test_spanish_locale);
  return g_test_run ();
}
