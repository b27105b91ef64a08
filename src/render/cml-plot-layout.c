/* cml-plot-layout.c — the layout of a plot's frame for a given size and style:
 * plot area, tick marks and labels, titles, legend; and the series' polylines in its
 * pixels (straight stretches merged, dashes cut).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== layout =========================================================================== */

static void
label_free (gpointer data)
{
  CmlPlotLabel *label = data;
  g_free (label->text);
  g_free (label);
}

static CmlPlotLabel *
label_new_full (const char *text, double size, gboolean bold, CmlPlotMeasureFunc measure,
                gpointer user_data)
{
  CmlPlotLabel *label = g_new0 (CmlPlotLabel, 1);
  label->text = g_strdup (text);
  label->size = size;
  label->bold = bold;
  measure (text, size, bold, &label->w, &label->h, user_data);
  return label;
}

static CmlPlotLabel *
label_new (const char *text, double size, CmlPlotMeasureFunc measure, gpointer user_data)
{
  return label_new_full (text, size, FALSE, measure, user_data);
}

/* TEXT at SIZE px for a space MAX_W px wide: one line when it fits; else broken at the
 * space nearest its middle into two lines; else, on the fewer lines, made smaller to fit
 * (down to half the size; the scale in steps of 1/16, so that a frame being resized
 * makes few sizes of it). */
static CmlPlotLabel *
empty_label_new (const char *text, double size, double max_w, CmlPlotMeasureFunc measure, gpointer user_data)
{
  CmlPlotLabel *label = label_new (text, size, measure, user_data);
  if (label->w <= max_w || max_w <= 0)
    return label;

  /* two lines: the break nearest the middle */
  const char *mid = text + strlen (text) / 2, *best = NULL;
  for (const char *c = strchr (text, ' '); c; c = strchr (c + 1, ' '))
    if (best == NULL || ABS (c - mid) < ABS (best - mid))
      best = c;
  if (best)
    {
      g_autofree char *two = g_strdup (text);
      two[best - text] = '\n';
      CmlPlotLabel *broken = label_new (two, size, measure, user_data);
      if (broken->w < label->w)
        {
          label_free (label);
          label = broken;
        }
      else
        label_free (broken);
    }
  if (label->w > max_w)
    {
      double scale = MAX (floor (max_w / label->w * 16) / 16, 0.5);
      g_autofree char *t = g_strdup (label->text);
      label_free (label);
      label = label_new (t, size * scale, measure, user_data);
    }
  return label;
}

double
cml_plot_layout_map_x (const CmlPlotLayout *layout, double x)
{
  return layout->area_x + (x - layout->x0) / (layout->x1 - layout->x0) * layout->area_w;
}

double
cml_plot_layout_map_y (const CmlPlotLayout *layout, double y)
{
  return layout->area_y + layout->area_h - (y - layout->y0) / (layout->y1 - layout->y0) * layout->area_h;
}

#define MAX_TICKS 64

/* Shortens LABEL with an ellipsis until it is at most MAX_W wide: the last resort for a
 * legend entry or a title wider than the whole frame (cut text would be worse).  The
 * longest start of the text that fits with its ellipsis is found by bisection (its width
 * grows with its length): log₂ n measures, not n (a title of 3000 names took 13 s). */
static void
label_fit (CmlPlotLabel *label, double max_w, CmlPlotMeasureFunc measure, gpointer user_data)
{
  if (label->w <= max_w)
    return;

  g_autofree char *full = label->text;
  glong n = g_utf8_strlen (full, -1);
  glong fits = -1, too_wide = n; /* the answer lies in [fits, too_wide), -1 for none */
  label->text = NULL;
  while (too_wide - fits > 1)
    {
      glong mid = fits + (too_wide - fits) / 2;
      const char *end = g_utf8_offset_to_pointer (full, mid);
      double w, h;
      g_autofree char *text = g_strdup_printf ("%.*s…", (int) (end - full), full);

      measure (text, label->size, label->bold, &w, &h, user_data);
      if (w <= max_w)
        fits = mid;
      else
        too_wide = mid;
    }
  /* nothing fits: the ellipsis alone */
  const char *end = g_utf8_offset_to_pointer (full, MAX (fits, 0));
  label->text = g_strdup_printf ("%.*s…", (int) (end - full), full);
  measure (label->text, label->size, label->bold, &label->w, &label->h, user_data);
}

