/* cml-window-lesson-steps.c — the window that lists the steps of the lesson being written
 * (cml-window-lesson-author.c): a step's caption, notes and prediction to edit, buttons to
 * move it up or down and delete it, the lesson's title; Ctrl+Z there undoes the newest
 * edit of the steps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "cml-error.h"

static guint
row_number (GtkWidget *widget)
{
  return GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (widget), "cml-step"));
}

static void
on_caption_changed (GtkEditable *entry, CmlWindow *self)
{
  cml_window_lesson_set_step_text (self, row_number (GTK_WIDGET (entry)),
                                   gtk_editable_get_text (entry), NULL);
}

static void
on_notes_changed (GtkEditable *entry, CmlWindow *self)
{
  cml_window_lesson_set_step_text (self, row_number (GTK_WIDGET (entry)), NULL,
                                   gtk_editable_get_text (entry));
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
icon_button (const char *icon, const char *tooltip, guint number, gboolean sensitive, GCallback cb,
             CmlWindow *self)
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
text_entry (const char *text, const char *placeholder, const char *tooltip, guint number,
            GCallback cb, CmlWindow *self)
{
  GtkWidget *e = gtk_entry_new ();

  gtk_editable_set_text (GTK_EDITABLE (e), text ? text : "");
  gtk_entry_set_placeholder_text (GTK_ENTRY (e), placeholder);
  gtk_widget_set_tooltip_text (e, tooltip);
  gtk_widget_set_hexpand (e, TRUE);
  g_object_set_data (G_OBJECT (e), "cml-step", GUINT_TO_POINTER (number));
  /* Ctrl+Z is the steps' window's: it undoes the lesson's edits, this text's among them */
  gtk_editable_set_enable_undo (GTK_EDITABLE (e), FALSE);
  g_signal_connect (e, "changed", cb, self);
  return e;
}

/* ---- a step's prediction, edited ------------------------------------------------------------- */

/* The editor's fields (the widgets are the row's). */
typedef struct
{
  CmlWindow   *self;
  guint        number;
  GtkDropDown *kind;
  GtkWidget *question, *quantity, *at, *choices, *answer_choice, *check, *answer, *unit, *tolerance,
      *afterwards;
  GtkWidget   *choice_box, *number_box;
  GtkLabel    *message;
} PredictionEditor;

/* A number typed (a decimal comma taken as a point); FALSE when it is none. */
static gboolean
read_number (const char *text, double *value)
{
  g_autofree char *t = g_strstrip (g_strdelimit (g_strdup (text), ",", '.'));
  char *end;

  if (*t == '\0')
    return FALSE;
  *value = g_ascii_strtod (t, &end);
  return *end == '\0' && isfinite (*value);
}

static gboolean
editor_number (GtkWidget *entry, const char *what, double *value, GError **error)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  if (read_number (text, value))
    return TRUE;
  /* TRANSLATORS: %s: what the number is ("the answer", "the time") */
  g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s must be a number, such as 2.5"), what);
  return FALSE;
}

