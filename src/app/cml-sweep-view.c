/* cml-sweep-view.c — the Sweep page: a parameter swept over a range, a measured quantity
 * plotted against it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page asks for the parameter, its range (the slider's), the number of points, the
 * quantity measured and the time it is measured at.  Every point is a fresh run from the
 * run's initial values with the run's parameters, integrator and tolerances and the
 * point's value of the swept parameter (what `cmlab-cli sweep` does: the core's
 * cml-sweep.c, on worker threads, the window's run going on meanwhile).  The points come
 * in order, with a progress bar and Cancel; the curve shows them as they come, and a
 * dashed line marks the run's present value of the parameter.  A click on the curve
 * sets the parameter to the nearest point's value (one step to undo, as a slider's).
 */
#define G_LOG_DOMAIN "cml-sweep-view"

#include "cml-sweep-view.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-plot-area.h"
#include "cml-plot.h"
#include "cml-string-list.h"
#include "cml-sweep.h"

#define DEFAULT_POINTS 41
#define DEFAULT_TIME   10.0
#define POLL_MS        100

/* ---- a sweep, on worker threads ----------------------------------------------------------- */

typedef struct
{
  gint                 ref_count;
  gint                 cancel;    /* atomic: set by Cancel */
  CmlSystem           *sys;
  double              *base;
  CmlSweepVary         vary;
  CmlIntegratorOptions iopt;
  GHashTable          *given;     /* NULL: the model's initial data */
  double               at;
  int                  measure;
  GMutex               lock;      /* guards what follows */
  GArray              *rows;      /* (value, measure) pairs in grid order */
  guint64              done;
  guint                n_failed;
  char                *first_failure;
  gint64               started;
} Job;

static Job *
job_ref (Job *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}

static void
job_unref (Job *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  cml_system_unref (job->sys);
  g_free (job->base);
  g_free (job->vary.name);
  g_clear_pointer (&job->given, g_hash_table_unref);
  g_mutex_clear (&job->lock);
  g_array_unref (job->rows);
  g_free (job->first_failure);
  g_free (job);
}

static void
on_row (guint64 k, guint64 g, const guint *idx, const double *values, const char *why, gpointer data)
{
  Job *job = data;
  double xy[2] = { cml_sweep_vary_value (&job->vary, idx[0]), values[0] };

  g_mutex_lock (&job->lock);
  g_array_append_vals (job->rows, xy, 2);
  if (why)
    {
      job->n_failed++;
      if (job->first_failure == NULL)
        job->first_failure = g_strdup_printf ("%s = %g: %s", job->vary.name, xy[0], why);
    }
  g_mutex_unlock (&job->lock);
}

static void
on_progress (guint64 done, guint64 total, gpointer data)
{
  Job *job = data;
  g_mutex_lock (&job->lock);
  job->done = done;
  g_mutex_unlock (&job->lock);
}

static void
sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  CmlSweepSpec spec = {
    .sys = job->sys, .base = job->base,
    .vary = &job->vary, .n_vary = 1,
    .iopt = &job->iopt, .given = job->given,
    .at = &job->at, .n_at = 1,
    .measure = &job->measure, .n_measures = 1,
  };
  g_task_return_boolean (task, cml_sweep_run (&spec, on_row, on_progress, job, &job->cancel));
}

/* ---- the page ------------------------------------------------------------------------------ */

struct _CmlSweepView
{
  GtkWidget          parent_instance;

  GtkDropDown       *param_drop, *measure_drop;
  GtkStringList     *param_names, *measure_names;
  GtkSpinButton     *from, *to, *n_points, *time;
  GtkWidget         *run, *cancel;
  GtkProgressBar    *progress;
  GtkLabel          *status;
  CmlPlotArea       *area;

  CmlSystem         *sys;
  CmlRunner         *runner;
  CmlSweepRunSource  source;
  gpointer           source_data;

  CmlPlot           *plot;      /* the area's */
  CmlPlotSeries     *curve, *now;
  char              *param;     /* the curve's parameter */
  double             now_value; /* the run's value of it, as marked */
  GArray            *points;    /* the curve's (value, measure) pairs */
  guint64            total;
  Job               *job;       /* the running sweep, or NULL */
  guint              timer;
};

