/* cml-window-geometry.h — the window's Geometry page: added to the side stack and tied to
 * the parameter panel and the run (cml-window-geometry.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-geometry-view.h"
#include "cml-window.h"

G_BEGIN_DECLS

/* Adds the page "geometry" to the side stack after "sweep" (after the template is built):
 * a fan starts from the run's integrator and initial values; a click on its wavefront
 * starts the run on that extremal (one step to undo). */
void             cml_window_geometry_init (CmlWindow *self);
/* The page (NULL once the window's widgets are gone). */
CmlGeometryView *cml_window_geometry_view (CmlWindow *self);
/* The page follows the window's system SYS (NULL: none): its tab is shown only for a
 * vakonomic model. */
void             cml_window_geometry_set_system (CmlWindow *self, CmlSystem *sys);
/* Shows the page and draws its fan (its fields as they are) once the run shows the model:
 * the command line's --page geometry.  Nothing for a model that is not vakonomic. */
void             cml_window_geometry_run_when_ready (CmlWindow *self);
/* Stops a fan under way and forgets the runner (before the window frees it). */
void             cml_window_geometry_stop (CmlWindow *self);

G_END_DECLS
