/* cml-window-steer.h — steering the run to a target clicked in the 3-D view: the window's
 * side of the shooting (cml-scene-shoot.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * UI thread.  A click while aiming (the scene view's ::steer-target) shoots, on a worker,
 * from the run's initial state (its momenta the guess) with the window's integrator to the
 * point clicked at T — the run's current time, or CML_SCENE_SHOOT_DEFAULT_T before it has
 * run.  Found: the run restarts from the momenta found (one step to undo) and the scene
 * marks the target and the conjugate points; not found: the reason, and nothing changes.
 * A second click, a model change or cml_window_steer_cancel drops a shooting under way;
 * another start of the run or another parameter value drops it too, and the markers.
 */
#pragma once

#include "cml-window.h"

G_BEGIN_DECLS

/* Connects the scene view's clicks (from the window's init). */
void     cml_window_steer_init (CmlWindow *self);
/* Shoots to TARGET (3: a value per component of the aimed scene object's position; the
 * fixed ones ignored) at T_END (<= 0: as a click would choose it).  FALSE with the reason
 * when this model cannot be steered; else the shooting runs. */
gboolean cml_window_steer_to (CmlWindow *self, const double target[3], double t_end, GError **error);
/* The same with N values for the aim's targets in order (--target X,Y) at T_END (<= 0:
 * CML_SCENE_SHOOT_DEFAULT_T), once the window shows its model; errors are printed. */
void     cml_window_steer_when_ready (CmlWindow *self, const double *values, guint n, double t_end);
void     cml_window_steer_cancel (CmlWindow *self);
gboolean cml_window_steer_is_running (CmlWindow *self);
/* The target of the newest shooting (FALSE: none yet) (tests). */
gboolean cml_window_steer_get_target (CmlWindow *self, double target[3]);
/* The end time a click would shoot to now. */
double   cml_window_steer_end_time (CmlWindow *self);

G_END_DECLS
