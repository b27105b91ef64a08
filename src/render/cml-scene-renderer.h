/* cml-scene-renderer.h — draws a model's [scene …] objects with OpenGL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The renderer knows the objects of one CmlSystem, keeps each trail's points (and the
 * discs that mark a trail every `every` seconds), and draws them for a flat array of
 * scene values (cml_simulation_eval_scene, CmlFrame.scene).  Z is up, right-handed; a
 * turntable lies in z = 0 and turns by its `angle` about z; a sphere's `attitude`
 * quaternion (q0 scalar) maps body to space.  A model without scene objects shows axes,
 * a grid and a point at the origin; one without a plane or turntable gets a faint grid
 * under it.  Display choices, not physics: a plane grows (in whole cells) to stay under
 * everything shown; points are never drawn smaller than about 1 % of the scene; a
 * `disc` with `every` leaves a translucent disc along the path every `every` seconds.
 *
 * No GTK here: it runs in a GtkGLArea and headlessly through EGL.  Every call needs the
 * GL context the renderer was made in to be current (the one thread that owns it).
 */
#pragma once

#include <glib.h>

#include "cml-camera.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean dark;          /* dark background (else light) */
  gboolean presentation;  /* thicker trails and grid lines, larger points, for a projector */
  gboolean table_frame;   /* trails with a frame-angle drawn in that turned frame, painted
                           * onto the turning table (the rolling ball's rosette) */
  double   scale;         /* device pixels per logical pixel (line widths); 1 */
  guint    samples;       /* multisample antialiasing: 0 or 1 = off, else 2, 4 … */
} CmlSceneStyle;

/* Light background, normal lines, lab frame, scale 1, 4× multisampling. */
CmlSceneStyle cml_scene_style_default (void);
/* The clear colour for STYLE (straight RGBA, 0..1). */
void          cml_scene_style_get_background (const CmlSceneStyle *style, float rgba[4]);

typedef struct _CmlSceneRenderer CmlSceneRenderer;

/* Compiles the shaders (GL 3.3 core or GLES 3.0, as the current context is) and makes
 * the meshes.  Needs a current context; errors carry the GLSL log. */
CmlSceneRenderer *cml_scene_renderer_new (GError **error);
/* Frees the GL objects too: call with the same context current. */
void              cml_scene_renderer_free (CmlSceneRenderer *r);

/* The objects to draw (NULL: none, the default axes).  Clears the trails and bounds. */
void cml_scene_renderer_set_system (CmlSceneRenderer *r, CmlSystem *sys);

/* Adds history samples to the trails: N rows of N_COLS doubles whose scene values start
 * at column SCENE_OFFSET, oldest first; T holds the N sample times (NULL: times unknown,
 * trails are then bounded by point count only).  Each trail keeps its last 20 000
 * points and at most its `length` seconds; each point remembers its frame-angle so that
 * the table-frame view can redraw old points.  No GL: any time, same thread. */
void cml_scene_renderer_push_trail_samples_timed (CmlSceneRenderer *r, const double *t,
                                                  const double *rows, guint n, guint n_cols,
                                                  guint scene_offset);
/* The same without times. */
void cml_scene_renderer_push_trail_samples (CmlSceneRenderer *r, const double *rows, guint n,
                                            guint n_cols, guint scene_offset);
void cml_scene_renderer_clear_trails (CmlSceneRenderer *r);
/* Points kept in trail number TRAIL (counting trails only, model order); for tests. */
guint cml_scene_renderer_get_trail_length (CmlSceneRenderer *r, guint trail);
/* TRUE if some trail has a frame-angle (the table-frame view means something). */
gboolean cml_scene_renderer_has_frame_angle (CmlSceneRenderer *r);

/* Box around everything shown since the last set_system/clear — the objects at
 * SCENE_VALUES (may be NULL) and at earlier values drawn, trail points as STYLE shows
 * them; planes excluded — for cml_camera_fit.  It only grows, so an auto-fitting camera
 * does not breathe with the motion. */
void cml_scene_renderer_get_bounds (CmlSceneRenderer *r, const double *scene_values,
                                    const CmlSceneStyle *style, double min[3], double max[3]);

/* Draws into the framebuffer bound now, viewport WIDTH × HEIGHT device pixels.
 * SCENE_VALUES (cml_system_n_scene_values of the system; NULL: only what needs no
 * values) is the newest state; STYLE NULL means the default. */
void cml_scene_renderer_draw (CmlSceneRenderer *r, const double *scene_values, const CmlCamera *cam,
                              int width, int height, const CmlSceneStyle *style);

/* Draws into an offscreen buffer and reads it back into RGBA (WIDTH × HEIGHT × 4 bytes,
 * top row first), for video export and tests.  FALSE if the framebuffer could not be
 * made. */
gboolean cml_scene_renderer_draw_to_pixels (CmlSceneRenderer *r, const double *scene_values,
                                            const CmlCamera *cam, int width, int height,
                                            const CmlSceneStyle *style, guint8 *rgba);

G_END_DECLS
