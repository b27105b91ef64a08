/* cml-window-lesson-author.c — a lesson written from the window: "Add This as a Step"
 * captures the present state as a session does (cml_window_get_session) into the lesson
 * being written (a new one if there is none), a window lists its steps with their
 * captions, notes and predictions to edit, move up or down and delete — each of those
 * undone by Ctrl+Z there, newest first — and "Save Lesson" / "Save Lesson As…" write it
 * (cml_lesson_save: all or nothing).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every number of a step is the captured session's, written with 17 significant digits,
 * so the lesson reopened gives each step's state bit for bit.  The lesson written is not
 * the one presented (cml-window-lesson.c): presenting one and writing another can go on
 * side by side.  The steps' window is cml-window-lesson-steps.c.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-lesson-apply.h"

#define LESSON_EXT ".cmllesson"
/* The edits kept for undo (the oldest forgotten): a deleted step is kept with its edit. */
#define MAX_EDITS 200

static void update_author_actions (CmlWindow *self);

/* ---- the edits' history ---------------------------------------------------------------------- */

typedef enum
{
  EDIT_MOVE,       /* STEP moved BY places */
  EDIT_DELETE,     /* STEP (owned here) deleted from INDEX */
  EDIT_CAPTION,    /* STEP's caption was TEXT */
  EDIT_NOTES,      /* STEP's notes were TEXT (NULL: none) */
  EDIT_PREDICTION, /* STEP's prediction was PREDICTION (owned) */
} EditKind;

typedef struct
{
  EditKind       kind;
  CmlLessonStep *step;  /* steps are named by their address: moves change their numbers */
  guint          index;
  int            by;
  char          *text;
  CmlPrediction  prediction;
} Edit;

static void
edit_free (gpointer data)
{
  Edit *e = data;

  if (e->kind == EDIT_DELETE)
    cml_lesson_step_free (e->step);
  g_free (e->text);
  cml_prediction_clear (&e->prediction);
  g_free (e);
}

static Edit *
push_edit (CmlWindow *self, EditKind kind, CmlLessonStep *step)
{
  Edit *e = g_new0 (Edit, 1);

  if (self->authored_history == NULL)
    self->authored_history = g_ptr_array_new_with_free_func (edit_free);
  if (self->authored_history->len >= MAX_EDITS)
    g_ptr_array_remove_index (self->authored_history, 0);
  e->kind = kind;
  e->step = step;
  g_ptr_array_add (self->authored_history, e);
  return e;
}

/* The typing of one text of one step, keystroke after keystroke, is one edit. */
static gboolean
continues_edit (CmlWindow *self, EditKind kind, CmlLessonStep *step)
{
  Edit *top;

  if (self->authored_history == NULL || self->authored_history->len == 0)
    return FALSE;
  top = self->authored_history->pdata[self->authored_history->len - 1];
  return top->kind == kind && top->step == step;
}

static int
step_index (CmlWindow *self, CmlLessonStep *step)
{
  guint i;

  return self->authored && g_ptr_array_find (self->authored->steps, step, &i) ? (int) i : -1;
}

guint
cml_window_lesson_n_step_edits (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), 0);
  return self->authored_history ? self->authored_history->len : 0;
}

gboolean
cml_window_lesson_undo_step_edit (CmlWindow *self)
{
  Edit *e;
  int at;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (self->authored == NULL || self->authored_history == NULL || self->authored_history->len == 0)
    return FALSE;
  e = g_ptr_array_steal_index (self->authored_history, self->authored_history->len - 1);
  at = step_index (self, e->step);
  switch (e->kind)
    {
    case EDIT_MOVE:
      if (at >= 0 && at - e->by >= 0 && at - e->by < (int) self->authored->steps->len)
        {
          self->authored->steps->pdata[at] = self->authored->steps->pdata[at - e->by];
          self->authored->steps->pdata[at - e->by] = e->step;
        }
      break;
    case EDIT_DELETE:
      g_ptr_array_insert (self->authored->steps, (int) MIN (e->index, self->authored->steps->len),
                          e->step);
      e->kind = EDIT_MOVE; /* the step is the lesson's again: not freed with the edit */
      break;
    case EDIT_CAPTION:
      if (at >= 0)
        {
          g_free (e->step->caption);
          e->step->caption = g_steal_pointer (&e->text);
        }
      break;
    case EDIT_NOTES:
      if (at >= 0)
        {
          g_free (e->step->notes);
          e->step->notes = g_steal_pointer (&e->text);
        }
      break;
    case EDIT_PREDICTION:
      if (at >= 0)
        {
          cml_prediction_clear (&e->step->prediction);
          e->step->prediction = e->prediction;
          memset (&e->prediction, 0, sizeof e->prediction);
        }
      break;
    }
  edit_free (e);
  update_author_actions (self);
  cml_window_lesson_rebuild_steps (self);
  return TRUE;
}

