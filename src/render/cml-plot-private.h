/* cml-plot-private.h — the plot model's insides, shared by its files: the column's
 * min/max pyramid and the structures of a series, an axis and a plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only cml-plot*.c include this; everything else uses cml-plot.h.
 */
#pragma once

#include <cairo.h>

#include "cml-plot.h"

/* Level k of the pyramid holds, for block j of 2^(BASE_SHIFT + k) samples, the minimum
 * and maximum of its finite values at [2j] and [2j + 1] (+inf, −inf if it has none).
 * Level 0 is built from the samples, level k from level k − 1.  Only the blocks an
 * append touches are recomputed. */
#define BASE_SHIFT 4
#define MAX_LEVELS 40

struct _CmlPlotColumn
{
  gint    ref_count;
  double *data;
  guint   n, cap;
  double *level[MAX_LEVELS];
  guint   level_cap[MAX_LEVELS]; /* in blocks */
  guint   n_levels;
  guint64 n_reads;               /* values and blocks queries looked at (statistics) */
  guint64 stamp;                 /* new for every column and every clear: caches compare it */
};

/* Queries take a const column but count their work. */
#define COUNT_READS(column, k) (((CmlPlotColumn *) (column))->n_reads += (k))

static inline guint
block_size (guint k)
{
  return 1u << (BASE_SHIFT + k);
}

/* The first index whose value is > X. */
guint cml_plot_column_upper_bound (const CmlPlotColumn *column, double x);

typedef struct _CmlPlotPhaseCache CmlPlotPhaseCache;

/* A heat map's grid (cml-plot-heatmap.c): NX × NY values, row by row (values[j·nx + i] at
 * x_i, y_j), the centres from (X0, Y0) to (X1, Y1); the range of the finite values. */
typedef struct
{
  guint    nx, ny;
  double   x0, x1, y0, y1;
  double  *values;
  double   vmin, vmax;
  gboolean has_nan;
} CmlPlotHeatmap;

void cml_plot_heatmap_free (CmlPlotHeatmap *map);

struct _CmlPlotSeries
{
  gint           ref_count;
  char          *name, *unit;
  CmlPlotColumn *t, *x, *y;
  gboolean       owns_columns;
  gboolean       has_color;
  CmlPlotRgba    color;
  int            palette_index; /* -1: not yet given one */
  double         opacity;       /* 0 … 1 (1: as the colour says): an earlier, fainter curve */
  gboolean       dashed;        /* drawn dashed: a closed form */
  gboolean       markers;       /* drawn as a dot per sample: a Poincaré section */
  gboolean       x_marker;      /* a vertical line across the plot at its one x value */
  CmlPlotPhaseCache *phase;     /* the last phase-portrait polyline (cml-plot-series.c) */
  CmlPlotHeatmap *heatmap;      /* a heat map: drawn as cells, not a line (else NULL) */
};

struct _CmlPlotAxis
{
  char    *label, *unit;
  double   min, max;
  gboolean auto_scale;
  gboolean have_range;  /* auto-scaling has chosen a range */
  double   padding;
};

struct _CmlPlot
{
  gint         ref_count;
  char        *title;
  char        *subtitle;      /* the parameters' line under the title, or "" */
  char        *empty_hint;    /* what an empty plot says (NULL: the live plots' words) */
  CmlPlotAxis *x_axis, *y_axis;
  GPtrArray   *series;        /* CmlPlotSeries* */
  gboolean     against_time;
  double       window;
  gboolean     show_all;
  int          legend;        /* -1 automatic, 0 hidden, 1 shown */
  gboolean     equal_scales;  /* the user's toggle (applies when the units match) */
  gboolean     reset_pending; /* the next update forgets the auto-scaled ranges */
  gboolean     zoomed;        /* a zoom holds the view (cml_plot_zoom) */
  double       zoom_t0, zoom_t1; /* against time: the time interval shown while zoomed */
};

/* LABEL as the equations write it, with "[UNIT]" after it when the unit has a dimension. */
char *cml_plot_label_with_unit (const char *label, const char *unit);

/* The ticks of the range [MIN, MAX] (an axis' own, or the wider one of equal scales). */
guint cml_plot_ticks_for_range (double min, double max, guint max_intervals, CmlPlotTick *ticks,
                       guint n_max, double *step_out);

/* Drawing a heat map with Cairo (cml-plot-heatmap.c): the cells of SERIES in LAYOUT's plot
 * area (the caller clips), and the colour bar (its gradient, outline, tick marks and the
 * hatched swatch for cells without a value; the caller draws its labels). */
void cml_plot_heatmap_cairo_cells (cairo_t *cr, const CmlPlotLayout *layout, const CmlPlotSeries *series,
                                   const CmlPlotStyle *style);
void cml_plot_color_bar_cairo (cairo_t *cr, const CmlPlotColorBar *bar, const CmlPlotStyle *style);
