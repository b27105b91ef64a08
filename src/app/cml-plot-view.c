/* cml-plot-view.c — the live plot widget: series selectors and a GtkGLArea.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The view owns the data (one CmlPlotColumn per observable plus the time column, for
 * the run's newest CML_PLOT_VIEW_KEEP samples) and a CmlPlot whose series point into those columns; choosing other
 * quantities only makes new series over the same columns.  Drawing is cml-plot-gl's.
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

#include "cml-export-folder.h"
#include "cml-gl-probe.h"
#include "cml-plot-cairo.h"
#include "cml-plot-figure.h"
#include "cml-plot-gl.h"
#include "cml-reference.h"
#include "cml-window.h"


G_DEFINE_FINAL_TYPE (CmlPlotView, cml_plot_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_EQUAL_SCALES,
  PROP_SHOW_REFERENCE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void rebuild_series (CmlPlotView *self);
static void sync_zoom (CmlPlotView *self);
static void current_parameters (CmlPlotView *self, CmlModel *model, double *values);

/* ---- helpers --------------------------------------------------------------------------- */

static CmlModel *
view_model (CmlPlotView *self)
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

static const char *
unit_of (CmlPlotView *self, const char *name)
{
  CmlModel *model = view_model (self);
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

static const char *
time_unit (CmlPlotView *self)
{
  CmlModel *model = view_model (self);
  /* "1" is a dimensionless time: no unit to show */
  if (model == NULL || model->time_unit == NULL || g_str_equal (model->time_unit, "1"))
    return "";
  return model->time_unit;
}

/* How quantity NAME is named to people: its label in the user's language, its symbol or
 * its name typeset ("energía", "ρ", "pᵣ", "|Γ|²"),
 * a closed form's value and error in words.  Newly allocated. */
static char *
display_name (CmlPlotView *self, const char *name)
{
  CmlModel *model = view_model (self);
  int r;

  if (model == NULL)
    return g_strdup (name);
  if ((r = reference_of (self, name, "_err")) >= 0)
    {
      g_autofree char *base = cml_model_display_name (model, cml_reference_get_name (self->reference, (guint) r));
      /* TRANSLATORS: a quantity's symbol: the run's value minus its closed form */
      return g_strdup_printf (_("error in %s"), base);
    }
  if ((r = reference_of (self, name, "_ref")) >= 0)
    {
      g_autofree char *base = cml_model_display_name (model, cml_reference_get_name (self->reference, (guint) r));
      return g_strdup_printf (_("%s (closed form)"), base);
    }
  return cml_model_display_name (model, name);
}

/* "ρ [m]", or the name alone for a dimensionless quantity. */
static char *
display_name_with_unit (CmlPlotView *self, const char *name)
{
  g_autofree char *shown = display_name (self, name);
  g_autofree char *unit = cml_plot_format_unit (unit_of (self, name));
  return unit[0] ? g_strdup_printf ("%s [%s]", shown, unit) : g_steal_pointer (&shown);
}

/* Whether quantities of units A and B can share an axis: the same unit as written
 * (undeclared and dimensionless alike: no unit). */
static gboolean
same_unit (const char *a, const char *b)
{
  g_autofree char *fa = cml_plot_format_unit (a);
  g_autofree char *fb = cml_plot_format_unit (b);
  return g_str_equal (fa, fb);
}

/* The model's monitors that are observables (energy, invariants). */
static GPtrArray *
monitor_names (CmlPlotView *self)
{
  GPtrArray *names = g_ptr_array_new ();
  CmlModel *model = view_model (self);
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

static void
view_style (CmlPlotView *self, CmlPlotStyle *style)
{
  cml_plot_style_init_contrast (style, self->dark, self->high_contrast, self->presentation);
  style->scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  /* on a projector the type and lines grow with the window (style->scale multiplies every
   * size; positions come from the layout) */
  if (self->presentation)
    style->scale *= self->text_scale;
}

/* ---- selectors ------------------------------------------------------------------------- */

/* The menu's "Equal Scales": ticked when the scales are equal, insensitive where they
 * cannot be (against time, or axes in different units), with the reason in its tooltip. */
static void
sync_equal_scales (CmlPlotView *self)
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
      g_autofree char *ux = cml_plot_format_unit (cml_plot_axis_get_unit (cml_plot_get_x_axis (plot)));
      g_autofree char *uy = cml_plot_format_unit (cml_plot_axis_get_unit (cml_plot_get_y_axis (plot)));
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

static void
on_equal_check_toggled (CmlPlotView *self)
{
  if (!self->syncing)
    cml_plot_view_set_equal_scales (self, gtk_check_button_get_active (self->equal_check));
}

/* Shows the current selection in the header without reacting to it. */
static void
sync_selectors (CmlPlotView *self)
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
  const char *axis_unit = self->y_names->len ? unit_of (self, g_ptr_array_index (self->y_names, 0)) : NULL;
  for (guint i = 0; i < self->checks->len; i++)
    {
      const char *name = cml_system_observable_name (self->system, i);
      CmlModel *model = view_model (self);
      const char *meaning = model ? cml_model_meaning (model, name) : NULL;
      g_autoptr (GString) tip = g_string_new (meaning);
      if (axis_unit && !same_unit (axis_unit, unit_of (self, name)))
        {
          g_autofree char *u = cml_plot_format_unit (unit_of (self, name));
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
      g_autofree char *shown = display_name (self, g_ptr_array_index (self->y_names, k));
      g_string_append_printf (label, "%s%s", k ? ", " : "", shown);
    }
  if (label->len == 0)
    g_string_assign (label, _("Choose…"));
  else if (g_utf8_strlen (label->str, -1) > 20)
    {
      g_autofree char *first = display_name (self, g_ptr_array_index (self->y_names, 0));
      /* TRANSLATORS: the quantities chosen for a plot: the first one's name and how many others */
      g_string_printf (label, _("%s + %u more"), first, self->y_names->len - 1);
    }
  gtk_menu_button_set_label (self->y_button, label->str);

  gboolean has_residual = self->system && cml_system_observable_index (self->system, "residual") >= 0;
  g_autoptr (GPtrArray) monitors = monitor_names (self);
  gtk_widget_set_visible (self->residual_button, has_residual);
  gtk_widget_set_visible (self->monitors_button, monitors->len > 0);
  gtk_widget_set_visible (self->error_button, self->reference != NULL);

  self->syncing = FALSE;
  sync_equal_scales (self);
}

static void
set_y_names (CmlPlotView *self, GPtrArray *names)
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
    unit = unit_of (self, cml_system_observable_name (self->system, ticked));
  g_ptr_array_set_size (self->y_names, 0);
  for (guint i = 0; i < self->checks->len; i++)
    {
      const char *name = cml_system_observable_name (self->system, i);
      if (gtk_check_button_get_active (g_ptr_array_index (self->checks, i))
          && (unit == NULL || same_unit (unit, unit_of (self, name))))
        g_ptr_array_add (self->y_names, g_strdup (name));
    }
  rebuild_series (self);
}

static void
on_monitors_clicked (CmlPlotView *self)
{
  g_autoptr (GPtrArray) monitors = monitor_names (self);
  set_y_names (self, monitors);
  rebuild_series (self);
  gtk_popover_popdown (self->y_popover);
}

static void
on_residual_clicked (CmlPlotView *self)
{
  g_ptr_array_set_size (self->y_names, 0);
  g_ptr_array_add (self->y_names, g_strdup ("residual"));
  rebuild_series (self);
  gtk_popover_popdown (self->y_popover);
}

/* The live error of every closed form, NAME_err = the run minus the closed form. */
static void
on_error_clicked (CmlPlotView *self)
{
  if (self->reference == NULL)
    return;
  /* errors against time, whatever was plotted against what */
  g_clear_pointer (&self->x_name, g_free);
  g_ptr_array_set_size (self->y_names, 0);
  for (guint i = 0; i < cml_reference_get_n (self->reference); i++)
    g_ptr_array_add (self->y_names, g_strdup_printf ("%s_err", cml_reference_get_name (self->reference, i)));
  rebuild_series (self);
  gtk_popover_popdown (self->y_popover);
}

static void
on_x_selected (CmlPlotView *self)
{
  if (self->syncing || self->system == NULL)
    return;
  guint pos = gtk_drop_down_get_selected (self->x_dropdown);
  g_clear_pointer (&self->x_name, g_free);
  if (pos != GTK_INVALID_LIST_POSITION && pos > 0 && pos <= cml_system_n_observables (self->system))
    self->x_name = g_strdup (cml_system_observable_name (self->system, pos - 1));
  rebuild_series (self);
}

static void
on_show_all_toggled (CmlPlotView *self)
{
  cml_plot_set_show_all (self->plot, gtk_toggle_button_get_active (self->all_button));
  gtk_gl_area_queue_render (self->area);
}

/* Fills the selectors with SYS's observables. */
static void
fill_selectors (CmlPlotView *self)
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
      g_autofree char *text = display_name_with_unit (self, name);
      GtkWidget *check = gtk_check_button_new_with_label (text);
      g_signal_connect (check, "toggled", G_CALLBACK (on_check_toggled), self);
      gtk_box_append (self->y_list, check);
      g_ptr_array_add (self->checks, check);
      g_ptr_array_add (items, g_steal_pointer (&text));
    }
  g_ptr_array_add (items, NULL);
  gtk_string_list_splice (self->x_model, 0, n_old, (const char *const *) items->pdata);

  g_autofree char *window_label = time_unit (self)[0]
                                     /* TRANSLATORS: the time window of a plot: a number and the model's time unit, "Last 20 s" */
                                     ? g_strdup_printf (_("Last %g %s"), cml_plot_get_time_window (self->plot), time_unit (self))
                                     : g_strdup_printf (_("Last %g"), cml_plot_get_time_window (self->plot));
  gtk_button_set_label (GTK_BUTTON (self->window_button), window_label);
  self->syncing = FALSE;
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
  return r >= 0 && 2 * (guint) r < self->ref_columns->len ? g_ptr_array_index (self->ref_columns, 2 * r) : NULL;
}

