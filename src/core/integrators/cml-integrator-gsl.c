/* cml-integrator-gsl.c — the adaptive methods of GSL's odeiv2 (rk8pd, rkf45, rkck, rk4,
 * msadams, msbdf) behind cml_integrator_advance (), their method table
 * cml_integrator_gsl_method: the right-hand side and Jacobian callbacks, the steps bounded
 * by the output time, rk8pd's native steps, the step state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   Adaptive (GSL odeiv2: rk8pd, rkf45, rkck, rk4, msadams, msbdf).  Each step is taken with
 *   gsl_odeiv2_evolve_apply () bounded by the output time T1, so the last step lands on T1
 *   exactly.  The step is accepted when, for every component i,
 *
 *     |err_i| <= atol + rtol |z_i|          (gsl_odeiv2_control_standard_new (atol, rtol, 1, 0):
 *                                             weight 1 on the state, 0 on the derivative, so
 *                                             atol and rtol mean what the options say)
 *
 *   With native code, rk8pd's steps are the same steps written out around the system's
 *   right-hand side (cml-rk8pd-core.h, cml_integrator_set_rk8pd_step): GSL's numbers bit for
 *   bit, in GSL's own arrays, GSL taking any step the native one leaves.
 *
 *   After each accepted step the state is checked to be finite and, when asked, projected
 *   onto the constraint set.  The step size suggested by the controller is kept across
 *   advance () calls: a last step shortened to land on T1 does not shrink the next one.
 *
 *   Multistep methods (msadams, msbdf) keep a history of past steps (a Nordsieck array)
 *   inside the stepper.  Projecting after every step would move the state away from that
 *   history and corrupt it, so for these two the projection is done once, at the end of
 *   each advance () call, and the stepper is then reset (it restarts at order 1 from the
 *   projected state, keeping the step size).
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-integrator-private.h"

#include "cml-error.h"
#include "cml-rk8pd-core.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

/* Which user callback failed inside a GSL step. */
typedef enum
{
  CALLBACK_OK,
  CALLBACK_RHS_FAILED,
  CALLBACK_JACOBIAN_FAILED,
} CallbackStatus;

/* The state of a GSL method. */
typedef struct
{
  gsl_odeiv2_system   sys;
  gsl_odeiv2_step    *step;
  gsl_odeiv2_control *control;
  gsl_odeiv2_evolve  *evolve;
  gsl_odeiv2_driver   driver;    /* a container only: msadams/msbdf read the control through it */
  gboolean            multistep; /* msadams or msbdf: project at the end of advance () only */
  double              h;         /* step size for the next step; 0 = none chosen yet */
  CallbackStatus      callback_status;

  /* rk8pd: a step function that takes GSL's steps with GSL's numbers (cml-rk8pd-core.h,
   * in a system's native code), and its work arrays; GSL takes the steps it leaves */
  int         (*rk_func) (CmlRk8pdStep *step, void *data);
  void         *rk_data;
  CmlRk8pdStep  rk;
  guint64       rk_func_steps;

  /* the stiffness estimate (explicit methods with a stats block and a Jacobian): sv NULL
   * when none is made */
  CmlIntegratorStiffness stiff;
} Gsl;

/* GSL callbacks: count right-hand-side evaluations and turn a user failure into
 * GSL_EBADFUNC, which makes gsl_odeiv2_evolve_apply () return at once. */
static int
adaptive_rhs (double       t,
              const double y[],
              double       dydt[],
              void        *data)
{
  CmlIntegrator *integ = data;
  Gsl *g = integ->state;

  integ->n_rhs++;
  if (integ->ode.rhs (t, y, dydt, integ->ode.user_data) != 0)
    {
      g->callback_status = CALLBACK_RHS_FAILED;
      return GSL_EBADFUNC;
    }

  return GSL_SUCCESS;
}

static int
adaptive_jacobian (double       t,
                   const double y[],
                   double      *dfdy,
                   double       dfdt[],
                   void        *data)
{
  CmlIntegrator *integ = data;
  Gsl *g = integ->state;

  /* GSL's dfdy is row-major dim×dim, the layout CmlOdeJacFunc promises. */
  if (integ->ode.jacobian (t, y, dfdy, dfdt, integ->ode.user_data) != 0)
    {
      g->callback_status = CALLBACK_JACOBIAN_FAILED;
      return GSL_EBADFUNC;
    }

  return GSL_SUCCESS;
}

