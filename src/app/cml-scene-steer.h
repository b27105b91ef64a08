/* cml-scene-steer.h — the 3-D view's layer for steering to a target: the point of a plane
 * under the pointer, the markers of the target and the conjugate points, and the card
 * saying what they are.  Main thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-camera.h"
#include "cml-scene-renderer.h"
#include "cml-system.h"

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

/* What the card's first line follows: a spinner (BUSY), the target's symbol (TARGET) or
 * nothing (NONE). */
typedef enum
{
  CML_STEER_NOTE_NONE,
  CML_STEER_NOTE_BUSY,
  CML_STEER_NOTE_TARGET,
} CmlSteerNote;

/* The layer of a view: the markers' drawing area over OVERLAY, the card at the end of
 * CORNER (MARGIN from the view's left edge); CAMERA and STYLE are the view's, read when
 * drawing. */
typedef struct _CmlSceneSteer CmlSceneSteer;
CmlSceneSteer *cml_scene_steer_new (GtkOverlay *overlay, GtkBox *corner, int margin, const CmlCamera *camera,
                                    const CmlSceneStyle *style);
void           cml_scene_steer_free (CmlSceneSteer *s);
/* The steering toggle's tooltip for SYS; *OK: whether it can be steered. */
char          *cml_scene_steer_button_tip (CmlSystem *sys, gboolean *ok);
/* The target a click at (WX, WY) of a view of W × H sets, from the scene VALUES of the
 * newest frame (cml-scene-shoot.h's aim; rounded to what a pixel shows): FALSE when
 * there is nothing to aim at. */
gboolean       cml_scene_steer_point_at (CmlSceneSteer *s, CmlSystem *sys, const double *values, int w, int h,
                                         double wx, double wy, double p[3]);
/* As cml_scene_view_set_steer_note and the calls after it (cml-scene-view.h). */
void           cml_scene_steer_set_note (CmlSceneSteer *s, CmlSteerNote kind, const char *markup,
                                         const char *tooltip);
void           cml_scene_steer_set_conjugate_note (CmlSceneSteer *s, const char *markup, gboolean symbol);
const char    *cml_scene_steer_get_note (CmlSceneSteer *s);
const char    *cml_scene_steer_get_conjugate_note (CmlSceneSteer *s);
void           cml_scene_steer_set_markers (CmlSceneSteer *s, const double *target, const double *points, guint n);
gboolean       cml_scene_steer_get_markers (CmlSceneSteer *s, double target[3], guint *n);
/* The target and the conjugate points, for the camera to frame (3 doubles each). */
void           cml_scene_steer_add_frame_points (CmlSceneSteer *s, GArray *points);
/* The planned path (N points, 3 values each; NULL: none), drawn dashed with the markers;
 * cleared with the markers. */
void           cml_scene_steer_set_path (CmlSceneSteer *s, const double *points, guint n);
guint          cml_scene_steer_get_path_length (CmlSceneSteer *s);
/* Whether the target is drawn faint, hidden behind a sphere as the scene was last drawn. */
gboolean       cml_scene_steer_get_target_hidden (CmlSceneSteer *s);
/* The card's tooltip (NULL: no card or no tooltip). */
const char    *cml_scene_steer_get_tooltip (CmlSceneSteer *s);
/* After the scene is drawn: the markers follow its camera; SYS and its scene VALUES (may
 * be NULL) as drawn, to draw faint what a sphere hides. */
void           cml_scene_steer_queue_draw (CmlSceneSteer *s, CmlSystem *sys, const double *values);

G_END_DECLS
