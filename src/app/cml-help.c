/* cml-help.c — the user guide: choosing where to read it and opening it there.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * In order: yelp with "help:cmlab" (the Mallard pages installed under share/help/C/cmlab,
 * where yelp looks), the HTML installed under share/cmlab/help in the system's browser,
 * the HTML made in the build tree (a cmlab run from there), else a dialog that says where
 * the guide belongs and how to get a reader for it.
 */
#define G_LOG_DOMAIN "cml-help"

#include "cml-help.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#ifndef CMLAB_HELP_HTML_DIR
#define CMLAB_HELP_HTML_DIR "/usr/share/cmlab/help"
#endif

/* TRUE when the Mallard pages are installed in a data folder that yelp reads. */
static gboolean
mallard_installed (void)
{
  const char *const *dirs = g_get_system_data_dirs ();
  g_autofree char *user = g_build_filename (g_get_user_data_dir (), "help", "C", "cmlab", "index.page", NULL);

  if (g_file_test (user, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  for (; dirs && *dirs; dirs++)
    {
      g_autofree char *page = g_build_filename (*dirs, "help", "C", "cmlab", "index.page", NULL);

      if (g_file_test (page, G_FILE_TEST_IS_REGULAR))
        return TRUE;
    }
  return FALSE;
}

char *
cml_help_resolve_uri (const char *topic, const char *const *html_dirs)
{
  g_autofree char *yelp = g_find_program_in_path ("yelp");
  g_autofree char *file = NULL;

  if (topic == NULL || *topic == '\0')
    topic = "index";
  if (yelp && mallard_installed ())
    return g_strcmp0 (topic, "index") == 0 ? g_strdup ("help:cmlab") : g_strconcat ("help:cmlab/", topic, NULL);
  file = g_strconcat (topic, ".html", NULL);
  for (; html_dirs && *html_dirs; html_dirs++)
    {
      g_autofree char *path = g_build_filename (*html_dirs, file, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_filename_to_uri (path, NULL, NULL);
    }
  return NULL;
}

/* The build tree's HTML, from the executable's place (src/app/cmlab → help/html). */
static char *
build_tree_html_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;

  return dir ? g_build_filename (dir, "..", "..", "help", "html", NULL) : NULL;
}

char *
cml_help_uri (const char *topic)
{
  g_autofree char *build = build_tree_html_dir ();
  const char *dirs[] = { CMLAB_HELP_HTML_DIR, build, NULL };

  return cml_help_resolve_uri (topic, dirs);
}

static void
show_missing (GtkWindow *parent, const char *detail)
{
  GtkWidget *dialog = adw_message_dialog_new (parent, _("The user guide is not installed"), NULL);

  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  adw_message_dialog_format_body (
    ADW_MESSAGE_DIALOG (dialog),
    _("cmlab's guide is read with the GNOME help viewer from %s, or in a web browser from %s.%s%s\n\n"
    "To read it, install the help viewer (sudo apt install yelp) and cmlab with its guide, "
    "or build cmlab with yelp-build (sudo apt install yelp-tools) to make the HTML version."),
    "/usr/share/help/C/cmlab", CMLAB_HELP_HTML_DIR "/index.html", detail ? "\n\n" : "", detail ? detail : "");
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

typedef struct
{
  GtkWindow *parent; /* weak */
  char *uri;
} ShowData;

static void
show_uri_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ShowData *data = user_data;
  g_autoptr (GError) error = NULL;

  if (!gtk_show_uri_full_finish (GTK_WINDOW (source), result, &error))
    {
      g_autofree char *detail = g_strdup_printf (_("No program could open %s: %s"), data->uri, error->message);

      g_warning ("%s", detail);
      show_missing (data->parent, detail);
    }
  if (data->parent)
    g_object_remove_weak_pointer (G_OBJECT (data->parent), (gpointer *) &data->parent);
  g_free (data->uri);
  g_free (data);
}

void
cml_help_show (GtkWindow *parent, const char *topic)
{
  g_autofree char *uri = cml_help_uri (topic);

  if (uri == NULL)
    {
      show_missing (parent, NULL);
      return;
    }
  if (g_str_has_prefix (uri, "help:"))
    {
      /* yelp itself: it is on the PATH (cml_help_resolve_uri checked) */
      const char *argv[] = { "yelp", uri, NULL };
      g_autoptr (GError) error = NULL;

      if (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &error))
        return;
      g_warning ("could not start yelp: %s", error->message);
    }
  /* the HTML guide wants a web browser: without one the launch "succeeds" and nothing
   * shows, so say so here instead */
  if (g_str_has_prefix (uri, "file:"))
    {
      g_autoptr (GAppInfo) browser = g_app_info_get_default_for_type ("text/html", FALSE);

      if (browser == NULL)
        {
          g_autofree char *detail = g_strdup_printf (_("No web browser is installed to open %s."), uri);

          show_missing (parent, detail);
          return;
        }
    }
  if (parent)
    {
      ShowData *data = g_new0 (ShowData, 1);

      data->parent = parent;
      data->uri = g_strdup (uri);
      g_object_add_weak_pointer (G_OBJECT (parent), (gpointer *) &data->parent);
      gtk_show_uri_full (parent, uri, GDK_CURRENT_TIME, NULL, show_uri_done, data);
    }
  else
    gtk_show_uri (NULL, uri, GDK_CURRENT_TIME);
}
