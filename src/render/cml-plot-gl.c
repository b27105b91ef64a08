/* cml-plot-gl.c — the OpenGL backend of the plots (the live view).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only draws: the layout and the decimated series come from cml-plot-layout.c.  Two
 * programs from one pair of shader files (plot.vert/frag): capsules for every line
 * (series, grid, axes, ticks, legend swatches) and textured quads for text.  Labels are rendered once
 * with PangoCairo into a one-channel atlas texture and found again by their text; when
 * the atlas is full it starts over with the labels of the current frame.
 */
#define G_LOG_DOMAIN "cml-plot-gl"

#include "cml-plot-gl.h"

#include <cairo.h>
#include <epoxy/gl.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "cml-gl.h"

#define ATLAS_SIZE   2048
#define LABEL_MARGIN 2      /* px of empty border around each label in the atlas */
#define SWEEP_FRAMES 600    /* labels unused this long are forgotten */

typedef struct
{
  float   p0[2], p1[2];
  guint8  rgba[4];
  float   half_width;
  float   bar_half_width;  /* > 0: a bar (see plot.vert) */
} LineInst;

typedef struct
{
  float   p0[2], size[2];
  guint8  rgba[4];
  float   uv[4];
} TextInst;

typedef struct
{
  double  w, h;           /* logical size, px (unrotated) */
  gboolean placed;        /* has a rectangle in the atlas */
  int     ax, ay, aw, ah; /* that rectangle */
  guint64 last_used;
} Label;

struct _CmlPlotGl
{
  GLuint line_program, text_program;
  GLint  line_viewport, text_viewport, text_atlas;
  GLuint line_vao, line_vbo, text_vao, text_vbo;
  GLuint atlas;
  int    shelf_x, shelf_y, shelf_h;  /* shelf packing of the atlas */

  GHashTable *labels;     /* key ("size|bold|rotated|text") → Label* */
  guint64     frame;
  PangoContext *pango;
  PangoLayout  *layout;
  PangoFontDescription *font;
  char       *font_family;
  GString    *key;

  GArray *lines, *texts, *points;
  GArray *dashes;          /* float px: a dashed series cut into its dashes */
  CmlPlotGlStats stats;
  /* the last frame's plot area (px) and the data ranges mapped onto it, for picking */
  double area[4], range[4];
  gboolean have_frame;
};

/* ---- text ------------------------------------------------------------------------------ */

static void
text_setup (CmlPlotGl *self, const char *text, double size, gboolean bold)
{
  pango_font_description_set_absolute_size (self->font, size * PANGO_SCALE);
  pango_font_description_set_weight (self->font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (self->layout, self->font);
  pango_layout_set_text (self->layout, text, -1);
}

static const char *
label_key (CmlPlotGl *self, const char *text, double size, gboolean bold, gboolean rotated)
{
  g_string_printf (self->key, "%.3f|%d|%d|%s", size, !!bold, !!rotated, text);
  return self->key->str;
}

static Label *
label_lookup (CmlPlotGl *self, const char *text, double size, gboolean bold, gboolean rotated)
{
  const char *key = label_key (self, text, size, bold, rotated);
  Label *label = g_hash_table_lookup (self->labels, key);
  if (label == NULL)
    {
      PangoRectangle logical;
      label = g_new0 (Label, 1);
      text_setup (self, text, size, bold);
      pango_layout_get_extents (self->layout, NULL, &logical);
      label->w = (double) logical.width / PANGO_SCALE;
      label->h = (double) logical.height / PANGO_SCALE;
      g_hash_table_insert (self->labels, g_strdup (key), label);
    }
  label->last_used = self->frame;
  return label;
}

static void
measure_text (const char *text, double size, gboolean bold, double *width, double *height,
              gpointer user_data)
{
  Label *label = label_lookup (user_data, text, size, bold, FALSE);
  if (width)
    *width = label->w;
  if (height)
    *height = label->h;
}

static void
atlas_reset (CmlPlotGl *self)
{
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, self->labels);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    ((Label *) value)->placed = FALSE;
  self->shelf_x = self->shelf_y = self->shelf_h = 0;
}

