/* test-forces.c — forces that are not in the Lagrangian ([forces]): a Rayleigh dissipation
 * function and generalized forces along the sections, in the Euler–Lagrange and the
 * nonholonomic (Lagrange–d'Alembert) equations, against closed forms and an independent
 * derivation.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *  - damped oscillator, L = m u²/2 − k x²/2, D = c u²/2: with γ = c/(2m), ω₀² = k/m,
 *    ω_d = √(ω₀² − γ²),  x(t) = e^{−γt} (x₀ cos ω_d t + (u₀ + γ x₀)/ω_d sin ω_d t);
 *  - driven damped oscillator, F = −c u + F₀ cos Ω t: once the transient e^{−γt} has died
 *    out, x(t) = a cos (Ω t − δ) with a = (F₀/m)/√((ω₀² − Ω²)² + (2γΩ)²) and
 *    tan δ = 2γΩ/(ω₀² − Ω²);
 *  - Chaplygin sleigh with viscous friction D = c V²/2 on the speed V = u cos θ + v sin θ
 *    along the blade.  Written by hand (Newton's laws for the centre of mass and the
 *    rotation, the blade's reaction λ across it): V̇ = a w² − (c/m) V,
 *    (I_c + m a²) ẇ = −m a V w, θ̇ = w, ẋ = V cos θ − a w sin θ, ẏ = V sin θ + a w cos θ,
 *    λ = m (V w + a ẇ); integrated here with GSL at 1e-13.
 *  - the ball on the turning table with rolling resistance D = c (ω₁² + ω₂²)/2
 *    (doc/examples/rolling-ball-resistance.cml), against Newton–Euler by hand (test_ball).
 * Also: the variational integrators and the vakonomic and singular kinds refuse forces,
 * and the inspector reports the energy balance dE/dt = F·y instead of conservation.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <string.h>

#include "cml-as-vakonomic.h"
#include "cml-conserved.h"
#include "cml-variational.h"
#include "physics-util.h"

static const char oscillator[] =
  "[model]\nname = damped\ntitle = damped oscillator\n"
  "[parameters]\nm = 1.3 | 0 .. 100 | 1 | p\nk = 2.7 | 0 .. 100 | 1 | p\nc = 0.4 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = x\nfibre = u\n"
  "[anchor]\ne1 = x: 1\n"
  "[dynamics]\nlagrangian = m/2*u^2 - k/2*x^2\n"
  "[forces]\ndissipation = c/2*u^2\n"
  "[initial]\nx = 0.8\nu = -0.3\n";

static const char driven[] =
  "[model]\nname = driven\ntitle = driven oscillator\n"
  "[parameters]\nm = 0.9 | 0 .. 100 | 1 | p\nk = 2.1 | 0 .. 100 | 1 | p\nc = 0.9 | 0 .. 100 | 1 | p\nF0 = 0.7 | 0 .. 100 | 1 | p\nOm = 1.9 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = x\nfibre = u\n"
  "[anchor]\ne1 = x: 1\n"
  "[dynamics]\nlagrangian = m/2*u^2 - k/2*x^2\n"
  "[forces]\ne1 = -c*u + F0*cos(Om*t)\n"
  "[initial]\nx = 0.2\nu = 0.1\n";

static const char sleigh[] =
  "[model]\nname = sleigh\ntitle = sleigh with friction\n"
  "[parameters]\nm = 1.1 | 0 .. 100 | 1 | p\nIc = 0.3 | 0 .. 100 | 1 | p\na = 0.45 | 0 .. 100 | 1 | p\nc = 0.25 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = x, y, theta\nfibre = u, v, w\nsections = e1, e2, e3\n"
  "[anchor]\ne1 = x: 1\ne2 = y: 1\ne3 = theta: 1\n"
  "[dynamics]\nlagrangian = m/2*(u^2 + v^2) + Ic/2*w^2\nconstraints = nonholonomic\nsolve-for = w\n"
  "[forces]\ndissipation = c/2*(u*cos(theta) + v*sin(theta))^2\n"
  "[constraints]\nblade = -u*sin(theta) + v*cos(theta) - a*w\n"
  "[initial]\nx = 0.1\ny = -0.2\ntheta = 0.3\nu = 0.4\nv = 1.2\n";

static CmlSimulation *
sim_text (const char *text, CmlIntegratorKind kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "test.cml", &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  CmlSimulation *sim = sim_from_model (model);
  sim_set_integrator (sim, kind, 1e-13, 1e-13);
  return sim;
}

static void
test_damped (gconstpointer data)
{
  CmlIntegratorKind kind = GPOINTER_TO_INT (data);
  g_autoptr (CmlSimulation) sim = sim_text (oscillator, kind);
  const double m = 1.3, k = 2.7, c = 0.4, x0 = 0.8, u0 = -0.3;
  const double g = c / (2 * m), wd = sqrt (k / m - g * g);

  for (int j = 1; j <= 10; j++)
    {
      double t = 1.5 * j;
      sim_advance (sim, t);
      double e = exp (-g * t), C = cos (wd * t), S = sin (wd * t);
      double x = e * (x0 * C + (u0 + g * x0) / wd * S);
      double u = -g * x + e * (-x0 * wd * S + (u0 + g * x0) * C);
      assert_close (sim_state (sim, "x"), x, 1e-8);
      assert_close (sim_state (sim, "u"), u, 1e-8);
    }
}

static void
test_driven (gconstpointer data)
{
  CmlIntegratorKind kind = GPOINTER_TO_INT (data);
  g_autoptr (CmlSimulation) sim = sim_text (driven, kind);
  const double m = 0.9, k = 2.1, c = 0.9, F0 = 0.7, Om = 1.9;
  const double g = c / (2 * m), w0s = k / m;
  const double a = (F0 / m) / hypot (w0s - Om * Om, 2 * g * Om), d = atan2 (2 * g * Om, w0s - Om * Om);

  /* the transient is below e^{−γ t} ≈ 1e-14 from t = 64 on */
  for (int j = 0; j <= 8; j++)
    {
      double t = 64 + 0.7 * j;
      sim_advance (sim, t);
      assert_close (sim_state (sim, "x"), a * cos (Om * t - d), 1e-8);
      assert_close (sim_state (sim, "u"), -a * Om * sin (Om * t - d), 1e-8);
    }
}

