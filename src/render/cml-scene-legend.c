/* cml-scene-legend.c — the scene's legend: a card naming the labelled objects
 * with a swatch of each, drawn with Cairo and Pango.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

/* ---- the legend ---------------------------------------------------------------------------
 *
 * A card in a corner of the scene naming what is drawn: one line per object with a label
 * (`label = …` in its [scene …] group), a small picture of its kind in its colour (a
 * stroke for a trail, an arrow, a dot for a sphere or point, a ring for a disc, a square
 * for a floor or table), and for models whose trails can be shown in a turning frame, the
 * frame they are drawn in now.  Cairo and Pango only, so that the window (a drawing area
 * over the GL view) and the exported videos draw the very same card.
 */

typedef struct
{
  ObjKind kind;
  float   rgb[3];
  char   *text;
} LegendEntry;

static void
legend_entry_clear (gpointer p)
{
  g_free (((LegendEntry *) p)->text);
}

/* Whether the window lets the tip of arrow SO be dragged: its vector's x and y are
 * velocities (momenta, for a vakonomic system), as the scene view's arrow_at asks. */
static gboolean
arrow_can_be_dragged (const CmlModel *model, const CmlSceneObject *so)
{
  GPtrArray *vec = g_hash_table_lookup (so->props, "vector");
  if (!g_str_equal (so->type, "arrow") || vec == NULL || vec->len != 3)
    return FALSE;
  for (guint j = 0; j < 2; j++)
    {
      int id = cml_expr_symbol_id (vec->pdata[j]);
      gboolean starting = FALSE;
      for (guint a = 0; id >= 0 && a < model->n; a++)
        if (model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta_sym[a] == id : model->fibre_sym[a] == id)
          starting = TRUE;
      if (!starting)
        return FALSE;
    }
  return TRUE;
}

static GArray *
legend_entries (CmlSystem *sys, const CmlSceneStyle *style, char **frame_line)
{
  GArray *entries = g_array_new (FALSE, FALSE, sizeof (LegendEntry));
  g_array_set_clear_func (entries, legend_entry_clear);
  *frame_line = NULL;
  if (sys == NULL)
    return entries;

  CmlModel *model = cml_system_get_model (sys);
  if (cml_scene_values_are_observables (sys))
    {
      /* the default picture (set_system) */
      g_autofree char *joined = cml_scene_default_names_joined (sys);
      LegendEntry path = { OBJ_TRAIL, { 0 }, g_strdup_printf ("path of (%s)", joined) };
      LegendEntry point = { OBJ_POINT, { 0 }, g_strdup_printf ("state (%s)", joined) };
      cml_scene_hex_to_rgb (0x1c71d8, path.rgb);
      cml_scene_hex_to_rgb (0xe01b24, point.rgb);
      g_array_append_val (entries, point);
      g_array_append_val (entries, path);
      /* what the axes measure, with their units: the picture is a graph of the state */
      int obs[3];
      const char *names[3];
      static const guint32 hex[3] = { AXIS_HEX_X, AXIS_HEX_Y, AXIS_HEX_Z };
      const char *axis[3] = {
        /* TRANSLATORS: the axes of the picture of a model without a scene; %s is a
         * coordinate's name, with its unit in brackets when it has one */
        N_("red axis: %s"), N_("green axis: %s"), N_("blue axis: %s"),
      };
      cml_scene_default_coordinates (sys, obs, names);
      for (guint k = 0; k < 3; k++)
        {
          if (names[k] == NULL)
            continue;
          const char *unit = cml_model_unit (model, names[k]);
          g_autofree char *name = unit && *unit && g_strcmp0 (unit, "1") != 0
                                    ? g_strdup_printf ("%s [%s]", names[k], unit)
                                    : g_strdup (names[k]);
          LegendEntry e = { OBJ_ARROW, { 0 }, g_strdup_printf (_(axis[k]), name) };
          cml_scene_hex_to_rgb (hex[k], e.rgb);
          g_array_append_val (entries, e);
        }
      return entries;
    }

  static const struct
  {
    const char *type;
    ObjKind     kind;
    guint32     color;
  } types[] = {
    { "sphere", OBJ_SPHERE, 0xf57900 }, { "turntable", OBJ_TURNTABLE, 0x9a9996 },
    { "plane", OBJ_PLANE, 0x9a9996 },   { "point", OBJ_POINT, 0xe01b24 },
    { "trail", OBJ_TRAIL, 0x1c71d8 },   { "disc", OBJ_DISC, 0x26a269 },
    { "arrow", OBJ_ARROW, 0x813d9c },
  };
  gboolean turning = FALSE;
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      if (g_str_equal (so->type, "trail") && g_hash_table_contains (so->props, "frame-angle"))
        turning = TRUE;
      if (so->label == NULL || so->label[0] == '\0')
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (types); k++)
        if (g_str_equal (so->type, types[k].type))
          {
            LegendEntry e = { types[k].kind, { 0 }, NULL };
            if (style && style->interactive && arrow_can_be_dragged (model, so))
              /* TRANSLATORS: after the label of a velocity arrow in the window's legend */
              e.text = g_strdup_printf (_("%s (drag its tip)"), so->label);
            else
              e.text = g_strdup (so->label);
            cml_scene_parse_color (so->color, types[k].color, e.rgb);
            g_array_append_val (entries, e);
          }
    }
  if (turning)
    *frame_line = g_strdup (style && style->table_frame
                              ? _("paths drawn in the turning table's frame")
                              : _("paths drawn in the lab frame (fixed)"));
  return entries;
}

