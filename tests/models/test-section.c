/* test-section.c — Poincaré sections: crossings located as accurately as the integrator,
 * in the direction asked for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oscillator L = u²/2 − x²/2 from x = 1, u = 0 is x = cos t, u = −sin t: it crosses
 * x = 0 downwards at t = π/2 + 2kπ (u = −1) and upwards at 3π/2 + 2kπ (u = +1); a
 * section on a monitor (the energy minus a level it never reaches) has none.  On a
 * periodic orbit of a built-in (the rolling ball: its centre turns on a circle of
 * angular frequency κΩ = 2/7 with u, v periodic) the crossings of one period repeat in
 * the next.
 */
#include <math.h>
#include <string.h>

#include "cli-util.h"
#include "cml-error.h"
#include "cml-model.h"
#include "cml-section.h"

static const char oscillator[] =
  "[model]\nname = oscillator\ntitle = Harmonic oscillator\n"
  "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
  "[dynamics]\nlagrangian = u^2/2 - x^2/2\n[initial]\nx = 1\n"
  "[monitors]\nenergy = u^2/2 + x^2/2 | conserved\n";

typedef struct
{
  CmlSystem *sys;
  GArray    *t;    /* crossing times */
  GArray    *a;    /* the first column there */
  GArray    *b;    /* the second */
  int        ia, ib;
} Crossings;

static void
on_crossing (double t, const double *obs, gpointer data)
{
  Crossings *c = data;

  g_array_append_val (c->t, t);
  g_array_append_val (c->a, obs[c->ia]);
  g_array_append_val (c->b, obs[c->ib]);
}

static void
crossings_clear (Crossings *c)
{
  g_array_unref (c->t);
  g_array_unref (c->a);
  g_array_unref (c->b);
}

static CmlSimulation *
simulation_of (CmlSystem *sys)
{
  g_autoptr (GError) error = NULL;
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  CmlIntegratorOptions o = cml_integrator_options_default ();

  g_assert_no_error (error);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  o.rtol = o.atol = 1e-12;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
  return sim;
}

static void
run_section (CmlSystem *sys, const char *text, CmlSectionDirection dir, const char *a, const char *b,
             double t_end, double max_step, Crossings *c)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = simulation_of (sys);
  g_autoptr (CmlSection) s = cml_section_new (sys, text, dir, &error);

  g_assert_no_error (error);
  c->sys = sys;
  c->t = g_array_new (FALSE, FALSE, sizeof (double));
  c->a = g_array_new (FALSE, FALSE, sizeof (double));
  c->b = g_array_new (FALSE, FALSE, sizeof (double));
  c->ia = cml_system_observable_index (sys, a);
  c->ib = cml_system_observable_index (sys, b);
  g_assert_cmpint (c->ia, >=, 0);
  g_assert_cmpint (c->ib, >=, 0);
  g_assert_true (cml_section_run (s, sim, t_end, max_step, on_crossing, c, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (cml_simulation_get_time (sim) - t_end), <, 1e-12);
}

static CmlSystem *
system_of_text (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "oscillator.cml", &error);
  CmlSystem *sys;

  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

