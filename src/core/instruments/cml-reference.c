/* cml-reference.c — closed-form references ([reference] in a model file), compiled and
 * evaluated beside a run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loader (cml-model-presentation.c, load_reference) checks the group and parses each
 * closed form in the model's context.  Here they become one register program: its slow
 * inputs are the parameters followed by the NAME_0 symbols (model->initial_syms), its fast
 * input is t, so that a start (new parameters or a new initial state) runs the slow code
 * once and each evaluation only the part that depends on t.  Nothing here integrates: a
 * reference is exact, and the difference between the run and it is the numerical error (or
 * a wrong closed form).
 *
 * A run that starts at t0 ≠ 0 (simulate --t-start) feeds NAME_0 with its values at t0, and
 * the closed forms are evaluated at the time elapsed since, t − t0: right when the
 * equations of motion do not depend on t (the solution from a state does not depend on
 * when it starts).  When they do, a closed form in t is one for a start at t = 0 only, and
 * cml_reference_check_start refuses the other starts.
 */
#define G_LOG_DOMAIN "cml-reference"

#include "cml-reference.h"

#include <math.h>

#include "cml-error.h"
#include "cml-system-private.h"

#include <glib/gi18n-lib.h>

struct _CmlReference
{
  CmlSystem  *sys;
  CmlProgram *prog;
  guint       n;         /* references */
  char      **names;     /* n: the observables they are the closed forms of */
  int        *obs_index; /* n: their indices among the system's observables */
  guint       n_params;
  guint       n_zero;
  int        *zero_obs;  /* n_zero: the observable whose value at t = 0 feeds NAME_0 */
  double     *slow;      /* n_params + n_zero */
  double     *regs;
  double     *values;    /* n: scratch for cml_reference_compare */
  double      t0;        /* the time of the start: NAME_0 are the values there */
  char       *timed;     /* a reference written in t for a system whose equations depend on
                          * t (it holds for a start at t = 0 only), or NULL */
  gboolean    started;
};

static gboolean
any_depends_on (CmlExpr *const *e, guint n, int t_sym)
{
  for (guint i = 0; e && i < n; i++)
    if (e[i] && cml_expr_depends_on (e[i], t_sym))
      return TRUE;
  return FALSE;
}

/* Whether SYS's equations of motion (or its constraints, or its fallbacks) depend on t. */
static gboolean
system_depends_on_t (CmlSystem *sys)
{
  int t = sys->model->t_sym;
  return any_depends_on (sys->derived.rhs, sys->dim, t)
         || any_depends_on ((CmlExpr *const *) sys->derived.h->pdata, sys->derived.h->len, t)
         || any_depends_on (sys->derived.newton, sys->derived.na + sys->derived.na * sys->derived.na, t)
         || (sys->derived.fb
             && any_depends_on ((CmlExpr *const *) sys->derived.fb->pdata, sys->derived.fb->len, t))
         || (sys->derived.fb2
             && any_depends_on ((CmlExpr *const *) sys->derived.fb2->pdata, sys->derived.fb2->len, t));
}

