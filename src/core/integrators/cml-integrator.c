/* cml-integrator.c — time stepping of dz/dt = f(t, z) with output at exact times: what
 * every method shares (options, checks, counters, the step budget, projection), and the
 * dispatch to the method's family through its method table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Families of methods, each one const table of functions (CmlIntegratorMethod,
 * cml-integrator-private.h) in its own file, which the integrator calls through
 * integ->method with its own state in integ->state:
 *
 *   Adaptive (GSL odeiv2: rk8pd, rkf45, rkck, rk4, msadams, msbdf): cml-integrator-gsl.c,
 *   cml_integrator_gsl_method.
 *
 *   Fixed step (the implicit midpoint rule, rk4-fixed): cml-integrator-fixed.c,
 *   cml_integrator_midpoint_method and cml_integrator_rk4_fixed_method.
 *
 *   DOP853 (Dormand–Prince 8(5,3), steps taken freely, the output from its dense output):
 *   cml-dop853.c, cml_integrator_dop853_method.
 *
 *   Taylor (the series of the solution from the expressions of f, a program that the
 *   integrator is given: cml_integrator_new_taylor ()): cml-taylor-step.c,
 *   cml_integrator_taylor_method.
 *
 * The variational integrators (variational, variational4) are not ODE integrators: they
 * step the mechanical system itself, and a simulation runs them (cml-variational.h).
 *
 * Adding a method: a kind in CmlIntegratorKind (cml-integrator.h) with its name in
 * kind_names below; then either a case in a family's own switch (a GSL stepper:
 * cml-integrator-gsl.c's step type), or a new family — a file with its state and a
 * const CmlIntegratorMethod filling every entry, declared in cml-integrator-private.h,
 * listed in src/core/meson.build — and its case in method_for_kind () below.  The
 * compiler's -Wswitch-enum then names every switch over the kinds that must say what the
 * new one does (the stiffness estimate's stability limit, auto's choice, …).  Everything
 * below about steps landing on T1 and the step state is the GSL steppers' and the midpoint
 * rule's; dop853 and Taylor say theirs at the top of their files.
 *
 * Step budget: one advance () takes at most options.max_steps accepted steps (10⁸ by
 * default); a run that spends them has not been making progress worth waiting for — a
 * span far too long for its steps, or steps that no longer move t — and fails with a
 * message that names the steps, the times and the step size.
 *
 * Statistics (cml_integrator_get_stats): accepted and rejected steps, right-hand sides,
 * the step size, and for the explicit Runge–Kutta methods an estimate of h ρ, the step
 * times the spectral radius of ∂f/∂z (cml-integrator-stiffness.c).
 *
 * Both directions.  T1 < t integrates backwards: the GSL steppers take negative steps (the
 * step size keeps its sign across advance () calls and is flipped, magnitude kept, when the
 * direction changes); the implicit midpoint rule takes N = ceil (|T1 - t|/h_fixed - 1e-9)
 * equal steps of (T1 - t)/N < 0, and being symmetric, a step of -h undoes a step of h up to
 * the stage equation's convergence and rounding.  Step-size limits compare magnitudes.
 *
 * Restarting bit for bit (cml_integrator_save_step_state ()): besides (t, z), what the next
 * steps depend on is the step size suggested for the next step (adaptive one-step methods:
 * rk8pd, rkf45, rkck, rk4 keep nothing else between steps, GSL recomputes dz/dt at the
 * start of each step) and, for the implicit midpoint rule, the compensation of its summed
 * updates.  The multistep methods also keep their Nordsieck history inside GSL, which cannot
 * be saved: when they project (the system has constraints or quaternions) that history is
 * restarted at the end of every advance () anyway, so a restart at an advance () boundary is
 * exact; without projection it restarts at order 1 and agrees only to the tolerances.
 *
 * Every work array is allocated by cml_integrator_new () (the family's state_new);
 * advancing allocates nothing.
 * One integrator is used by one thread at a time; any thread may own it.
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-integrator-private.h"
#include "cml-integrator-choice.h"

#include "cml-error.h"

#include <math.h>
#include <string.h>

static const char *const kind_names[CML_INTEGRATOR_N_KINDS] = {
  [CML_INTEGRATOR_RK8PD] = "rk8pd",
  [CML_INTEGRATOR_RKF45] = "rkf45",
  [CML_INTEGRATOR_RKCK] = "rkck",
  [CML_INTEGRATOR_RK4] = "rk4",
  [CML_INTEGRATOR_MSADAMS] = "msadams",
  [CML_INTEGRATOR_MSBDF] = "msbdf",
  [CML_INTEGRATOR_IMPLICIT_MIDPOINT] = "implicit-midpoint",
  [CML_INTEGRATOR_RK4_FIXED] = "rk4-fixed",
  [CML_INTEGRATOR_VARIATIONAL] = "variational",
  [CML_INTEGRATOR_VARIATIONAL4] = "variational4",
  [CML_INTEGRATOR_TAYLOR] = "taylor",
  [CML_INTEGRATOR_DOP853] = "dop853",
  [CML_INTEGRATOR_AUTO] = "auto",
};

CmlIntegratorOptions
cml_integrator_options_default (void)
{
  CmlIntegratorOptions options = {
    .kind = CML_INTEGRATOR_AUTO,
    .rtol = 1e-10,
    .atol = 1e-12,
    .h_init = 0.0,
    .h_fixed = 1e-3,
    .h_min = 1e-14,
    .project = TRUE,
    .max_steps = CML_INTEGRATOR_MAX_STEPS,
    .stats = NULL,
  };

  return options;
}

const char *
cml_integrator_kind_to_string (CmlIntegratorKind kind)
{
  g_return_val_if_fail ((guint) kind < CML_INTEGRATOR_N_KINDS, NULL);

  return kind_names[kind];
}

gboolean
cml_integrator_kind_from_string (const char        *name,
                                 CmlIntegratorKind *kind)
{
  g_return_val_if_fail (name != NULL, FALSE);

  for (guint i = 0; i < CML_INTEGRATOR_N_KINDS; i++)
    {
      if (g_str_equal (name, kind_names[i]))
        {
          if (kind != NULL)
            *kind = (CmlIntegratorKind) i;
          return TRUE;
        }
    }

  if (g_str_equal (name, "midpoint"))
    {
      if (kind != NULL)
        *kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
      return TRUE;
    }

  return FALSE;
}

gboolean
cml_integrator_kind_is_fixed_step (CmlIntegratorKind kind)
{
  return kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT || kind == CML_INTEGRATOR_VARIATIONAL
         || kind == CML_INTEGRATOR_VARIATIONAL4 || kind == CML_INTEGRATOR_RK4_FIXED;
}

char *
cml_integrator_options_describe (const CmlIntegratorOptions *o)
{
  /* numbers as C writes them, whatever the locale (this goes into files) */
  char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

  if (cml_integrator_kind_is_fixed_step (o->kind))
    return g_strdup_printf ("%s, step = %s", cml_integrator_kind_to_string (o->kind),
                            g_ascii_formatd (a, sizeof a, "%g", o->h_fixed));
  if (o->chosen != NULL && o->kind != CML_INTEGRATOR_AUTO)
    {
      /* what auto chose and why, in English (this goes into files) */
      g_autofree char *why = cml_integrator_choice_reason (o, FALSE);
      return g_strdup_printf ("%s, rtol = %s, atol = %s (chosen: %s)", cml_integrator_kind_to_string (o->kind),
                              g_ascii_formatd (a, sizeof a, "%g", o->rtol), g_ascii_formatd (b, sizeof b, "%g", o->atol),
                              why);
    }
  return g_strdup_printf ("%s, rtol = %s, atol = %s", cml_integrator_kind_to_string (o->kind),
                          g_ascii_formatd (a, sizeof a, "%g", o->rtol), g_ascii_formatd (b, sizeof b, "%g", o->atol));
}

