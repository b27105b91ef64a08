/* reference-rhs.c — the built-in systems' equations written out by hand (doc/theory.md §9),
 * and their closed forms (doc/theory.md §9, the checks of §10).  Used by `cmlab-bench` only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each right-hand side is what a person would write for that one system: the equations
 * as printed in the reference sheet, with the constants that depend only on parameters
 * (κ, 1/r, …) computed once in prepare().  Nothing here is derived; a disagreement with
 * the engine's derived equations is a bug in one of the two, and the benchmark refuses to
 * run when they disagree.
 */
#define G_LOG_DOMAIN "cml-bench"

#include "reference-rhs.h"

#include <complex.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_ellint.h>
#include <math.h>
#include <string.h>

/* ---- attitude quaternion --------------------------------------------------------------- */

/* dq/dt = ½ (0, ω) ⊗ q for the spatial angular velocity ω (doc/theory.md §9.1, Rdot = ω^ R). */
static inline void
quaternion_rate (const double *q, double w1, double w2, double w3, double *dq)
{
  dq[0] = -0.5 * (w1 * q[1] + w2 * q[2] + w3 * q[3]);
  dq[1] = 0.5 * (q[0] * w1 + w2 * q[3] - w3 * q[2]);
  dq[2] = 0.5 * (q[0] * w2 + w3 * q[1] - w1 * q[3]);
  dq[3] = 0.5 * (q[0] * w3 + w1 * q[2] - w2 * q[1]);
}

/* ---- doc/theory.md §9.1: rolling ball, constant Ω ------------------------------------------
 * State (x, y, u, v, ω1, ω2, ω3, q0..q3, α); κ = k²/(k²+r²):
 *   ẋ = u, ẏ = v, u̇ = −κΩv, v̇ = κΩu,
 *   ω̇1 = rΩu/(k²+r²), ω̇2 = rΩv/(k²+r²), ω̇3 = 0,  q̇ = ½(0,ω)⊗q,  α̇ = Ω. */

static const char *const ball_state[] = { "x", "y", "u", "v", "w1", "w2", "w3",
                                          "q0", "q1", "q2", "q3", "alpha", NULL };
static const char *const ball_params[] = { "m", "r", "k2", "Omega", NULL };

static void
ball_prepare (CmlRefParams *p)
{
  double r = p->p[1], k2 = p->p[2], Omega = p->p[3];

  p->c[0] = k2 / (k2 + r * r) * Omega; /* κΩ */
  p->c[1] = r / (k2 + r * r) * Omega;  /* rΩ/(k²+r²) */
}

static int
ball_rhs (double t, const double *z, double *dz, void *data)
{
  const CmlRefParams *p = data;
  double kO = p->c[0], rO = p->c[1], Omega = p->p[3];

  dz[0] = z[2];
  dz[1] = z[3];
  dz[2] = -kO * z[3];
  dz[3] = kO * z[2];
  dz[4] = rO * z[2];
  dz[5] = rO * z[3];
  dz[6] = 0.0;
  quaternion_rate (z + 7, z[4], z[5], z[6], dz + 7);
  dz[11] = Omega;
  return 0;
}

/* ---- doc/theory.md §9.1: rolling ball, Ω(t) = Ω0 + Ω1 sin νt -------------------------------
 *   u̇ = −κ(Ωv + Ω'y), v̇ = κ(Ωu + Ω'x), ω̇1 = r(Ωu + Ω'x)/(k²+r²), ω̇2 = r(Ωv + Ω'y)/(k²+r²). */

static const char *const varying_params[] = { "m", "r", "k2", "Omega0", "Omega1", "nu", NULL };

static void
varying_prepare (CmlRefParams *p)
{
  double r = p->p[1], k2 = p->p[2];

  p->c[0] = k2 / (k2 + r * r); /* κ */
  p->c[1] = r / (k2 + r * r);
  p->c[2] = p->p[4] * p->p[5]; /* Ω1 ν */
}

static int
varying_rhs (double t, const double *z, double *dz, void *data)
{
  const CmlRefParams *p = data;
  double kappa = p->c[0], rr = p->c[1];
  double Omega0 = p->p[3], Omega1 = p->p[4], nu = p->p[5];
  double Omega = Omega0 + Omega1 * sin (nu * t);
  double dOmega = p->c[2] * cos (nu * t);
  double ax = Omega * z[2] + dOmega * z[0]; /* Ωu + Ω'x */
  double ay = Omega * z[3] + dOmega * z[1]; /* Ωv + Ω'y */

  dz[0] = z[2];
  dz[1] = z[3];
  dz[2] = -kappa * ay;
  dz[3] = kappa * ax;
  dz[4] = rr * ax;
  dz[5] = rr * ay;
  dz[6] = 0.0;
  quaternion_rate (z + 7, z[4], z[5], z[6], dz + 7);
  dz[11] = Omega;
  return 0;
}

