/* cml-window-actions.c — the window's actions and keyboard shortcuts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Actions are installed on the class (win.*).  The run shortcuts (Space, →, R, + and −)
 * are plain keys, so they must not steal keys from a field being typed in: a capture-phase
 * shortcut controller lets them through to text fields, and → to sliders.
 */
#define G_LOG_DOMAIN "cml-window-actions"

#include "cml-window-private.h"

#include <glib/gi18n.h>

static void
play_pause_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  CmlFrame *frame;

  if (self->runner == NULL)
    return;
  frame = cml_runner_get_frame (self->runner);
  if (frame->state == CML_RUNNER_RUNNING)
    cml_runner_pause (self->runner);
  else
    {
      /* at the start with time reversed there is nowhere to go: play forward, and say so */
      if (frame->direction < 0 && frame->t <= 0)
        {
          cml_timeline_set_reversed (self->timeline, FALSE);
          cml_window_show_toast (self, _("At t = 0 time cannot run further back: Reverse is off, the run goes forward."));
        }
      cml_runner_play (self->runner);
    }
  cml_window_compare_play (self, frame->state != CML_RUNNER_RUNNING);
  cml_frame_unref (frame);
}

static void
step_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (self->runner)
    cml_runner_step (self->runner, cml_window_step_size (self));
  cml_window_compare_step (self, cml_window_step_size (self));
}

/* timeline: back one step along the record; reversed time on and off */
static void
step_back_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (self->runner)
    cml_runner_step_back (self->runner, cml_window_step_size (self));
  cml_window_compare_step_back (self, cml_window_step_size (self));
}

static void
reverse_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  cml_timeline_set_reversed (self->timeline, !cml_timeline_get_reversed (self->timeline));
}

static void
reset_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  /* from what the run was last reset from: the initial values last applied in the panel,
   * or an opened session's (the model's own by default) */
  if (self->runner)
    cml_runner_reset (self->runner, self->run_given);
  cml_window_compare_reset (self, self->run_given);
}

static void
faster_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (self->speed_index + 1 < CML_N_SPEEDS)
    cml_window_set_speed_index (self, self->speed_index + 1);
}

static void
slower_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (self->speed_index > 0)
    cml_window_set_speed_index (self, self->speed_index - 1);
}

static void
on_chooser_response (GtkNativeDialog *chooser, int response, CmlWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      if (file)
        cml_window_open_file (self, file);
    }
  gtk_native_dialog_destroy (chooser);
  g_clear_object (&self->chooser);
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  g_autoptr (GtkFileFilter) models = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) lessons = gtk_file_filter_new ();
  g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();
  const char *dir = cml_model_builtin_dir ();

  if (self->chooser)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
      return;
    }
  self->chooser = gtk_file_chooser_native_new (_("Open Model"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_filter_set_name (models, _("Model files (*.cml)"));
  gtk_file_filter_add_pattern (models, "*.cml");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), models);
  /* a lesson opens here too: its first step */
  gtk_file_filter_set_name (lessons, _("Lessons (*.cmllesson)"));
  gtk_file_filter_add_pattern (lessons, "*.cmllesson");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), lessons);
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (self->chooser), models);
  /* the built-ins are the best examples to start a model of one's own from */
  if (dir && g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GFile) folder = g_file_new_for_path (dir);

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), folder, NULL);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
reset_view_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_scene_view_reset_camera (CML_WINDOW (widget)->scene_view);
}

static void
systems_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  gtk_menu_button_popup (CML_WINDOW (widget)->systems_button);
}

static void
retry_open_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  g_autofree char *path = g_strdup (self->failed_path);
  g_autoptr (GFile) file = NULL;

  if (path == NULL)
    return;
  file = g_file_new_for_path (path);
  cml_window_open_file (self, file);
}

/* Undo and redo of parameter and initial-data changes (the panel keeps the history). */
static void
undo_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (!cml_parameter_panel_undo (self->parameter_panel))
    gtk_widget_error_bell (widget);
}

static void
redo_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (!cml_parameter_panel_redo (self->parameter_panel))
    gtk_widget_error_bell (widget);
}

