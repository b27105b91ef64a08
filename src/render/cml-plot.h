/* cml-plot.h — the backend-free plot model: data, mapping and layout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A plot is kept in three parts, drawn by backends that only draw:
 *
 *   data     CmlPlotColumn: a growing array of doubles with a min/max pyramid
 *            (block minima and maxima over 16, 32, 64 … samples), so that the
 *            minimum and maximum over any index range cost O(log N).
 *            CmlPlotSeries: a named curve — an x column, a y column and the time
 *            column that says when each sample was taken (the x column itself for a
 *            plot against time).  Columns are shared: the live view keeps one column
 *            per observable, all sharing one time column.
 *   mapping  CmlPlotAxis: label, unit, range, auto-scale with padding, "nice" ticks
 *            (1, 2, 5 × 10^k) with formatted labels.
 *            CmlPlot: title, the two axes, the series, the time window (the last
 *            20 time units by default, or the whole run) and the layout of a frame
 *            (plot area, tick labels, axis titles, legend) for a given size.
 *   drawing  cml-plot-gl.h (the live view) and cml-plot-cairo.h (PNG/SVG/PDF
 *            export) draw a CmlPlotLayout and the series' decimated polylines.
 *
 * Decimation: against time, the x range of the plot is split into one bucket per
 * pixel column and each bucket gives the first, minimum, maximum and last sample in
 * it (the "M4" reduction, which rasterises exactly like the full data); a frame thus
 * costs O(width · log N), not O(N).  A column that oscillates over several pixels
 * becomes a vertical bar, so a band of fast oscillation costs one bar per column.
 * A phase portrait (x not time) is reduced by walking the pyramid (a block of samples
 * whose bounding box is smaller than a pixel becomes one point), by leaving out steps
 * over pixels the line has inked already (an orbit traced a thousand times costs what
 * it covers once), and by a cache that walks only the new samples of the next frame.
 * Straight stretches of the polyline in pixels are merged into single segments.
 *
 * Nothing here uses GL, Cairo or GTK.  Not thread-safe: one thread (the UI thread, or
 * the exporting thread) uses a plot at a time.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* ---- colours and style -------------------------------------------------------------- */

typedef struct
{
  float r, g, b, a; /* 0 … 1, not premultiplied */
} CmlPlotRgba;

#define CML_PLOT_PALETTE_SIZE 8

/* How a plot looks; shared by the backends so that the live view and the export match.
 * Lengths are in pixels at scale 1 (points for PDF/SVG). */
typedef struct
{
  CmlPlotRgba background;
  CmlPlotRgba foreground;   /* axes, tick labels, titles */
  CmlPlotRgba grid;
  CmlPlotRgba palette[CML_PLOT_PALETTE_SIZE]; /* series colours, in order */
  const char *font_family;  /* Pango family list, e.g. "Cantarell, DejaVu Sans, Sans" */
  double      font_size;    /* tick labels and legend, px */
  double      title_size;   /* plot title and axis titles, px */
  double      line_width;   /* series, px */
  double      axis_width;   /* axes and tick marks, px */
  double      grid_width;   /* grid lines, px */
  double      tick_length;  /* px */
  double      padding;      /* space around everything, px */
  double      min_tick_spacing; /* px between tick labels at least (x axis) */
  double      dash_on, dash_off; /* a dashed series (a closed form): px of line, px of gap
                                  * (the round caps of the line widen each dash by its width) */
  double      dash_width;   /* a dashed series' line, px: wider than line_width, so that a
                             * closed form added before (under) the data it matches shows
                             * on both sides of it */
  double      scale;        /* device pixels per px (HiDPI); the size factor for export */
} CmlPlotStyle;

/* Fills STYLE for a light or dark background, normal or presentation (projector:
 * large fonts, thick lines). */
void cml_plot_style_init (CmlPlotStyle *style, gboolean dark, gboolean presentation);
/* The same, and for a person who asked the desktop for high contrast when HIGH_CONTRAST:
 * black on white (white on black), a grid that shows, colours of strong contrast with
 * the background, and lines half as thick again (the window's plots). */
void cml_plot_style_init_contrast (CmlPlotStyle *style, gboolean dark, gboolean high_contrast,
                                   gboolean presentation);
