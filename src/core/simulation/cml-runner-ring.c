/* cml-runner-ring.c — a runner's history ring: one row per sample, (generation, t,
 * observables…, scene values…), in slot i mod capacity for row number i (the global
 * write index when it was written), with the worker's restart data beside it (the state,
 * the integrator's step state, the parameters and the options of that moment); readers
 * copy rows under ring_lock (cml-runner.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-runner"

#include "cml-runner-private.h"

#include "cml-error.h"
#include "cml-resident.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

guint
cml_runner_n_cols_of (CmlSystem *sys)
{
  return cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
}

/* Makes the ring's memory resident (cml-resident.c): its bound is taken when a model
 * loads, not over the first minutes of a lecture as the ring fills (a soak then sees the
 * memory flat from the first minute).  The row values are shared with readers: their
 * pages are populated without a write, else written under the lock.  Worker (or new ()
 * before the worker starts). */
void
cml_runner_ring_make_resident (CmlRunner *r)
{
  gsize vals = (gsize) r->ring_cap * MAX (r->ring_cols, 1) * sizeof (double);

  if (!cml_populate (r->ring_vals, vals))
    {
      pthread_mutex_lock (&r->ring_lock);
      cml_make_resident (r->ring_vals, vals);
      pthread_mutex_unlock (&r->ring_lock);
    }
  cml_make_resident (r->ring_z, (gsize) r->ring_cap * r->dim * sizeof (double));
  cml_make_resident (r->ring_step, (gsize) r->ring_cap * r->step_len * sizeof (double));
  cml_make_resident (r->ring_params, (gsize) r->ring_cap * MAX (r->n_params, 1) * sizeof (double));
  cml_make_resident (r->ring_integ, (gsize) r->ring_cap * sizeof (CmlIntegratorOptions));
  r->resident_pending = FALSE;
}

/* Gives the ring a new row layout (a model switch): rows written so far become
 * unreadable.  Its memory is made resident by the worker: at once on the worker, by the
 * worker when it starts from new () (the caller, the window's thread, does not wait for
 * a record of hundreds of megabytes: the 50-link pendulum's is 300 MB).  Worker (or
 * new ()). */
void
cml_runner_ring_set_layout (CmlRunner *r, guint n_cols, gboolean on_worker)
{
  double *vals = g_new (double, (gsize) r->ring_cap * MAX (n_cols, 1));
  double *old_vals;

  if (on_worker)
    cml_make_resident (vals, (gsize) r->ring_cap * MAX (n_cols, 1) * sizeof (double));
  pthread_mutex_lock (&r->ring_lock);
  old_vals = r->ring_vals;
  r->ring_vals = vals;
  r->ring_cols = n_cols;
  r->ring_base = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  r->ring_generation = r->generation;
  pthread_mutex_unlock (&r->ring_lock);
  g_free (old_vals);

  g_free (r->row);
  r->row = g_new0 (double, MAX (n_cols, 1));

  /* the restart data of the current system */
  {
    CmlSystem *sys = cml_simulation_get_system (r->sim);
    CmlModel *model = cml_system_get_model (sys);
    const char *unit = NULL;

    r->dim = cml_system_dim (sys);
    r->step_len = cml_simulation_step_state_size (r->sim);
    r->n_params = model->params->len;
    g_free (r->ring_z);
    g_free (r->ring_step);
    g_free (r->ring_params);
    g_free (r->ring_integ);
    g_free (r->z_start);
    r->ring_z = g_new0 (double, (gsize) r->ring_cap * r->dim);
    r->ring_step = g_new0 (double, (gsize) r->ring_cap * r->step_len);
    r->ring_params = g_new0 (double, (gsize) r->ring_cap * MAX (r->n_params, 1));
    r->ring_integ = g_new0 (CmlIntegratorOptions, r->ring_cap);
    r->z_start = g_new0 (double, r->dim);
    if (on_worker)
      {
        cml_make_resident (r->ring_z, (gsize) r->ring_cap * r->dim * sizeof (double));
        cml_make_resident (r->ring_step, (gsize) r->ring_cap * r->step_len * sizeof (double));
        cml_make_resident (r->ring_params, (gsize) r->ring_cap * MAX (r->n_params, 1) * sizeof (double));
        cml_make_resident (r->ring_integ, (gsize) r->ring_cap * sizeof (CmlIntegratorOptions));
      }
    r->resident_pending = !on_worker;
    r->gen_first = r->ring_base;

    /* the distance is the body's: over the base coordinates of its position (x, y), in
     * their unit; none when the model has no such position (angles, pure numbers) */
    g_free (r->dist_idx);
    r->dist_idx = g_new0 (guint, MAX (model->m, 1));
    r->n_dist = cml_model_position_coords (model, r->dist_idx, &unit);
    r->dist_unit = unit;
  }
}

