/* cml-window-lesson.c — a lesson presented in the window, step by step.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A lesson (cml-lesson.h) is read and checked whole before the window changes.  Each
 * step is opened as a session is (cml_lesson_step_session): its model derived on a worker
 * when it must be (cml-window-derive.c), then its parameters, initial data, integrator
 * and view settings; once that is installed the band under the view shows the step's
 * caption for the class, "Step N of M" and the lesson's title, and the parameters the
 * teacher hid show "?" with their controls locked.  Page Down and Page Up (a presenter's
 * remote sends them) go to the next and the previous step, each from its own state.
 *
 * A step without a prediction plays at once.  A step with one first asks its question
 * with the motion paused; the teacher gives the class's answer (a choice's button or its
 * number key, or a number typed); then the motion plays, and when the run reaches the
 * prediction's time the outcome stands beside the question: the quantity's value there
 * and whether the class was right (cml_prediction_class_right), with what to say
 * afterwards.  A step of a student's copy that lacks a hidden value plays the motion
 * recorded with it instead (cml_runner_set_recording): Play, the speed and the timeline
 * drive it, and scene and plots show it, as a run; the value is read from the recording.
 * Otherwise the value is read by a worker that runs the step on its own from its
 * start to that time, as cml_lesson_step_outcome does, on a simulation of the window's
 * system made on the window's thread (as a second run compared shares the system).  A
 * step's run pauses when it reaches the step's t-end.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-lesson-apply.h"
#include "cml-parameter-panel-private.h"

#define LESSON_EXT ".cmllesson"

gboolean
cml_is_lesson_path (const char *path)
{
  g_autofree char *lower = path ? g_ascii_strdown (path, -1) : NULL;

  return lower && g_str_has_suffix (lower, LESSON_EXT);
}

static CmlLessonStep *
current_step (CmlWindow *self)
{
  if (self->lesson == NULL || self->lesson_step >= self->lesson->steps->len)
    return NULL;
  return self->lesson->steps->pdata[self->lesson_step];
}

gboolean
cml_window_lesson_recorded (CmlWindow *self)
{
  CmlLessonStep *step = current_step (self);

  return step && self->lesson_opened && step->unknown && step->unknown[0];
}

static void
update_actions (CmlWindow *self)
{
  guint n = self->lesson ? self->lesson->steps->len : 0;

  cml_window_update_actions (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.lesson-next", self->lesson && self->lesson_step + 1 < n);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.lesson-previous", self->lesson && self->lesson_step > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.lesson-close", self->lesson != NULL);
}

/* ---- the outcome, read on a worker ----------------------------------------------------------- */

typedef struct
{
  CmlSimulation *sim;  /* the step's run, made on the window's thread, the worker's alone */
  CmlPrediction  prediction; /* the numbers and the quantity (the texts stay the lesson's) */
  double         value;
} OutcomeJob;

static void
outcome_job_free (gpointer data)
{
  OutcomeJob *job = data;

  g_clear_pointer (&job->sim, cml_simulation_free);
  g_free (job->prediction.quantity);
  g_free (job);
}

/* Worker thread: the run to the prediction's time, on a simulation no one else touches
 * (its system is shared with the window's runner, as a second run compared is). */
