/* cml-system-prepare.c — what a system's runs derive from it on first use: the exact
 * Jacobian ∂f/∂z, ∂f/∂t of the right-hand side as a program (with its native code); and
 * cml_system_prepare, which derives beforehand, on the thread that owns the system, what a
 * run with a given integrator will ask for (the Jacobian, the variational program, a
 * vakonomic system's initial-data relations, what auto chooses from).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-simulation-private.h"
#include "cml-integrator-for-system.h"

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
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autoptr (GError) error = NULL;
  guint dim = sys->dim;

  if (sys->derived.na != 0)
    return NULL;
  if (g_atomic_int_get (&rt->jac_tried))
    return rt->jac_prog;
  cml_sys_ensure_native (sys); /* whether the system runs native code */
  g_mutex_lock (&rt->lock);
  guint64 cost = (guint64) cml_program_n_fast_instructions (sys->rhs_prog) * (dim + 1);
  g_debug ("the Jacobian of %s: about %" G_GUINT64_FORMAT " operations to derive", sys->model->name, cost);
  if (!rt->jac_tried && cost > JACOBIAN_MAX_COST)
    {
      /* the derivatives of a large system's equations outgrow memory before they are used
       * (a 50-link pendulum's stiffness estimate once took 1.5 GB) */
      rt->jac_error = g_strdup_printf ("its %u equations are too large to differentiate exactly (about %.0f million "
                                        "operations, more than %.0f million)",
                                        dim, cost / 1e6, JACOBIAN_MAX_COST / 1e6);
      g_debug ("the Jacobian of %s: %s", sys->model->name, rt->jac_error);
      g_atomic_int_set (&rt->jac_tried, TRUE);
    }
  if (!rt->jac_tried)
    {
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      guint64 nonfinite0 = cml_expr_ctx_n_nonfinite (sys->ctx);
      for (guint i = 0; i < dim; i++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (sys->ctx, sys->derived.rhs[i], sys->state_sym[j]));
      for (guint i = 0; i < dim; i++)
        g_ptr_array_add (outs, cml_expr_diff (sys->ctx, sys->derived.rhs[i], sys->model->t_sym));
      if (cml_expr_ctx_n_nonfinite (sys->ctx) != nonfinite0)
        rt->jac_error = g_strdup ("a numeric coefficient of its derivatives is not finite (it overflows double "
                                   "precision while they are taken): rescale the model's numbers");
      else
        rt->jac_prog = cml_program_compile (sys->ctx, (CmlExpr **) outs->pdata, outs->len, sys->param_sym,
                                             sys->n_params, sys->fast_sym, sys->n_fast, &error);
      if (rt->jac_error != NULL)
        g_debug ("the Jacobian of %s: %s", sys->model->name, rt->jac_error);
      else if (rt->jac_prog == NULL)
        {
          g_debug ("the Jacobian of %s: %s", sys->model->name, error->message);
          rt->jac_error = g_strdup (error->message);
        }
      else
        cml_sys_native_jacobian (sys);
      g_atomic_int_set (&rt->jac_tried, TRUE);
    }
  g_mutex_unlock (&rt->lock);
  return rt->jac_prog;
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