/* ---- doc/theory.md §9.2: plate–ball (vakonomic, Hamiltonian form on W1) --------------------
 * State (x1, x2, p1..p5, q0..q3, α); y1 = p1 + p4/r, y2 = p2 − p3/r,
 * Ψ3 = (Ωx1 − y2)/r, Ψ4 = (y1 + Ωx2)/r:
 *   ẋ1 = y1, ẋ2 = y2, ṗ1 = −Ωp3/r, ṗ2 = −Ωp4/r,
 *   ṗ3 = σ(c p4 − Ψ4 p5), ṗ4 = σ(Ψ3 p5 − c p3), ṗ5 = σ(Ψ4 p3 − Ψ3 p4),
 *   q̇ = ½(0, (Ψ3, Ψ4, c))⊗q, α̇ = Ω. */

static const char *const plate_state[] = { "x1", "x2", "p1", "p2", "p3", "p4", "p5",
                                           "q0", "q1", "q2", "q3", "alpha", NULL };
static const char *const plate_params[] = { "r", "Omega", "c", "sigma", NULL };

static void
plate_prepare (CmlRefParams *p)
{
  p->c[0] = 1.0 / p->p[0];        /* 1/r */
  p->c[1] = p->p[1] / p->p[0];    /* Ω/r */
}

static int
plate_rhs (double t, const double *z, double *dz, void *data)
{
  const CmlRefParams *p = data;
  double ir = p->c[0], Or = p->c[1], Omega = p->p[1], c = p->p[2], sigma = p->p[3];
  double y1 = z[2] + z[5] * ir;
  double y2 = z[3] - z[4] * ir;
  double psi3 = (Omega * z[0] - y2) * ir;
  double psi4 = (y1 + Omega * z[1]) * ir;

  dz[0] = y1;
  dz[1] = y2;
  dz[2] = -Or * z[4];
  dz[3] = -Or * z[5];
  dz[4] = sigma * (c * z[5] - psi4 * z[6]);
  dz[5] = sigma * (psi3 * z[6] - c * z[4]);
  dz[6] = sigma * (psi4 * z[4] - psi3 * z[5]);
  quaternion_rate (z + 7, psi3, psi4, c, dz + 7);
  dz[11] = Omega;
  return 0;
}

/* ---- doc/theory.md §9.3: Martinet ----------------------------------------------------------
 * State (x, p_u = u, p_y1 = y1, k, x2, x3):
 *   ẋ = u, u̇ = −k x y1, ẏ1 = k x u, k̇ = 0, ẋ2 = y1, ẋ3 = x² y1/2. */

static const char *const martinet_state[] = { "x1", "p_u", "p_y1", "k", "x2", "x3", NULL };
static const char *const no_params[] = { NULL };

static void
martinet_prepare (CmlRefParams *p)
{
}

static int
martinet_rhs (double t, const double *z, double *dz, void *data)
{
  double x = z[0], u = z[1], y1 = z[2], k = z[3];

  dz[0] = u;
  dz[1] = -k * x * y1;
  dz[2] = k * x * u;
  dz[3] = 0.0;
  dz[4] = y1;
  dz[5] = 0.5 * x * x * y1;
  return 0;
}

/* ---- doc/theory.md §9.4: Capri–Kobayashi, reduced ------------------------------------------
 * State (x1, y1, ρ, ẋ1, ẏ1, v, r, θ); on the final constraint manifold x1 = y1 = ẋ1 = ẏ1 = 0
 * (the SODE condition: ẋ1 = vx1, ẏ1 = vy1, kernel accelerations 0):
 *   ρ̇ = v, v̇ = ρ(m2 r² + 2r − 2)/m2, ṙ = −2v(m2 r + 1)/(m2 ρ), θ̇ = r. */

static const char *const capri_state[] = { "x1", "y1", "rho", "vx1", "vy1", "v", "r", "theta", NULL };
static const char *const capri_params[] = { "m2", NULL };

static void
capri_prepare (CmlRefParams *p)
{
  p->c[0] = 1.0 / p->p[0]; /* 1/m2 */
}

