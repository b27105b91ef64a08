/* cml-plot-sweep.c — `cmlab-cli plot SWEEP.csv [--y COL[,COL...]] -o FILE`: the figure of
 * a sweep file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A sweep file is what `cmlab-cli sweep` writes: the line "# cmlab sweep: model NAME;
 * vary P[, Q]", any further "#" lines, the column names (the varied parameters first, then
 * the measured columns) and one row per point in grid order (nan where a run failed).
 * The units and the title come from the model: the file of the "# model file: PATH"
 * line when it is there and holds a model of that name, else the built-in model of that
 * name.
 * One varied parameter gives a curve per measured column against it; two give a heat map
 * of one measured column over the grid (P along x, Q along y).  The model is looked up by
 * its name for the units of the axes and the colour bar and for the title; a model that
 * cannot be found leaves the units out.  The rows must make the whole grid (the merged
 * shards, not one shard).
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-plot-sweep.h"

#include <glib/gi18n.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cml-cli-common.h"
#include "cml-expr.h"
#include "cml-model.h"
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#include "cml-read-file.h"
#include "cml-sweep.h"

#define SWEEP_LINE_HELP "“" CML_SWEEP_FILE_TAG "NAME; vary P[, Q]”"

/* a sweep file, in bytes (some 10⁷ numbers): read whole, the rows kept as doubles */
#define CML_SWEEP_FILE_MAX_BYTES ((gsize) 256 * 1024 * 1024)

