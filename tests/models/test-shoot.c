/* test-shoot.c — shooting for vakonomic extremals and their conjugate times (cml-shoot.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Checked against extremals known in closed form (doc/theory.md §13): the Heisenberg
 * geodesics from the origin (tests/models/data/heisenberg.cml),
 *   w = x + i y = c (e^{i pz t} − 1)/(i pz),   z = |c|² (t − sin(pz t)/pz)/(2 pz),
 * with c = px + i py at the origin, whose first conjugate time is 2π/|pz|; and the
 * Martinet geodesic of oracle O4 (doc/theory.md §9.3, §10: k = 1 from x1 = 0, u = 1,
 * y1 = 0; period 4K(1/2), over which x2 advances by R T (2E(m)/K(m) − 1), m = 1/2).
 * From guesses 10–20 % off, shooting to the closed-form endpoint recovers the momenta;
 * from a guess damped Newton alone cannot use, continuation in the target does; models and
 * targets it does not apply to are refused with the reason.
 *
 * The conjugate times do not depend on the integrator: on the Engel group
 * (tests/models/data/engel-group.cml), where det ∂x/∂p(0) vanishes like t¹⁰ at the start,
 * every integrator finds none before the first true one, and the same first one.  With an
 * integrable constraint (tests/models/data/parabola-vakonomic.cml) the determinant vanishes
 * identically: the result says the endpoint map is degenerate instead of listing times,
 * and a target off the reachable parabola fails, within the iteration limit, saying so.
 * Targets at the start point give the extremal at rest.
 */
#define G_LOG_DOMAIN "test-shoot"

#include "cml-shoot.h"
#include "physics-util.h"

static char *
data_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

static CmlSimulation *
heisenberg (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_path ("heisenberg.cml");
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  return sim_from_model (model);
}

/* The closed-form endpoint (x, y, z) at T of the Heisenberg geodesic from the origin with
 * momenta (px, py, pz). */
static void
heisenberg_endpoint (double px, double py, double pz, double T, double *out)
{
  double th = pz * T;
  /* c (e^{iθ} − 1)/(i pz) = c (sin θ − i (cos θ − 1))/pz */
  double re = sin (th), im = -(cos (th) - 1);
  out[0] = (px * re - py * im) / pz;
  out[1] = (px * im + py * re) / pz;
  out[2] = (px * px + py * py) * (T - sin (th) / pz) / (2 * pz);
}

static CmlSimulation *
data_sim (const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_path (file);
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  return sim_from_model (model);
}

static void
use_integrator (CmlSimulation *sim, const char *name)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_assert_true (cml_integrator_kind_from_string (name, &o.kind));
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
}

/* The number N in "... N Newton iterations ..." of MESSAGE. */
static guint
iterations_in (const char *message)
{
  const char *p = strstr (message, " Newton iterations");
  g_assert_nonnull (p);
  while (p > message && g_ascii_isdigit (p[-1]))
    p--;
  return (guint) g_ascii_strtoull (p, NULL, 10);
}

static const char *const xyz[] = { "x", "y", "z" };

static CmlShootResult *
shoot_ok (CmlSimulation *sim, double T, guint k, const char *const *names, const double *values,
          const CmlShootOptions *opt)
{
  g_autoptr (GError) error = NULL;
  CmlShootResult *res = cml_shoot (sim, T, k, names, values, opt, &error);
  g_assert_no_error (error);
  g_assert_nonnull (res);
  return res;
}

static void
test_heisenberg_recovers (void)
{
  const double p[3] = { 0.6, 0.8, 1.3 }, T = 3;
  double target[3];
  heisenberg_endpoint (p[0], p[1], p[2], T, target);
  g_autoptr (CmlSimulation) sim = heisenberg ();
  /* a guess 10–20 % off in every momentum */
  sim_reset (sim, "px", 0.6 * 1.15, "py", 0.8 * 0.88, "pz", 1.3 * 1.2, NULL);
  g_autoptr (CmlShootResult) res = shoot_ok (sim, T, 3, xyz, target, NULL);
  g_assert_false (res->continuation_used);
  g_assert_cmpuint (res->n_momenta, ==, 3);
  g_assert_cmpstr (res->momentum_names[2], ==, "pz");
  for (guint j = 0; j < 3; j++)
    assert_close (res->momenta[j], p[j], 1e-9);
  g_assert_cmpfloat (res->residual, <=, 1e-9);
  /* T < 2π/pz: no conjugate point yet */
  g_assert_cmpuint (res->conjugate_times->len, ==, 0);
  g_assert_cmpstr (res->conjugate_rows, ==, "x, y, z");
  /* the simulation now starts from the momenta found and reaches the target */
  g_assert_cmpfloat (cml_simulation_get_time (sim), ==, 0.0);
  assert_close (sim_obs (sim, "pz"), res->momenta[2], 0);
  sim_advance (sim, T);
  for (guint i = 0; i < 3; i++)
    assert_close (sim_obs (sim, xyz[i]), target[i], 1e-9);
}

