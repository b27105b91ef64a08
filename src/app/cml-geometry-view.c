/* cml-geometry-view.c — the Geometry page: the fan of extremals of a vakonomic model from
 * the run's start point, its wavefront at a time T, its conjugate and Maxwell points.
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
 * covectors (around the circle of directions); the conjugate locus, q_i(t_c,i) for each
 * extremal whose first conjugate time t_c,i ≤ T (where the wavefront folds: past it the
 * extremal is no longer even locally the shortest); and the Maxwell points q_i(t_M,i), where
 * extremal i meets another of the fan with the same cost (past it, no longer the shortest:
 * the cut locus).  The points at t_c and t_M are read by integrating each such extremal
 * again, on the worker, to that time.  While the fan runs, each extremal's endpoint is drawn
 * as it ends (the core tells each one from its worker thread; the window's timer draws
 * what has come); the conjugate and Maxwell points come with the whole fan, the Maxwell
 * ones needing every pair.  Where the model has closed forms ([reference]) of both
 * coordinates drawn, the wavefront's closed form is drawn dashed beside it — each
 * extremal's closed form from its own start (its covector) at T — with the largest
 * difference in the legend, and the conjugate and Maxwell points' largest distance from
 * the closed form at the times found.  A click on the wavefront starts the window's run on
 * the nearest extremal: its momenta given as initial values (the free velocities where the
 * parameter panel shows velocities), one step to undo.
 */
#define G_LOG_DOMAIN "cml-geometry-view"

#include "cml-geometry-view.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-plot-area.h"
#include "cml-plot.h"
#include "cml-reference.h"
#include "cml-simulation.h"
#include "cml-test-gate.h"

#define DEFAULT_COVECTORS 200
#define DEFAULT_TIME      (2 * G_PI)
#define POLL_MS           100

/* ---- a fan, on worker threads ------------------------------------------------------------- */

typedef struct
{
  gint               ref_count;
  gint               cancel;     /* atomic: set by Cancel */
  CmlSimulation     *sim;        /* at the start point; the worker's while it runs */
  CmlExploreOptions  opt;
  double            *covectors;  /* opt.covectors */
  GMutex             lock;       /* guards DONE and the ended points */
  guint              done;
  double            *ended;      /* n × n_coords: the points at T of the extremals ended, else NaN */
  guint              n_coords;
  guint              n_ended;    /* how many are in ENDED */
  guint              n_taken;    /* … and how many have asked to be (a test holds those past HOLD_AFTER) */
  guint              hold_after; /* G_MAXUINT, or (tests) CMLAB_TEST_GEOMETRY_HOLD_AFTER */
  gint64             started;
  /* the worker's results */
  CmlExploreResult  *res;
  double            *conj_pts;   /* n × n_coords: the point at the first conjugate time (≤ T), or NaN */
  double            *max_pts;    /* … at the Maxwell time */
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
  g_clear_pointer (&job->sim, cml_simulation_free);
  g_free (job->covectors);
  g_free (job->ended);
  g_mutex_clear (&job->lock);
  g_clear_pointer (&job->res, cml_explore_result_free);
  g_free (job->conj_pts);
  g_free (job->max_pts);
  g_free (job);
}

static void
on_progress (guint done, guint total, gpointer data)
{
  Job *job = data;
  g_mutex_lock (&job->lock);
  job->done = done;
  g_mutex_unlock (&job->lock);
}

/* Extremal I has ended (a worker thread): its point at T kept for the window to draw.  A
 * test holds every extremal past the first HOLD_AFTER at the gate CMLAB_TEST_GEOMETRY_STEP_GATE
 * before it is kept, so that exactly that many are drawn until it lets them go. */
static void
on_ended (guint i, const double *point, double t_conjugate, gpointer data)
{
  Job *job = data;
  g_mutex_lock (&job->lock);
  guint slot = job->n_taken++;
  g_mutex_unlock (&job->lock);
  if (slot >= job->hold_after)
    cml_test_gate_wait ("CMLAB_TEST_GEOMETRY_STEP_GATE");
  g_mutex_lock (&job->lock);
  memcpy (job->ended + (gsize) i * job->n_coords, point, job->n_coords * sizeof (double));
  job->n_ended++;
  g_mutex_unlock (&job->lock);
}

