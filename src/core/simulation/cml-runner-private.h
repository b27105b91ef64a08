/* cml-runner-private.h — a runner's insides, shared by its files: the commands any
 * thread queues, the runner's struct (its three locks and what each guards, the ring, the
 * worker's own state) and the functions one file calls in another (cml-runner.c: the
 * worker, cml-runner-frame.c, cml-runner-ring.c, cml-runner-commands.c).  Nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-runner.h"
#include "cml-native-step.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

G_BEGIN_DECLS

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
  CMD_RECORDING,
} CmdKind;

typedef struct
{
  CmdKind              kind;
  double               value;   /* step: dt; speed; param: value; seek: t; direction: ±1 */
  char                *name;    /* param: its name (owned) */
  GHashTable          *given;   /* reset: name -> double* (owned copy), or NULL */
  CmlIntegratorOptions integ;   /* set_integrator */
  CmlSystem           *sys;     /* set_system (a reference) */
  CmlRecording        *recording; /* set_recording (a reference, or NULL) */
  guint64              ticket;  /* sync */
} Command;

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

/* cml-runner-frame.c */
void cml_runner_live_rows (CmlRunner *r, guint64 *first, guint64 *end);
void cml_runner_record_span (CmlRunner *r, double *t0, double *t1);
void cml_runner_set_start (CmlRunner *r);
void cml_runner_publish (CmlRunner *r);

/* cml-runner-ring.c */
guint cml_runner_n_cols_of (CmlSystem *sys);
void cml_runner_ring_make_resident (CmlRunner *r);
void cml_runner_ring_set_layout (CmlRunner *r, guint n_cols, gboolean on_worker);
void cml_runner_ring_set_generation (CmlRunner *r);
void cml_runner_ring_fit_step_state (CmlRunner *r);
void cml_runner_record_sample (CmlRunner *r);

/* cml-runner-commands.c */
void cml_runner_command_free (Command *cmd);

G_END_DECLS
