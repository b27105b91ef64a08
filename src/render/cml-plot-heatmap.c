/* cml-plot-heatmap.c — a heat map: a series of values on a regular grid of (x, y), each
 * drawn as a cell in the colour of its value, with a colour bar that says what the
 * colours mean.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The colours are viridis (S. van der Walt and N. Smith, matplotlib, 2015: perceptually
 * uniform, readable in grey and by most colour-blind readers), from the smallest finite
 * value to the largest, linearly between ten stops of the map.  A cell without a value
 * (NaN: a run that failed) is a neutral grey crossed by hatching, and the colour bar
 * gets an entry saying so.  Cell i spans x_i ± Δx/2 (Δx the grid's step; 1 for a single
 * column), so the cells tile the rectangle of the grid's points.  The colour bar stands
 * right of the plot's frame: a gradient from the range's bottom to its top, "nice" tick
 * values, the series' name and unit as its title.
 */
#define G_LOG_DOMAIN "cml-plot"

#include <math.h>
#include <string.h>

#include "cml-plot-private.h"

/* viridis at 0, 1/9, …, 1 (sRGB, 8 bits) */
static const guint32 viridis_stops[] = {
  0x440154, 0x482878, 0x3e4a89, 0x31688e, 0x26828e, 0x1f9e89, 0x35b779, 0x6dcd59, 0xb4de2c, 0xfde725,
};
#define N_STOPS G_N_ELEMENTS (viridis_stops)

static CmlPlotRgba
stop_rgba (guint k)
{
  guint32 c = viridis_stops[k];
  return (CmlPlotRgba) { ((c >> 16) & 0xff) / 255.f, ((c >> 8) & 0xff) / 255.f, (c & 0xff) / 255.f, 1.f };
}

void
cml_plot_colormap_viridis (double f, CmlPlotRgba *rgba)
{
  if (!(f > 0))
    f = 0;
  if (f > 1)
    f = 1;
  double s = f * (N_STOPS - 1);
  guint k = MIN ((guint) s, N_STOPS - 2);
  float u = (float) (s - k);
  CmlPlotRgba a = stop_rgba (k), b = stop_rgba (k + 1);
  rgba->r = a.r + u * (b.r - a.r);
  rgba->g = a.g + u * (b.g - a.g);
  rgba->b = a.b + u * (b.b - a.b);
  rgba->a = 1.f;
}

void
cml_plot_heatmap_nan_colors (const CmlPlotStyle *style, CmlPlotRgba *fill, CmlPlotRgba *hatch)
{
  gboolean dark = style && style->background.r + style->background.g + style->background.b < 1.5f;
  *fill = dark ? (CmlPlotRgba) { 0.42f, 0.42f, 0.44f, 1.f } : (CmlPlotRgba) { 0.80f, 0.80f, 0.80f, 1.f };
  *hatch = dark ? (CmlPlotRgba) { 0.62f, 0.62f, 0.64f, 1.f } : (CmlPlotRgba) { 0.55f, 0.55f, 0.55f, 1.f };
}

void
cml_plot_heatmap_free (CmlPlotHeatmap *map)
{
  if (map == NULL)
    return;
  g_free (map->values);
  g_free (map);
}

/* The step between cell centres along one axis (1 for a single row or column). */
static double
cell_step (double a, double b, guint n)
{
  return n > 1 && b != a ? (b - a) / (n - 1) : 1.0;
}

CmlPlotSeries *
cml_plot_series_new_heatmap (const char *name, const char *unit, guint nx, guint ny, double x0, double x1,
                             double y0, double y1, const double *values)
{
  g_return_val_if_fail (nx > 0 && ny > 0 && values != NULL, NULL);

  CmlPlotSeries *series = cml_plot_series_new (name, unit);
  CmlPlotHeatmap *map = g_new0 (CmlPlotHeatmap, 1);
  map->nx = nx;
  map->ny = ny;
  map->x0 = x0, map->x1 = x1, map->y0 = y0, map->y1 = y1;
  map->values = g_memdup2 (values, (gsize) nx * ny * sizeof (double));
  map->vmin = INFINITY;
  map->vmax = -INFINITY;
  for (gsize k = 0; k < (gsize) nx * ny; k++)
    if (isfinite (values[k]))
      map->vmin = MIN (map->vmin, values[k]), map->vmax = MAX (map->vmax, values[k]);
    else
      map->has_nan = TRUE;
  series->heatmap = map;

  /* the corners of the cells' rectangle, so that auto-scaled axes show every cell */
  double dx = cell_step (x0, x1, nx), dy = cell_step (y0, y1, ny);
  double xs[2] = { MIN (x0, x1) - 0.5 * fabs (dx), MAX (x0, x1) + 0.5 * fabs (dx) };
  double ys[2] = { MIN (y0, y1) - 0.5 * fabs (dy), MAX (y0, y1) + 0.5 * fabs (dy) };
  cml_plot_series_append (series, xs, ys, 2);
  return series;
}

