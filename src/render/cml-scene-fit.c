/* cml-scene-fit.c — the camera for a whole run: the default view fitted to everything the
 * run shows, then fixed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-fit.h"

void
cml_scene_fit_camera (CmlSceneRenderer *r, const double *scene_values, const CmlSceneStyle *style,
                      double aspect, const CmlCameraKeepOut *keep_out, CmlCamera *cam)
{
  g_return_if_fail (r != NULL && cam != NULL && aspect > 0);

  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  cml_scene_renderer_get_frame_points (r, scene_values, style, points);
  cml_camera_init (cam);
  cml_camera_fit_points (cam, (double *) points->data, points->len, aspect, keep_out, TRUE);
  cam->auto_fit = FALSE;
}
