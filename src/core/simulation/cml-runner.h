/* cml-runner.h — the worker thread that owns a simulation: it owns the numerics, the UI thread owns GTK and GL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The worker owns the simulation, its integrator and all scratch memory.  After each
 * slice of integration it publishes an immutable, reference-counted CmlFrame by swapping
 * one pointer under a short lock; readers take a reference and never hold a lock while
 * drawing.  Samples (time, every observable, every scene value) at a fixed simulated-time
 * spacing go into a bounded ring that readers copy from with a cursor, so no plot sample is
 * lost when frames are skipped (unless the reader falls a whole ring behind: then it is
 * told how many were dropped).  Commands go through a queue drained by the worker, which
 * waits on a condition variable when paused (it never spins).  Pacing: simulated time follows
 * speed × wall time; one slice integrates for at most ~70 % of a frame period, and the
 * frame says when the worker cannot keep up.  A failure (non-finite state, step-size
 * underflow, singular matrix) pauses the run and the frame carries the reason.
 *
 * The hand-off uses pthread mutexes/condition variables and C11 atomics, which
 * ThreadSanitizer understands.
 *
 * The timeline.  Each history row also keeps, for the worker alone, what a bit-for-bit
 * restart needs: the state, the integrator's step state (cml_simulation_save_step_state ()),
 * the parameters and the integrator options.  cml_runner_seek () pauses and puts that
 * recorded moment back; playing or stepping on from there continues exactly as the first
 * run did (same integrator, same steps), and drops the recorded future: the rows up to the
 * moment are written again as a new generation, so readers start over with them.  Stepping
 * forward while the recorded future is still there moves along the record instead.
 *
 * Reversed time.  cml_runner_set_reversed () makes simulated time run backwards: the worker
 * integrates the same equations with negative steps from the current state (it does not
 * replay the record), pacing as forward, and pauses at t = 0.  Backward samples are not
 * recorded (the record is the forward run); going forward again drops the recorded future
 * beyond the current time as after a seek.  Every frame says how far the state is from the
 * run's start (the distance over base and fibre coordinates).
 *
 * A recorded motion.  cml_runner_set_recording () makes the simulation play a recording
 * (cml-recording.h) instead of integrating: everything above holds as for a run — pacing,
 * speed, samples, seeking, reversed time — with the recorded state and observables at
 * each time, and the run pauses at the recording's end (play there does nothing).
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-recording.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef enum
{
  CML_RUNNER_PAUSED,
  CML_RUNNER_RUNNING,
  CML_RUNNER_FAILED,  /* paused by a failure; see CmlFrame.message */
} CmlRunnerState;

/* One published snapshot.  Immutable once published; any thread may read it while it
 * holds a reference. */
typedef struct
{
  /*< private >*/
  gint           ref_count;
  /*< public >*/
  guint64        seq;         /* increases with every published frame */
  guint          generation;  /* increases on reset and model switch: plots start over */
  CmlSystem     *system;      /* the system these numbers belong to (a reference) */
  CmlRunnerState state;
  double         t;           /* simulated time, in the model's time unit */
  double         speed;       /* simulated seconds per wall second */
  gboolean       lagging;     /* the worker could not keep up with speed × wall time */
  char          *message;     /* failure reason ("non-finite state at t = 3.2 …"), or NULL */
  guint          dim;
  double        *state_values;/* dim */
  guint          n_obs;
  double        *obs;         /* cml_system_n_observables() values */
  guint          n_scene;
  double        *scene;       /* cml_system_n_scene_values() values */
  double        *params;      /* current parameter values, model order */
  guint          n_params;
  double         wall_ms_per_slice; /* time the last slice took, for the status bar */
  /* the timeline */
  int            direction;   /* +1: time runs forward; -1: backwards (cml_runner_set_reversed) */
  double         recorded_t0; /* the recorded run's span: first … */
  double         recorded_t1; /* … and last sample time of this generation still in the ring */
  gboolean       in_record;   /* a recorded moment with its recorded future (after a seek or
                               * backwards): playing forward drops that future */
  double         distance;    /* ‖x − x(0)‖ over the base coordinates of the body's position
                               * (cml_model_position_coords: x, y of the rolling ball), x(0)
                               * where this generation started; NaN when there is none */
  const char    *distance_unit; /* their unit (e.g. "m"), or NULL when there is no position;
                                 * owned by the system's model */
} CmlFrame;

CmlFrame *cml_frame_ref (CmlFrame *frame);
void      cml_frame_unref (CmlFrame *frame);

