/* cml-render-overlay.c — what a frame of `cmlab-cli render` shows over and beside the
 * scene: the legend's card (bottom-left) and the clock's (top-left), drawn once with
 * Cairo and laid over every frame; the camera fitted clear of the legend; and the plot of
 * the chosen quantity beside or below the scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-render-overlay"

#include "cml-render-cmd-private.h"

#include <math.h>
#include <string.h>

#include "cml-plot-cairo.h"
#include "cml-scene-fit.h"

/* The legend's card, drawn once: it names what the video shows and does not change. */
void
cml_render_make_legend (CmlRender *R)
{
  /* in proportion to the frame, as at 720 rows, but never more than 60 % of the scene's
   * width or half its height; too small to read (a thumbnail), none */
  CmlSceneStyle style = R->style;
  double w, h;
  style.scale = 1;
  if (!cml_scene_legend_measure (R->sys, &style, &w, &h))
    return;
  double scale = MIN (CLAMP (R->o->height / 720.0, 0.5, 4.0),
                      MIN (0.6 * R->scene_w / w, 0.5 * R->scene_h / h));
  if (scale < 0.5)
    return;
  style.scale = scale;
  cml_scene_legend_measure (R->sys, &style, &w, &h);
  int margin = (int) lround (10 * scale);
  int lw = MIN ((int) ceil (w), R->scene_w - 2 * margin);
  int lh = MIN ((int) ceil (h), R->scene_h - 2 * margin);
  if (lw <= 0 || lh <= 0)
    return;
  R->legend = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, lw, lh);
  cairo_t *cr = cairo_create (R->legend);
  cml_scene_legend_draw (R->sys, cr, &style);
  cairo_destroy (cr);
  cairo_surface_flush (R->legend);
  R->legend_x = R->scene_x + margin;
  R->legend_y = R->scene_y + R->scene_h - margin - lh;
}

/* Lays the card CARD over the RGBA frame FRAME at (X0, Y0) (premultiplied over opaque). */
static void
draw_card (CmlRender *R, cairo_surface_t *card, int x0, int y0, guint8 *frame)
{
  const guint8 *src = cairo_image_surface_get_data (card);
  int src_stride = cairo_image_surface_get_stride (card);
  int lw = cairo_image_surface_get_width (card), lh = cairo_image_surface_get_height (card);
  gsize stride = (gsize) R->o->width * 4;
  for (int y = 0; y < lh; y++)
    {
      const guint32 *s = (const guint32 *) (src + (gsize) y * src_stride);
      guint8 *d = frame + (gsize) (y0 + y) * stride + (gsize) x0 * 4;
      for (int x = 0; x < lw; x++)
        {
          guint32 p = s[x];
          guint a = p >> 24;
          if (a == 0)
            continue;
          guint inv = 255 - a;
          d[4 * x + 0] = ((p >> 16) & 0xff) + (d[4 * x + 0] * inv + 127) / 255;
          d[4 * x + 1] = ((p >> 8) & 0xff) + (d[4 * x + 1] * inv + 127) / 255;
          d[4 * x + 2] = (p & 0xff) + (d[4 * x + 2] * inv + 127) / 255;
        }
    }
}

/* Lays the legend over the RGBA frame FRAME. */
void
cml_render_draw_legend (CmlRender *R, guint8 *frame)
{
  if (R->legend)
    draw_card (R, R->legend, R->legend_x, R->legend_y, frame);
}

/* The clock's card, in the scene's top-left corner (the legend has the bottom-left),
 * if it fits there. */
void
cml_render_make_clock (CmlRender *R)
{
  CmlModel *model = cml_system_get_model (R->sys);
  if (R->o->no_clock)
    return;
  cml_video_clock_init (&R->clock, cml_render_frame_time (R, R->n_frames - 1), R->frame_dt, model->time_unit, R->o->height,
                        &R->style);
  int margin = (int) lround (10 * CLAMP (R->o->height / 720.0, 0.5, 4.0));
  int cw = (int) R->clock.width, ch = (int) R->clock.height;
  if (cw + 2 * margin > R->scene_w || ch + 2 * margin > R->scene_h / 2)
    return;  /* a thumbnail: no room to read it */
  R->has_clock = TRUE;
  R->clock_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, cw, ch);
  R->clock_x = R->scene_x + margin;
  R->clock_y = R->scene_y + margin;
}

