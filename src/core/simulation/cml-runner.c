/* cml-runner.c — the worker thread that owns a simulation: it owns the numerics, the UI thread owns GTK and GL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three locks, each held only for a few copies, never while integrating:
 *
 *   cmd_lock    the command queue, the quit flag and the sync tickets; the worker waits
 *               on cmd_cond (CLOCK_MONOTONIC, so a timed wait is not fooled by clock
 *               changes) and every command signals it;
 *   frame_lock  the pointer to the newest frame: the worker swaps it, readers ref it;
 *   ring_lock   the history ring: the worker appends one row per sample, readers copy.
 *
 * Everything else (the simulation, the run state, the pacing clock, the sample index) is
 * the worker's alone, touched by cml_runner_new () before the thread starts and by
 * cml_runner_free () after it is joined.
 *
 * Samples are taken at t_k = k × sample_dt exactly (the simulation is advanced to each
 * t_k in turn, which cml_simulation_advance () hits exactly).  Row number i (the global
 * write index when it was written; slot i mod capacity) holds (generation, t,
 * observables…, scene values…).
 *
 * Beside each row, in arrays only the worker touches (readers never see them, so no lock):
 * the state, the integrator's step state, the parameters and the integrator options of
 * that moment — what cml_simulation_restore () needs to go on bit for bit (the timeline).
 * The current generation's rows are indices [gen_first, write_index) (less what the ring
 * has overwritten); their times increase.  Seeking restores one of them; going forward
 * from a moment before the last row ("in the record") first truncates: a new generation
 * whose rows are copies of the old rows before that moment, then the current state.
 *
 * Reversed time: samples are taken at t_k = k × sample_dt going down (k decreasing), not
 * recorded, and the run pauses at t = 0.
 *
 * Pacing (rule 6): while running, a slice integrates toward
 *   target = t_at_play + speed × (wall − wall_at_play)
 * sample by sample and stops after 0.7 × frame_period of wall time; it then publishes a
 * frame and waits for the next frame time.  A slice that stopped short of its target
 * sets `lagging` and rebases (t_at_play, wall_at_play) to now, so the run goes on at the
 * speed the machine allows instead of trying to catch up forever.
 *
 * GSL's default error handler aborts: the program turns it off (gsl_set_error_handler_off)
 * at start-up, before any runner exists (a global, so not set here where it would race).
 */
#define G_LOG_DOMAIN "cml-runner"

#include "cml-runner.h"
#include "cml-native-step.h"

#include "cml-error.h"
#include "cml-resident.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

/* ---- commands ------------------------------------------------------------------------- */

typedef enum
{
  CMD_PLAY,
  CMD_PAUSE,
  CMD_STEP,
  CMD_RESET,
  CMD_SPEED,
  CMD_PARAM,
  CMD_INTEGRATOR,
  CMD_SYSTEM,
  CMD_SYNC,
  CMD_SEEK,
  CMD_STEP_BACK,
  CMD_DIRECTION,
} CmdKind;

typedef struct
{
  CmdKind              kind;
  double               value;   /* step: dt; speed; param: value; seek: t; direction: ±1 */
  char                *name;    /* param: its name (owned) */
  GHashTable          *given;   /* reset: name -> double* (owned copy), or NULL */
  CmlIntegratorOptions integ;   /* set_integrator */
  CmlSystem           *sys;     /* set_system (a reference) */
  guint64              ticket;  /* sync */
} Command;

static void
command_free (Command *cmd)
{
  g_free (cmd->name);
  g_clear_pointer (&cmd->given, g_hash_table_unref);
  g_clear_pointer (&cmd->sys, cml_system_unref);
  g_free (cmd);
}

/* ---- the runner ----------------------------------------------------------------------- */

struct _CmlRunner
{
  CmlRunnerOptions opts;      /* with the defaults filled in */
  pthread_t        thread;
  gboolean         started;   /* the thread exists (join it) */

  /* command queue: under cmd_lock */
  pthread_mutex_t  cmd_lock;
  pthread_cond_t   cmd_cond;  /* wakes the worker (CLOCK_MONOTONIC) */
  pthread_cond_t   sync_cond; /* wakes cml_runner_sync () callers */
  GQueue           commands;  /* Command* */
  gboolean         quit;
  guint64          sync_requested;
  guint64          sync_done;
  atomic_bool      stop;      /* quit, readable without the lock (long steps) */
  _Atomic guint64  n_commands;

