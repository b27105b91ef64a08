/* test-scene-view.c — the 3-D view draws every built-in scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each built-in model is simulated for a few seconds; its history goes to a CmlSceneView
 * in a window and a frame of its last state is set by hand (CmlFrame's fields are
 * public).  The view must then cover more than 1 % of its pixels with something other
 * than the background.  Where no GL context can be made (no display, no GL) the GL
 * checks skip, they do not fail.
 */
#define G_LOG_DOMAIN "test-scene-view"

#include <gtk/gtk.h>
#include <math.h>

#include "cml-as-vakonomic.h"
#include "cml-camera.h"
#include "cml-mesh.h"
#include "cml-scene-renderer.h"
#include "cml-scene-view.h"
#include "cml-simulation.h"

#define SIM_SECONDS 6.0
#define SAMPLE_DT   (1.0 / 60)

/* A frame of SIM's current state, as the runner would publish it. */
static CmlFrame *
frame_of (CmlSimulation *sim, guint generation)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlFrame *f = g_new0 (CmlFrame, 1);

  f->ref_count = 1;
  f->seq = 1;
  f->generation = generation;
  f->system = cml_system_ref (sys);
  f->state = CML_RUNNER_PAUSED;
  f->t = cml_simulation_get_time (sim);
  f->speed = 1;
  f->dim = cml_system_dim (sys);
  f->state_values = g_memdup2 (cml_simulation_get_state (sim), f->dim * sizeof (double));
  f->n_obs = cml_system_n_observables (sys);
  f->obs = g_new0 (double, MAX (f->n_obs, 1));
  cml_simulation_observe (sim, f->obs);
  f->n_scene = cml_system_n_scene_values (sys);
  f->scene = g_new0 (double, MAX (f->n_scene, 1));
  cml_simulation_eval_scene (sim, f->scene);
  f->params = g_new0 (double, 1);
  return f;
}

/* Runs SIM to SIM_SECONDS, pushing rows [observables…, scene values…] to VIEW. */
static void
run_and_push (CmlSimulation *sim, CmlSceneView *view)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint n_obs = cml_system_n_observables (sys);
  guint n_cols = n_obs + cml_system_n_scene_values (sys);
  guint n = (guint) (SIM_SECONDS / SAMPLE_DT) + 1;
  g_autofree double *t = g_new (double, n);
  g_autofree double *rows = g_new0 (double, (gsize) n * MAX (n_cols, 1));
  g_autoptr (GError) error = NULL;
  guint k;

  for (k = 0; k < n; k++)
    {
      if (k > 0 && !cml_simulation_advance (sim, k * SAMPLE_DT, &error))
        break;
      t[k] = cml_simulation_get_time (sim);
      cml_simulation_observe (sim, rows + (gsize) k * n_cols);
      cml_simulation_eval_scene (sim, rows + (gsize) k * n_cols + n_obs);
    }
  g_assert_no_error (error);
  cml_scene_view_push_samples (view, t, rows, k, n_cols, n_obs);
}

static void
wait_realized (GtkWidget *widget)
{
  /* a state, not a time: mapped, however long a busy machine takes (the bound only
   * turns a hang into a failure) */
  gint64 deadline = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget))
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the scene view was not mapped within 10 minutes");
      g_main_context_iteration (NULL, TRUE);
    }
  /* let the first frame be drawn */
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

typedef struct
{
  GtkWidget    *window;
  CmlSceneView *view;
} Fixture;

static void
fixture_set_up (Fixture *fx, gconstpointer data)
{
  fx->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (fx->window), 640, 400);
  fx->view = CML_SCENE_VIEW (cml_scene_view_new ());
  g_object_ref (fx->view);
  gtk_window_set_child (GTK_WINDOW (fx->window), GTK_WIDGET (fx->view));
  g_object_ref (fx->window);
  gtk_window_present (GTK_WINDOW (fx->window));
  wait_realized (GTK_WIDGET (fx->view));
}

static void
fixture_tear_down (Fixture *fx, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (fx->window));
  g_assert_finalize_object (fx->window);
  g_assert_finalize_object (fx->view);
}