G_DEFINE_FINAL_TYPE (CmlSweepView, cml_sweep_view, GTK_TYPE_WIDGET)

enum
{
  PARAM_PICKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* How the drop-downs show a parameter or a quantity NAME: as people write it ("Ω", "I₁",
 * "|Γ|²"); the lists themselves keep the names. */
static char *
display_of (GtkStringObject *item, const char *name, CmlSweepView *self)
{
  CmlModel *model = self->sys ? cml_system_get_model (self->sys) : NULL;
  return model && name ? cml_model_display_name (model, name) : g_strdup (name ? name : "");
}

static GtkExpression *
display_expression (CmlSweepView *self)
{
  GtkExpression *string = gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string");
  return gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 1, &string, G_CALLBACK (display_of), self, NULL);
}

static void
set_status (CmlSweepView *self, const char *text)
{
  gtk_label_set_text (self->status, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status), text);
}

static void
update_buttons (CmlSweepView *self)
{
  gtk_widget_set_sensitive (self->run, self->sys != NULL && self->job == NULL);
  gtk_widget_set_visible (self->cancel, self->job != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->progress), self->job != NULL);
}

/* The dashed line at the run's value of the parameter, across the plot's height (shown
 * once the curve has a point). */
static void
update_marker (CmlSweepView *self)
{
  gboolean any = FALSE;
  const double *xy = (const double *) (gpointer) self->points->data;

  for (guint k = 0; k < self->points->len / 2 && !any; k++)
    any = isfinite (xy[2 * k + 1]);
  cml_plot_series_set_x_marker (self->now, any ? self->now_value : NAN);
}

/* The rows the worker has handed out since the last look, onto the curve; the progress. */
static void
take_rows (CmlSweepView *self)
{
  Job *job = self->job;
  guint64 done;
  guint had = self->points->len;

  if (job == NULL)
    return;
  g_mutex_lock (&job->lock);
  if (job->rows->len > had)
    g_array_append_vals (self->points, &g_array_index (job->rows, double, had), job->rows->len - had);
  done = job->done;
  g_mutex_unlock (&job->lock);
  for (guint k = had; k < self->points->len; k += 2)
    cml_plot_series_append (self->curve, &g_array_index (self->points, double, k),
                            &g_array_index (self->points, double, k + 1), 1);
  if (self->points->len > had)
    {
      update_marker (self);
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
    }

  double f = self->total ? (double) done / self->total : 0;
  double elapsed = (g_get_monotonic_time () - job->started) / 1e6;
  g_autofree char *text = NULL;
  gtk_progress_bar_set_fraction (self->progress, f);
  if (f > 0 && elapsed > 1)
    text = g_strdup_printf (_("Point %llu of %llu · about %.0f s left"), (unsigned long long) done,
                            (unsigned long long) self->total, ceil (elapsed / f * (1 - f)));
  else
    text = g_strdup_printf (_("Point %llu of %llu"), (unsigned long long) done, (unsigned long long) self->total);
  gtk_progress_bar_set_text (self->progress, text);
}

/* Every tenth of a second: the sweep's progress, and the run's value of the parameter. */
static gboolean
poll (gpointer data)
{
  CmlSweepView *self = data;

  take_rows (self);
  if (self->runner && self->sys && self->param)
    {
      CmlFrame *frame = cml_runner_get_frame (self->runner);
      int p = cml_model_param_index (cml_system_get_model (self->sys), self->param);
      double v = frame->system == self->sys && p >= 0 && (guint) p < frame->n_params ? frame->params[p] : NAN;
      cml_frame_unref (frame);
      if (v != self->now_value && !(isnan (v) && isnan (self->now_value)))
        {
          self->now_value = v;
          update_marker (self);
          gtk_widget_queue_draw (GTK_WIDGET (self->area));
        }
    }
  return G_SOURCE_CONTINUE;
}

