/* cml-dop853.c — the DOP853 integrator: free steps, output from the dense output; its
 * method table cml_integrator_dop853_method.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The steps are cml-dop853-core.h's (Dormand–Prince 8(5,3), error control by the 5th- and
 * 3rd-order estimates, the PI step-size controller, the stiffness estimate of Hairer's
 * code).  Unlike the GSL steppers of cml-integrator.c, no step is shortened to land on an
 * output time: the integrator keeps its own state (t_int, z_int) at the end of its last
 * accepted step, at or past the output time, and returns
 *
 *   z(t1) = the 7th-order dense output of the step that contains t1
 *
 * (projected onto the constraint set when the system has one; the integrator's own state is
 * not touched by that).  The next advance () continues from (t_int, z_int) as long as the
 * caller hands back the (t, z) it was given; a caller that changed them (or the direction of
 * time) restarts the integration from them, keeping the step size.  After every accepted
 * step the state is checked to be finite and, when asked, projected (constraints, unit
 * quaternions); a projection that moves it makes the next step evaluate f there afresh
 * instead of reusing the last stage (first same as last).
 *
 * Stiffness (Hairer, Nørsett, Wanner, Solving ODEs I, §II.10, and Hairer & Wanner, Solving
 * ODEs II, §IV.2): every CML_INTEGRATOR_STIFF_EVERY accepted steps, and at every step while
 * the last estimates were large, h λ ≈ |h| |k13 - k12| / |y1 - y12| (two evaluations of f at
 * the same time t + h, at the solution and at stage 12's argument); above 6.1 the step is
 * held by the method's stability region rather than accuracy.
 *
 * The step may be a system's native code (cml_dop853_set_step_func): the same text compiled
 * with the right-hand side inlined, giving the same numbers.  Everything is allocated by
 * cml_dop853_new (); advancing allocates nothing.
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-dop853.h"
#include "cml-integrator-private.h"

#include "cml-error.h"

#include <math.h>
#include <string.h>

/* The generic step: the right-hand side through the CmlOde callback. */
#define DOP_STEP_FN      dop853_step_callback
#define DOP_N            (s->dim)
#define DOP_EXTRA_PARAMS , const CmlOde *ode
#define DOP_RHS(T, Z, DZ) (ode->rhs ((T), (Z), (DZ), ode->user_data) != 0)
#include "cml-dop853-core.h"
#undef DOP_STEP_FN
#undef DOP_N
#undef DOP_EXTRA_PARAMS
#undef DOP_RHS

/* Hairer's bound on h λ for DOP853's stability region, and how many large estimates in a
 * row make the check run every step until six small ones. */
#define STIFF_HLAMB 6.1
#define STIFF_CLEAR 6

/* The saved step state: header, then z_int, k1, the dense output. */
enum
{
  SS_H, SS_FACOLD, SS_REJECT, SS_RUNNING, SS_DENSE, SS_T_INT, SS_T_OLD, SS_H_DONE, SS_IASTI,
  SS_NONSTI, SS_K1_VALID, SS_T_RET, SS_HEADER
};

struct _CmlDop853
{
  CmlOde               ode;
  CmlIntegratorOptions options;
  CmlDop853Step        st;      /* the integrator's own state (st.t, st.z) and work arrays */
  double              *mem;
  double              *scratch; /* dim */

  CmlDop853StepFunc    func;
  void                *func_data;
  guint64              n_func_steps;

  gboolean running;     /* st continues the (t_ret, z_ret) the last advance () returned */
  double   t_ret;
  double  *z_ret;
  double   t_old;       /* the start of the last step: its dense output covers [t_old, st.t] */

  guint64  n_steps;
  guint64  n_stiff_checks, n_stiff;
  double   h_rho;
  int      iasti, nonsti;
};

int
cml_dop853_step_generic (CmlDop853Step *step, const CmlOde *ode)
{
  return dop853_step_callback (step, ode);
}