/* The point of extremal I at time T (≤ the fan's T) into Q: its run again from the start. */
static void
point_at (Job *job, const double *z0, double t0, guint i, double t, double *q)
{
  CmlSystem *sys = cml_simulation_get_system (job->sim);
  CmlExploreResult *res = job->res;
  guint dim = cml_system_dim (sys), m = cml_system_get_model (sys)->m, nr = dim - m - res->n_momenta;
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));

  for (guint c = 0; c < res->n_coords; c++)
    q[c] = NAN;
  if (!isfinite (t))
    return;
  memcpy (z + m, res->covectors + (gsize) i * res->n_momenta, res->n_momenta * sizeof (double));
  cml_simulation_set_state (job->sim, t0, z);
  if (t > t0 && !cml_simulation_advance (job->sim, t, NULL))
    return;
  const double *s = cml_simulation_get_state (job->sim);
  memcpy (q, s, m * sizeof (double));
  memcpy (q + m, s + m + res->n_momenta, nr * sizeof (double));
}

static void
fan_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  GError *error = NULL;

  cml_test_gate_wait ("CMLAB_TEST_GEOMETRY_GATE");
  job->res = cml_explore_watch (job->sim, &job->opt, on_progress, on_ended, job, &job->cancel, &error);
  if (job->res == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* the conjugate and Maxwell points, each extremal run again to its time */
  CmlSystem *sys = cml_simulation_get_system (job->sim);
  guint dim = cml_system_dim (sys), nc = job->res->n_coords;
  double t0 = cml_simulation_get_time (job->sim);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (job->sim), dim * sizeof (double));
  job->conj_pts = g_new (double, (gsize) job->res->n * nc);
  job->max_pts = g_new (double, (gsize) job->res->n * nc);
  for (guint i = 0; i < job->res->n && !g_atomic_int_get (&job->cancel); i++)
    {
      double tc = job->res->conjugate[i], tm = job->res->maxwell[i];
      point_at (job, z0, t0, i, tc <= job->opt.t_end ? tc : NAN, job->conj_pts + (gsize) i * nc);
      point_at (job, z0, t0, i, tm <= job->opt.t_end ? tm : NAN, job->max_pts + (gsize) i * nc);
    }
  cml_simulation_set_state (job->sim, t0, z0);
  if (g_atomic_int_get (&job->cancel))
    {
      g_task_return_new_error (task, CML_ERROR, CML_ERROR_CANCELLED, "%s", _("the fan of extremals was cancelled"));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* ---- the page ------------------------------------------------------------------------------ */

struct _CmlGeometryView
{
  GtkWidget            parent_instance;

  GtkWidget           *controls, *placeholder;
  GtkDropDown         *x_drop, *y_drop;
  GtkStringList       *names;
  GtkSpinButton       *n_covectors, *time;
  GtkWidget           *run, *cancel;
  GtkProgressBar      *progress;
  GtkLabel            *status;
  CmlPlotArea         *area;

  CmlSystem           *sys;
  CmlReference        *reference;  /* the model's closed forms, or NULL */
  CmlRunner           *runner;
  CmlGeometryRunSource source;
  gpointer             source_data;

  CmlPlot             *plot;       /* the area's */
  Job                 *job;        /* the running fan, or NULL */
  Job                 *shown;      /* the fan drawn, or NULL (its simulation now this thread's) */
  GArray              *points;     /* the wavefront drawn: (x, y) pairs in covector order */
  double               closed[3];  /* the largest differences from the closed forms drawn: the
                                    * wavefront, conjugate, Maxwell points (NaN: none drawn) */
  gboolean             partial;    /* POINTS are the running fan's ended extremals (NaN: not yet) */
  guint                n_drawn;    /* … how many of them */
  guint                timer;
};

G_DEFINE_FINAL_TYPE (CmlGeometryView, cml_geometry_view, GTK_TYPE_WIDGET)

enum
{
  EXTREMAL_PICKED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static guint
list_position (GtkStringList *list, const char *name)
{
  for (guint k = 0; name && k < g_list_model_get_n_items (G_LIST_MODEL (list)); k++)
    if (g_str_equal (gtk_string_list_get_string (list, k), name))
      return k;
  return GTK_INVALID_LIST_POSITION;
}

static const char *
selected_name (GtkDropDown *drop, GtkStringList *list)
{
  guint i = gtk_drop_down_get_selected (drop);
  return i != GTK_INVALID_LIST_POSITION && i < g_list_model_get_n_items (G_LIST_MODEL (list))
           ? gtk_string_list_get_string (list, i)
           : NULL;
}

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

static void draw_ended (CmlGeometryView *self);

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
        draw_ended (self);
    }
  return G_SOURCE_CONTINUE;
}