static void
sweep_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlSweepView *self = CML_SWEEP_VIEW (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  gboolean complete = g_task_propagate_boolean (G_TASK (result), NULL);
  g_autofree char *text = NULL;

  if (self->job != job)
    return; /* a sweep left behind by a change of system */
  take_rows (self);
  guint n = self->points->len / 2;
  if (!complete)
    text = g_strdup_printf (_("Cancelled after %u of %llu points."), n, (unsigned long long) self->total);
  else if (job->n_failed)
    text = g_strdup_printf (ngettext ("%u of %u run failed (no point drawn there); the first, %s",
                                      "%u of %u runs failed (no point drawn there); the first, %s", n), job->n_failed, n,
                            job->first_failure);
  else
    {
      g_autofree char *shown = cml_expr_pretty_name (job->vary.name, FALSE);
      text = g_strdup_printf (ngettext ("%u point in %.2g s. Click the curve to set %s.",
                                        "%u points in %.2g s. Click the curve to set %s.", n), n,
                              (g_get_monotonic_time () - job->started) / 1e6, shown);
    }
  set_status (self, text);
  job_unref (self->job);
  self->job = NULL;
  update_buttons (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* ---- fields -------------------------------------------------------------------------------- */

static const CmlParam *
find_param (CmlSweepView *self, const char *name)
{
  return self->sys && name ? cml_model_find_param (cml_system_get_model (self->sys), name) : NULL;
}

static void
on_param_selected (CmlSweepView *self)
{
  const CmlParam *p = find_param (self, cml_string_list_selected (self->param_drop, self->param_names));
  if (p == NULL)
    return;
  double step = (p->max - p->min) / 100;
  gtk_spin_button_set_range (self->from, p->min, p->max);
  gtk_spin_button_set_range (self->to, p->min, p->max);
  gtk_spin_button_set_increments (self->from, step, 10 * step);
  gtk_spin_button_set_increments (self->to, step, 10 * step);
  gtk_spin_button_set_value (self->from, p->min);
  gtk_spin_button_set_value (self->to, p->max);
}

gboolean
cml_sweep_view_prepare (CmlSweepView *self, const char *name)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), FALSE);

  guint i = cml_string_list_find (self->param_names, name);
  if (self->sys == NULL || i == GTK_INVALID_LIST_POSITION)
    return FALSE;
  gtk_drop_down_set_selected (self->param_drop, i);
  on_param_selected (self);
  gtk_spin_button_set_value (self->n_points, DEFAULT_POINTS);

  /* the first monitor, else the first coordinate */
  CmlModel *model = cml_system_get_model (self->sys);
  const char *measure = model->monitors->len ? ((CmlNamedExpr *) model->monitors->pdata[0])->name
                        : model->m ? model->base[0]
                                   : cml_system_observable_name (self->sys, 0);
  guint m = cml_string_list_find (self->measure_names, measure);
  if (m != GTK_INVALID_LIST_POSITION)
    gtk_drop_down_set_selected (self->measure_drop, m);

  /* the run's present time, or 10 at its start */
  double t = DEFAULT_TIME;
  if (self->runner)
    {
      CmlFrame *frame = cml_runner_get_frame (self->runner);
      if (frame->system == self->sys && frame->t > 0 && isfinite (frame->t))
        t = frame->t;
      cml_frame_unref (frame);
    }
  gtk_spin_button_set_value (self->time, t);
  if (self->job == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Sweep %s over its range: press Run."), name);
      set_status (self, text);
    }
  return TRUE;
}

gboolean
cml_sweep_view_set_sweep (CmlSweepView *self, const char *name, double from, double to, guint n, const char *measure,
                          double t, GError **error)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), FALSE);

  if (!cml_sweep_view_prepare (self, name))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME, _("no parameter “%s” to sweep"), name);
      return FALSE;
    }
  guint m = cml_string_list_find (self->measure_names, measure);
  if (m == GTK_INVALID_LIST_POSITION)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME, _("no quantity “%s” to measure"), measure);
      return FALSE;
    }
  gtk_drop_down_set_selected (self->measure_drop, m);
  gtk_spin_button_set_value (self->from, from);
  gtk_spin_button_set_value (self->to, to);
  gtk_spin_button_set_value (self->n_points, n);
  gtk_spin_button_set_value (self->time, t);
  return TRUE;
}

