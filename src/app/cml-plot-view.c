/* cml-plot-view.c — the live plot widget: series selectors and a GtkGLArea.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The view owns the data (one CmlPlotColumn per observable plus the time column, for
 * the run's newest CML_PLOT_VIEW_KEEP samples) and a CmlPlot whose series point into those columns; choosing other
 * quantities only makes new series over the same columns.  Drawing is cml-plot-gl's.
 *
 * This file is the widget, the names and units of what it shows, and the series made from
 * the selection; its parts are in cml-plot-view-*.c (see cml-plot-view-private.h).
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <glib/gi18n.h>

#include <string.h>

#include "cml-popover-renew.h"
#include "cml-reference.h"

G_DEFINE_FINAL_TYPE (CmlPlotView, cml_plot_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_EQUAL_SCALES,
  PROP_SHOW_REFERENCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- helpers --------------------------------------------------------------------------- */

CmlModel *
cml_plot_view_model (CmlPlotView *self)
{
  return self->system ? cml_system_get_model (self->system) : NULL;
}

/* The reference that NAME_ref or NAME_err (SUFFIX "_ref", "_err") names, or -1; an
 * observable of that name wins. */
static int
reference_of (CmlPlotView *self, const char *name, const char *suffix)
{
  if (self->reference == NULL || !g_str_has_suffix (name, suffix)
      || cml_system_observable_index (self->system, name) >= 0)
    return -1;
  g_autofree char *base = g_strndup (name, strlen (name) - strlen (suffix));
  return cml_reference_find (self->reference, base);
}

const char *
cml_plot_view_unit_of (CmlPlotView *self, const char *name)
{
  CmlModel *model = cml_plot_view_model (self);
  int r = reference_of (self, name, "_err");
  if (r < 0)
    r = reference_of (self, name, "_ref");
  if (r >= 0)
    name = cml_reference_get_name (self->reference, (guint) r);
  const char *unit = model ? cml_model_unit (model, name) : NULL;
  /* as the model declares it: a dimensionless "1" is shown as the name alone (the plot's
   * titles know), and two quantities declared dimensionless share a scale */
  return unit ? unit : "";
}

const char *
cml_plot_view_time_unit (CmlPlotView *self)
{
  CmlModel *model = cml_plot_view_model (self);
  /* "1" is a dimensionless time: no unit to show */
  if (model == NULL || model->time_unit == NULL || g_str_equal (model->time_unit, "1"))
    return "";
  return model->time_unit;
}

/* How quantity NAME is named to people: its label in the user's language, its symbol or
 * its name typeset ("energía", "ρ", "pᵣ", "|Γ|²"),
 * a closed form's value and error in words.  Newly allocated. */
char *
cml_plot_view_display_name (CmlPlotView *self, const char *name)
{
  CmlModel *model = cml_plot_view_model (self);
  int r;

  if (model == NULL)
    return g_strdup (name);
  if ((r = reference_of (self, name, "_err")) >= 0)
    {
      g_autofree char *base
          = cml_model_display_name (model, cml_reference_get_name (self->reference, (guint) r));
      /* TRANSLATORS: a quantity's symbol: the run's value minus its closed form */
      return g_strdup_printf (_("error in %s"), base);
    }
  if ((r = reference_of (self, name, "_ref")) >= 0)
    {
      g_autofree char *base
          = cml_model_display_name (model, cml_reference_get_name (self->reference, (guint) r));
      return g_strdup_printf (_("%s (closed form)"), base);
    }
  return cml_model_display_name (model, name);
}

/* "ρ [m]", or the name alone for a dimensionless quantity. */
char *
cml_plot_view_display_name_with_unit (CmlPlotView *self, const char *name)
{
  g_autofree char *shown = cml_plot_view_display_name (self, name);
  g_autofree char *unit = cml_plot_format_unit (cml_plot_view_unit_of (self, name));
  return unit[0] ? g_strdup_printf ("%s [%s]", shown, unit) : g_steal_pointer (&shown);
}

/* Whether quantities of units A and B can share an axis: the same unit as written
 * (undeclared and dimensionless alike: no unit). */
gboolean
cml_plot_view_same_unit (const char *a, const char *b)
{
  g_autofree char *fa = cml_plot_format_unit (a);
  g_autofree char *fb = cml_plot_format_unit (b);
  return g_str_equal (fa, fb);
}

