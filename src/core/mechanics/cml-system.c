/* cml-system.c — a system of equations of motion built from a model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cml_system_new() checks the structure equations (cml-structure.c), picks the formalism
 * from the model's kind of constraints and derives the right-hand side with it:
 *
 *   (a) Euler–Lagrange:        W ẏ = R                      cml-euler-lagrange.c
 *   (b) Lagrange–d'Alembert:   W ẏ = R + Φ_yᵀ λ, φ = 0      cml-lagrange-dalembert.c
 *   (c) vakonomic:             Hamilton's equations on W1   cml-vakonomic.c
 *   (d) singular W:            the constraint algorithm     cml-constraint-algorithm.c
 *
 * each returning what it derived (cml-derivation.h), which the system keeps; then adds the
 * observables (for (b) also the multipliers λ, named lambda_<constraint>) and compiles
 * everything (cml-system-programs.c).  Notation
 * as in doc/theory.md §1: base coordinates x^i (m of them), fibre coordinates y^A (n),
 * anchor ρ^i_A(x), structure functions C^C_AB(x), Lagrangian L(t, x, y).
 *
 * All derivatives are symbolic and exact; the linear solves are symbolic too
 * (cml-symsolve.c), with their pivots checked at run time.  The results are compiled into
 * register programs whose slow inputs are the parameters, so a parameter change costs
 * one cml_program_prepare() and the right-hand side does no allocation.  Also here: the
 * small pieces the formalisms share (a generic sample point, the pivots, errors that name
 * the model's line), reference counting and the accessors.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"

const char *
cml_formalism_to_string (CmlFormalism f)
{
  switch (f)
    {
    case CML_FORMALISM_EULER_LAGRANGE: return "Euler–Lagrange equations on a Lie algebroid";
    case CML_FORMALISM_NONHOLONOMIC: return "nonholonomic (Lagrange–d'Alembert) equations";
    case CML_FORMALISM_VAKONOMIC: return "vakonomic equations (normal extremals, Hamiltonian form on W1)";
    case CML_FORMALISM_SINGULAR: return "singular Lagrangian (constraint algorithm with the SODE condition)";
    default: return "?";
    }
}

/* ---- small pieces the formalisms share ----------------------------------------------- */

CmlExpr *
cml_sys_sym (CmlExprCtx *ctx, int id)
{
  return cml_expr_sym (ctx, id);
}

CmlExpr *
cml_sys_madd (CmlExprCtx *ctx, CmlExpr *acc, CmlExpr *a, CmlExpr *b)
{
  if (cml_expr_is_zero (a) || cml_expr_is_zero (b))
    return acc;
  return cml_expr_add (ctx, acc, cml_expr_mul (ctx, a, b));
}

/* A deterministic generic point: parameters at their defaults, t and every other symbol
 * at pseudo-random values, so that expressions that look nonzero but vanish are caught. */
double *
cml_sys_make_sample (CmlSystem *sys, guint32 seed)
{
  guint ns = cml_expr_ctx_n_symbols (sys->ctx);
  double *v = g_new (double, ns);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < ns; i++)
    v[i] = g_rand_double_range (rand, 0.35, 1.35);
  for (guint k = 0; k < sys->n_params; k++)
    v[sys->param_sym[k]] = ((CmlParam *) sys->model->params->pdata[k])->value;
  return v;
}

G_GNUC_PRINTF (5, 0) static gboolean
fail_in_model_va (const CmlModel *md, GError **error, int line, int code, const char *fmt, va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);

  g_set_error (error, CML_ERROR, code, "%s:%d: %s", md->path, MAX (line, 1), msg);
  return FALSE;
}

gboolean
cml_sys_fail_model (CmlSystem *sys, GError **error, int line, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fail_in_model_va (sys->model, error, line, code, fmt, ap);
  va_end (ap);
  return FALSE;
}

gboolean
cml_sys_fail_in_model (const CmlModel *md, GError **error, int line, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fail_in_model_va (md, error, line, code, fmt, ap);
  va_end (ap);
  return FALSE;
}

