/* test-oracles.c — the numerical oracles of doc/theory.md §10 and the closed forms of
 * §2, run through the model files and the generic engine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every expected number is either printed in doc/theory.md §10 or computed here from a closed form
 * of doc/theory.md §9 (elliptic integrals from GSL, quadrature with gsl_integration_qags), never
 * taken from the program's own output.  Integration: rk8pd at rtol = atol = 1e-12, compared to
 * 1e-8 (doc/theory.md §10, "Method").
 */
#define G_LOG_DOMAIN "test-oracles"

#include "physics-util.h"

#include <complex.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_ellint.h>
#include <gsl/gsl_sf_elljac.h>

#define TOL 1e-8

/* ---- O1: rolling ball, constant Ω ------------------------------------------------------- */

/* m = 1, r = 1, k² = 0.4, Ω = 1: κ = 2/7, T = 7π; x(t) = (−0.75 + 1.75 cos(2t/7), 1.75 sin(2t/7)). */
static void
test_o1_ball (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  const double T = 7 * G_PI;
  const double I0 = 0.0501428571429; /* = 0.193 − 1/7 */

  sim_precise (sim);
  g_assert_cmpfloat (cml_simulation_get_param (sim, "m"), ==, 1);
  g_assert_cmpfloat (cml_simulation_get_param (sim, "r"), ==, 1);
  g_assert_cmpfloat (cml_simulation_get_param (sim, "k2"), ==, 0.4);
  g_assert_cmpfloat (cml_simulation_get_param (sim, "Omega"), ==, 1);

  assert_close (sim_obs (sim, "energy"), 0.193, TOL);
  assert_close (sim_obs (sim, "I"), I0, TOL);
  assert_close (0.193 - 1.0 / 7, I0, 1e-12);

  sim_advance (sim, T / 4);
  assert_close (sim_obs (sim, "x"), -0.75, TOL);
  assert_close (sim_obs (sim, "y"), 1.75, TOL);
  assert_close (sim_obs (sim, "I"), I0, TOL);

  sim_advance (sim, T / 2);
  assert_close (sim_obs (sim, "x"), -2.5, TOL);
  assert_close (sim_obs (sim, "y"), 0, TOL);
  assert_close (sim_obs (sim, "energy"), 0.943, TOL);
  assert_close (sim_obs (sim, "I"), I0, TOL);

  sim_advance (sim, T);
  assert_close (sim_obs (sim, "x"), 1, TOL);
  assert_close (sim_obs (sim, "y"), 0, TOL);
  assert_close (sim_obs (sim, "energy"), 0.193, TOL);
  assert_close (sim_obs (sim, "I"), I0, TOL);
}

/* doc/theory.md §9.1 constant Ω: ω_c = κΩ, x_c = (x0 − v0/ω_c, y0 + u0/ω_c),
 * x(t) = x_c + Rot(ω_c t)(x0 − x_c), ẋ(t) = Rot(ω_c t) ẋ0.  Ω = −1.5, k² = 2/3 (hollow
 * sphere, κ = 2/5, ω_c = −0.6), 20 times over one period. */
static void
test_o1_circle (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  const double Omega = -1.5, k2 = 2.0 / 3, r = 1, x0 = 1, y0 = 0, u0 = 0, v0 = 0.5;
  const double kappa = k2 / (k2 + r * r), wc = kappa * Omega, T = 2 * G_PI / fabs (wc);
  const double xc = x0 - v0 / wc, yc = y0 + u0 / wc;

  sim_precise (sim);
  sim_set_params (sim, "Omega", Omega, "k2", k2, NULL);
  sim_reset (sim, "x", x0, "y", y0, "u", u0, "v", v0, NULL);
  assert_close (wc, -0.6, 1e-15);
  for (int k = 1; k <= 20; k++)
    {
      double t = k * T / 20, c = cos (wc * t), s = sin (wc * t);
      sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), xc + c * (x0 - xc) - s * (y0 - yc), TOL);
      assert_close (sim_obs (sim, "y"), yc + s * (x0 - xc) + c * (y0 - yc), TOL);
      assert_close (sim_obs (sim, "u"), c * u0 - s * v0, TOL);
      assert_close (sim_obs (sim, "v"), s * u0 + c * v0, TOL);
      /* the radius |(u0, v0)|/|ω_c| */
      assert_close (hypot (sim_obs (sim, "x") - xc, sim_obs (sim, "y") - yc), hypot (u0, v0) / fabs (wc), TOL);
    }
}

/* doc/theory.md §1.3: the ball's equations do not depend on the so(3) bracket sign (isotropic
 * inertia): the body-frame sign (as printed in Iglesias et al. 2008, Example 5.12) gives oracle O1 too. */
static void
test_o1_body_sign (void)
{
  g_autoptr (CmlModel) model = model_variant ("rolling-ball", "e4, e3 = e5\ne5, e4 = e3\ne3, e5 = e4\n",
                                              "e3, e4 = e5\ne4, e5 = e3\ne5, e3 = e4\n");
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  const double T = 7 * G_PI;

  sim_precise (sim);
  g_assert_true (cml_system_is_lie_algebroid (cml_simulation_get_system (sim)));
  sim_advance (sim, T / 4);
  assert_close (sim_obs (sim, "x"), -0.75, TOL);
  assert_close (sim_obs (sim, "y"), 1.75, TOL);
  sim_advance (sim, T / 2);
  assert_close (sim_obs (sim, "x"), -2.5, TOL);
  assert_close (sim_obs (sim, "y"), 0, TOL);
  assert_close (sim_obs (sim, "energy"), 0.943, TOL);
}

/* ---- rolling ball on a table with Ω(t) = Ω0 + Ω1 sin νt ------------------------------------ */

