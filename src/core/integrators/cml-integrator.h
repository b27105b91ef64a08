/* cml-integrator.h — time stepping of a first-order ODE with output at exact times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Wraps GSL odeiv2 steppers (adaptive, error-controlled) and adds a symmetric,
 * structure-preserving method (implicit midpoint rule, fixed step) and Dormand–Prince
 * 8(5,3) with dense output (dop853, cml-dop853.h), plus projection onto a constraint set
 * after each accepted step.  The integrator never allocates while
 * advancing.  One integrator is used by one thread at a time.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* dz/dt = f(t, z).  Returns 0, or a nonzero status when f cannot be evaluated (a singular
 * matrix, a failed inner solve); the integrator then stops with CML_ERROR_NUMERIC. */
typedef int (*CmlOdeRhsFunc) (double t, const double *z, double *dzdt, void *user_data);
/* Exact Jacobian: DFDZ is dim×dim row-major (dfdz[i*dim + j] = ∂f_i/∂z_j), DFDT has dim
 * entries.  Returns 0 or a nonzero status as above. */
typedef int (*CmlOdeJacFunc) (double t, const double *z, double *dfdz, double *dfdt,
             void *user_data);
/* Moves Z (in place) back onto the constraint set / renormalises quaternions.
 * Returns 0 or a nonzero status. */
typedef int (*CmlOdeProjectFunc) (double t, double *z, void *user_data);

typedef struct
{
  guint             dim;       /* number of state components */
  CmlOdeRhsFunc     rhs;       /* required */
  CmlOdeJacFunc     jacobian;  /* optional: needed by msbdf; used by implicit midpoint */
  CmlOdeProjectFunc project;   /* optional */
  void             *user_data;
} CmlOde;

typedef enum
{
  CML_INTEGRATOR_RK8PD,             /* GSL Prince–Dormand 8(9) */
  CML_INTEGRATOR_RKF45,             /* GSL Runge–Kutta–Fehlberg 4(5) */
  CML_INTEGRATOR_RKCK,              /* GSL Cash–Karp 4(5) */
  CML_INTEGRATOR_RK4,               /* GSL classical RK4 with error estimate */
  CML_INTEGRATOR_MSADAMS,           /* GSL multistep Adams (no Jacobian) */
  CML_INTEGRATOR_MSBDF,             /* GSL multistep BDF (needs the Jacobian) */
  CML_INTEGRATOR_IMPLICIT_MIDPOINT, /* symmetric, symplectic, fixed step; keeps quadratic invariants */
  CML_INTEGRATOR_VARIATIONAL,       /* discrete Lagrange–d'Alembert, midpoint, fixed step, order 2:
                                     * needs the system (cml-variational.h), not only its ODE */
  CML_INTEGRATOR_VARIATIONAL4,      /* its symmetric triple jump (Yoshida), order 4 */
  CML_INTEGRATOR_TAYLOR,            /* Taylor series of the solution from the expressions of f
                                     * (cml-taylor.h): runs through a simulation */
  CML_INTEGRATOR_DOP853,            /* Dormand–Prince 8(5,3) with dense output (cml-dop853.c) */
  CML_INTEGRATOR_RK4_FIXED,         /* the classical Runge–Kutta method at a fixed step, no error
                                     * control: the plain method beside the structure-preserving
                                     * ones at the same step */
  CML_INTEGRATOR_AUTO,              /* the default: the fastest of the methods above that meets the
                                     * tolerances for the system at hand, chosen when the
                                     * integrator is made (cml-integrator-choice.h) */
  CML_INTEGRATOR_N_KINDS
} CmlIntegratorKind;

/* The kinds cml_integrator_new () takes: those that step an ODE (all before the variational
 * ones, which a simulation runs through cml-variational.h). */
#define CML_INTEGRATOR_N_ODE_KINDS CML_INTEGRATOR_VARIATIONAL

