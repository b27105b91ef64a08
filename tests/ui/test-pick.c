/* test-pick.c — choosing where a run starts by clicking or dragging in a phase portrait.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-pick"

#include "ui-util.h"

#include <math.h>

typedef struct
{
  double x, y;
  guint  n;
} Picked;

static void
on_pick (CmlPlotView *plot, const char *xn, double x, const char *yn, double y, gboolean done, Picked *p)
{
  p->x = x;
  p->y = y;
  p->n++;
}

static gboolean
plot_drawn (gpointer data)
{
  CmlPlotView *plot = data;
  /* a frame drawn: the plot area is known */
  return cml_plot_view_has_frame (plot);
}

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static double
obs_of (CmlFrame *f, const char *name)
{
  int i = cml_system_observable_index (f->system, name);
  g_assert_cmpint (i, >=, 0);
  return f->obs[i];
}

/* A click in the x–y portrait of the ball starts the run there: x and y as clicked, the
 * rolling constraints solving w1 and w2; undo goes back to where it was. */
static void
test_click (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  Picked picked = { 0 };

  wait_for (views_follow, win, "views_follow");
  cml_plot_view_set_series (win->phase_plot, "x", (const char *const[]) { "y", NULL });
  g_assert_true (cml_plot_view_can_pick (win->phase_plot));
  /* energy against time is no place to start from */
  g_assert_false (cml_plot_view_can_pick (win->time_plot));
  wait_for (plot_drawn, win->phase_plot, "plot_drawn");

  g_signal_connect (win->phase_plot, "pick-initial", G_CALLBACK (on_pick), &picked);
  int w = gtk_widget_get_width (GTK_WIDGET (win->phase_plot));
  int h = gtk_widget_get_height (GTK_WIDGET (win->phase_plot));
  g_assert_true (cml_plot_view_pick (win->phase_plot, 0.4 * w, 0.6 * h));
  g_assert_cmpuint (picked.n, ==, 1);
  /* outside the plot area: nothing */
  g_assert_false (cml_plot_view_pick (win->phase_plot, 1, 1));
  g_assert_cmpuint (picked.n, ==, 1);

  CmlRunner *runner = cml_window_get_runner (win);
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0);
  g_assert_cmpfloat (fabs (obs_of (f, "x") - picked.x), <, 1e-12);
  g_assert_cmpfloat (fabs (obs_of (f, "y") - picked.y), <, 1e-12);
  /* r = Omega = 1: w1 = x - v, w2 = u + y */
  g_assert_cmpfloat (fabs (obs_of (f, "w1") - (obs_of (f, "x") - obs_of (f, "v"))), <, 1e-12);
  g_assert_cmpfloat (fabs (obs_of (f, "w2") - (obs_of (f, "u") + obs_of (f, "y"))), <, 1e-12);
  cml_frame_unref (f);

  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  cml_runner_sync (runner);
  f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "x"), ==, 1.0);
  g_assert_cmpfloat (obs_of (f, "y"), ==, 0.0);
  cml_frame_unref (f);
  window_free (win);
}

/* A drag restarts the run as it goes and is one step to undo. */
static void
test_drag (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  CmlRunner *runner = cml_window_get_runner (win);

  wait_for (views_follow, win, "views_follow");
  const double xs[] = { 0.5, 0.6, 0.7 }, ys[] = { 0.2, 0.3, 0.4 };
  for (guint k = 0; k < 3; k++)
    {
      g_signal_emit_by_name (win->phase_plot, "pick-initial", "x", xs[k], "y", ys[k], k == 2);
      cml_runner_sync (runner);
      CmlFrame *f = cml_runner_get_frame (runner);
      g_assert_cmpfloat (obs_of (f, "x"), ==, xs[k]);
      g_assert_cmpfloat (obs_of (f, "y"), ==, ys[k]);
      cml_frame_unref (f);
    }
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "x"), ==, 1.0);
  cml_frame_unref (f);
  window_free (win);
}

/* Dragging the ball in the scene starts the run where it is put: x and y move, the
 * height stays, the constraints solve the spin; undo puts it back. */
