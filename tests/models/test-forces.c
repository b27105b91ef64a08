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
 *  - the variational integrators (forced discrete Lagrange–d'Alembert, midpoint forces
 *    (h/2) F(q_{k+½}, (q_{k+1} − q_k)/h) at each node): on the damped and the driven
 *    oscillator against the closed forms, on a damped driven pendulum and the sleigh with
 *    friction against GSL, on a damped driven rigid body and Suslov problem (so(3), free and
 *    constrained) against rk8pd; the error falls by 4 (variational) or 16 (variational4)
 *    when h halves, and for the oscillator the energy changes over each step by exactly the work of the discrete forces,
 *    E_{k+1} − E_k = F(q_{k+½}, (q_{k+1} − q_k)/h)·(q_{k+1} − q_k);
 *  - singular Lagrangians (the constraint algorithm): L = m u²/2 + b x v − k x²/2 is
 *    singular (W = diag(m, 0)).  With D = c v²/2 the equation along e2 is the primary
 *    constraint b u + c v = 0 (the force makes it depend on v, so its derivative fixes v̇
 *    at once), and m ẍ = b v − k x = −(b²/c) ẋ − k x: a damped oscillator with γ = b²/(2cm),
 *    y − y₀ = −(b/c)(x − x₀).  With a force A cos Ω t along e2 instead: b u = A cos Ω t
 *    (primary), b (b v − k x)/m = −A Ω sin Ω t (secondary), so x = x₀ + A sin Ω t/(bΩ),
 *    y = y₀ + (k/b) ∫ x dt − (m A/b²)(1 − cos Ω t).  And L = u y − x v − (x² + y²)/2 (W = 0)
 *    with F = (−c u, 0): both equations are constraints, y = 2u and x + 2v + c u = 0, so
 *    ẋ = y/2, ẏ = −x/2 − c y/4, solved by e^{At} = e^{αt} (cos βt + sin βt (A − α)/β).
 * Also: the vakonomic kind refuses forces, and the inspector reports the energy balance
 * dE/dt = F·y instead of conservation.
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

/* the damped driven pendulum, L = m l² w²/2 + m g l cos θ, F = −b w + A cos Ω t */
static const char pendulum[] =
  "[model]\nname = pendulum\ntitle = damped driven pendulum\n"
  "[parameters]\nm = 1.2 | 0 .. 100 | 1 | p\nl = 0.9 | 0 .. 100 | 1 | p\ng = 9.81 | 0 .. 100 | 1 | p\n"
  "b = 0.35 | 0 .. 100 | 1 | p\nA = 1.4 | 0 .. 100 | 1 | p\nOm = 2.3 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = theta\nfibre = w\n"
  "[anchor]\ne1 = theta: 1\n"
  "[dynamics]\nlagrangian = m*l^2/2*w^2 + m*g*l*cos(theta)\n"
  "[forces]\ndissipation = b/2*w^2\ne1 = A*cos(Om*t)\n"
  "[initial]\ntheta = 1.1\nw = -0.4\n";

/* a rigid body (so(3), no base) with a damping torque and a periodic torque about e1 */
static const char body[] =
  "[model]\nname = body\ntitle = damped driven rigid body\n"
  "[parameters]\nI1 = 1 | 0.1 .. 10 | 1 | a\nI2 = 2 | 0.1 .. 10 | 1 | b\nI3 = 3 | 0.1 .. 10 | 1 | c\n"
  "c = 0.3 | 0 .. 10 | 1 | c\nA = 0.8 | 0 .. 10 | 1 | c\nOm = 1.3 | 0 .. 10 | 1 | c\n"
  "[algebroid]\nbase =\nfibre = W1, W2, W3\nsections = e1, e2, e3\n"
  "[brackets]\ne1, e2 = e3\ne2, e3 = e1\ne3, e1 = e2\n"
  "[dynamics]\nlagrangian = (I1*W1^2 + I2*W2^2 + I3*W3^2)/2\n"
  "[forces]\ndissipation = c/2*(W1^2 + 2*W2^2 + W3^2)\ne1 = A*cos(Om*t)\n"
  "[initial]\nW1 = 1\nW2 = 0.1\nW3 = 0.5\n";

/* the Suslov problem (so(3) with the constraint W3 = 0 in a body with products of inertia)
 * with a damping torque and a periodic torque */
