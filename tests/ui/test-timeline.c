/* test-timeline.c — the window's timeline: scrubbing shows a recorded moment and the
 * plots cut there, step back, playing on from it starts the run over from its record,
 * reversed time runs back to t = 0 and says how far the body is from its start (with
 * what and in which unit).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-timeline"

#include "ui-util.h"

#include <math.h>

typedef struct
{
  CmlWindow *win;
  double     t;
} Wait;

static CmlFrame *
frame_of (CmlWindow *win)
{
  return cml_runner_get_frame (cml_window_get_runner (win));
}

/* the newest time in the time plot's data (NAN when empty) */
static double
plot_last_t (CmlWindow *win)
{
  CmlPlotColumn *c = cml_plot_view_get_time_column (win->time_plot);
  guint n = cml_plot_column_get_n (c);

  return n ? cml_plot_column_get_data (c)[n - 1] : NAN;
}

static gboolean
frame_at (gpointer data)
{
  Wait *w = data;
  CmlFrame *f = frame_of (w->win);
  gboolean at = f->t == w->t;

  cml_frame_unref (f);
  return at;
}

static gboolean
plot_reaches (gpointer data)
{
  Wait *w = data;

  return plot_last_t (w->win) >= w->t - 1e-9;
}

static gboolean
plot_cut_at (gpointer data)
{
  Wait *w = data;

  return fabs (plot_last_t (w->win) - w->t) < 1e-9;
}

static gboolean
paused_at_start (gpointer data)
{
  Wait *w = data;
  CmlFrame *f = frame_of (w->win);
  gboolean done = f->state == CML_RUNNER_PAUSED && f->t == 0.0;

  cml_frame_unref (f);
  return done;
}

/* Played on from the record: a new run, past W->t. */
static gboolean
played_past (gpointer data)
{
  Wait *w = data;
  CmlFrame *f = frame_of (w->win);
  gboolean past = !f->in_record && f->t > w->t;

  cml_frame_unref (f);
  return past;
}

/* The status line names what it measures and its unit: "x, y: 0 m from the start" (the
 * rolling ball's contact point), never a bare number over angles and lengths together. */
static gboolean
distance_shown (gpointer data)
{
  Wait *w = data;
  const char *text = cml_timeline_get_distance_text (w->win->timeline);

  return g_str_has_prefix (text, "x, y: ") && g_str_has_suffix (text, " m from the start")
         && g_ascii_strtod (text + strlen ("x, y: "), NULL) < 1e-8;
}

/* Scrubbing to 0.5 shows the recorded state there, the plots show the run up to 0.5 and
 * the recorded future is kept; step back moves along the record; playing on starts the
 * run over from its record (the plots hold it from t = 0 again). */
static void
test_scrub (void)
{
  CmlWindow *win;
  CmlRunner *runner;
  Wait w;
  CmlFrame *f;
  double dt;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  runner = cml_window_get_runner (win);
  w.win = win;

  cml_runner_step (runner, 2.0);
  cml_runner_sync (runner);
  w.t = 2.0;
  wait_for (plot_reaches, &w, "plot_reaches");

  /* the user drags the scrubber to 0.5 */
  g_signal_emit_by_name (win->timeline, "seek", 0.5);
  w.t = 0.5;
  wait_for (frame_at, &w, "frame_at");
  wait_for (plot_cut_at, &w, "plot_cut_at");
  f = frame_of (win);
  g_assert_true (f->in_record);
  g_assert_cmpfloat (f->recorded_t1, ==, 2.0);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (f);
  /* the scrubber spans the record */
  g_assert_cmpfloat (gtk_adjustment_get_upper (gtk_range_get_adjustment (cml_timeline_get_scale (win->timeline))),
                     ==, 2.0);

  /* ← : one step back along the record, the plots follow */
  dt = cml_window_step_size (win);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step-back", NULL);
  w.t = 0.5 - dt;
  wait_for (frame_at, &w, "frame_at");
  wait_for (plot_cut_at, &w, "plot_cut_at");

  /* play on: the recorded future goes, the plots hold the run from t = 0 on */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL);
  w.t = 0.5;
  wait_for (played_past, &w, "the run to play on past t = 0.5");
  gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL);
  cml_runner_sync (runner);
  f = frame_of (win);
  g_assert_false (f->in_record);
  g_assert_cmpfloat (f->recorded_t1, <, 2.0);
  g_assert_cmpfloat (f->recorded_t1, >, 0.5);
  /* the plots catch up with the record (on a busy machine a frame or many later) */
  w.t = f->recorded_t1;
  wait_for (plot_cut_at, &w, "plot_cut_at");
  g_assert_cmpfloat (cml_plot_column_get_data (cml_plot_view_get_time_column (win->time_plot))[0], ==, 0.0);
  cml_frame_unref (f);

  window_free (win);
}

/* B reverses time: the run goes back to t = 0 and pauses there, the timeline says how far
 * the state is from its start (no common unit for the rolling ball's coordinates); a reset
 * runs forward again. */
static void
test_reverse (void)
{
  CmlWindow *win;
  CmlRunner *runner;
  Wait w;
  CmlFrame *f;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  runner = cml_window_get_runner (win);
  w.win = win;

  cml_runner_step (runner, 1.0);
  cml_runner_sync (runner);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.reverse", NULL);
  g_assert_true (cml_timeline_get_reversed (win->timeline));
  cml_runner_sync (runner);
  f = frame_of (win);
  g_assert_cmpint (f->direction, ==, -1);
  cml_frame_unref (f);

  gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL);
  cml_runner_sync (runner);
  wait_for (paused_at_start, &w, "paused_at_start");
  wait_for (distance_shown, &w, "distance_shown");
  g_test_message ("%s", cml_timeline_get_distance_text (win->timeline));
  /* the plots went back with it */
  w.t = 0.0;
  wait_for (plot_cut_at, &w, "plot_cut_at");

  gtk_widget_activate_action (GTK_WIDGET (win), "win.reset", NULL);
  cml_runner_sync (runner);
  wait_window_shows_runner (win);
  g_assert_false (cml_timeline_get_reversed (win->timeline));
  f = frame_of (win);
  g_assert_cmpint (f->direction, ==, 1);
  cml_frame_unref (f);

  window_free (win);
}

/* A body whose coordinates are angles or pure numbers (the rigid body has none, the
 * heavy top's are the components of a unit vector) has no distance to show: nothing, rather
 * than a number without a unit.  The chaplygin sleigh's x, y in m, not its angle. */
static void
test_distance_meaning (void)
{
  static const struct { const char *model; const char *prefix; } cases[] = {
    { "rigid-body", NULL }, { "heavy-top", NULL }, { "chaplygin-sleigh", "x, y: " },
  };

  SKIP_WITHOUT_DISPLAY ();
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      CmlWindow *win = window_new (cases[k].model);
      CmlRunner *runner = cml_window_get_runner (win);
      const char *text;

      cml_runner_step (runner, 0.5);
      cml_runner_sync (runner);
      wait_window_shows_runner (win);
      text = cml_timeline_get_distance_text (win->timeline);
      g_test_message ("%s: “%s”", cases[k].model, text);
      if (cases[k].prefix)
        {
          g_assert_true (g_str_has_prefix (text, cases[k].prefix));
          g_assert_true (g_str_has_suffix (text, " m from the start"));
        }
      else
        g_assert_cmpstr (text, ==, "");
      window_free (win);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/timeline/scrub", test_scrub);
  g_test_add_func ("/ui/timeline/reverse", test_reverse);
  g_test_add_func ("/ui/timeline/distance-meaning", test_distance_meaning);

  return g_test_run ();
}