CmlReference *
cml_reference_new (CmlSystem *sys, GError **error)
{
  g_return_val_if_fail (sys != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  CmlModel *model = cml_system_get_model (sys);
  if (model->references == NULL || model->references->len == 0)
    return NULL;

  g_autoptr (CmlReference) ref = g_new0 (CmlReference, 1);
  ref->sys = cml_system_ref (sys);
  ref->n = model->references->len;
  ref->names = g_new0 (char *, ref->n + 1);
  ref->obs_index = g_new (int, ref->n);
  ref->values = g_new0 (double, ref->n);

  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();
  for (guint i = 0; i < ref->n; i++)
    {
      CmlNamedExpr *ne = model->references->pdata[i];
      ref->names[i] = g_strdup (ne->name);
      ref->obs_index[i] = cml_system_observable_index (sys, ne->name);
      g_assert (ref->obs_index[i] >= 0); /* the loader accepts observables only */
      g_ptr_array_add (outputs, ne->expr);
      if (ref->timed == NULL && cml_expr_depends_on (ne->expr, model->t_sym) && system_depends_on_t (sys))
        ref->timed = g_strdup (ne->name);
    }

  /* slow inputs: the parameters, then the values at t = 0; fast: t */
  ref->n_params = model->params->len;
  ref->n_zero = model->initial_syms->len;
  g_autofree int *slow_ids = g_new (int, ref->n_params + ref->n_zero + 1);
  ref->zero_obs = g_new (int, ref->n_zero + 1);
  for (guint k = 0; k < ref->n_params; k++)
    slow_ids[k] = ((CmlParam *) model->params->pdata[k])->sym;
  for (guint k = 0; k < ref->n_zero; k++)
    {
      const CmlInitialSym *is = &g_array_index (model->initial_syms, CmlInitialSym, k);
      const char *name = cml_expr_ctx_symbol_name (model->ctx, is->sym);
      slow_ids[ref->n_params + k] = is->zero_sym;
      ref->zero_obs[k] = cml_system_observable_index (sys, name);
    }
  ref->prog = cml_program_compile (model->ctx, (CmlExpr **) outputs->pdata, outputs->len, slow_ids,
                                   ref->n_params + ref->n_zero, &model->t_sym, 1, error);
  if (ref->prog == NULL)
    return NULL;
  ref->slow = g_new0 (double, ref->n_params + ref->n_zero + 1);
  ref->regs = g_new0 (double, cml_program_n_registers (ref->prog));
  return g_steal_pointer (&ref);
}

void
cml_reference_free (CmlReference *ref)
{
  if (ref == NULL)
    return;
  g_clear_pointer (&ref->sys, cml_system_unref);
  g_clear_pointer (&ref->prog, cml_program_free);
  g_strfreev (ref->names);
  g_free (ref->obs_index);
  g_free (ref->zero_obs);
  g_free (ref->slow);
  g_free (ref->regs);
  g_free (ref->values);
  g_free (ref->timed);
  g_free (ref);
}

guint
cml_reference_get_n (const CmlReference *ref)
{
  g_return_val_if_fail (ref != NULL, 0);
  return ref->n;
}

const char *
cml_reference_get_name (const CmlReference *ref, guint i)
{
  g_return_val_if_fail (ref != NULL && i < ref->n, NULL);
  return ref->names[i];
}

int
cml_reference_get_observable (const CmlReference *ref, guint i)
{
  g_return_val_if_fail (ref != NULL && i < ref->n, -1);
  return ref->obs_index[i];
}

int
cml_reference_find (const CmlReference *ref, const char *name)
{
  g_return_val_if_fail (ref != NULL && name != NULL, -1);
  for (guint i = 0; i < ref->n; i++)
    if (g_str_equal (ref->names[i], name))
      return (int) i;
  return -1;
}

gboolean
cml_reference_check_start (const CmlReference *ref, double t0, GError **error)
{
  g_return_val_if_fail (ref != NULL, FALSE);
  if (t0 == 0 || ref->timed == NULL)
    return TRUE;
  CmlModel *model = cml_system_get_model (ref->sys);
  g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
               /* TRANSLATORS: an observable, the model's name and the start time */
               _("the closed form of %s in %s is written for a run that starts at t = 0, and the equations of motion "
                 "depend on t: it does not give the motion from a start at t = %g (start at t = 0 to compare with "
                 "it)"),
               ref->timed, model->name, t0);
  return FALSE;
}

void
cml_reference_start_at (CmlReference *ref, double t0, const double *params, const double *obs0)
{
  cml_reference_start (ref, params, obs0);
  ref->t0 = t0;
}

void
cml_reference_start (CmlReference *ref, const double *params, const double *obs0)
{
  g_return_if_fail (ref != NULL);
  g_return_if_fail (ref->n_params == 0 || params != NULL);
  g_return_if_fail (obs0 != NULL);

  /* the slow inputs in compile order, then the code that depends on them alone */
  for (guint k = 0; k < ref->n_params; k++)
    ref->slow[k] = params[k];
  for (guint k = 0; k < ref->n_zero; k++)
    ref->slow[ref->n_params + k] = ref->zero_obs[k] >= 0 ? obs0[ref->zero_obs[k]] : NAN;
  cml_program_prepare (ref->prog, ref->slow, ref->regs);
  ref->t0 = 0;
  ref->started = TRUE;
}

void
cml_reference_start_from_simulation (CmlReference *ref, CmlSimulation *sim)
{
  g_return_if_fail (ref != NULL && sim != NULL);
  g_return_if_fail (cml_simulation_get_system (sim) == ref->sys);

  CmlModel *model = cml_system_get_model (ref->sys);
  g_autofree double *params = g_new (double, ref->n_params + 1);
  g_autofree double *obs0 = g_new (double, cml_system_n_observables (ref->sys));

  for (guint k = 0; k < ref->n_params; k++)
    params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
  cml_simulation_observe (sim, obs0);
  cml_reference_start_at (ref, cml_simulation_get_time (sim), params, obs0);
}

gboolean
cml_reference_is_started (const CmlReference *ref)
{
  g_return_val_if_fail (ref != NULL, FALSE);
  return ref->started;
}

void
cml_reference_eval (CmlReference *ref, double t, double *values)
{
  g_return_if_fail (ref != NULL && values != NULL);
  if (!ref->started)
    {
      for (guint i = 0; i < ref->n; i++)
        values[i] = NAN;
      return;
    }
  double elapsed = t - ref->t0;
  cml_program_run (ref->prog, &elapsed, ref->regs, values);
}

void
cml_reference_compare (CmlReference *ref, double t, const double *obs, double *values,
                       double *errors)
{
  g_return_if_fail (ref != NULL);

  cml_reference_eval (ref, t, ref->values);
  for (guint i = 0; i < ref->n; i++)
    {
      if (values)
        values[i] = ref->values[i];
      if (errors)
        errors[i] = obs ? obs[ref->obs_index[i]] - ref->values[i] : NAN;
    }
}
