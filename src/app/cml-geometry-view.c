/* cml-geometry-view.c — the Geometry page: the fan of extremals of a vakonomic model from
 * the run's start point, its wavefront growing to a time T, its conjugate and Maxwell points.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page asks for the number N of extremals, the time T and the two coordinates of the
 * point q = (x, r) (base coordinates, then reconstruction variables) drawn across and up.
 * The fan is what `cmlab-cli explore` computes (the core's cml-explore.c, doc/theory.md
 * §18): N covectors p_i on the level H = ½ of the Hamiltonian from the run's initial
 * values with the run's parameters and integrator, made on the window's thread
 * (cml_explore_covectors builds an expression), then the extremals on worker threads
 * (cml_explore_full), with a progress bar and Cancel, the window's run going on meanwhile.
 *
 * Drawn: the wavefront {q_i(T)}, a closed curve through the endpoints in the order of the
 * covectors (around the circle of directions), and inside it the wavefronts {q_i(t)} at
 * t = T/4, T/2, 3T/4, fainter the earlier (cml_explore samples them on its way to T: no
 * extra integration), so the student sees the front grow, fold and collapse (Heisenberg's
 * circles of radius 2|sin(t/2)| shrink back onto the z axis at the cut time 2π); the
 * axes cover every front, so a front collapsed to a point sits inside the earlier ones and
 * the plot never zooms into rounding noise (if all are one point: the start's scale); the
 * conjugate locus, q_i(t_c,i) for each
 * extremal whose first conjugate time t_c,i ≤ T (where the wavefront folds: past it the
 * extremal is no longer even locally the shortest); and the Maxwell points q_i(t_M,i), where
 * extremal i meets another of the fan with the same cost (past it, no longer the shortest:
 * the cut locus).  The points at t_c and t_M are read by integrating each such extremal
 * again, on the worker, to that time.  While the fan runs, each extremal's endpoint is drawn
 * as it ends (the core tells each one from its worker thread; the window's timer draws
 * what has come); the conjugate and Maxwell points come with the whole fan, the Maxwell
 * ones needing every pair.  Where the model has closed forms ([reference]) of both
 * coordinates drawn, the wavefronts' closed forms are drawn dashed beside them — each
 * extremal's closed form from its own start (its covector) at the front's time — with the largest
 * difference in the legend, and the conjugate and Maxwell points' largest distance from
 * the closed form at the times found.  On SE(2) — recognised by its structure at the start
 * (cml-se2-maxwell.h: the frame's Lie algebra se(2), orthonormal, the lateral section held),
 * not by its name — each extremal of class C1 is integrated again to Sachkov's first Maxwell
 * time 2K(k) (doc/theory.md §18.3) and those points are drawn dashed, a curve in the order of
 * the covectors, with the largest difference of the Maxwell times found from 2K(k) in the
 * legend.  A click on a wavefront starts the window's run on
 * the nearest extremal: its momenta given as initial values (the free velocities where the
 * parameter panel shows velocities), one step to undo.  The fan's worker is in
 * cml-geometry-fan.c, the drawing in cml-geometry-draw.c.
 */
#define G_LOG_DOMAIN "cml-geometry-view"

#include "cml-geometry-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-reference.h"
#include "cml-simulation.h"
#include "cml-string-list.h"

#define DEFAULT_COVECTORS 200
#define DEFAULT_TIME      (2 * G_PI)
#define POLL_MS           100

/* ---- the page ------------------------------------------------------------------------------ */

G_DEFINE_FINAL_TYPE (CmlGeometryView, cml_geometry_view, GTK_TYPE_WIDGET)

enum
{
  EXTREMAL_PICKED,
  FAN_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* How the drop-downs show a coordinate NAME: as people write it ("x₁"). */
static char *
display_of (GtkStringObject *item, const char *name, CmlGeometryView *self)
{
  CmlModel *model = self->sys ? cml_system_get_model (self->sys) : NULL;
  return model && name ? cml_model_display_name (model, name) : g_strdup (name ? name : "");
}

static void
set_status (CmlGeometryView *self, const char *text)
{
  gtk_label_set_text (self->status, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status), text);
}

static void
update_buttons (CmlGeometryView *self)
{
  gtk_widget_set_sensitive (self->run, cml_geometry_view_is_available (self) && self->job == NULL);
  gtk_widget_set_visible (self->cancel, self->job != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->progress), self->job != NULL);
}