/* GSL's stepper for KIND; NULL for the kinds that are not GSL's. */
static const gsl_odeiv2_step_type *
adaptive_step_type (CmlIntegratorKind kind)
{
  switch (kind)
    {
    case CML_INTEGRATOR_RK8PD:
      return gsl_odeiv2_step_rk8pd;
    case CML_INTEGRATOR_RKF45:
      return gsl_odeiv2_step_rkf45;
    case CML_INTEGRATOR_RKCK:
      return gsl_odeiv2_step_rkck;
    case CML_INTEGRATOR_RK4:
      return gsl_odeiv2_step_rk4;
    case CML_INTEGRATOR_MSADAMS:
      return gsl_odeiv2_step_msadams;
    case CML_INTEGRATOR_MSBDF:
      return gsl_odeiv2_step_msbdf;
    case CML_INTEGRATOR_IMPLICIT_MIDPOINT:
    case CML_INTEGRATOR_VARIATIONAL:
    case CML_INTEGRATOR_VARIATIONAL4:
    case CML_INTEGRATOR_TAYLOR:
    case CML_INTEGRATOR_DOP853:
    case CML_INTEGRATOR_RK4_FIXED:
    case CML_INTEGRATOR_AUTO:
    case CML_INTEGRATOR_N_KINDS:
      return NULL;
    }
  return NULL;
}

/* One step of gsl_odeiv2_evolve_apply () taken by the step function (rk8pd in native code),
 * in the evolution's own arrays and with its counters as GSL keeps them: TRUE when it took
 * it, FALSE when it leaves it to GSL (Z as it was). */
static gboolean
func_step (CmlIntegrator *integ, Gsl *g, double *t, double t1, double *z)
{
  CmlRk8pdStep *rk = &g->rk;
  gsl_odeiv2_evolve *e = g->evolve;

  rk->t = *t;
  rk->t1 = t1;
  rk->h = g->h;
  rk->y = z;
  rk->f0 = e->dydt_in;
  rk->f1 = e->dydt_out;
  rk->fresh = e->count == 0;
  /* the first stage is the derivative at the end of the last step, which GSL's step leaves
   * in dydt_out (it copies it into dydt_in only as its next step starts; the native step
   * copies it at its end): so a native step after one of GSL's — a switch from the
   * interpreter to native code, or a step native code left to GSL — goes on as GSL would */
  if (!rk->fresh)
    memcpy (e->dydt_in, e->dydt_out, integ->ode.dim * sizeof (double));
  rk->tries = 0;
  rk->n_rhs = 0;
  rk->projected = 0;
  int rc = g->rk_func (rk, g->rk_data);
  integ->n_rhs += rk->n_rhs;
  if (rc != 0)
    return FALSE;
  *t = rk->t;
  g->h = rk->h;
  e->count += rk->tries;
  e->failed_steps += rk->tries - 1;
  e->last_step = rk->last;
  g->rk_func_steps++;
  return TRUE;
}

