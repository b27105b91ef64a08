/* test-plot.c — the plot model (ticks, auto-scale, decimation, time window, equal scales,
 * legend placement, units, figure titles) and the Cairo export.  Needs no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cairo.h>
#include <pango/pangocairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render-util.h"
#include "cml-error.h"
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#include "../test-tmp.h"

/* ---- ticks ---------------------------------------------------------------------------- */

static void
assert_ticks (double min, double max, guint max_intervals, const double *want,
              const char *const *labels, guint n_want)
{
  g_autoptr (CmlPlotAxis) axis = cml_plot_axis_new ("x", "");
  CmlPlotTick ticks[64];

  cml_plot_axis_set_range (axis, min, max);
  guint n = cml_plot_axis_ticks (axis, max_intervals, ticks, G_N_ELEMENTS (ticks), NULL);
  g_assert_cmpuint (n, ==, n_want);
  for (guint i = 0; i < n; i++)
    {
      /* exact: 0.6 is the double nearest 0.6, not 3 × 0.2 */
      g_assert_true (ticks[i].value == want[i]);
      if (labels)
        g_assert_cmpstr (ticks[i].label, ==, labels[i]);
    }
}

static void
test_ticks (void)
{
  {
    const double want[] = { 0, 0.2, 0.4, 0.6, 0.8 };
    const char *const labels[] = { "0", "0.2", "0.4", "0.6", "0.8" };
    assert_ticks (0, 0.93, 5, want, labels, G_N_ELEMENTS (want));
  }
  {
    const double want[] = { 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9 };
    const char *const labels[] = { "0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9" };
    assert_ticks (0, 0.93, 10, want, labels, G_N_ELEMENTS (want));
  }
  {
    /* a real minus sign */
    const double want[] = { -2, -1, 0, 1, 2 };
    const char *const labels[] = { "−2", "−1", "0", "1", "2" };
    assert_ticks (-2.5, 2.5, 5, want, labels, G_N_ELEMENTS (want));
  }
  {
    const double want[] = { 80, 85, 90, 95, 100 };
    const char *const labels[] = { "80", "85", "90", "95", "100" };
    assert_ticks (80, 100, 4, want, labels, G_N_ELEMENTS (want));
  }
  {
    /* an energy that barely changes: as many decimals as the step needs */
    const double want[] = { 0.01234, 0.01236, 0.01238, 0.0124 };
    const char *const labels[] = { "0.01234", "0.01236", "0.01238", "0.01240" };
    assert_ticks (0.01233, 0.01241, 4, want, labels, G_N_ELEMENTS (want));
  }
  {
    const double want[] = { 0, 1e6, 2e6, 3e6 };
    const char *const labels[] = { "0", "1×10⁶", "2×10⁶", "3×10⁶" };
    assert_ticks (0, 3.2e6, 4, want, labels, G_N_ELEMENTS (want));
  }
  {
    const double want[] = { 0, 2e-6, 4e-6 };
    const char *const labels[] = { "0", "2×10⁻⁶", "4×10⁻⁶" };
    assert_ticks (0, 5e-6, 3, want, labels, G_N_ELEMENTS (want));
  }

  g_assert_cmpfloat (cml_plot_nice_step (0.93, 5), ==, 0.2);
  g_assert_cmpfloat (cml_plot_nice_step (1.0, 5), ==, 0.2);
  g_assert_cmpfloat (cml_plot_nice_step (7, 7), ==, 1);
  g_assert_cmpfloat (cml_plot_nice_step (30, 4), ==, 10);
  g_assert_cmpfloat (cml_plot_nice_step (0.0021, 1), ==, 0.005);
}

/* ---- auto-scale ----------------------------------------------------------------------- */

static void
test_auto_scale (void)
{
  g_autoptr (CmlPlotAxis) axis = cml_plot_axis_new ("energy", "J");
  double lo, hi;

  g_assert_true (cml_plot_axis_get_auto_scale (axis));
  cml_plot_axis_fit (axis, 0.03, 0.91, TRUE);
  cml_plot_axis_get_range (axis, &lo, &hi);
  /* contains the data with some room, no more than half again the data's span */
  g_assert_cmpfloat (lo, <=, 0.03);
  g_assert_cmpfloat (hi, >=, 0.91);
  g_assert_cmpfloat (hi - lo, <=, 1.5 * 0.88);
  /* a non-negative quantity starts at 0, not below */
  g_assert_cmpfloat (lo, ==, 0);

  /* data that still fit and fill a third of the range keep it (no jitter) */
  cml_plot_axis_fit (axis, 0.1, 0.8, FALSE);
  double lo2, hi2;
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, ==, lo);
  g_assert_cmpfloat (hi2, ==, hi);

  /* data that leave it grow it */
  cml_plot_axis_fit (axis, 0.1, 2.0, FALSE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (hi2, >=, 2.0);
  g_assert_cmpfloat (hi2, <=, 2.5);

  /* data that shrink to a small part of it shrink it */
  cml_plot_axis_fit (axis, -0.01, 0.01, FALSE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, <=, -0.01);
  g_assert_cmpfloat (hi2, >=, 0.01);
  g_assert_cmpfloat (hi2 - lo2, <, 0.05);

  /* a conserved energy: rounding noise must not fill the plot, it is drawn flat */
  cml_plot_axis_fit (axis, 4.9999999999, 5.0000000001, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, <=, 4.995);
  g_assert_cmpfloat (hi2, >=, 5.005);
  g_assert_cmpfloat (hi2 - lo2, <, 0.05);

  /* a sweep of a quantity the parameter does not change (7.05 up to rounding): a span of
   * ±0.1 % at least, whose ticks read 7.04 … 7.06, not 7.049996 … 7.050004 */
  cml_plot_axis_fit (axis, 7.05 - 3e-15, 7.05 + 2e-15, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, <=, 7.05 * (1 - 1e-3));
  g_assert_cmpfloat (hi2, >=, 7.05 * (1 + 1e-3));
  g_assert_cmpfloat (hi2 - lo2, <, 0.05 * 7.05);
  {
    CmlPlotTick flat[8];
    double step;
    guint n_flat = cml_plot_axis_ticks (axis, 4, flat, G_N_ELEMENTS (flat), &step);
    g_assert_cmpuint (n_flat, >=, 2);
    for (guint k = 0; k < n_flat; k++)
      g_assert_cmpuint (strlen (flat[k].label), <=, 5); /* "7.045" at most */
  }

  /* exactly constant (one sample): ±10 % */
  cml_plot_axis_fit (axis, 1.0, 1.0, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, <=, 0.9);
  g_assert_cmpfloat (lo2, >=, 0.85);
  g_assert_cmpfloat (hi2, >=, 1.1);
  g_assert_cmpfloat (hi2, <=, 1.15);

  /* negative data: the padding goes below */
  cml_plot_axis_fit (axis, -3, -1, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, <, -3);
  g_assert_cmpfloat (hi2, >, -1);
  g_assert_cmpfloat (hi2, <, -0.5);
  /* … unless it would cross zero: a non-positive quantity ends at 0 */
  cml_plot_axis_fit (axis, -3, -0.01, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (hi2, ==, 0);

  /* identically zero */
  cml_plot_axis_fit (axis, 0, 0, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, ==, -1);
  g_assert_cmpfloat (hi2, ==, 1);

  /* a fixed range is left alone */
  cml_plot_axis_set_range (axis, 2, 3);
  g_assert_false (cml_plot_axis_get_auto_scale (axis));
  cml_plot_axis_fit (axis, -10, 10, TRUE);
  cml_plot_axis_get_range (axis, &lo2, &hi2);
  g_assert_cmpfloat (lo2, ==, 2);
  g_assert_cmpfloat (hi2, ==, 3);

  g_autofree char *title = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (title, ==, "energy [J]");
}

/* ---- decimation ----------------------------------------------------------------------- */

static CmlPlotSeries *
make_sine (guint n, double t_end)
{
  CmlPlotSeries *s = cml_plot_series_new ("y", "m");
  g_autofree double *x = g_new (double, 4096);
  g_autofree double *y = g_new (double, 4096);
  /* appended in chunks, as the live view does */
  for (guint i = 0; i < n;)
    {
      guint m = MIN (4096u, n - i);
      for (guint k = 0; k < m; k++)
        {
          x[k] = t_end * (i + k) / (n - 1);
          y[k] = sin (x[k]) + 0.1 * sin (37 * x[k]);
        }
      cml_plot_series_append (s, x, y, m);
      i += m;
    }
  return s;
}

/* The work one decimation of S into N_PIXELS columns does: values and pyramid blocks
 * read from its columns. */
static guint64
work_visible_segments (CmlPlotSeries *s, guint n_pixels)
{
  g_autofree CmlPlotSpan *spans = g_new (CmlPlotSpan, n_pixels);
  CmlPlotColumn *x = cml_plot_series_get_x_column (s), *y = cml_plot_series_get_y_column (s);
  guint64 before = cml_plot_column_get_n_reads (x) + cml_plot_column_get_n_reads (y);
  cml_plot_series_visible_segments (s, 3.0, 93.0, n_pixels, spans);
  return cml_plot_column_get_n_reads (x) + cml_plot_column_get_n_reads (y) - before;
}

static void
test_decimation (void)
{
  const guint N = 1000000, W = 1280;
  g_autoptr (CmlPlotSeries) s = make_sine (N, 100.0);
  const double *x = cml_plot_column_get_data (cml_plot_series_get_x_column (s));
  const double *y = cml_plot_column_get_data (cml_plot_series_get_y_column (s));
  g_autofree CmlPlotSpan *spans = g_new (CmlPlotSpan, W);
  const double x0 = 3.0, x1 = 93.0, w = (x1 - x0) / W;

  g_assert_cmpuint (cml_plot_series_get_n (s), ==, N);
  guint filled = cml_plot_series_visible_segments (s, x0, x1, W, spans);
  g_assert_cmpuint (filled, ==, W);

  /* every column's min/max equal the true ones over its x-range */
  guint i = 0;
  while (x[i] < x0)
    i++;
  for (guint c = 0; c < W; c++)
    {
      double edge = c + 1 == W ? G_MAXDOUBLE : x0 + (c + 1) * w;
      double lo = INFINITY, hi = -INFINITY;
      guint first = i, count = 0;
      while (i < N && x[i] < edge && x[i] <= x1)
        {
          lo = MIN (lo, y[i]);
          hi = MAX (hi, y[i]);
          i++, count++;
        }
      g_assert_cmpuint (spans[c].n, ==, count);
      g_assert_cmpuint (spans[c].first, ==, first);
      g_assert_cmpfloat (spans[c].y_min, ==, lo);
      g_assert_cmpfloat (spans[c].y_max, ==, hi);
      g_assert_cmpfloat (spans[c].y_first, ==, y[first]);
      g_assert_cmpfloat (spans[c].y_last, ==, y[i - 1]);
    }

  /* the column store's range query agrees with brute force on arbitrary ranges */
  GRand *rand = g_rand_new_with_seed (7);
  for (int k = 0; k < 200; k++)
    {
      guint a = g_rand_int_range (rand, 0, N), b = g_rand_int_range (rand, 0, N);
      guint i0 = MIN (a, b), i1 = MAX (a, b) + 1;
      double lo = INFINITY, hi = -INFINITY, qlo, qhi;
      for (guint j = i0; j < i1; j++)
        lo = MIN (lo, y[j]), hi = MAX (hi, y[j]);
      g_assert_true (cml_plot_column_range (cml_plot_series_get_y_column (s), i0, i1, &qlo, &qhi));
      g_assert_cmpfloat (qlo, ==, lo);
      g_assert_cmpfloat (qhi, ==, hi);
    }
  g_rand_free (rand);

  /* the polyline: a bounded number of points per column (extremes, joins and breaks),
   * and in every column the points reach exactly the column's min and max */
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (double));
  guint n_pts = cml_plot_series_polyline (s, TRUE, x0, x1, -2, 2, x0, x1, W, 360, 2, pts);
  g_assert_cmpuint (n_pts, <=, 7 * W + 4);
  g_assert_cmpuint (n_pts, >=, 2 * W);
  const double *pp = (const double *) (gpointer) pts->data;
  g_autofree double *col_lo = g_new (double, W);
  g_autofree double *col_hi = g_new (double, W);
  for (guint c = 0; c < W; c++)
    col_lo[c] = INFINITY, col_hi[c] = -INFINITY;
  for (guint k = 0; k < n_pts; k++)
    {
      if (isnan (pp[2 * k]) || pp[2 * k] < x0 || pp[2 * k] > x1)
        continue;
      guint c = MIN ((guint) ((pp[2 * k] - x0) / w), W - 1);
      /* a point exactly on a column edge belongs to the column it is the first of */
      if (c > 0 && pp[2 * k] < x0 + c * w)
        c--;
      col_lo[c] = MIN (col_lo[c], pp[2 * k + 1]);
      col_hi[c] = MAX (col_hi[c], pp[2 * k + 1]);
    }
  for (guint c = 0; c < W; c++)
    {
      g_assert_cmpfloat (col_lo[c], ==, spans[c].y_min);
      g_assert_cmpfloat (col_hi[c], ==, spans[c].y_max);
    }

  /* cost independent of N (up to its logarithm): with 10× and 100× the samples (many
   * per column) a scan would read 10× and 100× as much; the pyramid reads about the
   * same, a few dozen values and blocks per column */
  g_autoptr (CmlPlotSeries) small = make_sine (N / 100, 100.0);
  g_autoptr (CmlPlotSeries) medium = make_sine (N / 10, 100.0);
  guint64 w_small = work_visible_segments (small, W);
  guint64 w_medium = work_visible_segments (medium, W);
  guint64 w_big = work_visible_segments (s, W);
  g_test_message ("visible_segments, %u columns: %" G_GUINT64_FORMAT " reads for %u samples, %"
                  G_GUINT64_FORMAT " for %u, %" G_GUINT64_FORMAT " for %u",
                  W, w_small, N / 100, w_medium, N / 10, w_big, N);
  g_assert_cmpuint (w_big, <, 2 * w_medium);
  g_assert_cmpuint (w_big, <, 100 * W);
  g_assert_cmpuint (w_big, <, N / 10);
}

