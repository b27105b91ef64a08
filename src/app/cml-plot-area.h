/* cml-plot-area.h — a Cairo plot that answers clicks in data coordinates: the plotting
 * surface of the Section and Sweep pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-plot.h"

G_BEGIN_DECLS

#define CML_TYPE_PLOT_AREA (cml_plot_area_get_type ())
G_DECLARE_FINAL_TYPE (CmlPlotArea, cml_plot_area, CML, PLOT_AREA, GtkDrawingArea)

GtkWidget *cml_plot_area_new (void);

/* The plot drawn (owned by the area): not against time, every sample shown. */
CmlPlot   *cml_plot_area_get_plot (CmlPlotArea *self);

/* Dark background, high contrast, and large type for a projector (as the other plots). */
void       cml_plot_area_set_style (CmlPlotArea *self, gboolean dark, gboolean high_contrast,
                                    gboolean presentation);
/* The plot style the area draws with now. */
void       cml_plot_area_get_style (CmlPlotArea *self, CmlPlotStyle *style);
gboolean   cml_plot_area_get_dark (CmlPlotArea *self);
gboolean   cml_plot_area_get_presentation (CmlPlotArea *self);

/* Draws the plot at WIDTH × HEIGHT: what the area's own draw function does.  A page that
 * draws over the plot sets a draw function of its own (gtk_drawing_area_set_draw_func)
 * that calls this first. */
void       cml_plot_area_draw_plot (CmlPlotArea *self, cairo_t *cr, int width, int height);

/* Where the plot drawn at WIDTH × HEIGHT shows the data point (X, Y), in the area's
 * pixels (*PX, *PY); FALSE outside the plot's axes. */
gboolean   cml_plot_area_locate (CmlPlotArea *self, int width, int height, double x, double y,
                                 double *px, double *py);

G_END_DECLS
