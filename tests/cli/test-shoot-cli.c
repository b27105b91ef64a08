/* test-shoot-cli.c — `cmlab-cli shoot`, run as a person runs it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The output is simulate's CSV (its '#' lines, the header, rows at t = 0, H, …, T) with the
 * solved run: its first row is the initial state found — the momenta the '#' lines after
 * the rows report, to the last digit — and its last row is at the targets; the '#' lines
 * name the residual, the iterations, the momenta and the conjugate times.  A target that
 * cannot be reached fails with the reason and leaves no output file; a model that is not
 * vakonomic is refused.
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
  return g_test_run ();
}
