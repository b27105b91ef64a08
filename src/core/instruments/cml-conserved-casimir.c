/* cml-conserved-casimir.c — the Casimirs of the Lie–Poisson bracket, linear and
 * quadratic, offered as conserved-quantity candidates when the base is a point (a Lie
 * algebra); cml-conserved.c decides them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §15.
 * Casimirs.  On E* over a point the bracket is {F, G} = −C^C_AB p_C F_p_A G_p_B.  A linear
 * C = a^A p_A is a Casimir iff a^A C^D_AB = 0 for all B, D (a is in the centre); a
 * quadratic C = S^AB p_A p_B (S symmetric, summed over all A and B, so that p_A p_B with A ≠ B
 * has the coefficient 2 S^AB) iff for every D the quadratic form
 * p_E p_B Σ_A C^E_AD S^AB vanishes, i.e. Σ_A (C^E_AD S^AB + C^B_AD S^AE) = 0 for all D, E, B.
 * These linear equations are solved for their null space numerically (GSL's SVD) at the
 * parameters' values, the basis is put in reduced row-echelon form and, when the structure
 * constants are numbers, rounded to rationals; each Casimir found is checked symbolically
 * ({C, p_D} = 0 with cml_system_poisson_bracket).  Where the state holds velocities (every
 * formalism but the vakonomic one) C is shown through the Legendre map p_A = ∂L/∂y^A: the
 * Euler–Poincaré equations are ṗ_A = −C^C_AB y^B p_C, and dC/dt = ∂C/∂p_A ṗ_A = 0 for a
 * Casimir whatever the Lagrangian.  In an abelian algebra every function of p is a Casimir;
 * then none is listed apart from the momenta.
 */
#define G_LOG_DOMAIN "cml-conserved"

#include "cml-conserved-private.h"

#include "cml-bracket.h"
#include "cml-simulation-private.h"

#include <glib/gi18n-lib.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

/* Reduced row-echelon form of the R×N matrix M (row-major) in place; returns the rank. */
static guint
rref (double *M, guint R, guint N)
{
  guint row = 0;

  for (guint col = 0; col < N && row < R; col++)
    {
      guint best = row;
      for (guint i = row + 1; i < R; i++)
        if (fabs (M[i * N + col]) > fabs (M[best * N + col]))
          best = i;
      if (fabs (M[best * N + col]) < 1e-9)
        continue;
      for (guint j = 0; j < N; j++)
        {
          double t = M[row * N + j];
          M[row * N + j] = M[best * N + j];
          M[best * N + j] = t;
        }
      double p = M[row * N + col];
      for (guint j = 0; j < N; j++)
        M[row * N + j] /= p;
      for (guint i = 0; i < R; i++)
        if (i != row && M[i * N + col] != 0)
          {
            double f = M[i * N + col];
            for (guint j = 0; j < N; j++)
              M[i * N + j] -= f * M[row * N + j];
          }
      row++;
    }
  return row;
}

/* X rounded to a rational p/q with q ≤ 1000 when one is within 1e-9, else X. */
static double
round_rational (double x)
{
  for (int q = 1; q <= 1000; q++)
    {
      double p = round (x * q);
      if (fabs (p / q - x) < 1e-9)
        return p / q;
    }
  return x;
}

/* The null space of the R×N matrix A (row-major) as rows of a K×N matrix in reduced
 * row-echelon form, or NULL with *K = 0. */
static double *
null_space (const double *A, guint R, guint N, gboolean rational, guint *K)
{
  guint rows = MAX (R, N);
  gsl_matrix *U = gsl_matrix_calloc (rows, N), *V = gsl_matrix_alloc (N, N);
  gsl_vector *S = gsl_vector_alloc (N), *work = gsl_vector_alloc (N);
  double *basis = NULL, smax;
  guint k = 0;

  for (guint i = 0; i < R; i++)
    for (guint j = 0; j < N; j++)
      gsl_matrix_set (U, i, j, A[i * N + j]);
  gsl_linalg_SV_decomp (U, V, S, work);
  smax = gsl_vector_get (S, 0);
  basis = g_new0 (double, (gsize) N * N);
  for (guint j = 0; j < N; j++)
    if (gsl_vector_get (S, j) <= 1e-10 * MAX (smax, 1e-300) || smax == 0)
      {
        for (guint i = 0; i < N; i++)
          basis[k * N + i] = gsl_matrix_get (V, i, j);
        k++;
      }
  k = rref (basis, k, N);
  for (guint i = 0; rational && i < k * N; i++)
    basis[i] = round_rational (basis[i]);
  gsl_matrix_free (U);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (work);
  *K = k;
  if (k == 0)
    g_clear_pointer (&basis, g_free);
  return basis;
}

/* A Casimir C(p): TRUE when {C, p_D} simplifies to 0 for every D. */
static gboolean
casimir_exact (Inspector *in, CmlExpr *Cp)
{
  CmlModel *md = in->sys->model;

  for (guint D = 0; D < md->n; D++)
    if (!cml_expr_is_zero_expanded (in->ctx, cml_system_poisson_bracket (in->sys, Cp, cml_sys_sym (in->ctx, md->momenta_sym[D]))))
      return FALSE;
  return TRUE;
}