static void
step_init (CmlDop853Step *st, guint dim, double rtol, double atol, double h_min, double *mem)
{
  memset (st, 0, sizeof *st);
  st->dim = (int) dim;
  st->rtol = rtol;
  st->atol = atol;
  st->h_min = h_min;
  st->beta = 0.0;                   /* Hairer's default for DOP853 */
  st->expo = 1.0 / 8.0 - st->beta * 0.2;
  st->facold = 1e-4;
  st->z = mem;
  st->k = mem + dim;
  st->y0 = st->k + 16 * dim;
  st->ys = st->y0 + dim;
  st->y12 = st->ys + dim;
  st->cont = st->y12 + dim;
}

#define STEP_DOUBLES(dim) ((gsize) (dim) * (1 + 16 + 3 + 8))

static CmlDop853 *
cml_dop853_new (const CmlOde               *ode,
                const CmlIntegratorOptions *options)
{
  CmlDop853 *dop = g_new0 (CmlDop853, 1);
  const guint dim = ode->dim;

  dop->ode = *ode;
  dop->options = *options;
  dop->mem = g_new0 (double, STEP_DOUBLES (dim) + 2 * dim);
  dop->scratch = dop->mem + STEP_DOUBLES (dim);
  dop->z_ret = dop->scratch + dim;
  step_init (&dop->st, dim, options->rtol, options->atol, options->h_min, dop->mem);
  return dop;
}

static void
cml_dop853_free (CmlDop853 *dop)
{
  if (dop == NULL)
    return;
  g_free (dop->mem);
  g_free (dop);
}

static void
cml_dop853_set_step_func (CmlDop853 *dop, CmlDop853StepFunc func, void *data)
{
  dop->func = func;
  dop->func_data = data;
}

static guint64
cml_dop853_n_func_steps (const CmlDop853 *dop)
{
  return dop->n_func_steps;
}

static void
cml_dop853_reset (CmlDop853 *dop)
{
  dop->running = FALSE;
  dop->st.h = 0.0;
  dop->st.k1_valid = 0;
  dop->st.dense = 0;
  dop->st.reject = 0;
  dop->st.facold = 1e-4;
  dop->iasti = dop->nonsti = 0;
}

static void
cml_dop853_get_stats (const CmlDop853 *dop, CmlIntegratorStats *stats)
{
  stats->n_steps = dop->n_steps;
  stats->n_rejected = (guint64) dop->st.n_rejected;
  stats->n_rhs = (guint64) dop->st.n_rhs;
  stats->h = dop->st.h;
  stats->h_rho = dop->h_rho;
  stats->n_stiff_checks = dop->n_stiff_checks;
  stats->n_stiff = dop->n_stiff;
}

/* The dense output of the last step at T (within [t_old, st.t]) into OUT. */
static void
dense_eval (const CmlDop853Step *st, double t_old, double t, double *out)
{
  const guint n = (guint) st->dim;
  const double *c0 = st->cont, *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
  const double *c4 = c3 + n, *c5 = c4 + n, *c6 = c5 + n, *c7 = c6 + n;
  const double s = (t - t_old) / st->h_done, s1 = 1.0 - s;

  for (guint i = 0; i < n; i++)
    {
      double conpar = c4[i] + s * (c5[i] + s1 * (c6[i] + s * c7[i]));
      out[i] = c0[i] + s * (c1[i] + s1 * (c2[i] + s * (c3[i] + s1 * conpar)));
    }
}

static gboolean
all_finite (const double *z, guint dim)
{
  for (guint i = 0; i < dim; i++)
    if (!isfinite (z[i]))
      return FALSE;
  return TRUE;
}

static inline gboolean
before (double t, double t1, int dir)
{
  return dir > 0 ? t < t1 : t > t1;
}

/* Hands the integrator's last accepted state to the caller after a failure. */
static void
give_last_good (CmlDop853 *dop, double *t, double *z)
{
  const guint dim = dop->ode.dim;

  *t = dop->st.t;
  memcpy (z, dop->st.z, dim * sizeof (double));
  dop->t_ret = *t;
  memcpy (dop->z_ret, z, dim * sizeof (double));
}

