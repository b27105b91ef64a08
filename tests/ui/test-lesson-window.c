/* test-lesson-window.c — a lesson presented in the window (cml-window-lesson.c): each
 * step opens with its own state and caption, Page Down / Page Up walk the steps, a
 * prediction waits for the class's answer with the motion paused and shows its outcome
 * when the run reaches its time, a step's run stops at its end, hidden parameters show
 * "?" with their controls locked, and a bad lesson changes nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under a display; without one every test skips.  Waits are for states, bounded.
 */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "cml-lesson-apply.h"
#include "cml-parameter-panel-private.h"
#include "cml-window-private.h"
#include "ui-util.h"

static char *
lesson_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "..", "lessons", name, NULL);
}

typedef struct
{
  CmlWindow *win;
  guint      step;
} StepWait;

static gboolean
step_shown (gpointer data)
{
  StepWait *w = data;

  return cml_window_lesson_get_step (w->win, NULL) == w->step && cml_window_get_lesson_waiting (w->win) < 0;
}

static void
wait_step (CmlWindow *win, guint step)
{
  StepWait w = { win, step };

  if (!spin_until (step_shown, &w, 300))
    g_error ("the window did not show the lesson's step %u (it shows %u)", step, cml_window_lesson_get_step (win, NULL));
}

static double
param (CmlWindow *win, const char *name)
{
  CmlFrame *frame;
  int k;
  double v;

  cml_runner_sync (win->runner);
  frame = cml_runner_get_frame (win->runner);
  k = cml_model_param_index (cml_system_get_model (frame->system), name);
  g_assert_cmpint (k, >=, 0);
  v = frame->params[k];
  cml_frame_unref (frame);
  return v;
}

static CmlRunnerState
run_state (CmlWindow *win, double *t)
{
  CmlFrame *frame = cml_runner_get_frame (win->runner);
  CmlRunnerState state = frame->state;

  if (t)
    *t = frame->t;
  cml_frame_unref (frame);
  return state;
}

static gboolean
outcome_shown (gpointer data)
{
  return ((CmlWindow *) data)->prediction == CML_PREDICTION_SHOWN_OUTCOME;
}

static gboolean
step_ended (gpointer data)
{
  CmlWindow *win = data;

  return win->step_ended && run_state (win, NULL) == CML_RUNNER_PAUSED;
}

static gboolean
running (gpointer data)
{
  return run_state (data, NULL) == CML_RUNNER_RUNNING;
}

/* the turning table walked with the keys' actions: every step its own state */
static void
test_walk (void)
{
  g_autofree char *path = lesson_path ("turning-table.cmllesson");
  g_autoptr (GError) error = NULL;
  CmlLessonStep *step;
  CmlWindow *win;
  guint n = 0;
  double t;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new (NULL);
  g_assert_true (cml_window_open_lesson (win, path, 1, &error));
  g_assert_no_error (error);
  wait_step (win, 1);
  cml_window_lesson_get_step (win, &n);
  g_assert_cmpuint (n, ==, 3);
  step = win->lesson->steps->pdata[0];
  g_assert_cmpstr (cml_system_get_model (win->system)->name, ==, "rolling-ball");
  g_assert_cmpfloat (param (win, "Omega"), ==, 0);
  g_assert_true (gtk_widget_get_visible (win->lesson_band));
  g_assert_cmpstr (gtk_label_get_text (win->lesson_caption), ==, cml_lesson_step_text (step, "caption"));
  g_assert_nonnull (strstr (gtk_label_get_text (win->lesson_position), "1"));
  g_assert_false (gtk_widget_get_visible (win->lesson_prediction));
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_NONE);
  /* a step without a question plays at once, and stops at its end (t-end = 10) */
  g_assert_true (spin_until (running, win, 60));
  cml_window_set_speed_index (win, CML_N_SPEEDS - 1);
  if (!spin_until (step_ended, win, 300))
    g_error ("the step's run did not stop at its end");
  run_state (win, &t);
  g_assert_cmpfloat (t, >=, step->t_end);

  /* Page Down: the turning table, the question asked with the motion paused */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-next", NULL));
  wait_step (win, 2);
  step = win->lesson->steps->pdata[1];
  g_assert_cmpfloat (param (win, "Omega"), ==, 1);
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ASKED);
  g_assert_true (gtk_widget_get_visible (win->lesson_prediction));
  g_assert_cmpstr (gtk_label_get_text (win->lesson_question), ==, cml_lesson_step_text (step, "question"));
  g_assert_cmpint (run_state (win, &t), ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (t, ==, 0);
  /* a choice out of range is refused, and the question still waits */
  g_assert_false (cml_window_lesson_answer (win, 7, NAN, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ASKED);

  /* the class answers "it stays near": the motion plays to t = 50, then the outcome */
  g_assert_true (cml_window_lesson_answer (win, 2, NAN, &error));
  g_assert_no_error (error);
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ANSWERED);
  g_assert_true (spin_until (running, win, 60));
  if (!spin_until (outcome_shown, win, 600))
    g_error ("the outcome did not show (t = %g)", (run_state (win, &t), t));
  run_state (win, &t);
  g_assert_cmpfloat (t, >=, step->prediction.at);
  g_assert_true (win->have_outcome);
  /* the value the run gives is the lesson's check's: within 1.76 of −0.75 */
  g_assert_cmpfloat (fabs (win->outcome_value + 0.75), <=, 1.76);
  g_assert_true (cml_prediction_class_right (&step->prediction, win->outcome_value, win->class_choice, win->class_number));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (win->lesson_outcome), "right"));
  g_assert_cmpstr (gtk_label_get_text (win->lesson_afterwards), ==, cml_lesson_step_text (step, "afterwards"));

  /* Page Up: the still table again, from its own start */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-previous", NULL));
  wait_step (win, 1);
  g_assert_cmpfloat (param (win, "Omega"), ==, 0);
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_NONE);
  g_assert_false (gtk_widget_get_visible (win->lesson_prediction));
  window_free (win);
}