void
cml_sys_keep_derivation (CmlSystem *sys, CmlDerivation *d)
{
  CmlDerivation *kept = &sys->derived;

  g_return_if_fail (d->n_rhs <= sys->dim && kept->pivots->len == 0 && kept->reg == NULL
                    && kept->lambda == NULL && kept->na == 0 && kept->n_subs == 0
                    && kept->fb2 == NULL && kept->fb_cols == NULL && kept->steps->len == 0);

  /* the system's rates (dim, all NULL) take D's first ones; the rest of D is the system's */
  CmlExpr **rhs = g_steal_pointer (&kept->rhs);
  for (guint i = 0; i < d->n_rhs; i++)
    rhs[i] = d->rhs[i];
  cml_derivation_clear (kept);
  *kept = *d;
  g_free (kept->rhs);
  kept->rhs = rhs;
  kept->n_rhs = sys->dim;
  g_free (d);
}

/* Records PIVOT, which must not vanish, as belonging to the matrix MATRIX. */
void
cml_sys_add_pivot (CmlSystem *sys, CmlExpr *pivot, const char *matrix)
{
  g_ptr_array_add (sys->derived.pivots, pivot);
  g_ptr_array_add (sys->derived.pivot_names, (gpointer) matrix);
}

/* A numeric coefficient overflowed (to ±inf or NaN) while the equations were derived:
 * y^5.5e76 differentiated twice has a coefficient of 3e153, and a few more products reach
 * inf.  The model is valid, its equations are not computable in double precision.  (The
 * Jacobian, derived on first use, has its own check: cml_sys_ensure_jacobian.) */
static gboolean
fail_nonfinite (CmlSystem *sys, GError **error)
{
  return cml_sys_fail_model (sys, error, sys->model->lagrangian_line, CML_ERROR_UNSUPPORTED,
                     "a numeric coefficient of the derived equations is not finite (it overflows "
                     "double precision while the derivatives are taken): rescale the model's numbers");
}

void
cml_sys_set_fast_inputs (CmlSystem *sys)
{
  sys->n_fast = 1 + sys->dim + sys->derived.na;
  sys->fast_sym = g_new (int, sys->n_fast);
  sys->fast_sym[0] = sys->model->t_sym;
  for (guint i = 0; i < sys->dim; i++)
    sys->fast_sym[1 + i] = sys->state_sym[i];
  for (guint a = 0; a < sys->derived.na; a++)
    sys->fast_sym[1 + sys->dim + a] = sys->derived.aux_sym[a];
}

/* The structure equations of the algebroid: whether it is a Lie algebroid, and a warning
 * (naming the model's file) when it is not. */
static void
check_structure (CmlSystem *sys)
{
  char *msg = NULL;

  sys->structure_defect = cml_sys_structure_defect (sys, &msg);
  sys->lie = sys->structure_defect < 1e-9;
  g_ptr_array_set_size (sys->warnings, 0);
  for (guint k = 0; k < sys->model->warnings->len; k++)
    g_ptr_array_add (sys->warnings, g_strdup (sys->model->warnings->pdata[k]));
  if (msg)
    g_ptr_array_add (sys->warnings, msg);
}