/* Projects Z at T when asked to: FALSE with an error when that fails. */
static gboolean
project (CmlDop853 *dop, double t, double *z, GError **error)
{
  if (!dop->options.project || dop->ode.project == NULL)
    return TRUE;
  if (dop->ode.project (t, z, dop->ode.user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "projection failed at t = %.6g", t);
      return FALSE;
    }
  if (!all_finite (z, dop->ode.dim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "non-finite state at t = %.6g (after projection)", t);
      return FALSE;
    }
  return TRUE;
}

static gboolean
cml_dop853_advance (CmlDop853     *dop,
                    double        *t,
                    double         t1,
                    double        *z,
                    GError       **error)
{
  CmlDop853Step *st = &dop->st;
  const CmlIntegratorOptions *o = &dop->options;
  const guint dim = dop->ode.dim;
  const int dir = t1 > *t ? 1 : -1;
  const double t_start = *t;
  guint64 n = 0;

  /* Continue the integrator's own state only for the caller's unchanged (t, z). */
  if (!dop->running || *t != dop->t_ret || memcmp (z, dop->z_ret, dim * sizeof (double)) != 0
      || (st->h != 0.0 && (st->h > 0.0) != (dir > 0)))
    {
      st->t = *t;
      memcpy (st->z, z, dim * sizeof (double));
      st->k1_valid = 0;
      st->dense = 0;
      st->reject = 0;
      dop->t_old = *t;
      dop->running = TRUE;
    }
  if (st->h == 0.0)
    st->h = o->h_init > 0.0 ? o->h_init : MIN (1e-3, fabs (t1 - *t) / 10.0);
  st->h = dir * fabs (st->h);
  st->t1 = t1;

  for (;;)
    {
      const double t_prev = st->t;
      gboolean by_func = FALSE;
      int r = -1;

      /* the output time within the last step, or at its end */
      if (!before (st->t, t1, dir))
        {
          if (st->t == t1)
            memcpy (z, st->z, dim * sizeof (double));
          else
            {
              g_assert (st->dense);
              dense_eval (st, dop->t_old, t1, z);
              if (!project (dop, t1, z, error))
                {
                  give_last_good (dop, t, z);
                  return FALSE;
                }
            }
          *t = t1;
          dop->t_ret = t1;
          memcpy (dop->z_ret, z, dim * sizeof (double));
          return TRUE;
        }

      if (o->max_steps > 0 && n >= o->max_steps)
        {
          give_last_good (dop, t, z);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the integrator took %" G_GUINT64_FORMAT " steps between t = %.6g and t = %.6g without "
                       "reaching t = %.6g: its steps (%.3g now) are far too short for the span; a shorter "
                       "span, or for a stiff system an implicit method (msbdf), may reach it",
                       n, t_start, st->t, t1, st->h);
          return FALSE;
        }

      st->stiff_check = (dop->n_steps + 1) % CML_INTEGRATOR_STIFF_EVERY == 0 || dop->iasti > 0;
      st->projected = 0;
      if (dop->func != NULL)
        {
          r = dop->func (st, dop->func_data);
          by_func = r >= 0 && r != 3;
          if (by_func)
            dop->n_func_steps++;
        }
      /* the generic step where FUNC cannot take it (or go on with it: 3) */
      if (r < 0 || r == 3)
        r = dop853_step_callback (st, &dop->ode);

      if (r == 1)
        {
          /* native code says only that it failed: the callback says why */
          if (by_func)
            (void) dop->ode.rhs (st->t_fail, st->ys, dop->scratch, dop->ode.user_data);
          give_last_good (dop, t, z);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "right-hand side failed at t = %.6g", st->t);
          return FALSE;
        }
      if (r == 2)
        {
          const double h_small = fabs (st->h);

          give_last_good (dop, t, z);
          if (h_small < o->h_min)
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "step size underflow at t = %.6g (step %.3g < h_min %.3g)", st->t, h_small, o->h_min);
          else
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                         "step size underflow at t = %.6g (step %.3g lost in rounding)", st->t, h_small);
          return FALSE;
        }

      n++;
      dop->n_steps++;
      dop->t_old = t_prev;

      if (!all_finite (st->z, dim))
        {
          memcpy (st->z, st->y0, dim * sizeof (double));
          st->t = t_prev;
          st->k1_valid = 0;
          st->dense = 0;
          give_last_good (dop, t, z);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.6g", t_prev);
          return FALSE;
        }

      if (st->stiff_check)
        {
          dop->h_rho = st->hlamb;
          dop->n_stiff_checks++;
          if (st->hlamb > STIFF_HLAMB)
            {
              dop->n_stiff++;
              dop->nonsti = 0;
              dop->iasti++;
            }
          else if (++dop->nonsti == STIFF_CLEAR)
            dop->iasti = 0;
        }

      /* back onto the constraint set; a moved state needs its own f (a native step may have
       * projected its end itself, the same projection: cml-native-step.h) */
      if (o->project && dop->ode.project != NULL)
        {
          gboolean moved = st->projected == 2;
          if (!st->projected)
            {
              memcpy (dop->scratch, st->z, dim * sizeof (double));
              if (!project (dop, st->t, st->z, error))
                {
                  memcpy (st->z, st->y0, dim * sizeof (double));
                  st->t = t_prev;
                  st->k1_valid = 0;
                  st->dense = 0;
                  give_last_good (dop, t, z);
                  return FALSE;
                }
              moved = memcmp (dop->scratch, st->z, dim * sizeof (double)) != 0;
            }
          if (moved)
            st->k1_valid = 0;
        }
    }
}