char **
cml_scene_legend_lines (CmlSystem *sys, const CmlSceneStyle *style)
{
  g_autofree char *frame_line = NULL;
  g_autoptr (GArray) entries = legend_entries (sys, style, &frame_line);
  GStrvBuilder *b = g_strv_builder_new ();
  for (guint i = 0; i < entries->len; i++)
    g_strv_builder_add (b, g_array_index (entries, LegendEntry, i).text);
  if (frame_line)
    g_strv_builder_add (b, frame_line);
  char **lines = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return lines;
}

/* Sizes in Cairo units: logical pixels times style->scale. */
typedef struct
{
  double font, row, swatch, pad, radius;
} LegendMetrics;

static LegendMetrics
legend_metrics (const CmlSceneStyle *style)
{
  double scale = style && style->scale > 0 ? style->scale : 1.0;
  /* presentation type: 20 px, 2.5 % of an 800-pixel window (the window scales it with its
   * height above that) */
  double font = (style && style->presentation ? 20.0 : 13.0) * scale;
  return (LegendMetrics) { font, 1.55 * font, 2.0 * font, 0.8 * font, 0.6 * font };
}

double
cml_scene_legend_font_size (const CmlSceneStyle *style)
{
  return legend_metrics (style).font;
}

/* A line of the legend; wrapped at WRAP (Cairo units, 0: never). */
static PangoLayout *
legend_layout (cairo_t *cr, const LegendMetrics *m, const char *text, gboolean italic, double wrap)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  if (wrap > 0)
    {
      pango_layout_set_width (layout, (int) (wrap * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
    }
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  pango_font_description_set_absolute_size (font, m->font * PANGO_SCALE);
  if (italic)
    pango_font_description_set_style (font, PANGO_STYLE_ITALIC);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_font_description_free (font);
  return layout;
}

/* Lays the card out on CR (or measures only, DRAW FALSE); its size into W, H. */
static gboolean
legend_run (CmlSystem *sys, cairo_t *cr, const CmlSceneStyle *style, gboolean draw, double *w,
            double *h)
{
  g_autofree char *frame_line = NULL;
  g_autoptr (GArray) entries = legend_entries (sys, style, &frame_line);
  guint n = entries->len + (frame_line ? 1 : 0);
  *w = *h = 0;
  if (n == 0)
    return FALSE;

  LegendMetrics m = legend_metrics (style);
  gboolean dark = style && style->dark;
  float bg[4];
  cml_scene_style_get_background (style, bg);
  double ink[3] = { 0.14, 0.12, 0.19 }, soft[3] = { 0.37, 0.36, 0.40 };
  if (dark)
    ink[0] = ink[1] = ink[2] = 0.93, soft[0] = soft[1] = 0.72, soft[2] = 0.75;

  /* the widest text sets the width, unless the style bounds it: then long lines wrap
   * (the frame line spans the swatch column too) and their entries take more rows */
  double text_w = 0, wrap = 0, extra = 0;
  if (style && style->legend_width > 0)
    wrap = MAX (style->legend_width - (2 * m.pad + m.swatch + 0.6 * m.font), 6 * m.font);
  g_autofree double *extra_before = g_new0 (double, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const char *text = i < entries->len ? g_array_index (entries, LegendEntry, i).text : frame_line;
      gboolean frame = i >= entries->len;
      PangoLayout *layout = legend_layout (cr, &m, text, frame, wrap > 0 && frame ? wrap + m.swatch + 0.6 * m.font : wrap);
      PangoRectangle logical;
      pango_layout_get_extents (layout, NULL, &logical);
      double lw = logical.width / (double) PANGO_SCALE;
      text_w = MAX (text_w, frame ? lw - m.swatch - 0.6 * m.font : lw);
      int lines = pango_layout_get_line_count (layout);
      extra_before[i] = extra;
      if (lines > 1)
        extra += logical.height / (double) PANGO_SCALE * (lines - 1) / lines;
      g_object_unref (layout);
    }
  extra_before[n] = extra;
  *w = ceil (2 * m.pad + m.swatch + 0.6 * m.font + text_w);
  *h = ceil (2 * m.pad + n * m.row - (m.row - m.font * 1.25) + extra);
  if (!draw)
    return TRUE;

  cairo_save (cr);
  cml_scene_draw_card (cr, *w, *h, m.radius, bg, ink, m.font);

  for (guint i = 0; i < n; i++)
    {
      double y = m.pad + i * m.row + extra_before[i], cy = y + 0.62 * m.font, x0 = m.pad, x1 = m.pad + m.swatch;
      const LegendEntry *e = i < entries->len ? &g_array_index (entries, LegendEntry, i) : NULL;
      cairo_new_path (cr);  /* the text left a current point */
      if (e)
        {
          float rgb[3];
          memcpy (rgb, e->rgb, sizeof rgb);
          if (dark && (e->kind == OBJ_TRAIL))
            {
              /* as draw_trails lifts them */
              float white[3] = { 1, 1, 1 };
              cml_scene_mix3 (rgb, white, 0.25f, rgb);
            }
          cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
          double s = 0.42 * m.font;  /* half the swatch's height */
          double xm = 0.5 * (x0 + x1);
          switch (e->kind)
            {
            case OBJ_TRAIL:
              cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
              cairo_set_line_width (cr, 0.25 * m.font);
              cairo_move_to (cr, x0 + 2, cy + 0.4 * s);
              cairo_curve_to (cr, xm, cy - 1.2 * s, xm, cy + 1.2 * s, x1 - 2, cy - 0.4 * s);
              cairo_stroke (cr);
              break;
            case OBJ_ARROW:
              cairo_set_line_width (cr, 0.16 * m.font);
              cairo_move_to (cr, x0 + 2, cy);
              cairo_line_to (cr, x1 - 0.6 * m.font, cy);
              cairo_stroke (cr);
              cairo_move_to (cr, x1 - 1, cy);
              cairo_line_to (cr, x1 - 0.75 * m.font, cy - 0.38 * m.font);
              cairo_line_to (cr, x1 - 0.75 * m.font, cy + 0.38 * m.font);
              cairo_close_path (cr);
              cairo_fill (cr);
              break;
            case OBJ_SPHERE:
            case OBJ_POINT:
              cairo_arc (cr, xm, cy, e->kind == OBJ_SPHERE ? 1.1 * s : 0.8 * s, 0, 2 * G_PI);
              cairo_fill_preserve (cr);
              cairo_set_source_rgba (cr, ink[0], ink[1], ink[2], 0.5);
              cairo_set_line_width (cr, MAX (1.0, 0.08 * m.font));
              cairo_stroke (cr);
              break;
            case OBJ_DISC:
              cairo_save (cr);
              cairo_translate (cr, xm, cy);
              cairo_scale (cr, 1.0, 0.55);
              cairo_arc (cr, 0, 0, 1.5 * s, 0, 2 * G_PI);
              cairo_restore (cr);
              cairo_save (cr);
              cairo_clip_preserve (cr);
              cairo_paint_with_alpha (cr, 0.45);
              cairo_restore (cr);
              cairo_set_line_width (cr, MAX (1.0, 0.1 * m.font));
              cairo_stroke (cr);
              break;
            case OBJ_TURNTABLE:
            case OBJ_PLANE:
              {
                float top[3], white[3] = { 1, 1, 1 };
                cml_scene_mix3 (e->rgb, white, dark ? 0.1f : 0.45f, top);
                cairo_save (cr);
                cairo_translate (cr, xm, cy);
                cairo_scale (cr, 1.0, 0.5);
                if (e->kind == OBJ_TURNTABLE)
                  cairo_arc (cr, 0, 0, 0.5 * m.swatch - 2, 0, 2 * G_PI);
                else
                  cairo_rectangle (cr, -0.5 * m.swatch + 2, -1.6 * s, m.swatch - 4, 3.2 * s);
                cairo_restore (cr);
                cairo_set_source_rgb (cr, top[0], top[1], top[2]);
                cairo_fill_preserve (cr);
                cairo_set_source_rgb (cr, rgb[0] * 0.6, rgb[1] * 0.6, rgb[2] * 0.6);
                cairo_set_line_width (cr, MAX (1.0, 0.1 * m.font));
                cairo_stroke (cr);
                break;
              }
            }
        }
      const char *text = e ? e->text : frame_line;
      PangoLayout *layout = legend_layout (cr, &m, text, e == NULL,
                                           wrap > 0 && e == NULL ? wrap + m.swatch + 0.6 * m.font : wrap);
      const double *c = e ? ink : soft;
      cairo_set_source_rgb (cr, c[0], c[1], c[2]);
      /* the frame line spans the swatch column too */
      cairo_move_to (cr, e ? x1 + 0.6 * m.font : x0, y);
      pango_cairo_show_layout (cr, layout);
      g_object_unref (layout);
    }
  cairo_restore (cr);
  return TRUE;
}

gboolean
cml_scene_legend_measure (CmlSystem *sys, const CmlSceneStyle *style, double *width, double *height)
{
  g_return_val_if_fail (width != NULL && height != NULL, FALSE);

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (surface);
  gboolean any = legend_run (sys, cr, style, FALSE, width, height);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return any;
}

void
cml_scene_legend_draw (CmlSystem *sys, cairo_t *cr, const CmlSceneStyle *style)
{
  g_return_if_fail (cr != NULL);

  double w, h;
  legend_run (sys, cr, style, TRUE, &w, &h);
}

void
cml_scene_draw_card (cairo_t *cr, double w, double h, double radius, const float bg[3], const double ink[3],
                     double font)
{
  double rr = radius;

  cairo_new_sub_path (cr);
  cairo_arc (cr, w - rr, rr, rr, -G_PI / 2, 0);
  cairo_arc (cr, w - rr, h - rr, rr, 0, G_PI / 2);
  cairo_arc (cr, rr, h - rr, rr, G_PI / 2, G_PI);
  cairo_arc (cr, rr, rr, rr, G_PI, 3 * G_PI / 2);
  cairo_close_path (cr);
  cairo_set_source_rgba (cr, bg[0], bg[1], bg[2], 0.9);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, ink[0], ink[1], ink[2], 0.18);
  cairo_set_line_width (cr, MAX (1.0, font / 13));
  cairo_stroke (cr);
}
