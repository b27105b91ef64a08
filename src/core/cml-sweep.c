/* cml-sweep.c — a parameter sweep: the grid of parameter values and its runs, one fresh
 * simulation per point, on worker threads.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The grid is the Cartesian product of the varied ranges (N points from A to B
 * inclusive; N = 1 is A alone), in grid order — the first varies slowest, the last
 * fastest.  Every point is one fresh simulation of the same (immutable, shared) system:
 * the base parameters, the point's parameters, a reset from the initial data and a run
 * to each of the measuring times, where the measured observables are read.  The threads
 * take the points in turn; each owns its simulation.
 */
#define G_LOG_DOMAIN "cml-sweep"

#include "cml-sweep.h"

#include <math.h>

/* The I-th of V's N values: A, …, B, evenly spaced; A alone when N = 1. */
double
vary_value (const Vary *v, guint i)
{
  if (v->n == 1 || i == 0)
    return v->a;
  if (i == v->n - 1)
    return v->b;
  return v->a + (v->b - v->a) * ((double) i / (double) (v->n - 1));
}

/* The grid index of the K-th point of the shard, and its indices along each --vary. */
guint64
grid_index (const Sweep *sw, guint64 k, guint *idx)
{
  guint64 g = sw->shard_i + k * sw->shard_n, rest = g;

  for (guint v = sw->n_vary; v-- > 0;)
    {
      idx[v] = (guint) (rest % sw->vary[v].n);
      rest /= sw->vary[v].n;
    }
  return g;
}

/* One point, in a thread of its own: its values, or a reason in *WHY. */
void
run_point (Sweep *sw, guint64 k, double *values, char **why)
{
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint *idx = g_new (guint, sw->n_vary);
  g_autofree double *obs = g_new (double, sw->n_obs);
  CmlModel *model = cml_system_get_model (sw->sys);
  guint a = 0;

  for (guint i = 0; i < sw->n_measures * sw->n_at; i++)
    values[i] = NAN;
  grid_index (sw, k, idx);
  sim = cml_simulation_new (sw->sys, &error);
  if (sim == NULL)
    goto failed;
  for (guint p = 0; p < sw->n_params; p++)
    if (!cml_simulation_set_param (sim, ((CmlParam *) model->params->pdata[p])->name, sw->base[p], &error))
      goto failed;
  for (guint v = 0; v < sw->n_vary; v++)
    if (!cml_simulation_set_param (sim, sw->vary[v].name, vary_value (&sw->vary[v], idx[v]), &error))
      goto failed;
  if (!cml_simulation_set_integrator (sim, sw->iopt, &error) || !cml_simulation_reset (sim, sw->given, &error))
    goto failed;
  for (a = 0; a < sw->n_at; a++)
    {
      if (!cml_simulation_advance (sim, sw->at[a], &error))
        goto failed;
      cml_simulation_observe (sim, obs);
      for (guint m = 0; m < sw->n_measures; m++)
        values[m * sw->n_at + a] = obs[sw->measure[m]];
    }
  return;

failed:
  *why = g_strdup (error ? error->message : "the run failed");
}

gpointer
sweep_thread (gpointer data)
{
  Sweep *sw = data;
  const guint n_cols = sw->n_measures * sw->n_at;

  for (;;)
    {
      gint k = g_atomic_int_add (&sw->next, 1);
      char *why = NULL;

      if (k < 0 || (guint64) k >= sw->n_points)
        break;
      run_point (sw, (guint64) k, sw->values + (gsize) k * n_cols, &why);
      g_mutex_lock (&sw->lock);
      sw->why[k] = why;
      sw->done[k] = TRUE;
      g_cond_broadcast (&sw->cond);
      g_mutex_unlock (&sw->lock);
    }
  return NULL;
}
