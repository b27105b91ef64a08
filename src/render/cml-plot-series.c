/* cml-plot-series.c — a series (a named curve over shared columns) and its
 * decimation to a polyline: per pixel column against time, a pyramid walk with an ink
 * grid for a phase portrait.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== series =========================================================================== */

static void phase_cache_free (CmlPlotPhaseCache *cache);

CmlPlotSeries *
cml_plot_series_new (const char *name, const char *unit)
{
  g_autoptr (CmlPlotColumn) x = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) y = cml_plot_column_new ();
  CmlPlotSeries *series = cml_plot_series_new_for_columns (name, unit, x, x, y);
  series->owns_columns = TRUE;
  return series;
}

CmlPlotSeries *
cml_plot_series_new_for_columns (const char *name, const char *unit, CmlPlotColumn *t,
                                 CmlPlotColumn *x, CmlPlotColumn *y)
{
  g_return_val_if_fail (t != NULL && x != NULL && y != NULL, NULL);

  CmlPlotSeries *series = g_new0 (CmlPlotSeries, 1);
  series->ref_count = 1;
  series->name = g_strdup (name ? name : "");
  series->unit = g_strdup (unit ? unit : "");
  series->t = cml_plot_column_ref (t);
  series->x = cml_plot_column_ref (x);
  series->y = cml_plot_column_ref (y);
  series->palette_index = -1;
  series->opacity = 1;
  return series;
}

CmlPlotSeries *
cml_plot_series_ref (CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  g_atomic_int_inc (&series->ref_count);
  return series;
}

void
cml_plot_series_unref (CmlPlotSeries *series)
{
  if (series == NULL || !g_atomic_int_dec_and_test (&series->ref_count))
    return;
  g_free (series->name);
  g_free (series->unit);
  cml_plot_column_unref (series->t);
  cml_plot_column_unref (series->x);
  cml_plot_column_unref (series->y);
  phase_cache_free (series->phase);
  cml_plot_heatmap_free (series->heatmap);
  g_free (series);
}

const char *
cml_plot_series_get_name (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return series->name;
}

const char *
cml_plot_series_get_unit (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return series->unit;
}

char *
cml_plot_series_dup_label (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return cml_plot_label_with_unit (series->name, series->unit);
}

void
cml_plot_series_set_color (CmlPlotSeries *series, const CmlPlotRgba *rgba)
{
  g_return_if_fail (series != NULL);
  series->has_color = rgba != NULL;
  if (rgba)
    series->color = *rgba;
}

void
cml_plot_series_set_palette_index (CmlPlotSeries *series, guint index)
{
  g_return_if_fail (series != NULL);
  series->has_color = FALSE;
  series->palette_index = (int) index;
}

void
cml_plot_series_set_dashed (CmlPlotSeries *series, gboolean dashed)
{
  g_return_if_fail (series != NULL);
  series->dashed = !!dashed;
}

void
cml_plot_series_set_markers (CmlPlotSeries *series, gboolean markers)
{
  g_return_if_fail (series != NULL);
  series->markers = !!markers;
}

gboolean
cml_plot_series_get_markers (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, FALSE);
  return series->markers;
}

CmlPlotSeries *
cml_plot_series_new_x_marker (const char *name, double x)
{
  CmlPlotSeries *series = cml_plot_series_new (name, "");
  series->x_marker = TRUE;
  cml_plot_series_set_x_marker (series, x);
  return series;
}

void
cml_plot_series_set_x_marker (CmlPlotSeries *series, double x)
{
  g_return_if_fail (series != NULL && series->x_marker);
  /* one sample at X, with no y value: the y axis does not scale to it (only finite values
   * count), and the layout draws it across the plot area */
  double y = NAN;
  cml_plot_column_clear (series->x);
  cml_plot_column_clear (series->y);
  if (isfinite (x))
    cml_plot_series_append (series, &x, &y, 1);
}

gboolean
cml_plot_series_is_x_marker (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, FALSE);
  return series->x_marker;
}

gboolean
cml_plot_series_get_dashed (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, FALSE);
  return series->dashed;
}

void
cml_plot_series_get_color (const CmlPlotSeries *series, const CmlPlotStyle *style,
                           CmlPlotRgba *rgba)
{
  g_return_if_fail (series != NULL && style != NULL && rgba != NULL);
  if (series->has_color)
    *rgba = series->color;
  else
    *rgba = style->palette[MAX (series->palette_index, 0) % CML_PLOT_PALETTE_SIZE];
  rgba->a *= series->opacity;
}