static void
test_phase_decimation (void)
{
  /* 10^6 samples going round an ellipse 500 times: the polyline for 400 × 400 px
   * must stay near the curve's pixel length, not N */
  const guint N = 1000000;
  g_autoptr (CmlPlotColumn) t = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) cx = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) cy = cml_plot_column_new ();
  g_autofree double *buf = g_new (double, 3 * N);
  for (guint i = 0; i < N; i++)
    {
      double tt = 0.01 * i;
      buf[i] = tt;
      buf[N + i] = 2 * cos (tt * 2 * G_PI / 20);
      buf[2 * N + i] = sin (tt * 2 * G_PI / 20);
    }
  cml_plot_column_append (t, buf, N, 1);
  cml_plot_column_append (cx, buf + N, N, 1);
  cml_plot_column_append (cy, buf + 2 * N, N, 1);
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns ("y", "", t, cx, cy);
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (double));

  guint n = cml_plot_series_polyline (s, FALSE, -2.2, 2.2, -1.1, 1.1, 0, 1e9, 400, 400, 2, pts);
  g_test_message ("phase polyline: %u points for %u samples", n, N);
  g_assert_cmpuint (n, <, 20000);
  g_assert_cmpuint (n, >, 100);
  /* every point is a sample (on the ellipse); few breaks */
  const double *p = (const double *) (gpointer) pts->data;
  guint breaks = 0;
  for (guint k = 0; k < n; k++)
    if (isnan (p[2 * k]))
      breaks++;
    else
      g_assert_cmpfloat (fabs (p[2 * k] * p[2 * k] / 4 + p[2 * k + 1] * p[2 * k + 1] - 1), <, 1e-9);
  g_assert_cmpuint (breaks, <, n / 10);

  /* the walk continues where it stopped when only new samples come */
  g_autoptr (CmlPlotColumn) t2 = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) cx2 = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) cy2 = cml_plot_column_new ();
  g_autoptr (CmlPlotSeries) s2 = cml_plot_series_new_for_columns ("y", "", t2, cx2, cy2);
  for (guint i = 0; i < N; i += 50000)
    {
      cml_plot_column_append (t2, buf + i, 50000, 1);
      cml_plot_column_append (cx2, buf + N + i, 50000, 1);
      cml_plot_column_append (cy2, buf + 2 * N + i, 50000, 1);
      g_array_set_size (pts, 0);
      cml_plot_series_polyline (s2, FALSE, -2.2, 2.2, -1.1, 1.1, 0, 1e9, 400, 400, 2, pts);
    }
  guint n2 = pts->len / 2;
  g_test_message ("phase polyline, incremental: %u points", n2);
  g_assert_cmpuint (n2, <, 2 * n);
  g_assert_cmpuint (n2, >, n / 2);
  p = (const double *) (gpointer) pts->data;
  g_assert_cmpfloat (p[2 * (n2 - 1)], ==, buf[N + N - 1]); /* ends on the newest sample */

  /* cleared and filled again with more samples (a new run) between two frames: the
   * walk must not continue on the old run's cache */
  cml_plot_column_clear (t2);
  cml_plot_column_clear (cx2);
  cml_plot_column_clear (cy2);
  cml_plot_column_append (t2, buf, 1000, 1);
  cml_plot_column_append (cx2, buf + N, 1000, 1);
  cml_plot_column_append (cy2, buf + 2 * N, 1000, 1);
  g_array_set_size (pts, 0);
  cml_plot_series_polyline (s2, FALSE, -2.2, 2.2, -1.1, 1.1, 0, 1e9, 400, 400, 2, pts);
  for (guint i = 0; i < 5000; i++)
    {
      buf[i] = 0.01 * i;
      buf[N + i] = 0.5 * cos (buf[i]);
      buf[2 * N + i] = 0.5 * sin (buf[i]);
    }
  cml_plot_column_clear (t2);
  cml_plot_column_clear (cx2);
  cml_plot_column_clear (cy2);
  cml_plot_column_append (t2, buf, 5000, 1);
  cml_plot_column_append (cx2, buf + N, 5000, 1);
  cml_plot_column_append (cy2, buf + 2 * N, 5000, 1);
  g_array_set_size (pts, 0);
  n2 = cml_plot_series_polyline (s2, FALSE, -2.2, 2.2, -1.1, 1.1, 0, 1e9, 400, 400, 2, pts);
  g_assert_cmpuint (n2, >, 50);
  p = (const double *) (gpointer) pts->data;
  for (guint k = 0; k < n2; k++)
    if (!isnan (p[2 * k]))
      g_assert_cmpfloat (fabs (p[2 * k] * p[2 * k] + p[2 * k + 1] * p[2 * k + 1] - 0.25), <, 1e-9);

  /* a time window picks the samples by time */
  g_array_set_size (pts, 0);
  n = cml_plot_series_polyline (s, FALSE, -2.2, 2.2, -1.1, 1.1, 9980, 10000, 400, 400, 2, pts);
  g_assert_cmpuint (n, >, 10);
  g_assert_cmpuint (n, <=, 2001);
}

