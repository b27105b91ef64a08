/* cml-se2-maxwell.c — the sub-Riemannian problem on SE(2), recognised by its structure, and
 * its first Maxwell time in closed form (doc/theory.md §18.3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With the frame momenta h1 = cos α, h2 = sin α, h3 = c at unit speed, γ = 2α + π is a
 * pendulum of energy E = 2c² + cos 2α = 2h3² + h1² − h2²; when it oscillates (E ∈ (−1, 1),
 * modulus k = √((E + 1)/2), period 4K(k)) the extremal (h1, h2, h3) and its mirror
 * (h1, −h2, h3) meet after half the period, at t = 2K(k), where the heading has turned by
 * ±π (Moiseev and Sachkov 2010; Sachkov 2010: the cut time).  At speed s the extremal of h
 * is that of h/s run s times as fast: t = 2K(k)/s.  The model is recognised by what makes
 * this hold — the Lie algebra se(2) of its frame, orthonormal for the metric, the lateral
 * section constrained — not by its name, so a user's own SE(2) model (another order of the
 * sections, e3 of the other sign) is recognised, and another problem is not.
 */
#define G_LOG_DOMAIN "cml-se2-maxwell"

#include "cml-se2-maxwell.h"

#include <gsl/gsl_mode.h>
#include <gsl/gsl_sf_ellint.h>
#include <math.h>

#include "cml-expr.h"

/* The value of a constant expression (NULL: zero), or NAN when it is not a constant. */
static double
constant_of (const CmlExpr *e)
{
  if (e == NULL)
    return 0;
  if (cml_expr_kind (e) != CML_EXPR_NUM)
    return NAN;
  return cml_expr_eval (e, NULL);
}

/* C^C_AB, the model's bracket coefficient, when constant (else NAN). */
static double
bracket (const CmlModel *md, guint a, guint b, guint c)
{
  return constant_of (md->bracket[(a * md->n + b) * md->n + c]);
}

/* Whether [a, b] = σ c with σ = ±1 exactly, no other component; *SIGMA gets σ. */
static gboolean
bracket_is (const CmlModel *md, guint a, guint b, guint c, double *sigma)
{
  for (guint d = 0; d < md->n; d++)
    {
      double v = bracket (md, a, b, d);
      if (d == c ? fabs (v) != 1 : v != 0)
        return FALSE;
      if (d == c)
        *sigma = v;
    }
  return TRUE;
}

/* Whether L restricted to the lateral fibre at 0 is (y_a² + y_b²)/2 exactly: its second
 * derivatives in y_a, y_b the constants 1, 0, 1, and its value and first derivatives zero
 * where y = 0 (so no term linear in them nor apart from them, whatever the base). */
static gboolean
lagrangian_is_metric (CmlModel *md, guint a, guint b, guint lateral)
{
  CmlExprCtx *ctx = md->ctx;
  int ya = md->fibre_sym[a], yb = md->fibre_sym[b], yc = md->fibre_sym[lateral];
  CmlExpr *zero = cml_expr_num (ctx, 0);
  CmlExpr *L = cml_expr_subs (ctx, md->lagrangian, 1, &yc, &zero);
  CmlExpr *La = cml_expr_diff (ctx, L, ya), *Lb = cml_expr_diff (ctx, L, yb);
  if (constant_of (cml_expr_diff (ctx, La, ya)) != 1 || constant_of (cml_expr_diff (ctx, Lb, yb)) != 1
      || constant_of (cml_expr_diff (ctx, La, yb)) != 0)
    return FALSE;
  int ids[2] = { ya, yb };
  CmlExpr *zeros[2] = { zero, zero };
  return constant_of (cml_expr_subs (ctx, L, 2, ids, zeros)) == 0
         && constant_of (cml_expr_subs (ctx, La, 2, ids, zeros)) == 0
         && constant_of (cml_expr_subs (ctx, Lb, 2, ids, zeros)) == 0;
}

/* Whether the anchor has rank 3 at BASE (its determinant away from zero). */
static gboolean
anchor_moves_every_way (const CmlModel *md, const double *base)
{
  guint ns = cml_expr_ctx_n_symbols (md->ctx);
  g_autofree double *v = g_new0 (double, ns);
  for (guint i = 0; i < md->m; i++)
    v[md->base_sym[i]] = base[i];
  for (guint p = 0; p < md->params->len; p++)
    {
      const CmlParam *pr = md->params->pdata[p];
      if (pr->sym >= 0 && (guint) pr->sym < ns)
        v[pr->sym] = pr->value;
    }
  double r[3][3];
  for (guint i = 0; i < 3; i++)
    for (guint A = 0; A < 3; A++)
      r[i][A] = md->anchor[i * 3 + A] ? cml_expr_eval (md->anchor[i * 3 + A], v) : 0;
  double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
               + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  return isfinite (det) && fabs (det) > 1e-9;
}

gboolean
cml_se2_recognise (CmlModel *md, const double *base, CmlSe2Frame *frame)
{
  g_return_val_if_fail (md != NULL, FALSE);
  if (md->m != 3 || md->n != 3 || md->kind != CML_CONSTRAINTS_VAKONOMIC || md->constraints->len != 1
      || md->lagrangian == NULL || md->n_solve_for != 0)
    return FALSE;
  const CmlNamedExpr *con = md->constraints->pdata[0];
  guint lateral = G_MAXUINT;
  for (guint A = 0; A < 3; A++)
    if (g_strcmp0 (md->fibre[A], con->name) == 0)
      lateral = A;
  if (lateral == G_MAXUINT || constant_of (con->expr) != 0)
    return FALSE;
  /* e1 and e2 the other two, in either order: [e1, e2] = σ e3, [e2, e3] = σ e1, [e1, e3] = 0 */
  const guint order[2][2] = { { (lateral + 1) % 3, (lateral + 2) % 3 }, { (lateral + 2) % 3, (lateral + 1) % 3 } };
  for (guint k = 0; k < 2; k++)
    {
      guint a = order[k][0], b = order[k][1];
      double s1 = 0, s2 = 0;
      gboolean commute = TRUE;
      for (guint d = 0; d < 3; d++)
        commute = commute && bracket (md, a, lateral, d) == 0;
      if (!commute || !bracket_is (md, a, b, lateral, &s1) || !bracket_is (md, b, lateral, a, &s2) || s1 != s2)
        continue;
      if (!lagrangian_is_metric (md, a, b, lateral) || !anchor_moves_every_way (md, base))
        return FALSE;
      if (frame)
        *frame = (CmlSe2Frame) { a, b, lateral };
      return TRUE;
    }
  return FALSE;
}

double
cml_se2_maxwell_time (double h1, double h2, double h3)
{
  double s2 = h1 * h1 + h2 * h2;
  if (!(s2 > 0) || !isfinite (h3))
    return NAN;
  double E = (2 * h3 * h3 + h1 * h1 - h2 * h2) / s2;
  if (!(E > -1 && E < 1))
    return NAN;
  return 2 * gsl_sf_ellint_Kcomp (sqrt ((E + 1) / 2), GSL_PREC_DOUBLE) / sqrt (s2);
}
