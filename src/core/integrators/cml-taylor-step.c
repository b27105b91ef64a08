/* cml-taylor-step.c — the steps of the Taylor method: order and step size from the
 * tolerances, dense output from the Taylor polynomial, projection, both directions; its
 * method table cml_integrator_taylor_method.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Order and step (Jorba & Zou, "A software package for the numerical integration of ODEs
 * by means of high-order Taylor methods", Experimental Mathematics 14 (2005); doc/theory.md,
 * "The Taylor integrator"): with ε the smaller tolerance, the order is p = ⌈−½ ln ε + 1⌉
 * (cml_taylor_order_for_tolerance); the step, chosen from the coefficients of its start so
 * that the first neglected terms of every component are about atol + rtol |z_i|, whatever
 * the size of the other components, is cml-taylor-core.h's — the same text as the native
 * code's step, so that both take the same steps.  No step is rejected.  A step is never
 * shortened to land on an output time: the output at t1 inside a step is its Taylor
 * polynomial at t1 − t_a (Horner), projected like the states the steps end at; the next
 * call goes on from the end of the step (t_b, z_b).  When the caller gives back a state
 * other than the one last returned, or the direction of time changes, the steps start
 * again from that state.
 */
#define G_LOG_DOMAIN "cml-taylor"

#include "cml-taylor-private.h"
#include "cml-integrator-private.h"
#include "cml-error.h"

#include <math.h>
#include <string.h>

#include "cml-project-core.h" /* CmlProjectFused */

/* The library's step: the core around the program's jet (native code or the interpreter);
 * a program with native code has the same step compiled around it (tp->native_step). */
#define TK_STEP_FN taylor_step_library
#define TK_JET(S, C) cml_taylor_run (tp)
#define TK_EXTRA_PARAMS , CmlTaylor *tp
#include "cml-taylor-core.h"

static gboolean
finite_all (const double *v, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return FALSE;
  return TRUE;
}

static gboolean
project (const CmlOde *ode, const CmlIntegratorOptions *o, double t, double *z, GError **error)
{
  if (!o->project || ode->project == NULL)
    return TRUE;
  if (ode->project (t, z, ode->user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "projection failed at t = %.6g", t);
      return FALSE;
    }
  if (!finite_all (z, ode->dim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.6g (after projection)", t);
      return FALSE;
    }
  return TRUE;
}

/* FALSE with the error when a coefficient in X is not finite. */
static gboolean
coefficients_finite (const CmlTaylor *tp, GError **error)
{
  if (finite_all (tp->X, (gsize) tp->dim * tp->N))
    return TRUE;
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               "non-finite Taylor coefficients at t = %.17g: the right-hand side or one of its "
               "derivatives is not finite there (a division by zero, a root or logarithm of a "
               "non-positive number, |x| at x = 0)", tp->t_a);
  return FALSE;
}

/* The coefficients at (t_a, z_a) into X, and the end of the step of size H (signed; 0:
 * chosen from them in direction DIR).  The coefficients are looked at only when something
 * fails: one that is not finite makes the end of the step not finite (Horner's sums with
 * τ ≠ 0 carry an infinity or a NaN through) or, through the step size, the step zero. */
static gboolean
take_step (CmlTaylor *tp, const CmlOde *ode, const CmlIntegratorOptions *o, double h, int dir,
           double t_limit, GError **error)
{
  CmlTaylorStep s = {
    .t = tp->t_a, .h = h, .dir = dir, .rtol = o->rtol, .atol = o->atol, .factor = tp->step_factor,
    .h_min = o->h_min, .fallback = MAX (fabs (t_limit - tp->t_a), 1.0), .z = tp->z_a, .zb = tp->z_b,
  };
  gboolean projected = FALSE; /* the end projected by the native step itself */
  int r;

  if (tp->native_step_projected && tp->pj && o->project && ode->project)
    {
      r = tp->native_step_projected (tp->S, tp->C, &s, tp->pj);
      projected = r == 0 && tp->pj->done != 0;
      tp->n_native_steps++;
    }
  else if (tp->native_step)
    {
      r = tp->native_step (tp->S, tp->C, &s);
      tp->n_native_steps++;
    }
  else
    r = taylor_step_library (tp->S, tp->C, &s, (int) tp->dim, (int) tp->N, tp);
  if (r == 1)
    {
      if (!coefficients_finite (tp, error))
        return FALSE;
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "step size underflow at t = %.17g (step %.3g < h_min %.3g)", tp->t_a, s.h, o->h_min);
      return FALSE;
    }
  tp->h = s.h;
  tp->t_b = tp->t_a + s.h;
  if (r == 2)
    {
      if (!coefficients_finite (tp, error))
        return FALSE;
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.17g", tp->t_a);
      return FALSE;
    }
  if (!projected && !project (ode, o, tp->t_b, tp->z_b, error))
    return FALSE;
  tp->have_step = TRUE;
  return TRUE;
}

