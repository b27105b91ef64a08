/* cml-integrator.c — time stepping of dz/dt = f(t, z) with output at exact times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two families of methods, and a third kind run by cml-dop853.c (dop853: Dormand–Prince
 * 8(5,3), steps taken freely, the output from its dense output; everything below about
 * steps landing on T1 and the step state is the GSL steppers' and the midpoint rule's):
 *
 *   Adaptive (GSL odeiv2: rk8pd, rkf45, rkck, rk4, msadams, msbdf): cml-integrator-gsl.c.
 *
 *   Fixed step (the implicit midpoint rule, rk4-fixed): cml-integrator-fixed.c.
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
 * Every work array is allocated by cml_integrator_new (); advancing allocates nothing.
 * One integrator is used by one thread at a time; any thread may own it.
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-integrator-private.h"
#include "cml-integrator-choice.h"

#include "cml-dop853.h"
#include "cml-rk8pd-core.h"
#include "cml-error.h"
#include "cml-taylor.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_vector.h>

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

CmlIntegrator *
cml_integrator_new (const CmlOde               *ode,
                    const CmlIntegratorOptions *options,
                    GError                    **error)
{
  g_autoptr (CmlIntegrator) integ = NULL;
  guint dim;

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

  dim = ode->dim;
  integ = g_new0 (CmlIntegrator, 1);
  integ->ode = *ode;
  integ->options = *options;
  integ->z_good = g_new (double, dim);

  if (options->kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT)
    {
      /* Midpoint work arrays; the Newton matrix only when there is a Jacobian to use. */
      integ->zm = g_new (double, dim);
      integ->f = g_new (double, dim);
      integ->delta = g_new (double, dim);
      integ->w = g_new (double, dim);
      integ->comp = g_new0 (double, dim);
      integ->z_last = g_new0 (double, dim);
      if (ode->jacobian != NULL)
        {
          integ->dfdt = g_new (double, dim);
          integ->newton = gsl_matrix_alloc (dim, dim);
          integ->perm = gsl_permutation_alloc (dim);
        }
      return g_steal_pointer (&integ);
    }

  if (options->kind == CML_INTEGRATOR_DOP853)
    {
      integ->dop = cml_dop853_new (ode, options);
      return g_steal_pointer (&integ);
    }

  if (options->kind == CML_INTEGRATOR_RK4_FIXED)
    {
      integ->rk4 = g_new (double, 5 * dim);
      return g_steal_pointer (&integ);
    }

  /* GSL system, stepper, error control and evolution. */
  integ->sys.function = cml_integrator_gsl_rhs;
  integ->sys.jacobian = ode->jacobian != NULL ? cml_integrator_gsl_jacobian : NULL;
  integ->sys.dimension = dim;
  integ->sys.params = integ;

  integ->step = gsl_odeiv2_step_alloc (cml_integrator_gsl_step_type (options->kind), dim);
  integ->control = gsl_odeiv2_control_standard_new (options->atol, options->rtol, 1.0, 0.0);
  integ->evolve = gsl_odeiv2_evolve_alloc (dim);
  if (integ->step == NULL || integ->control == NULL || integ->evolve == NULL)
    {
      g_set_error_literal (error, CML_ERROR, CML_ERROR_NUMERIC,
                           "could not allocate the GSL stepper");
      return NULL;
    }

  /* The multistep steppers read the error levels from the control object through a driver
   * pointer.  We step with gsl_odeiv2_evolve_apply () ourselves and use the driver struct
   * only to carry those pointers. */
  integ->driver.sys = &integ->sys;
  integ->driver.s = integ->step;
  integ->driver.c = integ->control;
  integ->driver.e = integ->evolve;
  gsl_odeiv2_step_set_driver (integ->step, &integ->driver);
  gsl_odeiv2_control_set_driver (integ->control, &integ->driver);
  gsl_odeiv2_evolve_set_driver (integ->evolve, &integ->driver);

  integ->multistep = options->kind == CML_INTEGRATOR_MSADAMS
                     || options->kind == CML_INTEGRATOR_MSBDF;
  /* the estimate needs the exact Jacobian: without one, none is made */
  if (!integ->multistep && options->stats != NULL && ode->jacobian != NULL)
    {
      integ->sv = g_new (double, dim);
      integ->sf0 = g_new (double, dim);
      integ->sf1 = g_new (double, dim);
      integ->sz = g_new (double, dim);
      integ->sj = g_new (double, (gsize) dim * dim);
    }

  return g_steal_pointer (&integ);
}

