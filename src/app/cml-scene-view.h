/* cml-scene-view.h — the 3-D view of the running model (a GtkGLArea with overlay buttons).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws the model's [scene …] objects at the newest frame with CmlSceneRenderer, keeps
 * the trails, and lets the user orbit (drag), zoom (scroll) and reset (double-click or
 * the button).  All calls from the main thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-runner.h"
#include "cml-scene-steer.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_SCENE_VIEW (cml_scene_view_get_type ())
G_DECLARE_FINAL_TYPE (CmlSceneView, cml_scene_view, CML, SCENE_VIEW, GtkWidget)

GtkWidget *cml_scene_view_new (void);

/* NULL allowed.  Clears the trails and frames the camera on the scene. */
void       cml_scene_view_set_system (CmlSceneView *self, CmlSystem *sys);
/* The newest state; keeps a reference and queues a redraw.  NULL allowed. */
void       cml_scene_view_set_frame (CmlSceneView *self, CmlFrame *frame);
/* History samples for the trails: N rows of N_COLS values, the scene values starting at
 * column N_OBS (rows are [observables…, scene values…]).  T (N times) may be NULL. */
void       cml_scene_view_push_samples (CmlSceneView *self, const double *t, const double *rows,
                                        guint n, guint n_cols, guint n_obs);
/* A new run: the trails start over and the camera frames the run again (as
 * cml_scene_view_frame_run). */
void       cml_scene_view_clear_trails (CmlSceneView *self);
/* The default direction of view, framing the run. */
void       cml_scene_view_reset_camera (CmlSceneView *self);
/* The camera follows what the run shows again (target and distance, the user's direction
 * of view kept) until the user turns or zooms. */
void       cml_scene_view_frame_run (CmlSceneView *self);
/* TRUE while the camera follows the run (FALSE once the user turned or zoomed). */
gboolean   cml_scene_view_get_auto_frame (CmlSceneView *self);
/* Trails drawn in the frame turned by each trail's frame-angle (the turntable's frame). */
void       cml_scene_view_set_table_frame (CmlSceneView *self, gboolean table_frame);
gboolean   cml_scene_view_get_table_frame (CmlSceneView *self);
/* Thick lines and larger points, for a projector. */
void       cml_scene_view_set_presentation (CmlSceneView *self, gboolean presentation);
void       cml_scene_view_set_dark (CmlSceneView *self, gboolean dark);
/* Dark or light, and high contrast (black or white background, thicker lines) or not. */
void       cml_scene_view_set_style (CmlSceneView *self, gboolean dark, gboolean high_contrast);
/* In presentation mode the legend's type is SCALE times its size (≥ 1: the window makes
 * it grow with its height); the legend's font size as drawn, in logical pixels. */
void       cml_scene_view_set_text_scale (CmlSceneView *self, double scale);
double     cml_scene_view_get_legend_font (CmlSceneView *self);

/* For tests: renders now and stores in *FRACTION the fraction of pixels that differ from
 * the background.  FALSE (and *FRACTION untouched) when no GL context could be made. */
gboolean   cml_scene_view_probe_pixels (CmlSceneView *self, double *fraction);

/* Comparing two runs: SYS's scene (NULL: none) drawn translucent over this one, with a
 * trail of its own, and a note naming it ("Faint: the LABEL run").  Its frames and
 * history rows (as for push_samples) come with the calls below. */
void       cml_scene_view_set_ghost (CmlSceneView *self, CmlSystem *sys, const char *label);
void       cml_scene_view_set_ghost_frame (CmlSceneView *self, CmlFrame *frame);
void       cml_scene_view_push_ghost_samples (CmlSceneView *self, const double *t, const double *rows,
                                              guint n, guint n_cols, guint n_obs);
void       cml_scene_view_clear_ghost_trails (CmlSceneView *self);
/* Dragging a body (a sphere, disc or point whose centre's x and y are base coordinates)
 * emits ::drag-initial (x name, x, y name, y, done) with the place it is put, in the
 * plane of its centre; dragging the tip of an arrow whose vector's x and y are velocities
 * ("vector = u, v, 0") emits it with the velocity the tip now shows; the camera turns
 * when the drag starts elsewhere.  drag_body does what a drag from widget point (X0, Y0)
 * to (X1, Y1) does (FALSE: nothing to drag there). */
gboolean   cml_scene_view_drag_body (CmlSceneView *self, double x0, double y0, double x1, double y1);
/* The view's point (in its own coordinates) where the first body that can be dragged has
 * its centre; FALSE if there is none. */
