/* cml-window-lesson-author.c — a lesson written from the window: "Add This as a Step"
 * captures the present state as a session does (cml_window_get_session) into the lesson
 * being written (a new one if there is none), a window lists its steps with their
 * captions and notes to edit, move up or down and delete, and "Save Lesson" / "Save
 * Lesson As…" write it (cml_lesson_save: all or nothing).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every number of a step is the captured session's, written with 17 significant digits,
 * so the lesson reopened gives each step's state bit for bit.  The lesson written is not
 * the one presented (cml-window-lesson.c): presenting one and writing another can go on
 * side by side.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include "cml-error.h"
#include "cml-lesson-apply.h"

#define LESSON_EXT ".cmllesson"

static void rebuild_steps (CmlWindow *self);

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
  if ((step = cml_lesson_step_new_from_session (session, caption ? caption : session->model->title, error)) == NULL)
    return 0;
  if (self->authored == NULL)
    self->authored = cml_lesson_new (_("A new lesson"));
  g_ptr_array_add (self->authored->steps, step);
  update_author_actions (self);
  rebuild_steps (self);
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
  rebuild_steps (self);
  return TRUE;
}

gboolean
cml_window_lesson_delete_step (CmlWindow *self, guint number)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (authored_step (self, number) == NULL)
    return FALSE;
  g_ptr_array_remove_index (self->authored->steps, number - 1);
  update_author_actions (self);
  rebuild_steps (self);
  return TRUE;
}

gboolean
cml_window_lesson_set_step_text (CmlWindow *self, guint number, const char *caption, const char *notes)
{
  CmlLessonStep *step = authored_step (self, number);

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (step == NULL)
    return FALSE;
  if (caption)
    {
      g_free (step->caption);
      step->caption = g_strdup (caption);
    }
  if (notes)
    {
      g_free (step->notes);
      step->notes = *notes ? g_strdup (notes) : NULL;
    }
  return TRUE;
}

gboolean
cml_window_lesson_save_authored (CmlWindow *self, const char *path, GError **error)
{
  g_autofree char *to = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (self->authored == NULL || self->authored->steps->len == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the lesson has no steps yet: add one with “Add This as a Step”"));
      return FALSE;
    }
  if (path == NULL && self->authored_path == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the lesson has not been saved yet: choose where"));
      return FALSE;
    }
  to = g_strdup (path ? path : self->authored_path);
  for (guint k = 0; k < self->authored->steps->len; k++)
    {
      CmlLessonStep *step = self->authored->steps->pdata[k];

      if (step->caption == NULL || *step->caption == '\0')
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("step %u has no caption: write one for the class"), k + 1);
          return FALSE;
        }
    }
  if (!cml_lesson_save (self->authored, to, error))
    return FALSE;
  g_free (self->authored_path);
  self->authored_path = g_steal_pointer (&to);
  return TRUE;
}

/* ---- the steps' window ----------------------------------------------------------------------- */

static guint
row_number (GtkWidget *widget)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "cml-step"));
}

static void
on_caption_changed (GtkEditable *entry, CmlWindow *self)
{
  cml_window_lesson_set_step_text (self, row_number (GTK_WIDGET (entry)), gtk_editable_get_text (entry), NULL);
}

static void
on_notes_changed (GtkEditable *entry, CmlWindow *self)
{
  cml_window_lesson_set_step_text (self, row_number (GTK_WIDGET (entry)), NULL, gtk_editable_get_text (entry));
}

static void
on_title_changed (GtkEditable *entry, CmlWindow *self)
{
  if (self->authored)
    {
      g_free (self->authored->title);
      self->authored->title = g_strdup (gtk_editable_get_text (entry));
    }
}

static void
on_up (GtkButton *button, CmlWindow *self)
{
  cml_window_lesson_move_step (self, row_number (GTK_WIDGET (button)), -1);
}