/* Makes the plot's series and axis titles from the selection. */
static void
rebuild_series (CmlPlotView *self)
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
      g_autofree char *x_shown = display_name (self, self->x_name);
      cml_plot_axis_set_label (cml_plot_get_x_axis (plot), x_shown, unit_of (self, self->x_name));
    }
  else
    cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", time_unit (self));

  /* the series, all in one unit: the y axis shows one unit, titled with it (a quantity of
   * another unit is plotted on its own: the selector replaces the selection with it, and
   * a selection made in code keeps those of its first quantity's unit) */
  const char *common_unit = NULL;
  guint n_primary = 0;
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
      const char *unit = unit_of (self, name);
      if (common_unit != NULL && !same_unit (common_unit, unit))
        {
          g_debug ("“%s” (%s) left out of a plot in %s: one axis, one unit", name, unit, common_unit);
          g_ptr_array_remove_index (self->y_names, k--);
          continue;
        }
      if (common_unit == NULL)
        common_unit = unit;
      g_autofree char *shown = display_name (self, name);
      guint colour = n_primary++;
      /* comparing two runs, against time: this one minus the other instead of both */
      if (self->x_name == NULL && cml_plot_view_compare_add_difference (self, name, shown, unit, colour))
        {
          g_string_append_printf (names, "%sΔ%s", names->len ? ", " : "", shown);
          continue;
        }
      g_autoptr (CmlPlotSeries) series = cml_plot_series_new_for_columns (shown, unit, self->t_column,
                                                                           x_column, y_column);
      cml_plot_series_set_palette_index (series, colour);
      /* its closed form, dashed in the same colour (a phase portrait needs both axes'),
       * under the data: where the two agree, the dashes show on both sides of the line */
      CmlPlotColumn *y_ref = reference_column_of (self, name);
      CmlPlotColumn *x_ref = self->x_name ? reference_column_of (self, self->x_name) : self->t_column;
      if (y_ref && x_ref)
        {
          g_autofree char *label = g_strdup_printf (_("%s (closed form)"), shown);
          g_autoptr (CmlPlotSeries) closed = cml_plot_series_new_for_columns (label, unit, self->t_column, x_ref,
                                                                               y_ref);
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
  if (n_primary == 1)
    cml_plot_axis_set_label (y_axis, names->str, common_unit);
  else if (n_primary > 1)
    cml_plot_axis_set_label (y_axis, g_utf8_strlen (names->str, -1) <= 24 ? names->str : "", common_unit);
  else
    cml_plot_axis_set_label (y_axis, "", "");

  cml_plot_reset_ranges (plot);
  sync_selectors (self);
  sync_zoom (self);
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
  rebuild_series (self);
}