gboolean   cml_scene_view_get_body_point (CmlSceneView *self, double *x, double *y);
/* Where the world point P is drawn now, in the view's own coordinates (through the camera
 * of the last frame drawn); FALSE before the view has a size. */
gboolean   cml_scene_view_project_point (CmlSceneView *self, const double p[3], double *x, double *y);
/* Where the first moving body of the scene (a sphere, point or disc, model order) is drawn
 * now, in the view's own coordinates; FALSE if there is none. */
gboolean   cml_scene_view_get_moving_point (CmlSceneView *self, double *x, double *y);
/* The model's closed form ([reference]) drawn faint over the run — the bodies where the
 * closed form puts them, with their own trail — as the plots show it dashed.  Nothing
 * for a model without closed forms.  get_reference_scene: the closed form's scene values
 * at the newest frame (FALSE: none drawn) (tests). */
void       cml_scene_view_set_show_reference (CmlSceneView *self, gboolean show);
gboolean   cml_scene_view_get_reference_scene (CmlSceneView *self, const double **values, guint *n);
/* The note saying what is drawn faint (the second run, the closed form), or NULL. */
const char *cml_scene_view_get_ghost_note (CmlSceneView *self);

/* Steering to a target (cml-scene-shoot.h): with the "Steer to a Target" toggle on (or
 * Shift held) a click emits ::steer-target (x, y, z), the place the aimed scene object
 * should be at the end of the run — on its plane when one component is fixed (the
 * plate-ball's table z = 0), else on the plane through its present place facing the
 * camera.  The toggle is insensitive, its tooltip saying why, for a model that cannot be
 * steered.  aim_at does what a click at widget point (X, Y) does (FALSE: nothing to aim
 * at).  get_can_steer: whether the toggle is sensitive, *WHY its tooltip. */
gboolean    cml_scene_view_aim_at (CmlSceneView *self, double x, double y);
void        cml_scene_view_set_steering (CmlSceneView *self, gboolean on);
gboolean    cml_scene_view_get_can_steer (CmlSceneView *self, const char **why);
/* The card over the scene's top-left corner: a line (Pango MARKUP; NULL hides the card)
 * after a spinner (CML_STEER_NOTE_BUSY), the target's symbol (…_TARGET) or nothing
 * (…_NONE), with TOOLTIP (may be NULL); then a second line about the conjugate points
 * (NULL: none), after their symbol when SYMBOL.  A new note hides the second line.  get:
 * the lines' text, or NULL. */
void        cml_scene_view_set_steer_note (CmlSceneView *self, CmlSteerNote kind, const char *markup,
                                           const char *tooltip);
void        cml_scene_view_set_steer_conjugate_note (CmlSceneView *self, const char *markup, gboolean symbol);
const char *cml_scene_view_get_steer_note (CmlSceneView *self);
const char *cml_scene_view_get_steer_conjugate_note (CmlSceneView *self);
/* The target (TARGET: 3 values, NULL: no markers) and N conjugate points (POINTS: 3 values
 * each) marked over the scene, and framed; a new system clears them.  get: FALSE when
 * there is no target. */
void        cml_scene_view_set_steer_markers (CmlSceneView *self, const double *target, const double *points,
                                              guint n);
gboolean    cml_scene_view_get_steer_markers (CmlSceneView *self, double target[3], guint *n);
/* The planned path to the target (N points, 3 values each; NULL: none), dashed; its
 * length in points (tests); whether the target is drawn faint behind a sphere (tests);
 * the steering card's tooltip (tests). */
void        cml_scene_view_set_steer_path (CmlSceneView *self, const double *points, guint n);
guint       cml_scene_view_get_steer_path_length (CmlSceneView *self);
gboolean    cml_scene_view_get_steer_target_hidden (CmlSceneView *self);
const char *cml_scene_view_get_steer_tooltip (CmlSceneView *self);
/* The Geometry page's fan over the scene (cml-scene-fan.h): N_CURVES curves of
 * CML_SCENE_FAN_SAMPLES points (3 scene values each) from T0 to T_END, thin and faint, and
 * the wavefront at the time the run shows; NULL: none.  A new system clears it.  get: the
 * curves held and the wavefront's points last drawn (tests). */
void        cml_scene_view_set_fan (CmlSceneView *self, const double *points, guint n_curves, double t0,
                                    double t_end);
guint       cml_scene_view_get_fan (CmlSceneView *self, guint *front_points);

G_END_DECLS
