/* cml-invariants.c — the invariants of the configuration a model declares ([invariants],
 * and the unit quaternions among its base coordinates): checked, then kept.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An invariant is a function g(x) of the base coordinates that every motion keeps.  Along
 * a motion ẋ^i = ρ^i_A(x) y^A, so
 *
 *   dg/dt = Σ_A (ρ(e_A) g) y^A,   ρ(e_A) g = Σ_i ρ^i_A ∂g/∂x^i,
 *
 * and g is kept whatever the velocities exactly when ρ(e_A) g = 0 for every section e_A:
 * the anchor's image is tangent to the level sets of g.  That is checked symbolically
 * (expanded to zero) when the system is derived; an invariant that fails is refused with
 * the rate it has.  A unit quaternion (q0, q1, q2, q3) among the base coordinates is the
 * invariant |q|² − 1, kept by q̇ = ½ q ⊗ (0, ω).
 *
 * The exact flow keeps g = 0; a numerical step leaves it by its local error, and the
 * projection after every step brings the state back: the invariants join the constraint
 * functions h, after the constraints, and the components the projection moves include the
 * base coordinates (cml-project-core.h: the least change that makes every row vanish — for
 * |q|² − 1 the renormalisation q/|q|, to rounding).  The initial data are projected the same
 * way (cml-initial.c), and so are the states the inspector samples (cml-conserved.c).
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-error.h"
#include "cml-system-private.h"

#include <glib/gi18n-lib.h>

gboolean
cml_sys_add_invariants (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;

  for (guint k = 0; k < md->invariants->len; k++)
    {
      CmlNamedExpr *ne = md->invariants->pdata[k];
      for (guint A = 0; A < n; A++)
        {
          CmlExpr *rate = cml_expr_num (ctx, 0);
          for (guint i = 0; i < m; i++)
            rate = cml_expr_add (ctx, rate,
                                 cml_expr_mul (ctx, md->anchor[i * n + A], cml_expr_diff (ctx, ne->expr, md->base_sym[i])));
          if (!cml_expr_is_zero_expanded (ctx, rate))
            {
              g_autofree char *r = cml_expr_to_string_max (ctx, rate, 120);
              return cml_sys_fail_model (sys, error, ne->line, CML_ERROR_MODEL,
                                 _("the invariant “%s” is not kept by the motion: moving along the section %s "
                                   "changes it at the rate %s per unit of %s, not 0 (an invariant of the "
                                   "configuration must hold whatever the velocities)"),
                                 ne->name, md->sections[A], r, md->fibre[A]);
            }
        }
    }
  for (guint k = 0; k < md->invariants->len; k++)
    g_ptr_array_add (sys->derived.h, ((CmlNamedExpr *) md->invariants->pdata[k])->expr);
  if (md->invariants->len)
    {
      /* the projection moves the base coordinates too */
      sys->derived.movable_from = 0;
      sys->derived.movable_to = MAX (sys->derived.movable_to, m);
    }
  return TRUE;
}