static void
test_heisenberg_conjugate (void)
{
  /* T past the first conjugate time 2π/pz = 5.236 */
  const double p[3] = { 1, 0, 1.2 }, T = 6;
  double target[3];
  heisenberg_endpoint (p[0], p[1], p[2], T, target);
  g_autoptr (CmlSimulation) sim = heisenberg ();
  sim_reset (sim, "px", 1.1, "py", 0.1, "pz", 1.2 * 0.9, NULL);
  g_autoptr (CmlShootResult) res = shoot_ok (sim, T, 3, xyz, target, NULL);
  for (guint j = 0; j < 3; j++)
    assert_close (res->momenta[j], p[j], 1e-9);
  g_assert_cmpuint (res->conjugate_times->len, >=, 1);
  assert_close (g_array_index (res->conjugate_times, double, 0), 2 * G_PI / fabs (res->momenta[2]), 1e-8);
}

static void
test_martinet_recovers (void)
{
  /* oracle O4: k = 1, x1 = 0, u = 1, y1 = 0; one period of x1, 4K(1/2) */
  const double Kh = 1.8540746773013719, Eh = 1.3506438810476755, T = 4 * Kh;
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  sim_reset (sim, "u", 1.0, "y1", 0.0, "k", 1.0, NULL);
  sim_advance (sim, T);
  const char *const names[] = { "x1", "x2", "x3" };
  double target[3];
  for (guint i = 0; i < 3; i++)
    target[i] = sim_obs (sim, names[i]);
  /* the endpoint is O4's: x1 back at 0, x2 advanced by R T (2E/K − 1) with R = 1 */
  assert_close (target[0], 0, 1e-9);
  assert_close (target[1], T * (2 * Eh / Kh - 1), 1e-8);

  sim_reset (sim, "u", 1.15, "y1", 0.1, "k", 0.85, NULL);
  g_autoptr (CmlShootResult) res = shoot_ok (sim, T, 3, names, target, NULL);
  g_assert_cmpstr (res->momentum_names[0], ==, "p_u");
  assert_close (res->momenta[0], 1, 1e-9);
  assert_close (res->momenta[1], 0, 1e-9);
  assert_close (res->momenta[2], 1, 1e-9);
  g_assert_cmpstr (res->conjugate_rows, ==, "x1, x2, x3");
}

static void
test_martinet_minimum_norm (void)
{
  /* two targets, three momenta: the minimum-norm Newton step still converges */
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  sim_reset (sim, "u", 1.0, "y1", 0.0, "k", 1.0, NULL);
  const char *const names[] = { "x1", "x2" };
  const double target[] = { 0.5, 2 };
  g_autoptr (CmlShootResult) res = shoot_ok (sim, 5, 2, names, target, NULL);
  g_assert_cmpfloat (res->residual, <=, 1e-9);
  sim_advance (sim, 5);
  assert_close (sim_obs (sim, "x1"), 0.5, 1e-9);
  assert_close (sim_obs (sim, "x2"), 2, 1e-9);
}

static void
test_continuation (void)
{
  /* from (1, 0, 1) the geodesic with c = −1 + 0.2 i, pz = 0.5 is out of damped Newton's
   * reach; continuation in the target gets there */
  const double p[3] = { -1, 0.2, 0.5 }, T = 3;
  double target[3];
  heisenberg_endpoint (p[0], p[1], p[2], T, target);
  g_autoptr (CmlSimulation) sim = heisenberg ();
  sim_reset (sim, "px", 1.0, "py", 0.0, "pz", 1.0, NULL);

  CmlShootOptions opt = cml_shoot_options_default ();
  opt.continuation = FALSE;
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlShootResult) res = cml_shoot (sim, T, 3, xyz, target, &opt, &error);
    g_assert_null (res);
    g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
    g_assert_nonnull (strstr (error->message, "Newton"));
    g_assert_nonnull (strstr (error->message, "try a closer guess with --init"));
    /* the simulation keeps its state */
    assert_close (sim_obs (sim, "pz"), 1, 0);
  }
  g_autoptr (CmlShootResult) res = shoot_ok (sim, T, 3, xyz, target, NULL);
  g_assert_true (res->continuation_used);
  g_assert_cmpuint (res->continuation_steps, >=, 1);
  for (guint j = 0; j < 3; j++)
    assert_close (res->momenta[j], p[j], 1e-9);
}