/* ---- drawing ------------------------------------------------------------------------------- */

static int
coord_index (const CmlExploreResult *res, const char *name)
{
  for (guint c = 0; name && c < res->n_coords; c++)
    if (g_str_equal (res->coord_names[c], name))
      return (int) c;
  return -1;
}

/* A series of the points (X[k], Y[k]) in order, K giving each its place (the plot's
 * time): the wavefront's x goes back and forth.  Its name is the legend's, without unit
 * (the axes have them). */
static CmlPlotSeries *
points_series (const char *name, GArray *xs, GArray *ys)
{
  g_autoptr (CmlPlotColumn) t = cml_plot_column_new (), x = cml_plot_column_new (), y = cml_plot_column_new ();
  for (guint k = 0; k < xs->len; k++)
    {
      double v = k;
      cml_plot_column_append (t, &v, 1, 1);
    }
  cml_plot_column_append (x, (const double *) (gpointer) xs->data, xs->len, 1);
  cml_plot_column_append (y, (const double *) (gpointer) ys->data, ys->len, 1);
  return cml_plot_series_new_for_columns (name, "", t, x, y);
}

/* The closed forms of the axes IX, IY (point coordinates XN, YN) for extremal I of the fan
 * shown at the times TIMES (N_T of them) into XY (pairs, NaN where there is none): FALSE
 * when the model has no closed form of both. */
static gboolean
closed_form_at (CmlGeometryView *self, const char *xn, const char *yn, guint i, const double *times, guint n_t,
                double *xy)
{
  if (self->reference == NULL || self->shown == NULL)
    return FALSE;
  int rx = cml_reference_find (self->reference, xn), ry = cml_reference_find (self->reference, yn);
  if (rx < 0 || ry < 0)
    return FALSE;
  CmlModel *model = cml_system_get_model (self->sys);
  CmlSimulation *sim = self->shown->sim;
  const CmlExploreResult *res = self->shown->res;
  guint dim = cml_system_dim (self->sys), n_obs = cml_system_n_observables (self->sys);
  double t0 = cml_simulation_get_time (sim);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));
  g_autofree double *obs = g_new (double, n_obs);
  g_autofree double *params = g_new0 (double, model->params->len + 1);
  g_autofree double *values = g_new (double, cml_reference_get_n (self->reference));

  /* the extremal's start: the fan's point with its covector */
  memcpy (z + model->m, res->covectors + (gsize) i * res->n_momenta, res->n_momenta * sizeof (double));
  cml_simulation_set_state (sim, t0, z);
  cml_simulation_observe (sim, obs);
  cml_simulation_set_state (sim, t0, z0);
  for (guint k = 0; k < model->params->len; k++)
    params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
  cml_reference_start_at (self->reference, t0, params, obs);
  for (guint k = 0; k < n_t; k++)
    {
      xy[2 * k] = xy[2 * k + 1] = NAN;
      if (!isfinite (times[k]))
        continue;
      cml_reference_eval (self->reference, times[k], values);
      xy[2 * k] = values[rx], xy[2 * k + 1] = values[ry];
    }
  return TRUE;
}