  /* the newest frame: under frame_lock */
  pthread_mutex_t  frame_lock;
  CmlFrame        *frame;

  /* history ring: under ring_lock; write_index is also read lock-free (no new rows?) */
  pthread_mutex_t  ring_lock;
  guint            ring_cap;
  guint            ring_cols;       /* values per row */
  guint            ring_generation; /* rows of other generations are skipped */
  guint64          ring_base;       /* rows below this index belong to an older layout */
  _Atomic guint64  write_index;     /* rows ever written */
  double          *ring_t;          /* ring_cap */
  guint           *ring_gen;        /* ring_cap */
  double          *ring_vals;       /* ring_cap × ring_cols */

  /* the caller's side (cml_runner_new, _set_system, _set_integrator): the system it last
   * gave and every integrator kind it chose (a bit each: a seek can bring back an older
   * one, which a model switch then keeps), prepared there before the worker gets them, so
   * that the worker adds nothing to the model's expressions (cml_system_prepare) */
  CmlSystem       *caller_sys;
  guint64          caller_kinds;      /* bit k: CmlIntegratorKind k (G_STATIC_ASSERT below) */

  /* the worker's own */
  CmlSimulation   *sim;
  CmlRunnerState   state;
  double           speed;
  gboolean         lagging;
  char            *message;
  guint            generation;
  guint64          seq;
  gint64           next_k;          /* index of the next sample time next_k × sample_dt */
  double           t_at_play;       /* pacing origin: simulated time … */
  double           wall_at_play;    /* … and wall time (monotonic seconds) */
  double           next_frame_due;  /* wall time of the next slice */
  double           wall_ms_per_slice;
  double          *row;             /* scratch: one ring row */
  gboolean         resident_pending;/* the ring's memory is yet to be made resident */

  /* the timeline: restart data slot by slot with the ring (the worker's alone) */
  guint            dim, step_len, n_params;
  double          *ring_z;          /* ring_cap × dim */
  double          *ring_step;       /* ring_cap × step_len */
  double          *ring_params;     /* ring_cap × n_params */
  CmlIntegratorOptions *ring_integ; /* ring_cap */
  guint64          gen_first;       /* index of this generation's first row */
  gboolean         in_record;       /* the state is a recorded moment before the last row, or
                                     * was reached backwards: going forward truncates */
  gboolean         on_row;          /* … and it is the row a seek restored, unchanged since */
  int              direction;       /* +1 forward, -1 backwards */
  double          *z_start;         /* dim: the state this generation started from */
  guint           *dist_idx;        /* the base coordinates of the body's position … */
  guint            n_dist;          /* … so many (cml_model_position_coords) */
  const char      *dist_unit;       /* their unit, or NULL when there is no position */
};

G_STATIC_ASSERT (CML_INTEGRATOR_N_KINDS <= 64);