void
cml_window_class_add_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.play-pause", NULL, play_pause_action);
  gtk_widget_class_install_action (widget_class, "win.step", NULL, step_action);
  gtk_widget_class_install_action (widget_class, "win.reset", NULL, reset_action);
  gtk_widget_class_install_action (widget_class, "win.step-back", NULL, step_back_action);
  gtk_widget_class_install_action (widget_class, "win.reverse", NULL, reverse_action);
  gtk_widget_class_install_action (widget_class, "win.faster", NULL, faster_action);
  gtk_widget_class_install_action (widget_class, "win.slower", NULL, slower_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.reset-view", NULL, reset_view_action);
  gtk_widget_class_install_property_action (widget_class, "win.presentation", "presentation");
  gtk_widget_class_install_property_action (widget_class, "win.style", "style");
  gtk_widget_class_install_property_action (widget_class, "win.table-frame", "table-frame");
  gtk_widget_class_install_property_action (widget_class, "win.sidebar", "sidebar-visible");
  gtk_widget_class_install_action (widget_class, "win.systems", NULL, systems_action);
  gtk_widget_class_install_action (widget_class, "win.retry-open", NULL, retry_open_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, redo_action);
  cml_window_class_add_compare_actions (widget_class);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.sidebar", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F4, 0, "win.systems", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.undo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.redo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_y, GDK_CONTROL_MASK, "win.redo", NULL);
}

void
cml_window_update_actions (CmlWindow *self)
{
  gboolean have = self->runner != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.play-pause", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.step", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reset", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.step-back", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reverse", have);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.faster", self->speed_index + 1 < CML_N_SPEEDS);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.slower", self->speed_index > 0);
}

/* ---- shortcuts ------------------------------------------------------------------------- */

/* Activates the action named by USER_DATA unless the key belongs to what has the focus:
 * a text field (the spin buttons' entries), a text view, a dropdown's list, or — for the
 * arrow — a slider. */
static gboolean
run_shortcut (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  const char *action = user_data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (widget));

  if (focus)
    {
      /* undo and redo in a field without a text undo of its own (the value fields: their
       * Ctrl+Z undoes the parameter, field and slider together) are the panel's */
      gboolean undo = g_str_equal (action, "win.undo") || g_str_equal (action, "win.redo");
      if (undo && GTK_IS_EDITABLE (focus) && !gtk_editable_get_enable_undo (GTK_EDITABLE (focus)))
        return gtk_widget_activate_action (widget, action, NULL);
      if (GTK_IS_EDITABLE (focus) || GTK_IS_TEXT_VIEW (focus)
          || gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) != NULL)
        return FALSE;
      if (GTK_IS_RANGE (focus) && (g_str_equal (action, "win.step") || g_str_equal (action, "win.step-back")))
        return FALSE;
    }
  return gtk_widget_activate_action (widget, action, NULL);
}

static void
add_shortcut (GtkShortcutController *controller, const char *triggers, const char *action)
{
  GtkShortcutTrigger *trigger = gtk_shortcut_trigger_parse_string (triggers);
  GtkShortcutAction *callback = gtk_callback_action_new (run_shortcut, (gpointer) action, NULL);

  g_assert (trigger != NULL);
  gtk_shortcut_controller_add_shortcut (controller, gtk_shortcut_new (trigger, callback));
}

void
cml_window_add_shortcuts (CmlWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  GtkShortcutController *sc = GTK_SHORTCUT_CONTROLLER (controller);

  gtk_event_controller_set_name (controller, "cml-run-shortcuts");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  add_shortcut (sc, "space", "win.play-pause");
  add_shortcut (sc, "Right", "win.step");
  add_shortcut (sc, "Left", "win.step-back");    /* timeline */
  add_shortcut (sc, "b|<Shift>b", "win.reverse"); /* timeline */
  add_shortcut (sc, "r|<Shift>r", "win.reset");
  add_shortcut (sc, "plus|equal|KP_Add", "win.faster");
  add_shortcut (sc, "minus|KP_Subtract", "win.slower");
  add_shortcut (sc, "<Control>z", "win.undo");
  add_shortcut (sc, "<Control><Shift>z|<Control>y", "win.redo");
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}
