/* test-runner.c — the simulation worker thread: pacing, commands, frames, history,
 * failures, and a storm of commands against concurrent readers.
 *
 * A hang (a deadlock, a sync never answered) is bounded by the harness's timeout for the
 * whole program (meson's, which a slow machine scales with --timeout-multiplier), not by
 * a clock per test: on a busy machine a test may take many times its quiet duration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#define G_LOG_DOMAIN "test-runner"

#include "cml-native.h"
#include "particles-util.h"
#include "cml-error.h"
#include "cml-runner.h"
#include "cml-simulation.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static CmlSystem *
load_system (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  CmlSystem *sys;

  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

static guint
n_cols_of (CmlSystem *sys)
{
  return cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
}

static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* What a test waits for in the newest frame. */
typedef struct
{
  int     state;      /* a CmlRunnerState, or -1: any */
  double  t_min;      /* t ≥ this */
  guint64 seq_above;  /* seq > this */
  int     lagging;    /* 0 or 1, or -1: either */
} Awaited;

#define AWAIT_ANY { .state = -1, .t_min = -INFINITY, .seq_above = 0, .lagging = -1 }

/* Polls the newest frame until it is as awaited and returns it.  The bound (10 minutes) is
 * for a hang, not a speed: a busy or instrumented machine may take long, and the test
 * waits for the state, never for a time. */
static CmlFrame *
wait_for_frame (CmlRunner *runner, Awaited w)
{
  gint64 end = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  for (;;)
    {
      CmlFrame *f = cml_runner_get_frame (runner);

      if ((w.state < 0 || (int) f->state == w.state) && f->t >= w.t_min && f->seq > w.seq_above
          && (w.lagging < 0 || (f->lagging ? 1 : 0) == w.lagging))
        return f;
      if (g_get_monotonic_time () > end)
        g_error ("no frame as awaited within 10 minutes: state %d, t = %g, seq %" G_GUINT64_FORMAT
                 ", lagging %d", (int) f->state, f->t, f->seq, f->lagging);
      cml_frame_unref (f);
      g_usleep (2000);
    }
}

/* Polls the newest frame until its state is STATE. */
static CmlFrame *
wait_for_state (CmlRunner *runner, CmlRunnerState state)
{
  Awaited w = AWAIT_ANY;

  w.state = state;
  return wait_for_frame (runner, w);
}

/* Polls the newest frame until its time is T_MIN or later. */
static CmlFrame *
wait_for_time (CmlRunner *runner, double t_min)
{
  Awaited w = AWAIT_ANY;

  w.t_min = t_min;
  return wait_for_frame (runner, w);
}

/* Everything in the history from *CURSOR on (grows the arrays as needed). */
typedef struct
{
  GArray *t;    /* double */
  GArray *vals; /* double, n_cols per row */
  guint   n_cols;
} History;

static void
history_init (History *h, guint n_cols)
{
  h->t = g_array_new (FALSE, FALSE, sizeof (double));
  h->vals = g_array_new (FALSE, FALSE, sizeof (double));
  h->n_cols = n_cols;
}

static void
history_clear (History *h)
{
  g_array_unref (h->t);
  g_array_unref (h->vals);
}

static guint64
history_read_all (CmlRunner *runner, guint64 *cursor, History *h)
{
  enum { CHUNK = 64 };
  g_autofree double *t = g_new (double, CHUNK);
  g_autofree double *v = g_new (double, CHUNK * MAX (h->n_cols, 1));
  guint64 dropped_total = 0, dropped;
  guint n;

  while ((n = cml_runner_read_history (runner, cursor, h->n_cols, t, v, CHUNK, &dropped)) > 0)
    {
      g_array_append_vals (h->t, t, n);
      g_array_append_vals (h->vals, v, n * h->n_cols);
      dropped_total += dropped;
    }
  return dropped_total + dropped;
}

/* ---- tests ------------------------------------------------------------------------------ */

/* Starts paused at t = 0 with the model's initial data; play/pause moves time on with the
 * wall clock; the history holds every sample, equal to a run of its own. */
