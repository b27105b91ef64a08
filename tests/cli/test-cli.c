/* test-cli.c — cmlab-cli as a user runs it: exit statuses, messages, CSV/JSON output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The executable comes from $CMLAB_CLI (set by tests/meson.build to the built cmlab-cli);
 * the built-in models from $CMLAB_MODELS_DIR.  Exit statuses (src/cli/cmlab-cli.c): 0 success,
 * 1 a run failed (the message names the time), 2 usage and model errors.
 */
#define G_LOG_DOMAIN "test-cli"

#include "cml-atomic-file.h"
#include "cli-util.h"
#include "physics-util.h"

#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static double
blowup_integrand (double x, void *data)
{
  return 1 / sqrt (2 * pow (x, 6) - 1);
}

static void
test_diverging (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "blowup.cml", CLI_BLOWUP_MODEL);
  g_autofree char *csv = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *out = NULL, *err = NULL;
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc (200);
  gsl_function f = { blowup_integrand, NULL };
  double tstar, abserr;

  g_assert_cmpint (gsl_integration_qagiu (&f, 1, 1e-12, 1e-12, 200, ws, &tstar, &abserr), ==, GSL_SUCCESS);
  gsl_integration_workspace_free (ws);
  assert_close (tstar, 0.38251216271, 1e-9);

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "5", "--dt-out", "0.5", NULL), ==, 1);
  cli_message ("stderr: %s", err);
  const char *at = g_strrstr (err, "t = ");
  g_assert_nonnull (at);
  double t_fail = g_ascii_strtod (at + 4, NULL);
  /* the run got close to the blow-up and not past it by more than its tolerance (rtol
   * 1e-10: the default, the Taylor method here, ends 3e-13 past t*; rk8pd short of it) */
  g_assert_cmpfloat (t_fail, >, tstar - 0.05);
  g_assert_cmpfloat (t_fail, <=, tstar * (1 + 1e-10));
  /* the row at t = 0 was written */
  g_assert_nonnull (strstr (out, "\nt,x,u"));

  /* with -o the failed run leaves nothing behind (no partial file, no temporary) */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "5", "--dt-out", "0.5", "-o", csv, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "t = "));
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);
  cli_remove_dir (dir);
}

/* A syntax error on line 13: the message starts with "PATH:13:". */
static const char malformed_text[] =
  "[model]\n"
  "name = malformed\n"
  "title = A syntax error in the Lagrangian\n"
  "\n"
  "[algebroid]\n"
  "base = x\n"
  "fibre = u\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = u^2/2 +* x\n";

static void
test_malformed (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "malformed.cml", malformed_text);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *prefix = g_strconcat (model, ":13:", NULL);

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "0.5", NULL), ==, 2);
  cli_message ("stderr: %s", err);
  g_assert_true (g_str_has_prefix (err, prefix));
  g_assert_cmpstr (out, ==, "");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "info", model, NULL), ==, 2);
  g_assert_true (g_str_has_prefix (err, prefix));
  cli_remove_dir (dir);
}

/* A model the integrator cannot take: its message alone, at the model's line, exit 2 —
 * no usage text, which is for options that are wrong themselves (a negative --rtol).  The
 * potential's second derivative overflows, so msbdf has no Jacobian; rk8pd runs. */
static void
test_integrator_refused (void)
{
  static const char text[] = "[model]\nname = jac-overflow\ntitle = a potential whose Jacobian overflows\n\n"
                             "[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n"
                             "[dynamics]\nlagrangian = u^2/2 - x^1e200\n\n[initial]\nx = 0.5\nu = 0.25\n";
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "jac-overflow.cml", text);
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *prefix = g_strconcat ("cmlab-cli: ", model, ":13: msbdf needs the exact Jacobian", NULL);

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "1", "--integrator", "msbdf",
                            NULL), ==, 2);
  cli_message ("stderr: %s", err);
  g_assert_true (g_str_has_prefix (err, prefix));
  g_assert_nonnull (strstr (err, "not finite"));
  g_assert_null (strstr (err, "Usage"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "1", NULL), ==, 0);
  /* x = 0.5 + 0.25 t: x^1e200 and its derivative vanish there */
  const char *last = strstr (out, "\n1,");
  g_assert_nonnull (last);
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (last + 3, NULL), 0.75, 1e-12);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "1", "--rtol", "-1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "Try “cmlab-cli simulate --help”."));
  cli_remove_dir (dir);
}

/* A usage error is its message and one line pointing to the command's help — never the
 * whole usage text after it (which buried the message, and came twice after some) — with
 * exit 2 and nothing on standard output; --help prints the usage once, on standard
 * output.  For every command: an option it does not know, and a value it refuses. */
static void
test_usage_short (void)
{
  struct { const char *args[14]; } cases[] = {
    { { "simulate", "rolling-ball", "--t-end", "1", "--bogus" } },
    { { "simulate", "plate-ball", "--t-end", "1", "--integrator", "variational", "--rtol", "1e-8" } },
    { { "simulate", "rolling-ball", "--t-end", "1", "--integrator", "no-such-method" } },
    { { "simulate", "rolling-ball", "--t-end", "1", "--rtol", "-1" } },
    { { "plot", "rolling-ball", "--t-end", "1", "--y", "x", "-o", "p.png", "--bogus" } },
    { { "plot", "rolling-ball", "--t-end", "1", "--y", "x", "-o", "p.png", "--size", "1x1" } },
    { { "render", "rolling-ball", "--t-end", "1", "-o", "v.mp4", "--bogus" } },
    { { "render", "rolling-ball", "--t-end", "1", "-o", "v.mp4", "--fps", "0" } },
    { { "render", "plate-ball", "--t-end", "1", "-o", "v.mp4", "--integrator", "variational", "--rtol", "1e-8" } },
    { { "poincare", "rolling-ball", "--section", "y=0", "--columns", "x,u", "--t-end", "1", "--bogus" } },
    { { "poincare", "rolling-ball", "--section", "y=0", "--columns", "x,u", "--t-end", "1", "--direction", "left" } },
    { { "poincare", "plate-ball", "--section", "x2=0", "--columns", "x1,y1", "--t-end", "1", "--integrator",
        "variational", "--rtol", "1e-8" } },
    { { "sweep", "rolling-ball", "--param", "x" } },
    { { "sweep", "rolling-ball", "--vary", "Omega=0:1:2", "--measure", "x", "--t-end", "1", "--jobs", "0" } },
    { { "sweep", "plate-ball", "--vary", "Omega=0:1:2", "--measure", "x1", "--t-end", "1", "--integrator",
        "variational", "--rtol", "1e-8" } },
    { { "shoot", "rolling-ball", "--t-end", "1", "--target", "x=1", "--bogus" } },
    { { "shoot", "rolling-ball", "--t-end", "-1", "--target", "x=1" } },
    { { "explore", "martinet", "--t-end", "1", "--covectors", "4", "--bogus" } },
    { { "explore", "martinet", "--t-end", "1", "--covectors", "0" } },
    { { "plot", "plate-ball", "--t-end", "1", "--y", "x1", "-o", "p.png", "--integrator", "variational", "--rtol",
        "1e-8" } },
    { { "info", "rolling-ball", "--bogus" } },
    { { "info", "rolling-ball", "--set", "Omega" } },
    { { "list", "bogus" } },
    { { "list", "parameters" } },
    { { "bogus-command" } },
    { { NULL } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *const *a = cases[k].args;
      const char *command = a[0] && strcmp (a[0], "bogus-command") != 0 ? a[0] : NULL;
      g_autofree char *try_help = command ? g_strdup_printf ("Try “cmlab-cli %s --help”.\n", command)
                                          : g_strdup ("Try “cmlab-cli --help”.\n");
      g_autofree char *line = g_strjoinv (" ", (char **) a);
      int st = cli_run_argv (NULL, 0, &out, &err, a);

      cli_message ("cmlab-cli %s: exit %d, stderr:\n%s", line, st, err);
      g_assert_cmpint (st, ==, 2);
      g_assert_cmpstr (out, ==, "");
      g_assert_true (g_str_has_prefix (err, "cmlab-cli"));
      g_assert_true (g_str_has_suffix (err, try_help));
      g_assert_null (strstr (err, "Usage"));
      guint n_lines = 0;
      for (const char *c = err; *c; c++)
        n_lines += *c == '\n';
      g_assert_cmpuint (n_lines, <=, 3);
    }

  const char *commands[] = { "simulate", "plot", "render", "poincare", "sweep", "shoot", "explore", "info", "list" };
  for (guint k = 0; k <= G_N_ELEMENTS (commands); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[] = { k < G_N_ELEMENTS (commands) ? commands[k] : "--help", "--help", NULL };

      if (k == G_N_ELEMENTS (commands))
        args[1] = NULL;
      g_assert_cmpint (cli_run_argv (NULL, 0, &out, &err, args), ==, 0);
      g_assert_cmpstr (err, ==, "");
      g_assert_true (g_str_has_prefix (out, "Usage:"));
      g_assert_null (strstr (out + 1, "Usage:"));
      if (k < G_N_ELEMENTS (commands))
        {
          g_autofree char *self = g_strdup_printf ("cmlab-cli %s ", commands[k]);
          g_assert_nonnull (strstr (out, self));
        }
    }
}

/* The CSV without its leading "#" comment lines (model, parameters, initial state …). */
static char **
csv_lines (const char *out)
{
  g_assert_true (g_str_has_suffix (out, "\n"));
  while (*out == '#')
    {
      const char *nl = strchr (out, '\n');
      g_assert_nonnull (nl);
      out = nl + 1;
    }
  g_autofree char *body = g_strndup (out, strlen (out) - 1);
  return g_strsplit (body, "\n", -1);
}

/* The variational integrators run the heavy top (on the action groupoid of so(3) ⋉ ℝ³,
 * doc/theory.md §14.2) and the rolling ball: the vertical angular momentum I W · Γ and |Γ|²
 * keep their values to rounding. */
static void
test_variational_groupoid (void)
{
  static const char *const models[] = { "heavy-top", "rolling-ball" };
  static const char *const columns[] = { "mz,casimir", "I,Cx" };
  for (guint k = 0; k < G_N_ELEMENTS (models); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_assert_cmpint (cli_run (&out, &err, "simulate", models[k], "--integrator", "variational", "--step", "0.01",
                                "--t-end", "2", "--dt-out", "2", "--columns", columns[k], NULL), ==, 0);
      cli_message ("%s: %s%s", models[k], out, err);
      g_auto (GStrv) lines = csv_lines (out);
      g_assert_cmpuint (g_strv_length (lines), ==, 3); /* header, t = 0, t = 2 */
      g_auto (GStrv) a = g_strsplit (lines[1], ",", -1), b = g_strsplit (lines[2], ",", -1);
      g_assert_cmpuint (g_strv_length (a), ==, 3);
      g_assert_cmpfloat (g_ascii_strtod (b[0], NULL), ==, 2);
      for (guint j = 1; j < 3; j++)
        g_assert_cmpfloat (fabs (g_ascii_strtod (b[j], NULL) - g_ascii_strtod (a[j], NULL)), <=, 1e-13);
    }
}

/* The variational integrators run Martinet (the discrete vakonomic equations, doc/theory.md
 * §14.3) as the issue asks, `simulate martinet --integrator variational --step 0.01
 * --t-end 10`, and variational4: k and a = y1 − k x1²/2, the momenta of the cyclic x3 and
 * x2, keep their values to rounding. */
static void
test_variational_vakonomic (void)
{
  static const char *const kinds[] = { "variational", "variational4" };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_assert_cmpint (cli_run (&out, &err, "simulate", "martinet", "--integrator", kinds[k], "--step", "0.01",
                                "--t-end", "10", "--dt-out", "10", "--columns", "k,a", NULL), ==, 0);
      cli_message ("martinet, %s: %s%s", kinds[k], out, err);
      g_auto (GStrv) lines = csv_lines (out);
      g_assert_cmpuint (g_strv_length (lines), ==, 3); /* header, t = 0, t = 10 */
      g_auto (GStrv) a = g_strsplit (lines[1], ",", -1), b = g_strsplit (lines[2], ",", -1);
      g_assert_cmpuint (g_strv_length (a), ==, 3);
      g_assert_cmpfloat (g_ascii_strtod (b[0], NULL), ==, 10);
      for (guint j = 1; j < 3; j++)
        g_assert_cmpfloat (fabs (g_ascii_strtod (b[j], NULL) - g_ascii_strtod (a[j], NULL)), <=, 1e-13);
    }
}