/* Every built-in model: its scene shows. */
static void
test_builtins (Fixture *fx, gconstpointer data)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  gboolean skipped = FALSE;

  g_assert_nonnull (names);
  g_assert_cmpuint (g_strv_length (names), >=, 4);
  for (guint i = 0; names[i]; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (names[i], &error);
      g_assert_no_error (error);
      g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
      g_assert_no_error (error);
      g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
      g_assert_no_error (error);

      cml_scene_view_set_system (fx->view, sys);
      run_and_push (sim, fx->view);
      CmlFrame *frame = frame_of (sim, 1);
      cml_scene_view_set_frame (fx->view, frame);
      cml_frame_unref (frame);

      double fraction = -1;
      if (!cml_scene_view_probe_pixels (fx->view, &fraction))
        {
          g_assert_cmpfloat (fraction, ==, -1);
          skipped = TRUE;
          break;
        }
      g_test_message ("%s: %.1f %% of the pixels drawn", names[i], 100 * fraction);
      if (!(fraction > 0.01))
        g_error ("%s: only %.2f %% of the pixels differ from the background", names[i], 100 * fraction);

      /* the table frame changes nothing that could break the drawing */
      cml_scene_view_set_table_frame (fx->view, TRUE);
      g_assert_true (cml_scene_view_probe_pixels (fx->view, &fraction));
      g_assert_cmpfloat (fraction, >, 0.01);
      cml_scene_view_set_table_frame (fx->view, FALSE);
    }
  if (skipped)
    g_test_skip ("no GL context");
  cml_scene_view_set_system (fx->view, NULL);
}

/* The same scene in both styles, and before any frame or sample (frames alone feed the
 * trails). */
static void
test_styles_and_frames_only (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  double fraction = -1;

  cml_scene_view_set_system (fx->view, sys);
  if (!cml_scene_view_probe_pixels (fx->view, &fraction))
    {
      g_test_skip ("no GL context");
      return;
    }
  for (int k = 1; k <= 120; k++)
    {
      g_assert_true (cml_simulation_advance (sim, k * 0.05, &error));
      CmlFrame *frame = frame_of (sim, 1);
      cml_scene_view_set_frame (fx->view, frame);
      cml_frame_unref (frame);
    }
  cml_scene_view_set_dark (fx->view, TRUE);
  cml_scene_view_set_presentation (fx->view, TRUE);
  g_assert_true (cml_scene_view_probe_pixels (fx->view, &fraction));
  g_assert_cmpfloat (fraction, >, 0.01);
  cml_scene_view_set_dark (fx->view, FALSE);
  g_assert_true (cml_scene_view_probe_pixels (fx->view, &fraction));
  g_assert_cmpfloat (fraction, >, 0.01);
}

/* A model without [scene …] groups: its default picture (the state as a point and its
 * path), named in the legend. */
static void
test_no_scene (Fixture *fx, gconstpointer data)
{
  static const char text[] =
    "[model]\nname = spinner\ntitle = Spinner\ndescription = a test\nsource = test\n"
    "[algebroid]\nbase =\nfibre = W1, W2, W3\n"
    "[brackets]\ne1, e2 = e3\ne2, e3 = e1\ne3, e1 = e2\n"
    "[dynamics]\nlagrangian = (W1^2 + 2*W2^2 + 3*W3^2)/2\n"
    "[initial]\nW1 = 1\nW2 = 0.1\nW3 = 0.5\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "spinner.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  double fraction = -1;

  g_assert_cmpuint (model->scene->len, ==, 0);
  g_assert_true (cml_scene_values_are_observables (sys));
  CmlSceneStyle style = cml_scene_style_default ();
  g_auto (GStrv) lines = cml_scene_legend_lines (sys, &style);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_cmpstr (lines[0], ==, "state (W1, W2, W3)");
  g_assert_cmpstr (lines[1], ==, "path of (W1, W2, W3)");
  g_assert_cmpstr (lines[2], ==, "red axis: W1");
  g_assert_cmpstr (lines[4], ==, "blue axis: W3");

  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  cml_scene_view_set_system (fx->view, sys);
  run_and_push (sim, fx->view);
  CmlFrame *frame = frame_of (sim, 1);
  cml_scene_view_set_frame (fx->view, frame);
  cml_frame_unref (frame);
  if (!cml_scene_view_probe_pixels (fx->view, &fraction))
    {
      g_test_skip ("no GL context");
      return;
    }
  g_assert_cmpfloat (fraction, >, 0.01);

  /* and with no system at all */
  cml_scene_view_set_system (fx->view, NULL);
  g_assert_true (cml_scene_view_probe_pixels (fx->view, &fraction));
  g_assert_cmpfloat (fraction, >, 0.01);
}