/* Finds room for a W × H rectangle: along the current shelf, else on a new one. */
static gboolean
atlas_allocate (CmlPlotGl *self, int w, int h, int *x, int *y)
{
  if (w > ATLAS_SIZE || h > ATLAS_SIZE)
    return FALSE;
  if (self->shelf_x + w > ATLAS_SIZE)
    {
      self->shelf_y += self->shelf_h;
      self->shelf_x = 0;
      self->shelf_h = 0;
    }
  if (self->shelf_y + h > ATLAS_SIZE)
    return FALSE;
  *x = self->shelf_x;
  *y = self->shelf_y;
  self->shelf_x += w;
  self->shelf_h = MAX (self->shelf_h, h);
  return TRUE;
}

/* Renders LABEL's text into its place in the atlas (allocating one).  FALSE if the atlas
 * is full. */
static gboolean
label_place (CmlPlotGl *self, Label *label, const CmlPlotLabel *pl)
{
  int tw = (int) ceil (label->w), th = (int) ceil (label->h);
  int iw = (pl->rotated ? th : tw) + 2 * LABEL_MARGIN;
  int ih = (pl->rotated ? tw : th) + 2 * LABEL_MARGIN;

  if (!atlas_allocate (self, iw, ih, &label->ax, &label->ay))
    return FALSE;
  label->aw = iw;
  label->ah = ih;
  label->placed = TRUE;

  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_A8, iw, ih);
  cairo_t *cr = cairo_create (surface);
  if (pl->rotated)
    {
      /* reads bottom to top */
      cairo_translate (cr, LABEL_MARGIN, LABEL_MARGIN + tw);
      cairo_rotate (cr, -G_PI / 2);
    }
  else
    cairo_translate (cr, LABEL_MARGIN, LABEL_MARGIN);
  cairo_set_source_rgba (cr, 0, 0, 0, 1);
  text_setup (self, pl->text, pl->size, pl->bold);
  pango_cairo_show_layout (cr, self->layout);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  glBindTexture (GL_TEXTURE_2D, self->atlas);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei (GL_UNPACK_ROW_LENGTH, cairo_image_surface_get_stride (surface));
  glTexSubImage2D (GL_TEXTURE_2D, 0, label->ax, label->ay, iw, ih, GL_RED, GL_UNSIGNED_BYTE,
                   cairo_image_surface_get_data (surface));
  glPixelStorei (GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  cairo_surface_destroy (surface);

  self->stats.n_rasterized++;
  return TRUE;
}

static void
sweep_labels (CmlPlotGl *self)
{
  GHashTableIter iter;
  gpointer value;
  g_hash_table_iter_init (&iter, self->labels);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (((Label *) value)->last_used + SWEEP_FRAMES < self->frame)
      g_hash_table_iter_remove (&iter);
}

/* ---- set-up ---------------------------------------------------------------------------- */

static void
setup_attributes (gboolean text)
{
  gsize stride = text ? sizeof (TextInst) : sizeof (LineInst);
  for (GLuint a = 0; a < 4; a++)
    {
      glEnableVertexAttribArray (a);
      glVertexAttribDivisor (a, 1);
    }
  if (text)
    {
      glVertexAttribPointer (0, 2, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (TextInst, p0));
      glVertexAttribPointer (1, 2, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (TextInst, size));
      glVertexAttribPointer (2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (void *) G_STRUCT_OFFSET (TextInst, rgba));
      glVertexAttribPointer (3, 4, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (TextInst, uv));
    }
  else
    {
      glVertexAttribPointer (0, 2, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (LineInst, p0));
      glVertexAttribPointer (1, 2, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (LineInst, p1));
      glVertexAttribPointer (2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (void *) G_STRUCT_OFFSET (LineInst, rgba));
      glVertexAttribPointer (3, 2, GL_FLOAT, GL_FALSE, stride, (void *) G_STRUCT_OFFSET (LineInst, half_width));
    }
}

static void
label_free (gpointer data)
{
  g_free (data);
}