static void
add_casimir (Inspector *in, CmlConservedReport *r, guint *count, CmlExpr *Cp, gboolean rational,
             gboolean quadratic)
{
  g_autofree char *name = g_strdup_printf ("C%u", ++*count);
  g_autofree char *cp = cml_conserved_pretty (in, Cp, 300);
  gboolean exact = casimir_exact (in, Cp);
  gboolean vak = in->sys->model->kind == CML_CONSTRAINTS_VAKONOMIC;
  const char *how = exact ? _("{C, p_A} = 0 exactly")
                    : rational ? _("{C, p_A} = 0 not shown symbolically")
                               : _("found numerically at the parameters' values");
  g_autofree char *what = quadratic
                            ? (vak ? g_strdup_printf (_("quadratic Casimir of the Lie–Poisson bracket, C = %s (%s)"), cp, how)
                                   : g_strdup_printf (_("quadratic Casimir of the Lie–Poisson bracket, C = %s through the "
                                                        "Legendre map p = ∂L/∂y (%s)"), cp, how))
                            : (vak ? g_strdup_printf (_("linear Casimir of the Lie–Poisson bracket, C = %s (%s)"), cp, how)
                                   : g_strdup_printf (_("linear Casimir of the Lie–Poisson bracket, C = %s through the "
                                                        "Legendre map p = ∂L/∂y (%s)"), cp, how));
  CmlConservedCandidate *c = cml_conserved_add_candidate (in, r, CML_CANDIDATE_CASIMIR, name, what, cml_sys_user_expr (in->sys, Cp));
  cml_conserved_decide (in, c, NULL);
}

void
cml_conserved_add_casimirs (Inspector *in, CmlConservedReport *r)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, count = 0, K = 0;
  gboolean rational = TRUE;
  g_autofree double *sample = cml_sys_make_sample (sys, 3);
  g_autofree double *Cn = g_new (double, n * n * n); /* Cn[(A*n + B)*n + C] = C^C_AB */

  if (md->m != 0 || n == 0)
    return;
  for (guint A = 0; A < n; A++)
    if (md->momenta_sym[A] < 0)
      return;
  for (guint i = 0; i < n * n * n; i++)
    {
      rational &= cml_expr_is_number (md->bracket[i], NULL);
      Cn[i] = cml_expr_eval (md->bracket[i], sample);
    }
#define CC(C, A, B) Cn[((A) * n + (B)) * n + (C)]
  /* linear: a^A C^D_AB = 0 for all B, D */
  {
    g_autofree double *M = g_new0 (double, n * n * n);
    g_autofree double *basis = NULL;
    for (guint B = 0; B < n; B++)
      for (guint D = 0; D < n; D++)
        for (guint A = 0; A < n; A++)
          M[(B * n + D) * n + A] = CC (D, A, B);
    basis = null_space (M, n * n, n, rational, &K);
    if (K == n)
      return; /* abelian: every function of p; the momenta are listed already */
    for (guint k = 0; k < K; k++)
      {
        CmlExpr *Cp = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          Cp = cml_sys_madd (ctx, Cp, cml_expr_num (ctx, basis[k * n + A]), cml_sys_sym (ctx, md->momenta_sym[A]));
        add_casimir (in, r, &count, Cp, rational, FALSE);
      }
  }
  /* quadratic: S^AB = S^BA, unknowns A ≤ B; rows (D, E ≤ B) */
  if (n <= MAX_CASIMIR_RANK)
  {
    guint N = n * (n + 1) / 2, R = n * N;
    g_autofree guint *ix = g_new (guint, n * n);
    g_autofree double *M = g_new0 (double, (gsize) R * N);
    g_autofree double *basis = NULL;
    guint u = 0;

    for (guint A = 0; A < n; A++)
      for (guint B = A; B < n; B++)
        ix[A * n + B] = ix[B * n + A] = u++;
    for (guint D = 0; D < n; D++)
      for (guint E = 0; E < n; E++)
        for (guint B = E; B < n; B++)
          {
            double *row = M + (gsize) (D * N + ix[E * n + B]) * N;
            for (guint A = 0; A < n; A++)
              {
                row[ix[A * n + B]] += CC (E, A, D);
                row[ix[A * n + E]] += CC (B, A, D);
              }
          }
    basis = null_space (M, R, N, rational, &K);
    for (guint k = 0; k < MIN (K, MAX_QUADRATIC_CASIMIRS); k++)
      {
        CmlExpr *Cp = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          for (guint B = A; B < n; B++)
            {
              /* Σ_AB S^AB p_A p_B: S^AB and S^BA on p_A p_B, A ≠ B */
              double v = (A == B ? 1 : 2) * basis[k * N + ix[A * n + B]];
              if (v == 0)
                continue;
              Cp = cml_sys_madd (ctx, Cp, cml_expr_num (ctx, v),
                         cml_expr_mul (ctx, cml_sys_sym (ctx, md->momenta_sym[A]), cml_sys_sym (ctx, md->momenta_sym[B])));
            }
        if (!cml_expr_is_zero (Cp))
          add_casimir (in, r, &count, Cp, rational, TRUE);
      }
  }
#undef CC
}
