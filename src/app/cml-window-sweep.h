/* cml-window-sweep.h — the window's Sweep page: added to the side stack and tied to the
 * parameter panel and the run (cml-window-sweep.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-sweep-view.h"
#include "cml-window.h"

G_BEGIN_DECLS

/* Adds the page "sweep" to the side stack (after the template is built): a parameter's
 * "Sweep this parameter…" readies it and shows it, a sweep starts from the run's
 * integrator and initial values, a click on its curve sets the parameter. */
void          cml_window_sweep_init (CmlWindow *self);
/* The page (NULL once the window's widgets are gone). */
CmlSweepView *cml_window_sweep_view (CmlWindow *self);
/* Stops a sweep under way and forgets the runner (before the window frees it). */
void          cml_window_sweep_stop (CmlWindow *self);

G_END_DECLS