static void
outcome_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  OutcomeJob *job = data;
  GError *error = NULL;

  if (!cml_lesson_prediction_read (&job->prediction, job->sim, &job->value, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void show_prediction (CmlWindow *self);

/* The window's thread: the value is known; shown when the run reaches its time. */
static void
outcome_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GWeakRef *weak = data;
  g_autoptr (CmlWindow) self = g_weak_ref_get (weak);
  GTask *task = G_TASK (result);
  OutcomeJob *job = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  g_weak_ref_clear (weak);
  g_free (weak);
  if (self == NULL || g_task_get_cancellable (task) != self->outcome_cancel
      || g_cancellable_is_cancelled (self->outcome_cancel))
    return; /* another step (or none, or no window) by now */
  if (g_task_propagate_boolean (task, &error))
    {
      self->have_outcome = TRUE;
      self->outcome_value = job->value;
    }
  else
    {
      g_free (self->outcome_error);
      self->outcome_error = g_strdup (error->message);
    }
  show_prediction (self);
}

static void
start_outcome (CmlWindow *self, const CmlLessonStep *step)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GTask) task = NULL;
  OutcomeJob *job;
  CmlSimulation *sim;
  GWeakRef *weak;

  /* a step shown from its recording: the value is there (cml_lesson_step_outcome's) */
  if (step->motion)
    {
      if (cml_lesson_motion_value (step->motion, step->prediction.quantity, step->prediction.at, &self->outcome_value))
        self->have_outcome = TRUE;
      else
        self->outcome_error = g_strdup_printf (_("the recorded motion has no %s at t = %g"),
                                               step->prediction.quantity, step->prediction.at);
      return;
    }
  /* the step's state on the system the window runs it with (derived, prepared here) */
  sim = cml_lesson_step_simulation_on (step, self->system, &error);
  if (sim == NULL)
    {
      self->outcome_error = g_strdup (error->message);
      return;
    }
  job = g_new0 (OutcomeJob, 1);
  job->sim = sim;
  job->prediction = step->prediction;
  job->prediction.question = NULL;
  job->prediction.choices = NULL;
  job->prediction.unit = NULL;
  job->prediction.afterwards = NULL;
  job->prediction.quantity = g_strdup (step->prediction.quantity);

  self->outcome_cancel = g_cancellable_new ();
  /* the window is held weakly: closed meanwhile, it goes at once, and the worker's run
   * (which holds its own system) ends on its own */
  weak = g_new0 (GWeakRef, 1);
  g_weak_ref_init (weak, self);
  task = g_task_new (NULL, self->outcome_cancel, outcome_done, weak);
  g_task_set_source_tag (task, start_outcome);
  g_task_set_task_data (task, job, outcome_job_free);
  g_task_run_in_thread (task, outcome_thread);
}

static void
stop_outcome (CmlWindow *self)
{
  if (self->outcome_cancel)
    g_cancellable_cancel (self->outcome_cancel);
  g_clear_object (&self->outcome_cancel);
  self->have_outcome = FALSE;
  g_clear_pointer (&self->outcome_error, g_free);
}

/* ---- the band ------------------------------------------------------------------------------- */

/* A number as the band shows it: %g in the user's locale, with the unit when there is one. */
static char *
format_value (double v, const char *unit)
{
  return unit && *unit ? g_strdup_printf ("%.4g %s", v, unit) : g_strdup_printf ("%.4g", v);
}

