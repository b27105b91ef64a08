/* cml-explore.h — the fan of normal extremals of a vakonomic system from one point: N
 * initial covectors on a level set of the Hamiltonian, each extremal's points at given
 * times, its first conjugate time and the first Maxwell time the fan finds along it
 * (doc/theory.md §18).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-simulation.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct
{
  guint         n_covectors;     /* N ≥ 1: the extremals of the fan */
  double        t_end;           /* T, after the simulation's time (the model's time unit) */
  double        level;           /* the value of the Hamiltonian on the fan: 0.5 by default
                                  * (unit speed for a sub-Riemannian metric; the momenta's
                                  * units squared over the Lagrangian's) */
  guint         n_times;         /* the wavefront times, besides T … */
  const double *times;           /* … increasing, in (t0, T) (NULL when n_times is 0) */
  guint         n_samples;       /* samples of the conjugate-point determinant on (t0, T]:
                                  * 200 by default (every sample restarts the integrators:
                                  * fewer than shoot's 1000, for a fan of many) */
  guint         maxwell_samples; /* equal steps of (t0, T] at which the fan is compared for
                                  * Maxwell points: 200 by default */
  double        meet_tolerance;  /* two extremals meet where their points are closer than
                                  * this × (1 + the larger |coordinate|): 1e-6 (dimensionless) */
  guint         jobs;            /* worker threads: 0 = one per processor */
  const double *covectors;       /* n_covectors × every momentum (state order): the initial
                                  * momenta given, as cml_explore_covectors () makes them
                                  * (NULL: made here, which builds expressions: see below) */
} CmlExploreOptions;

CmlExploreOptions cml_explore_options_default (void);

typedef struct
{
  guint    n;               /* the extremals (N) */
  guint    n_free;          /* the free momenta, spread over a circle (2) or a sphere (3) */
  guint    n_momenta;       /* every momentum, state order */
  guint    n_coords;        /* a point: the base coordinates, then the reconstruction variables */
  char   **momentum_names;  /* n_momenta (NULL-terminated) */
  char   **coord_names;     /* n_coords (NULL-terminated) */
  guint    n_times;         /* the wavefront times before T */
  double  *times;           /* n_times */
  double  *covectors;       /* n × n_momenta: the initial momenta */
  double  *points;          /* n × (n_times + 1) × n_coords: the point at each time, then at T */
  double  *conjugate;       /* n: the first conjugate time in (t0, T], or NAN */
  double  *maxwell;         /* n: the first Maxwell time found in (t0, T], or NAN */
  guint   *partner;         /* n: the extremal met there, or G_MAXUINT */
  char   **why;             /* n: why the extremal's run failed (its values NAN), or NULL */
  char    *conjugate_rows;  /* what the determinant is taken of ("x, y, z"), or NULL … */
  char    *conjugate_note;  /* … and then why there are no conjugate times */
} CmlExploreResult;

void cml_explore_result_free (CmlExploreResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlExploreResult, cml_explore_result_free)

/* The fan of extremals from SIM's current state: its base coordinates and reconstruction
 * variables are the point, its constrained momenta (the multipliers) are kept, and its
 * free momenta are replaced by N directions spread evenly over the unit circle (two free
 * momenta) or sphere (three: a Fibonacci lattice), each scaled along its ray to the level
 * H = OPTIONS->level.  Each extremal runs on a worker thread with a simulation of its own
 * (cml_shoot_extremal: the conjugate times as shoot finds them); the results are in the
 * order of the covectors whatever the threads.  Then the Maxwell points: pairs of
 * extremals whose points come together at the same time, angles (coordinates whose unit is
 * rad) compared modulo 2π (see cml-explore.c).
 *
 * On the thread that builds the model's expressions (cml_explore_full () with the
 * covectors given runs on any); SIM is used for the covectors and the Maxwell refinement
 * and left at its state.  Errors (CML_ERROR_USAGE): not a vakonomic system, N = 0, fewer
 * than two or more than three free momenta, a level not reached along a direction, T or
 * the times out of order.  An extremal whose run fails is a row with its reason, not an error. */
CmlExploreResult *cml_explore (CmlSimulation *sim, const CmlExploreOptions *options,
                               GError **error);

/* The N initial covectors of the fan from SIM's state, as cml_explore () makes them: a new
 * array of N × every momentum (state order), the free momenta on the level set.  Builds the
 * Hamiltonian's expression in the model's context: on the thread that builds the model's
 * expressions (the window's), which it also readies for SIM's integrator and the
 * variational equations (cml_system_prepare, cml_system_jacobian_status).  SIM is left at its
 * state.  Errors as cml_explore ()'s; *N_MOMENTA (may be NULL) the momenta per covector. */
double *cml_explore_covectors (CmlSimulation *sim, const CmlExploreOptions *options, guint *n_momenta,
                               GError **error);

/* DONE extremals of TOTAL have run (called from the worker threads, in no set order, but
 * DONE increases from call to call and the last call has DONE = TOTAL unless cancelled). */
typedef void (*CmlExploreProgress) (guint done, guint total, gpointer user_data);

/* cml_explore () with progress and a cancel flag.  PROGRESS (may be NULL) as above, with
 * USER_DATA; CANCEL (may be NULL) read atomically: once it is not 0 no further extremal
 * starts, the Maxwell search stops, and the result is NULL with CML_ERROR_CANCELLED (set
 * before the call: no extremal runs).  With OPTIONS->covectors given no expression is built,
 * so it may run on any thread on a simulation of that thread (SIM), once
 * cml_explore_covectors () has readied the system; else as cml_explore (). */
CmlExploreResult *cml_explore_full (CmlSimulation *sim, const CmlExploreOptions *options,
                                    CmlExploreProgress progress, gpointer user_data, const gint *cancel,
                                    GError **error);

/* Extremal I has ended (called from the worker threads, in no set order, each I once, before
 * the progress counts it): POINT its point at T (n_coords values, NaN when its run failed)
 * and T_CONJUGATE its first conjugate time (NaN: none), both owned by the fan — copy them.
 * It may wait (the extremal's thread waits with it), but must not cancel by blocking forever. */
typedef void (*CmlExploreEnded) (guint i, const double *point, double t_conjugate, gpointer user_data);

/* cml_explore_full () that also tells ENDED (may be NULL) each extremal's point at T as it
 * ends, so that a window can draw the wavefront as it grows (USER_DATA for both callbacks). */
CmlExploreResult *cml_explore_watch (CmlSimulation *sim, const CmlExploreOptions *options,
                                     CmlExploreProgress progress, CmlExploreEnded ended, gpointer user_data,
                                     const gint *cancel, GError **error);

G_END_DECLS
