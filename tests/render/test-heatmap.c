/* test-heatmap.c — the heat map series: viridis at its ends, the colour of known cells in
 * a drawn image, the colour bar's range and ticks, cells without a value drawn hatched
 * grey and named beside the bar.  Needs no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cairo.h>
#include <math.h>
#include <string.h>

#include "cml-plot-cairo.h"
#include "cml-plot.h"

/* 3 × 2 cells at x = 0, 1, 2 and y = 10, 20: the values 0 … 4 and one without a value */
static const double cells[] = { 0, 1, 2, 3, 4, NAN };

static void
assert_rgba_hex (const CmlPlotRgba *c, guint32 hex)
{
  g_assert_cmpfloat_with_epsilon (c->r, ((hex >> 16) & 0xff) / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (c->g, ((hex >> 8) & 0xff) / 255.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (c->b, (hex & 0xff) / 255.0, 1e-6);
}

static void
test_colormap (void)
{
  CmlPlotRgba c;
  cml_plot_colormap_viridis (0, &c);
  assert_rgba_hex (&c, 0x440154);
  cml_plot_colormap_viridis (1, &c);
  assert_rgba_hex (&c, 0xfde725);
  cml_plot_colormap_viridis (-3, &c);
  assert_rgba_hex (&c, 0x440154);
  /* lightness grows along the map (perceptually ordered) */
  double last = -1;
  for (int k = 0; k <= 20; k++)
    {
      cml_plot_colormap_viridis (k / 20.0, &c);
      double luma = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
      g_assert_cmpfloat (luma, >, last);
      last = luma;
    }
}

static CmlPlot *
heatmap_plot (CmlPlotSeries **out)
{
  CmlPlot *plot = cml_plot_new ();
  CmlPlotSeries *s = cml_plot_series_new_heatmap ("v", "m", 3, 2, 0, 2, 10, 20, cells);
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_set_legend_visible (plot, FALSE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "a", "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "b", "");
  cml_plot_axis_set_range (cml_plot_get_x_axis (plot), -0.5, 2.5);
  cml_plot_axis_set_range (cml_plot_get_y_axis (plot), 5, 25);
  cml_plot_add_series (plot, s);
  *out = s;
  return plot;
}

static void
test_range (void)
{
  CmlPlotSeries *s;
  g_autoptr (CmlPlot) plot = heatmap_plot (&s);
  double min, max;
  CmlPlotRgba c;

  g_assert_true (cml_plot_series_is_heatmap (s));
  g_assert_true (cml_plot_heatmap_get_range (s, &min, &max));
  g_assert_cmpfloat (min, ==, 0);
  g_assert_cmpfloat (max, ==, 4);
  g_assert_true (cml_plot_heatmap_has_nan (s));
  g_assert_true (cml_plot_heatmap_color (s, 0, &c));
  assert_rgba_hex (&c, 0x440154);
  g_assert_true (cml_plot_heatmap_color (s, 4, &c));
  assert_rgba_hex (&c, 0xfde725);
  g_assert_false (cml_plot_heatmap_color (s, NAN, &c));
  cml_plot_series_unref (s);
}

static void
fake_measure (const char *text, double size, gboolean bold, double *w, double *h, gpointer data)
{
  if (w)
    *w = 0.6 * size * g_utf8_strlen (text, -1);
  if (h)
    *h = 1.2 * size;
}

/* The colour bar spans the data's range, 0 at its bottom and 4 at its top, is titled with
 * the name and unit, and says what the grey cells are. */
static void
test_color_bar (void)
{
  CmlPlotSeries *s;
  g_autoptr (CmlPlot) plot = heatmap_plot (&s);
  CmlPlotStyle style;
  CmlPlotLayout L;
  CmlPlotColorBar bar;

  cml_plot_series_unref (s);
  cml_plot_style_init (&style, FALSE, FALSE);
  double bw = cml_plot_color_bar_width (plot, &style, fake_measure, NULL);
  g_assert_cmpfloat (bw, >, 0);
  cml_plot_layout (plot, &style, 600 - bw, 400, fake_measure, NULL, &L);
  cml_plot_color_bar_layout (plot, &style, &L, 600 - bw, fake_measure, NULL, &bar);
  g_assert_cmpfloat (bar.min, ==, 0);
  g_assert_cmpfloat (bar.max, ==, 4);
  g_assert_cmpfloat (bar.x, >=, 600 - bw);
  g_assert_cmpuint (bar.ticks->len, >=, 2);
  CmlPlotTickMark first = g_array_index (bar.ticks, CmlPlotTickMark, 0);
  CmlPlotTickMark last = g_array_index (bar.ticks, CmlPlotTickMark, bar.ticks->len - 1);
  g_assert_cmpfloat (first.value, ==, 0);
  g_assert_cmpfloat (last.value, ==, 4);
  g_assert_cmpfloat_with_epsilon (first.pos, bar.y + bar.h, 1e-9);
  g_assert_cmpfloat_with_epsilon (last.pos, bar.y, 1e-9);
  gboolean titled = FALSE, nan_named = FALSE;
  for (guint i = 0; i < bar.labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (bar.labels, i);
      titled |= l->rotated && g_str_equal (l->text, "v [m]");
      nan_named |= strstr (l->text, "no value") != NULL;
      /* everything inside the frame */
      g_assert_cmpfloat (l->x + (l->rotated ? l->h : l->w), <=, 600 + 1e-9);
    }
  g_assert_true (titled);
  g_assert_true (nan_named);
  g_assert_cmpfloat (bar.nan_size, >, 0);
  cml_plot_color_bar_clear (&bar);
  cml_plot_layout_clear (&L);
}

static gboolean
pixel_near (const unsigned char *p, const CmlPlotRgba *c, int tol)
{
  /* ARGB32, little-endian: B G R A */
  return abs (p[2] - (int) lround (c->r * 255)) <= tol && abs (p[1] - (int) lround (c->g * 255)) <= tol
         && abs (p[0] - (int) lround (c->b * 255)) <= tol;
}

/* Drawn: the middle of each cell has its value's colour; the cell without a value is
 * grey (its fill or its hatching); the colour bar shows the top colour above the bottom
 * one. */
static void
test_drawn (void)
{
  CmlPlotSeries *s;
  g_autoptr (CmlPlot) plot = heatmap_plot (&s);
  CmlPlotStyle style;
  const int W = 600, H = 400;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, W, H);
  cairo_t *cr = cairo_create (surface);
  guint checked[6] = { 0 };

  cml_plot_style_init (&style, FALSE, FALSE);
  cml_plot_cairo_draw (plot, cr, W, H, &style);
  cairo_surface_flush (surface);
  const unsigned char *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  CmlPlotRgba fill, hatch;
  cml_plot_heatmap_nan_colors (&style, &fill, &hatch);

  for (int py = 0; py < H; py += 3)
    for (int px = 0; px < W; px += 3)
      {
        double x, y;
        if (!cml_plot_cairo_pick (plot, W, H, &style, px + 0.5, py + 0.5, &x, &y))
          continue;
        double fi = x, fj = (y - 10) / 10;
        int i = (int) lround (fi), j = (int) lround (fj);
        if (i < 0 || i > 2 || j < 0 || j > 1 || fabs (fi - i) > 0.3 || fabs (fj - j) > 0.3)
          continue;
        const unsigned char *p = data + py * stride + 4 * px;
        double v = cells[j * 3 + i];
        if (isnan (v))
          {
            g_assert_true (p[0] == p[1] && p[1] == p[2]);
            g_assert_cmpint (p[0], >=, (int) lround (hatch.r * 255) - 1);
            g_assert_cmpint (p[0], <=, (int) lround (fill.r * 255) + 1);
          }
        else
          {
            CmlPlotRgba c;
            g_assert_true (cml_plot_heatmap_color (s, v, &c));
            if (!pixel_near (p, &c, 1))
              g_error ("cell (%d, %d) at (%d, %d): %02x%02x%02x", i, j, px, py, p[2], p[1], p[0]);
          }
        checked[j * 3 + i]++;
      }
  for (guint k = 0; k < 6; k++)
    g_assert_cmpuint (checked[k], >, 0);

  /* the colour bar: a column right of the cells with the top colour above the bottom one */
  CmlPlotRgba top, bottom;
  cml_plot_colormap_viridis (1, &top);
  cml_plot_colormap_viridis (0, &bottom);
  gboolean found = FALSE;
  for (int px = W / 2; px < W && !found; px++)
    {
      int y_top = -1, y_bottom = -1;
      for (int py = 0; py < H; py++)
        {
          const unsigned char *p = data + py * stride + 4 * px;
          if (y_top < 0 && pixel_near (p, &top, 6))
            y_top = py;
          if (pixel_near (p, &bottom, 6))
            y_bottom = py;
        }
      double x, y;
      found = y_top >= 0 && y_bottom > y_top + H / 3 && !cml_plot_cairo_pick (plot, W, H, &style, px, y_top, &x, &y);
    }
  g_assert_true (found);

  cml_plot_series_unref (s);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/heatmap/colormap", test_colormap);
  g_test_add_func ("/render/heatmap/range", test_range);
  g_test_add_func ("/render/heatmap/color-bar", test_color_bar);
  g_test_add_func ("/render/heatmap/drawn", test_drawn);
  return g_test_run ();
}