static void
take_progress (CmlGeometryView *self)
{
  Job *job = self->job;
  if (job == NULL)
    return;
  g_mutex_lock (&job->lock);
  guint done = job->done;
  g_mutex_unlock (&job->lock);
  double f = (double) done / job->opt.n_covectors;
  double elapsed = (g_get_monotonic_time () - job->started) / 1e6;
  g_autofree char *text = NULL;
  gtk_progress_bar_set_fraction (self->progress, f);
  if (f > 0 && f < 1 && elapsed > 1)
    text = g_strdup_printf (_("Extremal %u of %u · about %.0f s left"), done, job->opt.n_covectors,
                            ceil (elapsed / f * (1 - f)));
  else if (f >= 1)
    text = g_strdup (_("Looking for Maxwell points"));
  else
    text = g_strdup_printf (_("Extremal %u of %u"), done, job->opt.n_covectors);
  gtk_progress_bar_set_text (self->progress, text);
}

static gboolean
poll (gpointer data)
{
  CmlGeometryView *self = data;
  take_progress (self);
  if (self->job)
    {
      g_mutex_lock (&self->job->lock);
      guint n = self->job->n_ended;
      g_mutex_unlock (&self->job->lock);
      if (n != self->n_drawn)
        cml_geometry_view_draw_ended (self);
    }
  return G_SOURCE_CONTINUE;
}

static void
fan_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlGeometryView *self = CML_GEOMETRY_VIEW (source);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (self->job != job)
    return; /* a fan left behind by a change of system */
  if (ok)
    {
      g_clear_pointer (&self->shown, cml_geometry_job_unref);
      self->shown = cml_geometry_job_ref (job);
      cml_geometry_view_draw_fan (self);
      g_signal_emit (self, signals[FAN_CHANGED], 0);
      const CmlExploreResult *res = job->res;
      guint n_conj = 0, n_max = 0, n_failed = 0;
      const char *first_why = NULL;
      for (guint i = 0; i < res->n; i++)
        {
          n_conj += res->conjugate[i] <= job->opt.t_end;
          n_max += res->maxwell[i] <= job->opt.t_end;
          n_failed += res->why[i] != NULL;
          first_why = first_why ? first_why : res->why[i];
        }
      g_autofree char *text = NULL;
      if (n_failed)
        text = g_strdup_printf (ngettext ("%u extremal failed (not drawn): %s",
                                          "%u extremals failed (not drawn); the first: %s", n_failed),
                                n_failed, first_why);
      else if (res->conjugate_note && n_conj == 0)
        /* TRANSLATORS: %s says why the conjugate times are not found */
        text = g_strdup_printf (_("No conjugate points: %s. Click the wavefront to start the run there."),
                                res->conjugate_note);
      else
        text = g_strdup_printf (_("%u conjugate and %u Maxwell points in %.2g s. Click the wavefront to start the run "
                                  "there."),
                                n_conj, n_max, (g_get_monotonic_time () - job->started) / 1e6);
      set_status (self, text);
    }
  else if (g_error_matches (error, CML_ERROR, CML_ERROR_CANCELLED))
    set_status (self, _("Cancelled; the fan drawn before stays."));
  else
    set_status (self, error->message);
  if (!ok && self->partial)
    cml_geometry_view_draw_fan (self); /* the endpoints that had come go: the fan before is drawn again */
  g_clear_pointer (&self->job, cml_geometry_job_unref);
  update_buttons (self);
}

/* ---- fields -------------------------------------------------------------------------------- */

gboolean
cml_geometry_view_is_available (CmlGeometryView *self)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), FALSE);
  return self->sys != NULL && cml_system_get_formalism (self->sys) == CML_FORMALISM_VAKONOMIC
         && g_list_model_get_n_items (G_LIST_MODEL (self->names)) >= 2;
}

gboolean
cml_geometry_view_set_fan (CmlGeometryView *self, guint n, double t, const char *x, const char *y, GError **error)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), FALSE);

  guint ix = cml_string_list_find (self->names, x), iy = cml_string_list_find (self->names, y);
  if (!cml_geometry_view_is_available (self))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the fan of extremals needs a vakonomic model"));
      return FALSE;
    }
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME, _("no coordinate “%s” to draw"),
                   ix == GTK_INVALID_LIST_POSITION ? x : y);
      return FALSE;
    }
  gtk_drop_down_set_selected (self->x_drop, ix);
  gtk_drop_down_set_selected (self->y_drop, iy);
  gtk_spin_button_set_value (self->n_covectors, n);
  gtk_spin_button_set_value (self->time, t);
  return TRUE;
}