static double
wall_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static struct timespec
timespec_from_seconds (double s)
{
  struct timespec ts;
  double whole = floor (s);

  ts.tv_sec = (time_t) whole;
  ts.tv_nsec = (long) ((s - whole) * 1e9);
  if (ts.tv_nsec >= 1000000000L)
    {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
  return ts;
}

/* ---- frames --------------------------------------------------------------------------- */

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
static void
live_rows (CmlRunner *r, guint64 *first, guint64 *end)
{
  guint64 wi = atomic_load_explicit (&r->write_index, memory_order_relaxed);

  *end = wi;
  *first = MAX (MAX (r->gen_first, r->ring_base), wi > r->ring_cap ? wi - r->ring_cap : 0);
  if (*first > wi)
    *first = wi;
}

/* The recorded span of this generation (NAN, NAN when nothing is recorded).  The worker
 * reads rows only it writes, so without the lock.  Worker. */
static void
record_span (CmlRunner *r, double *t0, double *t1)
{
  guint64 first, end;

  live_rows (r, &first, &end);
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
static void
set_start (CmlRunner *r)
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
  record_span (r, &f->recorded_t0, &f->recorded_t1);
  f->distance = distance_from_start (r);
  f->distance_unit = r->dist_unit;
  return f;
}

/* Swaps in a new frame; the old one lives on while readers hold it.  Worker. */
static void
publish (CmlRunner *r)
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

/* ---- history ring --------------------------------------------------------------------- */

static guint
n_cols_of (CmlSystem *sys)
{
  return cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
}

/* Makes the ring's memory resident (cml-resident.c): its bound is taken when a model
 * loads, not over the first minutes of a lecture as the ring fills (a soak then sees the
 * memory flat from the first minute).  The row values are shared with readers: their
 * pages are populated without a write, else written under the lock.  Worker (or new ()
 * before the worker starts). */
static void
ring_make_resident (CmlRunner *r)
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
static void
ring_set_layout (CmlRunner *r, guint n_cols, gboolean on_worker)
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
static void
ring_set_generation (CmlRunner *r)
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
static void
ring_fit_step_state (CmlRunner *r)
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
static void
record_sample (CmlRunner *r)
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
  ring_fit_step_state (r);
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

/* ---- integration ---------------------------------------------------------------------- */

static void
set_message (CmlRunner *r, const char *message)
{
  g_free (r->message);
  r->message = g_strdup (message);
}

static void
fail (CmlRunner *r, const GError *error)
{
  r->state = CML_RUNNER_FAILED;
  r->lagging = FALSE;
  set_message (r, error->message);
}

/* Pacing restarts from the current simulated time and now.  Worker. */
static void
rebase (CmlRunner *r, double wall)
{
  r->t_at_play = cml_simulation_get_time (r->sim);
  r->wall_at_play = wall;
}

/* The next sample index after the current time in the direction of time (after a step
 * to an off-grid time, a seek, a change of direction).  Worker. */
static void
sync_sample_index (CmlRunner *r)
{
  double t = cml_simulation_get_time (r->sim), dt = r->opts.sample_dt;
  gint64 k = (gint64) floor (t / dt);

  if (r->direction > 0)
    {
      k = MAX (k, 0);
      while ((double) k * dt <= t)
        k++;
    }
  else
    {
      k++;
      while (k >= 0 && (double) k * dt >= t)
        k--;
    }
  r->next_k = k;
}

/* Advances to the next sample time and, going forward, records it.  Worker. */
static gboolean
advance_one_sample (CmlRunner *r, GError **error)
{
  if (!cml_simulation_advance (r->sim, (double) r->next_k * r->opts.sample_dt, error))
    return FALSE;
  if (r->direction > 0)
    {
      r->next_k++;
      record_sample (r);
    }
  else
    r->next_k--;
  return TRUE;
}

/* A new generation starting at the current state (t = 0): rows begin again.  Worker. */
static void
start_generation (CmlRunner *r)
{
  r->generation++;
  ring_set_generation (r);
  r->gen_first = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  r->in_record = r->on_row = FALSE;
  r->direction = 1;
  set_start (r);
  record_sample (r);
  sync_sample_index (r);
}

/* Copies row SRC (an older index) to the next row index, in the current generation.
 * Under ring_lock.  Worker. */
static void
copy_row_locked (CmlRunner *r, guint64 src)
{
  guint64 wi = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  guint from = (guint) (src % r->ring_cap), to = (guint) (wi % r->ring_cap);

  r->ring_t[to] = r->ring_t[from];
  r->ring_gen[to] = r->generation;
  if (to != from)
    {
      memcpy (r->ring_vals + (gsize) to * r->ring_cols, r->ring_vals + (gsize) from * r->ring_cols,
              r->ring_cols * sizeof (double));
      memcpy (r->ring_z + (gsize) to * r->dim, r->ring_z + (gsize) from * r->dim, r->dim * sizeof (double));
      memcpy (r->ring_step + (gsize) to * r->step_len, r->ring_step + (gsize) from * r->step_len,
              r->step_len * sizeof (double));
      memcpy (r->ring_params + (gsize) to * r->n_params, r->ring_params + (gsize) from * r->n_params,
              r->n_params * sizeof (double));
      r->ring_integ[to] = r->ring_integ[from];
    }
  atomic_store_explicit (&r->write_index, wi + 1, memory_order_release);
}

/* Going forward from a moment inside the record: the recorded future is dropped.  A new
 * generation holds copies of the rows before the current time, then the current state, so
 * readers start over with the run as it now is.  The rows are copied in order: row
 * gen_first + j goes to write_index + j, whose slot held a row at most as new, already
 * copied or of the dropped future.  Worker. */
static void
truncate_record (CmlRunner *r)
{
  double t_now = cml_simulation_get_time (r->sim);
  guint64 first, end, new_first;

  live_rows (r, &first, &end);
  r->generation++;
  pthread_mutex_lock (&r->ring_lock);
  new_first = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  for (guint64 i = first; i < end && r->ring_t[i % r->ring_cap] < t_now; i++)
    copy_row_locked (r, i);
  r->ring_generation = r->generation;
  pthread_mutex_unlock (&r->ring_lock);
  r->gen_first = new_first;
  r->in_record = r->on_row = FALSE;
  record_sample (r);
  sync_sample_index (r);
}

/* Puts the worker's parameters and integrator back to those of SLOT.  Worker. */
static void
restore_settings (CmlRunner *r, guint slot)
{
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (r->sim));
  const CmlIntegratorOptions *want = &r->ring_integ[slot], *have = cml_simulation_get_integrator (r->sim);

  for (guint i = 0; i < r->n_params; i++)
    {
      const char *name = ((CmlParam *) model->params->pdata[i])->name;
      double v = r->ring_params[(gsize) slot * r->n_params + i];

      if (cml_simulation_get_param (r->sim, name) != v)
        (void) cml_simulation_set_param (r->sim, name, v, NULL);
    }
  if (want->kind != have->kind || want->rtol != have->rtol || want->atol != have->atol
      || want->h_init != have->h_init || want->h_fixed != have->h_fixed
      || want->h_min != have->h_min || want->project != have->project
      || want->max_steps != have->max_steps)
    {
      (void) cml_simulation_set_integrator (r->sim, want, NULL);
      cml_simulation_prepare_native_step (r->sim);
    }
}

