/* cml-equations-panel.h — what the system is and how well the run keeps its invariants.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shows what the system is about and its references, the kind of system, the algebroid,
 * the regularity matrix's status (live, at the current state), for singular Lagrangians
 * the steps of the constraint algorithm, the live values of the conserved quantities
 * with their drift since t = 0, the other quantities (energies that are not conserved,
 * the constraint residual) with their values only, every state variable with its
 * meaning, and the derived equations as cml_system_describe_readable () writes them
 * (selectable).  All functions: UI thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-runner.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_EQUATIONS_PANEL (cml_equations_panel_get_type ())
G_DECLARE_FINAL_TYPE (CmlEquationsPanel, cml_equations_panel, CML, EQUATIONS_PANEL, GtkWidget)

GtkWidget *cml_equations_panel_new (void);

/* NULL allowed. */
void       cml_equations_panel_set_system (CmlEquationsPanel *self, CmlSystem *sys);
/* OBS: the observables at t = 0 of the current run of SYS; drifts are measured from it. */
void       cml_equations_panel_set_baseline (CmlEquationsPanel *self, CmlSystem *sys,
                                             const double *obs, guint n_obs);
/* Live values from FRAME (ignored unless it belongs to the panel's system).  The caller
 * decides the rate (a few times a second is plenty for reading). */
void       cml_equations_panel_update (CmlEquationsPanel *self, CmlFrame *frame);

/* For tests: the text of the derived equations, and the value label of monitor NAME. */
char      *cml_equations_panel_get_equations_text (CmlEquationsPanel *self);
const char *cml_equations_panel_get_monitor_text (CmlEquationsPanel *self, const char *name);
/* For tests: the inspector's verdict on the candidate NAME ("E_L", "p1", …), or NULL. */
const char *cml_equations_panel_get_verdict (CmlEquationsPanel *self, const char *name);
/* Whether the page's account is still being made on a worker (the typeset equations, the
 * verdicts): the page shows what is quick meanwhile. */
gboolean   cml_equations_panel_is_busy (CmlEquationsPanel *self);
/* The first equation of motion the page shows (free it), or NULL while there is none. */
char      *cml_equations_panel_get_first_equation (CmlEquationsPanel *self);

G_END_DECLS