void
cml_plot_series_set_opacity (CmlPlotSeries *series, double opacity)
{
  g_return_if_fail (series != NULL);
  series->opacity = isfinite (opacity) ? CLAMP (opacity, 0, 1) : 1;
}

void
cml_plot_series_append (CmlPlotSeries *series, const double *x, const double *y, guint n)
{
  g_return_if_fail (series != NULL);
  g_return_if_fail (series->owns_columns);
  g_return_if_fail (n == 0 || (x != NULL && y != NULL));

  cml_plot_column_append (series->x, x, n, 1);
  cml_plot_column_append (series->y, y, n, 1);
}

guint
cml_plot_series_get_n (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, 0);
  return MIN (MIN (series->t->n, series->x->n), series->y->n);
}

CmlPlotColumn *
cml_plot_series_get_time_column (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return series->t;
}

CmlPlotColumn *
cml_plot_series_get_x_column (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return series->x;
}

CmlPlotColumn *
cml_plot_series_get_y_column (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return series->y;
}

void
cml_plot_series_time_range (const CmlPlotSeries *series, double t0, double t1, guint *i0,
                            guint *i1)
{
  g_return_if_fail (series != NULL && i0 != NULL && i1 != NULL);
  guint n = cml_plot_series_get_n (series);
  *i0 = MIN (cml_plot_column_lower_bound (series->t, t0), n);
  *i1 = MIN (cml_plot_column_upper_bound (series->t, t1), n);
  if (*i1 < *i0)
    *i1 = *i0;
}

guint
cml_plot_series_visible_segments (const CmlPlotSeries *series, double x0, double x1,
                                  guint n_pixels, CmlPlotSpan *spans)
{
  g_return_val_if_fail (series != NULL, 0);
  g_return_val_if_fail (n_pixels == 0 || spans != NULL, 0);

  guint n = cml_plot_series_get_n (series);
  const double *xs = series->x->data, *ys = series->y->data;
  double w = (x1 - x0) / n_pixels;
  guint filled = 0;

  /* Column c holds indices [b, e) with b the first sample at or after its left edge. */
  guint b = MIN (cml_plot_column_lower_bound (series->x, x0), n);
  for (guint c = 0; c < n_pixels; c++)
    {
      guint e;
      if (c + 1 == n_pixels)
        e = MIN (cml_plot_column_upper_bound (series->x, x1), n);
      else
        {
          double edge = x0 + (c + 1) * w;
          /* most columns hold few samples: look near b before bisecting */
          e = b;
          guint probe = 0;
          while (e < n && xs[e] < edge && probe < 8)
            e++, probe++;
          COUNT_READS (series->x, probe + 1);
          if (e < n && xs[e] < edge)
            e = MIN (cml_plot_column_lower_bound (series->x, edge), n);
        }
      if (e < b)
        e = b;

      CmlPlotSpan *s = &spans[c];
      s->n = e - b;
      if (s->n > 0)
        {
          s->first = b;
          s->last = e - 1;
          s->y_first = ys[b];
          s->y_last = ys[e - 1];
          if (!cml_plot_column_range (series->y, b, e, &s->y_min, &s->y_max))
            s->y_min = s->y_max = NAN;
          filled++;
        }
      b = e;
    }
  return filled;
}

static inline void
push_point (GArray *points, double x, double y)
{
  double p[2] = { x, y };
  g_array_append_vals (points, p, 2);
}

static inline void
push_break (GArray *points)
{
  /* one break is enough; none at the start */
  if (points->len >= 2 && !isnan (g_array_index (points, double, points->len - 1)))
    push_point (points, NAN, NAN);
}

static inline void
push_sample (GArray *points, double x, double y)
{
  if (isfinite (x) && isfinite (y))
    push_point (points, x, y);
  else
    push_break (points);
}

/* Against time, per pixel column.  A column with a few samples gives them as they are.
 * So does one whose samples all lie within a pixel's height (its first and last
 * sample).  Any other covers exactly [min, max] whatever the order of its samples (the
 * "M4" argument), so first, extremes and last make a polyline that draws it exactly —
 * just first and last where they are the extremes (a smooth stretch).  A column that
 * oscillates over several pixels (both extremes inside it) becomes a vertical bar from
 * min to max instead, and
 * the line comes into it at its first sample and leaves from its last.  Between two
 * dense columns whose bars overlap the joining step lies inside the (thick) bars and is
 * left out, so a band of fast oscillation costs one bar per column and no overdraw. */
