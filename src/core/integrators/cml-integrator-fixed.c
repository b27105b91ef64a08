/* cml-integrator-fixed.c — the fixed-step methods that step the ODE behind
 * cml_integrator_advance (): the implicit midpoint rule and the classical Runge–Kutta
 * method (rk4-fixed).
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

/* The correction Δ of the increment w at the midpoint integ->zm = z0 + w, into integ->delta:
 * M Δ = -g(w) with simplified Newton (M = I - h/2 J, factorised), Δ = -g(w) by fixed
 * point, where g(w) = w - h/2 f(t0 + h/2, zm); f(tm, zm) is left in integ->f. */
static gboolean
midpoint_correction (CmlIntegrator *integ,
                     double         t0,
                     double         h,
                     GError       **error)
{
  const guint dim = integ->ode.dim;

  integ->n_rhs++;
  if (integ->ode.rhs (t0 + 0.5 * h, integ->zm, integ->f, integ->ode.user_data) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "right-hand side failed at t = %.6g", t0);
      return FALSE;
    }
  for (guint i = 0; i < dim; i++)
    integ->delta[i] = 0.5 * h * integ->f[i] - integ->w[i];
  if (integ->newton != NULL)
    {
      gsl_vector_view dv = gsl_vector_view_array (integ->delta, dim);
      gsl_linalg_LU_svx (integ->newton, integ->perm, &dv.vector);
    }
  return TRUE;
}

/* One implicit midpoint step of size H from (T0, Z), in place.  Returns FALSE with an error
 * naming T0 when the stage equation cannot be solved; Z is then unchanged. */
static gboolean
midpoint_step (CmlIntegrator *integ,
               double         t0,
               double         h,
               double        *z,
               GError       **error)
{
  const guint dim = integ->ode.dim;
  const gboolean newton = integ->newton != NULL;
  const int max_it = newton ? MIDPOINT_NEWTON_MAX_IT : MIDPOINT_FIXED_MAX_IT;
  double *zm = integ->zm;
  double *f = integ->f;
  double *delta = integ->delta;
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
      integ->w[i] = 0.5 * h * f[i];
      zm[i] = z[i] + integ->w[i];
    }

  /* Simplified Newton: factorise M = I - h/2 J(t0, z0) once for the step. */
  if (newton)
    {
      gsl_matrix *m = integ->newton;
      int signum;

      g_assert (m->tda == dim);
      if (integ->ode.jacobian (t0, z, m->data, integ->dfdt, integ->ode.user_data) != 0)
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

      gsl_linalg_LU_decomp (m, integ->perm, &signum);
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

      if (!midpoint_correction (integ, t0, h, error))
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
          integ->w[i] += delta[i];
          zm[i] = z[i] + integ->w[i];
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
      if (!midpoint_correction (integ, t0, h, error))
        return FALSE;
      for (guint i = 0; i < dim; i++)
        integ->w[i] += delta[i];
    }

  /* z1 = z0 + 2w, summed with compensation (Kahan): over millions of steps the rounding
   * of the state's own update is what makes quadratic invariants drift, so what each
   * addition loses is carried into the next step (as long as the caller hands back the
   * state this step returned). */
  if (!integ->comp_valid || memcmp (z, integ->z_last, dim * sizeof (double)) != 0)
    memset (integ->comp, 0, dim * sizeof (double));
  for (guint i = 0; i < dim; i++)
    {
      double y = 2.0 * integ->w[i] - integ->comp[i];
      double zn = z[i] + y;

      integ->comp[i] = (zn - z[i]) - y;
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
          double         t0,
          double         h,
          double        *z,
          GError       **error)
{
  const guint dim = integ->ode.dim;
  double *k[4] = { integ->rk4, integ->rk4 + dim, integ->rk4 + 2 * dim, integ->rk4 + 3 * dim };
  double *zs = integ->rk4 + 4 * dim;
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

/* The fixed-step methods that step the ODE: the implicit midpoint rule and rk4-fixed. */
gboolean
cml_integrator_advance_midpoint (CmlIntegrator *integ,
                  double        *t,
                  double         t1,
                  double        *z,
                  GError       **error)
{
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
      if (!(o->kind == CML_INTEGRATOR_RK4_FIXED ? rk4_step (integ, t_good, h, z, error)
                                                 : midpoint_step (integ, t_good, h, z, error)))
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
      if (integ->z_last != NULL)
        {
          memcpy (integ->z_last, z, dim * sizeof (double));
          integ->comp_valid = TRUE;
        }
    }

  return TRUE;
}