static void
test_oscillator_times (void)
{
  g_autoptr (CmlSystem) sys = system_of_text (oscillator);
  Crossings down, up, both;

  /* pieces of 0.3: many times longer than the accuracy asked for, so a crossing at the
   * nearest sample would be off by up to 0.3 */
  run_section (sys, "x=0", CML_SECTION_DOWN, "u", "x", 20, 0.3, &down);
  run_section (sys, "x", CML_SECTION_UP, "u", "x", 20, 0.3, &up);
  run_section (sys, "x = 0", CML_SECTION_BOTH, "u", "x", 20, 0.3, &both);

  g_assert_cmpuint (down.t->len, ==, 3);  /* π/2, 5π/2, 9π/2 < 20 < 13π/2 */
  g_assert_cmpuint (up.t->len, ==, 3);    /* 3π/2, 7π/2, 11π/2 */
  g_assert_cmpuint (both.t->len, ==, 6);
  for (guint k = 0; k < down.t->len; k++)
    {
      double exact = G_PI / 2 + 2 * G_PI * k;

      g_assert_cmpfloat (fabs (g_array_index (down.t, double, k) - exact), <, 1e-9);
      g_assert_cmpfloat (fabs (g_array_index (down.a, double, k) + 1), <, 1e-9);
      g_assert_cmpfloat (fabs (g_array_index (down.b, double, k)), <, 1e-9);
    }
  for (guint k = 0; k < up.t->len; k++)
    {
      double exact = 1.5 * G_PI + 2 * G_PI * k;

      g_assert_cmpfloat (fabs (g_array_index (up.t, double, k) - exact), <, 1e-9);
      g_assert_cmpfloat (fabs (g_array_index (up.a, double, k) - 1), <, 1e-9);
    }
  /* both directions: the two lists merged in time order */
  for (guint k = 0; k < both.t->len; k++)
    g_assert_cmpfloat (fabs (g_array_index (both.t, double, k) - (G_PI / 2 + G_PI * k)), <, 1e-9);
  crossings_clear (&down);
  crossings_clear (&up);
  crossings_clear (&both);
}

/* A section on a monitor, with a level: energy = 1/2 always, so energy=0.4 is never
 * crossed; u = 0.5 (a velocity level) is crossed where sin t = −0.5, going up. */
static void
test_levels_and_monitors (void)
{
  g_autoptr (CmlSystem) sys = system_of_text (oscillator);
  Crossings never, level;

  run_section (sys, "energy=0.4", CML_SECTION_BOTH, "x", "u", 10, 0.5, &never);
  g_assert_cmpuint (never.t->len, ==, 0);
  run_section (sys, "u=0.5", CML_SECTION_UP, "x", "u", 8, 0.5, &level);
  /* u = −sin t rises through 0.5 at t = π + π/6 (sin = −1/2, falling) */
  g_assert_cmpuint (level.t->len, ==, 1);
  g_assert_cmpfloat (fabs (g_array_index (level.t, double, 0) - (G_PI + G_PI / 6)), <, 1e-9);
  g_assert_cmpfloat (fabs (g_array_index (level.b, double, 0) - 0.5), <, 1e-10);
  crossings_clear (&never);
  crossings_clear (&level);
}

/* The rolling ball's centre turns with period T = 2π/(κΩ) = 7π: its crossings of y = 0
 * going up repeat from period to period, at the same x and u. */
static void
test_periodic_orbit (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_autoptr (CmlSystem) sys = NULL;
  Crossings c;
  double period = 7 * G_PI;

  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  run_section (sys, "y=0", CML_SECTION_UP, "x", "u", 4 * period + 1, 0.7, &c);
  g_assert_cmpuint (c.t->len, ==, 4);
  for (guint k = 1; k < c.t->len; k++)
    {
      g_assert_cmpfloat (fabs (g_array_index (c.t, double, k) - g_array_index (c.t, double, k - 1) - period), <, 1e-8);
      g_assert_cmpfloat (fabs (g_array_index (c.a, double, k) - g_array_index (c.a, double, 0)), <, 1e-9);
      g_assert_cmpfloat (fabs (g_array_index (c.b, double, k) - g_array_index (c.b, double, 0)), <, 1e-9);
    }
  crossings_clear (&c);
}

static void
test_bad_sections (void)
{
  g_autoptr (CmlSystem) sys = system_of_text (oscillator);
  static const struct
  {
    const char *text;
    int         code;
    const char *says;
  } cases[] = {
    { "z=0", CML_ERROR_UNKNOWN_NAME, "z" },
    { "x=", CML_ERROR_USAGE, "nothing after" },
    { "=1", CML_ERROR_USAGE, "EXPRESSION=VALUE" },
    { "x=0=1", CML_ERROR_USAGE, "EXPRESSION=VALUE" },
    { "x*(=0", CML_ERROR_PARSE, "the section" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      CmlSection *s = cml_section_new (sys, cases[i].text, CML_SECTION_UP, &error);

      g_assert_null (s);
      g_assert_nonnull (error);
      g_test_message ("%s: %s", cases[i].text, error->message);
      if (cases[i].code != CML_ERROR_PARSE)
        g_assert_error (error, CML_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, cases[i].says));
    }
}

