/* cml-vakonomic.c — the vakonomic equations, in Hamiltonian form on W1.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §4.  The constraints are graphs over the free velocities y^a,
 * y^α = Ψ^α(t, x, y^a), and L̃(t, x, y^a) = L(t, x, y^a, Ψ).  The state is (x, p); the
 * free velocities solve the W1 relation
 *
 *   F_a  = p_a + p_α ∂Ψ^α/∂y^a − ∂L̃/∂y^a = 0,       ∂F_a/∂y^b = −R_ab
 *   R_ab = ∂²L̃/∂y^a∂y^b − p_α ∂²Ψ^α/∂y^a∂y^b        (the regularity matrix)
 *
 * (symbolically when F is linear in y^a, else by Newton's method at run time), and with
 * ŷ = (y^a, Ψ^α)
 *
 *   ẋ^i = ρ^i_A ŷ^A
 *   ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D
 *
 * with the sum over D running over all indices (§11).  Only normal extremals come out.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <math.h>

#include "cml-symsolve.h"

/* ---- (c) vakonomic ----------------------------------------------------------------- */

/* ŷ (the free velocities YFREE and Ψ of them) into YHAT (n), and the vakonomic equations
 *   ẋ^i = ρ^i_A ŷ^A,   ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D
 * (partials at fixed y^a) into RHS (m + n). */
static void
yhat_and_rhs (CmlExprCtx *ctx, const CmlModel *md, const int *is_con, const guint *free_idx,
              CmlExpr *const *psi, CmlExpr *Lt, CmlExpr *const *yfree, CmlExpr **yhat,
              CmlExpr **rhs)
{
  guint m = md->m, n = md->n, k = md->constraints->len, nf = n - k;

  g_autofree int *fsyms = g_new (int, nf);
  for (guint a = 0; a < nf; a++)
    fsyms[a] = md->fibre_sym[free_idx[a]];
  for (guint a = 0; a < nf; a++)
    yhat[free_idx[a]] = yfree[a];
  for (guint A = 0; A < n; A++)
    if (is_con[A])
      yhat[A] = cml_expr_subs (ctx, psi[is_con[A] - 1], nf, fsyms, yfree);

  /* ẋ^i = ρ^i_A ŷ^A */
  for (guint i = 0; i < m; i++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        e = cml_sys_madd (ctx, e, md->anchor[i * n + A], yhat[A]);
      rhs[i] = e;
    }
  /* ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D   (partials at fixed y^a) */
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint i = 0; i < m; i++)
        {
          if (cml_expr_is_zero (md->anchor[i * n + A]))
            continue;
          CmlExpr *g = cml_expr_diff (ctx, Lt, md->base_sym[i]);
          for (guint B = 0; B < n; B++)
            if (is_con[B])
              g = cml_expr_sub (ctx, g, cml_expr_mul (ctx, cml_sys_sym (ctx, md->momenta_sym[B]),
                                                      cml_expr_diff (ctx, psi[is_con[B] - 1], md->base_sym[i])));
          g = cml_expr_subs (ctx, g, nf, fsyms, yfree);
          e = cml_sys_madd (ctx, e, md->anchor[i * n + A], g);
        }
      for (guint D = 0; D < n; D++)
        for (guint B = 0; B < n; B++)
          {
            CmlExpr *c = md->bracket[(A * n + D) * n + B];
            if (!cml_expr_is_zero (c))
              e = cml_expr_sub (ctx, e, cml_expr_mul (ctx, c, cml_expr_mul (ctx, cml_sys_sym (ctx, md->momenta_sym[B]), yhat[D])));
          }
      rhs[m + A] = e;
    }

}

