/* cml-section-view.c — a Poincaré section built by clicking.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page shows the crossings of a section g(z) = 0 (an equation in the state, crossed
 * upwards, downwards or both ways; cml-section.c locates each crossing on the
 * integrator's own solution) in the plane of two chosen quantities.  A click in the plot
 * starts an orbit from that point: the run's current state with the two quantities set
 * to the point, the section's own quantity (for a section "name = value") set to its
 * value, each conserved quantity of the coordinates alone (|Γ|² of the heavy top) kept
 * at the run's value by a coordinate neither clicked nor on the section (the root on the
 * branch of its present value), and — where the model has an energy monitor — one
 * velocity solved so that the energy is the run's now, on the branch (the sign of that
 * velocity) whose motion crosses the section the way it counts: so that every orbit lies
 * on one energy level, its first crossing is the point clicked (marked with a ring), and
 * the section shows that level's tori, islands and chaos.  A point no such motion passes
 * through is refused, and the axes open on the region starts exist in.  The constraints
 * solve or project the rest when the orbit starts (as for any start).  Each orbit runs
 * for the orbit time in a worker thread on a simulation of its own and is drawn in a
 * colour of its own.
 */
#define G_LOG_DOMAIN "cml-section-view"

#include "cml-section-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"

#define DEFAULT_ORBIT_TIME 200.0 /* time units per orbit */
#define CHUNK              10.0  /* an orbit is run in pieces this long, to be cancellable */


G_DEFINE_FINAL_TYPE (CmlSectionView, cml_section_view, GTK_TYPE_WIDGET)

static const char *const direction_ids[] = { "up", "down", "both" };

/* ---- an orbit, in a worker thread ------------------------------------------------------- */

typedef struct
{
  CmlSimulation *sim;   /* at the orbit's start, its own (made on the UI thread) */
  CmlSection *section;
  double      t_end;
  int         ix, iy;
  GArray     *out;      /* double pairs */
  char       *error;
} Orbit;

static void
orbit_free (Orbit *o)
{
  cml_simulation_free (o->sim);
  cml_section_free (o->section);
  g_array_unref (o->out);
  g_free (o->error);
  g_free (o);
}

static void
on_crossing (double t, const double *obs, gpointer data)
{
  Orbit *o = data;
  /* the start is the first crossing already (a start on g = 0 within rounding may be
   * found again at once) */
  if (t <= 1e-9 * MAX (1.0, o->t_end))
    return;
  double xy[2] = { obs[o->ix], obs[o->iy] };
  g_array_append_vals (o->out, xy, 2);
}

static void
orbit_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Orbit *o = data;
  g_autoptr (GError) error = NULL;
  double max_step = MIN (o->t_end / 10000, 0.01);
  g_autofree double *obs = g_new (double, cml_system_n_observables (cml_simulation_get_system (o->sim)));

  /* the start lies on the section and crosses it the way it counts: the first crossing */
  cml_simulation_observe (o->sim, obs);
  double xy[2] = { obs[o->ix], obs[o->iy] };
  g_array_append_vals (o->out, xy, 2);

  for (double t = 0; t < o->t_end && !g_cancellable_is_cancelled (cancel);)
    {
      double t1 = MIN (t + CHUNK, o->t_end);
      if (!cml_section_run (o->section, o->sim, t1, max_step, on_crossing, o, &error))
        break;
      t = t1;
    }
  if (error)
    o->error = g_strdup (error->message);
  g_task_return_boolean (task, TRUE);
}

static void
update_status (CmlSectionView *self, const char *error)
{
  guint n = 0;
  for (guint k = 0; k < self->orbits->len; k++)
    n += cml_plot_series_get_n (g_ptr_array_index (self->orbits, k));
  g_autofree char *text = NULL;
  if (error)
    text = g_strdup (error);
  else if (self->orbits->len == 0)
    text = g_strdup (_("Click in the plot to start an orbit from that point."));
  else
    {
      g_autofree char *orbits = g_strdup_printf (ngettext ("%u orbit", "%u orbits", self->orbits->len), self->orbits->len);
      g_autofree char *crossings = g_strdup_printf (ngettext ("%u crossing", "%u crossings", n), n);
      /* TRANSLATORS: "3 orbits (running), 120 crossings" */
      text = g_strdup_printf (_("%s%s, %s"), orbits, self->n_running ? _(" (running)") : "", crossings);
    }
  gtk_label_set_text (self->status, text);
}