/* ---- the time window ------------------------------------------------------------------ */

static void
test_time_window (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) s = make_sine (10001, 100.0);
  double t0, t1, lo, hi;

  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (t0, ==, 0);
  g_assert_cmpfloat (t1, ==, 20);

  cml_plot_add_series (plot, s);
  g_assert_cmpfloat (cml_plot_get_time_window (plot), ==, 20);
  cml_plot_update_ranges (plot, TRUE);
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot), &lo, &hi);
  g_assert_cmpfloat (lo, ==, 80);
  g_assert_cmpfloat (hi, ==, 100);
  cml_plot_axis_get_range (cml_plot_get_y_axis (plot), &lo, &hi);
  g_assert_cmpfloat (lo, <=, -1.0);
  g_assert_cmpfloat (hi, >=, 1.0);
  g_assert_cmpfloat (hi - lo, <, 3.5);

  cml_plot_set_time_window (plot, 5);
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (t0, ==, 95);
  g_assert_cmpfloat (t1, ==, 100);

  cml_plot_set_show_all (plot, TRUE);
  cml_plot_update_ranges (plot, FALSE);
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot), &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 100);

  /* less than a window of data: the window starts at the first sample and fills */
  g_autoptr (CmlPlot) plot2 = cml_plot_new ();
  g_autoptr (CmlPlotSeries) s2 = make_sine (501, 5.0);
  cml_plot_add_series (plot2, s2);
  cml_plot_get_visible_time (plot2, &t0, &t1);
  g_assert_cmpfloat (t0, ==, 0);
  g_assert_cmpfloat (t1, ==, 20);

  /* a phase portrait scales x to the data in the window */
  cml_plot_set_against_time (plot2, FALSE);
  cml_plot_update_ranges (plot2, FALSE);
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot2), &lo, &hi);
  g_assert_cmpfloat (lo, <=, 0);
  g_assert_cmpfloat (hi, >=, 5);
  g_assert_cmpfloat (hi, <, 6);
}

/* ---- layout: equal scales, legend, units, figures ------------------------------------ */

/* Text measured with Pango, as the Cairo backend does. */
static void
pango_measure (const char *text, double size, gboolean bold, double *width, double *height,
               gpointer user_data)
{
  PangoLayout *layout = user_data;
  PangoFontDescription *font = pango_font_description_from_string ("Cantarell, DejaVu Sans, Sans");
  PangoRectangle logical;

  pango_font_description_set_absolute_size (font, size * PANGO_SCALE);
  pango_font_description_set_weight (font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_extents (layout, NULL, &logical);
  pango_font_description_free (font);
  if (width)
    *width = (double) logical.width / PANGO_SCALE;
  if (height)
    *height = (double) logical.height / PANGO_SCALE;
}

static PangoLayout *
measure_layout_new (void)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return layout;
}

/* A phase portrait of the unit circle (traced twice), y [Y_UNIT] against x [X_UNIT]. */
static CmlPlot *
make_circle_plot (const char *x_unit, const char *y_unit)
{
  CmlPlot *plot = cml_plot_new ();
  g_autoptr (CmlPlotColumn) t = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) x = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) y = cml_plot_column_new ();
  for (int i = 0; i <= 2000; i++)
    {
      double ti = 0.01 * i, xi = cos (ti * G_PI / 5), yi = sin (ti * G_PI / 5);
      cml_plot_column_append (t, &ti, 1, 1);
      cml_plot_column_append (x, &xi, 1, 1);
      cml_plot_column_append (y, &yi, 1, 1);
    }
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns ("y", y_unit, t, x, y);
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "x", x_unit);
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "y", y_unit);
  cml_plot_add_series (plot, s);
  return plot;
}

/* The circle's radius in px along x and along y in a WIDTH × HEIGHT frame. */
static void
circle_radii (CmlPlot *plot, const CmlPlotStyle *style, double width, double height,
              double *rx, double *ry)
{
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  CmlPlotLayout L;

  cml_plot_layout (plot, style, width, height, pango_measure, pl, &L);
  *rx = 0.5 * (cml_plot_layout_map_x (&L, 1) - cml_plot_layout_map_x (&L, -1));
  *ry = 0.5 * (cml_plot_layout_map_y (&L, -1) - cml_plot_layout_map_y (&L, 1));
  /* the whole circle stays in view */
  g_assert_cmpfloat (cml_plot_layout_map_x (&L, -1), >=, L.area_x - 0.5);
  g_assert_cmpfloat (cml_plot_layout_map_x (&L, 1), <=, L.area_x + L.area_w + 0.5);
  g_assert_cmpfloat (cml_plot_layout_map_y (&L, 1), >=, L.area_y - 0.5);
  g_assert_cmpfloat (cml_plot_layout_map_y (&L, -1), <=, L.area_y + L.area_h + 0.5);
  /* ticks lie on the plot area */
  for (guint i = 0; i < L.x_ticks->len; i++)
    {
      double pos = g_array_index (L.x_ticks, CmlPlotTickMark, i).pos;
      g_assert_cmpfloat (pos, >=, L.area_x - 0.5);
      g_assert_cmpfloat (pos, <=, L.area_x + L.area_w + 0.5);
    }
  cml_plot_layout_clear (&L);
}

/* No two labels of L overlap (0.5 px allowed). */
static void
assert_labels_apart (const CmlPlotLayout *L, const char *what)
{
  for (guint i = 0; i < L->labels->len; i++)
    for (guint j = i + 1; j < L->labels->len; j++)
      {
        const CmlPlotLabel *a = L->labels->pdata[i], *b = L->labels->pdata[j];
        double aw = a->rotated ? a->h : a->w, ah = a->rotated ? a->w : a->h;
        double bw = b->rotated ? b->h : b->w, bh = b->rotated ? b->w : b->h;
        if (a->x + aw > b->x + 0.5 && b->x + bw > a->x + 0.5 && a->y + ah > b->y + 0.5 && b->y + bh > a->y + 0.5)
          g_error ("%s: “%s” at (%.1f, %.1f) %.1f×%.1f overlaps “%s” at (%.1f, %.1f) %.1f×%.1f", what, a->text,
                   a->x, a->y, aw, ah, b->text, b->x, b->y, bw, bh);
      }
}

/* The rolling ball's path in the window's phase plot (y against x, both in metres: equal
 * scales), from x = 1 round to x = −2, up to y = 1.75: the y tick labels of the ranges
 * equal scales end with must not run into the axis' title, at any size. */
static void
test_equal_scales_labels (void)
{
  CmlPlotStyle styles[2];
  cml_plot_style_init (&styles[0], FALSE, FALSE);
  cml_plot_style_init (&styles[1], TRUE, TRUE);
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotColumn) x = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) y = cml_plot_column_new ();
  for (int i = 0; i <= 400; i++)
    {
      double th = 2.3 * i / 400, xi = 1.5 * cos (th) - 0.5, yi = 1.75 * sin (th);
      cml_plot_column_append (x, &xi, 1, 1);
      cml_plot_column_append (y, &yi, 1, 1);
    }
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns ("y", "m", x, x, y);
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "x", "m");
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "y", "m");
  cml_plot_add_series (plot, s);
  g_assert_true (cml_plot_get_equal_scales_apply (plot));
  for (guint p = 0; p < 2; p++)
    for (double w = 240; w <= 640; w += 20)
      for (double h = 160; h <= 480; h += 40)
        {
          CmlPlotLayout L;
          g_autofree char *what = g_strdup_printf ("%s, %g×%g", p ? "presentation" : "normal", w, h);
          cml_plot_layout (plot, &styles[p], w, h, pango_measure, pl, &L);
          assert_labels_apart (&L, what);
          cml_plot_layout_clear (&L);
        }
}

/* At least three labelled ticks on each axis wherever three fit: the heavy top's energy
 * (flat at 7.05 J, drawn over 7.043 … 7.057) and its G₂ (a circle of radius 0.75) in the
 * short plots of presentation mode on a 4:3 screen had a lone "7.05" and a lone "0". */