static void
on_prediction_apply (GtkButton *button, PredictionEditor *ed)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) choices = NULL;
  CmlPrediction pr = { 0 };
  guint kind = gtk_drop_down_get_selected (ed->kind);

  pr.kind = kind == 1   ? CML_PREDICTION_CHOICE
            : kind == 2 ? CML_PREDICTION_NUMBER
                        : CML_PREDICTION_NONE;
  pr.question = (char *) gtk_editable_get_text (GTK_EDITABLE (ed->question));
  pr.quantity = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (ed->quantity))));
  pr.afterwards = (char *) gtk_editable_get_text (GTK_EDITABLE (ed->afterwards));
  pr.unit = (char *) gtk_editable_get_text (GTK_EDITABLE (ed->unit));
  if (pr.kind != CML_PREDICTION_NONE
      && !editor_number (ed->at, _("The time the quantity is read at"), &pr.at, &error))
    goto out;
  if (pr.kind == CML_PREDICTION_CHOICE)
    {
      choices = g_strsplit (gtk_editable_get_text (GTK_EDITABLE (ed->choices)), ";", -1);
      for (guint k = 0; choices[k]; k++)
        g_strstrip (choices[k]);
      pr.choices = choices;
      pr.answer = (guint) gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (ed->answer_choice));
      if (!cml_prediction_parse_check (gtk_editable_get_text (GTK_EDITABLE (ed->check)),
                                       &pr.check_op, &pr.check_value, &pr.check_tolerance))
        pr.check_op = 0; /* said by the window's check */
    }
  else if (pr.kind == CML_PREDICTION_NUMBER)
    {
      if (!editor_number (ed->answer, _("The answer"), &pr.value, &error))
        goto out;
      pr.tolerance = 0;
      if (*gtk_editable_get_text (GTK_EDITABLE (ed->tolerance))
          && !editor_number (ed->tolerance, _("The tolerance"), &pr.tolerance, &error))
        goto out;
    }
  cml_window_lesson_set_step_prediction (ed->self, ed->number, &pr, &error);
out:
  g_free (pr.quantity);
  if (error)
    {
      gtk_label_set_text (ed->message, error->message);
      gtk_widget_set_visible (GTK_WIDGET (ed->message), TRUE);
    }
}

static void
on_prediction_kind (GtkDropDown *kind, GParamSpec *pspec, PredictionEditor *ed)
{
  guint k = gtk_drop_down_get_selected (kind);

  gtk_widget_set_visible (ed->choice_box, k == 1);
  gtk_widget_set_visible (ed->number_box, k == 2);
}

static GtkWidget *
field (GtkWidget *box, const char *label, const char *text, const char *tooltip)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *l = gtk_label_new (label);
  GtkWidget *e = gtk_entry_new ();

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_width_chars (GTK_LABEL (l), 12);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (e), text ? text : "");
  /* Ctrl+Z is the steps' window's: it undoes the lesson's edits */
  gtk_editable_set_enable_undo (GTK_EDITABLE (e), FALSE);
  gtk_widget_set_hexpand (e, TRUE);
  gtk_widget_set_tooltip_text (e, tooltip);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (e), GTK_ACCESSIBLE_RELATION_LABELLED_BY, l, NULL,
                                  -1);
  gtk_box_append (GTK_BOX (row), l);
  gtk_box_append (GTK_BOX (row), e);
  gtk_box_append (GTK_BOX (box), row);
  return e;
}

/* The shortest text that reads back as V (0.1, not 0.10000000000000001). */
static char *
format_number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE], format[8];

  for (int digits = 1; digits <= 17; digits++)
    {
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  return g_strdup (buf);
}

/* As the file writes it (cml_prediction_format_check), in the shortest numbers. */
static char *
format_check (const CmlPrediction *pr)
{
  g_autofree char *v = format_number (pr->check_value), *t = format_number (pr->check_tolerance);

  return pr->check_op == '=' ? g_strdup_printf ("= %s ± %s", v, t)
                             : g_strdup_printf ("%c %s", pr->check_op, v);
}