static CmlLessonStep *
authored_step (CmlWindow *self, guint number)
{
  if (self->authored == NULL || number < 1 || number > self->authored->steps->len)
    return NULL;
  return self->authored->steps->pdata[number - 1];
}

static void
update_author_actions (CmlWindow *self)
{
  gboolean have = self->authored != NULL && self->authored->steps->len > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.lesson-save", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.lesson-save-as", have);
}

CmlLesson *
cml_window_get_authored (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  return self->authored;
}

guint
cml_window_lesson_add_step (CmlWindow *self, const char *caption, GError **error)
{
  g_autoptr (CmlSession) session = NULL;
  CmlLessonStep *step;

  g_return_val_if_fail (CML_IS_WINDOW (self), 0);

  if ((session = cml_window_get_session (self, error)) == NULL)
    return 0;
  if ((step = cml_lesson_step_new_from_session (session, caption ? caption : session->model->title,
                                                error))
      == NULL)
    return 0;
  if (self->authored == NULL)
    self->authored = cml_lesson_new (_("A new lesson"));
  g_ptr_array_add (self->authored->steps, step);
  update_author_actions (self);
  cml_window_lesson_rebuild_steps (self);
  return self->authored->steps->len;
}

gboolean
cml_window_lesson_move_step (CmlWindow *self, guint number, int by)
{
  guint to = number + by;
  gpointer step;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (authored_step (self, number) == NULL || authored_step (self, to) == NULL)
    return FALSE;
  step = self->authored->steps->pdata[number - 1];
  self->authored->steps->pdata[number - 1] = self->authored->steps->pdata[to - 1];
  self->authored->steps->pdata[to - 1] = step;
  push_edit (self, EDIT_MOVE, step)->by = by;
  cml_window_lesson_rebuild_steps (self);
  return TRUE;
}

gboolean
cml_window_lesson_delete_step (CmlWindow *self, guint number)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (authored_step (self, number) == NULL)
    return FALSE;
  /* kept with the edit, for undo */
  push_edit (self, EDIT_DELETE, g_ptr_array_steal_index (self->authored->steps, number - 1))->index
      = number - 1;
  update_author_actions (self);
  cml_window_lesson_rebuild_steps (self);
  return TRUE;
}

gboolean
cml_window_lesson_set_step_text (CmlWindow *self, guint number, const char *caption,
                                 const char *notes)
{
  CmlLessonStep *step = authored_step (self, number);

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (step == NULL)
    return FALSE;
  if (caption && g_strcmp0 (caption, step->caption) != 0)
    {
      if (!continues_edit (self, EDIT_CAPTION, step))
        push_edit (self, EDIT_CAPTION, step)->text = g_strdup (step->caption);
      g_free (step->caption);
      step->caption = g_strdup (caption);
    }
  if (notes && g_strcmp0 (*notes ? notes : NULL, step->notes) != 0)
    {
      if (!continues_edit (self, EDIT_NOTES, step))
        push_edit (self, EDIT_NOTES, step)->text = g_strdup (step->notes);
      g_free (step->notes);
      step->notes = *notes ? g_strdup (notes) : NULL;
    }
  return TRUE;
}

static gboolean
blank (const char *text)
{
  while (text && g_ascii_isspace (*text))
    text++;
  return text == NULL || *text == '\0';
}

