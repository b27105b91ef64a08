/* test-shoot-view.c — steering a vakonomic run to a target from the 3-D view: the shooting
 * on a worker, the restart from the momenta found (one step to undo), the markers, the
 * toggle's sensitivity and cancelling.  With an integrable constraint
 * (tests/models/data/parabola-vakonomic.cml) the conjugate points are said to mean nothing,
 * and a point off the parabola the run can reach is said to be out of reach.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-shoot-view"

#include "ui-util.h"

#include <math.h>

#include "cml-error.h"
#include "cml-scene-shoot.h"
#include "cml-window-steer.h"

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static gboolean
steer_done (gpointer data)
{
  return !cml_window_steer_is_running (data);
}

static gboolean
steer_marked (gpointer data)
{
  CmlWindow *win = data;

  return cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL);
}

static double
obs_of (CmlFrame *f, const char *name)
{
  int i = cml_system_observable_index (f->system, name);
  g_assert_cmpint (i, >=, 0);
  return f->obs[i];
}

static gboolean
target_hidden (gpointer data)
{
  return cml_scene_view_get_steer_target_hidden (data);
}

/* The window's run, from t = 0 to T: where it is then. */
static CmlFrame *
run_to (CmlWindow *win, double T)
{
  CmlRunner *runner = cml_window_get_runner (win);
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0);
  cml_frame_unref (f);
  cml_runner_step (runner, T);
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (fabs (f->t - T), <, 1e-12);
  return f;
}

/* A window with MODEL, its views following and a frame drawn. */
static CmlWindow *
steer_window (const char *model)
{
  CmlWindow *win = window_new (model);
  wait_for (views_follow, win, "views_follow");
  wait_frames (GTK_WIDGET (win), 3);
  return win;
}

/* The plate-ball's contact point steered to (2, 1.5) at T = 5: the run restarts from the
 * momenta found and gets there; the target is marked on the table; one undo goes back to
 * the model's own start. */
static void
test_plate_ball (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("plate-ball");
  g_autoptr (GError) error = NULL;
  const char *why = NULL;

  g_assert_true (cml_scene_view_get_can_steer (win->scene_view, &why));
  g_assert_nonnull (strstr (why, "x1, x2"));
  g_assert_true (cml_window_steer_to (win, (const double[3]) { 2, 1.5, 0 }, 5, &error));
  g_assert_no_error (error);
  g_assert_true (cml_window_steer_is_running (win));
  g_assert_nonnull (strstr (cml_scene_view_get_steer_note (win->scene_view), "Looking for the motion that reaches"));
  wait_for (steer_done, win, "steer_done");
  const char *note = cml_scene_view_get_steer_note (win->scene_view);
  g_test_message ("note: %s / %s", note, cml_scene_view_get_steer_conjugate_note (win->scene_view));
  g_assert_nonnull (strstr (note, "reached at T = 5"));
  /* five momenta, seven coordinates: no conjugate points, said in plain words, and why in
   * the tooltip (no instruction to point somewhere, no solver's terms) */
  const char *conj = cml_scene_view_get_steer_conjugate_note (win->scene_view);
  g_assert_nonnull (strstr (conj, "not shown for this model"));
  g_assert_null (strstr (conj, "point here"));
  const char *tip = cml_scene_view_get_steer_tooltip (win->scene_view);
  g_assert_nonnull (tip);
  g_test_message ("tooltip: %s", tip);
  g_assert_nonnull (strstr (tip, "no longer the shortest"));
  g_assert_null (strstr (tip, "determinant"));
  g_assert_null (strstr (tip, "∂"));
  /* the planned path is previewed: from the contact point's start to the target */
  g_assert_cmpuint (cml_scene_view_get_steer_path_length (win->scene_view), ==, CML_SCENE_SHOOT_PATH_POINTS + 1);

  double target[3];
  guint n = 99;
  g_assert_true (cml_scene_view_get_steer_markers (win->scene_view, target, &n));
  g_assert_cmpfloat (target[0], ==, 2);
  g_assert_cmpfloat (target[1], ==, 1.5);
  g_assert_cmpfloat (target[2], ==, 0);
  g_assert_cmpuint (n, ==, 0);
  /* at the end of the run the ball sits on the target: there its marker lies behind the
   * ball and is drawn faint, not over it */
  g_assert_false (cml_scene_view_get_steer_target_hidden (win->scene_view));
  cml_frame_unref (run_to (win, 5));
  wait_for (target_hidden, win->scene_view, "target_hidden");
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  g_assert_true (cml_parameter_panel_redo (win->parameter_panel));

  /* the run starts from the momenta found, the base point held, and reaches the target */
  CmlRunner *runner = cml_window_get_runner (win);
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "x1"), ==, 0);
  g_assert_cmpfloat (obs_of (f, "x2"), ==, 0);
  g_assert_cmpfloat (fabs (obs_of (f, "p1") - 1), >, 0.1);
  cml_frame_unref (f);
  f = run_to (win, 5);
  g_test_message ("reached (%.12g, %.12g)", obs_of (f, "x1"), obs_of (f, "x2"));
  g_assert_cmpfloat (fabs (obs_of (f, "x1") - 2), <, 1e-6);
  g_assert_cmpfloat (fabs (obs_of (f, "x2") - 1.5), <, 1e-6);
  cml_frame_unref (f);

  /* one step to undo: the model's own start */
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0);
  g_assert_cmpfloat (obs_of (f, "p1"), ==, 1);
  g_assert_cmpfloat (obs_of (f, "p5"), ==, 0.5);
  cml_frame_unref (f);
  /* the extremal marked is not the run's any more */
  g_assert_false (cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL));
  g_assert_null (cml_scene_view_get_steer_note (win->scene_view));
  window_free (win);
}

