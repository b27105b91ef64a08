/* cml-taylor-core.h — one step of the Taylor method as C text: the jet at the step's start,
 * the step size from its coefficients, the end of the step by Horner's rule.  The library
 * compiles it around the interpreter (cml-taylor-step.c); a Taylor program's native code
 * compiles the same text around the program (cml-taylor-emit.c), with the dimension and the
 * order constants — so that the steps give the same numbers either way, bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Order and step (Jorba & Zou, "A software package for the numerical integration of ODEs
 * by means of high-order Taylor methods", Experimental Mathematics 14 (2005); doc/theory.md,
 * "The Taylor integrator"): with ε the smaller tolerance, p the order, the coefficients
 * z_i[k] of the step's start and, for every component, s_i = (atol + rtol |z_i[0]|)/ε,
 *
 *   ρ_m = min_i (s_i / |z_i[m]|)^(1/m)  (m = p − 1, p),    h = min (ρ_{p−1}, ρ_p) F,
 *
 * F = e^(−2) e^(−0.7/(p−1)) (the caller's factor), so that the first neglected terms of
 * every component are about ε s_i.  A ρ_m with every z_i[m] = 0 is infinite; when both are,
 * the solution is a polynomial of degree below p − 1 and the step is the caller's fallback.
 * The end of the step is z_i(t + h) = Σ_k z_i[k] h^k, by Horner's rule in h² for the even
 * and the odd terms apart.
 *
 * S holds one row of N = p + 1 coefficients per series (row 0 time, rows 1 … dim the state;
 * cml-taylor-private.h).  The includer defines TK_STEP_FN (the step's name), TK_JET (S, C)
 * (fills S's rows from its rows 0 … dim at order 0) and TK_EXTRA_PARAMS (more parameters,
 * starting with a comma).  The step returns 0 when it was taken, 1 when its size is below
 * h_min or too small to move t (s->h is then that size, unsigned), 2 when its end is not
 * finite.  Without TK_STEP_FN only the type and the helpers are defined.  No header is
 * included: native code compiles this text with exp, log and fabs declared and nothing else.
 */
#ifndef CML_TAYLOR_STEP_TYPE
#define CML_TAYLOR_STEP_TYPE

typedef struct CmlTaylorStep
{
  double t;               /* in: the step's start */
  double h;               /* in: the step (signed), or 0: from the coefficients, in direction dir;
                           * out: the step taken */
  int    dir;             /* ±1 */
  double rtol, atol;
  double factor;          /* F above */
  double h_min;
  double fallback;        /* the step when both ρ are infinite */
  const double *z;        /* in: the state at t (dim) */
  double *zb;             /* out: the state at t + h (dim) */
} CmlTaylorStep;

/* S's rows at order 0 for the jet at (T, Z): time (T, 1, 0, …) and the state. */
static inline __attribute__ ((always_inline)) void
cml_tk_start (double *S, int dim, int N, double t, const double *z)
{
  int i;

  S[0] = t;
  S[1] = 1.0;
  for (i = 2; i < N; i++)
    S[i] = 0.0;
  for (i = 0; i < dim; i++)
    S[(1 + i) * N] = z[i];
}

/* Σ_k X[i][k] τ^k for every component, into Z: Horner's rule in τ² for the even and the
 * odd coefficients, E(τ²) + τ O(τ²) — two chains of multiply-and-add half as long as one in
 * τ, each link waiting on the last — for two components side by side. */
static inline __attribute__ ((always_inline)) void
cml_tk_horner (const double *X, int dim, int N, double tau, double *z)
{
  const double t2 = tau * tau;
  const int ne = (N - 1) & ~1, no = (N - 1) & 1 ? N - 1 : N - 2; /* the highest even, odd k */
  int i = 0, k;

  for (; i + 1 < dim; i += 2)
    {
      const double *a = X + i * N, *b = a + N;
      double ea = a[ne], eb = b[ne], oa = a[no], ob = b[no];
      for (k = ne - 2; k >= 0; k -= 2)
        {
          ea = ea * t2 + a[k];
          eb = eb * t2 + b[k];
        }
      for (k = no - 2; k >= 1; k -= 2)
        {
          oa = oa * t2 + a[k];
          ob = ob * t2 + b[k];
        }
      z[i] = ea + tau * oa;
      z[i + 1] = eb + tau * ob;
    }
  for (; i < dim; i++)
    {
      const double *a = X + i * N;
      double ea = a[ne], oa = a[no];
      for (k = ne - 2; k >= 0; k -= 2)
        ea = ea * t2 + a[k];
      for (k = no - 2; k >= 1; k -= 2)
        oa = oa * t2 + a[k];
      z[i] = ea + tau * oa;
    }
}

/* The step size (positive) from the coefficients X of order P; infinite when the solution
 * is a polynomial of degree below p − 1.  With m_m = max_i |x_i[m]| / s_i (one division a
 * component, by s_i = (atol + rtol |x_i[0]|)/ε), ρ_m = m_m^(−1/m), and min (ρ_{p−1}, ρ_p)
 * is exp (min (−ln m_{p−1} / (p − 1), −ln m_p / p)): two logarithms and one exponential.
 * A coefficient that is 0, or so small that |x_i[m]| / s_i underflows, bounds nothing. */
static inline __attribute__ ((always_inline)) double
cml_tk_step_size (const double *X, int dim, int N, int p, double rtol, double atol, double factor)
{
  double m1 = 0.0, m2 = 0.0;
  double eps = rtol > 0 && atol > 0 ? (rtol < atol ? rtol : atol) : (rtol > atol ? rtol : atol);
  int i;

  for (i = 0; i < dim; i++)
    {
      const double *x = X + i * N;
      double is = eps / (atol + rtol * fabs (x[0]));
      double v1 = fabs (x[p - 1]) * is, v2 = fabs (x[p]) * is;
      m1 = v1 > m1 ? v1 : m1;
      m2 = v2 > m2 ? v2 : m2;
    }
  double l1 = m1 > 0 ? -log (m1) / (p - 1) : (1.0 / 0.0);
  double l2 = m2 > 0 ? -log (m2) / p : (1.0 / 0.0);
  return exp (l1 < l2 ? l1 : l2) * factor;
}

#endif

#ifdef TK_STEP_FN

/* One step from (s->t, s->z) of a program with DIM states and N = P + 1 coefficients. */
static inline __attribute__ ((always_inline)) int
TK_STEP_FN (double *S, const double *C, CmlTaylorStep *s, int dim, int N TK_EXTRA_PARAMS)
{
  const int p = N - 1;
  const double *X = S + N;
  double h = s->h;
  int i;

  cml_tk_start (S, dim, N, s->t, s->z);
  TK_JET (S, C);
  if (h == 0)
    {
      double a = cml_tk_step_size (X, dim, N, p, s->rtol, s->atol, s->factor);
      if (!(a - a == 0.0))
        a = s->fallback;
      if (!(a >= s->h_min) || s->t + s->dir * a == s->t)
        {
          s->h = a;
          return 1;
        }
      h = s->dir * a;
    }
  s->h = h;
  cml_tk_horner (X, dim, N, h, s->zb);
  for (i = 0; i < dim; i++)
    if (!(s->zb[i] - s->zb[i] == 0.0))
      return 2;
  return 0;
}

#endif
