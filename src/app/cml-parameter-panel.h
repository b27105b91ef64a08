/* cml-parameter-panel.h — parameters, presets and initial conditions of the running model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Generated from the model's metadata: a slider with a spin button, the unit and the
 * meaning (tooltip) for every parameter within its range (a dropdown for a parameter
 * with a set of allowed values); the model's named presets; a spin button per initial
 * value and "Apply & restart".
 *
 * The panel does not talk to the runner: it emits ::param-changed on every change of a
 * slider or spin button (so a drag reaches the worker at once) and ::restart-requested
 * with the initial values to start from.  After a restart, the window hands it the first
 * sample of the new run (cml_parameter_panel_show_initial) and the panel shows the values
 * actually used, with a note when the constraints projected some of them.
 * All functions: UI thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_PARAMETER_PANEL (cml_parameter_panel_get_type ())
G_DECLARE_FINAL_TYPE (CmlParameterPanel, cml_parameter_panel, CML, PARAMETER_PANEL, GtkWidget)

GtkWidget  *cml_parameter_panel_new (void);

/* Rebuilds the panel for SYS (NULL: empty) with the parameters at their defaults and
 * the model's initial data. */
void        cml_parameter_panel_set_system (CmlParameterPanel *self, CmlSystem *sys);
CmlSystem  *cml_parameter_panel_get_system (CmlParameterPanel *self);

/* OBS: the observables of the first sample of a new run of SYS (t = 0).  Shows them in
 * the initial-condition fields and, if the last restart asked for values the run did not
 * start from, says which were projected onto the constraint set. */
void        cml_parameter_panel_show_initial (CmlParameterPanel *self, CmlSystem *sys,
                                              const double *obs, guint n_obs);

/* The initial values last applied (name -> double*), or NULL for the model's own; what a
 * plain reset starts from.  Owned by the panel. */
GHashTable *cml_parameter_panel_get_given (CmlParameterPanel *self);

/* A parameter set as its slider would set it (checked against its range). */
gboolean    cml_parameter_panel_set_param (CmlParameterPanel *self, const char *name, double value,
                                           GError **error);
/* Gives VALUES (name -> double*) as typed initial values and restarts from them, as
 * "Apply & restart" does (names that are not initial values: an error, nothing changed). */
gboolean    cml_parameter_panel_start_from (CmlParameterPanel *self, GHashTable *values,
                                            GError **error);

/* The same as one step of a drag: NEW_STEP FALSE adds no step to undo (the drag's first
 * call made it). */
gboolean    cml_parameter_panel_start_from_step (CmlParameterPanel *self, GHashTable *values,
                                                 gboolean new_step, GError **error);
/* Undo and redo the last change of parameters or initial data (a preset, Defaults and
 * "Apply & restart" are one step each; a slider's drag is one step).  FALSE when there is
 * nothing to undo or redo. */
gboolean    cml_parameter_panel_undo (CmlParameterPanel *self);
gboolean    cml_parameter_panel_redo (CmlParameterPanel *self);

/* The note about projected values ("" when there is none). */
/* Hides the values of the parameters NAMES (NULL-terminated; NULL: none) from the people
 * watching, as a lesson step asks: each shows "?", its slider and field locked, TOOLTIP
 * saying why; every other parameter shows its value again and can be changed. */
void        cml_parameter_panel_set_hidden (CmlParameterPanel *self, const char *const *names,
                                            const char *tooltip);
gboolean    cml_parameter_panel_is_hidden (CmlParameterPanel *self, const char *name);
const char *cml_parameter_panel_get_projection_note (CmlParameterPanel *self);

G_END_DECLS