/* The model's monitors that are observables (energy, invariants). */
GPtrArray *
cml_plot_view_monitor_names (CmlPlotView *self)
{
  GPtrArray *names = g_ptr_array_new ();
  CmlModel *model = cml_plot_view_model (self);
  if (model == NULL || model->monitors == NULL)
    return names;
  for (guint i = 0; i < model->monitors->len; i++)
    {
      CmlNamedExpr *m = g_ptr_array_index (model->monitors, i);
      if (cml_system_observable_index (self->system, m->name) >= 0)
        g_ptr_array_add (names, m->name);
    }
  return names;
}

void
cml_plot_view_style (CmlPlotView *self, CmlPlotStyle *style)
{
  cml_plot_style_init_contrast (style, self->dark, self->high_contrast, self->presentation);
  style->scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  /* on a projector the type and lines grow with the window (style->scale multiplies every
   * size; positions come from the layout) */
  if (self->presentation)
    style->scale *= self->text_scale;
}

/* ---- the plot -------------------------------------------------------------------------- */

/* The column of an observable, or of a closed form's value or error (NAME_ref, NAME_err). */
static CmlPlotColumn *
column_of (CmlPlotView *self, const char *name)
{
  int idx = self->system ? cml_system_observable_index (self->system, name) : -1;
  if (idx >= 0)
    return (guint) idx < self->columns->len ? g_ptr_array_index (self->columns, idx) : NULL;
  int r = self->system ? reference_of (self, name, "_ref") : -1;
  if (r >= 0 && 2 * (guint) r < self->ref_columns->len)
    return g_ptr_array_index (self->ref_columns, 2 * r);
  r = self->system ? reference_of (self, name, "_err") : -1;
  if (r >= 0 && 2 * (guint) r + 1 < self->ref_columns->len)
    return g_ptr_array_index (self->ref_columns, 2 * r + 1);
  return NULL;
}

/* The closed form of observable NAME as a column, or NULL (none, or hidden). */
static CmlPlotColumn *
reference_column_of (CmlPlotView *self, const char *name)
{
  if (!self->show_reference || self->reference == NULL)
    return NULL;
  int r = cml_reference_find (self->reference, name);
  return r >= 0 && 2 * (guint) r < self->ref_columns->len
             ? g_ptr_array_index (self->ref_columns, 2 * r)
             : NULL;
}

/* Makes the plot's series and axis titles from the selection. */
void
cml_plot_view_rebuild_series (CmlPlotView *self)
{
  CmlPlot *plot = self->plot;
  CmlPlotColumn *x_column = self->t_column;

  cml_plot_remove_all_series (plot);

  if (self->x_name && (x_column = column_of (self, self->x_name)) == NULL)
    {
      g_warning ("no observable named “%s” to plot against", self->x_name);
      g_clear_pointer (&self->x_name, g_free);
      x_column = self->t_column;
    }
  cml_plot_set_against_time (plot, self->x_name == NULL);
  if (self->x_name)
    {
      g_autofree char *x_shown = cml_plot_view_display_name (self, self->x_name);
      cml_plot_axis_set_label (cml_plot_get_x_axis (plot), x_shown,
                               cml_plot_view_unit_of (self, self->x_name));
    }
  else
    cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", cml_plot_view_time_unit (self));

  /* the series, all in one unit: the y axis shows one unit, titled with it (a quantity of
   * another unit is plotted on its own: the selector replaces the selection with it, and
   * a selection made in code keeps those of its first quantity's unit) */
  const char *common_unit = NULL;
  guint n_primary = 0, n_drift = 0;
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint k = 0; k < self->y_names->len; k++)
    {
      const char *name = g_ptr_array_index (self->y_names, k);
      CmlPlotColumn *y_column = column_of (self, name);
      if (y_column == NULL)
        {
          if (self->system)
            g_warning ("no observable named “%s” to plot", name);
          g_ptr_array_remove_index (self->y_names, k--);
          continue;
        }
      const char *unit = cml_plot_view_unit_of (self, name);
      if (common_unit != NULL && !cml_plot_view_same_unit (common_unit, unit))
        {
          g_debug ("“%s” (%s) left out of a plot in %s: one axis, one unit", name, unit,
                   common_unit);
          g_ptr_array_remove_index (self->y_names, k--);
          continue;
        }
      if (common_unit == NULL)
        common_unit = unit;
      g_autofree char *shown = cml_plot_view_display_name (self, name);
      guint colour = n_primary++;
      /* comparing two runs, against time: this one minus the other instead of both */
      if (self->x_name == NULL
          && cml_plot_view_compare_add_difference (self, name, shown, unit, colour))
        {
          g_string_append_printf (names, "%sΔ%s", names->len ? ", " : "", shown);
          continue;
        }
      /* comparing integrators: the two runs' drift, on a logarithmic scale */
      if (self->x_name == NULL && cml_plot_view_compare_add_drift (self, name, shown, colour))
        {
          n_drift++;
          continue;
        }
      g_autoptr (CmlPlotSeries) series
          = cml_plot_series_new_for_columns (shown, unit, self->t_column, x_column, y_column);
      cml_plot_series_set_palette_index (series, colour);
      /* its closed form, dashed in the same colour (a phase portrait needs both axes'),
       * under the data: where the two agree, the dashes show on both sides of the line */
      CmlPlotColumn *y_ref = reference_column_of (self, name);
      CmlPlotColumn *x_ref
          = self->x_name ? reference_column_of (self, self->x_name) : self->t_column;
      if (y_ref && x_ref)
        {
          g_autofree char *label = g_strdup_printf (_("%s (closed form)"), shown);
          g_autoptr (CmlPlotSeries) closed
              = cml_plot_series_new_for_columns (label, unit, self->t_column, x_ref, y_ref);
          cml_plot_series_set_palette_index (closed, colour);
          cml_plot_series_set_dashed (closed, TRUE);
          cml_plot_add_series (plot, closed);
        }
      /* the other run being compared, faint, under this one */
      cml_plot_view_compare_add_series (self, name, shown, unit, colour);
      cml_plot_add_series (plot, series);
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", shown);
    }

  /* the y axis: the quantities' names when they fit, and always their unit */
  CmlPlotAxis *y_axis = cml_plot_get_y_axis (plot);
  if (n_drift > 0)
    /* TRANSLATORS: the axis of quantities' drift from their values at t = 0, |Q − Q(0)|,
     * on a logarithmic scale (the legend names the quantities; the unit follows) */
    cml_plot_axis_set_label (y_axis, _("log₁₀ |drift|"), common_unit);
  else if (n_primary == 1)
    cml_plot_axis_set_label (y_axis, names->str, common_unit);
  else if (n_primary > 1)
    cml_plot_axis_set_label (y_axis, g_utf8_strlen (names->str, -1) <= 24 ? names->str : "",
                             common_unit);
  else
    cml_plot_axis_set_label (y_axis, "", "");

  cml_plot_reset_ranges (plot);
  cml_plot_view_sync_selectors (self);
  cml_plot_view_sync_zoom (self);
  gtk_gl_area_queue_render (self->area);
}

