/* test-hostile-inputs-cli.c — files that are not what cmlab-cli expects end at once with a
 * message, never hang or fill the memory: a session, a model or a sweep file that is a
 * pipe (FIFO) with no writer, /dev/zero or /dev/urandom; a session or a sweep file larger
 * than its limit; a sweep file whose first line varies nothing, has a NUL byte or holds a
 * subnormal number; a session whose tolerance the options would refuse; an output that is
 * the model itself, a full device or a pipe.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every run has a time limit (cli_run_argv_timed: a hang is killed and fails its case).
 */
#define G_LOG_DOMAIN "test-hostile-inputs-cli"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-util.h"
#include "cml-session.h"

/* seconds: a refusal takes milliseconds; a busy machine gets room */
#define LIMIT 60

#define SMALL_MODEL                         \
  "[model]\n"                               \
  "name = small\n"                          \
  "title = A small model\n"                 \
  "\n"                                      \
  "[parameters]\n"                          \
  "k = 1 | 0 .. 2\n"                        \
  "\n"                                      \
  "[algebroid]\n"                           \
  "base = x\n"                              \
  "fibre = u\n"                             \
  "\n"                                      \
  "[anchor]\n"                              \
  "e1 = x: 1\n"                             \
  "\n"                                      \
  "[dynamics]\n"                            \
  "lagrangian = u^2/2 - k*x^2/2\n"          \
  "\n"                                      \
  "[initial]\n"                             \
  "x = 1\n"

/* Runs the arguments listed with the time limit (cli_run_timed). */
#define run(out, err, ...) cli_run_timed (LIMIT, out, err, __VA_ARGS__)

static void
assert_contains (const char *text, const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” not in: %s", part, text);
}

static char *
make_fifo (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  return path;
}

/* A session as the window saves it, of SMALL_MODEL, with INTEGRATOR_EXTRA inserted after
 * [integrator] and VIEW appended as [view]. */
static char *
write_session (const char *dir, const char *name, const char *integrator_extra, const char *view)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *data = NULL;

  g_key_file_set_string (kf, "session", "format", CML_SESSION_FORMAT);
  g_key_file_set_string (kf, "session", "model", SMALL_MODEL);
  g_key_file_set_string (kf, "integrator", "kind", "rk8pd");
  data = g_key_file_to_data (kf, NULL, NULL);
  g_autoptr (GString) s = g_string_new (data);
  if (integrator_extra)
    {
      char *at = strstr (s->str, "[integrator]\n");
      g_string_insert (s, at - s->str + strlen ("[integrator]\n"), integrator_extra);
    }
  if (view)
    g_string_append_printf (s, "\n[view]\n%s", view);
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return path;
}

/* --session /dev/zero, /dev/urandom and a FIFO: refused at once */
static void
test_session_not_a_file (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *fifo = make_fifo (dir, "run.cmlsession");
  const char *devices[] = { "/dev/zero", "/dev/urandom" };

  for (guint k = 0; k < G_N_ELEMENTS (devices); k++)
    {
      g_autofree char *err = NULL;
      if (!g_file_test (devices[k], G_FILE_TEST_EXISTS))
        continue;
      g_assert_cmpint (run (NULL, &err, "simulate", "--session", devices[k], "--t-end", "1", NULL), ==, 2);
      assert_contains (err, devices[k]);
      assert_contains (err, "a device, not a file");
    }
  g_autofree char *err = NULL;
  g_assert_cmpint (run (NULL, &err, "simulate", "--session", fifo, "--t-end", "1", NULL), ==, 2);
  assert_contains (err, fifo);
  assert_contains (err, "a pipe (FIFO), not a file");
  cli_remove_dir (dir);
}

/* a model that is a FIFO, named as a file */
static void
test_model_fifo (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *fifo = make_fifo (dir, "pipe.cml");
  g_autofree char *err = NULL;

  g_assert_cmpint (run (NULL, &err, "simulate", fifo, "--t-end", "1", NULL), ==, 2);
  assert_contains (err, "a pipe (FIFO), not a file");
  cli_remove_dir (dir);
}

/* a models folder ($CMLAB_MODELS_DIR) holding a FIFO and a link to /dev/zero among its
 * models: listed (their titles say what is wrong), never read */