/* What an integrator has done, for progress reports and a word on stiffness. */
typedef struct
{
  guint64 n_steps;        /* accepted steps since creation */
  guint64 n_rejected;     /* steps tried and rejected by the error control since creation
                           * (adaptive methods; the fixed-step ones reject none) */
  guint64 n_rhs;          /* right-hand-side evaluations since creation */
  double  h;              /* the size of the next step (adaptive: the controller's choice;
                           * 0 before the first), in time units */
  double  h_rho;          /* explicit Runge–Kutta methods: the last accepted step times the
                           * spectral radius of ∂f/∂z there, estimated every
                           * CML_INTEGRATOR_STIFF_EVERY steps (0 otherwise); dimensionless */
  guint64 n_stiff_checks; /* estimates of h_rho taken since creation */
  guint64 n_stiff;        /* of them, those that found the step at the method's stability
                           * limit: held there by stability, not accuracy — a stiff system */
} CmlIntegratorStats;

#define CML_INTEGRATOR_STIFF_EVERY 64     /* accepted steps between two estimates of h_rho */
#define CML_INTEGRATOR_MAX_STEPS   100000000 /* 10⁸: the default step budget of one advance () */

typedef struct
{
  CmlIntegratorKind kind;
  double rtol;     /* relative tolerance per step (adaptive methods), dimensionless */
  double atol;     /* absolute tolerance per step, in the units of the state */
  double h_init;   /* first trial step, in time units; 0 = choose from the output interval */
  double h_fixed;  /* step of the fixed-step methods, in time units (implicit midpoint;
                    * `--step H`): each advance takes equal steps no longer than this */
  double h_min;    /* below this step size the run fails with "step size underflow" (time units) */
  gboolean project;/* call CmlOde.project after every accepted step */
  guint  max_steps;/* accepted steps per advance () call (the step budget); 0 = unlimited */
  CmlIntegratorStats *stats; /* if not NULL: kept equal to cml_integrator_get_stats () after
                              * every advance (), for a caller that holds no CmlIntegrator
                              * (a CmlSimulation's); it must outlive the integrator's use */
  const char *chosen; /* NULL when the caller named the method; else kind is what
                       * CML_INTEGRATOR_AUTO chose, and this says why (a static English
                       * phrase, cml-integrator-choice.h) — the options then choose again
                       * wherever they are used, for another system or tolerance */
} CmlIntegratorOptions;

/* Defaults: auto (the method chosen for the system and tolerances), rtol 1e-10, atol 1e-12,
 * h_fixed 1e-3, h_min 1e-14, project on, a step budget of CML_INTEGRATOR_MAX_STEPS (10⁸) per advance () — far more than any run that is
 * making progress takes between two outputs — and no stats. */
CmlIntegratorOptions cml_integrator_options_default (void);

const char *cml_integrator_kind_to_string (CmlIntegratorKind kind);   /* "rk8pd", … "implicit-midpoint",
                                                                         * "variational", "variational4",
                                                                         * "dop853", … "auto" */
/* Accepts the names above (and "midpoint" for the implicit midpoint rule); FALSE if unknown. */
gboolean    cml_integrator_kind_from_string (const char *name, CmlIntegratorKind *kind);

/* TRUE for the methods that take the fixed step h_fixed and ignore rtol/atol (implicit
 * midpoint, variational, variational4); FALSE for the adaptive ones, which ignore h_fixed. */
gboolean    cml_integrator_kind_is_fixed_step (CmlIntegratorKind kind);
/* The options that apply to O's method, for headers and messages:
 * "rk8pd, rtol = 1e-10, atol = 1e-12" or "implicit-midpoint, step = 0.001"; a method
 * that auto chose says so and why: "taylor, rtol = 1e-10, atol = 1e-10 (chosen: tolerance
 * 1e-10, polynomial right-hand side)". */
char       *cml_integrator_options_describe (const CmlIntegratorOptions *o);

typedef struct _CmlIntegrator CmlIntegrator;

/* Errors: CML_ERROR_USAGE (bad options, msbdf without a Jacobian, a variational kind: those
 * need the mechanical system and run through a CmlSimulation; taylor: it needs the
 * expressions of f, cml_integrator_new_taylor).  Auto, or a method auto chose for a system
 * that this bare ODE cannot run (taylor), becomes the method for an ODE given as a function
 * (cml_integrator_choose_for_ode ()). */
CmlIntegrator *cml_integrator_new (const CmlOde *ode, const CmlIntegratorOptions *options,
                                   GError **error);