static int
capri_rhs (double t, const double *z, double *dz, void *data)
{
  const CmlRefParams *p = data;
  double m2 = p->p[0], im2 = p->c[0];
  double rho = z[2], v = z[5], r = z[6];

  dz[0] = z[3];
  dz[1] = z[4];
  dz[2] = v;
  dz[3] = 0.0;
  dz[4] = 0.0;
  dz[5] = rho * (m2 * r * r + 2.0 * r - 2.0) * im2;
  dz[6] = -2.0 * v * (m2 * r + 1.0) * im2 / rho;
  dz[7] = r;
  return 0;
}

/* ---- doc/theory.md §9.4: Capri–Kobayashi, unreduced on T R⁴ --------------------------------
 * State (x1, y1, x2, y2, ẋ1, ẏ1, ẋ2, ẏ2):
 *   m2 ẍ2 = 2ẏ2 − 2x2,  m2 ÿ2 = −2ẋ2 − 2y2,  and particle 1 at rest at the origin. */

static const char *const full_state[] = { "x1", "y1", "x2", "y2", "vx1", "vy1", "vx2", "vy2", NULL };

static int
full_rhs (double t, const double *z, double *dz, void *data)
{
  const CmlRefParams *p = data;
  double im2 = p->c[0];

  dz[0] = z[4];
  dz[1] = z[5];
  dz[2] = z[6];
  dz[3] = z[7];
  dz[4] = 0.0;
  dz[5] = 0.0;
  dz[6] = 2.0 * (z[7] - z[2]) * im2;
  dz[7] = -2.0 * (z[6] + z[3]) * im2;
  return 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

static const CmlRefSystem ref_systems[] = {
  { "rolling-ball", 12, ball_state, 4, ball_params, ball_rhs, ball_prepare },
  { "rolling-ball-varying", 12, ball_state, 6, varying_params, varying_rhs, varying_prepare },
  { "plate-ball", 12, plate_state, 4, plate_params, plate_rhs, plate_prepare },
  { "martinet", 6, martinet_state, 0, no_params, martinet_rhs, martinet_prepare },
  { "capri-kobayashi", 8, capri_state, 1, capri_params, capri_rhs, capri_prepare },
  { "capri-kobayashi-full", 8, full_state, 1, capri_params, full_rhs, capri_prepare },
};

const CmlRefSystem *
cml_ref_systems (guint *n)
{
  *n = G_N_ELEMENTS (ref_systems);
  return ref_systems;
}

const CmlRefSystem *
cml_ref_system_lookup (const char *model)
{
  for (guint i = 0; i < G_N_ELEMENTS (ref_systems); i++)
    if (g_str_equal (ref_systems[i].model, model))
      return &ref_systems[i];
  return NULL;
}

/* ---- closed forms ------------------------------------------------------------------------- */

/* K(m), E(m) for the parameter m (GSL takes the modulus k = √m). */
static double
ellk (double m)
{
  return gsl_sf_ellint_Kcomp (sqrt (m), GSL_PREC_DOUBLE);
}

static double
elle (double m)
{
  return gsl_sf_ellint_Ecomp (sqrt (m), GSL_PREC_DOUBLE);
}

/* Plate–ball, c = Ω = 0, started at the bottom of the pendulum (x = 0, P = (p1, 0) with
 * p1 > 0, p3 = p4 = 0): speed v = p1, |P| = p1, θ̇0 = σp5/r², ν = √(v|P|)/r, modulus
 * k_e = |θ̇0|/(2ν) < 1 (libration); period T = 4K(k_e²)/ν. */
static gboolean
plate_elastica (const CmlRefParams *p, const double *z0, double *T, double *dx1)
{
  double r = p->p[0], Omega = p->p[1], c = p->p[2], sigma = p->p[3];
  double v, nu, ke;

  if (Omega != 0.0 || c != 0.0 || z0[0] != 0.0 || z0[1] != 0.0 || !(z0[2] > 0.0) || z0[3] != 0.0
      || z0[4] != 0.0 || z0[5] != 0.0)
    return FALSE;
  v = z0[2];
  nu = sqrt (v * z0[2]) / r;
  ke = fabs (sigma * z0[6] / (r * r)) / (2.0 * nu);
  if (!(ke < 1.0))
    return FALSE;
  *T = 4.0 * ellk (ke * ke) / nu;
  /* x1 = (v/ν)(2E(am νt, k_e) − νt): over one period am goes round once, E(2π) = 4E */
  *dx1 = v / nu * (8.0 * elle (ke * ke) - 4.0 * ellk (ke * ke));
  return TRUE;
}

/* Martinet libration (doc/theory.md §9.3): R = √(u² + y1²), u = R sin θ, y1 = R cos θ, θ̇ = −kx,
 * E_p = θ̇²/2 − kR cos θ < kR; m = (1 + E_p/(kR))/2, ν = √(kR), T = 4K(m)/ν, and
 * x2 advances by R T (2E(m)/K(m) − 1) per period. */
static gboolean
martinet_libration (const double *z0, double *T, double *dx2)
{
  double x = z0[0], u = z0[1], y1 = z0[2], k = z0[3];
  double R = hypot (u, y1), kR = k * R, th = atan2 (u, y1), thd = -k * x;
  double Ep, m, nu;

  if (!(kR > 0.0))
    return FALSE;
  Ep = 0.5 * thd * thd - kR * cos (th);
  if (!(Ep < kR))
    return FALSE;
  m = 0.5 * (1.0 + Ep / kR);
  nu = sqrt (kR);
  *T = 4.0 * ellk (m) / nu;
  *dx2 = R * *T * (2.0 * elle (m) / ellk (m) - 1.0);
  return TRUE;
}

/* Capri–Kobayashi epicycles: m2 z̈ + 2i ż + 2z = 0, z = A e^{iω+ t} + B e^{iω− t}. */
static void
capri_z (double m2, double complex z0, double complex zd0, double t, double complex *z,
         double complex *zd)
{
  double s = sqrt (1.0 + 2.0 * m2);
  double wp = (-1.0 + s) / m2, wm = (-1.0 - s) / m2;
  double complex A = (-I * zd0 - wm * z0) / (wp - wm);
  double complex B = z0 - A;
  double complex ep = cexp (I * wp * t), em = cexp (I * wm * t);

  *z = A * ep + B * em;
  *zd = I * (wp * A * ep + wm * B * em);
}

double
cml_ref_period (const CmlRefSystem *sys, const CmlRefParams *p, const double *z0)
{
  const char *m = sys->model;

  if (g_str_equal (m, "rolling-ball") || g_str_equal (m, "rolling-ball-varying"))
    {
      double r = p->p[1], k2 = p->p[2], Omega = p->p[3];
      double kappa = k2 / (k2 + r * r);
      return 2.0 * G_PI / (kappa * (Omega != 0.0 ? fabs (Omega) : 1.0));
    }
  if (g_str_equal (m, "plate-ball"))
    {
      double T, dx1;
      return plate_elastica (p, z0, &T, &dx1) ? T : 2.0 * G_PI;
    }
  if (g_str_equal (m, "martinet"))
    {
      double T, dx2;
      return martinet_libration (z0, &T, &dx2) ? T : 2.0 * G_PI;
    }
  /* Capri–Kobayashi: the period of ρ */
  return G_PI * p->p[0] / sqrt (1.0 + 2.0 * p->p[0]);
}

/* ∫ cos θ(s) ds and ∫ sin θ(s) ds over [0, t] for the varying ball, θ(s) = κ(Ω0 s + Ω1(1 −
 * cos νs)/ν): 20-point Gauss–Legendre on pieces of length ≤ 1/4 (the integrand is entire
 * and slowly varying, so each piece is exact to rounding). */
static void
varying_theta_integrals (double kappa, double O0, double O1, double nu, double t, double *ic,
                         double *is)
{
  static gsl_integration_glfixed_table *tab = NULL;
  guint n_pieces = (guint) ceil (t / 0.25);
  double h = n_pieces ? t / n_pieces : 0.0;

  if (tab == NULL)
    tab = gsl_integration_glfixed_table_alloc (20);
  *ic = *is = 0.0;
  for (guint k = 0; k < n_pieces; k++)
    {
      double a = k * h, sc = 0.0, ss = 0.0;
      for (size_t i = 0; i < 20; i++)
        {
          double xi, wi, s, th;
          gsl_integration_glfixed_point (a, a + h, i, &xi, &wi, tab);
          s = xi;
          th = kappa * (O0 * s + (nu != 0.0 ? O1 * (1.0 - cos (nu * s)) / nu : 0.0));
          sc += wi * cos (th);
          ss += wi * sin (th);
        }
      *ic += sc;
      *is += ss;
    }
}

guint
cml_ref_exact (const CmlRefSystem *sys, const CmlRefParams *p, const double *z0, double t,
               const char **names, double *values, guint max)
{
  const char *m = sys->model;
  guint n = 0;

#define PUT(NAME, VALUE)                                                                       \
  G_STMT_START                                                                                 \
  {                                                                                            \
    if (n < max)                                                                               \
      {                                                                                        \
        names[n] = (NAME);                                                                     \
        values[n] = (VALUE);                                                                   \
        n++;                                                                                   \
      }                                                                                        \
  }                                                                                            \
  G_STMT_END

  if (g_str_equal (m, "rolling-ball"))
    {
      /* the centre's circle: ω_c = κΩ, centre x0 − J ẋ0/ω_c, x(t) = x_c + Rot(ω_c t)(x0 − x_c) */
      double r = p->p[1], k2 = p->p[2], Omega = p->p[3];
      double wc = k2 / (k2 + r * r) * Omega;
      double x0 = z0[0], y0 = z0[1], u0 = z0[2], v0 = z0[3];
      if (wc == 0.0)
        {
          PUT ("x", x0 + u0 * t);
          PUT ("y", y0 + v0 * t);
          PUT ("u", u0);
          PUT ("v", v0);
        }
      else
        {
          double xc = x0 - v0 / wc, yc = y0 + u0 / wc, c = cos (wc * t), s = sin (wc * t);
          PUT ("x", xc + c * (x0 - xc) - s * (y0 - yc));
          PUT ("y", yc + s * (x0 - xc) + c * (y0 - yc));
          PUT ("u", c * u0 - s * v0);
          PUT ("v", s * u0 + c * v0);
        }
      return n;
    }
  if (g_str_equal (m, "rolling-ball-varying"))
    {
      /* x(t) = Rot(θ(t)) [x0 + ∫ Rot(−θ(s)) C ds], C = ẋ0 − κΩ(0) J x0, ẋ = κΩ(t) J x + C */
      double r = p->p[1], k2 = p->p[2], O0 = p->p[3], O1 = p->p[4], nu = p->p[5];
      double kappa = k2 / (k2 + r * r);
      double x0 = z0[0], y0 = z0[1], u0 = z0[2], v0 = z0[3];
      double Cx = u0 + kappa * O0 * y0, Cy = v0 - kappa * O0 * x0;
      double ic, is, th, c, s, wx, wy, x, y, Ot;
      varying_theta_integrals (kappa, O0, O1, nu, t, &ic, &is);
      wx = x0 + ic * Cx + is * Cy;
      wy = y0 - is * Cx + ic * Cy;
      th = kappa * (O0 * t + (nu != 0.0 ? O1 * (1.0 - cos (nu * t)) / nu : 0.0));
      c = cos (th);
      s = sin (th);
      x = c * wx - s * wy;
      y = s * wx + c * wy;
      Ot = O0 + O1 * sin (nu * t);
      PUT ("x", x);
      PUT ("y", y);
      PUT ("u", -kappa * Ot * y + Cx);
      PUT ("v", kappa * Ot * x + Cy);
      return n;
    }
  if (g_str_equal (m, "plate-ball"))
    {
      double T, dx1, k;
      if (!plate_elastica (p, z0, &T, &dx1))
        return 0;
      k = round (t / T);
      if (fabs (t - k * T) > 1e-9 * (1.0 + t))
        return 0;
      PUT ("x1", k * dx1);
      PUT ("x2", 0.0);
      PUT ("p1", z0[2]);
      PUT ("p2", z0[3]);
      PUT ("p3", z0[4]);
      PUT ("p4", z0[5]);
      PUT ("p5", z0[6]);
      return n;
    }
  if (g_str_equal (m, "martinet"))
    {
      double T, dx2, k;
      if (!martinet_libration (z0, &T, &dx2))
        return 0;
      k = round (t / T);
      if (fabs (t - k * T) > 1e-9 * (1.0 + t))
        return 0;
      PUT ("x1", z0[0]);
      PUT ("u", z0[1]);
      PUT ("y1", z0[2]);
      PUT ("x2", z0[4] + k * dx2);
      return n;
    }
  if (g_str_equal (m, "capri-kobayashi"))
    {
      double complex e0 = cexp (I * z0[7]);
      double complex z, zd;
      double rho;
      capri_z (p->p[0], z0[2] * e0, (z0[5] + I * z0[2] * z0[6]) * e0, t, &z, &zd);
      rho = cabs (z);
      PUT ("rho", rho);
      PUT ("v", creal (zd * conj (z)) / rho);
      PUT ("r", cimag (zd * conj (z)) / (rho * rho));
      return n;
    }
  if (g_str_equal (m, "capri-kobayashi-full"))
    {
      double complex z, zd;
      capri_z (p->p[0], z0[2] + I * z0[3], z0[6] + I * z0[7], t, &z, &zd);
      PUT ("x2", creal (z));
      PUT ("y2", cimag (z));
      PUT ("vx2", creal (zd));
      PUT ("vy2", cimag (zd));
      return n;
    }
#undef PUT
  return 0;
}