static const char suslov[] =
  "[model]\nname = suslov\ntitle = damped driven Suslov problem\n"
  "[parameters]\nI11 = 1 | 0.1 .. 10 | 1 | a\nI22 = 2 | 0.1 .. 10 | 1 | b\nI33 = 3 | 0.1 .. 10 | 1 | c\n"
  "I13 = 0.3 | -1 .. 1 | 1 | d\nI23 = 0.2 | -1 .. 1 | 1 | e\n"
  "c = 0.2 | 0 .. 10 | 1 | c\nA = 0.5 | 0 .. 10 | 1 | c\nOm = 1.1 | 0 .. 10 | 1 | c\n"
  "[algebroid]\nbase =\nfibre = W1, W2, W3\nsections = e1, e2, e3\n"
  "[brackets]\ne1, e2 = e3\ne2, e3 = e1\ne3, e1 = e2\n"
  "[dynamics]\nlagrangian = (I11*W1^2 + I22*W2^2 + I33*W3^2)/2 + I13*W1*W3 + I23*W2*W3\n"
  "constraints = nonholonomic\nsolve-for = W3\n"
  "[constraints]\nsuslov = W3\n"
  "[forces]\ndissipation = c/2*(W1^2 + W2^2 + W3^2)\ne2 = A*cos(Om*t)\n"
  "[initial]\nW1 = 1\nW2 = 0.5\nW3 = 0\n";

/* the singular Lagrangian with dissipation along the kernel of W, and with a driving force */
static const char singular[] =
  "[model]\nname = singular\ntitle = singular Lagrangian with damping\n"
  "[parameters]\nm = 1.3 | 0 .. 100 | 1 | p\nk = 2.7 | 0 .. 100 | 1 | p\nb = 0.8 | 0 .. 100 | 1 | p\n"
  "c = 1.9 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = x, y\nfibre = u, v\n"
  "[anchor]\ne1 = x: 1\ne2 = y: 1\n"
  "[dynamics]\nlagrangian = m/2*u^2 + b*x*v - k/2*x^2\n"
  "[forces]\ndissipation = c/2*v^2\n"
  "[initial]\nx = 0.8\ny = 0.1\nu = -0.3\nv = 0.12631578947368421\n";

static const char singular_driven[] =
  "[model]\nname = singular\ntitle = singular Lagrangian with a driving force\n"
  "[parameters]\nm = 1.3 | 0 .. 100 | 1 | p\nk = 2.7 | 0 .. 100 | 1 | p\nb = 0.8 | 0 .. 100 | 1 | p\n"
  "A = 0.6 | 0 .. 100 | 1 | p\nOm = 1.7 | 0 .. 100 | 1 | p\n"
  "[algebroid]\nbase = x, y\nfibre = u, v\n"
  "[anchor]\ne1 = x: 1\ne2 = y: 1\n"
  "[dynamics]\nlagrangian = m/2*u^2 + b*x*v - k/2*x^2\n"
  "[forces]\ne2 = A*cos(Om*t)\n"
  "[initial]\nx = 0.8\ny = 0.1\nu = 0.75\nv = 2.7\n";

/* a Lagrangian of first order in the velocities (W = 0) with friction along e1 */
static const char first_order[] =
  "[model]\nname = first-order\ntitle = first-order Lagrangian with friction\n"
  "[parameters]\nc = 0.7 | 0 .. 10 | 1 | damping\n"
  "[algebroid]\nbase = x, y\nfibre = u, v\n"
  "[anchor]\ne1 = x: 1\ne2 = y: 1\n"
  "[dynamics]\nlagrangian = u*y - x*v - (x^2 + y^2)/2\n"
  "[forces]\ne1 = -c*u\n"
  "[initial]\nx = 1\ny = 0.5\nu = 0.25\nv = -0.5875\n";

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

/* ---- the variational integrators with forces ---------------------------------------- */

static void
use_step (CmlSimulation *sim, CmlIntegratorKind kind, double h)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.h_fixed = h;
  o.rtol = 1e-13;
  o.atol = 1e-14;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
}

/* the oscillator m ẍ = −k x − c ẋ + F₀ cos Ω t from (x₀, u₀) at t = 0, in closed form: the
 * steady response a cos (Ω t − δ) plus the damped free motion that makes up the start */