/* The Taylor method (OPTIONS->kind == CML_INTEGRATOR_TAYLOR) with the Taylor program TAYLOR
 * of ODE's right-hand side (a CmlTaylor, cml-taylor.h), which the integrator then owns and
 * resets (on failure the caller keeps it). */
CmlIntegrator *cml_integrator_new_taylor (const CmlOde *ode, gpointer taylor,
                                          const CmlIntegratorOptions *options, GError **error);
/* A Taylor integrator's program (NULL for the other kinds): borrowed, or taken away (the
 * integrator must not advance after that), for a new integrator of the same order. */
gpointer       cml_integrator_get_taylor (CmlIntegrator *integ);
gpointer       cml_integrator_steal_taylor (CmlIntegrator *integ);
void           cml_integrator_free (CmlIntegrator *integ);

/* Advances the state Z from *T to exactly T1, projecting after every accepted step when
 * options->project.  T1 < *T integrates backwards (negative steps); T1 == *T does
 * nothing.  On success *T == T1.
 * On failure returns FALSE with CML_ERROR_NUMERIC and a message that names the time
 * reached and the reason ("non-finite state at t = 3.25", "step size underflow at
 * t = …", "right-hand side failed at t = …", and when the step budget max_steps is spent
 * "the integrator took N steps between t = A and t = B without reaching t = T1: …");
 * *T and Z then hold the last good state. */
gboolean cml_integrator_advance (CmlIntegrator *integ, double *t, double t1, double *z,
                                 GError **error);

/* Whether ERROR is the one advance () gives when its step budget (max_steps) is spent. */
gboolean cml_integrator_error_is_budget (const GError *error);

/* Forgets step-size and multistep history (after the state was changed from outside). */
void     cml_integrator_reset (CmlIntegrator *integ);
/* The step budget of the next advance () calls (options.max_steps; 0 = unlimited). */
void     cml_integrator_set_max_steps (CmlIntegrator *integ, guint max_steps);

/* What the next steps depend on besides (t, z), so that a run restarted from a saved
 * (t, z, step state) continues bit for bit as the original did: the signed step size
 * suggested for the next step and the implicit midpoint rule's compensation (see
 * cml-integrator.c).  OUT / IN hold cml_integrator_step_state_size () doubles.  Save
 * after an advance () with the Z it returned; restore after putting that Z back (it resets
 * the integrator first).  Exact for every method except msadams/msbdf without projection,
 * whose multistep history is not saved (cml_integrator_step_state_is_exact () says). */
guint    cml_integrator_step_state_size (const CmlIntegrator *integ);
gboolean cml_integrator_step_state_is_exact (const CmlIntegrator *integ);
void     cml_integrator_save_step_state (const CmlIntegrator *integ, const double *z, double *out);
void     cml_integrator_restore_step_state (CmlIntegrator *integ, const double *z,
                                            const double *in);

/* dop853 only: lets FUNC take the steps (a system's native code, cml-dop853.h); FUNC
 * returns -1 for a step it cannot take, which the generic step then takes. */
typedef struct CmlDop853Step CmlDop853Step;
void     cml_integrator_set_dop853_step (CmlIntegrator *integ,
                                         int (*func) (CmlDop853Step *step, void *data),
                                         void *data);
/* rk8pd only: lets FUNC take GSL's steps with GSL's numbers (a system's native code,
 * cml-rk8pd-core.h); FUNC returns -1 for a step it cannot take and 1 for one it leaves to
 * GSL, which then takes it. */
typedef struct CmlRk8pdStep CmlRk8pdStep;
void     cml_integrator_set_rk8pd_step (CmlIntegrator *integ,
                                        int (*func) (CmlRk8pdStep *step, void *data),
                                        void *data);
/* The steps the native step function of dop853, rk8pd or taylor took since creation. */
guint64  cml_integrator_n_func_steps (const CmlIntegrator *integ);

/* Counters since creation: accepted steps and right-hand-side evaluations. */
guint64  cml_integrator_n_steps (const CmlIntegrator *integ);
guint64  cml_integrator_n_rhs (const CmlIntegrator *integ);
/* All the counters, the step size and the stiffness estimate, into *STATS. */
void     cml_integrator_get_stats (const CmlIntegrator *integ, CmlIntegratorStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlIntegrator, cml_integrator_free)

G_END_DECLS