CmlExploreOptions
cml_geometry_view_get_options (CmlGeometryView *self)
{
  CmlExploreOptions opt = cml_explore_options_default ();
  opt.n_covectors = (guint) gtk_spin_button_get_value_as_int (self->n_covectors);
  opt.t_end = gtk_spin_button_get_value (self->time);
  /* the wavefront grows: drawn at T/4, T/2, 3T/4 too (the fan starts at t = 0, as
   * cml_simulation_reset does; they cost the fan no extra integration) */
  for (guint k = 0; k < CML_GEOMETRY_N_EARLIER; k++)
    self->times[k] = opt.t_end * (k + 1) / (CML_GEOMETRY_N_EARLIER + 1);
  opt.n_times = CML_GEOMETRY_N_EARLIER;
  opt.times = self->times;
  return opt;
}

gboolean
cml_geometry_view_start (CmlGeometryView *self, GError **error)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), FALSE);

  if (self->job)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("a fan of extremals is being computed"));
      return FALSE;
    }
  if (!cml_geometry_view_is_available (self) || self->runner == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the fan of extremals needs a vakonomic model"));
      return FALSE;
    }
  CmlModel *model = cml_system_get_model (self->sys);
  CmlFrame *frame = cml_runner_get_frame (self->runner);
  gboolean same = frame->system == self->sys;
  g_autofree double *params = g_new0 (double, model->params->len + 1);
  for (guint k = 0; same && k < model->params->len; k++)
    params[k] = k < frame->n_params ? frame->params[k] : ((CmlParam *) model->params->pdata[k])->value;
  cml_frame_unref (frame);
  if (!same)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s", _("the run is switching models: try again"));
      return FALSE;
    }

  /* a simulation of its own at the run's start: its parameters, integrator, initial values */
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  GHashTable *given = self->source ? self->source (self->source_data, &iopt) : NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (self->sys, error);
  if (sim == NULL)
    return FALSE;
  for (guint k = 0; k < model->params->len; k++)
    if (!cml_simulation_set_param (sim, ((CmlParam *) model->params->pdata[k])->name, params[k], error))
      return FALSE;
  if (!cml_simulation_set_integrator (sim, &iopt, error) || !cml_simulation_reset (sim, given, error))
    return FALSE;

  /* the covectors here (they build the Hamiltonian's expression), the rest on workers */
  CmlExploreOptions opt = cml_geometry_view_get_options (self);
  double *covectors = cml_explore_covectors (sim, &opt, NULL, error);
  if (covectors == NULL)
    return FALSE;
  Job *job = g_new0 (Job, 1);
  job->ref_count = 1;
  job->sim = g_steal_pointer (&sim);
  job->opt = opt;
  memcpy (job->times, opt.times, sizeof job->times);
  job->opt.times = job->times;
  job->covectors = covectors;
  job->opt.covectors = covectors;
  job->n_coords = model->m + (cml_system_dim (self->sys) - model->m - model->n);
  job->start = g_new (double, job->n_coords);
  const double *z0 = cml_simulation_get_state (job->sim);
  for (guint c = 0; c < job->n_coords; c++)
    job->start[c] = z0[c < model->m ? c : c + model->n];
  /* SE(2), by its structure at the start: Sachkov's first Maxwell times drawn beside */
  job->se2 = cml_se2_recognise (model, job->start, &job->se2_frame);
  job->ended = g_new (double, (gsize) opt.n_covectors * job->n_coords);
  for (gsize k = 0; k < (gsize) opt.n_covectors * job->n_coords; k++)
    job->ended[k] = NAN;
  const char *hold = g_getenv ("CMLAB_TEST_GEOMETRY_HOLD_AFTER");
  job->hold_after = hold && *hold ? (guint) g_ascii_strtoull (hold, NULL, 10) : G_MAXUINT;
  g_mutex_init (&job->lock);
  job->started = g_get_monotonic_time ();
  self->job = job;
  self->n_drawn = 0;

  GTask *task = g_task_new (self, NULL, fan_done, NULL);
  g_task_set_task_data (task, cml_geometry_job_ref (job), (GDestroyNotify) cml_geometry_job_unref);
  g_task_run_in_thread (task, cml_geometry_fan_thread);
  g_object_unref (task);
  set_status (self, _("Computing the fan — the window's run goes on meanwhile."));
  update_buttons (self);
  take_progress (self);
  return TRUE;
}