/* a number question: the class's wrong number is told wrong, beside the run's value */
static void
test_number (void)
{
  g_autofree char *path = lesson_path ("turning-table.cmllesson");
  g_autoptr (GError) error = NULL;
  CmlLessonStep *step;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new (NULL);
  g_assert_true (cml_window_open_lesson (win, path, 3, &error));
  g_assert_no_error (error);
  wait_step (win, 3);
  step = win->lesson->steps->pdata[2];
  g_assert_true (gtk_widget_get_visible (win->lesson_number_box));
  g_assert_cmpstr (gtk_label_get_text (win->lesson_unit), ==, "m");
  /* not a number: said, and the question still waits */
  gtk_editable_set_text (GTK_EDITABLE (win->lesson_number_entry), "far");
  g_signal_emit_by_name (win->lesson_number_entry, "activate");
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ASKED);
  /* typed with a decimal comma, as many write it */
  gtk_editable_set_text (GTK_EDITABLE (win->lesson_number_entry), "0,5");
  g_signal_emit_by_name (win->lesson_number_entry, "activate");
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ANSWERED);
  g_assert_cmpfloat (win->class_number, ==, 0.5);
  cml_window_set_speed_index (win, CML_N_SPEEDS - 1);
  if (!spin_until (outcome_shown, win, 600))
    g_error ("the outcome did not show");
  g_assert_true (win->have_outcome);
  /* the run's x at 7π/2 is the lesson's answer (−2.5 m), so 0.5 m is wrong */
  g_assert_cmpfloat (fabs (win->outcome_value - step->prediction.value), <=, step->prediction.tolerance);
  g_assert_false (cml_prediction_class_right (&step->prediction, win->outcome_value, 0, win->class_number));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (win->lesson_outcome), "wrong"));
  g_assert_false (gtk_widget_get_visible (win->lesson_number_box));
  window_free (win);
}

/* a parameter the teacher hid: "?" in its field, field and slider locked; the next step,
 * which hides nothing, shows it again */
static void
test_hidden (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "mystery.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  GtkSpinButton *spin;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  g_assert_true (g_file_set_contents (path,
                                      "[lesson]\nformat = cmlab-lesson 1\ntitle = A mystery\n\n"
                                      "[step 1]\ncaption = How fast does the table turn?\nmodel = rolling-ball\n"
                                      "param.Omega = 0.7\nhidden = Omega\n\n"
                                      "[step 2]\ncaption = It turns at 0.7 rad/s.\nmodel = rolling-ball\nparam.Omega = 0.7\n",
                                      -1, NULL));
  win = window_new ("rolling-ball");
  g_assert_true (cml_window_open_lesson (win, path, 1, &error));
  g_assert_no_error (error);
  wait_step (win, 1);
  g_assert_cmpfloat (param (win, "Omega"), ==, 0.7);
  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  g_assert_nonnull (spin);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "?");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (cml_parameter_panel_get_param_scale (win->parameter_panel, "Omega"))));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (spin)), "The teacher hid this value"));
  g_assert_true (cml_parameter_panel_is_hidden (win->parameter_panel, "Omega"));
  /* the other parameters are the class's to change */
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (cml_parameter_panel_get_param_spin (win->parameter_panel, "m"))));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-next", NULL));
  wait_step (win, 2);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "0.7");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_false (cml_parameter_panel_is_hidden (win->parameter_panel, "Omega"));
  window_free (win);
  g_remove (path);
  g_rmdir (dir);
}

/* a lesson that cannot be opened, or a step it does not have: an error, nothing changes */
static void
test_refused (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.cmllesson", NULL);
  g_autofree char *good = lesson_path ("turning-table.cmllesson");
  g_autoptr (GError) error = NULL;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  g_assert_true (g_file_set_contents (bad, "[lesson]\nformat = cmlab-lesson 1\ntitle = x\n\n[step 1]\nmodel = rolling-ball\n",
                                      -1, NULL));
  win = window_new ("plate-ball");
  g_assert_false (cml_window_open_lesson (win, bad, 1, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "bad.cmllesson"));
  g_clear_error (&error);
  g_assert_false (cml_window_open_lesson (win, good, 9, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (win->lesson);
  g_assert_false (gtk_widget_get_visible (win->lesson_band));
  g_assert_cmpstr (cml_system_get_model (win->system)->name, ==, "plate-ball");
  g_assert_false (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-next", NULL)
                  && cml_window_get_lesson_waiting (win) >= 0);
  window_free (win);
  g_remove (bad);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/lesson/walk", test_walk);
  g_test_add_func ("/ui/lesson/number", test_number);
  g_test_add_func ("/ui/lesson/hidden", test_hidden);
  g_test_add_func ("/ui/lesson/refused", test_refused);

  return g_test_run ();
}