void
cml_plot_view_queue_render (CmlPlotView *self)
{
  gtk_gl_area_queue_render (self->area);
}

/* ---- GL -------------------------------------------------------------------------------- */

static void
area_size (CmlPlotView *self, int *width, int *height, int *scale)
{
  *scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  *width = gtk_widget_get_width (GTK_WIDGET (self->area)) * *scale;
  *height = gtk_widget_get_height (GTK_WIDGET (self->area)) * *scale;
}

static void
on_area_realize (CmlPlotView *self)
{
  g_autoptr (GError) error = NULL;

  gtk_gl_area_make_current (self->area);
  if (gtk_gl_area_get_error (self->area) != NULL)
    return;
  self->renderer = cml_plot_gl_new (&error);
  if (self->renderer == NULL)
    {
      g_warning ("plot: %s", error->message);
      self->renderer_failed = TRUE;
      gtk_gl_area_set_error (self->area, error);
    }
}

static void
on_area_unrealize (CmlPlotView *self)
{
  if (self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->renderer, cml_plot_gl_free);
    }
  self->renderer_failed = FALSE;
}

static gboolean
on_area_render (CmlPlotView *self, GdkGLContext *context)
{
  int width, height, scale;
  CmlPlotStyle style;

  if (self->renderer == NULL)
    return FALSE;

  /* the plot model may have been told directly (export code, tests) */
  gboolean show_all = cml_plot_get_show_all (self->plot);
  if (gtk_toggle_button_get_active (self->all_button) != show_all)
    gtk_toggle_button_set_active (show_all ? self->all_button : self->window_button, TRUE);

  area_size (self, &width, &height, &scale);
  view_style (self, &style);
  cml_plot_gl_draw (self->renderer, self->plot, width, height, &style);

  /* G_MESSAGES_DEBUG=cml-plot-view shows what a frame costs */
  if (++self->n_frames % 120 == 0)
    {
      CmlPlotGlStats stats;
      cml_plot_gl_get_stats (self->renderer, &stats);
      g_debug ("%d×%d: %.2f ms, %u segments, %u series points, %u labels (%u new)", width, height,
               stats.cpu_ms, stats.n_segments, stats.n_series_points, stats.n_labels,
               stats.n_rasterized);
    }
  return TRUE;
}

