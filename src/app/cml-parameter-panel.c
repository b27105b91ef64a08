/* cml-parameter-panel.c — parameters, presets and initial conditions of the running model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file is the widget: its rows built for a model, the signals it sends the window,
 * values set from the command line, values a lesson hides.  Its parts: the number fields
 * (-fields.c), the parameters' rows (-params.c), the initial values (-initial.c), the
 * presets (-presets.c), undo and redo (-undo.c).
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <glib/gi18n.h>

#include "cml-error.h"

G_DEFINE_FINAL_TYPE (CmlParameterPanel, cml_parameter_panel, GTK_TYPE_WIDGET)

enum
{
  PARAM_CHANGED,
  RESTART_REQUESTED,
  SWEEP_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
param_row_free (ParamRow *row)
{
  g_free (row->name);
  g_free (row->shown);
  g_free (row->unit);
  g_free (row->choices);
  g_free (row);
}

static void
initial_row_free (InitialRow *row)
{
  g_free (row->name);
  g_free (row->shown);
  g_free (row->unit);
  g_free (row);
}

GHashTable *
cml_parameter_panel_values_table_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

void
cml_parameter_panel_values_table_set (GHashTable *table, const char *name, double value)
{
  double *v = g_new (double, 1);

  *v = value;
  g_hash_table_replace (table, g_strdup (name), v);
}

/* ---- what the panel tells the window ------------------------------------------------- */

void
cml_parameter_panel_param_row_emit (ParamRow *row, double value)
{
  if (value != row->value)
    cml_parameter_panel_undo_record (row->self, row->name, FALSE);
  row->value = value;
  if (!row->self->updating)
    g_signal_emit (row->self, signals[PARAM_CHANGED], 0, row->name, value);
}

/* A row's "Sweep this parameter…" */
void
cml_parameter_panel_on_sweep_clicked (GtkButton *button, ParamRow *row)
{
  GtkWidget *popover = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_POPOVER);
  if (popover)
    gtk_popover_popdown (GTK_POPOVER (popover));
  g_signal_emit (row->self, signals[SWEEP_REQUESTED], 0, row->name);
}

void
cml_parameter_panel_request_restart (CmlParameterPanel *self, GHashTable *given)
{
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  self->given = g_hash_table_ref (given);
  self->pending = g_hash_table_ref (given);
  g_signal_emit (self, signals[RESTART_REQUESTED], 0, given);
}

/* ---- building -------------------------------------------------------------------------- */

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))))
    gtk_grid_remove (grid, child);
}

void
cml_parameter_panel_set_system (CmlParameterPanel *self, CmlSystem *sys)
{
  CmlModel *model;
  GtkStringList *presets;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  self->updating = TRUE;
  cml_parameter_panel_hide_input_error (self);
  clear_grid (self->param_grid);
  clear_grid (self->initial_grid);
  clear_grid (self->recon_grid);
  gtk_widget_set_visible (GTK_WIDGET (self->recon_expander), FALSE);
  g_ptr_array_set_size (self->params, 0);
  g_ptr_array_set_size (self->initial, 0);
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_ptr_array_set_size (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  g_clear_pointer (&self->last_param, g_free);
  cml_parameter_panel_set_note (self, NULL);
  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;

  presets = gtk_string_list_new (NULL);
  if (sys)
    {
      model = cml_system_get_model (sys);
      for (guint i = 0; i < model->params->len; i++)
        cml_parameter_panel_add_param_row (self, model->params->pdata[i], i);
      for (guint i = 0; model->presets && i < model->presets->len; i++)
        {
          CmlPreset *preset = model->presets->pdata[i];

          gtk_string_list_append (presets, preset->title ? preset->title : preset->name);
        }
      cml_parameter_panel_build_initial_rows (self);
    }
  gtk_drop_down_set_model (self->preset_dropdown, G_LIST_MODEL (presets));
  g_object_unref (presets);

  gtk_widget_set_visible (GTK_WIDGET (self->no_params_label), sys && self->params->len == 0);
  /* no model open: no empty headings either */
  gtk_widget_set_visible (GTK_WIDGET (self->params_heading), sys != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->initial_heading), sys != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->defaults_button), self->params->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->preset_box),
                          g_list_model_get_n_items (gtk_drop_down_get_model (self->preset_dropdown))
                              > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->restart_button), sys != NULL);
  self->updating = FALSE;
}