static void
test_play_pause (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) ref = cml_simulation_new (sys, &error);
  CmlRunnerOptions opts = cml_runner_options_default ();
  g_autoptr (CmlRunner) runner = NULL;
  g_autofree double *ref_obs = NULL, *ref_scene = NULL;
  guint n_obs = cml_system_n_observables (sys), n_scene = cml_system_n_scene_values (sys);
  guint64 cursor = 0, first_seq;
  double cpu0, cpu1;
  History h;
  CmlFrame *f;


  g_assert_no_error (error);
  runner = cml_runner_new (sys, &opts, &error);
  g_assert_no_error (error);
  g_assert_nonnull (runner);

  /* the first frame: paused at t = 0, the model's initial state and observables */
  ref_obs = g_new (double, n_obs);
  ref_scene = g_new (double, MAX (n_scene, 1));
  cml_simulation_observe (ref, ref_obs);
  cml_simulation_eval_scene (ref, ref_scene);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_true (f->system == sys);
  g_assert_cmpfloat (f->t, ==, 0.0);
  g_assert_cmpfloat (f->speed, ==, 1.0);
  g_assert_false (f->lagging);
  g_assert_null (f->message);
  g_assert_cmpuint (f->dim, ==, cml_system_dim (sys));
  g_assert_cmpmem (f->state_values, f->dim * sizeof (double),
                   cml_simulation_get_state (ref), f->dim * sizeof (double));
  g_assert_cmpuint (f->n_obs, ==, n_obs);
  g_assert_cmpmem (f->obs, n_obs * sizeof (double), ref_obs, n_obs * sizeof (double));
  g_assert_cmpuint (f->n_scene, ==, n_scene);
  g_assert_cmpmem (f->scene, n_scene * sizeof (double), ref_scene, n_scene * sizeof (double));
  g_assert_cmpuint (f->n_params, ==, cml_system_get_model (sys)->params->len);
  g_assert_cmpfloat (f->params[cml_model_param_index (cml_system_get_model (sys), "Omega")], ==,
                     1.0);
  first_seq = f->seq;
  cml_frame_unref (f);

  /* paused means paused, and waiting (not spinning): the process stays idle */
  cpu0 = cpu_now ();
  g_usleep (200000);
  cpu1 = cpu_now ();
  g_test_message ("CPU time while paused: %.1f ms per 200 ms", 1e3 * (cpu1 - cpu0));
  g_assert_cmpfloat (cpu1 - cpu0, <, 0.05);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0.0);
  cml_frame_unref (f);

  /* played at speed 1 until a few frames have come and t ≥ 0.15: never ahead of the wall
   * clock (how far behind it is depends on the machine) */
  {
    Awaited w = AWAIT_ANY;
    gint64 w0 = g_get_monotonic_time ();
    double wall;

    w.t_min = 0.15;
    w.seq_above = first_seq + 2;
    cml_runner_play (runner);
    f = wait_for_frame (runner, w);
    cml_frame_unref (f);
    cml_runner_pause (runner);
    cml_runner_sync (runner);
    wall = (g_get_monotonic_time () - w0) / 1e6;
    f = cml_runner_get_frame (runner);
    g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
    g_assert_cmpfloat (f->t, >=, 0.15);
    g_assert_cmpfloat (f->t, <=, wall + opts.sample_dt);
    g_assert_cmpuint (f->seq, >, first_seq + 2);
  }
  g_assert_cmpuint (cml_runner_n_commands (runner), >=, 3);

  /* every sample from t = 0 to the frame's time, spaced by sample_dt */
  history_init (&h, n_cols_of (sys));
  g_assert_cmpuint (history_read_all (runner, &cursor, &h), ==, 0);
  g_assert_cmpuint (h.t->len, >=, 2);
  g_assert_cmpfloat (fabs (g_array_index (h.t, double, h.t->len - 1) - f->t), <, 1e-12);
  for (guint i = 0; i < h.t->len; i++)
    {
      double ti = g_array_index (h.t, double, i);
      const double *row = &g_array_index (h.vals, double, i * h.n_cols);

      g_assert_cmpfloat_with_epsilon (ti, i * opts.sample_dt, 1e-12);
      if (i > 0)
        g_assert_cmpfloat (ti, >, g_array_index (h.t, double, i - 1));
      /* the same as a simulation of its own stepped to the same times */
      g_assert_true (cml_simulation_advance (ref, ti, &error));
      g_assert_no_error (error);
      cml_simulation_observe (ref, ref_obs);
      cml_simulation_eval_scene (ref, ref_scene);
      for (guint j = 0; j < n_obs; j++)
        g_assert_cmpfloat_with_epsilon (row[j], ref_obs[j], 1e-9);
      for (guint j = 0; j < n_scene; j++)
        g_assert_cmpfloat_with_epsilon (row[n_obs + j], ref_scene[j], 1e-9);
    }
  /* the frame's observables are the last sample's */
  for (guint j = 0; j < n_obs; j++)
    g_assert_cmpfloat_with_epsilon (f->obs[j], ref_obs[j], 1e-9);
  cml_frame_unref (f);

  /* nothing new while paused */
  g_usleep (30000);
  g_assert_cmpuint (history_read_all (runner, &cursor, &h), ==, 0);
  history_clear (&h);
  history_init (&h, n_cols_of (sys));
  g_assert_cmpuint (history_read_all (runner, &cursor, &h), ==, 0);
  g_assert_cmpuint (h.t->len, ==, 0);
  history_clear (&h);
}

/* step (dt) lands exactly on t + dt, off the sample grid too, and stays paused. */
static void
test_step (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (sys, NULL, &error);
  guint64 cursor = 0;
  History h;
  CmlFrame *f;


  g_assert_no_error (error);
  cml_runner_step (runner, 0.5);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat_with_epsilon (f->t, 0.5, 1e-12);
  cml_frame_unref (f);

  g_usleep (50000);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat_with_epsilon (f->t, 0.5, 1e-12);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (f);

  /* off the grid, and a step from a running state pauses */
  cml_runner_step (runner, 0.123);
  cml_runner_play (runner);
  cml_runner_step (runner, 0.01);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (f->t, >=, 0.633 - 1e-12);
  cml_frame_unref (f);

  /* samples stay on the grid k / 120 */
  history_init (&h, n_cols_of (sys));
  history_read_all (runner, &cursor, &h);
  g_assert_cmpuint (h.t->len, >=, 76);
  for (guint i = 0; i < h.t->len; i++)
    g_assert_cmpfloat_with_epsilon (g_array_index (h.t, double, i), i / 120.0, 1e-12);
  history_clear (&h);
}

/* What simulations derive from the model's expressions on first use — the exact Jacobian,
 * a vakonomic system's relations for its initial data — the runner derives on the
 * caller's thread, in set_integrator and set_system (for every integrator chosen so far),
 * before the worker gets the command: the expressions grow before the call returns, and
 * not while the worker runs. */
static void
test_prepares_on_caller (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (CmlSystem) martinet = load_system ("martinet");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (sys, NULL, &error);
  CmlExprCtx *ctx = cml_system_get_model (sys)->ctx, *ctx2 = cml_system_get_model (martinet)->ctx;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  CmlFrame *f;

  g_assert_no_error (error);
  gsize before = cml_expr_ctx_memory (ctx);
  o.kind = CML_INTEGRATOR_MSBDF;
  cml_runner_set_integrator (runner, &o);
  gsize derived = cml_expr_ctx_memory (ctx);
  g_assert_cmpuint (derived, >, before);
  cml_runner_step (runner, 0.5);
  cml_runner_sync (runner);
  g_assert_cmpuint (cml_expr_ctx_memory (ctx), ==, derived);

  /* back to rk8pd, then a model switch: a seek could bring msbdf back, which the switch
   * would keep, so the new system's Jacobian is derived here too */
  g_autoptr (CmlSystem) top = load_system ("heavy-top");
  CmlExprCtx *ctx3 = cml_system_get_model (top)->ctx;
  o.kind = CML_INTEGRATOR_RK8PD;
  cml_runner_set_integrator (runner, &o);
  gsize before3 = cml_expr_ctx_memory (ctx3);
  cml_runner_set_system (runner, top);
  g_assert_cmpuint (cml_expr_ctx_memory (ctx3), >, before3);
  cml_runner_sync (runner);
  o.kind = CML_INTEGRATOR_MSBDF;
  cml_runner_set_integrator (runner, &o);

  /* a model switch keeps msbdf: the new system's Jacobian and initial-data relations, here */
  gsize before2 = cml_expr_ctx_memory (ctx2);
  cml_runner_set_system (runner, martinet);
  gsize derived2 = cml_expr_ctx_memory (ctx2);
  g_assert_cmpuint (derived2, >, before2);
  cml_runner_step (runner, 0.5);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat_with_epsilon (f->t, 0.5, 1e-12);
  cml_frame_unref (f);
  g_assert_cmpuint (cml_expr_ctx_memory (ctx2), ==, derived2);
}