/* The pixel probe's drawing (cml-gl-probe.h): the plot at the area's size (640×360 if it
 * has none) in a framebuffer of its own, read back. */
static CmlGlProbeStatus
probe_draw (gpointer view, CmlGlProbeImage *image)
{
  CmlPlotView *self = view;
  int width, height, scale;
  CmlPlotStyle style;

  if (self->renderer == NULL)
    return self->renderer_failed ? CML_GL_PROBE_FAILED : CML_GL_PROBE_NO_GL;

  area_size (self, &width, &height, &scale);
  if (width <= 0 || height <= 0)
    width = 640, height = 360;

  gtk_gl_area_make_current (self->area);

  /* an off-screen framebuffer of the same size */
  GLuint fbo, rb;
  glGenFramebuffers (1, &fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, fbo);
  glGenRenderbuffers (1, &rb);
  glBindRenderbuffer (GL_RENDERBUFFER, rb);
  glRenderbufferStorage (GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);

  view_style (self, &style);
  cml_plot_gl_draw (self->renderer, self->plot, width, height, &style);
  image->width = width;
  image->height = height;
  image->rgba = g_malloc ((gsize) width * height * 4);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, image->rgba);

  glBindFramebuffer (GL_FRAMEBUFFER, 0);
  glDeleteRenderbuffers (1, &rb);
  glDeleteFramebuffers (1, &fbo);

  image->background[0] = style.background.r;
  image->background[1] = style.background.g;
  image->background[2] = style.background.b;
  image->background[3] = style.background.a;
  gtk_gl_area_queue_render (self->area);
  return CML_GL_PROBE_DRAWN;
}

/* ---- zoom ------------------------------------------------------------------------------ */

static void
sync_zoom (CmlPlotView *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.reset-zoom", cml_plot_get_zoomed (self->plot));
}

