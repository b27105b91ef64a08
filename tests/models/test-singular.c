/* test-singular.c — the constraint algorithm beyond a constant kernel of W: first-order
 * Lagrangians (W = 0) and a kernel that turns with the base point; and, beyond linear
 * constraints, a nonholonomic constraint quadratic in the velocities (Chetaev's rule) in a
 * non-uniform potential.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each model is in tests/models/data; its comment derives the closed form checked here.
 */
#define G_LOG_DOMAIN "test-singular"

#include "cli-util.h"
#include "physics-util.h"

static char *
data_model (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

static CmlSimulation *
sim_data (const char *file)
{
  g_autofree char *path = data_model (file);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  CmlSimulation *sim = sim_from_model (model);
  sim_set_integrator (sim, CML_INTEGRATOR_RK8PD, 1e-13, 1e-13);
  return sim;
}

/* `cmlab-cli info FILE`: its standard output. */
static char *
info_of (const char *file)
{
  g_autofree char *path = data_model (file);
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = cli_run (&out, &err, "info", path, NULL);
  g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 0);
  return out;
}

static void
assert_contains (const char *text, const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” is not in:\n%s", part, text);
}

/* ---- a first-order Lagrangian ------------------------------------------------------- */

/* ẋ = −y/B, ẏ = x/B from (x0, y0): x, y, u, v at time T against the rotation. */
static void
check_charge (CmlSimulation *sim, double B, double x0, double y0)
{
  const double times[] = { 0, 0.7, G_PI * B, 2 * G_PI * B, 2 * G_PI * B + 3 };
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    {
      double t = times[k], c = cos (t / B), s = sin (t / B);
      double x = x0 * c - y0 * s, y = x0 * s + y0 * c;
      if (t > 0)
        sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), x, 1e-10);
      assert_close (sim_obs (sim, "y"), y, 1e-10);
      assert_close (sim_obs (sim, "u"), -y / B, 1e-10);
      assert_close (sim_obs (sim, "v"), x / B, 1e-10);
      assert_close (sim_obs (sim, "energy"), (x0 * x0 + y0 * y0) / 2, 1e-11);
    }
}

static void
test_first_order_closed_form (void)
{
  g_autoptr (CmlSimulation) sim = sim_data ("first-order-charge.cml");
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (cml_system_get_formalism (sys), ==, CML_FORMALISM_SINGULAR);
  g_assert_false (cml_system_has_gauge_freedom (sys));
  /* the model's own data: x = 1, y = 0, the velocities solved: u = 0, v = 1/B */
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_no_error (error);
  assert_close (sim_obs (sim, "u"), 0, 1e-15);
  assert_close (sim_obs (sim, "v"), 0.5, 1e-15);
  check_charge (sim, 2, 1, 0);

  /* given values, another field */
  sim_set_params (sim, "B", 0.75, NULL);
  sim_reset (sim, "x", 0.3, "y", -0.7, NULL);
  check_charge (sim, 0.75, 0.3, -0.7);
}

static void
test_first_order_info (void)
{
  g_autofree char *out = info_of ("first-order-charge.cml");
  assert_contains (out, "rank W = 0 of 2");
  assert_contains (out, "primary constraint: ");
  assert_contains (out, "kernel acceleration κ₁ = ");
  assert_contains (out, "kernel acceleration κ₂ = ");
  assert_contains (out, "no gauge freedom");
  assert_contains (out, "final constraint set S^X");
}

/* A Lagrangian with no velocity at all is still refused (nothing to integrate). */
static void
test_no_velocity_refused (void)
{
  static const char text[] =
    "[model]\nname = still\ntitle = no velocities\n\n"
    "[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n"
    "[dynamics]\nlagrangian = -x^2/2\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "still.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_null (sys);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "does not depend on the velocities"));
}

/* ---- a kernel of W that depends on the point ---------------------------------------- */

static void
test_varying_kernel_closed_form (void)
{
  g_autoptr (CmlSimulation) sim = sim_data ("varying-kernel.cml");
  g_autoptr (GError) error = NULL;
  const double times[] = { 0, 0.4, 1, 2.5, 6 };
  const double x0 = 1, c = x0 * sqrt (x0 * x0 + 1);

  g_assert_cmpint (cml_system_get_formalism (cml_simulation_get_system (sim)), ==, CML_FORMALISM_SINGULAR);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    {
      double t = times[k], tau = t + c;
      double x = sqrt ((sqrt (1 + 4 * tau * tau) - 1) / 2), s = sqrt (x * x + 1);
      if (t > 0)
        sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), x, 1e-10);
      assert_close (sim_obs (sim, "y"), x * x - x0 * x0, 1e-10);
      assert_close (sim_obs (sim, "u"), s / (2 * x * x + 1), 1e-10);
      assert_close (sim_obs (sim, "v"), 2 * s * x / (2 * x * x + 1), 1e-10);
    }
}

static void
test_varying_kernel_info (void)
{
  g_autofree char *out = info_of ("varying-kernel.cml");
  assert_contains (out, "rank W = 1 of 2");
  /* the kernel is printed as a function of x */
  assert_contains (out, "ker W = span{");
  assert_contains (out, "x");
  assert_contains (out, "secondary constraint");
  assert_contains (out, "kernel acceleration κ₁ = ");
}

/* The same kernel next to the kernel accelerations of kernel-pivot.cml, whose matrix has a
 * first pivot 3.5 − x1 that vanishes where the matrix does not: from x1 = X, at x1 = 3.5
 * itself or through it, both parts keep their closed forms (varying-kernel-pivot.cml). */
