/* cml-integrator-gsl.c — the adaptive methods of GSL's odeiv2 (rk8pd, rkf45, rkck, rk4,
 * msadams, msbdf) behind cml_integrator_advance (): the right-hand side and Jacobian
 * callbacks, the steps bounded by the output time, rk8pd's native steps.
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

#include "cml-dop853.h"
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

/* GSL callbacks: count right-hand-side evaluations and turn a user failure into
 * GSL_EBADFUNC, which makes gsl_odeiv2_evolve_apply () return at once. */
int
cml_integrator_gsl_rhs (double       t,
         const double y[],
         double       dydt[],
         void        *data)
{
  CmlIntegrator *integ = data;

  integ->n_rhs++;
  if (integ->ode.rhs (t, y, dydt, integ->ode.user_data) != 0)
    {
      integ->callback_status = CALLBACK_RHS_FAILED;
      return GSL_EBADFUNC;
    }

  return GSL_SUCCESS;
}

int
cml_integrator_gsl_jacobian (double       t,
              const double y[],
              double      *dfdy,
              double       dfdt[],
              void        *data)
{
  CmlIntegrator *integ = data;

  /* GSL's dfdy is row-major dim×dim, the layout CmlOdeJacFunc promises. */
  if (integ->ode.jacobian (t, y, dfdy, dfdt, integ->ode.user_data) != 0)
    {
      integ->callback_status = CALLBACK_JACOBIAN_FAILED;
      return GSL_EBADFUNC;
    }

  return GSL_SUCCESS;
}

const gsl_odeiv2_step_type *
cml_integrator_gsl_step_type (CmlIntegratorKind kind)
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
    default:
      return NULL;
    }
}

/* One step of gsl_odeiv2_evolve_apply () taken by the step function (rk8pd in native code),
 * in the evolution's own arrays and with its counters as GSL keeps them: TRUE when it took
 * it, FALSE when it leaves it to GSL (Z as it was). */
static gboolean
func_step (CmlIntegrator *integ, double *t, double t1, double *z)
{
  CmlRk8pdStep *rk = &integ->rk;
  gsl_odeiv2_evolve *e = integ->evolve;

  rk->t = *t;
  rk->t1 = t1;
  rk->h = integ->h;
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
  int rc = integ->rk_func (rk, integ->rk_data);
  integ->n_rhs += rk->n_rhs;
  if (rc != 0)
    return FALSE;
  *t = rk->t;
  integ->h = rk->h;
  e->count += rk->tries;
  e->failed_steps += rk->tries - 1;
  e->last_step = rk->last;
  integ->rk_func_steps++;
  return TRUE;
}

gboolean
cml_integrator_advance_gsl (CmlIntegrator *integ,
             double        *t,
             double         t1,
             double        *z,
             GError       **error)
{
  const CmlIntegratorOptions *o = &integ->options;
  const guint dim = integ->ode.dim;
  const gboolean project_each_step = !integ->multistep;
  const double t_start = *t;
  const int dir = t1 > *t ? 1 : -1;
  guint64 n = 0;

  /* First step: h_init, or a small fraction of the output interval; its sign is the
   * direction of time.  A change of direction keeps the size of the step. */
  if (integ->h == 0.0)
    integ->h = o->h_init > 0.0 ? o->h_init : MIN (1e-3, fabs (t1 - *t) / 10.0);
  else if ((integ->h > 0.0) != (dir > 0) && integ->multistep)
    {
      /* a multistep history of the other direction is of no use */
      gsl_odeiv2_step_reset (integ->step);
      gsl_odeiv2_evolve_reset (integ->evolve);
    }
  integ->h = dir * fabs (integ->h);

  while (cml_integrator_before (*t, t1, dir))
    {
      const double t_good = *t;
      const double h_before = integ->h;
      double t_new = *t;
      int status;

      if (o->max_steps > 0 && n >= o->max_steps)
        {
          cml_integrator_set_budget_error (integ, n, t_start, *t, t1, integ->h, error);
          return FALSE;
        }

      /* One accepted step, at most up to T1 (GSL then lands on T1 exactly); the steps it
       * tried and rejected on the way are counted. */
      memcpy (integ->z_good, z, dim * sizeof (double));
      integ->callback_status = CALLBACK_OK;
      const unsigned long failed_before = integ->evolve->failed_steps;
      gboolean projected = FALSE; /* by the native step itself (cml-native-step.h) */
      if (integ->rk_func == NULL || !func_step (integ, &t_new, t1, z))
        status = gsl_odeiv2_evolve_apply (integ->evolve, integ->control, integ->step,
                                          &integ->sys, &t_new, t1, &integ->h, z);
      else
        {
          status = GSL_SUCCESS;
          projected = integ->rk.projected;
        }
      if (integ->evolve->failed_steps > failed_before)
        integ->n_rejected += integ->evolve->failed_steps - failed_before;

      if (status != GSL_SUCCESS)
        {
          /* GSL may have left a half-done step in Z: go back, and drop the multistep
           * history, which now disagrees with Z. */
          cml_integrator_restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (integ->step);
          gsl_odeiv2_evolve_reset (integ->evolve);
          integ->h = h_before;

          if (status == GSL_EBADFUNC && integ->callback_status == CALLBACK_RHS_FAILED)
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "right-hand side failed at t = %.6g", t_good);
          else if (status == GSL_EBADFUNC && integ->callback_status == CALLBACK_JACOBIAN_FAILED)
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
          gsl_odeiv2_step_reset (integ->step);
          gsl_odeiv2_evolve_reset (integ->evolve);
          integ->h = h_before;
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "non-finite state at t = %.6g", t_good);
          return FALSE;
        }

      /* The step taken, and the one suggested next, must not fall below h_min (a last
       * step shortened to land on T1 may). */
      if (cml_integrator_before (t_new, t1, dir)
          && (fabs (integ->evolve->last_step) < o->h_min || fabs (integ->h) < o->h_min))
        {
          const double h_small = MIN (fabs (integ->evolve->last_step), fabs (integ->h));

          cml_integrator_restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (integ->step);
          gsl_odeiv2_evolve_reset (integ->evolve);
          integ->h = h_before;
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "step size underflow at t = %.6g (step %.3g < h_min %.3g)", t_good,
                       h_small, o->h_min);
          return FALSE;
        }

      /* A last step shortened to land on T1 must not shrink the steps that follow:
       * keep the step size suggested before it. */
      if (t_new == t1 && integ->evolve->last_step == t1 - t_good
          && fabs (h_before) > fabs (integ->h))
        integ->h = h_before;

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
      if (integ->sv != NULL && integ->n_steps % CML_INTEGRATOR_STIFF_EVERY == 0)
        cml_integrator_estimate_stiffness (integ, *t, z, integ->evolve->last_step);
    }

  /* Multistep methods: project once at the end, then restart their history from the
   * projected state (keeping the step size). */
  if (integ->multistep && integ->options.project && integ->ode.project != NULL)
    {
      memcpy (integ->z_good, z, dim * sizeof (double));
      if (!cml_integrator_project_state (integ, *t, z, error))
        {
          memcpy (z, integ->z_good, dim * sizeof (double));
          return FALSE;
        }
      gsl_odeiv2_step_reset (integ->step);
      gsl_odeiv2_evolve_reset (integ->evolve);
    }

  return TRUE;
}
