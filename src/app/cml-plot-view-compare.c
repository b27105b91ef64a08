/* cml-plot-view-compare.c — a second run in the live plot, and the difference of the two.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two runs are compared (the same model with other parameters, the same Lagrangian read
 * by the vakonomic principle, another integrator): the other run's quantities are drawn
 * in the same colours as this run's, faint and under them, and named "x (vakonomic)" in
 * the legend.  Against time the plot can show instead the difference Δx(t) = x(t) −
 * x̃(t) at this run's sample times, with x̃ interpolated linearly between the other
 * run's samples; a sample later than the other run's newest waits until it arrives.
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <glib/gi18n.h>

#include <math.h>

/* opacity of the other run's lines */
#define GHOST_ALPHA 0.42f

void
cml_plot_view_compare_init (CmlPlotView *self)
{
  self->ghost_t = cml_plot_column_new ();
  self->ghost_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  self->diff_t = cml_plot_column_new ();
  self->diff_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
}

void
cml_plot_view_compare_finalize (CmlPlotView *self)
{
  g_clear_pointer (&self->ghost_system, cml_system_unref);
  g_clear_pointer (&self->ghost_label, g_free);
  g_clear_pointer (&self->ghost_t, cml_plot_column_unref);
  g_clear_pointer (&self->ghost_columns, g_ptr_array_unref);
  g_clear_pointer (&self->diff_t, cml_plot_column_unref);
  g_clear_pointer (&self->diff_columns, g_ptr_array_unref);
}

/* The other run's column of quantity NAME, or NULL (it has no such quantity). */
static CmlPlotColumn *
ghost_column_of (CmlPlotView *self, const char *name)
{
  int i = self->ghost_system ? cml_system_observable_index (self->ghost_system, name) : -1;
  return i >= 0 && (guint) i < self->ghost_columns->len ? g_ptr_array_index (self->ghost_columns, i)
                                                        : NULL;
}

void
cml_plot_view_compare_add_series (CmlPlotView *self, const char *name, const char *shown,
                                  const char *unit, guint colour)
{
  CmlPlotColumn *y = ghost_column_of (self, name);
  CmlPlotColumn *x = self->x_name ? ghost_column_of (self, self->x_name) : self->ghost_t;
  if (y == NULL || x == NULL)
    return;

  CmlPlotStyle style;
  cml_plot_view_get_style (self, &style);
  CmlPlotRgba c = style.palette[colour % CML_PLOT_PALETTE_SIZE];
  c.a *= GHOST_ALPHA;
  g_autofree char *label = g_strdup_printf ("%s (%s)", shown, self->ghost_label);
  g_autoptr (CmlPlotSeries) series
      = cml_plot_series_new_for_columns (label, unit, self->ghost_t, x, y);
  cml_plot_series_set_color (series, &c);
  cml_plot_add_series (self->plot, series);
}

gboolean
cml_plot_view_compare_add_difference (CmlPlotView *self, const char *name, const char *shown,
                                      const char *unit, guint colour)
{
  if (!self->show_difference || self->ghost_system == NULL || ghost_column_of (self, name) == NULL)
    return FALSE;
  int i = self->system ? cml_system_observable_index (self->system, name) : -1;
  if (i < 0 || (guint) i >= self->diff_columns->len)
    return FALSE;

  g_autofree char *label
      = g_strdup_printf ("Δ%s = %s − %s (%s)", shown, shown, shown, self->ghost_label);
  g_autoptr (CmlPlotSeries) series = cml_plot_series_new_for_columns (
      label, unit, self->diff_t, self->diff_t, g_ptr_array_index (self->diff_columns, i));
  cml_plot_series_set_palette_index (series, colour);
  cml_plot_add_series (self->plot, series);
  return TRUE;
}

void
cml_plot_view_compare_reset (CmlPlotView *self)
{
  guint n = self->system && self->ghost_system ? cml_system_n_observables (self->system) : 0;
  g_ptr_array_set_size (self->diff_columns, 0);
  for (guint j = 0; j < n; j++)
    g_ptr_array_add (self->diff_columns, cml_plot_column_new ());
  cml_plot_column_clear (self->diff_t);
  self->diff_done = 0;
}

void
cml_plot_view_compare_clear_difference (CmlPlotView *self)
{
  cml_plot_column_clear (self->diff_t);
  for (guint j = 0; j < self->diff_columns->len; j++)
    cml_plot_column_clear (g_ptr_array_index (self->diff_columns, j));
  self->diff_done = 0;
}

