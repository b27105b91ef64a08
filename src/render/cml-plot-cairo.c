/* cml-plot-cairo.c — the Cairo backend of the plots: drawing and file export.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only draws: the layout (margins, ticks, labels, legend) and the decimated polylines
 * come from the plot model (cml-plot-layout.c), so an exported figure matches the live
 * view.
 *
 * SVG text: Cairo's SVG surface writes every glyph as an outline, which no editor can
 * change.  For SVG the labels are therefore not drawn by Cairo: each line is collected as
 * an SVG <text> element (the label's font, size, weight and colour, on the baseline Pango
 * puts it, turned for a rotated label) and the elements are added over Cairo's drawing
 * before the file is written, so Inkscape or Illustrator open a figure whose words can be
 * edited, searched and restyled.
 */
#define G_LOG_DOMAIN "cml-plot-cairo"

#include "cml-plot-cairo.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "cml-plot-private.h"

typedef struct
{
  cairo_t             *cr;
  const CmlPlotStyle  *style;
  PangoLayout         *layout;
  PangoFontDescription *font;
  GString             *svg_text;  /* SVG export: the labels as <text> elements, not drawn */
} TextCtx;

static void
text_set (TextCtx *tc, const char *text, double size, gboolean bold)
{
  pango_font_description_set_absolute_size (tc->font, size * PANGO_SCALE);
  pango_font_description_set_weight (tc->font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (tc->layout, tc->font);
  pango_layout_set_text (tc->layout, text, -1);
}

static void
measure_text (const char *text, double size, gboolean bold, double *width, double *height,
              gpointer user_data)
{
  TextCtx *tc = user_data;
  PangoRectangle logical;

  text_set (tc, text, size, bold);
  pango_layout_get_extents (tc->layout, NULL, &logical);
  if (width)
    *width = (double) logical.width / PANGO_SCALE;
  if (height)
    *height = (double) logical.height / PANGO_SCALE;
}

static void
set_rgba (cairo_t *cr, const CmlPlotRgba *c)
{
  cairo_set_source_rgba (cr, c->r, c->g, c->b, c->a);
}

/* The family fontconfig chose for the layout's font ("DejaVu Sans"): the SVG names it
 * first, so a viewer draws what was measured. */
static char *
resolved_family (TextCtx *tc)
{
  PangoContext *context = pango_layout_get_context (tc->layout);
  PangoFont *font = pango_context_load_font (context, tc->font);
  char *family = NULL;
  if (font)
    {
      PangoFontDescription *d = pango_font_describe (font);
      family = g_strdup (pango_font_description_get_family (d));
      pango_font_description_free (d);
      g_object_unref (font);
    }
  return family;
}

/* Appends LABEL (already set in the layout) to TC->svg_text: one <text> a line, at the
 * point where Cairo would have drawn it (the current point, in CR's current matrix). */
static void
svg_label (TextCtx *tc, const CmlPlotLabel *label, const CmlPlotRgba *color)
{
  cairo_t *cr = tc->cr;
  double ox, oy;
  cairo_get_current_point (cr, &ox, &oy);
  g_autofree char *family = resolved_family (tc);
  g_autofree char *font_attr = g_markup_printf_escaped ("%s, sans-serif", family ? family : "sans-serif");
  char size[G_ASCII_DTOSTR_BUF_SIZE], alpha[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (size, sizeof size, "%.2f", label->size);
  g_ascii_formatd (alpha, sizeof alpha, "%.3f", color->a);

  PangoLayoutIter *iter = pango_layout_get_iter (tc->layout);
  do
    {
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      PangoRectangle logical;
      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      double bx = ox + (double) logical.x / PANGO_SCALE;
      double by = oy + (double) pango_layout_iter_get_baseline (iter) / PANGO_SCALE;
      const char *text = pango_layout_get_text (tc->layout) + line->start_index;
      g_autofree char *escaped = g_markup_escape_text (text, line->length);
      if (line->length == 0)
        continue;
      cairo_user_to_device (cr, &bx, &by);
      char xs[G_ASCII_DTOSTR_BUF_SIZE], ys[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (xs, sizeof xs, "%.2f", bx);
      g_ascii_formatd (ys, sizeof ys, "%.2f", by);
      g_string_append_printf (tc->svg_text, "<text x=\"%s\" y=\"%s\"", xs, ys);
      if (label->rotated)
        g_string_append_printf (tc->svg_text, " transform=\"rotate(-90 %s %s)\"", xs, ys);
      g_string_append_printf (tc->svg_text,
                              " font-family=\"%s\" font-size=\"%s\"%s fill=\"#%02x%02x%02x\"",
                              font_attr, size, label->bold ? " font-weight=\"bold\"" : "",
                              (guint) lround (CLAMP (color->r, 0, 1) * 255), (guint) lround (CLAMP (color->g, 0, 1) * 255),
                              (guint) lround (CLAMP (color->b, 0, 1) * 255));
      if (color->a < 1)
        g_string_append_printf (tc->svg_text, " fill-opacity=\"%s\"", alpha);
      g_string_append_printf (tc->svg_text, " xml:space=\"preserve\">%s</text>\n", escaped);
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
draw_label (TextCtx *tc, const CmlPlotLabel *label, const CmlPlotRgba *color)
{
  cairo_t *cr = tc->cr;

  text_set (tc, label->text, label->size, label->bold);
  cairo_save (cr);
  set_rgba (cr, color);
  if (label->rotated)
    {
      /* reads bottom to top; the box spans [x, x + h] × [y, y + w] */
      cairo_translate (cr, label->x, label->y + label->w);
      cairo_rotate (cr, -G_PI / 2);
      cairo_move_to (cr, 0, 0);
    }
  else
    cairo_move_to (cr, label->x, label->y);
  pango_cairo_update_layout (cr, tc->layout);
  if (tc->svg_text)
    svg_label (tc, label, color);
  else
    pango_cairo_show_layout (cr, tc->layout);
  cairo_restore (cr);
}

/* Strokes the polyline POINTS (px, NAN pairs between pieces). */
static void
stroke_points (cairo_t *cr, GArray *points)
{
  const float *p = (const float *) (gpointer) points->data;
  guint n = points->len / 2;
  gboolean pen_down = FALSE;

  for (guint k = 0; k < n; k++)
    {
      float x = p[2 * k], y = p[2 * k + 1];
      if (isnan (x) || isnan (y))
        {
          pen_down = FALSE;
          continue;
        }
      if (pen_down)
        cairo_line_to (cr, x, y);
      else
        cairo_move_to (cr, x, y);
      pen_down = TRUE;
      /* keep paths short for the rasteriser */
      if ((k & 4095) == 4095)
        {
          cairo_stroke (cr);
          cairo_move_to (cr, x, y);
        }
    }
  cairo_stroke (cr);
}

/* A dashed series (a closed form) with the style's dashes; the others solid. */
static void
set_series_dash (cairo_t *cr, const CmlPlotSeries *series, const CmlPlotStyle *style, double sc)
{
  if (cml_plot_series_get_dashed (series))
    {
      double dashes[2] = { style->dash_on * sc, style->dash_off * sc };
      cairo_set_dash (cr, dashes, 2, 0);
      cairo_set_line_width (cr, style->dash_width * sc);
    }
  else
    {
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_width (cr, style->line_width * sc);
    }
}

/* Half a pixel off when LW is odd, so 1-px lines are crisp on an image. */
static double
crisp (double v, double lw)
{
  return ((long) lrint (lw) % 2 == 1) ? floor (v) + 0.5 : round (v);
}

/* SVG_TEXT: NULL to draw the text, else where the labels go as SVG <text> elements. */
static void
draw_with_style (CmlPlot *plot, cairo_t *cr, double width, double height,
                 const CmlPlotStyle *style, double oversample, GString *svg_text)
{
  const double sc = style->scale > 0 ? style->scale : 1.0;
  TextCtx tc = { cr, style, pango_cairo_create_layout (cr),
                 pango_font_description_from_string (style->font_family), svg_text };
  CmlPlotLayout L;
  /* a heat map's colour bar stands right of the frame */
  double bar_w = cml_plot_color_bar_width (plot, style, measure_text, &tc);

  cml_plot_layout (plot, style, width - bar_w, height, measure_text, &tc, &L);

  cairo_save (cr);

  /* background */
  set_rgba (cr, &style->background);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);

  /* grid */
  double gw = style->grid_width * sc;
  cairo_set_line_width (cr, gw);
  set_rgba (cr, &style->grid);
  for (guint i = 0; i < L.x_ticks->len; i++)
    {
      double x = crisp (g_array_index (L.x_ticks, CmlPlotTickMark, i).pos, gw);
      cairo_move_to (cr, x, L.area_y);
      cairo_line_to (cr, x, L.area_y + L.area_h);
    }
  for (guint i = 0; i < L.y_ticks->len; i++)
    {
      double y = crisp (g_array_index (L.y_ticks, CmlPlotTickMark, i).pos, gw);
      cairo_move_to (cr, L.area_x, y);
      cairo_line_to (cr, L.area_x + L.area_w, y);
    }
  cairo_stroke (cr);

  /* series, clipped to the plot area */
  cairo_save (cr);
  cairo_rectangle (cr, L.area_x, L.area_y, L.area_w, L.area_h);
  cairo_clip (cr);
  cairo_set_line_width (cr, style->line_width * sc);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, sizeof (float));
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    {
      CmlPlotRgba c;
      if (cml_plot_series_is_heatmap (cml_plot_get_series (plot, i)))
        {
          cml_plot_heatmap_cairo_cells (cr, &L, cml_plot_get_series (plot, i), style);
          continue;
        }
      g_array_set_size (points, 0);
      cml_plot_series_get_color (cml_plot_get_series (plot, i), style, &c);
      set_rgba (cr, &c);
      if (cml_plot_series_get_markers (cml_plot_get_series (plot, i)))
        {
          /* a dot per sample, the line's width across and a little more */
          guint m = cml_plot_layout_series_markers (&L, plot, i, points);
          const float *p = (const float *) (gpointer) points->data;
          for (guint k = 0; k < m; k++)
            {
              cairo_new_sub_path (cr);
              cairo_arc (cr, p[2 * k], p[2 * k + 1], 1.4 * style->line_width * sc, 0, 2 * G_PI);
            }
          cairo_fill (cr);
          continue;
        }
      cml_plot_layout_series_points (&L, plot, i, oversample, style->line_width * sc, points);
      set_series_dash (cr, cml_plot_get_series (plot, i), style, sc);
      stroke_points (cr, points);
    }
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_line_width (cr, style->line_width * sc);
  cairo_restore (cr);

  /* axes (left and bottom) and tick marks, outwards */
  double aw = style->axis_width * sc, tick = style->tick_length * sc;
  double left = crisp (L.area_x, aw), bottom = crisp (L.area_y + L.area_h, aw);
  cairo_set_line_width (cr, aw);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_SQUARE);
  set_rgba (cr, &style->foreground);
  cairo_move_to (cr, left, L.area_y);
  cairo_line_to (cr, left, bottom);
  cairo_line_to (cr, L.area_x + L.area_w, bottom);
  for (guint i = 0; i < L.x_ticks->len; i++)
    {
      double x = crisp (g_array_index (L.x_ticks, CmlPlotTickMark, i).pos, aw);
      cairo_move_to (cr, x, bottom);
      cairo_line_to (cr, x, bottom + tick);
    }
  for (guint i = 0; i < L.y_ticks->len; i++)
    {
      double y = crisp (g_array_index (L.y_ticks, CmlPlotTickMark, i).pos, aw);
      cairo_move_to (cr, left, y);
      cairo_line_to (cr, left - tick, y);
    }
  cairo_stroke (cr);

  /* title, axis titles, tick labels */
  for (guint i = 0; i < L.labels->len; i++)
    draw_label (&tc, g_ptr_array_index (L.labels, i), &style->foreground);

  /* legend (outside the plot area): a swatch of each series' line before its name */
  cairo_set_line_width (cr, style->line_width * sc);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  for (guint i = 0; i < L.legend_labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (L.legend_labels, i);
      CmlPlotRgba c;
      double y = l->y + 0.5 * l->h;
      cml_plot_series_get_color (cml_plot_get_series (plot, i), style, &c);
      set_rgba (cr, &c);
      set_series_dash (cr, cml_plot_get_series (plot, i), style, sc);
      cairo_move_to (cr, l->x - L.legend_swatch_gap - L.legend_swatch, y);
      cairo_rel_line_to (cr, L.legend_swatch, 0);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_width (cr, style->line_width * sc);
      draw_label (&tc, l, &style->foreground);
    }

  if (bar_w > 0)
    {
      CmlPlotColorBar bar;
      cml_plot_color_bar_layout (plot, style, &L, width - bar_w, measure_text, &tc, &bar);
      cml_plot_color_bar_cairo (cr, &bar, style);
      for (guint i = 0; i < bar.labels->len; i++)
        draw_label (&tc, g_ptr_array_index (bar.labels, i), &style->foreground);
      cml_plot_color_bar_clear (&bar);
    }

  /* a hint in an empty plot */
  if (L.empty_label)
    {
      CmlPlotRgba c = style->foreground;
      c.a *= 0.6f;
      draw_label (&tc, L.empty_label, &c);
    }

  cairo_restore (cr);
  cml_plot_layout_clear (&L);
  pango_font_description_free (tc.font);
  g_object_unref (tc.layout);
}

void
cml_plot_cairo_draw (CmlPlot *plot, cairo_t *cr, double width, double height,
                     const CmlPlotStyle *style)
{
  CmlPlotStyle light;

  g_return_if_fail (plot != NULL && cr != NULL);

  if (style == NULL)
    {
      cml_plot_style_init (&light, FALSE, FALSE);
      style = &light;
    }
  /* one pixel column per px on an image; finer for vector output, which may be
   * enlarged */
  cairo_surface_type_t type = cairo_surface_get_type (cairo_get_target (cr));
  double oversample = type == CAIRO_SURFACE_TYPE_IMAGE ? 1.0 : 3.0;
  draw_with_style (plot, cr, width, height, style, oversample, NULL);
}

gboolean
cml_plot_cairo_pick (CmlPlot *plot, double width, double height, const CmlPlotStyle *style, double px, double py,
                     double *x, double *y)
{
  g_return_val_if_fail (plot != NULL && style != NULL, FALSE);

  /* laid out as cml_plot_cairo_draw lays it out: text measured on an image surface */
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  TextCtx tc = { cr, style, pango_cairo_create_layout (cr), pango_font_description_from_string (style->font_family),
                 NULL };
  CmlPlotLayout L;
  cml_plot_layout (plot, style, width - cml_plot_color_bar_width (plot, style, measure_text, &tc), height,
                   measure_text, &tc, &L);
  gboolean inside = L.area_w > 0 && L.area_h > 0 && px >= L.area_x && px <= L.area_x + L.area_w
                    && py >= L.area_y && py <= L.area_y + L.area_h;
  if (inside)
    {
      *x = L.x0 + (px - L.area_x) / L.area_w * (L.x1 - L.x0);
      *y = L.y1 - (py - L.area_y) / L.area_h * (L.y1 - L.y0);
    }
  cml_plot_layout_clear (&L);
  pango_font_description_free (tc.font);
  g_object_unref (tc.layout);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return inside && isfinite (*x) && isfinite (*y);
}

/* ---- export ------------------------------------------------------------------------- */

typedef enum
{
  FORMAT_PNG,
  FORMAT_SVG,
  FORMAT_PDF,
} Format;

static gboolean
format_from_path (const char *path, Format *format)
{
  const char *dot = strrchr (path, '.');
  const char *slash = strrchr (path, '/');
  if (dot == NULL || (slash && dot < slash))
    return FALSE;
  if (g_ascii_strcasecmp (dot, ".png") == 0)
    *format = FORMAT_PNG;
  else if (g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = FORMAT_SVG;
  else if (g_ascii_strcasecmp (dot, ".pdf") == 0)
    *format = FORMAT_PDF;
  else
    return FALSE;
  return TRUE;
}

static cairo_status_t
write_to_bytes (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

/* A text description of the figure (an SVG's <title>/<desc>, a PDF's metadata): what
 * is plotted against what and the parameters' line, so the file can be found and read
 * without its pixels. */
static char *
describe (CmlPlot *plot)
{
  g_autofree char *x = cml_plot_axis_dup_title (cml_plot_get_x_axis (plot));
  g_autofree char *y = cml_plot_axis_dup_title (cml_plot_get_y_axis (plot));
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s against %s", y[0] ? y : "value", x[0] ? x : "time");
  if (cml_plot_get_n_series (plot) > 0)
    {
      g_string_append (s, "; series: ");
      for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
        {
          g_autofree char *l = cml_plot_series_dup_label (cml_plot_get_series (plot, i));
          g_string_append_printf (s, "%s%s", i ? ", " : "", l);
        }
    }
  if (cml_plot_get_subtitle (plot)[0] != '\0')
    g_string_append_printf (s, "; %s", cml_plot_get_subtitle (plot));
  return g_string_free (s, FALSE);
}

/* Adds the labels' <text> elements TEXT over Cairo's drawing, before the root element's
 * end tag. */
static void
svg_add_text (GByteArray *svg, const GString *text)
{
  static const char end_tag[] = "</svg>";
  guint n = sizeof end_tag - 1, at = svg->len;
  while (at >= n && memcmp (svg->data + at - n, end_tag, n) != 0)
    at--;
  if (at < n)
    return;
  at -= n;
  g_autofree char *insert = g_strdup_printf ("<g id=\"text\">\n%s</g>\n", text->str);
  guint len = (guint) strlen (insert), tail = svg->len - at;
  g_byte_array_set_size (svg, svg->len + len);
  memmove (svg->data + at + len, svg->data + at, tail);
  memcpy (svg->data + at, insert, len);
}

/* Add a <title> and <desc> after the root element's start tag, so that the figure can
 * be found and read without drawing it. */
static void
svg_add_description (GByteArray *svg, CmlPlot *plot)
{
  g_byte_array_append (svg, (const guint8 *) "", 1); /* NUL for strstr */
  const char *text = (const char *) svg->data;
  const char *root = strstr (text, "<svg");
  const char *end = root ? strchr (root, '>') : NULL;
  g_byte_array_set_size (svg, svg->len - 1);
  if (end == NULL)
    return;

  g_autofree char *desc = describe (plot);
  const char *title = cml_plot_get_title (plot);
  g_autofree char *t = g_markup_escape_text (title[0] ? title : desc, -1);
  g_autofree char *d = g_markup_escape_text (desc, -1);
  g_autofree char *insert = g_strdup_printf ("\n<title>%s</title>\n<desc>%s</desc>", t, d);
  guint at = (guint) (end + 1 - text), tail = svg->len - at;
  guint n = (guint) strlen (insert);
  g_byte_array_set_size (svg, svg->len + n);
  memmove (svg->data + at + n, svg->data + at, tail);
  memcpy (svg->data + at, insert, n);
}

gboolean
cml_plot_export_with_style (CmlPlot *plot, const char *path, int width, int height,
                            const CmlPlotStyle *style, GError **error)
{
  CmlPlotStyle light;
  Format format;

  g_return_val_if_fail (plot != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!format_from_path (path, &format))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "%s: unknown plot format (use .png, .svg or .pdf)", path);
      return FALSE;
    }
  if (width < 16 || height < 16 || width > 16384 || height > 16384)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "%s: plot size %d×%d out of range (16 … 16384)", path, width, height);
      return FALSE;
    }
  if (style == NULL)
    {
      cml_plot_style_init (&light, FALSE, FALSE);
      style = &light;
    }

  /* render into memory, then write the file in one go */
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  cairo_surface_t *surface;
  switch (format)
    {
    case FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    case FORMAT_SVG:
      surface = cairo_svg_surface_create_for_stream (write_to_bytes, bytes, width, height);
      cairo_svg_surface_restrict_to_version (surface, CAIRO_SVG_VERSION_1_1);
      break;
    case FORMAT_PDF:
    default:
      surface = cairo_pdf_surface_create_for_stream (write_to_bytes, bytes, width, height);
      {
        g_autofree char *desc = describe (plot);
        const char *title = cml_plot_get_title (plot);
        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title[0] ? title : desc);
        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, desc);
        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "cmlab");
      }
      break;
    }

  cairo_t *cr = cairo_create (surface);
  g_autoptr (GString) svg_text = format == FORMAT_SVG ? g_string_new (NULL) : NULL;
  if (format == FORMAT_SVG)
    draw_with_style (plot, cr, width, height, style, 3.0, svg_text);  /* as cml_plot_cairo_draw for vectors */
  else
    cml_plot_cairo_draw (plot, cr, width, height, style);
  cairo_status_t status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == FORMAT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_to_bytes, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: drawing failed: %s", path,
                   cairo_status_to_string (status));
      return FALSE;
    }

  if (format == FORMAT_SVG)
    {
      svg_add_text (bytes, svg_text);
      svg_add_description (bytes, plot);
    }

  /* all or nothing, and never in place of a device, a link or a read-only file */
  return cml_atomic_file_set_contents (path, bytes->data, bytes->len, error);
}

gboolean
cml_plot_export (CmlPlot *plot, const char *path, int width, int height, GError **error)
{
  return cml_plot_export_with_style (plot, path, width, height, NULL, error);
}