/* the sleigh by hand: s = (x, y, θ, V, w) */
typedef struct
{
  double m, Ic, a, c;
} SleighPar;

static int
sleigh_rhs (double t, const double *s, double *f, void *data)
{
  const SleighPar *p = data;
  double th = s[2], V = s[3], w = s[4];
  (void) t;
  f[0] = V * cos (th) - p->a * w * sin (th);
  f[1] = V * sin (th) + p->a * w * cos (th);
  f[2] = w;
  f[3] = p->a * w * w - p->c / p->m * V;
  f[4] = -p->m * p->a * V * w / (p->Ic + p->m * p->a * p->a);
  return GSL_SUCCESS;
}

static void
test_sleigh (gconstpointer data)
{
  CmlIntegratorKind kind = GPOINTER_TO_INT (data);
  g_autoptr (CmlSimulation) sim = sim_text (sleigh, kind);
  SleighPar p = { 1.1, 0.3, 0.45, 0.25 };
  gsl_odeiv2_system ode = { sleigh_rhs, NULL, 5, &p };
  gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new (&ode, gsl_odeiv2_step_rk8pd, 1e-6, 1e-14, 1e-14);
  double th0 = 0.3, u0 = 0.4, v0 = 1.2;
  double s[5] = { 0.1, -0.2, th0, u0 * cos (th0) + v0 * sin (th0), 0 }, t = 0;

  s[4] = (-u0 * sin (th0) + v0 * cos (th0)) / p.a; /* the blade's constraint */
  assert_close (sim_state (sim, "w"), s[4], 1e-12);
  for (int j = 1; j <= 12; j++)
    {
      double T = 0.75 * j;
      g_assert_cmpint (gsl_odeiv2_driver_apply (drv, &t, T, s), ==, GSL_SUCCESS);
      sim_advance (sim, T);
      double th = s[2], V = s[3], w = s[4], f[5];
      sleigh_rhs (T, s, f, &p);
      assert_close (sim_state (sim, "x"), s[0], 1e-8);
      assert_close (sim_state (sim, "y"), s[1], 1e-8);
      assert_close (sim_state (sim, "theta"), th, 1e-8);
      assert_close (sim_state (sim, "u"), V * cos (th) - p.a * w * sin (th), 1e-8);
      assert_close (sim_state (sim, "v"), V * sin (th) + p.a * w * cos (th), 1e-8);
      assert_close (sim_state (sim, "w"), w, 1e-8);
      /* the multiplier sees the friction only through the motion: λ = m (V w + a ẇ) */
      assert_close (sim_obs (sim, "lambda_blade"), p.m * (V * w + p.a * f[4]), 1e-8);
    }
  /* friction takes the forward speed: it ends below where the frictionless sleigh would be */
  g_assert_cmpfloat (fabs (s[3]), <, 1.0);
  gsl_odeiv2_driver_free (drv);
}