static void
test_three_ticks (void)
{
  CmlPlotStyle presentation;
  cml_plot_style_init (&presentation, TRUE, TRUE);
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  double digits_w, font_h;
  pango_measure ("0123456789", presentation.font_size, FALSE, &digits_w, &font_h, pl);

  const double levels[] = { 7.05, 0.75 };
  for (guint c = 0; c < G_N_ELEMENTS (levels); c++)
    for (double height = 120; height <= 400; height += 20)
      {
        g_autoptr (CmlPlot) plot = cml_plot_new ();
        g_autoptr (CmlPlotColumn) t = cml_plot_column_new ();
        g_autoptr (CmlPlotColumn) y = cml_plot_column_new ();
        for (int i = 0; i <= 200; i++)
          {
            double ti = 0.05 * i, yi = c == 0 ? levels[c] : levels[c] * sin (ti);
            cml_plot_column_append (t, &ti, 1, 1);
            cml_plot_column_append (y, &yi, 1, 1);
          }
        g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns ("y", "J", t, t, y);
        cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "energy", "J");
        cml_plot_add_series (plot, s);

        CmlPlotLayout L;
        cml_plot_layout (plot, &presentation, 300, height, pango_measure, pl, &L);
        guint n = L.y_ticks->len;
        /* three fit when a step of 1, 2 or 5 × 10ᵏ puts three ticks on the axis at least a
         * line apart */
        gboolean fit = FALSE;
        for (int k = -6; k <= 3 && !fit; k++)
          for (int m = 0; m < 3; m++)
            {
              double step = (m == 0 ? 1 : m == 1 ? 2 : 5) * pow (10, k);
              double first = ceil (L.y0 / step - 1e-9), last = floor (L.y1 / step + 1e-9);
              if (last - first >= 2 && L.area_h * step / (L.y1 - L.y0) >= font_h)
                fit = TRUE;
            }
        if (fit)
          {
            g_autofree char *what = g_strdup_printf ("level %g, %g px tall", levels[c], height);
            assert_labels_apart (&L, what);
            if (n < 3)
              g_error ("level %g, a plot %g px tall (area %.0f px over %g … %g, text %.0f px): %u y ticks",
                       levels[c], height, L.area_h, L.y0, L.y1, font_h, n);
            for (guint i = 1; i < n; i++)
              g_assert_cmpfloat (fabs (g_array_index (L.y_ticks, CmlPlotTickMark, i).pos
                                       - g_array_index (L.y_ticks, CmlPlotTickMark, i - 1).pos), >=, font_h);
          }
        cml_plot_layout_clear (&L);
      }
}

