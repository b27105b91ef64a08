/* cml-symsolve.c — Gaussian elimination on matrices of expressions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The equations of motion need W⁻¹R (Euler–Lagrange), C⁻¹ of the nonholonomic
 * regularity matrix and R_ab⁻¹ of the vakonomic one.  For the small, mostly sparse
 * matrices of mechanics, eliminating symbolically gives compact closed expressions:
 * rows whose entry below a pivot is identically zero are skipped, and the simplifier
 * folds the rest.  The pivot order is chosen numerically at a sample point, so an
 * entry that only looks nonzero is never divided by.
 */
#define G_LOG_DOMAIN "cml-symsolve"

#include "cml-symsolve.h"

#include <math.h>
#include <string.h>

#include "cml-project-core.h"

gboolean
cml_symsolve (CmlExprCtx     *ctx,
              guint           n,
              CmlExpr *const *A,
              guint           k,
              CmlExpr *const *B,
              const double   *sample,
              CmlExpr       **X,
              CmlExpr       **pivots,
              guint          *rank)
{
  g_autofree CmlExpr **a = g_new (CmlExpr *, n * n);
  g_autofree CmlExpr **b = g_new (CmlExpr *, MAX (n * k, 1));
  g_autofree double *va = g_new (double, n * n);
  double scale = 0;

  memcpy (a, A, n * n * sizeof (CmlExpr *));
  if (k)
    memcpy (b, B, n * k * sizeof (CmlExpr *));
  for (guint i = 0; i < n * n; i++)
    {
      va[i] = cml_expr_is_zero (a[i]) ? 0.0 : cml_expr_eval (a[i], sample);
      scale = MAX (scale, fabs (va[i]));
    }
  if (rank)
    *rank = 0;
  if (scale == 0 || !isfinite (scale))
    return n == 0;

  /* forward elimination with partial pivoting on the sampled values */
  for (guint c = 0; c < n; c++)
    {
      guint p = c;
      for (guint r = c + 1; r < n; r++)
        if (fabs (va[r * n + c]) > fabs (va[p * n + c]))
          p = r;
      if (!(fabs (va[p * n + c]) > 1e-11 * scale) || cml_expr_is_zero (a[p * n + c]))
        return FALSE;
      if (p != c)
        {
          for (guint j = 0; j < n; j++)
            {
              CmlExpr *te = a[c * n + j];
              double tv = va[c * n + j];
              a[c * n + j] = a[p * n + j];
              a[p * n + j] = te;
              va[c * n + j] = va[p * n + j];
              va[p * n + j] = tv;
            }
          for (guint j = 0; j < k; j++)
            {
              CmlExpr *te = b[c * k + j];
              b[c * k + j] = b[p * k + j];
              b[p * k + j] = te;
            }
        }
      if (rank)
        *rank = c + 1;
      if (pivots)
        pivots[c] = a[c * n + c];
      for (guint r = c + 1; r < n; r++)
        {
          if (cml_expr_is_zero (a[r * n + c]))
            continue;
          /* row_r -= (a_rc / a_cc) row_c */
          CmlExpr *f = cml_expr_div (ctx, a[r * n + c], a[c * n + c]);
          double fv = va[r * n + c] / va[c * n + c];
          a[r * n + c] = cml_expr_num (ctx, 0);
          va[r * n + c] = 0;
          for (guint j = c + 1; j < n; j++)
            if (!cml_expr_is_zero (a[c * n + j]))
              {
                a[r * n + j] = cml_expr_sub (ctx, a[r * n + j], cml_expr_mul (ctx, f, a[c * n + j]));
                va[r * n + j] -= fv * va[c * n + j];
              }
          for (guint j = 0; j < k; j++)
            if (!cml_expr_is_zero (b[c * k + j]))
              b[r * k + j] = cml_expr_sub (ctx, b[r * k + j], cml_expr_mul (ctx, f, b[c * k + j]));
        }
    }

  /* back substitution */
  for (guint c = n; c-- > 0;)
    for (guint j = 0; j < k; j++)
      {
        CmlExpr *s = b[c * k + j];
        for (guint i = c + 1; i < n; i++)
          if (!cml_expr_is_zero (a[c * n + i]))
            s = cml_expr_sub (ctx, s, cml_expr_mul (ctx, a[c * n + i], X[i * k + j]));
        X[c * k + j] = cml_expr_div (ctx, s, a[c * n + c]);
      }
  return TRUE;
}

/* Gaussian elimination with partial pivoting: the projection's solver, one text for the
 * library and native code (cml-project-core.h). */
gboolean
cml_small_solve (guint n, double *A, double *b, double tiny)
{
  return cml_pj_solve (n, A, b, tiny);
}
