/* cml-integrator-fixed.c — the fixed-step methods that step the ODE behind
 * cml_integrator_advance (): the implicit midpoint rule and the classical Runge–Kutta
 * method (rk4-fixed), two method tables (cml_integrator_midpoint_method,
 * cml_integrator_rk4_fixed_method) around one loop of equal steps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   Implicit midpoint rule (fixed step; symmetric, symplectic for canonical systems, keeps
 *   every quadratic invariant of the flow):
 *
 *     z1 = z0 + h f(t0 + h/2, (z0 + z1)/2).
 *
 *   Written for the increment w = zm - z0 to the midpoint zm = (z0 + z1)/2, the stage
 *   equation is
 *
 *     g(w) = w - h/2 f(t0 + h/2, z0 + w) = 0,     z1 = z0 + 2w.
 *
 *   With an exact Jacobian J = ∂f/∂z it is solved by simplified Newton,
 *   (I - h/2 J(t0, z0)) Δ = -g(w), w += Δ, the matrix factorised once per step; without
 *   one by fixed-point iteration w <- h/2 f(t0 + h/2, z0 + w).  Both stop when every |Δ_i|
 *   is at rounding level relative to |zm_i| (or stops shrinking there).  The unknown is the
 *   increment, not zm, so that its rounding is relative to the (small) increment, and the
 *   update z1 = z0 + 2w is summed with compensation: over 10^5 periods the rounding of
 *   z0 + … is otherwise what makes quadratic invariants drift.  To go from t to T1 the
 *   method takes
 *   N = ceil ((T1 - t)/h_fixed - 1e-9) equal steps of (T1 - t)/N.
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-integrator-private.h"

#include "cml-error.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>
#include <gsl/gsl_vector.h>

typedef struct Fixed Fixed;

/* One step of size H from (T0, Z), in place; FALSE with an error naming the time when it
 * cannot be taken (Z may then be anything: the loop puts the last good state back). */
typedef gboolean (*FixedStepFunc) (CmlIntegrator *integ, Fixed *fx, double t0, double h,
                                   double *z, GError **error);

/* The state of a fixed-step method: its step and work arrays. */
struct Fixed
{
  FixedStepFunc step;

  /* implicit midpoint */
  double          *zm;       /* midpoint value (z0 + z1)/2, the unknown of the stage equation */
  double          *f;        /* f(t, z) */
  double          *delta;    /* Newton / fixed-point correction */
  double          *w;        /* the increment zm - z0 */
  double          *comp;     /* compensated summation of the updates: what rounding lost */
  double          *z_last;   /* the state the last step returned (the compensation's owner) */
  gboolean         comp_valid;
  double          *dfdt;     /* ∂f/∂t, asked for by the Jacobian callback and unused */
  gsl_matrix      *newton;   /* I - h/2 J, LU-factorised in place; NULL without a Jacobian */
  gsl_permutation *perm;

  /* rk4-fixed */
  double          *rk4;      /* k1 … k4 and the stage state, 5 × dim */
};

/* The correction Δ of the increment w at the midpoint fx->zm = z0 + w, into fx->delta:
 * M Δ = -g(w) with simplified Newton (M = I - h/2 J, factorised), Δ = -g(w) by fixed
 * point, where g(w) = w - h/2 f(t0 + h/2, zm); f(tm, zm) is left in fx->f. */
static gboolean
midpoint_correction (CmlIntegrator *integ,
                     Fixed         *fx,
                     double         t0,
                     double         h,
                     GError       **error)
{
  const guint dim = integ->ode.dim;

  integ->n_rhs++;
  if (integ->ode.rhs (t0 + 0.5 * h, fx->zm, fx->f, integ->ode.user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "right-hand side failed at t = %.6g", t0);
      return FALSE;
    }
  for (guint i = 0; i < dim; i++)
    fx->delta[i] = 0.5 * h * fx->f[i] - fx->w[i];
  if (fx->newton != NULL)
    {
      gsl_vector_view dv = gsl_vector_view_array (fx->delta, dim);
      gsl_linalg_LU_svx (fx->newton, fx->perm, &dv.vector);
    }
  return TRUE;
}

/* One implicit midpoint step of size H from (T0, Z), in place.  Returns FALSE with an error
 * naming T0 when the stage equation cannot be solved; Z is then unchanged. */