/* Equal scales: widens [X0, X1] or [Y0, Y1] around its centre so that one data unit is
 * as many pixels along x (AW px for the x range) as along y (AH px for the y range). */
static void
equalize_ranges (double aw, double ah, double *x0, double *x1, double *y0, double *y1)
{
  double sx = aw / (*x1 - *x0), sy = ah / (*y1 - *y0);

  if (!(sx > 0) || !(sy > 0) || !isfinite (sx) || !isfinite (sy))
    return;
  if (sx > sy)
    {
      double c = 0.5 * (*x0 + *x1), h = 0.5 * aw / sy;
      *x0 = c - h;
      *x1 = c + h;
    }
  else if (sy > sx)
    {
      double c = 0.5 * (*y0 + *y1), h = 0.5 * ah / sx;
      *y0 = c - h;
      *y1 = c + h;
    }
}

/* At least three labelled ticks on an axis of LENGTH (pixels) over [LO, HI] where three
 * fit with their labels (EXTENT each along the axis) not touching: more intervals than
 * INTERVALS asks for when the nice steps it gives leave one or two (a range from 7.043
 * to 7.057 in two intervals has a lone tick at 7.05, which tells nothing of the scale).
 * Returns the intervals to ask for. */
static guint
at_least_three (double lo, double hi, guint intervals, double length, double extent)
{
  CmlPlotTick ticks[MAX_TICKS];
  double step;
  if (cml_plot_ticks_for_range (lo, hi, intervals, ticks, MAX_TICKS, NULL) >= 3)
    return intervals;
  for (guint more = intervals + 1; more <= 12; more++)
    {
      guint n = cml_plot_ticks_for_range (lo, hi, more, ticks, MAX_TICKS, &step);
      if (n >= 3)
        return length * step / (hi - lo) >= extent ? more : intervals;
    }
  return intervals;
}

/* The x ticks for X_INTERVALS at most, their labels made in LABELS; *WIDEST their widest
 * label.  Returns how many. */
static guint
x_ticks (CmlPlotLayout *layout, guint x_intervals, double font, CmlPlotMeasureFunc measure,
         gpointer user_data, CmlPlotTick *ticks, GPtrArray *labels, double *widest)
{
  guint n = cml_plot_ticks_for_range (layout->x0, layout->x1, x_intervals, ticks, MAX_TICKS, NULL);

  g_ptr_array_set_size (labels, 0);
  *widest = 0;
  for (guint i = 0; i < n; i++)
    {
      CmlPlotLabel *l = label_new (ticks[i].label, font, measure, user_data);
      *widest = MAX (*widest, l->w);
      g_ptr_array_add (labels, l);
    }
  return n;
}