gboolean
cml_plot_series_is_heatmap (const CmlPlotSeries *series)
{
  return series != NULL && series->heatmap != NULL;
}

gboolean
cml_plot_heatmap_get_range (const CmlPlotSeries *series, double *min, double *max)
{
  g_return_val_if_fail (cml_plot_series_is_heatmap (series), FALSE);
  const CmlPlotHeatmap *map = series->heatmap;
  if (!(map->vmin <= map->vmax))
    return FALSE;
  *min = map->vmin;
  *max = map->vmax;
  return TRUE;
}

gboolean
cml_plot_heatmap_has_nan (const CmlPlotSeries *series)
{
  return cml_plot_series_is_heatmap (series) && series->heatmap->has_nan;
}

/* Where VALUE falls in the colour range: 0 at the smallest value, 1 at the largest (½ for
 * a constant map). */
static double
value_fraction (const CmlPlotHeatmap *map, double value)
{
  if (!(map->vmax > map->vmin))
    return 0.5;
  return (value - map->vmin) / (map->vmax - map->vmin);
}

gboolean
cml_plot_heatmap_color (const CmlPlotSeries *series, double value, CmlPlotRgba *rgba)
{
  g_return_val_if_fail (cml_plot_series_is_heatmap (series), FALSE);
  if (!isfinite (value))
    return FALSE;
  cml_plot_colormap_viridis (value_fraction (series->heatmap, value), rgba);
  return TRUE;
}

/* The first heat map of PLOT, or NULL. */
static const CmlPlotSeries *
first_heatmap (const CmlPlot *plot)
{
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    if (cml_plot_series_is_heatmap (cml_plot_get_series (plot, i)))
      return cml_plot_get_series (plot, i);
  return NULL;
}

/* ---- the colour bar: layout ----------------------------------------------------------- */

#define BAR_TICKS 24

static CmlPlotLabel *
bar_label (const char *text, double size, gboolean bold, CmlPlotMeasureFunc measure, gpointer user_data)
{
  CmlPlotLabel *l = g_new0 (CmlPlotLabel, 1);
  l->text = g_strdup (text);
  l->size = size;
  l->bold = bold;
  measure (text, size, bold, &l->w, &l->h, user_data);
  return l;
}

static void
bar_label_free (gpointer data)
{
  CmlPlotLabel *l = data;
  g_free (l->text);
  g_free (l);
}

static const char nan_text[] = "no value (run failed)";

/* The bar's title: "name [unit]". */
static char *
bar_title (const CmlPlotSeries *series)
{
  return cml_plot_label_with_unit (cml_plot_series_get_name (series), cml_plot_series_get_unit (series));
}

/* The widest tick label of the range [MIN, MAX] split into at most MAX_INTERVALS steps. */
static double
widest_tick_label (double min, double max, guint max_intervals, double font, CmlPlotMeasureFunc measure,
                   gpointer user_data)
{
  CmlPlotTick ticks[BAR_TICKS];
  guint n = cml_plot_ticks_for_range (min, max, max_intervals, ticks, BAR_TICKS, NULL);
  double widest = 0;
  for (guint i = 0; i < n; i++)
    {
      double w, h;
      measure (ticks[i].label, font, FALSE, &w, &h, user_data);
      widest = MAX (widest, w);
    }
  return widest;
}

/* The colour range as the bar shows it: the data's, widened when it is a single value. */
static void
bar_range (const CmlPlotHeatmap *map, double *min, double *max)
{
  *min = map->vmin;
  *max = map->vmax;
  if (!(*min <= *max))
    *min = 0, *max = 1;
  else if (*min == *max)
    {
      double d = *min != 0 ? 0.1 * fabs (*min) : 1.0;
      *min -= d, *max += d;
    }
}

