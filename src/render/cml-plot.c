/* cml-plot.c — the plot: title, the two axes, the series, the time
 * window, and the ranges the axes take from the data in it.
 *
 * See cml-plot.h for the split between data, mapping and drawing.  Nothing in the plot
 * model draws: the backends (cml-plot-gl.c, cml-plot-cairo.c) take a CmlPlotLayout and the
 * series' polylines and turn them into pixels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== the plot ========================================================================= */

CmlPlot *
cml_plot_new (void)
{
  CmlPlot *plot = g_new0 (CmlPlot, 1);
  plot->ref_count = 1;
  plot->title = g_strdup ("");
  plot->subtitle = g_strdup ("");
  plot->equal_scales = TRUE;
  plot->x_axis = cml_plot_axis_new ("t", "");
  plot->y_axis = cml_plot_axis_new ("", "");
  plot->series = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_series_unref);
  plot->against_time = TRUE;
  plot->window = 20;
  plot->legend = -1;
  return plot;
}

CmlPlot *
cml_plot_ref (CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, NULL);
  g_atomic_int_inc (&plot->ref_count);
  return plot;
}

void
cml_plot_unref (CmlPlot *plot)
{
  if (plot == NULL || !g_atomic_int_dec_and_test (&plot->ref_count))
    return;
  g_free (plot->title);
  g_free (plot->subtitle);
  g_free (plot->empty_hint);
  cml_plot_axis_free (plot->x_axis);
  cml_plot_axis_free (plot->y_axis);
  g_ptr_array_unref (plot->series);
  g_free (plot);
}

void
cml_plot_set_title (CmlPlot *plot, const char *title)
{
  g_return_if_fail (plot != NULL);
  g_free (plot->title);
  plot->title = g_strdup (title ? title : "");
}

const char *
cml_plot_get_title (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, NULL);
  return plot->title;
}

void
cml_plot_set_empty_hint (CmlPlot *plot, const char *hint)
{
  g_return_if_fail (plot != NULL);
  g_free (plot->empty_hint);
  plot->empty_hint = g_strdup (hint);
}

void
cml_plot_set_subtitle (CmlPlot *plot, const char *subtitle)
{
  g_return_if_fail (plot != NULL);
  g_free (plot->subtitle);
  plot->subtitle = g_strdup (subtitle ? subtitle : "");
}

const char *
cml_plot_get_subtitle (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, NULL);
  return plot->subtitle;
}

void
cml_plot_set_equal_scales (CmlPlot *plot, gboolean equal_scales)
{
  g_return_if_fail (plot != NULL);
  plot->equal_scales = !!equal_scales;
}

gboolean
cml_plot_get_equal_scales (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  return plot->equal_scales;
}

gboolean
cml_plot_get_equal_scales_apply (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  return plot->equal_scales && cml_plot_get_equal_scales_possible (plot);
}

gboolean
cml_plot_get_equal_scales_possible (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  /* one unit on both axes: the picture is a piece of the plane (an orbit in metres, or
   * the components of a unit vector, both declared dimensionless), whose shape is what it
   * shows; mixed units (u [m/s] against x [m]) have no shape to keep, and quantities whose
   * units the model does not give say nothing */
  return !plot->against_time &&
         plot->x_axis->unit != NULL && plot->x_axis->unit[0] != '\0' &&
         g_strcmp0 (plot->x_axis->unit, plot->y_axis->unit) == 0;
}

CmlPlotAxis *
cml_plot_get_x_axis (CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, NULL);
  return plot->x_axis;
}

CmlPlotAxis *
cml_plot_get_y_axis (CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, NULL);
  return plot->y_axis;
}

void
cml_plot_set_against_time (CmlPlot *plot, gboolean against_time)
{
  g_return_if_fail (plot != NULL);
  cml_plot_reset_zoom (plot);
  plot->against_time = !!against_time;
  plot->reset_pending = TRUE;
}

gboolean
cml_plot_get_against_time (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  return plot->against_time;
}

void
cml_plot_set_time_window (CmlPlot *plot, double window)
{
  g_return_if_fail (plot != NULL);
  g_return_if_fail (window > 0);
  plot->window = window;
}

