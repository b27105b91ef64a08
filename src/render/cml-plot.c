/* cml-plot.c — the backend-free plot model: columns, series, axes, layout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See cml-plot.h for the split between data, mapping and drawing.  Nothing here
 * draws: the backends (cml-plot-gl.c, cml-plot-cairo.c) take a CmlPlotLayout and the
 * series' polylines and turn them into pixels.
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot.h"
#include "cml-expr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== style ============================================================================ */

static CmlPlotRgba
rgb_hex (guint32 hex, float alpha)
{
  return (CmlPlotRgba) { ((hex >> 16) & 0xff) / 255.f, ((hex >> 8) & 0xff) / 255.f,
                         (hex & 0xff) / 255.f, alpha };
}

void
cml_plot_style_init (CmlPlotStyle *style, gboolean dark, gboolean presentation)
{
  /* Okabe–Ito based: tells apart for colour-blind viewers and survives a projector. */
  static const guint32 light_palette[CML_PLOT_PALETTE_SIZE] = {
    0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x8c564b, 0x555555,
  };
  static const guint32 dark_palette[CML_PLOT_PALETTE_SIZE] = {
    0x56b4e9, 0xf0a020, 0x2fd39a, 0xf27dba, 0xf0e442, 0x7f9cff, 0xff7f50, 0xcccccc,
  };

  g_return_if_fail (style != NULL);

  memset (style, 0, sizeof *style);
  style->background = rgb_hex (dark ? 0x1d1d21 : 0xffffff, 1.f);
  style->foreground = rgb_hex (dark ? 0xececec : 0x1e1e1e, 1.f);
  style->grid = rgb_hex (dark ? 0x3b3b42 : 0xe3e3e6, 1.f);
  for (guint i = 0; i < CML_PLOT_PALETTE_SIZE; i++)
    style->palette[i] = rgb_hex (dark ? dark_palette[i] : light_palette[i], 1.f);
  style->font_family = "Cantarell, DejaVu Sans, Sans";
  style->scale = 1.0;
  if (presentation)
    {
      style->font_size = 22;
      style->title_size = 25;
      style->line_width = 4;
      style->axis_width = 2;
      style->grid_width = 1.5;
      style->tick_length = 8;
      style->padding = 14;
      style->min_tick_spacing = 40;
      style->dash_on = 10;
      style->dash_off = 10;
      style->dash_width = 9;
    }
  else
    {
      style->font_size = 13;
      style->title_size = 14;
      style->line_width = 2;
      style->axis_width = 1;
      style->grid_width = 1;
      style->tick_length = 5;
      style->padding = 8;
      style->min_tick_spacing = 24;
      style->dash_on = 6;
      style->dash_off = 6;
      style->dash_width = 4.5;
    }
}

void
cml_plot_style_init_for_figure (CmlPlotStyle *style, gboolean dark, double width, double height)
{
  g_return_if_fail (style != NULL);

  /* the normal style is made for about 800 × 450: keep its proportions at any size, so
   * a 1600 × 900 slide reads like the 800 × 450 figure enlarged, not like a screenshot */
  cml_plot_style_init (style, dark, FALSE);
  style->scale = MAX (1.0, MIN (width / 800.0, height / 450.0));
}

/* ==== columns ========================================================================== */

/* Level k of the pyramid holds, for block j of 2^(BASE_SHIFT + k) samples, the minimum
 * and maximum of its finite values at [2j] and [2j + 1] (+inf, −inf if it has none).
 * Level 0 is built from the samples, level k from level k − 1.  Only the blocks an
 * append touches are recomputed. */
#define BASE_SHIFT 4
#define MAX_LEVELS 40

struct _CmlPlotColumn
{
  gint    ref_count;
  double *data;
  guint   n, cap;
  double *level[MAX_LEVELS];
  guint   level_cap[MAX_LEVELS]; /* in blocks */
  guint   n_levels;
  guint64 n_reads;               /* values and blocks queries looked at (statistics) */
  guint64 stamp;                 /* new for every column and every clear: caches compare it */
};

