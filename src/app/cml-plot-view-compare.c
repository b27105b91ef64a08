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
 *
 * Comparing integrators, what matters is how far each run lets the invariants drift:
 * the plot can show instead, for each quantity, both runs' drift from their own first
 * samples on a logarithmic scale,
 *
 *   log₁₀ max (|Q(t) − Q(0)|, ε · max (|Q(0)|, 1))      (ε = 2.2·10⁻¹⁶, the rounding),
 *
 * so that a method keeping Q to rounding (about −15) and one letting it drift to 10⁻³
 * (−3) are both read on one axis; the other run's line is dashed in the same colour.
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <glib/gi18n.h>

#include <float.h>
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
  self->drift_t = cml_plot_column_new ();
  self->drift_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  self->drift_base = g_array_new (FALSE, FALSE, sizeof (double));
  self->ghost_drift_base = g_array_new (FALSE, FALSE, sizeof (double));
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
  g_clear_pointer (&self->drift_label, g_free);
  g_clear_pointer (&self->drift_t, cml_plot_column_unref);
  g_clear_pointer (&self->drift_columns, g_ptr_array_unref);
  g_clear_pointer (&self->drift_base, g_array_unref);
  g_clear_pointer (&self->ghost_drift_base, g_array_unref);
}

/* The drift of X from X0 as the plot shows it: log₁₀ |X − X0|, floored at the rounding. */
static double
drift_of (double x, double x0)
{
  return log10 (MAX (fabs (x - x0), DBL_EPSILON * MAX (fabs (x0), 1.0)));
}

/* The other run's column of quantity NAME, or NULL (it has no such quantity). */
static CmlPlotColumn *
ghost_column_of (CmlPlotView *self, const char *name)
{
  int i = self->ghost_system ? cml_system_observable_index (self->ghost_system, name) : -1;
  return i >= 0 && 2 * (guint) i < self->ghost_columns->len
             ? g_ptr_array_index (self->ghost_columns, i)
             : NULL;
}

