/* cml-simulation-fallback.c — the right-hand side's fallback: when a pivot the symbolic
 * solve chose at a sample point is small against its matrix (or the solve has no symbolic
 * form), the accelerations are computed from the evaluated matrices by LU with partial
 * pivoting (cml-simulation.c decides when).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §2, §3.  Regular Lagrangians: ẏ = W⁻¹(R + Φ_yᵀ λ) with
 * λ = −C⁻¹(φ_t + Φ_x ẋ + Φ_y W⁻¹ R), C = Φ_y W⁻¹ Φ_yᵀ.  Singular Lagrangians: a particular
 * solution ẏ_part, a basis K of the kernel of W, and the kernel accelerations v solving
 * M v = −(g_t + g_x ẋ + g_y ẏ_part), M_ab = g_y^a · K_b, with g the secondary
 * constraints; the conditioning of M tells when regularity is lost.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-simulation-private.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"

/* A X = B in place (A n×n, B n×k, row-major) by LU with partial pivoting; FALSE if a pivot
 * is below 1e-13 of the largest entry of A (singular to working precision). */
static gboolean
lu_solve (guint n, double *A, guint k, double *B)
{
  double scale = 0;
  for (guint i = 0; i < n * n; i++)
    scale = MAX (scale, fabs (A[i]));
  if (!(scale > 0) || !isfinite (scale))
    return FALSE;
  for (guint c = 0; c < n; c++)
    {
      guint p = c;
      for (guint r = c + 1; r < n; r++)
        if (fabs (A[r * n + c]) > fabs (A[p * n + c]))
          p = r;
      if (!(fabs (A[p * n + c]) > 1e-13 * scale))
        return FALSE;
      if (p != c)
        {
          for (guint j = 0; j < n; j++)
            {
              double t = A[c * n + j];
              A[c * n + j] = A[p * n + j];
              A[p * n + j] = t;
            }
          for (guint j = 0; j < k; j++)
            {
              double t = B[c * k + j];
              B[c * k + j] = B[p * k + j];
              B[p * k + j] = t;
            }
        }
      for (guint r = c + 1; r < n; r++)
        {
          double f = A[r * n + c] / A[c * n + c];
          if (f == 0)
            continue;
          for (guint j = c; j < n; j++)
            A[r * n + j] -= f * A[c * n + j];
          for (guint j = 0; j < k; j++)
            B[r * k + j] -= f * B[c * k + j];
        }
    }
  for (guint c = n; c-- > 0;)
    for (guint j = 0; j < k; j++)
      {
        double v = B[c * k + j];
        for (guint i = c + 1; i < n; i++)
          v -= A[c * n + i] * B[i * k + j];
        B[c * k + j] = v / A[c * n + c];
      }
  return TRUE;
}

/* Singular Lagrangians, the numeric counterpart of cml_sys_derive_singular's solves at (T, Z):
 * runs the fallback program, then ẏ_part into YP (n) and the kernel basis into KN (n×k),
 * the matrix of the kernel accelerations into M (q×q: M_ab = g_y^a · K_{cols[b]}) and the
 * right-hand side of M v = −(g_t + g_x ẋ + g_y ẏ_part) into B (q).  Returns 0, or 1 with
 * sim->reason set.  The buffers are parts of sim->fb_work (see rhs_fallback_singular). */