gboolean
cml_sweep_view_start (CmlSweepView *self, GError **error)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), FALSE);

  const char *name = cml_string_list_selected (self->param_drop, self->param_names);
  const char *measure = cml_string_list_selected (self->measure_drop, self->measure_names);
  const CmlParam *p = find_param (self, name);
  if (self->job)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("a sweep is running"));
      return FALSE;
    }
  if (self->sys == NULL || self->runner == NULL || p == NULL || measure == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("choose a parameter and a quantity to sweep"));
      return FALSE;
    }
  CmlModel *model = cml_system_get_model (self->sys);
  Job *job = g_new0 (Job, 1);
  job->ref_count = 1;
  job->sys = cml_system_ref (self->sys);
  job->vary.name = g_strdup (name);
  job->vary.a = gtk_spin_button_get_value (self->from);
  job->vary.b = gtk_spin_button_get_value (self->to);
  job->vary.n = (guint) gtk_spin_button_get_value_as_int (self->n_points);
  job->vary.param = cml_model_param_index (model, name);
  job->at = gtk_spin_button_get_value (self->time);
  job->measure = cml_system_observable_index (self->sys, measure);
  job->iopt = cml_integrator_options_default ();
  g_mutex_init (&job->lock);
  job->rows = g_array_new (FALSE, FALSE, sizeof (double));

  /* the run as it is now: its parameters, integrator and initial values */
  CmlFrame *frame = cml_runner_get_frame (self->runner);
  gboolean same = frame->system == self->sys;
  job->base = g_new0 (double, model->params->len + 1);
  for (guint k = 0; same && k < model->params->len; k++)
    job->base[k] = k < frame->n_params ? frame->params[k] : ((CmlParam *) model->params->pdata[k])->value;
  self->now_value = job->vary.param >= 0 && (guint) job->vary.param < frame->n_params ? frame->params[job->vary.param]
                                                                                      : NAN;
  cml_frame_unref (frame);
  if (self->source)
    {
      GHashTable *given = self->source (self->source_data, &job->iopt);
      if (given)
        {
          GHashTableIter it;
          gpointer key, value;
          job->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
          g_hash_table_iter_init (&it, given);
          while (g_hash_table_iter_next (&it, &key, &value))
            g_hash_table_insert (job->given, g_strdup (key), g_memdup2 (value, sizeof (double)));
        }
    }
  const char *why = !same ? _("the run is switching models: try again")
                    : job->measure < 0 ? _("no such quantity")
                    : job->vary.n < 1  ? _("at least one point")
                    : !(job->at > 0)   ? _("the time must be positive")
                                       : NULL;
  for (guint i = 0; why == NULL && i < job->vary.n; i++)
    if (!cml_model_check_param (model, p, cml_sweep_vary_value (&job->vary, i), error))
      {
        job_unref (job);
        return FALSE;
      }
  if (why)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s", why);
      job_unref (job);
      return FALSE;
    }

  /* a fresh curve */
  g_free (self->param);
  self->param = g_strdup (name);
  g_array_set_size (self->points, 0);
  self->total = job->vary.n;
  cml_plot_remove_all_series (self->plot);
  g_clear_pointer (&self->curve, cml_plot_series_unref);
  g_clear_pointer (&self->now, cml_plot_series_unref);
  self->curve = cml_plot_series_new (measure, cml_model_unit (model, measure));
  g_autofree char *shown = cml_expr_pretty_name (name, FALSE);
  /* TRANSLATORS: a quantity's name (not translated): its value in the window's run */
  g_autofree char *now_name = g_strdup_printf (_("the run's %s"), shown);
  self->now = cml_plot_series_new_x_marker (now_name, NAN);
  cml_plot_series_set_dashed (self->now, TRUE);
  cml_plot_add_series (self->plot, self->curve);
  cml_plot_add_series (self->plot, self->now);
  update_marker (self);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), name, cml_model_unit (model, name));
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), measure, cml_model_unit (model, measure));
  g_autofree char *time_unit = cml_plot_format_unit (model->time_unit);
  g_autofree char *title = g_strdup_printf ("%s at t = %g%s%s", measure, job->at, *time_unit ? " " : "",
                                            time_unit);
  cml_plot_set_title (self->plot, title);
  cml_plot_reset_ranges (self->plot);
  {
    /* x: the swept range (and the run's value) from the start, so the curve grows into a
     * frame that stays put */
    double lo = MIN (job->vary.a, job->vary.b), hi = MAX (job->vary.a, job->vary.b);
    if (isfinite (self->now_value))
      lo = MIN (lo, self->now_value), hi = MAX (hi, self->now_value);
    double pad = hi > lo ? 0.03 * (hi - lo) : MAX (0.1 * fabs (lo), 1.0);
    cml_plot_axis_set_range (cml_plot_get_x_axis (self->plot), lo - pad, hi + pad);
  }

  job->started = g_get_monotonic_time ();
  self->job = job_ref (job);
  /* what the sweep's simulations derive from the model's expressions on first use, here on
   * the window's thread, which goes on using them (cml_system_prepare) */
  cml_system_prepare (job->sys, job->iopt.kind);
  GTask *task = g_task_new (self, NULL, sweep_done, NULL);
  g_task_set_task_data (task, job, (GDestroyNotify) job_unref);
  g_task_run_in_thread (task, sweep_thread);
  g_object_unref (task);
  set_status (self, _("Sweeping — the window's run goes on meanwhile."));
  update_buttons (self);
  take_rows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
  return TRUE;
}

