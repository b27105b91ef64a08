/* cml-scene-fan.h — the 3-D view's layer for the Geometry page's fan of extremals: at most
 * CML_SCENE_FAN_MAX_CURVES of its extremals drawn as thin faint curves over the scene, and
 * the wavefront at the time the run shows as dots, following the camera.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-camera.h"
#include "cml-scene-renderer.h"

G_BEGIN_DECLS

/* The extremals drawn (every ⌈N/100⌉-th of a fan of N) and the points along each (equal
 * steps of [t0, T], both ends included). */
#define CML_SCENE_FAN_MAX_CURVES 100
#define CML_SCENE_FAN_SAMPLES    65

typedef struct _CmlSceneFan CmlSceneFan;

/* A layer over OVERLAY drawn with CAMERA and STYLE (the view's, which outlive it). */
CmlSceneFan *cml_scene_fan_new (GtkOverlay *overlay, const CmlCamera *camera, const CmlSceneStyle *style);
void         cml_scene_fan_free (CmlSceneFan *f);
/* N_CURVES curves (≤ CML_SCENE_FAN_MAX_CURVES) of CML_SCENE_FAN_SAMPLES points each, at the
 * scene's coordinates (POINTS: 3 values a point, curve after curve), from T0 to T_END;
 * NULL or 0: none (the layer is cleared). */
void         cml_scene_fan_set (CmlSceneFan *f, const double *points, guint n_curves, double t0, double t_end);
/* Draws again for the time T the run shows (the wavefront there, when in [t0, T_END]). */
void         cml_scene_fan_queue_draw (CmlSceneFan *f, double t);
/* Adds to POINTS (double triples) what framing the view keeps in sight: every fourth point
 * of each curve. */
void         cml_scene_fan_add_frame_points (CmlSceneFan *f, GArray *points);
/* The curves held, and the wavefront's points at the time last drawn (tests). */
guint        cml_scene_fan_get_curves (CmlSceneFan *f, guint *front_points);

G_END_DECLS