/* Lays the clock reading the time of frame K over the RGBA frame FRAME. */
void
cml_render_draw_clock (CmlRender *R, guint k, guint8 *frame)
{
  if (!R->has_clock)
    return;
  cairo_t *cr = cairo_create (R->clock_surface);
  cairo_set_operator (cr, CAIRO_OPERATOR_CLEAR);
  cairo_paint (cr);
  cairo_set_operator (cr, CAIRO_OPERATOR_OVER);
  cml_video_clock_draw (&R->clock, cr, cml_render_frame_time (R, k));
  cairo_destroy (cr);
  cairo_surface_flush (R->clock_surface);
  draw_card (R, R->clock_surface, R->clock_x, R->clock_y, frame);
}

/* The camera: the window's default three-quarter view, fitted as the window fits it to
 * everything the whole run shows (the pre-run's bounds: bodies, trails, the table at its
 * final size), with the legend's corner kept free. */
void
cml_render_frame_scene (CmlRender *R)
{
  CmlCameraKeepOut keep_out = { { 0, 0 }, { 0, 0 } };
  if (R->legend)
    {
      keep_out.legend[0] = (double) (R->legend_x - R->scene_x + cairo_image_surface_get_width (R->legend)) / R->scene_w;
      keep_out.legend[1] = (double) (R->scene_y + R->scene_h - R->legend_y) / R->scene_h;
    }
  cml_scene_fit_camera (R->renderer, R->n_values ? R->values : NULL, &R->style, (double) R->scene_w / R->scene_h,
                        &keep_out, &R->camera);
}

/* The plot of the chosen observable against time over [0, T], its y range fixed to
 * what the whole run reaches, so nothing jumps while the curve grows. */
void
cml_render_setup_plot (CmlRender *R)
{
  CmlModel *model = cml_system_get_model (R->sys);
  const char *name = cml_system_observable_name (R->sys, R->plot_index);
  const char *unit = cml_model_unit (model, name);
  if (unit == NULL || g_str_equal (unit, "1"))
    unit = "";

  R->plot = cml_plot_new ();
  R->series = cml_plot_series_new (name, unit);
  cml_plot_add_series (R->plot, R->series);
  cml_plot_set_title (R->plot, model->title);
  cml_plot_axis_set_label (cml_plot_get_x_axis (R->plot), "t", model->time_unit ? model->time_unit : "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (R->plot), name, unit);
  cml_plot_set_time_window (R->plot, R->o->t_end);
  cml_plot_axis_set_range (cml_plot_get_x_axis (R->plot), 0, R->o->t_end);

  CmlPlotAxis *y = cml_plot_get_y_axis (R->plot);
  if (R->y_min <= R->y_max)
    {
      /* auto-scale once, to the whole run's range, then keep it */
      cml_plot_axis_fit (y, R->y_min, R->y_max, TRUE);
      double lo, hi;
      cml_plot_axis_get_range (y, &lo, &hi);
      if (hi > lo)
        cml_plot_axis_set_range (y, lo, hi);
    }

  /* fonts and lines in proportion to the frame: the default style suits 720 rows */
  cml_plot_style_init (&R->plot_style, FALSE, FALSE);
  {
    /* one background for the whole frame */
    float bg[4];
    cml_scene_style_get_background (&R->style, bg);
    R->plot_style.background = (CmlPlotRgba) { bg[0], bg[1], bg[2], 1.f };
  }
  R->plot_style.scale = CLAMP (R->o->height / 720.0, 0.5, 4.0);
  R->plot_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, R->plot_w, R->plot_h);
}

/* Draws the plot as it stands into its rectangle of the RGBA frame FRAME. */
void
cml_render_draw_plot (CmlRender *R, guint8 *frame)
{
  cairo_t *cr = cairo_create (R->plot_surface);
  cml_plot_cairo_draw (R->plot, cr, R->plot_w, R->plot_h, &R->plot_style);
  cairo_destroy (cr);
  cairo_surface_flush (R->plot_surface);

  const guint8 *src = cairo_image_surface_get_data (R->plot_surface);
  int src_stride = cairo_image_surface_get_stride (R->plot_surface);
  gsize stride = (gsize) R->o->width * 4;
  for (int y = 0; y < R->plot_h; y++)
    {
      const guint32 *s = (const guint32 *) (src + (gsize) y * src_stride);
      guint8 *d = frame + (gsize) (R->plot_y + y) * stride + (gsize) R->plot_x * 4;
      for (int x = 0; x < R->plot_w; x++)
        {
          /* ARGB32 is premultiplied; the plot's background is opaque, so it is plain */
          guint32 p = s[x];
          d[4 * x + 0] = (p >> 16) & 0xff;
          d[4 * x + 1] = (p >> 8) & 0xff;
          d[4 * x + 2] = p & 0xff;
          d[4 * x + 3] = 0xff;
        }
    }
}