/* The variational integrators run the plate–ball (the discrete vakonomic equations on the
 * groupoid (ℝ² × ℝ²) × SO(3), doc/theory.md §14.5), on a turning table with spin, and
 * variational4: the Casimir keeps its value to rounding. */
static void
test_variational_plate_ball (void)
{
  static const char *const kinds[] = { "variational", "variational4" };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_assert_cmpint (cli_run (&out, &err, "simulate", "plate-ball", "--integrator", kinds[k], "--step", "0.01",
                                "--t-end", "10", "--dt-out", "10", "--set", "Omega=0.4", "--set", "c=0.3",
                                "--columns", "casimir", NULL), ==, 0);
      cli_message ("plate-ball, %s: %s%s", kinds[k], out, err);
      g_auto (GStrv) lines = csv_lines (out);
      g_assert_cmpuint (g_strv_length (lines), ==, 3); /* header, t = 0, t = 10 */
      g_auto (GStrv) a = g_strsplit (lines[1], ",", -1), b = g_strsplit (lines[2], ",", -1);
      g_assert_cmpuint (g_strv_length (b), ==, 2);
      g_assert_cmpfloat (g_ascii_strtod (b[0], NULL), ==, 10);
      g_assert_cmpfloat (fabs (g_ascii_strtod (b[1], NULL) - g_ascii_strtod (a[1], NULL)), <=, 1e-13);
    }
}

/* Both Capri–Kobayashi models run under the variational integrators (on the final
 * constraint set, doc/theory.md §14.4): particle 1 stays at the origin and the energy and
 * p_r stay at their start (the reduced model's p_r to rounding, its energy within 1e-6). */
static void
test_variational_singular (void)
{
  static const char *const kinds[] = { "variational", "variational4" };
  static const char *const models[] = { "capri-kobayashi", "capri-kobayashi-full" };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        g_autofree char *out = NULL, *err = NULL;
        g_assert_cmpint (cli_run (&out, &err, "simulate", models[m], "--integrator", kinds[k], "--step", "0.01",
                                  "--t-end", "10", "--dt-out", "10", "--columns", "x1,y1,energy,pr", NULL), ==, 0);
        cli_message ("%s, %s: %s%s", models[m], kinds[k], out, err);
        g_auto (GStrv) lines = csv_lines (out);
        g_assert_cmpuint (g_strv_length (lines), ==, 3); /* header, t = 0, t = 10 */
        g_auto (GStrv) a = g_strsplit (lines[1], ",", -1), b = g_strsplit (lines[2], ",", -1);
        g_assert_cmpuint (g_strv_length (b), ==, 5);
        g_assert_cmpfloat (g_ascii_strtod (b[0], NULL), ==, 10);
        g_assert_cmpfloat (g_ascii_strtod (b[1], NULL), ==, 0);
        g_assert_cmpfloat (g_ascii_strtod (b[2], NULL), ==, 0);
        g_assert_cmpfloat (fabs (g_ascii_strtod (b[3], NULL) - g_ascii_strtod (a[3], NULL)), <=, 1e-6);
        g_assert_cmpfloat (fabs (g_ascii_strtod (b[4], NULL) - g_ascii_strtod (a[4], NULL)), <=, 1e-13);
      }
}

/* The comment lines say what produced the data. */
static void
test_csv_comments (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--set", "Omega=0.25", "--init", "v=0.75",
                            "--t-end", "0.5", "--dt-out", "0.5", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "# cmlab rolling-ball: "));
  g_assert_nonnull (strstr (out, "\n# parameters: m = 1, r = 1, k2 = 0.40000000000000002, Omega = 0.25\n"));
  g_assert_nonnull (strstr (out, "v = 0.75"));
  g_assert_nonnull (strstr (out, "# units: t [s], x [m]"));
  g_assert_nonnull (strstr (out, "\nt,x,y,u,v,w1,w2,w3,energy\n"));
}

/* What made the data: the program and its version, the model text's SHA-256 (of the text
 * the model file holds), the integrator and its tolerances — in the CSV's comments and in
 * the JSON's fields. */
