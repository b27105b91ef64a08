/* test-help.c — the user guide: the app.help action and its F1, the menu item and the
 * shortcuts window's entry, and where the guide is read (yelp, the HTML, nowhere), chosen
 * without launching anything.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "cml-application.h"
#include "cml-help.h"
#include "ui-util.h"

static void
write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* app.help exists, F1 is its accelerator, the main menu offers it and the shortcuts window
 * lists F1 */
static void
test_action (void)
{
  g_autoptr (CmlApplication) app = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) accels = NULL;
  g_autoptr (GBytes) menu = NULL;
  g_autoptr (GtkBuilder) overlay = NULL;
  g_autoptr (GSList) objects = NULL;
  gboolean listed = FALSE;

  SKIP_WITHOUT_DISPLAY ();
  app = cml_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (g_action_map_lookup_action (G_ACTION_MAP (app), "help"));
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "app.help");
  g_assert_nonnull (accels);
  g_assert_cmpstr (accels[0], ==, "F1");

  menu = g_resources_lookup_data ("/org/cmlab/Cmlab/ui/cml-window.ui", 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (g_bytes_get_data (menu, NULL), "<attribute name=\"action\">app.help</attribute>"));

  overlay = gtk_builder_new_from_resource ("/org/cmlab/Cmlab/gtk/help-overlay.ui");
  objects = gtk_builder_get_objects (overlay);
  for (GSList *l = objects; l; l = l->next)
    if (GTK_IS_SHORTCUTS_SHORTCUT (l->data))
      {
        g_autofree char *accel = NULL;

        g_object_get (l->data, "accelerator", &accel, NULL);
        listed |= g_strcmp0 (accel, "F1") == 0;
      }
  g_assert_true (listed);
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (overlay, "help_overlay")));
}

/* without yelp the first folder that holds the page gives a file URI; with yelp and the
 * Mallard pages installed, help:cmlab; with neither, NULL */
static void
test_resolve (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-help-XXXXXX", NULL);
  g_autofree char *bin = g_build_filename (tmp, "bin", NULL);
  g_autofree char *html = g_build_filename (tmp, "html", NULL);
  g_autofree char *missing = g_build_filename (tmp, "nowhere", NULL);
  g_autofree char *index = g_build_filename (html, "index.html", NULL);
  g_autofree char *topic = g_build_filename (html, "instruments.html", NULL);
  g_autofree char *yelp = g_build_filename (bin, "yelp", NULL);
  g_autofree char *page = g_build_filename (g_get_user_data_dir (), "help", "C", "cmlab", "index.page", NULL);
  g_autofree char *index_uri = g_filename_to_uri (index, NULL, NULL);
  g_autofree char *topic_uri = g_filename_to_uri (topic, NULL, NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  const char *dirs[] = { missing, html, NULL };
  const char *none[] = { missing, NULL };
  char *uri;

  g_assert_cmpint (g_mkdir_with_parents (bin, 0700), ==, 0);
  g_setenv ("PATH", bin, TRUE);
  g_assert_null (g_find_program_in_path ("yelp"));

  /* nothing anywhere */
  g_assert_null (cml_help_resolve_uri (NULL, none));
  g_assert_null (cml_help_resolve_uri (NULL, dirs));

  /* the HTML */
  write_file (index, "<html></html>\n");
  write_file (topic, "<html></html>\n");
  uri = cml_help_resolve_uri (NULL, dirs);
  g_assert_cmpstr (uri, ==, index_uri);
  g_free (uri);
  uri = cml_help_resolve_uri ("index", dirs);
  g_assert_cmpstr (uri, ==, index_uri);
  g_free (uri);
  uri = cml_help_resolve_uri ("instruments", dirs);
  g_assert_cmpstr (uri, ==, topic_uri);
  g_free (uri);
  g_assert_null (cml_help_resolve_uri ("no-such-page", dirs));

  /* yelp, but no Mallard pages where it looks: still the HTML */
  write_file (yelp, "#!/bin/sh\nexit 0\n");
  g_assert_cmpint (g_chmod (yelp, 0755), ==, 0);
  uri = cml_help_resolve_uri (NULL, dirs);
  g_assert_cmpstr (uri, ==, index_uri);
  g_free (uri);

  /* yelp and the pages: help:cmlab */
  write_file (page, "<page/>\n");
  uri = cml_help_resolve_uri (NULL, dirs);
  g_assert_cmpstr (uri, ==, "help:cmlab");
  g_free (uri);
  uri = cml_help_resolve_uri ("instruments", none);
  g_assert_cmpstr (uri, ==, "help:cmlab/instruments");
  g_free (uri);

  g_setenv ("PATH", old_path, TRUE);
  g_remove (page);
  g_remove (yelp);
  g_remove (index);
  g_remove (topic);
  g_rmdir (bin);
  g_rmdir (html);
  g_rmdir (tmp);
}

/* the guide made by yelp-build in the build tree: every page the window may ask for */
static void
test_build_tree (void)
{
  g_autofree char *html = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "help", "html", NULL);
  g_autofree char *index = g_build_filename (html, "index.html", NULL);
  g_autofree char *bin = g_dir_make_tmp ("cmlab-help-bin-XXXXXX", NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  const char *dirs[] = { html, NULL };
  const char *topics[] = { "index", "getting-started", "systems", "instruments", "exporting", "writing-a-model",
                           "lessons", NULL };

  if (!g_file_test (index, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no HTML guide in the build tree (yelp-build was not found)");
      g_rmdir (bin);
      return;
    }
  g_setenv ("PATH", bin, TRUE);
  for (const char *const *t = topics; *t; t++)
    {
      g_autofree char *file = g_strconcat (*t, ".html", NULL);
      g_autofree char *path = g_build_filename (html, file, NULL);
      g_autofree char *expect = g_filename_to_uri (path, NULL, NULL);
      g_autofree char *uri = cml_help_resolve_uri (*t, dirs);

      g_assert_cmpstr (uri, ==, expect);
    }
  g_setenv ("PATH", old_path, TRUE);
  g_rmdir (bin);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/help/action", test_action);
  g_test_add_func ("/ui/help/resolve", test_resolve);
  g_test_add_func ("/ui/help/build-tree", test_build_tree);

  return g_test_run ();
}