static inline gboolean
within (double t, double a, double b)
{
  return a <= b ? t >= a && t <= b : t <= a && t >= b;
}

gboolean
cml_taylor_advance (CmlTaylor *tp, const CmlOde *ode, const CmlIntegratorOptions *o, double *t,
                    double t1, double *z, guint64 *n_steps, guint64 *n_jets, GError **error)
{
  const guint dim = tp->dim;
  const int dir = t1 > *t ? 1 : -1;
  const double t_start = *t;
  guint64 n = 0;

  /* go on from the step under way only from the output it last gave, in its direction */
  if (!tp->have_step || !tp->have_out || tp->t_out != *t || memcmp (tp->z_out, z, dim * sizeof (double)) != 0
      || (tp->h > 0) != (dir > 0))
    {
      tp->have_step = FALSE;
      tp->t_b = *t;
      memcpy (tp->z_b, z, dim * sizeof (double));
    }

  while (!tp->have_step || !within (t1, tp->t_a, tp->t_b))
    {
      if (o->max_steps > 0 && n >= o->max_steps)
        {
          /* begins as cml_integrator_error_is_budget () expects */
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the integrator took %" G_GUINT64_FORMAT " steps between t = %.6g and t = %.6g without "
                       "reaching t = %.6g: its steps (%.3g now) are far too short for the span; a shorter "
                       "span, or for a stiff system an implicit method (msbdf), may reach it",
                       n, t_start, tp->t_b, t1, tp->h);
          goto fail;
        }
      tp->t_a = tp->t_b;
      memcpy (tp->z_a, tp->z_b, dim * sizeof (double));
      (*n_jets)++;
      if (!take_step (tp, ode, o, 0, dir, t1, error))
        {
          /* back to the start of the failed step, the last good state */
          tp->have_step = FALSE;
          tp->t_b = tp->t_a;
          memcpy (tp->z_b, tp->z_a, dim * sizeof (double));
          goto fail;
        }
      n++;
      (*n_steps)++;
    }

  if (t1 == tp->t_b)
    memcpy (z, tp->z_b, dim * sizeof (double));
  else if (t1 == tp->t_a)
    memcpy (z, tp->z_a, dim * sizeof (double));
  else
    {
      cml_tk_horner (tp->X, (int) dim, (int) tp->N, t1 - tp->t_a, z);
      if (!finite_all (z, dim))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.17g", t1);
          goto fail;
        }
      if (!project (ode, o, t1, z, error))
        goto fail;
    }
  *t = t1;
  tp->have_out = TRUE;
  tp->t_out = t1;
  memcpy (tp->z_out, z, dim * sizeof (double));
  return TRUE;

fail:
  *t = tp->t_b;
  memcpy (z, tp->z_b, dim * sizeof (double));
  tp->have_out = TRUE;
  tp->t_out = *t;
  memcpy (tp->z_out, z, dim * sizeof (double));
  return FALSE;
}

void
cml_taylor_reset (CmlTaylor *tp)
{
  cml_taylor_prepare (tp);
  tp->have_step = FALSE;
  tp->have_out = FALSE;
  tp->h = 0;
}

double
cml_taylor_last_step (const CmlTaylor *tp)
{
  return tp->have_step ? tp->h : 0.0;
}

/* [valid, t_out, t_a, h, z_a …] */
guint
cml_taylor_step_state_size (const CmlTaylor *tp)
{
  return 4 + tp->dim;
}

void
cml_taylor_save_step_state (const CmlTaylor *tp, const double *z, double *out)
{
  gboolean valid = tp->have_step && tp->have_out && memcmp (z, tp->z_out, tp->dim * sizeof (double)) == 0;

  memset (out, 0, cml_taylor_step_state_size (tp) * sizeof (double));
  if (!valid)
    return;
  out[0] = 1;
  out[1] = tp->t_out;
  out[2] = tp->t_a;
  out[3] = tp->h;
  memcpy (out + 4, tp->z_a, tp->dim * sizeof (double));
}