static void
show_prediction (CmlWindow *self)
{
  CmlLessonStep *step = current_step (self);
  const CmlPrediction *pr = step ? &step->prediction : NULL;
  gboolean asked = self->prediction == CML_PREDICTION_SHOWN_ASKED;
  GtkWidget *child;
  guint k = 0;

  gtk_widget_set_visible (self->lesson_prediction, pr && pr->kind != CML_PREDICTION_NONE);
  if (pr == NULL || pr->kind == CML_PREDICTION_NONE)
    return;

  /* the choices: the class's answer marked once given, the rest locked */
  for (child = gtk_widget_get_first_child (GTK_WIDGET (self->lesson_choices)); child;
       child = gtk_widget_get_next_sibling (child), k++)
    {
      GtkWidget *button = child;

      gtk_widget_set_sensitive (button, asked);
      if (self->prediction != CML_PREDICTION_SHOWN_ASKED && k + 1 == self->class_choice)
        gtk_widget_add_css_class (button, "suggested-action");
      else
        gtk_widget_remove_css_class (button, "suggested-action");
    }
  /* the keys go back to the window (Space, Page Down) before the field is locked: a
   * focused field made insensitive keeps the keys to itself */
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
    GtkWidget *entry = GTK_WIDGET (self->lesson_number_entry);

    if (!asked && focus && (focus == entry || gtk_widget_is_ancestor (focus, entry)))
      gtk_root_set_focus (GTK_ROOT (self), NULL);
  }
  gtk_widget_set_sensitive (GTK_WIDGET (self->lesson_number_entry), asked);
  gtk_widget_set_sensitive (GTK_WIDGET (self->lesson_number_button), asked);

  /* once the outcome shows, the answer is told in it and the controls give up the room */
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_choices),
                          pr->kind == CML_PREDICTION_CHOICE && self->prediction != CML_PREDICTION_SHOWN_OUTCOME);
  gtk_widget_set_visible (self->lesson_number_box,
                          pr->kind == CML_PREDICTION_NUMBER && self->prediction != CML_PREDICTION_SHOWN_OUTCOME);
  gtk_widget_remove_css_class (GTK_WIDGET (self->lesson_outcome), "right");
  gtk_widget_remove_css_class (GTK_WIDGET (self->lesson_outcome), "wrong");
  if (self->prediction == CML_PREDICTION_SHOWN_OUTCOME)
    gtk_widget_remove_css_class (GTK_WIDGET (self->lesson_outcome), "dim-label");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->lesson_outcome), "dim-label");
  gtk_label_set_text (self->lesson_afterwards, "");
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_afterwards), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_outcome), self->prediction != CML_PREDICTION_SHOWN_ASKED);
  switch (self->prediction)
    {
    case CML_PREDICTION_SHOWN_ASKED:
      /* the question and its answers say it; the line's room goes to the view */
      gtk_label_set_text (self->lesson_outcome, "");
      break;
    case CML_PREDICTION_SHOWN_ANSWERED:
      {
        g_autofree char *when = g_strdup_printf (_("Answer given. Watch: the outcome shows at t = %g."), pr->at);
        gtk_label_set_text (self->lesson_outcome, when);
      }
      break;
    case CML_PREDICTION_SHOWN_OUTCOME:
      {
        CmlModel *m = step->model;
        const char *unit = cml_model_unit (m, pr->quantity);
        g_autofree char *shown = cml_model_display_name (m, pr->quantity);
        g_autofree char *value = format_value (self->outcome_value, unit);
        gboolean judged = !pr->no_answer; /* a student's copy holds no answers */
        gboolean right = judged && cml_prediction_class_right (pr, self->outcome_value, self->class_choice, self->class_number);
        g_autofree char *text = NULL;
        g_autofree char *answer = NULL;

        if (pr->kind == CML_PREDICTION_CHOICE)
          {
            g_auto (GStrv) choices = cml_lesson_step_choices (step);
            answer = g_strdup (self->class_choice >= 1 && self->class_choice <= g_strv_length (choices)
                                 ? choices[self->class_choice - 1] : "");
          }
        else
          answer = format_value (self->class_number, cml_lesson_step_text (step, "unit"));
        if (self->outcome_error)
          text = g_strdup_printf (_("The run could not answer: %s"), self->outcome_error);
        else if (!judged)
          /* TRANSLATORS: the class's answer, the time, the quantity's name and its value */
          text = g_strdup_printf (_("The class said “%s”. At t = %g: %s = %s."), answer, pr->at, shown, value);
        else
          /* TRANSLATORS: the class's answer, the time, the quantity's name, its value (with
           * its unit), and the verdict ("The class was right." / "The class was not right.") */
          text = g_strdup_printf (_("The class said “%s”. At t = %g: %s = %s. %s"), answer, pr->at, shown, value,
                                  right ? _("The class was right.") : _("The class was not right."));
        gtk_label_set_text (self->lesson_outcome, text);
        if (!self->outcome_error && judged)
          gtk_widget_add_css_class (GTK_WIDGET (self->lesson_outcome), right ? "right" : "wrong");
        if (cml_lesson_step_text (step, "afterwards"))
          {
            gtk_label_set_text (self->lesson_afterwards, cml_lesson_step_text (step, "afterwards"));
            gtk_widget_set_visible (GTK_WIDGET (self->lesson_afterwards), TRUE);
          }
      }
      break;
    default:
      gtk_label_set_text (self->lesson_outcome, "");
      break;
    }
}

static void on_choice_clicked (GtkButton *button, CmlWindow *self);

