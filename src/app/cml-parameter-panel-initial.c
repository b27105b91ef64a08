/* cml-parameter-panel-initial.c — the panel's initial values: one row per state variable
 * (the reconstruction variables in an expander), marked where the model or the user gives
 * them; "Apply & restart" starts again from them, and the run's first sample shows what
 * was used (projected onto the constraint set).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <glib/gi18n.h>

#include "cml-plot.h"

#include <math.h>

void
cml_parameter_panel_initial_row_update_label (InitialRow *row)
{
  gboolean given = row->in_model || row->edited;

  if (given)
    gtk_widget_add_css_class (GTK_WIDGET (row->label), "given");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (row->label), "given");
}

static void
on_initial_changed (GtkSpinButton *spin, InitialRow *row)
{
  if (row->self->updating)
    return;
  row->edited = TRUE;
  cml_parameter_panel_initial_row_update_label (row);
}

InitialRow *
cml_parameter_panel_find_initial (CmlParameterPanel *self, const char *name)
{
  for (guint i = 0; self->initial && i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];

      if (g_strcmp0 (row->name, name) == 0)
        return row;
    }
  return NULL;
}

/* A reconstruction variable: integrated along, but not part of the dynamics. */
static gboolean
is_reconstructed (CmlModel *model, const char *name)
{
  for (guint i = 0; model->reconstruction && i < model->reconstruction->len; i++)
    if (g_strcmp0 (((CmlNamedExpr *) model->reconstruction->pdata[i])->name, name) == 0)
      return TRUE;
  return FALSE;
}

static void
add_initial_row (CmlParameterPanel *self, CmlModel *model, const char *name, gboolean in_model,
                 double value)
{
  InitialRow *row = g_new0 (InitialRow, 1);
  const char *unit = cml_model_unit (model, name);
  GtkWidget *unit_label;
  gboolean recon = is_reconstructed (model, name);
  GtkGrid *grid = recon ? self->recon_grid : self->initial_grid;
  guint r = 0;
  g_autofree char *tip = NULL;
  const char *meaning = cml_model_meaning (model, name);

  for (guint i = 0; i < self->initial->len; i++)
    r += is_reconstructed (model, ((InitialRow *) self->initial->pdata[i])->name) == recon;

  g_autofree char *shown = cml_expr_pretty_name (name, FALSE);
  g_autofree char *unit_text = cml_plot_format_unit (unit);

  row->self = self;
  row->name = g_strdup (name);
  row->shown = g_strdup (shown);
  row->unit = g_strdup (unit_text);
  row->in_model = in_model;

  row->label = GTK_LABEL (gtk_label_new (shown));
  gtk_label_set_xalign (row->label, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (row->label), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (row->label), "initial-name");
  tip = g_strdup_printf (_("%s%s%s (on the command line: --init %s=…)"), meaning ? meaning : "",
                         meaning ? "\n" : "",
                         in_model ? _("Given in the model file")
                                  : _("Not given in the model file: the constraints determine it, "
                                       "or it starts at 0.  Edit it to give it."),
                         name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->label), tip);

  row->spin
      = cml_parameter_panel_make_spin (self, NULL, row->shown, row->unit, -1e9, 1e9, 0.1, value);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->spin), meaning);
  gtk_widget_set_valign (GTK_WIDGET (row->spin), GTK_ALIGN_CENTER);
  g_signal_connect (row->spin, "value-changed", G_CALLBACK (on_initial_changed), row);

  unit_label = gtk_label_new (unit_text);
  gtk_label_set_xalign (GTK_LABEL (unit_label), 0);
  gtk_widget_add_css_class (unit_label, "dim-label");
  gtk_widget_set_size_request (unit_label, 40, -1);

  gtk_grid_attach (grid, GTK_WIDGET (row->label), 0, r, 1, 1);
  gtk_grid_attach (grid, GTK_WIDGET (row->spin), 1, r, 1, 1);
  gtk_grid_attach (grid, unit_label, 2, r, 1, 1);
  if (recon)
    gtk_widget_set_visible (GTK_WIDGET (self->recon_expander), TRUE);

  g_ptr_array_add (self->initial, row);
  cml_parameter_panel_initial_row_update_label (row);
}

static gboolean
model_initial (CmlModel *model, const char *name, double *value)
{
  double *v = model->initial ? g_hash_table_lookup (model->initial, name) : NULL;

  if (v && value)
    *value = *v;
  return v != NULL;
}

