/* cml-export-folder.c — the folder an export's file chooser opens in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A person who saved a video into the lecture's folder expects the plot to go there too,
 * so animations and plots share one remembered folder for the session: the last one an
 * export wrote to.  Before any export: Videos for animations and Pictures for plots as
 * the desktop names them (g_get_user_special_dir), else the home folder — never the
 * working folder, which for a program started from a menu is wherever that was.
 */
#define G_LOG_DOMAIN "cml-export-folder"

#include "cml-export-folder.h"

static char *last_folder;  /* the last folder exported to in this session, or NULL */

char *
cml_export_folder_get (CmlExportFolderKind kind)
{
  if (last_folder && g_file_test (last_folder, G_FILE_TEST_IS_DIR))
    return g_strdup (last_folder);

  const char *special = g_get_user_special_dir (kind == CML_EXPORT_FOLDER_VIDEOS ? G_USER_DIRECTORY_VIDEOS
                                                                                   : G_USER_DIRECTORY_PICTURES);
  if (special && g_file_test (special, G_FILE_TEST_IS_DIR))
    return g_strdup (special);
  return g_strdup (g_get_home_dir ());
}

void
cml_export_folder_remember (const char *path)
{
  g_return_if_fail (path != NULL);

  g_autofree char *dir = g_path_get_dirname (path);
  if (!g_path_is_absolute (dir))
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *abs = g_build_filename (cwd, dir, NULL);
      g_free (dir);
      dir = g_canonicalize_filename (abs, NULL);
    }
  g_free (last_folder);
  last_folder = g_steal_pointer (&dir);
}

void
cml_export_folder_forget (void)
{
  g_clear_pointer (&last_folder, g_free);
}
