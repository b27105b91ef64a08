/* test-pivots.c — a pivot chosen at a sample point may vanish where the matrix does not;
 * a matrix that does become singular is named, with the time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The symbolic solve (cml-symsolve.c) picks its pivots at a generic sample point.  In the
 * models below W = [[3.5 − x, 1], [1, 0]] (det W = −1 everywhere): at the sample point
 * (x ≈ 1) the first pivot is 3.5 − x, which vanishes at x = 3.5 although W is invertible
 * there.  The Euler–Lagrange equations of L = (3.5 − x) u²/2 + u v (x' = u, y' = v):
 *   p_v = u,  d/dt p_v = ∂L/∂y = 0            ⇒  u' = 0;
 *   p_u = (3.5 − x) u + v,  d/dt p_u = ∂L/∂x = −u²/2
 *     ⇒ −u² + v' = −u²/2                       ⇒  v' = u²/2;
 * so x = x0 + u0 t, v = v0 + u0² t/2, y = y0 + v0 t + u0² t²/4.
 *
 * Singular Lagrangians (the constraint algorithm) pick pivots at the sample point too: for
 * W restricted to the complement of its kernel, and for the matrix that fixes the kernel
 * accelerations.  tests/models/data/kernel-pivot.cml derives a model whose kernel
 * accelerations come from a matrix with a first pivot 3.5 − x1 that vanishes while the
 * matrix stays invertible, and its closed form.
 */
#define G_LOG_DOMAIN "test-pivots"

#include "cli-util.h"
#include "physics-util.h"

#define PIVOT_HEAD                          \
  "[model]\n"                               \
  "name = pivot\n"                          \
  "title = a pivot that vanishes where W does not\n" \
  "\n"                                      \
  "[algebroid]\n"

static const char el_model[] = PIVOT_HEAD
  "base = x, y\n"
  "fibre = u, v\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = y: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (3.5 - x)*u^2/2 + u*v\n"
  "\n"
  "[initial]\n"
  "x = 3\n"
  "u = 1\n";

/* The same with a third velocity w tied to u by a nonholonomic constraint w − u = 0:
 * W = [[3.5 − x, 1, 0], [1, 0, 0], [0, 0, 1]]; ẇ = λ and the constraint gives λ = u' = 0,
 * so x, y, v move as above and w = u. */
static const char nh_model[] = PIVOT_HEAD
  "base = x, y\n"
  "fibre = u, v, w\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = y: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (3.5 - x)*u^2/2 + u*v + w^2/2\n"
  "constraints = nonholonomic\n"
  "solve-for = w\n"
  "\n"
  "[constraints]\n"
  "tie = w - u\n"
  "\n"
  "[initial]\n"
  "x = 3\n"
  "u = 1\n";

/* The vakonomic form of the same motion: a third velocity w constrained to Ψ = 0 (w has no
 * anchor), so L̃ = (3.5 − x) u²/2 + u v and R_ab = [[3.5 − x, 1], [1, 0]] over the free
 * velocities (u, v), with the same vanishing first pivot.  W1: p1 = (3.5 − x) u + v,
 * p2 = u; ṗ1 = ∂L̃/∂x = −u²/2, ṗ2 = 0: u = p2 = 1, v = p1 − (3.5 − x) u = t/2 from v0 = 0,
 * as above. */
static const char vak_model[] = PIVOT_HEAD
  "base = x, y\n"
  "fibre = u, v, w\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = y: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (3.5 - x)*u^2/2 + u*v + w^2/2\n"
  "constraints = vakonomic\n"
  "\n"
  "[constraints]\n"
  "w = 0\n"
  "\n"
  "[initial]\n"
  "x = 3\n"
  "u = 1\n"
  "v = 0\n"
  "\n"
  "[output]\n"
  "columns = x, y, u, v, p1\n";

/* W = diag(1, 1 − t) becomes singular at t = 1: L = u²/2 + (1 − t) v²/2 − y gives
 * d/dt((1 − t) v) = −1, v = (v0 − t)/(1 − t), which blows up there (v0 = 0). */
