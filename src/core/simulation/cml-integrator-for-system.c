/* cml-integrator-for-system.c — the integrator auto chooses for a system: what the
 * Taylor method makes of its right-hand side, found once and kept with the system, and the
 * rule of cml-integrator-choice.c applied to it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the Taylor method makes of a system depends on its expressions only, so it is
 * found once (a Taylor program of the lowest order compiled and thrown away) and kept in
 * the system.
 */
#define G_LOG_DOMAIN "cml-integrator-choice"

#include "cml-integrator-for-system.h"

#include "cml-system-private.h"
#include "cml-system-runtime.h"
#include "cml-taylor.h"

const char *
cml_integrator_choice_rhs_kind (CmlSystem *sys, const char **why)
{
  g_return_val_if_fail (sys != NULL, NULL);
  CmlSystemRuntime *rt = cml_system_runtime (sys);

  if (g_atomic_int_get (&rt->taylor_verdict) == 0)
    {
      /* two threads may both find it: they find the same */
      const char *kind = NULL, *no = NULL;
      if (sys->derived.na != 0)
        no = cml_integrator_chosen_newton;
      else
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (CmlTaylor) tp = cml_taylor_compile (sys->ctx, sys->derived.rhs, sys->dim, sys->fast_sym[0],
                                                         sys->fast_sym + 1, sys->param_sym, sys->n_params, 2,
                                                         &error);
          if (tp != NULL)
            kind = cml_taylor_kind_of_rhs (tp);
          else
            {
              no = cml_integrator_chosen_function;
              g_debug ("no Taylor method for %s: %s", sys->model->name, error->message);
            }
        }
      rt->taylor_rhs_kind = kind;
      rt->taylor_no = no;
      g_atomic_int_set (&rt->taylor_verdict, kind ? 1 : 2);
    }
  if (why != NULL)
    *why = rt->taylor_no;
  return g_atomic_int_get (&rt->taylor_verdict) == 1 ? rt->taylor_rhs_kind : NULL;
}

void
cml_integrator_choose (CmlSystem *sys, CmlIntegratorOptions *o)
{
  const char *why = NULL, *kind;

  g_return_if_fail (sys != NULL && o != NULL);

  if (o->kind != CML_INTEGRATOR_AUTO && o->chosen == NULL)
    return;
  kind = cml_integrator_choice_rhs_kind (sys, &why);
  cml_integrator_choose_for_rhs (o, kind, why);
}