/* The band for the step shown: position, caption, the question's controls. */
static void
show_step (CmlWindow *self)
{
  CmlLessonStep *step = current_step (self);
  const CmlPrediction *pr;
  g_autofree char *position = NULL;
  g_auto (GStrv) choices = NULL;
  GtkWidget *child;

  gtk_widget_set_visible (self->lesson_band, step != NULL);
  update_actions (self);
  if (step == NULL)
    return;
  pr = &step->prediction;
  /* TRANSLATORS: the step shown, how many there are, and the lesson's title */
  position = g_strdup_printf (_("Step %u of %u · %s"), self->lesson_step + 1, self->lesson->steps->len,
                              cml_lesson_title (self->lesson));
  gtk_label_set_text (self->lesson_position, position);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->lesson_position), position); /* whole, when cut short */
  gtk_label_set_text (self->lesson_caption, cml_lesson_step_text (step, "caption"));
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_recorded), cml_window_lesson_recorded (self));
  if (cml_lesson_step_text (step, "notes"))
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->lesson_caption), cml_lesson_step_text (step, "notes"));
  else
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->lesson_caption), NULL);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->lesson_choices))) != NULL)
    gtk_box_remove (self->lesson_choices, child);
  if (pr->kind == CML_PREDICTION_NONE)
    {
      show_prediction (self);
      return;
    }
  gtk_label_set_text (self->lesson_question, cml_lesson_step_text (step, "question"));
  if (pr->kind == CML_PREDICTION_CHOICE)
    {
      choices = cml_lesson_step_choices (step);
      for (guint k = 0; choices && choices[k]; k++)
        {
          /* the number is the key that gives it */
          g_autofree char *label = g_strdup_printf ("%u  %s", k + 1, choices[k]);
          g_autofree char *tip = g_strdup_printf (_("The class’s answer (key %u)"), k + 1);
          GtkWidget *button = gtk_button_new_with_label (label);
          GtkWidget *text = gtk_button_get_child (GTK_BUTTON (button));

          /* a long choice wraps rather than widen the window */
          gtk_label_set_wrap (GTK_LABEL (text), TRUE);
          gtk_label_set_justify (GTK_LABEL (text), GTK_JUSTIFY_CENTER);
          gtk_label_set_width_chars (GTK_LABEL (text), 10);
          gtk_label_set_max_width_chars (GTK_LABEL (text), 24);
          gtk_widget_set_tooltip_text (button, tip);
          gtk_widget_set_focus_on_click (button, FALSE);
          gtk_widget_add_css_class (button, "lesson-choice");
          g_object_set_data (G_OBJECT (button), "cml-choice", GUINT_TO_POINTER (k + 1));
          g_signal_connect (button, "clicked", G_CALLBACK (on_choice_clicked), self);
          gtk_box_append (self->lesson_choices, button);
        }
    }
  else
    {
      gtk_editable_set_text (GTK_EDITABLE (self->lesson_number_entry), "");
      gtk_label_set_text (self->lesson_unit, pr->unit ? cml_lesson_step_text (step, "unit") : "");
    }
  show_prediction (self);
}

/* ---- steps ----------------------------------------------------------------------------------- */

void
cml_window_lesson_step_opened (CmlWindow *self, guint k)
{
  CmlLessonStep *step;
  CmlFrame *frame;

  if (self->lesson == NULL || k >= self->lesson->steps->len || self->runner == NULL)
    return;
  step = self->lesson->steps->pdata[k];
  self->lesson_step = k;
  self->lesson_opened = TRUE;
  /* what was drawn marked the step before */
  cml_window_pen_clear (self);
  self->step_ended = FALSE;
  stop_outcome (self);
  self->class_choice = 0;
  self->class_number = NAN;

  /* a step the copy lacks a value for plays the motion recorded with it (scene, plots and
   * timeline as from a run); any other step runs: a recording an earlier step left goes */
  if (cml_window_lesson_recorded (self) && step->motion)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlRecording) rec = cml_recording_new ((const char *const *) step->motion->names, step->motion->n_cols,
                                                        step->motion->n_rows, step->motion->values, &error);

      /* (a motion the loader took is one a recording takes: this is for a forged one) */
      if (rec == NULL)
        cml_window_show_error (self, _("Could not play the recorded motion"), error->message);
      else
        cml_runner_set_recording (self->runner, rec);
    }
  else
    cml_runner_set_recording (self->runner, NULL);

  /* the generation the step's run is: what the tick watches */
  cml_runner_sync (self->runner);
  frame = cml_runner_get_frame (self->runner);
  self->lesson_generation = frame->generation;
  cml_frame_unref (frame);

  cml_parameter_panel_set_hidden (self->parameter_panel, (const char *const *) step->hidden,
                                  _("The teacher hid this value: find it from the motion"));
  if (step->prediction.kind != CML_PREDICTION_NONE)
    {
      self->prediction = CML_PREDICTION_SHOWN_ASKED;
      cml_runner_pause (self->runner);
      cml_window_compare_play (self, FALSE);
      start_outcome (self, step);
    }
  else
    {
      self->prediction = CML_PREDICTION_SHOWN_NONE;
      cml_window_play (self);
    }
  show_step (self);
  if (step->prediction.kind == CML_PREDICTION_NUMBER)
    gtk_widget_grab_focus (GTK_WIDGET (self->lesson_number_entry));
}