/* WCAG's contrast ratio of two colours (1 … 21) */
static double
relative_luminance (const CmlPlotRgba *c)
{
  const float rgb[3] = { c->r, c->g, c->b };
  double l[3];

  for (int i = 0; i < 3; i++)
    l[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : pow ((rgb[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

static double
contrast_ratio (const CmlPlotRgba *a, const CmlPlotRgba *b)
{
  double la = relative_luminance (a), lb = relative_luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

/* High contrast (the desktop asks for it): black on white or white on black, every
 * series colour at least 4.5 : 1 against the background, thicker lines; without it the
 * style is the ordinary one. */
static void
test_high_contrast (void)
{
  for (int dark = 0; dark < 2; dark++)
    for (int presentation = 0; presentation < 2; presentation++)
      {
        CmlPlotStyle plain, same, hc;
        float bg = dark ? 0.f : 1.f;

        cml_plot_style_init (&plain, dark, presentation);
        cml_plot_style_init_contrast (&same, dark, FALSE, presentation);
        g_assert_true (memcmp (&plain, &same, sizeof plain) == 0);

        cml_plot_style_init_contrast (&hc, dark, TRUE, presentation);
        g_assert_true (hc.background.r == bg && hc.background.g == bg && hc.background.b == bg);
        g_assert_true (hc.foreground.r == 1 - bg && hc.foreground.g == 1 - bg && hc.foreground.b == 1 - bg);
        g_assert_cmpfloat (contrast_ratio (&hc.grid, &hc.background), >=, 3.0);
        g_assert_cmpfloat (contrast_ratio (&hc.grid, &hc.background), >, contrast_ratio (&plain.grid, &plain.background));
        for (guint i = 0; i < CML_PLOT_PALETTE_SIZE; i++)
          {
            g_test_message ("%s: colour %u at %.2f : 1", dark ? "dark" : "light", i,
                            contrast_ratio (&hc.palette[i], &hc.background));
            g_assert_cmpfloat (contrast_ratio (&hc.palette[i], &hc.background), >=, 4.5);
          }
        g_assert_cmpfloat (hc.line_width, >=, 1.5 * plain.line_width);
        g_assert_cmpfloat (hc.axis_width, >, plain.axis_width);
        g_assert_cmpfloat (hc.dash_width, >, plain.dash_width);
        /* type and spacing as the ordinary style: the layout does not move */
        g_assert_cmpfloat (hc.font_size, ==, plain.font_size);
        g_assert_cmpfloat (hc.padding, ==, plain.padding);
      }
}

static void
test_equal_scales (void)
{
  const double sizes[][2] = { { 800, 400 }, { 1600, 900 }, { 380, 300 }, { 300, 700 }, { 640, 640 } };
  CmlPlotStyle normal, presentation;
  cml_plot_style_init (&normal, FALSE, FALSE);
  cml_plot_style_init (&presentation, TRUE, TRUE);

  /* y [m] against x [m]: a circle is round, in any frame */
  g_autoptr (CmlPlot) plot = make_circle_plot ("m", "m");
  g_assert_true (cml_plot_get_equal_scales (plot));
  g_assert_true (cml_plot_get_equal_scales_apply (plot));
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    for (guint p = 0; p < 2; p++)
      {
        double rx, ry;
        circle_radii (plot, p ? &presentation : &normal, sizes[k][0], sizes[k][1], &rx, &ry);
        g_test_message ("%g×%g: radius %.2f px along x, %.2f px along y", sizes[k][0], sizes[k][1], rx, ry);
        g_assert_cmpfloat (rx, >, 20);
        g_assert_cmpfloat (fabs (rx - ry), <=, 1.0);
      }

  /* the toggle off: the axes fill the frame, and the circle is an ellipse */
  double rx, ry;
  cml_plot_set_equal_scales (plot, FALSE);
  g_assert_false (cml_plot_get_equal_scales_apply (plot));
  circle_radii (plot, &normal, 800, 400, &rx, &ry);
  g_assert_cmpfloat (rx / ry, >, 1.4);

  /* different units (v [m/s] against x [m]): no shape to keep */
  g_autoptr (CmlPlot) mixed = make_circle_plot ("m", "m/s");
  g_assert_false (cml_plot_get_equal_scales_apply (mixed));
  circle_radii (mixed, &normal, 800, 400, &rx, &ry);
  g_assert_cmpfloat (rx / ry, >, 1.4);

  /* both declared dimensionless (the components of a unit vector): one scale */
  g_autoptr (CmlPlot) unitless = make_circle_plot ("1", "1");
  g_assert_true (cml_plot_get_equal_scales_apply (unitless));
  circle_radii (unitless, &normal, 800, 400, &rx, &ry);
  g_assert_cmpfloat (fabs (rx - ry), <=, 1.0);

  /* no units given say nothing about the shape */
  g_autoptr (CmlPlot) bare = make_circle_plot ("", "");
  g_assert_false (cml_plot_get_equal_scales_apply (bare));

  /* against time, never */
  cml_plot_set_against_time (plot, TRUE);
  cml_plot_set_equal_scales (plot, TRUE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", "m");
  g_assert_false (cml_plot_get_equal_scales_apply (plot));
}

/* Five curves that fill the plot area over 30 s, like the plate-ball's x1, x2, p1, p2, H. */
static CmlPlot *
make_five_curves (const char *last_name)
{
  static const char *const names[5][2] = {
    { "x1", "m" }, { "x2", "m" }, { "p1", "m/s" }, { "p2", "m/s" }, { "H", "m^2/s^2" },
  };
  CmlPlot *plot = cml_plot_new ();
  g_autoptr (CmlPlotColumn) t = cml_plot_column_new ();
  for (int i = 0; i <= 3000; i++)
    {
      double ti = 0.01 * i;
      cml_plot_column_append (t, &ti, 1, 1);
    }
  for (guint k = 0; k < 5; k++)
    {
      g_autoptr (CmlPlotColumn) y = cml_plot_column_new ();
      for (int i = 0; i <= 3000; i++)
        {
          /* together they reach every corner of the area */
          double ti = 0.01 * i, yi = sin (ti * (0.7 + 0.45 * k) + k);
          cml_plot_column_append (y, &yi, 1, 1);
        }
      const char *name = k == 4 && last_name ? last_name : names[k][0];
      g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns (name, names[k][1], t, t, y);
      cml_plot_add_series (plot, s);
    }
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", "s");
  return plot;
}

static gboolean
rects_intersect (double ax, double ay, double aw, double ah, double bx, double by, double bw, double bh)
{
  return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

static void
check_legend (CmlPlot *plot, const CmlPlotStyle *style, double width, double height)
{
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  CmlPlotLayout L;
  double t0, t1;

  cml_plot_layout (plot, style, width, height, pango_measure, pl, &L);
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpuint (L.legend_labels->len, ==, cml_plot_get_n_series (plot));
  g_assert_cmpfloat (L.legend_w, >, 0);

  /* no drawn sample under the legend: neither its box nor any entry (swatch and text) */
  for (guint k = 0; k < cml_plot_get_n_series (plot); k++)
    {
      CmlPlotSeries *s = cml_plot_get_series (plot, k);
      const double *xs = cml_plot_column_get_data (cml_plot_series_get_x_column (s));
      const double *ys = cml_plot_column_get_data (cml_plot_series_get_y_column (s));
      guint i0, i1;
      cml_plot_series_time_range (s, t0, t1, &i0, &i1);
      for (guint i = i0; i < i1; i++)
        {
          double px = cml_plot_layout_map_x (&L, xs[i]), py = cml_plot_layout_map_y (&L, ys[i]);
          double r = 0.5 * style->line_width * style->scale;
          g_assert_false (rects_intersect (px - r, py - r, 2 * r, 2 * r, L.legend_x, L.legend_y, L.legend_w, L.legend_h));
        }
    }
  g_assert_false (rects_intersect (L.area_x, L.area_y, L.area_w, L.area_h, L.legend_x, L.legend_y, L.legend_w, L.legend_h));

  /* every entry whole, inside the frame and inside the legend's box, none shortened */
  for (guint i = 0; i < L.legend_labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (L.legend_labels, i);
      double x0 = l->x - L.legend_swatch_gap - L.legend_swatch;
      g_assert_null (strstr (l->text, "…"));
      g_assert_cmpfloat (x0, >=, 0);
      g_assert_cmpfloat (l->y, >=, 0);
      g_assert_cmpfloat (l->x + l->w, <=, width);
      g_assert_cmpfloat (l->y + l->h, <=, height);
      g_assert_cmpfloat (x0, >=, L.legend_x - 0.5);
      g_assert_cmpfloat (l->x + l->w, <=, L.legend_x + L.legend_w + 0.5);
      g_assert_false (rects_intersect (L.area_x, L.area_y, L.area_w, L.area_h, x0, l->y, l->x + l->w - x0, l->h));
      for (guint j = 0; j < i; j++)
        {
          const CmlPlotLabel *m = g_ptr_array_index (L.legend_labels, j);
          double m0 = m->x - L.legend_swatch_gap - L.legend_swatch;
          g_assert_false (rects_intersect (x0, l->y, l->x + l->w - x0, l->h, m0, m->y, m->x + m->w - m0, m->h));
        }
    }
  /* and the titles and tick labels inside the frame too */
  for (guint i = 0; i < L.labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (L.labels, i);
      double w = l->rotated ? l->h : l->w, h = l->rotated ? l->w : l->h;
      g_assert_cmpfloat (l->x, >=, -0.5);
      g_assert_cmpfloat (l->y, >=, -0.5);
      g_assert_cmpfloat (l->x + w, <=, width + 0.5);
      g_assert_cmpfloat (l->y + h, <=, height + 0.5);
    }
  cml_plot_layout_clear (&L);
}

static void
test_legend (void)
{
  const double widths[] = { 300, 340, 380, 460, 640, 800, 1200, 1920 };
  const double heights[] = { 220, 360, 700 };
  CmlPlotStyle styles[3];
  cml_plot_style_init (&styles[0], FALSE, FALSE);
  cml_plot_style_init (&styles[1], TRUE, TRUE);
  cml_plot_style_init_for_figure (&styles[2], FALSE, 1600, 900);

  g_autoptr (CmlPlot) plot = make_five_curves (NULL);
  g_autoptr (CmlPlot) long_name = make_five_curves ("gamma_err");
  cml_plot_set_title (long_name, "Heavy top");
  for (guint p = 0; p < 2; p++)
    for (guint st = 0; st < G_N_ELEMENTS (styles); st++)
      for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
        for (guint h = 0; h < G_N_ELEMENTS (heights); h++)
          {
            /* the figure style is for figures of its size */
            if (st == 2 && widths[w] < 1200)
              continue;
            g_test_message ("%s, style %u, %g×%g", p ? "gamma_err" : "plate-ball", st, widths[w], heights[h]);
            check_legend (p ? long_name : plot, &styles[st], widths[w], heights[h]);
          }

  /* after 20 s, the sliding window too */
  cml_plot_set_show_all (plot, TRUE);
  check_legend (plot, &styles[0], 640, 360);
}

static void
test_units (void)
{
  g_autoptr (CmlPlotAxis) axis = cml_plot_axis_new ("t", "s");
  g_autofree char *t = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (t, ==, "t [s]");

  /* no unit, or a dimensionless one: the name alone, never "[]" or "[1]" */
  const char *const bare[] = { "", "1", "-", " 1", NULL };
  for (guint i = 0; bare[i]; i++)
    {
      cml_plot_axis_set_label (axis, "x1", bare[i]);
      g_autofree char *title = cml_plot_axis_dup_title (axis);
      g_assert_cmpstr (title, ==, "x₁");
      g_autoptr (CmlPlotSeries) s = cml_plot_series_new ("k", bare[i]);
      g_autofree char *label = cml_plot_series_dup_label (s);
      g_assert_cmpstr (label, ==, "k");
    }
  cml_plot_axis_set_label (axis, "x1", NULL);
  g_autofree char *none = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (none, ==, "x₁");

  /* a quantity's name as the equations write it; other labels as they are */
  cml_plot_axis_set_label (axis, "rho", "m");
  g_autofree char *rho = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (rho, ==, "ρ [m]");
  cml_plot_axis_set_label (axis, "energy, pr", "J");
  g_autofree char *several = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (several, ==, "energy, pr [J]");
  /* an axis of quantities too many to name still says its unit; no unit, no brackets */
  cml_plot_axis_set_label (axis, "", "J");
  g_autofree char *unit_only = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (unit_only, ==, "[J]");
  cml_plot_axis_set_label (axis, "", "1");
  g_autofree char *nothing = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (nothing, ==, "");

  /* units as people write them */
  cml_plot_axis_set_label (axis, "H", "m^2/s^2");
  g_autofree char *h = cml_plot_axis_dup_title (axis);
  g_assert_cmpstr (h, ==, "H [m²/s²]");
  g_autofree char *u1 = cml_plot_format_unit ("kg*m^2");
  g_assert_cmpstr (u1, ==, "kg·m²");
  g_autofree char *u2 = cml_plot_format_unit ("s^-1");
  g_assert_cmpstr (u2, ==, "s⁻¹");
  g_autofree char *u3 = cml_plot_format_unit ("rad/s");
  g_autofree char *u4 = cml_plot_format_unit ("J s");
  g_autofree char *u5 = cml_plot_format_unit ("1/(m s)");

  g_assert_cmpstr (u4, ==, "J·s");
  g_assert_cmpstr (u5, ==, "1/(m·s)");
  g_assert_cmpstr (u3, ==, "rad/s");

  /* a parameter line */
  g_autoptr (GString) line = g_string_new (NULL);
  cml_plot_append_quantity (line, "m", 1, "kg");
  g_string_append (line, ", ");
  cml_plot_append_quantity (line, "k2", 0.4, "m^2");
  g_string_append (line, ", ");
  cml_plot_append_quantity (line, "Omega", 1, "rad/s");
  g_string_append (line, ", ");
  cml_plot_append_quantity (line, "Omega1", -0.25, "rad/s");
  g_string_append (line, ", ");
  cml_plot_append_quantity (line, "sigma", -1, "1");
  g_assert_cmpstr (line->str, ==, "m = 1 kg, k₂ = 0.4 m², Ω = 1 rad/s, Ω₁ = −0.25 rad/s, σ = −1");
}

/* A figure for a slide: the title and the parameters' line on top, in the frame, and text
 * that reads from the back of the hall (tick labels >= 20 px high at 1600 × 900). */
static void
test_figure (void)
{
  g_autoptr (CmlPlot) plot = make_circle_plot ("m", "m");
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  CmlPlotStyle style;
  CmlPlotLayout L;

  cml_plot_set_title (plot, "Rolling ball on a rotating table — y against x");
  cml_plot_set_subtitle (plot, "m = 1 kg, r = 1 m, k2 = 0.4 m², Ω = 1 rad/s");
  cml_plot_style_init_for_figure (&style, FALSE, 1600, 900);
  cml_plot_layout (plot, &style, 1600, 900, pango_measure, pl, &L);

  const CmlPlotLabel *title = NULL, *subtitle = NULL;
  guint n_ticks = 0;
  for (guint i = 0; i < L.labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (L.labels, i);
      if (g_str_equal (l->text, cml_plot_get_title (plot)))
        title = l;
      else if (g_str_equal (l->text, cml_plot_get_subtitle (plot)))
        subtitle = l;
      else if (!l->rotated && l->size == style.font_size * style.scale)
        {
          /* a tick label */
          g_assert_cmpfloat (l->h, >=, 20);
          n_ticks++;
        }
    }
  g_assert_cmpuint (n_ticks, >=, 6);
  g_assert_nonnull (title);
  g_assert_nonnull (subtitle);
  g_assert_true (title->bold);
  g_assert_cmpfloat (title->h, >=, 26);
  g_assert_cmpfloat (subtitle->y, >=, title->y + title->h - 1);
  g_assert_cmpfloat (subtitle->y + subtitle->h, <=, L.area_y);
  g_assert_cmpfloat (title->x, >=, 0);
  g_assert_cmpfloat (title->x + title->w, <=, 1600);
  cml_plot_layout_clear (&L);

  /* the figure style grows with the figure, never below the normal one */
  CmlPlotStyle small, normal;
  cml_plot_style_init_for_figure (&small, FALSE, 320, 200);
  cml_plot_style_init (&normal, FALSE, FALSE);
  g_assert_cmpfloat (small.font_size * small.scale, ==, normal.font_size);
  g_assert_cmpfloat (style.line_width * style.scale, ==, 2 * normal.line_width);
}

/* ---- export --------------------------------------------------------------------------- */

static CmlPlot *
make_energy_plot (void)
{
  CmlPlot *plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) e = cml_plot_series_new ("energy", "J");
  g_autoptr (CmlPlotSeries) k = cml_plot_series_new ("kinetic", "J");
  for (int i = 0; i <= 3000; i++)
    {
      double t = 0.01 * i, ke = 0.5 + 0.4 * sin (t), ee = 1.0;
      cml_plot_series_append (e, &t, &ee, 1);
      cml_plot_series_append (k, &t, &ke, 1);
    }
  cml_plot_set_title (plot, "Rolling ball");
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", "s");
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "energy", "J");
  cml_plot_add_series (plot, e);
  cml_plot_add_series (plot, k);
  return plot;
}

static char *
read_file (const char *path, gsize *len)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &text, len, &error);
  g_assert_no_error (error);
  return text;
}

static guint
dir_n_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (d))
    n++;
  return n;
}

static void
test_export (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-plot-XXXXXX", &error);
  g_assert_no_error (error);
  g_autoptr (CmlPlot) plot = make_energy_plot ();

  /* PNG: the right size, and something drawn */
  g_autofree char *png = g_build_filename (dir, "energy.png", NULL);
  g_assert_true (cml_plot_export (plot, png, 800, 450, &error));
  g_assert_no_error (error);
  cairo_surface_t *img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img), ==, 800);
  g_assert_cmpint (cairo_image_surface_get_height (img), ==, 450);
  cairo_surface_flush (img);
  const guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  guint inked = 0, blue = 0;
  for (int yy = 0; yy < 450; yy++)
    for (int xx = 0; xx < 800; xx++)
      {
        guint32 px = *(const guint32 *) (data + yy * stride + 4 * xx);
        if ((px & 0xffffff) != 0xffffff)
          inked++;
        /* the first series' colour (#0072b2) */
        if (abs ((int) ((px >> 16) & 0xff) - 0x00) < 30 && abs ((int) ((px >> 8) & 0xff) - 0x72) < 30 &&
            abs ((int) (px & 0xff) - 0xb2) < 30)
          blue++;
      }
  cairo_surface_destroy (img);
  g_assert_cmpfloat (inked / (800.0 * 450.0), >, 0.01);
  g_assert_cmpuint (blue, >, 500);

  /* SVG: vector, with the words in it */
  g_autofree char *svg = g_build_filename (dir, "energy.svg", NULL);
  g_assert_true (cml_plot_export (plot, svg, 640, 360, &error));
  g_assert_no_error (error);
  gsize len;
  g_autofree char *svg_text = read_file (svg, &len);
  g_assert_nonnull (strstr (svg_text, "<svg"));
  g_assert_nonnull (strstr (svg_text, "energy [J]"));
  g_assert_nonnull (strstr (svg_text, "t [s]"));
  g_assert_null (strstr (svg_text, "<image")); /* no bitmap inside */
  /* the words as text an editor can change, not glyph outlines: each label a <text> */
  g_assert_nonnull (strstr (svg_text, ">energy [J]</text>"));
  g_assert_nonnull (strstr (svg_text, ">t [s]</text>"));
  g_assert_nonnull (strstr (svg_text, "transform=\"rotate(-90 "));  /* the y axis' title reads upwards */
  g_assert_null (strstr (svg_text, "glyph"));

  /* PDF */
  g_autofree char *pdf = g_build_filename (dir, "Energy.PDF", NULL);
  g_assert_true (cml_plot_export (plot, pdf, 640, 360, &error));
  g_assert_no_error (error);
  g_autofree char *pdf_text = read_file (pdf, &len);
  g_assert_cmpuint (len, >, 1000);
  g_assert_true (g_str_has_prefix (pdf_text, "%PDF"));

  /* an unknown extension: an error, and nothing left behind */
  g_assert_cmpuint (dir_n_entries (dir), ==, 3);
  g_autofree char *bmp = g_build_filename (dir, "energy.bmp", NULL);
  g_assert_false (cml_plot_export (plot, bmp, 640, 360, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (g_file_test (bmp, G_FILE_TEST_EXISTS));
  g_autofree char *noext = g_build_filename (dir, "energy", NULL);
  g_assert_false (cml_plot_export (plot, noext, 640, 360, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_cmpuint (dir_n_entries (dir), ==, 3);

  /* a directory that does not exist: an I/O error */
  g_autofree char *nowhere = g_build_filename (dir, "no", "such", "dir.png", NULL);
  g_assert_false (cml_plot_export (plot, nowhere, 640, 360, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_IO);
  g_clear_error (&error);

  test_tmp_remove (dir);
}

static void
test_export_empty (void)
{
  /* an empty plot, and a dark presentation style, still export */
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-plot-XXXXXX", &error);
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  CmlPlotStyle style;
  cml_plot_style_init (&style, TRUE, TRUE);
  g_autofree char *png = g_build_filename (dir, "empty.png", NULL);
  g_assert_true (cml_plot_export_with_style (plot, png, 320, 200, &style, &error));
  g_assert_no_error (error);
  test_tmp_remove (dir);
}

/* The <text> element of SVG that reads TEXT: its x (px) and font size; FALSE when there
 * is none. */
static gboolean
svg_text_at (const char *svg, const char *text, double *x, double *size)
{
  g_autofree char *needle = g_strdup_printf (">%s</text>", text);
  const char *end = strstr (svg, needle), *start;

  if (end == NULL)
    return FALSE;
  for (start = end; start > svg && !g_str_has_prefix (start, "<text "); start--)
    ;
  const char *xs = strstr (start, " x=\""), *fs = strstr (start, " font-size=\"");
  g_assert_true (xs != NULL && xs < end && fs != NULL && fs < end);
  *x = g_ascii_strtod (xs + strlen (" x=\""), NULL);
  *size = g_ascii_strtod (fs + strlen (" font-size=\""), NULL);
  return TRUE;
}

/* The hint of an empty plot stays inside a narrow frame: on two lines, or smaller, not cut
 * at both sides (the Sweep page's "Run a sweep …" in a side pane); a wide frame shows it
 * on one line at the titles' size. */
static void
test_empty_hint_fits (void)
{
  static const char hint[] = "Run a sweep to see how the quantity depends on the parameter";
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-plot-XXXXXX", &error);
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  CmlPlotStyle style;

  cml_plot_style_init (&style, FALSE, FALSE);
  cml_plot_set_empty_hint (plot, hint);
  for (guint k = 0; k < 2; k++)
    {
      const int width = k == 0 ? 1200 : 300;
      g_autofree char *path = g_build_filename (dir, k == 0 ? "wide.svg" : "narrow.svg", NULL);
      g_autofree char *svg = NULL;
      double x, size;

      g_assert_true (cml_plot_export_with_style (plot, path, width, 300, &style, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &svg, NULL, NULL));
      if (k == 0)
        {
          g_assert_true (svg_text_at (svg, hint, &x, &size));
          g_assert_cmpfloat (x, >, 0);
          g_assert_cmpfloat_with_epsilon (size, style.title_size, 0.01);
          continue;
        }
      /* its words, in order, on lines that each start inside the frame */
      GString *shown = g_string_new (NULL);
      const char *p = svg;
      guint n_lines = 0;
      while ((p = strstr (p, "<text ")) != NULL)
        {
          const char *close = strstr (p, "</text>");
          const char *gt = strchr (p, '>');
          g_autofree char *line = g_strndup (gt + 1, close - gt - 1);
          p = close;
          if (!strstr (hint, line) || strlen (line) < 10)
            continue;
          g_assert_true (svg_text_at (svg, line, &x, &size));
          g_assert_cmpfloat (x, >=, 0);
          g_assert_cmpfloat (size, >=, 0.5 * style.title_size);
          g_string_append_printf (shown, "%s%s", shown->len ? " " : "", line);
          n_lines++;
        }
      g_assert_cmpuint (n_lines, >=, 1);
      g_assert_cmpstr (shown->str, ==, hint);
      g_string_free (shown, TRUE);
    }
  test_tmp_remove (dir);
}

/* fontconfig loses a few bytes while it parses its configuration, outside our control;
 * under LeakSanitizer (tools/run-tests) that is not ours to report */
const char *__lsan_default_suppressions (void);
const char *
__lsan_default_suppressions (void)
{
  return "leak:libfontconfig.so\n";
}

/* ---- dashed series (closed forms) ------------------------------------------------------ */

/* The dashes of a polyline: ON px drawn, OFF px left out, across corners and restarting at
 * breaks. */
static void
test_dash_polyline (void)
{
  g_autoptr (GArray) in = g_array_new (FALSE, FALSE, sizeof (float));
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (float));
  const float line[] = { 0, 10, 100, 10 };

  /* 100 px: dashes at [0, 6), [12, 18), …, [96, 100] */
  g_array_append_vals (in, line, 4);
  g_assert_cmpuint (cml_plot_dash_polyline (in, 6, 6, out), ==, 9);
  g_assert_cmpuint (out->len, ==, 9 * 4 + 8 * 2);
  g_assert_cmpfloat (g_array_index (out, float, 0), ==, 0);
  g_assert_cmpfloat (g_array_index (out, float, 2), ==, 6);
  g_assert_true (isnan (g_array_index (out, float, 4)));
  g_assert_cmpfloat (g_array_index (out, float, 6), ==, 12);
  g_assert_cmpfloat (g_array_index (out, float, out->len - 2), ==, 100);

  /* a dash goes round a corner as one piece: (0,0)-(3,0)-(3,3) is one dash of 3 points */
  const float corner[] = { 0, 0, 3, 0, 3, 3 };
  g_array_set_size (in, 0);
  g_array_set_size (out, 0);
  g_array_append_vals (in, corner, 6);
  g_assert_cmpuint (cml_plot_dash_polyline (in, 6, 6, out), ==, 1);
  g_assert_cmpuint (out->len, ==, 6);

  /* a break starts the pattern afresh */
  const float broken[] = { 0, 0, 9, 0, NAN, NAN, 20, 0, 29, 0 };
  g_array_set_size (in, 0);
  g_array_set_size (out, 0);
  g_array_append_vals (in, broken, 10);
  g_assert_cmpuint (cml_plot_dash_polyline (in, 6, 6, out), ==, 2);
  g_assert_cmpfloat (g_array_index (out, float, out->len - 4), ==, 20);
  g_assert_cmpfloat (g_array_index (out, float, out->len - 2), ==, 26);
}

static gboolean
near_color (guint32 px, const CmlPlotRgba *c)
{
  return abs ((int) ((px >> 16) & 0xff) - (int) lrintf (c->r * 255)) < 40
         && abs ((int) ((px >> 8) & 0xff) - (int) lrintf (c->g * 255)) < 40
         && abs ((int) (px & 0xff) - (int) lrintf (c->b * 255)) < 40;
}

/* Runs of COLOR along the image row with the most pixels of it, within [X0, X1); the
 * longest run in *LONGEST. */
static guint
count_runs (cairo_surface_t *img, const CmlPlotRgba *color, int x0, int x1, int *longest)
{
  const guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img), height = cairo_image_surface_get_height (img);
  int best_row = -1, best = 0;

  for (int y = 0; y < height; y++)
    {
      int n = 0;
      for (int x = x0; x < x1; x++)
        n += near_color (*(const guint32 *) (data + y * stride + 4 * x), color);
      if (n > best)
        best = n, best_row = y;
    }
  g_assert_cmpint (best_row, >=, 0);
  guint runs = 0;
  int run = 0;
  *longest = 0;
  for (int x = x0; x < x1; x++)
    {
      gboolean on = near_color (*(const guint32 *) (data + best_row * stride + 4 * x), color);
      if (on && run == 0)
        runs++;
      run = on ? run + 1 : 0;
      *longest = MAX (*longest, run);
    }
  return runs;
}

/* A closed form drawn dashed beside the data: in the Cairo export the dashed series' row
 * breaks into dashes of the style's length, the solid one is one run, and the legend
 * names both. */
static void
test_dashed (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) data = cml_plot_series_new ("x", "m");
  g_autoptr (CmlPlotSeries) ref = cml_plot_series_new ("x (closed form)", "m");
  CmlPlotStyle style;

  for (int k = 0; k <= 200; k++)
    {
      double t = 0.1 * k, one = 1, zero = 0;
      cml_plot_series_append (data, &t, &one, 1);
      cml_plot_series_append (ref, &t, &zero, 1);
    }
  g_assert_false (cml_plot_series_get_dashed (ref));
  cml_plot_series_set_dashed (ref, TRUE);
  g_assert_true (cml_plot_series_get_dashed (ref));
  cml_plot_add_series (plot, data);
  cml_plot_add_series (plot, ref);
  cml_plot_axis_set_range (cml_plot_get_y_axis (plot), -1, 2);
  cml_plot_style_init (&style, FALSE, FALSE);

  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 360);
  cairo_t *cr = cairo_create (img);
  cml_plot_cairo_draw (plot, cr, 640, 360, &style);
  cairo_destroy (cr);
  cairo_surface_flush (img);

  CmlPlotLayout L;
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  cml_plot_layout (plot, &style, 640, 360, pango_measure, pl, &L);
  int x0 = (int) ceil (L.area_x) + 4, x1 = (int) floor (L.area_x + L.area_w) - 4;
  g_assert_cmpuint (L.legend_labels->len, ==, 2);
  g_assert_cmpstr (((CmlPlotLabel *) g_ptr_array_index (L.legend_labels, 1))->text, ==, "x (closed form) [m]");
  cml_plot_layout_clear (&L);

  CmlPlotRgba solid_c, dashed_c;
  cml_plot_series_get_color (data, &style, &solid_c);
  cml_plot_series_get_color (ref, &style, &dashed_c);
  int longest;
  guint solid_runs = count_runs (img, &solid_c, x0, x1, &longest);
  g_assert_cmpuint (solid_runs, ==, 1);
  g_assert_cmpint (longest, ==, x1 - x0);

  /* the dashes: one per (on + off) px, each about on + the dashed line's width (round caps) */
  guint dashed_runs = count_runs (img, &dashed_c, x0, x1, &longest);
  double period = style.dash_on + style.dash_off;
  g_test_message ("dashed: %u runs over %d px, longest %d px", dashed_runs, x1 - x0, longest);
  g_assert_cmpfloat (dashed_runs, >=, floor ((x1 - x0) / period) - 1);
  g_assert_cmpfloat (dashed_runs, <=, ceil ((x1 - x0) / period) + 1);
  g_assert_cmpint (longest, <=, (int) (style.dash_on + style.dash_width) + 2);
  g_assert_cmpint (longest, >=, (int) style.dash_on - 1);
  cairo_surface_destroy (img);
}

/* A series with markers (a Poincaré section): one dot per sample inside the plot area,
 * one per pixel at most, none outside; the Cairo backend paints the dots and nothing
 * between them. */
static void
test_markers (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new ("q", "m");
  CmlPlotStyle style;

  /* 5 points far apart, one repeated (same pixel), one outside the fixed range */
  const double xs[] = { 0, 1, 2, 3, 4, 4, 50 }, ys[] = { 0, 1, 0, 1, 0, 0, 0 };
  for (guint k = 0; k < G_N_ELEMENTS (xs); k++)
    cml_plot_series_append (s, &xs[k], &ys[k], 1);
  g_assert_false (cml_plot_series_get_markers (s));
  cml_plot_series_set_markers (s, TRUE);
  g_assert_true (cml_plot_series_get_markers (s));
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_add_series (plot, s);
  cml_plot_axis_set_range (cml_plot_get_x_axis (plot), -1, 5);
  cml_plot_axis_set_range (cml_plot_get_y_axis (plot), -1, 2);
  cml_plot_style_init (&style, FALSE, FALSE);

  CmlPlotLayout L;
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  cml_plot_layout (plot, &style, 640, 360, pango_measure, pl, &L);
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (float));
  g_assert_cmpuint (cml_plot_layout_series_markers (&L, plot, 0, pts), ==, 5);
  float mid_x = 0.5f * (g_array_index (pts, float, 0) + g_array_index (pts, float, 2));
  float mid_y = 0.5f * (g_array_index (pts, float, 1) + g_array_index (pts, float, 3));
  float dot_x = g_array_index (pts, float, 2), dot_y = g_array_index (pts, float, 3);
  cml_plot_layout_clear (&L);

  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 360);
  cairo_t *cr = cairo_create (img);
  cml_plot_cairo_draw (plot, cr, 640, 360, &style);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  const guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  CmlPlotRgba c;
  cml_plot_series_get_color (s, &style, &c);
  /* ARGB32 little endian: B G R A */
  const guint8 *at = data + (int) dot_y * stride + 4 * (int) dot_x;
  g_assert_cmpint (abs (at[2] - (int) (255 * c.r)), <=, 8);
  g_assert_cmpint (abs (at[1] - (int) (255 * c.g)), <=, 8);
  g_assert_cmpint (abs (at[0] - (int) (255 * c.b)), <=, 8);
  /* half way between two dots: no line */
  const guint8 *between = data + (int) mid_y * stride + 4 * (int) mid_x;
  g_assert_false (abs (between[2] - (int) (255 * c.r)) <= 8 && abs (between[1] - (int) (255 * c.g)) <= 8
                  && abs (between[0] - (int) (255 * c.b)) <= 8);
  cairo_surface_destroy (img);
}