typedef struct
{
  double   sample_dt;          /* simulated time between history samples; 0 = 1/120 of a time unit */
  guint    history_capacity;   /* samples in the hand-off ring; 0 = 65536 */
  double   frame_period;       /* wall seconds between published frames; 0 = 1/60 */
  double   speed;              /* initial speed; 0 = 1 */
} CmlRunnerOptions;

CmlRunnerOptions cml_runner_options_default (void);

typedef struct _CmlRunner CmlRunner;

/* Makes a simulation of SYS (parameters at defaults, the model's initial data) and starts
 * the worker thread, paused.  Fails like cml_simulation_new().  Any thread. */
CmlRunner *cml_runner_new (CmlSystem *sys, const CmlRunnerOptions *options, GError **error);
/* Stops and joins the worker.  Not from the worker. */
void       cml_runner_free (CmlRunner *runner);

/* The newest frame, with a reference the caller drops.  Never NULL.  Any thread. */
CmlFrame  *cml_runner_get_frame (CmlRunner *runner);

/* Copies history samples newer than *CURSOR (0 at first) into T (max_samples values)
 * and OBS (max_samples × n_cols, row-major), advances *CURSOR, and returns how many were
 * copied.  A row holds the observables followed by the scene values, so N_COLS is
 * cml_system_n_observables (sys) + cml_system_n_scene_values (sys) of the current
 * system; when it does not match, nothing is copied and *CURSOR stays (0 is returned).
 * *DROPPED (may be NULL) receives how many samples were overwritten before they could be
 * read.  Samples of an older generation are skipped.  Any thread (one reader at a time
 * per cursor). */
guint      cml_runner_read_history (CmlRunner *runner, guint64 *cursor, guint n_cols,
                                    double *t, double *obs, guint max_samples, guint64 *dropped);

/* ---- commands: queued, carried out by the worker in order; any thread ---------------- */

void cml_runner_play (CmlRunner *runner);
void cml_runner_pause (CmlRunner *runner);
/* Advances by DT simulated time (one output step) in the current direction of time and
 * pauses.  At a recorded moment whose recorded future reaches t + DT it moves along the
 * record (a seek); else it integrates. */
void cml_runner_step (CmlRunner *runner, double dt);
/* Pauses and shows the recorded sample nearest to T (of this generation, still in the
 * ring): state, time, parameters, integrator and its step state are put back, so that
 * going on from there repeats the recorded run bit for bit.  The recorded future is kept
 * until the run goes forward from here. */
void cml_runner_seek (CmlRunner *runner, double t);
/* Seeks DT back from the current time (the key beside "step"). */
void cml_runner_step_back (CmlRunner *runner, double dt);
/* Simulated time runs backwards (TRUE) or forward: see "Reversed time" above.  A reset or
 * a model switch makes it run forward again. */
void cml_runner_set_reversed (CmlRunner *runner, gboolean reversed);
/* Back to t = 0 from the model's initial data overridden by GIVEN (name -> double*; may
 * be NULL; copied).  Starts a new generation. */
void cml_runner_reset (CmlRunner *runner, GHashTable *given);
void cml_runner_set_speed (CmlRunner *runner, double speed);
/* Takes effect live: the integrator is reset in place, the state is kept. */
void cml_runner_set_param (CmlRunner *runner, const char *name, double value);
/* Both below first derive on the caller's thread what the worker would derive from the
 * model's expressions (cml_system_prepare), so that only the caller uses them; call them
 * from one thread, the one that uses the model's expressions (the window's). */
void cml_runner_set_integrator (CmlRunner *runner, const CmlIntegratorOptions *options);
/* Switches to another system (a model switch) with its default parameters and initial
 * data, paused or running as before.  Starts a new generation. */
void cml_runner_set_system (CmlRunner *runner, CmlSystem *sys);

/* Plays REC (a reference is taken) from its start, as a new generation, running or paused
 * as before; NULL: integrates again, from the state shown.  A recording without a column
 * for one of the system's state variables fails the run, naming it.  A model switch (set
 * system) lets the recording go. */
void cml_runner_set_recording (CmlRunner *runner, CmlRecording *rec);

/* Blocks until every command queued so far has been carried out and a frame reflecting
 * them is published (tests, scripted runs).  Not from the worker. */
void cml_runner_sync (CmlRunner *runner);

/* Number of commands carried out, right-hand-side evaluations (statistics). */
guint64 cml_runner_n_commands (CmlRunner *runner);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlRunner, cml_runner_free)

G_END_DECLS