gboolean
cml_window_lesson_go_to (CmlWindow *self, guint number, GError **error)
{
  CmlLessonStep *step;
  CmlSession *session;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (self->lesson == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no lesson is open"));
      return FALSE;
    }
  if (number < 1 || number > self->lesson->steps->len)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the lesson has steps 1 to %u, not %u"),
                   self->lesson->steps->len, number);
      return FALSE;
    }
  step = self->lesson->steps->pdata[number - 1];
  /* the step shown stops here: the next starts from its own state, a question's with the
   * motion not yet begun (t = 0) */
  if (self->runner)
    cml_runner_pause (self->runner);
  cml_window_compare_play (self, FALSE);
  session = cml_lesson_step_session (step);
  /* the model the window has with the same text, whose system is derived */
  cml_window_open_lesson_step (self, cml_window_session_model (self, session), self->lesson->path, session,
                               number - 1);
  return TRUE;
}

gboolean
cml_window_open_lesson (CmlWindow *self, const char *path, guint number, GError **error)
{
  g_autoptr (CmlLesson) lesson = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if ((lesson = cml_lesson_load (path, error)) == NULL)
    return FALSE;
  if (lesson->steps->len == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s: the lesson has no steps"), path);
      return FALSE;
    }
  if (number > lesson->steps->len)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s: the lesson has steps 1 to %u, not %u"), path,
                   lesson->steps->len, number);
      return FALSE;
    }
  stop_outcome (self);
  g_clear_pointer (&self->lesson, cml_lesson_free);
  self->lesson = g_steal_pointer (&lesson);
  if (self->lesson->path == NULL)
    self->lesson->path = g_strdup (path);
  /* nothing of it shows until its step's state is installed */
  self->lesson_opened = FALSE;
  self->lesson_step = MAX (number, 1) - 1;
  return cml_window_lesson_go_to (self, MAX (number, 1), error);
}

guint
cml_window_lesson_get_step (CmlWindow *self, guint *n_steps)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), 0);

  if (n_steps)
    *n_steps = self->lesson ? self->lesson->steps->len : 0;
  return self->lesson && self->lesson_opened ? self->lesson_step + 1 : 0;
}

gboolean
cml_window_lesson_answer (CmlWindow *self, guint choice, double number, GError **error)
{
  CmlLessonStep *step = current_step (self);

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (step == NULL || !self->lesson_opened || self->prediction != CML_PREDICTION_SHOWN_ASKED)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no question waits for an answer"));
      return FALSE;
    }
  if (step->prediction.kind == CML_PREDICTION_CHOICE
      && (choice < 1 || choice > g_strv_length (step->prediction.choices)))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the choices are 1 to %u"),
                   g_strv_length (step->prediction.choices));
      return FALSE;
    }
  if (step->prediction.kind == CML_PREDICTION_NUMBER && !isfinite (number))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the answer must be a number"));
      return FALSE;
    }
  self->class_choice = choice;
  self->class_number = number;
  self->prediction = CML_PREDICTION_SHOWN_ANSWERED;
  show_prediction (self);
  cml_window_play (self);
  return TRUE;
}

static void
on_choice_clicked (GtkButton *button, CmlWindow *self)
{
  cml_window_lesson_answer (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "cml-choice")), NAN, NULL);
}

/* The number typed: in the C locale's form or the user's (a decimal comma). */
static void
on_number_given (CmlWindow *self)
{
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->lesson_number_entry)));
  g_autoptr (GError) error = NULL;
  char *end = NULL;
  double v;

  g_strstrip (text);
  g_strdelimit (text, ",", '.');
  /* a typed minus sign as people write it */
  if (g_str_has_prefix (text, "−"))
    {
      char *plain = g_strconcat ("-", text + strlen ("−"), NULL);
      g_free (text);
      text = plain;
    }
  v = g_ascii_strtod (text, &end);
  if (*text == '\0' || end == text || *end != '\0' || !isfinite (v))
    {
      gtk_label_set_text (self->lesson_outcome, _("Type the class’s answer as a number, e.g. 1.5."));
      gtk_widget_error_bell (GTK_WIDGET (self));
      return;
    }
  cml_window_lesson_answer (self, 0, v, &error);
}