CmlDerivation *
cml_sys_derive_vakonomic (CmlExprCtx *ctx, const CmlModel *md, const double *sample, GError **error)
{
  guint m = md->m, n = md->n, k = md->constraints->len, nf = n - k;
  g_autofree int *is_con = g_new0 (int, n);     /* index into constraints + 1, or 0 */
  g_autofree guint *free_idx = g_new (guint, nf);
  g_autofree int *con_sym = g_new (int, k);
  g_autofree CmlExpr **psi = g_new (CmlExpr *, k);
  g_autofree CmlExpr **F = g_new (CmlExpr *, nf);
  g_autofree CmlExpr **Rab = g_new (CmlExpr *, nf * nf);
  g_autofree CmlExpr **yfree = g_new (CmlExpr *, nf);
  g_autofree CmlExpr **yhat = g_new (CmlExpr *, n);
  CmlExpr *Lt;
  gboolean linear = TRUE;

  for (guint a = 0; a < k; a++)
    {
      CmlNamedExpr *ne = md->constraints->pdata[a];
      for (guint A = 0; A < n; A++)
        if (md->fibre_sym[A] == ne->sym)
          is_con[A] = a + 1;
      con_sym[a] = ne->sym;
      psi[a] = ne->expr;
    }
  for (guint A = 0, j = 0; A < n; A++)
    if (!is_con[A])
      free_idx[j++] = A;

  /* L̃ = L(x, y^a, Ψ(x, y^a)) */
  Lt = cml_expr_subs (ctx, md->lagrangian, k, con_sym, psi);

  /* F_a and R_ab */
  for (guint a = 0; a < nf; a++)
    {
      int ya = md->fibre_sym[free_idx[a]];
      CmlExpr *e = cml_expr_sub (ctx, cml_sys_sym (ctx, md->momenta_sym[free_idx[a]]), cml_expr_diff (ctx, Lt, ya));
      for (guint al = 0; al < k; al++)
        {
          guint Aal = 0;
          for (guint A = 0; A < n; A++)
            if (is_con[A] == (int) al + 1)
              Aal = A;
          e = cml_sys_madd (ctx, e, cml_sys_sym (ctx, md->momenta_sym[Aal]), cml_expr_diff (ctx, psi[al], ya));
        }
      F[a] = e;
    }
  for (guint a = 0; a < nf; a++)
    for (guint b = 0; b < nf; b++)
      Rab[a * nf + b] = cml_expr_neg (ctx, cml_expr_diff (ctx, F[a], md->fibre_sym[free_idx[b]]));
  for (guint a = 0; a < nf * nf; a++)
    for (guint b = 0; b < nf; b++)
      if (cml_expr_depends_on (Rab[a], md->fibre_sym[free_idx[b]]))
        linear = FALSE;

  g_autoptr (CmlDerivation) d = cml_derivation_new (m + n);
  d->reg_name = "R_ab = ∂²L̃/∂y^a∂y^b − p_α ∂²Ψ^α/∂y^a∂y^b";
  d->reg_rows = nf;
  d->reg = g_memdup2 (Rab, nf * nf * sizeof (CmlExpr *));

  if (linear)
    {
      /* F is affine in y: F = F(0) − R y, so y = R⁻¹ F(0) */
      g_autofree CmlExpr **F0 = g_new (CmlExpr *, nf);
      g_autofree CmlExpr **zeros = g_new (CmlExpr *, nf);
      g_autofree int *fsyms = g_new (int, nf);
      g_autofree CmlExpr **piv = g_new (CmlExpr *, nf);
      for (guint a = 0; a < nf; a++)
        {
          zeros[a] = ZERO (ctx);
          fsyms[a] = md->fibre_sym[free_idx[a]];
        }
      for (guint a = 0; a < nf; a++)
        F0[a] = cml_expr_subs (ctx, F[a], nf, fsyms, zeros);
      if (!cml_symsolve (ctx, nf, Rab, 1, F0, sample, yfree, piv, NULL))
        {
          cml_sys_fail_singular_Rab (md, Rab, nf, free_idx, psi, sample, error);
          return NULL;
        }
      for (guint a = 0; a < nf; a++)
        cml_derivation_add_pivot (d, piv[a], "R_ab");
    }
  else
    {
      /* nonlinear: the free velocities are fast inputs found by Newton's method */
      d->na = nf;
      d->aux_sym = g_new (int, nf);
      d->newton = g_new (CmlExpr *, nf + nf * nf);
      for (guint a = 0; a < nf; a++)
        {
          d->aux_sym[a] = md->fibre_sym[free_idx[a]];
          yfree[a] = cml_sys_sym (ctx, d->aux_sym[a]);
          d->newton[a] = F[a];
        }
      for (guint a = 0; a < nf * nf; a++)
        d->newton[nf + a] = cml_expr_neg (ctx, Rab[a]);
    }

  /* ŷ: free velocities and Ψ, both in terms of (t, x, p) */
  yhat_and_rhs (ctx, md, is_con, free_idx, psi, Lt, yfree, yhat, d->rhs);

  /* user expressions see the velocities ŷ */
  d->n_subs = n;
  d->subs_ids = g_new (int, n);
  d->subs_repl = g_new (CmlExpr *, n);
  for (guint A = 0; A < n; A++)
    {
      d->subs_ids[A] = md->fibre_sym[A];
      d->subs_repl[A] = yhat[A];
    }

  if (linear)
    {
      /* the numeric fallback (a pivot of R_ab chosen at the sample point may vanish where
       * R_ab does not): R_ab and F(0) evaluated and solved by LU, then the same equations
       * with the free velocities as inputs */
      g_autofree CmlExpr **ysym = g_new (CmlExpr *, nf);
      g_autofree CmlExpr **rhs_sym = g_new (CmlExpr *, m + n);
      for (guint a = 0; a < nf * nf; a++)
        g_ptr_array_add (d->fb, Rab[a]);
      {
        g_autofree int *fsyms = g_new (int, nf);
        g_autofree CmlExpr **zeros = g_new (CmlExpr *, nf);
        for (guint a = 0; a < nf; a++)
          {
            fsyms[a] = md->fibre_sym[free_idx[a]];
            zeros[a] = ZERO (ctx);
          }
        for (guint a = 0; a < nf; a++)
          g_ptr_array_add (d->fb, cml_expr_subs (ctx, F[a], nf, fsyms, zeros));
      }
      d->fb_vak_nf = nf;
      d->fb_aux_sym = g_new (int, MAX (nf, 1));
      d->fb_yhat = g_new (CmlExpr *, n);
      for (guint a = 0; a < nf; a++)
        {
          d->fb_aux_sym[a] = md->fibre_sym[free_idx[a]];
          ysym[a] = cml_sys_sym (ctx, d->fb_aux_sym[a]);
        }
      yhat_and_rhs (ctx, md, is_con, free_idx, psi, Lt, ysym, d->fb_yhat, rhs_sym);
      d->fb2 = g_ptr_array_new ();
      for (guint i = 0; i < m + n; i++)
        g_ptr_array_add (d->fb2, rhs_sym[i]);
    }
  return g_steal_pointer (&d);
}
