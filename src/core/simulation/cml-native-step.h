/* cml-native-step.h — a system's whole integration step as native code.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The DOP853 step (cml-dop853-core.h) written out as C with the system's right-hand side
 * inlined (the C of cml_program_emit_c as a static inline function in the same translation
 * unit) and the dimension a compile-time constant; cml-system-native.c compiles it with
 * cml_native_build () (the same cache) and a simulation running dop853 takes its steps
 * there.  The numbers are those of the generic step, bit for bit.  Likewise rk8pd's step
 * (cml-rk8pd-core.h), whose numbers are GSL's.
 */
#pragma once

#include <glib.h>
#include <math.h>

#include "cml-pivot-check-core.h"
#include "cml-dop853-core.h"
#include "cml-rk8pd-core.h"
#include "cml-native.h"
#include "cml-project-core.h"
#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

/* The generator's version: part of the source, hence of the cache key. */
#define CML_NATIVE_STEP_VERSION 3

/* The exported function's name and type: one accepted step (cml-dop853-core.h's contract),
 * the right-hand side called with AUX, the prepared registers R and the pivot outputs O1,
 * which are checked as PC says; then, when PJ is given and the source has a projection, the
 * end of the step taken projected by it (cml-project-core.h, CML_PJ_FUSED_FN: PJ->done). */
#define CML_NATIVE_STEP_DOP853 "cml_dop853_step"
typedef int (*CmlNativeDop853Func) (CmlDop853Step *step, const double *aux, const double *R,
             double *o1, const CmlDop853Pivots *pc, CmlProjectFused *pj);

/* Appends the C source of the step for the right-hand side RHS_PROG (DIM state components,
 * its first DIM outputs the derivatives, the rest the pivots), with PROJECTION: C text that
 * defines CmlProjectFused (cml-project-core.h's text) and, for a system whose states are
 * projected, the fused projection cml_pj_fused (CML_PJ_FUSED_FN).  FALSE when the program
 * cannot be written out. */
gboolean cml_native_step_dop853_source (const CmlProgram *rhs_prog, guint dim,
                                        const char *projection, GString *s);

/* The rk8pd step (cml-rk8pd-core.h's contract), called likewise. */
#define CML_NATIVE_STEP_RK8PD "cml_rk8pd_step"
typedef int (*CmlNativeRk8pdFunc) (CmlRk8pdStep *step, const double *aux, const double *R,
             double *o1, const CmlDop853Pivots *pc, CmlProjectFused *pj);
gboolean cml_native_step_rk8pd_source (const CmlProgram *rhs_prog, guint dim,
                                       const char *projection, GString *s);

/* Builds (or loads from the cache) the native step of SIM's integrator now, not on its first
 * step (rk8pd builds it then): for a caller that must not wait in the middle of a run. */
void     cml_simulation_prepare_native_step (CmlSimulation *sim);

/* How many steps of SIM's integrator native code took (dop853 or rk8pd with a native step). */
guint64  cml_simulation_n_native_steps (const CmlSimulation *sim);

/* How many projections of SIM's states native code made (cml-project-core.h compiled
 * around the system's constraint functions), and how many of them the native steps made
 * themselves, fused into the step (dop853, rk8pd, taylor). */
guint64  cml_simulation_n_native_projections (const CmlSimulation *sim);
guint64  cml_simulation_n_fused_projections (const CmlSimulation *sim);

G_END_DECLS