static void
on_down (GtkButton *button, CmlWindow *self)
{
  cml_window_lesson_move_step (self, row_number (GTK_WIDGET (button)), +1);
}

static void
on_delete (GtkButton *button, CmlWindow *self)
{
  cml_window_lesson_delete_step (self, row_number (GTK_WIDGET (button)));
}

static GtkWidget *
icon_button (const char *icon, const char *tooltip, guint number, gboolean sensitive, GCallback cb, CmlWindow *self)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_tooltip_text (b, tooltip);
  gtk_widget_add_css_class (b, "flat");
  gtk_widget_set_sensitive (b, sensitive);
  g_object_set_data (G_OBJECT (b), "cml-step", GUINT_TO_POINTER (number));
  g_signal_connect (b, "clicked", cb, self);
  return b;
}

static GtkWidget *
text_entry (const char *text, const char *placeholder, const char *tooltip, guint number, GCallback cb, CmlWindow *self)
{
  GtkWidget *e = gtk_entry_new ();

  gtk_editable_set_text (GTK_EDITABLE (e), text ? text : "");
  gtk_entry_set_placeholder_text (GTK_ENTRY (e), placeholder);
  gtk_widget_set_tooltip_text (e, tooltip);
  gtk_widget_set_hexpand (e, TRUE);
  g_object_set_data (G_OBJECT (e), "cml-step", GUINT_TO_POINTER (number));
  g_signal_connect (e, "changed", cb, self);
  return e;
}

/* The list, made again from the lesson (after a step is added, moved or deleted). */
static void
rebuild_steps (CmlWindow *self)
{
  GtkWidget *child;
  guint n;

  if (self->steps_list == NULL)
    return;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->steps_list))) != NULL)
    gtk_list_box_remove (self->steps_list, child);
  n = self->authored ? self->authored->steps->len : 0;
  gtk_widget_set_visible (self->steps_empty, n == 0);
  gtk_widget_set_sensitive (self->steps_save, n > 0);
  for (guint k = 1; k <= n; k++)
    {
      CmlLessonStep *step = self->authored->steps->pdata[k - 1];
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      GtkWidget *head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      /* TRANSLATORS: a lesson's step and the model it shows */
      g_autofree char *what = g_strdup_printf (_("Step %u · %s"), k, step->model->title);
      GtkWidget *label = gtk_label_new (what);

      gtk_widget_set_margin_top (box, 6);
      gtk_widget_set_margin_bottom (box, 6);
      gtk_widget_set_margin_start (box, 6);
      gtk_widget_set_margin_end (box, 6);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_add_css_class (label, "heading");
      gtk_box_append (GTK_BOX (head), label);
      gtk_box_append (GTK_BOX (head), icon_button ("go-up-symbolic", _("Move this step up"), k, k > 1,
                                                   G_CALLBACK (on_up), self));
      gtk_box_append (GTK_BOX (head), icon_button ("go-down-symbolic", _("Move this step down"), k, k < n,
                                                   G_CALLBACK (on_down), self));
      gtk_box_append (GTK_BOX (head), icon_button ("user-trash-symbolic", _("Delete this step"), k, TRUE,
                                                   G_CALLBACK (on_delete), self));
      gtk_box_append (GTK_BOX (box), head);
      gtk_box_append (GTK_BOX (box), text_entry (step->caption, _("Caption for the class"),
                                                 _("What the class reads under the view during this step"), k,
                                                 G_CALLBACK (on_caption_changed), self));
      gtk_box_append (GTK_BOX (box), text_entry (step->notes, _("Notes for the teacher (optional)"),
                                                 _("Shown to the teacher only, as the caption’s tooltip"), k,
                                                 G_CALLBACK (on_notes_changed), self));
      gtk_list_box_append (self->steps_list, box);
    }
  if (self->steps_title && self->authored
      && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->steps_title)), self->authored->title) != 0)
    gtk_editable_set_text (GTK_EDITABLE (self->steps_title), self->authored->title);
}