/* A parameter change takes effect live: with the table stopped (Omega = 0) the ball rolls
 * on a straight line at constant velocity. */
static void
test_set_param (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlRunnerOptions opts = cml_runner_options_default ();
  g_autoptr (CmlRunner) runner = NULL;
  int iu = cml_system_observable_index (sys, "u"), iv = cml_system_observable_index (sys, "v");
  int iomega = cml_model_param_index (cml_system_get_model (sys), "Omega");
  double t_change, u_before_min = INFINITY, u_before_max = -INFINITY, u0 = NAN, v0 = NAN;
  guint64 cursor = 0;
  guint n_after = 0;
  History h;
  CmlFrame *f;


  g_assert_cmpint (iu, >=, 0);
  g_assert_cmpint (iv, >=, 0);
  opts.speed = 4;
  runner = cml_runner_new (sys, &opts, &error);
  g_assert_no_error (error);

  /* the table turns for a while (≥ 0.3 s of the model's time), then stops */
  cml_runner_play (runner);
  cml_frame_unref (wait_for_time (runner, 0.3));
  cml_runner_set_param (runner, "Omega", 0.0);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  t_change = f->t;
  g_assert_cmpint (f->state, ==, CML_RUNNER_RUNNING);
  g_assert_cmpfloat (f->params[iomega], ==, 0.0);
  g_assert_null (f->message);
  cml_frame_unref (f);
  g_assert_cmpfloat (t_change, >=, 0.3);

  /* and runs on still (≥ 0.3 s more: well over 10 samples) */
  cml_frame_unref (wait_for_time (runner, t_change + 0.3));
  cml_runner_pause (runner);
  cml_runner_sync (runner);

  history_init (&h, n_cols_of (sys));
  history_read_all (runner, &cursor, &h);
  for (guint i = 0; i < h.t->len; i++)
    {
      double ti = g_array_index (h.t, double, i);
      const double *row = &g_array_index (h.vals, double, i * h.n_cols);

      if (ti < t_change - 1e-12)
        {
          u_before_min = MIN (u_before_min, row[iu]);
          u_before_max = MAX (u_before_max, row[iu]);
        }
      else if (ti > t_change + 2 * opts.sample_dt)
        {
          if (n_after++ == 0)
            {
              u0 = row[iu];
              v0 = row[iv];
            }
          g_assert_cmpfloat_with_epsilon (row[iu], u0, 1e-9);
          g_assert_cmpfloat_with_epsilon (row[iv], v0, 1e-9);
        }
    }
  /* the turning table did accelerate the ball before */
  g_assert_cmpfloat (u_before_max - u_before_min, >, 1e-3);
  g_assert_cmpuint (n_after, >=, 10);
  history_clear (&h);

  /* a value out of range is refused with a message; the run is unharmed */
  cml_runner_set_param (runner, "Omega", 1000.0);
  cml_runner_set_param (runner, "no-such-parameter", 1.0);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_nonnull (f->message);
  g_assert_nonnull (strstr (f->message, "no-such-parameter"));
  g_assert_cmpfloat (f->params[iomega], ==, 0.0);
  cml_frame_unref (f);
  cml_runner_set_param (runner, "Omega", 1000.0);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_nonnull (f->message);
  g_assert_nonnull (strstr (f->message, "Omega"));
  cml_frame_unref (f);
  cml_runner_step (runner, 0.1);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_null (f->message);
  cml_frame_unref (f);

  /* another integrator, live */
  {
    CmlIntegratorOptions io = cml_integrator_options_default ();
    double t0;

    io.kind = CML_INTEGRATOR_RKF45;
    io.rtol = 1e-8;
    f = cml_runner_get_frame (runner);
    t0 = f->t;
    cml_frame_unref (f);
    cml_runner_set_integrator (runner, &io);
    cml_runner_step (runner, 0.25);
    cml_runner_sync (runner);
    f = cml_runner_get_frame (runner);
    g_assert_null (f->message);
    g_assert_cmpfloat_with_epsilon (f->t, t0 + 0.25, 1e-12);
    cml_frame_unref (f);
    io.rtol = -1;  /* refused */
    cml_runner_set_integrator (runner, &io);
    cml_runner_sync (runner);
    f = cml_runner_get_frame (runner);
    g_assert_nonnull (f->message);
    g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
    cml_frame_unref (f);
  }
}

