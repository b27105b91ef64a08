/* cml-camera.c — orbit camera.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-camera"

#include "cml-camera.h"

#include <math.h>

#define DEFAULT_YAW   (-G_PI / 2 + 0.45)  /* from the front (−y), a little to the right */
#define DEFAULT_PITCH (0.62)              /* about 36° above the table */
#define MAX_PITCH     (G_PI / 2 - 0.01)   /* straight down would make "up" undefined */
#define TURN_PER_PX   (0.008)             /* radians per pointer pixel */

void
cml_camera_init (CmlCamera *cam)
{
  g_return_if_fail (cam != NULL);

  *cam = (CmlCamera) {
    .yaw = DEFAULT_YAW,
    .pitch = DEFAULT_PITCH,
    .distance = 8.0,
    .target = { 0, 0, 0 },
    .fovy = 35.0 * G_PI / 180.0,
    .auto_fit = TRUE,
  };
}

void
cml_camera_reset (CmlCamera *cam)
{
  g_return_if_fail (cam != NULL);

  cam->yaw = DEFAULT_YAW;
  cam->pitch = DEFAULT_PITCH;
  cam->auto_fit = TRUE;
}

void
cml_camera_fit (CmlCamera *cam, const double min[3], const double max[3], double aspect,
                gboolean force)
{
  g_return_if_fail (cam != NULL && min != NULL && max != NULL);

  if (!cam->auto_fit && !force)
    return;
  for (int i = 0; i < 3; i++)
    if (!isfinite (min[i]) || !isfinite (max[i]) || min[i] > max[i])
      return;

  /* look at the box's centre from the current direction, from just far enough that
   * every corner is inside the frustum with a margin: a corner at (x, y) across the view
   * and z towards the eye needs distance ≥ z + |x| / tan(half_h), z + |y| / tan(half_v) */
  for (int i = 0; i < 3; i++)
    cam->target[i] = 0.5 * (min[i] + max[i]);
  double cp = cos (cam->pitch), sp = sin (cam->pitch), cy = cos (cam->yaw), sy = sin (cam->yaw);
  double toward[3] = { cp * cy, cp * sy, sp };  /* target to eye */
  double right[3] = { -sy, cy, 0 };
  double up[3] = { -sp * cy, -sp * sy, cp };
  double tan_v = tan (cam->fovy / 2) * 0.9, tan_h = tan_v * (aspect > 0 ? aspect : 1.0);
  double distance = 0;
  for (int c = 0; c < 8; c++)
    {
      double p[3];
      for (int i = 0; i < 3; i++)
        p[i] = ((c >> i) & 1 ? max[i] : min[i]) - cam->target[i];
      double x = p[0] * right[0] + p[1] * right[1] + p[2] * right[2];
      double y = p[0] * up[0] + p[1] * up[1] + p[2] * up[2];
      double z = p[0] * toward[0] + p[1] * toward[1] + p[2] * toward[2];
      distance = MAX (distance, z + fabs (x) / tan_h);
      distance = MAX (distance, z + fabs (y) / tan_v);
    }
  cam->distance = MAX (distance, 1e-3);
}

void
cml_camera_turn (CmlCamera *cam, double dx, double dy)
{
  g_return_if_fail (cam != NULL);

  cam->yaw = fmod (cam->yaw - dx * TURN_PER_PX, 2 * G_PI);
  cam->pitch = CLAMP (cam->pitch + dy * TURN_PER_PX, -MAX_PITCH, MAX_PITCH);
}

void
cml_camera_zoom (CmlCamera *cam, double steps)
{
  g_return_if_fail (cam != NULL);

  cam->distance = CLAMP (cam->distance * pow (1.12, steps), 1e-3, 1e6);
  cam->auto_fit = FALSE;
}

void
cml_camera_get_eye (const CmlCamera *cam, double eye[3])
{
  g_return_if_fail (cam != NULL);

  double c = cos (cam->pitch);
  eye[0] = cam->target[0] + cam->distance * c * cos (cam->yaw);
  eye[1] = cam->target[1] + cam->distance * c * sin (cam->yaw);
  eye[2] = cam->target[2] + cam->distance * sin (cam->pitch);
}

void
cml_camera_get_matrices (const CmlCamera *cam, double aspect, CmlMat4 *view, CmlMat4 *proj)
{
  g_return_if_fail (cam != NULL);

  double eye[3];
  cml_camera_get_eye (cam, eye);
  if (view)
    cml_mat4_look_at (view,
                      (CmlVec3) { eye[0], eye[1], eye[2] },
                      (CmlVec3) { cam->target[0], cam->target[1], cam->target[2] },
                      (CmlVec3) { 0, 0, 1 });
  if (proj)
    /* near and far scale with the distance; a big ground plane may reach far away */
    cml_mat4_perspective (proj, cam->fovy, aspect > 0 ? aspect : 1.0,
                          cam->distance * 0.02, cam->distance * 60.0);
}
