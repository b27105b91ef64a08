/* cml-parameter-panel-presets.c — the model's presets (a reproducible scene: parameters and
 * initial values) and "Defaults" (every parameter back to the model's value).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <string.h>

void
cml_parameter_panel_apply_preset (CmlParameterPanel *self, guint index)
{
  CmlModel *model;
  CmlPreset *preset;
  g_autoptr (GHashTable) given = NULL;
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (self->sys == NULL)
    return;
  model = cml_system_get_model (self->sys);
  if (model->presets == NULL || index >= model->presets->len)
    return;
  preset = model->presets->pdata[index];
  /* the preset is one step to undo, its parameters and its restart together */
  cml_parameter_panel_undo_record (self, NULL, TRUE);
  self->restoring = TRUE;

  /* parameters first (live), then start again from the model's initial data with the
   * preset's initial values: a preset is a reproducible scene */
  given = cml_parameter_panel_model_given (self);
  g_hash_table_iter_init (&iter, preset->values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ParamRow *p = cml_parameter_panel_find_param (self, key);

      if (p)
        cml_parameter_panel_param_row_set_value (p, *(double *) value);
      else
        cml_parameter_panel_values_table_set (given, key, *(double *) value);
    }

  cml_parameter_panel_show_given (self, given);
  cml_parameter_panel_request_restart (self, given);
  self->restoring = FALSE;
}

void
cml_parameter_panel_on_preset_apply_clicked (CmlParameterPanel *self)
{
  guint i = gtk_drop_down_get_selected (self->preset_dropdown);

  if (i != GTK_INVALID_LIST_POSITION)
    cml_parameter_panel_apply_preset (self, i);
}

void
cml_parameter_panel_on_defaults_clicked (CmlParameterPanel *self)
{
  CmlModel *model;

  if (self->sys == NULL)
    return;
  model = cml_system_get_model (self->sys);
  cml_parameter_panel_undo_record (self, NULL, FALSE);
  self->restoring = TRUE;
  for (guint i = 0; i < model->params->len; i++)
    {
      const CmlParam *p = model->params->pdata[i];
      ParamRow *row = cml_parameter_panel_find_param (self, p->name);

      if (row)
        cml_parameter_panel_param_row_set_value (row, p->value);
    }
  self->restoring = FALSE;
}

/* Preset titles are sentences: the button and the list wrap them. */
static void
setup_preset_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer wrap)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (GPOINTER_TO_INT (wrap))
    {
      /* one fixed width: the list is measured for the height its rows have at the width
       * they get (with a range of widths it was measured at the widest, where the titles
       * take fewer lines, and the last item had to be scrolled to) */
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_width_chars (GTK_LABEL (label), 32);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
    }
  else
    {
      /* the button shows the title's head ("Solid sphere"), the list and the tooltip the
       * whole sentence; a head too long for the button is cut, with the tooltip */
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 10);
      gtk_widget_add_css_class (label, "may-ellipsize");
    }

  gtk_list_item_set_child (item, label);
}

static void
bind_preset_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer wrap)
{
  GtkStringObject *string = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);

  const char *title = gtk_string_object_get_string (string);
  const char *paren = strstr (title, " (");

  if (!GPOINTER_TO_INT (wrap) && paren && paren > title)
    {
      g_autofree char *head = g_strndup (title, paren - title);

      gtk_label_set_text (GTK_LABEL (label), head);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), title);
  gtk_widget_set_tooltip_text (label, title);
}

GtkListItemFactory *
cml_parameter_panel_preset_factory (gboolean wrap)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (setup_preset_label), GINT_TO_POINTER (wrap));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_preset_label), GINT_TO_POINTER (wrap));
  return factory;
}