/* The band keeps the room its texts need at the window's width, up to a share of the
 * window's height (beyond, it scrolls): the view and the plots give way to it before it
 * scrolls, and the window never grows wider for it. */
#define BAND_MAX_SHARE 0.42

static void
fit_band (CmlWindow *self)
{
  GtkWidget *scroll = gtk_widget_get_parent (gtk_widget_get_parent (self->lesson_band));
  int width = gtk_widget_get_width (GTK_WIDGET (self)), height = gtk_widget_get_height (GTK_WIDGET (self));
  int natural = 0, want;

  if (!GTK_IS_SCROLLED_WINDOW (scroll) || !gtk_widget_get_visible (self->lesson_band) || width <= 0 || height <= 0)
    return;
  gtk_widget_measure (self->lesson_band, GTK_ORIENTATION_VERTICAL, width, NULL, &natural, NULL, NULL);
  want = MIN (natural, (int) (BAND_MAX_SHARE * height));
  if (gtk_scrolled_window_get_min_content_height (GTK_SCROLLED_WINDOW (scroll)) != want)
    gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroll), want);
}

/* Every frame while the band shows (its texts or the window's size may have changed). */
static gboolean
band_tick (GtkWidget *band, GdkFrameClock *clock, gpointer data)
{
  fit_band (CML_WINDOW (data));
  return G_SOURCE_CONTINUE;
}

void
cml_window_lesson_tick (CmlWindow *self, CmlFrame *frame)
{
  CmlLessonStep *step = current_step (self);

  if (step == NULL || !self->lesson_opened || frame->system != self->system
      || frame->generation < self->lesson_generation)
    return;
  /* the prediction's time: the outcome beside the question */
  if (self->prediction == CML_PREDICTION_SHOWN_ANSWERED && frame->t >= step->prediction.at
      && (self->have_outcome || self->outcome_error))
    {
      self->prediction = CML_PREDICTION_SHOWN_OUTCOME;
      show_prediction (self);
    }
  /* the step's end: the motion stops there once (playing on is the teacher's choice) */
  if (!self->step_ended && step->t_end > 0 && frame->t >= step->t_end && frame->state == CML_RUNNER_RUNNING)
    {
      self->step_ended = TRUE;
      cml_runner_pause (self->runner);
      cml_window_compare_play (self, FALSE);
    }
}

void
cml_window_lesson_describe (CmlWindow *self, CmlJson *json)
{
  CmlLessonStep *step = current_step (self);
  static const char *const shown[] = { "none", "asked", "answered", "shown" };

  if (step == NULL)
    {
      cml_json_null (json, "lesson");
      return;
    }
  cml_json_begin_object (json, "lesson", CML_JSON_LINE);
  cml_json_string (json, "title", cml_lesson_title (self->lesson));
  cml_json_int (json, "step", self->lesson_opened ? self->lesson_step + 1 : 0);
  cml_json_int (json, "steps", self->lesson->steps->len);
  cml_json_int (json, "waiting", cml_window_get_lesson_waiting (self) + 1);
  cml_json_string (json, "caption", gtk_label_get_text (self->lesson_caption));
  cml_json_string (json, "prediction", shown[CLAMP (self->prediction, 0, 3)]);
  cml_json_bool (json, "recorded", cml_window_lesson_recorded (self));
  if (self->prediction == CML_PREDICTION_SHOWN_OUTCOME && self->have_outcome)
    {
      cml_json_number (json, "value", self->outcome_value);
      if (step->prediction.no_answer)
        cml_json_null (json, "right");
      else
        cml_json_bool (json, "right", cml_prediction_class_right (&step->prediction, self->outcome_value,
                                                                  self->class_choice, self->class_number));
    }
  else
    {
      cml_json_null (json, "value");
      cml_json_null (json, "right");
    }
  cml_json_begin_array (json, "hidden", CML_JSON_LINE);
  for (guint k = 0; step->hidden && step->hidden[k]; k++)
    if (cml_parameter_panel_is_hidden (self->parameter_panel, step->hidden[k]))
      cml_json_string (json, NULL, step->hidden[k]);
  cml_json_end (json);
  cml_json_end (json);
}