void
cml_geometry_view_cancel (CmlGeometryView *self)
{
  g_return_if_fail (CML_IS_GEOMETRY_VIEW (self));
  if (self->job)
    g_atomic_int_set (&self->job->cancel, 1);
}

gboolean
cml_geometry_view_is_running (CmlGeometryView *self)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), FALSE);
  return self->job != NULL;
}

const CmlExploreResult *
cml_geometry_view_get_result (CmlGeometryView *self)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);
  return self->shown ? self->shown->res : NULL;
}

const double *
cml_geometry_view_get_points (CmlGeometryView *self, guint *n)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);
  *n = self->points->len / 2;
  return (const double *) (gpointer) self->points->data;
}

const double *
cml_geometry_view_get_fronts (CmlGeometryView *self, guint *n, guint *n_fronts)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);
  *n = self->points->len / 2;
  *n_fronts = self->n_fronts;
  return (const double *) (gpointer) self->fronts->data;
}

void
cml_geometry_view_get_ranges (CmlGeometryView *self, double *x0, double *x1, double *y0, double *y1)
{
  g_return_if_fail (CML_IS_GEOMETRY_VIEW (self));
  cml_plot_update_ranges (self->plot, FALSE);
  cml_plot_axis_get_range (cml_plot_get_x_axis (self->plot), x0, x1);
  cml_plot_axis_get_range (cml_plot_get_y_axis (self->plot), y0, y1);
}

double
cml_geometry_view_get_closed_form_difference (CmlGeometryView *self, double *conjugate, double *maxwell)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NAN);
  if (conjugate)
    *conjugate = self->closed[1];
  if (maxwell)
    *maxwell = self->closed[2];
  return self->closed[0];
}

const double *
cml_geometry_view_get_paths (CmlGeometryView *self, guint *n_paths, double *t0, double *t_end)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);
  if (self->shown == NULL || self->shown->paths == NULL)
    return NULL;
  *n_paths = self->shown->n_paths;
  *t0 = self->shown->t0;
  *t_end = self->shown->opt.t_end;
  return self->shown->paths;
}

double
cml_geometry_view_get_sachkov_difference (CmlGeometryView *self, double *points)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NAN);
  if (points)
    *points = self->sachkov[1];
  return self->sachkov[0];
}

const char *
cml_geometry_view_get_status (CmlGeometryView *self)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);
  return gtk_label_get_text (self->status);
}

gboolean
cml_geometry_view_pick (CmlGeometryView *self, double x, double y)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), FALSE);

  if (self->partial)
    return FALSE; /* the running fan's endpoints: its covectors are not the fan drawn's */
  double x0, x1, y0, y1;
  cml_plot_axis_get_range (cml_plot_get_x_axis (self->plot), &x0, &x1);
  cml_plot_axis_get_range (cml_plot_get_y_axis (self->plot), &y0, &y1);
  double sx = x1 > x0 ? x1 - x0 : 1, sy = y1 > y0 ? y1 - y0 : 1;
  /* the nearest point of any wavefront drawn: its extremal */
  const double *xy = (const double *) (gpointer) self->fronts->data;
  guint n = self->points->len / 2, best = G_MAXUINT;
  double best_d = INFINITY;
  for (guint k = 0; n > 0 && k < self->fronts->len / 2; k++)
    {
      double d = hypot ((xy[2 * k] - x) / sx, (xy[2 * k + 1] - y) / sy);
      if (isfinite (d) && d < best_d)
        best_d = d, best = k % n;
    }
  if (best == G_MAXUINT)
    return FALSE;
  g_signal_emit (self, signals[EXTREMAL_PICKED], 0, best);
  return TRUE;
}

