/* cml-camera.c — orbit camera.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-camera"

#include "cml-camera.h"

#include <math.h>
#include <string.h>

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
    .settled = FALSE,
  };
}

void
cml_camera_reset (CmlCamera *cam)
{
  g_return_if_fail (cam != NULL);

  cam->yaw = DEFAULT_YAW;
  cam->pitch = DEFAULT_PITCH;
  cam->auto_fit = TRUE;
  cam->settled = FALSE;
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
 * i.e. E ≥ a (A − D) and E ≤ b (D − B) with a = T·HI, b = T·|LO|, A = max (z + x/a),
 * B = max (z − x/b).  Two groups of points may have regions of their own (what is shown,
 * and the moving bodies held farther from the edges): E must satisfy every group's pair,
 * which it can iff D ≥ (a_g A_g + b_h B_h) / (a_g + b_h) for every two groups g, h; the
 * least such D is the eye's depth. */
#define N_GROUPS 2

typedef struct
{
  double a[N_GROUPS], b[N_GROUPS], A[N_GROUPS], B[N_GROUPS];
} Side;

static void
side_init (Side *s, int g, double tan_half, double lo, double hi)
{
  s->a[g] = tan_half * hi;
  s->b[g] = tan_half * -lo;
  s->A[g] = s->B[g] = -INFINITY;
}

static void
side_add (Side *s, int g, double x, double z)
{
  s->A[g] = MAX (s->A[g], z + x / s->a[g]);
  s->B[g] = MAX (s->B[g], z - x / s->b[g]);
}

static double
side_depth (const Side *s)
{
  double d = -INFINITY;
  for (int g = 0; g < N_GROUPS; g++)
    for (int h = 0; h < N_GROUPS; h++)
      if (isfinite (s->A[g]) && isfinite (s->B[h]))
        d = MAX (d, (s->a[g] * s->A[g] + s->b[h] * s->B[h]) / (s->a[g] + s->b[h]));
  return d;
}

/* The sideways position for an eye at depth D ≥ side_depth: the middle of the positions
 * that still see every point, so that spare room is shared by both edges. */
static double
side_offset (const Side *s, double d)
{
  double e_min = -INFINITY, e_max = INFINITY;
  for (int g = 0; g < N_GROUPS; g++)
    if (isfinite (s->A[g]))
      {
        e_min = MAX (e_min, s->a[g] * (s->A[g] - d));
        e_max = MIN (e_max, s->b[g] * (d - s->B[g]));
      }
  return isfinite (e_min) && isfinite (e_max) ? 0.5 * (e_min + e_max) : 0;
}

/* Fits the points P (N of them, in camera axes about the centre of their box; the first
 * N_SHOWN what is shown, the rest the moving bodies) into the region [XLO, XHI] × [YLO,
 * YHI] of the view, the bodies into its middle part (CML_CAMERA_BODY_MARGIN of its
 * half-size off each edge); returns the eye's depth, sets EX, EY. */