double
cml_plot_get_time_window (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, 0);
  return plot->window;
}

void
cml_plot_set_show_all (CmlPlot *plot, gboolean show_all)
{
  g_return_if_fail (plot != NULL);
  if (plot->show_all != !!show_all)
    plot->reset_pending = TRUE;
  plot->show_all = !!show_all;
}

gboolean
cml_plot_get_show_all (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  return plot->show_all;
}

void
cml_plot_set_legend_visible (CmlPlot *plot, gboolean visible)
{
  g_return_if_fail (plot != NULL);
  plot->legend = visible ? 1 : 0;
}

void
cml_plot_add_series (CmlPlot *plot, CmlPlotSeries *series)
{
  g_return_if_fail (plot != NULL && series != NULL);
  if (!series->has_color && series->palette_index < 0)
    series->palette_index = (int) plot->series->len;
  g_ptr_array_add (plot->series, cml_plot_series_ref (series));
  plot->reset_pending = TRUE;
}

void
cml_plot_remove_all_series (CmlPlot *plot)
{
  g_return_if_fail (plot != NULL);
  g_ptr_array_set_size (plot->series, 0);
  plot->reset_pending = TRUE;
}

guint
cml_plot_get_n_series (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, 0);
  return plot->series->len;
}

CmlPlotSeries *
cml_plot_get_series (const CmlPlot *plot, guint i)
{
  g_return_val_if_fail (plot != NULL && i < plot->series->len, NULL);
  return g_ptr_array_index (plot->series, i);
}

static gboolean
legend_shown (const CmlPlot *plot)
{
  if (plot->legend >= 0)
    return plot->legend && plot->series->len > 0;
  if (plot->series->len >= 2)
    return TRUE;
  /* one series: the y axis title already names it */
  if (plot->series->len == 1)
    return g_strcmp0 (cml_plot_series_get_name (g_ptr_array_index (plot->series, 0)),
                      plot->y_axis->label) != 0;
  return FALSE;
}

guint
cml_plot_get_n_legend_entries (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, 0);
  return legend_shown (plot) ? plot->series->len : 0;
}

gboolean
cml_plot_get_time_extent (const CmlPlot *plot, double *t_first, double *t_last)
{
  g_return_val_if_fail (plot != NULL, FALSE);

  double lo = INFINITY, hi = -INFINITY;
  for (guint i = 0; i < plot->series->len; i++)
    {
      CmlPlotSeries *s = g_ptr_array_index (plot->series, i);
      guint n = cml_plot_series_get_n (s);
      if (n == 0)
        continue;
      lo = MIN (lo, s->t->data[0]);
      hi = MAX (hi, s->t->data[n - 1]);
    }
  if (!(lo <= hi))
    return FALSE;
  if (t_first)
    *t_first = lo;
  if (t_last)
    *t_last = hi;
  return TRUE;
}

void
cml_plot_get_visible_time (const CmlPlot *plot, double *t0, double *t1)
{
  g_return_if_fail (plot != NULL && t0 != NULL && t1 != NULL);

  double first, last;
  if (plot->zoomed && plot->against_time)
    {
      *t0 = plot->zoom_t0;
      *t1 = plot->zoom_t1;
      return;
    }
  if (!cml_plot_get_time_extent (plot, &first, &last))
    {
      *t0 = 0;
      *t1 = plot->window;
      return;
    }
  if (plot->show_all)
    {
      *t0 = first;
      *t1 = last > first ? last : first + plot->window;
    }
  else if (last - first < plot->window)
    {
      /* fills from the left, then scrolls */
      *t0 = first;
      *t1 = first + plot->window;
    }
  else
    {
      *t0 = last - plot->window;
      *t1 = last;
    }
}