/* ---- actions and keys ------------------------------------------------------------------------ */

/* Goes BY steps from the one shown, or from the one the window waits for (a key pressed
 * twice while a model's equations are derived goes two steps). */
static void
go_by (CmlWindow *self, int by)
{
  int waiting = cml_window_get_lesson_waiting (self);
  int from = waiting >= 0 ? waiting : (int) self->lesson_step;
  int to = from + by;

  if (self->lesson && to >= 0 && to < (int) self->lesson->steps->len)
    cml_window_lesson_go_to (self, (guint) to + 1, NULL);
}

static void
lesson_next_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  go_by (CML_WINDOW (widget), +1);
}

static void
lesson_previous_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  go_by (CML_WINDOW (widget), -1);
}

static void
lesson_close_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  /* a step played from its recording: the window runs the model again, from its start */
  if (cml_window_lesson_recorded (self))
    {
      cml_runner_set_recording (self->runner, NULL);
      cml_runner_reset (self->runner, self->run_given);
    }
  stop_outcome (self);
  g_clear_pointer (&self->lesson, cml_lesson_free);
  self->lesson_opened = FALSE;
  cml_window_pen_clear (self);
  self->prediction = CML_PREDICTION_SHOWN_NONE;
  cml_parameter_panel_set_hidden (self->parameter_panel, NULL, NULL);
  show_step (self);
}

/* Page Down and Page Up walk the lesson, and a choice's number key answers the question
 * asked, whatever has the focus (a slider or the timeline would take Page Down for
 * themselves), except a text field, whose keys are its own. */
static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                CmlWindow *self)
{
  CmlLessonStep *step = current_step (self);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  guint choice = 0;

  if (self->lesson && (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) == 0
      && !(focus && GTK_IS_EDITABLE (focus)) && !(focus && gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER)))
    {
      if (keyval == GDK_KEY_Page_Down || keyval == GDK_KEY_KP_Page_Down)
        {
          go_by (self, +1);
          return TRUE;
        }
      if (keyval == GDK_KEY_Page_Up || keyval == GDK_KEY_KP_Page_Up)
        {
          go_by (self, -1);
          return TRUE;
        }
    }
  if (step == NULL || self->prediction != CML_PREDICTION_SHOWN_ASKED || step->prediction.kind != CML_PREDICTION_CHOICE
      || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0 || (focus && GTK_IS_EDITABLE (focus)))
    return FALSE;
  if (keyval >= GDK_KEY_1 && keyval <= GDK_KEY_9)
    choice = keyval - GDK_KEY_0;
  else if (keyval >= GDK_KEY_KP_1 && keyval <= GDK_KEY_KP_9)
    choice = keyval - GDK_KEY_KP_0;
  if (choice == 0)
    return FALSE;
  return cml_window_lesson_answer (self, choice, NAN, NULL);
}

void
cml_window_lesson_init (CmlWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  gtk_event_controller_set_name (keys, "cml-lesson-keys");
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  g_signal_connect_swapped (self->lesson_number_entry, "activate", G_CALLBACK (on_number_given), self);
  g_signal_connect_swapped (self->lesson_number_button, "clicked", G_CALLBACK (on_number_given), self);
  self->class_number = NAN;
  gtk_widget_add_tick_callback (self->lesson_band, band_tick, self, NULL);
  update_actions (self);
}

void
cml_window_lesson_dispose (CmlWindow *self)
{
  stop_outcome (self);
  g_clear_pointer (&self->lesson, cml_lesson_free);
}

void
cml_window_class_add_lesson_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.lesson-next", NULL, lesson_next_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-previous", NULL, lesson_previous_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-close", NULL, lesson_close_action);
  /* Page Down and Page Up (what a presenter's remote sends): on_key_pressed */
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_band);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_caption);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_recorded);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_position);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_prediction);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_question);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_choices);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_number_box);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_number_entry);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_unit);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_number_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_outcome);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, lesson_afterwards);
}
