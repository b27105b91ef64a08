/* cml-system-programs.c — a system's observables, and its derived expressions compiled
 * into register programs: right-hand side, observables, projection, regularity matrix,
 * Newton's method for the vakonomic free velocities, numeric fallback and scene; and the
 * Jacobian, on first use (or beforehand: cml_system_prepare).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"
#include "cml-integrator-for-system.h"
#include "cml-simulation.h"

#include <math.h>
#include <string.h>

/* ---- observables and programs ------------------------------------------------------ */

CmlExpr *
cml_sys_user_expr (CmlSystem *sys, CmlExpr *e)
{
  if (sys->n_subs == 0)
    return e;
  return cml_expr_subs (sys->ctx, e, sys->n_subs, sys->subs_ids, sys->subs_repl);
}

void
cml_sys_add_observable (CmlSystem *sys, const char *name, CmlExpr *e)
{
  g_ptr_array_add (sys->obs_names, g_strdup (name));
  g_ptr_array_add (sys->obs, e);
}

/* Which pivots change with the state (checked at every evaluation) and which with the
 * parameters only (checked when they change, from the register that holds them), from the
 * right-hand side's program. */
void
cml_sys_classify_pivots (CmlSystem *sys)
{
  sys->fast_pivots = g_new (guint, sys->pivots->len + 1);
  sys->slow_pivots = g_new (guint, sys->pivots->len + 1);
  sys->slow_pivot_regs = g_new (guint, sys->pivots->len + 1);
  for (guint i = 0; i < sys->pivots->len; i++)
    {
      gboolean fast;
      guint reg = cml_program_output_register (sys->rhs_prog, sys->dim + i, &fast);
      if (fast)
        sys->fast_pivots[sys->n_fast_pivots++] = i;
      else
        {
          sys->slow_pivots[sys->n_slow_pivots] = i;
          sys->slow_pivot_regs[sys->n_slow_pivots++] = reg;
        }
    }
}

/* The scene program's outputs: every scene property, flattened in model order, its offset
 * in scene_offsets; its expressions appended to OUTS. */
void
cml_sys_scene_layout (CmlSystem *sys, GPtrArray *outs)
{
  CmlModel *md = sys->model;
  guint n = 0;

  sys->scene_offsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < md->scene->len; k++)
    {
      CmlSceneObject *so = md->scene->pdata[k];
      GHashTableIter it;
      gpointer key, val;
      g_hash_table_iter_init (&it, so->props);
      while (g_hash_table_iter_next (&it, &key, &val))
        {
          GPtrArray *exprs = val;
          g_hash_table_insert (sys->scene_offsets, g_strdup_printf ("%u\n%s", k, (char *) key),
                               GUINT_TO_POINTER (n + 1));
          for (guint c = 0; c < exprs->len; c++)
            g_ptr_array_add (outs, cml_sys_user_expr (sys, exprs->pdata[c]));
          n += exprs->len;
        }
    }
  sys->n_scene = n;
}

gboolean
cml_sys_compile_programs (CmlSystem *sys, GError **error)
{
  CmlExprCtx *ctx = sys->ctx;
  guint dim = sys->dim;

#define COMPILE(out, outputs, n_out)                                                                 \
  G_STMT_START {                                                                                     \
    out = cml_program_compile (ctx, outputs, n_out, sys->param_sym, sys->n_params, sys->fast_sym,    \
                               sys->n_fast, error);                                                  \
    if (out == NULL)                                                                                 \
      return FALSE;                                                                                  \
  } G_STMT_END

  {
    g_autoptr (GPtrArray) outs = g_ptr_array_new ();
    for (guint i = 0; i < dim; i++)
      g_ptr_array_add (outs, sys->rhs[i]);
    for (guint i = 0; i < sys->pivots->len; i++)
      g_ptr_array_add (outs, sys->pivots->pdata[i]);
    COMPILE (sys->rhs_prog, (CmlExpr **) outs->pdata, outs->len);
    cml_sys_classify_pivots (sys);
  }
  COMPILE (sys->obs_prog, (CmlExpr **) sys->obs->pdata, sys->obs->len);
  if (sys->h->len)
    {
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      for (guint a = 0; a < sys->h->len; a++)
        g_ptr_array_add (outs, sys->h->pdata[a]);
      for (guint a = 0; a < sys->h->len; a++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (ctx, sys->h->pdata[a], sys->state_sym[j]));
      COMPILE (sys->proj_prog, (CmlExpr **) outs->pdata, outs->len);
    }
  if (sys->reg_rows)
    COMPILE (sys->reg_prog, sys->reg, sys->reg_rows * sys->reg_rows);
  if (sys->na)
    COMPILE (sys->newton_prog, sys->newton, sys->na + sys->na * sys->na);
  if (sys->fb->len)
    COMPILE (sys->fb_prog, (CmlExpr **) sys->fb->pdata, sys->fb->len);
  if (sys->fb2)
    {
      /* inputs: t, the state, then the free velocities */
      g_autofree int *fast2 = g_new (int, sys->n_fast + sys->fb_vak_nf);
      memcpy (fast2, sys->fast_sym, sys->n_fast * sizeof (int));
      memcpy (fast2 + sys->n_fast, sys->fb_aux_sym, sys->fb_vak_nf * sizeof (int));
      sys->fb2_prog = cml_program_compile (ctx, (CmlExpr **) sys->fb2->pdata, sys->fb2->len, sys->param_sym,
                                           sys->n_params, fast2, sys->n_fast + sys->fb_vak_nf, error);
      if (sys->fb2_prog == NULL)
        return FALSE;
    }
  {
    g_autoptr (GPtrArray) outs = g_ptr_array_new ();
    cml_sys_scene_layout (sys, outs);
    if (outs->len == 0)
      g_ptr_array_add (outs, ZERO (ctx));
    COMPILE (sys->scene_prog, (CmlExpr **) outs->pdata, outs->len);
  }
#undef COMPILE
  return TRUE;
}

