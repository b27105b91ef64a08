/* cml-plot-view-pick.c — a phase portrait as a place to choose where a run starts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * In a phase portrait whose two axes are quantities a run starts from (coordinates,
 * velocities, a vakonomic system's momenta), a click or a drag inside the plot area emits
 * ::pick-initial with the point under the pointer, in the axes' units (rounded to what a
 * pixel resolves); the window starts
 * the run from there (the constraints solve or project the rest, and the side panel says
 * what was projected).  A drag emits the signal as it goes and once more with DONE set
 * where it ends.  The pointer is a crosshair where a click would do this.
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <glib/gi18n.h>

#include <math.h>

enum
{
  PICK_INITIAL,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* TRUE when NAME is a quantity a run of SELF's model starts from. */
static gboolean
is_initial (CmlPlotView *self, const char *name)
{
  CmlModel *model = self->system ? cml_system_get_model (self->system) : NULL;
  if (model == NULL || name == NULL)
    return FALSE;
  for (guint i = 0; i < model->m; i++)
    if (g_str_equal (model->base[i], name))
      return TRUE;
  for (guint a = 0; a < model->n; a++)
    if (g_str_equal (model->fibre[a], name)
        || (model->kind == CML_CONSTRAINTS_VAKONOMIC && g_str_equal (model->momenta[a], name)))
      return TRUE;
  return FALSE;
}

gboolean
cml_plot_view_can_pick (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->x_name && self->y_names->len > 0 && is_initial (self, self->x_name)
         && is_initial (self, g_ptr_array_index (self->y_names, 0));
}

/* Emits ::pick-initial for the widget point (WX, WY) if it lies in the plot area. */
static gboolean
pick_at (CmlPlotView *self, double wx, double wy, gboolean done)
{
  double x, y;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));

  if (!cml_plot_view_can_pick (self) || self->renderer == NULL
      || !cml_plot_gl_pick (self->renderer, wx * scale, wy * scale, &x, &y))
    return FALSE;
  double x1, y1;
  if (cml_plot_gl_pick (self->renderer, wx * scale + 1, wy * scale + 1, &x1, &y1)
      || cml_plot_gl_pick (self->renderer, wx * scale - 1, wy * scale - 1, &x1, &y1))
    {
      x = cml_plot_round_to_resolution (x, fabs (x1 - x));
      y = cml_plot_round_to_resolution (y, fabs (y1 - y));
    }
  g_signal_emit (self, signals[PICK_INITIAL], 0, self->x_name, x,
                 (const char *) g_ptr_array_index (self->y_names, 0), y, done);
  return TRUE;
}

gboolean
cml_plot_view_pick (CmlPlotView *self, double wx, double wy)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return pick_at (self, wx, wy, TRUE);
}

gboolean
cml_plot_view_has_frame (CmlPlotView *self)
{
  double x, y;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  int w = gtk_widget_get_width (GTK_WIDGET (self->area)),
      h = gtk_widget_get_height (GTK_WIDGET (self->area));

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->renderer
         && cml_plot_gl_pick (self->renderer, 0.5 * w * scale, 0.5 * h * scale, &x, &y);
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, CmlPlotView *self)
{
  if (!pick_at (self, x, y, FALSE))
    gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, CmlPlotView *self)
{
  double x0, y0;
  if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
    pick_at (self, x0 + dx, y0 + dy, FALSE);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, CmlPlotView *self)
{
  double x0, y0;
  if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
    pick_at (self, x0 + dx, y0 + dy, TRUE);
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, CmlPlotView *self)
{
  double dx, dy;
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  gboolean inside = cml_plot_view_can_pick (self) && self->renderer
                    && cml_plot_gl_pick (self->renderer, x * scale, y * scale, &dx, &dy);

  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), inside ? "crosshair" : NULL);
  gtk_widget_set_tooltip_text (
      GTK_WIDGET (self->area),
      inside ? _("Click or drag to start the run from this point")
             : _("Mouse wheel: zoom around the pointer; double click: back to the whole view"));
}

void
cml_plot_view_pick_class_init (GObjectClass *object_class)
{
  /* ::pick-initial (x name, x, y name, y, done): start a run from this point */
  signals[PICK_INITIAL] = g_signal_new (
      "pick-initial", G_TYPE_FROM_CLASS (object_class), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_NONE, 5, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_BOOLEAN);
}

void
cml_plot_view_pick_init (CmlPlotView *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), GTK_EVENT_CONTROLLER (drag));

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
}