/* The other run's drift column of quantity NAME (after the values), or NULL. */
static CmlPlotColumn *
ghost_drift_column_of (CmlPlotView *self, const char *name)
{
  int i = self->ghost_system ? cml_system_observable_index (self->ghost_system, name) : -1;
  guint n = self->ghost_columns->len / 2;
  return i >= 0 && (guint) i < n ? g_ptr_array_index (self->ghost_columns, n + i) : NULL;
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
  /* "W₂: copy", as the drift's series: the label may hold brackets of its own */
  g_autofree char *label = g_strdup_printf (_("%s: %s"), shown, self->ghost_label);
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

gboolean
cml_plot_view_compare_add_drift (CmlPlotView *self, const char *name, const char *shown,
                                 guint colour)
{
  if (!self->show_drift || self->ghost_system == NULL)
    return FALSE;
  CmlPlotColumn *ghost = ghost_drift_column_of (self, name);
  int i = self->system ? cml_system_observable_index (self->system, name) : -1;
  if (ghost == NULL || i < 0 || (guint) i >= self->drift_columns->len)
    return FALSE;

  /* the other run's, dashed, under this one's */
  /* TRANSLATORS: a quantity's drift ("energy", the axis says it is its drift) in a run named by its integrator ("classical Runge–Kutta (h = 0.01)") */
  g_autofree char *other = g_strdup_printf (_("%s: %s"), shown, self->ghost_label);
  g_autoptr (CmlPlotSeries) dashed
      = cml_plot_series_new_for_columns (other, "", self->ghost_t, self->ghost_t, ghost);
  cml_plot_series_set_palette_index (dashed, colour);
  cml_plot_series_set_dashed (dashed, TRUE);
  cml_plot_add_series (self->plot, dashed);

  g_autofree char *mine = g_strdup_printf (_("%s: %s"), shown,
                                           self->drift_label ? self->drift_label : _("this run"));
  g_autoptr (CmlPlotSeries) series = cml_plot_series_new_for_columns (
      mine, "", self->drift_t, self->drift_t, g_ptr_array_index (self->drift_columns, i));
  cml_plot_series_set_palette_index (series, colour);
  cml_plot_add_series (self->plot, series);
  return TRUE;
}

void
cml_plot_view_compare_reset (CmlPlotView *self)
{
  guint n = self->system && self->ghost_system ? cml_system_n_observables (self->system) : 0;
  g_ptr_array_set_size (self->diff_columns, 0);
  g_ptr_array_set_size (self->drift_columns, 0);
  for (guint j = 0; j < n; j++)
    {
      g_ptr_array_add (self->diff_columns, cml_plot_column_new ());
      g_ptr_array_add (self->drift_columns, cml_plot_column_new ());
    }
  cml_plot_column_clear (self->diff_t);
  cml_plot_column_clear (self->drift_t);
  g_array_set_size (self->drift_base, 0);
  self->diff_done = 0;
  self->drift_done = 0;
}

void
cml_plot_view_compare_clear_difference (CmlPlotView *self)
{
  cml_plot_column_clear (self->diff_t);
  for (guint j = 0; j < self->diff_columns->len; j++)
    cml_plot_column_clear (g_ptr_array_index (self->diff_columns, j));
  self->diff_done = 0;
  cml_plot_column_clear (self->drift_t);
  for (guint j = 0; j < self->drift_columns->len; j++)
    cml_plot_column_clear (g_ptr_array_index (self->drift_columns, j));
  g_array_set_size (self->drift_base, 0);
  self->drift_done = 0;
}

/* This run's drift at its samples not yet seen, from its first sample (after a clear). */
static void
update_drift (CmlPlotView *self)
{
  guint n_obs = self->drift_columns->len;
  guint n_main = cml_plot_column_get_n (self->t_column);
  if (!self->show_drift || n_obs == 0 || self->columns->len != n_obs || self->drift_done >= n_main)
    return;

  if (self->drift_base->len != n_obs)
    {
      g_array_set_size (self->drift_base, n_obs);
      for (guint j = 0; j < n_obs; j++)
        g_array_index (self->drift_base, double, j)
            = cml_plot_column_get_data (g_ptr_array_index (self->columns, j))[self->drift_done];
    }
  const double *tm = cml_plot_column_get_data (self->t_column);
  guint n = n_main - self->drift_done;
  cml_plot_column_append (self->drift_t, tm + self->drift_done, n, 1);
  g_autofree double *d = g_new (double, n);
  for (guint j = 0; j < n_obs; j++)
    {
      const double *m = cml_plot_column_get_data (g_ptr_array_index (self->columns, j));
      double x0 = g_array_index (self->drift_base, double, j);
      for (guint i = 0; i < n; i++)
        d[i] = drift_of (m[self->drift_done + i], x0);
      cml_plot_column_append (g_ptr_array_index (self->drift_columns, j), d, n, 1);
    }
  self->drift_done = n_main;
  cml_plot_columns_keep_last (self->drift_t, self->drift_columns, CML_PLOT_VIEW_KEEP);
}

void
cml_plot_view_compare_update_difference (CmlPlotView *self)
{
  update_drift (self);

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

  /* its quantities' values, then their drift */
  guint n = sys ? cml_system_n_observables (sys) : 0;
  cml_plot_column_clear (self->ghost_t);
  g_ptr_array_set_size (self->ghost_columns, 0);
  for (guint j = 0; j < 2 * n; j++)
    g_ptr_array_add (self->ghost_columns, cml_plot_column_new ());
  g_array_set_size (self->ghost_drift_base, 0);
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
  guint n_obs = self->ghost_columns->len / 2;
  g_return_if_fail (n_cols >= n_obs);

  guint n_have = cml_plot_column_get_n (self->ghost_t);
  if (n_have > 0 && t[0] < cml_plot_column_get_data (self->ghost_t)[n_have - 1])
    cml_plot_view_clear_ghost (self);
  /* the drift is taken from the run's first sample */
  if (self->ghost_drift_base->len != n_obs)
    g_array_set_size (self->ghost_drift_base, 0);
  if (self->ghost_drift_base->len == 0)
    for (guint j = 0; j < n_obs; j++)
      g_array_append_val (self->ghost_drift_base, rows[j]);
  cml_plot_column_append (self->ghost_t, t, n, 1);
  g_autofree double *d = g_new (double, n);
  for (guint j = 0; j < n_obs; j++)
    {
      double x0 = g_array_index (self->ghost_drift_base, double, j);
      cml_plot_column_append (g_ptr_array_index (self->ghost_columns, j), rows + j, n, n_cols);
      for (guint i = 0; i < n; i++)
        d[i] = drift_of (rows[(gsize) i * n_cols + j], x0);
      cml_plot_column_append (g_ptr_array_index (self->ghost_columns, n_obs + j), d, n, 1);
    }
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
  g_array_set_size (self->ghost_drift_base, 0);
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
cml_plot_view_set_show_drift (CmlPlotView *self, gboolean show, const char *label)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (self->show_drift == !!show && g_strcmp0 (self->drift_label, label) == 0)
    return;
  self->show_drift = !!show;
  g_free (self->drift_label);
  self->drift_label = g_strdup (label);
  /* computed while shown, from the first sample held */
  cml_plot_column_clear (self->drift_t);
  for (guint j = 0; j < self->drift_columns->len; j++)
    cml_plot_column_clear (g_ptr_array_index (self->drift_columns, j));
  g_array_set_size (self->drift_base, 0);
  self->drift_done = 0;
  update_drift (self);
  cml_plot_view_rebuild (self);
}

gboolean
cml_plot_view_get_show_drift (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->show_drift;
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