static void
polyline_against_time (const CmlPlotSeries *series, double x0, double x1, guint n_pixels,
                       double y_per_pixel, GArray *points)
{
  guint n = cml_plot_series_get_n (series);
  const double *xs = series->x->data, *ys = series->y->data;
  g_autofree CmlPlotSpan *spans = g_new (CmlPlotSpan, n_pixels);
  double w = (x1 - x0) / n_pixels;

  cml_plot_series_visible_segments (series, x0, x1, n_pixels, spans);

  /* the line comes in from the last sample before the range … */
  guint first = n;
  for (guint c = 0; c < n_pixels && first == n; c++)
    if (spans[c].n > 0)
      first = spans[c].first;
  if (first == n)
    first = MIN (cml_plot_column_lower_bound (series->x, x0), n);
  if (first > 0 && first <= n)
    push_sample (points, xs[first - 1], ys[first - 1]);

  /* the pen: where the line stands after a dense column (drawn only if the line goes
   * on from there) */
  gboolean pen = FALSE, prev_dense = FALSE;
  double pen_x = 0, pen_y = 0, prev_min = 0, prev_max = 0;
  guint next = first;
  for (guint c = 0; c < n_pixels; c++)
    {
      const CmlPlotSpan *s = &spans[c];
      if (s->n == 0)
        continue;
      next = s->last + 1;
      /* few samples, or all within a pixel's height: the samples that matter as they
       * are (all of them, or the first and the last) */
      if (s->n <= 4 || !isfinite (s->y_min) || s->y_max - s->y_min < y_per_pixel)
        {
          if (pen)
            {
              push_break (points);
              push_sample (points, pen_x, pen_y);
              pen = FALSE;
            }
          if (s->n <= 4 || !isfinite (s->y_min))
            for (guint i = s->first; i <= s->last; i++)
              push_sample (points, xs[i], ys[i]);
          else
            {
              push_sample (points, xs[s->first], s->y_first);
              push_sample (points, xs[s->last], s->y_last);
            }
          prev_dense = FALSE;
          continue;
        }

      /* a smooth stretch: the extremes are at the ends, or one of them inside (a peak);
       * and a short wiggle: first, extremes, last as a polyline */
      gboolean min_end = s->y_min == s->y_first || s->y_min == s->y_last;
      gboolean max_end = s->y_max == s->y_first || s->y_max == s->y_last;
      if (min_end || max_end || s->y_max - s->y_min < 3 * y_per_pixel)
        {
          double xm = CLAMP (x0 + (c + 0.5) * w, xs[s->first], xs[s->last]);
          gboolean min_first = fabs (s->y_first - s->y_min) <= fabs (s->y_first - s->y_max);
          if (pen)
            {
              push_break (points);
              push_sample (points, pen_x, pen_y);
              pen = FALSE;
            }
          push_sample (points, xs[s->first], s->y_first);
          if (!(min_first ? min_end : max_end))
            push_point (points, xm, min_first ? s->y_min : s->y_max);
          if (!(min_first ? max_end : min_end))
            push_point (points, xm, min_first ? s->y_max : s->y_min);
          push_sample (points, xs[s->last], s->y_last);
          prev_dense = FALSE;
          continue;
        }

      /* fast oscillation within the column: a bar */
      gboolean overlap = prev_dense && prev_min <= s->y_max && s->y_min <= prev_max;
      if (!overlap)
        {
          if (pen)
            {
              push_break (points);
              push_sample (points, pen_x, pen_y);
            }
          push_sample (points, xs[s->first], s->y_first);
        }
      double xm = CLAMP (x0 + (c + 0.5) * w, xs[s->first], xs[s->last]);
      push_break (points);
      push_point (points, xm, s->y_min);
      push_point (points, xm, s->y_max);
      push_break (points);
      pen = isfinite (s->y_last);
      pen_x = xs[s->last];
      pen_y = s->y_last;
      prev_dense = TRUE;
      prev_min = s->y_min;
      prev_max = s->y_max;
    }

  /* … and goes out to the first sample after it */
  if (next < n)
    {
      if (pen)
        {
          push_break (points);
          push_sample (points, pen_x, pen_y);
        }
      push_sample (points, xs[next], ys[next]);
    }
  else if (pen)
    {
      push_break (points);
      push_sample (points, pen_x, pen_y);
    }
}

