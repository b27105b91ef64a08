/* cml-plot-view-data.c — the samples the live plot keeps of a run: a column per
 * observable (or the columns of the view that owns them), the closed forms' values and
 * errors beside them, the newest CML_PLOT_VIEW_KEEP samples.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <math.h>

#include "cml-reference.h"
#include "cml-window.h"

void
cml_plot_view_set_system (CmlPlotView *self, CmlSystem *sys)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->system, cml_system_unref);
  self->system = sys;

  /* the closed forms, if the model has any (the menu's "Closed Form" only then) */
  g_clear_pointer (&self->reference, cml_reference_free);
  self->ref_started = FALSE;
  if (sys)
    {
      g_autoptr (GError) error = NULL;
      self->reference = cml_reference_new (sys, &error);
      if (error)
        g_warning ("the closed forms of %s: %s", cml_system_get_model (sys)->name, error->message);
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-reference", self->reference != NULL);
  guint n_ref = self->reference ? 2 * cml_reference_get_n (self->reference) : 0;

  /* fresh columns: one per observable, all sharing the time column — or the owner's */
  cml_plot_remove_all_series (self->plot);
  guint n = sys ? cml_system_n_observables (sys) : 0;
  if (self->data_owner && self->data_owner->system == sys)
    {
      g_ptr_array_unref (self->columns);
      self->columns = g_ptr_array_ref (self->data_owner->columns);
      g_ptr_array_unref (self->ref_columns);
      self->ref_columns = g_ptr_array_ref (self->data_owner->ref_columns);
      cml_plot_column_unref (self->t_column);
      self->t_column = cml_plot_column_ref (self->data_owner->t_column);
    }
  else
    {
      if (self->data_owner)
        {
          /* the owner shows another system: stop sharing */
          g_ptr_array_unref (self->columns);
          self->columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
          g_ptr_array_unref (self->ref_columns);
          self->ref_columns
              = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
          cml_plot_column_unref (self->t_column);
          self->t_column = cml_plot_column_new ();
          g_object_remove_weak_pointer (G_OBJECT (self->data_owner),
                                        (gpointer *) &self->data_owner);
          self->data_owner = NULL;
        }
      g_autoptr (GPtrArray) fresh = g_ptr_array_new ();

      g_ptr_array_set_size (self->columns, 0);
      cml_plot_column_clear (self->t_column);
      g_ptr_array_add (fresh, self->t_column);
      for (guint i = 0; i < n; i++)
        {
          g_ptr_array_add (self->columns, cml_plot_column_new ());
          g_ptr_array_add (fresh, g_ptr_array_index (self->columns, i));
        }
      g_ptr_array_set_size (self->ref_columns, 0);
      /* and the closed forms' values and errors beside them */
      for (guint i = 0; i < n_ref; i++)
        {
          g_ptr_array_add (self->ref_columns, cml_plot_column_new ());
          g_ptr_array_add (fresh, g_ptr_array_index (self->ref_columns, i));
        }
      /* the memory of the samples kept is taken now, not over the first minutes of a run,
       * but by a thread of its own: a model of a hundred observables has 140 MB of columns,
       * which page by page held the window's first frame for seconds */
      cml_plot_columns_reserve_in_background (fresh, CML_PLOT_VIEW_KEEP + CML_PLOT_VIEW_KEEP / 8);
    }

  cml_plot_view_compare_reset (self);
  cml_plot_view_fill_selectors (self);

  /* default: energy and invariants against time, else the first coordinate */
  g_clear_pointer (&self->x_name, g_free);
  g_autoptr (GPtrArray) monitors = cml_plot_view_monitor_names (self);
  if (monitors->len == 0 && n > 0)
    {
      CmlModel *model = cml_plot_view_model (self);
      const char *first = model->m > 0 && cml_system_observable_index (sys, model->base[0]) >= 0
                            ? model->base[0]
                            : cml_system_observable_name (sys, 0);
      g_ptr_array_add (monitors, (gpointer) first);
    }
  cml_plot_view_set_y_names (self, monitors);
  cml_plot_view_rebuild_series (self);
}