CmlSystem *
cml_system_new (CmlModel *model, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);

  g_autoptr (CmlSystem) sys = g_new0 (CmlSystem, 1);
  CmlExprCtx *ctx = model->ctx;
  guint m = model->m, n = model->n;
  Mechanics mc = { 0 };
  gboolean ok = TRUE;

  sys->ref_count = 1;
  sys->warnings = g_ptr_array_new_with_free_func (g_free);
  sys->model = cml_model_ref (model);
  sys->ctx = ctx;
  sys->m = m;
  sys->n = n;
  sys->nr = model->reconstruction->len;
  sys->dim = m + n + sys->nr;
  cml_derivation_init (&sys->derived, sys->dim);
  sys->obs_names = g_ptr_array_new_with_free_func (g_free);
  sys->obs = g_ptr_array_new ();

  sys->n_params = model->params->len;
  sys->param_sym = g_new (int, MAX (sys->n_params, 1));
  for (guint k = 0; k < sys->n_params; k++)
    sys->param_sym[k] = ((CmlParam *) model->params->pdata[k])->sym;

  /* the state: x, then y (or p), then reconstruction variables */
  sys->state_sym = g_new (int, sys->dim);
  sys->state_names = g_new0 (char *, sys->dim + 1);
  for (guint i = 0; i < m; i++)
    sys->state_sym[i] = model->base_sym[i];
  for (guint A = 0; A < n; A++)
    sys->state_sym[m + A] = model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta_sym[A] : model->fibre_sym[A];
  for (guint k = 0; k < sys->nr; k++)
    sys->state_sym[m + n + k] = ((CmlNamedExpr *) model->reconstruction->pdata[k])->sym;
  for (guint i = 0; i < sys->dim; i++)
    sys->state_names[i] = g_strdup (cml_expr_ctx_symbol_name (ctx, sys->state_sym[i]));

  /* a text derived before: from the cache (cml-system-cache.c) */
  guint nodes0 = cml_expr_ctx_n_nodes (ctx), syms0 = cml_expr_ctx_n_symbols (ctx);
  if (cml_sys_cache_load (sys))
    {
      check_structure (sys);
      return g_steal_pointer (&sys);
    }

  /* numbers that overflow while deriving make the equations meaningless (see the end) */
  guint64 nonfinite0 = cml_expr_ctx_n_nonfinite (ctx);

  check_structure (sys);

  {
    /* what the formalism derives, kept in the system */
    g_autofree double *sample = cml_sys_make_sample (sys, 1);
    g_autoptr (CmlDerivation) derived = NULL;
    if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
      {
        sys->formalism = CML_FORMALISM_VAKONOMIC;
        derived = cml_sys_derive_vakonomic (ctx, model, sample, error);
      }
    else
      {
        cml_sys_mechanics_init (ctx, model, &mc);
        if (model->kind == CML_CONSTRAINTS_NONHOLONOMIC)
          {
            sys->formalism = CML_FORMALISM_NONHOLONOMIC;
            derived = cml_sys_derive_nonholonomic (ctx, model, &mc, sample, error);
          }
        else
          {
            sys->formalism = CML_FORMALISM_EULER_LAGRANGE;
            derived = cml_sys_derive_euler_lagrange (ctx, model, &mc, sample);
            /* a singular L: the constraint algorithm on W ẏ = R, the forces inside R (so a
             * force along ker W enters the primary constraints) */
            if (derived == NULL)
              {
                sys->formalism = CML_FORMALISM_SINGULAR;
                derived = cml_sys_derive_singular (sys, &mc, error);
              }
          }
      }
    ok = derived != NULL;
    if (ok)
      cml_sys_keep_derivation (sys, g_steal_pointer (&derived));
    /* user expressions: momenta p_A = ∂L/∂y^A (the vakonomic equations have their own) */
    if (ok && model->kind != CML_CONSTRAINTS_VAKONOMIC)
      {
        sys->derived.n_subs = n;
        sys->derived.subs_ids = g_new (int, n);
        sys->derived.subs_repl = g_new (CmlExpr *, n);
        for (guint A = 0; A < n; A++)
          {
            sys->derived.subs_ids[A] = model->momenta_sym[A];
            sys->derived.subs_repl[A] = mc.Ly[A];
          }
      }
  }
  if (!ok)
    {
      cml_sys_mechanics_clear (&mc);
      /* numbers that overflowed are the likelier cause of the failure (a NaN matrix is
       * singular): name them instead */
      if (cml_expr_ctx_n_nonfinite (ctx) != nonfinite0)
        {
          g_clear_error (error);
          fail_nonfinite (sys, error);
        }
      return NULL;
    }

  /* the invariants of the configuration, kept with the constraints (cml-invariants.c) */
  if (!cml_sys_add_invariants (sys, error))
    {
      cml_sys_mechanics_clear (&mc);
      return NULL;
    }

  /* user expressions: the multipliers' names (cml-model-mechanics.c, declare_multipliers)
   * stand for λ (nonholonomic) or μ_α = −p_α (vakonomic) */
  if (model->multiplier_sym)
    {
      guint nc = model->constraints->len, k = sys->derived.n_subs;
      sys->derived.subs_ids = g_renew (int, sys->derived.subs_ids, sys->derived.n_subs + nc);
      sys->derived.subs_repl = g_renew (CmlExpr *, sys->derived.subs_repl, sys->derived.n_subs + nc);
      for (guint a = 0; a < nc; a++)
        {
          CmlExpr *value = NULL;
          if (model->multiplier_sym[a] < 0)
            continue;
          if (sys->formalism == CML_FORMALISM_NONHOLONOMIC && a < sys->derived.n_lambda)
            value = sys->derived.lambda[a];
          else if (sys->formalism == CML_FORMALISM_VAKONOMIC)
            for (guint A = 0; A < n; A++)
              if (g_str_equal (model->fibre[A], ((CmlNamedExpr *) model->constraints->pdata[a])->name))
                value = cml_expr_neg (ctx, cml_sys_sym (ctx, model->momenta_sym[A]));
          if (value == NULL)
            continue;
          sys->derived.subs_ids[k] = model->multiplier_sym[a];
          sys->derived.subs_repl[k] = value;
          k++;
        }
      sys->derived.n_subs = k;
    }

  /* solve-for of nonholonomic constraints, and of a Lagrangian that turned out regular */
  if (model->n_solve_for && sys->formalism != CML_FORMALISM_SINGULAR)
    {
      g_autoptr (GPtrArray) G = g_ptr_array_new ();
      g_auto (Samples) samples = { G_MAXUINT, { NULL } };
      g_autofree int *move = g_new (int, MAX (n, 1));
      for (guint a = 0; a < model->constraints->len; a++)
        g_ptr_array_add (G, ((CmlNamedExpr *) model->constraints->pdata[a])->expr);
      for (guint A = 0; A < n; A++)
        move[A] = model->fibre_sym[A];
      if (!cml_sys_check_solve_for (sys, G, move, n, &samples, error))
        {
          cml_sys_mechanics_clear (&mc);
          return NULL;
        }
    }

  /* reconstruction rates */
  for (guint k = 0; k < sys->nr; k++)
    sys->derived.rhs[m + n + k]
      = cml_sys_user_expr (sys, ((CmlNamedExpr *) model->reconstruction->pdata[k])->expr);
  if (sys->derived.fb2)
    for (guint k = 0; k < sys->nr; k++)
      g_ptr_array_add (sys->derived.fb2,
                       cml_expr_subs (ctx, ((CmlNamedExpr *) model->reconstruction->pdata[k])->expr, n,
                                      sys->derived.subs_ids, sys->derived.fb_yhat));

  cml_sys_set_fast_inputs (sys);

  /* observables */
  for (guint i = 0; i < m; i++)
    cml_sys_add_observable (sys, model->base[i], cml_sys_sym (ctx, model->base_sym[i]));
  for (guint A = 0; A < n; A++)
    cml_sys_add_observable (sys, model->fibre[A], cml_sys_user_expr (sys, cml_sys_sym (ctx, model->fibre_sym[A])));
  for (guint A = 0; A < n; A++)
    cml_sys_add_observable (sys, model->momenta[A], cml_sys_user_expr (sys, cml_sys_sym (ctx, model->momenta_sym[A])));
  for (guint k = 0; k < sys->nr; k++)
    cml_sys_add_observable (sys, sys->state_names[m + n + k], cml_sys_sym (ctx, sys->state_sym[m + n + k]));
  for (guint k = 0; k < model->definitions->len; k++)
    {
      CmlNamedExpr *ne = model->definitions->pdata[k];
      cml_sys_add_observable (sys, ne->name, cml_sys_user_expr (sys, ne->expr));
    }
  for (guint k = 0; k < model->monitors->len; k++)
    {
      CmlNamedExpr *ne = model->monitors->pdata[k];
      cml_sys_add_observable (sys, ne->name, cml_sys_user_expr (sys, ne->expr));
    }
  if (sys->derived.h->len && cml_system_observable_index (sys, "residual") < 0)
    {
      CmlExpr *s = ZERO (ctx);
      for (guint a = 0; a < sys->derived.h->len; a++)
        s = cml_expr_add (ctx, s, cml_expr_powi (ctx, sys->derived.h->pdata[a], 2));
      cml_sys_add_observable (sys, "residual", cml_expr_func (ctx, CML_FN_SQRT, s));
    }
  /* the multipliers, lambda_<constraint name> (nonholonomic) or mu_<constrained fibre
   * coordinate> (vakonomic), unless the model already uses that name */
  for (guint a = 0; model->multiplier_sym && a < model->constraints->len; a++)
    if (model->multiplier_sym[a] >= 0)
      cml_sys_add_observable (sys, cml_expr_ctx_symbol_name (ctx, model->multiplier_sym[a]),
                      cml_sys_user_expr (sys, cml_sys_sym (ctx, model->multiplier_sym[a])));

  cml_sys_mechanics_clear (&mc);
  {
    g_autoptr (GError) cerr = NULL;
    if (!cml_sys_compile_programs (sys, &cerr))
      {
        cml_sys_fail_model (sys, error, model->lagrangian_line, CML_ERROR_UNSUPPORTED,
                    "cmlab cannot compile the derived equations: %s", cerr->message);
        return NULL;
      }
  }
  if (cml_expr_ctx_n_nonfinite (ctx) != nonfinite0)
    {
      fail_nonfinite (sys, error);
      return NULL;
    }
  cml_sys_cache_save (sys, nodes0, syms0);
  return g_steal_pointer (&sys);
}