/* advance (): adaptive steps, the last one landing on T1. */
static gboolean
adaptive_advance (CmlIntegrator *integ,
                  double        *t,
                  double         t1,
                  double        *z,
                  GError       **error)
{
  Gsl *g = integ->state;
  const CmlIntegratorOptions *o = &integ->options;
  const guint dim = integ->ode.dim;
  const gboolean project_each_step = !g->multistep;
  const double t_start = *t;
  const int dir = t1 > *t ? 1 : -1;
  guint64 n = 0;

  /* First step: h_init, or a small fraction of the output interval; its sign is the
   * direction of time.  A change of direction keeps the size of the step. */
  if (g->h == 0.0)
    g->h = o->h_init > 0.0 ? o->h_init : MIN (1e-3, fabs (t1 - *t) / 10.0);
  else if ((g->h > 0.0) != (dir > 0) && g->multistep)
    {
      /* a multistep history of the other direction is of no use */
      gsl_odeiv2_step_reset (g->step);
      gsl_odeiv2_evolve_reset (g->evolve);
    }
  g->h = dir * fabs (g->h);

  while (cml_integrator_before (*t, t1, dir))
    {
      const double t_good = *t;
      const double h_before = g->h;
      double t_new = *t;
      int status;

      if (o->max_steps > 0 && n >= o->max_steps)
        {
          cml_integrator_set_budget_error (integ, n, t_start, *t, t1, g->h, error);
          return FALSE;
        }

      /* One accepted step, at most up to T1 (GSL then lands on T1 exactly); the steps it
       * tried and rejected on the way are counted. */
      memcpy (integ->z_good, z, dim * sizeof (double));
      g->callback_status = CALLBACK_OK;
      const unsigned long failed_before = g->evolve->failed_steps;
      gboolean projected = FALSE; /* by the native step itself (cml-native-step.h) */
      if (g->rk_func == NULL || !func_step (integ, g, &t_new, t1, z))
        status = gsl_odeiv2_evolve_apply (g->evolve, g->control, g->step,
                                          &g->sys, &t_new, t1, &g->h, z);
      else
        {
          status = GSL_SUCCESS;
          projected = g->rk.projected;
        }
      if (g->evolve->failed_steps > failed_before)
        integ->n_rejected += g->evolve->failed_steps - failed_before;

      if (status != GSL_SUCCESS)
        {
          /* GSL may have left a half-done step in Z: go back, and drop the multistep
           * history, which now disagrees with Z. */
          cml_integrator_restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (g->step);
          gsl_odeiv2_evolve_reset (g->evolve);
          g->h = h_before;

          if (status == GSL_EBADFUNC && g->callback_status == CALLBACK_RHS_FAILED)
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "right-hand side failed at t = %.6g", t_good);
          else if (status == GSL_EBADFUNC && g->callback_status == CALLBACK_JACOBIAN_FAILED)
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "Jacobian failed at t = %.6g", t_good);
          else
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "step size underflow at t = %.6g (GSL: %s)", t_good,
                         gsl_strerror (status));
          return FALSE;
        }

      /* The new state must be finite. */
      if (!cml_integrator_all_finite (z, dim))
        {
          cml_integrator_restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (g->step);
          gsl_odeiv2_evolve_reset (g->evolve);
          g->h = h_before;
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "non-finite state at t = %.6g", t_good);
          return FALSE;
        }

      /* The step taken, and the one suggested next, must not fall below h_min (a last
       * step shortened to land on T1 may). */
      if (cml_integrator_before (t_new, t1, dir)
          && (fabs (g->evolve->last_step) < o->h_min || fabs (g->h) < o->h_min))
        {
          const double h_small = MIN (fabs (g->evolve->last_step), fabs (g->h));

          cml_integrator_restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (g->step);
          gsl_odeiv2_evolve_reset (g->evolve);
          g->h = h_before;
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "step size underflow at t = %.6g (step %.3g < h_min %.3g)", t_good,
                       h_small, o->h_min);
          return FALSE;
        }

      /* A last step shortened to land on T1 must not shrink the steps that follow:
       * keep the step size suggested before it. */
      if (t_new == t1 && g->evolve->last_step == t1 - t_good
          && fabs (h_before) > fabs (g->h))
        g->h = h_before;

      *t = t_new;
      n++;
      integ->n_steps++;

      /* Back onto the constraint set after every step (one-step methods only). */
      if (project_each_step && !projected && !cml_integrator_project_state (integ, *t, z, error))
        {
          cml_integrator_restore_good (integ, t, t_good, z);
          return FALSE;
        }

      /* Now and then: is the step held by stability (explicit methods, when asked)? */
      if (g->stiff.sv != NULL && integ->n_steps % CML_INTEGRATOR_STIFF_EVERY == 0)
        cml_integrator_estimate_stiffness (integ, &g->stiff, *t, z, g->evolve->last_step);
    }

  /* Multistep methods: project once at the end, then restart their history from the
   * projected state (keeping the step size). */
  if (g->multistep && integ->options.project && integ->ode.project != NULL)
    {
      memcpy (integ->z_good, z, dim * sizeof (double));
      if (!cml_integrator_project_state (integ, *t, z, error))
        {
          memcpy (z, integ->z_good, dim * sizeof (double));
          return FALSE;
        }
      gsl_odeiv2_step_reset (g->step);
      gsl_odeiv2_evolve_reset (g->evolve);
    }

  return TRUE;
}

static void adaptive_state_free (gpointer state);

/* state_new (): GSL's system, stepper, error control and evolution. */
static gpointer
adaptive_state_new (CmlIntegrator *integ,
                    gpointer       program,
                    GError       **error)
{
  const CmlIntegratorOptions *options = &integ->options;
  const guint dim = integ->ode.dim;
  Gsl *g = g_new0 (Gsl, 1);

  g->sys.function = adaptive_rhs;
  g->sys.jacobian = integ->ode.jacobian != NULL ? adaptive_jacobian : NULL;
  g->sys.dimension = dim;
  g->sys.params = integ;

  g->step = gsl_odeiv2_step_alloc (adaptive_step_type (options->kind), dim);
  g->control = gsl_odeiv2_control_standard_new (options->atol, options->rtol, 1.0, 0.0);
  g->evolve = gsl_odeiv2_evolve_alloc (dim);
  if (g->step == NULL || g->control == NULL || g->evolve == NULL)
    {
      g_set_error_literal (error, CML_ERROR, CML_ERROR_NUMERIC,
                           "could not allocate the GSL stepper");
      adaptive_state_free (g);
      return NULL;
    }

  /* The multistep steppers read the error levels from the control object through a driver
   * pointer.  We step with gsl_odeiv2_evolve_apply () ourselves and use the driver struct
   * only to carry those pointers. */
  g->driver.sys = &g->sys;
  g->driver.s = g->step;
  g->driver.c = g->control;
  g->driver.e = g->evolve;
  gsl_odeiv2_step_set_driver (g->step, &g->driver);
  gsl_odeiv2_control_set_driver (g->control, &g->driver);
  gsl_odeiv2_evolve_set_driver (g->evolve, &g->driver);

  g->multistep = options->kind == CML_INTEGRATOR_MSADAMS || options->kind == CML_INTEGRATOR_MSBDF;
  /* the estimate needs the exact Jacobian: without one, none is made */
  if (!g->multistep && options->stats != NULL && integ->ode.jacobian != NULL)
    cml_integrator_stiffness_init (&g->stiff, dim);

  return g;
}