static guint
cml_dop853_step_state_size (const CmlDop853 *dop)
{
  return SS_HEADER + 10 * dop->ode.dim;
}

static void
cml_dop853_save_step_state (const CmlDop853 *dop, const double *z, double *out)
{
  const double t = dop->t_ret;
  const CmlDop853Step *st = &dop->st;
  const guint dim = dop->ode.dim;
  /* the integrator's own state belongs to the (t, z) it last returned */
  const gboolean running = dop->running && t == dop->t_ret
                           && memcmp (z, dop->z_ret, dim * sizeof (double)) == 0;

  memset (out, 0, cml_dop853_step_state_size (dop) * sizeof (double));
  out[SS_H] = st->h;
  out[SS_FACOLD] = st->facold;
  out[SS_REJECT] = st->reject;
  out[SS_RUNNING] = running;
  out[SS_IASTI] = dop->iasti;
  out[SS_NONSTI] = dop->nonsti;
  if (!running)
    return;
  out[SS_DENSE] = st->dense;
  out[SS_T_INT] = st->t;
  out[SS_T_OLD] = dop->t_old;
  out[SS_H_DONE] = st->h_done;
  out[SS_K1_VALID] = st->k1_valid;
  out[SS_T_RET] = dop->t_ret;
  memcpy (out + SS_HEADER, st->z, dim * sizeof (double));
  memcpy (out + SS_HEADER + dim, st->k, dim * sizeof (double));
  memcpy (out + SS_HEADER + 2 * dim, st->cont, 8 * dim * sizeof (double));
}

