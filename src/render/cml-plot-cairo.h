/* cml-plot-cairo.h — draws a CmlPlot with Cairo; PNG, SVG and PDF export.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same layout as the live OpenGL view (cml_plot_layout), drawn with Cairo and
 * PangoCairo: figures for slides and papers.  Vector formats stay vector (lines as
 * paths, text as text).  Any thread, one plot at a time.
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cml-plot.h"

G_BEGIN_DECLS

/* Draws PLOT into the rectangle (0, 0, WIDTH, HEIGHT) of CR's user space (px for an
 * image, points for PDF/SVG).  STYLE NULL: the light, normal style. */
void     cml_plot_cairo_draw (CmlPlot *plot, cairo_t *cr, double width, double height,
                              const CmlPlotStyle *style);

/* Writes PLOT to PATH as PNG, SVG or PDF, chosen by the extension (case-insensitive);
 * WIDTH × HEIGHT are pixels for PNG and points for SVG/PDF.  The file is written
 * through cml-atomic-file.c (a temporary file in the same directory, then renamed; a
 * device or FIFO written directly, a symbolic link followed, a read-only file refused),
 * so a failed export leaves nothing behind.  Errors: CML_ERROR_USAGE for an unknown extension or
 * a bad size, CML_ERROR_IO for files. */
/* The data point under (PX, PY) of PLOT drawn by cml_plot_cairo_draw at WIDTH × HEIGHT
 * with STYLE, or FALSE outside its plot area. */
gboolean cml_plot_cairo_pick (CmlPlot *plot, double width, double height, const CmlPlotStyle *style,
                              double px, double py, double *x, double *y);

gboolean cml_plot_export (CmlPlot *plot, const char *path, int width, int height,
                          GError **error);
/* The same with a style (NULL: light, normal). */
gboolean cml_plot_export_with_style (CmlPlot *plot, const char *path, int width, int height,
                                     const CmlPlotStyle *style, GError **error);

G_END_DECLS