static const char losing_model[] =
  "[model]\n"
  "name = losing\n"
  "title = W becomes singular at t = 1\n"
  "\n"
  "[algebroid]\n"
  "base = x, y\n"
  "fibre = u, v\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = y: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = u^2/2 + (1 - t)*v^2/2 - y\n"
  "\n"
  "[initial]\n"
  "u = 1\n";

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
  g_assert_nonnull (last);
  for (guint c = 0; header[c]; c++)
    if (g_str_equal (header[c], name))
      col = c;
  g_assert_cmpint (col, >=, 0);
  g_auto (GStrv) cells = g_strsplit (last, ",", -1);
  return g_ascii_strtod (cells[col], NULL);
}

/* Runs TEXT from x = X0 (u = 1, v = y = 0) to t = 1 with INTEGRATOR; checks the closed form. */
static void
check_run (const char *text, const char *x0, const char *integrator)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "pivot.cml", text);
  g_autofree char *out = NULL, *err = NULL;
  double x = g_ascii_strtod (x0, NULL);
  g_autofree char *init = g_strdup_printf ("x=%s", x0);

  int status = cli_run (&out, &err, "simulate", model, "--init", init, "--integrator", integrator, "--t-end", "1",
                        "--dt-out", "0.25", "--rtol", "1e-12", "--atol", "1e-13", NULL);
  g_test_message ("stderr: %s", err);
  g_assert_cmpint (status, ==, 0);
  assert_close (last_value (out, "x"), x + 1, 1e-12);
  assert_close (last_value (out, "u"), 1, 1e-12);
  assert_close (last_value (out, "v"), 0.5, 1e-12);
  assert_close (last_value (out, "y"), 0.25, 1e-12);
  cli_remove_dir (dir);
}

/* From x = 3.5 the first pivot is exactly 0 at the first evaluation. */
static void test_el_at_zero_pivot (void) { check_run (el_model, "3.5", "rk8pd"); }
/* Through x = 3.5, with both methods of the report. */
static void test_el_crossing_rk8pd (void) { check_run (el_model, "3", "rk8pd"); }
static void test_el_crossing_rkf45 (void) { check_run (el_model, "3", "rkf45"); }
static void test_nh_at_zero_pivot (void) { check_run (nh_model, "3.5", "rk8pd"); }
static void test_nh_crossing (void) { check_run (nh_model, "3.25", "rk8pd"); }
static void test_vak_at_zero_pivot (void) { check_run (vak_model, "3.5", "rk8pd"); }
static void test_vak_crossing (void) { check_run (vak_model, "3.25", "rk8pd"); }

/* A matrix that does become singular: the run fails (exit 1) and says which matrix and
 * when (close to t = 1), not "step size underflow". */
static void
test_regularity_lost (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "losing.cml", losing_model);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "2", "--dt-out", "0.5", NULL), ==, 1);
  g_test_message ("stderr: %s", err);
  const char *at = strstr (err, "the regularity matrix W = ∂²L/∂y∂y became singular at t = ");
  g_assert_nonnull (at);
  double t = g_ascii_strtod (at + strlen ("the regularity matrix W = ∂²L/∂y∂y became singular at t = "), NULL);
  g_assert_cmpfloat (t, <, 1);
  g_assert_cmpfloat (t, >, 1 - 1e-4);
  cli_remove_dir (dir);
}

/* ---- singular Lagrangians -------------------------------------------------------------- */

static CmlSimulation *
sim_kernel_pivot (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "kernel-pivot.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  CmlSimulation *sim = sim_from_model (model);
  g_assert_cmpint (cml_system_get_formalism (cml_simulation_get_system (sim)), ==, CML_FORMALISM_SINGULAR);
  sim_set_integrator (sim, CML_INTEGRATOR_RK8PD, 1e-13, 1e-13);
  return sim;
}

/* From x1 = X (x2 = x3 = x4 = 0, q = 1, p = 0): the closed form of kernel-pivot.cml at
 * several times, up to t = 1, through x1 = 3.5 if X < 3.5 < X + 1. */
