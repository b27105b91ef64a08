/* test-rk8pd-models.c — rk8pd's whole step in native code (cml-rk8pd-core.h) on the
 * built-in models against GSL's step with the right-hand side through the interpreter:
 * the same numbers, bit for bit, at every output (the rolling balls projected after every
 * step) and after a change of a parameter; the same steps accepted and rejected, the same
 * evaluations.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-rk8pd-models"

#include "physics-util.h"

#include "cml-native.h"
#include "cml-native-step.h"

static CmlSimulation *
open_rk8pd (const char *name, double rtol, double atol, CmlIntegratorStats *stats)
{
  g_autoptr (GError) error = NULL;
  CmlSimulation *sim = sim_open (name);
  CmlIntegratorOptions o = cml_integrator_options_default ();

  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  o.kind = CML_INTEGRATOR_RK8PD; /* named: the default chooses by the tolerance */
  o.rtol = rtol;
  o.atol = atol;
  o.stats = stats;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
  return sim;
}

/* Outputs every DT (steps cut to land on them) up to N DT, a parameter changed halfway
 * (the step's saved derivative must not outlive it): native and GSL alike at every output. */
static void
run_both (const char *name, double rtol, double atol, double dt, int n)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorStats sa = { 0 }, sb = { 0 };
  g_autoptr (CmlSimulation) a = open_rk8pd (name, rtol, atol, &sa);
  g_autoptr (CmlSimulation) b = open_rk8pd (name, rtol, atol, &sb);
  CmlSystem *sys = cml_simulation_get_system (a);
  const CmlModel *md = cml_system_get_model (sys);
  const guint dim = cml_system_dim (sys);

  g_assert_false (cml_simulation_set_native (b, FALSE));
  for (int k = 1; k <= n; k++)
    {
      if (k == n / 2 && md->params->len > 0)
        {
          const CmlParam *p = md->params->pdata[0];
          double v = cml_simulation_get_param (a, p->name);
          v = v * 1.01 <= p->max ? v * 1.01 : v * 0.99;
          g_assert_true (cml_simulation_set_param (a, p->name, v, &error));
          g_assert_true (cml_simulation_set_param (b, p->name, v, &error));
          g_assert_no_error (error);
        }
      gboolean ok_a = cml_simulation_advance (a, k * dt, &error);
      g_assert_no_error (error);
      gboolean ok_b = cml_simulation_advance (b, k * dt, &error);
      g_assert_no_error (error);
      g_assert_true (ok_a && ok_b);
      if (memcmp (cml_simulation_get_state (a), cml_simulation_get_state (b), dim * sizeof (double)) != 0)
        g_error ("%s at rtol %g: native and GSL steps differ at t = %g", name, rtol, k * dt);
    }
  g_assert_cmpuint (sa.n_steps, ==, sb.n_steps);
  g_assert_cmpuint (sa.n_rejected, ==, sb.n_rejected);
  g_assert_cmpfloat (sa.h, ==, sb.h);
  g_test_message ("%s at rtol %g: %" G_GUINT64_FORMAT " steps (%" G_GUINT64_FORMAT " rejected), %" G_GUINT64_FORMAT
                  " native; %" G_GUINT64_FORMAT " evaluations, GSL %" G_GUINT64_FORMAT,
                  name, rtol, sa.n_steps, sa.n_rejected, cml_simulation_n_native_steps (a), sa.n_rhs, sb.n_rhs);
  g_assert_cmpuint (cml_simulation_n_native_steps (b), ==, 0);
  /* every built-in takes its steps in native code */
  g_assert_null (cml_system_native_status (sys));
  g_assert_cmpuint (cml_simulation_n_native_steps (a), >, sa.n_steps / 2);
  g_assert_cmpuint (sa.n_rhs, ==, sb.n_rhs);
  /* the native steps project their ends themselves, the same bits as GSL's steps projected after */
  gboolean fused = sim_check_fused (a, b);
  if (g_str_equal (name, "rigid-body") || g_str_equal (name, "rolling-ball"))
    g_assert_true (fused);
}

static void
test_native_identical (gconstpointer data)
{
  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler");
      return;
    }
  /* the default tolerances, outputs close together; tight ones, rejections on the way */
  run_both (data, 1e-10, 1e-12, 0.05, 200);
  run_both (data, 1e-13, 1e-13, 0.7, 30);
  run_both (data, 1e-6, 1e-6, 1.3, 30);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the native step itself, from the first step: built before each run goes on
   * (test-native-switch tests the builds in the background) */
  g_setenv ("CMLAB_NATIVE", "wait", TRUE);

  add_model_tests ("/models/rk8pd/native-identical", test_native_identical, NULL);
  return g_test_run ();
}