/* reset starts a new generation at t = 0; set_system switches model, row layout and all. */
static void
test_reset_and_switch (void)
{
  g_autoptr (CmlSystem) ball = load_system ("rolling-ball");
  g_autoptr (CmlSystem) martinet = load_system ("martinet");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (ball, NULL, &error);
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  guint ball_cols = n_cols_of (ball), martinet_cols = n_cols_of (martinet);
  g_autofree double *t = g_new (double, 256);
  g_autofree double *v = g_new (double, 256 * MAX (ball_cols, martinet_cols));
  guint64 cursor = 0, dropped = 0, cursor2;
  guint gen0, gen1, n;
  int ix = cml_system_observable_index (ball, "x");
  CmlFrame *f;


  g_assert_no_error (error);
  g_assert_cmpuint (ball_cols, !=, martinet_cols);

  cml_runner_step (runner, 0.3);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  gen0 = f->generation;
  cml_frame_unref (f);
  n = cml_runner_read_history (runner, &cursor, ball_cols, t, v, 256, &dropped);
  g_assert_cmpuint (n, ==, 37);
  g_assert_cmpuint (dropped, ==, 0);

  /* reset: t = 0, a new generation, the given value used */
  g_hash_table_insert (given, (gpointer) "x", g_memdup2 (&(double) { 2.0 }, sizeof (double)));
  cml_runner_step (runner, 0.2);
  cml_runner_reset (runner, given);
  g_hash_table_remove_all (given);  /* the runner keeps its own copy */
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  gen1 = f->generation;
  g_assert_cmpuint (gen1, >, gen0);
  g_assert_cmpfloat (f->t, ==, 0.0);
  g_assert_cmpfloat (f->obs[ix], ==, 2.0);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (f);
  /* the rows of the old generation that were not read are skipped */
  n = cml_runner_read_history (runner, &cursor, ball_cols, t, v, 256, &dropped);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (t[0], ==, 0.0);
  g_assert_cmpfloat (v[ix], ==, 2.0);

  /* switch to martinet */
  cml_runner_step (runner, 0.1);
  cml_runner_sync (runner);
  cursor2 = cursor;
  cml_runner_set_system (runner, martinet);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_true (f->system == martinet);
  g_assert_cmpuint (f->n_obs, ==, cml_system_n_observables (martinet));
  g_assert_cmpuint (f->n_scene, ==, cml_system_n_scene_values (martinet));
  g_assert_cmpuint (f->dim, ==, cml_system_dim (martinet));
  g_assert_cmpuint (f->generation, >, gen1);
  g_assert_cmpfloat (f->t, ==, 0.0);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (f);
  /* the old layout reads nothing (and the cursor stays), the new one the new rows */
  n = cml_runner_read_history (runner, &cursor, ball_cols, t, v, 256, &dropped);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (cursor, ==, cursor2);
  cml_runner_step (runner, 0.5);
  cml_runner_sync (runner);
  n = cml_runner_read_history (runner, &cursor, martinet_cols, t, v, 256, &dropped);
  g_assert_cmpuint (n, ==, 61);
  g_assert_cmpuint (dropped, ==, 0);
  g_assert_cmpfloat (t[0], ==, 0.0);
  g_assert_cmpfloat_with_epsilon (t[60], 0.5, 1e-12);

  /* back to the ball while running: still running */
  cml_runner_play (runner);
  cml_runner_set_system (runner, ball);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_true (f->system == ball);
  g_assert_cmpint (f->state, ==, CML_RUNNER_RUNNING);
  cml_frame_unref (f);
  cml_runner_pause (runner);
  cml_runner_sync (runner);
}

/* A reader that falls a whole ring behind is told how many samples it lost. */
static void
test_history_dropped (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlRunnerOptions opts = cml_runner_options_default ();
  g_autoptr (CmlRunner) runner = NULL;
  guint n_cols = n_cols_of (sys);
  g_autofree double *t = g_new (double, 64);
  g_autofree double *v = g_new (double, 64 * n_cols);
  guint64 cursor = 0, dropped = 0;
  guint n;


  opts.history_capacity = 16;
  runner = cml_runner_new (sys, &opts, &error);
  g_assert_no_error (error);
  cml_runner_step (runner, 1.0);  /* 121 samples */
  cml_runner_sync (runner);
  n = cml_runner_read_history (runner, &cursor, n_cols, t, v, 10, &dropped);
  g_assert_cmpuint (n, ==, 10);
  g_assert_cmpuint (dropped, ==, 121 - 16);
  g_assert_cmpfloat_with_epsilon (t[0], 105 / 120.0, 1e-12);
  n = cml_runner_read_history (runner, &cursor, n_cols, t, v, 64, &dropped);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpuint (dropped, ==, 0);
  g_assert_cmpfloat_with_epsilon (t[5], 1.0, 1e-12);
  g_assert_cmpuint (cursor, ==, 121);
}

static const char diverging_model[] =
  "[model]\n"
  "name = diverging\n"
  "title = x'' = 6 x^5 blows up in finite time\n"
  "[algebroid]\n"
  "base = x\n"
  "fibre = u\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "[dynamics]\n"
  "lagrangian = u^2/2 + x^6\n"
  "[initial]\n"
  "x = 1\n"
  "u = 1\n";

/* A run that blows up stops with the reason; reset and step work again afterwards. */
static void
test_failure (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-runner-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlRunner) runner = NULL;
  g_autoptr (GHashTable) bad = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  double t_fail;
  CmlFrame *f;


  g_assert_no_error (error);
  path = g_build_filename (dir, "diverging.cml", NULL);
  g_assert_true (g_file_set_contents (path, diverging_model, -1, &error));
  g_assert_no_error (error);
  model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  runner = cml_runner_new (sys, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);

  cml_runner_set_speed (runner, 4.0);
  cml_runner_play (runner);
  f = wait_for_state (runner, CML_RUNNER_FAILED);
  g_assert_cmpint (f->state, ==, CML_RUNNER_FAILED);
  g_assert_nonnull (f->message);
  g_test_message ("failure: %s", f->message);
  g_assert_nonnull (strstr (f->message, "t = "));
  g_assert_true (isfinite (f->t));
  g_assert_cmpfloat (f->t, >, 0.0);
  g_assert_cmpfloat (f->t, <, 2.0);
  t_fail = f->t;
  cml_frame_unref (f);

  /* it stays failed (paused): time does not move */
  g_usleep (50000);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_FAILED);
  g_assert_cmpfloat (f->t, ==, t_fail);
  cml_frame_unref (f);

  /* a pause keeps the reason; a reset and a step work again */
  cml_runner_pause (runner);
  cml_runner_reset (runner, NULL);
  cml_runner_step (runner, 0.1);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_null (f->message);
  g_assert_cmpfloat_with_epsilon (f->t, 0.1, 1e-12);
  cml_frame_unref (f);

  /* a reset that cannot be done fails the run with the reason, and a good one recovers */
  g_hash_table_insert (bad, (gpointer) "no_such_coordinate",
                       g_memdup2 (&(double) { 1.0 }, sizeof (double)));
  cml_runner_reset (runner, bad);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_FAILED);
  g_assert_nonnull (f->message);
  g_assert_nonnull (strstr (f->message, "no_such_coordinate"));
  cml_frame_unref (f);
  cml_runner_reset (runner, NULL);
  cml_runner_play (runner);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_RUNNING);
  g_assert_null (f->message);
  cml_frame_unref (f);
  /* and it blows up again, the same way */
  f = wait_for_state (runner, CML_RUNNER_FAILED);
  g_assert_cmpint (f->state, ==, CML_RUNNER_FAILED);
  g_assert_cmpfloat_with_epsilon (f->t, t_fail, 1e-9);
  cml_frame_unref (f);
}