static void
test_models_folder (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *fifo = make_fifo (dir, "pipe.cml");
  g_autofree char *small = cli_write_file (dir, "small.cml", SMALL_MODEL);
  g_autofree char *zero = g_build_filename (dir, "zero.cml", NULL);
  g_autofree char *saved = g_strdup (g_getenv ("CMLAB_MODELS_DIR"));
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);

  g_setenv ("CMLAB_MODELS_DIR", dir, TRUE);
  g_autofree char *out = NULL, *err = NULL, *names = NULL, *err2 = NULL, *err3 = NULL;
  g_assert_cmpint (run (&out, &err, "list", "models", NULL), ==, 0);
  g_test_message ("%s", out);
  assert_contains (out, "A small model");
  assert_contains (out, "a pipe (FIFO), not a file");
  assert_contains (out, "a device, not a file");
  g_assert_cmpint (run (&names, &err2, "list", "model-names", NULL), ==, 0);
  g_assert_cmpstr (names, ==, "pipe\nsmall\nzero\n");
  g_assert_cmpint (run (NULL, &err3, "simulate", "pipe", "--t-end", "1", NULL), ==, 2);
  assert_contains (err3, "a pipe (FIFO), not a file");
  if (saved)
    g_setenv ("CMLAB_MODELS_DIR", saved, TRUE);
  else
    g_unsetenv ("CMLAB_MODELS_DIR");
  cli_remove_dir (dir);
}

/* a session of 12 MB (a [view] entry that long): refused before it is parsed */
static void
test_session_too_large (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autoptr (GString) view = g_string_new ("time-plot-y = x");
  while (view->len < 12 * 1000 * 1000)
    g_string_append (view, ",x");
  g_string_append_c (view, '\n');
  g_autofree char *path = write_session (dir, "large.cmlsession", NULL, view->str);
  g_autofree char *err = NULL;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_cmpint (run (NULL, &err, "simulate", "--session", path, "--t-end", "1", NULL), ==, 2);
  g_test_message ("refused in %.2f s: %s", (g_get_monotonic_time () - t0) / 1e6, err);
  assert_contains (err, path);
  assert_contains (err, "the limit for a session file");
  cli_remove_dir (dir);
}

/* rtol = 2 in a session: refused as --rtol 2 is, with its line */
static void
test_session_rtol (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = write_session (dir, "rtol.cmlsession", "rtol = 2\n", NULL);
  g_autofree char *text = NULL, *err = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  int line = 1;
  for (const char *c = text; c < strstr (text, "rtol = 2"); c++)
    line += *c == '\n';
  g_autofree char *where = g_strdup_printf ("%s:%d:", path, line);
  g_assert_cmpint (run (NULL, &err, "simulate", "--session", path, "--t-end", "1", NULL), ==, 2);
  assert_contains (err, where);
  assert_contains (err, "rtol");
  assert_contains (err, "between 0 and 1");

  /* and the same session with rtol = 1e-9 runs */
  g_autofree char *ok = write_session (dir, "ok.cmlsession", "rtol = 1e-9\n", NULL);
  g_autofree char *out2 = NULL, *err2 = NULL;
  g_assert_cmpint (run (&out2, &err2, "simulate", "--session", ok, "--t-end", "0.1", NULL), ==, 0);
  cli_remove_dir (dir);
}

/* simulate M.cml -o M.cml (or another name of the same file): the model is kept */
static void
test_output_is_the_model (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "m.cml", SMALL_MODEL);
  g_autofree char *other = g_build_filename (dir, "other.cml", NULL);
  g_autofree char *dotted = g_build_filename (dir, ".", "m.cml", NULL);
  g_assert_cmpint (link (model, other), ==, 0);
  const char *outputs[] = { model, dotted, other };

  for (guint k = 0; k < G_N_ELEMENTS (outputs); k++)
    {
      g_autofree char *out = NULL, *err = NULL, *text = NULL;
      g_assert_cmpint (run (&out, &err, "simulate", model, "--t-end", "0.1", "-o", outputs[k], NULL), ==, 2);
      assert_contains (err, "is the model file");
      g_assert_true (g_file_get_contents (model, &text, NULL, NULL));
      g_assert_cmpstr (text, ==, SMALL_MODEL);
    }
  cli_remove_dir (dir);
}

/* -o a pipe that exists (here standard output's, /proc/self/fd/1): written to */
static void
test_output_pipe (void)
{
  g_autofree char *out = NULL, *err = NULL;

  if (!g_file_test ("/proc/self/fd/1", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /proc/self/fd");
      return;
    }
  g_assert_cmpint (run (&out, &err, "simulate", "martinet", "--t-end", "0.01", "--dt-out", "0.005", "-o",
                        "/proc/self/fd/1", NULL), ==, 0);
  g_test_message ("%s", err);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  /* the header (comment lines, then the column names) and three rows */
  g_assert_nonnull (strstr (out, "\nt,"));
  g_assert_true (g_str_has_prefix (lines[g_strv_length (lines) - 4], "0,"));
}

/* sweep -o /dev/full says what simulate says */
static void
test_sweep_full_device (void)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      return;
    }
  g_autofree char *err = NULL, *err2 = NULL;
  g_assert_cmpint (run (NULL, &err, "simulate", "martinet", "--t-end", "0.1", "-o", "/dev/full", NULL), ==, 2);
  assert_contains (err, g_strerror (ENOSPC));
  g_assert_cmpint (run (NULL, &err2, "sweep", "rolling-ball", "--t-end", "0.1", "--vary", "m=1:2:3", "--measure", "x",
                        "-o", "/dev/full", NULL), ==, 2);
  assert_contains (err2, g_strerror (ENOSPC));
}