static void
test_outputs_name_their_making (void)
{
  g_autofree char *csv = NULL, *json = NULL, *version = NULL, *text = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (cli_run (&version, NULL, "--version", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (version, "cmlab-cli (cmlab) "));
  g_autofree char *number = g_strndup (version + strlen ("cmlab-cli (cmlab) "),
                                       strcspn (version + strlen ("cmlab-cli (cmlab) "), "\n"));
  g_assert_cmpuint (strlen (number), >, 0);
  path = g_build_filename (g_getenv ("CMLAB_MODELS_DIR"), "rolling-ball.cml", NULL);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);

  g_assert_cmpint (cli_run (&csv, NULL, "simulate", "rolling-ball", "--t-end", "0.5", "--dt-out", "0.5", "--rtol", "1e-9",
                            "--atol", "1e-11", "--integrator", "rk8pd", NULL), ==, 0);
  g_autofree char *made = g_strdup_printf ("\n# made by cmlab %s from the model text with SHA-256 %s\n", number, sha);
  g_assert_nonnull (strstr (csv, made));
  g_assert_nonnull (strstr (csv, "\n# integrator: rk8pd, rtol = 1e-09, atol = 1e-11\n"));

  g_assert_cmpint (cli_run (&json, NULL, "simulate", "rolling-ball", "--t-end", "0.5", "--dt-out", "0.5", "--rtol", "1e-9",
                            "--atol", "1e-11", "--format", "json", NULL), ==, 0);
  g_autofree char *program = g_strdup_printf ("\"program\": \"cmlab %s\"", number);
  g_autofree char *model_sha = g_strdup_printf ("\"model_sha256\": \"%s\"", sha);
  g_assert_nonnull (strstr (json, program));
  g_assert_nonnull (strstr (json, model_sha));
  g_assert_nonnull (strstr (json, "\"rtol\": 1.0000000000000001e-09"));
  g_assert_nonnull (strstr (json, "\"atol\": 9.9999999999999994e-12"));
  g_assert_nonnull (strstr (json, "\"t_start\": 0"));
}

/* The rows of CSV, its comment lines left out. */
static const char *
csv_rows (const char *csv)
{
  const char *rows = strstr (csv, "\nt,");
  g_assert_nonnull (rows);
  return rows;
}

/* With no integrator named, simulate runs the one auto chooses for the model and the
 * tolerance, and its header and info name it and say why; the rows are those of the method
 * named; --integrator auto is the default; a named method is named alone. */
static void
test_default_integrator (void)
{
  g_autofree char *def = NULL, *named_auto = NULL, *taylor = NULL, *rk8pd = NULL, *loose = NULL,
                  *loose_rk8pd = NULL, *json = NULL, *info = NULL;
  const char *const run[] = { "simulate", "martinet", "--t-end", "30", "--dt-out", "7.5" };

  g_assert_cmpint (cli_run (&def, NULL, run[0], run[1], run[2], run[3], run[4], run[5], NULL), ==, 0);
  g_assert_nonnull (strstr (def, "\n# integrator: taylor, rtol = 1e-10, atol = 1e-12 (chosen: tolerance 1e-12, "
                                 "polynomial right-hand side)\n"));
  g_assert_cmpint (cli_run (&named_auto, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--integrator", "auto",
                            NULL), ==, 0);
  g_assert_cmpstr (named_auto, ==, def);
  g_assert_cmpint (cli_run (&taylor, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--integrator", "taylor",
                            NULL), ==, 0);
  g_assert_nonnull (strstr (taylor, "\n# integrator: taylor, rtol = 1e-10, atol = 1e-12\n"));
  g_assert_cmpstr (csv_rows (taylor), ==, csv_rows (def));
  g_assert_cmpint (cli_run (&rk8pd, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--integrator", "rk8pd",
                            NULL), ==, 0);
  g_assert_nonnull (strstr (rk8pd, "\n# integrator: rk8pd, rtol = 1e-10, atol = 1e-12\n"));

  /* a loose tolerance: rk8pd, chosen, its rows those of rk8pd named */
  g_assert_cmpint (cli_run (&loose, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--rtol", "1e-6", "--atol",
                            "1e-7", NULL), ==, 0);
  g_assert_nonnull (strstr (loose, "\n# integrator: rk8pd, rtol = 1e-06, atol = 1e-07 (chosen: tolerance 1e-07, the "
                                   "Taylor method pays at tighter tolerances)\n"));
  g_assert_cmpint (cli_run (&loose_rk8pd, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--rtol", "1e-6",
                            "--atol", "1e-7", "--integrator", "rk8pd", NULL), ==, 0);
  g_assert_cmpstr (csv_rows (loose_rk8pd), ==, csv_rows (loose));

  /* the JSON says it in a field of its own */
  g_assert_cmpint (cli_run (&json, NULL, run[0], run[1], run[2], run[3], run[4], run[5], "--format", "json", NULL), ==, 0);
  g_assert_nonnull (strstr (json, "\"integrator\": \"taylor\""));
  g_assert_nonnull (strstr (json, "\"integrator_chosen\": \"tolerance 1e-12, polynomial right-hand side\""));

  /* poincare's header too */
  {
    g_autofree char *crossings = NULL;
    g_assert_cmpint (cli_run (&crossings, NULL, "poincare", "martinet", "--section", "x1=0", "--columns", "x2,u",
                              "--t-end", "20", NULL), ==, 0);
    g_assert_nonnull (strstr (crossings, "\n# integrator: taylor, rtol = 1e-10, atol = 1e-12 (chosen: tolerance 1e-12, "
                                         "polynomial right-hand side); run to t = 20\n"));
  }

  /* and info, for the default tolerances */
  g_assert_cmpint (cli_run (&info, NULL, "info", "rolling-ball-varying", NULL), ==, 0);
  g_assert_nonnull (strstr (info, "\nIntegrator unless one is named: taylor (chosen: tolerance 1e-12, trigonometric "
                                  "right-hand side)\n"));
}

/* simulate without --dt-out writes a thousand rows after the first, from T0 to T. */
static void
test_default_dt_out (void)
{
  g_autofree char *out = NULL;
  g_assert_cmpint (cli_run (&out, NULL, "simulate", "rolling-ball", "--t-end", "5", NULL), ==, 0);
  g_auto (GStrv) lines = csv_lines (out);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 1001);
  g_assert_true (g_str_has_prefix (lines[1], "0,"));
  g_assert_true (g_str_has_prefix (lines[2], "0.0050000000000000001,"));
  g_assert_true (g_str_has_prefix (lines[1001], "5,"));
}

/* The rows of `simulate rolling-ball --t-end 1 --dt-out 0.3`: t = 0, 0.3, 0.6, 0.9 (as k*0.3)
 * and 1, full precision, values of oracle O1 at the default tolerances. */
static void
check_ball_csv (const char *out)
{
  g_auto (GStrv) lines = csv_lines (out);
  const double times[5] = { 0 * 0.3, 1 * 0.3, 2 * 0.3, 3 * 0.3, 1 };

  g_assert_cmpuint (g_strv_length (lines), ==, 6);
  g_assert_cmpstr (lines[0], ==, "t,x,y,u,v,w1,w2,w3,energy");
  for (int k = 0; k < 5; k++)
    {
      g_auto (GStrv) f = g_strsplit (lines[k + 1], ",", -1);
      double v[9];
      g_assert_cmpuint (g_strv_length (f), ==, 9);
      for (int j = 0; j < 9; j++)
        {
          char *end = NULL;
          v[j] = g_ascii_strtod (f[j], &end);
          g_assert_true (end != f[j] && *end == '\0');
          /* printed with %.17g: printing the parsed number again gives the same text */
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_ascii_formatd (buf, sizeof buf, "%.17g", v[j]);
          g_assert_cmpstr (buf, ==, f[j]);
        }
      g_assert_cmpfloat (v[0], ==, times[k]);
      double t = v[0], x = -0.75 + 1.75 * cos (2 * t / 7), y = 1.75 * sin (2 * t / 7);
      assert_close (v[1], x, 1e-8);
      assert_close (v[2], y, 1e-8);
      assert_close (v[3], -0.5 * sin (2 * t / 7), 1e-8);
      assert_close (v[4], 0.5 * cos (2 * t / 7), 1e-8);
      assert_close (v[5], x - v[4], 1e-8); /* ω1 = (Ωx − v)/r */
      assert_close (v[6], v[3] + y, 1e-8); /* ω2 = (u + Ωy)/r */
      assert_close (v[7], 0.3, 1e-12);
      assert_close (v[8], 0.0501428571429 + (x * x + y * y) / 7, 1e-8); /* E_L = I + mκΩ²|x|²/2 */
    }
}

static void
test_csv (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", NULL), ==, 0);
  check_ball_csv (out);
}

static void
test_csv_file (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "ball.csv", NULL);
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", NULL), ==, 0);
  g_assert_cmpint (cli_run (&out2, &err2, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "-o", path, NULL), ==, 0);
  g_assert_cmpstr (out2, ==, "");
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, out);
  check_ball_csv (text);
  /* atomic: only the file itself is left in the directory */
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);
  /* and an existing file is replaced as a whole */
  g_clear_pointer (&out2, g_free);
  g_clear_pointer (&err2, g_free);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_set_contents (path, "old contents that are longer than nothing\n", -1, NULL));
  g_assert_cmpint (cli_run (&out2, &err2, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "--output", path, NULL), ==, 0);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, out);
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);
  cli_remove_dir (dir);
}

/* -o FILE makes an ordinary file: its mode is 0666 minus the umask, as for any new file (and as
 * g_file_set_contents makes it), not the private 0600 of a temporary file. */
