/* cml-export-dialog.h — "Export Animation…": a video (MP4, WebM, GIF) or PNG frames of
 * the window's run, made by `cmlab-cli render` in a child process.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The dialog is not modal: the window stays in use while the export runs, and the main
 * loop is never blocked (the child's progress lines are read asynchronously).  The
 * child writes under a temporary name and renames at the end; Cancel stops it with
 * SIGTERM, on which it removes what it had written.
 * All functions: UI thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-window.h"

G_BEGIN_DECLS

typedef enum
{
  CML_EXPORT_IDLE,        /* not started yet */
  CML_EXPORT_RUNNING,
  CML_EXPORT_CANCELLING,  /* stopped, waiting for the child to clean up and exit */
  CML_EXPORT_DONE,        /* the file is there under its name */
  CML_EXPORT_FAILED,      /* the banner says why */
  CML_EXPORT_CANCELLED,
} CmlExportState;

#define CML_TYPE_EXPORT_DIALOG (cml_export_dialog_get_type ())
G_DECLARE_FINAL_TYPE (CmlExportDialog, cml_export_dialog, CML, EXPORT_DIALOG, GtkWindow)

/* A dialog for WINDOW's run (transient for it, destroyed with it). */
CmlExportDialog *cml_export_dialog_new (CmlWindow *window);

/* Takes the window's current model, speed and frame as the choices offered (the plot's
 * quantities, whether there is a turning frame); done each time the dialog is shown. */
void             cml_export_dialog_refresh (CmlExportDialog *self);

/* The output: FILE.mp4, FILE.webm, FILE.gif choose the format; FILE.png (or a pattern
 * with a frame number, DIR/NAME-%05d.png) PNG frames; another name gets the extension of
 * the format chosen. */
void             cml_export_dialog_set_output (CmlExportDialog *self, const char *path);
/* What is passed to `cmlab-cli render -o`. */
const char      *cml_export_dialog_get_output (CmlExportDialog *self);

/* The Export button: starts `cmlab-cli render` with the window's run as it is now.
 * FALSE if it could not start (the banner says why). */
gboolean         cml_export_dialog_start (CmlExportDialog *self);
/* The Export button as a person presses it: when the output exists, first asks whether to
 * replace it (FALSE: asking, or it could not start; the export starts on "Replace"). */
gboolean         cml_export_dialog_export (CmlExportDialog *self);
/* The "Replace …?" question while it is shown, else NULL (tests answer it). */
GtkWidget       *cml_export_dialog_get_confirmation (CmlExportDialog *self);
/* The Cancel button: SIGTERM to the child (SIGKILL if it has not exited after a while). */
void             cml_export_dialog_cancel (CmlExportDialog *self);

CmlExportState   cml_export_dialog_get_state (CmlExportDialog *self);
/* The progress as a fraction (0 … 1), and the banner's text ("" when none is shown). */
double           cml_export_dialog_get_fraction (CmlExportDialog *self);
char            *cml_export_dialog_dup_message (CmlExportDialog *self);

/* The cmlab-cli to run: $CMLAB_CLI if set; else beside this program (installed: the
 * same bindir), ../cli/ from it (the build tree), the configured bindir, then PATH. */
char            *cml_export_find_cli (GError **error);

G_END_DECLS