void
cml_plot_view_push_samples (CmlPlotView *self, const double *t, const double *rows, guint n,
                            guint n_cols, guint n_obs)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  g_return_if_fail (n == 0 || (t != NULL && rows != NULL));
  g_return_if_fail (n_cols >= n_obs);

  if (n == 0)
    return;
  if (n_obs != self->columns->len)
    {
      g_warning ("plot: %u observables in the samples, %u in the system; dropped", n_obs,
                 self->columns->len);
      return;
    }

  /* a view that shows another view's columns only redraws: the owner appends */
  if (self->data_owner)
    {
      cml_plot_view_compare_update_difference (self);
      gtk_gl_area_queue_render (self->area);
      return;
    }

  /* time runs forward within a run; a step back is a new run (the caller did not clear) */
  guint n_have = cml_plot_column_get_n (self->t_column);
  if (n_have > 0 && t[0] < cml_plot_column_get_data (self->t_column)[n_have - 1])
    cml_plot_view_clear (self);

  /* the closed forms start where the run does: its first sample, at t = 0 */
  if (self->reference && cml_plot_column_get_n (self->t_column) == 0)
    {
      CmlModel *model = cml_plot_view_model (self);
      g_autofree double *params = g_new (double, model->params->len + 1);
      cml_plot_view_current_parameters (self, model, params);
      self->ref_started = t[0] == 0;
      if (self->ref_started)
        cml_reference_start (self->reference, params, rows);
    }

  /* every observable's column, so any later selection has the whole run */
  cml_plot_column_append (self->t_column, t, n, 1);
  for (guint j = 0; j < n_obs; j++)
    cml_plot_column_append (g_ptr_array_index (self->columns, j), rows + j, n, n_cols);

  /* and the closed forms' values and errors beside them (NaN without a start) */
  if (self->reference && self->ref_columns->len > 0)
    {
      guint n_ref = self->ref_columns->len;
      g_array_set_size (self->ref_scratch, (gsize) n * n_ref);
      double *out = (double *) (gpointer) self->ref_scratch->data;
      for (guint k = 0; k < n; k++)
        {
          double *row = out + (gsize) k * n_ref;
          if (!self->ref_started)
            {
              for (guint j = 0; j < n_ref; j++)
                row[j] = NAN;
              continue;
            }
          /* the values, then the errors */
          cml_reference_compare (self->reference, t[k], rows + (gsize) k * n_cols, row,
                                 row + n_ref / 2);
        }
      for (guint i = 0; 2 * i < n_ref; i++)
        {
          cml_plot_column_append (g_ptr_array_index (self->ref_columns, 2 * i), out + i, n, n_ref);
          cml_plot_column_append (g_ptr_array_index (self->ref_columns, 2 * i + 1),
                                  out + n_ref / 2 + i, n, n_ref);
        }
    }

  /* the newest samples only: the closed forms' columns go with the run's */
  if (cml_plot_column_get_n (self->t_column) > CML_PLOT_VIEW_KEEP + CML_PLOT_VIEW_KEEP / 8)
    {
      guint dropped = cml_plot_column_get_n (self->t_column) - CML_PLOT_VIEW_KEEP;

      for (guint j = 0; j < self->ref_columns->len; j++)
        cml_plot_column_drop_front (g_ptr_array_index (self->ref_columns, j), dropped);
      cml_plot_columns_keep_last (self->t_column, self->columns, CML_PLOT_VIEW_KEEP);
      self->diff_done = self->diff_done > dropped ? self->diff_done - dropped : 0;
      self->drift_done = self->drift_done > dropped ? self->drift_done - dropped : 0;
    }
  cml_plot_view_compare_update_difference (self);
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_plot_view_shows_data (CmlPlotView *self)
{
  double a, b;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return cml_plot_get_n_series (self->plot) > 0 && cml_plot_get_time_extent (self->plot, &a, &b);
}

guint
cml_plot_view_get_n_samples (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), 0);
  return cml_plot_column_get_n (self->t_column);
}

guint
cml_plot_columns_keep_last (CmlPlotColumn *t, GPtrArray *others, guint keep)
{
  guint n = cml_plot_column_get_n (t), dropped;

  if (n <= keep + keep / 8)
    return 0;
  dropped = n - keep;
  cml_plot_column_drop_front (t, dropped);
  for (guint j = 0; j < others->len; j++)
    cml_plot_column_drop_front (g_ptr_array_index (others, j), dropped);
  return dropped;
}

void
cml_plot_view_clear (CmlPlotView *self)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  if (self->data_owner == NULL)
    {
      cml_plot_column_clear (self->t_column);
      for (guint j = 0; j < self->columns->len; j++)
        cml_plot_column_clear (g_ptr_array_index (self->columns, j));
      for (guint j = 0; j < self->ref_columns->len; j++)
        cml_plot_column_clear (g_ptr_array_index (self->ref_columns, j));
      self->ref_started = FALSE;
    }
  cml_plot_view_compare_clear_difference (self);
  cml_plot_reset_ranges (self->plot);
  gtk_gl_area_queue_render (self->area);
}

/* The run's parameter values, in model order, into VALUES (the model's length): the
 * window's newest frame when the view is in one and shows its system, else the model's
 * defaults (a view on its own). */
void
cml_plot_view_current_parameters (CmlPlotView *self, CmlModel *model, double *values)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  CmlRunner *runner = CML_IS_WINDOW (root) ? cml_window_get_runner (CML_WINDOW (root)) : NULL;
  CmlFrame *frame = runner ? cml_runner_get_frame (runner) : NULL;
  gboolean from_frame
      = frame && frame->system == self->system && frame->n_params == model->params->len;

  for (guint k = 0; k < model->params->len; k++)
    values[k] = from_frame ? frame->params[k]
                           : ((const CmlParam *) g_ptr_array_index (model->params, k))->value;
  g_clear_pointer (&frame, cml_frame_unref);
}