CmlSystem *
cml_parameter_panel_get_system (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->sys;
}

/* ---- from the command line ---------------------------------------------------------------- */

gboolean
cml_parameter_panel_set_param (CmlParameterPanel *self, const char *name, double value,
                               GError **error)
{
  ParamRow *row;
  const CmlParam *p;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  row = cml_parameter_panel_find_param (self, name);
  p = self->sys ? cml_model_find_param (cml_system_get_model (self->sys), name) : NULL;
  if (row == NULL || p == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("“%s” is not a parameter of this model"),
                   name);
      return FALSE;
    }
  if (!cml_model_check_param (cml_system_get_model (self->sys), p, value, error))
    return FALSE;
  {
    g_autofree char *msg = NULL;

    if (!cml_parameter_panel_param_possible (row, value, &msg))
      {
        g_set_error_literal (error, CML_ERROR, CML_ERROR_USAGE, msg);
        if (row->spin)
          cml_parameter_panel_show_input_error (self, GTK_WIDGET (row->spin), msg);
        return FALSE;
      }
  }
  cml_parameter_panel_hide_input_error (self);
  cml_parameter_panel_param_row_set_value (row, value);
  return TRUE;
}

gboolean
cml_parameter_panel_start_from (CmlParameterPanel *self, GHashTable *values, GError **error)
{
  return cml_parameter_panel_start_from_step (self, values, TRUE, error);
}

gboolean
cml_parameter_panel_start_from_step (CmlParameterPanel *self, GHashTable *values, gboolean new_step,
                                     GError **error)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (cml_parameter_panel_find_initial (self, key) == NULL)
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                     _("“%s” is not an initial value of this model"), (const char *) key);
        return FALSE;
      }
  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      InitialRow *row = cml_parameter_panel_find_initial (self, key);

      gtk_spin_button_set_value (row->spin, *(double *) value);
      row->edited = TRUE;
      cml_parameter_panel_initial_row_update_label (row);
    }
  /* a drag goes on within the step its start made */
  gboolean restoring = self->restoring;
  self->restoring = restoring || !new_step;
  cml_parameter_panel_apply_initial (self);
  self->restoring = restoring;
  return TRUE;
}

/* ---- for tests ------------------------------------------------------------------------- */

GtkSpinButton *
cml_parameter_panel_get_param_spin (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = cml_parameter_panel_find_param (self, name);

  return row ? row->spin : NULL;
}

