/* cml-scene-fan.c — the 3-D view's layer for the Geometry page's fan of extremals (see
 * cml-scene-fan.h): a Cairo drawing area over the GL scene, like the steering markers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each curve is a polyline through its samples q(t0 + k (T − t0)/(S − 1)), k = 0 … S − 1,
 * projected with the view's camera; the wavefront at the run's time t is, on each curve,
 * the point between the two samples around t (linear in t: a drawing, the Geometry page
 * has the exact fronts).  Bounded: at most 100 curves of 65 points.
 */
#define G_LOG_DOMAIN "cml-scene-fan"

#include "cml-scene-fan.h"

#include <math.h>

struct _CmlSceneFan
{
  GtkWidget           *area;
  const CmlCamera     *camera;
  const CmlSceneStyle *style;
  GArray              *points; /* double triples, n_curves × CML_SCENE_FAN_SAMPLES */
  guint                n_curves;
  double               t0, t_end, t;
  guint                n_front; /* the wavefront's points at the time last drawn */
};

/* Where the camera shows P, in logical pixels; FALSE behind the eye. */
static gboolean
to_view (const CmlCamera *cam, int w, int h, const double p[3], double *x, double *y)
{
  double ndc[3];
  cml_camera_project (cam, (double) w / h, p, ndc);
  *x = 0.5 * (ndc[0] + 1) * w, *y = 0.5 * (1 - ndc[1]) * h;
  return isfinite (*x) && isfinite (*y) && cml_camera_depth (cam, p) > 0;
}

static void
fan_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSceneFan *f = data;
  guint S = CML_SCENE_FAN_SAMPLES;
  double scale = f->style->presentation ? 1.6 : 1.0, x, y;
  /* the curves in the trails' blue on light, a paler one on dark */
  double r = f->style->dark ? 0.55 : 0.10, g = f->style->dark ? 0.70 : 0.35, b = f->style->dark ? 1.0 : 0.75;
  f->n_front = 0;
  if (f->n_curves == 0 || width <= 0 || height <= 0 || f->style->table_frame)
    return;
  const double *p = (const double *) (gpointer) f->points->data;
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0 * scale);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_source_rgba (cr, r, g, b, 0.28);
  for (guint c = 0; c < f->n_curves; c++)
    {
      gboolean open = FALSE;
      for (guint k = 0; k < S; k++)
        {
          if (!to_view (f->camera, width, height, p + 3 * ((gsize) c * S + k), &x, &y))
            {
              open = FALSE;
              continue;
            }
          if (open)
            cairo_line_to (cr, x, y);
          else
            cairo_move_to (cr, x, y);
          open = TRUE;
        }
    }
  cairo_stroke (cr);
  /* the wavefront at the time shown */
  double span = f->t_end - f->t0;
  if (isfinite (f->t) && span > 0 && f->t >= f->t0 && f->t <= f->t_end)
    {
      double s = (f->t - f->t0) / span * (S - 1);
      guint k = MIN ((guint) s, S - 2);
      double w = s - k;
      cairo_set_source_rgba (cr, r, g, b, 0.85);
      for (guint c = 0; c < f->n_curves; c++)
        {
          const double *a = p + 3 * ((gsize) c * S + k), *e = a + 3;
          double q[3] = { a[0] + w * (e[0] - a[0]), a[1] + w * (e[1] - a[1]), a[2] + w * (e[2] - a[2]) };
          if (!to_view (f->camera, width, height, q, &x, &y))
            continue;
          cairo_new_sub_path (cr);
          cairo_arc (cr, x, y, 2.2 * scale, 0, 2 * G_PI);
          f->n_front++;
        }
      cairo_fill (cr);
    }
  cairo_restore (cr);
}

CmlSceneFan *
cml_scene_fan_new (GtkOverlay *overlay, const CmlCamera *camera, const CmlSceneStyle *style)
{
  CmlSceneFan *f = g_new0 (CmlSceneFan, 1);
  f->camera = camera;
  f->style = style;
  f->points = g_array_new (FALSE, FALSE, sizeof (double));
  f->t = NAN;
  f->area = gtk_drawing_area_new ();
  gtk_widget_set_can_target (f->area, FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (f->area), fan_draw, f, NULL);
  gtk_overlay_add_overlay (overlay, f->area);
  return f;
}

void
cml_scene_fan_free (CmlSceneFan *f)
{
  if (f == NULL)
    return;
  g_array_unref (f->points);
  g_free (f);
}

void
cml_scene_fan_set (CmlSceneFan *f, const double *points, guint n_curves, double t0, double t_end)
{
  g_array_set_size (f->points, 0);
  f->n_curves = points ? MIN (n_curves, CML_SCENE_FAN_MAX_CURVES) : 0;
  if (f->n_curves)
    g_array_append_vals (f->points, points, (guint) f->n_curves * CML_SCENE_FAN_SAMPLES * 3);
  f->t0 = t0, f->t_end = t_end;
  f->n_front = 0;
  gtk_widget_queue_draw (f->area);
}

void
cml_scene_fan_queue_draw (CmlSceneFan *f, double t)
{
  f->t = t;
  if (f->n_curves)
    gtk_widget_queue_draw (f->area);
}

void
cml_scene_fan_add_frame_points (CmlSceneFan *f, GArray *points)
{
  const double *p = (const double *) (gpointer) f->points->data;
  if (f->style->table_frame)
    return;
  for (guint k = 0; k < f->points->len / 3; k += 4)
    if (isfinite (p[3 * k]) && isfinite (p[3 * k + 1]) && isfinite (p[3 * k + 2]))
      g_array_append_vals (points, p + 3 * k, 1);
}

guint
cml_scene_fan_get_curves (CmlSceneFan *f, guint *front_points)
{
  if (front_points)
    *front_points = f->n_front;
  return f->n_curves;
}