static gboolean
check_options (const CmlOde               *ode,
               const CmlIntegratorOptions *options,
               gboolean                    taylor,
               GError                    **error)
{
  const CmlIntegratorOptions *o = options;

  if ((guint) o->kind >= CML_INTEGRATOR_N_KINDS)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "unknown integrator kind %d", (int) o->kind);
      return FALSE;
    }

  if (o->kind == CML_INTEGRATOR_VARIATIONAL || o->kind == CML_INTEGRATOR_VARIATIONAL4)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "%s is derived from a model's Lagrangian and constraints, not from an ODE: it runs "
                   "through a simulation (cml_simulation_set_integrator)",
                   cml_integrator_kind_to_string (o->kind));
      return FALSE;
    }

  if (o->kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT || o->kind == CML_INTEGRATOR_RK4_FIXED)
    {
      if (!(isfinite (o->h_fixed) && o->h_fixed > 0.0))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       "the fixed step must be positive (got %g)", o->h_fixed);
          return FALSE;
        }
      return TRUE;
    }

  if (!(isfinite (o->rtol) && o->rtol >= 0.0 && isfinite (o->atol) && o->atol >= 0.0)
      || o->rtol + o->atol <= 0.0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "tolerances must be non-negative and not both zero (rtol %g, atol %g)",
                   o->rtol, o->atol);
      return FALSE;
    }

  if (!(isfinite (o->h_init) && o->h_init >= 0.0) || !(isfinite (o->h_min) && o->h_min >= 0.0))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "h_init and h_min must be non-negative (got %g, %g)", o->h_init, o->h_min);
      return FALSE;
    }

  if (o->kind == CML_INTEGRATOR_TAYLOR && !taylor)
    {
      g_set_error_literal (error, CML_ERROR, CML_ERROR_USAGE,
                           "taylor differentiates the expressions of the right-hand side, not an ODE given "
                           "as a function: it runs through a simulation (cml_simulation_set_integrator)");
      return FALSE;
    }

  if (o->kind == CML_INTEGRATOR_MSBDF && ode->jacobian == NULL)
    {
      g_set_error_literal (error, CML_ERROR, CML_ERROR_USAGE,
                           "msbdf needs an exact Jacobian, which this system does not provide");
      return FALSE;
    }

  return TRUE;
}

