/* cml-runner-frame.c — the frames a runner publishes: what the UI thread reads of the
 * worker's state (the time, the state's values, the observables, the scene, the run's
 * state and its message, the span of the record), built by the worker and swapped under
 * frame_lock; any thread refs the newest one (cml-runner.c).
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

/* The ref count is the header's plain gint, changed only through GCC's __atomic builtins
 * (the operations C11 <stdatomic.h> is made of, understood by ThreadSanitizer).  Any
 * thread. */
CmlFrame *
cml_frame_ref (CmlFrame *frame)
{
  g_return_val_if_fail (frame != NULL, NULL);

  __atomic_fetch_add (&frame->ref_count, 1, __ATOMIC_RELAXED);
  return frame;
}

/* Any thread. */
void
cml_frame_unref (CmlFrame *frame)
{
  if (frame == NULL)
    return;
  if (__atomic_fetch_sub (&frame->ref_count, 1, __ATOMIC_ACQ_REL) != 1)
    return;
  g_free (frame->message);
  g_free (frame->state_values);
  g_free (frame->obs);
  g_free (frame->scene);
  g_free (frame->params);
  cml_system_unref (frame->system);
  g_free (frame);
}

/* The live rows of this generation: [*FIRST, *END).  Worker (or new ()). */
void
cml_runner_live_rows (CmlRunner *r, guint64 *first, guint64 *end)
{
  guint64 wi = atomic_load_explicit (&r->write_index, memory_order_relaxed);

  *end = wi;
  *first = MAX (MAX (r->gen_first, r->ring_base), wi > r->ring_cap ? wi - r->ring_cap : 0);
  if (*first > wi)
    *first = wi;
}

/* The recorded span of this generation (NAN, NAN when nothing is recorded).  The worker
 * reads rows only it writes, so without the lock.  Worker. */
void
cml_runner_record_span (CmlRunner *r, double *t0, double *t1)
{
  guint64 first, end;

  cml_runner_live_rows (r, &first, &end);
  if (first >= end)
    {
      *t0 = *t1 = NAN;
      return;
    }
  *t0 = r->ring_t[first % r->ring_cap];
  *t1 = r->ring_t[(end - 1) % r->ring_cap];
}

/* ‖x − x(0)‖ over the base coordinates of the body's position; NaN without one.  Worker. */
static double
distance_from_start (CmlRunner *r)
{
  const double *z = cml_simulation_get_state (r->sim);
  double s = 0.0;

  if (r->n_dist == 0)
    return NAN;
  for (guint k = 0; k < r->n_dist; k++)
    {
      guint i = r->dist_idx[k];

      s += (z[i] - r->z_start[i]) * (z[i] - r->z_start[i]);
    }
  return sqrt (s);
}

/* This generation starts from the current state (the distance's origin).  Worker. */
void
cml_runner_set_start (CmlRunner *r)
{
  memcpy (r->z_start, cml_simulation_get_state (r->sim), r->dim * sizeof (double));
}

/* Builds a frame of the worker's current state.  Worker (or new () before it starts). */
static CmlFrame *
frame_new (CmlRunner *r)
{
  CmlSystem *sys = cml_simulation_get_system (r->sim);
  CmlModel *model = cml_system_get_model (sys);
  CmlFrame *f = g_new0 (CmlFrame, 1);

  f->ref_count = 1;
  f->seq = ++r->seq;
  f->generation = r->generation;
  f->system = cml_system_ref (sys);
  f->state = r->state;
  f->t = cml_simulation_get_time (r->sim);
  f->speed = r->speed;
  f->lagging = r->lagging;
  f->message = g_strdup (r->message);
  f->dim = cml_system_dim (sys);
  f->state_values = g_memdup2 (cml_simulation_get_state (r->sim), f->dim * sizeof (double));
  f->n_obs = cml_system_n_observables (sys);
  f->obs = g_new0 (double, MAX (f->n_obs, 1));
  cml_simulation_observe (r->sim, f->obs);
  f->n_scene = cml_system_n_scene_values (sys);
  f->scene = g_new0 (double, MAX (f->n_scene, 1));
  cml_simulation_eval_scene (r->sim, f->scene);
  f->n_params = model->params->len;
  f->params = g_new0 (double, MAX (f->n_params, 1));
  for (guint i = 0; i < f->n_params; i++)
    f->params[i] = cml_simulation_get_param (r->sim, ((CmlParam *) model->params->pdata[i])->name);
  f->wall_ms_per_slice = r->wall_ms_per_slice;
  f->direction = r->direction;
  f->in_record = r->in_record;
  cml_runner_record_span (r, &f->recorded_t0, &f->recorded_t1);
  f->distance = distance_from_start (r);
  f->distance_unit = r->dist_unit;
  return f;
}

/* Swaps in a new frame; the old one lives on while readers hold it.  Worker. */
void
cml_runner_publish (CmlRunner *r)
{
  CmlFrame *f = frame_new (r), *old;

  pthread_mutex_lock (&r->frame_lock);
  old = r->frame;
  r->frame = f;
  pthread_mutex_unlock (&r->frame_lock);
  cml_frame_unref (old);
}

/* Any thread. */
CmlFrame *
cml_runner_get_frame (CmlRunner *runner)
{
  CmlFrame *f;

  g_return_val_if_fail (runner != NULL, NULL);

  pthread_mutex_lock (&runner->frame_lock);
  f = cml_frame_ref (runner->frame);
  pthread_mutex_unlock (&runner->frame_lock);
  return f;
}