CmlIntegrator *
cml_integrator_new_taylor (const CmlOde               *ode,
                           gpointer                    taylor,
                           const CmlIntegratorOptions *options,
                           GError                    **error)
{
  CmlIntegrator *integ;

  g_return_val_if_fail (ode != NULL && ode->dim > 0 && taylor != NULL, NULL);
  g_return_val_if_fail (options != NULL && options->kind == CML_INTEGRATOR_TAYLOR, NULL);

  if (!check_options (ode, options, TRUE, error))
    return NULL;
  integ = g_new0 (CmlIntegrator, 1);
  integ->ode = *ode;
  integ->options = *options;
  integ->z_good = g_new (double, ode->dim);
  integ->taylor = taylor;
  integ->taylor_steps0 = cml_taylor_n_native_steps (taylor);
  cml_taylor_reset (taylor);
  return integ;
}

gpointer
cml_integrator_get_taylor (CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, NULL);
  return integ->taylor;
}

gpointer
cml_integrator_steal_taylor (CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, NULL);
  return g_steal_pointer (&integ->taylor);
}

void
cml_integrator_free (CmlIntegrator *integ)
{
  if (integ == NULL)
    return;

  g_clear_pointer (&integ->taylor, cml_taylor_free);

  g_clear_pointer (&integ->dop, cml_dop853_free);
  if (integ->evolve != NULL)
    gsl_odeiv2_evolve_free (integ->evolve);
  if (integ->control != NULL)
    gsl_odeiv2_control_free (integ->control);
  if (integ->step != NULL)
    gsl_odeiv2_step_free (integ->step);
  if (integ->newton != NULL)
    gsl_matrix_free (integ->newton);
  if (integ->perm != NULL)
    gsl_permutation_free (integ->perm);
  g_free (integ->dfdt);
  g_free (integ->delta);
  g_free (integ->rk4);
  g_free (integ->w);
  g_free (integ->comp);
  g_free (integ->z_last);
  g_free (integ->f);
  g_free (integ->zm);
  g_free (integ->z_good);
  g_free (integ->rk.work);
  g_free (integ->sv);
  g_free (integ->sf0);
  g_free (integ->sf1);
  g_free (integ->sz);
  g_free (integ->sj);
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

  if (integ->evolve != NULL)
    gsl_odeiv2_evolve_reset (integ->evolve);
  if (integ->step != NULL)
    gsl_odeiv2_step_reset (integ->step);
  integ->h = 0.0;
  integ->comp_valid = FALSE;
  if (integ->taylor != NULL)
    cml_taylor_reset (integ->taylor);
  if (integ->dop != NULL)
    cml_dop853_reset (integ->dop);
}

void
cml_integrator_set_dop853_step (CmlIntegrator *integ,
                                int          (*func) (CmlDop853Step *step, void *data),
                                void          *data)
{
  g_return_if_fail (integ != NULL && integ->dop != NULL);

  cml_dop853_set_step_func (integ->dop, func, data);
}

void
cml_integrator_set_rk8pd_step (CmlIntegrator *integ,
                               int          (*func) (CmlRk8pdStep *step, void *data),
                               void          *data)
{
  g_return_if_fail (integ != NULL && integ->options.kind == CML_INTEGRATOR_RK8PD);

  integ->rk_func = func;
  integ->rk_data = data;
  integ->rk.rtol = integ->options.rtol;
  integ->rk.atol = integ->options.atol;
  if (integ->rk.work == NULL)
    integ->rk.work = g_new0 (double, 15 * (gsize) integ->ode.dim);
}

guint64
cml_integrator_n_func_steps (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, 0);

  if (integ->taylor != NULL)
    return cml_taylor_n_native_steps (integ->taylor) - integ->taylor_steps0;
  return integ->dop != NULL ? cml_dop853_n_func_steps (integ->dop) : integ->rk_func_steps;
}

