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
#define NEAR_FRACTION (0.02)              /* near and far planes, times the distance */
#define FAR_FRACTION  (60.0)

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

/* The camera's axes: RIGHT and UP across the view, TOWARD from the target to the eye. */
static void
camera_axes (const CmlCamera *cam, double right[3], double up[3], double toward[3])
{
  double cp = cos (cam->pitch), sp = sin (cam->pitch), cy = cos (cam->yaw), sy = sin (cam->yaw);
  toward[0] = cp * cy, toward[1] = cp * sy, toward[2] = sp;
  right[0] = -sy, right[1] = cy, right[2] = 0;
  up[0] = -sp * cy, up[1] = -sp * sy, up[2] = cp;
}

/* One direction across the view.  Points at X across and Z towards the eye (coordinates
 * along RIGHT or UP, and TOWARD) must land between LO and HI (−1 < LO < 0 < HI < 1) of the
 * half-view whose tangent is T.  The eye at (E, D) sees a point there iff
 *   x − E ≤ T·HI·(D − z)   and   E − x ≤ T·|LO|·(D − z),
 * i.e. D ≥ A − E/a and D ≥ B + E/b with a = T·HI, b = T·|LO|, A = max (z + x/a),
 * B = max (z − x/b).  The least D makes both equal: E = (A − B)/(1/a + 1/b). */
typedef struct
{
  double a, b, A, B;
} Side;

static void
side_init (Side *s, double tan_half, double lo, double hi)
{
  s->a = tan_half * hi;
  s->b = tan_half * -lo;
  s->A = s->B = -INFINITY;
}

static void
side_add (Side *s, double x, double z)
{
  s->A = MAX (s->A, z + x / s->a);
  s->B = MAX (s->B, z - x / s->b);
}

static double
side_depth (const Side *s)
{
  double e = (s->A - s->B) / (1 / s->a + 1 / s->b);
  return s->A - e / s->a;
}

/* The sideways position for an eye at depth D ≥ side_depth: the middle of the positions
 * that still see every point, so that spare room is shared by both edges. */
static double
side_offset (const Side *s, double d)
{
  double e_min = s->a * (s->A - d), e_max = s->b * (d - s->B);
  return 0.5 * (e_min + e_max);
}

/* Fits the box's corners P (N of them, in camera axes about the box's centre) into the
 * region [XLO, XHI] × [YLO, YHI] of the view; returns the eye's depth, sets EX, EY. */
static double
fit_region (const double (*p)[3], guint n, double tan_h, double tan_v, double xlo, double xhi,
            double ylo, double yhi, double *ex, double *ey)
{
  Side sx, sy;
  double zmax = -INFINITY;
  side_init (&sx, tan_h, xlo, xhi);
  side_init (&sy, tan_v, ylo, yhi);
  for (guint i = 0; i < n; i++)
    {
      side_add (&sx, p[i][0], p[i][2]);
      side_add (&sy, p[i][1], p[i][2]);
      zmax = MAX (zmax, p[i][2]);
    }
  double d = MAX (side_depth (&sx), side_depth (&sy));
  /* the nearest corner stays well beyond the near plane (2 % of the distance) */
  d = MAX (d, zmax / 0.9);
  *ex = side_offset (&sx, d);
  *ey = side_offset (&sy, d);
  return d;
}

void
cml_camera_fit (CmlCamera *cam, const double min[3], const double max[3], double aspect,
                const double keep_out[2], gboolean force)
{
  g_return_if_fail (cam != NULL && min != NULL && max != NULL);

  double corners[8][3];
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < 3; i++)
      corners[k][i] = (k >> i) & 1 ? max[i] : min[i];
  cml_camera_fit_points (cam, &corners[0][0], 8, aspect, keep_out, force);
}