/* The family that runs KIND; NULL for the kinds no ODE integrator runs (variational,
 * variational4: a simulation runs them, cml-variational.h; auto: chosen before). */
static const CmlIntegratorMethod *
method_for_kind (CmlIntegratorKind kind)
{
  switch (kind)
    {
    case CML_INTEGRATOR_RK8PD:
    case CML_INTEGRATOR_RKF45:
    case CML_INTEGRATOR_RKCK:
    case CML_INTEGRATOR_RK4:
    case CML_INTEGRATOR_MSADAMS:
    case CML_INTEGRATOR_MSBDF:
      return &cml_integrator_gsl_method;
    case CML_INTEGRATOR_IMPLICIT_MIDPOINT:
      return &cml_integrator_midpoint_method;
    case CML_INTEGRATOR_RK4_FIXED:
      return &cml_integrator_rk4_fixed_method;
    case CML_INTEGRATOR_DOP853:
      return &cml_integrator_dop853_method;
    case CML_INTEGRATOR_TAYLOR:
      return &cml_integrator_taylor_method;
    case CML_INTEGRATOR_VARIATIONAL:
    case CML_INTEGRATOR_VARIATIONAL4:
    case CML_INTEGRATOR_AUTO:
    case CML_INTEGRATOR_N_KINDS:
      return NULL;
    }
  return NULL;
}

/* The integrator of checked OPTIONS for ODE, its family's state made from PROGRAM. */
static CmlIntegrator *
integrator_new (const CmlOde               *ode,
                const CmlIntegratorOptions *options,
                gpointer                    program,
                GError                    **error)
{
  g_autoptr (CmlIntegrator) integ = g_new0 (CmlIntegrator, 1);

  integ->ode = *ode;
  integ->options = *options;
  integ->method = method_for_kind (options->kind);
  g_return_val_if_fail (integ->method != NULL, NULL);
  integ->z_good = g_new (double, ode->dim);
  integ->state = integ->method->state_new (integ, program, error);
  if (integ->state == NULL)
    return NULL;
  return g_steal_pointer (&integ);
}

CmlIntegrator *
cml_integrator_new (const CmlOde               *ode,
                    const CmlIntegratorOptions *options,
                    GError                    **error)
{
  g_return_val_if_fail (ode != NULL, NULL);
  g_return_val_if_fail (ode->rhs != NULL, NULL);
  g_return_val_if_fail (ode->dim > 0, NULL);
  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* auto, or taylor chosen for a system, becomes the method for a bare ODE */
  CmlIntegratorOptions chosen = *options;
  cml_integrator_choose_for_ode (&chosen);
  options = &chosen;
  if (!check_options (ode, options, FALSE, error))
    return NULL;

  return integrator_new (ode, options, NULL, error);
}

CmlIntegrator *
cml_integrator_new_taylor (const CmlOde               *ode,
                           gpointer                    taylor,
                           const CmlIntegratorOptions *options,
                           GError                    **error)
{
  g_return_val_if_fail (ode != NULL && ode->dim > 0 && taylor != NULL, NULL);
  g_return_val_if_fail (options != NULL && options->kind == CML_INTEGRATOR_TAYLOR, NULL);

  if (!check_options (ode, options, TRUE, error))
    return NULL;
  return integrator_new (ode, options, taylor, error);
}

void
cml_integrator_free (CmlIntegrator *integ)
{
  if (integ == NULL)
    return;

  if (integ->state != NULL)
    integ->method->state_free (integ->state);
  g_free (integ->z_good);
  g_free (integ);
}

void
cml_integrator_set_max_steps (CmlIntegrator *integ, guint max_steps)
{
  g_return_if_fail (integ != NULL);

  integ->options.max_steps = max_steps;
}

void
cml_integrator_reset (CmlIntegrator *integ)
{
  g_return_if_fail (integ != NULL);

  integ->method->reset (integ);
}

guint64
cml_integrator_n_func_steps (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, 0);

  return integ->method->n_func_steps (integ);
}

guint64
cml_integrator_no_func_steps (const CmlIntegrator *integ)
{
  return 0;
}

