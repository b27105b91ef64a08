/* test-native-switch.c — tiered evaluation: a run that starts on the interpreter and
 * switches to native code mid-way (cml-native-queue.c) gives, bit for bit, the states of a
 * run native throughout — for every built-in model and every integrator.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run A takes native code from its first step (everything built first: cml_native_wait);
 * run B starts interpreted, and at output time N_OUT / 2 is allowed native code, which it
 * takes at its next step boundary.  Every output state of B must equal A's in every bit,
 * and B must have taken native steps after the switch where A took any.  Also: a system
 * whose native code is still being compiled runs at once on the interpreter.
 */
#define G_LOG_DOMAIN "test-native-switch"

#include "physics-util.h"
#include "cml-native.h"

#define N_OUT 24

static CmlSimulation *
open_sim (CmlSystem *sys, CmlIntegratorKind kind, GError **error)
{
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, error);
  CmlIntegratorOptions o = cml_integrator_options_default ();

  if (sim == NULL)
    return NULL;
  o.kind = kind;
  o.rtol = o.atol = 1e-9;
  o.h_fixed = 1e-2;
  if (!cml_simulation_set_integrator (sim, &o, error) || !cml_simulation_reset (sim, NULL, error))
    return NULL;
  return g_steal_pointer (&sim);
}

static void
test_switch (gconstpointer data)
{
  const char *name = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  guint dim = cml_system_dim (sys), ran = 0;

  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler: native code cannot be built here");
      return;
    }
  g_assert_null (cml_system_native_status (sys)); /* (waits for the object) */
  for (int k = 0; k < CML_INTEGRATOR_N_KINDS; k++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      g_autoptr (CmlSimulation) a = open_sim (sys, k, &ea);
      g_autoptr (CmlSimulation) b = open_sim (sys, k, &eb);
      const char *kind = cml_integrator_kind_to_string (k);
      double t_end = 2.0;

      if (a == NULL)
        {
          /* taylor and msbdf do not take every system: both runs say so alike */
          g_assert_nonnull (ea);
          g_assert_nonnull (eb);
          g_assert_cmpstr (ea->message, ==, eb->message);
          g_test_message ("%s with %s: %s", name, kind, ea->message);
          continue;
        }
      g_assert_no_error (eb);
      /* A: every native object there before its first step */
      cml_simulation_prepare_native_step (a);
      g_assert_true (cml_simulation_advance (a, 0.0, NULL));
      cml_native_wait ();
      cml_simulation_set_native (b, FALSE);
      for (guint i = 1; i <= N_OUT; i++)
        {
          double t = t_end * i / N_OUT;
          g_autoptr (GError) fa = NULL;
          g_autoptr (GError) fb = NULL;
          if (i == N_OUT / 2 + 1)
            {
              cml_simulation_set_native (b, TRUE);
              cml_simulation_prepare_native_step (b);
              cml_native_wait ();
            }
          gboolean oka = cml_simulation_advance (a, t, &fa);
          gboolean okb = cml_simulation_advance (b, t, &fb);
          g_assert_cmpint (oka, ==, okb);
          if (!oka)
            {
              g_assert_cmpstr (fa->message, ==, fb->message);
              break;
            }
          g_assert_cmpfloat (cml_simulation_get_time (a), ==, cml_simulation_get_time (b));
          const double *za = cml_simulation_get_state (a), *zb = cml_simulation_get_state (b);
          for (guint j = 0; j < dim; j++)
            if (memcmp (&za[j], &zb[j], sizeof (double)) != 0)
              {
                g_test_fail_printf ("%s with %s: %s differs at t = %g (%s): native throughout %a, switched %a", name, kind,
                       cml_system_state_name (sys, j), t, i <= N_OUT / 2 ? "before the switch" : "after it",
                       za[j], zb[j]);
                g_test_message ("FAILED: %s with %s at t = %g: native steps %" G_GUINT64_FORMAT " and %"
                                G_GUINT64_FORMAT ", evaluations %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                                name, kind, t, cml_simulation_n_native_steps (a), cml_simulation_n_native_steps (b),
                                cml_simulation_n_rhs (a), cml_simulation_n_rhs (b));
                goto next_kind;
              }
        }
      g_assert_true (cml_simulation_is_native (b));
      if (cml_simulation_n_rhs (a) != cml_simulation_n_rhs (b))
        g_test_fail_printf ("%s with %s: %" G_GUINT64_FORMAT " evaluations native throughout, %" G_GUINT64_FORMAT
                            " switched", name, kind, cml_simulation_n_rhs (a), cml_simulation_n_rhs (b));
      /* the whole step in native code, where A took it, B took it after the switch */
      if (cml_simulation_n_native_steps (a) > 0 && cml_simulation_n_native_steps (b) == 0)
        g_test_fail_printf ("%s with %s: no native step after the switch", name, kind);
      g_test_message ("%s with %s: %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT " native steps", name, kind,
                      cml_simulation_n_native_steps (a), cml_simulation_n_native_steps (b));
      ran++;
    next_kind:;
    }
  g_assert_cmpuint (ran, >=, CML_INTEGRATOR_N_KINDS - 3);
}

int
main (int argc, char **argv)
{
  g_auto (GStrv) names = NULL;

  g_test_init (&argc, &argv, NULL);
  names = cml_model_list_builtin ();
  g_assert_cmpuint (g_strv_length (names), >=, 10);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = g_strdup_printf ("/native-switch/%s", names[i]);
      g_test_add_data_func (path, names[i], test_switch);
    }
  return g_test_run ();
}