static void
on_steps_window_destroy (GtkWidget *window, CmlWindow *self)
{
  self->steps_window = NULL;
  self->steps_list = NULL;
  self->steps_title = NULL;
  self->steps_empty = NULL;
  self->steps_save = NULL;
}

static void add_step_action (GtkWidget *widget, const char *action_name, GVariant *param);
static void save_action (GtkWidget *widget, const char *action_name, GVariant *param);

static void
on_add_clicked (CmlWindow *self)
{
  add_step_action (GTK_WIDGET (self), NULL, NULL);
}

static void
on_save_clicked (CmlWindow *self)
{
  save_action (GTK_WIDGET (self), NULL, NULL);
}

void
cml_window_lesson_show_steps (CmlWindow *self)
{
  GtkWidget *win, *box, *scroll, *list, *title, *header, *save, *add, *empty;

  g_return_if_fail (CML_IS_WINDOW (self));

  if (self->steps_window)
    {
      gtk_window_present (GTK_WINDOW (self->steps_window));
      return;
    }
  win = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (win), _("Lesson Steps"));
  gtk_window_set_transient_for (GTK_WINDOW (win), GTK_WINDOW (self));
  gtk_window_set_default_size (GTK_WINDOW (win), 560, 480);
  gtk_window_set_hide_on_close (GTK_WINDOW (win), FALSE);
  header = gtk_header_bar_new ();
  add = gtk_button_new_with_mnemonic (_("_Add This as a Step"));
  g_signal_connect_swapped (add, "clicked", G_CALLBACK (on_add_clicked), self);
  gtk_widget_set_tooltip_text (add, _("The window’s present state (model, parameters, initial data, view) as the lesson’s next step"));
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), add);
  save = gtk_button_new_with_mnemonic (_("_Save Lesson"));
  g_signal_connect_swapped (save, "clicked", G_CALLBACK (on_save_clicked), self);
  gtk_widget_add_css_class (save, "suggested-action");
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), save);
  gtk_window_set_titlebar (GTK_WINDOW (win), header);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 12);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  title = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (title), _("The lesson’s title"));
  gtk_widget_set_tooltip_text (title, _("The lesson’s title, shown beside the step’s number while it is presented"));
  if (self->authored)
    gtk_editable_set_text (GTK_EDITABLE (title), self->authored->title);
  g_signal_connect (title, "changed", G_CALLBACK (on_title_changed), self);
  gtk_box_append (GTK_BOX (box), title);
  empty = gtk_label_new (_("No steps yet. Set up the window as the class should see it, then “Add This as a Step”."));
  gtk_label_set_wrap (GTK_LABEL (empty), TRUE);
  gtk_widget_add_css_class (empty, "dim-label");
  gtk_box_append (GTK_BOX (box), empty);
  scroll = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scroll, TRUE);
  list = gtk_list_box_new ();
  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroll), list);
  gtk_box_append (GTK_BOX (box), scroll);
  gtk_window_set_child (GTK_WINDOW (win), box);

  self->steps_window = win;
  self->steps_list = GTK_LIST_BOX (list);
  self->steps_title = title;
  self->steps_empty = empty;
  self->steps_save = save;
  g_signal_connect (win, "destroy", G_CALLBACK (on_steps_window_destroy), self);
  rebuild_steps (self);
  gtk_window_present (GTK_WINDOW (win));
}

/* ---- actions --------------------------------------------------------------------------------- */

static void
add_step_action (GtkWidget *widget, const char *action_name, GVariant *param)
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
  self->lesson_chooser = gtk_file_chooser_native_new (_("Save Lesson"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                                      _("_Save"), _("_Cancel"));
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

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *param)
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
  g_clear_pointer (&self->authored, cml_lesson_free);
  g_clear_pointer (&self->authored_path, g_free);
}

void
cml_window_class_add_lesson_author_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.lesson-add-step", NULL, add_step_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-steps", NULL, steps_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.lesson-save-as", NULL, save_as_action);
}