void
cml_sweep_view_cancel (CmlSweepView *self)
{
  g_return_if_fail (CML_IS_SWEEP_VIEW (self));
  if (self->job)
    g_atomic_int_set (&self->job->cancel, 1);
}

gboolean
cml_sweep_view_is_running (CmlSweepView *self)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), FALSE);
  return self->job != NULL;
}

const double *
cml_sweep_view_get_points (CmlSweepView *self, guint *n)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), NULL);
  take_rows (self);
  *n = self->points->len / 2;
  return (const double *) (gpointer) self->points->data;
}

const char *
cml_sweep_view_get_status (CmlSweepView *self)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), NULL);
  return gtk_label_get_text (self->status);
}

gboolean
cml_sweep_view_pick (CmlSweepView *self, double x)
{
  g_return_val_if_fail (CML_IS_SWEEP_VIEW (self), FALSE);

  const double *xy = (const double *) (gpointer) self->points->data;
  double best = NAN, best_d = INFINITY;
  for (guint k = 0; k < self->points->len / 2; k++)
    if (isfinite (xy[2 * k + 1]) && fabs (xy[2 * k] - x) < best_d)
      best_d = fabs (xy[2 * k] - x), best = xy[2 * k];
  if (self->param == NULL || isnan (best))
    return FALSE;
  g_signal_emit (self, signals[PARAM_PICKED], 0, self->param, best);
  return TRUE;
}

/* ---- the system ------------------------------------------------------------------------------ */

