/* cml-window-size.c — the window's size and panes: chosen at start (about 85 % of the
 * screen), remembered in GSettings with the side panel and the split between the view and
 * the plots, or fixed exactly by --window-size (for screenshots and tests).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"


/* The schema: installed, or beside the executable in the build tree (data/). */
GSettings *
cml_window_open_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  if (source)
    schema = g_settings_schema_source_lookup (source, CMLAB_APP_ID, TRUE);
  if (schema == NULL)
    {
      g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
      g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
      g_autofree char *data = dir ? g_build_filename (dir, "..", "..", "data", NULL) : NULL;
      g_autofree char *compiled = data ? g_build_filename (data, "gschemas.compiled", NULL) : NULL;

      if (compiled && g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
        {
          g_autoptr (GSettingsSchemaSource) local =
            g_settings_schema_source_new_from_directory (data, source, FALSE, NULL);

          if (local)
            schema = g_settings_schema_source_lookup (local, CMLAB_APP_ID, FALSE);
        }
    }
  if (schema == NULL)
    {
      g_debug ("no settings schema %s: the window size is not remembered", CMLAB_APP_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

/* A size that suits the screen: the remembered one, else about 85 % of the monitor (at
 * least 1280×720 where the monitor has room for it). */
void
cml_window_choose_size (CmlWindow *self)
{
  GdkDisplay *display = gtk_widget_get_display (GTK_WIDGET (self));
  GListModel *monitors = display ? gdk_display_get_monitors (display) : NULL;
  g_autoptr (GdkMonitor) monitor = monitors ? g_list_model_get_item (monitors, 0) : NULL;
  int w = 1280, h = 720, mw = 0, mh = 0;

  if (monitor)
    {
      GdkRectangle geo;

      gdk_monitor_get_geometry (monitor, &geo);
      mw = geo.width;
      mh = geo.height;
      w = MAX ((int) (0.85 * mw), MIN (1280, mw));
      h = MAX ((int) (0.85 * mh), MIN (720, mh));
    }
  if (self->settings)
    {
      int sw = g_settings_get_int (self->settings, "window-width");
      int sh = g_settings_get_int (self->settings, "window-height");
      int pos = g_settings_get_int (self->settings, "plots-position");

      if (sw > 0 && sh > 0)
        {
          w = mw > 0 ? MIN (sw, mw) : sw;
          h = mh > 0 ? MIN (sh, mh) : sh;
        }
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      cml_window_set_sidebar_visible (self, g_settings_get_boolean (self->settings, "sidebar-visible"));
      if (g_settings_get_int (self->settings, "sidebar-width") > 0)
        gtk_paned_set_position (self->outer_paned, g_settings_get_int (self->settings, "sidebar-width"));
      if (pos > 0)
        {
          /* the plots' width from the right edge, applied once the paned has its size */
          self->saved_content_position = -pos;
        }
    }
  gtk_window_set_default_size (GTK_WINDOW (self), w, h);
}

void
cml_window_remember_size (CmlWindow *self)
{
  int w = 0, h = 0;

  if (self->settings == NULL || self->fixed_size)
    return;
  gtk_window_get_default_size (GTK_WINDOW (self), &w, &h);
  g_settings_delay (self->settings);
  if (w > 0 && h > 0 && !gtk_window_is_maximized (GTK_WINDOW (self)))
    {
      g_settings_set_int (self->settings, "window-width", w);
      g_settings_set_int (self->settings, "window-height", h);
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (GTK_WINDOW (self)));
  /* presentation mode's layout is for the projector: remember the everyday one */
  g_settings_set_boolean (self->settings, "sidebar-visible",
                          self->presentation ? self->saved_sidebar_visible : self->sidebar_visible);
  if (self->sidebar_visible)
    g_settings_set_int (self->settings, "sidebar-width", gtk_paned_get_position (self->outer_paned));
  if (!self->presentation && self->layout_done)
    {
      int cw = gtk_widget_get_width (GTK_WIDGET (self->content_paned));
      int right = cw - gtk_paned_get_position (self->content_paned);

      if (cw > 0 && right > 0)
        g_settings_set_int (self->settings, "plots-position", right);
    }
  g_settings_apply (self->settings);
}

gboolean
cml_window_on_close_request (GtkWindow *window)
{
  cml_window_remember_size (CML_WINDOW (window));
  return FALSE;
}

/* A remembered plots width, once the paned knows its own. */
void
cml_window_apply_remembered_split (CmlWindow *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self->content_paned));

  if (self->saved_content_position >= -1 || w <= 0 || self->presentation)
    return;
  gtk_paned_set_position (self->content_paned, MAX (w + self->saved_content_position, 360));
  self->saved_content_position = -1;
  self->layout_done = TRUE;
}

void
cml_window_set_fixed_size (CmlWindow *self, int width, int height)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  self->fixed_size = TRUE;
  self->fixed_w = width;
  self->fixed_h = height;
  if (gtk_window_is_maximized (GTK_WINDOW (self)))
    gtk_window_unmaximize (GTK_WINDOW (self));
  gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  /* the split for this size, not the remembered one */
  if (self->saved_content_position < -1)
    self->saved_content_position = -1;
  self->layout_done = FALSE;
}

/* --window-size: the window's own size, without the margins the window system adds
 * around it (shadows, resize borders). */
void
cml_window_fit_fixed_size (CmlWindow *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  int dw, dh;

  if (!self->fixed_size || self->fixed_w <= 0 || w <= 0)
    return;
  dw = self->fixed_w - w;
  dh = self->fixed_h - h;
  if ((dw != 0 || dh != 0) && self->fixed_tries < 3)
    {
      int cw = 0, ch = 0;

      self->fixed_tries++;
      gtk_window_get_default_size (GTK_WINDOW (self), &cw, &ch);
      gtk_window_set_default_size (GTK_WINDOW (self), cw + dw, ch + dh);
      self->layout_done = FALSE;
    }
}