/* Martinet in space, to T = 12: two conjugate points marked, the run given through the
 * velocities the panel shows (u, y1) and k. */
static void
test_martinet_conjugate (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("martinet");
  g_autoptr (GError) error = NULL;

  g_assert_true (cml_window_steer_to (win, (const double[3]) { 0.3, 1, 0.5 }, 12, &error));
  g_assert_no_error (error);
  wait_for (steer_done, win, "steer_done");
  const char *conj = cml_scene_view_get_steer_conjugate_note (win->scene_view);
  g_test_message ("note: %s / %s", cml_scene_view_get_steer_note (win->scene_view), conj);
  g_assert_nonnull (strstr (conj, "conjugate point (the path is no longer the shortest after it)"));
  double target[3];
  guint n = 0;
  g_assert_true (cml_scene_view_get_steer_markers (win->scene_view, target, &n));
  g_assert_cmpuint (n, ==, 2);

  CmlFrame *f = run_to (win, 12);
  g_test_message ("reached (%.12g, %.12g, %.12g)", obs_of (f, "x1"), obs_of (f, "x2"), obs_of (f, "x3"));
  g_assert_cmpfloat (fabs (obs_of (f, "x1") - 0.3), <, 1e-6);
  g_assert_cmpfloat (fabs (obs_of (f, "x2") - 1), <, 1e-6);
  g_assert_cmpfloat (fabs (obs_of (f, "x3") - 0.5), <, 1e-6);
  cml_frame_unref (f);
  window_free (win);
}

/* A click with the toggle on aims on the table (z = 0) and shoots to T = 5 before the run
 * has run. */
static void
test_click (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("plate-ball");
  int w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
  int h = gtk_widget_get_height (GTK_WIDGET (win->scene_view));

  g_assert_cmpfloat (cml_window_steer_end_time (win), ==, 5);
  cml_scene_view_set_steering (win->scene_view, TRUE);
  gboolean aimed = FALSE;
  /* somewhere on the table, away from the overlays */
  for (int y = h / 2; y < h - 40 && !aimed; y += 20)
    aimed = cml_scene_view_aim_at (win->scene_view, 0.6 * w, y);
  g_assert_true (aimed);
  g_assert_true (cml_window_steer_is_running (win));
  wait_for (steer_done, win, "steer_done");
  double target[3];
  g_assert_true (cml_scene_view_get_steer_markers (win->scene_view, target, NULL));
  g_test_message ("clicked (%g, %g, %g)", target[0], target[1], target[2]);
  g_assert_cmpfloat (target[2], ==, 0);
  CmlFrame *f = run_to (win, 5);
  g_assert_cmpfloat (fabs (obs_of (f, "x1") - target[0]), <, 1e-6);
  g_assert_cmpfloat (fabs (obs_of (f, "x2") - target[1]), <, 1e-6);
  cml_frame_unref (f);
  window_free (win);
}