/* Pauses and shows the recorded row nearest to T.  Worker. */
static void
do_seek (CmlRunner *r, double t)
{
  guint64 first, end, best;
  guint slot;

  live_rows (r, &first, &end);
  if (first >= end || !isfinite (t))
    return;
  /* the rows' times increase: the first at or after T, or the one before it */
  best = first;
  for (guint64 i = first; i < end; i++)
    {
      best = i;
      if (r->ring_t[i % r->ring_cap] >= t)
        break;
    }
  if (best > first
      && fabs (r->ring_t[(best - 1) % r->ring_cap] - t) <= fabs (r->ring_t[best % r->ring_cap] - t))
    best--;

  slot = (guint) (best % r->ring_cap);
  restore_settings (r, slot);
  cml_simulation_restore (r->sim, r->ring_t[slot], r->ring_z + (gsize) slot * r->dim,
                          r->ring_step + (gsize) slot * r->step_len);
  r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
  r->in_record = best + 1 < end;
  r->on_row = TRUE;
  sync_sample_index (r);
  rebase (r, wall_now ());
}

/* Backwards: at t = 0 the run is back at its start and pauses.  Worker. */
static gboolean
at_start (CmlRunner *r)
{
  return r->direction < 0 && r->next_k < 0;
}

/* One slice of a running simulation, then a frame.  Worker. */
static void
run_slice (CmlRunner *r)
{
  double start = wall_now (), end;
  double target = r->t_at_play + r->direction * r->speed * (start - r->wall_at_play);
  double deadline = start + 0.7 * r->opts.frame_period;
  double dt = r->opts.sample_dt;
  gboolean short_of_target = FALSE;
  g_autoptr (GError) error = NULL;
  double t_before = cml_simulation_get_time (r->sim);
  guint n = 0;

  /* forward from inside the record: the recorded future goes */
  if (r->direction > 0 && r->in_record)
    truncate_record (r);
  if (r->direction < 0)
    r->in_record = TRUE;

  /* integrate sample by sample toward the target; look at the clock after every sample
   * (a read of the vDSO clock, next to a sample's integration): a large system's sample
   * can take longer than the slice (a 50-link pendulum, interpreted, 30 ms), and a check
   * every few samples then let a slice reach its target of two samples late, never
   * "short" of it — the run fell behind at a quarter of real time and never said so */
  while (r->direction > 0 ? (double) r->next_k * dt <= target
                          : r->next_k >= 0 && (double) r->next_k * dt >= target)
    {
      if (!advance_one_sample (r, &error))
        {
          fail (r, error);
          break;
        }
      n++;
      if (wall_now () > deadline)
        {
          short_of_target = r->direction > 0 ? (double) r->next_k * dt <= target
                                             : r->next_k >= 0 && (double) r->next_k * dt >= target;
          break;
        }
    }
  end = wall_now ();

  /* could not keep up: say so, and go on from here instead of catching up forever.  Not
   * keeping up is stopping short of the target, or passing the deadline with less
   * simulated time than the wall time it took (samples slower than real time reach a
   * target of one sample, late: the next slice, short of its target, goes on from there);
   * a slice with no sample to take says nothing new */
  if (r->state == CML_RUNNER_RUNNING)
    {
      if (n > 0)
        {
          double advanced = fabs (cml_simulation_get_time (r->sim) - t_before);

          r->lagging = short_of_target || (end > deadline && advanced < 0.9 * r->speed * (end - start));
          if (short_of_target)
            rebase (r, end);
        }
      if (at_start (r))
        {
          r->state = CML_RUNNER_PAUSED;
          r->lagging = FALSE;
        }
    }
  r->wall_ms_per_slice = 1e3 * (end - start);
  r->next_frame_due = start + r->opts.frame_period;
  publish (r);
}