typedef struct
{
  double kappa, Omega0, Omega1, nu, Cx, Cy;
  int comp;
} VaryingData;

static double
varying_theta (const VaryingData *d, double t)
{
  return d->kappa * (d->Omega0 * t + d->Omega1 * (1 - cos (d->nu * t)) / d->nu);
}

/* the components of Rot(−θ(s)) C */
static double
varying_integrand (double s, void *data)
{
  const VaryingData *d = data;
  double th = varying_theta (d, s);
  if (d->comp == 0)
    return d->Cx * cos (th) + d->Cy * sin (th);
  return -d->Cx * sin (th) + d->Cy * cos (th);
}

/* ∫_a^b f by a composite 20-point Gauss–Legendre rule on N panels (the integrand is smooth). */
static double
composite_gl (gsl_function *f, const gsl_integration_glfixed_table *tab, double a, double b, int N)
{
  double s = 0, h = (b - a) / N;
  for (int j = 0; j < N; j++)
    s += gsl_integration_glfixed (f, a + j * h, a + (j + 1) * h, tab);
  return s;
}

/* doc/theory.md §9.1: x(t) = Rot(θ(t)) [x0 + ∫_0^t Rot(−θ(s)) C ds], C = ẋ0 − κΩ(0) J x0,
 * θ = κ(Ω0 t + Ω1(1 − cos νt)/ν).  Defaults (Ω0, Ω1, ν) = (1, 0.5, 2), and a second case with
 * other parameters. */
static void
check_varying (double m, double r, double k2, double Omega0, double Omega1, double nu,
               double x0, double y0, double u0, double v0)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball-varying");
  gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc (20);
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc (1000);
  VaryingData d = { k2 / (k2 + r * r), Omega0, Omega1, nu, 0, 0, 0 };

  d.Cx = u0 + d.kappa * Omega0 * y0;
  d.Cy = v0 - d.kappa * Omega0 * x0;
  sim_precise (sim);
  sim_set_params (sim, "m", m, "r", r, "k2", k2, "Omega0", Omega0, "Omega1", Omega1, "nu", nu, NULL);
  sim_reset (sim, "x", x0, "y", y0, "u", u0, "v", v0, NULL);
  for (int k = 1; k <= 12; k++)
    {
      double t = 0.9 * k, integral[2];
      gsl_function f = { varying_integrand, &d };
      for (int c = 0; c < 2; c++)
        {
          double q, err;
          d.comp = c;
          integral[c] = composite_gl (&f, tab, 0, t, 64);
          /* two independent quadratures agree */
          assert_close (composite_gl (&f, tab, 0, t, 97), integral[c], 1e-13);
          gsl_integration_qags (&f, 0, t, 1e-12, 0, 1000, ws, &q, &err);
          assert_close (q, integral[c], 1e-11);
        }
      double th = varying_theta (&d, t), wx = x0 + integral[0], wy = y0 + integral[1];
      sim_advance (sim, t);
      assert_close (sim_obs (sim, "x"), cos (th) * wx - sin (th) * wy, TOL);
      assert_close (sim_obs (sim, "y"), sin (th) * wx + cos (th) * wy, TOL);
      /* the table angle α(t) = Ω0 t + Ω1(1 − cos νt)/ν */
      assert_close (sim_obs (sim, "alpha"), th / d.kappa, TOL);
    }
  gsl_integration_workspace_free (ws);
  gsl_integration_glfixed_table_free (tab);
}

static void
test_varying_default (void)
{
  check_varying (1, 1, 0.4, 1, 0.5, 2, 1, 0, 0, 0.5);
}

static void
test_varying_other (void)
{
  check_varying (2.5, 0.7, 0.3, -0.8, 1.3, 3.5, 0.4, -0.6, 0.3, 0.2);
}

/* ---- O3: plate-ball, c = 0, Ω = 0, r = 1 ---------------------------------------------------- */

/* Elastica with v = 1, |P| = 1, ν = 1, k_e = 1/4, θ̇0 = σ/2 (doc/theory.md §9.2 closed form):
 * sin(θ/2) = σ k_e sn(t), x1 = 2E(am t, k_e) − t, x2 = σ 2k_e (1 − cn(t)), T = 4K(1/16). */
