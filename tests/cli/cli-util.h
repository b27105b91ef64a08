/* cli-util.h — running the built cmlab-cli from a test, and the temporary directories
 * its output goes to.  Shared by the tests of tests/cli, the model tests that run a model
 * through the command line and tests/ui/test-export-dialog.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The executable comes from $CMLAB_CLI (tests/meson.build sets it to the built one).
 * A run can be given a file-size limit (RLIMIT_FSIZE) with SIGXFSZ ignored: every write
 * past the limit then fails with EFBIG, as writes to a full disk fail with ENOSPC — the
 * same code paths, without filling a disk.
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../test-tmp.h"

/* g_test_message () line by line: GLib 2.74 writes a message of several lines (a
 * program's standard error) with "# " before the first only, and the test protocol (TAP)
 * reads the others as garbage. */
static inline void G_GNUC_PRINTF (1, 2)
cli_message (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  va_start (ap, fmt);
  text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (lines[i][0] || lines[i + 1])
      g_test_message ("%s", lines[i]);
}

static inline const char *
cli_path (void)
{
  const char *p = g_getenv ("CMLAB_CLI");
  if (p == NULL || !g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
    g_error ("CMLAB_CLI must name the built cmlab-cli (got “%s”)", p ? p : "(unset)");
  return p;
}

/* Runs in the child between fork and exec (async-signal-safe calls only). */
static inline void
cli_limit_file_size (gpointer data)
{
  struct rlimit lim;
  lim.rlim_cur = lim.rlim_max = (rlim_t) GPOINTER_TO_SIZE (data);
  setrlimit (RLIMIT_FSIZE, &lim);
  signal (SIGXFSZ, SIG_IGN);
}

/* The environment cmlab-cli runs ARGS in: ENVP (NULL: ours), and for `render` leaks not
 * scanned.  `render` draws with Mesa's OpenGL, whose threads are still being torn down
 * when the process exits: LeakSanitizer's end-of-run scan can crash on them ("Tracer
 * caught signal 11") or find their memory.  As for the window's tests (tests/meson.build,
 * ui_env), leaks are not scanned there; memory errors still abort.  NULL when ENVP serves
 * as it is. */
static inline char **
cli_env_for (char **envp, const char *const *args)
{
  if (g_strcmp0 (args[0], "render") == 0)
    {
      const char *asan = envp ? g_environ_getenv (envp, "ASAN_OPTIONS") : g_getenv ("ASAN_OPTIONS");
      g_autofree char *opts = g_strconcat (asan ? asan : "", asan && *asan ? ":" : "", "detect_leaks=0", NULL);

      return g_environ_setenv (envp ? g_strdupv (envp) : g_get_environ (), "ASAN_OPTIONS", opts, TRUE);
    }
  return NULL;
}

/* Runs cmlab-cli with ARGS (NULL-terminated, without the program name) in the
 * environment ENVP (NULL: ours), its files limited to FSIZE bytes (0: no limit).
 * Returns the exit status; standard output and error in *OUT and *ERR (NULL: thrown
 * away, never mixed into the test's own output). */
static inline int
cli_run_argv (char **envp, gsize fsize, char **out, char **err, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GSpawnFlags flags = G_SPAWN_DEFAULT;
  int wait_status = 0;
  g_auto (GStrv) env = cli_env_for (envp, args);

  g_ptr_array_add (argv, (char *) cli_path ());
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  if (out == NULL)
    flags |= G_SPAWN_STDOUT_TO_DEV_NULL;
  if (err == NULL)
    flags |= G_SPAWN_STDERR_TO_DEV_NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env ? env : envp, flags,
                               fsize ? cli_limit_file_size : NULL, GSIZE_TO_POINTER (fsize), out,
                               err, &wait_status, &error));
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status))
    g_error ("%s %s did not exit (wait status 0x%x)%s%s", cli_path (), args[0], wait_status,
             err && *err ? "; its standard error:\n" : "", err && *err ? *err : "");
  return WEXITSTATUS (wait_status);
}

/* cli_run_argv with a time limit of SECONDS: a run still going then is killed, and the
 * status is -1 (a hang fails its own case, not the whole test run by its timeout); a run
 * that dies of a signal fails the test with its standard error. */
