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
#include "cml-model.h"
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

/* The window's state against STEP's: its model, every parameter the step gives, the
 * parameters it hides shown "?", its caption. */
static void
assert_step_shown (CmlWindow *win, const CmlLessonStep *step)
{
  GHashTableIter it;
  gpointer name, v;

  g_assert_cmpstr (cml_system_get_model (win->system)->name, ==, step->model->name);
  g_assert_cmpstr (cml_system_get_model (win->system)->text, ==, step->model->text);
  g_hash_table_iter_init (&it, step->params);
  while (g_hash_table_iter_next (&it, &name, &v))
    g_assert_cmpfloat (param (win, name), ==, *(double *) v);
  for (guint h = 0; step->hidden && step->hidden[h]; h++)
    g_assert_true (cml_parameter_panel_is_hidden (win->parameter_panel, step->hidden[h]));
  g_assert_cmpstr (gtk_label_get_text (win->lesson_caption), ==, cml_lesson_step_text (step, "caption"));
}

/* The band laid out with the step's caption: shown, and two frames drawn since FROM (the
 * frame clock's counter when the step was shown), each laying the window out anew. */
typedef struct
{
  CmlWindow *win;
  gint64     from;
} LayoutWait;

static gint64
frame_counter (CmlWindow *win)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (win));

  return clock ? gdk_frame_clock_get_frame_counter (clock) : 0;
}

static gboolean
band_laid_out (gpointer data)
{
  LayoutWait *w = data;
  GtkWidget *caption = GTK_WIDGET (w->win->lesson_caption);

  GtkWidget *scroll = gtk_widget_get_ancestor (w->win->lesson_band, GTK_TYPE_SCROLLED_WINDOW);

  /* and the band's room, as the window last chose it, given */
  return gtk_widget_get_mapped (caption) && gtk_widget_get_height (caption) > 0 && frame_counter (w->win) >= w->from + 2
         && gtk_widget_get_height (scroll) >= gtk_scrolled_window_get_min_content_height (GTK_SCROLLED_WINDOW (scroll));
}

/* Every step of every shipped lesson, walked with Page Down's action: each shows its own
 * model and parameters; a step with a question waits, paused at t = 0. */
static void
test_shipped (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "lessons", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n_lessons = 0;

  SKIP_WITHOUT_DISPLAY ();
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr (CmlLesson) lesson = NULL;
      g_autoptr (GError) error = NULL;
      CmlWindow *win;

      if (!g_str_has_suffix (name, ".cmllesson"))
        continue;
      n_lessons++;
      lesson = cml_lesson_load (path, &error);
      g_assert_no_error (error);
      /* as on a 4:3 projector, in presentation mode (window_new, sized before shown) */
      win = cml_window_new (NULL);
      g_object_ref (win);
      cml_window_set_fixed_size (win, 1024, 768);
      g_object_set (win, "presentation", TRUE, NULL);
      gtk_window_present (GTK_WINDOW (win));
      g_assert_true (cml_window_open_lesson (win, path, 1, &error));
      g_assert_no_error (error);
      for (guint k = 0; k < lesson->steps->len; k++)
        {
          CmlLessonStep *step = lesson->steps->pdata[k];
          double t;

          g_test_message ("%s, step %u", name, k + 1);
          wait_step (win, k + 1);
          assert_step_shown (win, step);
          /* the step's texts laid out: they do not widen the window past the screen */
          LayoutWait lw = { win, frame_counter (win) };
          if (!spin_until (band_laid_out, &lw, 60))
            g_error ("the band of step %u was not laid out", k + 1);
          g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (win)), <=, 1024);
          g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (win)), >=, 740); /* less its frame */
          /* nor are they cut off: the band has the height they need at its width */
          {
            GtkWidget *scroll = gtk_widget_get_ancestor (win->lesson_band, GTK_TYPE_SCROLLED_WINDOW);
            int natural = 0;

            gtk_widget_measure (win->lesson_band, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (scroll), NULL,
                                &natural, NULL, NULL);
            g_test_message ("band %d of %d (at least %d), window %d×%d", gtk_widget_get_height (scroll), natural,
                            gtk_scrolled_window_get_min_content_height (GTK_SCROLLED_WINDOW (scroll)),
                            gtk_widget_get_width (GTK_WIDGET (win)), gtk_widget_get_height (GTK_WIDGET (win)));
            g_assert_cmpint (gtk_widget_get_height (scroll), >=, natural);
          }
          g_assert_false (cml_window_lesson_recorded (win));
          if (step->prediction.kind != CML_PREDICTION_NONE)
            {
              g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ASKED);
              g_assert_cmpint (run_state (win, &t), ==, CML_RUNNER_PAUSED);
              g_assert_cmpfloat (t, ==, 0);
            }
          if (k + 1 < lesson->steps->len)
            g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-next", NULL));
        }
      window_free (win);
    }
  g_assert_cmpuint (n_lessons, >=, 3);
}