/* The camera follows a body that travels: Martinet's point and the Chaplygin sleigh,
 * played for 45 s of simulated time in the window's ticks (half a second of history,
 * then the frame, then a frame drawn), keep their centre well inside the view — a tenth
 * of its size from every edge — at every tick. */
static void
check_follows (Fixture *fx, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  guint n_obs = cml_system_n_observables (sys);
  guint n_cols = n_obs + cml_system_n_scene_values (sys);
  guint per_tick = 30;
  g_autofree double *t = g_new (double, per_tick);
  g_autofree double *rows = g_new0 (double, (gsize) per_tick * n_cols);
  double fraction, worst = 0;
  guint k = 0;
  /* the moving body: the model's point (Martinet's current point, the sleigh's centre) */
  int body = -1;
  for (guint i = 0; i < model->scene->len && body < 0; i++)
    if (g_str_equal (((CmlSceneObject *) model->scene->pdata[i])->type, "point"))
      body = cml_system_scene_offset (sys, i, "position");
  g_assert_cmpint (body, >=, 0);
  g_autofree double *v = g_new0 (double, cml_system_n_scene_values (sys));

  cml_scene_view_set_system (fx->view, sys);
  for (int tick = 0; tick < 90; tick++)
    {
      for (guint i = 0; i < per_tick; i++, k++)
        {
          if (k > 0)
            g_assert_true (cml_simulation_advance (sim, k * SAMPLE_DT, &error));
          t[i] = cml_simulation_get_time (sim);
          cml_simulation_observe (sim, rows + (gsize) i * n_cols);
          cml_simulation_eval_scene (sim, rows + (gsize) i * n_cols + n_obs);
        }
      cml_scene_view_push_samples (fx->view, t, rows, per_tick, n_cols, n_obs);
      CmlFrame *frame = frame_of (sim, 1);
      cml_scene_view_set_frame (fx->view, frame);
      cml_frame_unref (frame);
      if (!cml_scene_view_probe_pixels (fx->view, &fraction))
        {
          g_test_skip ("no GL context");
          return;
        }
      double x, y;
      int w = gtk_widget_get_width (GTK_WIDGET (fx->view)), h = gtk_widget_get_height (GTK_WIDGET (fx->view));
      cml_simulation_eval_scene (sim, v);
      g_assert_true (cml_scene_view_project_point (fx->view, v + body, &x, &y));
      double off = MAX (fabs (2 * x / w - 1), fabs (2 * y / h - 1));
      worst = MAX (worst, off);
      if (!(off <= CML_CAMERA_FOLLOW_HARD + 1e-3))
        g_error ("%s at t = %.1f s: the body is drawn at (%.0f, %.0f) of a %d × %d view, %.2f of the "
                 "half-view from its centre",
                 name, cml_simulation_get_time (sim), x, y, w, h, off);
    }
  g_test_message ("%s: the body reached %.2f of the half-view in 45 s", name, worst);
}

static void
test_follows_martinet (Fixture *fx, gconstpointer data)
{
  check_follows (fx, "martinet");
}

static void
test_follows_sleigh (Fixture *fx, gconstpointer data)
{
  check_follows (fx, "chaplygin-sleigh");
}

/* Comparing the rolling ball with its vakonomic reading, which runs away within seconds:
 * the view stays on the first run — its turntable (radius 4) stays at least a third of the
 * view wide — while the second one leaves. */