/* The fan drawn (the axes the drop-downs choose): the wavefront closed through its points,
 * the conjugate and the Maxwell points, the start; the closed forms where there are. */
static void
draw_fan (CmlGeometryView *self)
{
  cml_plot_remove_all_series (self->plot);
  g_array_set_size (self->points, 0);
  self->partial = FALSE;
  self->closed[0] = self->closed[1] = self->closed[2] = NAN;
  if (self->shown == NULL || self->sys == NULL)
    {
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
      return;
    }
  CmlModel *model = cml_system_get_model (self->sys);
  const CmlExploreResult *res = self->shown->res;
  const char *xn = selected_name (self->x_drop, self->names), *yn = selected_name (self->y_drop, self->names);
  int ix = coord_index (res, xn), iy = coord_index (res, yn);
  if (ix < 0 || iy < 0)
    return;
  guint nc = res->n_coords, N = res->n;
  const char *yunit = cml_model_unit (model, yn);
  double T = self->shown->opt.t_end;
  g_autofree char *time_unit = cml_plot_format_unit (model->time_unit);

  g_autofree char *front_name = g_strdup_printf (_("wavefront at t = %.3g%s%s"), T, *time_unit ? " " : "", time_unit);
  g_autoptr (GArray) fx = g_array_new (FALSE, FALSE, sizeof (double)), fy = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cx = g_array_new (FALSE, FALSE, sizeof (double)), cy = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) mx = g_array_new (FALSE, FALSE, sizeof (double)), my = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) sx = g_array_new (FALSE, FALSE, sizeof (double)), sy = g_array_new (FALSE, FALSE, sizeof (double));

  /* the closed forms: the wavefront's at T, and the largest differences of the wavefront,
   * the conjugate and the Maxwell points from them */
  g_autoptr (GArray) rx = g_array_new (FALSE, FALSE, sizeof (double)), ry = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean closed = FALSE;
  double d_front = 0, d_conj = 0, d_max = 0;

  /* the wavefront at T (the last of the result's times), around the circle and back */
  guint first = G_MAXUINT;
  for (guint i = 0; i < N; i++)
    {
      const double *q = res->points + ((gsize) i * (res->n_times + 1) + res->n_times) * nc;
      double xy[2] = { q[ix], q[iy] };
      double at[3] = { T, res->conjugate[i] <= T ? res->conjugate[i] : NAN,
                       res->maxwell[i] <= T ? res->maxwell[i] : NAN };
      double ref[6];
      if (closed_form_at (self, xn, yn, i, at, 3, ref))
        {
          const double *cq = self->shown->conj_pts + (gsize) i * nc, *mq = self->shown->max_pts + (gsize) i * nc;
          closed = TRUE;
          if (isfinite (ref[0]) && isfinite (ref[1]))
            {
              g_array_append_val (rx, ref[0]);
              g_array_append_val (ry, ref[1]);
              d_front = MAX (d_front, MAX (fabs (xy[0] - ref[0]), fabs (xy[1] - ref[1])));
            }
          if (isfinite (at[1]))
            d_conj = MAX (d_conj, MAX (fabs (cq[ix] - ref[2]), fabs (cq[iy] - ref[3])));
          if (isfinite (at[2]))
            d_max = MAX (d_max, MAX (fabs (mq[ix] - ref[4]), fabs (mq[iy] - ref[5])));
        }
      g_array_append_vals (self->points, xy, 2);
      if (isfinite (xy[0]) && isfinite (xy[1]))
        {
          g_array_append_val (fx, xy[0]);
          g_array_append_val (fy, xy[1]);
          first = first == G_MAXUINT ? i : first;
        }
      const double *c = self->shown->conj_pts + (gsize) i * nc, *w = self->shown->max_pts + (gsize) i * nc;
      if (isfinite (c[ix]) && isfinite (c[iy]))
        g_array_append_val (cx, c[ix]), g_array_append_val (cy, c[iy]);
      if (isfinite (w[ix]) && isfinite (w[iy]))
        g_array_append_val (mx, w[ix]), g_array_append_val (my, w[iy]);
    }
  if (first != G_MAXUINT && N > 2)
    {
      g_array_append_val (fx, g_array_index (self->points, double, 2 * first));
      g_array_append_val (fy, g_array_index (self->points, double, 2 * first + 1));
    }
  {
    const double *z0 = cml_simulation_get_state (self->shown->sim);
    double x0 = (guint) ix < model->m ? z0[ix] : z0[ix + res->n_momenta];
    double y0 = (guint) iy < model->m ? z0[iy] : z0[iy + res->n_momenta];
    g_array_append_val (sx, x0);
    g_array_append_val (sy, y0);
  }
  if (rx->len > 2)
    {
      g_array_append_val (rx, g_array_index (rx, double, 0));
      g_array_append_val (ry, g_array_index (ry, double, 0));
    }
  g_autofree char *conj_name = NULL, *max_name = NULL, *closed_name = NULL;
  if (closed)
    {
      self->closed[0] = rx->len ? d_front : NAN;
      self->closed[1] = cx->len ? d_conj : NAN;
      self->closed[2] = mx->len ? d_max : NAN;
      /* TRANSLATORS: %.2g is the largest difference of the points from their closed form */
      conj_name = g_strdup_printf (_("conjugate points (within %.2g of the closed form)"), d_conj);
      /* TRANSLATORS: %.2g is the largest difference of the points from their closed form */
      max_name = g_strdup_printf (_("Maxwell points (within %.2g of the closed form)"), d_max);
      /* TRANSLATORS: %.2g is the largest difference of the wavefront from its closed form */
      closed_name = g_strdup_printf (_("wavefront, closed form (largest difference %.2g)"), d_front);
    }
  g_autoptr (CmlPlotSeries) front = points_series (front_name, fx, fy);
  g_autoptr (CmlPlotSeries) conj = points_series (conj_name ? conj_name : _("conjugate points (first, up to T)"), cx, cy);
  g_autoptr (CmlPlotSeries) maxw = points_series (max_name ? max_name : _("Maxwell points (two extremals meet)"), mx, my);
  g_autoptr (CmlPlotSeries) front_ref = closed ? points_series (closed_name, rx, ry) : NULL;
  g_autoptr (CmlPlotSeries) start = points_series (_("start"), sx, sy);
  cml_plot_series_set_palette_index (front, 0);
  cml_plot_series_set_palette_index (conj, 1);
  cml_plot_series_set_palette_index (maxw, 3);
  cml_plot_series_set_palette_index (start, 2);
  cml_plot_series_set_markers (conj, TRUE);
  cml_plot_series_set_markers (maxw, TRUE);
  cml_plot_series_set_markers (start, TRUE);
  guint n_conj = cx->len, n_max = mx->len;
  if (front_ref && rx->len)
    {
      /* under the numerics, in their colour: where the two agree the dashes show on both
       * sides of the line */
      cml_plot_series_set_palette_index (front_ref, 0);
      cml_plot_series_set_dashed (front_ref, TRUE);
      cml_plot_add_series (self->plot, front_ref);
    }
  cml_plot_add_series (self->plot, front);
  if (n_conj)
    cml_plot_add_series (self->plot, conj);
  if (n_max)
    cml_plot_add_series (self->plot, maxw);
  cml_plot_add_series (self->plot, start);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn, cml_model_unit (model, xn));
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn, yunit);
  g_autofree char *title = g_strdup_printf (ngettext ("The fan of %u extremal to t = %.3g%s%s",
                                                      "The fan of %u extremals to t = %.3g%s%s", N),
                                            N, T, *time_unit ? " " : "", time_unit);
  cml_plot_set_title (self->plot, title);
  cml_plot_reset_ranges (self->plot);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* The running fan's endpoints that have come (markers: the wavefront is not closed yet),
 * on the axes the drop-downs choose. */