typedef struct
{
  CmlWindow *win;
  double     t;
} TimeWait;

static gboolean
time_passed (gpointer data)
{
  TimeWait *w = data;
  double t;

  run_state (w->win, &t);
  return t >= w->t;
}

static gboolean
paused_at_end (gpointer data)
{
  CmlWindow *win = data;
  double t;

  return run_state (win, &t) == CML_RUNNER_PAUSED && t > 1.0;
}

/* A student's copy (cmlab-cli lesson export --student): it opens; the step whose hidden
 * mass is left out shows "?" with its controls locked, and plays its recorded motion
 * (Play, the speed, the scene and the plots as for a run, without the hidden value),
 * taking the answer from it, without a verdict (the copy holds no answers), and stopping
 * at its end. */
static void
test_student_copy (void)
{
  g_autofree char *src = lesson_path ("singular-lagrangian.cmllesson");
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "copy", NULL);
  g_autofree char *path = g_build_filename (dir, "singular-lagrangian.cmllesson", NULL);
  const char *cli = g_getenv ("CMLAB_CLI");
  g_autoptr (CmlLesson) copy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  CmlLessonStep *step = NULL;
  GtkSpinButton *spin;
  CmlWindow *win;
  int status = 0;
  guint k4 = 0;
  double v;

  SKIP_WITHOUT_DISPLAY ();
  if (cli == NULL)
    {
      g_test_skip ("CMLAB_CLI is not set");
      return;
    }
  {
    const char *argv[] = { cli, "lesson", "export", src, "--student", "-o", dir, NULL };
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                                 &status, &error));
  }
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("the export failed: %s", err);
  copy = cml_lesson_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (copy->student);
  for (guint k = 0; k < copy->steps->len; k++)
    if (((CmlLessonStep *) copy->steps->pdata[k])->motion)
      {
        step = copy->steps->pdata[k];
        k4 = k + 1;
      }
  g_assert_nonnull (step);

  win = window_new (NULL);
  /* a step the copy can run, then the recorded one */
  g_assert_true (cml_window_open_lesson (win, path, 1, &error));
  g_assert_no_error (error);
  wait_step (win, 1);
  g_assert_false (cml_window_lesson_recorded (win));
  g_assert_true (cml_window_lesson_go_to (win, k4, &error));
  g_assert_no_error (error);
  wait_step (win, k4);
  g_assert_true (cml_window_lesson_recorded (win));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->lesson_recorded)));
  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, step->hidden[0]);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (spin)), ==, "?");
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  /* Play (Space's action) plays the recorded motion: the frames, which the scene and the
   * plots are drawn from, carry the recording's values at their times (between rows to the
   * interpolation's accuracy: the rows are 12 ms apart), and the window still lacks the
   * hidden mass (its runner has the model's own) */
  g_assert_cmpint (run_state (win, NULL), ==, CML_RUNNER_PAUSED);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL));
  {
    TimeWait w = { win, 1.0 };

    wait_for (time_passed, &w, "the recorded motion to play past t = 1");
  }
  cml_runner_pause (win->runner);
  {
    CmlFrame *frame;
    int rho;

    cml_runner_sync (win->runner);
    frame = cml_runner_get_frame (win->runner);
    rho = cml_system_observable_index (frame->system, "rho");
    g_assert_cmpint (rho, >=, 0);
    g_assert_cmpfloat (frame->t, >=, 1.0);
    g_assert_true (cml_lesson_motion_value (step->motion, "rho", frame->t, &v));
    g_assert_cmpfloat_with_epsilon (frame->obs[rho], v, 1e-4);
    g_assert_cmpfloat (frame->params[cml_model_param_index (cml_system_get_model (frame->system), "m2")], !=, 1.35);
    cml_frame_unref (frame);
  }
  /* the answer: the outcome read from the recording, without a verdict (the copy holds
   * no answers) */
  g_assert_true (cml_window_lesson_answer (win, 2, NAN, &error));
  g_assert_no_error (error);
  wait_for (outcome_shown, win, "the outcome");
  g_assert_true (win->have_outcome);
  g_assert_true (cml_lesson_motion_value (step->motion, step->prediction.quantity, step->prediction.at, &v));
  g_assert_cmpfloat (win->outcome_value, ==, v);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (win->lesson_outcome), "right"));
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (win->lesson_outcome), "wrong"));
  /* faster, to the recording's end (the step's end): it stops there, on its last row */
  cml_window_set_speed_index (win, CML_N_SPEEDS - 1);
  wait_for (paused_at_end, win, "the recorded motion to stop at its end");
  {
    CmlFrame *frame = cml_runner_get_frame (win->runner);
    int rho = cml_system_observable_index (frame->system, "rho");
    guint last = step->motion->n_rows - 1;
    int col = -1;

    for (guint c = 0; c < step->motion->n_cols; c++)
      if (g_str_equal (step->motion->names[c], "rho"))
        col = (int) c;
    g_assert_cmpint (col, >=, 0);
    g_assert_cmpfloat (frame->t, ==, step->motion->values[(gsize) last * step->motion->n_cols]);
    g_assert_cmpfloat (frame->obs[rho], ==, step->motion->values[(gsize) last * step->motion->n_cols + col]);
    cml_frame_unref (frame);
  }
  /* back to a step it can run: the controls come back */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-previous", NULL));
  wait_step (win, k4 - 1);
  g_assert_false (cml_window_lesson_recorded (win));
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (win)) && cml_window_lesson_get_step (win, NULL) == k4 - 1);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->lesson_recorded)));
  window_free (win);
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        g_remove (p);
      }
  }
  g_rmdir (dir);
  g_rmdir (tmp);
}