/* Advances by DT in sample steps in the direction of time, ending exactly at t ± DT (not
 * before t = 0 backwards), then pauses.  Worker. */
static void
do_step (CmlRunner *r, double dt)
{
  double now = cml_simulation_get_time (r->sim);
  double target = now + r->direction * dt;
  double sdt = r->opts.sample_dt, snap = 1e-9 * sdt;
  g_autoptr (GError) error = NULL;

  if (r->direction > 0)
    {
      /* along the record while it reaches that far */
      if (r->on_row && r->in_record)
        {
          double t0, t1;

          record_span (r, &t0, &t1);
          if (target <= t1 + snap)
            {
              do_seek (r, target);
              return;
            }
        }
      if (r->in_record)
        truncate_record (r);
    }
  else
    {
      target = MAX (target, 0.0);
      r->in_record = TRUE;
      r->on_row = FALSE;
    }

  /* every sample time up to the target (a sample time within rounding of it is it) */
  while (r->direction > 0 ? (double) r->next_k * sdt <= target + snap
                          : r->next_k >= 0 && (double) r->next_k * sdt >= target - snap)
    {
      if (atomic_load_explicit (&r->stop, memory_order_relaxed))
        return;
      if (!advance_one_sample (r, &error))
        {
          fail (r, error);
          return;
        }
    }
  /* then the off-grid remainder */
  if (fabs (cml_simulation_get_time (r->sim) - target) > snap
      && !cml_simulation_advance (r->sim, target, &error))
    {
      fail (r, error);
      return;
    }
  r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
}

/* Seeks DT back from the current time (not before the record's start).  Worker. */
static void
do_step_back (CmlRunner *r, double dt)
{
  double t0, t1;

  record_span (r, &t0, &t1);
  if (isnan (t0))
    return;
  do_seek (r, MAX (cml_simulation_get_time (r->sim) - dt, t0));
}

static void
do_set_direction (CmlRunner *r, int direction)
{
  if (direction == r->direction)
    return;
  r->direction = direction;
  r->on_row = FALSE;
  sync_sample_index (r);
  rebase (r, wall_now ());
  r->next_frame_due = wall_now ();
  /* backwards from the start: nothing to do */
  if (r->state == CML_RUNNER_RUNNING && at_start (r))
    r->state = CML_RUNNER_PAUSED;
}

static void
do_reset (CmlRunner *r, GHashTable *given)
{
  g_autoptr (GError) error = NULL;

  if (!cml_simulation_reset (r->sim, given, &error))
    {
      /* the old rows no longer belong to what is shown */
      r->generation++;
      ring_set_generation (r);
      fail (r, error);
      return;
    }
  if (r->state == CML_RUNNER_FAILED)
    r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
  start_generation (r);
  rebase (r, wall_now ());
}

static void
do_set_system (CmlRunner *r, CmlSystem *sys)
{
  g_autoptr (GError) error = NULL;
  CmlSimulation *sim = cml_simulation_new (sys, &error);

  if (sim == NULL)
    {
      fail (r, error);
      return;
    }
  /* keep the integrator the user chose, if the new system can use it */
  if (!cml_simulation_set_integrator (sim, cml_simulation_get_integrator (r->sim), NULL))
    g_debug ("the new system keeps its default integrator");
  cml_simulation_prepare_native_step (sim); /* now, not in the middle of the run */
  cml_simulation_free (r->sim);
  r->sim = sim;
  r->generation++;
  ring_set_layout (r, n_cols_of (sys), TRUE);
  if (r->state == CML_RUNNER_FAILED)
    r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
  r->in_record = r->on_row = FALSE;
  r->direction = 1;
  set_start (r);
  record_sample (r);
  sync_sample_index (r);
  rebase (r, wall_now ());
}