CmlPlotColumn *
cml_plot_view_column_of (CmlPlotView *self, const char *name)
{
  return column_of (self, name);
}

void
cml_plot_view_rebuild (CmlPlotView *self)
{
  cml_plot_view_rebuild_series (self);
}

void
cml_plot_view_queue_render (CmlPlotView *self)
{
  gtk_gl_area_queue_render (self->area);
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_plot_view_dispose (GObject *object)
{
  CmlPlotView *self = CML_PLOT_VIEW (object);

  GtkWidget *child;

  cml_plot_view_close_chooser (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_PLOT_VIEW);
  /* unparent whatever the template left */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cml_plot_view_parent_class)->dispose (object);
}

static void
cml_plot_view_finalize (GObject *object)
{
  CmlPlotView *self = CML_PLOT_VIEW (object);

  if (self->data_owner)
    g_object_remove_weak_pointer (G_OBJECT (self->data_owner), (gpointer *) &self->data_owner);
  g_clear_pointer (&self->system, cml_system_unref);
  g_clear_pointer (&self->plot, cml_plot_unref);
  g_clear_pointer (&self->t_column, cml_plot_column_unref);
  g_clear_pointer (&self->columns, g_ptr_array_unref);
  g_clear_pointer (&self->reference, cml_reference_free);
  g_clear_pointer (&self->ref_columns, g_ptr_array_unref);
  g_clear_pointer (&self->ref_scratch, g_array_unref);
  g_clear_pointer (&self->checks, g_ptr_array_unref);
  g_clear_pointer (&self->y_names, g_ptr_array_unref);
  g_free (self->x_name);
  cml_plot_view_compare_finalize (self);
  G_OBJECT_CLASS (cml_plot_view_parent_class)->finalize (object);
}