/* Simulated time follows speed × wall time. */
static void
test_speed (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (sys, NULL, &error);
  CmlFrame *f;


  g_assert_no_error (error);
  cml_runner_set_speed (runner, 10.0);
  gint64 w0 = g_get_monotonic_time ();
  cml_runner_play (runner);
  /* it moves: wait for simulated time 1 (a state: a busy machine may give the worker no
   * processor for a while, but it comes) */
  cml_frame_unref (wait_for_time (runner, 1.0));
  cml_runner_pause (runner);
  cml_runner_sync (runner);
  double wall = (g_get_monotonic_time () - w0) / 1e6;
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->speed, ==, 10.0);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  /* never ahead of speed × wall time (how far behind depends on the machine: a busy or
   * instrumented one falls behind, which test_lagging covers) */
  g_assert_cmpfloat (f->t, >=, 1.0);
  g_assert_cmpfloat (f->t, <=, 10.0 * wall + 0.5);
  cml_frame_unref (f);
}

/* A speed the machine cannot follow is reported, and the UI side stays responsive. */
static void
test_lagging (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlRunnerOptions opts = cml_runner_options_default ();
  g_autoptr (CmlRunner) runner = NULL;
  gboolean lagging = FALSE;
  double worst = 0, start, t_sync;
  guint64 cursor = 0;
  CmlFrame *f;


  opts.frame_period = 0.002;
  opts.speed = 1e6;
  runner = cml_runner_new (sys, &opts, &error);
  g_assert_no_error (error);
  cml_runner_play (runner);
  cml_runner_sync (runner);

  /* read frames and history while the worker runs, until it has said it lags and gone past
   * t = 10 (states: a busy machine may give the worker little processor time, but some;
   * a worker that never says so fails by the 10-minute bound) */
  start = (g_get_monotonic_time () / 1e6);
  for (double t_now = 0; !lagging || t_now <= 10.0;)
    {
      double t0 = (g_get_monotonic_time () / 1e6), dt;
      g_autofree double *t = g_new (double, 32);
      g_autofree double *v = g_new (double, 32 * n_cols_of (sys));

      f = cml_runner_get_frame (runner);
      dt = (g_get_monotonic_time () / 1e6) - t0;
      worst = MAX (worst, dt);
      lagging |= f->lagging;
      t_now = f->t;
      g_assert_cmpint (f->state, ==, CML_RUNNER_RUNNING);
      cml_frame_unref (f);
      cml_runner_read_history (runner, &cursor, n_cols_of (sys), t, v, 32, NULL);
      if (t0 - start > 600)
        g_error ("after 10 minutes at speed 10⁶: lagging %d, t = %g", lagging, t_now);
      g_usleep (1000);
    }
  /* how long a reader waited is the machine's business (a busy one preempts the reader at
   * any moment): reported, not asserted; that readers never wait for a slice is by
   * construction (frame_lock is held for a pointer swap) */
  g_test_message ("slowest get_frame while the worker is busy: %.3f ms", 1e3 * worst);
  g_assert_true (lagging);

  /* commands are taken between slices: at a speed the run never reaches the end of, a
   * sync is answered at all (were commands taken only after the run, it would hang, and
   * the test's time-out says so) and the run is still going afterwards */
  start = (g_get_monotonic_time () / 1e6);
  cml_runner_sync (runner);
  t_sync = (g_get_monotonic_time () / 1e6) - start;
  g_test_message ("sync while busy: %.3f ms", 1e3 * t_sync);

  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_RUNNING);
  g_assert_cmpfloat (f->t, >, 10.0);
  g_assert_cmpfloat (f->wall_ms_per_slice, >, 0.0);
  cml_frame_unref (f);

  /* at a speed it can follow, the flag goes away again */
  cml_runner_set_speed (runner, 1.0);
  {
    Awaited w = AWAIT_ANY;

    w.lagging = 0;
    cml_frame_unref (wait_for_frame (runner, w));
  }
}

/* Freeing a runner in the middle of work returns promptly. */
static void
test_free_while_busy (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlRunner *runner = cml_runner_new (sys, NULL, &error);
  double start;


  g_assert_no_error (error);
  cml_runner_play (runner);
  cml_runner_step (runner, 1e9);  /* would take hours */
  cml_runner_play (runner);
  g_usleep (50000);
  /* a free that waited for the step to end would take hours: the test's time-out catches
   * it; how long it took is the machine's business */
  start = (g_get_monotonic_time () / 1e6);
  cml_runner_free (runner);
  g_test_message ("free while busy: %.3f ms", 1e3 * ((g_get_monotonic_time () / 1e6) - start));

  /* and right after creation */
  runner = cml_runner_new (sys, NULL, &error);
  g_assert_no_error (error);
  cml_runner_play (runner);
  cml_runner_free (runner);
}

/* ---- the storm ---------------------------------------------------------------------------- */

typedef struct
{
  CmlRunner  *runner;
  CmlSystem  *systems[2];
  atomic_bool stop;
  atomic_uint reads;
  atomic_uint rows;
} Storm;

static void *
storm_reader (void *data)
{
  Storm *s = data;
  guint64 cursor = 0, last_seq = 0;
  enum { MAX_ROWS = 50 };
  double t[MAX_ROWS];
  double *v = g_new (double, MAX_ROWS * 256);

  while (!atomic_load (&s->stop))
    {
      CmlFrame *f = cml_runner_get_frame (s->runner);
      guint n_cols, n;

      /* a frame is consistent with its own system */
      g_assert_true (f->system == s->systems[0] || f->system == s->systems[1]);
      g_assert_cmpuint (f->n_obs, ==, cml_system_n_observables (f->system));
      g_assert_cmpuint (f->n_scene, ==, cml_system_n_scene_values (f->system));
      g_assert_cmpuint (f->dim, ==, cml_system_dim (f->system));
      g_assert_cmpuint (f->seq, >=, last_seq);
      g_assert_true (isfinite (f->t) && f->t >= 0);
      for (guint i = 0; i < f->n_obs; i++)
        g_assert_true (isfinite (f->obs[i]) || f->state == CML_RUNNER_FAILED);
      last_seq = f->seq;
      n_cols = n_cols_of (f->system);
      g_assert_cmpuint (n_cols, <=, 256);
      cml_frame_unref (f);

      /* rows come in time order within one read */
      n = cml_runner_read_history (s->runner, &cursor, n_cols, t, v, MAX_ROWS, NULL);
      g_assert_cmpuint (n, <=, MAX_ROWS);
      for (guint i = 1; i < n; i++)
        g_assert_cmpfloat (t[i], >, t[i - 1]);
      atomic_fetch_add (&s->reads, 1);
      atomic_fetch_add (&s->rows, n);
      if (n < MAX_ROWS)
        g_usleep (200);
    }
  g_free (v);
  return NULL;
}