/* Two sessions the same bit for bit: model text, every parameter and initial datum, the
 * integrator's settings a lesson keeps, the view. */
static void
assert_same_session (const CmlSession *a, const CmlSession *b)
{
  GHashTableIter it;
  gpointer k, v;

  g_assert_cmpstr (a->model->text, ==, b->model->text);
  g_assert_cmpuint (g_hash_table_size (a->params), ==, g_hash_table_size (b->params));
  g_hash_table_iter_init (&it, a->params);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      double *w = g_hash_table_lookup (b->params, k);
      g_assert_nonnull (w);
      g_assert_cmpmem (v, sizeof (double), w, sizeof (double));
    }
  g_assert_cmpuint (g_hash_table_size (a->initial), ==, g_hash_table_size (b->initial));
  g_hash_table_iter_init (&it, a->initial);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      double *w = g_hash_table_lookup (b->initial, k);
      g_assert_nonnull (w);
      g_assert_cmpmem (v, sizeof (double), w, sizeof (double));
    }
  g_assert_cmpint (a->integrator.kind, ==, b->integrator.kind);
  g_assert_cmpmem (&a->integrator.rtol, sizeof (double), &b->integrator.rtol, sizeof (double));
  g_assert_cmpmem (&a->integrator.atol, sizeof (double), &b->integrator.atol, sizeof (double));
  g_assert_cmpmem (&a->integrator.h_fixed, sizeof (double), &b->integrator.h_fixed, sizeof (double));
  g_assert_cmpuint (g_hash_table_size (a->view), ==, g_hash_table_size (b->view));
  g_hash_table_iter_init (&it, a->view);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_assert_cmpstr (v, ==, g_hash_table_lookup (b->view, k));
}

/* A lesson written from the window: two steps captured from its state (the second with
 * other parameters, initial data and integrator), captions edited, moved, one deleted and
 * added again, saved; reopened, every step is the captured state bit for bit, saving the
 * reopened lesson writes the same bytes, and the window opens its steps with them. */