static void
test_engel_every_integrator (void)
{
  static const char *const integrators[] = { "dop853", "rk8pd", "msbdf", "rkf45", "rk4-fixed", "implicit-midpoint" };
  const char *const names[] = { "x1", "x2", "x3", "x4" };
  /* T = 1: no conjugate time; T = 2: one, at 1.676366707… (dop853 and rk8pd agree to 1e-10) */
  const double near[] = { 1, 0.5, 0.2, 0.1 }, far[] = { 0, 1, 0, 0.3 };
  double first = 0;

  for (guint k = 0; k < G_N_ELEMENTS (integrators); k++)
    {
      g_test_message ("%s", integrators[k]);
      g_autoptr (CmlSimulation) sim = data_sim ("engel-group.cml");
      use_integrator (sim, integrators[k]);
      g_autoptr (CmlShootResult) res = shoot_ok (sim, 1, 4, names, near, NULL);
      g_assert_cmpstr (res->conjugate_rows, ==, "x1, x2, x3, x4");
      g_assert_null (res->conjugate_note);
      /* none at the start, where det ∂x/∂p(0) ~ t¹⁰ is below one step's error */
      g_assert_cmpuint (res->conjugate_times->len, ==, 0);

      sim_reset (sim, "p1", 1.0, "p2", 0.5, "p3", 0.3, "p4", 0.2, NULL);
      g_autoptr (CmlShootResult) res2 = shoot_ok (sim, 2, 4, names, far, NULL);
      g_assert_cmpuint (res2->conjugate_times->len, ==, 1);
      double t = g_array_index (res2->conjugate_times, double, 0);
      if (k == 0)
        first = t;
      /* the fixed-step methods at their step 1e-3 (halved for the conjugate times) */
      g_assert_cmpfloat (fabs (t - first), <=, 1e-4);
      g_assert_cmpfloat (t, >, 1.5);
    }
}

static void
test_integrable_degenerate (void)
{
  g_autoptr (CmlSimulation) sim = data_sim ("parabola-vakonomic.cml");
  const char *const names[] = { "x", "y" };
  /* on the parabola y = x²/2: reachable, but every time would be conjugate */
  const double on[] = { 1, 0.5 };
  g_autoptr (CmlShootResult) res = shoot_ok (sim, 1, 2, names, on, NULL);
  g_assert_cmpfloat (res->residual, <=, 1e-9);
  g_assert_cmpuint (res->conjugate_times->len, ==, 0);
  g_assert_nonnull (res->conjugate_note);
  g_assert_nonnull (strstr (res->conjugate_note, "the endpoint map is degenerate"));
  g_assert_nonnull (strstr (res->conjugate_note, "integrable"));
}

static void
test_unreachable_bounded (void)
{
  /* (1, 2) is off the parabola y = x²/2 that the extremals from the origin stay on */
  const char *const names[] = { "x", "y" };
  const double off[] = { 1, 2 };
  for (guint limit = 0; limit <= 1; limit++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlSimulation) sim = data_sim ("parabola-vakonomic.cml");
      CmlShootOptions opt = cml_shoot_options_default ();
      /* 2 iterations: the limit stops it first; else it ends when Newton stalls */
      if (limit)
        opt.max_iterations = 2;
      g_autoptr (CmlShootResult) res = cml_shoot (sim, 1, 2, names, off, &opt, &error);
      g_assert_null (res);
      g_assert_error (error, CML_ERROR, CML_ERROR_UNREACHABLE);
      g_test_message ("%s", error->message);
      g_assert_null (strstr (error->message, "--init"));
      if (limit)
        {
          g_assert_nonnull (strstr (error->message, "no solution within 2 Newton iterations (the limit)"));
          g_assert_cmpuint (iterations_in (error->message), ==, 2);
        }
      else
        {
          g_assert_nonnull (strstr (error->message, "the targets are not reachable at T = 1"));
          g_assert_nonnull (strstr (error->message, "rank 1"));
          g_assert_cmpuint (iterations_in (error->message), <=, opt.max_iterations);
        }
      /* the simulation keeps its state */
      assert_close (sim_obs (sim, "px"), 1, 0);
    }
}