/* the ball on the turning table with rolling resistance (doc/examples), by hand: with
 * the reaction λ at the contact, m (u̇, v̇) = λ, m k² ẇ₁ = r λ_y − c w₁,
 * m k² ẇ₂ = −r λ_x − c w₂, ẇ₃ = 0, and the rolling constraints u = r w₂ − Ω y,
 * v = −r w₁ + Ω x differentiated:
 *   u̇ = −(c (u + Ω y)/m + Ω k² v)/(k² + r²),  v̇ = (c (Ω x − v)/m + Ω k² u)/(k² + r²) */
typedef struct
{
  double m, r, k2, Om, c;
} BallPar;

static int
ball_rhs (double t, const double *s, double *f, void *data)
{
  const BallPar *p = data;
  double x = s[0], y = s[1], u = s[2], v = s[3];
  (void) t;
  f[0] = u;
  f[1] = v;
  f[2] = -(p->c * (u + p->Om * y) / p->m + p->Om * p->k2 * v) / (p->k2 + p->r * p->r);
  f[3] = (p->c * (p->Om * x - v) / p->m + p->Om * p->k2 * u) / (p->k2 + p->r * p->r);
  return GSL_SUCCESS;
}

static void
test_ball (gconstpointer data)
{
  CmlIntegratorKind kind = GPOINTER_TO_INT (data);
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "rolling-ball-resistance.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  sim_set_integrator (sim, kind, 1e-13, 1e-13);
  sim_set_params (sim, "m", 1.3, "r", 0.7, "k2", 0.3, "Omega", 0.9, "c", 0.15, NULL);
  sim_reset (sim, "x", 0.6, "y", -0.4, "u", 0.2, "v", 0.35, "w3", 0.5, NULL);
  BallPar p = { 1.3, 0.7, 0.3, 0.9, 0.15 };
  gsl_odeiv2_system ode = { ball_rhs, NULL, 4, &p };
  gsl_odeiv2_driver *drv = gsl_odeiv2_driver_alloc_y_new (&ode, gsl_odeiv2_step_rk8pd, 1e-6, 1e-14, 1e-14);
  double s[4] = { 0.6, -0.4, 0.2, 0.35 }, t = 0;

  for (int j = 1; j <= 16; j++)
    {
      double T = 1.25 * j, f[4];
      g_assert_cmpint (gsl_odeiv2_driver_apply (drv, &t, T, s), ==, GSL_SUCCESS);
      sim_advance (sim, T);
      ball_rhs (T, s, f, &p);
      assert_close (sim_state (sim, "x"), s[0], 1e-8);
      assert_close (sim_state (sim, "y"), s[1], 1e-8);
      assert_close (sim_state (sim, "u"), s[2], 1e-8);
      assert_close (sim_state (sim, "v"), s[3], 1e-8);
      assert_close (sim_state (sim, "w1"), (p.Om * s[0] - s[3]) / p.r, 1e-8);
      assert_close (sim_state (sim, "w2"), (s[2] + p.Om * s[1]) / p.r, 1e-8);
      assert_close (sim_state (sim, "w3"), 0.5, 1e-10);
      /* the table's force on the ball: λ = m (u̇, v̇) */
      assert_close (sim_obs (sim, "lambda_roll_x"), p.m * f[2], 1e-8);
      assert_close (sim_obs (sim, "lambda_roll_y"), p.m * f[3], 1e-8);
    }
  /* the resistance makes the circling unstable: the centre has moved outwards */
  g_assert_cmpfloat (hypot (s[0], s[1]), >, hypot (0.6, -0.4));
  gsl_odeiv2_driver_free (drv);
}

/* a force written along a section equals the same force from a dissipation function */
static void
test_force_equals_dissipation (void)
{
  g_autofree char *explicit = NULL;
  const char *at = strstr (oscillator, "dissipation = c/2*u^2");
  g_assert_nonnull (at);
  explicit = g_strdup_printf ("%.*se1 = -c*u%s", (int) (at - oscillator), oscillator,
                              at + strlen ("dissipation = c/2*u^2"));
  g_autoptr (CmlSimulation) a = sim_text (oscillator, CML_INTEGRATOR_RK8PD);
  g_autoptr (CmlSimulation) b = sim_text (explicit, CML_INTEGRATOR_RK8PD);
  sim_advance (a, 3);
  sim_advance (b, 3);
  assert_close (sim_state (a, "x"), sim_state (b, "x"), 1e-12);
  assert_close (sim_state (a, "u"), sim_state (b, "u"), 1e-12);
}