/* The axes hold the region clicked in so far and every crossing: they grow, never jump. */
static void
grow_ranges (CmlSectionView *self)
{
  for (int a = 0; a < 2; a++)
    {
      CmlPlotAxis *axis = a == 0 ? cml_plot_get_x_axis (self->plot) : cml_plot_get_y_axis (self->plot);
      double lo, hi;
      cml_plot_axis_get_range (axis, &lo, &hi);
      double dlo = INFINITY, dhi = -INFINITY;
      for (guint k = 0; k < self->orbits->len; k++)
        {
          CmlPlotSeries *s = g_ptr_array_index (self->orbits, k);
          const CmlPlotColumn *c = a == 0 ? cml_plot_series_get_x_column (s) : cml_plot_series_get_y_column (s);
          const double *v = cml_plot_column_get_data (c);
          for (guint i = 0; i < cml_plot_column_get_n (c); i++)
            if (isfinite (v[i]))
              dlo = MIN (dlo, v[i]), dhi = MAX (dhi, v[i]);
        }
      if (!(dlo <= dhi))
        continue;
      double pad = 0.05 * MAX (dhi - dlo, 1e-9);
      if (dlo - pad < lo || dhi + pad > hi)
        cml_plot_axis_set_range (axis, MIN (lo, dlo - pad), MAX (hi, dhi + pad));
    }
}

static void
orbit_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlSectionView *self = CML_SECTION_VIEW (source);
  GTask *task = G_TASK (result);
  Orbit *o = g_task_get_task_data (task);
  CmlPlotSeries *series = g_object_get_data (G_OBJECT (task), "series");

  self->n_running--;
  if (!g_cancellable_is_cancelled (g_task_get_cancellable (task)) && series)
    {
      guint n = o->out->len / 2;
      const double *xy = (const double *) (gpointer) o->out->data;
      for (guint k = 0; k < n; k++)
        cml_plot_series_append (series, &xy[2 * k], &xy[2 * k + 1], 1);
      grow_ranges (self);
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
    }
  update_status (self, o->error);
}

gboolean
cml_section_view_start_orbit (CmlSectionView *self, double x, double y, GError **error)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);

  CmlSectionStart start;
  if (!cml_section_start_make (self, x, y, &start, error))
    return FALSE;
  self->last_started = start.started;
  self->last_level = start.level;
  CmlModel *model = cml_system_get_model (self->sys);
  const char *xn = gtk_string_list_get_string (self->names, gtk_drop_down_get_selected (self->x_drop));
  const char *yn = gtk_string_list_get_string (self->names, gtk_drop_down_get_selected (self->y_drop));

  /* the orbit, in a worker, on the simulation now at its start */
  Orbit *o = g_new0 (Orbit, 1);
  o->sim = g_steal_pointer (&start.sim);
  o->section = g_steal_pointer (&start.section);
  o->t_end = gtk_spin_button_get_value (self->orbit_time);
  o->ix = cml_system_observable_index (self->sys, xn);
  o->iy = cml_system_observable_index (self->sys, yn);
  o->out = g_array_new (FALSE, FALSE, sizeof (double));
  double xy[2] = { x, y };
  g_array_append_vals (self->starts, xy, 2);
  g_array_set_size (self->last_start, cml_system_n_observables (self->sys));
  cml_simulation_observe (o->sim, (double *) (gpointer) self->last_start->data);

  g_autoptr (CmlPlotSeries) series = cml_plot_series_new (xn, cml_model_unit (model, yn));
  cml_plot_series_set_markers (series, TRUE);
  cml_plot_series_set_palette_index (series, self->orbits->len);
  cml_plot_add_series (self->plot, series);
  g_ptr_array_add (self->orbits, cml_plot_series_ref (series));

  GTask *task = g_task_new (self, self->cancel, orbit_done, NULL);
  g_object_set_data_full (G_OBJECT (task), "series", cml_plot_series_ref (series),
                          (GDestroyNotify) cml_plot_series_unref);
  g_task_set_task_data (task, o, (GDestroyNotify) orbit_free);
  self->n_running++;
  g_task_run_in_thread (task, orbit_thread);
  g_object_unref (task);
  update_status (self, NULL);
  return TRUE;
}

/* ---- settings ---------------------------------------------------------------------------- */