/* Readers from now on see only rows of the worker's current generation.  Worker. */
void
cml_runner_ring_set_generation (CmlRunner *r)
{
  pthread_mutex_lock (&r->ring_lock);
  r->ring_generation = r->generation;
  pthread_mutex_unlock (&r->ring_lock);
}

/* Makes each row's room for the integrator's step state at least what the present
 * integrator saves (its size is the integrator's: 1 + dim for most, 4 + dim for the Taylor
 * method, 10 dim and more for dop853's dense output, so another integrator chosen after
 * the layout may need more).  The room only grows, each row's state copied across, so the
 * rows saved by an earlier integrator still restore.  Worker. */
void
cml_runner_ring_fit_step_state (CmlRunner *r)
{
  guint len = cml_simulation_step_state_size (r->sim);
  double *step;

  if (len <= r->step_len)
    return;
  step = g_new0 (double, (gsize) r->ring_cap * len);
  for (guint k = 0; k < r->ring_cap; k++)
    memcpy (step + (gsize) k * len, r->ring_step + (gsize) k * r->step_len, r->step_len * sizeof (double));
  g_free (r->ring_step);
  r->ring_step = step;
  r->step_len = len;
  if (!r->resident_pending)
    cml_make_resident (r->ring_step, (gsize) r->ring_cap * r->step_len * sizeof (double));
}

/* Appends the current state as one row.  No allocation (but for an integrator whose step
 * state outgrows the rows' room: ring_fit_step_state).  Worker. */
void
cml_runner_record_sample (CmlRunner *r)
{
  guint n_obs = cml_system_n_observables (cml_simulation_get_system (r->sim));
  double t = cml_simulation_get_time (r->sim);
  guint64 wi;
  guint slot;

  cml_simulation_observe (r->sim, r->row);
  cml_simulation_eval_scene (r->sim, r->row + n_obs);

  /* what a restart from this row needs (the worker's alone: no lock) */
  wi = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  slot = (guint) (wi % r->ring_cap);
  memcpy (r->ring_z + (gsize) slot * r->dim, cml_simulation_get_state (r->sim), r->dim * sizeof (double));
  cml_runner_ring_fit_step_state (r);
  cml_simulation_save_step_state (r->sim, r->ring_step + (gsize) slot * r->step_len);
  {
    CmlModel *model = cml_system_get_model (cml_simulation_get_system (r->sim));

    for (guint i = 0; i < r->n_params; i++)
      r->ring_params[(gsize) slot * r->n_params + i]
        = cml_simulation_get_param (r->sim, ((CmlParam *) model->params->pdata[i])->name);
  }
  r->ring_integ[slot] = *cml_simulation_get_integrator (r->sim);

  pthread_mutex_lock (&r->ring_lock);
  r->ring_t[slot] = t;
  r->ring_gen[slot] = r->generation;
  memcpy (r->ring_vals + (gsize) slot * r->ring_cols, r->row, r->ring_cols * sizeof (double));
  atomic_store_explicit (&r->write_index, wi + 1, memory_order_release);
  pthread_mutex_unlock (&r->ring_lock);
}

/* Any thread (one reader at a time per cursor). */
guint
cml_runner_read_history (CmlRunner *runner, guint64 *cursor, guint n_cols,
                         double *t, double *obs, guint max_samples, guint64 *dropped)
{
  guint64 wi, pos, oldest, lost = 0;
  guint copied = 0;

  g_return_val_if_fail (runner != NULL, 0);
  g_return_val_if_fail (cursor != NULL, 0);
  g_return_val_if_fail (max_samples == 0 || (t != NULL && (obs != NULL || n_cols == 0)), 0);

  if (dropped)
    *dropped = 0;
  /* nothing new: no lock needed */
  if (max_samples == 0
      || atomic_load_explicit (&runner->write_index, memory_order_acquire) <= *cursor)
    return 0;

  pthread_mutex_lock (&runner->ring_lock);
  if (n_cols != runner->ring_cols)
    {
      pthread_mutex_unlock (&runner->ring_lock);
      return 0;
    }
  wi = atomic_load_explicit (&runner->write_index, memory_order_relaxed);
  pos = MAX (*cursor, runner->ring_base);
  /* rows the writer went past a whole ring ago are gone */
  oldest = wi > runner->ring_cap ? wi - runner->ring_cap : 0;
  if (pos < oldest)
    {
      lost = oldest - pos;
      pos = oldest;
    }
  /* copy the current generation's rows in order, skip older ones */
  for (; pos < wi && copied < max_samples; pos++)
    {
      guint slot = (guint) (pos % runner->ring_cap);

      if (runner->ring_gen[slot] != runner->ring_generation)
        continue;
      t[copied] = runner->ring_t[slot];
      memcpy (obs + (gsize) copied * n_cols, runner->ring_vals + (gsize) slot * n_cols,
              n_cols * sizeof (double));
      copied++;
    }
  pthread_mutex_unlock (&runner->ring_lock);

  *cursor = pos;
  if (dropped)
    *dropped = lost;
  return copied;
}