static void
test_csv_file_mode (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "ball.csv", NULL);
  g_autofree char *out = NULL, *err = NULL;
  GStatBuf st;
  mode_t mask = umask (022);

  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "-o", path, NULL), ==, 0);
  umask (mask);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  cli_remove_dir (dir);
  /* a failure here does not stop the other tests of this program */
  if ((st.st_mode & 0777) != 0644)
    g_test_fail_printf ("the file written by -o has mode %03o, expected 0644 (umask 022)", (unsigned) (st.st_mode & 0777));
}

/* A full disk (a file-size limit: writes past it fail as they do on a full disk): the
 * command says which file and why, exits 2, and leaves neither the file nor a temporary
 * one behind.  The limit is below what each file needs. */
static void
test_full_disk (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *csv = g_build_filename (dir, "ball.csv", NULL);
  g_autofree char *json = g_build_filename (dir, "ball.json", NULL);
  g_autofree char *png = g_build_filename (dir, "energy.png", NULL);
  /* messages in English, to look for the reason */
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  const struct
  {
    const char *args[14];
    const char *file;
  } cases[] = {
    { { "simulate", "rolling-ball", "--t-end", "100", "--dt-out", "0.01", "-o", csv }, csv },
    { { "simulate", "rolling-ball", "--t-end", "100", "--dt-out", "0.01", "--format", "json",
        "-o", json }, json },
    { { "plot", "rolling-ball", "--t-end", "10", "--y", "energy", "-o", png }, png },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int status = cli_run_argv (envp, 2048, &out, &err, cases[c].args);
      cli_message ("case %u: exit %d: %s", c, status, err);
      g_assert_cmpint (status, ==, 2);
      g_assert_nonnull (strstr (err, cases[c].file));
      g_assert_nonnull (strstr (err, "File too large"));
      /* not mistaken for a failing run */
      g_assert_null (strstr (err, "run failed"));
      g_assert_false (g_file_test (cases[c].file, G_FILE_TEST_EXISTS));
      g_assert_cmpuint (cli_count_entries (dir), ==, 0);
    }

  /* the same commands with room enough succeed: the limit is what made them fail */
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *err = NULL;
      g_assert_cmpint (cli_run_argv (envp, 0, NULL, &err, cases[c].args), ==, 0);
      g_assert_true (g_file_test (cases[c].file, G_FILE_TEST_IS_REGULAR));
    }
  g_assert_cmpuint (cli_count_entries (dir), ==, G_N_ELEMENTS (cases));
  cli_remove_dir (dir);
}

static void
test_json (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "--format", "json", NULL), ==, 0);
  g_assert_true (out[0] == '{');
  g_assert_nonnull (strstr (out, "\"columns\""));
  g_assert_nonnull (strstr (out, "\"rows\""));
  g_assert_true (g_str_has_suffix (g_strchomp (out), "}"));
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint rows = 0;
  for (guint k = 0; lines[k]; k++)
    if (g_strchug (lines[k])[0] == '[')
      rows++;
  g_assert_cmpuint (rows, ==, 5);
}

static void
test_usage_errors (void)
{
  struct { const char *args[8]; const char *what; } cases[] = {
    { { "simulate", "no-such-model-here", "--t-end", "1", "--dt-out", "0.1", NULL }, "unknown model" },
    { { "simulate", "rolling-ball", "--set", "r=100", "--t-end", "1", "--dt-out", "0.1" }, "--set out of range" },
    { { "simulate", "plate-ball", "--set", "sigma=0.5", "--t-end", "1", "--dt-out", "0.1" }, "--set not a choice" },
    { { "simulate", "rolling-ball", "--set", "nosuch=1", "--t-end", "1", "--dt-out", "0.1" }, "--set unknown parameter" },
    { { "simulate", "rolling-ball", "--dt-out", "0.1", NULL }, "missing --t-end" },
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "--integrator", "euler" }, "unknown integrator" },
    { { "simulate", "rolling-ball", "--init", "nosuch=1", "--t-end", "1", "--dt-out", "0.1" }, "unknown initial datum" },
    { { "info", "no-such-model-here", NULL }, "info of an unknown model" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *const *a = cases[k].args;
      int st = cli_run (&out, &err, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
      if (st != 2)
        g_error ("%s: exit status %d, expected 2 (stderr: %s)", cases[k].what, st, err);
      g_assert_cmpstr (err, !=, "");
      g_assert_cmpstr (out, ==, "");
    }
}

/* The processor time of every child waited for so far, in seconds: what a child cost,
 * whatever else the machine is doing (wall time depends on the load). */
static double
children_cpu_seconds (void)
{
  struct rusage ru;

  g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &ru), ==, 0);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Bad command-line input: exit 2 with a message that says what is wrong, after a few
 * seconds of processor time at most (before any simulating: the runs asked for would take
 * minutes), and nothing on standard output. */
static void
test_input_errors (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *dir_slash = g_strconcat (dir, "/", NULL);
  struct { const char *args[14]; const char *expect; } cases[] = {
    /* a missing value said "unknown option" */
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "-o" }, "option -o needs a value" },
    { { "simulate", "rolling-ball", "--dt-out", "0.1", "--t-end" }, "option --t-end needs a value" },
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "-o=" }, "-o needs a file name" },
    /* -o DIR ran the whole simulation before failing */
    { { "simulate", "rolling-ball", "--t-end", "1e5", "--dt-out", "0.01", "-o", dir }, "is a directory" },
    { { "simulate", "rolling-ball", "--t-end", "1e5", "--dt-out", "0.01", "-o", dir_slash }, "is a directory" },
    { { "simulate", "rolling-ball", "--t-end", "1e5", "--dt-out", "0.01", "-o", "/nonexistent-cmlab-dir/x.csv" },
      "no directory “/nonexistent-cmlab-dir”" },
    /* tolerances outside (0, 1) and (0, inf) were accepted */
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "--rtol", "2" }, "--rtol needs a number between 0 and 1" },
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "--rtol", "0" }, "--rtol needs a number between 0 and 1" },
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "--rtol", "1e300" }, "--rtol needs a number between 0 and 1" },
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.1", "--atol", "-1" }, "--atol needs a number > 0" },
    /* ~25 GB of rows */
    { { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "1e-8" }, "use a larger --dt-out" },
    { { "simulate", "rolling-ball", "--t-end", "1e308", "--dt-out", "1e300" }, "use a larger --dt-out" },
    /* a raw ffmpeg error */
    { { "render", "rolling-ball", "--t-end", "1", "--fps", "1e-9", "-o", "x.mp4" }, "--fps needs" },
    /* moments of inertia no body has were run */
    { { "simulate", "rigid-body", "--t-end", "1", "--dt-out", "0.1", "--set", "I1=5", "--set", "I2=1", "--set", "I3=0.5" },
      "each principal moment of inertia must be at most the sum of the other two (I1 <= I2 + I3 fails with I1 = 5, I2 = 1, I3 = 0.5)" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      double cpu0 = children_cpu_seconds ();
      int st = cli_run_argv (NULL, 0, &out, &err, cases[k].args);
      double secs = children_cpu_seconds () - cpu0;

      cli_message ("%s %s …: %s", cases[k].args[0], cases[k].args[1], err);
      if (st != 2 || strstr (err, cases[k].expect) == NULL)
        g_error ("case %u: exit status %d, expected 2 and “%s” (stderr: %s)", k, st, cases[k].expect, err);
      g_assert_cmpstr (out, ==, "");
      g_assert_cmpfloat (secs, <, 10);
    }
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

/* The parameters set on the command line are checked together, after the last --set: a
 * possible body reached through an impossible one in between (I₁ = 6 while I₃ is still 3)
 * runs. */
static void
test_require_together (void)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { "simulate", "rigid-body", "--t-end", "0.1", "--dt-out", "0.1", "--set", "I1=6",
                         "--set", "I3=4", NULL };
  int st = cli_run_argv (NULL, 0, &out, &err, args);

  cli_message ("%s", err);
  g_assert_cmpint (st, ==, 0);
  g_assert_nonnull (strstr (out, "\n0.1"));
}

/* Spans no run can cover hung inside one advance, with no progress and no end (t = 1e308
 * in steps of about 0.1): now refused at once, exit 2, with a hint, for simulate and
 * plot (render: test-render-cli.c). */
