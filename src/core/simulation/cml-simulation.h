/* cml-simulation.h — one run of a system: parameter values, state, time, integrator
 * and the scratch memory, all allocated when it is made.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A simulation belongs to one thread at a time.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlSimulation CmlSimulation;

/* Parameters at their defaults, initial data from the model, t = 0, rk8pd at the default
 * tolerances (auto, the default of the callers, chooses when they set the integrator).  The model's initial data are only where a run starts when nothing else is
 * given: when they cannot be used as they are (not on the constraint set, not regular),
 * the simulation is still made, holding them unsolved, and cml_simulation_advance() fails
 * with that reason until cml_simulation_reset() succeeds — so values given to the reset
 * (--init, the window) are merged before anything is solved.  Call
 * cml_simulation_reset (sim, NULL, …) to check the model's own data. */
CmlSimulation *cml_simulation_new (CmlSystem *sys, GError **error);
void           cml_simulation_free (CmlSimulation *sim);
CmlSystem     *cml_simulation_get_system (const CmlSimulation *sim);

gboolean cml_simulation_set_param (CmlSimulation *sim, const char *name, double value,
                                   GError **error);
double   cml_simulation_get_param (const CmlSimulation *sim, const char *name);
/* Replaces the integrator (and resets it).  Auto (and a method auto chose before) becomes
 * the method cml_integrator_choose () picks for this system and tolerance, which
 * cml_simulation_get_integrator () then returns with the reason in its chosen field. */
gboolean cml_simulation_set_integrator (CmlSimulation *sim, const CmlIntegratorOptions *options,
                                        GError **error);
const CmlIntegratorOptions *cml_simulation_get_integrator (const CmlSimulation *sim);

/* Starts again at t = 0 from the model's initial data overridden by GIVEN (name ->
 * double*, may be NULL): coordinates, velocities, momenta, reconstruction variables.
 * Given values are kept; the coordinates the constraints determine (solve-for, else the
 * ones not given) are solved from them; only the given values that contradict a
 * constraint are projected, and the report names each with the constraint (see
 * cml_simulation_get_projection_report).  Vakonomic: the W1 relation is solved with
 * every given velocity and momentum fixed.  Fails if a name is unknown, if given values
 * contradict the W1 relation or a vakonomic constraint (CML_ERROR_USAGE), or if the
 * state is not regular. */
gboolean cml_simulation_reset (CmlSimulation *sim, GHashTable *given, GError **error);
/* The same, the initial data holding at T0 rather than 0: the constraints (which may
 * depend on t) are solved at T0 and the simulation starts there (simulate --t-start). */
gboolean cml_simulation_reset_at (CmlSimulation *sim, double t0, GHashTable *given, GError **error);
/* Lines "name: given -> used (why)" for values the last reset changed (empty if none). */
const GPtrArray *cml_simulation_get_projection_report (const CmlSimulation *sim);

/* Integrates to T1 (backwards when T1 is before the current time).  On failure the
 * simulation keeps the last good state and the error names the time and the reason. */
gboolean cml_simulation_advance (CmlSimulation *sim, double t1, GError **error);

double        cml_simulation_get_time (const CmlSimulation *sim);
const double *cml_simulation_get_state (const CmlSimulation *sim);
/* Sets time and state directly (sessions, tests). */
void          cml_simulation_set_state (CmlSimulation *sim, double t, const double *z);
/* The integrator's step state (cml_integrator_save_step_state ()): with the time and the
 * state, what a bit-for-bit restart needs.  OUT / STEP_STATE hold
 * cml_simulation_step_state_size () doubles; restore sets time, state and step state. */
guint         cml_simulation_step_state_size (const CmlSimulation *sim);
gboolean      cml_simulation_step_state_is_exact (const CmlSimulation *sim);
void          cml_simulation_save_step_state (const CmlSimulation *sim, double *out);
void          cml_simulation_restore (CmlSimulation *sim, double t, const double *z,
                                      const double *step_state);
/* All observables at the current state, into OUT (cml_system_n_observables values). */
void          cml_simulation_observe (CmlSimulation *sim, double *out);
/* The time derivative of the state at the current state (for tests and plots). */
gboolean      cml_simulation_eval_rhs (CmlSimulation *sim, double *dzdt, GError **error);
/* The same at any time and state, leaving the simulation's own state alone. */
gboolean      cml_simulation_eval_rhs_at (CmlSimulation *sim, double t, const double *z,
                                          double *dzdt, GError **error);