void
cml_plot_zoom (CmlPlot *plot, double x, double y, double factor)
{
  g_return_if_fail (plot != NULL);
  if (!(factor > 0) || !isfinite (factor) || !isfinite (x) || !isfinite (y))
    return;

  if (plot->against_time)
    {
      double t0, t1;
      cml_plot_get_visible_time (plot, &t0, &t1);
      double a = x - (x - t0) * factor, b = x + (t1 - x) * factor;
      /* not below what a double tells apart at this time */
      if (!(b - a > 1e-9 * MAX (fabs (x), 1.0)))
        return;
      plot->zoomed = TRUE;
      plot->zoom_t0 = a;
      plot->zoom_t1 = b;
      plot->reset_pending = TRUE;
      return;
    }
  CmlPlotAxis *axes[2] = { plot->x_axis, plot->y_axis };
  double at[2] = { x, y };
  for (int k = 0; k < 2; k++)
    {
      double lo = axes[k]->min, hi = axes[k]->max;
      double a = at[k] - (at[k] - lo) * factor, b = at[k] + (hi - at[k]) * factor;
      if (!(b - a > 1e-12 * MAX (fabs (at[k]), 1.0)))
        return;
    }
  for (int k = 0; k < 2; k++)
    {
      double lo = axes[k]->min, hi = axes[k]->max;
      cml_plot_axis_set_range (axes[k], at[k] - (at[k] - lo) * factor, at[k] + (hi - at[k]) * factor);
    }
  plot->zoomed = TRUE;
}

void
cml_plot_reset_zoom (CmlPlot *plot)
{
  g_return_if_fail (plot != NULL);
  if (!plot->zoomed)
    return;
  if (!plot->against_time)
    {
      cml_plot_axis_set_auto_scale (plot->x_axis, TRUE);
      cml_plot_axis_set_auto_scale (plot->y_axis, TRUE);
    }
  plot->zoomed = FALSE;
  plot->reset_pending = TRUE;
}

gboolean
cml_plot_get_zoomed (const CmlPlot *plot)
{
  g_return_val_if_fail (plot != NULL, FALSE);
  return plot->zoomed;
}

void
cml_plot_reset_ranges (CmlPlot *plot)
{
  g_return_if_fail (plot != NULL);
  plot->reset_pending = TRUE;
}

/* Minimum and maximum of COLUMN over the samples of every series with time in
 * [t0, t1]; X selects the series' x columns, else their y columns. */
static gboolean
data_range (CmlPlot *plot, gboolean x, double t0, double t1, double *lo, double *hi)
{
  gboolean any = FALSE;
  *lo = INFINITY;
  *hi = -INFINITY;
  for (guint i = 0; i < plot->series->len; i++)
    {
      CmlPlotSeries *s = g_ptr_array_index (plot->series, i);
      guint i0, i1;
      double a, b;
      cml_plot_series_time_range (s, t0, t1, &i0, &i1);
      /* against time the line reaches the neighbours just outside the window */
      if (!x && plot->against_time)
        {
          i0 = i0 > 0 ? i0 - 1 : 0;
          i1 = MIN (i1 + 1, cml_plot_series_get_n (s));
        }
      if (cml_plot_column_range (x ? s->x : s->y, i0, i1, &a, &b))
        {
          *lo = MIN (*lo, a);
          *hi = MAX (*hi, b);
          any = TRUE;
        }
    }
  return any;
}

void
cml_plot_update_ranges (CmlPlot *plot, gboolean reset)
{
  g_return_if_fail (plot != NULL);

  reset = reset || plot->reset_pending;
  plot->reset_pending = FALSE;

  double t0, t1, lo, hi;
  cml_plot_get_visible_time (plot, &t0, &t1);

  if (plot->against_time)
    {
      if (plot->x_axis->auto_scale && t1 > t0)
        {
          plot->x_axis->min = t0;
          plot->x_axis->max = t1;
        }
    }
  else if (data_range (plot, TRUE, t0, t1, &lo, &hi))
    cml_plot_axis_fit (plot->x_axis, lo, hi, reset);
  else if (reset && plot->x_axis->auto_scale)
    plot->x_axis->min = 0, plot->x_axis->max = 1, plot->x_axis->have_range = FALSE;

  if (data_range (plot, FALSE, t0, t1, &lo, &hi))
    cml_plot_axis_fit (plot->y_axis, lo, hi, reset);
  else if (reset && plot->y_axis->auto_scale)
    plot->y_axis->min = 0, plot->y_axis->max = 1, plot->y_axis->have_range = FALSE;
}
