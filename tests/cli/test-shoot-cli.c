/* test-shoot-cli.c — `cmlab-cli shoot`, run as a person runs it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The output is simulate's CSV (its '#' lines, the header, rows at t = 0, H, …, T) with the
 * solved run: its first row is the initial state found — the momenta the '#' lines after
 * the rows report, to the last digit — and its last row is at the targets; the '#' lines
 * name the residual, the iterations, the momenta and the conjugate times.  A target that
 * cannot be reached fails with the reason and leaves no output file; a model that is not
 * vakonomic is refused.  The residual printed is that of the rows written (their last row
 * against the targets); the Taylor integrator is refused in plain words; --max-iterations
 * bounds the Newton iterations; targets at the start give the extremal at rest; an
 * integrable constraint (tests/models/data/parabola-vakonomic.cml) gives a degenerate
 * endpoint map, said so, and a target off its reachable set fails saying so.
 */
#define G_LOG_DOMAIN "test-shoot-cli"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"

/* The value of NAME in a "# shoot: momenta found: a = 1, b = 2" line. */
static double
reported (const char *line, const char *name)
{
  g_autofree char *key = g_strdup_printf (" %s = ", name);
  const char *p = strstr (line, key);
  g_assert_nonnull (p);
  return g_ascii_strtod (p + strlen (key), NULL);
}

static void
test_output (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "5", "--target", "x1=0.5,x2=2",
                            "--target", "x3=0.3", "--init", "u=1.1", "--init", "k=1.2", "--dt-out", "0.5",
                            "--columns", "x1,x2,x3,p_u,p_y1,k", NULL),
                   ==, 0);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint k = 0;
  gboolean initial_line = FALSE;
  for (; lines[k] && lines[k][0] == '#'; k++)
    if (g_str_has_prefix (lines[k], "# initial state (t = 0):"))
      initial_line = TRUE;
  g_assert_true (initial_line);
  g_assert_cmpstr (lines[k], ==, "t,x1,x2,x3,p_u,p_y1,k");
  k++;
  g_auto (GStrv) first = g_strsplit (lines[k], ",", -1);
  g_assert_cmpuint (g_strv_length (first), ==, 7);
  g_assert_cmpstr (first[0], ==, "0");
  /* the data rows: t = 0, 0.5, …, 5 */
  guint n_rows = 0;
  const char *last = NULL;
  for (; lines[k] && lines[k][0] != '#' && lines[k][0] != '\0'; k++)
    {
      n_rows++;
      last = lines[k];
    }
  g_assert_cmpuint (n_rows, ==, 11);
  g_auto (GStrv) end = g_strsplit (last, ",", -1);
  g_assert_cmpfloat (g_ascii_strtod (end[0], NULL), ==, 5.0);
  g_assert_cmpfloat (fabs (g_ascii_strtod (end[1], NULL) - 0.5), <=, 1e-9);
  g_assert_cmpfloat (fabs (g_ascii_strtod (end[2], NULL) - 2), <=, 1e-9);
  g_assert_cmpfloat (fabs (g_ascii_strtod (end[3], NULL) - 0.3), <=, 1e-9);

  /* then the '#' lines of the shooting */
  const char *residual = NULL, *momenta = NULL, *conjugate = NULL;
  for (; lines[k]; k++)
    {
      if (lines[k][0] == '\0')
        continue;
      g_assert_true (lines[k][0] == '#');
      if (g_str_has_prefix (lines[k], "# shoot: residual "))
        residual = lines[k];
      else if (g_str_has_prefix (lines[k], "# shoot: momenta found:"))
        momenta = lines[k];
      else if (g_str_has_prefix (lines[k], "# shoot: conjugate times in (0, T]"))
        conjugate = lines[k];
    }
  g_assert_nonnull (residual);
  g_assert_nonnull (strstr (residual, "Newton iterations"));
  g_assert_cmpfloat (g_ascii_strtod (residual + strlen ("# shoot: residual "), NULL), <=, 1e-9);
  g_assert_nonnull (momenta);
  g_assert_nonnull (conjugate);
  g_assert_nonnull (strstr (conjugate, "det ∂(x1, x2, x3)/∂p(0)"));
  /* the first row is the initial state found, to the last digit */
  g_assert_cmpfloat (g_ascii_strtod (first[1], NULL), ==, 0.0);
  g_assert_cmpfloat (g_ascii_strtod (first[2], NULL), ==, 0.0);
  g_assert_cmpfloat (g_ascii_strtod (first[3], NULL), ==, 0.0);
  g_assert_cmpfloat (g_ascii_strtod (first[4], NULL), ==, reported (momenta, "p_u"));
  g_assert_cmpfloat (g_ascii_strtod (first[5], NULL), ==, reported (momenta, "p_y1"));
  g_assert_cmpfloat (g_ascii_strtod (first[6], NULL), ==, reported (momenta, "k"));
  /* not the guess */
  g_assert_cmpfloat (fabs (g_ascii_strtod (first[6], NULL) - 1.2), >, 1e-3);
}

/* The line of OUT that starts with PREFIX, or NULL. */
static char *
line_with (const char *out, const char *prefix)
{
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint k = 0; lines[k]; k++)
    if (g_str_has_prefix (lines[k], prefix))
      return g_strdup (lines[k]);
  return NULL;
}