static double
fit_region (const double (*p)[3], guint n, guint n_shown, double tan_h, double tan_v, double xlo,
            double xhi, double ylo, double yhi, double *ex, double *ey)
{
  Side sx, sy;
  double zmax = -INFINITY;
  double xm = 0.5 * (xlo + xhi), xh = 0.5 * (xhi - xlo) * (1 - CML_CAMERA_BODY_MARGIN);
  double ym = 0.5 * (ylo + yhi), yh = 0.5 * (yhi - ylo) * (1 - CML_CAMERA_BODY_MARGIN);
  side_init (&sx, 0, tan_h, xlo, xhi);
  side_init (&sy, 0, tan_v, ylo, yhi);
  side_init (&sx, 1, tan_h, MIN (xm - xh, -0.05), MAX (xm + xh, 0.05));
  side_init (&sy, 1, tan_v, MIN (ym - yh, -0.05), MAX (ym + yh, 0.05));
  for (guint i = 0; i < n; i++)
    {
      int g = i < n_shown ? 0 : 1;
      side_add (&sx, g, p[i][0], p[i][2]);
      side_add (&sy, g, p[i][1], p[i][2]);
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
                const CmlCameraKeepOut *keep_out, gboolean force)
{
  g_return_if_fail (cam != NULL && min != NULL && max != NULL);

  double corners[8][3];
  for (int k = 0; k < 8; k++)
    for (int i = 0; i < 3; i++)
      corners[k][i] = (k >> i) & 1 ? max[i] : min[i];
  cml_camera_fit_points (cam, &corners[0][0], 8, aspect, keep_out, force);
}

/* Narrows the region's edges X and Y on the side SIGN (−1: left and bottom, 1: right and
 * top) past the corner CORNER (width, height in fractions of the view): BEYOND 0 takes the
 * columns beside it, 1 the rows beyond it.  FALSE when that way is closed (a corner
 * wider than CML_CAMERA_KEEP_OUT_MAX can only be passed by its rows); nothing to do for
 * an empty corner, and only one way then. */
static gboolean
corner_region (const double corner[2], int beyond, int sign, double *x, double *y)
{
  if (!(corner[0] > 0 && corner[1] > 0))
    return beyond == 0;
  double w = corner[0], h = MIN (corner[1], CML_CAMERA_KEEP_OUT_MAX);
  if (beyond == 0)
    {
      if (w > CML_CAMERA_KEEP_OUT_MAX)
        return FALSE;
      *x = sign * (1 - 2 * w - CML_CAMERA_FIT_MARGIN);
      return TRUE;
    }
  *y = sign * (1 - 2 * h - CML_CAMERA_FIT_MARGIN);
  return TRUE;
}

gboolean
cml_camera_kept_out (const CmlCameraKeepOut *keep_out, double x, double y)
{
  if (keep_out == NULL)
    return FALSE;
  const double *l = keep_out->legend, *b = keep_out->buttons;
  if (l[0] > 0 && l[1] > 0 && x < -1 + 2 * l[0] && y < -1 + 2 * MIN (l[1], CML_CAMERA_KEEP_OUT_MAX))
    return TRUE;
  if (b[0] > 0 && b[1] > 0 && x > 1 - 2 * b[0] && y > 1 - 2 * MIN (b[1], CML_CAMERA_KEEP_OUT_MAX))
    return TRUE;
  return FALSE;
}

/* The target and distance that fit the N points XYZ and the N_BODIES points BODIES (see
 * cml_camera_follow) in CAM's direction; FALSE when there is nothing finite to fit. */
static gboolean
fit_target (const CmlCamera *cam, const double *xyz, guint n, const double *bodies, guint n_bodies,
            double aspect, const CmlCameraKeepOut *keep_out, double target[3], double *distance)
{
  guint total = n + n_bodies;
  if (total == 0)
    return FALSE;
  double min[3] = { INFINITY, INFINITY, INFINITY }, max[3] = { -INFINITY, -INFINITY, -INFINITY };
  for (guint k = 0; k < total; k++)
    for (int i = 0; i < 3; i++)
      {
        double x = k < n ? xyz[3 * k + i] : bodies[3 * (k - n) + i];
        if (!isfinite (x))
          return FALSE;
        min[i] = MIN (min[i], x);
        max[i] = MAX (max[i], x);
      }
  if (!(aspect > 0))
    aspect = 1.0;

  /* the points in the camera's axes, about the centre of their box */
  double right[3], up[3], toward[3], c[3];
  g_autofree double (*p)[3] = g_malloc_n (total, sizeof *p);
  camera_axes (cam, right, up, toward);
  for (int i = 0; i < 3; i++)
    c[i] = 0.5 * (min[i] + max[i]);
  for (guint k = 0; k < total; k++)
    {
      double q[3];
      const double *x = k < n ? xyz + 3 * k : bodies + 3 * (k - n);
      for (int i = 0; i < 3; i++)
        q[i] = x[i] - c[i];
      p[k][0] = q[0] * right[0] + q[1] * right[1] + q[2] * right[2];
      p[k][1] = q[0] * up[0] + q[1] * up[1] + q[2] * up[2];
      p[k][2] = q[0] * toward[0] + q[1] * toward[1] + q[2] * toward[2];
    }

  /* the whole view less the margin; with corners kept free, for each of them the part
   * beside it or beyond it, whichever pair gives the larger picture (the nearer eye) */
  double tan_v = tan (cam->fovy / 2), tan_h = tan_v * aspect;
  double m = CML_CAMERA_FIT_MARGIN;
  double d = INFINITY, ex = 0, ey = 0;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      {
        double xlo = -1 + m, xhi = 1 - m, ylo = -1 + m, yhi = 1 - m;
        if (keep_out && !corner_region (keep_out->legend, a, -1, &xlo, &ylo))
          continue;
        if (keep_out && !corner_region (keep_out->buttons, b, 1, &xhi, &yhi))
          continue;
        if (xhi - xlo < 0.2 || yhi - ylo < 0.2)
          continue;
        double exk, eyk;
        double dk = fit_region ((const double (*)[3]) p, total, n, tan_h, tan_v, xlo, xhi, ylo, yhi, &exk, &eyk);
        if (dk < d)
          d = dk, ex = exk, ey = eyk;
      }
  if (!isfinite (d))
    /* corners that leave no room: the whole view */
    d = fit_region ((const double (*)[3]) p, total, n, tan_h, tan_v, -1 + m, 1 - m, -1 + m, 1 - m, &ex, &ey);

  /* the eye sits at (EX, EY, D) in these axes; the target straight ahead of it, level
   * with the box's centre */
  for (int i = 0; i < 3; i++)
    target[i] = c[i] + ex * right[i] + ey * up[i];
  *distance = MAX (d, 1e-3);
  return TRUE;
}

void
cml_camera_fit_points (CmlCamera *cam, const double *xyz, guint n, double aspect,
                       const CmlCameraKeepOut *keep_out, gboolean force)
{
  g_return_if_fail (cam != NULL && (n == 0 || xyz != NULL));

  double target[3], distance;
  if ((!cam->auto_fit && !force) || n == 0)
    return;
  /* (no bodies: the whole region is theirs) */
  if (!fit_target (cam, xyz, n, NULL, 0, aspect, keep_out, target, &distance))
    return;
  memcpy (cam->target, target, sizeof target);
  cam->distance = distance;
}

/* Whether the N points XYZ land within LIMIT of the half-view of CAM, and off the corners
 * KEEP_OUT covers (NULL: none). */
static gboolean
all_within (const CmlCamera *cam, const double *xyz, guint n, double aspect, const CmlCameraKeepOut *keep_out,
            double limit)
{
  for (guint k = 0; k < n; k++)
    {
      double ndc[3];
      cml_camera_project (cam, aspect, xyz + 3 * k, ndc);
      if (!(fabs (ndc[0]) <= limit && fabs (ndc[1]) <= limit && fabs (ndc[2]) < 1))
        return FALSE;
      if (cml_camera_kept_out (keep_out, ndc[0], ndc[1]))
        return FALSE;
    }
  return TRUE;
}

/* CAM moved the part K of the way from FROM (target, distance) to TO (the distance on a
 * logarithmic scale, so that zooming looks even). */
static void
blend (CmlCamera *cam, const double from_target[3], double from_distance, const double to_target[3],
       double to_distance, double k)
{
  for (int i = 0; i < 3; i++)
    cam->target[i] = from_target[i] + k * (to_target[i] - from_target[i]);
  cam->distance = exp (log (from_distance) + k * (log (to_distance) - log (from_distance)));
}

void
cml_camera_follow (CmlCamera *cam, const double *xyz, guint n, const double *bodies, guint n_bodies,
                   double aspect, const CmlCameraKeepOut *keep_out, double dt)
{
  g_return_if_fail (cam != NULL && (n == 0 || xyz != NULL) && (n_bodies == 0 || bodies != NULL));

  double target[3], distance;
  if (!cam->auto_fit || !fit_target (cam, xyz, n, bodies, n_bodies, aspect, keep_out, target, &distance))
    return;
  if (!cam->settled || !(cam->distance > 0) || !isfinite (cam->distance))
    {
      /* a new run, a reset: straight to the fit */
      memcpy (cam->target, target, sizeof target);
      cam->distance = distance;
      cam->settled = TRUE;
      cam->easing = FALSE;
      return;
    }

  /* the view holds still while everything is in it, the bodies away from its edges and
   * the picture not much smaller than it could be; else it glides towards the fit */
  double shift = 0;
  for (int i = 0; i < 3; i++)
    shift += (target[i] - cam->target[i]) * (target[i] - cam->target[i]);
  shift = sqrt (shift) / distance;
  double zoom = fabs (log (cam->distance / distance));
  gboolean good = all_within (cam, xyz, n, aspect, keep_out, 0.98)
                  && all_within (cam, bodies, n_bodies, aspect, keep_out, CML_CAMERA_FOLLOW_SOFT)
                  && cam->distance < 1.4 * distance;
  if (good && !cam->easing)
    return;
  if (shift < 0.01 && zoom < 0.01)
    {
      cam->easing = FALSE;
      return;
    }
  cam->easing = TRUE;

  double from[3], from_distance = cam->distance;
  memcpy (from, cam->target, sizeof from);
  double k = 1 - exp (-CLAMP (dt, 0.0, 0.25) / CML_CAMERA_FOLLOW_TIME);
  blend (cam, from, from_distance, target, distance, k);
  /* however fast the run, the bodies never leave the view: the least further step that
   * keeps them within CML_CAMERA_FOLLOW_HARD of it (the fit itself does) */
  if (!all_within (cam, bodies, n_bodies, aspect, keep_out, CML_CAMERA_FOLLOW_HARD))
    {
      double lo = k, hi = 1;
      for (int it = 0; it < 24; it++)
        {
          double mid = 0.5 * (lo + hi);
          blend (cam, from, from_distance, target, distance, mid);
          if (all_within (cam, bodies, n_bodies, aspect, keep_out, CML_CAMERA_FOLLOW_HARD))
            hi = mid;
          else
            lo = mid;
        }
      blend (cam, from, from_distance, target, distance, hi);
    }
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