static void *
storm_writer (void *data)
{
  Storm *s = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());

  for (guint i = 0; i < 2000; i++)
    {
      switch (g_rand_int_range (rand, 0, 9))
        {
        case 0: cml_runner_play (s->runner); break;
        case 1: cml_runner_pause (s->runner); break;
        case 2: cml_runner_step (s->runner, g_rand_double_range (rand, 0, 0.05)); break;
        case 3: cml_runner_set_speed (s->runner, g_rand_double_range (rand, 0.1, 20)); break;
        /* Omega and r have these ranges in both models */
        case 4: cml_runner_set_param (s->runner, "Omega", g_rand_double_range (rand, -5, 5)); break;
        case 5: cml_runner_set_param (s->runner, "r", g_rand_double_range (rand, 0.5, 2)); break;
        case 6: cml_runner_reset (s->runner, NULL); break;
        case 7: cml_runner_set_system (s->runner, s->systems[g_rand_int_range (rand, 0, 2)]); break;
        case 8: cml_runner_play (s->runner); g_usleep (g_rand_int_range (rand, 0, 2000)); break;
        }
      if (i % 50 == 0)
        g_usleep (1000);
    }
  return NULL;
}

static void
test_storm (void)
{
  g_autoptr (CmlSystem) ball = load_system ("rolling-ball");
  g_autoptr (CmlSystem) plate = load_system ("plate-ball");
  g_autoptr (GError) error = NULL;
  CmlRunnerOptions opts = cml_runner_options_default ();
  Storm s = { 0 };
  pthread_t readers[2], writer;
  double start = (g_get_monotonic_time () / 1e6);
  CmlFrame *f;

  /* a deadlock kills the test instead of hanging it */

  opts.history_capacity = 4096;
  s.runner = cml_runner_new (ball, &opts, &error);
  g_assert_no_error (error);
  s.systems[0] = ball;
  s.systems[1] = plate;
  atomic_init (&s.stop, false);
  atomic_init (&s.reads, 0);
  atomic_init (&s.rows, 0);

  for (guint i = 0; i < 2; i++)
    g_assert_cmpint (pthread_create (&readers[i], NULL, storm_reader, &s), ==, 0);
  g_assert_cmpint (pthread_create (&writer, NULL, storm_writer, &s), ==, 0);
  pthread_join (writer, NULL);
  cml_runner_sync (s.runner);
  g_assert_cmpuint (cml_runner_n_commands (s.runner), >=, 2000);

  /* still answering commands correctly */
  cml_runner_reset (s.runner, NULL);
  cml_runner_step (s.runner, 0.25);
  cml_runner_sync (s.runner);
  f = cml_runner_get_frame (s.runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat_with_epsilon (f->t, 0.25, 1e-12);
  cml_frame_unref (f);

  atomic_store (&s.stop, true);
  for (guint i = 0; i < 2; i++)
    pthread_join (readers[i], NULL);
  cml_runner_free (s.runner);
  g_test_message ("storm: %u reads, %u rows, %.2f s", atomic_load (&s.reads),
                  atomic_load (&s.rows), (g_get_monotonic_time () / 1e6) - start);
  g_assert_cmpuint (atomic_load (&s.reads), >, 0);
}


/* ---- the timeline ----------------------------------------------------------------------- */

/* Plays on from wherever the runner stands until the frame's time reaches T (at speed 20),
 * then pauses.  The path does not depend on the pacing: the worker always advances sample
 * by sample to the grid times k × sample_dt. */
static void
play_until (CmlRunner *runner, double t)
{
  double end = g_get_monotonic_time () / 1e6 + 60;

  cml_runner_set_speed (runner, 20);
  cml_runner_play (runner);
  for (;;)
    {
      CmlFrame *f = cml_runner_get_frame (runner);
      gboolean done = f->t >= t || f->state == CML_RUNNER_FAILED;

      cml_frame_unref (f);
      if (done || g_get_monotonic_time () / 1e6 > end)
        break;
      g_usleep (2000);
    }
  cml_runner_pause (runner);
  cml_runner_sync (runner);
}

/* The state the runner shows after seeking to T (a copy the caller frees). */
static double *
state_at (CmlRunner *runner, double t, guint dim)
{
  CmlFrame *f;
  double *z;

  cml_runner_seek (runner, t);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (f->t, ==, t);
  g_assert_cmpuint (f->dim, ==, dim);
  z = g_memdup2 (f->state_values, dim * sizeof (double));
  cml_frame_unref (f);
  return z;
}

/* Run to T, seek back to t_k, play on past T: the state at T is the first run's bit for
 * bit, because the restart puts back the state, the time and the integrator's step state
 * (step size; the implicit midpoint rule's compensation).  The recorded future is dropped
 * when the run goes on: readers see a new generation whose rows repeat the first run's. */
static void
seek_bit_for_bit (CmlIntegratorKind kind, gboolean switched)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (sys, NULL, &error);
  CmlIntegratorOptions o = cml_integrator_options_default ();
  const double T = 2.0, tk = 0.75;  /* sample times: 240/120 and 90/120 */
  guint dim = cml_system_dim (sys), n_cols = n_cols_of (sys);
  g_autofree double *z1 = NULL, *z2 = NULL, *zk = NULL;
  History first, second;
  guint64 cursor = 0, cursor2 = 0;
  CmlFrame *f;
  guint n_same = 0;

  g_assert_no_error (error);
  if (switched)
    {
      /* the record laid out (a model's switch) while an integrator with a small step
       * state runs (rk4: 1 + dim numbers a row), then one that saves more (dop853: its
       * dense output, 10 dim and more): each row must hold the larger state whole */
      o.kind = CML_INTEGRATOR_RK4;
      cml_runner_set_integrator (runner, &o);
      cml_runner_set_system (runner, sys);
      cml_runner_sync (runner);
      o = cml_integrator_options_default ();
    }
  o.kind = kind;
  o.rtol = 1e-9;
  o.atol = 1e-11;
  cml_runner_set_integrator (runner, &o);

  /* the first run, to T */
  cml_runner_step (runner, T);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_null (f->message);
  g_assert_cmpfloat (f->t, ==, T);
  z1 = g_memdup2 (f->state_values, dim * sizeof (double));
  g_assert_false (f->in_record);
  g_assert_cmpfloat (f->recorded_t0, ==, 0.0);
  g_assert_cmpfloat (f->recorded_t1, ==, T);
  cml_frame_unref (f);
  history_init (&first, n_cols);
  history_read_all (runner, &cursor, &first);

  /* back to t_k: the recorded moment, its future still there */
  zk = state_at (runner, tk, dim);
  f = cml_runner_get_frame (runner);
  g_assert_true (f->in_record);
  g_assert_cmpfloat (f->recorded_t1, ==, T);
  cml_frame_unref (f);
  /* stepping forward moves along the record, and back again */
  cml_runner_step (runner, 0.25);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 1.0);
  g_assert_true (f->in_record);
  cml_frame_unref (f);
  cml_runner_step_back (runner, 0.25);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, tk);
  g_assert_cmpmem (f->state_values, dim * sizeof (double), zk, dim * sizeof (double));
  cml_frame_unref (f);

  /* play on from t_k past T */
  play_until (runner, T + 0.2);
  f = cml_runner_get_frame (runner);
  g_assert_null (f->message);
  g_assert_false (f->in_record);
  g_assert_cmpfloat (f->recorded_t0, ==, 0.0);
  cml_frame_unref (f);
  z2 = state_at (runner, T, dim);
  g_assert_cmpint (memcmp (z1, z2, dim * sizeof (double)), ==, 0);

  /* the readers' view: a new generation, rows 0 … T equal to the first run's */
  history_init (&second, n_cols);
  history_read_all (runner, &cursor2, &second);
  g_assert_cmpuint (second.t->len, >=, first.t->len);
  for (guint i = 0; i < first.t->len; i++)
    {
      g_assert_cmpfloat (g_array_index (second.t, double, i), ==, g_array_index (first.t, double, i));
      if (memcmp (&g_array_index (second.vals, double, (gsize) i * n_cols),
                  &g_array_index (first.vals, double, (gsize) i * n_cols), n_cols * sizeof (double)) == 0)
        n_same++;
    }
  g_assert_cmpuint (n_same, ==, first.t->len);
  /* the old reader's cursor sees the new generation start over at t = 0 */
  history_clear (&first);
  history_init (&first, n_cols);
  history_read_all (runner, &cursor, &first);
  g_assert_cmpuint (first.t->len, >, 0);
  g_assert_cmpfloat (g_array_index (first.t, double, 0), ==, 0.0);
  history_clear (&first);
  history_clear (&second);
}

