/* cml-variational-program.c — the derivatives the variational integrators evaluate: L_v,
 * L_x, φ, Φ_v, Φ_x and their second derivatives, the reconstruction rates and their
 * Jacobian, the forces and theirs, compiled as one program with inputs (t, x, y, r) once
 * per system (doc/theory.md §14; the outputs' layout in cml-variational-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-private.h"

#include "cml-system-private.h"
#include "cml-system-runtime.h"

void
cml_var_layout_init (CmlVarLayout *L, guint m, guint n, guint s, guint nr, guint nq)
{
  guint o = 0;
  L->m = m;
  L->n = n;
  L->s = s;
  L->nr = nr;
  L->nq = nq;
  L->Lv = o, o += n;
  L->Lq = o, o += m;
  L->phi = o, o += s;
  L->Pv = o, o += s * n;
  L->Pq = o, o += s * m;
  L->Lvv = o, o += n * n;
  L->Lvq = o, o += n * m;
  L->Lqq = o, o += m * m;
  L->Pvq = o, o += s * n * m;
  L->Pvv = o, o += s * n * n;
  L->F = o, o += nr;
  L->Fr = o, o += nr * nr;
  L->Q = o, o += nq;
  L->Qv = o, o += nq * n;
  L->Qq = o, o += nq * m;
  L->total = o;
}

/* The derivatives of L and φ (with NR reconstruction variables, the reconstruction rates
 * and their derivatives; with forces, the forces and theirs) as one program with inputs
 * (t, x, y, r), the state's order; built once per system into *SLOT, under the system's
 * lock for things built on first use. */
CmlProgram *
cml_var_program_ensure (CmlSystem *sys, guint nr, CmlProgram **slot, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;
  guint s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint nf = 1 + m + n + nr;
  CmlProgram *prog;
  CmlVarLayout L;

  g_mutex_lock (&cml_system_runtime (sys)->lock);
  if (*slot)
    {
      prog = *slot;
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      return prog;
    }
  cml_var_layout_init (&L, m, n, s, nr, md->forces ? n : 0);
  g_autofree CmlExpr **o = g_new0 (CmlExpr *, MAX (L.total, 1));
  g_autofree int *fast = g_new (int, nf);
  fast[0] = md->t_sym;
  for (guint i = 0; i < m; i++)
    fast[1 + i] = md->base_sym[i];
  for (guint A = 0; A < n; A++)
    fast[1 + m + A] = md->fibre_sym[A];
  for (guint k = 0; k < nr; k++)
    fast[1 + m + n + k] = sys->state_sym[m + n + k];
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *lv = cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]);
      o[L.Lv + A] = lv;
      for (guint B = 0; B < n; B++)
        o[L.Lvv + A * n + B] = cml_expr_diff (ctx, lv, md->fibre_sym[B]);
      for (guint i = 0; i < m; i++)
        o[L.Lvq + A * m + i] = cml_expr_diff (ctx, lv, md->base_sym[i]);
    }
  for (guint i = 0; i < m; i++)
    {
      CmlExpr *lq = cml_expr_diff (ctx, md->lagrangian, md->base_sym[i]);
      o[L.Lq + i] = lq;
      for (guint j = 0; j < m; j++)
        o[L.Lqq + i * m + j] = cml_expr_diff (ctx, lq, md->base_sym[j]);
    }
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      o[L.phi + a] = phi;
      for (guint i = 0; i < m; i++)
        o[L.Pq + a * m + i] = cml_expr_diff (ctx, phi, md->base_sym[i]);
      for (guint A = 0; A < n; A++)
        {
          CmlExpr *pv = cml_expr_diff (ctx, phi, md->fibre_sym[A]);
          o[L.Pv + a * n + A] = pv;
          for (guint i = 0; i < m; i++)
            o[L.Pvq + (a * n + A) * m + i] = cml_expr_diff (ctx, pv, md->base_sym[i]);
          for (guint B = 0; B < n; B++)
            o[L.Pvv + (a * n + A) * n + B] = cml_expr_diff (ctx, pv, md->fibre_sym[B]);
        }
    }
  for (guint k = 0; k < nr; k++)
    {
      o[L.F + k] = sys->derived.rhs[m + n + k];
      for (guint l = 0; l < nr; l++)
        o[L.Fr + k * nr + l] = cml_expr_diff (ctx, sys->derived.rhs[m + n + k], sys->state_sym[m + n + l]);
    }
  for (guint A = 0; A < L.nq; A++)
    {
      o[L.Q + A] = md->forces[A];
      for (guint B = 0; B < n; B++)
        o[L.Qv + A * n + B] = cml_expr_diff (ctx, md->forces[A], md->fibre_sym[B]);
      for (guint i = 0; i < m; i++)
        o[L.Qq + A * m + i] = cml_expr_diff (ctx, md->forces[A], md->base_sym[i]);
    }
  prog = cml_program_compile (ctx, o, L.total, sys->param_sym, sys->n_params, fast, nf, error);
  *slot = prog;
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  return prog;
}