/* Fills STYLE for a figure of WIDTH × HEIGHT (px for PNG, pt for SVG/PDF), light or dark:
 * the normal style scaled with the figure, so that text and lines are as large relative
 * to it as in an 800 × 450 figure (at 1600 × 900 twice as large: 26 px tick labels),
 * and never smaller than the normal style. */
void cml_plot_style_init_for_figure (CmlPlotStyle *style, gboolean dark, double width,
                                     double height);

/* ---- columns ------------------------------------------------------------------------ */

typedef struct _CmlPlotColumn CmlPlotColumn;

CmlPlotColumn *cml_plot_column_new (void);
CmlPlotColumn *cml_plot_column_ref (CmlPlotColumn *column);
void           cml_plot_column_unref (CmlPlotColumn *column);

/* Appends N values (a STRIDE apart in VALUES: 1 for a plain array); updates the
 * pyramid in O(N + log total). */
void           cml_plot_column_append (CmlPlotColumn *column, const double *values, guint n,
                                       guint stride);
void           cml_plot_column_clear (CmlPlotColumn *column);
void           cml_plot_column_drop_front (CmlPlotColumn *column, guint n);
/* Room for N samples, taken now (resident), so that the memory does not grow as they come. */
void           cml_plot_column_reserve (CmlPlotColumn *column, guint n);
/* The same for each of COLUMNS (CmlPlotColumn*), the memory made resident by a thread of
 * its own, so that the caller does not wait for it; the columns must not grow past N
 * samples meanwhile. */
void           cml_plot_columns_reserve_in_background (GPtrArray *columns, guint n);
guint          cml_plot_column_get_n (const CmlPlotColumn *column);
const double  *cml_plot_column_get_data (const CmlPlotColumn *column);
/* Minimum and maximum of the finite values with index in [I0, I1), in O(log N).
 * Returns FALSE (and leaves *MIN, *MAX alone) if there is none. */
gboolean       cml_plot_column_range (const CmlPlotColumn *column, guint i0, guint i1,
                                      double *min, double *max);
/* For a non-decreasing column (time): the first index whose value is >= X
 * (N if none), by bisection. */
guint          cml_plot_column_lower_bound (const CmlPlotColumn *column, double x);
/* How many values and pyramid blocks the queries above (and the decimation below) have
 * looked at so far: the work they did, for tests and benchmarks. */
guint64        cml_plot_column_get_n_reads (const CmlPlotColumn *column);

/* ---- series ------------------------------------------------------------------------- */

typedef struct _CmlPlotSeries CmlPlotSeries;

/* A series with columns of its own (x is time, or at least non-decreasing, unless
 * cml_plot_series_set_time_column says otherwise). */
CmlPlotSeries *cml_plot_series_new (const char *name, const char *unit);
/* A series over existing columns: T gives the sample times (it may be X), Y the values.
 * The series has as many samples as the shortest of its columns. */
CmlPlotSeries *cml_plot_series_new_for_columns (const char *name, const char *unit,
                                                CmlPlotColumn *t, CmlPlotColumn *x,
                                                CmlPlotColumn *y);
CmlPlotSeries *cml_plot_series_ref (CmlPlotSeries *series);
void           cml_plot_series_unref (CmlPlotSeries *series);

const char    *cml_plot_series_get_name (const CmlPlotSeries *series);
const char    *cml_plot_series_get_unit (const CmlPlotSeries *series);
/* The legend text: "name [unit]", or "name" without a unit (or a dimensionless one); the
 * unit as cml_plot_format_unit writes it. */
char          *cml_plot_series_dup_label (const CmlPlotSeries *series);
/* Colour: an entry of the style's palette (the default, by order of addition to the
 * plot), or a fixed colour. */
void           cml_plot_series_set_color (CmlPlotSeries *series, const CmlPlotRgba *rgba);
void           cml_plot_series_set_palette_index (CmlPlotSeries *series, guint index);
void           cml_plot_series_get_color (const CmlPlotSeries *series, const CmlPlotStyle *style,
                                          CmlPlotRgba *rgba);
/* Opacity, 0 … 1 (default 1): the colour's alpha (as above) is multiplied by it, in the
 * plot and in the legend's swatch — a family of curves drawn fainter for earlier times. */
void           cml_plot_series_set_opacity (CmlPlotSeries *series, double opacity);

