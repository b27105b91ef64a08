/* cml-system.h — the equations of motion derived from a model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CmlSystem holds what is derived once per model: the formalism (Euler–Lagrange,
 * Lagrange–d'Alembert, vakonomic, or the constraint algorithm for a singular
 * Lagrangian), the symbolic right-hand side and everything else compiled into
 * register programs whose slow inputs are the parameters.  It is immutable and may be
 * shared between threads.
 *
 * CmlSimulation, one run of a system, is declared in cml-simulation.h, above this header.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-model.h"

G_BEGIN_DECLS

typedef enum
{
  CML_FORMALISM_EULER_LAGRANGE, /* doc/theory.md §2 */
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
/* What the user should know (char*, for people): the model's warnings, then the
 * derivation's (an algebroid that is not a Lie algebroid, naming the model's file). */
const GPtrArray *cml_system_get_warnings (const CmlSystem *sys);
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
/* The same with the parameters' values PARAMS (in the model's order; NULL: the model's),
 * which the conserved-quantity inspector judges its candidates at. */
char       *cml_system_describe_readable_at (const CmlSystem *sys, const double *params);
/* The readable account without the conserved-quantity inspector's part (which takes
 * longer than the rest for a large system: the window shows its verdicts apart). */
char       *cml_system_describe_readable_equations (const CmlSystem *sys);

/* Whether the system was read from the derived-system cache rather than derived: its
 * model's text was derived before by this build of cmlab (cml-system-cache.c). */
gboolean    cml_system_was_cached (const CmlSystem *sys);

/* Evaluates the structure-equation residuals and returns the largest at random points
 * (for tests; 0 for a Lie algebroid). */
double      cml_system_structure_defect (const CmlSystem *sys);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSystem, cml_system_unref)

G_END_DECLS

G_BEGIN_DECLS

/* ---- the scene ------------------------------------------------------------------------ */

/* The model's scene objects' properties, evaluated together into one flat array. */
guint    cml_system_n_scene_values (const CmlSystem *sys);
/* Offset of property KEY ("center", "radius", …) of scene object number OBJECT
 * (model->scene order) in the flat array, or -1 if that object does not set it. */
int      cml_system_scene_offset (const CmlSystem *sys, guint object, const char *key);

G_END_DECLS
