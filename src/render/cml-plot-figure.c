/* cml-plot-figure.c — a figure that says what it shows: titles from the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's exported plots and `cmlab-cli plot` title their figures alike: the
 * model's title and what is plotted against what, a line of the run's parameters and a
 * line of the initial values it was run from (cml_plot_add_figure_initial): the same
 * parameters from other initial values make another figure.
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-figure.h"

#include <glib/gi18n.h>

#define FIGURE_LINE_CHARS 72  /* characters of the initial values' line, at most */

void
cml_plot_set_figure_titles (CmlPlot *plot, const CmlModel *model, const char *const *ys, guint n_ys,
                            const char *x, const double *values)
{
  g_return_if_fail (plot != NULL && model != NULL);

  g_autoptr (GString) what = g_string_new (NULL);
  for (guint k = 0; k < n_ys; k++)
    g_string_append_printf (what, "%s%s", k ? ", " : "", ys[k]);
  g_autofree char *title = what->len ? g_strdup_printf ("%s — %s against %s", model->title, what->str,
                                                        x ? x : "time")
                                     : g_strdup (model->title);

  g_autoptr (GString) params = g_string_new (NULL);
  for (guint k = 0; k < model->params->len; k++)
    {
      const CmlParam *p = g_ptr_array_index (model->params, k);
      if (k > 0)
        g_string_append (params, ", ");
      cml_plot_append_quantity (params, p->name, values[k], p->unit);
    }
  cml_plot_set_title (plot, title);
  cml_plot_set_subtitle (plot, params->str);
}

void
cml_plot_add_figure_initial (CmlPlot *plot, const CmlModel *model, const char *const *names, const double *values,
                             guint n)
{
  g_return_if_fail (plot != NULL && model != NULL);
  if (n == 0)
    return;
  g_return_if_fail (names != NULL && values != NULL);

  /* broken into lines of at most FIGURE_LINE_CHARS characters, which every figure's
   * width takes at its type size (the type grows with the figure) */
  g_autoptr (GString) line = g_string_new (NULL);
  glong line_chars = 0;
  for (guint k = 0; k < n; k++)
    {
      g_autoptr (GString) item = g_string_new (NULL);
      cml_plot_append_quantity (item, names[k], values[k], cml_model_unit (model, names[k]));
      glong chars = g_utf8_strlen (item->str, -1);
      if (k > 0 && line_chars + 2 + chars > FIGURE_LINE_CHARS)
        {
          g_string_append (line, ",\n");
          line_chars = 0;
        }
      else if (k > 0)
        {
          g_string_append (line, ", ");
          line_chars += 2;
        }
      g_string_append (line, item->str);
      line_chars += chars + (k == 0 ? 5 : 0);  /* "from " */
    }
  const char *params = cml_plot_get_subtitle (plot);
  /* TRANSLATORS: the second line under an exported figure's title: the state the run
   * started from, e.g. "from x = 1 m, y = 0 m, u = 0 m/s" */
  g_autofree char *from = g_strdup_printf (_("from %s"), line->str);
  g_autofree char *subtitle = params && *params ? g_strdup_printf ("%s\n%s", params, from) : g_strdup (from);
  cml_plot_set_subtitle (plot, subtitle);
}