/* Dashed (a closed form drawn beside the data it should match; default FALSE).  The
 * legend's swatch is dashed too. */
void           cml_plot_series_set_dashed (CmlPlotSeries *series, gboolean dashed);
gboolean       cml_plot_series_get_dashed (const CmlPlotSeries *series);
/* Drawn as a dot per sample, not a line (a Poincaré section's crossings; default FALSE). */
void           cml_plot_series_set_markers (CmlPlotSeries *series, gboolean markers);
gboolean       cml_plot_series_get_markers (const CmlPlotSeries *series);
/* A mark of one value on the x axis (the run's value of a swept parameter): a vertical
 * line at X from the bottom of the plot area to its top, whatever the y range, dashed like
 * any series set so.  It takes no part in the y axis' range.  X not finite: not drawn. */
CmlPlotSeries *cml_plot_series_new_x_marker (const char *name, double x);
void           cml_plot_series_set_x_marker (CmlPlotSeries *series, double x);
gboolean       cml_plot_series_is_x_marker (const CmlPlotSeries *series);

/* Appends N samples (x[k], y[k]) to a series made with cml_plot_series_new (x is also
 * the time column). */
void           cml_plot_series_append (CmlPlotSeries *series, const double *x, const double *y,
                                       guint n);
guint          cml_plot_series_get_n (const CmlPlotSeries *series);
CmlPlotColumn *cml_plot_series_get_time_column (const CmlPlotSeries *series);
CmlPlotColumn *cml_plot_series_get_x_column (const CmlPlotSeries *series);
CmlPlotColumn *cml_plot_series_get_y_column (const CmlPlotSeries *series);
/* Index range [*I0, *I1) of the samples with time in [T0, T1]. */
void           cml_plot_series_time_range (const CmlPlotSeries *series, double t0, double t1,
                                           guint *i0, guint *i1);

/* One pixel column of a decimated series (x non-decreasing). */
typedef struct
{
  guint  n;                  /* samples in the column; 0: the rest is undefined */
  guint  first, last;        /* their index range is [first, last] */
  double y_first, y_last;    /* the values of the first and last sample */
  double y_min, y_max;       /* minimum and maximum over the column (finite values) */
} CmlPlotSpan;

/* Decimates the samples with x in [X0, X1] into N_PIXELS columns of equal width:
 * SPANS[c] describes the samples with x in [x0 + c·w, x0 + (c+1)·w), w = (x1−x0)/n_pixels
 * (the last column includes x1).  Costs O(n_pixels · log N).  The x column must be
 * non-decreasing (plots against time).  Returns the number of non-empty columns. */
guint          cml_plot_series_visible_segments (const CmlPlotSeries *series, double x0, double x1,
                                                 guint n_pixels, CmlPlotSpan *spans);

/* The polyline to draw for the samples with x in [X0, X1] (against time) or with time
 * in [T0, T1] (a phase portrait), reduced to what N_PIXELS_X × N_PIXELS_Y pixels can
 * show with a line LINE_WIDTH of those pixels thick.  Appends (x, y) pairs of doubles in data units to POINTS (a GArray of double),
 * with NAN, NAN between pieces that must not be joined (non-finite samples).
 * Against time the line also reaches the nearest samples just outside [X0, X1] (the
 * backend clips).  A phase portrait leaves out steps over pixels the line has inked
 * already (an orbit traced many times costs what it covers), and keeps its result
 * so that the next call with the same mapping only walks the new samples.  Returns the
 * number of points appended. */
guint          cml_plot_series_polyline (CmlPlotSeries *series, gboolean against_time,
                                         double x0, double x1, double y0, double y1,
                                         double t0, double t1,
                                         double n_pixels_x, double n_pixels_y,
                                         double line_width, GArray *points);

/* ---- axes --------------------------------------------------------------------------- */

typedef struct _CmlPlotAxis CmlPlotAxis;

typedef struct
{
  double value;      /* exact decimal value k·step, e.g. 0.6 not 0.6000000000000001 */
  char   label[48];  /* formatted, UTF-8: "0.6", "−2", "1.5×10⁻⁶" */
} CmlPlotTick;

CmlPlotAxis   *cml_plot_axis_new (const char *label, const char *unit);
void           cml_plot_axis_free (CmlPlotAxis *axis);