static void
check_kernel_pivot (double X)
{
  g_autoptr (CmlSimulation) sim = sim_kernel_pivot ();
  const double times[] = { 0, 0.25, 0.5, 0.75, 1 };

  sim_reset (sim, "x1", X, "x2", 0.0, "x3", 0.0, "x4", 0.0, "q", 1.0, "p", 0.0, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    {
      double t = times[k], x34 = (3.5 - X) * t - t * t / 2;
      if (t > 0)
        sim_advance (sim, t);
      assert_close (sim_obs (sim, "x1"), X + t, 1e-10);
      assert_close (sim_obs (sim, "x2"), -t, 1e-10);
      assert_close (sim_obs (sim, "x3"), x34, 1e-10);
      assert_close (sim_obs (sim, "x4"), x34, 1e-10);
      assert_close (sim_obs (sim, "u1"), 1, 1e-10);
      assert_close (sim_obs (sim, "u2"), -1, 1e-10);
      assert_close (sim_obs (sim, "u3"), 3.5 - X - t, 1e-10);
      assert_close (sim_obs (sim, "u4"), 3.5 - X - t, 1e-10);
      assert_close (sim_obs (sim, "q"), cos (t), 1e-10);
      assert_close (sim_obs (sim, "p"), -sin (t), 1e-10);
      assert_close (sim_obs (sim, "energy"), 0.5, 1e-10);
      /* the accelerations themselves, where the pivot is 0 */
      assert_close (sim_rhs (sim, "u3"), -1, 1e-10);
      assert_close (sim_rhs (sim, "u4"), -1, 1e-10);
    }
}

static void test_singular_at_zero_pivot (void) { check_kernel_pivot (3.5); }
static void test_singular_crossing (void) { check_kernel_pivot (3); }

/* The matrix of the kernel accelerations (F of kernel-pivot.cml with F_24 = 1 − t,
 * Pf F = t − 1) does become singular at t = 1: u2 = (x2 − 1)/(1 − t) runs away.  The run
 * fails and names that matrix and the time. */
static const char losing_kernel_model[] =
  "[model]\n"
  "name = losing-kernel\n"
  "title = the kernel accelerations are not determined at t = 1\n"
  "\n"
  "[algebroid]\n"
  "base = x1, x2, x3, x4\n"
  "fibre = u1, u2, u3, u4\n"
  "\n"
  "[anchor]\n"
  "e1 = x1: 1\n"
  "e2 = x2: 1\n"
  "e3 = x3: 1\n"
  "e4 = x4: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (3.5*x1 - x1^2/2)*u2 + x1*u3 + (1 - t)*x2*u4 + x3 - x4\n"
  "solve-for = u1, u2, u3, u4\n";

static void
test_singular_regularity_lost (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "losing.cml", losing_kernel_model);
  g_autofree char *out = NULL, *err = NULL;
  const char *what = "the matrix of the kernel accelerations (the SODE condition) became singular at t = ";

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "2", "--dt-out", "0.5", NULL), ==, 1);
  g_test_message ("stderr: %s", err);
  const char *at = strstr (err, what);
  g_assert_nonnull (at);
  double t = g_ascii_strtod (at + strlen (what), NULL);
  g_assert_cmpfloat (t, <, 1);
  g_assert_cmpfloat (t, >, 1 - 1e-4);
  cli_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/pivots/euler-lagrange/zero-pivot", test_el_at_zero_pivot);
  g_test_add_func ("/models/pivots/euler-lagrange/crossing-rk8pd", test_el_crossing_rk8pd);
  g_test_add_func ("/models/pivots/euler-lagrange/crossing-rkf45", test_el_crossing_rkf45);
  g_test_add_func ("/models/pivots/nonholonomic/zero-pivot", test_nh_at_zero_pivot);
  g_test_add_func ("/models/pivots/nonholonomic/crossing", test_nh_crossing);
  g_test_add_func ("/models/pivots/vakonomic/zero-pivot", test_vak_at_zero_pivot);
  g_test_add_func ("/models/pivots/vakonomic/crossing", test_vak_crossing);
  g_test_add_func ("/models/pivots/regularity-lost", test_regularity_lost);
  g_test_add_func ("/models/pivots/singular/zero-pivot", test_singular_at_zero_pivot);
  g_test_add_func ("/models/pivots/singular/crossing", test_singular_crossing);
  g_test_add_func ("/models/pivots/singular/regularity-lost", test_singular_regularity_lost);
  return g_test_run ();
}