static void
check_o3 (double sigma)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  const double ke = 0.25, K = gsl_sf_ellint_Kcomp (ke, GSL_PREC_DOUBLE), E = gsl_sf_ellint_Ecomp (ke, GSL_PREC_DOUBLE);
  const double T = 4 * K;

  /* the closed form against the numbers printed in doc/theory.md §10 */
  assert_close (T, 6.38496888853, 1e-10);
  assert_close (2 * E - K, 1.49567229008, 1e-10);
  assert_close (8 * E - 4 * K, 5.98268916032, 1e-10);

  sim_precise (sim);
  sim_set_params (sim, "sigma", sigma, "c", 0.0, "Omega", 0.0, "r", 1.0, NULL);
  sim_reset (sim, "x1", 0.0, "x2", 0.0, "p1", 1.0, "p2", 0.0, "p3", 0.0, "p4", 0.0, "p5", 0.5, NULL);

  /* x1, x2 inside the first quarter period, where am(t) = asin(sn(t)) */
  for (int k = 1; k <= 5; k++)
    {
      double t = k * K / 5, sn, cn, dn;
      g_assert_cmpint (gsl_sf_elljac_e (t, ke * ke, &sn, &cn, &dn), ==, GSL_SUCCESS);
      sim_advance (sim, t);
      assert_close (sim_obs (sim, "x1"), 2 * gsl_sf_ellint_E (asin (sn), ke, GSL_PREC_DOUBLE) - t, TOL);
      assert_close (sim_obs (sim, "x2"), sigma * 2 * ke * (1 - cn), TOL);
      double theta = atan2 (sim_obs (sim, "y2"), sim_obs (sim, "y1"));
      assert_close (sin (theta / 2), sigma * ke * sn, TOL);
    }
  /* T/4: the printed oracle, θ(T/4) = θmax = acos(7/8) */
  g_assert_cmpfloat (cml_simulation_get_time (sim), ==, K);
  assert_close (sim_obs (sim, "x1"), 1.49567229008, TOL);
  assert_close (sim_obs (sim, "x2"), sigma * 0.5, TOL);
  assert_close (atan2 (sim_obs (sim, "y2"), sim_obs (sim, "y1")), sigma * acos (7.0 / 8), TOL);
  assert_close (acos (7.0 / 8), 0.505360510284, 1e-11);

  /* x2 over the rest of the period */
  for (int k = 6; k <= 20; k++)
    {
      double t = k * K / 5, sn, cn, dn;
      g_assert_cmpint (gsl_sf_elljac_e (t, ke * ke, &sn, &cn, &dn), ==, GSL_SUCCESS);
      sim_advance (sim, t);
      assert_close (sim_obs (sim, "x2"), sigma * 2 * ke * (1 - cn), TOL);
      /* the speed v = |y| is constant */
      assert_close (hypot (sim_obs (sim, "y1"), sim_obs (sim, "y2")), 1, TOL);
      if (k == 10)
        {
          assert_close (sim_obs (sim, "x1"), 2.99134458016, TOL);
          assert_close (sim_obs (sim, "x1"), 4 * E - 2 * K, TOL);
          assert_close (sim_obs (sim, "x2"), sigma * 1, TOL);
        }
    }
  g_assert_cmpfloat (cml_simulation_get_time (sim), ==, T);
  assert_close (sim_obs (sim, "x1"), 5.98268916032, TOL);
  assert_close (sim_obs (sim, "x1"), 8 * E - 4 * K, TOL);
  assert_close (sim_obs (sim, "x2"), 0, TOL);
}

static void
test_o3_plus (void)
{
  check_o3 (+1);
}

static void
test_o3_minus (void)
{
  check_o3 (-1);
}

/* ---- O4: Martinet, k = 1 -------------------------------------------------------------------- */

static void
test_o4_martinet (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  const double T = 4 * gsl_sf_ellint_Kcomp (1 / sqrt (2), GSL_PREC_DOUBLE);

  assert_close (T, 7.41629870921, 1e-10);
  sim_precise (sim);
  sim_reset (sim, "x1", 0.0, "u", 1.0, "y1", 0.0, "k", 1.0, "x2", 0.0, "x3", 0.0, NULL);
  assert_close (sim_obs (sim, "p_u"), 1, 0);
  const double xs[3] = { sqrt (2), 0, -sqrt (2) };
  for (int q = 1; q <= 3; q++)
    {
      sim_advance (sim, q * T / 4);
      assert_close (sim_obs (sim, "x1"), xs[q - 1], TOL);
      assert_close ((sim_obs (sim, "u") * sim_obs (sim, "u") + sim_obs (sim, "y1") * sim_obs (sim, "y1")) / 2, 0.5, TOL);
      assert_close (sim_obs (sim, "y1") - sim_obs (sim, "k") * pow (sim_obs (sim, "x1"), 2) / 2, 0, TOL);
      assert_close (sim_obs (sim, "energy"), 0.5, TOL);
      assert_close (sim_obs (sim, "a"), 0, TOL);
    }
  /* and periodic: back at x1 = 0 with u = 1 */
  sim_advance (sim, T);
  assert_close (sim_obs (sim, "x1"), 0, TOL);
  assert_close (sim_obs (sim, "u"), 1, TOL);
}

/* ---- O5: Capri–Kobayashi, epicycles ---------------------------------------------------------- */

typedef struct
{
  double m2, wp, wm;
  double complex A, B;
} Epicycle;

/* doc/theory.md §9.4: ω± = (−1 ± √(1+2m2))/m2, z = A e^{iω+ t} + B e^{iω− t},
 * A = (−i ż0 − ω− z0)/(ω+ − ω−), B = z0 − A, z0 = ρ0 e^{iθ0}, ż0 = (v0 + iρ0 r0) e^{iθ0}. */
static Epicycle
epicycle (double m2, double rho0, double v0, double r0, double theta0)
{
  Epicycle e;
  double complex z0 = rho0 * cexp (I * theta0), zd0 = (v0 + I * rho0 * r0) * cexp (I * theta0);
  e.m2 = m2;
  e.wp = (-1 + sqrt (1 + 2 * m2)) / m2;
  e.wm = (-1 - sqrt (1 + 2 * m2)) / m2;
  e.A = (-I * zd0 - e.wm * z0) / (e.wp - e.wm);
  e.B = z0 - e.A;
  return e;
}

static double complex
epicycle_z (const Epicycle *e, double t)
{
  return e->A * cexp (I * e->wp * t) + e->B * cexp (I * e->wm * t);
}

static double complex
epicycle_zdot (const Epicycle *e, double t)
{
  return I * e->wp * e->A * cexp (I * e->wp * t) + I * e->wm * e->B * cexp (I * e->wm * t);
}