static GtkWidget *
prediction_editor (CmlWindow *self, CmlLessonStep *step, guint number)
{
  const CmlPrediction *pr = &step->prediction;
  PredictionEditor *ed = g_new0 (PredictionEditor, 1);
  const char *kinds[] = { N_("No question"), N_("A choice"), N_("A number"), NULL };
  const char *shown[4];
  g_autofree char *title = pr->kind == CML_PREDICTION_NONE
                             ? g_strdup (_("Prediction: none"))
                             /* TRANSLATORS: %s: the step's question */
                             : g_strdup_printf (_("Prediction: %s"), pr->question);
  g_autofree char *at = pr->kind != CML_PREDICTION_NONE ? format_number (pr->at) : NULL;
  g_autofree char *choices = pr->choices ? g_strjoinv ("; ", pr->choices) : NULL;
  g_autofree char *check
      = pr->kind == CML_PREDICTION_CHOICE && !pr->no_answer ? format_check (pr) : NULL;
  g_autofree char *value
      = pr->kind == CML_PREDICTION_NUMBER && !pr->no_answer ? format_number (pr->value) : NULL;
  g_autofree char *tolerance
      = pr->kind == CML_PREDICTION_NUMBER && !pr->no_answer ? format_number (pr->tolerance) : NULL;
  GtkWidget *expander = gtk_expander_new (title);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *row, *label, *apply;

  for (guint i = 0; i < 4; i++)
    shown[i] = kinds[i] ? _(kinds[i]) : NULL;
  gtk_label_set_ellipsize (GTK_LABEL (gtk_expander_get_label_widget (GTK_EXPANDER (expander))),
                           PANGO_ELLIPSIZE_END);
  ed->self = self;
  ed->number = number;
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new (_("Question"));
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_width_chars (GTK_LABEL (label), 12);
  ed->kind = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (shown));
  gtk_drop_down_set_selected (ed->kind, pr->kind == CML_PREDICTION_CHOICE   ? 1
                                        : pr->kind == CML_PREDICTION_NUMBER ? 2
                                                                            : 0);
  gtk_widget_set_tooltip_text (GTK_WIDGET (ed->kind),
                               _("What the class answers before the motion shows it"));
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (ed->kind));
  gtk_box_append (GTK_BOX (box), row);
  ed->question = field (box, _("Asked"), pr->question,
                        _("The question the class answers, e.g. “Is the ball thrown off?”"));
  ed->quantity = field (box, _("Quantity"), pr->quantity,
                        _("The model’s quantity that answers it (e.g. x, or energy): its name"));
  ed->at = field (box, _("At time"), at,
                  _("The time from the step’s start at which the quantity answers"));
  ed->choice_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  ed->choices = field (ed->choice_box, _("Choices"), choices,
                       _("The choices the class picks from, separated by ‘;’"));
  row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  label = gtk_label_new (_("Right choice"));
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_width_chars (GTK_LABEL (label), 12);
  ed->answer_choice = gtk_spin_button_new_with_range (1, 9, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (ed->answer_choice),
                             pr->kind == CML_PREDICTION_CHOICE && pr->answer ? pr->answer : 1);
  gtk_widget_set_tooltip_text (ed->answer_choice, _("The number of the right choice, from 1"));
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), ed->answer_choice);
  gtk_box_append (GTK_BOX (ed->choice_box), row);
  ed->check = field (ed->choice_box, _("Right when"), check,
                     _("What the quantity does at that time when the right choice is right: “< 2”, “> 0.5” or “= 3 ± 0.1”"));
  gtk_box_append (GTK_BOX (box), ed->choice_box);
  ed->number_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  ed->answer = field (ed->number_box, _("Answer"), value, _("The right number"));
  ed->unit = field (ed->number_box, _("Unit"), pr->unit,
                    _("The answer’s unit, shown beside the class’s number (e.g. m)"));
  ed->tolerance = field (ed->number_box, _("Tolerance"), tolerance,
                         _("How far from the answer the class’s number may be and still be right"));
  gtk_box_append (GTK_BOX (box), ed->number_box);
  ed->afterwards = field (box, _("Afterwards"), pr->afterwards,
                          _("What to say once the motion has answered (optional)"));
  ed->message = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (ed->message, TRUE);
  gtk_label_set_xalign (ed->message, 0);
  gtk_widget_add_css_class (GTK_WIDGET (ed->message), "error");
  gtk_widget_set_visible (GTK_WIDGET (ed->message), FALSE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (ed->message));
  apply = gtk_button_new_with_mnemonic (_("_Set the Prediction"));
  gtk_widget_set_halign (apply, GTK_ALIGN_END);
  gtk_widget_set_tooltip_text (apply,
                               _("The step asks this question (or none) when it is presented"));
  gtk_box_append (GTK_BOX (box), apply);
  g_object_set_data_full (G_OBJECT (apply), "cml-editor", ed, g_free);
  g_signal_connect (apply, "clicked", G_CALLBACK (on_prediction_apply), ed);
  g_signal_connect (ed->kind, "notify::selected", G_CALLBACK (on_prediction_kind), ed);
  on_prediction_kind (ed->kind, NULL, ed);
  gtk_expander_set_child (GTK_EXPANDER (expander), box);
  return expander;
}