static void
cml_dop853_restore_step_state (CmlDop853 *dop, const double *z, const double *in)
{
  const double t = in[SS_T_RET];
  CmlDop853Step *st = &dop->st;
  const guint dim = dop->ode.dim;

  cml_dop853_reset (dop);
  st->h = in[SS_H];
  st->facold = in[SS_FACOLD];
  st->reject = (int) in[SS_REJECT];
  dop->iasti = (int) in[SS_IASTI];
  dop->nonsti = (int) in[SS_NONSTI];
  if (in[SS_RUNNING] == 0.0)
    return;
  dop->running = TRUE;
  st->dense = (int) in[SS_DENSE];
  st->t = in[SS_T_INT];
  dop->t_old = in[SS_T_OLD];
  st->h_done = in[SS_H_DONE];
  st->k1_valid = (int) in[SS_K1_VALID];
  dop->t_ret = t;
  memcpy (dop->z_ret, z, dim * sizeof (double));
  memcpy (st->z, in + SS_HEADER, dim * sizeof (double));
  memcpy (st->k, in + SS_HEADER + dim, dim * sizeof (double));
  memcpy (st->cont, in + SS_HEADER + 2 * dim, 8 * dim * sizeof (double));
}

gboolean
cml_dop853_fixed_step (const CmlOde *ode, double t, double h, double *z, double s, double *mid)
{
  const guint dim = ode->dim;
  g_autofree double *mem = g_new0 (double, STEP_DOUBLES (dim));
  CmlDop853Step st;

  /* tolerances so loose that the first trial is accepted as it is */
  step_init (&st, dim, 1e300, 1e300, 0.0, mem);
  st.t = t;
  st.h = h;
  st.t1 = mid != NULL ? t + s * h : t + h;
  memcpy (st.z, z, dim * sizeof (double));
  if (dop853_step_callback (&st, ode) != 0 || st.h_done != h)
    return FALSE;
  memcpy (z, st.z, dim * sizeof (double));
  if (mid != NULL)
    dense_eval (&st, t, t + s * h, mid);
  return TRUE;
}

/* ---- the method table (cml-integrator-private.h): the integrator's state is a CmlDop853 */

static gpointer
dop853_state_new (CmlIntegrator *integ,
                  gpointer       program,
                  GError       **error)
{
  return cml_dop853_new (&integ->ode, &integ->options);
}

static void
dop853_state_free (gpointer state)
{
  cml_dop853_free (state);
}

static gboolean
dop853_advance (CmlIntegrator *integ,
                double        *t,
                double         t1,
                double        *z,
                GError       **error)
{
  return cml_dop853_advance (integ->state, t, t1, z, error);
}

static void
dop853_reset (CmlIntegrator *integ)
{
  cml_dop853_reset (integ->state);
}

static void
dop853_get_stats (const CmlIntegrator *integ,
                  CmlIntegratorStats  *stats)
{
  cml_dop853_get_stats (integ->state, stats);
}

static guint64
dop853_n_func_steps (const CmlIntegrator *integ)
{
  return cml_dop853_n_func_steps (integ->state);
}

static guint
dop853_step_state_size (const CmlIntegrator *integ)
{
  return cml_dop853_step_state_size (integ->state);
}

static void
dop853_save_step_state (const CmlIntegrator *integ,
                        const double        *z,
                        double              *out)
{
  cml_dop853_save_step_state (integ->state, z, out);
}

static void
dop853_restore_step_state (CmlIntegrator *integ,
                           const double  *z,
                           const double  *in)
{
  cml_dop853_restore_step_state (integ->state, z, in);
}

const CmlIntegratorMethod cml_integrator_dop853_method = {
  .name = "dop853",
  .state_new = dop853_state_new,
  .state_free = dop853_state_free,
  .advance = dop853_advance,
  .reset = dop853_reset,
  .get_stats = dop853_get_stats,
  .n_func_steps = dop853_n_func_steps,
  .step_state_size = dop853_step_state_size,
  .step_state_is_exact = cml_integrator_step_state_exact,
  .save_step_state = dop853_save_step_state,
  .restore_step_state = dop853_restore_step_state,
};

void
cml_integrator_set_dop853_step (CmlIntegrator *integ,
                                int          (*func) (CmlDop853Step *step, void *data),
                                void          *data)
{
  g_return_if_fail (integ != NULL && integ->method == &cml_integrator_dop853_method);

  cml_dop853_set_step_func (integ->state, func, data);
}