static void
test_o5_capri (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  const double T = G_PI / sqrt (3);
  Epicycle e = epicycle (1, 1, 0, 0.5, 0);

  /* the closed form against doc/theory.md §10 */
  assert_close (creal (e.A), 0.9330127, 1e-7);
  assert_close (creal (e.B), 0.0669873, 1e-7);
  assert_close (T, 1.81379936423, 1e-10);
  assert_close (cabs (epicycle_z (&e, T / 4)), 0.935414346693, 1e-11);

  sim_precise (sim);
  g_assert_cmpfloat (cml_simulation_get_param (sim, "m2"), ==, 1);
  sim_reset (sim, "rho", 1.0, "v", 0.0, "r", 0.5, "theta", 0.0, NULL);
  assert_close (sim_obs (sim, "energy"), 1.125, TOL);
  assert_close (sim_obs (sim, "pr"), 1.5, TOL);

  sim_advance (sim, T / 4);
  assert_close (sim_obs (sim, "rho"), 0.935414346693, TOL);
  sim_advance (sim, T / 2);
  assert_close (sim_obs (sim, "rho"), sqrt (3) / 2, TOL);
  assert_close (sim_obs (sim, "r"), 1, TOL);
  assert_close (sim_obs (sim, "theta"), 0.663896644678, TOL);
  assert_close (sim_obs (sim, "theta"), e.wp * T / 2, TOL);
  assert_close (sim_obs (sim, "energy"), 1.125, TOL);
  assert_close (sim_obs (sim, "pr"), 1.5, TOL);
  sim_advance (sim, T);
  assert_close (sim_obs (sim, "rho"), 1, TOL);
  sim_advance (sim, 3 * T);
  assert_close (sim_obs (sim, "rho"), 1, TOL);
  assert_close (sim_obs (sim, "energy"), 1.125, TOL);
  assert_close (sim_obs (sim, "pr"), 1.5, TOL);
  /* the massless particle stays at the origin */
  assert_close (sim_obs (sim, "x1"), 0, 1e-12);
  assert_close (sim_obs (sim, "y1"), 0, 1e-12);
}

/* ρ(t) of the reduced model against ρ = |z| of the unreduced one, to 1e-9 at 20 times. */
static void
test_capri_reduced_vs_full (void)
{
  g_autoptr (CmlSimulation) red = sim_open ("capri-kobayashi");
  g_autoptr (CmlSimulation) full = sim_open ("capri-kobayashi-full");

  sim_precise (red);
  sim_precise (full);
  sim_reset (red, "rho", 1.0, "v", 0.0, "r", 0.5, "theta", 0.0, NULL);
  sim_reset (full, "x2", 1.0, "y2", 0.0, "vx2", 0.0, "vy2", 0.5, NULL);
  for (int k = 1; k <= 20; k++)
    {
      double t = 0.37 * k;
      sim_advance (red, t);
      sim_advance (full, t);
      assert_close (sim_obs (red, "rho"), hypot (sim_obs (full, "x2"), sim_obs (full, "y2")), 1e-9);
      assert_close (sim_obs (red, "rho"), sim_obs (full, "rho"), 1e-9);
      assert_close (sim_obs (red, "rho") * cos (sim_obs (red, "theta")), sim_obs (full, "x2"), 1e-9);
      assert_close (sim_obs (red, "rho") * sin (sim_obs (red, "theta")), sim_obs (full, "y2"), 1e-9);
    }
}

/* The general epicycles: m2 = 2, (ρ0, v0, r0, θ0) = (1.2, 0.3, 0.4, 0.7). */
static void
test_capri_epicycles_general (void)
{
  const double m2 = 2, rho0 = 1.2, v0 = 0.3, r0 = 0.4, th0 = 0.7;
  Epicycle e = epicycle (m2, rho0, v0, r0, th0);
  g_autoptr (CmlSimulation) red = sim_open ("capri-kobayashi");
  g_autoptr (CmlSimulation) full = sim_open ("capri-kobayashi-full");
  double complex z0 = epicycle_z (&e, 0), zd0 = epicycle_zdot (&e, 0);

  /* the orbit does not pass through ρ = 0 */
  g_assert_cmpfloat (fabs (cabs (e.A) - cabs (e.B)), >, 0.1);
  assert_close (creal (z0), rho0 * cos (th0), 1e-14);
  assert_close (cimag (zd0), v0 * sin (th0) + rho0 * r0 * cos (th0), 1e-14);

  sim_precise (red);
  sim_precise (full);
  sim_set_params (red, "m2", m2, NULL);
  sim_set_params (full, "m2", m2, NULL);
  sim_reset (red, "rho", rho0, "v", v0, "r", r0, "theta", th0, NULL);
  sim_reset (full, "x2", creal (z0), "y2", cimag (z0), "vx2", creal (zd0), "vy2", cimag (zd0), NULL);
  /* p_r = ρ²(m2 r + 1) and E_l are those of the closed form */
  double pr = rho0 * rho0 * (m2 * r0 + 1);
  double El = m2 / 2 * (v0 * v0 + rho0 * rho0 * r0 * r0) + rho0 * rho0;
  for (int k = 1; k <= 20; k++)
    {
      double t = 0.41 * k;
      double complex z = epicycle_z (&e, t), zd = epicycle_zdot (&e, t);
      sim_advance (red, t);
      sim_advance (full, t);
      assert_close (sim_obs (full, "x2"), creal (z), TOL);
      assert_close (sim_obs (full, "y2"), cimag (z), TOL);
      assert_close (sim_obs (full, "vx2"), creal (zd), TOL);
      assert_close (sim_obs (full, "vy2"), cimag (zd), TOL);
      double rho = sim_obs (red, "rho"), th = sim_obs (red, "theta");
      assert_close (rho, cabs (z), TOL);
      assert_close (rho * cos (th), creal (z), TOL);
      assert_close (rho * sin (th), cimag (z), TOL);
      /* ρ̇ = Re(ż z̄)/|z|, θ̇ = Im(ż z̄)/|z|² */
      assert_close (sim_obs (red, "v"), creal (zd * conj (z)) / cabs (z), TOL);
      assert_close (sim_obs (red, "r"), cimag (zd * conj (z)) / (cabs (z) * cabs (z)), TOL);
      assert_close (sim_obs (red, "pr"), pr, TOL);
      assert_close (sim_obs (red, "energy"), El, TOL);
    }
  /* ρ has period π m2/√(1 + 2 m2) */
  double Tr = G_PI * m2 / sqrt (1 + 2 * m2);
  assert_close (cabs (epicycle_z (&e, 5 * Tr + 0.3)), cabs (epicycle_z (&e, 0.3)), 1e-12);
}

