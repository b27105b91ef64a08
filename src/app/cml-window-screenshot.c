/* cml-window-screenshot.c — a picture of the window: --screenshot FILE writes a PNG of
 * what the window shows when --quit-after ends the run, then closes it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include "cml-atomic-file.h"


gboolean
cml_window_save_screenshot (CmlWindow *self, const char *path, GError **error)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  GtkSnapshot *snapshot;
  GskRenderer *renderer;
  g_autoptr (GBytes) png = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  renderer = gtk_native_get_renderer (GTK_NATIVE (self));
  if (w <= 0 || h <= 0 || renderer == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("the window is not shown yet"));
      return FALSE;
    }
  /* the window as GTK draws it: widgets, and the GL views' last frames */
  snapshot = gtk_snapshot_new ();
  /* the window's own background (GTK draws it outside the snapshot vfunc), then the
   * window as its class draws it: the header bar and the body */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_snapshot_render_background (snapshot, gtk_widget_get_style_context (widget), 0, 0, w, h);
  G_GNUC_END_IGNORE_DEPRECATIONS
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _("the window drew nothing"));
      return FALSE;
    }
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  png = gdk_texture_save_to_png_bytes (texture);
  /* complete or not at all, and never over what is not a regular file of the user's */
  if (!cml_atomic_file_set_contents (path, g_bytes_get_data (png, NULL), g_bytes_get_size (png), error))
    return FALSE;
  return TRUE;
}

void
cml_window_set_screenshot (CmlWindow *self, const char *path)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  g_free (self->screenshot_path);
  self->screenshot_path = g_strdup (path);
}

/* After the frame that was just painted: the window is laid out and drawn, so the
 * picture is what a person sees.  Then the window closes. */
static void
on_after_paint_quit (GdkFrameClock *clock, CmlWindow *self)
{
  g_autoptr (GError) error = NULL;

  g_signal_handlers_disconnect_by_func (clock, on_after_paint_quit, self);
  if (self->screenshot_path && !cml_window_save_screenshot (self, self->screenshot_path, &error))
    g_printerr ("cmlab: %s\n", error->message);
  gtk_window_destroy (GTK_WINDOW (self));
}

void
cml_window_quit_after_this_frame (CmlWindow *self, GdkFrameClock *clock)
{
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint_quit), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