static void
test_author (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "written.cmllesson", NULL);
  g_autofree char *again = g_build_filename (dir, "again.cmllesson", NULL);
  g_autofree char *bytes1 = NULL, *bytes2 = NULL;
  const char *set[] = { "Omega=0.612345678901234567", NULL };
  const char *init[] = { "x=0.123456789012345678", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSession) s1 = NULL;
  g_autoptr (CmlSession) s2 = NULL;
  g_autoptr (CmlLesson) read = NULL;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  /* nothing to save yet: said, nothing written */
  g_assert_false (cml_window_lesson_save_authored (win, path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  g_assert_cmpuint (cml_window_lesson_add_step (win, "The table is still.", &error), ==, 1);
  g_assert_no_error (error);
  s1 = cml_window_get_session (win, &error);
  g_assert_no_error (error);

  g_assert_true (cml_window_apply_command_line (win, set, init, &error));
  g_assert_no_error (error);
  g_assert_true (cml_window_set_integrator (win, "rk8pd", 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cml_window_lesson_add_step (win, NULL, &error), ==, 2);
  g_assert_no_error (error);
  s2 = cml_window_get_session (win, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (s2->params, "Omega"), ==, g_ascii_strtod (set[0] + 6, NULL));

  /* the steps' window: edited, moved, deleted and added again */
  cml_window_lesson_show_steps (win);
  g_assert_nonnull (win->steps_window);
  g_assert_true (cml_window_lesson_set_step_text (win, 2, "Now it turns.", "Ω is 0.61 rad/s."));
  g_assert_true (cml_window_lesson_move_step (win, 2, -1));
  g_assert_false (cml_window_lesson_move_step (win, 1, -1));
  g_assert_cmpstr (((CmlLessonStep *) win->authored->steps->pdata[0])->caption, ==, "Now it turns.");
  g_assert_true (cml_window_lesson_move_step (win, 1, +1));
  g_assert_true (cml_window_lesson_delete_step (win, 2));
  g_assert_false (cml_window_lesson_delete_step (win, 2));
  g_assert_cmpuint (win->authored->steps->len, ==, 1);
  g_assert_cmpuint (cml_window_lesson_add_step (win, "Now it turns.", &error), ==, 2);
  g_assert_true (cml_window_lesson_set_step_text (win, 2, NULL, "Ω is 0.61 rad/s."));

  g_assert_true (cml_window_lesson_save_authored (win, path, &error));
  g_assert_no_error (error);
  g_assert_true (cml_window_lesson_save_authored (win, NULL, &error)); /* again, where it was */
  g_assert_no_error (error);

  read = cml_lesson_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (read->steps->len, ==, 2);
  g_assert_cmpstr (((CmlLessonStep *) read->steps->pdata[0])->caption, ==, "The table is still.");
  g_assert_cmpstr (((CmlLessonStep *) read->steps->pdata[1])->notes, ==, "Ω is 0.61 rad/s.");
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (CmlSession) s = cml_lesson_step_session (read->steps->pdata[k]);
      assert_same_session (k == 0 ? s1 : s2, s);
    }
  /* the reopened lesson writes the same key file */
  g_assert_true (cml_lesson_save (read, again, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &bytes1, NULL, NULL));
  g_assert_true (g_file_get_contents (again, &bytes2, NULL, NULL));
  g_assert_cmpstr (bytes1, ==, bytes2);

  /* the window presents it: step 2's state is the one captured */
  g_assert_true (cml_window_open_lesson (win, path, 2, &error));
  g_assert_no_error (error);
  wait_step (win, 2);
  {
    g_autoptr (CmlSession) shown = cml_window_get_session (win, &error);
    g_assert_no_error (error);
    g_hash_table_remove_all (shown->view); /* the window's view is its own now */
    g_hash_table_remove_all (s2->view);
    assert_same_session (s2, shown);
  }
  window_free (win);
  g_remove (path);
  g_remove (again);
  g_rmdir (dir);
}

/* A step with a long caption and a question on a 4:3 projector: the caption's band takes
 * its height after the step's view was first framed, and the view is framed again for the
 * room left — just as a fresh framing of it would be (not left as framed for the taller
 * view it was, the ball pushed to the top edge). */
static void
test_band_fit (void)
{
  g_autofree char *path = lesson_path ("turning-table.cmllesson");
  g_autoptr (GError) error = NULL;
  CmlWindow *win;
  double x0, y0, x1, y1;

  SKIP_WITHOUT_DISPLAY ();
  win = cml_window_new (NULL);
  g_object_ref (win);
  cml_window_set_fixed_size (win, 1024, 768);
  g_object_set (win, "presentation", TRUE, NULL);
  gtk_window_present (GTK_WINDOW (win));
  g_assert_true (cml_window_open_lesson (win, path, 3, &error));
  g_assert_no_error (error);
  wait_step (win, 3);
  g_assert_cmpint (win->prediction, ==, CML_PREDICTION_SHOWN_ASKED); /* paused: the scene holds still */
  wait_layout_settled (GTK_WIDGET (win));
  wait_frames (GTK_WIDGET (win), 5);
  g_assert_true (cml_scene_view_get_moving_point (win->scene_view, &x0, &y0));
  /* a fresh framing of the view as it is now */
  cml_scene_view_frame_run (win->scene_view);
  wait_frames (GTK_WIDGET (win), 5);
  g_assert_true (cml_scene_view_get_moving_point (win->scene_view, &x1, &y1));
  g_test_message ("the ball at (%.2f, %.2f), freshly framed at (%.2f, %.2f), in a view of %d×%d", x0, y0, x1, y1,
                  gtk_widget_get_width (GTK_WIDGET (win->scene_view)), gtk_widget_get_height (GTK_WIDGET (win->scene_view)));
  g_assert_cmpfloat (fabs (x1 - x0), <, 0.5);
  g_assert_cmpfloat (fabs (y1 - y0), <, 0.5);
  window_free (win);
}

static const char *
caption_of (CmlWindow *win, guint number)
{
  return ((CmlLessonStep *) win->authored->steps->pdata[number - 1])->caption;
}

/* the steps' window: moves, deletions, texts and predictions undone newest first (its
 * Ctrl+Z, steps.undo); a prediction the loader would refuse is refused with its reason,
 * and one set there is saved and read back */
static void
test_steps_undo (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "undo.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlLesson) read = NULL;
  CmlPrediction pr = { 0 };
  const CmlPrediction *got;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  g_assert_cmpuint (cml_window_lesson_add_step (win, "A", &error), ==, 1);
  g_assert_cmpuint (cml_window_lesson_add_step (win, "B", &error), ==, 2);
  g_assert_cmpuint (cml_window_lesson_add_step (win, "C", &error), ==, 3);
  g_assert_no_error (error);
  cml_window_lesson_show_steps (win);
  g_assert_cmpuint (cml_window_lesson_n_step_edits (win), ==, 0);
  g_assert_true (gtk_widget_activate_action (win->steps_window, "steps.undo", NULL));
  g_assert_cmpuint (win->authored->steps->len, ==, 3); /* nothing to undo: nothing changed */

  /* typing a caption, keystroke after keystroke, is one edit */
  g_assert_true (cml_window_lesson_set_step_text (win, 2, "B1", NULL));
  g_assert_true (cml_window_lesson_set_step_text (win, 2, "B12", NULL));
  g_assert_cmpuint (cml_window_lesson_n_step_edits (win), ==, 1);
  g_assert_true (cml_window_lesson_move_step (win, 3, -1));   /* A C B12 */
  g_assert_true (cml_window_lesson_delete_step (win, 1));     /* C B12 */
  g_assert_cmpstr (caption_of (win, 1), ==, "C");

  /* a prediction on C: a number, 0.5 m ± 0.1 of x at t = 1 */
  pr.kind = CML_PREDICTION_NUMBER;
  pr.question = (char *) "Where is the ball at t = 1?";
  pr.quantity = (char *) "nothing-such";
  pr.at = 1;
  pr.value = 0.5;
  pr.tolerance = 0.1;
  pr.unit = (char *) "m";
  g_assert_false (cml_window_lesson_set_step_prediction (win, 1, &pr, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "nothing-such"));
  g_clear_error (&error);
  pr.quantity = (char *) "x";
  pr.tolerance = -1;
  g_assert_false (cml_window_lesson_set_step_prediction (win, 1, &pr, &error));
  g_assert_nonnull (strstr (error->message, "tolerance"));
  g_clear_error (&error);
  g_assert_cmpuint (cml_window_lesson_n_step_edits (win), ==, 3); /* refused: no edit */
  pr.tolerance = 0.1;
  g_assert_true (cml_window_lesson_set_step_prediction (win, 1, &pr, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cml_window_lesson_n_step_edits (win), ==, 4);

  /* saved and read back: the prediction as set */
  g_assert_true (cml_window_lesson_save_authored (win, path, &error));
  g_assert_no_error (error);
  read = cml_lesson_load (path, &error);
  g_assert_no_error (error);
  got = &((CmlLessonStep *) read->steps->pdata[0])->prediction;
  g_assert_cmpint (got->kind, ==, CML_PREDICTION_NUMBER);
  g_assert_cmpstr (got->question, ==, pr.question);
  g_assert_cmpstr (got->quantity, ==, "x");
  g_assert_cmpstr (got->unit, ==, "m");
  g_assert_cmpfloat (got->value, ==, 0.5);
  g_assert_cmpfloat (got->tolerance, ==, 0.1);
  g_assert_cmpfloat (got->at, ==, 1);

  /* undone, newest first, through the steps' window's action */
  g_assert_true (gtk_widget_activate_action (win->steps_window, "steps.undo", NULL));
  g_assert_cmpint (((CmlLessonStep *) win->authored->steps->pdata[0])->prediction.kind, ==, CML_PREDICTION_NONE);
  g_assert_true (gtk_widget_activate_action (win->steps_window, "steps.undo", NULL));
  g_assert_cmpuint (win->authored->steps->len, ==, 3);
  g_assert_cmpstr (caption_of (win, 1), ==, "A");
  g_assert_cmpstr (caption_of (win, 2), ==, "C");
  g_assert_cmpstr (caption_of (win, 3), ==, "B12");
  g_assert_true (gtk_widget_activate_action (win->steps_window, "steps.undo", NULL));
  g_assert_cmpstr (caption_of (win, 2), ==, "B12");
  g_assert_cmpstr (caption_of (win, 3), ==, "C");
  g_assert_true (gtk_widget_activate_action (win->steps_window, "steps.undo", NULL));
  g_assert_cmpstr (caption_of (win, 2), ==, "B");
  g_assert_cmpuint (cml_window_lesson_n_step_edits (win), ==, 0);
  g_assert_false (cml_window_lesson_undo_step_edit (win));
  g_assert_cmpstr (caption_of (win, 1), ==, "A");
  g_assert_cmpstr (caption_of (win, 3), ==, "C");

  /* a deleted step kept for undo is freed with the window (the sanitizers' build) */
  g_assert_true (cml_window_lesson_delete_step (win, 3));
  window_free (win);
  g_remove (path);
  g_rmdir (dir);
}

/* The first "Set the Prediction" button of the steps' window at or under W. */
static GtkWidget *
find_apply (GtkWidget *w)
{
  if (GTK_IS_BUTTON (w) && g_object_get_data (G_OBJECT (w), "cml-editor"))
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_apply (c);
      if (found)
        return found;
    }
  return NULL;
}

/* Every widget of TYPE under W, in the order they stand. */
static void
collect_type (GtkWidget *w, GType type, GPtrArray *out)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
    g_ptr_array_add (out, w);
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    collect_type (c, type, out);
}

