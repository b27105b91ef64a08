/* cml-system.h — equations of motion derived from a model, and a simulation of them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CmlSystem holds what is derived once per model: the formalism (Euler–Lagrange,
 * Lagrange–d'Alembert, vakonomic, or the constraint algorithm for a singular
 * Lagrangian), the symbolic right-hand side and everything else compiled into
 * register programs whose slow inputs are the parameters.  It is immutable and may be
 * shared between threads.
 *
 * CmlSimulation is one run: parameter values, state, time, integrator and the scratch
 * memory, all allocated when it is made.  A simulation belongs to one thread at a time.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-model.h"

G_BEGIN_DECLS

typedef enum
{
  CML_FORMALISM_EULER_LAGRANGE, /* docs/theory.md §2 */
  CML_FORMALISM_NONHOLONOMIC,   /* §3b, Lagrange–d'Alembert */
  CML_FORMALISM_VAKONOMIC,      /* §3c, Hamiltonian form on W1 */
  CML_FORMALISM_SINGULAR,       /* §3d, constraint algorithm with the SODE condition */
} CmlFormalism;

const char *cml_formalism_to_string (CmlFormalism f);

typedef struct _CmlSystem CmlSystem;

/* Derives the equations of motion.  Errors name the model file and line. */
CmlSystem  *cml_system_new (CmlModel *model, GError **error);
CmlSystem  *cml_system_ref (CmlSystem *sys);
void        cml_system_unref (CmlSystem *sys);

CmlModel   *cml_system_get_model (const CmlSystem *sys);
CmlFormalism cml_system_get_formalism (const CmlSystem *sys);
/* The state: base coordinates, then fibre coordinates (momenta for a vakonomic system),
 * then reconstruction variables. */
guint       cml_system_dim (const CmlSystem *sys);
const char *cml_system_state_name (const CmlSystem *sys, guint i);

/* Observables: every named quantity of a state — coordinates, velocities, momenta,
 * reconstruction variables, definitions, monitors, and "residual" (the norm of the
 * constraint functions) where there are constraints. */
guint       cml_system_n_observables (const CmlSystem *sys);
const char *cml_system_observable_name (const CmlSystem *sys, guint i);
int         cml_system_observable_index (const CmlSystem *sys, const char *name);

/* TRUE if the structure equations of a Lie algebroid hold (else it is run as a general
 * algebroid, and the model's warnings say so). */
gboolean    cml_system_is_lie_algebroid (const CmlSystem *sys);
/* Steps of the constraint algorithm, for a person (singular systems; else empty). */
const GPtrArray *cml_system_algorithm_steps (const CmlSystem *sys);
/* Whether the constraint algorithm left gauge freedom (kernel directions set to 0). */
gboolean    cml_system_has_gauge_freedom (const CmlSystem *sys);
/* A readable account: kind, algebroid, Lagrangian, constraints, derived equations,
 * regularity, invariants, and the constraint algorithm's steps. */
char       *cml_system_describe (const CmlSystem *sys);
/* The same account typeset for reading (cml_expr_print_pretty: Ω, k₂, r², u̇ = …), with
 * what the model says about itself (about, references, the meanings of the variables)
 * and its conserved quantities apart from the others.  For people, not for parsing. */
char       *cml_system_describe_readable (const CmlSystem *sys);

/* Evaluates the structure-equation residuals and returns the largest at random points
 * (for tests; 0 for a Lie algebroid). */
double      cml_system_structure_defect (const CmlSystem *sys);

/* ---- a simulation ------------------------------------------------------------------ */

typedef struct _CmlSimulation CmlSimulation;

/* Parameters at their defaults, initial data from the model, t = 0, the default
 * integrator.  The model's initial data are only where a run starts when nothing else is
 * given: when they cannot be used as they are (not on the constraint set, not regular),
 * the simulation is still made, holding them unsolved, and cml_simulation_advance() fails
 * with that reason until cml_simulation_reset() succeeds — so values given to the reset
 * (--init, the window) are merged before anything is solved.  Call
 * cml_simulation_reset (sim, NULL, …) to check the model's own data. */