static void
clear_orbits (CmlSectionView *self)
{
  g_cancellable_cancel (self->cancel);
  g_clear_object (&self->cancel);
  self->cancel = g_cancellable_new ();
  cml_plot_remove_all_series (self->plot);
  g_ptr_array_set_size (self->orbits, 0);
  g_array_set_size (self->starts, 0);
  cml_plot_reset_ranges (self->plot);
  update_status (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

static void
label_axes (CmlSectionView *self)
{
  CmlModel *model = self->sys ? cml_system_get_model (self->sys) : NULL;
  guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);
  const char *xn = ix != GTK_INVALID_LIST_POSITION ? gtk_string_list_get_string (self->names, ix) : NULL;
  const char *yn = iy != GTK_INVALID_LIST_POSITION ? gtk_string_list_get_string (self->names, iy) : NULL;
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn ? xn : "", model && xn ? cml_model_unit (model, xn) : "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn ? yn : "", model && yn ? cml_model_unit (model, yn) : "");
}

static guint
name_position (CmlSectionView *self, const char *name)
{
  for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (self->names)); k++)
    if (g_str_equal (gtk_string_list_get_string (self->names, k), name))
      return k;
  return GTK_INVALID_LIST_POSITION;
}

gboolean
cml_section_view_set_section (CmlSectionView *self, const char *section, const char *direction, const char *x,
                              const char *y, GError **error)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);

  if (self->sys == NULL)
    return FALSE;
  guint d = 0;
  while (d < G_N_ELEMENTS (direction_ids) && g_strcmp0 (direction, direction_ids[d]) != 0)
    d++;
  if (d == G_N_ELEMENTS (direction_ids))
    d = 0;
  g_autoptr (CmlSection) check = cml_section_new (self->sys, section, (CmlSectionDirection) (d + 1), error);
  if (check == NULL)
    return FALSE;
  guint ix = name_position (self, x), iy = name_position (self, y);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME, _("no quantity “%s” to plot"),
                   ix == GTK_INVALID_LIST_POSITION ? x : y);
      return FALSE;
    }
  self->syncing = TRUE;
  g_free (self->section_text);
  self->section_text = g_strdup (section);
  gtk_editable_set_text (GTK_EDITABLE (self->section_entry), section);
  gtk_drop_down_set_selected (self->direction, d);
  gtk_drop_down_set_selected (self->x_drop, ix);
  gtk_drop_down_set_selected (self->y_drop, iy);
  self->syncing = FALSE;
  label_axes (self);
  clear_orbits (self);
  /* the axes are fitted where the page is shown (the drawing fits them when it is shown
   * later): a model opened with the page hidden does not wait for it */
  self->fitted = FALSE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    cml_section_start_ranges (self, x, y);
  else
    gtk_widget_queue_draw (GTK_WIDGET (self->area));
  return TRUE;
}

static void
on_settings_changed (CmlSectionView *self)
{
  g_autoptr (GError) error = NULL;

  if (self->syncing || self->sys == NULL)
    return;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->section_entry));
  guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION)
    return;
  if (!cml_section_view_set_section (self, text, direction_ids[gtk_drop_down_get_selected (self->direction)],
                                     gtk_string_list_get_string (self->names, ix),
                                     gtk_string_list_get_string (self->names, iy), &error))
    update_status (self, error->message);
}

void
cml_section_view_set_system (CmlSectionView *self, CmlSystem *sys, CmlRunner *runner)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;
  self->runner = runner;
  g_clear_pointer (&self->section_text, g_free);

  self->syncing = TRUE;
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->names));
  guint n = sys ? cml_system_n_observables (sys) : 0;
  g_autofree const char **names = g_new0 (const char *, n + 1);
  for (guint k = 0; k < n; k++)
    names[k] = cml_system_observable_name (sys, k);
  gtk_string_list_splice (self->names, 0, n_old, names);
  self->syncing = FALSE;
  clear_orbits (self);
  if (sys == NULL)
    return;

  /* the default: the second coordinate = 0 crossed upwards, the first against its velocity */
  CmlModel *model = cml_system_get_model (sys);
  const char *sx = model->m > 0 ? model->base[0] : cml_system_observable_name (sys, 0);
  const char *sy = model->n > 0 ? (model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta[0] : model->fibre[0])
                                : cml_system_observable_name (sys, MIN (1, n - 1));
  g_autofree char *section = g_strdup_printf ("%s = 0", model->m > 1 ? model->base[1] : sx);
  g_autoptr (GError) error = NULL;
  if (!cml_section_view_set_section (self, section, "up", sx, sy, &error))
    update_status (self, error->message);
}

