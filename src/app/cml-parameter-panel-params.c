/* cml-parameter-panel-params.c — the panel's parameters: one row each (name, slider,
 * value field, unit, and a menu with "Sweep this parameter…"), or a dropdown for a set of
 * allowed values; a slider over decades moves log10 of the value.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <glib/gi18n.h>

#include "cml-plot.h"
#include "cml-popover-renew.h"

#include <math.h>

/* A step of about 1/100 of the range, rounded to a power of ten. */
static double
nice_step (double min, double max, gboolean log_scale)
{
  double span = log_scale ? min : (max - min) / 100.0;

  if (!(span > 0) || !isfinite (span))
    return 0.01;
  return pow (10.0, floor (log10 (span)));
}

static double
scale_to_value (ParamRow *row, double s)
{
  return row->log_scale ? pow (10.0, s) : s;
}

static double
value_to_scale (ParamRow *row, double v)
{
  return row->log_scale ? log10 (MAX (v, row->min)) : v;
}

static void
on_param_scale_changed (GtkRange *range, ParamRow *row)
{
  double v;

  if (row->self->updating)
    return;
  v = CLAMP (scale_to_value (row, gtk_range_get_value (range)), row->min, row->max);
  {
    g_autofree char *msg = NULL;

    /* a value no body can have: the slider stays at the last possible one, and says why */
    if (!cml_parameter_panel_param_possible (row, v, &msg))
      {
        row->self->updating = TRUE;
        gtk_range_set_value (range, value_to_scale (row, row->value));
        row->self->updating = FALSE;
        cml_parameter_panel_show_input_error (row->self, GTK_WIDGET (row->spin), msg);
        return;
      }
  }
  cml_parameter_panel_hide_input_error (row->self);
  /* the spin button follows; its handler sends the value */
  if (fabs (v - gtk_spin_button_get_value (row->spin)) > 1e-12 * MAX (1.0, fabs (v)))
    gtk_spin_button_set_value (row->spin, v);
}

static void
on_param_spin_changed (GtkSpinButton *spin, ParamRow *row)
{
  double v = gtk_spin_button_get_value (spin);
  double s = value_to_scale (row, v);
  gboolean was = row->self->updating;

  /* move the slider without it sending the (rounded) value back */
  row->self->updating = TRUE;
  if (fabs (gtk_range_get_value (GTK_RANGE (row->scale)) - s) > 1e-12 * MAX (1.0, fabs (s)))
    gtk_range_set_value (GTK_RANGE (row->scale), s);
  row->self->updating = was;

  cml_parameter_panel_param_row_emit (row, v);
}

static void
on_param_choice_changed (GtkDropDown *dropdown, GParamSpec *pspec, ParamRow *row)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (i < row->n_choices)
    cml_parameter_panel_param_row_emit (row, row->choices[i]);
}

void
cml_parameter_panel_param_row_set_value (ParamRow *row, double value)
{
  if (row->choice)
    {
      for (guint i = 0; i < row->n_choices; i++)
        if (fabs (row->choices[i] - value) < 1e-12)
          {
            if (gtk_drop_down_get_selected (row->choice) == i)
              cml_parameter_panel_param_row_emit (row, value);
            else
              gtk_drop_down_set_selected (row->choice, i);
            return;
          }
      return;
    }
  value = CLAMP (value, row->min, row->max);
  if (gtk_spin_button_get_value (row->spin) == value)
    cml_parameter_panel_param_row_emit (row, value);
  else
    gtk_spin_button_set_value (row->spin, value);
}

