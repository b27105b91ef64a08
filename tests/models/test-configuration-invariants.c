/* test-configuration-invariants.c — invariants of the configuration a model declares ([invariants] and
 * unit quaternions among the base coordinates, cml-invariants.c): checked against the
 * anchor when the system is derived, kept by the projection along a run, met by the
 * initial data, listed by the description.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model is a free rigid body whose attitude quaternion q is among the base coordinates
 * (tests/models/data/quaternion-body.cml), with a fixed-step method coarse enough that
 * |q|² drifts visibly when nothing keeps it; and the Suslov problem (the same body with the
 * nonholonomic constraint W3 = 0), whose projection keeps the constraint and |q| together.
 */
#define G_LOG_DOMAIN "test-configuration-invariants"

#include "physics-util.h"

#include "cml-simulation.h"

/* the quaternion body's file text, with EXTRA appended */
static char *
body_text (const char *extra)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "quaternion-body.cml", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return g_strconcat (text, "\n", extra, NULL);
}

static CmlSystem *
body_system (const char *extra, GError **error)
{
  g_autofree char *text = body_text (extra);
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "body.cml", error);
  if (model == NULL)
    return NULL;
  return cml_system_new (model, error);
}

/* The largest | |q|² − 1 | along a run to T_END with the method KIND at step H, and the
 * final state into Z_END (room for the dimension). */
static double
unit_drift (CmlSystem *sys, CmlIntegratorKind kind, double h, double t_end, GHashTable *given, double *z_end)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  double worst = 0;

  g_assert_no_error (error);
  o.kind = kind;
  o.h_fixed = h;
  o.rtol = 1e-12;
  o.atol = 1e-13;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  for (int k = 1; k <= 200; k++)
    {
      g_assert_true (cml_simulation_advance (sim, t_end * k / 200, &error));
      const double *z = cml_simulation_get_state (sim);
      worst = MAX (worst, fabs (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3] - 1));
    }
  if (z_end)
    memcpy (z_end, cml_simulation_get_state (sim), cml_system_dim (sys) * sizeof (double));
  cml_simulation_free (sim);
  return worst;
}

/* Undeclared, the unit length drifts under RK4 at a coarse step; declared either way, the
 * projection keeps it to rounding, and the motion stays that of the undeclared body to the
 * method's accuracy (the projection moves the state by the drift only). */
static void
test_kept (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) free_body = body_system ("", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) quat = body_system ("[quaternions]\nq = q0, q1, q2, q3\n", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) inv = body_system ("[invariants]\nunit = q0^2 + q1^2 + q2^2 + q3^2 - 1\n", &error);
  g_assert_no_error (error);
  double z_free[7], z_quat[7], z_inv[7], z_ref[7];

  double d_free = unit_drift (free_body, CML_INTEGRATOR_RK4_FIXED, 0.1, 100, NULL, z_free);
  double d_quat = unit_drift (quat, CML_INTEGRATOR_RK4_FIXED, 0.1, 100, NULL, z_quat);
  double d_inv = unit_drift (inv, CML_INTEGRATOR_RK4_FIXED, 0.1, 100, NULL, z_inv);
  double d_ref = unit_drift (free_body, CML_INTEGRATOR_RK8PD, 0, 100, NULL, z_ref);
  g_test_message ("| |q|² − 1 | at most: %.3g undeclared, %.3g [quaternions], %.3g [invariants]; %.3g rk8pd",
                  d_free, d_quat, d_inv, d_ref);
  g_assert_cmpfloat (d_free, >, 1e-7);
  g_assert_cmpfloat (d_quat, <, 1e-14);
  g_assert_cmpfloat (d_inv, <, 1e-14);
  /* the same motion: the attitude and the body velocities of the kept runs are those of a
   * tight reference run to the coarse method's error (1e-3 here), the undeclared run's too */
  for (guint i = 0; i < 7; i++)
    {
      g_assert_cmpfloat (fabs (z_quat[i] - z_ref[i]), <, 1e-3);
      g_assert_cmpfloat (fabs (z_inv[i] - z_ref[i]), <, 1e-3);
      g_assert_cmpfloat (fabs (z_free[i] - z_ref[i]), <, 1e-3);
    }
  /* both declarations keep the same function: the same numbers */
  for (guint i = 0; i < 7; i++)
    g_assert_cmpfloat (fabs (z_quat[i] - z_inv[i]), <, 1e-12);
}