static gboolean
midpoint_step (CmlIntegrator *integ,
               Fixed         *fx,
               double         t0,
               double         h,
               double        *z,
               GError       **error)
{
  const guint dim = integ->ode.dim;
  const gboolean newton = fx->newton != NULL;
  const int max_it = newton ? MIDPOINT_NEWTON_MAX_IT : MIDPOINT_FIXED_MAX_IT;
  double *zm = fx->zm;
  double *f = fx->f;
  double *delta = fx->delta;
  gboolean converged = FALSE;

  /* Predictor: an explicit Euler half step, zm = z0 + h/2 f(t0, z0). */
  integ->n_rhs++;
  if (integ->ode.rhs (t0, z, f, integ->ode.user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "right-hand side failed at t = %.6g", t0);
      return FALSE;
    }
  for (guint i = 0; i < dim; i++)
    {
      fx->w[i] = 0.5 * h * f[i];
      zm[i] = z[i] + fx->w[i];
    }

  /* Simplified Newton: factorise M = I - h/2 J(t0, z0) once for the step. */
  if (newton)
    {
      gsl_matrix *m = fx->newton;
      int signum;

      g_assert (m->tda == dim);
      if (integ->ode.jacobian (t0, z, m->data, fx->dfdt, integ->ode.user_data) != 0)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "Jacobian failed at t = %.6g", t0);
          return FALSE;
        }
      for (guint i = 0; i < dim; i++)
        {
          for (guint j = 0; j < dim; j++)
            m->data[i * dim + j] *= -0.5 * h;
          m->data[i * dim + i] += 1.0;
        }

      gsl_linalg_LU_decomp (m, fx->perm, &signum);
      for (guint i = 0; i < dim; i++)
        {
          double u = m->data[i * dim + i];

          if (u == 0.0 || !isfinite (u))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                           "implicit midpoint did not converge at t = %.6g; lower the step "
                           "(singular Newton matrix)", t0);
              return FALSE;
            }
        }
    }

  /* Iterate on the stage equation g(w) = w - h/2 f(tm, z0 + w) = 0. */
  double r_prev = INFINITY, r_prev2 = INFINITY;
  for (int it = 0; it < max_it && !converged; it++)
    {
      double r = 0.0;

      if (!midpoint_correction (integ, fx, t0, h, error))
        return FALSE;

      /* Each component's correction relative to its own size (and to its change over
       * the half step, for components near 0): a coordinate that grows large must not
       * loosen the test for the others, or quadratic invariants drift. */
      double zmax = 0.0;
      for (guint i = 0; i < dim; i++)
        zmax = MAX (zmax, fabs (zm[i]));
      /* a floor for components at 0, where only rounding noise is left to correct */
      double floor_ = 1e-6 * (1.0 + zmax);
      for (guint i = 0; i < dim; i++)
        {
          fx->w[i] += delta[i];
          zm[i] = z[i] + fx->w[i];
          double scale = fabs (zm[i]) + fabs (0.5 * h * f[i]) + floor_;
          r = MAX (r, fabs (delta[i]) / scale);
        }

      if (!isfinite (r))
        break;
      /* converged to rounding: tiny, or no longer shrinking while already small */
      converged = r <= 4 * DBL_EPSILON || (r >= r_prev && r <= MIDPOINT_TOL);
      r_prev2 = r_prev;
      r_prev = r;
    }

  if (!converged)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "implicit midpoint did not converge at t = %.6g; lower the step", t0);
      return FALSE;
    }

  /* The increment is known much better than the state's rounding, and over 10^5 periods
   * that matters: when what the next correction would still change — the last one times
   * the iteration's contraction — is not far below rounding (a slowly contracting
   * iteration, long steps), one more, on w alone. */
  if ((isfinite (r_prev2) && r_prev2 > 0 ? r_prev / r_prev2 : 1.0) * r_prev > DBL_EPSILON / 8)
    {
      if (!midpoint_correction (integ, fx, t0, h, error))
        return FALSE;
      for (guint i = 0; i < dim; i++)
        fx->w[i] += delta[i];
    }

  /* z1 = z0 + 2w, summed with compensation (Kahan): over millions of steps the rounding
   * of the state's own update is what makes quadratic invariants drift, so what each
   * addition loses is carried into the next step (as long as the caller hands back the
   * state this step returned). */
  if (!fx->comp_valid || memcmp (z, fx->z_last, dim * sizeof (double)) != 0)
    memset (fx->comp, 0, dim * sizeof (double));
  for (guint i = 0; i < dim; i++)
    {
      double y = 2.0 * fx->w[i] - fx->comp[i];
      double zn = z[i] + y;

      fx->comp[i] = (zn - z[i]) - y;
      z[i] = zn;
    }

  return TRUE;
}