GHashTable *
cml_geometry_view_initial_values (CmlGeometryView *self, guint i)
{
  g_return_val_if_fail (CML_IS_GEOMETRY_VIEW (self), NULL);

  if (self->shown == NULL || i >= self->shown->res->n || self->sys != cml_simulation_get_system (self->shown->sim))
    return NULL;
  CmlModel *model = cml_system_get_model (self->sys);
  const CmlExploreResult *res = self->shown->res;
  CmlSimulation *sim = self->shown->sim;
  guint dim = cml_system_dim (self->sys), n_obs = cml_system_n_observables (self->sys);
  double t0 = cml_simulation_get_time (sim);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));
  g_autofree double *obs = g_new (double, n_obs);
  const double *p = res->covectors + (gsize) i * res->n_momenta;

  /* the observables at the start on this extremal: its velocities */
  memcpy (z + model->m, p, res->n_momenta * sizeof (double));
  cml_simulation_set_state (sim, t0, z);
  cml_simulation_observe (sim, obs);
  cml_simulation_set_state (sim, t0, z0);

  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint A = 0; A < res->n_momenta; A++)
    {
      /* the panel shows a momentum as its velocity when the model gives the velocity */
      const char *mom = model->momenta[A], *vel = model->fibre[A];
      gboolean as_velocity = model->initial && !g_hash_table_contains (model->initial, mom)
                             && g_hash_table_contains (model->initial, vel);
      gboolean constrained = FALSE;
      for (guint a = 0; a < model->constraints->len; a++)
        constrained = constrained || g_strcmp0 (((CmlNamedExpr *) model->constraints->pdata[a])->name, vel) == 0;
      int k = cml_system_observable_index (self->sys, vel);
      if (!as_velocity)
        g_hash_table_insert (values, g_strdup (mom), g_memdup2 (&p[A], sizeof (double)));
      else if (!constrained && k >= 0 && isfinite (obs[k]))
        g_hash_table_insert (values, g_strdup (vel), g_memdup2 (&obs[k], sizeof (double)));
    }
  return values;
}

/* ---- the system ------------------------------------------------------------------------------ */

void
cml_geometry_view_set_system (CmlGeometryView *self, CmlSystem *sys, CmlRunner *runner)
{
  g_return_if_fail (CML_IS_GEOMETRY_VIEW (self));

  if (self->job)
    {
      g_atomic_int_set (&self->job->cancel, 1);
      g_clear_pointer (&self->job, cml_geometry_job_unref);
    }
  gboolean had = self->shown != NULL;
  g_clear_pointer (&self->shown, cml_geometry_job_unref);
  if (had)
    g_signal_emit (self, signals[FAN_CHANGED], 0);
  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->reference, cml_reference_free);
  self->sys = sys;
  self->runner = runner;

  /* the point's coordinates: the base's, then the reconstruction's */
  gboolean vak = sys && cml_system_get_formalism (sys) == CML_FORMALISM_VAKONOMIC;
  if (vak)
    {
      /* the closed forms, if the model has any (compiled here: the window's thread) */
      g_autoptr (GError) error = NULL;
      self->reference = cml_reference_new (sys, &error);
      if (error)
        g_warning ("the closed forms of %s: %s", cml_system_get_model (sys)->name, error->message);
    }
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->names));
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  if (vak)
    {
      CmlModel *model = cml_system_get_model (sys);
      guint dim = cml_system_dim (sys);
      for (guint i = 0; i < model->m; i++)
        g_ptr_array_add (names, (gpointer) cml_system_state_name (sys, i));
      for (guint i = model->m + model->n; i < dim; i++)
        g_ptr_array_add (names, (gpointer) cml_system_state_name (sys, i));
    }
  g_ptr_array_add (names, NULL);
  gtk_string_list_splice (self->names, 0, n_old, (const char *const *) names->pdata);
  if (names->len > 2)
    {
      gtk_drop_down_set_selected (self->x_drop, 0);
      gtk_drop_down_set_selected (self->y_drop, 1);
    }
  gtk_spin_button_set_value (self->n_covectors, DEFAULT_COVECTORS);
  gtk_spin_button_set_value (self->time, DEFAULT_TIME);

  gboolean available = cml_geometry_view_is_available (self);
  gtk_widget_set_visible (self->controls, available);
  gtk_widget_set_visible (GTK_WIDGET (self->area), available);
  gtk_widget_set_visible (GTK_WIDGET (self->status), available);
  gtk_widget_set_visible (self->placeholder, !available);
  cml_plot_set_title (self->plot, "");
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), "", "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), "", "");
  cml_geometry_view_draw_fan (self);
  set_status (self, available ? _("Choose the number of extremals, the time and the axes, then Run.") : "");
  update_buttons (self);
}

void
cml_geometry_view_set_run_source (CmlGeometryView *self, CmlGeometryRunSource source, gpointer user_data)
{
  g_return_if_fail (CML_IS_GEOMETRY_VIEW (self));
  self->source = source;
  self->source_data = user_data;
}