static void
cml_plot_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlPlotView *self = CML_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_EQUAL_SCALES:
      g_value_set_boolean (value, cml_plot_get_equal_scales (self->plot));
      break;
    case PROP_SHOW_REFERENCE:
      g_value_set_boolean (value, self->show_reference);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_plot_view_set_property (GObject *object, guint prop_id, const GValue *value,
                            GParamSpec *pspec)
{
  CmlPlotView *self = CML_PLOT_VIEW (object);

  switch (prop_id)
    {
    case PROP_EQUAL_SCALES:
      cml_plot_view_set_equal_scales (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_REFERENCE:
      cml_plot_view_set_show_reference (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_plot_view_class_init (CmlPlotViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_plot_view_dispose;
  object_class->finalize = cml_plot_view_finalize;
  cml_plot_view_pick_class_init (object_class);
  object_class->get_property = cml_plot_view_get_property;
  object_class->set_property = cml_plot_view_set_property;

  /* one data unit as long across as up when both axes have one unit (the plot menu's
   * "Equal Scales") */
  properties[PROP_EQUAL_SCALES] =
    g_param_spec_boolean ("equal-scales", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the closed forms ([reference]) drawn dashed beside their quantities (the plot menu's
   * "Closed Form") */
  properties[PROP_SHOW_REFERENCE] =
    g_param_spec_boolean ("show-reference", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/cmlab/Cmlab/ui/cml-plot-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, selectors);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, x_selector);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, controls);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, y_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, monitors_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, residual_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, error_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, y_list);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, x_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, x_model);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, window_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, all_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, export_button);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_monitors_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_residual_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_error_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_show_all_toggled);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_area_realize);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_area_unrealize);
  gtk_widget_class_bind_template_callback (widget_class, cml_plot_view_on_area_render);

  gtk_widget_class_install_action (widget_class, "plot.export", "s", cml_plot_view_export_action);
  gtk_widget_class_install_action (widget_class, "plot.reset-zoom", NULL,
                                   cml_plot_view_reset_zoom_action);
  gtk_widget_class_install_property_action (widget_class, "plot.equal-scales", "equal-scales");
  gtk_widget_class_install_property_action (widget_class, "plot.show-reference", "show-reference");
  gtk_widget_class_set_css_name (widget_class, "cmlplotview");
}

static void
cml_plot_view_init (CmlPlotView *self)
{
  self->text_scale = 1.0;
  gtk_widget_init_template (GTK_WIDGET (self));
  cml_menu_button_renew_popover (self->y_button);
  gtk_widget_set_layout_manager (GTK_WIDGET (self),
                                 gtk_custom_layout_new (cml_plot_view_layout_request_mode,
                                                        cml_plot_view_layout_measure,
                                                        cml_plot_view_layout_allocate));

  /* GL 3.3 core or GLES 3.0: the shaders come in both */
  gtk_gl_area_set_required_version (self->area, 3, 3);

  self->plot = cml_plot_new ();
  self->t_column = cml_plot_column_new ();
  self->columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  self->ref_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  self->ref_scratch = g_array_new (FALSE, FALSE, sizeof (double));
  /* off until asked for: the run is what the class watches first; the closed form is
   * switched on over it ("Closed Form" in the plot's menu) */
  self->show_reference = FALSE;
  self->checks = g_ptr_array_new ();
  self->y_names = g_ptr_array_new_with_free_func (g_free);
  cml_plot_view_compare_init (self);
  cml_plot_view_pick_init (self);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), "t", "");

  g_signal_connect_swapped (self->x_dropdown, "notify::selected",
                            G_CALLBACK (cml_plot_view_on_x_selected), self);

  /* the wheel zooms, a double click (or the menu) goes back */
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (cml_plot_view_on_pointer_motion), self);
  g_signal_connect (motion, "enter", G_CALLBACK (cml_plot_view_on_pointer_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
  GtkEventController *scroll
      = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (cml_plot_view_on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), scroll);
  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (cml_plot_view_on_double_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), GTK_EVENT_CONTROLLER (click));

  /* "Equal Scales" in the menu: a check button of ours, for its tooltip */
  self->equal_check = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_Equal Scales")));
  gtk_widget_add_css_class (GTK_WIDGET (self->equal_check), "plot-equal-scales");
  g_signal_connect_swapped (self->equal_check, "toggled",
                            G_CALLBACK (cml_plot_view_on_equal_check_toggled), self);
  gtk_popover_menu_add_child (GTK_POPOVER_MENU (gtk_menu_button_get_popover (self->export_button)),
                              GTK_WIDGET (self->equal_check), "equal-scales");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-reference", FALSE);
  cml_plot_view_sync_selectors (self);
}

/* ---- public API ------------------------------------------------------------------------ */

GtkWidget *
cml_plot_view_new (void)
{
  return g_object_new (CML_TYPE_PLOT_VIEW, NULL);
}