static void
test_compare_keeps_first (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlModel) vmodel = cml_model_new_as_vakonomic (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) vsys = cml_system_new (vmodel, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) vsim = cml_simulation_new (vsys, &error);
  g_assert_no_error (error);
  double fraction;

  cml_scene_view_set_system (fx->view, sys);
  cml_scene_view_set_ghost (fx->view, vsys, "vakonomic");
  CmlSimulation *sims[2] = { sim, vsim };
  for (int tick = 0; tick < 24; tick++)
    {
      for (int s = 0; s < 2; s++)
        {
          CmlSystem *sy = cml_simulation_get_system (sims[s]);
          guint n_obs = cml_system_n_observables (sy), n_cols = n_obs + cml_system_n_scene_values (sy);
          double t[30];
          g_autofree double *rows = g_new0 (double, 30 * n_cols);
          for (guint i = 0; i < 30; i++)
            {
              double ti = tick * 0.5 + i / 60.0;
              if (ti > 0 && !cml_simulation_advance (sims[s], ti, NULL))
                break;
              t[i] = cml_simulation_get_time (sims[s]);
              cml_simulation_observe (sims[s], rows + i * n_cols);
              cml_simulation_eval_scene (sims[s], rows + i * n_cols + n_obs);
            }
          CmlFrame *frame = frame_of (sims[s], 1);
          if (s == 0)
            {
              cml_scene_view_push_samples (fx->view, t, rows, 30, n_cols, n_obs);
              cml_scene_view_set_frame (fx->view, frame);
            }
          else
            {
              cml_scene_view_push_ghost_samples (fx->view, t, rows, 30, n_cols, n_obs);
              cml_scene_view_set_ghost_frame (fx->view, frame);
            }
          cml_frame_unref (frame);
        }
      if (!cml_scene_view_probe_pixels (fx->view, &fraction))
        {
          g_test_skip ("no GL context");
          return;
        }
    }
  /* the second run has gone far */
  g_autofree double *obs = g_new0 (double, cml_system_n_observables (vsys));
  cml_simulation_observe (vsim, obs);
  g_test_message ("the vakonomic ball is at x = %g", obs[cml_system_observable_index (vsys, "x")]);
  g_assert_cmpfloat (fabs (obs[cml_system_observable_index (vsys, "x")]), >, 20);

  double x0, y0, x1, y1;
  g_assert_true (cml_scene_view_project_point (fx->view, (double[]) { -4, 0, 0 }, &x0, &y0));
  g_assert_true (cml_scene_view_project_point (fx->view, (double[]) { 4, 0, 0 }, &x1, &y1));
  int w = gtk_widget_get_width (GTK_WIDGET (fx->view));
  g_test_message ("the table is drawn %.0f px wide in a view of %d", hypot (x1 - x0, y1 - y0), w);
  g_assert_cmpfloat (hypot (x1 - x0, y1 - y0), >, w / 3.0);
  cml_scene_view_set_ghost (fx->view, NULL, NULL);
}

/* After a run diverges, a frame whose scene values are no longer finite still shows the
 * last good state: the body is drawn where it last was. */
static void
test_diverged_shows_last_good (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  double fraction, x0, y0, x1, y1;

  cml_scene_view_set_system (fx->view, sys);
  g_assert_true (cml_simulation_advance (sim, 1.0, &error));
  CmlFrame *frame = frame_of (sim, 1);
  cml_scene_view_set_frame (fx->view, frame);
  cml_frame_unref (frame);
  if (!cml_scene_view_probe_pixels (fx->view, &fraction))
    {
      g_test_skip ("no GL context");
      return;
    }
  g_assert_true (cml_scene_view_get_moving_point (fx->view, &x0, &y0));
  /* the failed run's frame: its values overflowed */
  frame = frame_of (sim, 1);
  frame->state = CML_RUNNER_FAILED;
  for (guint i = 0; i < frame->n_scene; i++)
    frame->scene[i] = NAN;
  cml_scene_view_set_frame (fx->view, frame);
  cml_frame_unref (frame);
  g_assert_true (cml_scene_view_probe_pixels (fx->view, &fraction));
  g_assert_true (cml_scene_view_get_moving_point (fx->view, &x1, &y1));
  g_assert_cmpfloat (hypot (x1 - x0, y1 - y0), <, 2);
  g_assert_cmpfloat (fraction, >, 0.05);
}

