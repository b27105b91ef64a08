/* cml-scene-renderer.h — draws a model's [scene …] objects with OpenGL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The renderer knows the objects of one CmlSystem, keeps each trail's points (and the
 * discs that mark a trail every `every` seconds), and draws them for a flat array of
 * scene values (cml_simulation_eval_scene, CmlFrame.scene).  Z is up, right-handed; a
 * turntable lies in z = 0 and turns by its `angle` about z; a sphere's `attitude`
 * quaternion (q0 scalar) maps body to space.  A model without [scene …] groups gets a
 * default picture over its observables (cml_scene_values_are_observables): the state as
 * a point in space — its first three base coordinates, or base and fibre coordinates when
 * the base is smaller — and its path; with no system at all, axes, a grid and a point at
 * the origin.  A scene without a plane or turntable gets a faint grid under it.
 * Display choices, not physics: a plane grows (in whole cells) to stay under everything
 * shown; a turntable grows (about its fixed centre) to stay under what rolls on it, see
 * cml_scene_renderer_get_table_radius(); bodies (spheres, points, discs, arrows) are never
 * drawn under about 12 logical pixels across; a `disc` with `every` leaves a translucent
 * disc along the path every `every` seconds.  The legend (cml_scene_legend_*) names the
 * objects that have a `label`.
 *
 * No GTK here: it runs in a GtkGLArea and headlessly through EGL.  Every call needs the
 * GL context the renderer was made in to be current (the one thread that owns it).
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cml-camera.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean dark;          /* dark background (else light) */
  gboolean high_contrast; /* black or white background, a stronger grid, thicker trails
                           * (the desktop asks for high contrast) */
  gboolean presentation;  /* thicker trails and grid lines, larger points, for a projector */
  gboolean table_frame;   /* trails with a frame-angle drawn in that turned frame, painted
                           * onto the turning table (the rolling ball's rosette) */
  double   scale;         /* device pixels per logical pixel (line widths); 1 */
  guint    samples;       /* multisample antialiasing: 0 or 1 = off, else 2, 4 … */
  gboolean interactive;   /* the window's legend: says what can be dragged (not in
                           * exported pictures and videos) */
  gboolean ghost;         /* a second run drawn over a scene already drawn: translucent
                           * bodies and trails only (no background, grid, floor or table) */
  double   legend_width;  /* the legend's widest (Cairo units): longer lines wrap at word
                           * boundaries; 0: no limit */
} CmlSceneStyle;

/* Farther from the origin than this (in the scene's units, metres as a rule) nothing is
 * drawn: a run that runs away leaves finite values of 10¹⁹ and more, which framed would
 * shrink the whole picture to a dot (and overflow the GPU's single precision).  Trails
 * skip such points; the window draws the last state within it. */
#define CML_SCENE_FAR 1e9

/* Whether the N values V are all finite and within CML_SCENE_FAR. */
gboolean cml_scene_values_drawable (const double *v, guint n);

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

/* TRUE when SYS's model has no [scene …] groups: the renderer then draws its default
 * picture, and the values it takes everywhere below ("scene values") are the
 * observables instead (cml_system_n_observables of them; CmlFrame.obs, or the rows'
 * first columns).  No renderer needed, any thread. */
gboolean cml_scene_values_are_observables (CmlSystem *sys);

/* The objects to draw (NULL: none, the default axes).  Clears the trails and bounds. */
void cml_scene_renderer_set_system (CmlSceneRenderer *r, CmlSystem *sys);
/* The objects drawn: the model's, in its order, or the default picture's (a trail, then
 * a point).  For tests and the legend; no GL. */
guint       cml_scene_renderer_get_n_objects (CmlSceneRenderer *r);
const char *cml_scene_renderer_get_object_label (CmlSceneRenderer *r, guint object);
/* The radius turntable number OBJECT (model order, counting every object) is drawn with
 * at VALUES: the model's radius, or larger so that every body and trail point resting
 * on the table since the last set_system/clear has been on it (their farthest contact
 * point from the centre plus their radius), in steps of 1/8 of the model's radius.
 * NAN if OBJECT is no turntable.  No GL. */
