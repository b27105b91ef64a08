/* cml-integrator-private.h — an integrator's insides, shared by its files: the method
 * table every family of methods fills in (CmlIntegratorMethod), the part of the struct
 * that is common to them all (a copy of the ODE, the options, the counters, the family's
 * table and its state), and the functions one file calls in another (cml-integrator.c and
 * the families: cml-integrator-gsl.c, cml-integrator-fixed.c, cml-dop853.c,
 * cml-taylor-step.c; cml-integrator-stiffness.c for GSL's explicit methods).  Nowhere
 * else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-integrator.h"

G_BEGIN_DECLS

/* Convergence of the implicit midpoint stage: every component's correction relative to
 * its size reaches rounding (4 ε), or stops shrinking once below MIDPOINT_TOL. */
#define MIDPOINT_TOL            1e-10
#define MIDPOINT_NEWTON_MAX_IT  20
#define MIDPOINT_FIXED_MAX_IT   50

/* h ρ at or above this share of the method's stability limit counts as stiff. */
#define STIFF_SHARE 0.6

/* One family of methods behind cml_integrator_advance (), in the manner of GSL's
 * gsl_odeiv2_step_type: a const table in the family's own file.  Every entry is set (a
 * family with nothing to do writes a function that does nothing); each receives the
 * integrator, whose `state` is the family's, made by state_new.  The contracts are those
 * of the public functions of the same names (cml-integrator.h). */
typedef struct
{
  const char *name; /* the family, for debugging: "gsl", "fixed-step", "dop853", "taylor" */

  /* The family's state for INTEG (whose ode and options are set), every work array
   * allocated here; PROGRAM is what the method is made from besides the ODE (the Taylor
   * program, which the state then owns; NULL for the others).  NULL with an error. */
  gpointer (*state_new)  (CmlIntegrator *integ, gpointer program, GError **error);
  void     (*state_free) (gpointer state);

  gboolean (*advance)    (CmlIntegrator *integ, double *t, double t1, double *z, GError **error);
  void     (*reset)      (CmlIntegrator *integ);
  void     (*get_stats)  (const CmlIntegrator *integ, CmlIntegratorStats *stats);
  /* steps taken by a system's native step function (0 for a family without one) */
  guint64  (*n_func_steps) (const CmlIntegrator *integ);

  guint    (*step_state_size)     (const CmlIntegrator *integ);
  gboolean (*step_state_is_exact) (const CmlIntegrator *integ);
  void     (*save_step_state)     (const CmlIntegrator *integ, const double *z, double *out);
  /* called after cml_integrator_reset () */
  void     (*restore_step_state)  (CmlIntegrator *integ, const double *z, const double *in);
} CmlIntegratorMethod;

/* The families (one table each, in its own file). */
extern const CmlIntegratorMethod cml_integrator_gsl_method;      /* cml-integrator-gsl.c */
extern const CmlIntegratorMethod cml_integrator_midpoint_method; /* cml-integrator-fixed.c */
extern const CmlIntegratorMethod cml_integrator_rk4_fixed_method;/* cml-integrator-fixed.c */
extern const CmlIntegratorMethod cml_integrator_dop853_method;   /* cml-dop853.c */
extern const CmlIntegratorMethod cml_integrator_taylor_method;   /* cml-taylor-step.c */

struct _CmlIntegrator
{
  CmlOde                     ode;     /* a copy of the caller's system */
  CmlIntegratorOptions       options;
  const CmlIntegratorMethod *method;  /* the family's table */
  gpointer                   state;   /* the family's state (state_new) */

  /* The last good state, restored when a step fails. */
  double *z_good;

  /* Counters of the families that keep theirs here (all but dop853). */
  guint64 n_steps;
  guint64 n_rejected;
  guint64 n_rhs;
};

/* The stiffness estimate h ρ of an explicit method (cml-integrator-stiffness.c): its work
 * arrays and results. */
typedef struct
{
  double  *sv, *sf0, *sf1, *sz;  /* a vector, its image, the Jacobian's df/dt */
  double  *sj;                   /* the Jacobian ∂f/∂z (dim × dim) */
  double   h_rho;
  guint64  n_stiff_checks, n_stiff;
} CmlIntegratorStiffness;

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
/* The common counters (n_steps, n_rejected, n_rhs) into STATS, the rest zero. */
void     cml_integrator_get_common_stats (const CmlIntegrator *integ, CmlIntegratorStats *stats);
/* Method-table entries for families that have nothing of their own there. */
guint64  cml_integrator_no_func_steps (const CmlIntegrator *integ);
gboolean cml_integrator_step_state_exact (const CmlIntegrator *integ);

/* cml-integrator-stiffness.c */
void     cml_integrator_stiffness_init (CmlIntegratorStiffness *s, guint dim);
void     cml_integrator_stiffness_clear (CmlIntegratorStiffness *s);
void     cml_integrator_estimate_stiffness (CmlIntegrator *integ, CmlIntegratorStiffness *s,
                                            double t, const double *z, double h);

G_END_DECLS