/* A nonholonomic constraint and an invariant kept together (the Suslov problem: W3 = 0). */
static void
test_kept_with_constraint (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = body_system ("[quaternions]\nq = q0, q1, q2, q3\n", &error);
  g_autofree char *text = body_text ("[quaternions]\nq = q0, q1, q2, q3\n");
  char *dyn = strstr (text, "[dynamics]\n");
  g_assert_nonnull (dyn);
  g_autofree char *head = g_strndup (text, dyn - text + strlen ("[dynamics]\n"));
  g_autofree char *suslov = g_strconcat (head, "constraints = nonholonomic\n", dyn + strlen ("[dynamics]\n"),
                                         "\n[constraints]\nsuslov = W3\n", NULL);
  g_autoptr (CmlModel) model = cml_model_new_from_data (suslov, "suslov.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) s2 = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (GError) run_error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  CmlSimulation *sim = cml_simulation_new (s2, &error);
  g_assert_no_error (error);
  o.kind = CML_INTEGRATOR_RK4_FIXED;
  o.h_fixed = 0.1;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  /* the file's W3 = 0.5 is solved away */
  g_assert_cmpfloat (cml_simulation_get_state (sim)[6], ==, 0);
  for (int k = 1; k <= 100; k++)
    {
      g_assert_true (cml_simulation_advance (sim, k, &run_error));
      const double *z = cml_simulation_get_state (sim);
      g_assert_cmpfloat (fabs (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3] - 1), <, 1e-14);
      g_assert_cmpfloat (fabs (z[6]), <, 1e-14);
    }
  cml_simulation_free (sim);
}

/* Declared values that cannot be invariants are refused, naming the file's line. */
static void
test_refused (void)
{
  static const struct
  {
    const char *extra, *want;
  } cases[] = {
    { "[invariants]\nbad = q0 - 1\n", "the invariant “bad” is not kept by the motion" },
    { "[invariants]\nconst = I1 - 1\n", "does not depend on the base coordinates" },
    { "[invariants]\nfast = q0 + W1\n", "W1" },
    { "[quaternions]\nq = q0, q1, q2\n", "4 components" },
    { "[quaternions]\nq = q0, q1, q2, q2\n", "named twice" },
    { "[quaternions]\nq = q0, q1, q2, nowhere\n", "neither a base coordinate nor a reconstruction variable" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlSystem) sys = body_system (cases[k].extra, &error);
      g_assert_null (sys);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[k].want));
      g_assert_true (g_str_has_prefix (error->message, "body.cml:"));
      /* the line of the invariant or of [quaternions], past the body's own text */
      g_assert_cmpint (atoi (error->message + strlen ("body.cml:")), >, 50);
    }
}

/* The initial data meet the invariant: a given component is kept, the others move. */
static void
test_initial (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = body_system ("[quaternions]\nq = q0, q1, q2, q3\n", &error);
  g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
  double q1 = 0.6, q0 = 1, z[7];
  CmlSimulation *sim = cml_simulation_new (sys, &error);

  g_assert_no_error (error);
  g_hash_table_insert (given, "q1", &q1);
  g_assert_true (cml_simulation_reset (sim, given, &error));
  memcpy (z, cml_simulation_get_state (sim), sizeof z);
  g_assert_cmpfloat (z[1], ==, 0.6);
  g_assert_cmpfloat (fabs (z[0] - 0.8), <, 1e-15);
  g_assert_cmpfloat (z[2], ==, 0);
  g_assert_cmpfloat (z[3], ==, 0);
  /* values that cannot all be kept are projected, with a note */
  g_hash_table_insert (given, "q0", &q0);
  g_assert_true (cml_simulation_reset (sim, given, &error));
  memcpy (z, cml_simulation_get_state (sim), sizeof z);
  g_assert_cmpfloat (fabs (z[0] * z[0] + z[1] * z[1] + z[2] * z[2] + z[3] * z[3] - 1), <, 1e-15);
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  g_assert_cmpuint (report->len, >, 0);
  g_assert_nonnull (strstr (report->pdata[0], "q0"));
  /* a file that gives no attitude starts from q = (1, 0, 0, 0) */
  cml_simulation_free (sim);
  g_autofree char *text = body_text ("[quaternions]\nq = q0, q1, q2, q3\n");
  char *init = strstr (text, "q0 = 1\nq1 = 0\nq2 = 0\nq3 = 0\n");
  g_assert_nonnull (init);
  memmove (init, init + strlen ("q0 = 1\nq1 = 0\nq2 = 0\nq3 = 0\n"),
           strlen (init + strlen ("q0 = 1\nq1 = 0\nq2 = 0\nq3 = 0\n")) + 1);
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "body.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) s2 = cml_system_new (model, &error);
  g_assert_no_error (error);
  sim = cml_simulation_new (s2, &error);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (cml_simulation_get_state (sim)[0], ==, 1);
  cml_simulation_free (sim);
}

/* The description lists the invariants kept, apart from the constraints. */
static void
test_described (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = body_system ("[invariants]\nunit = q0^2 + q1^2 + q2^2 + q3^2 - 1\n", &error);
  g_assert_no_error (error);
  g_autofree char *d = cml_system_describe (sys);
  g_assert_nonnull (strstr (d, "invariants of the configuration"));
  g_assert_nonnull (strstr (d, "unit:"));
  g_assert_null (strstr (d, "kept on the constraint set"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/configuration-invariants/kept", test_kept);
  g_test_add_func ("/configuration-invariants/kept-with-constraint", test_kept_with_constraint);
  g_test_add_func ("/configuration-invariants/refused", test_refused);
  g_test_add_func ("/configuration-invariants/initial", test_initial);
  g_test_add_func ("/configuration-invariants/described", test_described);
  return g_test_run ();
}