CmlSimulation *cml_simulation_new (CmlSystem *sys, GError **error);
void           cml_simulation_free (CmlSimulation *sim);
CmlSystem     *cml_simulation_get_system (const CmlSimulation *sim);

gboolean cml_simulation_set_param (CmlSimulation *sim, const char *name, double value, GError **error);
double   cml_simulation_get_param (const CmlSimulation *sim, const char *name);
/* Replaces the integrator (and resets it). */
gboolean cml_simulation_set_integrator (CmlSimulation *sim, const CmlIntegratorOptions *options, GError **error);
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

/* Native code (cml-native.h): the right-hand side, its Jacobian and the constraint
 * functions run as machine code compiled from the model when a C compiler is at hand, and
 * through the interpreter otherwise — bit for bit the same numbers either way.
 * cml_system_native_status() builds it if not yet tried and returns NULL when native code
 * is in use, else why not.  A new simulation uses native code when there is some;
 * cml_simulation_set_native() switches (FALSE: the interpreter) and returns whether
 * native code now runs. */
const char   *cml_system_native_status (CmlSystem *sys);
gboolean      cml_simulation_set_native (CmlSimulation *sim, gboolean native);
gboolean      cml_simulation_is_native (const CmlSimulation *sim);
/* Norm of the constraint functions at the current state (0 without constraints). */
double        cml_simulation_residual (CmlSimulation *sim);
/* The regularity matrix at the current state (W, C or R_ab as the formalism has it;
 * NULL-free: *rows gives its size, 0 for the constraint algorithm). */
guint         cml_simulation_regularity_matrix (CmlSimulation *sim, double *out, guint max_entries);
guint64       cml_simulation_n_rhs (const CmlSimulation *sim);

/* Evaluates F at the current state (any expression of the model's context over
 * coordinates, velocities, momenta, reconstruction variables, parameters and t). */
double        cml_simulation_eval_expr (CmlSimulation *sim, CmlExpr *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSystem, cml_system_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSimulation, cml_simulation_free)

G_END_DECLS

G_BEGIN_DECLS

/* ---- the scene ------------------------------------------------------------------------ */

/* The model's scene objects' properties, evaluated together into one flat array. */
guint    cml_system_n_scene_values (const CmlSystem *sys);
/* Offset of property KEY ("center", "radius", …) of scene object number OBJECT
 * (model->scene order) in the flat array, or -1 if that object does not set it. */
int      cml_system_scene_offset (const CmlSystem *sys, guint object, const char *key);
/* Evaluates every scene property at the current state into OUT. */
void     cml_simulation_eval_scene (CmlSimulation *sim, double *out);

/* ---- brackets (docs/theory.md §6) ------------------------------------------------------- */

/* The linear Poisson bracket of E* (= the vakonomic bracket on W1, seed 000 Cor. 5.9):
 *   {F,G} = ρ^i_A (F_x^i G_p_A − F_p_A G_x^i) − C^C_AB p_C F_p_A G_p_B
 * for F, G functions of (t, x, p): symbolic, in the model's context. */
CmlExpr *cml_system_poisson_bracket (CmlSystem *sys, CmlExpr *f, CmlExpr *g);

/* The nonholonomic bracket {f, g}_nh of two functions of (t, x, y) at the simulation's
 * current state (which must lie on the constraint set):
 *   {f,g}_nh = − df_Eᵀ B (Bᵀ O B)⁻¹ Bᵀ dg_E,  df_E = (ρᵀ ∂f/∂x ; ∂f/∂y),
 * with O the Cartan 2-section's matrix and B a basis of T^νM.  Nonholonomic systems only. */
gboolean cml_simulation_nonholonomic_bracket (CmlSimulation *sim, CmlExpr *f, CmlExpr *g,
                                              double *value, GError **error);

G_END_DECLS