/* What a lesson file's loader would refuse, said before it is written. */
static gboolean
check_prediction (CmlWindow *self, CmlLessonStep *step, const CmlPrediction *pr, GError **error)
{
  g_autoptr (CmlSystem) sys = NULL;
  guint n;

  if (pr->kind == CML_PREDICTION_NONE)
    return TRUE;
  if (blank (pr->question))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the question is empty: write what the class is asked"));
      return FALSE;
    }
  if (pr->quantity == NULL || *pr->quantity == '\0')
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the question needs the quantity that answers it: the name of one of the model’s quantities (e.g. x)"));
      return FALSE;
    }
  if (!(pr->at >= 0) || !isfinite (pr->at))
    {
      g_set_error (
          error, CML_ERROR, CML_ERROR_USAGE,
          _("the time the quantity is read at must be a time from the step’s start (0 or more)"));
      return FALSE;
    }
  sys = g_hash_table_lookup (self->systems, step->model);
  if (sys)
    cml_system_ref (sys);
  else if ((sys = cml_window_take_derived (self, step->model, NULL, error)) == NULL)
    return FALSE;
  if (cml_system_observable_index (sys, pr->quantity) < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("“%s” is not a quantity of the model “%s”"), pr->quantity, step->model->name);
      return FALSE;
    }
  if (pr->kind == CML_PREDICTION_CHOICE)
    {
      n = pr->choices ? g_strv_length (pr->choices) : 0;
      if (n < 2)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("a choice question needs at least two choices, separated by ‘;’"));
          return FALSE;
        }
      for (guint k = 0; k < n; k++)
        if (*pr->choices[k] == '\0')
          {
            g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                         _("choice %u is empty: write it or remove it"), k + 1);
            return FALSE;
          }
      if (pr->answer < 1 || pr->answer > n)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("the answer is the number of the right choice, from 1 to %u"), n);
          return FALSE;
        }
      if ((pr->check_op != '<' && pr->check_op != '>' && pr->check_op != '=')
          || !isfinite (pr->check_value) || !(pr->check_tolerance >= 0)
          || !isfinite (pr->check_tolerance))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("a choice question needs the check its answer makes of the quantity: "
                         "“< V”, “> V” or “= V ± TOL”"));
          return FALSE;
        }
      return TRUE;
    }
  if (!isfinite (pr->value))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the answer must be a number"));
      return FALSE;
    }
  if (!(pr->tolerance >= 0) || !isfinite (pr->tolerance))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the tolerance is how far from the answer is right (0 or more)"));
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_window_lesson_set_step_prediction (CmlWindow *self, guint number,
                                       const CmlPrediction *prediction, GError **error)
{
  CmlLessonStep *step = authored_step (self, number);

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (prediction != NULL, FALSE);

  if (step == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the lesson has no step %u"), number);
      return FALSE;
    }
  if (!check_prediction (self, step, prediction, error))
    return FALSE;
  cml_prediction_copy (&push_edit (self, EDIT_PREDICTION, step)->prediction, &step->prediction);
  cml_prediction_clear (&step->prediction);
  if (prediction->kind != CML_PREDICTION_NONE)
    {
      cml_prediction_copy (&step->prediction, prediction);
      step->prediction.no_answer = FALSE;
      /* what matters for the kind only */
      if (prediction->kind == CML_PREDICTION_NUMBER)
        g_clear_pointer (&step->prediction.choices, g_strfreev);
      else
        g_clear_pointer (&step->prediction.unit, g_free);
      if (step->prediction.afterwards && *step->prediction.afterwards == '\0')
        g_clear_pointer (&step->prediction.afterwards, g_free);
      if (step->prediction.unit && *step->prediction.unit == '\0')
        g_clear_pointer (&step->prediction.unit, g_free);
    }
  cml_window_lesson_rebuild_steps (self);
  return TRUE;
}