void
cml_taylor_restore_step_state (CmlTaylor *tp, const CmlOde *ode, const CmlIntegratorOptions *o,
                               const double *z, const double *in)
{
  cml_taylor_reset (tp);
  if (in[0] != 1)
    return;
  tp->t_a = in[2];
  memcpy (tp->z_a, in + 4, tp->dim * sizeof (double));
  if (!take_step (tp, ode, o, in[3], in[3] > 0 ? 1 : -1, tp->t_a, NULL))
    {
      tp->have_step = FALSE;
      return;
    }
  tp->have_out = TRUE;
  tp->t_out = in[1];
  memcpy (tp->z_out, z, tp->dim * sizeof (double));
}

/* ---- the method table (cml-integrator-private.h) ------------------------------------ */

/* The integrator's state: the program, which it owns, and the program's native steps
 * before the integrator was made (a program passed on from an integrator of the same
 * order). */
typedef struct
{
  CmlTaylor *tp;
  guint64    steps0;
} TaylorState;

/* state_new (): PROGRAM is the Taylor program (cml_integrator_new_taylor). */
static gpointer
taylor_state_new (CmlIntegrator *integ,
                  gpointer       program,
                  GError       **error)
{
  TaylorState *ts = g_new0 (TaylorState, 1);

  ts->tp = program;
  ts->steps0 = cml_taylor_n_native_steps (ts->tp);
  cml_taylor_reset (ts->tp);
  return ts;
}

static void
taylor_state_free (gpointer state)
{
  TaylorState *ts = state;

  g_clear_pointer (&ts->tp, cml_taylor_free);
  g_free (ts);
}

static gboolean
taylor_advance (CmlIntegrator *integ,
                double        *t,
                double         t1,
                double        *z,
                GError       **error)
{
  TaylorState *ts = integ->state;

  return cml_taylor_advance (ts->tp, &integ->ode, &integ->options, t, t1, z, &integ->n_steps,
                             &integ->n_rhs, error);
}

static void
taylor_reset (CmlIntegrator *integ)
{
  TaylorState *ts = integ->state;

  if (ts->tp != NULL)
    cml_taylor_reset (ts->tp);
}

/* get_stats (): the step is the last one taken. */
static void
taylor_get_stats (const CmlIntegrator *integ,
                  CmlIntegratorStats  *stats)
{
  const TaylorState *ts = integ->state;

  cml_integrator_get_common_stats (integ, stats);
  stats->h = ts->tp != NULL ? cml_taylor_last_step (ts->tp) : 0.0;
}

static guint64
taylor_n_func_steps (const CmlIntegrator *integ)
{
  const TaylorState *ts = integ->state;

  return ts->tp != NULL ? cml_taylor_n_native_steps (ts->tp) - ts->steps0 : 0;
}

static guint
taylor_step_state_size (const CmlIntegrator *integ)
{
  const TaylorState *ts = integ->state;

  return cml_taylor_step_state_size (ts->tp);
}

static void
taylor_save_step_state (const CmlIntegrator *integ,
                        const double        *z,
                        double              *out)
{
  const TaylorState *ts = integ->state;

  cml_taylor_save_step_state (ts->tp, z, out);
}

static void
taylor_restore_step_state (CmlIntegrator *integ,
                           const double  *z,
                           const double  *in)
{
  TaylorState *ts = integ->state;

  cml_taylor_restore_step_state (ts->tp, &integ->ode, &integ->options, z, in);
}

const CmlIntegratorMethod cml_integrator_taylor_method = {
  .name = "taylor",
  .state_new = taylor_state_new,
  .state_free = taylor_state_free,
  .advance = taylor_advance,
  .reset = taylor_reset,
  .get_stats = taylor_get_stats,
  .n_func_steps = taylor_n_func_steps,
  .step_state_size = taylor_step_state_size,
  .step_state_is_exact = cml_integrator_step_state_exact,
  .save_step_state = taylor_save_step_state,
  .restore_step_state = taylor_restore_step_state,
};

gpointer
cml_integrator_get_taylor (CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, NULL);

  if (integ->method != &cml_integrator_taylor_method)
    return NULL;
  return ((TaylorState *) integ->state)->tp;
}

gpointer
cml_integrator_steal_taylor (CmlIntegrator *integ)
{
  g_return_val_if_fail (integ != NULL, NULL);

  if (integ->method != &cml_integrator_taylor_method)
    return NULL;
  return g_steal_pointer (&((TaylorState *) integ->state)->tp);
}