void
cml_camera_fit_points (CmlCamera *cam, const double *xyz, guint n, double aspect,
                       const double keep_out[2], gboolean force)
{
  g_return_if_fail (cam != NULL && (n == 0 || xyz != NULL));

  if ((!cam->auto_fit && !force) || n == 0)
    return;
  double min[3] = { INFINITY, INFINITY, INFINITY }, max[3] = { -INFINITY, -INFINITY, -INFINITY };
  for (guint k = 0; k < n; k++)
    for (int i = 0; i < 3; i++)
      {
        if (!isfinite (xyz[3 * k + i]))
          return;
        min[i] = MIN (min[i], xyz[3 * k + i]);
        max[i] = MAX (max[i], xyz[3 * k + i]);
      }
  if (!(aspect > 0))
    aspect = 1.0;

  /* the points in the camera's axes, about the centre of their box */
  double right[3], up[3], toward[3], c[3];
  g_autofree double (*p)[3] = g_malloc_n (n, sizeof *p);
  camera_axes (cam, right, up, toward);
  for (int i = 0; i < 3; i++)
    c[i] = 0.5 * (min[i] + max[i]);
  for (guint k = 0; k < n; k++)
    {
      double q[3];
      for (int i = 0; i < 3; i++)
        q[i] = xyz[3 * k + i] - c[i];
      p[k][0] = q[0] * right[0] + q[1] * right[1] + q[2] * right[2];
      p[k][1] = q[0] * up[0] + q[1] * up[1] + q[2] * up[2];
      p[k][2] = q[0] * toward[0] + q[1] * toward[1] + q[2] * toward[2];
    }

  /* the whole view less the margin; with a corner kept free, the columns right of it or
   * the rows above it, whichever gives the larger picture (the nearer eye) */
  double tan_v = tan (cam->fovy / 2), tan_h = tan_v * aspect;
  double lo = -1 + CML_CAMERA_FIT_MARGIN, hi = 1 - CML_CAMERA_FIT_MARGIN;
  double ex, ey;
  double d = fit_region ((const double (*)[3]) p, n, tan_h, tan_v, lo, hi, lo, hi, &ex, &ey);
  if (keep_out && keep_out[0] > 0 && keep_out[1] > 0)
    {
      double kw = MIN (keep_out[0], 0.45), kh = MIN (keep_out[1], 0.45);
      double ex1, ey1, ex2, ey2;
      double d1 = fit_region ((const double (*)[3]) p, n, tan_h, tan_v, -1 + 2 * kw + CML_CAMERA_FIT_MARGIN, hi, lo, hi,
                              &ex1, &ey1);
      double d2 = fit_region ((const double (*)[3]) p, n, tan_h, tan_v, lo, hi, -1 + 2 * kh + CML_CAMERA_FIT_MARGIN, hi,
                              &ex2, &ey2);
      if (d1 <= d2)
        d = d1, ex = ex1, ey = ey1;
      else
        d = d2, ex = ex2, ey = ey2;
    }

  /* the eye sits at (EX, EY, D) in these axes; the target straight ahead of it, level
   * with the box's centre */
  d = MAX (d, 1e-3);
  for (int i = 0; i < 3; i++)
    cam->target[i] = c[i] + ex * right[i] + ey * up[i];
  cam->distance = d;
}

void
cml_camera_project (const CmlCamera *cam, double aspect, const double p[3], double ndc[3])
{
  g_return_if_fail (cam != NULL && p != NULL && ndc != NULL);

  /* in double precision (the matrices are float): the tests hold points to the edge */
  double right[3], up[3], toward[3], eye[3], q[3];
  camera_axes (cam, right, up, toward);
  cml_camera_get_eye (cam, eye);
  for (int i = 0; i < 3; i++)
    q[i] = p[i] - eye[i];
  double x = q[0] * right[0] + q[1] * right[1] + q[2] * right[2];
  double y = q[0] * up[0] + q[1] * up[1] + q[2] * up[2];
  double depth = -(q[0] * toward[0] + q[1] * toward[1] + q[2] * toward[2]);
  double tan_v = tan (cam->fovy / 2), tan_h = tan_v * (aspect > 0 ? aspect : 1.0);
  double n = cam->distance * NEAR_FRACTION, f = cam->distance * FAR_FRACTION;
  ndc[0] = x / (depth * tan_h);
  ndc[1] = y / (depth * tan_v);
  /* gluPerspective's depth: −1 at the near plane, 1 at the far one */
  ndc[2] = ((f + n) * depth - 2 * f * n) / ((f - n) * depth);
}

double
cml_camera_depth (const CmlCamera *cam, const double p[3])
{
  g_return_val_if_fail (cam != NULL && p != NULL, 0);

  double right[3], up[3], toward[3], eye[3];
  camera_axes (cam, right, up, toward);
  cml_camera_get_eye (cam, eye);
  return -((p[0] - eye[0]) * toward[0] + (p[1] - eye[1]) * toward[1] + (p[2] - eye[2]) * toward[2]);
}

double
cml_camera_units_per_pixel (const CmlCamera *cam, double depth, double height)
{
  g_return_val_if_fail (cam != NULL, 0);

  return 2 * MAX (depth, 1e-9) * tan (cam->fovy / 2) / MAX (height, 1.0);
}

void
cml_camera_turn (CmlCamera *cam, double dx, double dy)
{
  g_return_if_fail (cam != NULL);

  cam->yaw = fmod (cam->yaw - dx * TURN_PER_PX, 2 * G_PI);
  cam->pitch = CLAMP (cam->pitch + dy * TURN_PER_PX, -MAX_PITCH, MAX_PITCH);
  if (dx != 0 || dy != 0)
    cam->auto_fit = FALSE;
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
                          cam->distance * NEAR_FRACTION, cam->distance * FAR_FRACTION);
}