/* ---- drawing and the pointer -------------------------------------------------------------- */

/* The axes fitted to the quantities the drop-downs show. */
static void
fit_now (CmlSectionView *self)
{
  guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);

  if (ix != GTK_INVALID_LIST_POSITION && iy != GTK_INVALID_LIST_POSITION)
    cml_section_start_ranges (self, gtk_string_list_get_string (self->names, ix),
                              gtk_string_list_get_string (self->names, iy));
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSectionView *self = data;
  CmlPlotStyle style;

  cml_plot_area_get_style (self->area, &style);
  /* the run had not started when the section was set, or the page was hidden: the axes
   * now fit what it reaches */
  if (!self->fitted && self->orbits->len == 0 && self->section_text)
    fit_now (self);
  cml_plot_area_draw_plot (self->area, cr, width, height);

  /* where each orbit started: a ring with a cross in the orbit's colour */
  gboolean dark = cml_plot_area_get_dark (self->area);
  double r = cml_plot_area_get_presentation (self->area) ? 9 : 6;
  for (guint k = 0; k < self->starts->len / 2 && k < self->orbits->len; k++)
    {
      double dx = g_array_index (self->starts, double, 2 * k), dy = g_array_index (self->starts, double, 2 * k + 1);
      double px, py;
      if (!cml_plot_area_locate (self->area, width, height, dx, dy, &px, &py))
        continue; /* outside the plot area */
      CmlPlotRgba c;
      cml_plot_series_get_color (g_ptr_array_index (self->orbits, k), &style, &c);
      for (int pass = 0; pass < 2; pass++)
        {
          cairo_new_path (cr);
          if (pass == 0)
            cairo_set_source_rgba (cr, dark ? 0 : 1, dark ? 0 : 1, dark ? 0 : 1, 0.9),
              cairo_set_line_width (cr, r * 0.75);
          else
            cairo_set_source_rgb (cr, c.r, c.g, c.b), cairo_set_line_width (cr, r * 0.33);
          cairo_arc (cr, px, py, r, 0, 2 * G_PI);
          cairo_move_to (cr, px - 1.7 * r, py), cairo_line_to (cr, px + 1.7 * r, py);
          cairo_move_to (cr, px, py - 1.7 * r), cairo_line_to (cr, px, py + 1.7 * r);
          cairo_stroke (cr);
        }
    }
}

static void
on_plot_pressed (CmlSectionView *self, double x, double y)
{
  g_autoptr (GError) error = NULL;

  if (!cml_section_view_start_orbit (self, x, y, &error))
    update_status (self, error->message);
}

/* ---- GObject ------------------------------------------------------------------------------ */

static void
cml_section_view_dispose (GObject *object)
{
  CmlSectionView *self = CML_SECTION_VIEW (object);
  GtkWidget *child;

  if (self->cancel)
    g_cancellable_cancel (self->cancel);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_SECTION_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cml_section_view_parent_class)->dispose (object);
}

static void
cml_section_view_finalize (GObject *object)
{
  CmlSectionView *self = CML_SECTION_VIEW (object);

  g_clear_object (&self->cancel);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->orbits, g_ptr_array_unref);
  g_clear_pointer (&self->starts, g_array_unref);
  g_clear_pointer (&self->last_start, g_array_unref);
  g_free (self->section_text);
  G_OBJECT_CLASS (cml_section_view_parent_class)->finalize (object);
}

static void
cml_section_view_class_init (CmlSectionViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_section_view_dispose;
  object_class->finalize = cml_section_view_finalize;

  g_type_ensure (CML_TYPE_PLOT_AREA);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/cmlab/Cmlab/ui/cml-section-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, section_entry);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, direction);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, x_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, y_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, names);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, orbit_time);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, status);
  gtk_widget_class_bind_template_callback (widget_class, on_settings_changed);
  gtk_widget_class_bind_template_callback (widget_class, clear_orbits);
  gtk_widget_class_bind_template_callback (widget_class, on_plot_pressed);
  gtk_widget_class_set_css_name (widget_class, "cmlsectionview");
}

