/* cml-reference.h — closed-form references: what a run must reproduce, evaluated beside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A model's [reference] group (doc/model-format.md) gives, for some observables, the closed
 * form of the solution or the value a conserved quantity must keep, as expressions in t,
 * the parameters and the observables' values at t = 0 (NAME_0).  CmlReference compiles
 * them into one register program (cml_program_compile: the parameters and the values at
 * t = 0 are its slow inputs, t the fast one) and evaluates them at any time, so that the
 * CSV/JSON output, the plots and the tests can compare a run with its closed form.
 */
#pragma once

#include <glib.h>

#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

typedef struct _CmlReference CmlReference;

/* The closed forms of SYS's model, compiled.  Returns NULL without an error when the model
 * has no [reference] group.  Compiling adds to the model's expression context: call it on
 * the thread that owns the model (the UI thread, or the CLI's only one). */
CmlReference *cml_reference_new (CmlSystem *sys, GError **error);
void          cml_reference_free (CmlReference *ref);

/* The number of references, and for each the observable it is the closed form of: its
 * name and its index among the system's observables. */
guint         cml_reference_get_n (const CmlReference *ref);
const char   *cml_reference_get_name (const CmlReference *ref, guint i);
int           cml_reference_get_observable (const CmlReference *ref, guint i);
/* The index of the reference of observable NAME, or -1. */
int           cml_reference_find (const CmlReference *ref, const char *name);

/* Where the closed forms start: PARAMS, the parameter values (model order), and OBS0,
 * every observable of the system at t = 0 (cml_simulation_observe order).  Call again
 * after a reset or a change of parameters. */
void          cml_reference_start (CmlReference *ref, const double *params, const double *obs0);
/* The same for a start at T0: OBS0 are the values at T0, and the closed forms are
 * evaluated at the time elapsed since, t − T0 (see cml_reference_check_start). */
void          cml_reference_start_at (CmlReference *ref, double t0, const double *params,
                                      const double *obs0);
/* Whether the closed forms hold for a start at T0: not when one is written in t and the
 * equations of motion depend on t (it holds for a start at t = 0 only); then FALSE with
 * an error that says so. */
gboolean      cml_reference_check_start (const CmlReference *ref, double t0, GError **error);
/* The same from SIM at its current time (just after cml_simulation_reset or
 * cml_simulation_reset_at). */
void          cml_reference_start_from_simulation (CmlReference *ref, CmlSimulation *sim);
/* Whether a start was given since the reference was made. */
gboolean      cml_reference_is_started (const CmlReference *ref);

/* The closed forms at time T into VALUES (cml_reference_get_n values).  No allocation. */
void          cml_reference_eval (CmlReference *ref, double t, double *values);
/* The closed forms at T into VALUES and, given OBS (every observable at T), the errors
 * OBS − VALUES into ERRORS (either may be NULL).  No allocation. */
void          cml_reference_compare (CmlReference *ref, double t, const double *obs, double *values,
                                     double *errors);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlReference, cml_reference_free)

G_END_DECLS