static void
oscillator_exact (double m, double k, double c, double F0, double Om, double x0, double u0, double t, double *x,
                  double *u)
{
  const double g = c / (2 * m), w0s = k / m, wd = sqrt (w0s - g * g);
  const double a = (F0 / m) / hypot (w0s - Om * Om, 2 * g * Om), d = atan2 (2 * g * Om, w0s - Om * Om);
  const double X0 = x0 - a * cos (d), U0 = u0 - a * Om * sin (d);
  const double e = exp (-g * t), C = cos (wd * t), S = sin (wd * t);
  double xh = e * (X0 * C + (U0 + g * X0) / wd * S);
  *x = xh + a * cos (Om * t - d);
  *u = -g * xh + e * (-X0 * wd * S + (U0 + g * X0) * C) - a * Om * sin (Om * t - d);
}

typedef struct
{
  double m, l, g, b, A, Om;
} PendulumPar;

static int
pendulum_rhs (double t, const double *s, double *f, void *data)
{
  const PendulumPar *p = data;
  f[0] = s[1];
  f[1] = (-p->m * p->g * p->l * sin (s[0]) - p->b * s[1] + p->A * cos (p->Om * t)) / (p->m * p->l * p->l);
  return GSL_SUCCESS;
}

typedef enum
{
  CASE_DAMPED,
  CASE_DRIVEN,
  CASE_PENDULUM,
  CASE_SLEIGH,
  CASE_BODY,
  CASE_SUSLOV,
} VarCase;

/* The largest deviation of KIND with step H from the independent solution of case C over
 * N_OUT outputs at multiples of DT: closed forms (oscillators), GSL's rk8pd at 1e-14 on the
 * equations written by hand (pendulum, sleigh), cmlab's rk8pd at 1e-13 on the continuous
 * forced Euler–Poincaré equations (rigid body). */
static double
variational_error (VarCase c, CmlIntegratorKind kind, double h, double dt, int n_out)
{
  static const char *const texts[] = { oscillator, driven, pendulum, sleigh, body, suslov };
  g_autoptr (CmlSimulation) sim = sim_text (texts[c], CML_INTEGRATOR_RK8PD);
  g_autoptr (CmlSimulation) ref = c >= CASE_BODY ? sim_text (texts[c], CML_INTEGRATOR_RK8PD) : NULL;
  PendulumPar pp = { 1.2, 0.9, 9.81, 0.35, 1.4, 2.3 };
  SleighPar sp = { 1.1, 0.3, 0.45, 0.25 };
  gsl_odeiv2_system ode_p = { pendulum_rhs, NULL, 2, &pp }, ode_s = { sleigh_rhs, NULL, 5, &sp };
  gsl_odeiv2_driver *drv = NULL;
  double s[5] = { 0 }, t = 0, err = 0;

  use_step (sim, kind, h);
  if (c == CASE_PENDULUM)
    {
      drv = gsl_odeiv2_driver_alloc_y_new (&ode_p, gsl_odeiv2_step_rk8pd, 1e-6, 1e-14, 1e-14);
      s[0] = 1.1, s[1] = -0.4;
    }
  else if (c == CASE_SLEIGH)
    {
      drv = gsl_odeiv2_driver_alloc_y_new (&ode_s, gsl_odeiv2_step_rk8pd, 1e-6, 1e-14, 1e-14);
      double th0 = 0.3, u0 = 0.4, v0 = 1.2;
      s[0] = 0.1, s[1] = -0.2, s[2] = th0, s[3] = u0 * cos (th0) + v0 * sin (th0);
      s[4] = (-u0 * sin (th0) + v0 * cos (th0)) / sp.a;
    }
  else if (c >= CASE_BODY)
    use_step (ref, CML_INTEGRATOR_RK8PD, 0);
  for (int j = 1; j <= n_out; j++)
    {
      double T = dt * j, x, u;
      sim_advance (sim, T);
      switch (c)
        {
        case CASE_DAMPED:
          oscillator_exact (1.3, 2.7, 0.4, 0, 1, 0.8, -0.3, T, &x, &u);
          err = MAX (err, MAX (fabs (sim_state (sim, "x") - x), fabs (sim_state (sim, "u") - u)));
          break;
        case CASE_DRIVEN:
          oscillator_exact (0.9, 2.1, 0.9, 0.7, 1.9, 0.2, 0.1, T, &x, &u);
          err = MAX (err, MAX (fabs (sim_state (sim, "x") - x), fabs (sim_state (sim, "u") - u)));
          break;
        case CASE_PENDULUM:
          g_assert_cmpint (gsl_odeiv2_driver_apply (drv, &t, T, s), ==, GSL_SUCCESS);
          err = MAX (err, MAX (fabs (sim_state (sim, "theta") - s[0]), fabs (sim_state (sim, "w") - s[1])));
          break;
        case CASE_SLEIGH:
          {
            g_assert_cmpint (gsl_odeiv2_driver_apply (drv, &t, T, s), ==, GSL_SUCCESS);
            double th = s[2], V = s[3], w = s[4];
            const double want[6] = { s[0], s[1], th, V * cos (th) - sp.a * w * sin (th),
                                     V * sin (th) + sp.a * w * cos (th), w };
            static const char *const names[6] = { "x", "y", "theta", "u", "v", "w" };
            for (int i = 0; i < 6; i++)
              err = MAX (err, fabs (sim_state (sim, names[i]) - want[i]));
            /* the blade's constraint holds at the shown states */
            double ths = sim_state (sim, "theta");
            assert_close (sim_state (sim, "v") * cos (ths) - sim_state (sim, "u") * sin (ths),
                          sp.a * sim_state (sim, "w"), 1e-9);
            break;
          }
        case CASE_BODY:
        case CASE_SUSLOV:
          {
            sim_advance (ref, T);
            static const char *const names[3] = { "W1", "W2", "W3" };
            for (int i = 0; i < 3; i++)
              err = MAX (err, fabs (sim_state (sim, names[i]) - sim_state (ref, names[i])));
            if (c == CASE_SUSLOV)
              g_assert_cmpfloat (fabs (sim_state (sim, "W3")), <=, 1e-12);
            break;
          }
        }
    }
  if (drv)
    gsl_odeiv2_driver_free (drv);
  return err;
}