void
cml_sweep_view_set_system (CmlSweepView *self, CmlSystem *sys, CmlRunner *runner)
{
  g_return_if_fail (CML_IS_SWEEP_VIEW (self));

  if (self->job)
    {
      g_atomic_int_set (&self->job->cancel, 1);
      g_clear_pointer (&self->job, job_unref);
    }
  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;
  self->runner = runner;
  g_clear_pointer (&self->param, g_free);
  g_array_set_size (self->points, 0);
  cml_plot_remove_all_series (self->plot);
  g_clear_pointer (&self->curve, cml_plot_series_unref);
  cml_plot_set_title (self->plot, "");
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), "", "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), "", "");

  /* the parameters a slider sets (not a set of choices), and every quantity */
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->param_names));
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  CmlModel *model = sys ? cml_system_get_model (sys) : NULL;
  for (guint k = 0; model && k < model->params->len; k++)
    {
      const CmlParam *p = model->params->pdata[k];
      if (p->choices == NULL && p->max > p->min)
        g_ptr_array_add (names, p->name);
    }
  g_ptr_array_add (names, NULL);
  gtk_string_list_splice (self->param_names, 0, n_old, (const char *const *) names->pdata);
  n_old = g_list_model_get_n_items (G_LIST_MODEL (self->measure_names));
  guint n = sys ? cml_system_n_observables (sys) : 0;
  g_autofree const char **obs = g_new0 (const char *, n + 1);
  for (guint k = 0; k < n; k++)
    obs[k] = cml_system_observable_name (sys, k);
  gtk_string_list_splice (self->measure_names, 0, n_old, obs);

  if (names->len > 1)
    cml_sweep_view_prepare (self, names->pdata[0]);
  set_status (self, sys ? _("Choose the parameter, its range and the quantity, then Run.") : "");
  update_buttons (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

void
cml_sweep_view_set_run_source (CmlSweepView *self, CmlSweepRunSource source, gpointer user_data)
{
  g_return_if_fail (CML_IS_SWEEP_VIEW (self));
  self->source = source;
  self->source_data = user_data;
}

/* ---- drawing and the pointer ------------------------------------------------------------------ */

static void
on_plot_pressed (CmlSweepView *self, double x, double y)
{
  if (self->points->len)
    cml_sweep_view_pick (self, x);
}

static void
on_run_clicked (CmlSweepView *self)
{
  g_autoptr (GError) error = NULL;
  if (!cml_sweep_view_start (self, &error))
    set_status (self, error->message);
}

void
cml_sweep_view_set_style (CmlSweepView *self, gboolean dark, gboolean high_contrast, gboolean presentation)
{
  g_return_if_fail (CML_IS_SWEEP_VIEW (self));
  cml_plot_area_set_style (self->area, dark, high_contrast, presentation);
}

/* ---- GObject ----------------------------------------------------------------------------------- */

static void
cml_sweep_view_dispose (GObject *object)
{
  CmlSweepView *self = CML_SWEEP_VIEW (object);
  GtkWidget *child;

  if (self->job)
    {
      g_atomic_int_set (&self->job->cancel, 1);
      g_clear_pointer (&self->job, job_unref);
    }
  if (self->timer)
    g_source_remove (self->timer);
  self->timer = 0;
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_SWEEP_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cml_sweep_view_parent_class)->dispose (object);
}

static void
cml_sweep_view_finalize (GObject *object)
{
  CmlSweepView *self = CML_SWEEP_VIEW (object);

  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->curve, cml_plot_series_unref);
  g_clear_pointer (&self->now, cml_plot_series_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_free (self->param);
  G_OBJECT_CLASS (cml_sweep_view_parent_class)->finalize (object);
}

static void
cml_sweep_view_class_init (CmlSweepViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_sweep_view_dispose;
  object_class->finalize = cml_sweep_view_finalize;
  /* CmlSweepView::param-picked (name, value): a click on the curve chose VALUE for NAME */
  signals[PARAM_PICKED] = g_signal_new ("param-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                        NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);

  g_type_ensure (CML_TYPE_PLOT_AREA);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/cmlab/Cmlab/ui/cml-sweep-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, param_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, measure_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, param_names);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, measure_names);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, from);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, to);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, n_points);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, time);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, run);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, cancel);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, progress);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlSweepView, status);
  gtk_widget_class_bind_template_callback (widget_class, on_param_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_run_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_sweep_view_cancel);
  gtk_widget_class_bind_template_callback (widget_class, on_plot_pressed);
  gtk_widget_class_set_css_name (widget_class, "cmlsweepview");
}

static void
cml_sweep_view_init (CmlSweepView *self)
{
  self->points = g_array_new (FALSE, FALSE, sizeof (double));
  self->now_value = NAN;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->plot = cml_plot_area_get_plot (self->area);
  cml_plot_set_equal_scales (self->plot, FALSE);
  self->now = cml_plot_series_new_x_marker ("now", NAN);
  cml_plot_series_set_dashed (self->now, TRUE);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "pointer");
  /* the drop-downs show the names as people write them */
  g_autoptr (GtkExpression) shown = display_expression (self);
  gtk_drop_down_set_expression (self->param_drop, shown);
  gtk_drop_down_set_expression (self->measure_drop, shown);
  self->timer = g_timeout_add (POLL_MS, poll, self);
  update_buttons (self);
}

GtkWidget *
cml_sweep_view_new (void)
{
  return g_object_new (CML_TYPE_SWEEP_VIEW, NULL);
}