CmlPlotGl *
cml_plot_gl_new (GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  gboolean es = cml_gl_is_es ();
  const char *vert = es ? "/org/cmlab/Cmlab/shaders/plot-es.vert" : "/org/cmlab/Cmlab/shaders/plot.vert";
  const char *frag = es ? "/org/cmlab/Cmlab/shaders/plot-es.frag" : "/org/cmlab/Cmlab/shaders/plot.frag";

  GLuint line_program = cml_gl_program_from_resources_with_defines (vert, frag, "#define MODE 0\n", error);
  if (line_program == 0)
    return NULL;
  GLuint text_program = cml_gl_program_from_resources_with_defines (vert, frag, "#define MODE 1\n", error);
  if (text_program == 0)
    {
      glDeleteProgram (line_program);
      return NULL;
    }

  CmlPlotGl *self = g_new0 (CmlPlotGl, 1);
  self->line_program = line_program;
  self->text_program = text_program;
  self->line_viewport = glGetUniformLocation (line_program, "u_viewport");
  self->text_viewport = glGetUniformLocation (text_program, "u_viewport");
  self->text_atlas = glGetUniformLocation (text_program, "u_atlas");

  glGenVertexArrays (1, &self->line_vao);
  glGenBuffers (1, &self->line_vbo);
  glBindVertexArray (self->line_vao);
  glBindBuffer (GL_ARRAY_BUFFER, self->line_vbo);
  setup_attributes (FALSE);

  glGenVertexArrays (1, &self->text_vao);
  glGenBuffers (1, &self->text_vbo);
  glBindVertexArray (self->text_vao);
  glBindBuffer (GL_ARRAY_BUFFER, self->text_vbo);
  setup_attributes (TRUE);
  glBindVertexArray (0);

  glGenTextures (1, &self->atlas);
  glBindTexture (GL_TEXTURE_2D, self->atlas);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_R8, ATLAS_SIZE, ATLAS_SIZE, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
  /* labels sit on whole pixels: no filtering, crisp text */
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glBindTexture (GL_TEXTURE_2D, 0);

  self->labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, label_free);
  self->pango = pango_font_map_create_context (pango_cairo_font_map_get_default ());
  cairo_font_options_t *options = cairo_font_options_create ();
  cairo_font_options_set_antialias (options, CAIRO_ANTIALIAS_GRAY);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_SLIGHT);
  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_ON);
  pango_cairo_context_set_font_options (self->pango, options);
  cairo_font_options_destroy (options);
  self->layout = pango_layout_new (self->pango);
  self->key = g_string_new (NULL);
  self->lines = g_array_new (FALSE, FALSE, sizeof (LineInst));
  self->texts = g_array_new (FALSE, FALSE, sizeof (TextInst));
  self->points = g_array_new (FALSE, FALSE, sizeof (float));
  self->dashes = g_array_new (FALSE, FALSE, sizeof (float));
  return self;
}

void
cml_plot_gl_free (CmlPlotGl *self)
{
  if (self == NULL)
    return;
  glDeleteProgram (self->line_program);
  glDeleteProgram (self->text_program);
  glDeleteVertexArrays (1, &self->line_vao);
  glDeleteVertexArrays (1, &self->text_vao);
  glDeleteBuffers (1, &self->line_vbo);
  glDeleteBuffers (1, &self->text_vbo);
  glDeleteTextures (1, &self->atlas);
  g_hash_table_unref (self->labels);
  g_clear_object (&self->layout);
  g_clear_object (&self->pango);
  g_clear_pointer (&self->font, pango_font_description_free);
  g_free (self->font_family);
  g_string_free (self->key, TRUE);
  g_array_unref (self->lines);
  g_array_unref (self->texts);
  g_array_unref (self->points);
  g_array_unref (self->dashes);
  g_free (self);
}

void
cml_plot_gl_get_stats (CmlPlotGl *self, CmlPlotGlStats *stats)
{
  g_return_if_fail (self != NULL && stats != NULL);
  *stats = self->stats;
}

/* ---- geometry -------------------------------------------------------------------------- */

static inline void
rgba_bytes (const CmlPlotRgba *c, guint8 out[4])
{
  out[0] = (guint8) lrintf (CLAMP (c->r, 0.f, 1.f) * 255.f);
  out[1] = (guint8) lrintf (CLAMP (c->g, 0.f, 1.f) * 255.f);
  out[2] = (guint8) lrintf (CLAMP (c->b, 0.f, 1.f) * 255.f);
  out[3] = (guint8) lrintf (CLAMP (c->a, 0.f, 1.f) * 255.f);
}

