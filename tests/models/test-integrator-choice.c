/* test-integrator-choice.c — the integrator a run gets when none is named (auto,
 * cml-integrator-choice.c): the Taylor method at tight tolerances where it can run, rk8pd
 * otherwise; the choice named with its reason, made again for another system or tolerance,
 * saved in a session as auto, and a named method left alone.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-integrator-choice"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cml-error.h"
#include "cml-integrator-for-system.h"
#include "cml-model.h"
#include "cml-session.h"
#include "cml-simulation.h"
#include "cml-system.h"

static CmlSystem *
open_system (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = NULL;

  if (strchr (name, '/') == NULL)
    model = cml_model_load (name, &error);
  else
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, name, NULL);
      model = cml_model_new_from_file (path, &error);
    }
  g_assert_no_error (error);
  CmlSystem *sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

static CmlIntegratorOptions
auto_at (double tol)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_AUTO);
  g_assert_null (o.chosen);
  o.rtol = o.atol = tol;
  return o;
}

typedef struct
{
  const char *model;
  const char *rhs_kind; /* what the Taylor method makes of it; NULL: it cannot run it */
  gboolean    taylor;   /* chosen at tight tolerances */
} ChoiceCase;

static const ChoiceCase cases[] = {
  { "martinet", "polynomial", TRUE },
  { "rolling-ball", "polynomial", TRUE },
  { "rolling-ball-varying", "trigonometric", TRUE },
  { "heavy-top", "polynomial", TRUE },
  { "capri-kobayashi", "rational or algebraic", FALSE },
  { "vertical-disk", "rational or algebraic", FALSE },
  { "models/data/nonlinear-vakonomic.cml", NULL, FALSE },
};

/* Tight tolerances: taylor for a polynomial or trigonometric right-hand side, with its kind
 * as the reason; loose ones, a rational right-hand side, or a system it cannot run: rk8pd,
 * and why. */
static void
test_choice (gconstpointer data)
{
  const ChoiceCase *c = data;
  g_autoptr (CmlSystem) sys = open_system (c->model);
  const char *why = NULL;

  g_assert_cmpstr (cml_integrator_choice_rhs_kind (sys, &why), ==, c->rhs_kind);
  /* the second time from what the system keeps */
  g_assert_cmpstr (cml_integrator_choice_rhs_kind (sys, NULL), ==, c->rhs_kind);

  CmlIntegratorOptions o = auto_at (1e-10);
  cml_integrator_choose (sys, &o);
  g_autofree char *said = cml_integrator_options_describe (&o);
  g_test_message ("%s at 1e-10: %s", c->model, said);
  if (c->taylor)
    {
      g_autofree char *want = g_strdup_printf ("taylor, rtol = 1e-10, atol = 1e-10 (chosen: tolerance 1e-10, %s right-hand side)",
                                               c->rhs_kind);
      g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_TAYLOR);
      g_assert_cmpstr (said, ==, want);
      g_assert_null (why);
    }
  else if (c->rhs_kind != NULL)
    {
      g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_RK8PD);
      g_assert_cmpstr (said, ==, "rk8pd, rtol = 1e-10, atol = 1e-10 (chosen: the right-hand side divides by quantities "
                                 "that may vanish, which rk8pd checks at every step)");
    }
  else
    {
      g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_RK8PD);
      g_assert_cmpstr (said, ==, "rk8pd, rtol = 1e-10, atol = 1e-10 (chosen: the Taylor method cannot run this system: its "
                                 "free velocities are found by Newton's method)");
      g_assert_cmpstr (why, ==, o.chosen);
    }

  /* the same options at a loose tolerance choose again */
  o.rtol = o.atol = 1e-6;
  cml_integrator_choose (sys, &o);
  g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_RK8PD);
  g_assert_nonnull (o.chosen);
  if (c->taylor)
    {
      g_autofree char *loose = cml_integrator_options_describe (&o);
      g_assert_cmpstr (loose, ==, "rk8pd, rtol = 1e-06, atol = 1e-06 (chosen: tolerance 1e-06, the Taylor method pays at "
                                  "tighter tolerances)");
    }

  /* the threshold: the smaller tolerance decides, as it decides the Taylor method's order */
  o = auto_at (1e-6);
  o.atol = CML_INTEGRATOR_CHOICE_TAYLOR_TOL;
  cml_integrator_choose (sys, &o);
  g_assert_cmpint (o.kind, ==, c->taylor ? CML_INTEGRATOR_TAYLOR : CML_INTEGRATOR_RK8PD);
  o = auto_at (1e-6);
  o.atol = 2 * CML_INTEGRATOR_CHOICE_TAYLOR_TOL;
  cml_integrator_choose (sys, &o);
  g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_RK8PD);
}

