/* cml-scene-steer.c — the 3-D view's geometry for steering to a target: the point of a
 * plane under the pointer (Newton's method on the projection, a plane-to-screen
 * homography, as the view's body drag does), and the markers drawn over the scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-steer"

#include "cml-scene-steer.h"

#include <math.h>

gboolean
cml_scene_steer_plane_point (const CmlCamera *cam, int w, int h, double wx, double wy, const double o[3],
                             const double u[3], const double v[3], double out[3])
{
  if (w <= 0 || h <= 0)
    return FALSE;
  double aspect = (double) w / h;
  double target[2] = { 2 * wx / w - 1, 1 - 2 * wy / h };
  double a = 0, b = 0;
  double span = MAX (cml_camera_units_per_pixel (cam, cml_camera_depth (cam, o), h), 1e-9);
  /* the camera's matrices are single precision: a tenth of a pixel is as near as it gets */
  double tol = 0.1 * 2.0 / h;

  for (int it = 0; it < 40; it++)
    {
      double p[3], f[2], fa[2], fb[2], ndc[3];
      for (int j = 0; j < 3; j++)
        p[j] = o[j] + a * u[j] + b * v[j];
      cml_camera_project (cam, aspect, p, ndc);
      f[0] = ndc[0] - target[0], f[1] = ndc[1] - target[1];
      if (!isfinite (f[0]) || !isfinite (f[1]) || !(cml_camera_depth (cam, p) > 0))
        return FALSE;
      if (hypot (f[0], f[1]) < tol)
        {
          for (int j = 0; j < 3; j++)
            out[j] = p[j];
          return TRUE;
        }
      for (int j = 0; j < 3; j++)
        p[j] += span * u[j];
      cml_camera_project (cam, aspect, p, ndc);
      fa[0] = (ndc[0] - target[0] - f[0]) / span, fa[1] = (ndc[1] - target[1] - f[1]) / span;
      for (int j = 0; j < 3; j++)
        p[j] += span * (v[j] - u[j]);
      cml_camera_project (cam, aspect, p, ndc);
      fb[0] = (ndc[0] - target[0] - f[0]) / span, fb[1] = (ndc[1] - target[1] - f[1]) / span;
      double det = fa[0] * fb[1] - fa[1] * fb[0];
      if (!(fabs (det) > 0) || !isfinite (det))
        return FALSE;
      a -= (f[0] * fb[1] - f[1] * fb[0]) / det;
      b -= (fa[0] * f[1] - fa[1] * f[0]) / det;
    }
  return FALSE;
}

/* Where CAM shows P, in logical pixels; FALSE behind the eye. */
static gboolean
to_view (const CmlCamera *cam, int w, int h, const double p[3], double *x, double *y)
{
  double ndc[3];
  cml_camera_project (cam, (double) w / h, p, ndc);
  *x = 0.5 * (ndc[0] + 1) * w, *y = 0.5 * (1 - ndc[1]) * h;
  return isfinite (*x) && isfinite (*y) && cml_camera_depth (cam, p) > 0;
}

void
cml_scene_steer_draw_conjugate_symbol (cairo_t *cr, double x, double y, double scale)
{
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_arc (cr, x, y, 5 * scale, 0, 2 * G_PI);
  cairo_set_source_rgb (cr, CML_STEER_CONJUGATE_RGB);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 1.5 * scale);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
cml_scene_steer_draw_target_symbol (cairo_t *cr, double x, double y, double scale)
{
  double r = 6 * scale;
  cairo_save (cr);
  /* a white halo under it keeps it visible on any background */
  for (int pass = 0; pass < 2; pass++)
    {
      cairo_new_path (cr);
      if (pass == 0)
        cairo_set_source_rgba (cr, 1, 1, 1, 0.85), cairo_set_line_width (cr, 4.5 * scale);
      else
        cairo_set_source_rgb (cr, CML_STEER_TARGET_RGB), cairo_set_line_width (cr, 2.2 * scale);
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      cairo_move_to (cr, x - 1.6 * r, y), cairo_line_to (cr, x - 0.4 * r, y);
      cairo_move_to (cr, x + 0.4 * r, y), cairo_line_to (cr, x + 1.6 * r, y);
      cairo_move_to (cr, x, y - 1.6 * r), cairo_line_to (cr, x, y - 0.4 * r);
      cairo_move_to (cr, x, y + 0.4 * r), cairo_line_to (cr, x, y + 1.6 * r);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

void
cml_scene_steer_draw_markers (cairo_t *cr, const CmlCamera *cam, int w, int h, const double *target,
                              const double *points, guint n, double scale)
{
  double x, y;
  if (w <= 0 || h <= 0)
    return;
  for (guint k = 0; k < n; k++)
    if (to_view (cam, w, h, points + 3 * k, &x, &y))
      cml_scene_steer_draw_conjugate_symbol (cr, x, y, scale);
  if (target && to_view (cam, w, h, target, &x, &y))
    cml_scene_steer_draw_target_symbol (cr, x, y, 1.5 * scale);
}
