/* cml-plot-area.c — a Cairo plot that answers clicks in data coordinates: the plotting
 * surface of the Section and Sweep pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A drawing area that owns a CmlPlot (not against time, every sample shown) and draws it
 * with cml_plot_cairo_draw in the window's plot style (dark, high contrast, presentation).
 * A press inside the plot's axes emits ::plot-pressed with the data point (x, y) under
 * the pointer.  The map from data to pixels is affine, x ↦ cx + (x − x₀)·10/(x₁ − x₀)
 * (and so for y), with (x₀, y₀) and (x₁, y₁) the data points picked at the centre and
 * 10 px right and down of it: cml_plot_area_locate inverts the pick with it.  Its
 * template properties: "empty-hint", the text the plot shows while it has no data.
 */
#define G_LOG_DOMAIN "cml-plot-area"

#include "cml-plot-area.h"

#include "cml-plot-cairo.h"

struct _CmlPlotArea
{
  GtkDrawingArea parent_instance;

  CmlPlot       *plot;
  char          *empty_hint; /* as given to the plot */
  gboolean       dark, high_contrast, presentation;
};

G_DEFINE_FINAL_TYPE (CmlPlotArea, cml_plot_area, GTK_TYPE_DRAWING_AREA)

enum
{
  PROP_0,
  PROP_EMPTY_HINT,
  N_PROPS
};

enum
{
  PLOT_PRESSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
cml_plot_area_draw_plot (CmlPlotArea *self, cairo_t *cr, int width, int height)
{
  CmlPlotStyle style;

  g_return_if_fail (CML_IS_PLOT_AREA (self));
  cml_plot_area_get_style (self, &style);
  cml_plot_cairo_draw (self->plot, cr, width, height, &style);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  cml_plot_area_draw_plot (CML_PLOT_AREA (area), cr, width, height);
}

static void
on_pressed (GtkGestureClick *click, int n_press, double wx, double wy, CmlPlotArea *self)
{
  double x, y;
  CmlPlotStyle style;

  cml_plot_area_get_style (self, &style);
  if (cml_plot_cairo_pick (self->plot, gtk_widget_get_width (GTK_WIDGET (self)),
                           gtk_widget_get_height (GTK_WIDGET (self)), &style, wx, wy, &x, &y))
    g_signal_emit (self, signals[PLOT_PRESSED], 0, x, y);
}

static void
cml_plot_area_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlPlotArea *self = CML_PLOT_AREA (object);

  switch (prop_id)
    {
    case PROP_EMPTY_HINT:
      g_value_set_string (value, self->empty_hint);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_plot_area_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CmlPlotArea *self = CML_PLOT_AREA (object);

  switch (prop_id)
    {
    case PROP_EMPTY_HINT:
      g_free (self->empty_hint);
      self->empty_hint = g_value_dup_string (value);
      cml_plot_set_empty_hint (self->plot, self->empty_hint);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_plot_area_finalize (GObject *object)
{
  CmlPlotArea *self = CML_PLOT_AREA (object);

  g_clear_pointer (&self->plot, cml_plot_unref);
  g_free (self->empty_hint);
  G_OBJECT_CLASS (cml_plot_area_parent_class)->finalize (object);
}

static void
cml_plot_area_class_init (CmlPlotAreaClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = cml_plot_area_get_property;
  object_class->set_property = cml_plot_area_set_property;
  object_class->finalize = cml_plot_area_finalize;

  /* what the plot shows while it has no data */
  properties[PROP_EMPTY_HINT] = g_param_spec_string ("empty-hint", NULL, NULL, NULL,
                                                     G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* CmlPlotArea::plot-pressed (x, y): a press on the data point (X, Y), inside the axes */
  signals[PLOT_PRESSED] = g_signal_new ("plot-pressed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_DOUBLE,
                                        G_TYPE_DOUBLE);
}

static void
cml_plot_area_init (CmlPlotArea *self)
{
  self->plot = cml_plot_new ();
  cml_plot_set_against_time (self->plot, FALSE);
  cml_plot_set_show_all (self->plot, TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);

  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}

GtkWidget *
cml_plot_area_new (void)
{
  return g_object_new (CML_TYPE_PLOT_AREA, NULL);
}

CmlPlot *
cml_plot_area_get_plot (CmlPlotArea *self)
{
  g_return_val_if_fail (CML_IS_PLOT_AREA (self), NULL);
  return self->plot;
}

void
cml_plot_area_set_style (CmlPlotArea *self, gboolean dark, gboolean high_contrast,
                         gboolean presentation)
{
  g_return_if_fail (CML_IS_PLOT_AREA (self));
  self->dark = !!dark;
  self->high_contrast = !!high_contrast;
  self->presentation = !!presentation;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cml_plot_area_get_style (CmlPlotArea *self, CmlPlotStyle *style)
{
  g_return_if_fail (CML_IS_PLOT_AREA (self));
  cml_plot_style_init_contrast (style, self->dark, self->high_contrast, self->presentation);
}

gboolean
cml_plot_area_get_dark (CmlPlotArea *self)
{
  g_return_val_if_fail (CML_IS_PLOT_AREA (self), FALSE);
  return self->dark;
}

gboolean
cml_plot_area_get_presentation (CmlPlotArea *self)
{
  g_return_val_if_fail (CML_IS_PLOT_AREA (self), FALSE);
  return self->presentation;
}

gboolean
cml_plot_area_locate (CmlPlotArea *self, int width, int height, double x, double y, double *px,
                      double *py)
{
  double x0, y0, x1, y1, cx = 0.5 * width, cy = 0.5 * height, ux, uy;
  CmlPlotStyle style;

  g_return_val_if_fail (CML_IS_PLOT_AREA (self), FALSE);
  cml_plot_area_get_style (self, &style);
  if (width <= 0 || height <= 0
      || !cml_plot_cairo_pick (self->plot, width, height, &style, cx, cy, &x0, &y0)
      || !cml_plot_cairo_pick (self->plot, width, height, &style, cx + 10, cy + 10, &x1, &y1)
      || x1 == x0 || y1 == y0)
    return FALSE;
  *px = cx + (x - x0) * 10 / (x1 - x0);
  *py = cy + (y - y0) * 10 / (y1 - y0);
  /* outside the plot area */
  return cml_plot_cairo_pick (self->plot, width, height, &style, *px, *py, &ux, &uy);
}