static void
test_unreachable_span (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *png = g_build_filename (dir, "x.png", NULL);
  struct { const char *args[12]; } cases[] = {
    { { "simulate", "rolling-ball", "--t-end", "1e308", "--dt-out", "1e307" } },
    { { "plot", "rolling-ball", "--t-end", "1e300", "--y", "energy", "-o", png } },
    { { "simulate", "martinet", "--t-end", "1e200", "--dt-out", "1e199", "--integrator", "implicit-midpoint",
        "--step", "0.01" } },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int st = cli_run_argv_timed (60, &out, &err, cases[k].args);
      cli_message ("%s %s --t-end %s: status %d, %s", cases[k].args[0], cases[k].args[1], cases[k].args[3], st,
                      err);
      if (st == -1)
        g_error ("case %u (%s --t-end %s) still ran after 60 s", k, cases[k].args[0], cases[k].args[3]);
      g_assert_cmpint (st, ==, 2);
      g_assert_nonnull (strstr (err, "out of reach"));
      g_assert_nonnull (strstr (err, "use a shorter --t-end"));
    }
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

/* A stiff system under an explicit method: a note on standard error that names msbdf;
 * under msbdf itself none.  simulate, plot and render. */
static void
test_stiff_note (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "stiff.cml", CLI_STIFF_MODEL);
  g_autofree char *png = g_build_filename (dir, "x.png", NULL);
  g_autofree char *frames = g_build_filename (dir, "f.%05d.png", NULL);
  const char *note = "the system looks stiff here: try --integrator msbdf";
  /* (rk8pd named: the default chooses the Taylor method for this right-hand side, which
   * estimates no stability limit) */
  struct { const char *args[14]; gboolean stiff_note; } cases[] = {
    { { "simulate", model, "--t-end", "1", "--dt-out", "0.1", "--integrator", "rk8pd" }, TRUE },
    { { "simulate", model, "--t-end", "1", "--dt-out", "0.1", "--integrator", "rkf45" }, TRUE },
    { { "simulate", model, "--t-end", "1", "--dt-out", "0.1", "--integrator", "msbdf" }, FALSE },
    { { "plot", model, "--t-end", "1", "--y", "x", "--integrator", "rk8pd", "-o", png }, TRUE },
    { { "plot", model, "--t-end", "1", "--y", "x", "--integrator", "msbdf", "-o", png }, FALSE },
    { { "render", model, "--t-end", "1", "--fps", "10", "--size", "64x64", "--integrator", "rk8pd", "-o", frames }, TRUE },
    { { "render", model, "--t-end", "1", "--fps", "10", "--size", "64x64", "--integrator", "msbdf", "-o", frames }, FALSE },
    /* not stiff: no note (the default, and rk8pd at a tolerance where auto chooses it) */
    { { "simulate", "rolling-ball", "--t-end", "200", "--dt-out", "1" }, FALSE },
    { { "simulate", "rolling-ball", "--t-end", "200", "--dt-out", "1", "--rtol", "1e-6", "--atol", "1e-8" }, FALSE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      int st = cli_run_argv_timed (120, &out, &err, cases[k].args);
      cli_message ("case %u: status %d, %s", k, st, err);
      g_assert_cmpint (st, ==, 0);
      if (cases[k].stiff_note)
        g_assert_nonnull (strstr (err, note));
      else
        g_assert_null (strstr (err, "looks stiff"));
    }
  /* the note is on standard error: the CSV stays clean */
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "simulate", model, "--t-end", "0.2", "--dt-out", "0.1", NULL };
    g_assert_cmpint (cli_run_argv_timed (120, &out, &err, args), ==, 0);
    g_assert_null (strstr (out, "looks stiff"));
  }
  cli_remove_dir (dir);
}

/* Debug messages go to standard error: on standard output they mixed with the CSV. */
static void
test_debug_to_stderr (void)
{
  g_autofree char *cache = cli_make_temp_dir ();
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "G_MESSAGES_DEBUG", "all", TRUE);
  g_autofree char *out = NULL, *err = NULL;

  /* a compiler that fails: the system says so with g_debug */
  env = g_environ_setenv (env, "CMLAB_CC", "false", TRUE);
  env = g_environ_setenv (env, "CMLAB_NATIVE_CACHE", cache, TRUE);
  const char *args[] = { "simulate", "rolling-ball", "--t-end", "0.2", "--dt-out", "0.1", NULL };
  int st = cli_run_argv (env, 0, &out, &err, args);

  g_assert_cmpint (st, ==, 0);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint k = 0; lines[k]; k++)
    if (*lines[k] && lines[k][0] != '#' && !g_str_has_prefix (lines[k], "t,") && !g_ascii_isdigit (lines[k][0]))
      g_error ("standard output has a line that is not CSV: %s", lines[k]);
  g_assert_nonnull (strstr (err, "DEBUG"));
  cli_remove_dir (cache);
}

static void
test_info_capri (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "info", "capri-kobayashi", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "rank W = 2"));
  g_assert_nonnull (strstr (out, "primary constraint"));
  g_assert_nonnull (strstr (out, "secondary constraint"));
  g_assert_nonnull (strstr (out, "final constraint set"));
  g_assert_nonnull (strstr (out, "Equations of motion"));
}

/* info --set reaches the inspector's verdicts: on a still table (Ω = 0) the energy of the
 * rolling ball is conserved, on the turning one (the file's Ω = 1) it is not */
static void
test_info_set_verdicts (void)
{
  g_autofree char *out = NULL, *err = NULL, *still = NULL, *err2 = NULL;

  g_assert_cmpint (cli_run (&out, &err, "info", "rolling-ball", NULL), ==, 0);
  g_assert_cmpint (cli_run (&still, &err2, "info", "rolling-ball", "--set", "Omega=0", NULL), ==, 0);
  {
    const char *e = strstr (out, "\n    E_L = ");
    g_assert_nonnull (e);
    g_autofree char *block = g_strndup (e, strstr (e + 1, "\n    E_Z") ? (gsize) (strstr (e + 1, "\n    E_Z") - e) : 400);
    g_assert_nonnull (strstr (block, "not conserved"));
  }
  {
    const char *e = strstr (still, "\n    E_L = ");
    g_assert_nonnull (e);
    const char *next = strstr (e + 1, "\n    E");
    g_assert_nonnull (next);
    g_autofree char *block = g_strndup (e, next - e);
    if (strstr (block, "not conserved") != NULL)
      g_error ("info rolling-ball --set Omega=0 judges E_L with the file's Ω:%s", block);
  }
}

static void
test_info (gconstpointer name)
{
  g_autofree char *out = NULL, *err = NULL;
  int st = cli_run (&out, &err, "info", (const char *) name, NULL);
  if (st != 0)
    g_error ("info %s: exit status %d (stderr: %s)", (const char *) name, st, err);
  g_assert_nonnull (strstr (out, "Equations of motion"));
}

/* What `info` prints is for students and researchers: nothing in it points outside the
 * program (notes of the developers, seed numbers, line numbers, erratum codes), and it
 * says what the system is about and where it comes from. */
static const char *const internal_patterns[] = {
  "Seed", "seed", "REFERENCE", "DESIGN", "STYLE", "oracle", "\\bL[0-9]", "\\bE[0-9]+\\b",
  "section 4", "§", "ORACLES", "tests/",
};

static void
assert_no_internal_references (const char *what, const char *text)
{
  for (guint k = 0; k < G_N_ELEMENTS (internal_patterns); k++)
    {
      g_autoptr (GRegex) re = g_regex_new (internal_patterns[k], 0, 0, NULL);
      g_autoptr (GMatchInfo) mi = NULL;

      g_assert_nonnull (re);
      if (g_regex_match (re, text, 0, &mi))
        {
          g_autofree char *hit = g_match_info_fetch (mi, 0);
          gint start = 0, end = 0;

          g_match_info_fetch_pos (mi, 0, &start, &end);
          g_error ("%s shows “%s” (pattern %s) at: %.60s", what, hit, internal_patterns[k],
                   text + MAX (0, start - 20));
        }
    }
}

