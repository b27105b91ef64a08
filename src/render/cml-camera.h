/* cml-camera.h — the orbit camera of the 3-D scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The eye circles TARGET at DISTANCE; YAW is its azimuth about the vertical z axis
 * (from +x, counter-clockwise seen from above) and PITCH its elevation above the
 * horizontal plane.  While AUTO_FIT is set the camera follows the scene's bounds (they
 * only grow), so a trail that wanders off stays in view; turning or zooming by hand
 * clears it (the user's view is kept) and a reset or a new run sets it again.  The
 * window and `cmlab-cli render` frame the scene with the same cml_camera_fit().  A plain
 * value type: copy it freely.  No GL, any thread.
 */
#pragma once

#include <glib.h>

#include "cml-gl.h"

G_BEGIN_DECLS

typedef struct
{
  double   yaw;        /* radians */
  double   pitch;      /* radians, clamped to (−π/2, π/2) */
  double   distance;   /* eye to target, world units */
  double   target[3];  /* world point looked at */
  double   fovy;       /* vertical field of view, radians */
  gboolean auto_fit;   /* follow cml_camera_fit() (see above) */
  gboolean settled;    /* cml_camera_follow() has framed the run once (else it jumps) */
  gboolean easing;     /* cml_camera_follow() is gliding towards a new framing */
} CmlCamera;

/* The default view: from the front right, a little above, auto-fit on. */
void cml_camera_init (CmlCamera *cam);
/* Back to the default direction, auto-fit on; keeps the target and distance until the
 * next fit. */
void cml_camera_reset (CmlCamera *cam);
/* Fraction of the half-view left free at each edge by cml_camera_fit(). */
#define CML_CAMERA_FIT_MARGIN 0.06

/* What covers the view's corners and so is kept free of the picture: the scene's legend
 * in the bottom-left corner and the buttons in the top-right one, each as its width and
 * height in fractions of the view's (0, 0: nothing there).  The picture takes the part of
 * the view beside or beyond each (the columns right of the legend or the rows above it;
 * the columns left of the buttons or the rows below them), whichever leaves it largest; a
 * corner more than CML_CAMERA_KEEP_OUT_MAX of the view across can only be passed by the
 * rows beyond it. */
typedef struct
{
  double legend[2];   /* bottom left */
  double buttons[2];  /* top right */
} CmlCameraKeepOut;
#define CML_CAMERA_KEEP_OUT_MAX 0.45

/* Sets target and distance, keeping the direction, so that the box [MIN, MAX] is as large
 * as it can be in a view of ASPECT (width / height) with every corner inside the view,
 * CML_CAMERA_FIT_MARGIN from its edges (exact for the perspective: the eye is moved
 * sideways as well as back, so a box seen at a slant is not pushed off-centre), and off
 * the corners KEEP_OUT covers (NULL: none).  Everything inside the box then projects
 * inside that part of the view too.  Only when auto-fit is on, unless FORCE. */
void cml_camera_fit (CmlCamera *cam, const double min[3], const double max[3], double aspect,
                     const CmlCameraKeepOut *keep_out, gboolean force);
/* The same for the N points XYZ (x, y, z each): all of them inside, and so everything in
 * their convex hull. */
void cml_camera_fit_points (CmlCamera *cam, const double *xyz, guint n, double aspect,
                            const CmlCameraKeepOut *keep_out, gboolean force);
/* Whether the point at NDC (x, y) of the view lies under a corner KEEP_OUT covers. */
gboolean cml_camera_kept_out (const CmlCameraKeepOut *keep_out, double x, double y);
/* Following a run (the window): the moving bodies are held CML_CAMERA_BODY_MARGIN of the
 * half-view farther from the edges than what is shown; the view holds still while they
 * are within CML_CAMERA_FOLLOW_SOFT of the half-view, and else glides to a new framing
 * with the time constant CML_CAMERA_FOLLOW_TIME (seconds), never letting them pass
 * CML_CAMERA_FOLLOW_HARD. */
#define CML_CAMERA_BODY_MARGIN 0.3
#define CML_CAMERA_FOLLOW_SOFT 0.72
#define CML_CAMERA_FOLLOW_HARD 0.8
#define CML_CAMERA_FOLLOW_TIME 0.3

/* Frames what a running scene shows now — the N points XYZ (trails as kept, tables' rims,
 * corners of boxes) and the N_BODIES points BODIES (the centres of what moves) — as
 * cml_camera_fit_points does, with the bodies held well inside the view (see above); the
 * view moves smoothly: it holds still while the framing is good enough, and glides
 * towards the fit otherwise, DT seconds after the last call.  The first call after init,
 * reset or a cleared SETTLED goes straight to the fit.  Only when auto-fit is on. */
void cml_camera_follow (CmlCamera *cam, const double *xyz, guint n, const double *bodies, guint n_bodies,
                        double aspect, const CmlCameraKeepOut *keep_out, double dt);
/* Where the world point P lands in normalized device coordinates (x right, y up, −1 … 1
 * inside the view; z −1 … 1 between the near and far planes) for a view of ASPECT. */
void cml_camera_project (const CmlCamera *cam, double aspect, const double p[3], double ndc[3]);
/* World units per pixel, at depth DEPTH (eye to point, along the view direction), for a
 * view HEIGHT pixels tall. */
double cml_camera_units_per_pixel (const CmlCamera *cam, double depth, double height);
/* Depth of the world point P: its distance from the eye along the view direction. */
double cml_camera_depth (const CmlCamera *cam, const double p[3]);
/* Turns by a pointer movement of DX, DY pixels (drag right turns the scene right); turns
 * auto-fit off, so that the view the user chose stays as it is. */
void cml_camera_turn (CmlCamera *cam, double dx, double dy);
/* Zooms by STEPS scroll steps (positive = away); turns auto-fit off. */
void cml_camera_zoom (CmlCamera *cam, double steps);
/* The eye position. */
void cml_camera_get_eye (const CmlCamera *cam, double eye[3]);
/* View and projection matrices for a viewport of ASPECT (width / height). */
void cml_camera_get_matrices (const CmlCamera *cam, double aspect, CmlMat4 *view, CmlMat4 *proj);

G_END_DECLS