static guint64
new_stamp (void)
{
  /* columns may be made and cleared on any thread */
  static guint64 last = 0;
  static GMutex lock;
  g_mutex_lock (&lock);
  guint64 stamp = ++last;
  g_mutex_unlock (&lock);
  return stamp;
}

/* Queries take a const column but count their work. */
#define COUNT_READS(column, k) (((CmlPlotColumn *) (column))->n_reads += (k))

static inline guint
block_size (guint k)
{
  return 1u << (BASE_SHIFT + k);
}

CmlPlotColumn *
cml_plot_column_new (void)
{
  CmlPlotColumn *column = g_new0 (CmlPlotColumn, 1);
  column->ref_count = 1;
  column->stamp = new_stamp ();
  return column;
}

CmlPlotColumn *
cml_plot_column_ref (CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, NULL);
  g_atomic_int_inc (&column->ref_count);
  return column;
}

void
cml_plot_column_unref (CmlPlotColumn *column)
{
  if (column == NULL || !g_atomic_int_dec_and_test (&column->ref_count))
    return;
  g_free (column->data);
  for (guint k = 0; k < MAX_LEVELS; k++)
    g_free (column->level[k]);
  g_free (column);
}

static void
column_grow (CmlPlotColumn *column, guint n_new)
{
  if (n_new <= column->cap)
    return;
  guint cap = MAX (column->cap, 1024u);
  while (cap < n_new)
    cap = cap > G_MAXUINT / 2 ? G_MAXUINT : cap * 2;
  column->data = g_renew (double, column->data, cap);
  column->cap = cap;
}

/* Recomputes the pyramid blocks that contain samples [n_old, n). */
static void
column_update_pyramid (CmlPlotColumn *column, guint n_old)
{
  guint n = column->n;

  for (guint k = 0; k < MAX_LEVELS; k++)
    {
      guint bs = block_size (k);
      guint n_blocks = (guint) (((guint64) n + bs - 1) / bs);

      /* a level is worth having while the level below has more than one block */
      if (k > 0 && ((guint64) n + (bs >> 1) - 1) / (bs >> 1) <= 1)
        break;

      if (n_blocks > column->level_cap[k])
        {
          guint cap = MAX (column->level_cap[k], 64u);
          while (cap < n_blocks)
            cap *= 2;
          column->level[k] = g_renew (double, column->level[k], 2 * (gsize) cap);
          column->level_cap[k] = cap;
        }

      double *lv = column->level[k];
      for (guint j = n_old / bs; j < n_blocks; j++)
        {
          double lo = INFINITY, hi = -INFINITY;
          if (k == 0)
            {
              guint end = MIN ((j + 1) * bs, n);
              for (guint i = j * bs; i < end; i++)
                {
                  double v = column->data[i];
                  if (isfinite (v))
                    {
                      lo = MIN (lo, v);
                      hi = MAX (hi, v);
                    }
                }
            }
          else
            {
              const double *below = column->level[k - 1];
              guint n_below = (guint) (((guint64) n + (bs >> 1) - 1) / (bs >> 1));
              for (guint c = 2 * j; c < MIN (2 * j + 2, n_below); c++)
                {
                  lo = MIN (lo, below[2 * c]);
                  hi = MAX (hi, below[2 * c + 1]);
                }
            }
          lv[2 * j] = lo;
          lv[2 * j + 1] = hi;
        }
      column->n_levels = k + 1;
    }
}

void
cml_plot_column_append (CmlPlotColumn *column, const double *values, guint n, guint stride)
{
  g_return_if_fail (column != NULL);
  g_return_if_fail (n == 0 || values != NULL);

  if (n == 0)
    return;
  if (stride == 0)
    stride = 1;

  guint n_old = column->n;
  column_grow (column, n_old + n);
  if (stride == 1)
    memcpy (column->data + n_old, values, n * sizeof (double));
  else
    for (guint k = 0; k < n; k++)
      column->data[n_old + k] = values[(gsize) k * stride];
  column->n = n_old + n;
  column_update_pyramid (column, n_old);
}

void
cml_plot_column_clear (CmlPlotColumn *column)
{
  g_return_if_fail (column != NULL);
  column->n = 0;
  column->n_levels = 0;
  column->stamp = new_stamp ();
}