static void
check_varying_kernel_pivot (double X)
{
  g_autoptr (CmlSimulation) sim = sim_data ("varying-kernel-pivot.cml");
  const double times[] = { 0, 0.25, 0.5, 0.75, 1 };
  const double x0 = 1, c = x0 * sqrt (x0 * x0 + 1);

  sim_reset (sim, "x1", X, "w3", 3.5 - X, "w4", 3.5 - X, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    {
      double t = times[k], tau = t + c, x34 = (3.5 - X) * t - t * t / 2;
      double x = sqrt ((sqrt (1 + 4 * tau * tau) - 1) / 2), s = sqrt (x * x + 1);
      if (t > 0)
        sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), x, 1e-10);
      assert_close (sim_obs (sim, "y"), x * x - x0 * x0, 1e-10);
      assert_close (sim_obs (sim, "u"), s / (2 * x * x + 1), 1e-10);
      assert_close (sim_obs (sim, "v"), 2 * s * x / (2 * x * x + 1), 1e-10);
      assert_close (sim_obs (sim, "x1"), X + t, 1e-10);
      assert_close (sim_obs (sim, "x2"), -t, 1e-10);
      assert_close (sim_obs (sim, "x3"), x34, 1e-10);
      assert_close (sim_obs (sim, "x4"), x34, 1e-10);
      assert_close (sim_obs (sim, "w1"), 1, 1e-10);
      assert_close (sim_obs (sim, "w2"), -1, 1e-10);
      assert_close (sim_obs (sim, "w3"), 3.5 - X - t, 1e-10);
      assert_close (sim_obs (sim, "w4"), 3.5 - X - t, 1e-10);
    }
}

static void test_varying_kernel_zero_pivot (void) { check_varying_kernel_pivot (3.5); }
static void test_varying_kernel_crossing (void) { check_varying_kernel_pivot (3); }

/* ---- a constraint nonlinear in the velocities --------------------------------------- */

/* Unit speed in the potential k ln y (isokinetic-log.cml): for k = 1 a circle of radius
 * 1/c, c = u0/y0, from (0, 1) with (u, v) = (0.6, 0.8), through v = 0 (ψ = π/2, at
 * t ≈ 1.55) down to y ≈ 0.16 at t = 4. */
static void
test_isokinetic_log_closed_form (void)
{
  g_autoptr (CmlSimulation) sim = sim_data ("isokinetic-log.cml");
  g_autoptr (GError) error = NULL;
  const double times[] = { 0, 0.5, 1, G_PI / 2 / 0.6 - atan2 (0.6, 0.8) / 0.6, 2.5, 4 };
  const double c = 0.6, psi0 = atan2 (0.6, 0.8);

  g_assert_cmpint (cml_system_get_formalism (cml_simulation_get_system (sim)), ==, CML_FORMALISM_NONHOLONOMIC);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    {
      double t = times[k], psi = psi0 + c * t;
      if (t > 0)
        sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), (cos (psi0) - cos (psi)) / c, 1e-10);
      assert_close (sim_obs (sim, "y"), sin (psi) / c, 1e-10);
      assert_close (sim_obs (sim, "u"), sin (psi), 1e-10);
      assert_close (sim_obs (sim, "v"), cos (psi), 1e-10);
      assert_close (sim_obs (sim, "heading"), c, 1e-11);
    }
}

/* Any k: u y^(−k) is conserved, the speed stays 1, and the accelerations are
 * u' = k u v/y, v' = −k u²/y (the file's comment). */
static void
test_isokinetic_log_invariant (void)
{
  g_autoptr (CmlSimulation) sim = sim_data ("isokinetic-log.cml");
  const double k = 2.5, y0 = 1.2, u0 = -0.28, v0 = 0.96, c = u0 * pow (y0, -k);

  sim_set_params (sim, "k", k, NULL);
  sim_reset (sim, "x", 0.3, "y", y0, "u", u0, "v", v0, NULL);
  for (guint step = 0; step <= 6; step++)
    {
      if (step > 0)
        sim_advance (sim, 0.25 * step);
      double y = sim_obs (sim, "y"), u = sim_obs (sim, "u"), v = sim_obs (sim, "v");
      assert_close (u * pow (y, -k), c, 1e-10);
      assert_close (sim_obs (sim, "heading"), c, 1e-10);
      assert_close (u * u + v * v, 1, 1e-12);
      assert_close (sim_rhs (sim, "u"), k * u * v / y, 1e-10);
      assert_close (sim_rhs (sim, "v"), -k * u * u / y, 1e-10);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/singular/first-order/closed-form", test_first_order_closed_form);
  g_test_add_func ("/singular/first-order/info", test_first_order_info);
  g_test_add_func ("/singular/first-order/no-velocity", test_no_velocity_refused);
  g_test_add_func ("/singular/varying-kernel/closed-form", test_varying_kernel_closed_form);
  g_test_add_func ("/singular/varying-kernel/info", test_varying_kernel_info);
  g_test_add_func ("/singular/varying-kernel/zero-pivot", test_varying_kernel_zero_pivot);
  g_test_add_func ("/singular/varying-kernel/crossing", test_varying_kernel_crossing);
  g_test_add_func ("/nonlinear-constraint/isokinetic-log/closed-form", test_isokinetic_log_closed_form);
  g_test_add_func ("/nonlinear-constraint/isokinetic-log/invariant", test_isokinetic_log_invariant);
  return g_test_run ();
}