gboolean
cml_window_lesson_save_authored (CmlWindow *self, const char *path, GError **error)
{
  g_autofree char *to = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (self->authored == NULL || self->authored->steps->len == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the lesson has no steps yet: add one with “Add This as a Step”"));
      return FALSE;
    }
  if (path == NULL && self->authored_path == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the lesson has not been saved yet: choose where"));
      return FALSE;
    }
  to = g_strdup (path ? path : self->authored_path);
  for (guint k = 0; k < self->authored->steps->len; k++)
    {
      CmlLessonStep *step = self->authored->steps->pdata[k];

      if (step->caption == NULL || *step->caption == '\0')
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("step %u has no caption: write one for the class"), k + 1);
          return FALSE;
        }
    }
  if (!cml_lesson_save (self->authored, to, error))
    return FALSE;
  g_free (self->authored_path);
  self->authored_path = g_steal_pointer (&to);
  return TRUE;
}

/* ---- actions --------------------------------------------------------------------------------- */

void
cml_window_lesson_add_step_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  g_autoptr (GError) error = NULL;
  guint n = cml_window_lesson_add_step (self, NULL, &error);

  if (n == 0)
    cml_window_show_error (self, _("Could not add the step"), error->message);
  else
    {
      /* TRANSLATORS: the step's number in the lesson being written */
      g_autofree char *text = g_strdup_printf (_("Step %u added to the lesson"), n);
      cml_window_show_toast (self, text);
    }
}

static void
steps_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_window_lesson_show_steps (CML_WINDOW (widget));
}

static void
on_save_response (GtkNativeDialog *dialog, int response, CmlWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;

      if (path && !g_str_has_suffix (path, LESSON_EXT))
        {
          char *with = g_strconcat (path, LESSON_EXT, NULL);
          g_free (path);
          path = with;
        }
      if (path && !cml_window_lesson_save_authored (self, path, &error))
        cml_window_show_error (self, _("Could not save the lesson"), error->message);
      else if (path)
        {
          g_autofree char *base = g_path_get_basename (path);
          /* TRANSLATORS: the lesson file's name */
          g_autofree char *text = g_strdup_printf (_("Lesson saved as %s"), base);
          cml_window_show_toast (self, text);
        }
    }
  g_clear_object (&self->lesson_chooser);
}

static void
save_as_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  g_autoptr (GtkFileFilter) lessons = gtk_file_filter_new ();
  GtkFileChooser *fc;

  if (self->lesson_chooser)
    return;
  self->lesson_chooser
      = gtk_file_chooser_native_new (_("Save Lesson"), GTK_WINDOW (self),
                                     GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  fc = GTK_FILE_CHOOSER (self->lesson_chooser);
  gtk_file_filter_set_name (lessons, _("cmlab lessons (*.cmllesson)"));
  gtk_file_filter_add_pattern (lessons, "*" LESSON_EXT);
  gtk_file_filter_add_mime_type (lessons, "application/x-cmlab-lesson");
  gtk_file_chooser_add_filter (fc, lessons);
  gtk_file_chooser_set_current_name (fc, "lesson" LESSON_EXT);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->lesson_chooser), TRUE);
  g_signal_connect (self->lesson_chooser, "response", G_CALLBACK (on_save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->lesson_chooser));
}

void
cml_window_lesson_save_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  g_autoptr (GError) error = NULL;

  if (self->authored_path == NULL)
    {
      save_as_action (widget, action_name, param);
      return;
    }
  if (!cml_window_lesson_save_authored (self, NULL, &error))
    cml_window_show_error (self, _("Could not save the lesson"), error->message);
  else
    cml_window_show_toast (self, _("Lesson saved"));
}

void
cml_window_lesson_author_init (CmlWindow *self)
{
  update_author_actions (self);
}

void
cml_window_lesson_author_dispose (CmlWindow *self)
{
  if (self->lesson_chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->lesson_chooser));
      g_clear_object (&self->lesson_chooser);
    }
  if (self->steps_window)
    gtk_window_destroy (GTK_WINDOW (self->steps_window));
  /* before the lesson: a deleted step kept for undo is the history's */
  g_clear_pointer (&self->authored_history, g_ptr_array_unref);
  g_clear_pointer (&self->authored, cml_lesson_free);
  g_clear_pointer (&self->authored_path, g_free);
}

void
cml_window_class_add_lesson_author_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.lesson-add-step", NULL,
                                   cml_window_lesson_add_step_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-steps", NULL, steps_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-save", NULL,
                                   cml_window_lesson_save_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-save-as", NULL, save_as_action);
}