static void
test_refusals (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (oscillator, "test.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_false (cml_variational_supports (sys, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "[forces]"));

  /* a nonholonomic model with forces is not read by the vakonomic principle */
  g_clear_error (&error);
  g_autoptr (CmlModel) nh = cml_model_new_from_data (sleigh, "test.cml", &error);
  g_assert_no_error (error);
  g_autofree char *vak = cml_model_vakonomic_text (nh, &error);
  g_assert_null (vak);
  g_assert_error (error, CML_ERROR, CML_ERROR_MODEL);
  g_assert_nonnull (strstr (error->message, "[forces]"));
}

/* the inspector: the energy is not conserved, with the balance dE/dt = F·y and the sign
 * of the dissipation said */
static void
test_energy_balance (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (sleigh, "test.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlConservedReport) r = cml_conserved_inspect (sys);
  const CmlConservedCandidate *E = cml_conserved_report_find (r, CML_CANDIDATE_ENERGY, "E_L");
  g_assert_nonnull (E);
  g_assert_false (cml_conserved_verdict_is_conserved (E->verdict));
  g_assert_nonnull (strstr (E->reason, "F·y"));
  g_assert_nonnull (strstr (E->reason, "−2D"));
}

/* the examples of doc/examples that use [forces] load, run, and lose energy: the sleigh
 * with friction monotonically (dE/dt = −2D ≤ 0) until it nearly stops; the pendulum
 * without its drive (A = 0) likewise, settling at the bottom */
static void
test_examples (void)
{
  const char *names[] = { "sleigh-friction.cml", "driven-pendulum.cml" };
  /* (the ball on the turning table: test_ball) */

  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", names[k], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
      g_assert_no_error (error);
      g_assert_nonnull (model->forces);
      g_autoptr (CmlSimulation) sim = sim_from_model (model);
      sim_precise (sim);
      if (k == 1)
        sim_set_params (sim, "A", 0.0, NULL);
      double E = sim_obs (sim, "energy"), E0 = E;
      for (int j = 1; j <= 60; j++)
        {
          sim_advance (sim, 1.0 * j);
          double e = sim_obs (sim, "energy");
          g_assert_cmpfloat (e, <, E);
          E = e;
        }
      if (k == 0)
        g_assert_cmpfloat (fabs (sim_obs (sim, "forward")), <, 0.1);
      else
        g_assert_cmpfloat (fabs (sim_state (sim, "theta")), <, 1e-3);
      g_assert_cmpfloat (E, <, E0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/forces/damped/rk8pd", GINT_TO_POINTER (CML_INTEGRATOR_RK8PD), test_damped);
  g_test_add_data_func ("/forces/damped/dop853", GINT_TO_POINTER (CML_INTEGRATOR_DOP853), test_damped);
  g_test_add_data_func ("/forces/driven/rk8pd", GINT_TO_POINTER (CML_INTEGRATOR_RK8PD), test_driven);
  g_test_add_data_func ("/forces/driven/dop853", GINT_TO_POINTER (CML_INTEGRATOR_DOP853), test_driven);
  g_test_add_data_func ("/forces/sleigh/rk8pd", GINT_TO_POINTER (CML_INTEGRATOR_RK8PD), test_sleigh);
  g_test_add_data_func ("/forces/sleigh/dop853", GINT_TO_POINTER (CML_INTEGRATOR_DOP853), test_sleigh);
  g_test_add_data_func ("/forces/ball/rk8pd", GINT_TO_POINTER (CML_INTEGRATOR_RK8PD), test_ball);
  g_test_add_data_func ("/forces/ball/dop853", GINT_TO_POINTER (CML_INTEGRATOR_DOP853), test_ball);
  g_test_add_func ("/forces/force-equals-dissipation", test_force_equals_dissipation);
  g_test_add_func ("/forces/refusals", test_refusals);
  g_test_add_func ("/forces/energy-balance", test_energy_balance);
  g_test_add_func ("/forces/examples", test_examples);
  return g_test_run ();
}
