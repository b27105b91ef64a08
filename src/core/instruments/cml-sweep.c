/* cml-sweep.c — a parameter sweep: the grid of parameter values and its runs, one fresh
 * simulation per point, on worker threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The grid is the Cartesian product of the varied ranges (N points from A to B
 * inclusive; N = 1 is A alone), in grid order — the first varies slowest, the last
 * fastest, so grid index g = ((i_P · M) + i_Q) · … .  Every point is one fresh simulation
 * of the same (immutable, shared) system: the base parameters, the point's parameters,
 * a reset from the initial data and a run to each of the measuring times, where the
 * measured observables are read.  The threads take the points in turn; each owns its
 * simulation, so the numbers do not depend on the number of threads.  The rows are
 * handed out in grid order as soon as the next one is done, and forgotten: a thread runs
 * at most a window of rows ahead of the last one handed out, so the memory a sweep
 * takes is the window's, whatever the size of the grid.  A point whose run fails
 * gets nan from the failure on, and its reason.
 */
#define G_LOG_DOMAIN "cml-sweep"

#include "cml-sweep.h"

#include <math.h>

/* The sweep, shared by the threads.  Read-only while they run but for what the lock
 * guards: the next point to take, the rows handed out, and the window's slots.
 *
 * The window: point k is run into slot k mod WINDOW, and a thread takes point k only
 * once k < handed + WINDOW (HANDED: the rows the writer has handed out), so a slot is
 * never taken before its previous point's row is out.  What the sweep holds is WINDOW
 * rows, whatever the size of the grid. */
typedef struct
{
  const CmlSweepSpec *spec;
  guint               n_params;
  guint64             n_points;  /* in this shard */
  guint               n_obs;
  guint               n_cols;    /* n_measures × n_at */
  guint               window;
  double             *values;    /* window × n_cols */
  gboolean           *done;      /* window: the slot's point is done */
  char              **why;       /* window: a failed point's reason, or NULL */
  guint64             next;      /* the next point to take */
  guint64             handed;    /* rows handed out */
  const gint         *cancel;
  GMutex              lock;
  GCond               cond;
} Sweep;

double
cml_sweep_vary_value (const CmlSweepVary *v, guint i)
{
  if (v->n == 1 || i == 0)
    return v->a;
  if (i == v->n - 1)
    return v->b;
  return v->a + (v->b - v->a) * ((double) i / (double) (v->n - 1));
}

guint64
cml_sweep_n_points (const CmlSweepSpec *spec)
{
  guint64 n_grid = 1, shard_n = MAX (spec->shard_n, 1);

  for (guint v = 0; v < spec->n_vary; v++)
    n_grid *= spec->vary[v].n;
  return n_grid > spec->shard_i ? (n_grid - spec->shard_i - 1) / shard_n + 1 : 0;
}

guint64
cml_sweep_grid_index (const CmlSweepSpec *spec, guint64 k, guint *idx)
{
  guint64 g = spec->shard_i + k * MAX (spec->shard_n, 1), rest = g;

  for (guint v = spec->n_vary; v-- > 0;)
    {
      idx[v] = (guint) (rest % spec->vary[v].n);
      rest /= spec->vary[v].n;
    }
  return g;
}