void           cml_plot_axis_set_label (CmlPlotAxis *axis, const char *label, const char *unit);
const char    *cml_plot_axis_get_label (const CmlPlotAxis *axis);
const char    *cml_plot_axis_get_unit (const CmlPlotAxis *axis);
/* The axis title: "label [unit]", or "label" without a unit (or a dimensionless one),
 * "[unit]" without a label, never "[]" or "[1]"; the unit as cml_plot_format_unit writes it. */
char          *cml_plot_axis_dup_title (const CmlPlotAxis *axis);

/* A unit as people write it: "m^2/s" → "m²/s", "kg*m" → "kg·m", "s^-1" → "s⁻¹".  A
 * dimensionless unit ("1", "-", "") gives "": axes and legends then show the name alone.
 * Newly allocated. */
char          *cml_plot_format_unit (const char *unit);
/* Whether UNIT names a dimension (not NULL, "", "1" or "-"). */
gboolean       cml_plot_unit_is_dimensional (const char *unit);
/* Appends "NAME = VALUE UNIT" to S, for a figure's parameter line: a Greek letter's name
 * as the letter, a trailing index as a subscript ("Omega" → "Ω", "Omega0" → "Ω₀"; other
 * names as written, "k2"),
 * VALUE with up to four significant digits and a real minus sign, the unit as
 * cml_plot_format_unit writes it (none when dimensionless). */
void           cml_plot_append_quantity (GString *s, const char *name, double value,
                                         const char *unit);

/* A fixed range (turns auto-scaling off). */
void           cml_plot_axis_set_range (CmlPlotAxis *axis, double min, double max);
void           cml_plot_axis_get_range (const CmlPlotAxis *axis, double *min, double *max);
void           cml_plot_axis_set_auto_scale (CmlPlotAxis *axis, gboolean auto_scale);
gboolean       cml_plot_axis_get_auto_scale (const CmlPlotAxis *axis);
/* Padding added on both sides by auto-scaling, as a fraction of the data's span
 * (default 0.05). */
void           cml_plot_axis_set_padding (CmlPlotAxis *axis, double fraction);
/* Auto-scaling: makes the range show [DATA_MIN, DATA_MAX] with padding, rounded
 * outwards to the tick step (positive data stop at zero, not below).  The range is kept
 * while the data fit inside it and fill at least a third of it, so a live plot does not
 * jitter.  A nearly constant quantity (a conserved energy, a sweep of a quantity the
 * parameter does not change) gets a span of at least 2·10⁻³ of its magnitude (±0.1 %),
 * so it is drawn flat and rounding noise does not fill the plot; an exactly constant one
 * (a single sample) ±10 % of it, and zero [−1, 1].  No-op when auto-scaling is off.
 * RESET forgets the current range first. */
void           cml_plot_axis_fit (CmlPlotAxis *axis, double data_min, double data_max,
                                  gboolean reset);

/* Maps a value to [0, 1] along the axis (0 at min). */
double         cml_plot_axis_fraction (const CmlPlotAxis *axis, double value);

/* The "nice" step (1, 2 or 5 × 10^k) that splits SPAN into at most MAX_INTERVALS
 * intervals (MAX_INTERVALS >= 1). */
double         cml_plot_nice_step (double span, guint max_intervals);
/* The ticks inside the axis range with at most MAX_INTERVALS steps between the range's
 * ends: fills up to N_MAX entries of TICKS and returns how many.  *STEP (may be NULL)
 * receives the step. */
guint          cml_plot_axis_ticks (const CmlPlotAxis *axis, guint max_intervals,
                                    CmlPlotTick *ticks, guint n_max, double *step);
/* VALUE rounded to the decimals that RES (the size of a pixel, in VALUE's units)
 * resolves: a point picked with the pointer is 0.82, not 0.8234567.  VALUE itself when
 * RES is not a positive number or the rounding overflows. */
double         cml_plot_round_to_resolution (double value, double res);

/* Formats VALUE as a tick label for ticks STEP apart on an axis whose largest tick
 * magnitude is MAX_ABS: as many decimals as STEP needs, ×10ⁿ notation (one exponent
 * for the whole axis) when MAX_ABS is >= 10⁵ or < 10⁻³, a real minus sign. */
void           cml_plot_format_tick (double value, double step, double max_abs, char *buf,
                                     gsize size);

