/* cml-scene-view-legend.c — the 3-D view's legend: a card over the bottom-left corner
 * drawn by the renderer's Cairo code (the exported videos show the same card), its type
 * smaller in a short view and folded into a button when even that does not fit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

/* ---- legend ------------------------------------------------------------------------------ */

/* The style the legend is drawn in: Cairo units are logical pixels here. */
CmlSceneStyle
cml_scene_view_legend_style (CmlSceneView *self)
{
  CmlSceneStyle style = self->style;
  style.scale = self->style.presentation ? self->text_scale : 1;
  /* the window's legend says what the pointer can move */
  style.interactive = TRUE;
  /* long lines wrap to the view's width, rather than the whole card shrinking */
  style.legend_width = self->legend_room > 2 * LEGEND_MARGIN ? self->legend_room - 2 * LEGEND_MARGIN : 0;
  return style;
}


static gboolean
legend_relayout (gpointer data)
{
  CmlSceneView *self = data;
  self->legend_relayout = 0;
  cml_scene_view_update_legend (self);
  return G_SOURCE_REMOVE;
}

/* Drawn smaller, all of it, when the view is narrower than the legend (a 4:3 projector
 * with the side panel open): never cut off at the view's edge. */
static void
legend_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSceneView *self = data;
  CmlSceneStyle style = cml_scene_view_legend_style (self);
  double s = 1.0;

  if (self->legend_w > width || self->legend_h > height)
    s = MIN (width / MAX (self->legend_w, 1.0), height / MAX (self->legend_h, 1.0));
  cairo_scale (cr, s, s);
  cml_scene_legend_draw (self->sys, cr, &style);
}

/* The smallest type the legend is drawn in, in logical pixels (see above). */
static double
legend_min_font (CmlSceneView *self)
{
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));
  double least = LEGEND_MIN_FONT;

  if (self->style.presentation && root)
    least = MAX (least, LEGEND_MIN_SHARE_PRESENTING * gtk_widget_get_height (root));
  return least;
}

/* The scale the legend is shown at in a view OW × OH (logical pixels): 1, or less where
 * the view is narrower than the legend (all of it drawn smaller rather than cut off), or
 * short — 1024×768, a lesson's caption band taking its height — where it would take more
 * than LEGEND_MAX_SHARE of the height (or, in a view taller than wide, more than what is
 * below a square of its width) and push the body up: smaller type then, never
 * smaller than legend_min_font.  *FOLD (may be NULL) says whether even so it takes more:
 * then it is folded into a button (shown on demand, at that scale). */
double
cml_scene_view_legend_scale (CmlSceneView *self, int ow, int oh, gboolean *fold)
{
  double w = ceil (self->legend_w), h = ceil (self->legend_h);
  double room = ow - 2.0 * LEGEND_MARGIN, s = 1.0, tall;

  if (fold)
    *fold = FALSE;
  if (w <= 0 || h <= 0 || ow <= 0 || oh <= 0)
    return 1.0;
  if (w > room)
    s = MAX (room, 1.0) / w;
  /* the height it may take: a share of a wide view; of a view taller than wide, what is
   * below a square of its width too (the body is framed in that square all the same) */
  tall = MAX ((self->style.presentation && oh >= LEGEND_TALL_VIEW ? LEGEND_MAX_SHARE_TALL : LEGEND_MAX_SHARE) * oh,
              oh - ow - LEGEND_MARGIN);
  if (h * s > tall)
    {
      CmlSceneStyle style = cml_scene_view_legend_style (self);
      double font = cml_scene_legend_font_size (&style);
      double least = legend_min_font (self);
      /* (a hundredth of a pixel over: not under it by rounding) */
      double readable = font > least ? (least + 0.01) / font : 1.0;

      s = MIN (s, MAX (tall / h, readable));
      if (fold)
        *fold = h * s > tall + 1;
    }
  return s;
}

/* The legend's place in the overlay: bottom left, at the size legend_scale gives
 * (legend_draw scales it to the allocation). */
