/* cml-integrator.c — time stepping of dz/dt = f(t, z) with output at exact times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two families of methods, and a third kind run by cml-dop853.c (dop853: Dormand–Prince
 * 8(5,3), steps taken freely, the output from its dense output; everything below about
 * steps landing on T1 and the step state is the GSL steppers' and the midpoint rule's):
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
 *
 * Step budget: one advance () takes at most options.max_steps accepted steps (10⁸ by
 * default); a run that spends them has not been making progress worth waiting for — a
 * span far too long for its steps, or steps that no longer move t — and fails with a
 * message that names the steps, the times and the step size.
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

#include "cml-integrator.h"
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

/* Convergence of the implicit midpoint stage: every component's correction relative to
 * its size reaches rounding (4 ε), or stops shrinking once below MIDPOINT_TOL. */
#define MIDPOINT_TOL            1e-10
#define MIDPOINT_NEWTON_MAX_IT  20
#define MIDPOINT_FIXED_MAX_IT   50

/* h ρ at or above this share of the method's stability limit counts as stiff. */
#define STIFF_SHARE 0.6

/* Which user callback failed inside a GSL step. */
typedef enum
{
  CALLBACK_OK,
  CALLBACK_RHS_FAILED,
  CALLBACK_JACOBIAN_FAILED,
} CallbackStatus;

struct _CmlIntegrator
{
  CmlOde               ode;      /* a copy of the caller's system */
  CmlIntegratorOptions options;

  /* GSL adaptive machinery; NULL for the implicit midpoint rule. */
  gsl_odeiv2_system   sys;
  gsl_odeiv2_step    *step;
  gsl_odeiv2_control *control;
  gsl_odeiv2_evolve  *evolve;
  gsl_odeiv2_driver   driver;    /* a container only: msadams/msbdf read the control through it */
  gboolean            multistep; /* msadams or msbdf: project at the end of advance () only */
  double              h;         /* step size for the next step; 0 = none chosen yet */
  CallbackStatus      callback_status;

  /* The last good state, restored when a step fails. */
  double *z_good;

  /* Implicit midpoint work arrays. */
  double          *zm;       /* midpoint value (z0 + z1)/2, the unknown of the stage equation */
  double          *f;        /* f(t, z) */
  double          *delta;    /* Newton / fixed-point correction */
  double          *rk4;      /* rk4-fixed: k1 … k4 and the stage state, 5 × dim */
  double          *w;        /* the increment zm - z0 */
  double          *comp;     /* compensated summation of the updates: what rounding lost */
  double          *z_last;   /* the state the last step returned (the compensation's owner) */
  gboolean         comp_valid;
  double          *dfdt;     /* ∂f/∂t, asked for by the Jacobian callback and unused */
  gsl_matrix      *newton;   /* I - h/2 J, LU-factorised in place */
  gsl_permutation *perm;

  /* Stiffness estimates (explicit methods with a stats block): work arrays and results. */
  double  *sv, *sf0, *sf1, *sz;  /* stiffness estimate: a vector, its image, the Jacobian's df/dt */
  double  *sj;                   /* the Jacobian ∂f/∂z (dim × dim), for the estimate */
  double   h_rho;
  guint64  n_stiff_checks, n_stiff;

  guint64 n_steps;
  guint64 n_rejected;
  guint64 n_rhs;

  /* rk8pd: a step function that takes GSL's steps with GSL's numbers (cml-rk8pd-core.h,
   * in a system's native code), and its work arrays; GSL takes the steps it leaves */
  int         (*rk_func) (CmlRk8pdStep *step, void *data);
  void         *rk_data;
  CmlRk8pdStep  rk;
  guint64       rk_func_steps;

  CmlTaylor *taylor;  /* the Taylor method (cml-taylor.h); NULL for the others */
  guint64    taylor_steps0; /* its native steps before this integrator (a program passed on) */
  /* dop853: the whole integrator is cml-dop853.c's */
  CmlDop853 *dop;
};

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

/* GSL callbacks: count right-hand-side evaluations and turn a user failure into
 * GSL_EBADFUNC, which makes gsl_odeiv2_evolve_apply () return at once. */