/* Martinet's point moves in space: a click low in the view, on the floor's grid, sets a
 * target at the height the point has now (the level plane through it), not a point far
 * below it in the plane facing the camera. */
static void
test_martinet_click (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("martinet");
  int w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
  int h = gtk_widget_get_height (GTK_WIDGET (win->scene_view));

  cml_scene_view_set_steering (win->scene_view, TRUE);
  gboolean aimed = FALSE;
  for (int y = (int) (0.85 * h); y > h / 2 && !aimed; y -= 20)
    aimed = cml_scene_view_aim_at (win->scene_view, 0.3 * w, y);
  g_assert_true (aimed);
  double target[3];
  g_assert_true (cml_window_steer_get_target (win, target));
  g_test_message ("clicked (%g, %g, %g)", target[0], target[1], target[2]);
  /* the point is at x3 = 0 at the start */
  g_assert_cmpfloat (target[2], ==, 0);
  g_assert_true (isfinite (target[0]) && isfinite (target[1]));
  cml_window_steer_cancel (win);
  window_free (win);
}

/* A model whose motion its velocities fix cannot be steered: the toggle says why. */
static void
test_not_vakonomic (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("rolling-ball");
  g_autoptr (GError) error = NULL;
  const char *why = NULL;

  g_assert_false (cml_scene_view_get_can_steer (win->scene_view, &why));
  g_assert_nonnull (strstr (why, "vakonomic"));
  cml_scene_view_set_steering (win->scene_view, TRUE);
  g_assert_false (cml_scene_view_aim_at (win->scene_view, 100, 100));
  g_assert_false (cml_window_steer_to (win, (const double[3]) { 1, 1, 0 }, 5, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_assert_false (cml_window_steer_is_running (win));
  window_free (win);
}

/* Cancelled, or replaced by a second click: the first shooting changes nothing. */
static void
test_cancel (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("plate-ball");
  CmlRunner *runner = cml_window_get_runner (win);

  g_assert_true (cml_window_steer_to (win, (const double[3]) { 2, 1.5, 0 }, 5, NULL));
  cml_window_steer_cancel (win);
  g_assert_false (cml_window_steer_is_running (win));
  g_assert_null (cml_scene_view_get_steer_note (win->scene_view));
  /* a while in the window's terms (frames), in which the cancelled search must not land */
  wait_frames (GTK_WIDGET (win), 60);
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "p1"), ==, 1);
  cml_frame_unref (f);
  g_assert_false (cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL));
  g_assert_false (cml_parameter_panel_undo (win->parameter_panel));

  /* a second target replaces the first */
  g_assert_true (cml_window_steer_to (win, (const double[3]) { 2, 1.5, 0 }, 5, NULL));
  g_assert_true (cml_window_steer_to (win, (const double[3]) { 1, -1, 0 }, 5, NULL));
  wait_for (steer_done, win, "steer_done");
  wait_for (steer_marked, win, "the target marked on the table");
  /* frames later, still the second target: the first one's search does not land after it */
  wait_frames (GTK_WIDGET (win), 30);
  double target[3];
  g_assert_true (cml_scene_view_get_steer_markers (win->scene_view, target, NULL));
  g_assert_cmpfloat (target[0], ==, 1);
  g_assert_cmpfloat (target[1], ==, -1);
  /* one restart: one step to undo */
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  g_assert_false (cml_parameter_panel_undo (win->parameter_panel));

  /* a model change drops a shooting under way */
  g_autoptr (GError) error = NULL;
  g_assert_true (cml_window_steer_to (win, (const double[3]) { 2, 1.5, 0 }, 5, NULL));
  g_assert_true (cml_window_load (win, "martinet", &error));
  g_assert_false (cml_window_steer_is_running (win));
  wait_for (views_follow, win, "views_follow");
  wait_frames (GTK_WIDGET (win), 60);
  g_assert_false (cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL));
  window_free (win);
}