/* cmlab-cli poincare: the header "t,A,B" after '#' lines, a row per crossing at the
 * oscillator's exact times; to a file, written whole; bad options exit 2 with a reason. */
static void
test_cli (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "oscillator.cml", oscillator);
  g_autofree char *csv = g_build_filename (dir, "crossings.csv", NULL);
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint row = 0;

  g_assert_cmpint (cli_run (&out, &err, "poincare", model, "--section", "x=0", "--direction", "down",
                            "--columns", "u,x", "--t-end", "20", NULL), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] && *lines[i]; i++)
    {
      double t;

      if (lines[i][0] == '#')
        continue;
      if (row++ == 0)
        {
          g_assert_cmpstr (lines[i], ==, "t,u,x");
          continue;
        }
      t = g_ascii_strtod (lines[i], NULL);
      g_assert_cmpfloat (fabs (t - (G_PI / 2 + 2 * G_PI * (row - 2))), <, 1e-9);
      g_assert_cmpfloat (fabs (g_ascii_strtod (strchr (lines[i], ',') + 1, NULL) + 1), <, 1e-9);
    }
  g_assert_cmpuint (row, ==, 4);  /* the header and three crossings */

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "poincare", model, "--section", "x=0", "--columns", "u,x", "--t-end",
                            "20", "-o", csv, NULL), ==, 0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\nt,u,x\n"));

  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (NULL, &err, "poincare", model, "--section", "x=0", "--columns", "u", "--t-end", "5",
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--columns names two quantities"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (NULL, &err, "poincare", model, "--section", "z=0", "--columns", "u,x", "--t-end", "5",
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "unknown name 'z'"));
  cli_remove_dir (dir);
}

/* The rate of crossing: on x = cos t, u = −sin t, d(x − 0)/dt = u, so the section x = 0
 * is crossed downwards at t = π/2 (rate −1) and x + u = 0 at rate u − x; the state is
 * left as it was. */
static void
test_rate (void)
{
  g_autoptr (CmlSystem) sys = system_of_text (oscillator);
  g_autoptr (CmlSimulation) sim = simulation_of (sys);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSection) s = cml_section_new (sys, "x = 0", CML_SECTION_UP, &error);
  g_autoptr (CmlSection) s2 = cml_section_new (sys, "x + u", CML_SECTION_UP, &error);
  g_assert_no_error (error);

  for (int k = 0; k < 8; k++)
    {
      double t = 0.7 * k, z[2] = { cos (t), -sin (t) };
      cml_simulation_set_state (sim, t, z);
      g_assert_cmpfloat (fabs (cml_section_rate (s, sim) - z[1]), <, 1e-9);
      g_assert_cmpfloat (fabs (cml_section_rate (s2, sim) - (z[1] - z[0])), <, 1e-9);
      g_assert_cmpfloat (cml_simulation_get_state (sim)[0], ==, z[0]);
      g_assert_cmpfloat (cml_simulation_get_state (sim)[1], ==, z[1]);
      g_assert_cmpfloat (cml_simulation_get_time (sim), ==, t);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/section/oscillator-times", test_oscillator_times);
  g_test_add_func ("/models/section/levels-and-monitors", test_levels_and_monitors);
  g_test_add_func ("/models/section/periodic-orbit", test_periodic_orbit);
  g_test_add_func ("/models/section/bad-sections", test_bad_sections);
  g_test_add_func ("/models/section/rate", test_rate);
  g_test_add_func ("/models/section/cli", test_cli);
  return g_test_run ();
}
