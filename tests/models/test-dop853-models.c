/* test-dop853-models.c — the DOP853 integrator on the built-in models: its error against
 * their closed forms ([reference] groups) beside rk8pd's, its whole step in native code
 * against the generic step (the same bits), restarts and repeated runs bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-dop853-models"

#include "physics-util.h"

#include "cml-native.h"
#include "cml-native-step.h"
#include "cml-reference.h"

static void
use_kind (CmlSimulation *sim, CmlIntegratorKind kind, double tol)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();

  o.kind = kind;
  o.rtol = tol;
  o.atol = tol;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
}

static CmlSimulation *
open_at_start (const char *name)
{
  g_autoptr (GError) error = NULL;
  CmlSimulation *sim = sim_open (name);

  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_no_error (error);
  return sim;
}

/* The largest error against the closed forms over N outputs DT apart, relative to
 * max(1, |reference|) per reference. */
static double
reference_error (const char *name, CmlIntegratorKind kind, double tol, double dt, int n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = open_at_start (name);
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autoptr (CmlReference) ref = cml_reference_new (sys, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ref);
  const guint nr = cml_reference_get_n (ref);
  g_autofree double *obs = g_new (double, cml_system_n_observables (sys));
  g_autofree double *val = g_new (double, nr);
  g_autofree double *err = g_new (double, nr);
  g_autofree double *scale = g_new (double, nr);
  double worst = 0;

  use_kind (sim, kind, tol);
  cml_reference_start_from_simulation (ref, sim);
  for (guint r = 0; r < nr; r++)
    scale[r] = 1;
  for (int k = 1; k <= n; k++)
    {
      g_assert_true (cml_simulation_advance (sim, k * dt, &error));
      g_assert_no_error (error);
      cml_simulation_observe (sim, obs);
      cml_reference_compare (ref, k * dt, obs, val, err);
      for (guint r = 0; r < nr; r++)
        {
          scale[r] = MAX (scale[r], fabs (val[r]));
          worst = MAX (worst, fabs (err[r]) / scale[r]);
        }
    }
  return worst;
}

/* At rtol = atol = 1e-10, dop853's error against every closed form, outputs every 0.5 from
 * its dense output, is within 4 times rk8pd's (whose steps land on every output) or below
 * 4e-9 where rk8pd's is at rounding level: the interpolant adds its own error, of the size
 * of the step's. */
static void
test_references (gconstpointer data)
{
  const char *name = data;
  const double e_rk = reference_error (name, CML_INTEGRATOR_RK8PD, 1e-10, 0.5, 200);
  const double e_dop = reference_error (name, CML_INTEGRATOR_DOP853, 1e-10, 0.5, 200);

  g_test_message ("%s: rk8pd %.3g, dop853 %.3g", name, e_rk, e_dop);
  g_assert_cmpfloat (e_dop, <=, MAX (4 * e_rk, 4e-9));
}

static gboolean
has_references (const char *name)
{
  g_autoptr (CmlSimulation) sim = sim_open (name);
  g_autoptr (CmlReference) ref = cml_reference_new (cml_simulation_get_system (sim), NULL);
  return ref != NULL && cml_reference_get_n (ref) > 0;
}

/* The whole step in native code gives the numbers of the generic step (the right-hand side
 * through the interpreter), bit for bit, at every output. */
static void
test_native_identical (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) a = open_at_start (name);
  g_autoptr (CmlSimulation) b = open_at_start (name);
  CmlSystem *sys = cml_simulation_get_system (a);
  const guint dim = cml_system_dim (sys);

  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler");
      return;
    }
  use_kind (a, CML_INTEGRATOR_DOP853, 1e-10);
  use_kind (b, CML_INTEGRATOR_DOP853, 1e-10);
  g_assert_false (cml_simulation_set_native (b, FALSE));
  for (int k = 1; k <= 100; k++)
    {
      gboolean ok_a = cml_simulation_advance (a, k * 0.25, &error);
      g_assert_no_error (error);
      gboolean ok_b = cml_simulation_advance (b, k * 0.25, &error);
      g_assert_no_error (error);
      g_assert_true (ok_a && ok_b);
      g_assert_cmpmem (cml_simulation_get_state (a), dim * sizeof (double), cml_simulation_get_state (b),
                       dim * sizeof (double));
    }
  g_assert_cmpuint (cml_simulation_n_native_steps (b), ==, 0);
  g_test_message ("%s: %" G_GUINT64_FORMAT " native steps, %" G_GUINT64_FORMAT " projections fused into them", name,
                  cml_simulation_n_native_steps (a), cml_simulation_n_fused_projections (a));
  /* every built-in takes its steps in native code */
  g_assert_null (cml_system_native_status (sys));
  g_assert_cmpuint (cml_simulation_n_native_steps (a), >, 0);
  /* and projects their ends there, the same bits as the library's projection after a step */
  if (g_str_equal (name, "rigid-body") || g_str_equal (name, "rolling-ball"))
    g_assert_true (sim_check_fused (a, b));
  else
    sim_check_fused (a, b);
}

/* Saved at an output and restored into another simulation, a run (with projection and
 * quaternions: the rolling ball) goes on bit for bit; the same run twice gives the same bits. */
static void
test_restore (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) a = open_at_start (name);
  g_autoptr (CmlSimulation) b = open_at_start (name);
  g_autoptr (CmlSimulation) c = open_at_start (name);
  const guint dim = cml_system_dim (cml_simulation_get_system (a));

  use_kind (a, CML_INTEGRATOR_DOP853, 1e-9);
  use_kind (b, CML_INTEGRATOR_DOP853, 1e-9);
  use_kind (c, CML_INTEGRATOR_DOP853, 1e-9);
  g_assert_true (cml_simulation_step_state_is_exact (a));
  for (int k = 1; k <= 40; k++)
    {
      g_assert_true (cml_simulation_advance (a, k * 0.3, &error));
      g_assert_true (cml_simulation_advance (c, k * 0.3, &error));
    }
  g_autofree double *saved = g_new (double, cml_simulation_step_state_size (a));
  g_autofree double *z = g_memdup2 (cml_simulation_get_state (a), dim * sizeof (double));
  cml_simulation_save_step_state (a, saved);
  g_assert_true (cml_simulation_advance (b, 1.7, &error)); /* somewhere else first */
  cml_simulation_restore (b, cml_simulation_get_time (a), z, saved);
  for (int k = 41; k <= 120; k++)
    {
      g_assert_true (cml_simulation_advance (a, k * 0.3, &error));
      g_assert_true (cml_simulation_advance (b, k * 0.3, &error));
      g_assert_true (cml_simulation_advance (c, k * 0.3, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (cml_simulation_get_state (a), dim * sizeof (double), cml_simulation_get_state (b),
                       dim * sizeof (double));
      g_assert_cmpmem (cml_simulation_get_state (a), dim * sizeof (double), cml_simulation_get_state (c),
                       dim * sizeof (double));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the native step itself, from the first step: built before each run goes on
   * (test-native-switch tests the builds in the background) */
  g_setenv ("CMLAB_NATIVE", "wait", TRUE);

  add_model_tests ("/models/dop853/native-identical", test_native_identical, NULL);
  add_model_tests ("/models/dop853/references", test_references, has_references);
  g_test_add_data_func ("/models/dop853/restore/rolling-ball", "rolling-ball", test_restore);
  g_test_add_data_func ("/models/dop853/restore/martinet", "martinet", test_restore);

  return g_test_run ();
}