static void
test_scene_drag (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  CmlRunner *runner = cml_window_get_runner (win);

  wait_for (views_follow, win, "views_follow");
  wait_frames (GTK_WIDGET (win), 3); /* frames drawn: the camera framed the scene */
  int w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
  int h = gtk_widget_get_height (GTK_WIDGET (win->scene_view));
  gboolean moved = FALSE;
  guint steps = 0;
  /* the table is no body to drag: the ball answers (and the tip of its velocity arrow,
   * which gives it another velocity instead: undone, and on) */
  for (int y = 5; y < h && !moved; y += 8)
    for (int x = 5; x < w && !moved; x += 8)
      if (cml_scene_view_drag_body (win->scene_view, x, y, x + 60, y + 20))
        {
          cml_runner_sync (runner);
          CmlFrame *f = cml_runner_get_frame (runner);
          g_assert_cmpfloat (f->t, ==, 0);
          if (fabs (obs_of (f, "x") - 1.0) + fabs (obs_of (f, "y")) > 0.05)
            {
              moved = TRUE;
              g_assert_cmpfloat (fabs (obs_of (f, "w1") - (obs_of (f, "x") - obs_of (f, "v"))), <, 1e-12);
              g_assert_cmpfloat (fabs (obs_of (f, "w2") - (obs_of (f, "u") + obs_of (f, "y"))), <, 1e-12);
            }
          else
            steps++;
          cml_frame_unref (f);
        }
  g_assert_true (moved);
  /* one step to undo per drag */
  for (guint k = 0; k <= steps; k++)
    g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (obs_of (f, "x"), ==, 1.0);
  g_assert_cmpfloat (obs_of (f, "v"), ==, 0.5);
  cml_frame_unref (f);
  window_free (win);
}

/* A disc is dragged by its centre too (the vertical disk's x and y). */
static void
test_scene_drag_disc (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("vertical-disk");
  CmlRunner *runner = cml_window_get_runner (win);

  wait_for (views_follow, win, "views_follow");
  wait_frames (GTK_WIDGET (win), 3);
  CmlFrame *f0 = cml_runner_get_frame (runner);
  double x0 = obs_of (f0, "x"), y0 = obs_of (f0, "y");
  cml_frame_unref (f0);
  int w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
  int h = gtk_widget_get_height (GTK_WIDGET (win->scene_view));
  gboolean found = FALSE;
  for (int y = 5; y < h && !found; y += 6)
    for (int x = 5; x < w && !found; x += 6)
      if (cml_scene_view_drag_body (win->scene_view, x, y, x + 50, y + 30))
        found = TRUE;
  g_assert_true (found);
  cml_runner_sync (runner);
  CmlFrame *f = cml_runner_get_frame (runner);
  g_assert_cmpfloat (f->t, ==, 0);
  g_assert_cmpfloat (fabs (obs_of (f, "x") - x0) + fabs (obs_of (f, "y") - y0), >, 0.05);
  cml_frame_unref (f);
  window_free (win);
}

/* Dragging the tip of the ball's velocity arrow ("vector = u, v, 0") starts the run with
 * the velocity the tip then shows; the position stays. */
static void
test_scene_drag_velocity (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  CmlRunner *runner = cml_window_get_runner (win);

  wait_for (views_follow, win, "views_follow");
  wait_frames (GTK_WIDGET (win), 3);
  CmlFrame *f0 = cml_runner_get_frame (runner);
  double u0 = obs_of (f0, "u"), v0 = obs_of (f0, "v"), x0 = obs_of (f0, "x"), y0 = obs_of (f0, "y");
  cml_frame_unref (f0);
  g_autofree char *what = NULL;
  gboolean moved_velocity = FALSE;
  int w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
  int h = gtk_widget_get_height (GTK_WIDGET (win->scene_view));
  /* every draggable point of the view, until one of them is the arrow's tip */
  for (int y = 3; y < h && !moved_velocity; y += 4)
    for (int x = 3; x < w && !moved_velocity; x += 4)
      if (cml_scene_view_drag_body (win->scene_view, x, y, x + 40, y - 25))
        {
          cml_runner_sync (runner);
          CmlFrame *f = cml_runner_get_frame (runner);
          if (fabs (obs_of (f, "x") - x0) < 1e-12 && fabs (obs_of (f, "y") - y0) < 1e-12
              && fabs (obs_of (f, "u") - u0) + fabs (obs_of (f, "v") - v0) > 0.05)
            {
              moved_velocity = TRUE;
              /* the rolling constraints follow the new velocity */
              g_assert_cmpfloat (fabs (obs_of (f, "w1") - (obs_of (f, "x") - obs_of (f, "v"))), <, 1e-12);
              g_assert_cmpfloat (fabs (obs_of (f, "w2") - (obs_of (f, "u") + obs_of (f, "y"))), <, 1e-12);
            }
          else
            {
              /* the ball was moved instead: back, and on */
              g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
              cml_runner_sync (runner);
            }
          cml_frame_unref (f);
        }
  g_assert_true (moved_velocity);
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/pick/click", test_click);
  g_test_add_func ("/ui/pick/drag", test_drag);
  g_test_add_func ("/ui/pick/scene-drag", test_scene_drag);
  g_test_add_func ("/ui/pick/scene-drag-disc", test_scene_drag_disc);
  g_test_add_func ("/ui/pick/scene-drag-velocity", test_scene_drag_velocity);
  return g_test_run ();
}
