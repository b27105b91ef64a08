/* cml-runner.c — the worker thread that owns a simulation: it owns the numerics, the UI thread owns GTK and GL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This file is the worker and the runner's life cycle; the frames it publishes are in
 * cml-runner-frame.c, the history ring in cml-runner-ring.c, the commands other threads
 * queue in cml-runner-commands.c (the struct they share in cml-runner-private.h).
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

#include "cml-runner-private.h"
#include "cml-native-step.h"

#include "cml-error.h"
#include "cml-resident.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>


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
      cml_runner_record_sample (r);
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
  cml_runner_ring_set_generation (r);
  r->gen_first = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  r->in_record = r->on_row = FALSE;
  r->direction = 1;
  cml_runner_set_start (r);
  cml_runner_record_sample (r);
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

  cml_runner_live_rows (r, &first, &end);
  r->generation++;
  pthread_mutex_lock (&r->ring_lock);
  new_first = atomic_load_explicit (&r->write_index, memory_order_relaxed);
  for (guint64 i = first; i < end && r->ring_t[i % r->ring_cap] < t_now; i++)
    copy_row_locked (r, i);
  r->ring_generation = r->generation;
  pthread_mutex_unlock (&r->ring_lock);
  r->gen_first = new_first;
  r->in_record = r->on_row = FALSE;
  cml_runner_record_sample (r);
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

  cml_runner_live_rows (r, &first, &end);
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

/* Forward: a recorded motion at its end (a run that integrates has none).  Worker. */
static gboolean
at_end (CmlRunner *r)
{
  return r->direction > 0 && cml_simulation_get_time (r->sim) >= cml_simulation_get_end (r->sim);
}

/* Forward to a recorded motion's end, exactly (its last sample, recorded), and pause
 * there.  Worker. */
static void
finish_at_end (CmlRunner *r)
{
  double t_end = cml_simulation_get_end (r->sim);
  g_autoptr (GError) error = NULL;

  if (cml_simulation_get_time (r->sim) < t_end)
    {
      if (!cml_simulation_advance (r->sim, t_end, &error))
        {
          fail (r, error);
          return;
        }
      cml_runner_record_sample (r);
      sync_sample_index (r);
    }
  r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
}

/* One slice of a running simulation, then a frame.  Worker. */
static void
run_slice (CmlRunner *r)
{
  double start = wall_now (), end;
  double target = r->t_at_play + r->direction * r->speed * (start - r->wall_at_play);
  double t_end = cml_simulation_get_end (r->sim);
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
  /* a recorded motion goes no further than its end */
  if (r->direction > 0 && target >= t_end)
    target = t_end;

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
      else if (r->direction > 0 && target >= t_end && !short_of_target)
        finish_at_end (r);
    }
  r->wall_ms_per_slice = 1e3 * (end - start);
  r->next_frame_due = start + r->opts.frame_period;
  cml_runner_publish (r);
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
      /* a recorded motion: not beyond its end */
      target = MIN (target, cml_simulation_get_end (r->sim));
      /* along the record while it reaches that far */
      if (r->on_row && r->in_record)
        {
          double t0, t1;

          cml_runner_record_span (r, &t0, &t1);
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

  cml_runner_record_span (r, &t0, &t1);
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
      cml_runner_ring_set_generation (r);
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
  cml_runner_ring_set_layout (r, cml_runner_n_cols_of (sys), TRUE);
  if (r->state == CML_RUNNER_FAILED)
    r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
  r->in_record = r->on_row = FALSE;
  r->direction = 1;
  cml_runner_set_start (r);
  cml_runner_record_sample (r);
  sync_sample_index (r);
  rebase (r, wall_now ());
}

/* Plays REC (or integrates again, NULL), from its start as a new generation.  Worker. */
static void
do_set_recording (CmlRunner *r, CmlRecording *rec)
{
  g_autoptr (GError) error = NULL;

  if (!cml_simulation_set_recording (r->sim, rec, &error))
    {
      fail (r, error);
      return;
    }
  if (rec == NULL)
    return;
  if (r->state == CML_RUNNER_FAILED)
    r->state = CML_RUNNER_PAUSED;
  r->lagging = FALSE;
  g_clear_pointer (&r->message, g_free);
  start_generation (r);
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
      if (r->state != CML_RUNNER_RUNNING && !at_start (r) && !at_end (r))
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
      cml_runner_ring_fit_step_state (r);
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

    case CMD_RECORDING:
      do_set_recording (r, cmd->recording);
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
    cml_runner_ring_make_resident (r);
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
            cml_runner_command_free (cmd);
          break;
        }

      /* carry out the commands, outside the lock */
      had_commands = !g_queue_is_empty (&batch);
      while ((cmd = g_queue_pop_head (&batch)))
        {
          run_command (r, cmd, &sync_ticket);
          cml_runner_command_free (cmd);
        }

      /* integrate a slice when one is due (it publishes), else show what changed */
      if (r->state == CML_RUNNER_RUNNING && wall_now () >= r->next_frame_due)
        run_slice (r);
      else if (had_commands)
        cml_runner_publish (r);

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
  cml_runner_ring_set_layout (r, cml_runner_n_cols_of (sys), FALSE);
  cml_runner_set_start (r);
  cml_runner_record_sample (r);
  sync_sample_index (r);
  rebase (r, wall_now ());
  r->next_frame_due = wall_now ();
  cml_runner_publish (r);

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
    cml_runner_command_free (cmd);
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