/* The fibre index whose velocity or momentum NAME is, or -1. */
static int
fibre_partner (CmlModel *model, const char *name, const char **partner)
{
  for (guint a = 0; a < model->n; a++)
    {
      if (model->momenta && g_strcmp0 (model->momenta[a], name) == 0)
        {
          *partner = model->fibre[a];
          return (int) a;
        }
      if (g_strcmp0 (model->fibre[a], name) == 0)
        {
          *partner = model->momenta ? model->momenta[a] : NULL;
          return (int) a;
        }
    }
  return -1;
}

/* One row per state variable, in state order, except that a momentum whose velocity the
 * model gives instead (vakonomic) shows as that velocity; then any other given name. */
void
cml_parameter_panel_build_initial_rows (CmlParameterPanel *self)
{
  CmlModel *model = cml_system_get_model (self->sys);
  g_autoptr (GHashTable) shown = g_hash_table_new (g_str_hash, g_str_equal);
  guint dim = cml_system_dim (self->sys);

  for (guint i = 0; i < dim; i++)
    {
      const char *name = cml_system_state_name (self->sys, i);
      const char *partner = NULL;
      double v = 0.0;

      if (!model_initial (model, name, &v) && fibre_partner (model, name, &partner) >= 0
          && partner && model_initial (model, partner, &v))
        name = partner;
      if (g_hash_table_contains (shown, name))
        continue;
      g_hash_table_add (shown, (gpointer) name);
      add_initial_row (self, model, name, model_initial (model, name, NULL), v);
    }

  if (model->initial)
    {
      GHashTableIter iter;
      gpointer key, value;
      g_autoptr (GPtrArray) extra = g_ptr_array_new ();

      g_hash_table_iter_init (&iter, model->initial);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (shown, key))
          g_ptr_array_add (extra, key);
      g_ptr_array_sort (extra, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < extra->len; i++)
        add_initial_row (self, model, extra->pdata[i], TRUE,
                         *(double *) g_hash_table_lookup (model->initial, extra->pdata[i]));
    }
}

/* The values to start from: every name the model gives plus every edited one. */
static GHashTable *
collect_given (CmlParameterPanel *self)
{
  GHashTable *given = cml_parameter_panel_values_table_new ();

  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];

      if (row->in_model || row->edited)
        cml_parameter_panel_values_table_set (given, row->name,
                                              gtk_spin_button_get_value (row->spin));
    }
  return given;
}

void
cml_parameter_panel_apply_initial (CmlParameterPanel *self)
{
  g_autoptr (GHashTable) given = NULL;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (self->sys == NULL)
    return;
  /* a spin button being edited has not yet committed its text */
  for (guint i = 0; i < self->initial->len; i++)
    gtk_spin_button_update (((InitialRow *) self->initial->pdata[i])->spin);
  cml_parameter_panel_undo_record (self, NULL, TRUE);
  given = collect_given (self);
  cml_parameter_panel_request_restart (self, given);
}

void
cml_parameter_panel_on_restart_clicked (CmlParameterPanel *self)
{
  cml_parameter_panel_apply_initial (self);
}

void
cml_parameter_panel_set_note (CmlParameterPanel *self, const char *note)
{
  g_free (self->note);
  self->note = g_strdup (note ? note : "");
  gtk_label_set_text (self->projection_label, self->note);
  gtk_widget_set_visible (GTK_WIDGET (self->projection_label), *self->note != '\0');
}

void
cml_parameter_panel_show_initial (CmlParameterPanel *self, CmlSystem *sys, const double *obs,
                                  guint n_obs)
{
  g_autoptr (GString) projected = g_string_new (NULL);

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (sys != self->sys || sys == NULL || n_obs != cml_system_n_observables (sys))
    return;

  self->updating = TRUE;
  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];
      int k = cml_system_observable_index (sys, row->name);
      double used, *asked;

      if (k < 0)
        continue;
      used = obs[k];
      asked = self->pending ? g_hash_table_lookup (self->pending, row->name) : NULL;
      if (asked && fabs (*asked - used) > 1e-9 * MAX (1.0, fabs (*asked)))
        g_string_append_printf (projected, "%s%s: %.6g → %.6g", projected->len ? ", " : "",
                                row->name, *asked, used);
      gtk_spin_button_set_value (row->spin, used);
      row->edited = FALSE;
      cml_parameter_panel_initial_row_update_label (row);
    }
  self->updating = FALSE;

  if (self->pending)
    {
      g_autofree char *note = NULL;

      if (projected->len)
        note = g_strdup_printf (_("Projected onto the constraint set: %s"), projected->str);
      cml_parameter_panel_set_note (self, note);
      g_clear_pointer (&self->pending, g_hash_table_unref);
    }
}

GHashTable *
cml_parameter_panel_get_given (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->given;
}

const char *
cml_parameter_panel_get_projection_note (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->note ? self->note : "";
}