/* No extremal there: the reason in plain words, the run as it was. */
static void
test_not_found (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = steer_window ("martinet");
  CmlRunner *runner = cml_window_get_runner (win);

  g_assert_true (cml_window_steer_to (win, (const double[3]) { 0.5, 0.5, -0.5 }, 5, NULL));
  wait_for (steer_done, win, "steer_done");
  const char *note = cml_scene_view_get_steer_note (win->scene_view);
  g_test_message ("note: %s", note);
  /* what happened and what to try, without the solver's terms */
  g_assert_nonnull (strstr (note, "could not find a motion that reaches"));
  g_assert_nonnull (strstr (note, "Try a target nearer"));
  static const char *const jargon[] = { "Newton", "residual", "sensitivity", "singular", "continuation",
                                        "extremal", "--init", NULL };
  for (guint k = 0; jargon[k]; k++)
    g_assert_null (strstr (note, jargon[k]));
  g_assert_false (cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL));
  g_assert_false (cml_parameter_panel_undo (win->parameter_panel));
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "k"), ==, 1);
  cml_frame_unref (f);
  window_free (win);
}

static char *
parabola_model (void)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", "parabola-vakonomic.cml", NULL);
}

/* On the parabola y = x²/2 that the run can reach: found, and no conjugate points, because
 * the constraint is integrable (not "not shown for this model"). */
static void
test_integrable (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *model = parabola_model ();
  CmlWindow *win = steer_window (model);

  g_assert_true (cml_window_steer_to (win, (const double[3]) { 2, 2, 0 }, 2, NULL));
  wait_for (steer_done, win, "steer_done");
  const char *note = cml_scene_view_get_steer_note (win->scene_view);
  const char *conj = cml_scene_view_get_steer_conjugate_note (win->scene_view);
  g_test_message ("note: %s / %s", note, conj);
  g_assert_nonnull (strstr (note, "reached at T = 2"));
  g_assert_nonnull (strstr (conj, "the constraints are integrable"));
  const char *tip = cml_scene_view_get_steer_tooltip (win->scene_view);
  g_assert_nonnull (strstr (tip, "integrable"));
  window_free (win);
}

/* Off the parabola: out of reach, said so, without suggesting a nearer target or a longer
 * time (which cannot help) and without the solver's terms. */
static void
test_unreachable (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *model = parabola_model ();
  CmlWindow *win = steer_window (model);

  g_assert_true (cml_window_steer_to (win, (const double[3]) { 1, 2, 0 }, 1, NULL));
  wait_for (steer_done, win, "steer_done");
  const char *note = cml_scene_view_get_steer_note (win->scene_view);
  g_test_message ("note: %s", note);
  g_assert_nonnull (strstr (note, "No motion from here reaches"));
  g_assert_null (strstr (note, "Try a target nearer"));
  static const char *const jargon[] = { "Newton", "residual", "sensitivity", "singular", "continuation",
                                        "extremal", "--init", NULL };
  for (guint k = 0; jargon[k]; k++)
    g_assert_null (strstr (note, jargon[k]));
  g_assert_false (cml_scene_view_get_steer_markers (win->scene_view, NULL, NULL));
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/shoot-view/plate-ball", test_plate_ball);
  g_test_add_func ("/ui/shoot-view/martinet-conjugate", test_martinet_conjugate);
  g_test_add_func ("/ui/shoot-view/click", test_click);
  g_test_add_func ("/ui/shoot-view/martinet-click", test_martinet_click);
  g_test_add_func ("/ui/shoot-view/not-vakonomic", test_not_vakonomic);
  g_test_add_func ("/ui/shoot-view/cancel", test_cancel);
  g_test_add_func ("/ui/shoot-view/not-found", test_not_found);
  g_test_add_func ("/ui/shoot-view/integrable", test_integrable);
  g_test_add_func ("/ui/shoot-view/unreachable", test_unreachable);
  return g_test_run ();
}