double      cml_scene_renderer_get_table_radius (CmlSceneRenderer *r, guint object,
                                                 const double *values);
/* How large object number OBJECT is drawn on the screen at VALUES with CAM in a view of
 * WIDTH × HEIGHT device pixels: across for spheres, points and discs, the length for an
 * arrow, the diameter of a turntable, in device pixels, as if seen face on at its
 * depth; 0 for trails and planes.  No GL. */
double      cml_scene_renderer_get_drawn_size (CmlSceneRenderer *r, guint object,
                                               const double *values, const CmlCamera *cam,
                                               int width, int height,
                                               const CmlSceneStyle *style);

/* Adds history samples to the trails: N rows of N_COLS doubles whose scene values start
 * at column SCENE_OFFSET, oldest first; T holds the N sample times (NULL: times unknown,
 * trails are then bounded by point count only).  Each trail keeps its last 20 000
 * points and at most its `length` seconds; each point remembers its frame-angle so that
 * the table-frame view can redraw old points.  The objects at every sample join the
 * bounds (get_bounds) and the turntables' reach.  No GL: any time, same thread. */
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

/* What the camera frames (cml_camera_fit_points): the corners of the box around
 * everything shown since the last set_system/clear but the turntables (as get_bounds,
 * which it brings up to date), and each turntable's rim at the largest size it has been
 * drawn — its corners would frame empty space.  POINTS: a GArray of double[3], emptied
 * first.  No GL. */
void cml_scene_renderer_get_frame_points (CmlSceneRenderer *r, const double *scene_values,
                                          const CmlSceneStyle *style, GArray *points);

/* What a camera that follows the run frames (cml_camera_follow): POINTS, what is shown
 * now — the trails as kept (as STYLE shows them), the bodies' extents and the arrows at
 * SCENE_VALUES, each turntable's rim at the largest size it has been drawn — and BODIES,
 * the centres of the spheres, points and discs (what moves, for the eye to follow).
 * Unlike get_frame_points it forgets what the trails have dropped, so the view follows a
 * body that travels.  Both GArrays of double[3], emptied first.  No GL. */
void cml_scene_renderer_get_view_points (CmlSceneRenderer *r, const double *scene_values,
                                         const CmlSceneStyle *style, GArray *points, GArray *bodies);

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

/* The legend: a card naming every labelled object of SYS's scene (a swatch of its kind
 * and colour, then its label), and, when a trail has a frame-angle, the frame the paths
 * are drawn in under STYLE.  Sizes are Cairo units: logical pixels × STYLE->scale,
 * larger for presentation; colours follow STYLE->dark.  Cairo and Pango only (no GL, no
 * renderer): the window and the exported videos draw the same card. */
/* The card's texts, one per line (for tests and accessibility); empty when nothing is
 * labelled.  Free with g_strfreev. */
char   **cml_scene_legend_lines (CmlSystem *sys, const CmlSceneStyle *style);
/* The card's size; FALSE (and 0 × 0) when there is nothing to list. */
gboolean cml_scene_legend_measure (CmlSystem *sys, const CmlSceneStyle *style, double *width,
                                   double *height);
/* Draws the card with its top-left corner at CR's origin. */
void     cml_scene_legend_draw (CmlSystem *sys, cairo_t *cr, const CmlSceneStyle *style);
/* The card the legend and a video's clock sit on: W × H with corners of RADIUS, the scene's
 * background BG nearly opaque and a thin edge in INK, as thick as type of FONT pixels
 * asks (cml-scene-legend.c). */
void     cml_scene_draw_card (cairo_t *cr, double w, double h, double radius, const float bg[3],
                              const double ink[3], double font);
/* The legend's font size in the style, in Cairo units. */
double   cml_scene_legend_font_size (const CmlSceneStyle *style);

G_END_DECLS