/* A fainter series (an earlier wavefront): its colour's alpha times the opacity, and so it
 * is drawn, blended with the background, in the plot and in its legend swatch alike; the
 * default is the colour as it is. */
static void
test_opacity (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new ("q", "m");
  CmlPlotStyle style;
  CmlPlotRgba full, faint;

  /* (off the grid lines, which would show through the dot) */
  const double xs[] = { 0.13, 1.13, 2.13 }, ys[] = { 0.37, 1.37, 0.37 };
  cml_plot_series_append (s, xs, ys, 3);
  cml_plot_series_set_markers (s, TRUE);
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_add_series (plot, s);
  cml_plot_axis_set_range (cml_plot_get_x_axis (plot), -1, 3);
  cml_plot_axis_set_range (cml_plot_get_y_axis (plot), -1, 2);
  cml_plot_style_init (&style, FALSE, TRUE);
  cml_plot_series_get_color (s, &style, &full);
  cml_plot_series_set_opacity (s, 0.4);
  cml_plot_series_get_color (s, &style, &faint);
  g_assert_cmpfloat (faint.r, ==, full.r);
  g_assert_cmpfloat_with_epsilon (faint.a, 0.4 * full.a, 1e-6);
  cml_plot_series_set_opacity (s, 7); /* out of range: held to 1 */
  cml_plot_series_get_color (s, &style, &faint);
  g_assert_cmpfloat (faint.a, ==, full.a);
  cml_plot_series_set_opacity (s, 0.4);

  CmlPlotLayout L;
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  cml_plot_layout (plot, &style, 640, 360, pango_measure, pl, &L);
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (float));
  g_assert_cmpuint (cml_plot_layout_series_markers (&L, plot, 0, pts), ==, 3);
  float dot_x = g_array_index (pts, float, 2), dot_y = g_array_index (pts, float, 3);
  cml_plot_layout_clear (&L);

  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 360);
  cairo_t *cr = cairo_create (img);
  cml_plot_cairo_draw (plot, cr, 640, 360, &style);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  const guint8 *at = cairo_image_surface_get_data (img) + (int) dot_y * cairo_image_surface_get_stride (img)
                     + 4 * (int) dot_x;
  /* ARGB32 little endian: B G R A; the dot is 0.4 of the colour over the background */
  const CmlPlotRgba *bg = &style.background;
  g_assert_cmpint (abs (at[2] - (int) (255 * (0.4 * full.r + 0.6 * bg->r))), <=, 8);
  g_assert_cmpint (abs (at[1] - (int) (255 * (0.4 * full.g + 0.6 * bg->g))), <=, 8);
  g_assert_cmpint (abs (at[0] - (int) (255 * (0.4 * full.b + 0.6 * bg->b))), <=, 8);
  cairo_surface_destroy (img);
}