static void
test_seek_bit_for_bit (gconstpointer data)
{
  seek_bit_for_bit (GPOINTER_TO_INT (data), FALSE);
}

/* The same after the integrator is changed for one whose step state is larger than the
 * one the record was laid out for (a lesson's step or the menu may do it at any time):
 * the rows must not overlap, nor the last one run past the record's end. */
static void
test_seek_after_switch (void)
{
  seek_bit_for_bit (CML_INTEGRATOR_DOP853, TRUE);
}

/* Reversed time integrates the same equations backwards from the current state and
 * pauses at t = 0, back at the start (here within the tolerances: rk8pd at rtol 1e-10
 * on the rolling ball, Omega = 1); the frames report the distance to the start.  Going
 * forward again drops the recorded future beyond the current time. */
static void
test_reverse (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRunner) runner = cml_runner_new (sys, NULL, &error);
  CmlFrame *f;
  double far;

  g_assert_no_error (error);
  cml_runner_step (runner, 3.0);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  far = f->distance;
  g_assert_cmpfloat (far, >, 0.1);
  g_assert_cmpint (f->direction, ==, 1);
  g_assert_cmpstr (f->distance_unit, ==, "m");  /* measured over x and y, the positions in m */
  cml_frame_unref (f);

  /* one step back in reversed time integrates (off the record) */
  cml_runner_set_reversed (runner, TRUE);
  cml_runner_step (runner, 0.5);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->direction, ==, -1);
  g_assert_cmpfloat_with_epsilon (f->t, 2.5, 1e-12);
  g_assert_true (f->in_record);
  g_assert_cmpfloat (f->recorded_t1, ==, 3.0);
  cml_frame_unref (f);

  /* play: time runs down to 0 and the run pauses there, back at its start */
  cml_runner_set_speed (runner, 20);
  cml_runner_play (runner);
  cml_runner_sync (runner);
  f = wait_for_state (runner, CML_RUNNER_PAUSED);
  cml_frame_unref (f);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (f->t, ==, 0.0);
  g_assert_cmpfloat (f->distance, <, 1e-8);
  g_test_message ("back at t = 0: distance %.3g (it was %.3g at t = 3)", f->distance, far);
  cml_frame_unref (f);
  /* play at the start, backwards: nothing to do */
  cml_runner_play (runner);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (f);

  /* forward from t = 1.5 reached backwards: the record is cut there */
  cml_runner_set_reversed (runner, FALSE);
  cml_runner_step (runner, 1.5);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->direction, ==, 1);
  g_assert_cmpfloat (f->recorded_t1, ==, 1.5);
  g_assert_false (f->in_record);
  cml_frame_unref (f);
}

/* A slice that passes its deadline stops after the sample that passed it and says the run
 * is lagging, however few samples its target asked for: a slice of at most a few samples
 * (a large system's, each longer than the slice) used to run on to its target and never
 * report the lag.  With a deadline that every sample passes, each slice integrates one
 * sample: the simulated time of a frame is at most one sample per frame published. */