/* (one lock for every system: it is taken once per system, on the first call) */
G_LOCK_DEFINE_STATIC (runtime);

gpointer
cml_sys_runtime (CmlSystem *sys, gpointer (*make) (void), GDestroyNotify free_func)
{
  gpointer runtime = g_atomic_pointer_get (&sys->runtime);

  if (runtime != NULL)
    return runtime;
  G_LOCK (runtime);
  if (sys->runtime == NULL)
    {
      sys->runtime_free = free_func;
      g_atomic_pointer_set (&sys->runtime, make ());
    }
  runtime = sys->runtime;
  G_UNLOCK (runtime);
  return runtime;
}

CmlSystem *
cml_system_ref (CmlSystem *sys)
{
  g_atomic_int_inc (&sys->ref_count);
  return sys;
}

void
cml_system_unref (CmlSystem *sys)
{
  if (sys == NULL || !g_atomic_int_dec_and_test (&sys->ref_count))
    return;
  g_clear_pointer (&sys->rhs_prog, cml_program_free);
  g_clear_pointer (&sys->obs_prog, cml_program_free);
  g_clear_pointer (&sys->proj_prog, cml_program_free);
  g_clear_pointer (&sys->reg_prog, cml_program_free);
  g_clear_pointer (&sys->newton_prog, cml_program_free);
  g_clear_pointer (&sys->scene_prog, cml_program_free);
  g_clear_pointer (&sys->fb_prog, cml_program_free);
  g_clear_pointer (&sys->fb2_prog, cml_program_free);
  if (sys->runtime != NULL)
    sys->runtime_free (sys->runtime);
  g_free (sys->cache_key);
  g_clear_pointer (&sys->scene_offsets, g_hash_table_unref);
  g_free (sys->fast_pivots);
  g_free (sys->slow_pivots);
  g_free (sys->slow_pivot_regs);
  if (sys->warnings)
    g_ptr_array_unref (sys->warnings);
  g_ptr_array_unref (sys->obs_names);
  g_ptr_array_unref (sys->obs);
  g_free (sys->fast_sym);
  g_free (sys->param_sym);
  g_free (sys->state_sym);
  g_strfreev (sys->state_names);
  cml_derivation_clear (&sys->derived);
  cml_model_unref (sys->model);
  g_free (sys);
}