void
cml_plot_view_compare_update_difference (CmlPlotView *self)
{
  guint n_obs = self->system ? cml_system_n_observables (self->system) : 0;
  if (self->ghost_system == NULL || self->diff_columns->len != n_obs || self->columns->len != n_obs)
    return;
  guint n_main = cml_plot_column_get_n (self->t_column);
  guint n_ghost = cml_plot_column_get_n (self->ghost_t);
  if (n_ghost == 0 || self->diff_done >= n_main)
    return;

  const double *tm = cml_plot_column_get_data (self->t_column);
  const double *tg = cml_plot_column_get_data (self->ghost_t);
  g_autofree int *gi = g_new (int, n_obs);
  for (guint j = 0; j < n_obs; j++)
    gi[j] = cml_system_observable_index (self->ghost_system,
                                         cml_system_observable_name (self->system, j));

  g_autofree double *row = g_new (double, n_obs);
  guint i = self->diff_done;
  for (; i < n_main && tm[i] <= tg[n_ghost - 1]; i++)
    {
      if (tm[i] < tg[0])
        continue; /* before the other run's first sample (it restarted later) */
      guint k = cml_plot_column_lower_bound (self->ghost_t, tm[i]);
      guint k0 = k > 0 && tg[k] > tm[i] ? k - 1 : k;
      double w = k0 == k || tg[k] == tg[k0] ? 0.0 : (tm[i] - tg[k0]) / (tg[k] - tg[k0]);
      for (guint j = 0; j < n_obs; j++)
        {
          if (gi[j] < 0)
            {
              row[j] = NAN;
              continue;
            }
          const double *g
              = cml_plot_column_get_data (g_ptr_array_index (self->ghost_columns, gi[j]));
          const double *m = cml_plot_column_get_data (g_ptr_array_index (self->columns, j));
          row[j] = m[i] - ((1 - w) * g[k0] + w * g[k]);
        }
      cml_plot_column_append (self->diff_t, &tm[i], 1, 1);
      for (guint j = 0; j < n_obs; j++)
        cml_plot_column_append (g_ptr_array_index (self->diff_columns, j), &row[j], 1, 1);
    }
  self->diff_done = i;
  cml_plot_columns_keep_last (self->diff_t, self->diff_columns, CML_PLOT_VIEW_KEEP);
}

void
cml_plot_view_set_ghost (CmlPlotView *self, CmlSystem *sys, const char *label)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->ghost_system, cml_system_unref);
  self->ghost_system = sys;
  g_free (self->ghost_label);
  self->ghost_label = g_strdup (label ? label : _("other run"));
  cml_plot_view_set_ghost_note (self, NULL);

  guint n = sys ? cml_system_n_observables (sys) : 0;
  cml_plot_column_clear (self->ghost_t);
  g_ptr_array_set_size (self->ghost_columns, 0);
  for (guint j = 0; j < n; j++)
    g_ptr_array_add (self->ghost_columns, cml_plot_column_new ());
  cml_plot_view_compare_reset (self);
  cml_plot_view_compare_update_difference (self);
  cml_plot_view_rebuild (self);
}

void
cml_plot_view_push_ghost_samples (CmlPlotView *self, const double *t, const double *rows, guint n,
                                  guint n_cols)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (self->ghost_system == NULL || n == 0)
    return;
  guint n_obs = self->ghost_columns->len;
  g_return_if_fail (n_cols >= n_obs);

  guint n_have = cml_plot_column_get_n (self->ghost_t);
  if (n_have > 0 && t[0] < cml_plot_column_get_data (self->ghost_t)[n_have - 1])
    cml_plot_view_clear_ghost (self);
  cml_plot_column_append (self->ghost_t, t, n, 1);
  for (guint j = 0; j < n_obs; j++)
    cml_plot_column_append (g_ptr_array_index (self->ghost_columns, j), rows + j, n, n_cols);
  cml_plot_columns_keep_last (self->ghost_t, self->ghost_columns, CML_PLOT_VIEW_KEEP);
  cml_plot_view_compare_update_difference (self);
  cml_plot_view_queue_render (self);
}

void
cml_plot_view_clear_ghost (CmlPlotView *self)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  cml_plot_column_clear (self->ghost_t);
  for (guint j = 0; j < self->ghost_columns->len; j++)
    cml_plot_column_clear (g_ptr_array_index (self->ghost_columns, j));
  /* the differences were taken against the old samples */
  cml_plot_view_compare_clear_difference (self);
  cml_plot_view_queue_render (self);
}

void
cml_plot_view_set_show_difference (CmlPlotView *self, gboolean show)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (self->show_difference == !!show)
    return;
  self->show_difference = !!show;
  cml_plot_view_rebuild (self);
}

gboolean
cml_plot_view_get_show_difference (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->show_difference;
}

void
cml_plot_view_set_ghost_note (CmlPlotView *self, const char *note)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  /* the live plot has no title: its subtitle line is free for the note (an export puts the
   * figure's own there and gives it back) */
  if (g_strcmp0 (cml_plot_get_subtitle (self->plot), note ? note : "") == 0)
    return;
  cml_plot_set_subtitle (self->plot, note);
  cml_plot_view_queue_render (self);
}

const char *
cml_plot_view_get_ghost_note (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return cml_plot_get_subtitle (self->plot);
}

guint
cml_plot_view_get_n_ghost_samples (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), 0);
  return cml_plot_column_get_n (self->ghost_t);
}