/* The list, made again from the lesson (after a step is added, moved or deleted). */
void
cml_window_lesson_rebuild_steps (CmlWindow *self)
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
      gtk_box_append (GTK_BOX (head), icon_button ("go-up-symbolic", _("Move this step up"), k,
                                                   k > 1, G_CALLBACK (on_up), self));
      gtk_box_append (GTK_BOX (head), icon_button ("go-down-symbolic", _("Move this step down"), k,
                                                   k < n, G_CALLBACK (on_down), self));
      gtk_box_append (GTK_BOX (head), icon_button ("user-trash-symbolic", _("Delete this step"), k,
                                                   TRUE, G_CALLBACK (on_delete), self));
      gtk_box_append (GTK_BOX (box), head);
      gtk_box_append (GTK_BOX (box),
                      text_entry (step->caption, _("Caption for the class"),
                                  _("What the class reads under the view during this step"), k,
                                  G_CALLBACK (on_caption_changed), self));
      gtk_box_append (GTK_BOX (box),
                      text_entry (step->notes, _("Notes for the teacher (optional)"),
                                  _("Shown to the teacher only, as the caption’s tooltip"), k,
                                  G_CALLBACK (on_notes_changed), self));
      gtk_box_append (GTK_BOX (box), prediction_editor (self, step, k));
      gtk_list_box_append (self->steps_list, box);
    }
  if (self->steps_title && self->authored
      && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (self->steps_title)), self->authored->title)
             != 0)
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

static void
on_add_clicked (CmlWindow *self)
{
  cml_window_lesson_add_step_action (GTK_WIDGET (self), NULL, NULL);
}

static void
on_save_clicked (CmlWindow *self)
{
  cml_window_lesson_save_action (GTK_WIDGET (self), NULL, NULL);
}

static void
on_undo (GSimpleAction *action, GVariant *param, CmlWindow *self)
{
  if (!cml_window_lesson_undo_step_edit (self) && self->steps_window)
    gtk_widget_error_bell (self->steps_window);
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
  gtk_widget_set_tooltip_text (
      title, _("The lesson’s title, shown beside the step’s number while it is presented"));
  if (self->authored)
    gtk_editable_set_text (GTK_EDITABLE (title), self->authored->title);
  g_signal_connect (title, "changed", G_CALLBACK (on_title_changed), self);
  gtk_box_append (GTK_BOX (box), title);
  empty = gtk_label_new (
      _("No steps yet. Set up the window as the class should see it, then “Add This as a Step”."));
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

  {
    GtkEventController *keys = gtk_shortcut_controller_new ();
    GSimpleActionGroup *group = g_simple_action_group_new ();
    g_autoptr (GSimpleAction) undo = g_simple_action_new ("undo", NULL);

    /* steps.undo, on Ctrl+Z before the fields see it: their own undo is off, the
     * lesson's edits are undone instead */
    g_signal_connect_object (undo, "activate", G_CALLBACK (on_undo), self, 0);
    g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (undo));
    gtk_widget_insert_action_group (win, "steps", G_ACTION_GROUP (group));
    g_object_unref (group);
    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    gtk_shortcut_controller_add_shortcut (
        GTK_SHORTCUT_CONTROLLER (keys),
        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("<Control>z"),
                          gtk_named_action_new ("steps.undo")));
    gtk_widget_add_controller (win, keys);
  }
  self->steps_window = win;
  self->steps_list = GTK_LIST_BOX (list);
  self->steps_title = title;
  self->steps_empty = empty;
  self->steps_save = save;
  g_signal_connect (win, "destroy", G_CALLBACK (on_steps_window_destroy), self);
  cml_window_lesson_rebuild_steps (self);
  gtk_window_present (GTK_WINDOW (win));
}