/* A phase portrait.  The samples of [i0, i1) are walked in order; an aligned pyramid
 * block whose bounding box is within the tolerance (half a pixel) stands for its first
 * sample, and a sample within the tolerance of the last point drawn is dropped.  An
 * orbit goes round the same curve again and again, so in addition a grid of half-pixel
 * cells remembers where the line has been: a step over cells that are all inked
 * already is left out (the line resumes, after a break, from the last sample left
 * out).  "Inked" means within the line's half-width less half a pixel of
 * a line drawn, so what is left out lies under a line already drawn and the picture
 * stays what the full data would draw.  The output is then bounded by the pixels the
 * picture covers, not by the number of samples (a trajectory that fills a region
 * still needs a point per pixel of it or so).
 *
 * The result is cached per series: when only new samples arrived and the mapping is the
 * same (show-all, or a fixed window start), the walk continues where it stopped. */
/* Ink counts as old (another strand's) once this many points have been drawn since:
 * the line must not find its own fresh ink and stop. */
#define PHASE_LAG    24

struct _CmlPlotPhaseCache
{
  /* what the cache was built for (the columns' stamps: not cleared since) */
  guint64 x_stamp, y_stamp;
  double x0, x1, y0, y1;
  guint  px, py, i0;        /* pixels asked for */
  double cell;              /* pixels per cell */
  double line_width;        /* pixels */
  guint  nx, ny;            /* cells */
  double tol_x, tol_y;
  /* where the walk stands */
  guint  i_next;
  guint32 *cells;           /* nx × ny: the number of the point that inked it, 0 = none */
  guint32 n_emitted;        /* points drawn so far (from 1) */
  int    ink_radius;        /* cells inked around the line: about its half-width */
  GArray *points;           /* (x, y) doubles, NAN pairs for breaks */
  gboolean have_last;       /* the last point drawn */
  double last_x, last_y;
  int    last_cx, last_cy;
  gboolean have_skipped;    /* the latest sample, left out (the line resumes there) */
  double skip_x, skip_y;
  int    skip_cx, skip_cy;
};

static void
phase_cache_free (CmlPlotPhaseCache *cache)
{
  if (cache == NULL)
    return;
  g_free (cache->cells);
  g_array_unref (cache->points);
  g_free (cache);
}

static inline void
phase_cell (const CmlPlotPhaseCache *c, double x, double y, int *cx, int *cy)
{
  double fx = (x - c->x0) / (c->x1 - c->x0) * c->nx;
  double fy = (y - c->y0) / (c->y1 - c->y0) * c->ny;
  /* outside the grid: a cell of its own that is never inked */
  *cx = fx >= 0 && fx < c->nx ? (int) fx : -2;
  *cy = fy >= 0 && fy < c->ny ? (int) fy : -2;
}

static inline gboolean
phase_inked (const CmlPlotPhaseCache *c, int cx, int cy)
{
  if (cx < 0 || cy < 0)
    return FALSE;
  guint32 stamp = c->cells[(gsize) cy * c->nx + cx];
  return stamp != 0 && stamp + PHASE_LAG <= c->n_emitted;
}

/* Inks the cells along the segment (x, y) → (xb, yb) and those within the line's
 * half-width of it, with the number of the point being drawn. */
static void
phase_ink (CmlPlotPhaseCache *c, double xa, double ya, double xb, double yb)
{
  double fxa = (xa - c->x0) / (c->x1 - c->x0) * c->nx, fya = (ya - c->y0) / (c->y1 - c->y0) * c->ny;
  double fxb = (xb - c->x0) / (c->x1 - c->x0) * c->nx, fyb = (yb - c->y0) / (c->y1 - c->y0) * c->ny;
  double len = MAX (fabs (fxb - fxa), fabs (fyb - fya));
  guint steps = len < 4 * (c->nx + c->ny) ? (guint) ceil (len) : 0;
  int r = c->ink_radius;
  for (guint s = 0; s <= steps; s++)
    {
      double f = steps ? (double) s / steps : 1.0;
      int fx = (int) floor (fxa + f * (fxb - fxa)), fy = (int) floor (fya + f * (fyb - fya));
      for (int j = MAX (fy - r, 0); j <= MIN (fy + r, (int) c->ny - 1); j++)
        for (int i = MAX (fx - r, 0); i <= MIN (fx + r, (int) c->nx - 1); i++)
          if (c->cells[(gsize) j * c->nx + i] == 0)
            c->cells[(gsize) j * c->nx + i] = c->n_emitted;
    }
}