guint
cml_plot_column_get_n (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, 0);
  return column->n;
}

guint64
cml_plot_column_get_n_reads (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, 0);
  return column->n_reads;
}

const double *
cml_plot_column_get_data (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, NULL);
  return column->data;
}

/* Finds, for a block starting at I, the highest level whose block starting there lies
 * inside [i, i1); -1 if not even a level-0 block fits (or I is not aligned). */
static inline int
column_best_level (const CmlPlotColumn *column, guint i, guint i1)
{
  int best = -1;
  for (guint k = 0; k < column->n_levels; k++)
    {
      guint bs = block_size (k);
      if ((i & (bs - 1)) != 0 || (guint64) i + bs > i1)
        break;
      best = (int) k;
    }
  return best;
}

gboolean
cml_plot_column_range (const CmlPlotColumn *column, guint i0, guint i1, double *min,
                       double *max)
{
  g_return_val_if_fail (column != NULL, FALSE);

  i1 = MIN (i1, column->n);
  double lo = INFINITY, hi = -INFINITY;

  /* Greedy cover of [i0, i1) by the largest aligned blocks: at most two blocks per
   * level plus fewer than 2·16 single samples at the ends. */
  for (guint i = i0; i < i1;)
    {
      int k = column_best_level (column, i, i1);
      COUNT_READS (column, 1);
      if (k < 0)
        {
          double v = column->data[i];
          if (isfinite (v))
            {
              lo = MIN (lo, v);
              hi = MAX (hi, v);
            }
          i++;
        }
      else
        {
          guint bs = block_size ((guint) k);
          const double *lv = column->level[k];
          lo = MIN (lo, lv[2 * (i / bs)]);
          hi = MAX (hi, lv[2 * (i / bs) + 1]);
          i += bs;
        }
    }

  if (lo > hi)
    return FALSE;
  if (min)
    *min = lo;
  if (max)
    *max = hi;
  return TRUE;
}

