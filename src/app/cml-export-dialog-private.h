/* cml-export-dialog-private.h — what the export dialog's files share: the dialog's
 * fields, one run of `cmlab-cli render` in a child process (cml-export-job.c) and the
 * command line it runs (cml-export-command.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-export-dialog.h"
#include "cml-session.h"

G_BEGIN_DECLS

typedef enum
{
  FORMAT_MP4,
  FORMAT_WEBM,
  FORMAT_GIF,
  FORMAT_PNG,
  N_FORMATS
} CmlExportFormat;

/* One run of `cmlab-cli render`.  It outlives the dialog if the dialog goes first: it
 * must still read the pipe to its end, reap the child and remove the temporary session. */
typedef struct
{
  gint              ref_count;
  CmlExportDialog  *dialog;      /* NULL once the dialog is gone */
  GSubprocess      *proc;
  GDataInputStream *out;         /* the child's standard output and error */
  GString          *messages;    /* the lines that are not progress (the last ones) */
  char             *output;      /* the -o argument */
  char             *session;     /* the temporary session file (--session), or NULL */
  gint64            started;     /* real time, µs */
  gboolean          exited, eof;
  gboolean          cancel_requested;
  guint             kill_id;
  /* the newest progress */
  guint             prep_done, prep_total, done, total;
  double            seconds;     /* drawing time so far */
  gboolean          finishing;
  /* the first progress line: the time left is measured from it */
  gboolean          has_base;
  guint             base_done;
  double            base_seconds;
} CmlExportJob;

struct _CmlExportDialog
{
  GtkWindow       parent_instance;

  /* template */
  GtkButton      *close_button;
  GtkButton      *export_button;
  GtkInfoBar     *banner;
  GtkLabel       *banner_label;
  GtkLabel       *banner_detail;
  GtkButton      *open_button;
  GtkGrid        *form;
  GtkButton      *file_button;
  GtkLabel       *file_label;
  GtkLabel       *folder_label;
  GtkDropDown    *format_dropdown;
  GtkSpinButton  *width_spin;
  GtkSpinButton  *height_spin;
  GtkSpinButton  *fps_spin;
  GtkSpinButton  *duration_spin;
  GtkLabel       *duration_unit_label;
  GtkSpinButton  *speed_spin;
  GtkDropDown    *frame_dropdown;
  GtkDropDown    *plot_dropdown;
  GtkCheckButton *clock_check;
  GtkLabel       *span_label;
  GtkLabel       *summary_label;
  GtkRevealer    *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkLabel       *progress_label;
  GtkButton      *cancel_button;

  CmlWindow      *window;        /* weak */
  GtkStringList  *plot_names;    /* "None", then the quantities */
  char           *output;        /* the -o argument */
  gboolean        folder_chosen; /* the output's folder was chosen, not the default */
  char           *time_unit;     /* the model's, or NULL (none) */
  CmlExportFormat          format;
  gboolean        refreshed;     /* the window's speed and frame taken once */
  gboolean        setting_format;
  CmlExportJob            *job;           /* the running export, or NULL */
  CmlExportState  state;
  char           *done_path;     /* what the Open button opens */
  GtkFileChooserNative *chooser;
  GtkWidget        *confirm;  /* "Replace …?", while it asks */
};

/* ---- one run of cmlab-cli render (cml-export-job.c) ---------------------------------- */

CmlExportJob *cml_export_job_ref (CmlExportJob *job);
void          cml_export_job_unref (CmlExportJob *job);
/* Reads the child's next line (progress, or a message kept), asynchronously. */
void          cml_export_job_read_next_line (CmlExportJob *job);
/* The child has exited (g_subprocess_wait_async's callback; DATA: a reference to the job). */
void          cml_export_job_on_exited (GObject *source, GAsyncResult *result, gpointer data);
/* SIGTERM to the child (it cleans up and exits); SIGKILL if it has not exited after a while. */
void          cml_export_job_cancel (CmlExportJob *job);
/* In the child, before exec: it gets SIGTERM (and cleans up) if the application dies. */
void          cml_export_job_child_setup (gpointer data);
/* The temporary files of a child that did not end by itself, made since SINCE_US. */
void          cml_export_job_remove_leftovers (const char *output, gint64 since_us);
/* What the child said, as a message for a person (STATUS: its wait status). */
char         *cml_export_job_failure_message (CmlExportJob *job, int status);

/* ---- the dialog, told by its job (cml-export-dialog.c) -------------------------------- */

/* Both the pipe's end and the child's exit have been seen: the banner says how it went. */
void          cml_export_dialog_finish_job (CmlExportJob *job);
void          cml_export_dialog_show_progress (CmlExportDialog *self, CmlExportJob *job);
/* The quantity at POS of the plot list: the list shows it as people write it ("ρ [m]"),
 * each entry keeps its name. */
const char   *cml_export_dialog_plot_name (CmlExportDialog *self, guint pos);

/* ---- the command line (cml-export-command.c) ------------------------------------------ */

/* SESSION in a new temporary file (readable by its owner only): its path. */
char         *cml_export_session_file (CmlSession *session, GError **error);
/* cmlab-cli render with the run in the session file SESSION and the dialog's settings. */
GPtrArray    *cml_export_dialog_build_argv (CmlExportDialog *self, const char *cli,
                                            const char *session);

G_END_DECLS
