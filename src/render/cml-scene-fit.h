/* cml-scene-fit.h — the camera for a whole run, fixed before its first frame is drawn.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A video is made in two passes over the same run: the first only samples it into the
 * scene renderer (cml_scene_renderer_push_trail_samples_timed, cml_scene_renderer_get_bounds:
 * the bodies, the trail points, a turntable at the size it grows to), the second draws
 * it.  Between the two the camera is placed once, so that nothing the run shows leaves
 * the view and the view does not move while the video plays.  No GL.
 */
#pragma once

#include "cml-camera.h"
#include "cml-scene-renderer.h"

G_BEGIN_DECLS

/* Sets CAM to the window's default three-quarter view (cml_camera_init), fitted as the
 * window fits it (cml_camera_fit_points) to everything R has shown since its last
 * set_system or clear_trails and the objects at SCENE_VALUES (NULL: none), in a view of
 * ASPECT (width / height), off the corners KEEP_OUT covers (NULL: none; see
 * CmlCameraKeepOut); auto-fit off. */
void cml_scene_fit_camera (CmlSceneRenderer *r, const double *scene_values, const CmlSceneStyle *style,
                           double aspect, const CmlCameraKeepOut *keep_out, CmlCamera *cam);

G_END_DECLS