gboolean
cml_plot_view_zoom_at (CmlPlotView *self, double wx, double wy, double steps)
{
  double x, y;
  int scale;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  /* around the data point under the pointer; outside the plot area the wheel is not ours */
  if (self->renderer == NULL || steps == 0 || !cml_plot_gl_pick (self->renderer, wx * scale, wy * scale, &x, &y))
    return FALSE;
  cml_plot_zoom (self->plot, x, y, pow (1.25, steps));
  sync_zoom (self);
  gtk_gl_area_queue_render (self->area);
  return TRUE;
}

void
cml_plot_view_reset_zoom (CmlPlotView *self)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  cml_plot_reset_zoom (self->plot);
  sync_zoom (self);
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_plot_view_get_zoomed (CmlPlotView *self)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  return cml_plot_get_zoomed (self->plot);
}

static void
on_pointer_motion (GtkEventControllerMotion *motion, double x, double y, CmlPlotView *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

/* The wheel over the plot area zooms around the pointer (down: out); anywhere else it is
 * left to what is under it. */
static gboolean
on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, CmlPlotView *self)
{
  return cml_plot_view_zoom_at (self, self->pointer_x, self->pointer_y, dy);
}

static void
on_double_click (GtkGestureClick *click, int n_press, double x, double y, CmlPlotView *self)
{
  if (n_press == 2 && cml_plot_get_zoomed (self->plot))
    cml_plot_view_reset_zoom (self);
}

static void
reset_zoom_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_plot_view_reset_zoom (CML_PLOT_VIEW (widget));
}

/* ---- export ---------------------------------------------------------------------------- */

/* A file-name-friendly copy of TEXT: letters, digits, '-' and '_' kept, the rest '-'. */
static void
append_slug (GString *out, const char *text)
{
  for (const char *c = text; c && *c; c++)
    {
      if (g_ascii_isalnum (*c) || *c == '-' || *c == '_')
        g_string_append_c (out, g_ascii_tolower (*c));
      else if (out->len > 0 && out->str[out->len - 1] != '-')
        g_string_append_c (out, '-');
    }
  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate (out, out->len - 1);
}

/* "rolling-ball-energy.pdf": the model and what is plotted. */
static char *
suggested_name (CmlPlotView *self, const char *ext)
{
  GString *name = g_string_new (NULL);
  CmlModel *model = view_model (self);

  append_slug (name, model ? model->name : "plot");
  if (self->y_names->len > 0)
    {
      g_string_append_c (name, '-');
      append_slug (name, g_ptr_array_index (self->y_names, 0));
      if (self->x_name)
        {
          g_string_append (name, "-vs-");
          append_slug (name, self->x_name);
        }
    }
  if (name->len == 0)
    g_string_assign (name, "plot");
  g_string_append_printf (name, ".%s", ext);
  return g_string_free (name, FALSE);
}

static void
show_export_error (CmlPlotView *self, const char *path, const char *message)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *primary = g_strdup_printf (_("Could not export the plot to “%s”"), base);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog;

  /* tests and scripted runs have nobody to read a dialog */
  if (g_getenv ("CMLAB_NO_DIALOGS"))
    {
      g_message ("%s: %s", primary, message);
      return;
    }
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, primary, message);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
close_chooser (CmlPlotView *self)
{
  if (self->chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  g_clear_pointer (&self->export_format, g_free);
}

static void
on_export_response (GtkNativeDialog *chooser, int response, CmlPlotView *self)
{
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      path = file ? g_file_get_path (file) : NULL;
    }
  if (path)
    {
      g_autoptr (GError) error = NULL;

      /* the chosen format, even if the name was typed without its extension */
      if (self->export_format && !g_str_has_suffix (path, self->export_format))
        {
          g_autofree char *ext = g_strdup_printf (".%s", self->export_format);
          g_autofree char *lower = g_ascii_strdown (path, -1);

          if (!g_str_has_suffix (lower, ext))
            {
              char *with = g_strconcat (path, ext, NULL);
              g_free (path);
              path = with;
            }
        }
      if (!cml_plot_view_export (self, path, &error))
        show_export_error (self, path, error->message);
      else
        cml_export_folder_remember (path);  /* the next export opens there */
    }
  close_chooser (self);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  const char *format = g_variant_get_string (param, NULL);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  g_autofree char *pattern = NULL;
  g_autofree char *title = NULL;
  g_autofree char *upper = NULL;

  if (!g_str_equal (format, "png") && !g_str_equal (format, "svg") && !g_str_equal (format, "pdf"))
    {
      g_warning ("plot.export: unknown format “%s”", format);
      return;
    }
  close_chooser (self);
  upper = g_ascii_strup (format, -1);
  title = g_strdup_printf (_("Export Plot as %s"), upper);
  self->chooser = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  self->export_format = g_strdup (format);
  name = suggested_name (self, format);
  {
    /* the folder the last export went to, else Pictures, else home: not the working one */
    g_autofree char *dir = cml_export_folder_get (CML_EXPORT_FOLDER_PICTURES);
    g_autoptr (GFile) folder = g_file_new_for_path (dir);
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), folder, NULL);
  }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  pattern = g_strdup_printf ("*.%s", format);
  gtk_file_filter_set_name (filter, upper);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* ---- layout ---------------------------------------------------------------------------- */