static inline int
cli_run_argv_timed (int seconds, char **out, char **err, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  g_auto (GStrv) env = cli_env_for (NULL, args);

  g_ptr_array_add (argv, g_strdup ("timeout"));
  g_ptr_array_add (argv, g_strdup ("-s"));
  g_ptr_array_add (argv, g_strdup ("KILL"));
  g_ptr_array_add (argv, g_strdup_printf ("%d", seconds));
  g_ptr_array_add (argv, g_strdup (cli_path ()));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_SEARCH_PATH, NULL, NULL, out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  /* timeout(1) exits with 128 + 9 when it killed the run, and dies of the signal that
   * ended the run otherwise */
  if (!WIFEXITED (wait_status))
    g_error ("%s %s did not exit (wait status 0x%x)%s%s", cli_path (), args[0], wait_status,
             err && *err ? "; its standard error:\n" : "", err && *err ? *err : "");
  if (WEXITSTATUS (wait_status) == 128 + SIGKILL)
    return -1;
  return WEXITSTATUS (wait_status);
}

/* ẋ = −10⁶ (x − cos t), a stiff linear equation (as a reconstruction variable beside a
 * free particle): explicit methods are held at their stability limit, h ≈ 5·10⁻⁶, while
 * x follows cos t smoothly; msbdf takes steps of 10⁻². */
#define CLI_STIFF_MODEL                              \
  "[model]\n"                                        \
  "name = stiff\n"                                   \
  "title = x' = -1e6 (x - cos t)\n"                  \
  "\n"                                               \
  "[algebroid]\n"                                    \
  "base = q\n"                                       \
  "fibre = u\n"                                      \
  "\n"                                               \
  "[anchor]\n"                                       \
  "e1 = q: 1\n"                                      \
  "\n"                                               \
  "[dynamics]\n"                                     \
  "lagrangian = u^2/2\n"                             \
  "\n"                                               \
  "[reconstruction]\n"                               \
  "x = -1e6*(x - cos(t))\n"                          \
  "\n"                                               \
  "[initial]\n"                                      \
  "u = 1\n"                                          \
  "x = 1\n"

/* The arguments listed after a va_start, up to the NULL, as a NULL-terminated array (the
 * strings are the caller's). */
static inline GPtrArray *
cli_args_va (va_list ap)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *a;

  while ((a = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (char *) a);
  g_ptr_array_add (args, NULL);
  return args;
}

/* The same with the arguments listed, ending in NULL. */
static inline int G_GNUC_NULL_TERMINATED
cli_run (char **out, char **err, ...)
{
  va_list ap;

  va_start (ap, err);
  g_autoptr (GPtrArray) args = cli_args_va (ap);
  va_end (ap);
  return cli_run_argv (NULL, 0, out, err, (const char *const *) args->pdata);
}

/* cli_run_argv_timed with the arguments listed, ending in NULL; a run killed at the limit
 * fails the test. */
static inline int G_GNUC_NULL_TERMINATED
cli_run_timed (int seconds, char **out, char **err, ...)
{
  va_list ap;

  va_start (ap, err);
  g_autoptr (GPtrArray) args = cli_args_va (ap);
  va_end (ap);
  g_autofree char *ignored = NULL;
  int status = cli_run_argv_timed (seconds, out ? out : &ignored, err, (const char *const *) args->pdata);
  if (status == -1)
    g_error ("cmlab-cli %s did not end in %d s", (char *) args->pdata[0], seconds);
  return status;
}

/* ẍ = 6x⁵ from x = 1, ẋ = 1: u² = 2x⁶ − 1, a run that blows up at
 * t* = ∫_1^∞ dx/√(2x⁶ − 1) ≈ 0.38 (test-cli.c checks that time). */
#define CLI_BLOWUP_MODEL                            \
  "[model]\n"                                        \
  "name = blowup\n"                                  \
  "title = x'' = 6 x^5 blows up in finite time\n"    \
  "\n"                                               \
  "[algebroid]\n"                                    \
  "base = x\n"                                       \
  "fibre = u\n"                                      \
  "\n"                                               \
  "[anchor]\n"                                       \
  "e1 = x: 1\n"                                      \
  "\n"                                               \
  "[dynamics]\n"                                     \
  "lagrangian = u^2/2 + x^6\n"                       \
  "\n"                                               \
  "[initial]\n"                                      \
  "x = 1\n"                                          \
  "u = 1\n"

/* Writes TEXT to DIR/NAME; the path. */
static inline char *
cli_write_file (const char *dir, const char *name, const char *text)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
  return path;
}

/* A new empty directory under the system's temporary directory. */
static inline char *
cli_make_temp_dir (void)
{
  return test_tmp_dir_new ("cmlab-test-cli-XXXXXX");
}

/* Entries in DIR (hidden ones too: a left-over temporary file counts). */
static inline guint
cli_count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  g_assert_nonnull (d);
  while (g_dir_read_name (d))
    n++;
  return n;
}

/* Removes DIR and everything under it (test-tmp.h). */
static inline void
cli_remove_dir (const char *dir)
{
  test_tmp_remove (dir);
}