/* ---- the plot ----------------------------------------------------------------------- */

typedef struct _CmlPlot CmlPlot;

CmlPlot       *cml_plot_new (void);
CmlPlot       *cml_plot_ref (CmlPlot *plot);
void           cml_plot_unref (CmlPlot *plot);

void           cml_plot_set_title (CmlPlot *plot, const char *title);
const char    *cml_plot_get_title (const CmlPlot *plot);
/* A line under the title in the plain face, for the parameters of the run
 * ("m = 1 kg, r = 1 m, Ω = 1 rad/s"); "" (the default) for none. */
void           cml_plot_set_subtitle (CmlPlot *plot, const char *subtitle);
/* What the plot says while it has no data (NULL: "No data yet — press Play"). */
void           cml_plot_set_empty_hint (CmlPlot *plot, const char *hint);
const char    *cml_plot_get_subtitle (const CmlPlot *plot);
CmlPlotAxis   *cml_plot_get_x_axis (CmlPlot *plot);
CmlPlotAxis   *cml_plot_get_y_axis (CmlPlot *plot);

/* Against time (the default) the x axis is time and follows the time window; otherwise
 * the plot is a phase portrait: each series draws (x, y) for the samples in the window
 * and the x axis scales to its data. */
void           cml_plot_set_against_time (CmlPlot *plot, gboolean against_time);
gboolean       cml_plot_get_against_time (const CmlPlot *plot);

/* The sliding time window: the last WINDOW time units (default 20), or everything. */
void           cml_plot_set_time_window (CmlPlot *plot, double window);
double         cml_plot_get_time_window (const CmlPlot *plot);
void           cml_plot_set_show_all (CmlPlot *plot, gboolean show_all);
gboolean       cml_plot_get_show_all (const CmlPlot *plot);
/* Whether a legend is drawn (default TRUE when there are two or more series, or the
 * series' name is not the y axis label). */
void           cml_plot_set_legend_visible (CmlPlot *plot, gboolean visible);

/* Equal scales (default on): when both axes carry the same unit (a phase portrait of
 * lengths, y [m] against x [m]) one data unit is equally long in pixels on both axes, so a
 * circle is drawn round.  The layout widens the range of the axis that has more pixels per
 * unit, around its centre (the data stay in view).  Not against time, and not when the
 * units differ or are missing (dimensionless). */
void           cml_plot_set_equal_scales (CmlPlot *plot, gboolean equal_scales);
gboolean       cml_plot_get_equal_scales (const CmlPlot *plot);
/* Whether the layout makes the scales equal now: the toggle is on, the plot is a phase
 * portrait and both axes have the same dimensional unit. */
gboolean       cml_plot_get_equal_scales_apply (const CmlPlot *plot);
/* Whether equal scales can apply (the toggle aside): a phase portrait whose axes have the
 * same dimensional unit. */
gboolean       cml_plot_get_equal_scales_possible (const CmlPlot *plot);

/* Adds a series (a reference is taken); it gets the next palette entry unless it has a
 * colour of its own. */
void           cml_plot_add_series (CmlPlot *plot, CmlPlotSeries *series);
void           cml_plot_remove_all_series (CmlPlot *plot);
guint          cml_plot_get_n_series (const CmlPlot *plot);
CmlPlotSeries *cml_plot_get_series (const CmlPlot *plot, guint i);
/* Series shown in the legend, in order (all of them, for now). */
guint          cml_plot_get_n_legend_entries (const CmlPlot *plot);

/* The time span covered by the data: first and last sample time over all series.
 * FALSE if there are no samples. */
gboolean       cml_plot_get_time_extent (const CmlPlot *plot, double *t_first, double *t_last);
/* The time interval shown: [t_last − window, t_last] (starting at the first sample if
 * that is later; [t_first, t_first + window] while there is less than a window of data)
 * or the whole run. */
void           cml_plot_get_visible_time (const CmlPlot *plot, double *t0, double *t1);
/* Brings the axis ranges up to date with the data: x follows the time window (or
 * auto-scales to the phase portrait's data), y auto-scales to the data visible in the
 * x range (O(series · log N)).  Backends call it before drawing; RESET drops the
 * current auto-scaled ranges (after a change of selection). */