/* ---- implicit midpoint keeps the Casimir ------------------------------------------------------ */

static void
check_midpoint_casimir (double sigma)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();

  o.kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  o.h_fixed = 1e-3;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
  sim_set_params (sim, "sigma", sigma, "c", 0.0, "Omega", 0.0, NULL);
  sim_reset (sim, "p1", 1.0, "p2", 0.3, "p3", 0.4, "p4", -0.2, "p5", 0.5, NULL);
  const double C0 = 0.4 * 0.4 + 0.2 * 0.2 + 0.5 * 0.5;
  for (int k = 1; k <= 20; k++)
    {
      sim_advance (sim, k);
      double p3 = sim_state (sim, "p3"), p4 = sim_state (sim, "p4"), p5 = sim_state (sim, "p5");
      assert_close (p3 * p3 + p4 * p4 + p5 * p5, C0, 1e-12);
      /* a linear invariant too (Ω = 0: p1, p2) */
      assert_close (sim_state (sim, "p1"), 1, 1e-12);
      assert_close (sim_state (sim, "p2"), 0.3, 1e-12);
    }
}

static void
test_midpoint_casimir_minus (void)
{
  check_midpoint_casimir (-1);
}

static void
test_midpoint_casimir_plus (void)
{
  check_midpoint_casimir (+1);
}

/* ---- the extra built-ins (tests/models/ORACLES-extra.md) --------------------------------------- */

/* The oracle tables of ORACLES-extra.md (closed forms at 30 digits, printed to 16 significant
 * digits, checked there against DOP853 to ≤ 1e-12), plus: the sleigh's final heading θ∞ at
 * t = 60, and the rigid body's W back at W(0) after one period 4K(k²)/λ. */
typedef struct
{
  const char *name;
  double      value;
} NamedValue;

typedef struct
{
  const char *quantity; /* an observable, or "W1^2+W2^2" */
  double      t;
  double      exact;
} OracleRow;

typedef struct
{
  const char *model, *label;
  NamedValue  params[6];
  NamedValue  init[8];
  OracleRow   rows[32];
} ExtraCase;