typedef struct
{
  VarCase c;
  CmlIntegratorKind kind;
  double h;         /* the larger step; the second run takes h/2 */
  double dt;        /* outputs every dt */
  int n_out;
} VarOrder;

/* The forced variational integrators converge to the independent solution at their order:
 * halving h divides the error by 4 (second order) or 16 (variational4). */
static void
test_variational_order (gconstpointer data)
{
  const VarOrder *o = data;
  double e1 = variational_error (o->c, o->kind, o->h, o->dt, o->n_out);
  double e2 = variational_error (o->c, o->kind, 0.5 * o->h, o->dt, o->n_out);
  gboolean four = o->kind == CML_INTEGRATOR_VARIATIONAL4;
  g_test_message ("%s: deviation %.3g at h = %g, %.3g at h = %g, ratio %.3f",
                  cml_integrator_kind_to_string (o->kind), e1, o->h, e2, 0.5 * o->h, e1 / e2);
  /* well above rounding, so the ratio measures the method */
  g_assert_cmpfloat (e2, >, 1e-10);
  g_assert_cmpfloat (e2, <, 1e-3);
  g_assert_cmpfloat (e1 / e2, >=, four ? 13.0 : 3.5);
  g_assert_cmpfloat (e1 / e2, <=, four ? 19.0 : 4.5);
}

/* The discrete energy balance of the driven damped oscillator under variational: over each
 * step E_{k+1} − E_k equals the work of the discrete forces, F(q_{k+½}, (q_{k+1} − q_k)/h)
 * ·(q_{k+1} − q_k), to rounding (the potential is quadratic, so the midpoint rule leaves no
 * remainder); the work is not small, so the balance is not met by chance. */
static void
test_variational_energy_balance (void)
{
  const double m = 0.9, k = 2.1, c = 0.9, F0 = 0.7, Om = 1.9, h = 0.05;
  g_autoptr (CmlSimulation) sim = sim_text (driven, CML_INTEGRATOR_RK8PD);
  double work_in = 0, work_out = 0, worst = 0;

  use_step (sim, CML_INTEGRATOR_VARIATIONAL, h);
  double x0 = sim_state (sim, "x"), u0 = sim_state (sim, "u");
  double E = m / 2 * u0 * u0 + k / 2 * x0 * x0, Estart = E, W_sum = 0;
  for (int j = 1; j <= 400; j++)
    {
      double t0 = h * (j - 1);
      sim_advance (sim, h * j);
      double x1 = sim_state (sim, "x"), u1 = sim_state (sim, "u");
      double E1 = m / 2 * u1 * u1 + k / 2 * x1 * x1;
      double dx = x1 - x0, W = (-c * dx / h + F0 * cos (Om * (t0 + 0.5 * h))) * dx;
      worst = MAX (worst, fabs ((E1 - E) - W));
      if (W > 0)
        work_in += W;
      else
        work_out -= W;
      W_sum += W;
      x0 = x1;
      E = E1;
    }
  g_test_message ("400 steps of h = %g: work done %.4g, taken %.4g; worst |ΔE − W| per step %.3g", h, work_in,
                  work_out, worst);
  g_assert_cmpfloat (work_in, >, 0.1);
  g_assert_cmpfloat (work_out, >, 0.1);
  g_assert_cmpfloat (worst, <=, 1e-14 * (1 + work_in + work_out));
  assert_close (E - Estart, W_sum, 1e-13);
}

