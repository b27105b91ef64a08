/* cml-integrator-stiffness.c — the estimate of h ρ that tells when an explicit method is
 * held by stiffness, for the statistics of cml_integrator_get_stats ().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Statistics (cml_integrator_get_stats): accepted and rejected steps, right-hand sides,
 * the step size, and for the explicit Runge–Kutta methods, when the caller attached a
 * stats block (options.stats), an estimate of h ρ — the step times the spectral radius of
 * ∂f/∂z — every CML_INTEGRATOR_STIFF_EVERY steps.  ρ comes from two rounds of the power
 * method on the exact Jacobian J = ∂f/∂z (the model's symbolic derivative; without one no
 * estimate is made), started from the last step's change:
 *
 *   v0 = z1 - z0,   v_{k+1} = J(t, z1) v_k,   ρ ≈ |v_2| / |v_1|.
 *
 * An explicit method is stable only while h λ stays inside its stability region (on the
 * negative real axis to about -5 for GSL's rk8pd and its rk4 with step doubling, -3 for
 * rkf45 and rkck); when the error control keeps the step where h ρ is near that limit,
 * the step is held by stability, not accuracy: the system is stiff there, and an implicit
 * method (msbdf) takes far larger steps.
 */
#define G_LOG_DOMAIN "cml-integrator"

#include "cml-integrator-private.h"

#include <math.h>
#include <string.h>

/* The stability limit of an explicit method on the negative real axis, in units of the
 * step GSL reports (its rk4 takes two half steps to estimate the error); 0 for the others. */
static double
stability_limit (CmlIntegratorKind kind)
{
  switch (kind)
    {
    case CML_INTEGRATOR_RK8PD:
      return 5.0;
    case CML_INTEGRATOR_RK4:
      return 5.5;
    case CML_INTEGRATOR_RKF45:
    case CML_INTEGRATOR_RKCK:
      return 3.3;
    case CML_INTEGRATOR_MSADAMS:
    case CML_INTEGRATOR_MSBDF:
    case CML_INTEGRATOR_IMPLICIT_MIDPOINT:
    case CML_INTEGRATOR_VARIATIONAL:
    case CML_INTEGRATOR_VARIATIONAL4:
    case CML_INTEGRATOR_TAYLOR:
    case CML_INTEGRATOR_DOP853:
    case CML_INTEGRATOR_RK4_FIXED:
    case CML_INTEGRATOR_AUTO:
    case CML_INTEGRATOR_N_KINDS:
      return 0.0;
    }
  return 0.0;
}

/* The work arrays of the estimate for a state of DIM components. */
void
cml_integrator_stiffness_init (CmlIntegratorStiffness *s,
                               guint                   dim)
{
  s->sv = g_new (double, dim);
  s->sf0 = g_new (double, dim);
  s->sf1 = g_new (double, dim);
  s->sz = g_new (double, dim);
  s->sj = g_new (double, (gsize) dim * dim);
}

void
cml_integrator_stiffness_clear (CmlIntegratorStiffness *s)
{
  g_clear_pointer (&s->sv, g_free);
  g_clear_pointer (&s->sf0, g_free);
  g_clear_pointer (&s->sf1, g_free);
  g_clear_pointer (&s->sz, g_free);
  g_clear_pointer (&s->sj, g_free);
}

static double
norm2 (const double *v,
       guint         dim)
{
  double s = 0.0;

  for (guint i = 0; i < dim; i++)
    s += v[i] * v[i];
  return sqrt (s);
}

/* h ρ after a step of size H from integ->z_good to (T, Z), into S: two rounds of the power method
 * on difference quotients of f started from the step's change (see the top of the file).
 * Right-hand sides that fail or give non-finite values leave the estimate as it was. */
void
cml_integrator_estimate_stiffness (CmlIntegrator          *integ,
                                   CmlIntegratorStiffness *s,
                                   double                  t,
                                   const double           *z,
                                   double                  h)
{
  const guint dim = integ->ode.dim;
  const double limit = stability_limit (integ->options.kind);
  double vn, rho = 0.0;

  if (s->sv == NULL || limit <= 0.0 || !(h > 0.0))
    return;
  for (guint i = 0; i < dim; i++)
    s->sv[i] = z[i] - integ->z_good[i];
  vn = norm2 (s->sv, dim);
  if (!(vn > 0.0) || !isfinite (vn))
    return;

  /* the exact Jacobian at the new state (the model's symbolic derivative) */
  if (integ->ode.jacobian (t, z, s->sj, s->sf0, integ->ode.user_data) != 0)
    return;
  for (int round = 0; round < 2; round++)
    {
      double dn;

      /* v ← J v */
      for (guint i = 0; i < dim; i++)
        {
          double acc = 0.0;

          for (guint j = 0; j < dim; j++)
            acc += s->sj[(gsize) i * dim + j] * s->sv[j];
          s->sf1[i] = acc;
        }
      memcpy (s->sv, s->sf1, dim * sizeof (double));
      dn = norm2 (s->sv, dim);
      if (!isfinite (dn))
        return;
      rho = dn / vn;
      if (!(dn > 0.0))
        break;
      vn = dn;
    }

  s->h_rho = h * rho;
  s->n_stiff_checks++;
  if (s->h_rho >= STIFF_SHARE * limit)
    s->n_stiff++;
}