void
cml_plot_layout (CmlPlot *plot, const CmlPlotStyle *style, double width, double height,
                 CmlPlotMeasureFunc measure, gpointer user_data, CmlPlotLayout *layout)
{
  g_return_if_fail (plot != NULL && style != NULL && measure != NULL && layout != NULL);

  const double sc = style->scale > 0 ? style->scale : 1.0;
  const double font = style->font_size * sc, title_font = style->title_size * sc;
  const double pad = style->padding * sc, tick = style->tick_length * sc;
  const double gap = 0.4 * font;
  const double avail_w = MAX (width - 2 * pad, 1.0);
  CmlPlotTick ticks[MAX_TICKS];

  memset (layout, 0, sizeof *layout);
  layout->width = width;
  layout->height = height;
  layout->x_ticks = g_array_new (FALSE, FALSE, sizeof (CmlPlotTickMark));
  layout->y_ticks = g_array_new (FALSE, FALSE, sizeof (CmlPlotTickMark));
  layout->labels = g_ptr_array_new_with_free_func (label_free);
  layout->legend_labels = g_ptr_array_new_with_free_func (label_free);

  cml_plot_update_ranges (plot, FALSE);
  double base_x0, base_x1, base_y0, base_y1;
  cml_plot_axis_get_range (plot->x_axis, &base_x0, &base_x1);
  cml_plot_axis_get_range (plot->y_axis, &base_y0, &base_y1);
  layout->x0 = base_x0, layout->x1 = base_x1;
  layout->y0 = base_y0, layout->y1 = base_y1;

  /* heights: the title and the parameters' line above, tick labels and the x axis title
   * below */
  double top = pad, bottom = pad, left = pad, right = pad;
  double tw, font_h;
  measure ("0123456789", font, FALSE, &tw, &font_h, user_data);

  CmlPlotLabel *title = NULL, *subtitle = NULL;
  if (plot->title[0] != '\0')
    {
      title = label_new_full (plot->title, title_font, TRUE, measure, user_data);
      label_fit (title, avail_w, measure, user_data);
      title->y = top;
      top += title->h + (plot->subtitle[0] ? 0.25 * gap : gap);
    }
  if (plot->subtitle[0] != '\0')
    {
      subtitle = label_new (plot->subtitle, font, measure, user_data);
      label_fit (subtitle, avail_w, measure, user_data);
      subtitle->y = top;
      top += subtitle->h + gap;
    }

  g_autofree char *x_title_text = cml_plot_axis_dup_title (plot->x_axis);
  g_autofree char *y_title_text = cml_plot_axis_dup_title (plot->y_axis);
  CmlPlotLabel *x_title = x_title_text[0] ? label_new (x_title_text, title_font, measure, user_data) : NULL;
  CmlPlotLabel *y_title = y_title_text[0] ? label_new (y_title_text, title_font, measure, user_data) : NULL;
  if (x_title)
    label_fit (x_title, avail_w, measure, user_data);
  bottom += tick + gap + font_h + (x_title ? gap + x_title->h : 0);
  if (y_title)
    {
      y_title->rotated = TRUE;
      left += y_title->h + gap;
    }

  /* the legend, "swatch name [unit]" entries, outside the plot area so it hides no data:
   * in one row above the plot area, flush right; when they do not fit in a row, a column
   * to the right of the plot area if that leaves the plot most of the width, else rows
   * above (as many as it takes).  Rows that would take more than a third of the height
   * (a small plot on a projector) get a smaller font, down to 60 %; an entry wider than
   * the frame is shortened. */
  guint n_legend = cml_plot_get_n_legend_entries (plot);
  gboolean legend_right = FALSE;
  double legend_row_h = 0;
  if (n_legend > 0)
    {
      /* the plot area without a legend, roughly (tick labels some four digits wide) */
      double est_w = width - left - 4.5 * font - tick - right;
      double est_h = height - top - bottom - 0.5 * font_h;
      guint rows = 0;
      for (double lfont = font;; lfont *= 0.85)
        {
          double lgap = 0.4 * lfont, spacing = 1.2 * lfont, lfont_h, row_w = 0, widest = 0;
          measure ("0123456789", lfont, FALSE, NULL, &lfont_h, user_data);
          legend_row_h = 1.25 * lfont_h;
          layout->legend_swatch = 1.6 * lfont;
          layout->legend_swatch_gap = lgap;
          g_ptr_array_set_size (layout->legend_labels, 0);
          for (guint i = 0; i < n_legend; i++)
            {
              g_autofree char *text = cml_plot_series_dup_label (g_ptr_array_index (plot->series, i));
              CmlPlotLabel *l = label_new (text, lfont, measure, user_data);
              label_fit (l, MAX (avail_w - layout->legend_swatch - lgap, lfont), measure, user_data);
              row_w += (i ? spacing : 0) + layout->legend_swatch + lgap + l->w;
              widest = MAX (widest, l->w);
              g_ptr_array_add (layout->legend_labels, l);
            }
          double column_w = layout->legend_swatch + lgap + widest;
          double column_h = n_legend * legend_row_h;
          if (row_w > avail_w && column_w <= 0.35 * est_w && column_h <= est_h)
            {
              legend_right = TRUE;
              layout->legend_w = column_w;
              layout->legend_h = column_h;
              break;
            }

          /* greedy rows, each flush right */
          guint start = 0;
          rows = 0;
          layout->legend_w = 0;
          while (start < n_legend)
            {
              double w = 0;
              guint end = start;
              for (; end < n_legend; end++)
                {
                  CmlPlotLabel *l = g_ptr_array_index (layout->legend_labels, end);
                  double dw = (end > start ? spacing : 0) + layout->legend_swatch + lgap + l->w;
                  if (end > start && w + dw > avail_w)
                    break;
                  w += dw;
                }
              double x = width - pad - w;
              for (guint i = start; i < end; i++)
                {
                  CmlPlotLabel *l = g_ptr_array_index (layout->legend_labels, i);
                  l->x = x + layout->legend_swatch + lgap;
                  l->y = top + rows * legend_row_h + 0.5 * (legend_row_h - l->h);
                  x = l->x + l->w + spacing;
                }
              layout->legend_w = MAX (layout->legend_w, w);
              start = end;
              rows++;
            }
          if (rows * legend_row_h <= est_h / 3 || lfont < 0.65 * font)
            break;
        }
      if (legend_right)
        right += layout->legend_w + 1.5 * gap;
      else
        {
          layout->legend_x = width - pad - layout->legend_w;
          layout->legend_y = top;
          layout->legend_h = rows * legend_row_h;
          top += layout->legend_h + 0.5 * gap;
        }
    }

  top += 0.5 * font_h; /* room for the top tick label's upper half */

  /* short of height (a small plot on a projector): the x axis title goes to the right
   * end of the tick labels' row instead of a row of its own */
  gboolean compact_x = x_title != NULL && height - top - bottom < 0.5 * height;
  double x_row_h = compact_x ? MAX (font_h, x_title->h) : font_h;
  if (compact_x)
    bottom += x_row_h - font_h - (gap + x_title->h);

  layout->area_y = top;
  layout->area_h = MAX (height - top - bottom, 1.0);
  if (y_title)
    label_fit (y_title, MAX (height - 2 * pad, font), measure, user_data);

  /* the x tick labels' right half may stick out past the plot area */
  measure ("−0.000", font, FALSE, &tw, NULL, user_data);
  right += 0.5 * tw;

  /* y ticks (labels about a line apart) and the plot area's width, which their labels'
   * width decides.  Equal scales widen one range to the area's proportions, which may
   * change the y labels and so the width: repeat until it settles (twice, as a rule). */
  const guint y_intervals0 = (guint) CLAMP (layout->area_h / (1.6 * font_h), 2, 8);
  guint y_intervals = at_least_three (layout->y0, layout->y1, y_intervals0, layout->area_h, font_h);
  gboolean equal = cml_plot_get_equal_scales_apply (plot);
  GPtrArray *y_labels = g_ptr_array_new_with_free_func (label_free);
  double left0 = left, y_label_w = 0;
  guint n_y = 0;
  for (guint pass = 0;; pass++)
    {
      /* the margin holds the widest labels of every pass (never narrower: the final
       * ranges' labels must fit it too) */
      y_intervals = at_least_three (layout->y0, layout->y1, y_intervals0, layout->area_h, font_h);
      n_y = cml_plot_ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
      g_ptr_array_set_size (y_labels, 0);
      for (guint i = 0; i < n_y; i++)
        {
          CmlPlotLabel *l = label_new (ticks[i].label, font, measure, user_data);
          y_label_w = MAX (y_label_w, l->w);
          g_ptr_array_add (y_labels, l);
        }
      left = left0 + y_label_w + gap + tick;
      layout->area_x = left;
      layout->area_w = MAX (width - left - right, 1.0);
      if (!equal)
        break;

      double x0 = base_x0, x1 = base_x1, y0 = base_y0, y1 = base_y1;
      equalize_ranges (layout->area_w, layout->area_h, &x0, &x1, &y0, &y1);
      gboolean same = x0 == layout->x0 && x1 == layout->x1 && y0 == layout->y0 && y1 == layout->y1;
      layout->x0 = x0, layout->x1 = x1, layout->y0 = y0, layout->y1 = y1;
      if (same || pass >= 3)
        break; /* (at the limit the labels were measured for nearly these ranges) */
    }
  if (equal)
    {
      /* the labels of the final ranges; wider than the margin (rarely, after the last
       * pass moved the ranges), the margin grows for them and the ranges follow the
       * narrower area once more */
      for (guint again = 0; again < 2; again++)
        {
          double widest = 0;
          y_intervals = at_least_three (layout->y0, layout->y1, y_intervals0, layout->area_h, font_h);
          n_y = cml_plot_ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
          g_ptr_array_set_size (y_labels, 0);
          for (guint i = 0; i < n_y; i++)
            {
              CmlPlotLabel *l = label_new (ticks[i].label, font, measure, user_data);
              widest = MAX (widest, l->w);
              g_ptr_array_add (y_labels, l);
            }
          if (widest <= y_label_w + 0.5 || again == 1)
            break;
          y_label_w = widest;
          left = left0 + y_label_w + gap + tick;
          layout->area_x = left;
          layout->area_w = MAX (width - left - right, 1.0);
          double x0 = base_x0, x1 = base_x1, y0 = base_y0, y1 = base_y1;
          equalize_ranges (layout->area_w, layout->area_h, &x0, &x1, &y0, &y1);
          layout->x0 = x0, layout->x1 = x1, layout->y0 = y0, layout->y1 = y1;
        }
    }

  /* x ticks: as many as fit with min_tick_spacing between the labels, tried from many
   * to few; and never fewer than three where three fit without the labels touching (a
   * lone "0" tells nothing about the scale) */
  guint x_intervals = 16;
  GPtrArray *x_labels = g_ptr_array_new_with_free_func (label_free);
  guint n_x = 0, three_intervals = 0;
  for (;;)
    {
      double widest = 0;
      n_x = x_ticks (layout, x_intervals, font, measure, user_data, ticks, x_labels, &widest);
      double spacing = n_x > 1 ? layout->area_w * (ticks[1].value - ticks[0].value) / (layout->x1 - layout->x0) : G_MAXDOUBLE;
      if (spacing >= widest + style->min_tick_spacing * sc || x_intervals <= 1)
        break;
      if (n_x >= 3 && spacing >= widest + 0.5 * font)
        three_intervals = x_intervals;
      x_intervals = MAX (1u, x_intervals * 2 / 3);
    }
  if (n_x < 3 && three_intervals > 0)
    {
      double widest = 0;
      x_intervals = three_intervals;  /* the ticks are made again from it below */
      n_x = x_ticks (layout, x_intervals, font, measure, user_data, ticks, x_labels, &widest);
    }

  /* place everything */
  double ax = layout->area_x, ay = layout->area_y, aw = layout->area_w, ah = layout->area_h;
  if (title)
    {
      title->x = ax + 0.5 * (aw - title->w);
      title->x = CLAMP (title->x, pad, MAX (pad, width - pad - title->w));
      g_ptr_array_add (layout->labels, title);
    }
  if (subtitle)
    {
      subtitle->x = ax + 0.5 * (aw - subtitle->w);
      subtitle->x = CLAMP (subtitle->x, pad, MAX (pad, width - pad - subtitle->w));
      g_ptr_array_add (layout->labels, subtitle);
    }
  if (x_title && compact_x)
    {
      x_title->x = MAX (ax + aw - x_title->w, pad);
      x_title->y = ay + ah + tick + gap + 0.5 * (x_row_h - x_title->h);
      g_ptr_array_add (layout->labels, x_title);
    }
  else if (x_title)
    {
      x_title->x = ax + 0.5 * (aw - x_title->w);
      x_title->x = CLAMP (x_title->x, pad, MAX (pad, width - pad - x_title->w));
      x_title->y = height - pad - x_title->h;
      g_ptr_array_add (layout->labels, x_title);
    }
  if (y_title)
    {
      y_title->x = pad;
      y_title->y = ay + 0.5 * (ah - y_title->w);
      y_title->y = CLAMP (y_title->y, pad, MAX (pad, height - pad - y_title->w));
      g_ptr_array_add (layout->labels, y_title);
    }

  cml_plot_ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
  g_ptr_array_set_free_func (y_labels, NULL);
  for (guint i = 0; i < n_y; i++)
    {
      CmlPlotTickMark m = { cml_plot_layout_map_y (layout, ticks[i].value), ticks[i].value };
      CmlPlotLabel *l = g_ptr_array_index (y_labels, i);
      g_array_append_val (layout->y_ticks, m);
      l->x = ax - tick - gap - l->w;
      l->y = m.pos - 0.5 * l->h;
      g_ptr_array_add (layout->labels, l);
    }
  g_ptr_array_unref (y_labels);

  n_x = cml_plot_ticks_for_range (layout->x0, layout->x1, x_intervals, ticks, MAX_TICKS, NULL);
  g_ptr_array_set_free_func (x_labels, NULL);
  for (guint i = 0; i < n_x; i++)
    {
      CmlPlotTickMark m = { cml_plot_layout_map_x (layout, ticks[i].value), ticks[i].value };
      CmlPlotLabel *l = g_ptr_array_index (x_labels, i);
      g_array_append_val (layout->x_ticks, m);
      l->x = CLAMP (m.pos - 0.5 * l->w, 0, MAX (0, width - l->w));
      l->y = ay + ah + tick + gap + 0.5 * (x_row_h - l->h);
      if (compact_x && l->x + l->w > x_title->x - 1.5 * gap)
        label_free (l); /* under the axis title */
      else
        g_ptr_array_add (layout->labels, l);
    }
  g_ptr_array_unref (x_labels);

  if (legend_right)
    {
      /* beside the plot area, from its top, kept inside the frame */
      layout->legend_x = width - pad - layout->legend_w;
      layout->legend_y = MAX (pad, MIN (layout->area_y, height - pad - layout->legend_h));
      for (guint i = 0; i < n_legend; i++)
        {
          CmlPlotLabel *l = g_ptr_array_index (layout->legend_labels, i);
          l->x = layout->legend_x + layout->legend_swatch + layout->legend_swatch_gap;
          l->y = layout->legend_y + i * legend_row_h + 0.5 * (legend_row_h - l->h);
        }
    }

  double a, b;
  if (plot->empty_hint && (plot->series->len == 0 || !cml_plot_get_time_extent (plot, &a, &b)))
    layout->empty_message = plot->empty_hint;
  else if (plot->series->len == 0)
    layout->empty_message = _("No series selected");
  else if (!cml_plot_get_time_extent (plot, &a, &b))
    layout->empty_message = _("No data yet — press Play");
  if (layout->empty_message)
    layout->empty_label = empty_label_new (layout->empty_message, title_font, layout->area_w, measure, user_data);
  if (layout->empty_label)
    {
      CmlPlotLabel *l = layout->empty_label;
      l->x = layout->area_x + 0.5 * (layout->area_w - l->w);
      l->y = layout->area_y + 0.5 * (layout->area_h - l->h);
    }
}