/* Carries out one command.  Worker. */
static void
run_command (CmlRunner *r, Command *cmd, guint64 *sync_ticket)
{
  g_autoptr (GError) error = NULL;
  double now = wall_now ();

  switch (cmd->kind)
    {
    case CMD_PLAY:
      if (r->state != CML_RUNNER_RUNNING && !at_start (r))
        {
          r->state = CML_RUNNER_RUNNING;
          r->lagging = FALSE;
          g_clear_pointer (&r->message, g_free);
          rebase (r, now);
          r->next_frame_due = now;
        }
      break;

    case CMD_PAUSE:
      if (r->state == CML_RUNNER_RUNNING)
        r->state = CML_RUNNER_PAUSED;
      r->lagging = FALSE;
      break;

    case CMD_STEP:
      do_step (r, cmd->value);
      break;

    case CMD_RESET:
      do_reset (r, cmd->given);
      break;

    case CMD_SPEED:
      rebase (r, now);
      r->speed = cmd->value;
      r->lagging = FALSE;
      r->next_frame_due = now;
      break;

    case CMD_PARAM:
      /* the moment shown is no longer the recorded one */
      r->on_row = FALSE;
      /* a refused value leaves the run as it was and says why */
      if (!cml_simulation_set_param (r->sim, cmd->name, cmd->value, &error))
        set_message (r, error->message);
      else if (r->state != CML_RUNNER_FAILED)
        g_clear_pointer (&r->message, g_free);
      break;

    case CMD_INTEGRATOR:
      r->on_row = FALSE;
      if (!cml_simulation_set_integrator (r->sim, &cmd->integ, &error))
        set_message (r, error->message);
      else if (r->state != CML_RUNNER_FAILED)
        g_clear_pointer (&r->message, g_free);
      cml_simulation_prepare_native_step (r->sim);
      ring_fit_step_state (r);
      break;

    case CMD_SYSTEM:
      do_set_system (r, cmd->sys);
      break;

    case CMD_SYNC:
      *sync_ticket = MAX (*sync_ticket, cmd->ticket);
      break;

    case CMD_SEEK:
      do_seek (r, cmd->value);
      break;

    case CMD_STEP_BACK:
      do_step_back (r, cmd->value);
      break;

    case CMD_DIRECTION:
      do_set_direction (r, cmd->value < 0 ? -1 : 1);
      break;

    default:
      g_assert_not_reached ();
    }
  atomic_fetch_add_explicit (&r->n_commands, 1, memory_order_relaxed);
}

static void *
worker_main (void *data)
{
  CmlRunner *r = data;

  if (r->resident_pending)
    ring_make_resident (r);
  for (;;)
    {
      GQueue batch = G_QUEUE_INIT;
      guint64 sync_ticket = 0;
      gboolean quit, had_commands;
      Command *cmd;

      /* wait for a command, or the next frame time while running (never spin) */
      pthread_mutex_lock (&r->cmd_lock);
      while (!r->quit && g_queue_is_empty (&r->commands))
        {
          if (r->state == CML_RUNNER_RUNNING)
            {
              struct timespec due;

              if (wall_now () >= r->next_frame_due)
                break;
              due = timespec_from_seconds (r->next_frame_due);
              pthread_cond_timedwait (&r->cmd_cond, &r->cmd_lock, &due);
            }
          else
            pthread_cond_wait (&r->cmd_cond, &r->cmd_lock);
        }
      batch = r->commands;
      g_queue_init (&r->commands);
      quit = r->quit;
      pthread_mutex_unlock (&r->cmd_lock);

      if (quit)
        {
          while ((cmd = g_queue_pop_head (&batch)))
            command_free (cmd);
          break;
        }

      /* carry out the commands, outside the lock */
      had_commands = !g_queue_is_empty (&batch);
      while ((cmd = g_queue_pop_head (&batch)))
        {
          run_command (r, cmd, &sync_ticket);
          command_free (cmd);
        }

      /* integrate a slice when one is due (it publishes), else show what changed */
      if (r->state == CML_RUNNER_RUNNING && wall_now () >= r->next_frame_due)
        run_slice (r);
      else if (had_commands)
        publish (r);

      if (sync_ticket)
        {
          pthread_mutex_lock (&r->cmd_lock);
          r->sync_done = MAX (r->sync_done, sync_ticket);
          pthread_cond_broadcast (&r->sync_cond);
          pthread_mutex_unlock (&r->cmd_lock);
        }
    }
  return NULL;
}

/* ---- life cycle ----------------------------------------------------------------------- */