static void
test_target_at_start (void)
{
  /* zero displacement: the extremal at rest, p = 0, in no iteration */
  g_autoptr (CmlSimulation) sim = heisenberg ();
  const double zero[3] = { 0, 0, 0 };
  g_autoptr (CmlShootResult) res = shoot_ok (sim, 3, 3, xyz, zero, NULL);
  g_assert_cmpuint (res->iterations, ==, 0);
  g_assert_cmpfloat (res->residual, ==, 0);
  for (guint j = 0; j < 3; j++)
    g_assert_cmpfloat (res->momenta[j], ==, 0);
  g_assert_cmpuint (res->conjugate_times->len, ==, 0);
  g_assert_nonnull (strstr (res->conjugate_note, "the targets are the start point"));
}

static void
test_taylor_refused (void)
{
  /* the Taylor and variational integrators carry no variational equations */
  static const char *const refused[] = { "taylor", "variational" };
  const double target[3] = { 1, 0.5, 0.2 };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlSimulation) sim = heisenberg ();
      CmlIntegratorOptions o = cml_integrator_options_default ();
      g_assert_true (cml_integrator_kind_from_string (refused[k], &o.kind));
      /* the variational integrators refuse this model already: only the Taylor method gets here */
      if (!cml_simulation_set_integrator (sim, &o, NULL))
        continue;
      g_autoptr (CmlShootResult) res = cml_shoot (sim, 3, 3, xyz, target, NULL, &error);
      g_assert_null (res);
      g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "variational equations"));
      g_assert_nonnull (strstr (error->message, "dop853"));
      g_assert_null (strstr (error->message, "cml_"));
    }
}

static void
test_refusals (void)
{
  const double one = 1;
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
    const char *const names[] = { "x" };
    g_autoptr (CmlShootResult) res = cml_shoot (sim, 1, 1, names, &one, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
    g_assert_nonnull (strstr (error->message, "shooting needs a vakonomic system"));
    g_assert_nonnull (strstr (error->message, "rolling-ball has nonholonomic"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlSimulation) sim = sim_open ("martinet");
    const char *const names[] = { "u" };
    g_autoptr (CmlShootResult) res = cml_shoot (sim, 1, 1, names, &one, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
    g_assert_nonnull (strstr (error->message, "“u” cannot be a target"));
    g_assert_nonnull (strstr (error->message, "(x1, x2, x3)"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlSimulation) sim = sim_open ("martinet");
    const char *const names[] = { "x1" };
    g_autoptr (CmlShootResult) res = cml_shoot (sim, 0, 1, names, &one, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
    g_assert_nonnull (strstr (error->message, "must be after the start"));
  }
  {
    /* the plate–ball's table angle alpha = Ω t does not depend on the momenta */
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
    const char *const names[] = { "alpha" };
    g_autoptr (CmlShootResult) res = cml_shoot (sim, 5, 1, names, &one, NULL, &error);
    g_assert_null (res);
    g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
    g_assert_nonnull (strstr (error->message, "the target cannot be reached"));
  }
}

static void
test_plate_ball_no_square_block (void)
{
  /* five momenta, two base coordinates and five reconstruction variables: no square block */
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  const char *const names[] = { "x1", "x2" };
  const double target[] = { 1, 0.5 };
  g_autoptr (CmlShootResult) res = shoot_ok (sim, 3, 2, names, target, NULL);
  g_assert_cmpfloat (res->residual, <=, 1e-9);
  g_assert_null (res->conjugate_rows);
  g_assert_nonnull (strstr (res->conjugate_note, "no square block"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shoot/heisenberg-recovers", test_heisenberg_recovers);
  g_test_add_func ("/shoot/heisenberg-conjugate", test_heisenberg_conjugate);
  g_test_add_func ("/shoot/martinet-recovers", test_martinet_recovers);
  g_test_add_func ("/shoot/martinet-minimum-norm", test_martinet_minimum_norm);
  g_test_add_func ("/shoot/continuation", test_continuation);
  g_test_add_func ("/shoot/refusals", test_refusals);
  g_test_add_func ("/shoot/plate-ball-no-square-block", test_plate_ball_no_square_block);
  g_test_add_func ("/shoot/engel-every-integrator", test_engel_every_integrator);
  g_test_add_func ("/shoot/integrable-degenerate", test_integrable_degenerate);
  g_test_add_func ("/shoot/unreachable-bounded", test_unreachable_bounded);
  g_test_add_func ("/shoot/target-at-start", test_target_at_start);
  g_test_add_func ("/shoot/taylor-refused", test_taylor_refused);
  return g_test_run ();
}