static void
phase_emit (CmlPlotPhaseCache *c, double x, double y, int cx, int cy)
{
  c->n_emitted++;
  if (c->have_last)
    phase_ink (c, c->last_x, c->last_y, x, y);
  else
    phase_ink (c, x, y, x, y);
  push_point (c->points, x, y);
  c->have_last = TRUE;
  c->last_x = x, c->last_y = y;
  c->last_cx = cx, c->last_cy = cy;
}

static void
phase_break (CmlPlotPhaseCache *c)
{
  push_break (c->points);
  c->have_last = FALSE;
  c->have_skipped = FALSE;
}

/* Whether every cell along the step (xa, ya) → (xb, yb) is inked (by an older strand);
 * steps longer than a few dozen cells are not looked at (drawn). */
static gboolean
phase_step_inked (const CmlPlotPhaseCache *c, double xa, double ya, double xb, double yb)
{
  double fxa = (xa - c->x0) / (c->x1 - c->x0) * c->nx, fya = (ya - c->y0) / (c->y1 - c->y0) * c->ny;
  double fxb = (xb - c->x0) / (c->x1 - c->x0) * c->nx, fyb = (yb - c->y0) / (c->y1 - c->y0) * c->ny;
  double len = MAX (fabs (fxb - fxa), fabs (fyb - fya));
  if (!(len <= 32))
    return FALSE;
  guint steps = (guint) ceil (len);
  for (guint s = 0; s <= steps; s++)
    {
      double f = steps ? (double) s / steps : 1.0;
      double fx = fxa + f * (fxb - fxa), fy = fya + f * (fyb - fya);
      if (!(fx >= 0 && fx < c->nx && fy >= 0 && fy < c->ny) || !phase_inked (c, (int) fx, (int) fy))
        return FALSE;
    }
  return TRUE;
}

static void
phase_add (CmlPlotPhaseCache *c, double x, double y)
{
  int cx, cy;

  if (!isfinite (x) || !isfinite (y))
    {
      phase_break (c);
      return;
    }
  phase_cell (c, x, y, &cx, &cy);

  if (!c->have_last && !c->have_skipped)
    {
      phase_emit (c, x, y, cx, cy);
      return;
    }

  /* where the line stands: the last point drawn, or the last one left out */
  double px = c->have_skipped ? c->skip_x : c->last_x;
  double py = c->have_skipped ? c->skip_y : c->last_y;
  int pcx = c->have_skipped ? c->skip_cx : c->last_cx;
  int pcy = c->have_skipped ? c->skip_cy : c->last_cy;

  /* too close to the last point drawn to matter */
  if (!c->have_skipped && fabs (x - px) <= c->tol_x && fabs (y - py) <= c->tol_y)
    return;

  /* a step over ink already there */
  if (phase_step_inked (c, px, py, x, y))
    {
      c->have_skipped = TRUE;
      c->skip_x = x, c->skip_y = y;
      c->skip_cx = cx, c->skip_cy = cy;
      return;
    }

  if (c->have_skipped)
    {
      /* resume from the last sample left out; no break needed when it lies in the
       * cell of the last point drawn */
      if (!(c->have_last && pcx == c->last_cx && pcy == c->last_cy && pcx >= 0 && pcy >= 0))
        {
          push_break (c->points);
          c->have_last = FALSE;
          phase_emit (c, px, py, pcx, pcy);
        }
      c->have_skipped = FALSE;
    }
  phase_emit (c, x, y, cx, cy);
}