/* Locks WIDGET (or lets it go) with TOOLTIP, keeping the tooltip it had for later. */
static void
lock_widget (GtkWidget *widget, gboolean lock, const char *tooltip)
{
  if (widget == NULL)
    return;
  if (lock && g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip") == NULL)
    g_object_set_data_full (
        G_OBJECT (widget), "cml-shown-tooltip",
        g_strdup (gtk_widget_get_tooltip_text (widget) ? gtk_widget_get_tooltip_text (widget) : ""),
        g_free);
  if (lock)
    gtk_widget_set_tooltip_text (widget, tooltip);
  else if (g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip"))
    {
      const char *tip = g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip");

      gtk_widget_set_tooltip_text (widget, *tip ? tip : NULL);
      g_object_set_data (G_OBJECT (widget), "cml-shown-tooltip", NULL);
    }
  gtk_widget_set_sensitive (widget, !lock);
}

void
cml_parameter_panel_set_hidden (CmlParameterPanel *self, const char *const *names,
                                const char *tooltip)
{
  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  for (guint i = 0; self->params && i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];
      gboolean hide = names && g_strv_contains (names, row->name);

      lock_widget (GTK_WIDGET (row->scale), hide, tooltip);
      lock_widget (GTK_WIDGET (row->choice), hide, tooltip);
      if (row->spin == NULL)
        continue;
      lock_widget (GTK_WIDGET (row->spin), hide, tooltip);
      if (!!g_object_get_data (G_OBJECT (row->spin), "cml-hidden") == hide)
        continue;
      g_object_set_data (G_OBJECT (row->spin), "cml-hidden", GINT_TO_POINTER (hide));
      cml_parameter_panel_on_spin_output (row->spin, NULL);
    }
}

gboolean
cml_parameter_panel_is_hidden (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = cml_parameter_panel_find_param (self, name);

  return row && row->spin && g_object_get_data (G_OBJECT (row->spin), "cml-hidden") != NULL;
}

GtkRange *
cml_parameter_panel_get_param_scale (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = cml_parameter_panel_find_param (self, name);

  return row && row->scale ? GTK_RANGE (row->scale) : NULL;
}

GtkSpinButton *
cml_parameter_panel_get_initial_spin (CmlParameterPanel *self, const char *name)
{
  InitialRow *row = cml_parameter_panel_find_initial (self, name);

  return row ? row->spin : NULL;
}

GtkDropDown *
cml_parameter_panel_get_preset_dropdown (CmlParameterPanel *self)
{
  return self->preset_dropdown;
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_parameter_panel_dispose (GObject *object)
{
  CmlParameterPanel *self = CML_PARAMETER_PANEL (object);

  cml_parameter_panel_hide_input_error (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_PARAMETER_PANEL);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_pointer (&self->initial, g_ptr_array_unref);
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->note, g_free);
  g_clear_pointer (&self->undo, g_ptr_array_unref);
  g_clear_pointer (&self->redo, g_ptr_array_unref);
  g_clear_pointer (&self->last_param, g_free);
  g_clear_object (&self->input_error_label);

  G_OBJECT_CLASS (cml_parameter_panel_parent_class)->dispose (object);
}

static void
cml_parameter_panel_class_init (CmlParameterPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_parameter_panel_dispose;

  /* CmlParameterPanel::param-changed (name, value): a parameter was set; send it on now */
  signals[PARAM_CHANGED] = g_signal_new ("param-changed", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
  /* CmlParameterPanel::restart-requested (given): start again from GIVEN (name -> double*) */
  signals[RESTART_REQUESTED] = g_signal_new ("restart-requested", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_HASH_TABLE);
  /* CmlParameterPanel::sweep-requested (name): "Sweep this parameter…" was chosen */
  signals[SWEEP_REQUESTED] = g_signal_new ("sweep-requested", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/cmlab/Cmlab/ui/cml-parameter-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cmlparameterpanel");
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, outer);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, box);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, params_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, defaults_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, param_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, no_params_label);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_box);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_apply_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, initial_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, initial_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, recon_expander);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, recon_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, restart_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, projection_label);
  gtk_widget_class_bind_template_callback (widget_class, cml_parameter_panel_on_restart_clicked);
  gtk_widget_class_bind_template_callback (widget_class,
                                           cml_parameter_panel_on_preset_apply_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_parameter_panel_on_defaults_clicked);
}

static void
cml_parameter_panel_init (CmlParameterPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  {
    g_autoptr (GtkListItemFactory) button = cml_parameter_panel_preset_factory (FALSE);
    g_autoptr (GtkListItemFactory) list = cml_parameter_panel_preset_factory (TRUE);

    gtk_drop_down_set_factory (self->preset_dropdown, button);
    gtk_drop_down_set_list_factory (self->preset_dropdown, list);
  }
  /* the message for a refused value: the panel keeps it between the rows it visits */
  self->input_error_label = GTK_LABEL (g_object_ref_sink (gtk_label_new (NULL)));
  gtk_label_set_xalign (self->input_error_label, 0);
  gtk_label_set_wrap (self->input_error_label, TRUE);
  gtk_label_set_wrap_mode (self->input_error_label, PANGO_WRAP_WORD_CHAR);
  /* it wraps to the column's width instead of widening it */
  gtk_label_set_width_chars (self->input_error_label, 10);
  gtk_label_set_max_width_chars (self->input_error_label, 10);
  gtk_widget_set_hexpand (GTK_WIDGET (self->input_error_label), FALSE);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->input_error_label), 4);
  gtk_widget_add_css_class (GTK_WIDGET (self->input_error_label), "input-error");
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) param_row_free);
  self->initial = g_ptr_array_new_with_free_func ((GDestroyNotify) initial_row_free);
  self->note = g_strdup ("");
  self->undo = g_ptr_array_new_with_free_func (cml_parameter_panel_undo_step_free);
  self->redo = g_ptr_array_new_with_free_func (cml_parameter_panel_undo_step_free);
  cml_parameter_panel_set_system (self, NULL);
}

void
cml_parameter_panel_request_sweep (CmlParameterPanel *self, const char *name)
{
  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));
  g_signal_emit (self, signals[SWEEP_REQUESTED], 0, name);
}

GtkWidget *
cml_parameter_panel_new (void)
{
  return g_object_new (CML_TYPE_PARAMETER_PANEL, NULL);
}