static void
draw_ended (CmlGeometryView *self)
{
  Job *job = self->job;
  if (job == NULL || self->sys == NULL || job->ended == NULL)
    return;
  CmlModel *model = cml_system_get_model (self->sys);
  const char *xn = selected_name (self->x_drop, self->names), *yn = selected_name (self->y_drop, self->names);
  guint ix = list_position (self->names, xn), iy = list_position (self->names, yn);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION || ix >= job->n_coords
      || iy >= job->n_coords)
    return;
  guint N = job->opt.n_covectors, nc = job->n_coords;
  double T = job->opt.t_end;
  g_autoptr (GArray) fx = g_array_new (FALSE, FALSE, sizeof (double)), fy = g_array_new (FALSE, FALSE, sizeof (double));

  cml_plot_remove_all_series (self->plot);
  g_array_set_size (self->points, 0);
  self->partial = TRUE;
  g_mutex_lock (&job->lock);
  self->n_drawn = job->n_ended;
  for (guint i = 0; i < N; i++)
    {
      const double *q = job->ended + (gsize) i * nc;
      double xy[2] = { q[ix], q[iy] };
      g_array_append_vals (self->points, xy, 2);
      if (isfinite (xy[0]) && isfinite (xy[1]))
        g_array_append_val (fx, xy[0]), g_array_append_val (fy, xy[1]);
    }
  g_mutex_unlock (&job->lock);
  g_autofree char *time_unit = cml_plot_format_unit (model->time_unit);
  g_autofree char *name = g_strdup_printf (ngettext ("%u endpoint at t = %.3g%s%s so far",
                                                     "%u endpoints at t = %.3g%s%s so far", fx->len),
                                           fx->len, T, *time_unit ? " " : "", time_unit);
  g_autoptr (CmlPlotSeries) front = points_series (name, fx, fy);
  cml_plot_series_set_palette_index (front, 0);
  cml_plot_series_set_markers (front, TRUE);
  cml_plot_add_series (self->plot, front);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn, cml_model_unit (model, xn));
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn, cml_model_unit (model, yn));
  g_autofree char *title = g_strdup_printf (ngettext ("The fan of %u extremal to t = %.3g%s%s",
                                                      "The fan of %u extremals to t = %.3g%s%s", N),
                                            N, T, *time_unit ? " " : "", time_unit);
  cml_plot_set_title (self->plot, title);
  cml_plot_reset_ranges (self->plot);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
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
      g_clear_pointer (&self->shown, job_unref);
      self->shown = job_ref (job);
      draw_fan (self);
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
    draw_fan (self); /* the endpoints that had come go: the fan before is drawn again */
  g_clear_pointer (&self->job, job_unref);
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

  guint ix = list_position (self->names, x), iy = list_position (self->names, y);
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
  job->covectors = covectors;
  job->opt.covectors = covectors;
  job->n_coords = model->m + (cml_system_dim (self->sys) - model->m - model->n);
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
  g_task_set_task_data (task, job_ref (job), (GDestroyNotify) job_unref);
  g_task_run_in_thread (task, fan_thread);
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
  const double *xy = (const double *) (gpointer) self->points->data;
  guint best = G_MAXUINT;
  double best_d = INFINITY;
  for (guint k = 0; k < self->points->len / 2; k++)
    {
      double d = hypot ((xy[2 * k] - x) / sx, (xy[2 * k + 1] - y) / sy);
      if (isfinite (d) && d < best_d)
        best_d = d, best = k;
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
      g_clear_pointer (&self->job, job_unref);
    }
  g_clear_pointer (&self->shown, job_unref);
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
  draw_fan (self);
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
    draw_ended (self);
  else if (self->shown)
    draw_fan (self);
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
      g_clear_pointer (&self->job, job_unref);
    }
  g_clear_pointer (&self->shown, job_unref);
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
  self->closed[0] = self->closed[1] = self->closed[2] = NAN;

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
