/* cml-plot-view-selectors.c — the live plot's header: the quantities plotted (a list of
 * check buttons, the energy and invariants, the residual, the error against the closed
 * form), what they are plotted against, the time window and the menu's "Equal Scales".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <glib/gi18n.h>

/* The menu's "Equal Scales": ticked when the scales are equal, insensitive where they
 * cannot be (against time, or axes in different units), with the reason in its tooltip. */
void
cml_plot_view_sync_equal_scales (CmlPlotView *self)
{
  CmlPlot *plot = self->plot;
  gboolean possible = cml_plot_get_equal_scales_possible (plot);
  g_autofree char *tip = NULL;

  if (possible)
    tip = g_strdup (_("One unit as long across as up: a circle is drawn round"));
  else if (cml_plot_get_against_time (plot))
    tip = g_strdup (_("Only for a phase portrait: here the horizontal axis is time"));
  else
    {
      g_autofree char *ux
          = cml_plot_format_unit (cml_plot_axis_get_unit (cml_plot_get_x_axis (plot)));
      g_autofree char *uy
          = cml_plot_format_unit (cml_plot_axis_get_unit (cml_plot_get_y_axis (plot)));
      /* TRANSLATORS: the units of the two axes ("m/s", "m"), or "no unit" */
      tip = g_strdup_printf (_("Only when both axes are in one unit: here %s up against %s across"),
                             uy[0] ? uy : _("no unit"), ux[0] ? ux : _("no unit"));
    }
  self->syncing = TRUE;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.equal-scales", possible);
  gtk_widget_set_sensitive (GTK_WIDGET (self->equal_check), possible);
  gtk_check_button_set_active (self->equal_check, possible && cml_plot_get_equal_scales (plot));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->equal_check), tip);
  self->syncing = FALSE;
}

void
cml_plot_view_on_equal_check_toggled (CmlPlotView *self)
{
  if (!self->syncing)
    cml_plot_view_set_equal_scales (self, gtk_check_button_get_active (self->equal_check));
}

/* Shows the current selection in the header without reacting to it. */
void
cml_plot_view_sync_selectors (CmlPlotView *self)
{
  self->syncing = TRUE;

  for (guint i = 0; i < self->checks->len; i++)
    {
      GtkCheckButton *check = g_ptr_array_index (self->checks, i);
      const char *name = cml_system_observable_name (self->system, i);
      gboolean on = FALSE;
      for (guint k = 0; k < self->y_names->len && !on; k++)
        on = g_strcmp0 (g_ptr_array_index (self->y_names, k), name) == 0;
      gtk_check_button_set_active (check, on);
    }

  guint x_pos = 0;
  if (self->x_name && self->system)
    {
      int idx = cml_system_observable_index (self->system, self->x_name);
      x_pos = idx >= 0 ? (guint) idx + 1 : 0;
    }
  gtk_drop_down_set_selected (self->x_dropdown, x_pos);

  /* a quantity in another unit than those plotted is plotted alone (one axis, one unit):
   * its tooltip says so before it is ticked */
  const char *axis_unit = self->y_names->len
                              ? cml_plot_view_unit_of (self, g_ptr_array_index (self->y_names, 0))
                              : NULL;
  for (guint i = 0; i < self->checks->len; i++)
    {
      const char *name = cml_system_observable_name (self->system, i);
      CmlModel *model = cml_plot_view_model (self);
      const char *meaning = model ? cml_model_meaning (model, name) : NULL;
      g_autoptr (GString) tip = g_string_new (meaning);
      if (axis_unit && !cml_plot_view_same_unit (axis_unit, cml_plot_view_unit_of (self, name)))
        {
          g_autofree char *u = cml_plot_format_unit (cml_plot_view_unit_of (self, name));
          g_autofree char *v = cml_plot_format_unit (axis_unit);
          g_autofree char *note = g_strdup_printf (
            /* TRANSLATORS: units of a quantity and of those plotted ("m/s", "J"); "no unit" for a dimensionless one */
            _("In %s, not in %s like the quantities plotted: ticking it plots it on its own, as one axis shows one unit"),
            u[0] ? u : _("no unit"), v[0] ? v : _("no unit"));
          g_string_append_printf (tip, "%s%s", tip->len ? "\n" : "", note);
        }
      gtk_widget_set_tooltip_text (g_ptr_array_index (self->checks, i), tip->len ? tip->str : NULL);
    }

  /* the button names what is shown */
  g_autoptr (GString) label = g_string_new (NULL);
  for (guint k = 0; k < self->y_names->len; k++)
    {
      g_autofree char *shown
          = cml_plot_view_display_name (self, g_ptr_array_index (self->y_names, k));
      g_string_append_printf (label, "%s%s", k ? ", " : "", shown);
    }
  if (label->len == 0)
    g_string_assign (label, _("Choose…"));
  else if (g_utf8_strlen (label->str, -1) > 20)
    {
      g_autofree char *first
          = cml_plot_view_display_name (self, g_ptr_array_index (self->y_names, 0));
      /* TRANSLATORS: the quantities chosen for a plot: the first one's name and how many others */
      g_string_printf (label, _("%s + %u more"), first, self->y_names->len - 1);
    }
  gtk_menu_button_set_label (self->y_button, label->str);

  gboolean has_residual
      = self->system && cml_system_observable_index (self->system, "residual") >= 0;
  g_autoptr (GPtrArray) monitors = cml_plot_view_monitor_names (self);
  gtk_widget_set_visible (self->residual_button, has_residual);
  gtk_widget_set_visible (self->monitors_button, monitors->len > 0);
  gtk_widget_set_visible (self->error_button, self->reference != NULL);

  self->syncing = FALSE;
  cml_plot_view_sync_equal_scales (self);
}