static int
gsl_rhs (double       t,
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

static int
gsl_jacobian (double       t,
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

static const gsl_odeiv2_step_type *
gsl_step_type (CmlIntegratorKind kind)
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
  integ->sys.function = gsl_rhs;
  integ->sys.jacobian = ode->jacobian != NULL ? gsl_jacobian : NULL;
  integ->sys.dimension = dim;
  integ->sys.params = integ;

  integ->step = gsl_odeiv2_step_alloc (gsl_step_type (options->kind), dim);
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
    default:
      return 0.0;
    }
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

/* h ρ after a step of size H from integ->z_good to (T, Z): two rounds of the power method
 * on difference quotients of f started from the step's change (see the top of the file).
 * Right-hand sides that fail or give non-finite values leave the estimate as it was. */
static void
estimate_stiffness (CmlIntegrator *integ,
                    double         t,
                    const double  *z,
                    double         h)
{
  const guint dim = integ->ode.dim;
  const double limit = stability_limit (integ->options.kind);
  double vn, rho = 0.0;

  if (integ->sv == NULL || limit <= 0.0 || !(h > 0.0))
    return;
  for (guint i = 0; i < dim; i++)
    integ->sv[i] = z[i] - integ->z_good[i];
  vn = norm2 (integ->sv, dim);
  if (!(vn > 0.0) || !isfinite (vn))
    return;

  /* the exact Jacobian at the new state (the model's symbolic derivative) */
  if (integ->ode.jacobian (t, z, integ->sj, integ->sf0, integ->ode.user_data) != 0)
    return;
  for (int round = 0; round < 2; round++)
    {
      double dn;

      /* v ← J v */
      for (guint i = 0; i < dim; i++)
        {
          double acc = 0.0;

          for (guint j = 0; j < dim; j++)
            acc += integ->sj[(gsize) i * dim + j] * integ->sv[j];
          integ->sf1[i] = acc;
        }
      memcpy (integ->sv, integ->sf1, dim * sizeof (double));
      dn = norm2 (integ->sv, dim);
      if (!isfinite (dn))
        return;
      rho = dn / vn;
      if (!(dn > 0.0))
        break;
      vn = dn;
    }

  integ->h_rho = h * rho;
  integ->n_stiff_checks++;
  if (integ->h_rho >= STIFF_SHARE * limit)
    integ->n_stiff++;
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
static void
set_budget_error (CmlIntegrator *integ,
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

static gboolean
all_finite (const double *z,
            guint         dim)
{
  for (guint i = 0; i < dim; i++)
    if (!isfinite (z[i]))
      return FALSE;

  return TRUE;
}

/* Projects Z at time T when asked to; FALSE with an error when the projection fails or
 * leaves a non-finite state. */
static gboolean
project_state (CmlIntegrator *integ,
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

  if (!all_finite (z, integ->ode.dim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "non-finite state at t = %.6g (after projection)", t);
      return FALSE;
    }

  return TRUE;
}

/* Puts back the last good state (time T_GOOD) after a failed step. */
static void
restore_good (CmlIntegrator *integ,
              double        *t,
              double         t_good,
              double        *z)
{
  memcpy (z, integ->z_good, integ->ode.dim * sizeof (double));
  *t = t_good;
}

/* TRUE while T has not reached T1 going in direction DIR (+1 or -1). */
static inline gboolean
before (double t,
        double t1,
        int    dir)
{
  return dir > 0 ? t < t1 : t > t1;
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

static gboolean
advance_gsl (CmlIntegrator *integ,
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

  while (before (*t, t1, dir))
    {
      const double t_good = *t;
      const double h_before = integ->h;
      double t_new = *t;
      int status;

      if (o->max_steps > 0 && n >= o->max_steps)
        {
          set_budget_error (integ, n, t_start, *t, t1, integ->h, error);
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
          restore_good (integ, t, t_good, z);
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
      if (!all_finite (z, dim))
        {
          restore_good (integ, t, t_good, z);
          gsl_odeiv2_step_reset (integ->step);
          gsl_odeiv2_evolve_reset (integ->evolve);
          integ->h = h_before;
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "non-finite state at t = %.6g", t_good);
          return FALSE;
        }

      /* The step taken, and the one suggested next, must not fall below h_min (a last
       * step shortened to land on T1 may). */
      if (before (t_new, t1, dir)
          && (fabs (integ->evolve->last_step) < o->h_min || fabs (integ->h) < o->h_min))
        {
          const double h_small = MIN (fabs (integ->evolve->last_step), fabs (integ->h));

          restore_good (integ, t, t_good, z);
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
      if (project_each_step && !projected && !project_state (integ, *t, z, error))
        {
          restore_good (integ, t, t_good, z);
          return FALSE;
        }

      /* Now and then: is the step held by stability (explicit methods, when asked)? */
      if (integ->sv != NULL && integ->n_steps % CML_INTEGRATOR_STIFF_EVERY == 0)
        estimate_stiffness (integ, *t, z, integ->evolve->last_step);
    }

  /* Multistep methods: project once at the end, then restart their history from the
   * projected state (keeping the step size). */
  if (integ->multistep && integ->options.project && integ->ode.project != NULL)
    {
      memcpy (integ->z_good, z, dim * sizeof (double));
      if (!project_state (integ, *t, z, error))
        {
          memcpy (z, integ->z_good, dim * sizeof (double));
          return FALSE;
        }
      gsl_odeiv2_step_reset (integ->step);
      gsl_odeiv2_evolve_reset (integ->evolve);
    }

  return TRUE;
}

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
static gboolean
advance_midpoint (CmlIntegrator *integ,
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
          set_budget_error (integ, k, t0, *t, t1, h, error);
          return FALSE;
        }

      memcpy (integ->z_good, z, dim * sizeof (double));
      if (!(o->kind == CML_INTEGRATOR_RK4_FIXED ? rk4_step (integ, t_good, h, z, error)
                                                 : midpoint_step (integ, t_good, h, z, error)))
        {
          restore_good (integ, t, t_good, z);
          return FALSE;
        }

      if (!all_finite (z, dim))
        {
          restore_good (integ, t, t_good, z);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "non-finite state at t = %.6g", t_good);
          return FALSE;
        }

      /* Times t0 + k h, the last one T1 exactly. */
      *t = k + 1 == n ? t1 : t0 + (double) (k + 1) * h;
      integ->n_steps++;

      if (!project_state (integ, *t, z, error))
        {
          restore_good (integ, t, t_good, z);
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

  if (!all_finite (z, integ->ode.dim))
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
                  ? advance_midpoint (integ, t, t1, z, error)
                  : advance_gsl (integ, t, t1, z, error);
  publish_stats (integ);
  return ok;
}