/* The header is three groups: the quantities, "against x", and the controls.  They flow
 * into rows (one row when all fit at their natural widths), the controls flush right on
 * the last row; so in the narrow right column of a 1280-pixel projector (about 380 px,
 * large type) nothing is pushed out of the view or cut.  The plot takes the rest. */

#define N_GROUPS 3

typedef struct
{
  int x[N_GROUPS], y[N_GROUPS], w[N_GROUPS], h[N_GROUPS];
  int height;                    /* of the whole header */
} HeaderFlow;

static void
header_flow (CmlPlotView *self, int width, HeaderFlow *flow)
{
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  int min[N_GROUPS], nat[N_GROUPS];
  int row_start = 0, x = 0, y = 0, row_h = 0;

  for (int i = 0; i < N_GROUPS; i++)
    gtk_widget_measure (groups[i], GTK_ORIENTATION_HORIZONTAL, -1, &min[i], &nat[i], NULL, NULL);
  for (int i = 0; i < N_GROUPS; i++)
    {
      /* a new row when this group does not fit beside the ones before */
      if (i > row_start && width >= 0 && x + nat[i] > width)
        {
          y += row_h;
          x = 0;
          row_h = 0;
          row_start = i;
        }
      flow->w[i] = width < 0 ? nat[i] : MAX (min[i], MIN (nat[i], width - x));
      gtk_widget_measure (groups[i], GTK_ORIENTATION_VERTICAL, flow->w[i], &flow->h[i], NULL, NULL, NULL);
      flow->x[i] = x;
      flow->y[i] = y;
      x += flow->w[i];
      row_h = MAX (row_h, flow->h[i]);
    }
  /* the controls flush right */
  if (width >= 0)
    flow->x[N_GROUPS - 1] = MAX (width - flow->w[N_GROUPS - 1], flow->x[N_GROUPS - 1]);
  flow->height = y + row_h;
  /* a row's groups share its height */
  for (int i = 0; i < N_GROUPS; i++)
    for (int j = 0; j < N_GROUPS; j++)
      if (flow->y[j] == flow->y[i])
        flow->h[i] = MAX (flow->h[i], flow->h[j]);
}

static GtkSizeRequestMode
layout_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
layout_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                int *natural, int *minimum_baseline, int *natural_baseline)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  int area_min, area_nat;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* narrowest: the widest group on a row of its own */
      gtk_widget_measure (GTK_WIDGET (self->area), orientation, -1, &area_min, &area_nat, NULL, NULL);
      *minimum = area_min;
      *natural = 0;
      for (int i = 0; i < N_GROUPS; i++)
        {
          int min, nat;
          gtk_widget_measure (groups[i], orientation, -1, &min, &nat, NULL, NULL);
          *minimum = MAX (*minimum, min);
          *natural += nat;
        }
      *natural = MAX (*natural, area_nat);
    }
  else
    {
      HeaderFlow flow;
      int width = for_size;
      if (width < 0)
        gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
      header_flow (self, width, &flow);
      gtk_widget_measure (GTK_WIDGET (self->area), orientation, width, &area_min, &area_nat, NULL, NULL);
      *minimum = flow.height + area_min;
      *natural = flow.height + area_nat;
    }
}