void
cml_plot_view_set_y_names (CmlPlotView *self, GPtrArray *names)
{
  g_ptr_array_set_size (self->y_names, 0);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (self->y_names, g_strdup (g_ptr_array_index (names, i)));
}

static void
on_check_toggled (GtkCheckButton *check, CmlPlotView *self)
{
  if (self->syncing)
    return;

  /* the selection in observable order; a quantity ticked in another unit than the others
   * is plotted on its own (one axis, one unit) */
  const char *unit = NULL;
  guint ticked;
  if (gtk_check_button_get_active (check) && g_ptr_array_find (self->checks, check, &ticked))
    unit = cml_plot_view_unit_of (self, cml_system_observable_name (self->system, ticked));
  g_ptr_array_set_size (self->y_names, 0);
  for (guint i = 0; i < self->checks->len; i++)
    {
      const char *name = cml_system_observable_name (self->system, i);
      if (gtk_check_button_get_active (g_ptr_array_index (self->checks, i))
          && (unit == NULL || cml_plot_view_same_unit (unit, cml_plot_view_unit_of (self, name))))
        g_ptr_array_add (self->y_names, g_strdup (name));
    }
  cml_plot_view_rebuild_series (self);
}

void
cml_plot_view_on_monitors_clicked (CmlPlotView *self)
{
  g_autoptr (GPtrArray) monitors = cml_plot_view_monitor_names (self);
  cml_plot_view_set_y_names (self, monitors);
  cml_plot_view_rebuild_series (self);
  gtk_menu_button_popdown (self->y_button);
}

void
cml_plot_view_on_residual_clicked (CmlPlotView *self)
{
  g_ptr_array_set_size (self->y_names, 0);
  g_ptr_array_add (self->y_names, g_strdup ("residual"));
  cml_plot_view_rebuild_series (self);
  gtk_menu_button_popdown (self->y_button);
}

/* The live error of every closed form, NAME_err = the run minus the closed form. */
void
cml_plot_view_on_error_clicked (CmlPlotView *self)
{
  if (self->reference == NULL)
    return;
  /* errors against time, whatever was plotted against what */
  g_clear_pointer (&self->x_name, g_free);
  g_ptr_array_set_size (self->y_names, 0);
  for (guint i = 0; i < cml_reference_get_n (self->reference); i++)
    g_ptr_array_add (self->y_names,
                     g_strdup_printf ("%s_err", cml_reference_get_name (self->reference, i)));
  cml_plot_view_rebuild_series (self);
  gtk_menu_button_popdown (self->y_button);
}

void
cml_plot_view_on_x_selected (CmlPlotView *self)
{
  if (self->syncing || self->system == NULL)
    return;
  guint pos = gtk_drop_down_get_selected (self->x_dropdown);
  g_clear_pointer (&self->x_name, g_free);
  if (pos != GTK_INVALID_LIST_POSITION && pos > 0 && pos <= cml_system_n_observables (self->system))
    self->x_name = g_strdup (cml_system_observable_name (self->system, pos - 1));
  cml_plot_view_rebuild_series (self);
}

void
cml_plot_view_on_show_all_toggled (CmlPlotView *self)
{
  cml_plot_set_show_all (self->plot, gtk_toggle_button_get_active (self->all_button));
  gtk_gl_area_queue_render (self->area);
}

/* Fills the selectors with SYS's observables. */
void
cml_plot_view_fill_selectors (CmlPlotView *self)
{
  GtkWidget *child;

  self->syncing = TRUE;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->y_list))))
    gtk_box_remove (self->y_list, child);
  g_ptr_array_set_size (self->checks, 0);

  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->x_model));
  guint n = self->system ? cml_system_n_observables (self->system) : 0;
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (items, g_strdup (_("time")));
  for (guint i = 0; i < n; i++)
    {
      const char *name = cml_system_observable_name (self->system, i);
      g_autofree char *text = cml_plot_view_display_name_with_unit (self, name);
      GtkWidget *check = gtk_check_button_new_with_label (text);
      g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled), self);
      gtk_box_append (self->y_list, check);
      g_ptr_array_add (self->checks, check);
      g_ptr_array_add (items, g_steal_pointer (&text));
    }
  g_ptr_array_add (items, NULL);
  gtk_string_list_splice (self->x_model, 0, n_old, (const char *const *) items->pdata);

  g_autofree char *window_label = cml_plot_view_time_unit (self)[0]
                                     /* TRANSLATORS: the time window of a plot: a number and the model's time unit, "Last 20 s" */
                                     ? g_strdup_printf (_("Last %g %s"), cml_plot_get_time_window (self->plot), cml_plot_view_time_unit (self))
                                     : g_strdup_printf (_("Last %g"), cml_plot_get_time_window (self->plot));
  gtk_button_set_label (GTK_BUTTON (self->window_button), window_label);
  self->syncing = FALSE;
}

void
cml_plot_view_set_series (CmlPlotView *self, const char *x, const char *const *ys)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  /* "time" and "t" name the time axis unless an observable is called so */
  if (x && (g_str_equal (x, "time") || g_str_equal (x, "t")) &&
      (self->system == NULL || cml_system_observable_index (self->system, x) < 0))
    x = NULL;
  g_free (self->x_name);
  self->x_name = g_strdup (x);
  g_ptr_array_set_size (self->y_names, 0);
  for (guint k = 0; ys && ys[k]; k++)
    g_ptr_array_add (self->y_names, g_strdup (ys[k]));
  cml_plot_view_rebuild_series (self);
}