static void
on_notify (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

/* The table-frame setting is a property that notifies (the window's action follows it). */
static void
test_table_frame_property (void)
{
  CmlSceneView *view = CML_SCENE_VIEW (g_object_ref_sink (cml_scene_view_new ()));
  guint notified = 0;
  gboolean value = FALSE;

  g_signal_connect (view, "notify::table-frame", G_CALLBACK (on_notify), &notified);
  g_assert_false (cml_scene_view_get_table_frame (view));
  cml_scene_view_set_table_frame (view, TRUE);
  g_assert_true (cml_scene_view_get_table_frame (view));
  cml_scene_view_set_table_frame (view, TRUE);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (view, "table-frame", &value, NULL);
  g_assert_true (value);
  /* GL calls before realize are harmless; a new run frames the camera on it again */
  g_assert_true (cml_scene_view_get_auto_frame (view));
  cml_scene_view_clear_trails (view);
  g_assert_true (cml_scene_view_get_auto_frame (view));
  cml_scene_view_reset_camera (view);
  g_assert_finalize_object (view);
}

/* Framing: from any direction, every corner of the box lands inside the view. */
static void
test_camera_fit (void)
{
  static const double min[3] = { -4, -1, 0 }, max[3] = { 3, 2, 1.5 };
  GRand *rand = g_rand_new_with_seed (7);

  for (int trial = 0; trial < 200; trial++)
    {
      CmlCamera cam;
      double aspect = g_rand_double_range (rand, 0.5, 2.5);
      cml_camera_init (&cam);
      cml_camera_turn (&cam, g_rand_double_range (rand, -800, 800), g_rand_double_range (rand, -300, 300));
      g_assert_false (cam.auto_fit); /* the user's own view */
      /* a legend in the bottom-left corner, sometimes, and sometimes wider than half the
       * view (the heavy top's at 1024×768: the picture must take the rows above it);
       * buttons in the top-right corner, sometimes */
      gboolean wide = trial % 4 == 1, buttons = trial % 3 == 0;
      CmlCameraKeepOut keep = { { g_rand_double_range (rand, 0.1, wide ? 0.8 : 0.35),
                                  g_rand_double_range (rand, 0.1, 0.35) },
                                { 0, 0 } };
      if (buttons)
        {
          keep.buttons[0] = g_rand_double_range (rand, 0.1, 0.7);
          keep.buttons[1] = g_rand_double_range (rand, 0.05, 0.12);
        }
      gboolean legend = trial % 2;
      if (!legend)
        keep.legend[0] = keep.legend[1] = 0;
      cml_camera_fit (&cam, min, max, aspect, legend || buttons ? &keep : NULL, TRUE);

      CmlMat4 view, proj, vp;
      cml_camera_get_matrices (&cam, aspect, &view, &proj);
      cml_mat4_multiply (&vp, &proj, &view);
      double worst = 0;
      for (int c = 0; c < 8; c++)
        {
          CmlVec3 p = { c & 1 ? max[0] : min[0], c & 2 ? max[1] : min[1], c & 4 ? max[2] : min[2] };
          CmlVec3 ndc = cml_mat4_transform_point (&vp, p);
          worst = MAX (worst, MAX (fabs (ndc.x), fabs (ndc.y)));
          g_assert_cmpfloat (fabs (ndc.z), <, 1.0);
          /* the corners stay free: every corner of the box is beside or beyond each */
          if (cml_camera_kept_out (&keep, ndc.x + (ndc.x < 0 ? 1e-4 : -1e-4), ndc.y + (ndc.y < 0 ? 1e-4 : -1e-4)))
            g_error ("trial %d: a corner of the box lands at (%g, %g), under the legend (%g × %g) or the "
                     "buttons (%g × %g)", trial, ndc.x, ndc.y, keep.legend[0], keep.legend[1], keep.buttons[0],
                     keep.buttons[1]);
        }
      g_assert_cmpfloat (worst, <=, 1.0 - CML_CAMERA_FIT_MARGIN + 1e-4);
      if (!wide && !buttons)
        g_assert_cmpfloat (worst, >, 0.9 - CML_CAMERA_FIT_MARGIN); /* and it fills the view */
    }
  g_rand_free (rand);

  /* zooming by hand stops the following */
  CmlCamera cam;
  cml_camera_init (&cam);
  cml_camera_zoom (&cam, 2);
  g_assert_false (cam.auto_fit);
  double d = cam.distance;
  cml_camera_fit (&cam, min, max, 1.5, NULL, FALSE);
  g_assert_cmpfloat (cam.distance, ==, d);
  cml_camera_reset (&cam);
  g_assert_true (cam.auto_fit);
}

/* Software GL pays per triangle (DESIGN: keep a sphere at a few thousand at most). */
static void
test_mesh_budget (void)
{
  g_autoptr (CmlMeshData) ball = cml_mesh_data_new ();
  cml_mesh_data_add_sphere (ball, 32, 16);
  g_assert_cmpuint (cml_mesh_data_n_triangles (ball), ==, 2 * 32 * 15);
  g_assert_cmpuint (cml_mesh_data_n_triangles (ball), <=, 3000);

  g_autoptr (CmlMeshData) table = cml_mesh_data_new ();
  cml_mesh_data_add_disc (table, 96, 0.03f);
  g_assert_cmpuint (cml_mesh_data_n_triangles (table), ==, 96 * 4);

  /* a ribbon: two vertices per point, tangents of unit length even where points repeat */
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (CmlVertex));
  const float xyz[] = { 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0 };
  cml_mesh_ribbon_append (v, xyz, NULL, 4);
  g_assert_cmpuint (v->len, ==, 8);
  for (guint i = 0; i < v->len; i++)
    {
      const CmlVertex *p = &g_array_index (v, CmlVertex, i);
      double len = sqrt (p->normal[0] * p->normal[0] + p->normal[1] * p->normal[1] + p->normal[2] * p->normal[2]);
      g_assert_cmpfloat (fabs (len - 1), <, 1e-6);
      g_assert_cmpfloat (fabs (p->side), ==, 1);
    }
}