static void
test_info_words (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();

  g_assert_cmpuint (g_strv_length (names), >=, 10);
  for (guint k = 0; names[k]; k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (names[k], &error);
      int st = cli_run (&out, &err, "info", names[k], NULL);

      g_assert_no_error (error);
      if (st != 0)
        g_error ("info %s: exit status %d (stderr: %s)", names[k], st, err);
      cli_message ("info %s: %" G_GSIZE_FORMAT " bytes", names[k], strlen (out));
      assert_no_internal_references (names[k], out);
      g_assert_true (g_utf8_validate (out, -1, NULL));
      g_assert_nonnull (strstr (out, "About this system:"));
      g_assert_nonnull (strstr (out, "References:"));
      g_assert_nonnull (model->about);
      g_assert_nonnull (model->citation);
      /* the about text is wrapped: its first words are on one line */
      {
        g_autofree char *start = g_strndup (model->about, 40);
        char *space = strrchr (start, ' ');
        if (space)
          *space = '\0';
        if (strstr (out, start) == NULL)
          g_error ("info %s does not show its about text “%s…”", names[k], start);
      }
      /* the first reference's first author is shown */
      {
        g_autofree char *first = g_strndup (model->citation, strcspn (model->citation, ","));
        if (strstr (out, first) == NULL)
          g_error ("info %s does not show the reference “%s”", names[k], first);
      }
      /* every variable and monitor has a meaning, and the conserved ones are apart */
      for (guint i = 0; i < model->m; i++)
        g_assert_nonnull (cml_model_meaning (model, model->base[i]));
      for (guint a = 0; a < model->n; a++)
        {
          if (cml_model_meaning (model, model->fibre[a]) == NULL || cml_model_meaning (model, model->momenta[a]) == NULL)
            g_error ("%s: no meaning for %s or %s", names[k], model->fibre[a], model->momenta[a]);
        }
      for (guint r = 0; r < model->reconstruction->len; r++)
        {
          const char *nm = ((CmlNamedExpr *) model->reconstruction->pdata[r])->name;
          if (cml_model_meaning (model, nm) == NULL)
            g_error ("%s: no meaning for %s", names[k], nm);
        }
      gboolean any_conserved = FALSE;
      for (guint i = 0; i < model->monitors->len; i++)
        {
          CmlNamedExpr *ne = model->monitors->pdata[i];
          if (cml_model_meaning (model, ne->name) == NULL)
            g_error ("%s: no meaning for monitor %s", names[k], ne->name);
          any_conserved |= ne->conserved;
        }
      g_assert_true (any_conserved);
      g_assert_nonnull (strstr (out, "Conserved quantities"));
      /* equations typeset for reading: a dotted left side, no ASCII operators in it */
      g_assert_nonnull (strstr (out, "Equations of motion (derived; a dot is d/dt)"));
      g_assert_nonnull (strstr (out, "\u0307"));
      g_assert_null (strstr (out, "' = "));
      /* the source and the notes on the printed formulas, if any, are plain words */
      if (model->source)
        assert_no_internal_references (model->source, model->source);
      if (model->errata)
        assert_no_internal_references (model->errata, model->errata);
    }
}

/* The header of a CSV file: a dimensionless column's unit is "-", not "1"; a column whose
 * unit is not given has none. */
static void
test_csv_dimensionless_units (void)
{
  g_autofree char *out = NULL, *err = NULL;

  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "scaled.cml",
                                           "[model]\nname = scaled\ntitle = A scaled oscillator\ntime-unit = 1\n"
                                           "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
                                           "[dynamics]\nlagrangian = (u^2 - x^2)/2\n[initial]\nx = 1\n"
                                           "[units]\nx = 1\nu = 1\n");

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "0.5", "--dt-out", "0.5", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "# units: t [-], x [-]"));
  g_assert_null (strstr (out, "[1]"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "0.5", "--dt-out", "0.5",
                            "--format", "json", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"units\": [\"s\", \"m\""));
  g_assert_null (strstr (out, "\"1\""));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a quantity whose unit the model does not give (no [units] entry, a multiplier) is not
   * called dimensionless: it has no unit label */
  g_autofree char *plain = cli_write_file (dir, "plain.cml",
                                           "[model]\nname = plain\ntitle = An oscillator without units\ntime-unit = s\n"
                                           "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
                                           "[dynamics]\nlagrangian = (u^2 - x^2)/2\n[initial]\nx = 1\n");
  g_assert_cmpint (cli_run (&out, &err, "simulate", plain, "--t-end", "0.5", "--dt-out", "0.5", NULL), ==, 0);
  if (!strstr (out, "# units: t [s], x, u\n"))
    g_error ("units not given are labelled:\n%s", out);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", plain, "--t-end", "0.5", "--dt-out", "0.5", "--format", "json",
                            NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"units\": [\"s\", \"\", \"\"]"));
  cli_remove_dir (dir);
}

/* ---- files that are right, complete or absent ------------------------------------------ */

/* An oscillator whose Lagrangian has constants that are not powers of two (0.6, 1.3): the
 * generated C has fractional hexadecimal literals, which a decimal comma would break. */
#define OSC_MODEL(TITLE, UNIT)             \
  "[model]\n"                               \
  "name = osc\n"                            \
  "title = " TITLE "\n"                     \
  "\n"                                      \
  "[algebroid]\n"                           \
  "base = x\n"                              \
  "fibre = u\n"                             \
  "\n"                                      \
  "[anchor]\n"                              \
  "e1 = x: 1\n"                             \
  "\n"                                      \
  "[dynamics]\n"                            \
  "lagrangian = 0.6*u^2/2 - 1.3*x^2/2\n"    \
  "\n"                                      \
  "[initial]\n"                             \
  "x = 1\n"                                 \
  "u = 0.25\n"                              \
  "\n"                                      \
  "[units]\n"                               \
  "x = " UNIT "\n"

/* A locale with a decimal comma (de_DE.UTF-8), compiled into DIR with localedef; FALSE
 * (and the test skipped) where localedef or the locale's sources are missing. */
static gboolean
make_comma_locale (const char *dir)
{
  g_autofree char *localedef = g_find_program_in_path ("localedef");
  g_autofree char *target = g_build_filename (dir, "de_DE.UTF-8", NULL);
  g_autofree char *err = NULL;
  int status = 0;

  if (localedef == NULL)
    {
      g_test_skip ("localedef is not installed (Debian: libc-bin, locales)");
      return FALSE;
    }
  const char *argv[] = { localedef, "-i", "de_DE", "-f", "UTF-8", target, NULL };
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                     &status, NULL)
      || !g_file_test (target, G_FILE_TEST_IS_DIR))
    {
      g_test_skip_printf ("localedef could not make de_DE.UTF-8 (Debian: locales): %s", err ? err : "");
      return FALSE;
    }
  return TRUE;
}

/* Every field of a CSV data row is a number in C syntax that prints back as itself. */
static void
assert_c_numbers (const char *line)
{
  g_auto (GStrv) f = g_strsplit (line, ",", -1);
  for (guint j = 0; f[j]; j++)
    {
      char *end = NULL;
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double v = g_ascii_strtod (f[j], &end);
      if (end == f[j] || *end != '\0')
        g_error ("“%s” in “%s” is not a number", f[j], line);
      g_assert_cmpstr (g_ascii_formatd (buf, sizeof buf, "%.17g", v), ==, f[j]);
    }
}

/* Runs python3's strict JSON parser on TEXT; FALSE (with the test skipped) without python3. */
static gboolean
json_valid (const char *text, const char *check)
{
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *file = cli_write_file (dir, "out.json", text);
  g_autofree char *script = g_strdup_printf ("import json,sys\n"
                                             "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
                                             "%s\n", check ? check : "");
  g_autofree char *err = NULL;
  int status = 0;

  if (python == NULL)
    {
      g_test_skip ("python3 is not installed: the JSON is not parsed");
      cli_remove_dir (dir);
      return FALSE;
    }
  const char *argv[] = { python, "-c", script, file, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, NULL));
  cli_remove_dir (dir);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("the JSON does not parse or check: %s\n%s", err, text);
  return TRUE;
}

/* Under a locale that writes decimal commas, the files are the same as under C: CSV and
 * JSON numbers in C syntax, and the native code still compiles. */
static void
test_comma_locale (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "osc.cml", OSC_MODEL ("oscillator", "m"));
  g_autofree char *cache = g_build_filename (dir, "native-cache", NULL);

  if (!make_comma_locale (dir))
    {
      cli_remove_dir (dir);
      return;
    }
  g_auto (GStrv) c_env = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  g_auto (GStrv) de_env = g_environ_setenv (g_get_environ (), "LOCPATH", dir, TRUE);
  de_env = g_environ_setenv (de_env, "LC_ALL", "de_DE.UTF-8", TRUE);
  de_env = g_environ_setenv (de_env, "CMLAB_NATIVE_CACHE", cache, TRUE);

  /* the locale is really in effect: the tool's own messages for people use it */
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "info", "rolling-ball", NULL };
    g_assert_cmpint (cli_run_argv (de_env, 0, &out, &err, args), ==, 0);
    if (strstr (out, "0,4 ") == NULL && strstr (out, "= 0,4") == NULL)
      cli_message ("info under de_DE shows no decimal comma: %s", out);
  }

  for (int json = 0; json < 2; json++)
    {
      const char *args[] = { "simulate", model, "--t-end", "1", "--dt-out", "0.25", "--format",
                             json ? "json" : "csv", NULL };
      g_autofree char *c_out = NULL, *de_out = NULL, *err = NULL;
      g_assert_cmpint (cli_run_argv (c_env, 0, &c_out, NULL, args), ==, 0);
      g_assert_cmpint (cli_run_argv (de_env, 0, &de_out, &err, args), ==, 0);
      g_assert_cmpstr (de_out, ==, c_out);
      if (json)
        json_valid (de_out, "assert len(d['rows']) == 5 and d['rows'][4][0] == 1.0");
      else
        {
          g_auto (GStrv) lines = csv_lines (de_out);
          g_assert_cmpuint (g_strv_length (lines), ==, 6);
          for (guint k = 1; lines[k]; k++)
            assert_c_numbers (lines[k]);
          /* the comment lines' numbers too */
          g_assert_nonnull (strstr (de_out, "u = 0.25"));
          g_assert_nonnull (strstr (de_out, "rtol = 1e-10"));
        }
    }

  /* the generated C compiles under the comma locale */
  g_autofree char *cc = g_find_program_in_path ("cc");
  g_autofree char *gcc = g_find_program_in_path ("gcc");
  if (cc || gcc)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *args[] = { "info", model, NULL };
      g_assert_cmpint (cli_run_argv (de_env, 0, &out, &err, args), ==, 0);
      const char *ev = strstr (out, "Evaluation: ");
      g_assert_nonnull (ev);
      if (!g_str_has_prefix (ev, "Evaluation: native code"))
        g_error ("native code is off under de_DE.UTF-8: %.300s", ev);
    }
  cli_remove_dir (dir);
}