void           cml_plot_update_ranges (CmlPlot *plot, gboolean reset);
/* Zooms by FACTOR (< 1 in, > 1 out) around the data point (X, Y): against time the time
 * axis shows a fixed interval (the run goes on beyond it) and y scales to the data in it;
 * a phase portrait's two axes get fixed ranges.  The point stays where it was. */
void           cml_plot_zoom (CmlPlot *plot, double x, double y, double factor);
/* Back to the view that follows the data (the time window, auto-scaled axes). */
void           cml_plot_reset_zoom (CmlPlot *plot);
gboolean       cml_plot_get_zoomed (const CmlPlot *plot);
/* Forgets auto-scaled ranges so the next update starts afresh. */
void           cml_plot_reset_ranges (CmlPlot *plot);

/* ---- layout ------------------------------------------------------------------------- */

/* The size of TEXT in px (logical extents) at SIZE px in the style's font (BOLD: its
 * bold face); rotated text (the y axis title) is measured unrotated.  Backends provide
 * it (Pango). */
typedef void (*CmlPlotMeasureFunc) (const char *text, double size, gboolean bold,
                                    double *width, double *height, gpointer user_data);

typedef struct
{
  double x, y;            /* px: where the text's box goes (top-left; rotated: see below) */
  double w, h;            /* its size, as measured (unrotated) */
  double size;            /* font size, px */
  gboolean bold;
  gboolean rotated;       /* turned 90° counter-clockwise: the box spans
                           * [x, x + h] × [y, y + w] */
  char  *text;
} CmlPlotLabel;

typedef struct
{
  double pos;             /* px along the axis (x for the x axis, y for the y axis) */
  double value;
} CmlPlotTickMark;

typedef struct
{
  double width, height;   /* px, the whole frame */
  double area_x, area_y, area_w, area_h; /* the plot area (data), px; y grows down */
  double x0, x1, y0, y1;  /* the data ranges mapped onto it */
  GArray *x_ticks, *y_ticks;  /* CmlPlotTickMark */
  GPtrArray *labels;      /* CmlPlotLabel*: title, axis titles, tick labels */
  /* the legend (w = 0: none), always outside the plot area so it never covers data: in
   * rows above it (wrapped, each flush right), or in a column to its right when that
   * is narrow.  Its bounding box and one label per entry, in series order, each inside
   * the frame (an entry too wide for the frame is shortened with an ellipsis, never
   * cut); each entry's colour swatch is a line LEGEND_SWATCH long ending
   * LEGEND_SWATCH_GAP before its label, at the label's middle height */
  double legend_x, legend_y, legend_w, legend_h;
  double legend_swatch, legend_swatch_gap;
  GPtrArray *legend_labels; /* CmlPlotLabel* */
  const char *empty_message; /* NULL, or a message to show centred ("no data yet") */
  CmlPlotLabel *empty_label; /* that message laid out, centred in the plot area: at the
                              * titles' size, on two lines or smaller when one line is
                              * wider than the area; NULL without a message */
} CmlPlotLayout;

/* Lays a frame of WIDTH × HEIGHT px out: margins from the measured tick labels and
 * titles, ticks at the axis' nice values, the legend above or beside the plot area, and
 * equal scales when cml_plot_get_equal_scales_apply says so (the layout's X0 … Y1 are
 * then wider than the axes' ranges on one side).
 * Calls cml_plot_update_ranges (plot, FALSE) first.  Free with cml_plot_layout_clear. */
void           cml_plot_layout (CmlPlot *plot, const CmlPlotStyle *style, double width, double height,
                                CmlPlotMeasureFunc measure, gpointer user_data,
                                CmlPlotLayout *layout);
void           cml_plot_layout_clear (CmlPlotLayout *layout);
/* Data to px in a layout (y grows downwards). */
double         cml_plot_layout_map_x (const CmlPlotLayout *layout, double x);
double         cml_plot_layout_map_y (const CmlPlotLayout *layout, double y);

/* The polyline of series I of PLOT for LAYOUT, in px (x, y pairs of float; NAN pairs
 * between pieces), using OVERSAMPLE pixel columns per px (1 on screen; more for vector
 * export) for a line LINE_WIDTH px thick.  Returns the number of points. */
guint          cml_plot_layout_series_points (const CmlPlotLayout *layout, CmlPlot *plot, guint i,
                                              double oversample, double line_width,
                                              GArray *points_f);