double
cml_plot_color_bar_width (CmlPlot *plot, const CmlPlotStyle *style, CmlPlotMeasureFunc measure,
                          gpointer user_data)
{
  const CmlPlotSeries *series = first_heatmap (plot);
  if (series == NULL)
    return 0;
  const double sc = style->scale > 0 ? style->scale : 1.0;
  const double font = style->font_size * sc, tfont = style->title_size * sc;
  double min, max, w, h, tw, th;
  bar_range (series->heatmap, &min, &max);
  g_autofree char *title = bar_title (series);
  measure (title, tfont, FALSE, &tw, &th, user_data);
  double thick = 1.2 * font, gap = font, tick = style->tick_length * sc;
  double body = thick + tick + 0.4 * gap + widest_tick_label (min, max, 8, font, measure, user_data) + 0.6 * gap + th;
  if (series->heatmap->has_nan)
    {
      measure (nan_text, font, FALSE, &w, &h, user_data);
      body = MAX (body, thick + 0.4 * gap + w);
    }
  return 1.5 * gap + body + style->padding * sc;
}

void
cml_plot_color_bar_layout (CmlPlot *plot, const CmlPlotStyle *style, const CmlPlotLayout *layout, double x,
                           CmlPlotMeasureFunc measure, gpointer user_data, CmlPlotColorBar *bar)
{
  memset (bar, 0, sizeof *bar);
  bar->ticks = g_array_new (FALSE, FALSE, sizeof (CmlPlotTickMark));
  bar->labels = g_ptr_array_new_with_free_func (bar_label_free);
  const CmlPlotSeries *series = first_heatmap (plot);
  if (series == NULL)
    return;
  const double sc = style->scale > 0 ? style->scale : 1.0;
  const double font = style->font_size * sc, tfont = style->title_size * sc;
  const double gap = font, tick = style->tick_length * sc;
  CmlPlotLabel *l;

  bar->series = series;
  bar_range (series->heatmap, &bar->min, &bar->max);
  bar->x = x + 1.5 * gap;
  bar->w = 1.2 * font;
  bar->y = layout->area_y;
  bar->h = layout->area_h;
  if (series->heatmap->has_nan)
    {
      /* the entry for cells without a value, under the bar */
      l = bar_label (nan_text, font, FALSE, measure, user_data);
      bar->nan_size = MAX (bar->w, l->h);
      bar->h = MAX (bar->h - bar->nan_size - gap, font);
      bar->nan_x = bar->x;
      bar->nan_y = bar->y + bar->h + gap;
      l->x = bar->x + bar->w + 0.4 * gap;
      l->y = bar->nan_y + 0.5 * (bar->nan_size - l->h);
      g_ptr_array_add (bar->labels, l);
    }

  /* ticks: as many as fit with a line of text between their labels */
  CmlPlotTick ticks[BAR_TICKS];
  guint max_intervals = (guint) CLAMP (bar->h / (2.5 * font), 1, 8);
  guint n = cml_plot_ticks_for_range (bar->min, bar->max, max_intervals, ticks, BAR_TICKS, NULL);
  double widest = 0;
  for (guint i = 0; i < n; i++)
    {
      CmlPlotTickMark m = { bar->y + bar->h * (1 - (ticks[i].value - bar->min) / (bar->max - bar->min)),
                            ticks[i].value };
      g_array_append_val (bar->ticks, m);
      l = bar_label (ticks[i].label, font, FALSE, measure, user_data);
      l->x = bar->x + bar->w + tick + 0.4 * gap;
      l->y = m.pos - 0.5 * l->h;
      widest = MAX (widest, l->w);
      g_ptr_array_add (bar->labels, l);
    }

  /* the title, reading upwards beside the tick labels, centred on the bar */
  g_autofree char *title = bar_title (series);
  l = bar_label (title, tfont, FALSE, measure, user_data);
  l->rotated = TRUE;
  l->x = bar->x + bar->w + tick + 0.4 * gap + widest + 0.6 * gap;
  l->y = bar->y + 0.5 * (bar->h - l->w);
  g_ptr_array_add (bar->labels, l);
}

void
cml_plot_color_bar_clear (CmlPlotColorBar *bar)
{
  g_clear_pointer (&bar->ticks, g_array_unref);
  g_clear_pointer (&bar->labels, g_ptr_array_unref);
}

/* ---- drawing with Cairo ----------------------------------------------------------------- */

static void
set_rgba (cairo_t *cr, const CmlPlotRgba *c)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a);
}