void
cml_plot_view_set_presentation (CmlPlotView *self, gboolean on)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  self->presentation = !!on;
  /* on a projector the plot takes the room: its selectors fold away (what is plotted is
   * chosen before, or after leaving presentation mode) */
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self)); c;
       c = gtk_widget_get_next_sibling (c))
    if (gtk_widget_has_css_class (c, "plot-header"))
      gtk_widget_set_visible (c, !self->presentation);
  cml_plot_reset_ranges (self->plot);
  gtk_gl_area_queue_render (self->area);
}

void
cml_plot_view_set_text_scale (CmlPlotView *self, double scale)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  scale = MAX (scale, 1.0);
  if (scale == self->text_scale)
    return;
  self->text_scale = scale;
  gtk_gl_area_queue_render (self->area);
}

double
cml_plot_view_get_font (CmlPlotView *self)
{
  CmlPlotStyle style;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), 0);
  cml_plot_view_style (self, &style);
  return style.font_size * style.scale / gtk_widget_get_scale_factor (GTK_WIDGET (self));
}

void
cml_plot_view_set_dark (CmlPlotView *self, gboolean dark)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  cml_plot_view_set_style (self, dark, self->high_contrast);
}

void
cml_plot_view_set_style (CmlPlotView *self, gboolean dark, gboolean high_contrast)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  self->dark = !!dark;
  self->high_contrast = !!high_contrast;
  /* the other run's faint colours follow the palette */
  if (self->ghost_system)
    cml_plot_view_rebuild_series (self);
  gtk_gl_area_queue_render (self->area);
}

CmlPlot *
cml_plot_view_get_plot (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return self->plot;
}

void
cml_plot_view_get_style (CmlPlotView *self, CmlPlotStyle *style)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  g_return_if_fail (style != NULL);
  cml_plot_style_init_contrast (style, self->dark, self->high_contrast, self->presentation);
}

void
cml_plot_view_set_equal_scales (CmlPlotView *self, gboolean equal_scales)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  equal_scales = !!equal_scales;
  if (cml_plot_get_equal_scales (self->plot) == equal_scales)
    return;
  cml_plot_set_equal_scales (self->plot, equal_scales);
  cml_plot_view_sync_equal_scales (self);
  gtk_gl_area_queue_render (self->area);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EQUAL_SCALES]);
}

void
cml_plot_view_set_show_reference (CmlPlotView *self, gboolean show)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  show = !!show;
  if (self->show_reference == show)
    return;
  self->show_reference = show;
  cml_plot_view_rebuild_series (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_REFERENCE]);
}

gboolean
cml_plot_view_get_show_reference (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->show_reference;
}

gboolean
cml_plot_view_has_reference (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return self->reference != NULL;
}

gboolean
cml_plot_view_get_equal_scales (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return cml_plot_get_equal_scales (self->plot);
}

CmlSystem *
cml_plot_view_get_system (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return self->system;
}

CmlPlotColumn *
cml_plot_view_get_time_column (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return self->t_column;
}

CmlPlotColumn *
cml_plot_view_get_column (CmlPlotView *self, guint index)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return index < self->columns->len ? g_ptr_array_index (self->columns, index) : NULL;
}

const char *
cml_plot_view_get_x_name (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  return self->x_name;
}

char **
cml_plot_view_dup_y_names (CmlPlotView *self)
{
  GStrvBuilder *b;
  char **names;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), NULL);
  b = g_strv_builder_new ();
  for (guint k = 0; k < self->y_names->len; k++)
    g_strv_builder_add (b, g_ptr_array_index (self->y_names, k));
  names = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return names;
}

gboolean
cml_plot_view_get_show_all (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return cml_plot_get_show_all (self->plot);
}

void
cml_plot_view_set_show_all (CmlPlotView *self, gboolean show_all)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  gtk_toggle_button_set_active (show_all ? self->all_button : self->window_button, TRUE);
  cml_plot_set_show_all (self->plot, !!show_all);
  gtk_gl_area_queue_render (self->area);
}

/* Makes SELF show OWNER's data (every observable's column for the whole run) instead of
 * keeping its own copy: with two plots of one run this halves the memory (about 10 bytes
 * per value: 230 MB per view for 23 observables and 10^6 samples).  Call owner's
 * set_system before self's; samples are pushed to OWNER, and pushes to SELF only redraw.
 * UI thread. */
void
cml_plot_view_share_data (CmlPlotView *self, CmlPlotView *owner)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  g_return_if_fail (CML_IS_PLOT_VIEW (owner) && owner != self && owner->data_owner == NULL);

  if (self->data_owner)
    g_object_remove_weak_pointer (G_OBJECT (self->data_owner), (gpointer *) &self->data_owner);
  self->data_owner = owner;
  g_object_add_weak_pointer (G_OBJECT (owner), (gpointer *) &self->data_owner);
}