static void
cml_section_view_init (CmlSectionView *self)
{
  self->orbits = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_series_unref);
  self->starts = g_array_new (FALSE, FALSE, sizeof (double));
  self->last_start = g_array_new (FALSE, FALSE, sizeof (double));
  self->cancel = g_cancellable_new ();
  self->last_started = self->last_level = NAN;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->plot = cml_plot_area_get_plot (self->area);
  cml_plot_set_legend_visible (self->plot, FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw, self, NULL);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "crosshair");
  gtk_spin_button_set_value (self->orbit_time, DEFAULT_ORBIT_TIME);
  update_status (self, NULL);
}

GtkWidget *
cml_section_view_new (void)
{
  return g_object_new (CML_TYPE_SECTION_VIEW, NULL);
}

void
cml_section_view_set_style (CmlSectionView *self, gboolean dark, gboolean high_contrast, gboolean presentation)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  cml_plot_area_set_style (self->area, dark, high_contrast, presentation);
}

/* ---- for tests ---------------------------------------------------------------------------- */

guint
cml_section_view_get_n_running (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), 0);
  return self->n_running;
}

const double *
cml_section_view_get_crossings (CmlSectionView *self, guint k, guint *n)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NULL);
  if (k >= self->orbits->len)
    return NULL;
  CmlPlotSeries *s = g_ptr_array_index (self->orbits, k);
  *n = cml_plot_series_get_n (s);
  /* x and y come as two columns: hand out pairs */
  GArray *pairs = g_object_get_data (G_OBJECT (self), "crossings");
  if (pairs == NULL)
    {
      pairs = g_array_new (FALSE, FALSE, sizeof (double));
      g_object_set_data_full (G_OBJECT (self), "crossings", pairs, (GDestroyNotify) g_array_unref);
    }
  g_array_set_size (pairs, 2 * *n);
  const double *xs = cml_plot_column_get_data (cml_plot_series_get_x_column (s));
  const double *ys = cml_plot_column_get_data (cml_plot_series_get_y_column (s));
  for (guint i = 0; i < *n; i++)
    {
      g_array_index (pairs, double, 2 * i) = xs[i];
      g_array_index (pairs, double, 2 * i + 1) = ys[i];
    }
  return (const double *) (gpointer) pairs->data;
}

void
cml_section_view_get_last_energy (CmlSectionView *self, double *started, double *level)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  *started = self->last_started;
  *level = self->last_level;
}

gboolean
cml_section_view_get_start (CmlSectionView *self, guint k, double *x, double *y)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);
  if (k >= self->starts->len / 2)
    return FALSE;
  *x = g_array_index (self->starts, double, 2 * k);
  *y = g_array_index (self->starts, double, 2 * k + 1);
  return TRUE;
}

double
cml_section_view_get_last_start_value (CmlSectionView *self, const char *name)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NAN);
  int i = self->sys ? cml_system_observable_index (self->sys, name) : -1;
  return i >= 0 && (guint) i < self->last_start->len ? g_array_index (self->last_start, double, i) : NAN;
}

void
cml_section_view_get_ranges (CmlSectionView *self, double x[2], double y[2])
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  if (!self->fitted && self->orbits->len == 0 && self->section_text && gtk_widget_get_mapped (GTK_WIDGET (self)))
    fit_now (self);
  cml_plot_axis_get_range (cml_plot_get_x_axis (self->plot), &x[0], &x[1]);
  cml_plot_axis_get_range (cml_plot_get_y_axis (self->plot), &y[0], &y[1]);
}

guint
cml_section_view_get_n_fits (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), 0);
  return self->n_fits;
}

gboolean
cml_section_view_point_at (CmlSectionView *self, double x, double y, GtkWidget *relative, double *wx, double *wy)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);
  int w = gtk_widget_get_width (GTK_WIDGET (self->area)), h = gtk_widget_get_height (GTK_WIDGET (self->area));
  double px, py;
  graphene_point_t out;

  if (!cml_plot_area_locate (self->area, w, h, x, y, &px, &py)
      || !gtk_widget_compute_point (GTK_WIDGET (self->area), relative, &GRAPHENE_POINT_INIT (px, py), &out))
    return FALSE;
  *wx = out.x, *wy = out.y;
  return TRUE;
}

const char *
cml_section_view_get_status (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NULL);
  return gtk_label_get_text (self->status);
}

guint
cml_section_view_get_n_orbits (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), 0);
  return self->orbits->len;
}