static const ExtraCase extra_cases[] = {
  { "vertical-disk", "A",
    { { NULL, 0 } },
    { { "x", 0.0 }, { "y", 0.0 }, { "theta", 0.0 }, { "phi", 0.0 }, { "dtheta", 2.0 }, { "dphi", 0.5 }, { NULL, 0 } },
    {
      { "x", 1.0, 1.917702154416812 },
      { "y", 1.0, 0.4896697524385091 },
      { "theta", 1.0, 2.0 },
      { "phi", 1.0, 0.5 },
      { "u", 1.0, 1.755165123780745 },
      { "v", 1.0, 0.958851077208406 },
      { "x", G_PI, 4.0 },
      { "y", G_PI, 4.0 },
      { "theta", G_PI, 6.283185307179586 },
      { "phi", G_PI, 1.570796326794897 },
      { "u", G_PI, 0 },
      { "v", G_PI, 2.0 },
      { "x", 2 * G_PI, 0 },
      { "y", 2 * G_PI, 8.0 },
      { "theta", 2 * G_PI, 12.56637061435917 },
      { "phi", 2 * G_PI, 3.141592653589793 },
      { "u", 2 * G_PI, -2.0 },
      { "v", 2 * G_PI, 0 },
      { "x", 4 * G_PI, 0 },
      { "y", 4 * G_PI, 0 },
      { "theta", 4 * G_PI, 25.13274122871835 },
      { "phi", 4 * G_PI, 6.283185307179586 },
      { "u", 4 * G_PI, 2.0 },
      { "v", 4 * G_PI, 0 },
      { "energy", 4 * G_PI, 3.03125 },
      { NULL, 0, 0 },
    } },
  { "vertical-disk", "B",
    { { "m", 2.0 }, { "r", 0.8 }, { "Ia", 0.3 }, { "Id", 0.2 }, { NULL, 0 } },
    { { "x", 1.0 }, { "y", -0.5 }, { "theta", 0.2 }, { "phi", 0.3 }, { "dtheta", 1.5 }, { "dphi", -0.7 }, { NULL, 0 } },
    {
      { "x", 2.5, 3.208399767483877 },
      { "y", 2.5, -1.931143519585553 },
      { "theta", 2.5, 3.95 },
      { "phi", 2.5, -1.45 },
      { "u", 2.5, 0.1446033232408399 },
      { "v", 2.5, -1.191255589245106 },
      { "x", 10.0, 2.200634503905036 },
      { "y", 10.0, -0.5702057272404913 },
      { "theta", 10.0, 15.2 },
      { "phi", 10.0, -6.7 },
      { "u", 10.0, 1.097259777882383 },
      { "v", 10.0, -0.4858199047399178 },
      { "energy", 10.0, 1.8265 },
      { NULL, 0, 0 },
    } },
  { "vertical-disk", "C",
    { { NULL, 0 } },
    { { "x", 0.0 }, { "y", 0.0 }, { "theta", 0.0 }, { "phi", 0.5 }, { "dtheta", 2.0 }, { "dphi", 0.0 }, { NULL, 0 } },
    {
      { "x", 3.0, 5.265495371342236 },
      { "y", 3.0, 2.876553231625218 },
      { "theta", 3.0, 6.0 },
      { "phi", 3.0, 0.5 },
      { "u", 3.0, 1.755165123780745 },
      { "v", 3.0, 0.958851077208406 },
      { "energy", 3.0, 3.0 },
      { NULL, 0, 0 },
    } },
  { "chaplygin-sleigh", "A",
    { { NULL, 0 } },
    { { "x", 0.0 }, { "y", 0.0 }, { "theta", 0.0 }, { "u", 0.2 }, { "v", 1.0 }, { NULL, 0 } },
    {
      { "x", 1.0, 0.06195674041863276 },
      { "y", 1.0, 1.178305101464507 },
      { "theta", 1.0, 1.402611262906073 },
      { "u", 1.0, -0.1562056165342821 },
      { "v", 1.0, 1.305590217050535 },
      { "w", 1.0, 0.7450972772231871 },
      { "forward", 1.0, 1.261020825110976 },
      { "x", 2.5, -0.4364661266966536 },
      { "y", 2.5, 3.133441627434727 },
      { "theta", 2.5, 1.85548683923876 },
      { "u", 2.5, -0.4193016906114966 },
      { "v", 2.5, 1.289531039437613 },
      { "w", 2.5, 0.08049194299090765 },
      { "forward", 2.5, 1.355390892400084 },
      { "x", 5.0, -1.541548109087875 },
      { "y", 5.0, 6.339263742290593 },
      { "theta", 5.0, 1.907672347254543 },
      { "u", 5.0, -0.4492442596399273 },
      { "v", 5.0, 1.2799136311638 },
      { "w", 5.0, 0.00186002912517119 },
      { "forward", 5.0, 1.356465422755495 },
      { "x", 10.0, -3.790814111413398 },
      { "y", 10.0, 12.73776361556376 },
      { "theta", 10.0, 1.908905797443671 },
      { "u", 10.0, -0.4499459253530542 },
      { "v", 10.0, 1.279667403764739 },
      { "w", 10.0, 9.924540480738129e-7 },
      { "forward", 10.0, 1.35646599662489 },
      { "energy", 10.0, 0.92 },
      { "theta", 60, 1.90890645592582 },
      { NULL, 0, 0 },
    } },
  { "chaplygin-sleigh", "B",
    { { NULL, 0 } },
    { { "x", 0.0 }, { "y", 0.0 }, { "theta", 0.0 }, { "u", -1.0 }, { "v", 0.4 }, { NULL, 0 } },
    {
      { "x", 2.0, -1.862353992877535 },
      { "y", 2.0, 0.2780645330111416 },
      { "theta", 2.0, 2.724417865092958 },
      { "u", 2.0, -1.044120592563752 },
      { "v", 2.0, -0.07365276480160334 },
      { "w", 2.0, 0.9807840190923765 },
      { "forward", 2.0, 0.9247314304985271 },
      { "x", 6.0, -6.08821383949758 },
      { "y", 6.0, -1.224433301433626 },
      { "theta", 6.0, 3.548549158330544 },
      { "u", 6.0, -1.040825109638797 },
      { "v", 6.0, -0.4524084183858892 },
      { "w", 6.0, 0.006969260708396852 },
      { "forward", 6.0, 1.134891247315059 },
      { "energy", 6.0, 0.644 },
      { "theta", 60, 3.554075942656893 },
      { NULL, 0, 0 },
    } },
  { "chaplygin-sleigh", "C",
    { { "m", 2.0 }, { "Ic", 0.3 }, { "a", 0.7 }, { NULL, 0 } },
    { { "x", 0.5 }, { "y", -1.0 }, { "theta", 0.4 }, { "u", 0.3 }, { "v", -0.8 }, { NULL, 0 } },
    {
      { "x", 1.5, 0.9193526361406062 },
      { "y", 1.5, -2.290022416076706 },
      { "theta", 1.5, -0.9655741156040466 },
      { "u", 1.5, 0.2276518167554035 },
      { "v", 1.5, -0.9302926671709765 },
      { "w", 1.5, -0.4886712633104904 },
      { "forward", 1.5, 0.8945714004523308 },
      { "x", 4.0, 1.336504853433996 },
      { "y", 4.0, -4.684756401087367 },
      { "theta", 4.0, -1.40333829468043 },
      { "u", 4.0, 0.1382664065006723 },
      { "v", 4.0, -0.9663254625763173 },
      { "w", 4.0, -0.0353306299597471 },
      { "forward", 4.0, 0.9758539104893724 },
      { "energy", 4.0, 0.9530897368019457 },
      { "theta", 60, -1.436430606539509 },
      { NULL, 0, 0 },
    } },
  { "rigid-body", "A",
    { { NULL, 0 } },
    { { "W1", 1.0 }, { "W2", 0.1 }, { "W3", 0.5 }, { NULL, 0 } },
    {
      { "W1", 1.0, 0.8521241745663537 },
      { "W2", 1.0, 0.5328080246389035 },
      { "W3", 1.0, 0.3983782159708659 },
      { "W1", 2.5, 0.5660300779724051 },
      { "W2", 2.5, 0.8304275710924782 },
      { "W3", 2.5, 0.1531775105005594 },
      { "W1", 5.0, 0.6342402872590566 },
      { "W2", 5.0, 0.7795763323867326 },
      { "W3", 5.0, -0.2252855535999077 },
      { "W1", 10.0, 0.5596570040211334 },
      { "W2", 10.0, -0.834735909045543 },
      { "W3", 10.0, -0.1451619350356823 },
      { "mx", 10.0, 1.0 },
      { "my", 10.0, 0.2 },
      { "mz", 10.0, 1.5 },
      { "W1", 14.89736836985911, 1 },
      { "W2", 14.89736836985911, 0.1 },
      { "W3", 14.89736836985911, 0.5 },
      { NULL, 0, 0 },
    } },
  { "rigid-body", "B",
    { { NULL, 0 } },
    { { "W1", 0.3 }, { "W2", -0.4 }, { "W3", 1.0 }, { NULL, 0 } },
    {
      { "W1", 1.0, 0.4979786878849414 },
      { "W2", 1.0, 0.04491354375232563 },
      { "W3", 1.0, 1.025992653253035 },
      { "W1", 3.0, -0.2481717847241286 },
      { "W2", 3.0, 0.4340630890398777 },
      { "W3", 3.0, 0.995253608338625 },
      { "W1", 7.0, 0.4931785958199494 },
      { "W2", 7.0, -0.0823096144144956 },
      { "W3", 7.0, 1.025219509401919 },
      { "mx", 7.0, 0.3 },
      { "my", 7.0, -0.8 },
      { "mz", 7.0, 3.0 },
      { "W1", 6.248839705843367, 0.3 },
      { "W2", 6.248839705843367, -0.4 },
      { "W3", 6.248839705843367, 1 },
      { NULL, 0, 0 },
    } },
  { "heavy-top", "A",
    { { NULL, 0 } },
    { { "G1", 0.6 }, { "G2", 0.0 }, { "G3", 0.8 }, { "W1", 0.0 }, { "W2", 0.0 }, { "W3", 5.0 }, { NULL, 0 } },
    {
      { "G3", 0.5, 0.7578342893612656 },
      { "W1^2+W2^2", 0.5, 0.0843314212774687 },
      { "G3", 1.0, 0.6636466206628944 },
      { "W1^2+W2^2", 1.0, 0.2727067586742112 },
      { "G3", 2.5, 0.7069444910808001 },
      { "W1^2+W2^2", 2.5, 0.1861110178383999 },
      { "G3", 3.280300006719128, 0.8 },
      { "W1^2+W2^2", 3.280300006719128, 0 },
      { "W3", 3.280300006719128, 5.0 },
      { "energy", 3.280300006719128, 7.05 },
      { "mz", 3.280300006719128, 2.0 },
      { "casimir", 3.280300006719128, 1.0 },
      { NULL, 0, 0 },
    } },
  { "heavy-top", "B",
    { { NULL, 0 } },
    { { "G1", 0.6 }, { "G2", 0.0 }, { "G3", 0.8 }, { "W1", 0.4 }, { "W2", -0.3 }, { "W3", 5.0 }, { NULL, 0 } },
    {
      { "G3", 0.7, 0.7151931852696409 },
      { "W1^2+W2^2", 0.7, 0.4196136294607183 },
      { "G3", 2.0, 0.8764830320917435 },
      { "W1^2+W2^2", 2.0, 0.09703393581651294 },
      { "G3", 4.0, 0.7279628993499085 },
      { "W1^2+W2^2", 4.0, 0.394074201300183 },
      { "G3", 3.5110082945147, 0.8 },
      { "W1^2+W2^2", 3.5110082945147, 0.25 },
      { "W3", 3.5110082945147, 5.0 },
      { "energy", 3.5110082945147, 7.175 },
      { "mz", 3.5110082945147, 2.24 },
      { "casimir", 3.5110082945147, 1.0 },
      { NULL, 0, 0 },
    } },
  { "heavy-top", "C",
    { { NULL, 0 } },
    { { "G1", 0.6 }, { "G2", 0.0 }, { "G3", 0.8 }, { "W1", -0.5 }, { "W2", 0.0 }, { "W3", 5.0 }, { NULL, 0 } },
    {
      { "G3", 1.0, 0.3352840385556265 },
      { "W1^2+W2^2", 1.0, 1.179431922888747 },
      { "G3", 3.0, 0.7743292881570368 },
      { "W1^2+W2^2", 3.0, 0.3013414236859264 },
      { "G3", 2.800937510083724, 0.8 },
      { "W1^2+W2^2", 2.800937510083724, 0.25 },
      { "W3", 2.800937510083724, 5.0 },
      { "energy", 2.800937510083724, 7.175 },
      { "mz", 2.800937510083724, 1.7 },
      { "casimir", 2.800937510083724, 1.0 },
      { NULL, 0, 0 },
    } },
};