void
cml_plot_layout_clear (CmlPlotLayout *layout)
{
  g_return_if_fail (layout != NULL);
  g_clear_pointer (&layout->x_ticks, g_array_unref);
  g_clear_pointer (&layout->y_ticks, g_array_unref);
  g_clear_pointer (&layout->labels, g_ptr_array_unref);
  g_clear_pointer (&layout->legend_labels, g_ptr_array_unref);
  g_clear_pointer (&layout->empty_label, label_free);
}

guint
cml_plot_layout_series_markers (const CmlPlotLayout *layout, CmlPlot *plot, guint i, GArray *points_f)
{
  g_return_val_if_fail (layout != NULL && plot != NULL && points_f != NULL, 0);
  g_return_val_if_fail (i < plot->series->len, 0);
  g_return_val_if_fail (g_array_get_element_size (points_f) == sizeof (float), 0);

  CmlPlotSeries *s = g_ptr_array_index (plot->series, i);
  guint n = cml_plot_series_get_n (s);
  const double *xs = cml_plot_column_get_data (s->x), *ys = cml_plot_column_get_data (s->y);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint len0 = points_f->len;
  for (guint k = 0; k < n; k++)
    {
      double px = cml_plot_layout_map_x (layout, xs[k]), py = cml_plot_layout_map_y (layout, ys[k]);
      if (!(px >= layout->area_x && px <= layout->area_x + layout->area_w && py >= layout->area_y
            && py <= layout->area_y + layout->area_h))
        continue;
      /* one dot per pixel: a section of 10⁶ crossings costs what its picture needs */
      guint key = ((guint) px << 16) ^ (guint) py;
      if (!g_hash_table_add (seen, GUINT_TO_POINTER (key + 1)))
        continue;
      float xy[2] = { (float) px, (float) py };
      g_array_append_vals (points_f, xy, 2);
    }
  return (points_f->len - len0) / 2;
}