/* A named method is left alone, whatever the tolerance and the system. */
static void
test_named_kept (void)
{
  g_autoptr (CmlSystem) sys = open_system ("martinet");

  for (int k = 0; k < CML_INTEGRATOR_N_KINDS; k++)
    {
      if (k == CML_INTEGRATOR_AUTO)
        continue;
      CmlIntegratorOptions o = auto_at (1e-12);
      o.kind = k;
      cml_integrator_choose (sys, &o);
      g_assert_cmpint (o.kind, ==, k);
      g_assert_null (o.chosen);
      g_autofree char *said = cml_integrator_options_describe (&o);
      g_assert_null (strstr (said, "chosen"));
      g_autofree char *shown = cml_integrator_choice_describe (&o);
      g_assert_cmpstr (shown, ==, cml_integrator_kind_to_string (k));
    }
  CmlIntegratorKind kind;
  g_assert_true (cml_integrator_kind_from_string ("auto", &kind));
  g_assert_cmpint (kind, ==, CML_INTEGRATOR_AUTO);
}

/* Through a simulation: the integrator it reports is the chosen one, and a run with auto
 * is the run with that method named, number for number. */
static void
test_simulation (void)
{
  g_autoptr (CmlSystem) sys = open_system ("martinet");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) a = cml_simulation_new (sys, &error);
  g_autoptr (CmlSimulation) b = cml_simulation_new (sys, &error);
  guint dim = cml_system_dim (sys);

  g_assert_no_error (error);
  CmlIntegratorOptions o = auto_at (1e-10);
  g_assert_true (cml_simulation_set_integrator (a, &o, &error));
  g_assert_cmpint (cml_simulation_get_integrator (a)->kind, ==, CML_INTEGRATOR_TAYLOR);
  g_assert_nonnull (cml_simulation_get_integrator (a)->chosen);
  o.kind = CML_INTEGRATOR_TAYLOR;
  g_assert_true (cml_simulation_set_integrator (b, &o, &error));
  g_assert_null (cml_simulation_get_integrator (b)->chosen);
  g_assert_true (cml_simulation_advance (a, 20, &error));
  g_assert_true (cml_simulation_advance (b, 20, &error));
  g_assert_no_error (error);
  g_assert_true (memcmp (cml_simulation_get_state (a), cml_simulation_get_state (b), dim * sizeof (double)) == 0);

  /* the options a simulation reports, set again at a loose tolerance, choose again */
  CmlIntegratorOptions again = *cml_simulation_get_integrator (a);
  again.rtol = again.atol = 1e-6;
  g_assert_true (cml_simulation_set_integrator (a, &again, &error));
  g_assert_cmpint (cml_simulation_get_integrator (a)->kind, ==, CML_INTEGRATOR_RK8PD);
}

/* The options of a system the Taylor method runs, handed to one it cannot run (the window
 * switching models keeps its runner's options): chosen again, rk8pd, and the run goes. */
static void
test_other_system (void)
{
  g_autoptr (CmlSystem) taylor_sys = open_system ("martinet");
  g_autoptr (CmlSystem) newton_sys = open_system ("models/data/nonlinear-vakonomic.cml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) a = cml_simulation_new (taylor_sys, &error);
  g_autoptr (CmlSimulation) b = cml_simulation_new (newton_sys, &error);

  g_assert_no_error (error);
  CmlIntegratorOptions o = auto_at (1e-10);
  g_assert_true (cml_simulation_set_integrator (a, &o, &error));
  g_assert_true (cml_simulation_set_integrator (b, cml_simulation_get_integrator (a), &error));
  g_assert_no_error (error);
  g_assert_cmpint (cml_simulation_get_integrator (b)->kind, ==, CML_INTEGRATOR_RK8PD);
  g_assert_true (cml_simulation_advance (b, 1, &error));
  g_assert_no_error (error);

  /* and an ODE given as a function (shooting's variational equations) gets rk8pd */
  CmlIntegratorOptions ode_o = *cml_simulation_get_integrator (a);
  cml_integrator_choose_for_ode (&ode_o);
  g_assert_cmpint (ode_o.kind, ==, CML_INTEGRATOR_RK8PD);
  o = auto_at (1e-10);
  cml_integrator_choose_for_ode (&o);
  g_assert_cmpint (o.kind, ==, CML_INTEGRATOR_RK8PD);
}

/* A session saved from a run whose method auto chose says auto, and loads as auto. */
static void
test_session_auto (void)
{
  g_autoptr (CmlSystem) sys = open_system ("martinet");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_autofree char *dir = g_dir_make_tmp ("cmlab-choice-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "run.cmlab-session", NULL);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  CmlIntegratorOptions o = auto_at (1e-10);
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  CmlSession *s = cml_session_new (sim, cml_simulation_get_state (sim), NULL);
  g_assert_true (cml_session_save (s, path, &error));
  g_assert_no_error (error);
  cml_session_free (s);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "kind=auto\n"));
  s = cml_session_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->integrator.kind, ==, CML_INTEGRATOR_AUTO);
  cml_session_free (s);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *base = g_path_get_basename (cases[k].model);
      g_autofree char *path = g_strdup_printf ("/integrator-choice/%s", base);
      g_test_add_data_func (path, &cases[k], test_choice);
    }
  g_test_add_func ("/integrator-choice/named-kept", test_named_kept);
  g_test_add_func ("/integrator-choice/simulation", test_simulation);
  g_test_add_func ("/integrator-choice/other-system", test_other_system);
  g_test_add_func ("/integrator-choice/session", test_session_auto);
  return g_test_run ();
}