/* The run's value of a swept parameter: a dashed vertical line across the whole plot area
 * at that value, whatever the curve's values (a flat curve made it a tick), and the y axis
 * does not scale to it. */
static void
test_x_marker (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) curve = cml_plot_series_new ("energy", "J");
  g_autoptr (CmlPlotSeries) now = cml_plot_series_new_x_marker ("the run's r", 2.0);
  CmlPlotStyle style;

  for (int k = 0; k <= 20; k++)
    {
      double x = 1 + 0.1 * k, y = 7.05 + 1e-15 * (k % 2); /* constant up to rounding */
      cml_plot_series_append (curve, &x, &y, 1);
    }
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_series_set_dashed (now, TRUE);
  cml_plot_add_series (plot, curve);
  cml_plot_add_series (plot, now);
  g_assert_true (cml_plot_series_is_x_marker (now));
  g_assert_false (cml_plot_series_is_x_marker (curve));
  cml_plot_style_init (&style, FALSE, FALSE);

  CmlPlotLayout L;
  g_autoptr (PangoLayout) pl = measure_layout_new ();
  cml_plot_layout (plot, &style, 640, 360, pango_measure, pl, &L);
  /* the flat curve keeps its own range: the marker has no say in it */
  g_assert_cmpfloat (L.y0, >, 7.0);
  g_assert_cmpfloat (L.y1, <, 7.1);
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (float));
  guint n = cml_plot_layout_series_points (&L, plot, 1, 1.0, style.line_width, pts);
  g_assert_cmpuint (n, ==, 2);
  const float *p = (const float *) (gpointer) pts->data;
  double px = cml_plot_layout_map_x (&L, 2.0);
  g_assert_cmpfloat (fabs (p[0] - px), <, 0.5);
  g_assert_cmpfloat (fabs (p[2] - px), <, 0.5);
  /* from the bottom of the plot area to its top */
  g_assert_cmpfloat (fabs (fabs (p[3] - p[1]) - L.area_h), <, 1.0);
  double area_h = L.area_h;
  cml_plot_layout_clear (&L);

  /* drawn: dashes down the whole height at x = 2 */
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 640, 360);
  cairo_t *cr = cairo_create (img);
  cml_plot_cairo_draw (plot, cr, 640, 360, &style);
  cairo_destroy (cr);
  cairo_surface_flush (img);
  CmlPlotRgba c;
  cml_plot_series_get_color (now, &style, &c);
  const guint8 *data = cairo_image_surface_get_data (img);
  int stride = cairo_image_surface_get_stride (img);
  int col = (int) round (px), inked_top = 360, inked_bottom = -1;
  for (int y = 0; y < 360; y++)
    for (int x = col - 1; x <= col + 1; x++)
      {
        const guint8 *q = data + y * stride + 4 * x; /* BGRA */
        if (abs (q[2] - (int) (c.r * 255)) < 40 && abs (q[1] - (int) (c.g * 255)) < 40
            && abs (q[0] - (int) (c.b * 255)) < 40)
          inked_top = MIN (inked_top, y), inked_bottom = MAX (inked_bottom, y);
      }
  g_assert_cmpint (inked_bottom - inked_top, >, 0.8 * area_h);
  cairo_surface_destroy (img);

  /* no value: nothing drawn */
  cml_plot_series_set_x_marker (now, NAN);
  cml_plot_layout (plot, &style, 640, 360, pango_measure, pl, &L);
  g_array_set_size (pts, 0);
  g_assert_cmpuint (cml_plot_layout_series_points (&L, plot, 1, 1.0, style.line_width, pts), ==, 0);
  cml_plot_layout_clear (&L);
}

