/* test-recording.c — a recorded motion played instead of integrating (cml-recording.c):
 * its interpolation (exact on rows and on quadratics, third order on a smooth motion),
 * its refusals, a simulation that plays it (state and observables at any time, reset to
 * its start, no further than its end) and a runner that plays it and pauses at its end.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-recording"

#include "cml-error.h"
#include "cml-recording.h"
#include "cml-runner.h"
#include "cml-simulation.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>

/* The rows a run of SYS writes from t = 0 to T_END at N equal steps, every observable
 * (as `cmlab-cli simulate` and a lesson's recorded motion): names (t first) and values. */
static double *
record_run (CmlSystem *sys, double t_end, guint n, GPtrArray *names)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  guint n_obs = cml_system_n_observables (sys), cols = n_obs + 1;
  double *values = g_new (double, (gsize) (n + 1) * cols);
  CmlIntegratorOptions opts = *cml_simulation_get_integrator (sim);

  g_assert_no_error (error);
  opts.rtol = 1e-12;
  opts.atol = 1e-14;
  g_assert_true (cml_simulation_set_integrator (sim, &opts, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_ptr_array_add (names, g_strdup ("t"));
  for (guint i = 0; i < n_obs; i++)
    g_ptr_array_add (names, g_strdup (cml_system_observable_name (sys, i)));
  for (guint k = 0; k <= n; k++)
    {
      double t = t_end * k / n;

      g_assert_true (cml_simulation_advance (sim, t, &error));
      g_assert_no_error (error);
      values[(gsize) k * cols] = t;
      cml_simulation_observe (sim, values + (gsize) k * cols + 1);
    }
  return values;
}

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

/* On the rows the values themselves; between them a quadratic is reproduced exactly (the
 * slopes are the parabola's), even with rows unequally spaced. */
static void
test_interpolation (void)
{
  const char *names[] = { "y", "t" };
  double ts[] = { 0, 0.1, 0.35, 0.4, 1.0, 1.7 };
  double values[2 * G_N_ELEMENTS (ts)];
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlRecording) rec = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    {
      values[2 * i] = 3 * ts[i] * ts[i] - 2 * ts[i] + 0.5;
      values[2 * i + 1] = ts[i];
    }
  rec = cml_recording_new (names, 2, G_N_ELEMENTS (ts), values, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cml_recording_column (rec, "y"), ==, 0);
  g_assert_cmpint (cml_recording_column (rec, "t"), ==, -1);
  g_assert_cmpint (cml_recording_column (rec, "z"), ==, -1);
  g_assert_cmpfloat (cml_recording_start (rec), ==, 0);
  g_assert_cmpfloat (cml_recording_end (rec), ==, 1.7);
  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    g_assert_cmpfloat (cml_recording_value (rec, 0, ts[i]), ==, values[2 * i]);
  for (double t = 0; t <= 1.7; t += 0.013)
    g_assert_cmpfloat_with_epsilon (cml_recording_value (rec, 0, t), 3 * t * t - 2 * t + 0.5, 1e-13);
  /* outside the rows: the first and the last */
  g_assert_cmpfloat (cml_recording_value (rec, 0, -1), ==, 0.5);
  g_assert_cmpfloat (cml_recording_value (rec, 0, 9), ==, values[2 * 5]);
}

static void
test_refused (void)
{
  const char *no_t[] = { "x", "y" };
  const char *names[] = { "t", "x" };
  double back[] = { 0, 1, 0.5, 2, 0.4, 3 };
  double nan_row[] = { 0, 1, 0.5, NAN };
  double one[] = { 0, 1 };
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autoptr (GError) e4 = NULL;

  g_assert_null (cml_recording_new (no_t, 2, 3, back, &e1));
  g_assert_error (e1, CML_ERROR, CML_ERROR_USAGE);
  g_assert_nonnull (strstr (e1->message, "column t"));
  g_assert_null (cml_recording_new (names, 2, 3, back, &e2));
  g_assert_error (e2, CML_ERROR, CML_ERROR_USAGE);
  g_assert_nonnull (strstr (e2->message, "row 3"));
  g_assert_null (cml_recording_new (names, 2, 2, nan_row, &e3));
  g_assert_nonnull (strstr (e3->message, "x"));
  g_assert_null (cml_recording_new (names, 2, 1, one, &e4));
  g_assert_error (e4, CML_ERROR, CML_ERROR_USAGE);
}

