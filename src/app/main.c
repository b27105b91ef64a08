/* main.c — cmlab, the desktop application.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cmlab"

#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <locale.h>
#include <string.h>

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

  /* the locale is set here, not by GTK, so that LANGUAGE is followed under the C locale
   * too (LANG unset): gettext alone ignores it there; C.UTF-8 is C for everything else */
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "");
  {
    const char *language = g_getenv ("LANGUAGE");
    const char *messages = setlocale (LC_MESSAGES, NULL);
    if (language && *language && messages && (g_str_equal (messages, "C") || g_str_equal (messages, "POSIX")))
      {
        setlocale (LC_MESSAGES, "C.UTF-8");
        /* and the characters written, in UTF-8 as the catalogues give them */
        const char *ctype = setlocale (LC_CTYPE, NULL);
        if (ctype && (strcmp (ctype, "C") == 0 || strcmp (ctype, "POSIX") == 0))
          setlocale (LC_CTYPE, "C.UTF-8");
      }
  }
  bindtextdomain (GETTEXT_PACKAGE, locales);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_autoptr (CmlApplication) app = cml_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