CmlRunnerOptions
cml_runner_options_default (void)
{
  CmlRunnerOptions o = {
    .sample_dt = 1.0 / 120.0,
    .history_capacity = 65536,
    .frame_period = 1.0 / 60.0,
    .speed = 1.0,
  };

  return o;
}

/* Any thread. */
CmlRunner *
cml_runner_new (CmlSystem *sys, const CmlRunnerOptions *options, GError **error)
{
  CmlRunnerOptions defaults = cml_runner_options_default ();
  CmlRunner *r;
  CmlSimulation *sim;
  pthread_condattr_t attr;
  int err;

  g_return_val_if_fail (sys != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  sim = cml_simulation_new (sys, error);
  if (sim == NULL)
    return NULL;
  cml_simulation_prepare_native_step (sim);

  r = g_new0 (CmlRunner, 1);
  r->caller_sys = cml_system_ref (sys);
  r->caller_kinds = G_GUINT64_CONSTANT (1) << cml_simulation_get_integrator (sim)->kind;
  cml_system_prepare (sys, cml_simulation_get_integrator (sim)->kind);
  r->opts = options ? *options : defaults;
  if (!(r->opts.sample_dt > 0))
    r->opts.sample_dt = defaults.sample_dt;
  if (r->opts.history_capacity == 0)
    r->opts.history_capacity = defaults.history_capacity;
  if (!(r->opts.frame_period > 0))
    r->opts.frame_period = defaults.frame_period;
  if (!(r->opts.speed > 0))
    r->opts.speed = defaults.speed;

  pthread_mutex_init (&r->cmd_lock, NULL);
  pthread_mutex_init (&r->frame_lock, NULL);
  pthread_mutex_init (&r->ring_lock, NULL);
  pthread_condattr_init (&attr);
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&r->cmd_cond, &attr);
  pthread_condattr_destroy (&attr);
  pthread_cond_init (&r->sync_cond, NULL);
  g_queue_init (&r->commands);
  atomic_init (&r->stop, false);
  atomic_init (&r->n_commands, 0);
  atomic_init (&r->write_index, 0);

  r->sim = sim;
  r->state = CML_RUNNER_PAUSED;
  r->speed = r->opts.speed;
  r->generation = 1;
  r->ring_cap = r->opts.history_capacity;
  r->ring_t = g_new0 (double, r->ring_cap);
  r->ring_gen = g_new0 (guint, r->ring_cap);  /* 0: no generation */
  r->direction = 1;
  ring_set_layout (r, n_cols_of (sys), FALSE);
  set_start (r);
  record_sample (r);
  sync_sample_index (r);
  rebase (r, wall_now ());
  r->next_frame_due = wall_now ();
  publish (r);

  err = pthread_create (&r->thread, NULL, worker_main, r);
  r->started = err == 0;
  if (err != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "cannot start the simulation thread: %s",
                   g_strerror (err));
      cml_runner_free (r);
      return NULL;
    }
  return r;
}

/* Not from the worker. */
void
cml_runner_free (CmlRunner *runner)
{
  Command *cmd;

  if (runner == NULL)
    return;

  pthread_mutex_lock (&runner->cmd_lock);
  runner->quit = TRUE;
  atomic_store_explicit (&runner->stop, true, memory_order_relaxed);
  pthread_cond_signal (&runner->cmd_cond);
  pthread_mutex_unlock (&runner->cmd_lock);
  if (runner->started)
    pthread_join (runner->thread, NULL);

  while ((cmd = g_queue_pop_head (&runner->commands)))
    command_free (cmd);
  cml_simulation_free (runner->sim);
  cml_system_unref (runner->caller_sys);
  cml_frame_unref (runner->frame);
  g_free (runner->message);
  g_free (runner->row);
  g_free (runner->ring_t);
  g_free (runner->ring_gen);
  g_free (runner->ring_vals);
  g_free (runner->ring_z);
  g_free (runner->ring_step);
  g_free (runner->ring_params);
  g_free (runner->ring_integ);
  g_free (runner->z_start);
  g_free (runner->dist_idx);
  pthread_cond_destroy (&runner->cmd_cond);
  pthread_cond_destroy (&runner->sync_cond);
  pthread_mutex_destroy (&runner->cmd_lock);
  pthread_mutex_destroy (&runner->frame_lock);
  pthread_mutex_destroy (&runner->ring_lock);
  g_free (runner);
}

/* ---- commands: any thread ------------------------------------------------------------- */