static gboolean
legend_position (GtkOverlay *overlay, GtkWidget *child, GdkRectangle *allocation, gpointer data)
{
  CmlSceneView *self = data;
  /* the view's size as it is being laid out: the GL area fills the overlay and is given its
   * new size before the overlay's children are placed (the overlay's own is the old one
   * until it is done — a legend placed by it lagged a layout behind: laid out for the
   * narrow view when presentation mode widened it) */
  int ow = gtk_widget_get_width (GTK_WIDGET (self->area)), oh = gtk_widget_get_height (GTK_WIDGET (self->area));
  double w = ceil (self->legend_w), h = ceil (self->legend_h), s;

  if (ow <= 0 || oh <= 0)
    {
      ow = gtk_widget_get_width (GTK_WIDGET (overlay));
      oh = gtk_widget_get_height (GTK_WIDGET (overlay));
    }

  if (child != GTK_WIDGET (self->legend) || ow <= 0)
    return FALSE;
  /* a new width: the legend is laid out for it once this layout is done (and folded or
   * unfolded for a new height) */
  if (ow != self->legend_room || oh != self->legend_room_h)
    {
      self->legend_room = ow;
      self->legend_room_h = oh;
      /* before the next frame is laid out: at the default idle priority, a view redrawn
       * every frame (a run playing) kept it waiting, the legend laid out for the old width */
      if (self->legend_relayout == 0)
        self->legend_relayout = g_idle_add_full (G_PRIORITY_HIGH_IDLE, legend_relayout, self, NULL);
    }
  if (w <= 0 || h <= 0)
    return FALSE;
  s = cml_scene_view_legend_scale (self, ow, oh, NULL);
  /* the allocation holds the legend's margins (start and bottom, LEGEND_MARGIN each) */
  allocation->width = (int) floor (w * s) + LEGEND_MARGIN;
  allocation->height = (int) floor (h * s) + LEGEND_MARGIN;
  allocation->x = 0;
  allocation->y = MAX (oh - allocation->height, 0);
  /* folded: shown above its button */
  if (self->legend_folded)
    {
      int bh = 0;

      gtk_widget_measure (self->legend_button, GTK_ORIENTATION_VERTICAL, -1, NULL, &bh, NULL, NULL);
      allocation->y = MAX (allocation->y - bh - LEGEND_MARGIN, 0);
    }
  return TRUE;
}

/* The legend follows the system, the frame the paths are shown in, light or dark and
 * the presentation size. */
void
cml_scene_view_update_legend (CmlSceneView *self)
{
  CmlSceneStyle style = cml_scene_view_legend_style (self);
  double w = 0, h = 0;
  gboolean any = cml_scene_legend_measure (self->sys, &style, &w, &h);
  self->legend_w = any ? w : 0;
  self->legend_h = any ? h : 0;
  gtk_drawing_area_set_content_width (self->legend, (int) ceil (w));
  gtk_drawing_area_set_content_height (self->legend, (int) ceil (h));
  /* too tall for a short view even in smaller type: folded into its button */
  cml_scene_view_legend_scale (self, self->legend_room, self->legend_room_h, &self->legend_folded);
  self->legend_folded = any && self->legend_folded;
  gtk_widget_set_visible (self->legend_button, self->legend_folded);
  gtk_widget_set_visible (GTK_WIDGET (self->legend),
                          any && (!self->legend_folded
                                  || gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->legend_button))));
  g_auto (GStrv) lines = cml_scene_legend_lines (self->sys, &style);
  g_autofree char *description = g_strjoinv ("; ", lines);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->legend), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
  gtk_widget_queue_draw (GTK_WIDGET (self->legend));
  gtk_gl_area_queue_render (self->area);
}

/* The folded legend's button: the legend shown above it, or not. */
static void
on_legend_toggled (CmlSceneView *self)
{
  cml_scene_view_update_legend (self);
}

void
cml_scene_view_legend_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_legend_toggled);
}

void
cml_scene_view_legend_init (CmlSceneView *self)
{
  gtk_drawing_area_set_draw_func (self->legend, legend_draw, self, NULL);
  g_signal_connect (self->overlay, "get-child-position", G_CALLBACK (legend_position), self);
}