gboolean
cml_plot_sweep_is_file (const char *arg)
{
  char head[sizeof CML_SWEEP_FILE_TAG] = { 0 };
  gsize n = 0;
  int fd;

  if (arg == NULL)
    return FALSE;
  if (g_str_has_suffix (arg, ".csv") || g_str_has_suffix (arg, ".CSV"))
    return TRUE;
  /* a regular file only (a FIFO would block the read): its first bytes */
  if ((fd = cml_read_file_open (arg, NULL)) < 0)
    return FALSE;
  while (n < sizeof head - 1)
    {
      ssize_t got = read (fd, head + n, sizeof head - 1 - n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      n += (gsize) got;
    }
  close (fd);
  return n == sizeof head - 1 && strcmp (head, CML_SWEEP_FILE_TAG) == 0;
}

/* A number of a sweep row: what %.17g writes, or nan / inf / -inf. */
static gboolean
parse_cell (const char *s, double *out)
{
  char *end = NULL;

  if (g_ascii_strcasecmp (s, "nan") == 0)
    return (*out = NAN), TRUE;
  if (g_ascii_strcasecmp (s, "inf") == 0)
    return (*out = INFINITY), TRUE;
  if (g_ascii_strcasecmp (s, "-inf") == 0)
    return (*out = -INFINITY), TRUE;
  errno = 0;
  *out = g_ascii_strtod (s, &end);
  if (*s == '\0' || end == s || *end != '\0')
    return FALSE;
  /* an underflow is the nearest double all the same (5e-324, the smallest subnormal,
   * which sweep writes, sets ERANGE); an overflow is not a number sweep writes */
  return errno == 0 || (errno == ERANGE && fabs (*out) <= DBL_MIN);
}

/* The file read: the model's name, the varied parameters, the columns and the rows. */
typedef struct
{
  char      *model;
  char      *model_file; /* the "# model file: " line's path, or NULL */
  GStrv      vary;     /* the varied parameters, in grid order */
  GStrv      columns;  /* every column: the varied ones first */
  guint      n_cols;
  GArray    *values;   /* n_rows × n_cols doubles */
  guint      n_rows;
} SweepFile;

static void
sweep_file_clear (SweepFile *f)
{
  g_free (f->model);
  g_free (f->model_file);
  g_strfreev (f->vary);
  g_strfreev (f->columns);
  if (f->values)
    g_array_unref (f->values);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SweepFile, sweep_file_clear)

static gboolean
read_sweep_file (const char *path, SweepFile *f, char **why)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  guint k = 0;

  gsize len = 0;
  const char *nul;

  /* a regular file of at most CML_SWEEP_FILE_MAX_BYTES, read once */
  if (!cml_read_file_capped (path, CML_SWEEP_FILE_MAX_BYTES, _("a sweep file"), &text, &len, &error))
    {
      *why = g_strdup_printf ("%s: %s", path, error->message);
      return FALSE;
    }
  /* a NUL byte would end the text there, every later row dropped unseen */
  if ((nul = memchr (text, '\0', len)) != NULL)
    {
      guint line = 1;
      for (const char *c = text; c < nul; c++)
        line += *c == '\n';
      *why = g_strdup_printf (_("%s: line %u has a NUL byte: not a text file"), path, line);
      return FALSE;
    }
  lines = g_strsplit (text, "\n", -1);
  if (lines[0] == NULL || !g_str_has_prefix (lines[0], CML_SWEEP_FILE_TAG))
    {
      *why = g_strdup_printf (_("%s is not a sweep file: its first line must be %s (the line cmlab-cli sweep writes first)"), path, SWEEP_LINE_HELP);
      return FALSE;
    }

  /* "NAME; vary P, Q" */
  const char *rest = lines[0] + strlen (CML_SWEEP_FILE_TAG);
  const char *semi = strstr (rest, "; vary ");
  if (semi == NULL || semi == rest)
    {
      *why = g_strdup_printf (_("%s: line 1 must read %s (the line cmlab-cli sweep writes first), not “%s”"), path, SWEEP_LINE_HELP, lines[0]);
      return FALSE;
    }
  f->model = g_strstrip (g_strndup (rest, semi - rest));
  f->vary = g_strsplit (semi + strlen ("; vary "), ",", -1);
  if (f->vary[0] == NULL || (f->vary[1] == NULL && *g_strstrip (f->vary[0]) == '\0'))
    {
      *why = g_strdup_printf (_("%s:1: the sweep varies no parameter: line 1 must read %s, not “%s”"), path,
                              SWEEP_LINE_HELP, lines[0]);
      return FALSE;
    }
  for (guint j = 0; f->vary[j]; j++)
    if (*g_strstrip (f->vary[j]) == '\0')
      {
        *why = g_strdup_printf (_("%s: line 1 names an empty parameter: “%s”"), path, lines[0]);
        return FALSE;
      }
  guint n_vary = g_strv_length (f->vary);

  /* further comment lines (the model file among them), then the column names */
  for (k = 1; lines[k] && lines[k][0] == '#'; k++)
    if (g_str_has_prefix (lines[k], CML_SWEEP_MODEL_FILE_TAG) && f->model_file == NULL)
      {
        f->model_file = g_strdup (lines[k] + strlen (CML_SWEEP_MODEL_FILE_TAG));
        g_strchomp (f->model_file);
      }
  if (lines[k] == NULL || *g_strstrip (lines[k]) == '\0')
    {
      *why = g_strdup_printf (_("%s has no line of column names after its comment lines"), path);
      return FALSE;
    }
  f->columns = g_strsplit (lines[k], ",", -1);
  f->n_cols = g_strv_length (f->columns);
  if (f->n_cols > CML_CLI_MAX_SWEEP_COLUMNS)
    {
      *why = g_strdup_printf (_("%s: line %u names %u columns; plot reads at most %u"), path, k + 1, f->n_cols,
                              CML_CLI_MAX_SWEEP_COLUMNS);
      return FALSE;
    }
  for (guint c = 0; c < f->n_cols; c++)
    g_strstrip (f->columns[c]);
  if (f->n_cols <= n_vary)
    {
      *why = g_strdup_printf (_("%s: line %u has no measured column after the varied parameters"), path, k + 1);
      return FALSE;
    }
  for (guint j = 0; j < n_vary; j++)
    if (!g_str_equal (f->columns[j], f->vary[j]))
      {
        *why = g_strdup_printf (_("%s: column %u is “%s”, but line 1 says the sweep varies “%s” there"), path, j + 1,
                                f->columns[j], f->vary[j]);
        return FALSE;
      }

  /* the rows */
  f->values = g_array_new (FALSE, FALSE, sizeof (double));
  for (k++; lines[k]; k++)
    {
      g_auto (GStrv) cells = NULL;

      g_strstrip (lines[k]);
      if (lines[k][0] == '\0' || lines[k][0] == '#')
        continue;
      cells = g_strsplit (lines[k], ",", -1);
      if (g_strv_length (cells) != f->n_cols)
        {
          *why = g_strdup_printf (_("%s: line %u has %u fields, the header %u"), path, k + 1, g_strv_length (cells),
                                  f->n_cols);
          return FALSE;
        }
      for (guint c = 0; c < f->n_cols; c++)
        {
          double v;
          if (!parse_cell (g_strstrip (cells[c]), &v) || (c < n_vary && !isfinite (v)))
            {
              *why = g_strdup_printf (_("%s: line %u, column %s: “%s” is not a number"), path, k + 1, f->columns[c],
                                      cells[c]);
              return FALSE;
            }
          g_array_append_val (f->values, v);
        }
      f->n_rows++;
    }
  if (f->n_rows == 0)
    {
      *why = g_strdup_printf (_("%s has no rows"), path);
      return FALSE;
    }
  return TRUE;
}