/* Runs a simulation with -o TARGET and returns its exit status; stderr in *ERR. */
static int
simulate_to (const char *target, char **err)
{
  const char *args[] = { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "-o", target, NULL };
  return cli_run_argv (NULL, 0, NULL, err, args);
}

static char *
ball_csv (void)
{
  char *out = NULL;
  g_assert_cmpint (cli_run (&out, NULL, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", NULL), ==, 0);
  return out;
}

typedef struct
{
  int      fd;
  GString *data;
} FifoReader;

static gpointer
fifo_reader (gpointer p)
{
  FifoReader *r = p;
  char buf[4096];
  ssize_t n;
  while ((n = read (r->fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      g_string_append_len (r->data, buf, n);
  return NULL;
}

/* -o never replaces what is not a regular file: a FIFO and a character device are
 * written to; a symbolic link is followed (the file it names gets the data, the link
 * stays); a directory and a file we may not write are refused, unchanged. */
static void
test_output_targets (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *expected = ball_csv ();
  GStatBuf st;

  /* a FIFO, read by a thread; our own read-write descriptor keeps the FIFO open, so
   * neither side blocks on open() and the reader sees the end when we close it */
  {
    g_autofree char *fifo = g_build_filename (dir, "pipe", NULL);
    g_autofree char *err = NULL;
    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    int keep = open (fifo, O_RDWR);
    g_assert_cmpint (keep, >=, 0);
    FifoReader r = { open (fifo, O_RDONLY), g_string_new (NULL) };
    g_assert_cmpint (r.fd, >=, 0);
    GThread *t = g_thread_new ("fifo-reader", fifo_reader, &r);
    int status = simulate_to (fifo, &err);
    close (keep);
    g_thread_join (t);
    close (r.fd);
    cli_message ("FIFO: exit %d: %s", status, err);
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
    g_assert_true (S_ISFIFO (st.st_mode));
    g_assert_cmpstr (r.data->str, ==, expected);
    g_string_free (r.data, TRUE);
    g_unlink (fifo);
  }

  /* a character device: as root our own node of /dev/null's numbers (a failure must not
   * be able to replace the system's); as anyone else /dev/null itself, which only root
   * could replace */
  {
    g_autofree char *node = g_build_filename (dir, "null", NULL);
    const char *dev = NULL;
    if (geteuid () != 0)
      dev = "/dev/null";
    else if (mknod (node, S_IFCHR | 0666, makedev (1, 3)) == 0)
      dev = node;
    if (dev == NULL)
      cli_message ("no character device to write to (mknod: %s)", g_strerror (errno));
    else
      {
        g_autofree char *err = NULL;
        int status = simulate_to (dev, &err);
        cli_message ("%s: exit %d: %s", dev, status, err);
        g_assert_cmpint (status, ==, 0);
        g_assert_cmpint (g_lstat (dev, &st), ==, 0);
        g_assert_true (S_ISCHR (st.st_mode));
        g_unlink (node);
      }
  }
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);

  /* /dev/stdout, which is a pipe here (through /proc/self/fd/1, a link with no name) */
  {
    g_autofree char *out = NULL, *err = NULL;
    const char *args[] = { "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "0.3", "-o", "/dev/stdout", NULL };
    g_assert_cmpint (g_lstat ("/dev/stdout", &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_assert_cmpint (cli_run_argv (NULL, 0, &out, &err, args), ==, 0);
    g_assert_cmpstr (out, ==, expected);
    g_assert_cmpint (g_lstat ("/dev/stdout", &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
  }

  /* a symbolic link (relative, through a second link): the file it names is replaced */
  {
    g_autofree char *real = cli_write_file (dir, "real.csv", "old\n");
    g_autofree char *link1 = g_build_filename (dir, "link1.csv", NULL);
    g_autofree char *link2 = g_build_filename (dir, "link2.csv", NULL);
    g_autofree char *err = NULL, *text = NULL;
    g_assert_cmpint (chmod (real, 0640), ==, 0);
    g_assert_cmpint (symlink ("real.csv", link1), ==, 0);
    g_assert_cmpint (symlink ("link1.csv", link2), ==, 0);
    g_assert_cmpint (simulate_to (link2, &err), ==, 0);
    g_assert_cmpint (g_lstat (link2, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_assert_cmpint (g_lstat (link1, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_assert_cmpint (g_lstat (real, &st), ==, 0);
    g_assert_true (S_ISREG (st.st_mode));
    g_assert_cmpint (st.st_mode & 0777, ==, 0640); /* the replaced file's mode */
    g_assert_true (g_file_get_contents (real, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, expected);
    g_assert_cmpuint (cli_count_entries (dir), ==, 3);
    /* a dangling link: the file is made where it points */
    g_unlink (real);
    g_clear_pointer (&err, g_free);
    g_clear_pointer (&text, g_free);
    g_assert_cmpint (simulate_to (link1, &err), ==, 0);
    g_assert_true (g_file_get_contents (real, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, expected);
    g_assert_cmpint (g_lstat (link1, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_unlink (link1);
    g_unlink (link2);
    g_unlink (real);
  }

  /* a read-only file: refused, exit 2, unchanged (also for root) */
  {
    g_autofree char *ro = cli_write_file (dir, "ro.csv", "keep me\n");
    g_autofree char *err = NULL, *text = NULL;
    g_autofree char *msg = g_strconcat (ro, ": permission denied", NULL);
    g_assert_cmpint (chmod (ro, 0444), ==, 0);
    g_assert_cmpint (simulate_to (ro, &err), ==, 2);
    cli_message ("read-only: %s", err);
    g_assert_nonnull (strstr (err, msg));
    g_assert_true (g_file_get_contents (ro, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "keep me\n");
    g_assert_cmpint (g_stat (ro, &st), ==, 0);
    g_assert_cmpint (st.st_mode & 0777, ==, 0444);
    g_assert_cmpuint (cli_count_entries (dir), ==, 1);
    g_unlink (ro);
  }

  /* a directory: refused, exit 2, nothing left behind */
  {
    g_autofree char *sub = g_build_filename (dir, "sub", NULL);
    g_autofree char *err = NULL;
    g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
    g_assert_cmpint (simulate_to (sub, &err), ==, 2);
    /* refused before anything is simulated, naming the directory */
    g_assert_nonnull (strstr (err, sub));
    g_assert_nonnull (strstr (err, "is a directory"));
    g_assert_true (g_file_test (sub, G_FILE_TEST_IS_DIR));
    g_assert_cmpuint (cli_count_entries (dir), ==, 1);
    g_assert_cmpuint (cli_count_entries (sub), ==, 0);
  }

  /* plot -o through a symbolic link */
  {
    g_autofree char *real = cli_write_file (dir, "real.png", "old");
    g_autofree char *link = g_build_filename (dir, "link.png", NULL);
    g_autofree char *err = NULL;
    g_assert_cmpint (symlink ("real.png", link), ==, 0);
    g_assert_cmpint (cli_run (NULL, &err, "plot", "rolling-ball", "--t-end", "1", "--y", "energy", "-o", link, NULL), ==, 0);
    g_assert_cmpint (g_lstat (link, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
    g_assert_cmpint (g_stat (real, &st), ==, 0);
    g_assert_cmpint (st.st_size, >, 100);
  }
  cli_remove_dir (dir);
}

/* A temporary file of ours, `.NAME.cmlab-tmp-HOST-BOOT-PIDNS-PID-XXXXXX` (written on this
 * host, since this boot, in this PID namespace), in DIR. */
static char *
plant_temporary (const char *dir, const char *name, GPid pid)
{
  g_autofree char *base = g_strdup_printf (".%s.cmlab-tmp-%s-%d-a1B2c3", name, cml_atomic_file_origin (), (int) pid);
  return cli_write_file (dir, base, "partial");
}

/* A PID that is not alive: a child that has exited and been reaped. */
static GPid
dead_pid (void)
{
  const char *argv[] = { "/bin/true", NULL };
  GPid pid;
  int status;
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_cmpint (kill (pid, 0), ==, -1);
  return pid;
}

/* SIGTERM (or Ctrl-C) in the middle of `simulate -o`: no file and no temporary file stay,
 * the process ends by the signal (or non-zero) and says why.  The signal comes when the
 * file has 2 MB, past the first 4096 rows (about 0.7 MB), so while its rows are written by
 * the output's own thread (cml-output.c). */
static void
check_interrupted (int sig)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *csv = g_build_filename (dir, "long.csv", NULL);
  const char *argv[] = { cli_path (), "simulate", "rolling-ball", "--t-end", "50000", "--dt-out",
                         "0.001", "-o", csv, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int err_fd = -1, status = 0;
  gboolean writing = FALSE;

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                           NULL, NULL, &pid, NULL, NULL, &err_fd, &error));
  g_assert_no_error (error);
  /* until its temporary file has data */
  for (int i = 0; i < 400 && !writing; i++)
    {
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      g_usleep (25 * 1000);
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (dir, name, NULL);
          GStatBuf st;
          if (g_stat (p, &st) == 0 && st.st_size > 2000000)
            writing = TRUE;
        }
    }
  g_assert_true (writing);
  kill (pid, sig);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  GString *err = g_string_new (NULL);
  {
    char buf[1024];
    ssize_t n;
    while ((n = read (err_fd, buf, sizeof buf)) > 0)
      g_string_append_len (err, buf, n);
    close (err_fd);
  }
  cli_message ("wait status 0x%x: %s", status, err->str);
  g_assert_false (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  if (WIFSIGNALED (status))
    g_assert_cmpint (WTERMSIG (status), ==, sig);
  g_assert_nonnull (strstr (err->str, "interrupted"));
  g_assert_nonnull (strstr (err->str, csv));
  g_string_free (err, TRUE);
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

static void
test_interrupted_sigterm (void)
{
  check_interrupted (SIGTERM);
}

static void
test_interrupted_sigint (void)
{
  check_interrupted (SIGINT);
}

/* A temporary file left by a process that died (SIGKILL) is removed by the next run that
 * writes into the directory; one whose writer is alive is left alone. */
static void
test_stale_temporaries (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *csv = g_build_filename (dir, "ball.csv", NULL);
  g_autofree char *dead = plant_temporary (dir, "ball.csv", dead_pid ());
  g_autofree char *other = plant_temporary (dir, "other.json", dead_pid ());
  g_autofree char *live = plant_temporary (dir, "ball.csv", getpid ());
  g_autofree char *err = NULL;
  /* not ours: no PID, or not our pattern */
  g_autofree char *plain = cli_write_file (dir, ".ball.csv.cmlab-tmp-x-a1B2c3", "x");
  g_autofree char *user = cli_write_file (dir, "ball.csv.backup", "x");

  g_assert_cmpint (simulate_to (csv, &err), ==, 0);
  g_assert_false (g_file_test (dead, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (other, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (plain, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (user, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (csv, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (cli_count_entries (dir), ==, 4);
  cli_remove_dir (dir);
}

/* Text fields (a title, a unit) with line breaks cannot forge CSV rows or break the JSON;
 * a title with a stray backslash loads without a GLib warning. */
static void
test_text_fields (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "osc.cml", OSC_MODEL ("a\\n1,2,3\\r4,5,6\\t\"q\" \\\\", "m\\n7,8,9"));
  g_autofree char *out = NULL, *err = NULL, *ref = NULL;
  g_autofree char *plain = cli_write_file (dir, "plain.cml", OSC_MODEL ("a", "m"));

  g_assert_cmpint (cli_run (&ref, NULL, "simulate", plain, "--t-end", "1", "--dt-out", "0.5", NULL), ==, 0);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "0.5", NULL), ==, 0);
  cli_message ("%s", out);
  {
    /* the lines that are not comments are exactly the header and the simulated rows */
    g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
    g_auto (GStrv) ref_lines = csv_lines (ref);
    guint k = 0;
    for (guint i = 0; lines[i]; i++)
      {
        if (lines[i][0] == '#' || (lines[i][0] == '\0' && lines[i + 1] == NULL))
          continue;
        g_assert_nonnull (ref_lines[k]);
        g_assert_cmpstr (lines[i], ==, ref_lines[k]);
        k++;
      }
    g_assert_cmpuint (k, ==, 4);
    g_assert_null (strchr (out, '\r'));
    g_assert_null (strchr (out, '\t'));
  }
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "0.5", "--format", "json", NULL), ==, 0);
  json_valid (out, "assert d['title'] == 'a\\n1,2,3\\r4,5,6\\t\"q\" \\\\', d['title']\n"
                   "assert d['units'][1] == 'm\\n7,8,9', d['units']\n"
                   "assert len(d['rows']) == 3");

  /* a stray backslash (an unknown escape, one at the end) */
  {
    g_autofree char *bs = cli_write_file (dir, "bs.cml", OSC_MODEL ("a\\q b\\", "m"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (cli_run (&out, &err, "simulate", bs, "--t-end", "1", "--dt-out", "0.5", NULL), ==, 0);
    cli_message ("stderr: %s", err);
    g_assert_null (strstr (err, "GError"));
    g_assert_null (strstr (err, "WARNING"));
    g_assert_cmpstr (err, ==, "");
    g_assert_true (g_str_has_prefix (out, "# cmlab osc: a\\q b\\\n"));
  }
  cli_remove_dir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/cli/csv-comments", test_csv_comments);
  g_test_add_func ("/models/cli/variational-groupoid", test_variational_groupoid);
  g_test_add_func ("/models/cli/variational-vakonomic", test_variational_vakonomic);
  g_test_add_func ("/models/cli/variational-plate-ball", test_variational_plate_ball);
  g_test_add_func ("/models/cli/variational-singular", test_variational_singular);
  g_test_add_func ("/models/cli/outputs-name-their-making", test_outputs_name_their_making);
  g_test_add_func ("/models/cli/default-dt-out", test_default_dt_out);
  g_test_add_func ("/models/cli/default-integrator", test_default_integrator);
  gsl_set_error_handler_off ();

  g_test_add_func ("/models/cli/diverging-run-exit-1", test_diverging);
  g_test_add_func ("/models/cli/malformed-file-exit-2", test_malformed);
  g_test_add_func ("/models/cli/integrator-refused", test_integrator_refused);
  g_test_add_func ("/models/cli/usage-short", test_usage_short);
  g_test_add_func ("/models/cli/require-together", test_require_together);
  g_test_add_func ("/models/rolling-ball/cli-csv", test_csv);
  g_test_add_func ("/models/rolling-ball/cli-csv-file", test_csv_file);
  g_test_add_func ("/models/rolling-ball/cli-json", test_json);
  g_test_add_func ("/models/cli/usage-errors-exit-2", test_usage_errors);
  g_test_add_func ("/models/cli/input-errors-exit-2", test_input_errors);
  g_test_add_func ("/models/cli/debug-to-stderr", test_debug_to_stderr);
  g_test_add_func ("/models/cli/unreachable-span-exit-2", test_unreachable_span);
  g_test_add_func ("/models/cli/stiff-note", test_stiff_note);
  g_test_add_func ("/models/cli/full-disk-exit-2", test_full_disk);
  g_test_add_func ("/models/capri-kobayashi/cli-info-constraint-algorithm", test_info_capri);
  g_test_add_func ("/models/cli/info-words-for-people", test_info_words);
  g_test_add_func ("/models/cli/info-set-reaches-verdicts", test_info_set_verdicts);
  g_test_add_func ("/models/cli/csv-dimensionless-units", test_csv_dimensionless_units);
  g_test_add_func ("/models/cli-output/comma-locale", test_comma_locale);
  g_test_add_func ("/models/cli-output/targets", test_output_targets);
  g_test_add_func ("/models/cli-output/interrupted-sigterm", test_interrupted_sigterm);
  g_test_add_func ("/models/cli-output/interrupted-sigint", test_interrupted_sigint);
  g_test_add_func ("/models/cli-output/stale-temporaries", test_stale_temporaries);
  g_test_add_func ("/models/cli-output/text-fields", test_text_fields);
  for (guint k = 0; builtin_models[k]; k++)
    {
      g_autofree char *path = g_strdup_printf ("/models/%s/cli-info", builtin_models[k]);
      g_test_add_data_func (path, builtin_models[k], test_info);
    }
  for (guint k = 0; extra_models[k]; k++)
    {
      g_autofree char *path = g_strdup_printf ("/models/%s/cli-info", extra_models[k]);
      g_test_add_data_func (path, extra_models[k], test_info);
    }
  /* last, in a suite of its own: in TAP mode a failure stops the program (this one fails while
   * cml-output.c creates the file with g_mkstemp's mode 0600) */
  g_test_add_func ("/models/cli-output/file-mode", test_csv_file_mode);
  return g_test_run ();
}
