/* cml-plot-view-gl.c — the live plot drawn in its GtkGLArea (cml-plot-gl), the
 * tests' pixel probe, and zoom: the wheel around the pointer, a double click back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <math.h>

#include <epoxy/gl.h>

#include "cml-gl-probe.h"
#include "cml-plot-gl.h"

static void
area_size (CmlPlotView *self, int *width, int *height, int *scale)
{
  *scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  *width = gtk_widget_get_width (GTK_WIDGET (self->area)) * *scale;
  *height = gtk_widget_get_height (GTK_WIDGET (self->area)) * *scale;
}

void
cml_plot_view_on_area_realize (CmlPlotView *self)
{
  g_autoptr (GError) error = NULL;

  gtk_gl_area_make_current (self->area);
  if (gtk_gl_area_get_error (self->area) != NULL)
    return;
  self->renderer = cml_plot_gl_new (&error);
  if (self->renderer == NULL)
    {
      g_warning ("plot: %s", error->message);
      self->renderer_failed = TRUE;
      gtk_gl_area_set_error (self->area, error);
    }
}

void
cml_plot_view_on_area_unrealize (CmlPlotView *self)
{
  if (self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->renderer, cml_plot_gl_free);
    }
  self->renderer_failed = FALSE;
}

gboolean
cml_plot_view_on_area_render (CmlPlotView *self, GdkGLContext *context)
{
  int width, height, scale;
  CmlPlotStyle style;

  if (self->renderer == NULL)
    return FALSE;

  /* the plot model may have been told directly (export code, tests) */
  gboolean show_all = cml_plot_get_show_all (self->plot);
  if (gtk_toggle_button_get_active (self->all_button) != show_all)
    gtk_toggle_button_set_active (show_all ? self->all_button : self->window_button, TRUE);

  area_size (self, &width, &height, &scale);
  cml_plot_view_style (self, &style);
  cml_plot_gl_draw (self->renderer, self->plot, width, height, &style);

  /* G_MESSAGES_DEBUG=cml-plot-view shows what a frame costs */
  if (++self->n_frames % 120 == 0)
    {
      CmlPlotGlStats stats;
      cml_plot_gl_get_stats (self->renderer, &stats);
      g_debug ("%d×%d: %.2f ms, %u segments, %u series points, %u labels (%u new)", width, height,
               stats.cpu_ms, stats.n_segments, stats.n_series_points, stats.n_labels,
               stats.n_rasterized);
    }
  return TRUE;
}

/* The pixel probe's drawing (cml-gl-probe.h): the plot at the area's size (640×360 if it
 * has none) in a framebuffer of its own, read back. */
static CmlGlProbeStatus
probe_draw (gpointer view, CmlGlProbeImage *image)
{
  CmlPlotView *self = view;
  int width, height, scale;
  CmlPlotStyle style;

  if (self->renderer == NULL)
    return self->renderer_failed ? CML_GL_PROBE_FAILED : CML_GL_PROBE_NO_GL;

  area_size (self, &width, &height, &scale);
  if (width <= 0 || height <= 0)
    width = 640, height = 360;

  gtk_gl_area_make_current (self->area);

  /* an off-screen framebuffer of the same size */
  GLuint fbo, rb;
  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers (1, &rb);
  glBindRenderbuffer (GL_RENDERBUFFER, rb);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);

  cml_plot_view_style (self, &style);
  cml_plot_gl_draw (self->renderer, self->plot, width, height, &style);
  image->width = width;
  image->height = height;
  image->rgba = g_malloc ((gsize) width * height * 4);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image->rgba);

  glBindFramebuffer (GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers (1, &rb);
  glDeleteFramebuffers (1, &fbo);

  image->background[0] = style.background.r;
  image->background[1] = style.background.g;
  image->background[2] = style.background.b;
  image->background[3] = style.background.a;
  gtk_gl_area_queue_render (self->area);
  return CML_GL_PROBE_DRAWN;
}

gboolean
cml_plot_view_probe_pixels (CmlPlotView *self, double *fraction)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (fraction != NULL, FALSE);

  return cml_gl_probe_pixels (self->area, probe_draw, self, fraction);
}

/* ---- zoom ------------------------------------------------------------------------------ */

void
cml_plot_view_sync_zoom (CmlPlotView *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.reset-zoom",
                                 cml_plot_get_zoomed (self->plot));
}

gboolean
cml_plot_view_zoom_at (CmlPlotView *self, double wx, double wy, double steps)
{
  double x, y;
  int scale;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  /* around the data point under the pointer; outside the plot area the wheel is not ours */
  if (self->renderer == NULL || steps == 0
      || !cml_plot_gl_pick (self->renderer, wx * scale, wy * scale, &x, &y))
    return FALSE;
  cml_plot_zoom (self->plot, x, y, pow (1.25, steps));
  cml_plot_view_sync_zoom (self);
  gtk_gl_area_queue_render (self->area);
  return TRUE;
}

void
cml_plot_view_reset_zoom (CmlPlotView *self)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  cml_plot_reset_zoom (self->plot);
  cml_plot_view_sync_zoom (self);
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_plot_view_get_zoomed (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return cml_plot_get_zoomed (self->plot);
}

void
cml_plot_view_on_pointer_motion (GtkEventControllerMotion *motion, double x, double y,
                                 CmlPlotView *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

/* The wheel over the plot area zooms around the pointer (down: out); anywhere else it is
 * left to what is under it. */
gboolean
cml_plot_view_on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, CmlPlotView *self)
{
  return cml_plot_view_zoom_at (self, self->pointer_x, self->pointer_y, dy);
}

void
cml_plot_view_on_double_click (GtkGestureClick *click, int n_press, double x, double y,
                               CmlPlotView *self)
{
  if (n_press == 2 && cml_plot_get_zoomed (self->plot))
    cml_plot_view_reset_zoom (self);
}

void
cml_plot_view_reset_zoom_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_plot_view_reset_zoom (CML_PLOT_VIEW (widget));
}