static void
layout_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  HeaderFlow flow;

  header_flow (self, width, &flow);
  for (int i = 0; i < N_GROUPS; i++)
    gtk_widget_size_allocate (groups[i], &(GtkAllocation) { flow.x[i], flow.y[i], flow.w[i], flow.h[i] }, -1);
  gtk_widget_size_allocate (GTK_WIDGET (self->area),
                            &(GtkAllocation) { 0, flow.height, width, MAX (height - flow.height, 0) }, -1);
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_plot_view_dispose (GObject *object)
{
  CmlPlotView *self = CML_PLOT_VIEW (object);

  GtkWidget *child;

  close_chooser (self);
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

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-plot-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, selectors);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, x_selector);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, controls);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, y_button);
  gtk_widget_class_bind_template_child (widget_class, CmlPlotView, y_popover);
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
  gtk_widget_class_bind_template_callback (widget_class, on_monitors_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_residual_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_error_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_show_all_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_area_realize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_unrealize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_render);

  gtk_widget_class_install_action (widget_class, "plot.export", "s", export_action);
  gtk_widget_class_install_action (widget_class, "plot.reset-zoom", NULL, reset_zoom_action);
  gtk_widget_class_install_property_action (widget_class, "plot.equal-scales", "equal-scales");
  gtk_widget_class_install_property_action (widget_class, "plot.show-reference", "show-reference");
  gtk_widget_class_set_css_name (widget_class, "cmlplotview");
}

static void
cml_plot_view_init (CmlPlotView *self)
{
  self->text_scale = 1.0;
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_set_layout_manager (GTK_WIDGET (self),
                                 gtk_custom_layout_new (layout_request_mode, layout_measure,
                                                        layout_allocate));

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

  g_signal_connect_swapped (self->x_dropdown, "notify::selected", G_CALLBACK (on_x_selected), self);

  /* the wheel zooms, a double click (or the menu) goes back */
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_pointer_motion), self);
  g_signal_connect (motion, "enter", G_CALLBACK (on_pointer_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), scroll);
  GtkGesture *click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_double_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), GTK_EVENT_CONTROLLER (click));

  /* "Equal Scales" in the menu: a check button of ours, for its tooltip */
  self->equal_check = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_Equal Scales")));
  gtk_widget_add_css_class (GTK_WIDGET (self->equal_check), "plot-equal-scales");
  g_signal_connect_swapped (self->equal_check, "toggled", G_CALLBACK (on_equal_check_toggled), self);
  gtk_popover_menu_add_child (GTK_POPOVER_MENU (gtk_menu_button_get_popover (self->export_button)),
                              GTK_WIDGET (self->equal_check), "equal-scales");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "plot.show-reference", FALSE);
  sync_selectors (self);
}

/* ---- public API ------------------------------------------------------------------------ */

GtkWidget *
cml_plot_view_new (void)
{
  return g_object_new (CML_TYPE_PLOT_VIEW, NULL);
}

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
          self->ref_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
          cml_plot_column_unref (self->t_column);
          self->t_column = cml_plot_column_new ();
          g_object_remove_weak_pointer (G_OBJECT (self->data_owner), (gpointer *) &self->data_owner);
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
  fill_selectors (self);

  /* default: energy and invariants against time, else the first coordinate */
  g_clear_pointer (&self->x_name, g_free);
  g_autoptr (GPtrArray) monitors = monitor_names (self);
  if (monitors->len == 0 && n > 0)
    {
      CmlModel *model = view_model (self);
      const char *first = model->m > 0 && cml_system_observable_index (sys, model->base[0]) >= 0
                            ? model->base[0]
                            : cml_system_observable_name (sys, 0);
      g_ptr_array_add (monitors, (gpointer) first);
    }
  set_y_names (self, monitors);
  rebuild_series (self);
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
  rebuild_series (self);
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
      CmlModel *model = view_model (self);
      g_autofree double *params = g_new (double, model->params->len + 1);
      current_parameters (self, model, params);
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
          cml_reference_compare (self->reference, t[k], rows + (gsize) k * n_cols, row, row + n_ref / 2);
        }
      for (guint i = 0; 2 * i < n_ref; i++)
        {
          cml_plot_column_append (g_ptr_array_index (self->ref_columns, 2 * i), out + i, n, n_ref);
          cml_plot_column_append (g_ptr_array_index (self->ref_columns, 2 * i + 1), out + n_ref / 2 + i, n, n_ref);
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

void
cml_plot_view_set_presentation (CmlPlotView *self, gboolean on)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));
  self->presentation = !!on;
  /* on a projector the plot takes the room: its selectors fold away (what is plotted is
   * chosen before, or after leaving presentation mode) */
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self)); c; c = gtk_widget_get_next_sibling (c))
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
  view_style (self, &style);
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
    rebuild_series (self);
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