static CmlPlotPhaseCache *
phase_cache_new (CmlPlotSeries *series, guint i0, double x0, double x1, double y0, double y1,
                 guint px, guint py, double cell, double line_width)
{
  CmlPlotPhaseCache *c = g_new0 (CmlPlotPhaseCache, 1);
  c->x_stamp = series->x->stamp, c->y_stamp = series->y->stamp;
  c->x0 = x0, c->x1 = x1, c->y0 = y0, c->y1 = y1;
  c->px = px, c->py = py;
  c->cell = cell;
  c->line_width = line_width;
  c->nx = (guint) ceil (px / cell);
  c->ny = (guint) ceil (py / cell);
  c->tol_x = 0.5 * (x1 - x0) / px;
  c->tol_y = 0.5 * (y1 - y0) / py;
  c->i0 = c->i_next = i0;
  c->cells = g_new0 (guint32, (gsize) c->nx * c->ny);
  /* the cells that surely lie under the line: its half-width less half a pixel */
  c->ink_radius = (int) floor (MAX (0.5 * line_width - 0.5, 0.0) / cell);
  c->points = g_array_new (FALSE, FALSE, sizeof (double));
  return c;
}

static void
polyline_phase (CmlPlotSeries *series, guint i0, guint i1, double x0, double x1, double y0,
                double y1, guint px, guint py, double line_width, GArray *points)
{
  const CmlPlotColumn *cx = series->x, *cy = series->y;
  CmlPlotPhaseCache *c = series->phase;

  /* start afresh unless only samples after the cached walk are new */
  if (c == NULL || c->x_stamp != cx->stamp || c->y_stamp != cy->stamp || c->x0 != x0 || c->x1 != x1 || c->y0 != y0 ||
      c->y1 != y1 || c->px != px || c->py != py || c->line_width != line_width || c->i0 != i0 ||
      c->i_next > i1)
    {
      phase_cache_free (series->phase);
      /* half-pixel cells: two strands of the orbit a pixel apart are both drawn */
      c = series->phase = phase_cache_new (series, i0, x0, x1, y0, y1, px, py, 0.5, line_width);
    }

  const double *xs = cx->data, *ys = cy->data;
  guint n_levels = MIN (cx->n_levels, cy->n_levels);
  for (guint i = c->i_next; i < i1;)
    {
      /* the largest block starting at i that fits within the tolerance */
      guint step = 1;
      for (guint k = 0; k < n_levels; k++)
        {
          guint bs = block_size (k);
          if ((i & (bs - 1)) != 0 || (guint64) i + bs > i1)
            break;
          const double *lx = cx->level[k] + 2 * (i / bs);
          const double *ly = cy->level[k] + 2 * (i / bs);
          if (lx[1] - lx[0] > c->tol_x || ly[1] - ly[0] > c->tol_y)
            break;
          step = bs;
        }
      phase_add (c, xs[i], ys[i]);
      i += step;
    }
  c->i_next = MAX (c->i_next, i1);

  g_array_append_vals (points, c->points->data, c->points->len);
  /* end on the newest sample, wherever the walk left the line */
  if (i1 > i0 && isfinite (xs[i1 - 1]) && isfinite (ys[i1 - 1]))
    {
      if (c->have_skipped && !(c->have_last && c->skip_cx == c->last_cx && c->skip_cy == c->last_cy))
        push_break (points);
      if (!(c->have_last && !c->have_skipped && c->last_x == xs[i1 - 1] && c->last_y == ys[i1 - 1]))
        push_point (points, xs[i1 - 1], ys[i1 - 1]);
    }
}

guint
cml_plot_series_polyline (CmlPlotSeries *series, gboolean against_time, double x0,
                          double x1, double y0, double y1, double t0, double t1,
                          double n_pixels_x, double n_pixels_y, double line_width,
                          GArray *points)
{
  g_return_val_if_fail (series != NULL && points != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (points) == sizeof (double), 0);

  guint len0 = points->len;
  if (cml_plot_series_get_n (series) == 0 || !(x1 > x0) || !(y1 > y0) || n_pixels_x < 1 ||
      n_pixels_y < 1)
    return 0;

  if (against_time)
    polyline_against_time (series, x0, x1, (guint) ceil (n_pixels_x), (y1 - y0) / n_pixels_y, points);
  else
    {
      guint i0, i1;
      cml_plot_series_time_range (series, t0, t1, &i0, &i1);
      polyline_phase (series, i0, i1, x0, x1, y0, y1, (guint) MIN (ceil (n_pixels_x), 16384),
                      (guint) MIN (ceil (n_pixels_y), 16384), line_width, points);
    }
  return (points->len - len0) / 2;
}