void
cml_parameter_panel_add_param_row (CmlParameterPanel *self, const CmlParam *p, guint index)
{
  ParamRow *row = g_new0 (ParamRow, 1);
  GtkWidget *name, *unit, *value_widget;
  g_autofree char *tip = NULL;
  g_autofree char *unit_text = cml_plot_format_unit (p->unit);
  g_autofree char *shown = cml_expr_pretty_name (p->name, FALSE);
  int r = index;

  row->self = self;
  row->name = g_strdup (p->name);
  row->shown = g_strdup (shown);
  row->unit = g_strdup (unit_text);
  row->min = p->min;
  row->max = p->max;
  row->value = p->value;
  if (p->choices)
    tip = g_strdup_printf (_("%s\nDefault %g (on the command line: --set %s=…)"),
                           p->meaning ? p->meaning : p->name, p->value, p->name);
  else
    tip = g_strdup_printf (_("%s\nDefault %g %s; range %g … %g (on the command line: --set %s=…)"),
                           p->meaning ? p->meaning : p->name, p->value, unit_text, p->min, p->max,
                           p->name);

  name = gtk_label_new (shown);
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_widget_add_css_class (name, "param-name");
  gtk_widget_set_tooltip_text (name, tip);

  unit = gtk_label_new (unit_text);
  gtk_label_set_xalign (GTK_LABEL (unit), 0);
  gtk_widget_add_css_class (unit, "dim-label");
  gtk_widget_set_size_request (unit, 40, -1);

  if (p->choices)
    {
      GtkStringList *strings = gtk_string_list_new (NULL);
      guint selected = 0;

      row->choices = g_memdup2 (p->choices, p->n_choices * sizeof (double));
      row->n_choices = p->n_choices;
      for (guint i = 0; i < p->n_choices; i++)
        {
          char buf[64];

          g_snprintf (buf, sizeof buf, "%g", p->choices[i]);
          gtk_string_list_append (strings, buf);
          if (fabs (p->choices[i] - p->value) < 1e-12)
            selected = i;
        }
      value_widget = gtk_drop_down_new (G_LIST_MODEL (strings), NULL);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (value_widget), selected);
      row->choice = GTK_DROP_DOWN (value_widget);
      g_signal_connect (value_widget, "notify::selected", G_CALLBACK (on_param_choice_changed),
                        row);
    }
  else
    {
      double step;

      row->log_scale = p->min > 0 && p->max / p->min >= 100.0;
      step = nice_step (p->min, p->max, row->log_scale);
      row->spin = cml_parameter_panel_make_spin (self, row, row->shown, row->unit, p->min, p->max,
                                                 step, p->value);
      value_widget = GTK_WIDGET (row->spin);
      g_signal_connect (row->spin, "value-changed", G_CALLBACK (on_param_spin_changed), row);

      if (row->log_scale)
        row->scale = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL,
                                                          log10 (p->min), log10 (p->max), 0.001));
      else
        row->scale = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL,
                                                          p->min, p->max, step));
      gtk_range_set_value (GTK_RANGE (row->scale), value_to_scale (row, p->value));
      gtk_scale_set_draw_value (row->scale, FALSE);
      /* no mark at the default: it would double the line's height (the tooltip names the
       * default, and "Defaults" goes back to it) */
      gtk_widget_set_hexpand (GTK_WIDGET (row->scale), TRUE);
      gtk_widget_set_tooltip_text (GTK_WIDGET (row->scale), tip);
      gtk_widget_add_css_class (GTK_WIDGET (row->scale), "param-scale");
      gtk_widget_set_size_request (GTK_WIDGET (row->scale), 90, -1);
      g_signal_connect (row->scale, "value-changed", G_CALLBACK (on_param_scale_changed), row);
      cml_parameter_panel_guard_wheel (self, GTK_WIDGET (row->scale));
      gtk_grid_attach (self->param_grid, GTK_WIDGET (row->scale), 1, r, 1, 1);
    }
  gtk_widget_set_tooltip_text (value_widget, tip);
  gtk_widget_set_valign (value_widget, GTK_ALIGN_CENTER);

  /* one line per parameter: name, slider, value, unit (a dropdown spans the slider's
   * and the value's columns) */
  gtk_grid_attach (self->param_grid, name, 0, r, 1, 1);
  if (p->choices)
    {
      gtk_widget_set_halign (value_widget, GTK_ALIGN_END);
      gtk_grid_attach (self->param_grid, value_widget, 1, r, 2, 1);
    }
  else
    gtk_grid_attach (self->param_grid, value_widget, 2, r, 1, 1);
  gtk_grid_attach (self->param_grid, unit, 3, r, 1, 1);
  if (!p->choices)
    {
      /* the row's menu: "Sweep this parameter…" (the Sweep page, over the slider's range) */
      GtkWidget *sweep = gtk_button_new_with_label (_("Sweep this parameter…"));
      gtk_button_set_has_frame (GTK_BUTTON (sweep), FALSE);
      GtkWidget *popover = gtk_popover_new ();
      gtk_popover_set_child (GTK_POPOVER (popover), sweep);
      g_signal_connect (sweep, "clicked", G_CALLBACK (cml_parameter_panel_on_sweep_clicked), row);
      GtkWidget *more = gtk_menu_button_new ();
      gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (more), "view-more-symbolic");
      gtk_menu_button_set_popover (GTK_MENU_BUTTON (more), popover);
      gtk_menu_button_set_has_frame (GTK_MENU_BUTTON (more), FALSE);
      gtk_widget_set_valign (more, GTK_ALIGN_CENTER);
      g_autofree char *more_tip
          = g_strdup_printf (_("More for %s: sweep it over its range and plot a quantity "
                                "against it"),
                             shown);
      gtk_widget_set_tooltip_text (more, more_tip);
      cml_menu_button_renew_popover (GTK_MENU_BUTTON (more));
      gtk_grid_attach (self->param_grid, more, 4, r, 1, 1);
    }

  g_ptr_array_add (self->params, row);
}

ParamRow *
cml_parameter_panel_find_param (CmlParameterPanel *self, const char *name)
{
  for (guint i = 0; self->params && i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];

      if (g_strcmp0 (row->name, name) == 0)
        return row;
    }
  return NULL;
}
