/* cml-euler-lagrange.c — the Euler–Lagrange equations on a Lie algebroid.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §2:
 *
 *   ẋ^i = ρ^i_A y^A
 *   W_AB ẏ^B = R_A
 *   W_AB = ∂²L/∂y^A∂y^B                                      (the regularity matrix)
 *   R_A  = ρ^i_A ∂L/∂x^i − C^C_AB y^B ∂L/∂y^C − (∂²L/∂y^A∂x^i) ρ^i_B y^B − ∂²L/∂y^A∂t
 *          + F_A
 *
 * F_A is the generalized force of [forces] along the section e_A (the given one minus
 * ∂D/∂y^A for a Rayleigh dissipation function D), zero without forces: Lagrange's equations
 * with forces, d/dt ∂L/∂y − … = F.
 *
 * ẋ, ∂L/∂y (the Legendre map p_A = ∂L/∂y^A), W and R are also where the nonholonomic
 * equations and the constraint algorithm start.  For regular L (det W ≠ 0) ẏ = W⁻¹R,
 * solved symbolically with pivots chosen at a sample point; when W is singular there the
 * constraint algorithm takes over (cml-constraint-algorithm.c).  What it derives it returns
 * (cml-derivation.h): the rates of x and y, the pivots, W as the regularity matrix, and W
 * and R for the numeric fallback.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <math.h>

#include "cml-symsolve.h"

/* ---- common pieces ------------------------------------------------------------------ */

void
cml_sys_mechanics_init (CmlExprCtx *ctx, const CmlModel *md, Mechanics *mc)
{
  guint m = md->m, n = md->n;
  CmlExpr *L = md->lagrangian;

  mc->xdot = g_new (CmlExpr *, MAX (m, 1));
  mc->Ly = g_new (CmlExpr *, n);
  mc->W = g_new (CmlExpr *, n * n);
  mc->R = g_new (CmlExpr *, n);
  for (guint i = 0; i < m; i++)
    {
      mc->xdot[i] = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        mc->xdot[i] = cml_sys_madd (ctx, mc->xdot[i], md->anchor[i * n + A], cml_sys_sym (ctx, md->fibre_sym[A]));
    }
  for (guint A = 0; A < n; A++)
    mc->Ly[A] = cml_expr_diff (ctx, L, md->fibre_sym[A]);
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      mc->W[A * n + B] = cml_expr_diff (ctx, mc->Ly[A], md->fibre_sym[B]);
  for (guint A = 0; A < n; A++)
    {
      /* R_A = ρ^i_A L_x^i − C^C_AB y^B L_y^C − L_{y^A x^i} ẋ^i − L_{y^A t} */
      CmlExpr *r = ZERO (ctx);
      for (guint i = 0; i < m; i++)
        r = cml_sys_madd (ctx, r, md->anchor[i * n + A], cml_expr_diff (ctx, L, md->base_sym[i]));
      for (guint B = 0; B < n; B++)
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (!cml_expr_is_zero (c))
              r = cml_expr_sub (ctx, r, cml_expr_mul (ctx, c, cml_expr_mul (ctx, cml_sys_sym (ctx, md->fibre_sym[B]), mc->Ly[C])));
          }
      for (guint i = 0; i < m; i++)
        r = cml_expr_sub (ctx, r, cml_expr_mul (ctx, cml_expr_diff (ctx, mc->Ly[A], md->base_sym[i]), mc->xdot[i]));
      r = cml_expr_sub (ctx, r, cml_expr_diff (ctx, mc->Ly[A], md->t_sym));
      if (md->forces)
        r = cml_expr_add (ctx, r, md->forces[A]);
      mc->R[A] = r;
    }
}

void
cml_sys_mechanics_clear (Mechanics *mc)
{
  g_free (mc->xdot);
  g_free (mc->Ly);
  g_free (mc->W);
  g_free (mc->R);
}

/* ---- (a) Euler–Lagrange ------------------------------------------------------------ */

CmlDerivation *
cml_sys_derive_euler_lagrange (CmlExprCtx *ctx, const CmlModel *md, const Mechanics *mc,
                               const double *sample)
{
  guint m = md->m, n = md->n;
  g_autofree CmlExpr **ydot = g_new (CmlExpr *, n);
  g_autofree CmlExpr **piv = g_new (CmlExpr *, n);

  if (!cml_symsolve (ctx, n, mc->W, 1, mc->R, sample, ydot, piv, NULL))
    return NULL; /* singular: the caller runs the constraint algorithm */

  CmlDerivation *d = cml_derivation_new (m + n);
  for (guint i = 0; i < m; i++)
    d->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    {
      d->rhs[m + A] = ydot[A];
      cml_derivation_add_pivot (d, piv[A], "W = ∂²L/∂y∂y");
    }
  d->reg_name = "W = ∂²L/∂y∂y";
  d->reg_rows = n;
  d->reg = g_memdup2 (mc->W, n * n * sizeof (CmlExpr *));
  for (guint A = 0; A < n * n; A++)
    g_ptr_array_add (d->fb, mc->W[A]);
  for (guint A = 0; A < n; A++)
    g_ptr_array_add (d->fb, mc->R[A]);
  return d;
}