/* The run's parameter values, in model order, into VALUES (the model's length): the
 * window's newest frame when the view is in one and shows its system, else the model's
 * defaults (a view on its own). */
static void
current_parameters (CmlPlotView *self, CmlModel *model, double *values)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  CmlRunner *runner = CML_IS_WINDOW (root) ? cml_window_get_runner (CML_WINDOW (root)) : NULL;
  CmlFrame *frame = runner ? cml_runner_get_frame (runner) : NULL;
  gboolean from_frame = frame && frame->system == self->system && frame->n_params == model->params->len;

  for (guint k = 0; k < model->params->len; k++)
    values[k] = from_frame ? frame->params[k] : ((const CmlParam *) g_ptr_array_index (model->params, k))->value;
  g_clear_pointer (&frame, cml_frame_unref);
}

/* The exported figure's title ("Rolling ball on a rotating table — y against x") and
 * parameters' line ("m = 1 kg, r = 1 m, k2 = 0.4 m², Ω = 1 rad/s"): a figure dropped
 * into a talk says what it shows.  The live view has neither (the window says it). */
static void
figure_titles (CmlPlotView *self)
{
  CmlModel *model = view_model (self);
  if (model == NULL)
    return;
  g_autofree double *values = g_new (double, MAX (model->params->len, 1));
  current_parameters (self, model, values);
  cml_plot_set_figure_titles (self->plot, model, (const char *const *) self->y_names->pdata, self->y_names->len,
                              self->x_name, values);

  /* and the initial values the window's run started from (its session has them all) */
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  g_autoptr (CmlSession) session = CML_IS_WINDOW (root) ? cml_window_get_session (CML_WINDOW (root), NULL) : NULL;
  if (session && session->system && g_strcmp0 (session->model->name, model->name) == 0)
    {
      guint dim = cml_system_dim (session->system), n = 0;
      g_autofree const char **names = g_new (const char *, MAX (dim, 1));
      g_autofree double *initial = g_new (double, MAX (dim, 1));
      for (guint i = 0; i < dim; i++)
        {
          const char *name = cml_system_state_name (session->system, i);
          const double *v = g_hash_table_lookup (session->initial, name);
          if (v == NULL)
            continue;
          names[n] = name;
          initial[n++] = *v;
        }
      cml_plot_add_figure_initial (self->plot, model, names, initial, n);
    }
}

gboolean
cml_plot_view_export (CmlPlotView *self, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *old_title = NULL, *old_subtitle = NULL;
  CmlPlotStyle style;
  int width, height;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    {
      /* a slide: dark as shown, at a sharp size, type sized for the slide (not the view's:
       * presentation type is for a 380-pixel plot on a projector) */
      width = 1600, height = 900;
      cml_plot_style_init_for_figure (&style, self->dark, width, height);
    }
  else
    {
      /* a paper: light, 16:9 in points (unknown extensions fail below) */
      width = 800, height = 450;
      cml_plot_style_init_for_figure (&style, FALSE, width, height);
    }

  old_title = g_strdup (cml_plot_get_title (self->plot));
  old_subtitle = g_strdup (cml_plot_get_subtitle (self->plot));
  figure_titles (self);
  gboolean ok = cml_plot_export_with_style (self->plot, path, width, height, &style, error);
  cml_plot_set_title (self->plot, old_title);
  cml_plot_set_subtitle (self->plot, old_subtitle);
  return ok;
}

void
cml_plot_view_set_equal_scales (CmlPlotView *self, gboolean equal_scales)
{
  g_return_if_fail (CML_IS_PLOT_VIEW (self));

  equal_scales = !!equal_scales;
  if (cml_plot_get_equal_scales (self->plot) == equal_scales)
    return;
  cml_plot_set_equal_scales (self->plot, equal_scales);
  sync_equal_scales (self);
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
  rebuild_series (self);
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

gboolean
cml_plot_view_probe_pixels (CmlPlotView *self, double *fraction)
{
  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (fraction != NULL, FALSE);

  return cml_gl_probe_pixels (self->area, probe_draw, self, fraction);
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