static int
singular_fb_eval (CmlSimulation *sim, double t, const double *z, double *YP, double *KN, double *M,
                  double *B)
{
  CmlSystem *sys = sim->sys;
  guint n = sys->n, r = sys->derived.fb_r, k = sys->derived.fb_k, q = sys->derived.fb_q;
  const double *o = sim->fb_out, *W = o, *R = o + n * n, *rows = R + n;
  double *A = M + q * q + q + k, *X = A + n * n; /* r×r and r×(1 + k) scratch */

  cml_sim_fill_fast (sim, t, z);
  cml_program_run (sys->fb_prog, sim->fast, sim->regs_fb, sim->fb_out);
  for (guint i = 0; i < sys->derived.fb->len; i++)
    if (!isfinite (o[i]))
      {
        /* with a kernel that depends on the point, the constraints K·R divide by the
         * pivots of W_PQ themselves */
        g_snprintf (sim->reason, sizeof sim->reason,
                    "the equations of the constraint algorithm are not finite at this state%s",
                    sys->derived.fb_sing_varying ? " (the kernel of W is computed with a pivot of W that vanishes here)" : "");
        return 1;
      }

  /* 1. the particular acceleration and the kernel basis */
  memset (YP, 0, n * sizeof (double));
  if (!sys->derived.fb_sing_varying)
    {
      /* (Kcᵀ W Kc) u = Kcᵀ R, ẏ_part = Kc u; K is constant */
      const double *Kc = sys->derived.fb_Kc;
      for (guint a = 0; a < r; a++)
        {
          double s = 0;
          for (guint C = 0; C < n; C++)
            s += Kc[C * r + a] * R[C];
          X[a] = s;
          for (guint b = 0; b < r; b++)
            {
              double w = 0;
              for (guint C = 0; C < n; C++)
                for (guint D = 0; D < n; D++)
                  w += Kc[C * r + a] * W[C * n + D] * Kc[D * r + b];
              A[a * r + b] = w;
            }
        }
      if (r && !lu_solve (r, A, 1, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular", sys->derived.reg_name);
          return 1;
        }
      for (guint C = 0; C < n; C++)
        for (guint a = 0; a < r; a++)
          YP[C] += Kc[C * r + a] * X[a];
      memcpy (KN, sys->derived.fb_K, n * k * sizeof (double));
    }
  else
    {
      /* W_PQ [ẏ_Q | X_F] = [R_P | W_PF],  K_j = e_{F_j} − e_Q X_{F_j} */
      const guint *P = sys->derived.fb_P, *Q = sys->derived.fb_Q, *F = sys->derived.fb_F;
      for (guint a = 0; a < r; a++)
        {
          for (guint b = 0; b < r; b++)
            A[a * r + b] = W[P[a] * n + Q[b]];
          X[a * (1 + k)] = R[P[a]];
          for (guint j = 0; j < k; j++)
            X[a * (1 + k) + 1 + j] = W[P[a] * n + F[j]];
        }
      if (!lu_solve (r, A, 1 + k, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular", sys->derived.reg_name);
          return 1;
        }
      memset (KN, 0, n * k * sizeof (double));
      for (guint j = 0; j < k; j++)
        {
          KN[F[j] * k + j] = 1;
          for (guint b = 0; b < r; b++)
            KN[Q[b] * k + j] = -X[b * (1 + k) + 1 + j];
        }
      for (guint b = 0; b < r; b++)
        YP[Q[b]] = X[b * (1 + k)];
    }

  /* 2. the equations d/dt g = 0 of the kernel accelerations, the free ones set to 0 */
  for (guint a = 0; a < q; a++)
    {
      const double *c = rows + a * (1 + n), *gy = c + 1;
      double v = *c;
      for (guint C = 0; C < n; C++)
        v += gy[C] * YP[C];
      B[a] = -v;
      for (guint b = 0; b < q; b++)
        {
          double w = 0;
          for (guint C = 0; C < n; C++)
            w += gy[C] * KN[C * k + sys->derived.fb_cols[b]];
          M[a * q + b] = w;
        }
    }
  return 0;
}

/* The accelerations of a singular Lagrangian from the evaluated W, R and the constraints
 * that fix the kernel accelerations: ẏ = ẏ_part + K v, M v = −(g_t + g_x ẋ + g_y ẏ_part),
 * each solved by LU with partial pivoting (doc/theory.md §5, steps 4–7). */
static int
rhs_fallback_singular (CmlSimulation *sim, double t, const double *z, double *dz)
{
  CmlSystem *sys = sim->sys;
  guint m = sys->m, n = sys->n, k = sys->derived.fb_k, q = sys->derived.fb_q;
  double *YP = sim->fb_work, *KN = YP + n, *M = KN + n * k, *B = M + q * q, *v = B + q;

  if (singular_fb_eval (sim, t, z, YP, KN, M, B) != 0)
    {
      sim->reason_t = t;
      return 1;
    }
  if (q && !lu_solve (q, M, 1, B))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the matrix " KAPPA_MATRIX " is singular");
      sim->reason_t = t;
      return 1;
    }
  memset (v, 0, k * sizeof (double));
  for (guint b = 0; b < q; b++)
    v[sys->derived.fb_cols[b]] = B[b];
  for (guint C = 0; C < n; C++)
    {
      double a = YP[C];
      for (guint j = 0; j < k; j++)
        a += KN[C * k + j] * v[j];
      dz[m + C] = a;
    }
  return 0;
}

/* Singular Lagrangians: the smallest singular value of the matrix of the kernel
 * accelerations against its largest at (T, Z); 1 where there is none, NaN where it
 * cannot be evaluated (so that it is not called singular).  For messages after a failed
 * step (it allocates). */
double
cml_sim_kappa_matrix_conditioning (CmlSimulation *sim, double t, const double *z)
{
  CmlSystem *sys = sim->sys;
  guint n = sys->n, k = sys->derived.fb_k, q = sys->derived.fb_q;
  double ratio = 0;

  if (!sys->derived.fb_sing || q == 0)
    return 1;
  g_autofree double *buf = g_new0 (double, 4 * n * n + 4 * n + 16);
  double *YP = buf, *KN = YP + n, *M = KN + n * k, *B = M + q * q;
  char reason[sizeof sim->reason];
  memcpy (reason, sim->reason, sizeof reason);
  int status = singular_fb_eval (sim, t, z, YP, KN, M, B);
  memcpy (sim->reason, reason, sizeof reason);
  if (status != 0)
    return NAN;
  gsl_matrix *A = gsl_matrix_alloc (q, q), *V = gsl_matrix_alloc (q, q);
  gsl_vector *S = gsl_vector_alloc (q), *wk = gsl_vector_alloc (q);
  for (guint a = 0; a < q * q; a++)
    gsl_matrix_set (A, a / q, a % q, M[a]);
  gsl_linalg_SV_decomp (A, V, S, wk);
  double smax = gsl_vector_get (S, 0), smin = gsl_vector_get (S, q - 1);
  ratio = smax > 0 ? smin / smax : 0;
  gsl_matrix_free (A);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return ratio;
}

/* The accelerations from the evaluated W, R (and Φ_y, φ_t + Φ_x ẋ): ẏ = W⁻¹(R + Φ_yᵀ λ),
 * λ = −C⁻¹(φ_t + Φ_x ẋ + Φ_y W⁻¹ R), C = Φ_y W⁻¹ Φ_yᵀ (doc/theory.md §2, §3). */
int
cml_sim_rhs_fallback (CmlSimulation *sim, double t, const double *z, double *dz)
{
  CmlSystem *sys = sim->sys;
  guint m = sys->m, n = sys->n, s = sys->derived.fb_s, k = 1 + s;
  const double *o = sim->fb_out;
  const double *W = o, *R = o + n * n, *Phy = R + n, *b0 = Phy + s * n;
  double *A = sim->fb_work, *X = A + n * n, *Cm = X + n * k, *lam = Cm + s * s;

  if (sys->derived.fb_sing)
    return rhs_fallback_singular (sim, t, z, dz);
  if (!sys->derived.na)
    cml_sim_fill_fast (sim, t, z);
  cml_program_run (sys->fb_prog, sim->fast, sim->regs_fb, sim->fb_out);
  if (sys->derived.fb_vak_nf)
    {
      /* vakonomic: R_ab y = F(0) for the free velocities, then ẋ, ṗ and the
       * reconstruction rates at them */
      guint nf = sys->derived.fb_vak_nf;
      memcpy (A, o, nf * nf * sizeof (double));
      memcpy (X, o + nf * nf, nf * sizeof (double));
      if (!lu_solve (nf, A, 1, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the vakonomic regularity matrix R_ab is singular");
          sim->reason_t = t;
          return 1;
        }
      memcpy (sim->fast2, sim->fast, sys->n_fast * sizeof (double));
      memcpy (sim->fast2 + sys->n_fast, X, nf * sizeof (double));
      cml_program_run (sys->fb2_prog, sim->fast2, sim->regs_fb2, dz);
      return 0;
    }
  /* W X = [R | Φ_yᵀ] */
  memcpy (A, W, n * n * sizeof (double));
  for (guint B = 0; B < n; B++)
    {
      X[B * k] = R[B];
      for (guint a = 0; a < s; a++)
        X[B * k + 1 + a] = Phy[a * n + B];
    }
  if (!lu_solve (n, A, k, X))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the regularity matrix W = ∂²L/∂y∂y is singular");
      sim->reason_t = t;
      return 1;
    }
  if (s)
    {
      for (guint a = 0; a < s; a++)
        {
          double v = b0[a];
          for (guint B = 0; B < n; B++)
            v += Phy[a * n + B] * X[B * k];
          lam[a] = -v;
          for (guint c = 0; c < s; c++)
            {
              double w = 0;
              for (guint B = 0; B < n; B++)
                w += Phy[a * n + B] * X[B * k + 1 + c];
              Cm[a * s + c] = w;
            }
        }
      if (!lu_solve (s, Cm, 1, lam))
        {
          g_snprintf (sim->reason, sizeof sim->reason,
                      "the regularity matrix C = Φ_y W⁻¹ Φ_yᵀ is singular");
          sim->reason_t = t;
          return 1;
        }
    }
  for (guint B = 0; B < n; B++)
    {
      double v = X[B * k];
      for (guint a = 0; a < s; a++)
        v += X[B * k + 1 + a] * lam[a];
      dz[m + B] = v;
    }
  return 0;
}