static int
compare_rows (const void *a, const void *b)
{
  const OracleRow *ra = a, *rb = b;
  return ra->t < rb->t ? -1 : ra->t > rb->t;
}

static void
test_extra_case (gconstpointer data)
{
  const ExtraCase *ec = data;
  g_autoptr (CmlSimulation) sim = sim_open (ec->model);
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GError) error = NULL;
  OracleRow rows[G_N_ELEMENTS (ec->rows)];
  guint n = 0;

  sim_precise (sim);
  for (const NamedValue *p = ec->params; p->name; p++)
    sim_set_params (sim, p->name, p->value, NULL);
  for (const NamedValue *v = ec->init; v->name; v++)
    g_hash_table_insert (given, (gpointer) v->name, g_memdup2 (&v->value, sizeof v->value));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);
  /* the data are on the constraint set (the solve-for velocities are computed) */
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);

  for (; ec->rows[n].quantity; n++)
    rows[n] = ec->rows[n];
  g_assert_cmpuint (n, >, 0);
  qsort (rows, n, sizeof rows[0], compare_rows);
  for (guint k = 0; k < n; k++)
    {
      double v;
      if (rows[k].t > cml_simulation_get_time (sim))
        sim_advance (sim, rows[k].t);
      if (g_str_equal (rows[k].quantity, "W1^2+W2^2"))
        v = pow (sim_obs (sim, "W1"), 2) + pow (sim_obs (sim, "W2"), 2);
      else
        v = sim_obs (sim, rows[k].quantity);
      if (!(fabs (v - rows[k].exact) <= TOL))
        g_error ("%s case %s: %s(%.16g) = %.17g, exact %.16g (|diff| = %.3g)", ec->model, ec->label, rows[k].quantity,
                 rows[k].t, v, rows[k].exact, fabs (v - rows[k].exact));
    }
}

