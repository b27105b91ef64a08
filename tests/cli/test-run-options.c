/* test-run-options.c — the run options say what they do: --step for the fixed-step method,
 * tolerances for the adaptive ones, and neither where it does not apply.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-run-options"

#include "cli-util.h"
#include "physics-util.h"

/* ẍ = −x from x = 1, ẋ = 0. */
#define OSCILLATOR_MODEL   \
  "[model]\n"              \
  "name = oscillator\n"    \
  "title = x'' = -x\n"     \
  "\n"                     \
  "[algebroid]\n"          \
  "base = x\n"             \
  "fibre = u\n"            \
  "\n"                     \
  "[anchor]\n"             \
  "e1 = x: 1\n"            \
  "\n"                     \
  "[dynamics]\n"           \
  "lagrangian = (u^2 - x^2)/2\n" \
  "\n"                     \
  "[initial]\n"            \
  "x = 1\n"

/* The last row's value of column NAME in CSV text. */
static double
last_value (const char *csv, const char *name)
{
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto (GStrv) header = NULL;
  const char *last = NULL;
  int col = -1;
  for (guint k = 0; lines[k]; k++)
    {
      if (lines[k][0] == '#' || lines[k][0] == '\0')
        continue;
      if (header == NULL)
        header = g_strsplit (lines[k], ",", -1);
      else
        last = lines[k];
    }
  g_assert_nonnull (header);
  g_assert_nonnull (last);
  for (guint c = 0; header[c]; c++)
    if (g_str_equal (header[c], name))
      col = c;
  g_assert_cmpint (col, >=, 0);
  g_auto (GStrv) cells = g_strsplit (last, ",", -1);
  return g_ascii_strtod (cells[col], NULL);
}

/* The implicit midpoint rule on ẍ = −x is the Cayley transform of the rotation: each step
 * of length h turns (x, ẋ) by exactly θ_h = 2 atan(h/2) and keeps its length.  So after
 * N = 10 steps of h = 0.1, x = cos(10 θ_h); with the default h = 10⁻³, cos(1000 θ_{0.001}). */
static void
test_midpoint_step (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "oscillator.cml", OSCILLATOR_MODEL);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--integrator", "implicit-midpoint", "--step", "0.1",
                            "--t-end", "1", "--dt-out", "1", NULL), ==, 0);
  assert_close (last_value (out, "x"), cos (10 * 2 * atan (0.05)), 1e-14);
  assert_close (last_value (out, "u"), -sin (10 * 2 * atan (0.05)), 1e-14);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, NULL, "simulate", model, "--integrator", "implicit-midpoint",
                            "--t-end", "1", "--dt-out", "1", NULL), ==, 0);
  assert_close (last_value (out, "x"), cos (1000 * 2 * atan (0.0005)), 1e-13);
  cli_remove_dir (dir);
}

/* Options that do not apply to the chosen method are refused, not echoed and ignored. */
static void
test_options_that_do_not_apply (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "oscillator.cml", OSCILLATOR_MODEL);
  g_autofree char *err = NULL;

  g_assert_cmpint (cli_run (NULL, &err, "simulate", model, "--integrator", "implicit-midpoint", "--rtol", "1e-8",
                            "--t-end", "1", "--dt-out", "1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--rtol and --atol do not apply"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (NULL, &err, "simulate", model, "--step", "0.1", "--t-end", "1", "--dt-out", "1", NULL),
                   ==, 2);
  /* the default, auto, is adaptive */
  g_assert_nonnull (strstr (err, "auto chooses its own steps"));
  cli_remove_dir (dir);
}

static void
test_options_describe (void)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_autofree char *a = cml_integrator_options_describe (&o);
  g_assert_cmpstr (a, ==, "auto, rtol = 1e-10, atol = 1e-12"); /* the default, before it has chosen */
  o.kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  o.h_fixed = 0.01;
  g_autofree char *b = cml_integrator_options_describe (&o);
  g_assert_cmpstr (b, ==, "implicit-midpoint, step = 0.01");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/run-options/midpoint-step", test_midpoint_step);
  g_test_add_func ("/models/run-options/not-applicable", test_options_that_do_not_apply);
  g_test_add_func ("/models/run-options/describe", test_options_describe);
  return g_test_run ();
}