static char *
data_model (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

static void
test_residual_of_rows (void)
{
  /* rk4-fixed at the step 0.3: the rows (steps of 0.25 between outputs 0.5 apart) are not
   * the Newton iterate's run (17 steps of 5/17), and miss the targets by about 1e-6 */
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "5", "--target", "x1=0.5,x2=2,x3=0.3",
                            "--integrator", "rk4-fixed", "--step", "0.3", "--dt-out", "0.5", "--columns", "x1,x2,x3",
                            NULL),
                   ==, 0);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  const char *last = NULL;
  for (guint k = 0; lines[k]; k++)
    if (g_ascii_isdigit (lines[k][0]))
      last = lines[k];
  g_assert_nonnull (last);
  g_auto (GStrv) end = g_strsplit (last, ",", -1);
  g_assert_cmpfloat (g_ascii_strtod (end[0], NULL), ==, 5.0);
  const double target[3] = { 0.5, 2, 0.3 };
  double r2 = 0;
  for (guint i = 0; i < 3; i++)
    r2 += pow (g_ascii_strtod (end[i + 1], NULL) - target[i], 2);
  g_autofree char *line = line_with (out, "# shoot: residual ");
  g_assert_nonnull (line);
  double printed = g_ascii_strtod (line + strlen ("# shoot: residual "), NULL);
  g_test_message ("printed %g, rows %g", printed, sqrt (r2));
  g_assert_cmpfloat (sqrt (r2), >, 1e-9);
  /* printed with 3 digits */
  g_assert_cmpfloat (fabs (printed - sqrt (r2)), <=, 5e-3 * sqrt (r2));
}

static void
test_taylor_refused (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "5", "--target", "x1=0.5", "--integrator",
                            "taylor", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err, "variational equations"));
  g_assert_nonnull (strstr (err, "taylor integrator does not carry them"));
  g_assert_nonnull (strstr (err, "dop853"));
  g_assert_null (strstr (err, "cml_"));
  g_assert_null (strstr (err, "Usage:"));
}

static void
test_max_iterations (void)
{
  g_autofree char *model = data_model ("parabola-vakonomic.cml");
  {
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (cli_run (&out, &err, "shoot", model, "--t-end", "1", "--target", "x=1,y=2", "--max-iterations",
                              "0", NULL),
                     ==, 2);
    g_assert_nonnull (strstr (err, "--max-iterations needs a whole number from 1"));
  }
  {
    /* (1, 2) is off the parabola y = x²/2 the extremals from the origin stay on */
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (cli_run (&out, &err, "shoot", model, "--t-end", "1", "--target", "x=1,y=2", "--max-iterations",
                              "3", NULL),
                     ==, 1);
    g_assert_nonnull (strstr (err, "no solution within 3 Newton iterations (the limit)"));
    g_assert_cmpstr (out, ==, "");
  }
  {
    g_autofree char *out = NULL, *err = NULL;
    g_assert_cmpint (cli_run (&out, &err, "shoot", model, "--t-end", "1", "--target", "x=1,y=2", NULL), ==, 1);
    g_assert_nonnull (strstr (err, "the targets are not reachable at T = 1 along extremals from this start"));
    g_assert_nonnull (strstr (err, "a closer guess cannot change"));
    g_assert_null (strstr (err, "--init"));
  }
}

static void
test_at_start (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "3", "--target", "x1=0,x2=0,x3=0", NULL), ==,
                   0);
  g_autofree char *res = line_with (out, "# shoot: residual ");
  g_assert_nonnull (res);
  g_assert_true (g_str_has_prefix (res, "# shoot: residual 0 after 0 Newton iterations"));
  g_assert_nonnull (strstr (res, "the extremal at rest"));
  g_autofree char *mom = line_with (out, "# shoot: momenta found:");
  g_assert_cmpfloat (reported (mom, "p_u"), ==, 0);
  g_assert_cmpfloat (reported (mom, "p_y1"), ==, 0);
  g_assert_cmpfloat (reported (mom, "k"), ==, 0);
  g_assert_null (strstr (out, "stalled"));
}

static void
test_degenerate (void)
{
  g_autofree char *model = data_model ("parabola-vakonomic.cml");
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", model, "--t-end", "1", "--target", "x=1,y=0.5", NULL), ==, 0);
  g_autofree char *note = line_with (out, "# shoot: conjugate times not computed: the endpoint map is degenerate");
  g_assert_nonnull (note);
  g_assert_null (line_with (out, "# shoot: conjugate times in (0, T]"));
}

static void
test_unreachable (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "out.csv", NULL);
  g_autofree char *out = NULL, *err = NULL;
  /* the plate–ball's table angle alpha = Ω t does not depend on the momenta */
  g_assert_cmpint (cli_run (&out, &err, "shoot", "plate-ball", "--t-end", "5", "--target", "alpha=1", "-o", path,
                            NULL),
                   ==, 1);
  g_assert_nonnull (strstr (err, "shooting failed: the target cannot be reached"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

static void
test_refused (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "shoot", "rolling-ball", "--t-end", "5", "--target", "x=1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "shooting needs a vakonomic system"));
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "5", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "shoot needs --t-end T and --target NAME=VALUE"));
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, &err, "shoot", "martinet", "--t-end", "5", "--target", "x1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--target needs NAME=VALUE"));
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, &err, "shoot", "--help", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "Usage: cmlab-cli shoot MODEL"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shoot-cli/output", test_output);
  g_test_add_func ("/shoot-cli/unreachable", test_unreachable);
  g_test_add_func ("/shoot-cli/refused", test_refused);
  g_test_add_func ("/shoot-cli/residual-of-rows", test_residual_of_rows);
  g_test_add_func ("/shoot-cli/taylor-refused", test_taylor_refused);
  g_test_add_func ("/shoot-cli/max-iterations", test_max_iterations);
  g_test_add_func ("/shoot-cli/at-start", test_at_start);
  g_test_add_func ("/shoot-cli/degenerate", test_degenerate);
  return g_test_run ();
}