static void
test_lagging_slow_samples (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlRunnerOptions opts = cml_runner_options_default ();
  g_autoptr (CmlRunner) runner = NULL;
  CmlFrame *f;
  guint64 seq0;

  opts.frame_period = 1e-9; /* every sample passes the slice's deadline */
  opts.speed = 1e6;         /* and the target is far ahead */
  runner = cml_runner_new (sys, &opts, &error);
  g_assert_no_error (error);
  f = cml_runner_get_frame (runner);
  seq0 = f->seq;
  cml_frame_unref (f);
  cml_runner_play (runner);

  for (;;)
    {
      f = cml_runner_get_frame (runner);
      if (f->t >= 100 * opts.sample_dt && f->state == CML_RUNNER_RUNNING)
        break;
      g_assert_cmpint (f->state, !=, CML_RUNNER_FAILED);
      cml_frame_unref (f);
      g_usleep (1000);
    }
  g_test_message ("t = %g (%.0f samples) after %" G_GUINT64_FORMAT " frames", f->t,
                  f->t / opts.sample_dt, f->seq - seq0);
  g_assert_true (f->lagging);
  /* one sample a slice (a frame each), the play command's frame besides */
  g_assert_cmpfloat (f->t / opts.sample_dt, <=, (double) (f->seq - seq0) + 0.5);
  cml_frame_unref (f);
}

/* ---- the caller does not wait for the record's memory ------------------------------ */

/* The record (the history ring and its restart data) grows with the number of observables
 * and state variables: 300 MB for a 50-link pendulum.  The caller of cml_runner_new (the
 * window's main thread) does not make it resident page by page — the worker does, before
 * it carries out a command — so the caller's page faults do not grow with the record (the
 * memory is still taken at load: tools/soak-window and test-soak watch it). */
static void
test_record_resident_on_worker_body (void)
{
  CmlRunnerOptions o = cml_runner_options_default ();
  g_autoptr (GError) error = NULL;
  long faults_small, faults_large;
  double record_bytes;

  o.history_capacity = 8192;
  g_autoptr (CmlSystem) small = particles_system (1);
  g_autoptr (CmlSystem) large = particles_system (60);
  /* what the large system's record holds per row, at least: observables, state, step state */
  record_bytes = (double) o.history_capacity * sizeof (double)
                 * (n_cols_of (large) + 2.0 * cml_system_dim (large));

  /* derive what the runner would (its first simulation's programs), so that both calls
   * below cost the record and little else */
  {
    g_autoptr (CmlRunner) warm1 = cml_runner_new (small, &o, &error);
    g_autoptr (CmlRunner) warm2 = cml_runner_new (large, &o, &error);
    g_assert_no_error (error);
  }

  long f0 = thread_page_faults ();
  g_autoptr (CmlRunner) r_small = cml_runner_new (small, &o, &error);
  g_assert_no_error (error);
  faults_small = thread_page_faults () - f0;

  f0 = thread_page_faults ();
  g_autoptr (CmlRunner) r_large = cml_runner_new (large, &o, &error);
  g_assert_no_error (error);
  faults_large = thread_page_faults () - f0;
  g_test_message ("page faults on the caller: %ld (2 state variables), %ld (120); record %.1f MB",
                  faults_small, faults_large, record_bytes / 1048576.0);
  g_assert_cmpfloat ((double) (faults_large - faults_small) * sysconf (_SC_PAGESIZE), <, 0.25 * record_bytes);
  cml_runner_sync (r_large);
}

/* The page faults are counted in a process whose malloc () does not fill what it hands
 * out (meson sets MALLOC_PERTURB_, which writes every block on the caller's thread). */
static void
test_record_resident_on_worker (void)
{
  if (PARTICLES_UNDER_SANITIZER)
    {
      g_test_skip ("a sanitizer's allocator writes its shadow of each block on the allocating thread "
                   "(the build without sanitizers counts the faults)");
      return;
    }
  if (g_test_subprocess ())
    {
      test_record_resident_on_worker_body ();
      return;
    }
  /* (no native code is being built in the background while the environment changes) */
  cml_native_wait ();
  g_setenv ("MALLOC_PERTURB_", "0", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* ---- main ------------------------------------------------------------------------------- */

int
main (int argc, char *argv[])
{
  int status;

  /* As the programs do: GSL reports errors by status, not by abort (). */
  gsl_set_error_handler_off ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/runner/play-pause", test_play_pause);
  g_test_add_func ("/core/runner/step", test_step);
  g_test_add_func ("/core/runner/set-param", test_set_param);
  g_test_add_func ("/core/runner/reset-and-switch", test_reset_and_switch);
  g_test_add_func ("/core/runner/history-dropped", test_history_dropped);
  g_test_add_func ("/core/runner/failure", test_failure);
  g_test_add_func ("/core/runner/speed", test_speed);
  g_test_add_func ("/core/runner/lagging", test_lagging);
  g_test_add_func ("/core/runner/lagging-slow-samples", test_lagging_slow_samples);
  g_test_add_func ("/core/runner/free-while-busy", test_free_while_busy);
  g_test_add_func ("/core/runner/storm", test_storm);
  g_test_add_func ("/core/runner/prepares-on-caller", test_prepares_on_caller);
  g_test_add_func ("/core/runner/record-resident-on-worker", test_record_resident_on_worker);
  g_test_add_data_func ("/core/runner/seek-bit-for-bit/rk8pd", GINT_TO_POINTER (CML_INTEGRATOR_RK8PD),
                        test_seek_bit_for_bit);
  g_test_add_data_func ("/core/runner/seek-bit-for-bit/rkf45", GINT_TO_POINTER (CML_INTEGRATOR_RKF45),
                        test_seek_bit_for_bit);
  g_test_add_data_func ("/core/runner/seek-bit-for-bit/implicit-midpoint",
                        GINT_TO_POINTER (CML_INTEGRATOR_IMPLICIT_MIDPOINT), test_seek_bit_for_bit);
  g_test_add_func ("/core/runner/seek-bit-for-bit/after-switch", test_seek_after_switch);
  g_test_add_func ("/core/runner/reverse", test_reverse);

  status = g_test_run ();
  return status;
}
