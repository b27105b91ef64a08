/* test-session-cli.c — `cmlab-cli … --session FILE`: a saved session is the run, exactly
 * as the same model, parameters, initial state and integrator given as options; options
 * given as well override the session's; a session that cannot be read is named with its
 * line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-session-cli"

#include <string.h>

#include "cli-util.h"
#include "cml-session.h"

/* A session as the window saves it: rolling-ball with two parameters and two initial
 * values changed, rkf45 with tolerances of its own.  *SIM_OUT (may be NULL) gets the
 * simulation it was saved from, at t = 0. */
static char *
save_session (const char *dir, CmlSimulation **sim_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  CmlIntegratorOptions opt = cml_integrator_options_default ();
  double x = 0.3, v = 0.41;
  char *path = g_build_filename (dir, "run.cmlsession", NULL);

  /* values that a decimal print of fewer than 17 digits would not give back */
  g_assert_true (cml_simulation_set_param (sim, "Omega", 0.1 + 0.27, &error));
  g_assert_true (cml_simulation_set_param (sim, "k2", 0.45 / 3.0 * 2.0, &error));
  g_hash_table_insert (given, g_strdup ("x"), g_memdup2 (&x, sizeof x));
  g_hash_table_insert (given, g_strdup ("v"), g_memdup2 (&v, sizeof v));
  opt.kind = CML_INTEGRATOR_RKF45;
  opt.rtol = 3e-9;
  opt.atol = 1e-11;
  g_assert_true (cml_simulation_set_integrator (sim, &opt, &error));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);

  g_autoptr (CmlSession) s = cml_session_new (sim, cml_simulation_get_state (sim), NULL);
  g_assert_true (cml_session_save (s, path, &error));
  g_assert_no_error (error);
  if (sim_out)
    *sim_out = g_steal_pointer (&sim);
  return path;
}

static char *
full (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

/* The command line that says what the session says: the model by name, every parameter
 * (--set) and every state component (--init) at full precision, the integrator and its
 * tolerances; then EXTRA (NULL-terminated). */
static GPtrArray *
equivalent_args (CmlSimulation *sim, const char *const *extra)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  const CmlIntegratorOptions *io = cml_simulation_get_integrator (sim);
  const double *z = cml_simulation_get_state (sim);
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (args, g_strdup ("simulate"));
  g_ptr_array_add (args, g_strdup (model->name));
  for (guint k = 0; k < model->params->len; k++)
    {
      const char *name = ((CmlParam *) model->params->pdata[k])->name;
      g_autofree char *v = full (cml_simulation_get_param (sim, name));
      g_ptr_array_add (args, g_strdup ("--set"));
      g_ptr_array_add (args, g_strdup_printf ("%s=%s", name, v));
    }
  for (guint i = 0; i < cml_system_dim (sys); i++)
    {
      g_autofree char *v = full (z[i]);
      g_ptr_array_add (args, g_strdup ("--init"));
      g_ptr_array_add (args, g_strdup_printf ("%s=%s", cml_system_state_name (sys, i), v));
    }
  g_ptr_array_add (args, g_strdup ("--integrator"));
  g_ptr_array_add (args, g_strdup (cml_integrator_kind_to_string (io->kind)));
  g_ptr_array_add (args, g_strdup ("--rtol"));
  g_ptr_array_add (args, full (io->rtol));
  g_ptr_array_add (args, g_strdup ("--atol"));
  g_ptr_array_add (args, full (io->atol));
  for (guint k = 0; extra && extra[k]; k++)
    g_ptr_array_add (args, g_strdup (extra[k]));
  g_ptr_array_add (args, NULL);
  return args;
}

/* The session gives the same CSV, bit for bit, as the command line that spells it out;
 * and the same with an option that overrides one of its values. */
