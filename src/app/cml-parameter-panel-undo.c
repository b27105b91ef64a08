/* cml-parameter-panel-undo.c — undo and redo of the panel: a step is every parameter and the
 * initial values the run started from, taken before a change; one drag of one slider is
 * one step, and undoing a restart starts again from the older initial values.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

/* The model's own initial data, as a table of given values. */
GHashTable *
cml_parameter_panel_model_given (CmlParameterPanel *self)
{
  CmlModel *model = cml_system_get_model (self->sys);
  GHashTable *given = cml_parameter_panel_values_table_new ();
  GHashTableIter iter;
  gpointer key, value;

  if (model->initial)
    {
      g_hash_table_iter_init (&iter, model->initial);
      while (g_hash_table_iter_next (&iter, &key, &value))
        cml_parameter_panel_values_table_set (given, key, *(double *) value);
    }
  return given;
}

/* The initial-value fields show GIVEN (as asked, until the run's first sample says what
 * was used), none marked as edited. */
void
cml_parameter_panel_show_given (CmlParameterPanel *self, GHashTable *given)
{
  self->updating = TRUE;
  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];
      double *v = g_hash_table_lookup (given, row->name);

      row->edited = FALSE;
      if (v)
        gtk_spin_button_set_value (row->spin, *v);
      cml_parameter_panel_initial_row_update_label (row);
    }
  self->updating = FALSE;
}

/* The panel's state before a change: every parameter, and the initial values the run
 * started from.  Undoing a restart restarts from the older initial values. */
typedef struct
{
  GHashTable *params;   /* name -> double* */
  GHashTable *given;    /* name -> double*, or NULL: the model's own initial data */
  gboolean    restart;  /* the change restarted the run */
} UndoStep;

#define UNDO_DEPTH       100
#define UNDO_COALESCE_US (G_USEC_PER_SEC) /* one drag of one slider is one step */

void
cml_parameter_panel_undo_step_free (gpointer data)
{
  UndoStep *step = data;

  g_hash_table_unref (step->params);
  g_clear_pointer (&step->given, g_hash_table_unref);
  g_free (step);
}

static UndoStep *
undo_snapshot (CmlParameterPanel *self, gboolean restart)
{
  UndoStep *step = g_new0 (UndoStep, 1);

  step->params = cml_parameter_panel_values_table_new ();
  for (guint i = 0; i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];

      cml_parameter_panel_values_table_set (step->params, row->name, row->value);
    }
  step->given = self->given ? g_hash_table_ref (self->given) : NULL;
  step->restart = restart;
  return step;
}

/* Called before a change by the user: PARAM names a parameter being set (a drag of the
 * same slider within a second adds no step), RESTART a new start. */
void
cml_parameter_panel_undo_record (CmlParameterPanel *self, const char *param, gboolean restart)
{
  gint64 now = g_get_monotonic_time ();

  if (self->restoring || self->updating || self->sys == NULL)
    return;
  if (!restart && param && g_strcmp0 (param, self->last_param) == 0
      && now - self->last_param_us < UNDO_COALESCE_US)
    {
      self->last_param_us = now;
      return;
    }
  g_ptr_array_add (self->undo, undo_snapshot (self, restart));
  if (self->undo->len > UNDO_DEPTH)
    g_ptr_array_remove_index (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  g_free (self->last_param);
  self->last_param = g_strdup (param);
  self->last_param_us = now;
}

static void
undo_restore (CmlParameterPanel *self, UndoStep *step)
{
  GHashTableIter iter;
  gpointer key, value;

  self->restoring = TRUE;
  g_hash_table_iter_init (&iter, step->params);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ParamRow *row = cml_parameter_panel_find_param (self, key);

      if (row && row->value != *(double *) value)
        cml_parameter_panel_param_row_set_value (row, *(double *) value);
    }
  if (step->restart)
    {
      g_autoptr (GHashTable) given
          = step->given ? g_hash_table_ref (step->given) : cml_parameter_panel_model_given (self);

      cml_parameter_panel_show_given (self, given);
      cml_parameter_panel_request_restart (self, given);
    }
  self->restoring = FALSE;
  g_clear_pointer (&self->last_param, g_free);
}

gboolean
cml_parameter_panel_undo (CmlParameterPanel *self)
{
  UndoStep *step;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  if (self->sys == NULL || self->undo->len == 0)
    return FALSE;
  step = g_ptr_array_steal_index (self->undo, self->undo->len - 1);
  g_ptr_array_add (self->redo, undo_snapshot (self, step->restart));
  undo_restore (self, step);
  cml_parameter_panel_undo_step_free (step);
  return TRUE;
}

gboolean
cml_parameter_panel_redo (CmlParameterPanel *self)
{
  UndoStep *step;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  if (self->sys == NULL || self->redo->len == 0)
    return FALSE;
  step = g_ptr_array_steal_index (self->redo, self->redo->len - 1);
  g_ptr_array_add (self->undo, undo_snapshot (self, step->restart));
  undo_restore (self, step);
  cml_parameter_panel_undo_step_free (step);
  return TRUE;
}
