/* cml-camera.h — the orbit camera of the 3-D scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The eye circles TARGET at DISTANCE; YAW is its azimuth about the vertical z axis
 * (from +x, counter-clockwise seen from above) and PITCH its elevation above the
 * horizontal plane.  While AUTO_FIT is set the camera follows the scene's bounds (they
 * only grow), so a trail that wanders off stays in view; zooming by hand clears it and a
 * reset sets it again.  A plain value type: copy it freely.  No GL, any thread.
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
} CmlCamera;

/* The default view: from the front right, a little above, auto-fit on. */
void cml_camera_init (CmlCamera *cam);
/* Back to the default direction, auto-fit on; keeps the target and distance until the
 * next fit. */
void cml_camera_reset (CmlCamera *cam);
/* Sets target and distance so that the box [MIN, MAX] fills the view at ASPECT
 * (width / height) whatever the direction.  Only when auto-fit is on unless FORCE. */
void cml_camera_fit (CmlCamera *cam, const double min[3], const double max[3], double aspect,
                     gboolean force);
/* Turns by a pointer movement of DX, DY pixels (drag right turns the scene right). */
void cml_camera_turn (CmlCamera *cam, double dx, double dy);
/* Zooms by STEPS scroll steps (positive = away); turns auto-fit off. */
void cml_camera_zoom (CmlCamera *cam, double steps);
/* The eye position. */
void cml_camera_get_eye (const CmlCamera *cam, double eye[3]);
/* View and projection matrices for a viewport of ASPECT (width / height). */
void cml_camera_get_matrices (const CmlCamera *cam, double aspect, CmlMat4 *view, CmlMat4 *proj);

G_END_DECLS
