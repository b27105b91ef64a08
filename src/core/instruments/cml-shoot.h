/* cml-shoot.h — shooting for normal extremals of a vakonomic system: the initial momenta
 * that take the extremal to given targets at a given time, and the conjugate times along
 * it (doc/theory.md §13).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Main thread or a worker: a call uses the simulation it is given and nothing else.
 */
#pragma once

#include <glib.h>

#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

typedef struct
{
  guint    max_iterations; /* Newton iterations of the whole shooting, damped Newton from the
                            * guess and every continuation step together:
                            * CML_SHOOT_MAX_ITERATIONS by default (0 reads as it) */
  double   tolerance;      /* converged when ‖z_targets(T) − targets‖₂ ≤ tolerance ·
                            * (1 + ‖targets‖∞): 1e-10 by default (dimensionless) */
  gboolean continuation;   /* when damped Newton fails, continue in the target from the
                            * point the initial guess reaches (TRUE by default) */
  guint    n_samples;      /* samples of the conjugate-point determinant on (t0, T]: 1000
                            * by default; 0 = no conjugate times */
  guint64  max_steps;      /* integrator steps of all the runs of one shooting, conjugate
                            * times included: CML_SHOOT_MAX_STEPS by default (0 reads as it) */
} CmlShootOptions;

#define CML_SHOOT_MAX_STEPS 20000000 /* 2·10⁷ steps: about a minute of runs at most */
#define CML_SHOOT_MAX_ITERATIONS 200 /* Newton iterations of one shooting, in all */

CmlShootOptions cml_shoot_options_default (void);

typedef struct
{
  guint    n_momenta;          /* n: the momenta p_A, state order */
  char   **momentum_names;     /* n names (NULL-terminated) */
  double  *momenta;            /* n: p(0) found */
  double   residual;           /* ‖z_targets(T) − targets‖₂ at the solution */
  guint    iterations;         /* Newton iterations in all (continuation steps included) */
  gboolean continuation_used;  /* damped Newton alone failed and continuation solved it */
  guint    continuation_steps; /* continuation steps that converged */
  GArray  *conjugate_times;    /* double: the conjugate times in (t0, T], increasing */
  char    *conjugate_rows;     /* what the determinant is taken of: "x, y, z" — or NULL,
                                * and then conjugate_note says why none were computed */
  char    *conjugate_note;
  gboolean at_rest;            /* the targets are the start point: the extremal found is the
                                * one at rest, all momenta zero (no conjugate times) */
  gboolean degenerate;         /* det ∂x(t)/∂p(0) vanishes along the whole extremal (the
                                * endpoint map is degenerate: integrable constraints) */
} CmlShootResult;

void cml_shoot_result_free (CmlShootResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlShootResult, cml_shoot_result_free)

/* Finds initial momenta p(0) such that the extremal from SIM's current state (its time t0,
 * its base coordinates and reconstruction variables, held fixed; its momenta the first
 * guess) has, at time T_END > t0, the N_TARGETS values TARGET_VALUES of the quantities
 * TARGET_NAMES (base coordinates and reconstruction variables).  Newton's method on the
 * exact sensitivity ∂z(T)/∂p(0), from the variational equations Φ' = J(t, z) Φ with the
 * system's exact Jacobian J, integrated with SIM's integrator and tolerances; the
 * minimum-norm step (SVD) when there are more momenta than targets; damped by
 * backtracking on the residual; then, if that fails, continuation in the target.  Then
 * the conjugate times along the solved extremal (OPTIONS may be NULL: the defaults).
 *
 * On success SIM holds the found initial state at t0 (ready to be run) and the result is
 * returned.  Errors: CML_ERROR_USAGE (not a vakonomic system, no exact Jacobian, a target
 * that is not a base coordinate or reconstruction variable, T_END not after t0, an
 * integrator that does not carry the variational equations: taylor, variational,
 * variational4), CML_ERROR_UNREACHABLE (where Newton's method stopped, no change of the
 * momenta brings the end point nearer: the targets seem off the set the extremals from
 * this start reach at T), CML_ERROR_NUMERIC (no solution within the iteration limit or the
 * step budget, or Newton and continuation stalled), all in plain words with how far it got
 * and what to try; SIM then holds its state as it was. */
CmlShootResult *cml_shoot (CmlSimulation *sim, double t_end, guint n_targets,
                           const char *const *target_names, const double *target_values,
                           const CmlShootOptions *options, GError **error);

/* The extremal from SIM's current state as it is (its momenta given: no shooting) up to
 * T_END > t0: its conjugate times in (t0, T_END], found as cml_shoot () finds them along the
 * extremal it solves (OPTIONS may be NULL: the defaults; its n_samples and max_steps
 * count), and its states at the N_AT times AT (increasing, in (t0, T_END]) into STATES
 * (N_AT × dim, state order), from the conjugate times' finer run.  The result's momenta
 * are SIM's, its iterations and residual 0.  NULL with ERROR: the errors of cml_shoot ()
 * that are not about targets, or CML_ERROR_NUMERIC when the run to the last of AT fails
 * (a failure of the conjugate times alone is a note in the result).  SIM is not changed. */
CmlShootResult *cml_shoot_extremal (CmlSimulation *sim, double t_end,
                                    const CmlShootOptions *options, guint n_at, const double *at,
                                    double *states, GError **error);

G_END_DECLS