static void
test_same_csv (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autoptr (CmlSimulation) sim = NULL;
  g_autofree char *session = save_session (dir, &sim);
  g_autofree char *a = NULL, *b = NULL, *err = NULL;

  g_assert_cmpint (cli_run (&a, &err, "simulate", "--session", session, "--t-end", "3", "--dt-out", "0.1", NULL),
                   ==, 0);
  g_test_message ("%s", err);
  {
    const char *extra[] = { "--t-end", "3", "--dt-out", "0.1", NULL };
    g_autoptr (GPtrArray) args = equivalent_args (sim, extra);
    g_assert_cmpint (cli_run_argv (NULL, 0, &b, NULL, (const char *const *) args->pdata), ==, 0);
  }
  g_assert_cmpuint (strlen (a), >, 1000);
  g_assert_nonnull (strstr (a, "# integrator: rkf45"));
  g_assert_cmpstr (a, ==, b);
  g_clear_pointer (&a, g_free);
  g_clear_pointer (&b, g_free);

  /* --set and --init over the session's values, as over a model's */
  g_assert_cmpint (cli_run (&a, NULL, "simulate", "--session", session, "--set", "Omega=0.5", "--init", "y=0.25",
                            "--rtol", "1e-10", "--t-end", "2", "--dt-out", "0.25", NULL), ==, 0);
  {
    const char *extra[] = { "--set", "Omega=0.5", "--init", "y=0.25", "--rtol", "1e-10", "--t-end", "2",
                            "--dt-out", "0.25", NULL };
    g_autoptr (GPtrArray) args = equivalent_args (sim, extra);
    g_assert_cmpint (cli_run_argv (NULL, 0, &b, NULL, (const char *const *) args->pdata), ==, 0);
  }
  g_assert_nonnull (strstr (a, "Omega = 0.5"));
  g_assert_cmpstr (a, ==, b);

  cli_remove_dir (dir);
}

/* The session works without its model file, and for plot too. */
static void
test_plot (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *session = save_session (dir, NULL);
  g_autofree char *svg = g_build_filename (dir, "ball.svg", NULL);
  g_autofree char *err = NULL;

  g_assert_cmpint (cli_run (NULL, &err, "plot", "--session", session, "--t-end", "2", "--y", "x,y", "-o", svg, NULL),
                   ==, 0);
  g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
  cli_remove_dir (dir);
}

static void
test_errors (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *session = save_session (dir, NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.cmlsession", NULL);
  g_autofree char *text = NULL;

  /* a model besides the session */
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (cli_run (NULL, &err, "simulate", "rolling-ball", "--session", session, "--t-end", "1",
                              "--dt-out", "0.5", NULL), ==, 2);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, "--session"));
    g_assert_nonnull (strstr (err, "rolling-ball"));
  }
  /* no such file: named */
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (cli_run (NULL, &err, "simulate", "--session", missing, "--t-end", "1", "--dt-out", "0.5", NULL),
                     ==, 2);
    g_test_message ("%s", err);
    g_assert_true (g_str_has_prefix (err, "cmlab-cli: "));
    g_assert_nonnull (strstr (err, missing));
    g_assert_nonnull (strstr (err, "not a readable session file"));
  }
  g_assert_true (g_file_get_contents (session, &text, NULL, NULL));
  /* a line that is no key file's: FILE:LINE */
  {
    g_autofree char *bad = g_strconcat ("[session]\nformat = cmlab-session 1\nthis is not a key\n", NULL);
    g_autofree char *path = cli_write_file (dir, "junk.cmlsession", bad);
    g_autofree char *where = g_strdup_printf ("%s:3: ", path);
    g_autofree char *err = NULL;
    g_assert_cmpint (cli_run (NULL, &err, "render", "--session", path, "--t-end", "1", "--fps", "10",
                              "--size", "32x32", "-o", "x.mp4", NULL), ==, 2);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, where));
  }
  /* a value that is not a number, in a session that is otherwise good: its line */
  {
    const char *at = strstr (text, "\nOmega=");
    g_autofree char *head = NULL;
    g_autofree char *bad = NULL;
    g_autofree char *path = NULL, *where = NULL, *err = NULL;
    int line = 2;

    g_assert_nonnull (at);
    head = g_strndup (text, at - text);
    for (const char *c = head; *c; c++)
      line += *c == '\n';
    bad = g_strconcat (head, "\nOmega=fast", strchr (at + 1, '\n'), NULL);
    path = cli_write_file (dir, "nan.cmlsession", bad);
    where = g_strdup_printf ("%s:%d: ", path, line);
    g_assert_cmpint (cli_run (NULL, &err, "plot", "--session", path, "--t-end", "1", "--y", "x", "-o", "x.png", NULL),
                     ==, 2);
    g_test_message ("%s", err);
    g_assert_nonnull (strstr (err, where));
    g_assert_nonnull (strstr (err, "Omega is not a number"));
  }
  cli_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/session/same-csv", test_same_csv);
  g_test_add_func ("/cli/session/plot", test_plot);
  g_test_add_func ("/cli/session/errors", test_errors);
  return g_test_run ();
}