static double
cell (const SweepFile *f, guint row, guint col)
{
  return g_array_index (f->values, double, (gsize) row * f->n_cols + col);
}

/* A measured column's unit: the model's for its name ("x@2.5" is x's). */
static const char *
column_unit (const CmlModel *model, const char *column)
{
  if (model == NULL)
    return "";
  g_autofree char *name = g_strdup (column);
  char *at = strchr (name, '@');
  if (at)
    *at = '\0';
  const char *unit = cml_model_unit (model, name);
  return unit ? g_intern_string (unit) : "";
}

/* The measured columns to plot: YCOLS (names of measured columns) or all. */
static gboolean
choose_columns (const SweepFile *f, const char *ycols, GArray *chosen, char **why)
{
  guint n_vary = g_strv_length (f->vary);

  if (ycols == NULL)
    {
      /* a curve each (a heat map shows the first alone) */
      if (n_vary == 1 && f->n_cols - n_vary > CML_CLI_MAX_SERIES)
        {
          *why = g_strdup_printf (_("the sweep file has %u measured columns; a plot draws at most %u: choose them "
                                  "with --y"), f->n_cols - n_vary, CML_CLI_MAX_SERIES);
          return FALSE;
        }
      for (guint c = n_vary; c < f->n_cols; c++)
        g_array_append_val (chosen, c);
      return TRUE;
    }
  g_auto (GStrv) names = g_strsplit (ycols, ",", -1);
  if (g_strv_length (names) > CML_CLI_MAX_SERIES)
    {
      *why = g_strdup_printf (_("--y names %u columns; a plot draws at most %u: make several plots"),
                              g_strv_length (names), CML_CLI_MAX_SERIES);
      return FALSE;
    }
  for (guint k = 0; names[k]; k++)
    {
      guint c = n_vary;
      g_strstrip (names[k]);
      while (c < f->n_cols && !g_str_equal (f->columns[c], names[k]))
        c++;
      if (c == f->n_cols)
        {
          g_autofree char *have = g_strjoinv (", ", f->columns + n_vary);
          *why = g_strdup_printf (_("the sweep file has no measured column “%s” (it has %s)"), names[k], have);
          return FALSE;
        }
      g_array_append_val (chosen, c);
    }
  return TRUE;
}

