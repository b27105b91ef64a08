/* cml-window-messages.c — what the window says to the person in front of it: an error
 * in a dialog, a model that did not load in the view's place, and toasts (a short note
 * that goes away by itself, with Undo where there is something to undo).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

/* ---- errors ---------------------------------------------------------------------------- */

void
cml_window_show_error (CmlWindow *self, const char *primary, const char *secondary)
{
  GtkWidget *dialog;

  /* tests and scripted runs have nobody to read a dialog */
  if (g_getenv ("CMLAB_NO_DIALOGS"))
    {
      g_message ("%s: %s", primary, secondary ? secondary : "");
      return;
    }
  dialog = adw_message_dialog_new (GTK_WINDOW (self), primary, NULL);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  if (secondary)
    {
      /* FILE:LINE messages are for copying into an editor: a label that can be selected
       * in the body's place */
      GtkWidget *label = gtk_label_new (secondary);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), label);
    }
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* A model that could not be opened: the scene's place says so (file, line and problem)
 * until a model runs, rather than a dialog over a window that shows something else. */
void
cml_window_show_load_error (CmlWindow *self, const char *path, const char *message)
{
  g_autofree char *base = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (CML_IS_WINDOW (self));

  g_free (self->failed_path);
  self->failed_path = g_strdup (path);
  base = path ? g_path_get_basename (path) : NULL;
  title = base ? g_strdup_printf (_("Could not open “%s”"), base) : g_strdup (_("Could not open the model"));
  gtk_label_set_text (self->error_title, title);
  gtk_label_set_text (self->error_detail, message ? message : "");
  gtk_widget_set_visible (self->error_retry_button, path != NULL);
  gtk_stack_set_visible_child_name (self->scene_stack, "error");
  if (self->system == NULL)
    {
      gtk_label_set_text (self->title_label, title);
      gtk_window_set_title (GTK_WINDOW (self), "cmlab");
    }
  g_message ("%s: %s", title, message ? message : "");
}

static void
on_toast_dismissed (AdwToast *toast, CmlWindow *self)
{
  if (self->toast == toast)
    g_clear_object (&self->toast);
}

/* A passing note over the 3-D view (libadwaita's toast): a new one takes the place of the
 * one shown, rather than waiting behind it. */
void
cml_window_show_toast (CmlWindow *self, const char *text)
{
  g_autofree char *markup = NULL;

  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (text != NULL);

  if (self->toast)
    {
      g_autoptr (AdwToast) shown = g_steal_pointer (&self->toast);

      adw_toast_dismiss (shown);
    }
  /* a toast's title is Pango markup: a file's name may hold an & or a < */
  markup = g_markup_escape_text (text, -1);
  self->n_toasts++;
  g_free (self->last_toast);
  self->last_toast = g_strdup (text);
  self->toast = adw_toast_new (markup);
  /* long enough to read twice */
  adw_toast_set_timeout (self->toast, 4);
  g_signal_connect_object (self->toast, "dismissed", G_CALLBACK (on_toast_dismissed), self, 0);
  g_object_set_data_full (G_OBJECT (self->toast), "cml-text", g_strdup (text), g_free);
  /* the overlay holds a reference of its own until the toast is dismissed */
  adw_toast_overlay_add_toast (self->toast_overlay, g_object_ref (self->toast));
}

const char *
cml_window_get_toast (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  return self->toast ? g_object_get_data (G_OBJECT (self->toast), "cml-text") : NULL;
}