/* ---- the pointer, the buttons, the style ------------------------------------------------------ */

static void
on_plot_pressed (CmlGeometryView *self, double x, double y)
{
  if (self->points->len)
    cml_geometry_view_pick (self, x, y);
}

static void
on_run_clicked (CmlGeometryView *self)
{
  g_autoptr (GError) error = NULL;
  if (!cml_geometry_view_start (self, &error))
    set_status (self, error->message);
}

static void
on_axis_selected (CmlGeometryView *self)
{
  if (self->partial)
    cml_geometry_view_draw_ended (self);
  else if (self->shown)
    cml_geometry_view_draw_fan (self);
}

void
cml_geometry_view_set_style (CmlGeometryView *self, gboolean dark, gboolean high_contrast, gboolean presentation)
{
  g_return_if_fail (CML_IS_GEOMETRY_VIEW (self));
  cml_plot_area_set_style (self->area, dark, high_contrast, presentation);
}

/* ---- GObject ----------------------------------------------------------------------------------- */

static void
cml_geometry_view_dispose (GObject *object)
{
  CmlGeometryView *self = CML_GEOMETRY_VIEW (object);
  GtkWidget *child;

  if (self->job)
    {
      g_atomic_int_set (&self->job->cancel, 1);
      g_clear_pointer (&self->job, cml_geometry_job_unref);
    }
  g_clear_pointer (&self->shown, cml_geometry_job_unref);
  if (self->timer)
    g_source_remove (self->timer);
  self->timer = 0;
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_GEOMETRY_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cml_geometry_view_parent_class)->dispose (object);
}

static void
cml_geometry_view_finalize (GObject *object)
{
  CmlGeometryView *self = CML_GEOMETRY_VIEW (object);

  g_clear_pointer (&self->reference, cml_reference_free);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->points, g_array_unref);
  g_clear_pointer (&self->fronts, g_array_unref);
  G_OBJECT_CLASS (cml_geometry_view_parent_class)->finalize (object);
}

static void
cml_geometry_view_class_init (CmlGeometryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_geometry_view_dispose;
  object_class->finalize = cml_geometry_view_finalize;
  /* CmlGeometryView::extremal-picked (i): a click on the wavefront chose extremal I */
  signals[EXTREMAL_PICKED] = g_signal_new ("extremal-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  /* CmlGeometryView::fan-changed: the fan drawn is another one, or none */
  signals[FAN_CHANGED] = g_signal_new ("fan-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                       NULL, G_TYPE_NONE, 0);

  g_type_ensure (CML_TYPE_PLOT_AREA);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-geometry-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, controls);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, placeholder);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, x_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, y_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, names);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, n_covectors);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, time);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, run);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, cancel);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, progress);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlGeometryView, status);
  gtk_widget_class_bind_template_callback (widget_class, on_run_clicked);
  gtk_widget_class_bind_template_callback (widget_class, cml_geometry_view_cancel);
  gtk_widget_class_bind_template_callback (widget_class, on_plot_pressed);
  gtk_widget_class_bind_template_callback (widget_class, on_axis_selected);
  gtk_widget_class_set_css_name (widget_class, "cmlgeometryview");
}

static void
cml_geometry_view_init (CmlGeometryView *self)
{
  self->points = g_array_new (FALSE, FALSE, sizeof (double));
  self->fronts = g_array_new (FALSE, FALSE, sizeof (double));
  self->closed[0] = self->closed[1] = self->closed[2] = NAN;
  self->sachkov[0] = self->sachkov[1] = NAN;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->plot = cml_plot_area_get_plot (self->area);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "pointer");
  /* the drop-downs show the names as people write them */
  GtkExpression *string = gtk_property_expression_new (GTK_TYPE_STRING_OBJECT, NULL, "string");
  g_autoptr (GtkExpression) shown
    = gtk_cclosure_expression_new (G_TYPE_STRING, NULL, 1, &string, G_CALLBACK (display_of), self, NULL);
  gtk_drop_down_set_expression (self->x_drop, shown);
  gtk_drop_down_set_expression (self->y_drop, shown);
  self->timer = g_timeout_add (POLL_MS, poll, self);
  gtk_widget_set_visible (self->controls, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->area), FALSE);
  update_buttons (self);
}

GtkWidget *
cml_geometry_view_new (void)
{
  return g_object_new (CML_TYPE_GEOMETRY_VIEW, NULL);
}