/* The rectangle (X, Y, W, H) in the neutral grey, hatched with lines SPACING apart. */
static void
fill_hatched (cairo_t *cr, double x, double y, double w, double h, double spacing, const CmlPlotStyle *style)
{
  CmlPlotRgba fill, hatch;
  cml_plot_heatmap_nan_colors (style, &fill, &hatch);
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  set_rgba (cr, &fill);
  cairo_paint (cr);
  set_rgba (cr, &hatch);
  cairo_set_line_width (cr, MAX (1.0, 0.18 * spacing));
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_DEFAULT);
  /* lines rising at 45°, on a lattice fixed in the frame so neighbouring cells join */
  double k0 = floor ((x + y) / spacing), k1 = ceil ((x + w + y + h) / spacing);
  for (double k = k0; k <= k1; k++)
    {
      double c = k * spacing; /* the line x + y = c */
      cairo_move_to (cr, c - y, y);
      cairo_line_to (cr, c - (y + h), y + h);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
cml_plot_heatmap_cairo_cells (cairo_t *cr, const CmlPlotLayout *layout, const CmlPlotSeries *series,
                              const CmlPlotStyle *style)
{
  const CmlPlotHeatmap *map = series->heatmap;
  const double sc = style->scale > 0 ? style->scale : 1.0;
  double dx = cell_step (map->x0, map->x1, map->nx), dy = cell_step (map->y0, map->y1, map->ny);

  cairo_save (cr);
  /* cells edge to edge, without antialiased seams between them */
  cairo_set_antialias (cr, CAIRO_ANTIALIAS_NONE);
  for (guint j = 0; j < map->ny; j++)
    for (guint i = 0; i < map->nx; i++)
      {
        double xc = map->x0 + i * dx, yc = map->y0 + j * dy;
        double px0 = cml_plot_layout_map_x (layout, xc - 0.5 * dx), px1 = cml_plot_layout_map_x (layout, xc + 0.5 * dx);
        double py0 = cml_plot_layout_map_y (layout, yc - 0.5 * dy), py1 = cml_plot_layout_map_y (layout, yc + 0.5 * dy);
        double x = round (MIN (px0, px1)), y = round (MIN (py0, py1));
        double w = round (MAX (px0, px1)) - x, h = round (MAX (py0, py1)) - y;
        double v = map->values[(gsize) j * map->nx + i];
        CmlPlotRgba c;
        if (w <= 0 || h <= 0)
          continue;
        if (!isfinite (v))
          {
            fill_hatched (cr, x, y, w, h, 6 * sc, style);
            continue;
          }
        cml_plot_colormap_viridis (value_fraction (map, v), &c);
        set_rgba (cr, &c);
        cairo_rectangle (cr, x, y, w, h);
        cairo_fill (cr);
      }
  cairo_restore (cr);
}

void
cml_plot_color_bar_cairo (cairo_t *cr, const CmlPlotColorBar *bar, const CmlPlotStyle *style)
{
  if (bar->series == NULL)
    return;
  const double sc = style->scale > 0 ? style->scale : 1.0;
  const CmlPlotHeatmap *map = bar->series->heatmap;

  /* the gradient, bottom to top (the bar's range is the data's; one colour for a
   * constant map) */
  cairo_pattern_t *p = cairo_pattern_create_linear (0, bar->y + bar->h, 0, bar->y);
  for (guint k = 0; k < N_STOPS; k++)
    {
      CmlPlotRgba c = stop_rgba (k);
      if (!(map->vmax > map->vmin))
        cml_plot_colormap_viridis (0.5, &c);
      cairo_pattern_add_color_stop_rgb (p, k / (N_STOPS - 1.0), c.r, c.g, c.b);
    }
  cairo_set_source (cr, p);
  cairo_rectangle (cr, bar->x, bar->y, bar->w, bar->h);
  cairo_fill (cr);
  cairo_pattern_destroy (p);

  /* its outline and tick marks */
  double aw = style->axis_width * sc, tick = style->tick_length * sc;
  set_rgba (cr, &style->foreground);
  cairo_set_line_width (cr, aw);
  cairo_rectangle (cr, bar->x, bar->y, bar->w, bar->h);
  for (guint i = 0; i < bar->ticks->len; i++)
    {
      double y = g_array_index (bar->ticks, CmlPlotTickMark, i).pos;
      cairo_move_to (cr, bar->x + bar->w, y);
      cairo_rel_line_to (cr, tick, 0);
    }
  cairo_stroke (cr);

  if (bar->nan_size > 0)
    {
      fill_hatched (cr, bar->nan_x, bar->nan_y, bar->w, bar->nan_size, 6 * sc, style);
      set_rgba (cr, &style->foreground);
      cairo_rectangle (cr, bar->nan_x, bar->nan_y, bar->w, bar->nan_size);
      cairo_stroke (cr);
    }
}
