/* cml-scene-steer.h — the 3-D view's geometry for steering to a target: the point of a
 * plane under the pointer, and the markers of the target and the conjugate points.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cml-camera.h"

G_BEGIN_DECLS

/* Marker colours (RGB), shared by the markers and the legend's symbols. */
#define CML_STEER_TARGET_RGB     0.85, 0.10, 0.45
#define CML_STEER_CONJUGATE_RGB  0.40, 0.20, 0.75

/* The point O + a U + b V of the plane through O spanned by U and V that CAM (a view of
 * W × H logical pixels) shows at (WX, WY), into OUT; FALSE where the plane is seen
 * edge-on or behind the eye. */
gboolean cml_scene_steer_plane_point (const CmlCamera *cam, int w, int h, double wx, double wy,
                                      const double o[3], const double u[3], const double v[3], double out[3]);

/* Draws the target (a ring with a cross; TARGET may be NULL) and the conjugate points
 * (N dots at POINTS, 3 values each) as CAM shows them in a view of W × H; SCALE enlarges
 * them (presentation). */
void     cml_scene_steer_draw_markers (cairo_t *cr, const CmlCamera *cam, int w, int h, const double *target,
                                       const double *points, guint n, double scale);

/* The two symbols alone, centred at (X, Y) (the markers, and the card's legend). */
void     cml_scene_steer_draw_target_symbol (cairo_t *cr, double x, double y, double scale);
void     cml_scene_steer_draw_conjugate_symbol (cairo_t *cr, double x, double y, double scale);

G_END_DECLS