/* One point, in a thread of its own: its values, or a reason in *WHY. */
static void
run_point (Sweep *sw, guint64 k, double *values, char **why)
{
  const CmlSweepSpec *spec = sw->spec;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint *idx = g_new (guint, MAX (spec->n_vary, 1));
  g_autofree double *obs = g_new (double, sw->n_obs);
  CmlModel *model = cml_system_get_model (spec->sys);
  guint a = 0;

  for (guint i = 0; i < spec->n_measures * spec->n_at; i++)
    values[i] = NAN;
  cml_sweep_grid_index (spec, k, idx);
  sim = cml_simulation_new (spec->sys, &error);
  if (sim == NULL)
    goto failed;
  for (guint p = 0; p < sw->n_params; p++)
    if (!cml_simulation_set_param (sim, ((CmlParam *) model->params->pdata[p])->name, spec->base[p], &error))
      goto failed;
  for (guint v = 0; v < spec->n_vary; v++)
    if (!cml_simulation_set_param (sim, spec->vary[v].name, cml_sweep_vary_value (&spec->vary[v], idx[v]), &error))
      goto failed;
  /* values no body has together (the model's requirements) are a gap, not a run */
  {
    g_autofree double *params = g_new (double, MAX (sw->n_params, 1));
    for (guint p = 0; p < sw->n_params; p++)
      params[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);
    if (!cml_model_check_params (model, params, &error))
      goto failed;
  }
  if (!cml_simulation_set_integrator (sim, spec->iopt, &error) || !cml_simulation_reset (sim, spec->given, &error))
    goto failed;
  for (a = 0; a < spec->n_at; a++)
    {
      if (!cml_simulation_advance (sim, spec->at[a], &error))
        goto failed;
      cml_simulation_observe (sim, obs);
      for (guint m = 0; m < spec->n_measures; m++)
        values[m * spec->n_at + a] = obs[spec->measure[m]];
    }
  return;

failed:
  *why = g_strdup (error ? error->message : "the run failed");
}

static gboolean
cancelled (const Sweep *sw)
{
  return sw->cancel && g_atomic_int_get (sw->cancel) != 0;
}

static gpointer
sweep_thread (gpointer data)
{
  Sweep *sw = data;

  g_mutex_lock (&sw->lock);
  for (;;)
    {
      guint64 k;
      guint slot;
      char *why = NULL;

      /* the next point, once its slot is free */
      while (!cancelled (sw) && sw->next < sw->n_points && sw->next >= sw->handed + sw->window)
        g_cond_wait (&sw->cond, &sw->lock);
      if (cancelled (sw) || sw->next >= sw->n_points)
        break;
      k = sw->next++;
      slot = (guint) (k % sw->window);
      g_mutex_unlock (&sw->lock);

      run_point (sw, k, sw->values + (gsize) slot * sw->n_cols, &why);

      g_mutex_lock (&sw->lock);
      sw->why[slot] = why;
      sw->done[slot] = TRUE;
      g_cond_broadcast (&sw->cond);
    }
  /* the row awaited may never come: wake the writer to see the flag */
  g_cond_broadcast (&sw->cond);
  g_mutex_unlock (&sw->lock);
  return NULL;
}

/* The rows in grid order on the calling thread, each as soon as it and those before it
 * are done; K: the rows handed out. */
static guint64
hand_out_rows (Sweep *sw, CmlSweepRowFunc row, CmlSweepProgressFunc progress, gpointer user_data,
               guint *idx)
{
  const CmlSweepSpec *spec = sw->spec;
  guint64 k;

  for (k = 0; k < sw->n_points && !cancelled (sw); k++)
    {
      guint slot = (guint) (k % sw->window);
      char *why;

      g_mutex_lock (&sw->lock);
      while (!sw->done[slot] && !cancelled (sw))
        {
          gint64 until = g_get_monotonic_time () + G_USEC_PER_SEC / 4;
          g_cond_wait_until (&sw->cond, &sw->lock, until);
          g_mutex_unlock (&sw->lock);
          if (progress)
            progress (k, sw->n_points, user_data);
          g_mutex_lock (&sw->lock);
        }
      if (!sw->done[slot])
        {
          g_mutex_unlock (&sw->lock);
          break;
        }
      why = g_steal_pointer (&sw->why[slot]);
      g_mutex_unlock (&sw->lock);

      row (k, cml_sweep_grid_index (spec, k, idx), idx, sw->values + (gsize) slot * sw->n_cols, why, user_data);
      g_free (why);

      /* the slot is free for point k + window */
      g_mutex_lock (&sw->lock);
      sw->done[slot] = FALSE;
      sw->handed = k + 1;
      g_cond_broadcast (&sw->cond);
      g_mutex_unlock (&sw->lock);
      if (progress)
        progress (k + 1, sw->n_points, user_data);
    }
  return k;
}