/* A simulation playing a run's rows (Capri–Kobayashi, 1000 rows over 12 s, as a lesson's
 * recorded motion) has, between rows, the run's state and observables to the
 * interpolation's accuracy (third order: ~1e-7 here), and none of its parameters: a mass
 * m₂ = 1.35 recorded plays on a simulation whose m₂ is the model's 1, with the energy of
 * m₂ = 1.35 (computed with m₂ = 1, it would be off by far more). */
static void
test_simulation_plays (void)
{
  g_autoptr (CmlSystem) sys = load_system ("capri-kobayashi");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (CmlSimulation) truth = cml_simulation_new (sys, &error);
  g_autoptr (CmlSimulation) play = cml_simulation_new (sys, &error);
  g_autoptr (CmlRecording) rec = NULL;
  g_autofree double *values = NULL;
  guint n_obs = cml_system_n_observables (sys), dim = cml_system_dim (sys);
  g_autofree double *want = g_new (double, n_obs);
  g_autofree double *got = g_new (double, n_obs);
  int energy = cml_system_observable_index (sys, "energy");
  CmlIntegratorOptions opts;

  g_assert_no_error (error);
  g_assert_cmpint (energy, >=, 0);
  g_assert_true (cml_simulation_set_param (truth, "m2", 1.35, &error));
  opts = *cml_simulation_get_integrator (truth);
  opts.rtol = 1e-12;
  opts.atol = 1e-14;
  g_assert_true (cml_simulation_set_integrator (truth, &opts, &error));
  g_assert_true (cml_simulation_reset (truth, NULL, &error));
  g_assert_no_error (error);

  /* the rows: the truth's own run */
  {
    guint cols = n_obs + 1, n = 1000;
    g_autoptr (CmlSimulation) rows = cml_simulation_new (sys, &error);

    g_assert_true (cml_simulation_set_param (rows, "m2", 1.35, &error));
    g_assert_true (cml_simulation_set_integrator (rows, &opts, &error));
    g_assert_true (cml_simulation_reset (rows, NULL, &error));
    values = g_new (double, (gsize) (n + 1) * cols);
    g_ptr_array_add (names, g_strdup ("t"));
    for (guint i = 0; i < n_obs; i++)
      g_ptr_array_add (names, g_strdup (cml_system_observable_name (sys, i)));
    for (guint k = 0; k <= n; k++)
      {
        values[(gsize) k * cols] = 12.0 * k / n;
        g_assert_true (cml_simulation_advance (rows, values[(gsize) k * cols], &error));
        cml_simulation_observe (rows, values + (gsize) k * cols + 1);
      }
    rec = cml_recording_new ((const char *const *) names->pdata, cols, n + 1, values, &error);
    g_assert_no_error (error);
  }

  g_assert_false (cml_simulation_is_recorded (play));
  g_assert_true (isinf (cml_simulation_get_end (play)));
  g_assert_true (cml_simulation_set_recording (play, rec, &error));
  g_assert_no_error (error);
  g_assert_true (cml_simulation_is_recorded (play));
  g_assert_cmpfloat (cml_simulation_get_end (play), ==, 12);
  g_assert_cmpfloat (cml_simulation_get_param (play, "m2"), ==, 1);
  g_assert_cmpfloat (cml_simulation_get_time (play), ==, 0);

  /* forward, then back, at times between rows */
  for (double t = 0.0043; t < 12; t += 0.731)
    {
      g_assert_true (cml_simulation_advance (truth, t, &error));
      g_assert_true (cml_simulation_advance (play, t, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (cml_simulation_get_time (play), ==, t);
      for (guint i = 0; i < dim; i++)
        g_assert_cmpfloat_with_epsilon (cml_simulation_get_state (play)[i], cml_simulation_get_state (truth)[i], 1e-6);
      cml_simulation_observe (truth, want);
      cml_simulation_observe (play, got);
      for (guint i = 0; i < n_obs; i++)
        g_assert_cmpfloat_with_epsilon (got[i], want[i], 1e-6);
    }
  g_assert_true (cml_simulation_advance (play, 3.3, &error));
  cml_simulation_observe (play, got);
  g_assert_true (cml_simulation_advance (truth, 3.3, &error));
  cml_simulation_observe (truth, want);
  g_assert_cmpfloat_with_epsilon (got[energy], want[energy], 1e-6);

  /* the end is the last row; beyond it the recording says so */
  g_assert_true (cml_simulation_advance (play, 12, &error));
  g_assert_false (cml_simulation_advance (play, 12.5, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
  g_assert_nonnull (strstr (error->message, "recorded motion"));
  g_clear_error (&error);

  /* a reset goes back to its start, whatever is given */
  g_assert_true (cml_simulation_reset (play, NULL, &error));
  g_assert_cmpfloat (cml_simulation_get_time (play), ==, 0);
  for (guint i = 0; i < dim; i++)
    g_assert_cmpfloat (cml_simulation_get_state (play)[i], ==, values[1 + cml_system_observable_index (sys, cml_system_state_name (sys, i))]);

  /* let go: it integrates again (with its own m₂) */
  g_assert_true (cml_simulation_set_recording (play, NULL, &error));
  g_assert_false (cml_simulation_is_recorded (play));
  g_assert_true (cml_simulation_advance (play, 13, &error));
  g_assert_no_error (error);
}

/* A recording that lacks a state variable is refused, naming it. */
static void
test_simulation_refuses (void)
{
  g_autoptr (CmlSystem) sys = load_system ("capri-kobayashi");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  const char *names[] = { "t", "rho" };
  double values[] = { 0, 1, 1, 1.1 };
  g_autoptr (CmlRecording) rec = cml_recording_new (names, 2, 2, values, &error);

  g_assert_no_error (error);
  g_assert_false (cml_simulation_set_recording (sim, rec, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "has no column"));
  g_assert_false (cml_simulation_is_recorded (sim));
}

static CmlFrame *
wait_paused_at (CmlRunner *runner, double t)
{
  gint64 end = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  for (;;)
    {
      CmlFrame *f = cml_runner_get_frame (runner);

      if (f->state == CML_RUNNER_PAUSED && f->t >= t)
        return f;
      if (f->state == CML_RUNNER_FAILED)
        g_error ("the run failed: %s", f->message);
      if (g_get_monotonic_time () > end)
        g_error ("the recording did not reach t = %g paused (t = %g)", t, f->t);
      cml_frame_unref (f);
      g_usleep (2000);
    }
}

/* A runner plays the recording as a run (frames, history) and pauses at its end, where
 * play does nothing; a model switch lets it go. */
static void
test_runner_plays (void)
{
  g_autoptr (CmlSystem) sys = load_system ("capri-kobayashi");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *values = record_run (sys, 2.0, 200, names);
  g_autoptr (CmlRecording) rec = cml_recording_new ((const char *const *) names->pdata, names->len, 201, values, &error);
  CmlRunnerOptions options = cml_runner_options_default ();
  CmlRunner *runner;
  CmlFrame *f;
  int rho = cml_system_observable_index (sys, "rho");
  guint n_cols = cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
  guint64 cursor = 0;
  double t[4096];
  g_autofree double *rows = g_new (double, 4096 * n_cols);
  guint n;

  g_assert_no_error (error);
  options.speed = 20;
  runner = cml_runner_new (sys, &options, &error);
  g_assert_no_error (error);
  cml_runner_set_recording (runner, rec);
  cml_runner_play (runner);
  f = wait_paused_at (runner, 2.0);
  g_assert_cmpfloat (f->t, ==, 2.0);
  g_assert_null (f->message);
  g_assert_cmpfloat (f->obs[rho], ==, values[(gsize) 200 * names->len + 1 + rho]);
  cml_frame_unref (f);
  /* every sample in the history is the recording's */
  n = cml_runner_read_history (runner, &cursor, n_cols, t, rows, 4096, NULL);
  g_assert_cmpuint (n, >, 200);
  g_assert_cmpfloat (t[n - 1], ==, 2.0);
  for (guint k = 0; k < n; k++)
    g_assert_cmpfloat_with_epsilon (rows[(gsize) k * n_cols + rho],
                                    cml_recording_value (rec, (guint) cml_recording_column (rec, "rho"), t[k]), 1e-15);
  /* at the end, play stays paused */
  cml_runner_play (runner);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (f->t, ==, 2.0);
  cml_frame_unref (f);
  /* a reset starts it again */
  cml_runner_reset (runner, NULL);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0);
  cml_frame_unref (f);
  /* let go: the run integrates past the recording's end */
  cml_runner_set_recording (runner, NULL);
  cml_runner_step (runner, 2.5);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat_with_epsilon (f->t, 2.5, 1e-12);
  cml_frame_unref (f);
  cml_runner_free (runner);
}

int
main (int argc, char **argv)
{
  gsl_set_error_handler_off ();
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/recording/interpolation", test_interpolation);
  g_test_add_func ("/core/recording/refused", test_refused);
  g_test_add_func ("/core/recording/simulation-plays", test_simulation_plays);
  g_test_add_func ("/core/recording/simulation-refuses", test_simulation_refuses);
  g_test_add_func ("/core/recording/runner-plays", test_runner_plays);
  return g_test_run ();
}
