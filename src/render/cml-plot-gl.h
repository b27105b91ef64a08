/* cml-plot-gl.h — draws a CmlPlot with OpenGL (the live view).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws into the framebuffer bound in the current context (GL 3.3 core or GLES 3.0;
 * shaders/plot*.vert|frag from the resources).  Series are anti-aliased thick lines
 * (one instanced quad per segment, shaped in the fragment shader); text is rendered
 * with PangoCairo into a label atlas, each label once, and drawn as textured quads.
 * Per frame the CPU work and the upload are O(plot width): the series come decimated
 * from the plot model (cml-plot-series.c).
 *
 * Every function needs the context current that the renderer was made in; UI thread.
 */
#pragma once

#include <glib.h>

#include "cml-plot.h"

G_BEGIN_DECLS

typedef struct _CmlPlotGl CmlPlotGl;

/* Compiles the shaders and makes the buffers in the current context.  NULL with ERROR
 * set (the GLSL log) on failure. */
CmlPlotGl *cml_plot_gl_new (GError **error);
/* Frees the GL objects (the same context must be current). */
void       cml_plot_gl_free (CmlPlotGl *self);

/* Draws PLOT over the whole WIDTH × HEIGHT framebuffer (device pixels; STYLE->scale
 * device pixels per px), clearing it to the background. */
void       cml_plot_gl_draw (CmlPlotGl *self, CmlPlot *plot, int width, int height,
                             const CmlPlotStyle *style);

typedef struct
{
  double cpu_ms;          /* time spent in cml_plot_gl_draw (layout, decimation, upload) */
  guint  n_segments;      /* line segments drawn (series, grid, axes) */
  guint  n_series_points; /* polyline points of the series after decimation */
  guint  n_labels;        /* labels drawn */
  guint  n_rasterized;    /* labels rendered with Pango this frame (not from the atlas) */
} CmlPlotGlStats;

/* The data point under device pixel (PX, PY) of the last frame drawn (y down from the
 * top), or FALSE outside its plot area (or before the first frame). */
gboolean   cml_plot_gl_pick (CmlPlotGl *self, double px, double py, double *x, double *y);

/* Statistics of the last draw. */
void       cml_plot_gl_get_stats (CmlPlotGl *self, CmlPlotGlStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlotGl, cml_plot_gl_free)

G_END_DECLS