/* One step of the classical Runge–Kutta method at the step H (rk4-fixed), four
 * right-hand sides and no error estimate:
 *   k1 = f(t, z), k2 = f(t + h/2, z + h/2 k1), k3 = f(t + h/2, z + h/2 k2),
 *   k4 = f(t + h, z + h k3),  z ← z + h/6 (k1 + 2 k2 + 2 k3 + k4). */
static gboolean
rk4_step (CmlIntegrator *integ,
          Fixed         *fx,
          double         t0,
          double         h,
          double        *z,
          GError       **error)
{
  const guint dim = integ->ode.dim;
  double *k[4] = { fx->rk4, fx->rk4 + dim, fx->rk4 + 2 * dim, fx->rk4 + 3 * dim };
  double *zs = fx->rk4 + 4 * dim;
  static const double c[4] = { 0.0, 0.5, 0.5, 1.0 };

  for (int s = 0; s < 4; s++)
    {
      const double *in = z;
      if (s > 0)
        {
          for (guint i = 0; i < dim; i++)
            zs[i] = z[i] + c[s] * h * k[s - 1][i];
          in = zs;
        }
      integ->n_rhs++;
      if (integ->ode.rhs (t0 + c[s] * h, in, k[s], integ->ode.user_data) != 0)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "right-hand side failed at t = %.6g", t0 + c[s] * h);
          return FALSE;
        }
    }
  for (guint i = 0; i < dim; i++)
    z[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
  return TRUE;
}

/* advance (): N equal steps of the method's step function. */
static gboolean
fixed_advance (CmlIntegrator *integ,
               double        *t,
               double         t1,
               double        *z,
               GError       **error)
{
  Fixed *fx = integ->state;
  const CmlIntegratorOptions *o = &integ->options;
  const guint dim = integ->ode.dim;
  const double t0 = *t;
  double n_real;
  guint64 n;
  double h;

  /* N equal steps of (t1 - t0)/N, none longer than h_fixed (up to rounding); negative
   * when integrating backwards. */
  n_real = ceil (fabs (t1 - t0) / o->h_fixed - 1e-9);
  if (!(n_real < 1e15) && o->max_steps == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "too many steps (%.3g) before t = %.6g; stopped at t = %.6g", n_real, t1, t0);
      return FALSE;
    }
  if (n_real < 1e15)
    {
      n = n_real < 1.0 ? 1 : (guint64) n_real;
      h = (t1 - t0) / (double) n;
    }
  else
    {
      /* more steps than any budget (max_steps < 2^32): steps of h_fixed until it is spent */
      n = G_MAXUINT64;
      h = o->h_fixed;
    }

  for (guint64 k = 0; k < n; k++)
    {
      const double t_good = *t;

      if (o->max_steps > 0 && k >= o->max_steps)
        {
          cml_integrator_set_budget_error (integ, k, t0, *t, t1, h, error);
          return FALSE;
        }

      memcpy (integ->z_good, z, dim * sizeof (double));
      if (!fx->step (integ, fx, t_good, h, z, error))
        {
          cml_integrator_restore_good (integ, t, t_good, z);
          return FALSE;
        }

      if (!cml_integrator_all_finite (z, dim))
        {
          cml_integrator_restore_good (integ, t, t_good, z);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "non-finite state at t = %.6g", t_good);
          return FALSE;
        }

      /* Times t0 + k h, the last one T1 exactly. */
      *t = k + 1 == n ? t1 : t0 + (double) (k + 1) * h;
      integ->n_steps++;

      if (!cml_integrator_project_state (integ, *t, z, error))
        {
          cml_integrator_restore_good (integ, t, t_good, z);
          return FALSE;
        }
      /* the compensation belongs to this state; a caller that changes it starts afresh */
      if (fx->z_last != NULL)
        {
          memcpy (fx->z_last, z, dim * sizeof (double));
          fx->comp_valid = TRUE;
        }
    }

  return TRUE;
}

/* state_new (): the work arrays of the implicit midpoint rule (the Newton matrix only when
 * there is a Jacobian to use) or of rk4-fixed. */
