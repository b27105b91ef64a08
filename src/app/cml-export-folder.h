/* cml-export-folder.h — where an export's file chooser opens: the same sensible folder
 * for animations and plots.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * All functions: UI thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  CML_EXPORT_FOLDER_VIDEOS,    /* animations */
  CML_EXPORT_FOLDER_PICTURES,  /* plots */
} CmlExportFolderKind;

/* The folder an export opens in: the last one an export of this session wrote to, else
 * the user's Videos or Pictures folder (XDG), else the home folder. */
char *cml_export_folder_get (CmlExportFolderKind kind);
/* An export wrote the file PATH (or PNG frames named by it): its folder is the next
 * export's, for animations and plots alike. */
void  cml_export_folder_remember (const char *path);
/* Forgets the folder remembered (tests). */
void  cml_export_folder_forget (void);

G_END_DECLS