/* Zoom: against time the time axis shows a fixed interval around the point (kept in
 * place), y scales to the data in it, and a reset follows the run again; a phase
 * portrait's axes both shrink around the point. */
static void
test_zoom (void)
{
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) s = cml_plot_series_new ("x", "m");

  for (int k = 0; k <= 400; k++)
    {
      double t = 0.1 * k, y = t; /* a ramp: y in view follows the time shown */
      cml_plot_series_append (s, &t, &y, 1);
    }
  cml_plot_add_series (plot, s);
  cml_plot_update_ranges (plot, TRUE);
  double t0, t1, lo, hi;
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (t0, ==, 20);
  g_assert_cmpfloat (t1, ==, 40);
  g_assert_false (cml_plot_get_zoomed (plot));

  /* in by 2 around t = 30: [25, 35], and y scales to the ramp there */
  cml_plot_zoom (plot, 30, 30, 0.5);
  g_assert_true (cml_plot_get_zoomed (plot));
  cml_plot_update_ranges (plot, FALSE);
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (fabs (t0 - 25), <, 1e-12);
  g_assert_cmpfloat (fabs (t1 - 35), <, 1e-12);
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot), &lo, &hi);
  g_assert_cmpfloat (fabs (lo - 25), <, 1e-12);
  cml_plot_axis_get_range (cml_plot_get_y_axis (plot), &lo, &hi);
  g_assert_cmpfloat (lo, >=, 20);
  g_assert_cmpfloat (hi, <=, 40);
  /* the run goes on: the zoomed view stays */
  double t = 50, y = 50;
  cml_plot_series_append (s, &t, &y, 1);
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (fabs (t1 - 35), <, 1e-12);
  /* and back */
  cml_plot_reset_zoom (plot);
  g_assert_false (cml_plot_get_zoomed (plot));
  cml_plot_get_visible_time (plot, &t0, &t1);
  g_assert_cmpfloat (t1, ==, 50);

  /* a phase portrait */
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_update_ranges (plot, TRUE);
  double x0, x1, y0, y1;
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot), &x0, &x1);
  cml_plot_axis_get_range (cml_plot_get_y_axis (plot), &y0, &y1);
  cml_plot_zoom (plot, 10, 10, 0.5);
  cml_plot_update_ranges (plot, FALSE);
  cml_plot_axis_get_range (cml_plot_get_x_axis (plot), &lo, &hi);
  g_assert_cmpfloat (fabs ((hi - lo) - 0.5 * (x1 - x0)), <, 1e-9);
  g_assert_cmpfloat (fabs ((10 - lo) - 0.5 * (10 - x0)), <, 1e-9);
  cml_plot_axis_get_range (cml_plot_get_y_axis (plot), &lo, &hi);
  g_assert_cmpfloat (fabs ((hi - lo) - 0.5 * (y1 - y0)), <, 1e-9);
  cml_plot_reset_zoom (plot);
  g_assert_true (cml_plot_axis_get_auto_scale (cml_plot_get_x_axis (plot)));
  g_assert_true (cml_plot_axis_get_auto_scale (cml_plot_get_y_axis (plot)));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/render/plot/ticks", test_ticks);
  g_test_add_func ("/render/plot/high-contrast", test_high_contrast);
  g_test_add_func ("/render/plot/markers", test_markers);
  g_test_add_func ("/render/plot/opacity", test_opacity);
  g_test_add_func ("/render/plot/auto-scale", test_auto_scale);
  g_test_add_func ("/render/plot/decimation", test_decimation);
  g_test_add_func ("/render/plot/phase-decimation", test_phase_decimation);
  g_test_add_func ("/render/plot/time-window", test_time_window);
  g_test_add_func ("/render/plot/equal-scales", test_equal_scales);
  g_test_add_func ("/render/plot/three-ticks", test_three_ticks);
  g_test_add_func ("/render/plot/equal-scales-labels", test_equal_scales_labels);
  g_test_add_func ("/render/plot/legend", test_legend);
  g_test_add_func ("/render/plot/units", test_units);
  g_test_add_func ("/render/plot/figure", test_figure);
  g_test_add_func ("/render/plot/export", test_export);
  g_test_add_func ("/render/plot/export-empty", test_export_empty);
  g_test_add_func ("/render/plot/empty-hint-fits", test_empty_hint_fits);
  g_test_add_func ("/render/plot/dash-polyline", test_dash_polyline);
  g_test_add_func ("/render/plot/dashed", test_dashed);
  g_test_add_func ("/render/plot/x-marker", test_x_marker);
  g_test_add_func ("/render/plot/zoom", test_zoom);

  int status = g_test_run ();
  render_test_drop_font_caches ();
  return status;
}