guint
cml_plot_layout_series_points (const CmlPlotLayout *layout, CmlPlot *plot, guint i,
                               double oversample, double line_width, GArray *points_f)
{
  g_return_val_if_fail (layout != NULL && plot != NULL && points_f != NULL, 0);
  g_return_val_if_fail (i < plot->series->len, 0);
  g_return_val_if_fail (g_array_get_element_size (points_f) == sizeof (float), 0);

  CmlPlotSeries *s = g_ptr_array_index (plot->series, i);
  if (s->x_marker)
    {
      /* from the bottom of the plot area to its top, at its x if that is in view */
      guint n = cml_plot_column_get_n (s->x);
      double x = n > 0 ? cml_plot_column_get_data (s->x)[n - 1] : NAN;
      if (!(isfinite (x) && x >= MIN (layout->x0, layout->x1) && x <= MAX (layout->x0, layout->x1)))
        return 0;
      float px = (float) cml_plot_layout_map_x (layout, x);
      float line[4] = { px, (float) (layout->area_y + layout->area_h), px, (float) layout->area_y };
      g_array_append_vals (points_f, line, 4);
      return 2;
    }
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (double));
  double t0, t1;
  cml_plot_get_visible_time (plot, &t0, &t1);
  oversample = MAX (oversample, 0.25);

  guint n = cml_plot_series_polyline (s, plot->against_time, layout->x0, layout->x1, layout->y0,
                                      layout->y1, t0, t1, layout->area_w * oversample,
                                      layout->area_h * oversample, line_width * oversample, pts);
  guint len0 = points_f->len;
  g_array_set_size (points_f, len0 + 2 * n);
  float *out = &g_array_index (points_f, float, len0);
  const double *in = (const double *) (gpointer) pts->data;
  /* far-away points are clamped so that single floats keep the direction right */
  const double lim = 1e6;
  /* Straight stretches become one segment: a chord from the last point kept (the
   * anchor) is extended over the following points as long as it passes within TOL of
   * every point it replaces.  Each replaced point P at distance d from the anchor
   * allows the chord's direction to deviate by asin (tol / d) from that of P; the
   * allowed directions are intersected (an interval of angles relative to the first
   * such point), and the chord must reach as far as the farthest point it replaces,
   * so back-and-forth strokes (the bars of dense columns) are kept.  O(n). */
  const double tol = 0.1 / MAX (oversample, 1.0);
  guint m = 0;                 /* points written to OUT */
  gboolean anchored = FALSE;   /* out[m-1] is the anchor, or the tentative end */
  gboolean tentative = FALSE;  /* out[m-1] is a tentative end (may be replaced) */
  double ax = 0, ay = 0;       /* the anchor */
  double rx = 0, ry = 0;       /* reference direction (unit), once set */
  gboolean have_ref = FALSE;
  double lo = -G_PI, hi = G_PI, maxd = 0;
  for (guint k = 0; k < n; k++)
    {
      double x = in[2 * k], y = in[2 * k + 1];
      if (isnan (x) || isnan (y))
        {
          out[2 * m] = out[2 * m + 1] = NAN;
          m++;
          anchored = tentative = FALSE;
          continue;
        }
      x = CLAMP (cml_plot_layout_map_x (layout, x), -lim, lim);
      y = CLAMP (cml_plot_layout_map_y (layout, y), -lim, lim);

      if (anchored)
        {
          double dx = x - ax, dy = y - ay, d = sqrt (dx * dx + dy * dy);
          double rel = have_ref ? atan2 (rx * dy - ry * dx, rx * dx + ry * dy) : 0;
          gboolean fits = d >= maxd - tol && rel >= lo && rel <= hi;
          if (fits && tentative)
            m--; /* the chord to (x, y) covers the tentative end: replace it */
          else if (!fits)
            {
              /* the tentative end (out[m-1]) becomes the new anchor */
              ax = out[2 * (m - 1)];
              ay = out[2 * (m - 1) + 1];
              have_ref = FALSE;
              lo = -G_PI, hi = G_PI, maxd = 0;
              dx = x - ax, dy = y - ay, d = sqrt (dx * dx + dy * dy);
              rel = 0;
            }
          /* (x, y) constrains the chords that would replace it */
          if (d > tol)
            {
              if (!have_ref)
                {
                  rx = dx / d, ry = dy / d;
                  have_ref = TRUE;
                  rel = 0;
                }
              double half = asin (tol / d);
              lo = MAX (lo, rel - half);
              hi = MIN (hi, rel + half);
            }
          maxd = MAX (maxd, d);
          tentative = TRUE;
        }
      else
        {
          ax = x, ay = y;
          have_ref = FALSE;
          lo = -G_PI, hi = G_PI, maxd = 0;
          anchored = TRUE;
          tentative = FALSE;
        }
      out[2 * m] = (float) x;
      out[2 * m + 1] = (float) y;
      m++;
    }
  g_array_set_size (points_f, len0 + 2 * m);
  return m;
}