static inline void
add_line (GArray *lines, double x0, double y0, double x1, double y1, const guint8 rgba[4],
          double half_width)
{
  LineInst l = { { (float) x0, (float) y0 }, { (float) x1, (float) y1 },
                 { rgba[0], rgba[1], rgba[2], rgba[3] }, (float) half_width, 0.f };
  g_array_append_val (lines, l);
}

/* Pixel centres for odd widths, pixel edges for even ones: crisp axis and grid lines. */
static double
crisp (double v, double width)
{
  return ((long) lrint (width) % 2 == 1) ? floor (v) + 0.5 : round (v);
}

/* Whether the piece starting at point K is a bar: two points at one x between breaks. */
static inline gboolean
is_bar (const float *p, guint n, guint k)
{
  return k + 1 < n && !isnan (p[2 * k]) && !isnan (p[2 * k + 2]) && p[2 * k] == p[2 * k + 2] &&
         (k == 0 || isnan (p[2 * k - 2])) && (k + 2 >= n || isnan (p[2 * k + 4]));
}

/* The dashes of a polyline (px, NAN pairs between pieces) as segments: a dashed series
 * (cml_plot_dash_polyline) is drawn piece by piece, never merged into bars. */
static void
add_dashes (GArray *lines, GArray *points, GArray *scratch, double on, double off, const guint8 rgba[4],
            double half_width)
{
  g_array_set_size (scratch, 0);
  cml_plot_dash_polyline (points, on, off, scratch);
  const float *p = (const float *) (gpointer) scratch->data;
  guint n = scratch->len / 2;
  for (guint k = 0; k + 1 < n; k++)
    if (!isnan (p[2 * k]) && !isnan (p[2 * k + 2]))
      add_line (lines, p[2 * k], p[2 * k + 1], p[2 * k + 2], p[2 * k + 3], rgba, half_width);
}

/* The segments of a polyline (px, NAN pairs between pieces).  Runs of bars side by side
 * (a band of fast oscillation, COLUMN px apart) become rectangles that tile the band
 * without overlap: under software GL the fill rate is what a dense plot costs. */
static void
add_polyline (GArray *lines, GArray *points, const guint8 rgba[4], double half_width,
              double column)
{
  const float *p = (const float *) (gpointer) points->data;
  guint n = points->len / 2;
  float prev_bar_x = NAN;

  for (guint k = 0; k < n; k++)
    {
      if (isnan (p[2 * k]))
        continue;
      if (is_bar (p, n, k))
        {
          /* the next bar, if any, follows its break */
          float x = p[2 * k];
          float next_bar_x = k + 3 < n && is_bar (p, n, k + 3) ? p[2 * k + 6] : NAN;
          gboolean left = fabsf (x - prev_bar_x) <= 1.01f * column;
          gboolean right = fabsf (next_bar_x - x) <= 1.01f * column;
          if (left || right)
            {
              /* from half-way to the left neighbour to half-way to the right one */
              float l = left ? 0.5f * (x - prev_bar_x) : 0.5f * (float) column;
              float r = right ? 0.5f * (next_bar_x - x) : 0.5f * (float) column;
              float xc = x + 0.5f * (r - l), hb = 0.5f * (l + r);
              LineInst bar = { { xc, p[2 * k + 1] }, { xc, p[2 * k + 3] },
                               { rgba[0], rgba[1], rgba[2], rgba[3] }, (float) half_width, hb };
              g_array_append_val (lines, bar);
            }
          else
            add_line (lines, x, p[2 * k + 1], x, p[2 * k + 3], rgba, half_width);
          prev_bar_x = x;
          k += 1;
          continue;
        }
      gboolean next = k + 1 < n && !isnan (p[2 * k + 2]);
      gboolean prev = k > 0 && !isnan (p[2 * k - 2]);
      if (next)
        add_line (lines, p[2 * k], p[2 * k + 1], p[2 * k + 2], p[2 * k + 3], rgba, half_width);
      else if (!prev)
        /* a lone point (one sample, or one between breaks) shows as a dot */
        add_line (lines, p[2 * k], p[2 * k + 1], p[2 * k], p[2 * k + 1], rgba, half_width);
    }
}