/* The most a Jacobian may cost to derive: the right-hand side's fast instructions times
 * the number of variables (plus time) it is differentiated by. */
#define JACOBIAN_MAX_COST 2000000.0

/* The exact Jacobian ∂f/∂z (dim² outputs, row by row) and ∂f/∂t (dim) as a program, and its
 * native code when the right-hand side has native code: derived and compiled once, on
 * first use — by an implicit method, the stiffness estimate or shooting — rather than with
 * the system, because most runs never use it and for a larger system it was most of the
 * start-up (a five-link pendulum written as a model: 19 of its 27 million instructions
 * before the first step).
 * NULL for the systems whose free velocities Newton's method finds at every evaluation,
 * and when the derivatives cannot be computed in double precision (a coefficient that
 * overflows, as in x^1e200 differentiated twice: the equations themselves are finite) or
 * the program cannot be compiled — the reason in jac_error. */
CmlProgram *
cml_sys_ensure_jacobian (CmlSystem *sys)
{
  g_autoptr (GError) error = NULL;
  guint dim = sys->dim;

  if (sys->na != 0)
    return NULL;
  if (g_atomic_int_get (&sys->jac_tried))
    return sys->jac_prog;
  cml_sys_ensure_native (sys); /* whether the system runs native code */
  g_mutex_lock (&sys->native_lock);
  guint64 cost = (guint64) cml_program_n_fast_instructions (sys->rhs_prog) * (dim + 1);
  g_debug ("the Jacobian of %s: about %" G_GUINT64_FORMAT " operations to derive", sys->model->name, cost);
  if (!sys->jac_tried && cost > JACOBIAN_MAX_COST)
    {
      /* the derivatives of a large system's equations outgrow memory before they are used
       * (a 50-link pendulum's stiffness estimate once took 1.5 GB) */
      sys->jac_error = g_strdup_printf ("its %u equations are too large to differentiate exactly (about %.0f million "
                                        "operations, more than %.0f million)",
                                        dim, cost / 1e6, JACOBIAN_MAX_COST / 1e6);
      g_debug ("the Jacobian of %s: %s", sys->model->name, sys->jac_error);
      g_atomic_int_set (&sys->jac_tried, TRUE);
    }
  if (!sys->jac_tried)
    {
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      guint64 nonfinite0 = cml_expr_ctx_n_nonfinite (sys->ctx);
      for (guint i = 0; i < dim; i++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (sys->ctx, sys->rhs[i], sys->state_sym[j]));
      for (guint i = 0; i < dim; i++)
        g_ptr_array_add (outs, cml_expr_diff (sys->ctx, sys->rhs[i], sys->model->t_sym));
      if (cml_expr_ctx_n_nonfinite (sys->ctx) != nonfinite0)
        sys->jac_error = g_strdup ("a numeric coefficient of its derivatives is not finite (it overflows double "
                                   "precision while they are taken): rescale the model's numbers");
      else
        sys->jac_prog = cml_program_compile (sys->ctx, (CmlExpr **) outs->pdata, outs->len, sys->param_sym,
                                             sys->n_params, sys->fast_sym, sys->n_fast, &error);
      if (sys->jac_error != NULL)
        g_debug ("the Jacobian of %s: %s", sys->model->name, sys->jac_error);
      else if (sys->jac_prog == NULL)
        {
          g_debug ("the Jacobian of %s: %s", sys->model->name, error->message);
          sys->jac_error = g_strdup (error->message);
        }
      else
        cml_sys_native_jacobian (sys);
      g_atomic_int_set (&sys->jac_tried, TRUE);
    }
  g_mutex_unlock (&sys->native_lock);
  return sys->jac_prog;
}

void
cml_system_prepare (CmlSystem *sys, CmlIntegratorKind kind)
{
  g_return_if_fail (sys != NULL);

  cml_sys_prepare_initial (sys);
  if (kind == CML_INTEGRATOR_MSBDF || kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT)
    (void) cml_sys_ensure_jacobian (sys);
  else if (kind == CML_INTEGRATOR_VARIATIONAL || kind == CML_INTEGRATOR_VARIATIONAL4)
    cml_variational_prepare (sys);
  else if (kind == CML_INTEGRATOR_AUTO)
    (void) cml_integrator_choice_rhs_kind (sys, NULL); /* what auto chooses from, kept */
}
