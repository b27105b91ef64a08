/* cml-plot-figure.c — a figure that says what it shows: titles from the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's exported plots and `cmlab-cli plot` title their figures alike: the
 * model's title and what is plotted against what, and a line of the run's parameters.
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-figure.h"

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
