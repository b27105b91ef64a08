/* cml-lagrange-dalembert.c — the nonholonomic (Lagrange–d'Alembert) equations, with
 * multipliers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §3.  Constraints φ^a(t, x, y) = 0, a = 1…s, with gradients
 * Φ_y = ∂φ^a/∂y^A (s×n):
 *
 *   ẋ = ρ y
 *   W ẏ = R + Φ_yᵀ λ
 *   φ(t, x, y) = 0
 *
 * R holds the forces of [forces] (cml-euler-lagrange.c), so ẏ_free below is the forced
 * free motion and the multipliers see the forces: a force along a constrained direction
 * is taken up by the reaction.
 *
 * Differentiating the constraints along the motion, Φ_x ρ y + Φ_y ẏ + φ_t = 0, gives the
 * multipliers:
 *
 *   ẏ_free = W⁻¹ R
 *   C      = Φ_y W⁻¹ Φ_yᵀ                            (the regularity matrix, s×s)
 *   λ      = −C⁻¹ (φ_t + Φ_x ρ y + Φ_y ẏ_free)
 *   ẏ      = ẏ_free + W⁻¹ Φ_yᵀ λ
 *
 * The constraint functions are kept for the projection onto φ = 0 after every step.  The
 * multipliers themselves are kept too (lambda, in the sign of W ẏ = R + Φ_yᵀ λ): the
 * system shows them as the observables lambda_<constraint name>.  All of it is returned
 * as a derivation (cml-derivation.h).
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <math.h>

#include "cml-error.h"
#include "cml-symsolve.h"

/* ---- (b) Lagrange–d'Alembert ------------------------------------------------------- */

CmlDerivation *
cml_sys_derive_nonholonomic (CmlExprCtx *ctx, const CmlModel *md, const Mechanics *mc,
                             const double *sample, GError **error)
{
  guint m = md->m, n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **rhsW = g_new (CmlExpr *, n * (1 + s));
  g_autofree CmlExpr **solW = g_new (CmlExpr *, n * (1 + s));
  g_autofree CmlExpr **pivW = g_new (CmlExpr *, n);
  g_autofree CmlExpr **Phy = g_new (CmlExpr *, s * n);
  g_autofree CmlExpr **Cm = g_new (CmlExpr *, s * s);
  g_autofree CmlExpr **b = g_new (CmlExpr *, s);
  g_autofree CmlExpr **lam = g_new (CmlExpr *, s);
  g_autofree CmlExpr **pivC = g_new (CmlExpr *, s);

  /* Φ_y, and the right-hand sides [R | Φ_yᵀ] of W */
  for (guint a = 0; a < s; a++)
    for (guint A = 0; A < n; A++)
      Phy[a * n + A] = cml_expr_diff (ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->fibre_sym[A]);
  for (guint A = 0; A < n; A++)
    {
      rhsW[A * (1 + s)] = mc->R[A];
      for (guint a = 0; a < s; a++)
        rhsW[A * (1 + s) + 1 + a] = Phy[a * n + A];
    }
  /* ẏ_free = W⁻¹R and Z = W⁻¹Φ_yᵀ in one elimination */
  if (!cml_symsolve (ctx, n, mc->W, 1 + s, rhsW, sample, solW, pivW, NULL))
    {
      cml_sys_fail_in_model (md, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                             "the Lagrangian is singular (det W = 0); nonholonomic constraints need a "
                             "regular Lagrangian");
      return NULL;
    }
  /* C = Φ_y Z */
  for (guint a = 0; a < s; a++)
    for (guint c = 0; c < s; c++)
      {
        CmlExpr *e = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          e = cml_sys_madd (ctx, e, Phy[a * n + A], solW[A * (1 + s) + 1 + c]);
        Cm[a * s + c] = e;
      }
  /* b = Φ_x ẋ + Φ_y ẏ_free + φ_t  (the time derivative of φ along the free motion) */
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      CmlExpr *e = cml_expr_diff (ctx, phi, md->t_sym);
      for (guint i = 0; i < m; i++)
        e = cml_sys_madd (ctx, e, cml_expr_diff (ctx, phi, md->base_sym[i]), mc->xdot[i]);
      for (guint A = 0; A < n; A++)
        e = cml_sys_madd (ctx, e, Phy[a * n + A], solW[A * (1 + s)]);
      b[a] = e;
    }
  /* lam = C⁻¹ b, so λ = −lam */
  if (!cml_symsolve (ctx, s, Cm, 1, b, sample, lam, pivC, NULL))
    {
      cml_sys_fail_singular_C (md, Phy, Cm, sample, error);
      return NULL;
    }

  CmlDerivation *d = cml_derivation_new (m + n);
  d->n_lambda = s;
  d->lambda = g_new (CmlExpr *, MAX (s, 1));
  for (guint a = 0; a < s; a++)
    d->lambda[a] = cml_expr_neg (ctx, lam[a]);
  /* ẏ = ẏ_free − Z C⁻¹ b */
  for (guint i = 0; i < m; i++)
    d->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *e = solW[A * (1 + s)];
      for (guint a = 0; a < s; a++)
        e = cml_expr_sub (ctx, e, cml_expr_mul (ctx, solW[A * (1 + s) + 1 + a], lam[a]));
      d->rhs[m + A] = e;
    }
  for (guint A = 0; A < n; A++)
    cml_derivation_add_pivot (d, pivW[A], "W = ∂²L/∂y∂y");
  for (guint a = 0; a < s; a++)
    cml_derivation_add_pivot (d, pivC[a], "C = Φ_y W⁻¹ Φ_yᵀ");
  d->reg_name = "C = Φ_y W⁻¹ Φ_yᵀ";
  d->reg_rows = s;
  d->reg = g_memdup2 (Cm, s * s * sizeof (CmlExpr *));
  for (guint A = 0; A < n * n; A++)
    g_ptr_array_add (d->fb, mc->W[A]);
  for (guint A = 0; A < n; A++)
    g_ptr_array_add (d->fb, mc->R[A]);
  for (guint a = 0; a < s * n; a++)
    g_ptr_array_add (d->fb, Phy[a]);
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      CmlExpr *e = cml_expr_diff (ctx, phi, md->t_sym);
      for (guint i = 0; i < m; i++)
        e = cml_sys_madd (ctx, e, cml_expr_diff (ctx, phi, md->base_sym[i]), mc->xdot[i]);
      g_ptr_array_add (d->fb, e);
    }
  d->fb_s = s;
  /* projection keeps φ = 0 by moving the fibre coordinates */
  for (guint a = 0; a < s; a++)
    g_ptr_array_add (d->h, ((CmlNamedExpr *) md->constraints->pdata[a])->expr);
  d->movable_from = m;
  d->movable_to = m + n;
  return d;
}