static void
adaptive_state_free (gpointer state)
{
  Gsl *g = state;

  if (g->evolve != NULL)
    gsl_odeiv2_evolve_free (g->evolve);
  if (g->control != NULL)
    gsl_odeiv2_control_free (g->control);
  if (g->step != NULL)
    gsl_odeiv2_step_free (g->step);
  g_free (g->rk.work);
  cml_integrator_stiffness_clear (&g->stiff);
  g_free (g);
}

/* reset (): no step size chosen, no multistep history. */
static void
adaptive_reset (CmlIntegrator *integ)
{
  Gsl *g = integ->state;

  gsl_odeiv2_evolve_reset (g->evolve);
  gsl_odeiv2_step_reset (g->step);
  g->h = 0.0;
}

static void
adaptive_get_stats (const CmlIntegrator *integ,
                    CmlIntegratorStats  *stats)
{
  const Gsl *g = integ->state;

  cml_integrator_get_common_stats (integ, stats);
  stats->h = g->h;
  stats->h_rho = g->stiff.h_rho;
  stats->n_stiff_checks = g->stiff.n_stiff_checks;
  stats->n_stiff = g->stiff.n_stiff;
}

static guint64
adaptive_n_func_steps (const CmlIntegrator *integ)
{
  const Gsl *g = integ->state;

  return g->rk_func_steps;
}

void
cml_integrator_set_rk8pd_step (CmlIntegrator *integ,
                               int          (*func) (CmlRk8pdStep *step, void *data),
                               void          *data)
{
  g_return_if_fail (integ != NULL && integ->options.kind == CML_INTEGRATOR_RK8PD);
  g_return_if_fail (integ->method == &cml_integrator_gsl_method);

  Gsl *g = integ->state;
  g->rk_func = func;
  g->rk_data = data;
  g->rk.rtol = integ->options.rtol;
  g->rk.atol = integ->options.atol;
  if (g->rk.work == NULL)
    g->rk.work = g_new0 (double, 15 * (gsize) integ->ode.dim);
}

/* The step state: the suggested next step (signed; 0 = none yet), then dim entries that
 * are the fixed-step methods' compensation and zero here (one layout for both families).
 * The multistep methods' Nordsieck history is not in it: exact only when they project,
 * which restarts that history at the end of every advance () anyway. */
static guint
adaptive_step_state_size (const CmlIntegrator *integ)
{
  return 1 + integ->ode.dim;
}

static gboolean
adaptive_step_state_is_exact (const CmlIntegrator *integ)
{
  const Gsl *g = integ->state;

  return !g->multistep || (integ->options.project && integ->ode.project != NULL);
}

static void
adaptive_save_step_state (const CmlIntegrator *integ,
                          const double        *z,
                          double              *out)
{
  const Gsl *g = integ->state;

  out[0] = g->h;
  memset (out + 1, 0, integ->ode.dim * sizeof (double));
}

static void
adaptive_restore_step_state (CmlIntegrator *integ,
                             const double  *z,
                             const double  *in)
{
  Gsl *g = integ->state;

  g->h = in[0];
}

const CmlIntegratorMethod cml_integrator_gsl_method = {
  .name = "gsl",
  .state_new = adaptive_state_new,
  .state_free = adaptive_state_free,
  .advance = adaptive_advance,
  .reset = adaptive_reset,
  .get_stats = adaptive_get_stats,
  .n_func_steps = adaptive_n_func_steps,
  .step_state_size = adaptive_step_state_size,
  .step_state_is_exact = adaptive_step_state_is_exact,
  .save_step_state = adaptive_save_step_state,
  .restore_step_state = adaptive_restore_step_state,
};