#ifdef CMLAB_HAVE_RENDER
/* plot of sweep files: a FIFO as the file or as its model, an empty list of varied
 * parameters, a NUL byte, a subnormal number */
static void
test_plot_sweep_hostile (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *fifo_model = make_fifo (dir, "model.cml");
  g_autofree char *fifo_csv = make_fifo (dir, "sweep.csv");

  /* the file itself a FIFO */
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run (NULL, &err, "plot", fifo_csv, "-o", png, NULL), ==, 2);
    assert_contains (err, "a pipe (FIFO), not a file");
  }
  /* its model a FIFO: drawn without units */
  {
    g_autofree char *head = g_strdup_printf ("# cmlab sweep: model %s; vary k\nk,x\n0,1\n1,2\n", fifo_model);
    g_autofree char *path = cli_write_file (dir, "fifo-model.csv", head);
    g_autofree char *err = NULL;
    g_assert_cmpint (run (NULL, &err, "plot", path, "-o", png, NULL), ==, 0);
    g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
    g_unlink (png);
  }
  /* nothing varied: with a model that exists and one that does not */
  const char *empty[] = {
    "# cmlab sweep: model rolling-ball; vary \nOmega,x\n0,1\n1,2\n",
    "# cmlab sweep: model nowhere; vary \nOmega,x\n0,1\n1,2\n",
    "# cmlab sweep: model rolling-ball; vary   \nOmega,x\n0,1\n1,2\n",
  };
  for (guint k = 0; k < G_N_ELEMENTS (empty); k++)
    {
      g_autofree char *path = cli_write_file (dir, "empty.csv", empty[k]);
      g_autofree char *err = NULL, *where = g_strdup_printf ("%s:1:", path);
      g_assert_cmpint (run (NULL, &err, "plot", path, "-o", png, NULL), ==, 2);
      assert_contains (err, where);
      assert_contains (err, "varies no parameter");
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    }
  /* a NUL byte on line 4: refused, not the rows before it plotted */
  {
    static const char text[] = "# cmlab sweep: model rolling-ball; vary Omega\nOmega,x\n0,1\n1,\0002\n2,3\n";
    g_autofree char *path = g_build_filename (dir, "nul.csv", NULL);
    g_assert_true (g_file_set_contents (path, text, sizeof text - 1, NULL));
    g_autofree char *err = NULL;
    g_assert_cmpint (run (NULL, &err, "plot", path, "-o", png, NULL), ==, 2);
    assert_contains (err, "line 4 has a NUL byte");
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
  }
  /* what sweep writes for the smallest subnormal, and an underflow to it */
  {
    g_autofree char *path = cli_write_file (dir, "subnormal.csv", "# cmlab sweep: model rolling-ball; vary Omega\n"
                                                                  "Omega,x\n0,5e-324\n1,2.2250738585072009e-308\n"
                                                                  "2,1\n");
    g_autofree char *err = NULL;
    g_assert_cmpint (run (NULL, &err, "plot", path, "-o", png, NULL), ==, 0);
    g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
    g_unlink (png);
  }
  cli_remove_dir (dir);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/hostile/session-not-a-file", test_session_not_a_file);
  g_test_add_func ("/cli/hostile/model-fifo", test_model_fifo);
  g_test_add_func ("/cli/hostile/models-folder", test_models_folder);
  g_test_add_func ("/cli/hostile/session-too-large", test_session_too_large);
  g_test_add_func ("/cli/hostile/session-rtol", test_session_rtol);
  g_test_add_func ("/cli/hostile/output-is-the-model", test_output_is_the_model);
  g_test_add_func ("/cli/hostile/output-pipe", test_output_pipe);
  g_test_add_func ("/cli/hostile/sweep-full-device", test_sweep_full_device);
#ifdef CMLAB_HAVE_RENDER
  g_test_add_func ("/cli/hostile/plot-sweep", test_plot_sweep_hostile);
#endif
  return g_test_run ();
}