static void
add_text (CmlPlotGl *self, const CmlPlotLabel *pl, const Label *label, const guint8 rgba[4])
{
  /* whole pixels, so the atlas' texels map 1:1 */
  TextInst t = { { (float) (round (pl->x) - LABEL_MARGIN), (float) (round (pl->y) - LABEL_MARGIN) },
                 { (float) label->aw, (float) label->ah },
                 { rgba[0], rgba[1], rgba[2], rgba[3] },
                 { (float) label->ax / ATLAS_SIZE, (float) label->ay / ATLAS_SIZE,
                   (float) (label->ax + label->aw) / ATLAS_SIZE,
                   (float) (label->ay + label->ah) / ATLAS_SIZE } };
  g_array_append_val (self->texts, t);
}

typedef struct
{
  const CmlPlotLabel *pl;
  guint8 rgba[4];
} PendingText;

/* Makes sure every label of the frame is in the atlas, starting the atlas over if it
 * fills up, and turns them into quads. */
static void
build_texts (CmlPlotGl *self, GArray *pending)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      gboolean full = FALSE;
      g_array_set_size (self->texts, 0);
      for (guint i = 0; i < pending->len && !full; i++)
        {
          PendingText *p = &g_array_index (pending, PendingText, i);
          Label *label = label_lookup (self, p->pl->text, p->pl->size, p->pl->bold, p->pl->rotated);
          if (!label->placed && !label_place (self, label, p->pl))
            {
              full = TRUE;
              break;
            }
          add_text (self, p->pl, label, p->rgba);
        }
      if (!full)
        return;
      atlas_reset (self);
    }
  g_warning ("plot labels do not fit into a %d² atlas", ATLAS_SIZE);
}

/* ---- drawing --------------------------------------------------------------------------- */

static void
draw_lines (CmlPlotGl *self, guint first, guint count)
{
  if (count == 0)
    return;
  gsize stride = sizeof (LineInst);
  gsize base = first * stride;
  glVertexAttribPointer (0, 2, GL_FLOAT, GL_FALSE, stride, (void *) (base + G_STRUCT_OFFSET (LineInst, p0)));
  glVertexAttribPointer (1, 2, GL_FLOAT, GL_FALSE, stride, (void *) (base + G_STRUCT_OFFSET (LineInst, p1)));
  glVertexAttribPointer (2, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride, (void *) (base + G_STRUCT_OFFSET (LineInst, rgba)));
  glVertexAttribPointer (3, 2, GL_FLOAT, GL_FALSE, stride, (void *) (base + G_STRUCT_OFFSET (LineInst, half_width)));
  glDrawArraysInstanced (GL_TRIANGLE_STRIP, 0, 4, count);
}