/* No thread could be made: every point on the calling thread, one after the other. */
static guint64
run_inline (Sweep *sw, CmlSweepRowFunc row, CmlSweepProgressFunc progress, gpointer user_data,
            guint *idx)
{
  guint64 k;

  for (k = 0; k < sw->n_points && !cancelled (sw); k++)
    {
      char *why = NULL;

      run_point (sw, k, sw->values, &why);
      row (k, cml_sweep_grid_index (sw->spec, k, idx), idx, sw->values, why, user_data);
      g_free (why);
      if (progress)
        progress (k + 1, sw->n_points, user_data);
    }
  return k;
}

guint
cml_sweep_window (guint jobs, guint n_cols)
{
  gsize row_bytes = (gsize) MAX (n_cols, 1) * sizeof (double);
  guint window = MAX (jobs, 1) * CML_SWEEP_WINDOW_PER_JOB;

  /* fewer rows waiting when they are wide, never fewer than the threads */
  if ((gsize) window * row_bytes > CML_SWEEP_WINDOW_BYTES)
    window = (guint) MAX (CML_SWEEP_WINDOW_BYTES / row_bytes, 1);
  return MAX (window, MAX (jobs, 1));
}

gboolean
cml_sweep_run (const CmlSweepSpec *spec, CmlSweepRowFunc row, CmlSweepProgressFunc progress,
               gpointer user_data, const gint *cancel)
{
  CmlModel *model = cml_system_get_model (spec->sys);
  Sweep sw = {
    .spec = spec, .n_params = model->params->len,
    .n_points = cml_sweep_n_points (spec),
    .n_obs = cml_system_n_observables (spec->sys),
    .n_cols = spec->n_measures * spec->n_at,
    .cancel = cancel,
  };
  guint jobs = spec->jobs ? spec->jobs : g_get_num_processors ();
  jobs = (guint) MIN ((guint64) MIN (jobs, CML_SWEEP_MAX_JOBS), MAX (sw.n_points, 1));
  g_autofree GThread **threads = g_new0 (GThread *, jobs);
  g_autofree guint *idx = g_new (guint, MAX (spec->n_vary, 1));
  guint n_threads = 0;
  guint64 k;

  /* what the simulations derive on first use, now, before the threads share the system */
  cml_system_prepare (spec->sys, spec->iopt->kind);
  sw.window = (guint) MIN ((guint64) cml_sweep_window (jobs, sw.n_cols), MAX (sw.n_points, 1));
  sw.values = g_new (double, (gsize) sw.window * MAX (sw.n_cols, 1));
  sw.done = g_new0 (gboolean, sw.window);
  sw.why = g_new0 (char *, sw.window);
  g_mutex_init (&sw.lock);
  g_cond_init (&sw.cond);
  /* as many threads as the system gives, up to JOBS */
  for (guint j = 0; j < jobs; j++)
    {
      g_autoptr (GError) error = NULL;

      threads[n_threads] = g_thread_try_new ("sweep", sweep_thread, &sw, &error);
      if (threads[n_threads] == NULL)
        {
          g_debug ("thread %u of %u: %s", j + 1, jobs, error->message);
          break;
        }
      n_threads++;
    }
  if (spec->jobs_run)
    *spec->jobs_run = MAX (n_threads, 1);

  k = n_threads ? hand_out_rows (&sw, row, progress, user_data, idx) : run_inline (&sw, row, progress, user_data, idx);

  /* the threads stop at the next point they would take */
  g_mutex_lock (&sw.lock);
  sw.next = sw.n_points;
  g_cond_broadcast (&sw.cond);
  g_mutex_unlock (&sw.lock);
  for (guint j = 0; j < n_threads; j++)
    g_thread_join (threads[j]);
  for (guint i = 0; i < sw.window; i++)
    g_free (sw.why[i]);
  g_free (sw.why);
  g_free (sw.done);
  g_free (sw.values);
  g_mutex_clear (&sw.lock);
  g_cond_clear (&sw.cond);
  return k == sw.n_points;
}