static gpointer
midpoint_state_new (CmlIntegrator *integ,
                    gpointer       program,
                    GError       **error)
{
  const guint dim = integ->ode.dim;
  Fixed *fx = g_new0 (Fixed, 1);

  fx->step = midpoint_step;
  fx->zm = g_new (double, dim);
  fx->f = g_new (double, dim);
  fx->delta = g_new (double, dim);
  fx->w = g_new (double, dim);
  fx->comp = g_new0 (double, dim);
  fx->z_last = g_new0 (double, dim);
  if (integ->ode.jacobian != NULL)
    {
      fx->dfdt = g_new (double, dim);
      fx->newton = gsl_matrix_alloc (dim, dim);
      fx->perm = gsl_permutation_alloc (dim);
    }
  return fx;
}

static gpointer
rk4_fixed_state_new (CmlIntegrator *integ,
                     gpointer       program,
                     GError       **error)
{
  Fixed *fx = g_new0 (Fixed, 1);

  fx->step = rk4_step;
  fx->rk4 = g_new (double, 5 * integ->ode.dim);
  return fx;
}

static void
fixed_state_free (gpointer state)
{
  Fixed *fx = state;

  if (fx->newton != NULL)
    gsl_matrix_free (fx->newton);
  if (fx->perm != NULL)
    gsl_permutation_free (fx->perm);
  g_free (fx->dfdt);
  g_free (fx->delta);
  g_free (fx->rk4);
  g_free (fx->w);
  g_free (fx->comp);
  g_free (fx->z_last);
  g_free (fx->f);
  g_free (fx->zm);
  g_free (fx);
}

/* reset (): the compensation no longer belongs to the state. */
static void
fixed_reset (CmlIntegrator *integ)
{
  Fixed *fx = integ->state;

  fx->comp_valid = FALSE;
}

/* get_stats (): the step is the fixed one. */
static void
fixed_get_stats (const CmlIntegrator *integ,
                 CmlIntegratorStats  *stats)
{
  cml_integrator_get_common_stats (integ, stats);
  stats->h = integ->options.h_fixed;
}

/* The step state: a first entry that the adaptive methods' layout gives the suggested
 * step (0 here: none), then the implicit midpoint rule's compensation (zero for
 * rk4-fixed, which has none). */
static guint
fixed_step_state_size (const CmlIntegrator *integ)
{
  return 1 + integ->ode.dim;
}

static void
midpoint_save_step_state (const CmlIntegrator *integ,
                          const double        *z,
                          double              *out)
{
  const Fixed *fx = integ->state;
  const guint dim = integ->ode.dim;

  out[0] = 0.0;
  /* the compensation, which belongs to the state its last step returned */
  if (fx->comp_valid && memcmp (z, fx->z_last, dim * sizeof (double)) == 0)
    memcpy (out + 1, fx->comp, dim * sizeof (double));
  else
    memset (out + 1, 0, dim * sizeof (double));
}

static void
midpoint_restore_step_state (CmlIntegrator *integ,
                             const double  *z,
                             const double  *in)
{
  Fixed *fx = integ->state;
  const guint dim = integ->ode.dim;

  memcpy (fx->comp, in + 1, dim * sizeof (double));
  memcpy (fx->z_last, z, dim * sizeof (double));
  fx->comp_valid = TRUE;
}

static void
rk4_fixed_save_step_state (const CmlIntegrator *integ,
                           const double        *z,
                           double              *out)
{
  memset (out, 0, fixed_step_state_size (integ) * sizeof (double));
}

static void
rk4_fixed_restore_step_state (CmlIntegrator *integ,
                              const double  *z,
                              const double  *in)
{
}

const CmlIntegratorMethod cml_integrator_midpoint_method = {
  .name = "implicit-midpoint",
  .state_new = midpoint_state_new,
  .state_free = fixed_state_free,
  .advance = fixed_advance,
  .reset = fixed_reset,
  .get_stats = fixed_get_stats,
  .n_func_steps = cml_integrator_no_func_steps,
  .step_state_size = fixed_step_state_size,
  .step_state_is_exact = cml_integrator_step_state_exact,
  .save_step_state = midpoint_save_step_state,
  .restore_step_state = midpoint_restore_step_state,
};

const CmlIntegratorMethod cml_integrator_rk4_fixed_method = {
  .name = "rk4-fixed",
  .state_new = rk4_fixed_state_new,
  .state_free = fixed_state_free,
  .advance = fixed_advance,
  .reset = fixed_reset,
  .get_stats = fixed_get_stats,
  .n_func_steps = cml_integrator_no_func_steps,
  .step_state_size = fixed_step_state_size,
  .step_state_is_exact = cml_integrator_step_state_exact,
  .save_step_state = rk4_fixed_save_step_state,
  .restore_step_state = rk4_fixed_restore_step_state,
};