/* ==== dashes =========================================================================== */

guint
cml_plot_dash_polyline (const GArray *points_f, double on, double off, GArray *out_f)
{
  const float *p = (const float *) (gpointer) points_f->data;
  guint n = points_f->len / 2, n_dashes = 0;
  const float nan2[2] = { NAN, NAN };
  double period = on + off;
  double phase = 0;        /* where along the pattern the pen is: [0, on) draws */

  g_return_val_if_fail (on > 0 && off >= 0, 0);

  for (guint k = 0; k + 1 < n; k++)
    {
      float x0 = p[2 * k], y0 = p[2 * k + 1], x1 = p[2 * k + 2], y1 = p[2 * k + 3];
      if (isnan (x0) || isnan (x1))
        {
          phase = 0; /* a break: the next piece starts with a dash */
          continue;
        }
      double len = hypot (x1 - x0, y1 - y0), s = 0;
      /* walk the segment in pieces that stay within one dash or one gap */
      while (s < len)
        {
          double left = phase < on ? on - phase : period - phase;
          double step = MIN (left, len - s);
          if (phase < on && step > 0)
            {
              float a[4] = { (float) (x0 + (x1 - x0) * s / len), (float) (y0 + (y1 - y0) * s / len),
                             (float) (x0 + (x1 - x0) * (s + step) / len),
                             (float) (y0 + (y1 - y0) * (s + step) / len) };
              /* a dash that goes on from the previous segment continues its piece */
              gboolean joins = phase > 0 && out_f->len >= 2
                               && !isnan (g_array_index (out_f, float, out_f->len - 2))
                               && g_array_index (out_f, float, out_f->len - 2) == a[0]
                               && g_array_index (out_f, float, out_f->len - 1) == a[1];
              if (joins)
                g_array_append_vals (out_f, a + 2, 2);
              else
                {
                  if (out_f->len > 0)
                    g_array_append_vals (out_f, nan2, 2);
                  g_array_append_vals (out_f, a, 4);
                  n_dashes++;
                }
            }
          s += step;
          phase += step;
          if (phase >= period - 1e-9)
            phase = 0;
        }
    }
  return n_dashes;
}