/* The exact Jacobian of the right-hand side at time T and state Z, ∂f/∂z into DFDZ (dim ×
 * dim, row-major: DFDZ[i * dim + j] = ∂f_i/∂z_j) and ∂f/∂t into DFDT (dim), as the implicit
 * methods take it (native code or the interpreter), leaving the simulation's own state
 * alone.  Derives the Jacobian on first use (cml_system_prepare with an implicit method
 * derives it beforehand).  FALSE with CML_ERROR_UNSUPPORTED when the system has no exact
 * Jacobian (too large to differentiate, or velocities solved by Newton's method), naming
 * why. */
gboolean      cml_simulation_eval_jacobian_at (CmlSimulation *sim, double t, const double *z,
                                               double *dfdz, double *dfdt, GError **error);
/* A vakonomic system whose W1 relations are nonlinear in some velocities (the free
 * velocities) solves them by Newton's method at every evaluation of the right-hand side:
 * how many there are (0 for every other system), their names, and the values the last
 * evaluation found (into OUT, cml_system_n_free_velocities () of them). */
guint         cml_system_n_free_velocities (const CmlSystem *sys);
const char   *cml_system_free_velocity_name (const CmlSystem *sys, guint a);
void          cml_simulation_get_free_velocities (const CmlSimulation *sim, double *out);

/* Native code (cml-native.h): the right-hand side, its Jacobian and the constraint
 * functions run as machine code compiled from the model when a C compiler is at hand, and
 * through the interpreter otherwise — bit for bit the same numbers either way.
 * cml_system_native_status() builds it if not yet tried and returns NULL when native code
 * is in use, else why not.  The exact Jacobian is derived and compiled only when first
 * needed (an implicit method, the stiffness estimate, shooting);
 * cml_system_jacobian_status() derives it if not yet done and returns NULL when it runs
 * as native code, else why not.  A new simulation uses native code when there is some;
 * cml_simulation_set_native() switches (FALSE: the interpreter) and returns whether
 * native code now runs. */
const char   *cml_system_native_status (CmlSystem *sys);
const char   *cml_system_jacobian_status (CmlSystem *sys);

/* Derives now, on the calling thread, what simulations of SYS otherwise derive from the
 * model's expressions on first use: a vakonomic system's relations for its initial data,
 * and for an integrator of KIND its exact Jacobian (msbdf, implicit-midpoint), its
 * program (variational, variational4) or what auto chooses from (auto).  The model's expression context is not for two
 * threads to change at once: a caller that hands simulations of SYS to other threads
 * (the runner's worker, a sweep's) while it goes on using the model's expressions itself
 * (parsing a section, say) prepares them first, as CmlRunner and the sweep do. */
void          cml_system_prepare (CmlSystem *sys, CmlIntegratorKind kind);
gboolean      cml_simulation_set_native (CmlSimulation *sim, gboolean native);
gboolean      cml_simulation_is_native (const CmlSimulation *sim);
/* Norm of the constraint functions at the current state (0 without constraints). */
double        cml_simulation_residual (CmlSimulation *sim);
/* Moves Z (a state, in place) at time T onto the constraint set and its quaternions to
 * unit length, as the integrators do after every step; FALSE with the reason when it
 * cannot (Z is then partly moved). */
gboolean      cml_simulation_project (CmlSimulation *sim, double t, double *z, GError **error);
/* The regularity matrix at the current state (W, C or R_ab as the formalism has it;
 * NULL-free: *rows gives its size, 0 for the constraint algorithm). */
guint         cml_simulation_regularity_matrix (CmlSimulation *sim, double *out, guint max_entries);
guint64       cml_simulation_n_rhs (const CmlSimulation *sim);

/* Evaluates F at the current state (any expression of the model's context over
 * coordinates, velocities, momenta, reconstruction variables, parameters and t). */
double        cml_simulation_eval_expr (CmlSimulation *sim, CmlExpr *f);

/* Evaluates every scene property (cml_system_scene_offset) at the current state into OUT. */
void          cml_simulation_eval_scene (CmlSimulation *sim, double *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSimulation, cml_simulation_free)

G_END_DECLS