/* The first step's prediction editor in the steps' window, opened (a closed expander
 * holds its fields out of the window), and its "Set the Prediction" button. */
static GtkWidget *
open_editor (CmlWindow *win, GtkWidget **apply)
{
  g_autoptr (GPtrArray) expanders = g_ptr_array_new ();
  GtkWidget *expander;

  collect_type (win->steps_window, GTK_TYPE_EXPANDER, expanders);
  g_assert_cmpuint (expanders->len, >=, 1);
  expander = expanders->pdata[0];
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  *apply = find_apply (expander);
  g_assert_nonnull (*apply);
  return expander;
}

/* The prediction typed in the steps' window, as a teacher does: a choice question taken
 * (a decimal comma read as a point), then a number question with an answer that is no
 * number refused there, with the reason, the step keeping its question. */
static void
test_prediction_editor (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = g_ptr_array_new ();
  g_autoptr (GPtrArray) kinds = g_ptr_array_new ();
  g_autoptr (GPtrArray) spins = g_ptr_array_new ();
  g_autoptr (GPtrArray) labels = g_ptr_array_new ();
  const CmlPrediction *pr;
  GtkWidget *apply, *expander;
  CmlWindow *win;
  gboolean told = FALSE;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  g_assert_cmpuint (cml_window_lesson_add_step (win, "The table turns.", &error), ==, 1);
  cml_window_lesson_show_steps (win);
  expander = open_editor (win, &apply);
  collect_type (expander, GTK_TYPE_ENTRY, entries);
  collect_type (expander, GTK_TYPE_DROP_DOWN, kinds);
  collect_type (expander, GTK_TYPE_SPIN_BUTTON, spins);
  /* question, quantity, time; choices, check; answer, unit, tolerance; afterwards */
  g_assert_cmpuint (entries->len, ==, 9);
  g_assert_cmpuint (kinds->len, ==, 1);
  g_assert_cmpuint (spins->len, ==, 1);
  gtk_drop_down_set_selected (kinds->pdata[0], 1);
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_parent (entries->pdata[3])));
  gtk_editable_set_text (entries->pdata[0], "Does the ball leave the table?");
  gtk_editable_set_text (entries->pdata[1], "x");
  gtk_editable_set_text (entries->pdata[2], "2,5");
  gtk_editable_set_text (entries->pdata[3], "Yes ; No");
  gtk_spin_button_set_value (spins->pdata[0], 2);
  gtk_editable_set_text (entries->pdata[4], "< 1.76");
  g_signal_emit_by_name (apply, "clicked");
  pr = &((CmlLessonStep *) win->authored->steps->pdata[0])->prediction;
  g_assert_cmpint (pr->kind, ==, CML_PREDICTION_CHOICE);
  g_assert_cmpstr (pr->question, ==, "Does the ball leave the table?");
  g_assert_cmpstr (pr->quantity, ==, "x");
  g_assert_cmpfloat (pr->at, ==, 2.5);
  g_assert_cmpuint (g_strv_length (pr->choices), ==, 2);
  g_assert_cmpstr (pr->choices[1], ==, "No");
  g_assert_cmpuint (pr->answer, ==, 2);
  g_assert_cmpint (pr->check_op, ==, '<');
  g_assert_cmpfloat (pr->check_value, ==, 1.76);

  /* the list made again: its editor shows the question; a number that is none is refused */
  expander = open_editor (win, &apply);
  g_ptr_array_set_size (entries, 0);
  g_ptr_array_set_size (kinds, 0);
  collect_type (expander, GTK_TYPE_ENTRY, entries);
  collect_type (expander, GTK_TYPE_DROP_DOWN, kinds);
  g_assert_cmpstr (gtk_editable_get_text (entries->pdata[0]), ==, "Does the ball leave the table?");
  /* in the numbers typed, not 1.7600000000000001 */
  g_assert_cmpstr (gtk_editable_get_text (entries->pdata[2]), ==, "2.5");
  g_assert_cmpstr (gtk_editable_get_text (entries->pdata[4]), ==, "< 1.76");
  gtk_drop_down_set_selected (kinds->pdata[0], 2);
  gtk_editable_set_text (entries->pdata[5], "far");
  g_signal_emit_by_name (apply, "clicked");
  g_assert_cmpint (pr->kind, ==, CML_PREDICTION_CHOICE);
  collect_type (expander, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_has_css_class (labels->pdata[i], "error") && gtk_widget_get_visible (labels->pdata[i]))
      {
        g_test_message ("said: %s", gtk_label_get_text (labels->pdata[i]));
        told = strstr (gtk_label_get_text (labels->pdata[i]), "answer") != NULL;
      }
  g_assert_true (told);
  window_free (win);
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
  g_test_add_func ("/ui/lesson/shipped", test_shipped);
  g_test_add_func ("/ui/lesson/student-copy", test_student_copy);
  g_test_add_func ("/ui/lesson/author", test_author);
  g_test_add_func ("/ui/lesson/steps-undo", test_steps_undo);
  g_test_add_func ("/ui/lesson/band-fit", test_band_fit);
  g_test_add_func ("/ui/lesson/prediction-editor", test_prediction_editor);

  return g_test_run ();
}