int
cml_plot_sweep_draw (const char *path, const char *ycols, const char *title, int width, int height,
                     gboolean dark, const char *output)
{
  g_auto (SweepFile) f = { 0 };
  g_autofree char *why = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) chosen = g_array_new (FALSE, FALSE, sizeof (guint));

  if (!read_sweep_file (path, &f, &why) || !choose_columns (&f, ycols, chosen, &why))
    return cml_cli_usage_error (NULL, "%s", why);
  guint n_vary = g_strv_length (f.vary);
  if (n_vary > 2)
    return cml_cli_usage_error (NULL, _("%s varies %u parameters: plot draws a sweep of one (curves) or two (a heat "
                                "map)"), path, n_vary);

  /* the model, for units and the title: the file the sweep ran (when it is still there
   * and is the same model), else the built-in of that name; none is fine */
  g_autoptr (CmlModel) model = f.model_file && *f.model_file ? cml_model_new_from_file (f.model_file, NULL) : NULL;
  if (model && !g_str_equal (model->name, f.model))
    g_clear_pointer (&model, cml_model_unref);
  if (model == NULL)
    model = cml_model_load (f.model, NULL);
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  const char *first = f.columns[g_array_index (chosen, guint, 0)];
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_set_equal_scales (plot, FALSE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), f.vary[0], model ? cml_model_unit (model, f.vary[0]) : "");

  /* WHAT names the columns as they are typed (the message below); the title shows the
   * parameters typeset (Ω, not Omega), as the axes do */
  g_autoptr (GString) what = g_string_new (NULL);
  g_autoptr (GString) shown = g_string_new (NULL);
  g_autofree char *p0 = model ? cml_model_display_name (model, f.vary[0]) : cml_expr_pretty_name (f.vary[0], FALSE);
  if (n_vary == 1)
    {
      /* a curve per measured column against the parameter */
      g_autoptr (CmlPlotColumn) index = cml_plot_column_new ();
      g_autoptr (CmlPlotColumn) xs = cml_plot_column_new ();
      const char *unit0 = column_unit (model, first);
      gboolean same_unit = TRUE;
      for (guint r = 0; r < f.n_rows; r++)
        {
          double i = r, x = cell (&f, r, 0);
          cml_plot_column_append (index, &i, 1, 1);
          cml_plot_column_append (xs, &x, 1, 1);
        }
      for (guint k = 0; k < chosen->len; k++)
        {
          guint c = g_array_index (chosen, guint, k);
          g_autoptr (CmlPlotColumn) ys = cml_plot_column_new ();
          for (guint r = 0; r < f.n_rows; r++)
            {
              double y = cell (&f, r, c);
              cml_plot_column_append (ys, &y, 1, 1);
            }
          g_autoptr (CmlPlotSeries) s = cml_plot_series_new_for_columns (f.columns[c], column_unit (model, f.columns[c]),
                                                                         index, xs, ys);
          cml_plot_add_series (plot, s);
          same_unit &= g_str_equal (column_unit (model, f.columns[c]), unit0);
          g_string_append_printf (what, "%s%s", k ? ", " : "", f.columns[c]);
        }
      cml_plot_axis_set_label (cml_plot_get_y_axis (plot), what->str, same_unit ? unit0 : "");
      g_string_append_printf (shown, _("%s against %s"), what->str, p0);
      g_string_append_printf (what, _(" against %s"), f.vary[0]);
    }
  else
    {
      /* a heat map of one measured column: P along x, Q along y */
      guint nq = 1;
      while (nq < f.n_rows && cell (&f, nq, 0) == cell (&f, 0, 0))
        nq++;
      guint np = f.n_rows / nq;
      for (guint r = 0; r < f.n_rows && np * nq == f.n_rows; r++)
        if (cell (&f, r, 0) != cell (&f, (r / nq) * nq, 0) || cell (&f, r, 1) != cell (&f, r % nq, 1))
          np = 0;
      if (np * nq != f.n_rows)
        return cml_cli_usage_error (NULL, _("%s: the rows do not make a whole grid of %s and %s in grid order (one "
                                    "shard of a sweep? merge the shards first)"), path, f.vary[0], f.vary[1]);
      if (chosen->len > 1)
        fprintf (stderr, _("note: a heat map shows one column: %s (choose another with --y)\n"), first);
      guint c = g_array_index (chosen, guint, 0);
      g_autofree double *grid = g_new (double, (gsize) np * nq);
      for (guint i = 0; i < np; i++)
        for (guint j = 0; j < nq; j++)
          grid[(gsize) j * np + i] = cell (&f, i * nq + j, c);
      double x0 = cell (&f, 0, 0), x1 = cell (&f, (np - 1) * nq, 0);
      double y0 = cell (&f, 0, 1), y1 = cell (&f, nq - 1, 1);
      g_autoptr (CmlPlotSeries) s = cml_plot_series_new_heatmap (first, column_unit (model, first), np, nq, x0, x1,
                                                                 y0, y1, grid);
      cml_plot_add_series (plot, s);
      cml_plot_set_legend_visible (plot, FALSE);
      cml_plot_axis_set_label (cml_plot_get_y_axis (plot), f.vary[1], model ? cml_model_unit (model, f.vary[1]) : "");
      /* the axes end at the cells' edges */
      double dx = np > 1 ? fabs (x1 - x0) / (np - 1) : 1, dy = nq > 1 ? fabs (y1 - y0) / (nq - 1) : 1;
      cml_plot_axis_set_range (cml_plot_get_x_axis (plot), MIN (x0, x1) - dx / 2, MAX (x0, x1) + dx / 2);
      cml_plot_axis_set_range (cml_plot_get_y_axis (plot), MIN (y0, y1) - dy / 2, MAX (y0, y1) + dy / 2);
      g_autofree char *p1 = model ? cml_model_display_name (model, f.vary[1])
                                  : cml_expr_pretty_name (f.vary[1], FALSE);
      g_string_append_printf (what, _("%s over %s and %s"), first, f.vary[0], f.vary[1]);
      g_string_append_printf (shown, _("%s over %s and %s"), first, p0, p1);
    }

  if (title == NULL)
    {
      g_autofree char *t = g_strdup_printf ("%s — %s", model && model->title ? model->title : f.model, shown->str);
      cml_plot_set_title (plot, t);
    }
  else
    cml_plot_set_title (plot, title);

  CmlPlotStyle style;
  cml_plot_style_init_for_figure (&style, dark, width, height);
  if (!cml_plot_export_with_style (plot, output, width, height, &style, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  fprintf (stderr, _("cmlab-cli: wrote %s (%dx%d, %s, %u points)\n"), output, width, height, what->str, f.n_rows);
  return 0;
}
