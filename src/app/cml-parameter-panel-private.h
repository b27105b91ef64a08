/* cml-parameter-panel-private.h — the panel's fields, for tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-parameter-panel.h"

G_BEGIN_DECLS

/* The spin button / slider of parameter NAME (NULL for a dropdown parameter or none). */
GtkSpinButton *cml_parameter_panel_get_param_spin (CmlParameterPanel *self, const char *name);
GtkRange      *cml_parameter_panel_get_param_scale (CmlParameterPanel *self, const char *name);
/* The spin button of initial value NAME, or NULL. */
GtkSpinButton *cml_parameter_panel_get_initial_spin (CmlParameterPanel *self, const char *name);
GtkDropDown   *cml_parameter_panel_get_preset_dropdown (CmlParameterPanel *self);
/* What "Apply & restart" and the preset's "Apply" buttons do. */
void           cml_parameter_panel_apply_initial (CmlParameterPanel *self);
void           cml_parameter_panel_apply_preset (CmlParameterPanel *self, guint index);
/* Why the last typed value was refused, while the message shows; else NULL. */
const char    *cml_parameter_panel_get_input_error (CmlParameterPanel *self);
/* The label that shows it (under the refused field), or NULL while none shows. */
GtkWidget     *cml_parameter_panel_get_input_error_widget (CmlParameterPanel *self);
/* What the wheel does over WIDGET (a slider or field of the panel): DY notches (or
 * pixels); TRUE when the panel scrolled instead of the value changing. */
gboolean       cml_parameter_panel_wheel_over (CmlParameterPanel *self, GtkWidget *widget, double dy,
                                               gboolean notches);
/* What a row's "Sweep this parameter…" does: emits ::sweep-requested for NAME. */
void           cml_parameter_panel_request_sweep (CmlParameterPanel *self, const char *name);

G_END_DECLS