static void
skip_no_display (void)
{
  g_test_skip ("no display");
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *path;
    void (*test) (Fixture *, gconstpointer);
  } display_tests[] = {
    { "/ui/scene-view/builtins", test_builtins },
    { "/ui/scene-view/styles-and-frames-only", test_styles_and_frames_only },
    { "/ui/scene-view/no-scene", test_no_scene },
    { "/ui/scene-view/follows-martinet", test_follows_martinet },
    { "/ui/scene-view/follows-sleigh", test_follows_sleigh },
    { "/ui/scene-view/compare-keeps-first", test_compare_keeps_first },
    { "/ui/scene-view/diverged-shows-last-good", test_diverged_shows_last_good },
  };

  /* no accessibility bus under Xvfb: GTK would warn, and warnings are fatal in tests */
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_test_init (&argc, &argv, NULL);

  /* without a display the widget tests skip (TAP has no "exit 77"); the rest still run */
  gboolean display = gtk_init_check ();
  for (guint i = 0; i < G_N_ELEMENTS (display_tests); i++)
    if (display)
      g_test_add (display_tests[i].path, Fixture, NULL, fixture_set_up, display_tests[i].test,
                  fixture_tear_down);
    else
      g_test_add_func (display_tests[i].path, skip_no_display);
  g_test_add_func ("/ui/scene-view/table-frame-property", display ? test_table_frame_property : skip_no_display);
  g_test_add_func ("/ui/scene-view/camera-fit", test_camera_fit);
  g_test_add_func ("/ui/scene-view/mesh-budget", test_mesh_budget);
  return g_test_run ();
}