/* ---- every built-in with every integrator ------------------------------------------------------ */

typedef struct
{
  const char *model;
  CmlIntegratorKind kind;
} KindCase;

static void
test_integrator_kind (gconstpointer data)
{
  const KindCase *kc = data;
  g_autoptr (CmlSimulation) ref = sim_open (kc->model);
  g_autoptr (CmlSimulation) sim = sim_open (kc->model);
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  /* default tolerances (rtol 1e-10, atol 1e-12) for the adaptive methods; the implicit
   * midpoint rule is second order with h = 1e-3 (error ~ h² times third derivatives: the
   * heavy top spinning at W3 = 5 is off by about 1e-5) */
  double tol = kc->kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT ? 1e-4 : 1e-7;

  sim_precise (ref);
  o.kind = kc->kind;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
  if (kc->kind == CML_INTEGRATOR_AUTO)
    {
      /* the default: a method chosen for the system (at these tolerances taylor for a
       * polynomial or trigonometric right-hand side, rk8pd for the others), and why */
      CmlIntegratorKind chosen = cml_simulation_get_integrator (sim)->kind;
      g_assert_true (chosen == CML_INTEGRATOR_TAYLOR || chosen == CML_INTEGRATOR_RK8PD);
      g_assert_nonnull (cml_simulation_get_integrator (sim)->chosen);
      g_test_message ("%s: auto chose %s", kc->model, cml_integrator_kind_to_string (chosen));
    }
  else
    g_assert_cmpint (cml_simulation_get_integrator (sim)->kind, ==, kc->kind);
  sim_advance (ref, 2);
  sim_advance (sim, 2);
  const double *a = cml_simulation_get_state (ref), *b = cml_simulation_get_state (sim);
  CmlSystem *sys = cml_simulation_get_system (sim);
  double worst = 0;
  for (guint i = 0; i < cml_system_dim (sys); i++)
    {
      g_assert_true (isfinite (b[i]));
      worst = MAX (worst, fabs (a[i] - b[i]) / (1 + fabs (a[i])));
      if (!(fabs (a[i] - b[i]) <= tol * (1 + fabs (a[i]))))
        g_error ("%s with %s: %s(2) = %.17g, rk8pd gives %.17g", kc->model,
                 cml_integrator_kind_to_string (kc->kind), cml_system_state_name (sys, i), b[i], a[i]);
    }
  g_test_message ("%s, %s: largest deviation from rk8pd at t = 2: %.2g (allowed %.2g)", kc->model,
                  cml_integrator_kind_to_string (kc->kind), worst, tol);
  /* the reference itself moved */
  g_assert_cmpfloat (cml_simulation_get_time (ref), ==, 2);
}

int
main (int argc, char *argv[])
{
  static const char *all_models[G_N_ELEMENTS (builtin_models) + G_N_ELEMENTS (extra_models) - 1];
  static KindCase cases[G_N_ELEMENTS (all_models) * CML_INTEGRATOR_N_KINDS];
  guint na = 0;
  guint nc = 0;

  g_test_init (&argc, &argv, NULL);
  gsl_set_error_handler_off ();
  for (guint m = 0; builtin_models[m]; m++)
    all_models[na++] = builtin_models[m];
  for (guint m = 0; extra_models[m]; m++)
    all_models[na++] = extra_models[m];
  all_models[na] = NULL;

  g_test_add_func ("/models/rolling-ball/oracle-O1", test_o1_ball);
  g_test_add_func ("/models/rolling-ball/circle-closed-form", test_o1_circle);
  g_test_add_func ("/models/rolling-ball/oracle-O1-body-sign", test_o1_body_sign);
  g_test_add_func ("/models/rolling-ball-varying/closed-form-default", test_varying_default);
  g_test_add_func ("/models/rolling-ball-varying/closed-form-other", test_varying_other);
  g_test_add_func ("/models/plate-ball/oracle-O3-sigma+1", test_o3_plus);
  g_test_add_func ("/models/plate-ball/oracle-O3-sigma-1", test_o3_minus);
  g_test_add_func ("/models/plate-ball/midpoint-casimir-sigma-1", test_midpoint_casimir_minus);
  g_test_add_func ("/models/plate-ball/midpoint-casimir-sigma+1", test_midpoint_casimir_plus);
  g_test_add_func ("/models/martinet/oracle-O4", test_o4_martinet);
  g_test_add_func ("/models/capri-kobayashi/oracle-O5", test_o5_capri);
  g_test_add_func ("/models/capri-kobayashi/reduced-vs-full", test_capri_reduced_vs_full);
  g_test_add_func ("/models/capri-kobayashi/epicycles-general", test_capri_epicycles_general);

  for (guint k = 0; k < G_N_ELEMENTS (extra_cases); k++)
    {
      g_autofree char *path = g_strdup_printf ("/models/%s/oracle-case-%s", extra_cases[k].model, extra_cases[k].label);
      g_test_add_data_func (path, &extra_cases[k], test_extra_case);
    }

  for (guint m = 0; m < G_N_ELEMENTS (all_models) - 1; m++)
    for (int k = 0; k <= CML_INTEGRATOR_N_ODE_KINDS; k++)
      {
        if (k == CML_INTEGRATOR_N_ODE_KINDS)
          k = CML_INTEGRATOR_AUTO; /* and the default, the last */
        cases[nc] = (KindCase) { all_models[m], k };
        g_autofree char *path = g_strdup_printf ("/models/%s/integrator/%s", all_models[m],
                                                 cml_integrator_kind_to_string (k));
        g_test_add_data_func (path, &cases[nc], test_integrator_kind);
        nc++;
      }
  return g_test_run ();
}