/* Forces under the nonholonomic variational step: the sleigh with friction keeps its
 * constraint at the midpoints (to Newton's tolerance) and loses its energy to friction. */
static void
test_variational_sleigh_energy (void)
{
  g_autoptr (CmlSimulation) sim = sim_text (sleigh, CML_INTEGRATOR_RK8PD);
  use_step (sim, CML_INTEGRATOR_VARIATIONAL, 0.05);
  const double m = 1.1, Ic = 0.3;
  double u = sim_state (sim, "u"), v = sim_state (sim, "v"), w = sim_state (sim, "w");
  double E0 = m / 2 * (u * u + v * v) + Ic / 2 * w * w, E = E0;
  for (int j = 1; j <= 40; j++)
    {
      sim_advance (sim, 0.5 * j);
      u = sim_state (sim, "u"), v = sim_state (sim, "v"), w = sim_state (sim, "w");
      double e = m / 2 * (u * u + v * v) + Ic / 2 * w * w;
      g_assert_cmpfloat (e, <, E);
      E = e;
    }
  g_assert_cmpfloat (E, <, 0.5 * E0);
}

/* ---- singular Lagrangians with forces ------------------------------------------------ */

static void
test_singular_damped (void)
{
  const double m = 1.3, k = 2.7, b = 0.8, c = 1.9, x0 = 0.8, y0 = 0.1, u0 = -0.3;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (singular, "test.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cml_system_get_formalism (sys), ==, CML_FORMALISM_SINGULAR);
  /* the inspector gives the energy balance of the singular system too */
  g_autoptr (CmlConservedReport) r = cml_conserved_inspect (sys);
  const CmlConservedCandidate *E = cml_conserved_report_find (r, CML_CANDIDATE_ENERGY, "E_L");
  g_assert_nonnull (E);
  g_assert_false (cml_conserved_verdict_is_conserved (E->verdict));
  g_assert_nonnull (strstr (E->reason, "F·y"));
  g_assert_nonnull (strstr (E->reason, "−2D"));
  g_autoptr (CmlSimulation) sim = sim_text (singular, CML_INTEGRATOR_RK8PD);

  /* the primary constraint b u + c v = 0 holds at the start */
  assert_close (sim_state (sim, "v"), -b * u0 / c, 1e-12);
  for (int j = 1; j <= 12; j++)
    {
      double T = 0.75 * j, x, u;
      sim_advance (sim, T);
      oscillator_exact (m, k, b * b / c, 0, 1, x0, u0, T, &x, &u);
      assert_close (sim_state (sim, "x"), x, 1e-10);
      assert_close (sim_state (sim, "u"), u, 1e-10);
      assert_close (sim_state (sim, "v"), -b * u / c, 1e-10);
      assert_close (sim_state (sim, "y"), y0 - b / c * (x - x0), 1e-10);
    }
}

static void
test_singular_driven (void)
{
  const double m = 1.3, k = 2.7, b = 0.8, A = 0.6, Om = 1.7, x0 = 0.8, y0 = 0.1;
  g_autoptr (CmlSimulation) sim = sim_text (singular_driven, CML_INTEGRATOR_RK8PD);

  for (int j = 1; j <= 12; j++)
    {
      double T = 0.75 * j, S = sin (Om * T), C = cos (Om * T);
      sim_advance (sim, T);
      double x = x0 + A * S / (b * Om);
      double y = y0 + k / b * (x0 * T + A * (1 - C) / (b * Om * Om)) - m * A / (b * b) * (1 - C);
      assert_close (sim_state (sim, "x"), x, 1e-10);
      assert_close (sim_state (sim, "u"), A * C / b, 1e-10);
      assert_close (sim_state (sim, "v"), (k * x - m * A * Om * S / b) / b, 1e-10);
      assert_close (sim_state (sim, "y"), y, 1e-10);
    }
}

static void
test_singular_first_order (void)
{
  const double c = 0.7, x0 = 1, y0 = 0.5;
  /* A = [[0, 1/2], [−1/2, −c/4]]: α = tr A/2, β² = det A − α² */
  const double al = -c / 8, be = sqrt (0.25 - al * al);
  g_autoptr (CmlSimulation) sim = sim_text (first_order, CML_INTEGRATOR_RK8PD);

  /* the velocities follow from the constraints at the start */
  assert_close (sim_state (sim, "u"), y0 / 2, 1e-12);
  assert_close (sim_state (sim, "v"), -(x0 + c * y0 / 2) / 2, 1e-12);
  for (int j = 1; j <= 10; j++)
    {
      double T = 0.9 * j, e = exp (al * T), C = cos (be * T), S = sin (be * T) / be;
      double x = e * (C * x0 + S * (-al * x0 + 0.5 * y0));
      double y = e * (C * y0 + S * (-0.5 * x0 + (-c / 4 - al) * y0));
      sim_advance (sim, T);
      assert_close (sim_state (sim, "x"), x, 1e-10);
      assert_close (sim_state (sim, "y"), y, 1e-10);
      assert_close (sim_state (sim, "u"), y / 2, 1e-10);
      assert_close (sim_state (sim, "v"), -(x + c * y / 2) / 2, 1e-10);
    }
}

static void
test_refusals (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (oscillator, "test.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  /* the variational integrators take forces (test_variational_order) */
  g_assert_true (cml_variational_supports (sys, &error));
  g_assert_no_error (error);

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
  static const VarOrder orders[] = {
    { CASE_DAMPED, CML_INTEGRATOR_VARIATIONAL, 0.02, 1.0, 6 },
    { CASE_DAMPED, CML_INTEGRATOR_VARIATIONAL4, 0.1, 1.0, 6 },
    { CASE_DRIVEN, CML_INTEGRATOR_VARIATIONAL, 0.02, 1.0, 6 },
    { CASE_DRIVEN, CML_INTEGRATOR_VARIATIONAL4, 0.1, 1.0, 6 },
    { CASE_PENDULUM, CML_INTEGRATOR_VARIATIONAL, 0.01, 0.5, 10 },
    { CASE_PENDULUM, CML_INTEGRATOR_VARIATIONAL4, 0.05, 0.5, 10 },
    { CASE_SLEIGH, CML_INTEGRATOR_VARIATIONAL, 0.02, 1.0, 6 },
    { CASE_SLEIGH, CML_INTEGRATOR_VARIATIONAL4, 0.1, 1.0, 6 },
    { CASE_BODY, CML_INTEGRATOR_VARIATIONAL, 0.02, 1.0, 5 },
    { CASE_BODY, CML_INTEGRATOR_VARIATIONAL4, 0.1, 1.0, 5 },
    { CASE_SUSLOV, CML_INTEGRATOR_VARIATIONAL, 0.02, 1.0, 5 },
    { CASE_SUSLOV, CML_INTEGRATOR_VARIATIONAL4, 0.1, 1.0, 5 },
  };
  static const char *const case_names[] = { "damped", "driven", "pendulum", "sleigh", "rigid-body", "suslov" };
  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      g_autofree char *path = g_strdup_printf ("/forces/variational/%s/%s", case_names[orders[i].c],
                                               cml_integrator_kind_to_string (orders[i].kind));
      g_test_add_data_func (path, &orders[i], test_variational_order);
    }
  g_test_add_func ("/forces/variational/energy-balance", test_variational_energy_balance);
  g_test_add_func ("/forces/variational/sleigh-energy", test_variational_sleigh_energy);
  g_test_add_func ("/forces/singular/damped", test_singular_damped);
  g_test_add_func ("/forces/singular/driven", test_singular_driven);
  g_test_add_func ("/forces/singular/first-order", test_singular_first_order);
  g_test_add_func ("/forces/refusals", test_refusals);
  g_test_add_func ("/forces/energy-balance", test_energy_balance);
  g_test_add_func ("/forces/examples", test_examples);
  return g_test_run ();
}