guint64
cml_integrator_n_steps (const CmlIntegrator *integ)
{
  CmlIntegratorStats st;

  g_return_val_if_fail (integ != NULL, 0);

  integ->method->get_stats (integ, &st);
  return st.n_steps;
}

guint64
cml_integrator_n_rhs (const CmlIntegrator *integ)
{
  CmlIntegratorStats st;

  g_return_val_if_fail (integ != NULL, 0);

  integ->method->get_stats (integ, &st);
  return st.n_rhs;
}

void
cml_integrator_get_stats (const CmlIntegrator *integ,
                          CmlIntegratorStats  *stats)
{
  g_return_if_fail (integ != NULL);
  g_return_if_fail (stats != NULL);

  integ->method->get_stats (integ, stats);
}

void
cml_integrator_get_common_stats (const CmlIntegrator *integ,
                                 CmlIntegratorStats  *stats)
{
  *stats = (CmlIntegratorStats) {
    .n_steps = integ->n_steps,
    .n_rejected = integ->n_rejected,
    .n_rhs = integ->n_rhs,
  };
}

/* Hands the counters to the caller's stats block, if any. */
static void
publish_stats (const CmlIntegrator *integ)
{
  if (integ->options.stats != NULL)
    cml_integrator_get_stats (integ, integ->options.stats);
}

#define BUDGET_MESSAGE_START "the integrator took "

gboolean
cml_integrator_error_is_budget (const GError *error)
{
  return error != NULL && error->domain == CML_ERROR && error->code == CML_ERROR_NUMERIC
         && g_str_has_prefix (error->message, BUDGET_MESSAGE_START);
}

/* The step budget is spent: the message says how far N steps went, and the step size. */
void
cml_integrator_set_budget_error (CmlIntegrator *integ,
                  guint64        n,
                  double         t_start,
                  double         t,
                  double         t1,
                  double         h,
                  GError       **error)
{
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               BUDGET_MESSAGE_START "%" G_GUINT64_FORMAT " steps between t = %.6g and t = %.6g without "
               "reaching t = %.6g: its steps (%.3g now) are far too short for the span; a shorter "
               "span, or for a stiff system an implicit method (msbdf), may reach it",
               n, t_start, t, t1, h);
}

guint
cml_integrator_step_state_size (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, 0);

  return integ->method->step_state_size (integ);
}

gboolean
cml_integrator_step_state_is_exact (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, FALSE);

  return integ->method->step_state_is_exact (integ);
}

gboolean
cml_integrator_step_state_exact (const CmlIntegrator *integ)
{
  return TRUE;
}

void
cml_integrator_save_step_state (const CmlIntegrator *integ,
                                const double        *z,
                                double              *out)
{
  integ->method->save_step_state (integ, z, out);
}

void
cml_integrator_restore_step_state (CmlIntegrator *integ,
                                   const double  *z,
                                   const double  *in)
{
  cml_integrator_reset (integ);
  integ->method->restore_step_state (integ, z, in);
}

gboolean
cml_integrator_all_finite (const double *z,
            guint         dim)
{
  for (guint i = 0; i < dim; i++)
    if (!isfinite (z[i]))
      return FALSE;

  return TRUE;
}

/* Projects Z at time T when asked to; FALSE with an error when the projection fails or
 * leaves a non-finite state. */
gboolean
cml_integrator_project_state (CmlIntegrator *integ,
               double         t,
               double        *z,
               GError       **error)
{
  if (!integ->options.project || integ->ode.project == NULL)
    return TRUE;

  if (integ->ode.project (t, z, integ->ode.user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "projection failed at t = %.6g", t);
      return FALSE;
    }

  if (!cml_integrator_all_finite (z, integ->ode.dim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "non-finite state at t = %.6g (after projection)", t);
      return FALSE;
    }

  return TRUE;
}

/* Puts back the last good state (time T_GOOD) after a failed step. */
void
cml_integrator_restore_good (CmlIntegrator *integ,
              double        *t,
              double         t_good,
              double        *z)
{
  memcpy (z, integ->z_good, integ->ode.dim * sizeof (double));
  *t = t_good;
}

gboolean
cml_integrator_advance (CmlIntegrator *integ,
                        double        *t,
                        double         t1,
                        double        *z,
                        GError       **error)
{
  g_return_val_if_fail (integ != NULL, FALSE);
  g_return_val_if_fail (t != NULL, FALSE);
  g_return_val_if_fail (z != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (isfinite (*t) && isfinite (t1), FALSE);

  if (t1 == *t)
    return TRUE;

  if (!cml_integrator_all_finite (z, integ->ode.dim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "non-finite state at t = %.6g (before the first step)", *t);
      return FALSE;
    }

  gboolean ok = integ->method->advance (integ, t, t1, z, error);
  publish_stats (integ);
  return ok;
}