guint
cml_plot_column_lower_bound (const CmlPlotColumn *column, double x)
{
  g_return_val_if_fail (column != NULL, 0);

  guint lo = 0, hi = column->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      COUNT_READS (column, 1);
      if (column->data[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first index whose value is > X. */
static guint
column_upper_bound (const CmlPlotColumn *column, double x)
{
  guint lo = 0, hi = column->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      COUNT_READS (column, 1);
      if (column->data[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* ==== series =========================================================================== */

typedef struct _CmlPlotPhaseCache CmlPlotPhaseCache;
static void phase_cache_free (CmlPlotPhaseCache *cache);

struct _CmlPlotSeries
{
  gint           ref_count;
  char          *name, *unit;
  CmlPlotColumn *t, *x, *y;
  gboolean       owns_columns;
  gboolean       has_color;
  CmlPlotRgba    color;
  int            palette_index; /* -1: not yet given one */
  gboolean       dashed;        /* drawn dashed: a closed form */
  CmlPlotPhaseCache *phase;     /* the last phase-portrait polyline (see below) */
};

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

gboolean
cml_plot_unit_is_dimensional (const char *unit)
{
  if (unit == NULL)
    return FALSE;
  while (g_ascii_isspace (*unit))
    unit++;
  return unit[0] != '\0' && strcmp (unit, "1") != 0 && strcmp (unit, "-") != 0 &&
         strcmp (unit, "–") != 0;
}

static void
append_superscript (GString *s, int n);

char *
cml_plot_format_unit (const char *unit)
{
  if (!cml_plot_unit_is_dimensional (unit))
    return g_strdup ("");

  GString *s = g_string_new (NULL);
  for (const char *c = unit; *c; )
    {
      if (*c == '^')
        {
          /* an integer exponent as superscript; anything else stays as written */
          char *end;
          long e = strtol (c + 1, &end, 10);
          if (end != c + 1 && (end[0] == '\0' || !g_ascii_isalnum (end[0])) && e > -100 && e < 100)
            {
              append_superscript (s, (int) e);
              c = end;
              continue;
            }
        }
      if (*c == '*')
        g_string_append (s, "·");
      else if (*c == ' ')
        {
          /* "J s" is a product, J·s: never "Js" (and "m s" never "ms", a millisecond) */
          while (c[1] == ' ')
            c++;
          if (s->len > 0 && c[1] != '\0' && c[1] != '/' && c[1] != ')' && s->str[s->len - 1] != '('
              && !g_str_has_suffix (s->str, "/") && !g_str_has_suffix (s->str, "·"))
            g_string_append (s, "·");
        }
      else
        g_string_append_c (s, *c);
      c++;
    }
  return g_string_free (s, FALSE);
}

/* A quantity's name as the equations write it ("x1" → "x₁", "rho" → "ρ"); other labels
 * ("energy, pr", a title) as they are. */
static char *
pretty_label (const char *label)
{
  gboolean identifier = g_ascii_isalpha (label[0]);

  for (const char *c = label; *c && identifier; c++)
    identifier = g_ascii_isalnum (*c);
  return identifier ? cml_expr_pretty_name (label, FALSE) : g_strdup (label);
}

static char *
label_with_unit (const char *label, const char *unit)
{
  g_autofree char *u = cml_plot_format_unit (unit);
  g_autofree char *name = pretty_label (label);

  if (u[0] != '\0' && name[0] != '\0')
    return g_strdup_printf ("%s [%s]", name, u);
  return g_steal_pointer (&name);
}

void
cml_plot_append_quantity (GString *s, const char *name, double value, const char *unit)
{
  g_return_if_fail (s != NULL && name != NULL);

  char num[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *u = cml_plot_format_unit (unit);
  /* as the equations write it: "Omega1" → "Ω₁", "k2" → "k₂" */
  g_autofree char *symbol = cml_expr_pretty_name (name, FALSE);

  g_string_append (s, symbol);
  g_string_append (s, " = ");
  /* four significant digits, no exponent for everyday sizes */
  g_ascii_formatd (num, sizeof num, "%.4g", fabs (value) < 1e-300 ? 0.0 : value);
  if (num[0] == '-')
    g_string_append (s, "−");
  g_string_append (s, num[0] == '-' ? num + 1 : num);
  if (u[0] != '\0')
    g_string_append_printf (s, " %s", u);
}

char *
cml_plot_series_dup_label (const CmlPlotSeries *series)
{
  g_return_val_if_fail (series != NULL, NULL);
  return label_with_unit (series->name, series->unit);
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
  *i1 = MIN (column_upper_bound (series->t, t1), n);
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
        e = MIN (column_upper_bound (series->x, x1), n);
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


/* ==== axes ============================================================================= */

struct _CmlPlotAxis
{
  char    *label, *unit;
  double   min, max;
  gboolean auto_scale;
  gboolean have_range;  /* auto-scaling has chosen a range */
  double   padding;
};

CmlPlotAxis *
cml_plot_axis_new (const char *label, const char *unit)
{
  CmlPlotAxis *axis = g_new0 (CmlPlotAxis, 1);
  axis->label = g_strdup (label ? label : "");
  axis->unit = g_strdup (unit ? unit : "");
  axis->min = 0;
  axis->max = 1;
  axis->auto_scale = TRUE;
  axis->padding = 0.05;
  return axis;
}

void
cml_plot_axis_free (CmlPlotAxis *axis)
{
  if (axis == NULL)
    return;
  g_free (axis->label);
  g_free (axis->unit);
  g_free (axis);
}

void
cml_plot_axis_set_label (CmlPlotAxis *axis, const char *label, const char *unit)
{
  g_return_if_fail (axis != NULL);
  g_free (axis->label);
  g_free (axis->unit);
  axis->label = g_strdup (label ? label : "");
  axis->unit = g_strdup (unit ? unit : "");
}

const char *
cml_plot_axis_get_label (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return axis->label;
}

const char *
cml_plot_axis_get_unit (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return axis->unit;
}

char *
cml_plot_axis_dup_title (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, NULL);
  return label_with_unit (axis->label, axis->unit);
}

void
cml_plot_axis_set_range (CmlPlotAxis *axis, double min, double max)
{
  g_return_if_fail (axis != NULL);
  g_return_if_fail (max > min);
  axis->min = min;
  axis->max = max;
  axis->auto_scale = FALSE;
}

void
cml_plot_axis_get_range (const CmlPlotAxis *axis, double *min, double *max)
{
  g_return_if_fail (axis != NULL);
  if (min)
    *min = axis->min;
  if (max)
    *max = axis->max;
}

void
cml_plot_axis_set_auto_scale (CmlPlotAxis *axis, gboolean auto_scale)
{
  g_return_if_fail (axis != NULL);
  axis->auto_scale = !!auto_scale;
  axis->have_range = FALSE;
}

gboolean
cml_plot_axis_get_auto_scale (const CmlPlotAxis *axis)
{
  g_return_val_if_fail (axis != NULL, FALSE);
  return axis->auto_scale;
}

void
cml_plot_axis_set_padding (CmlPlotAxis *axis, double fraction)
{
  g_return_if_fail (axis != NULL);
  axis->padding = MAX (fraction, 0.0);
}

/* A step of the form m × 10^e with m in {1, 2, 5}. */
typedef struct
{
  int m, e;
} NiceStep;

static NiceStep
nice_step (double span, guint max_intervals)
{
  double raw = span / MAX (max_intervals, 1u);
  if (!(raw > 0) || !isfinite (raw))
    return (NiceStep) { 1, 0 };
  int e = (int) floor (log10 (raw));
  double f = raw / pow (10.0, e);
  /* f in [1, 10) up to rounding; the tolerance keeps 0.2 at 0.2 */
  NiceStep s;
  if (f <= 1.0 + 1e-9)
    s = (NiceStep) { 1, e };
  else if (f <= 2.0 + 1e-9)
    s = (NiceStep) { 2, e };
  else if (f <= 5.0 + 1e-9)
    s = (NiceStep) { 5, e };
  else
    s = (NiceStep) { 1, e + 1 };
  return s;
}

/* k · m · 10^e, correctly rounded (one rounding: an exact integer times or divided by an
 * exact power of ten). */
static double
nice_value (double k, NiceStep s)
{
  double km = k * s.m;
  if (s.e >= 0)
    return km * pow (10.0, s.e);
  if (s.e >= -22) /* 10^22 is the largest power of ten a double holds exactly */
    return km / pow (10.0, -s.e);
  return km * pow (10.0, s.e);
}

static double
nice_step_value (NiceStep s)
{
  return nice_value (1, s);
}

double
cml_plot_nice_step (double span, guint max_intervals)
{
  return nice_step_value (nice_step (span, max_intervals));
}

void
cml_plot_axis_fit (CmlPlotAxis *axis, double data_min, double data_max, gboolean reset)
{
  g_return_if_fail (axis != NULL);

  if (!axis->auto_scale)
    return;
  if (reset)
    axis->have_range = FALSE;
  if (!isfinite (data_min) || !isfinite (data_max) || data_min > data_max)
    return;

  /* a nearly constant quantity gets a span of 1e-6 of its size, zero [−1, 1] */
  double mag = MAX (fabs (data_min), fabs (data_max));
  if (mag == 0)
    {
      if (!axis->have_range || axis->min > 0 || axis->max < 0)
        {
          axis->min = -1;
          axis->max = 1;
          axis->have_range = TRUE;
        }
      return;
    }
  /* (exactly constant: a single sample, or a quantity that does not move at all, gets
   * room to show where it is, ±10 %) */
  double min_span = data_max == data_min ? mag * 0.2 : mag * 1e-6;
  if (data_max - data_min < min_span)
    {
      double mid = 0.5 * (data_min + data_max);
      data_min = mid - 0.5 * min_span;
      data_max = mid + 0.5 * min_span;
    }

  /* keep the current range while the data fit and fill a third of it */
  if (axis->have_range && data_min >= axis->min && data_max <= axis->max &&
      (data_max - data_min) >= (axis->max - axis->min) / 3)
    return;

  double pad = axis->padding * (data_max - data_min);
  double lo = data_min - pad, hi = data_max + pad;
  NiceStep s = nice_step (hi - lo, 20);
  double step = nice_step_value (s);
  double new_min = nice_value (floor (lo / step), s);
  double new_max = nice_value (ceil (hi / step), s);
  /* positive data do not get a negative margin (a residual, a norm): zero is the edge
   * (data exactly at zero keep their margin, or the axis line would hide them) */
  if (data_min > 0 && lo < 0)
    new_min = 0;
  if (data_max < 0 && hi > 0)
    new_max = 0;
  if (!(new_max > new_min))
    {
      new_min = lo;
      new_max = hi;
    }
  axis->min = new_min;
  axis->max = new_max;
  axis->have_range = TRUE;
}

double
cml_plot_axis_fraction (const CmlPlotAxis *axis, double value)
{
  g_return_val_if_fail (axis != NULL, 0);
  return (value - axis->min) / (axis->max - axis->min);
}

static void
append_superscript (GString *s, int n)
{
  static const char *const digits[10] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  char buf[16];
  g_snprintf (buf, sizeof buf, "%d", n);
  for (const char *p = buf; *p; p++)
    g_string_append (s, *p == '-' ? "⁻" : digits[*p - '0']);
}

void
cml_plot_format_tick (double value, double step, double max_abs, char *buf, gsize size)
{
  g_return_if_fail (buf != NULL && size > 0);

  if (value == 0 || !isfinite (value) || !(step > 0))
    {
      g_snprintf (buf, size, isfinite (value) ? "0" : "%g", value);
      return;
    }

  g_autoptr (GString) s = g_string_new (NULL);
  int e_step = (int) floor (log10 (step) + 1e-9);
  gboolean sci = max_abs >= 1e5 || max_abs < 1e-3;
  char num[64];

  if (sci)
    {
      /* one exponent for the axis, from its largest tick */
      int e = (int) floor (log10 (MAX (max_abs, step)) + 1e-9);
      int decimals = MAX (0, e - e_step);
      /* the mantissa m·10^(e−e_step) is an integer times 10^-decimals */
      double mant = value / pow (10.0, e);
      g_snprintf (num, sizeof num, "%.*f", decimals, fabs (mant));
      if (value < 0)
        g_string_append (s, "−");
      g_string_append (s, num);
      g_string_append (s, "×10");
      append_superscript (s, e);
    }
  else
    {
      int decimals = MAX (0, -e_step);
      g_snprintf (num, sizeof num, "%.*f", decimals, fabs (value));
      if (value < 0)
        g_string_append (s, "−");
      g_string_append (s, num);
    }
  g_strlcpy (buf, s->str, size);
}

/* The ticks of the range [MIN, MAX] (an axis' own, or the wider one of equal scales). */
static guint
ticks_for_range (double min, double max, guint max_intervals, CmlPlotTick *ticks,
                 guint n_max, double *step_out)
{
  double span = max - min;
  if (!(span > 0) || !isfinite (span))
    return 0;

  NiceStep s = nice_step (span, max_intervals);
  double step = nice_step_value (s);
  double eps = 1e-9 * step;
  double k0 = ceil ((min - eps) / step);
  double k1 = floor ((max + eps) / step);
  double max_abs = MAX (fabs (nice_value (k0, s)), fabs (nice_value (k1, s)));
  guint n = 0;

  if (step_out)
    *step_out = step;
  for (double k = k0; k <= k1 && n < n_max; k++)
    {
      ticks[n].value = nice_value (k, s);
      cml_plot_format_tick (ticks[n].value, step, max_abs, ticks[n].label,
                            sizeof ticks[n].label);
      n++;
    }
  return n;
}

guint
cml_plot_axis_ticks (const CmlPlotAxis *axis, guint max_intervals, CmlPlotTick *ticks,
                     guint n_max, double *step_out)
{
  g_return_val_if_fail (axis != NULL, 0);
  g_return_val_if_fail (n_max == 0 || ticks != NULL, 0);
  return ticks_for_range (axis->min, axis->max, max_intervals, ticks, n_max, step_out);
}

/* ==== the plot ========================================================================= */

struct _CmlPlot
{
  gint         ref_count;
  char        *title;
  char        *subtitle;      /* the parameters' line under the title, or "" */
  CmlPlotAxis *x_axis, *y_axis;
  GPtrArray   *series;        /* CmlPlotSeries* */
  gboolean     against_time;
  double       window;
  gboolean     show_all;
  int          legend;        /* -1 automatic, 0 hidden, 1 shown */
  gboolean     equal_scales;  /* the user's toggle (applies when the units match) */
  gboolean     reset_pending; /* the next update forgets the auto-scaled ranges */
};

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
  /* one unit on both axes: the picture is a piece of the plane (an orbit in metres, or
   * the components of a unit vector, both declared dimensionless), whose shape is what it
   * shows; mixed units (u [m/s] against x [m]) have no shape to keep, and quantities whose
   * units the model does not give say nothing */
  return plot->equal_scales && !plot->against_time &&
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
 * legend entry or a title wider than the whole frame (cut text would be worse). */
static void
label_fit (CmlPlotLabel *label, double max_w, CmlPlotMeasureFunc measure, gpointer user_data)
{
  if (label->w <= max_w)
    return;

  g_autofree char *full = label->text;
  glong n = g_utf8_strlen (full, -1);
  label->text = NULL;
  while (n > 0)
    {
      n--;
      const char *end = g_utf8_offset_to_pointer (full, n);
      g_free (label->text);
      label->text = g_strdup_printf ("%.*s…", (int) (end - full), full);
      measure (label->text, label->size, label->bold, &label->w, &label->h, user_data);
      if (label->w <= max_w)
        break;
    }
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
  guint y_intervals = (guint) CLAMP (layout->area_h / (1.6 * font_h), 2, 8);
  gboolean equal = cml_plot_get_equal_scales_apply (plot);
  GPtrArray *y_labels = g_ptr_array_new_with_free_func (label_free);
  double left0 = left;
  guint n_y = 0;
  for (guint pass = 0;; pass++)
    {
      double y_label_w = 0;
      n_y = ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
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
      /* the labels of the final ranges (the margin stays as measured) */
      n_y = ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
      g_ptr_array_set_size (y_labels, 0);
      for (guint i = 0; i < n_y; i++)
        g_ptr_array_add (y_labels, label_new (ticks[i].label, font, measure, user_data));
    }

  /* x ticks: as many as fit with min_tick_spacing between the labels */
  guint x_intervals = (guint) CLAMP (layout->area_w / (tw + style->min_tick_spacing * sc), 1, 16);
  GPtrArray *x_labels = g_ptr_array_new_with_free_func (label_free);
  guint n_x = 0;
  for (;;)
    {
      n_x = ticks_for_range (layout->x0, layout->x1, x_intervals, ticks, MAX_TICKS, NULL);
      g_ptr_array_set_size (x_labels, 0);
      double widest = 0;
      for (guint i = 0; i < n_x; i++)
        {
          CmlPlotLabel *l = label_new (ticks[i].label, font, measure, user_data);
          widest = MAX (widest, l->w);
          g_ptr_array_add (x_labels, l);
        }
      double spacing = n_x > 1 ? layout->area_w * (ticks[1].value - ticks[0].value) / (layout->x1 - layout->x0) : G_MAXDOUBLE;
      if (spacing >= widest + style->min_tick_spacing * sc || x_intervals <= 1)
        break;
      x_intervals = MAX (1u, x_intervals * 2 / 3);
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

  ticks_for_range (layout->y0, layout->y1, y_intervals, ticks, MAX_TICKS, NULL);
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

  n_x = ticks_for_range (layout->x0, layout->x1, x_intervals, ticks, MAX_TICKS, NULL);
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

  if (plot->series->len == 0)
    layout->empty_message = "No series selected";
  else
    {
      double a, b;
      if (!cml_plot_get_time_extent (plot, &a, &b))
        layout->empty_message = "No data yet — press Play";
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
}

guint
cml_plot_layout_series_points (const CmlPlotLayout *layout, CmlPlot *plot, guint i,
                               double oversample, double line_width, GArray *points_f)
{
  g_return_val_if_fail (layout != NULL && plot != NULL && points_f != NULL, 0);
  g_return_val_if_fail (i < plot->series->len, 0);
  g_return_val_if_fail (g_array_get_element_size (points_f) == sizeof (float), 0);

  CmlPlotSeries *s = g_ptr_array_index (plot->series, i);
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