CmlModel *cml_system_get_model (const CmlSystem *sys) { return sys->model; }
CmlFormalism cml_system_get_formalism (const CmlSystem *sys) { return sys->formalism; }
guint cml_system_dim (const CmlSystem *sys) { return sys->dim; }
const char *cml_system_state_name (const CmlSystem *sys, guint i) { return sys->state_names[i]; }
guint cml_system_n_observables (const CmlSystem *sys) { return sys->obs_names->len; }
const char *cml_system_observable_name (const CmlSystem *sys, guint i) { return sys->obs_names->pdata[i]; }
gboolean cml_system_is_lie_algebroid (const CmlSystem *sys) { return sys->lie; }
const GPtrArray *cml_system_algorithm_steps (const CmlSystem *sys) { return sys->derived.steps; }
gboolean cml_system_has_gauge_freedom (const CmlSystem *sys) { return sys->derived.gauge; }
double cml_system_structure_defect (const CmlSystem *sys) { return sys->structure_defect; }
gboolean cml_system_was_cached (const CmlSystem *sys) { return sys->from_cache; }

int
cml_system_observable_index (const CmlSystem *sys, const char *name)
{
  for (guint i = 0; i < sys->obs_names->len; i++)
    if (g_str_equal (sys->obs_names->pdata[i], name))
      return i;
  return -1;
}

const GPtrArray *
cml_system_get_warnings (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return sys->warnings;
}