/* The dots of series I of PLOT (a series with markers) for LAYOUT: every sample inside
 * the plot area, in px (x, y pairs of float), one per pixel at most.  Returns the number
 * of points. */
guint          cml_plot_layout_series_markers (const CmlPlotLayout *layout, CmlPlot *plot, guint i,
                                               GArray *points_f);

/* For a backend that cannot dash lines itself (GL): the dashes of the polyline POINTS_F
 * (x, y pairs of float in px, NAN pairs between pieces), ON px drawn and OFF px left out
 * along its length, the pattern running on across its vertices (and starting afresh at each
 * break), appended to OUT_F as one piece per dash (it follows the corners), the pieces
 * separated by NAN pairs.  Returns the number
 * of dashes. */
guint          cml_plot_dash_polyline (const GArray *points_f, double on, double off, GArray *out_f);

/* ---- heat maps (cml-plot-heatmap.c) -------------------------------------------------- */

/* A heat map of NX × NY VALUES (row by row: values[j·nx + i] is at x_i, y_j; the points
 * evenly spaced from (X0, Y0) to (X1, Y1)), each drawn as a cell in the viridis colour of
 * its value from the smallest finite value to the largest; NaN cells are a hatched grey.
 * NAME and UNIT title the colour bar.  The series' x and y data are the corners of the
 * cells' rectangle, so auto-scaled axes show them all.  Drawn by the Cairo backend (a
 * plot with a heat map gets a colour bar right of its frame). */
CmlPlotSeries *cml_plot_series_new_heatmap (const char *name, const char *unit, guint nx, guint ny,
                                            double x0, double x1, double y0, double y1,
                                            const double *values);
gboolean       cml_plot_series_is_heatmap (const CmlPlotSeries *series);
/* The smallest and largest finite values (FALSE: none). */
gboolean       cml_plot_heatmap_get_range (const CmlPlotSeries *series, double *min, double *max);
/* Whether some cell has no value (NaN). */
gboolean       cml_plot_heatmap_has_nan (const CmlPlotSeries *series);
/* The colour of VALUE in the heat map (FALSE for NaN: see cml_plot_heatmap_nan_colors). */
gboolean       cml_plot_heatmap_color (const CmlPlotSeries *series, double value, CmlPlotRgba *rgba);
/* Viridis at F in [0, 1] (clamped). */
void           cml_plot_colormap_viridis (double f, CmlPlotRgba *rgba);
/* A cell without a value: its grey and the colour of its hatching, for STYLE's background. */
void           cml_plot_heatmap_nan_colors (const CmlPlotStyle *style, CmlPlotRgba *fill, CmlPlotRgba *hatch);

/* The colour bar of a plot's first heat map, right of the frame: the bar (px), its range,
 * tick marks (pos: y px) and labels (tick values, the rotated title "name [unit]", the entry
 * for cells without a value beside its swatch). */
typedef struct
{
  const CmlPlotSeries *series;  /* NULL: no colour bar */
  double     x, y, w, h;
  double     min, max;
  GArray    *ticks;             /* CmlPlotTickMark */
  GPtrArray *labels;            /* CmlPlotLabel* */
  double     nan_x, nan_y, nan_size; /* the hatched swatch (nan_size 0: no entry) */
} CmlPlotColorBar;

/* The width the colour bar takes right of the frame (0: PLOT has no heat map). */
double         cml_plot_color_bar_width (CmlPlot *plot, const CmlPlotStyle *style,
                                         CmlPlotMeasureFunc measure, gpointer user_data);
/* Lays the colour bar out in the strip from X to the right of a frame laid out as LAYOUT
 * (the bar spans its plot area's height).  Free with cml_plot_color_bar_clear. */
void           cml_plot_color_bar_layout (CmlPlot *plot, const CmlPlotStyle *style, const CmlPlotLayout *layout,
                                          double x, CmlPlotMeasureFunc measure, gpointer user_data,
                                          CmlPlotColorBar *bar);
void           cml_plot_color_bar_clear (CmlPlotColorBar *bar);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlotColumn, cml_plot_column_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlotSeries, cml_plot_series_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlotAxis, cml_plot_axis_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlot, cml_plot_unref)

G_END_DECLS