void
cml_plot_gl_draw (CmlPlotGl *self, CmlPlot *plot, int width, int height,
                  const CmlPlotStyle *style)
{
  g_return_if_fail (self != NULL && plot != NULL && style != NULL);

  if (width <= 0 || height <= 0)
    return;

  gint64 start = g_get_monotonic_time ();
  const double sc = style->scale > 0 ? style->scale : 1.0;
  CmlPlotLayout L;

  memset (&self->stats, 0, sizeof self->stats);
  self->frame++;
  if (self->frame % SWEEP_FRAMES == 0)
    sweep_labels (self);
  if (self->font == NULL || g_strcmp0 (self->font_family, style->font_family) != 0)
    {
      g_clear_pointer (&self->font, pango_font_description_free);
      g_free (self->font_family);
      self->font_family = g_strdup (style->font_family);
      self->font = pango_font_description_from_string (style->font_family);
      g_hash_table_remove_all (self->labels);
      atlas_reset (self);
    }

  cml_plot_layout (plot, style, width, height, measure_text, self, &L);
  self->area[0] = L.area_x, self->area[1] = L.area_y, self->area[2] = L.area_w, self->area[3] = L.area_h;
  self->range[0] = L.x0, self->range[1] = L.x1, self->range[2] = L.y0, self->range[3] = L.y1;
  self->have_frame = TRUE;

  /* lines: [grid][series][axes, ticks, swatches] */
  guint8 fg[4], grid[4];
  rgba_bytes (&style->foreground, fg);
  rgba_bytes (&style->grid, grid);
  g_array_set_size (self->lines, 0);

  double gw = style->grid_width * sc;
  for (guint i = 0; i < L.x_ticks->len; i++)
    {
      double x = crisp (g_array_index (L.x_ticks, CmlPlotTickMark, i).pos, gw);
      add_line (self->lines, x, L.area_y, x, L.area_y + L.area_h, grid, 0.5 * gw);
    }
  for (guint i = 0; i < L.y_ticks->len; i++)
    {
      double y = crisp (g_array_index (L.y_ticks, CmlPlotTickMark, i).pos, gw);
      add_line (self->lines, L.area_x, y, L.area_x + L.area_w, y, grid, 0.5 * gw);
    }
  guint n_grid = self->lines->len;

  double lw = style->line_width * sc;
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    {
      CmlPlotRgba c;
      guint8 rgba[4];
      g_array_set_size (self->points, 0);
      if (cml_plot_series_get_markers (cml_plot_get_series (plot, i)))
        {
          /* a dot per sample: a segment as long as it is wide */
          cml_plot_series_get_color (cml_plot_get_series (plot, i), style, &c);
          rgba_bytes (&c, rgba);
          guint m = cml_plot_layout_series_markers (&L, plot, i, self->points);
          const float *p = (const float *) (gpointer) self->points->data;
          double r = 2.8 * lw;
          for (guint k = 0; k < m; k++)
            add_line (self->lines, p[2 * k] - 0.5 * r, p[2 * k + 1], p[2 * k] + 0.5 * r, p[2 * k + 1], rgba, r);
          continue;
        }
      /* one column per ¾ line width: a thick line shows no finer detail, and dense
       * data cost a third less fill (software GL is fill-bound here) */
      double column = MAX (1.0, 0.75 * lw);
      self->stats.n_series_points += cml_plot_layout_series_points (&L, plot, i, 1.0 / column, lw, self->points);
      cml_plot_series_get_color (cml_plot_get_series (plot, i), style, &c);
      rgba_bytes (&c, rgba);
      if (cml_plot_series_get_dashed (cml_plot_get_series (plot, i)))
        add_dashes (self->lines, self->points, self->dashes, style->dash_on * sc, style->dash_off * sc, rgba,
                    0.5 * style->dash_width * sc);
      else
        add_polyline (self->lines, self->points, rgba, 0.5 * lw, column);
    }
  guint n_series = self->lines->len - n_grid;

  double aw = style->axis_width * sc, tick = style->tick_length * sc;
  double left = crisp (L.area_x, aw), bottom = crisp (L.area_y + L.area_h, aw);
  add_line (self->lines, left, L.area_y, left, bottom, fg, 0.5 * aw);
  add_line (self->lines, left, bottom, L.area_x + L.area_w, bottom, fg, 0.5 * aw);
  for (guint i = 0; i < L.x_ticks->len; i++)
    {
      double x = crisp (g_array_index (L.x_ticks, CmlPlotTickMark, i).pos, aw);
      add_line (self->lines, x, bottom, x, bottom + tick, fg, 0.5 * aw);
    }
  for (guint i = 0; i < L.y_ticks->len; i++)
    {
      double y = crisp (g_array_index (L.y_ticks, CmlPlotTickMark, i).pos, aw);
      add_line (self->lines, left, y, left - tick, y, fg, 0.5 * aw);
    }
  for (guint i = 0; i < L.legend_labels->len; i++)
    {
      const CmlPlotLabel *l = g_ptr_array_index (L.legend_labels, i);
      CmlPlotRgba c;
      guint8 rgba[4];
      double y = round (l->y + 0.5 * l->h);
      double x1 = l->x - L.legend_swatch_gap;
      cml_plot_series_get_color (cml_plot_get_series (plot, i), style, &c);
      rgba_bytes (&c, rgba);
      if (cml_plot_series_get_dashed (cml_plot_get_series (plot, i)))
        {
          float swatch[4] = { (float) (x1 - L.legend_swatch), (float) y, (float) x1, (float) y };
          g_array_set_size (self->points, 0);
          g_array_append_vals (self->points, swatch, 4);
          add_dashes (self->lines, self->points, self->dashes, style->dash_on * sc, style->dash_off * sc, rgba,
                      0.5 * style->dash_width * sc);
        }
      else
        add_line (self->lines, x1 - L.legend_swatch, y, x1, y, rgba, 0.5 * lw);
    }
  guint n_rest = self->lines->len - n_grid - n_series;

  /* text: titles and tick labels, legend, the empty-plot hint */
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (PendingText));
  for (guint i = 0; i < L.labels->len; i++)
    {
      PendingText p = { g_ptr_array_index (L.labels, i), { 0 } };
      memcpy (p.rgba, fg, 4);
      g_array_append_val (pending, p);
    }
  for (guint i = 0; i < L.legend_labels->len; i++)
    {
      PendingText p = { g_ptr_array_index (L.legend_labels, i), { 0 } };
      memcpy (p.rgba, fg, 4);
      g_array_append_val (pending, p);
    }
  if (L.empty_label)
    {
      CmlPlotRgba c = style->foreground;
      c.a *= 0.6f;
      PendingText p = { L.empty_label, { 0 } };
      rgba_bytes (&c, p.rgba);
      g_array_append_val (pending, p);
    }
  build_texts (self, pending);

  /* draw */
  glViewport (0, 0, width, height);
  glDisable (GL_DEPTH_TEST);
  glDisable (GL_CULL_FACE);
  glDisable (GL_SCISSOR_TEST);
  glClearColor (style->background.r, style->background.g, style->background.b, style->background.a);
  glClear (GL_COLOR_BUFFER_BIT);
  glEnable (GL_BLEND);
  glBlendFunc (GL_ONE, GL_ONE_MINUS_SRC_ALPHA);

  glUseProgram (self->line_program);
  glUniform2f (self->line_viewport, (float) width, (float) height);
  glBindVertexArray (self->line_vao);
  glBindBuffer (GL_ARRAY_BUFFER, self->line_vbo);
  glBufferData (GL_ARRAY_BUFFER, self->lines->len * sizeof (LineInst), self->lines->data, GL_STREAM_DRAW);
  draw_lines (self, 0, n_grid);
  /* the series only inside the plot area */
  glEnable (GL_SCISSOR_TEST);
  glScissor ((GLint) floor (L.area_x), (GLint) floor (height - (L.area_y + L.area_h)),
             (GLsizei) ceil (L.area_w) + 1, (GLsizei) ceil (L.area_h) + 1);
  draw_lines (self, n_grid, n_series);
  glDisable (GL_SCISSOR_TEST);
  draw_lines (self, n_grid + n_series, n_rest);

  if (self->texts->len > 0)
    {
      glUseProgram (self->text_program);
      glUniform2f (self->text_viewport, (float) width, (float) height);
      glUniform1i (self->text_atlas, 0);
      glActiveTexture (GL_TEXTURE0);
      glBindTexture (GL_TEXTURE_2D, self->atlas);
      glBindVertexArray (self->text_vao);
      glBindBuffer (GL_ARRAY_BUFFER, self->text_vbo);
      glBufferData (GL_ARRAY_BUFFER, self->texts->len * sizeof (TextInst), self->texts->data, GL_STREAM_DRAW);
      glDrawArraysInstanced (GL_TRIANGLE_STRIP, 0, 4, self->texts->len);
      glBindTexture (GL_TEXTURE_2D, 0);
    }

  glBindVertexArray (0);
  glBindBuffer (GL_ARRAY_BUFFER, 0);
  glUseProgram (0);
  glDisable (GL_BLEND);

  self->stats.n_segments = self->lines->len;
  self->stats.n_labels = self->texts->len;
  self->stats.cpu_ms = (g_get_monotonic_time () - start) / 1000.0;
  cml_plot_layout_clear (&L);
}

gboolean
cml_plot_gl_pick (CmlPlotGl *self, double px, double py, double *x, double *y)
{
  g_return_val_if_fail (self != NULL, FALSE);

  const double *a = self->area, *r = self->range;
  if (!self->have_frame || !(a[2] > 0) || !(a[3] > 0) || px < a[0] || px > a[0] + a[2] || py < a[1]
      || py > a[1] + a[3])
    return FALSE;
  *x = r[0] + (px - a[0]) / a[2] * (r[1] - r[0]);
  *y = r[3] - (py - a[1]) / a[3] * (r[3] - r[2]);
  return isfinite (*x) && isfinite (*y);
}