guint64
cml_integrator_n_steps (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, 0);

  if (integ->dop != NULL)
    {
      CmlIntegratorStats st;
      cml_dop853_get_stats (integ->dop, &st);
      return st.n_steps;
    }
  return integ->n_steps;
}

guint64
cml_integrator_n_rhs (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, 0);

  if (integ->dop != NULL)
    {
      CmlIntegratorStats st;
      cml_dop853_get_stats (integ->dop, &st);
      return st.n_rhs;
    }
  return integ->n_rhs;
}

void
cml_integrator_get_stats (const CmlIntegrator *integ,
                          CmlIntegratorStats  *stats)
{
  g_return_if_fail (integ != NULL);
  g_return_if_fail (stats != NULL);

  if (integ->dop != NULL)
    {
      cml_dop853_get_stats (integ->dop, stats);
      return;
    }
  stats->n_steps = integ->n_steps;
  stats->n_rejected = integ->n_rejected;
  stats->n_rhs = integ->n_rhs;
  stats->h = integ->options.kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT || integ->options.kind == CML_INTEGRATOR_RK4_FIXED
               ? integ->options.h_fixed
               : integ->h;
  if (integ->taylor != NULL)
    stats->h = cml_taylor_last_step (integ->taylor);
  stats->h_rho = integ->h_rho;
  stats->n_stiff_checks = integ->n_stiff_checks;
  stats->n_stiff = integ->n_stiff;
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

  if (integ->taylor != NULL)
    return cml_taylor_step_state_size (integ->taylor);
  if (integ->dop != NULL)
    return cml_dop853_step_state_size (integ->dop);
  return 1 + integ->ode.dim;
}

gboolean
cml_integrator_step_state_is_exact (const CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, FALSE);

  return !integ->multistep || (integ->options.project && integ->ode.project != NULL);
}

void
cml_integrator_save_step_state (const CmlIntegrator *integ,
                                const double        *z,
                                double              *out)
{
  const guint dim = integ->ode.dim;

  if (integ->taylor != NULL)
    {
      cml_taylor_save_step_state (integ->taylor, z, out);
      return;
    }
  if (integ->dop != NULL)
    {
      cml_dop853_save_step_state (integ->dop, z, out);
      return;
    }
  /* the suggested next step (signed; 0 = none yet) */
  out[0] = integ->h;
  /* the midpoint rule's compensation, which belongs to the state its last step returned */
  if (integ->comp != NULL && integ->comp_valid
      && memcmp (z, integ->z_last, dim * sizeof (double)) == 0)
    memcpy (out + 1, integ->comp, dim * sizeof (double));
  else
    memset (out + 1, 0, dim * sizeof (double));
}

void
cml_integrator_restore_step_state (CmlIntegrator *integ,
                                   const double  *z,
                                   const double  *in)
{
  const guint dim = integ->ode.dim;

  cml_integrator_reset (integ);
  if (integ->taylor != NULL)
    {
      cml_taylor_restore_step_state (integ->taylor, &integ->ode, &integ->options, z, in);
      return;
    }
  if (integ->dop != NULL)
    {
      cml_dop853_restore_step_state (integ->dop, z, in);
      return;
    }
  integ->h = in[0];
  if (integ->comp != NULL)
    {
      memcpy (integ->comp, in + 1, dim * sizeof (double));
      memcpy (integ->z_last, z, dim * sizeof (double));
      integ->comp_valid = TRUE;
    }
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

  gboolean ok = integ->taylor != NULL
                  ? cml_taylor_advance (integ->taylor, &integ->ode, &integ->options, t, t1, z, &integ->n_steps,
                                        &integ->n_rhs, error)
                : integ->dop != NULL ? cml_dop853_advance (integ->dop, t, t1, z, error)
                  : integ->options.kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT
                      || integ->options.kind == CML_INTEGRATOR_RK4_FIXED
                  ? cml_integrator_advance_midpoint (integ, t, t1, z, error)
                  : cml_integrator_advance_gsl (integ, t, t1, z, error);
  publish_stats (integ);
  return ok;
}
