/* cml-system-programs.c — a system's observables, and its derived expressions compiled
 * into register programs: right-hand side, observables, projection, regularity matrix,
 * Newton's method for the vakonomic free velocities, numeric fallback and scene.  (What
 * runs derive on first use, the Jacobian among it, is cml-system-prepare.c's.)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <math.h>
#include <string.h>

/* ---- observables and programs ------------------------------------------------------ */

CmlExpr *
cml_sys_user_expr (CmlSystem *sys, CmlExpr *e)
{
  if (sys->derived.n_subs == 0)
    return e;
  return cml_expr_subs (sys->ctx, e, sys->derived.n_subs, sys->derived.subs_ids, sys->derived.subs_repl);
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
  sys->fast_pivots = g_new (guint, sys->derived.pivots->len + 1);
  sys->slow_pivots = g_new (guint, sys->derived.pivots->len + 1);
  sys->slow_pivot_regs = g_new (guint, sys->derived.pivots->len + 1);
  for (guint i = 0; i < sys->derived.pivots->len; i++)
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
      g_ptr_array_add (outs, sys->derived.rhs[i]);
    for (guint i = 0; i < sys->derived.pivots->len; i++)
      g_ptr_array_add (outs, sys->derived.pivots->pdata[i]);
    COMPILE (sys->rhs_prog, (CmlExpr **) outs->pdata, outs->len);
    cml_sys_classify_pivots (sys);
  }
  COMPILE (sys->obs_prog, (CmlExpr **) sys->obs->pdata, sys->obs->len);
  if (sys->derived.h->len)
    {
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      for (guint a = 0; a < sys->derived.h->len; a++)
        g_ptr_array_add (outs, sys->derived.h->pdata[a]);
      for (guint a = 0; a < sys->derived.h->len; a++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (ctx, sys->derived.h->pdata[a], sys->state_sym[j]));
      COMPILE (sys->proj_prog, (CmlExpr **) outs->pdata, outs->len);
    }
  if (sys->derived.reg_rows)
    COMPILE (sys->reg_prog, sys->derived.reg, sys->derived.reg_rows * sys->derived.reg_rows);
  if (sys->derived.na)
    COMPILE (sys->newton_prog, sys->derived.newton, sys->derived.na + sys->derived.na * sys->derived.na);
  if (sys->derived.fb->len)
    COMPILE (sys->fb_prog, (CmlExpr **) sys->derived.fb->pdata, sys->derived.fb->len);
  if (sys->derived.fb2)
    {
      /* inputs: t, the state, then the free velocities */
      g_autofree int *fast2 = g_new (int, sys->n_fast + sys->derived.fb_vak_nf);
      memcpy (fast2, sys->fast_sym, sys->n_fast * sizeof (int));
      memcpy (fast2 + sys->n_fast, sys->derived.fb_aux_sym, sys->derived.fb_vak_nf * sizeof (int));
      sys->fb2_prog = cml_program_compile (ctx, (CmlExpr **) sys->derived.fb2->pdata, sys->derived.fb2->len,
                                           sys->param_sym, sys->n_params, fast2,
                                           sys->n_fast + sys->derived.fb_vak_nf, error);
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
