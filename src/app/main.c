/* main.c — cmlab, the desktop application.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cmlab"

#include <glib/gi18n.h>
#include <locale.h>

#include "cml-application.h"

/* The translations' directory: the build tree's po/ for a program run from the build tree
 * (build.ninja two levels above it), else the one cmlab was installed with. */
static char *
locale_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
  g_autofree char *ninja = dir ? g_build_filename (dir, "..", "..", "build.ninja", NULL) : NULL;

  if (ninja && g_file_test (ninja, G_FILE_TEST_IS_REGULAR))
    return g_build_filename (dir, "..", "..", "po", NULL);
  return g_strdup (LOCALEDIR);
}

int
main (int argc, char **argv)
{
  g_autofree char *locales = locale_dir ();

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locales);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_autoptr (CmlApplication) app = cml_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
