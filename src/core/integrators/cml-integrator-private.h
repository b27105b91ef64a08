/* cml-integrator-private.h — an integrator's insides, shared by its files: the struct
 * (a copy of the ODE, the options, GSL's machinery, the fixed-step methods' work arrays,
 * the stiffness estimate, the counters) and the functions one file calls in another
 * (cml-integrator.c, cml-integrator-gsl.c, cml-integrator-fixed.c,
 * cml-integrator-stiffness.c).  Nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-integrator.h"
#include "cml-dop853.h"
#include "cml-rk8pd-core.h"
#include "cml-taylor.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_permutation.h>

G_BEGIN_DECLS

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


/* TRUE while T has not reached T1 going in direction DIR (+1 or -1). */
static inline gboolean
cml_integrator_before (double t, double t1, int dir)
{
  return dir > 0 ? t < t1 : t > t1;
}

/* cml-integrator.c */
void     cml_integrator_set_budget_error (CmlIntegrator *integ, guint64 n, double t_start, double t,
                                          double t1, double h, GError **error);
gboolean cml_integrator_all_finite (const double *z, guint dim);
gboolean cml_integrator_project_state (CmlIntegrator *integ, double t, double *z, GError **error);
void     cml_integrator_restore_good (CmlIntegrator *integ, double *t, double t_good, double *z);

/* cml-integrator-gsl.c */
int      cml_integrator_gsl_rhs (double t, const double y[], double dydt[], void *data);
int      cml_integrator_gsl_jacobian (double t, const double y[], double *dfdy, double dfdt[],
                                      void *data);
const gsl_odeiv2_step_type *cml_integrator_gsl_step_type (CmlIntegratorKind kind);
gboolean cml_integrator_advance_gsl (CmlIntegrator *integ, double *t, double t1, double *z,
                                     GError **error);

/* cml-integrator-fixed.c */
gboolean cml_integrator_advance_midpoint (CmlIntegrator *integ, double *t, double t1, double *z,
                                          GError **error);

/* cml-integrator-stiffness.c */
void     cml_integrator_estimate_stiffness (CmlIntegrator *integ, double t, const double *z,
                                            double h);

G_END_DECLS