static void
push (CmlRunner *r, Command *cmd)
{
  pthread_mutex_lock (&r->cmd_lock);
  g_queue_push_tail (&r->commands, cmd);
  pthread_cond_signal (&r->cmd_cond);
  pthread_mutex_unlock (&r->cmd_lock);
}

static Command *
command_new (CmdKind kind)
{
  Command *cmd = g_new0 (Command, 1);

  cmd->kind = kind;
  return cmd;
}

/* Any thread. */
void
cml_runner_play (CmlRunner *runner)
{
  g_return_if_fail (runner != NULL);
  push (runner, command_new (CMD_PLAY));
}

/* Any thread. */
void
cml_runner_pause (CmlRunner *runner)
{
  g_return_if_fail (runner != NULL);
  push (runner, command_new (CMD_PAUSE));
}

/* Any thread. */
void
cml_runner_step (CmlRunner *runner, double dt)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (dt) && dt >= 0);

  cmd = command_new (CMD_STEP);
  cmd->value = dt;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_seek (CmlRunner *runner, double t)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (t));

  cmd = command_new (CMD_SEEK);
  cmd->value = t;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_step_back (CmlRunner *runner, double dt)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (dt) && dt >= 0);

  cmd = command_new (CMD_STEP_BACK);
  cmd->value = dt;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_reversed (CmlRunner *runner, gboolean reversed)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);

  cmd = command_new (CMD_DIRECTION);
  cmd->value = reversed ? -1 : 1;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_reset (CmlRunner *runner, GHashTable *given)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);

  cmd = command_new (CMD_RESET);
  if (given)
    {
      GHashTableIter it;
      gpointer key, value;

      cmd->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_iter_init (&it, given);
      while (g_hash_table_iter_next (&it, &key, &value))
        g_hash_table_insert (cmd->given, g_strdup (key), g_memdup2 (value, sizeof (double)));
    }
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_speed (CmlRunner *runner, double speed)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (isfinite (speed) && speed > 0);

  cmd = command_new (CMD_SPEED);
  cmd->value = speed;
  push (runner, cmd);
}

/* Any thread. */
void
cml_runner_set_param (CmlRunner *runner, const char *name, double value)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (name != NULL);

  cmd = command_new (CMD_PARAM);
  cmd->name = g_strdup (name);
  cmd->value = value;
  push (runner, cmd);
}

/* The caller's thread, the one that uses the model's expressions (see the header). */
void
cml_runner_set_integrator (CmlRunner *runner, const CmlIntegratorOptions *options)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (options != NULL);

  runner->caller_kinds |= G_GUINT64_CONSTANT (1) << options->kind;
  cml_system_prepare (runner->caller_sys, options->kind);
  cmd = command_new (CMD_INTEGRATOR);
  cmd->integ = *options;
  push (runner, cmd);
}

/* The caller's thread, the one that uses the model's expressions (see the header). */
void
cml_runner_set_system (CmlRunner *runner, CmlSystem *sys)
{
  Command *cmd;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (sys != NULL);

  for (guint k = 0; k < CML_INTEGRATOR_N_KINDS; k++)
    if (runner->caller_kinds & (G_GUINT64_CONSTANT (1) << k))
      cml_system_prepare (sys, (CmlIntegratorKind) k);
  cml_system_ref (sys);
  cml_system_unref (runner->caller_sys);
  runner->caller_sys = sys;
  cmd = command_new (CMD_SYSTEM);
  cmd->sys = cml_system_ref (sys);
  push (runner, cmd);
}

/* Not from the worker (it would wait for itself). */
void
cml_runner_sync (CmlRunner *runner)
{
  Command *cmd;
  guint64 ticket;

  g_return_if_fail (runner != NULL);
  g_return_if_fail (!pthread_equal (pthread_self (), runner->thread));

  /* the worker frees the command: wait on the ticket, not on it */
  cmd = command_new (CMD_SYNC);
  pthread_mutex_lock (&runner->cmd_lock);
  ticket = cmd->ticket = ++runner->sync_requested;
  g_queue_push_tail (&runner->commands, cmd);
  pthread_cond_signal (&runner->cmd_cond);
  while (runner->sync_done < ticket)
    pthread_cond_wait (&runner->sync_cond, &runner->cmd_lock);
  pthread_mutex_unlock (&runner->cmd_lock);
}

/* Any thread. */
guint64
cml_runner_n_commands (CmlRunner *runner)
{
  g_return_val_if_fail (runner != NULL, 0);

  return atomic_load_explicit (&runner->n_commands, memory_order_relaxed);
}
