/* cml-export-dialog.c — "Export Animation…": the settings, then `cmlab-cli render` in a
 * child process with its progress read as it comes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why a child process and not a thread: the export draws with its own OpenGL context
 * (surfaceless EGL) and runs the simulation again from t = 0 — in a process of its own
 * neither can disturb the window's GL views or its worker, a crash there leaves the
 * window alive, and the command already writes atomically and cleans up on SIGTERM.
 *
 * The run is passed exactly as the window has it at the moment Export is pressed: as a
 * session (cml_window_get_session, what Save Session writes — the model's text as it was
 * loaded, every parameter, every component of the initial state in full precision, the
 * integrator with its tolerances) in a temporary file, `cmlab-cli render --session FILE`,
 * removed once the child has ended.  The child's standard output and error come through
 * one pipe: `prepare`, `progress` and `finishing` lines (--progress lines) move the bar,
 * the rest is kept for the message shown if the export fails.
 */
#define G_LOG_DOMAIN "cml-export-dialog"

#include "cml-export-dialog-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cml-error.h"
#include "cml-export-folder.h"
#include "cml-plot.h"
#include "cml-session.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#define PREPARE_SHARE    0.1     /* of the bar given to the preparation */
/* The time left is estimated from the frames drawn after the first one reported (which
 * carries the start-up: the encoder, the first frame's shaders), once there are this
 * many over this long; until then it says it is estimating. */
#define ESTIMATE_MIN_FRAMES  3
#define ESTIMATE_MIN_SECONDS 1.0

static const char *const format_ext[N_FORMATS] = { ".mp4", ".webm", ".gif", ".png" };
#define PNG_NUMBER "-%05d"  /* between a PNG frame's stem and ".png" */

G_DEFINE_FINAL_TYPE (CmlExportDialog, cml_export_dialog, GTK_TYPE_WINDOW)

/* ---- the output name ------------------------------------------------------------------ */

static gboolean
format_from_path (const char *path, CmlExportFormat *format)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  for (int f = 0; f < N_FORMATS; f++)
    if (g_str_has_suffix (lower, format_ext[f]))
      {
        *format = f;
        return TRUE;
      }
  return FALSE;
}

/* PATH without its extension and, for PNG frames, without the frame number. */
static char *
output_stem (const char *path)
{
  char *stem = g_strdup (path);
  char *slash = strrchr (stem, '/');
  char *dot = strrchr (stem, '.');
  char *pct;

  if (dot && (slash == NULL || dot > slash))
    *dot = '\0';
  pct = strrchr (stem, '%');
  if (pct && (slash == NULL || pct > slash))
    {
      *pct = '\0';
      if (pct > stem && (pct[-1] == '-' || pct[-1] == '_'))
        pct[-1] = '\0';
    }
  return stem;
}

static char *
output_for_format (const char *stem, CmlExportFormat format)
{
  if (format == FORMAT_PNG)
    return g_strconcat (stem, PNG_NUMBER, ".png", NULL);
  return g_strconcat (stem, format_ext[format], NULL);
}

static double
frame_count (CmlExportDialog *self)
{
  double t = gtk_spin_button_get_value (self->duration_spin);
  double fps = gtk_spin_button_get_value (self->fps_spin);
  double speed = gtk_spin_button_get_value (self->speed_spin);

  /* as cmlab-cli render counts: frames at k·S/F < T */
  return MAX (1.0, ceil (t * fps / speed - 1e-9));
}

/* Which part of the run the video shows: always from its start, since the export
 * simulates the run again from its initial values, whatever time the window shows. */
static void
update_span (CmlExportDialog *self)
{
  char end[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *text = NULL;

  g_snprintf (end, sizeof end, "%g", gtk_spin_button_get_value (self->duration_spin));
  if (self->time_unit)
    /* TRANSLATORS: the span of simulated time an exported video shows, e.g. "to t = 18 s" */
    text = g_strdup_printf (_("The video shows the run from its start, t = 0, to t = %s %s: it is simulated "
                              "again from the initial values, whatever time the window shows now."),
                            end, self->time_unit);
  else
    text = g_strdup_printf (_("The video shows the run from its start, t = 0, to t = %s: it is simulated "
                              "again from the initial values, whatever time the window shows now."),
                            end);
  gtk_label_set_text (self->span_label, text);
}

static void
update_summary (CmlExportDialog *self)
{
  double n = frame_count (self);
  double fps = gtk_spin_button_get_value (self->fps_spin);
  g_autofree char *text = NULL;
  char len[64];
  double secs = n / fps;

  if (secs < 60)
    g_snprintf (len, sizeof len, "%.3g s", secs);
  else
    g_snprintf (len, sizeof len, _("%d min %02d s"), (int) (secs / 60), (int) fmod (secs, 60));
  text = g_strdup_printf (_("%.0f frames · %s of video"), n, len);
  gtk_label_set_text (self->summary_label, text);
  update_span (self);
}

static void
update_file_labels (CmlExportDialog *self)
{
  g_autofree char *base = g_path_get_basename (self->output);
  g_autofree char *dir = g_path_get_dirname (self->output);
  g_autofree char *shown_dir = NULL;
  const char *home = g_get_home_dir ();

  /* a home folder reads as "~" */
  if (home && g_str_has_prefix (dir, home) && (dir[strlen (home)] == '/' || dir[strlen (home)] == '\0'))
    shown_dir = g_strconcat ("~", dir + strlen (home), NULL);
  else
    shown_dir = g_strdup (dir);
  if (self->format == FORMAT_PNG)
    {
      g_autofree char *stem = output_stem (base);
      g_autofree char *first = g_strdup_printf ("%s-00000.png, %s-00001.png, …", stem, stem);
      g_autofree char *where = g_strdup_printf (_("numbered frames in %s"), shown_dir);

      gtk_label_set_text (self->file_label, first);
      gtk_label_set_text (self->folder_label, where);
    }
  else
    {
      /* TRANSLATORS: the folder the video goes into, e.g. "in ~/Videos" */
      g_autofree char *where = g_strdup_printf (_("in %s"), shown_dir);

      gtk_label_set_text (self->file_label, base);
      gtk_label_set_text (self->folder_label, where);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->folder_label), dir);
}

static void
set_output (CmlExportDialog *self, const char *path)
{
  CmlExportFormat format;
  char *out;

  if (format_from_path (path, &format))
    {
      if (format == FORMAT_PNG && strchr (path, '%') == NULL)
        {
          g_autofree char *stem = output_stem (path);
          out = output_for_format (stem, FORMAT_PNG);
        }
      else
        out = g_strdup (path);
    }
  else
    {
      format = self->format;
      out = output_for_format (path, format);
    }
  g_free (self->output);
  self->output = out;
  self->format = format;
  self->setting_format = TRUE;
  gtk_drop_down_set_selected (self->format_dropdown, format);
  self->setting_format = FALSE;
  update_file_labels (self);
}

void
cml_export_dialog_set_output (CmlExportDialog *self, const char *path)
{
  g_return_if_fail (CML_IS_EXPORT_DIALOG (self));
  g_return_if_fail (path != NULL);

  self->folder_chosen = TRUE;
  set_output (self, path);
}

const char *
cml_export_dialog_get_output (CmlExportDialog *self)
{
  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), NULL);

  return self->output;
}

static void
on_format_selected (CmlExportDialog *self)
{
  guint f = gtk_drop_down_get_selected (self->format_dropdown);
  g_autofree char *stem = NULL;

  if (self->setting_format || f >= N_FORMATS || f == self->format || self->output == NULL)
    return;
  stem = output_stem (self->output);
  self->format = f;
  g_free (self->output);
  self->output = output_for_format (stem, f);
  update_file_labels (self);
}

static char *
default_output (CmlExportDialog *self)
{
  g_autofree char *dir = cml_export_folder_get (CML_EXPORT_FOLDER_VIDEOS);
  const char *name = "cmlab";

  g_autoptr (CmlSession) session = self->window ? cml_window_get_session (self->window, NULL) : NULL;

  if (session)
    name = session->model->name;
  return g_strdup_printf ("%s/%s%s", dir, name, format_ext[FORMAT_MP4]);
}

static void
on_chooser_response (GtkNativeDialog *chooser, int response, CmlExportDialog *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path)
        cml_export_dialog_set_output (self, path);
    }
  gtk_native_dialog_destroy (chooser);
  g_clear_object (&self->chooser);
}

static void
on_file_clicked (CmlExportDialog *self)
{
  GtkFileChooser *fc;
  g_autofree char *dir = g_path_get_dirname (self->output);
  g_autofree char *base = g_path_get_basename (self->output);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);

  if (self->chooser)
    {
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
      return;
    }
  self->chooser = gtk_file_chooser_native_new (_("Export Animation As"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE, _("_Select"), _("_Cancel"));
  fc = GTK_FILE_CHOOSER (self->chooser);
  if (g_file_test (dir, G_FILE_TEST_IS_DIR))
    gtk_file_chooser_set_current_folder (fc, folder, NULL);
  if (self->format == FORMAT_PNG)
    {
      /* the frames' common stem; the numbers are added */
      g_autofree char *stem = output_stem (base);
      g_autofree char *name = g_strconcat (stem, ".png", NULL);
      gtk_file_chooser_set_current_name (fc, name);
    }
  else
    gtk_file_chooser_set_current_name (fc, base);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* ---- banner and progress -------------------------------------------------------------- */

static void
show_banner (CmlExportDialog *self, GtkMessageType type, const char *text, const char *detail)
{
  gtk_info_bar_set_message_type (self->banner, type);
  gtk_label_set_text (self->banner_label, text);
  gtk_label_set_text (self->banner_detail, detail ? detail : "");
  gtk_widget_set_visible (GTK_WIDGET (self->banner_detail), detail && *detail);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), type == GTK_MESSAGE_INFO && self->done_path);
  gtk_info_bar_set_revealed (self->banner, TRUE);
}

static void
hide_banner (CmlExportDialog *self)
{
  gtk_info_bar_set_revealed (self->banner, FALSE);
  gtk_label_set_text (self->banner_label, "");
  gtk_label_set_text (self->banner_detail, "");
}

static void
on_banner_response (CmlExportDialog *self, int response)
{
  if (response == GTK_RESPONSE_CLOSE)
    hide_banner (self);
}

static void
on_open_clicked (CmlExportDialog *self)
{
  g_autoptr (GFile) file = NULL;
  g_autofree char *uri = NULL;

  if (self->done_path == NULL)
    return;
  file = g_file_new_for_path (self->done_path);
  uri = g_file_get_uri (file);
  /* gtk_show_uri: GtkFileLauncher is newer than GTK 4.8 */
  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

static void
set_state (CmlExportDialog *self, CmlExportState state)
{
  gboolean busy = state == CML_EXPORT_RUNNING || state == CML_EXPORT_CANCELLING;

  self->state = state;
  gtk_widget_set_sensitive (GTK_WIDGET (self->form), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), !busy);
  gtk_widget_set_sensitive (GTK_WIDGET (self->cancel_button), state == CML_EXPORT_RUNNING);
  gtk_revealer_set_reveal_child (self->progress_revealer, busy);
}

/* "about 4 s left", "about 3 min left" */
static char *
time_left (double seconds)
{
  if (seconds < 1)
    return g_strdup (_("almost done"));
  if (seconds < 60)
    return g_strdup_printf (_("about %.0f s left"), ceil (seconds));
  return g_strdup_printf (_("about %.0f min left"), ceil (seconds / 60));
}

void
cml_export_dialog_show_progress (CmlExportDialog *self, CmlExportJob *job)
{
  g_autofree char *text = NULL;
  double fraction;

  if (job->cancel_requested)
    {
      gtk_progress_bar_pulse (self->progress_bar);
      gtk_label_set_text (self->progress_label, _("Cancelling…"));
      return;
    }
  if (job->finishing)
    {
      fraction = 1.0;
      text = g_strdup (_("Finishing the file…"));
    }
  else if (job->total > 0)
    {
      /* measured over the frames since the first reported, once there are enough */
      guint measured = job->has_base ? job->done - job->base_done : 0;
      double spent = job->has_base ? job->seconds - job->base_seconds : 0;
      gboolean known = measured >= ESTIMATE_MIN_FRAMES && spent >= ESTIMATE_MIN_SECONDS;
      g_autofree char *left = known ? time_left (spent / measured * (job->total - job->done))
                                    : g_strdup (_("estimating the time left…"));

      fraction = PREPARE_SHARE + (1 - PREPARE_SHARE) * job->done / job->total;
      text = job->done > 0 ? g_strdup_printf (_("Frame %u of %u · %s"), job->done, job->total, left)
                           : g_strdup_printf (_("Frame 0 of %u"), job->total);
    }
  else
    {
      fraction = job->prep_total > 0 ? PREPARE_SHARE * job->prep_done / job->prep_total : 0;
      text = g_strdup (_("Simulating the run and placing the camera…"));
    }
  gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  gtk_label_set_text (self->progress_label, text);
}

/* ---- the job's end -------------------------------------------------------------------- */


/* Both the pipe's end and the child's exit have been seen. */
void
cml_export_dialog_finish_job (CmlExportJob *job)
{
  CmlExportDialog *self = job->dialog;
  int status = g_subprocess_get_status (job->proc);
  gboolean by_itself = WIFEXITED (status);

  g_clear_handle_id (&job->kill_id, g_source_remove);
  if (!by_itself)
    cml_export_job_remove_leftovers (job->output, job->started);
  if (self == NULL)
    return;
  /* the dialog's reference goes (the caller holds one of its own) */
  self->job = NULL;
  cml_export_job_unref (job);

  if (by_itself && WEXITSTATUS (status) == 0 && !job->cancel_requested)
    {
      g_autofree char *base = g_path_get_basename (job->output);
      g_autofree char *text = NULL;
      g_autofree char *detail = NULL;
      char *dir = g_path_get_dirname (job->output);

      g_free (self->done_path);
      if (self->format == FORMAT_PNG || strchr (job->output, '%'))
        {
          self->done_path = dir;
          text = g_strdup_printf (ngettext ("Saved %u frame", "Saved %u frames", job->total), job->total);
        }
      else
        {
          self->done_path = g_strdup (job->output);
          text = g_strdup_printf (_("Saved “%s”"), base);
          g_free (dir);
        }
      detail = g_strdup_printf (ngettext ("%u frame in %.1f s", "%u frames in %.1f s", job->total), job->total,
                                (g_get_real_time () - job->started) / 1e6);
      set_state (self, CML_EXPORT_DONE);
      show_banner (self, GTK_MESSAGE_INFO, text, detail);
    }
  else if (job->cancel_requested)
    {
      set_state (self, CML_EXPORT_CANCELLED);
      show_banner (self, GTK_MESSAGE_OTHER, _("Export cancelled"), _("Nothing was written."));
    }
  else
    {
      g_autofree char *detail = cml_export_job_failure_message (job, status);

      set_state (self, CML_EXPORT_FAILED);
      show_banner (self, GTK_MESSAGE_ERROR, _("The animation could not be exported"), detail);
    }
}

static void
fail_to_start (CmlExportDialog *self, const char *detail)
{
  set_state (self, CML_EXPORT_FAILED);
  show_banner (self, GTK_MESSAGE_ERROR, _("The animation could not be exported"), detail);
}

gboolean
cml_export_dialog_start (CmlExportDialog *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSession) session = NULL;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GPtrArray) argv = NULL;
  g_autofree char *cli = NULL;
  g_autofree char *session_path = NULL;
  GInputStream *stdout_pipe;
  CmlExportJob *job;

  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), FALSE);

  if (self->job)
    return FALSE;
  hide_banner (self);
  g_clear_pointer (&self->done_path, g_free);

  cli = cml_export_find_cli (&error);
  if (cli == NULL)
    {
      fail_to_start (self, error->message);
      return FALSE;
    }
  /* cmlab-cli would say so too, in terms of its options; here it is said in the dialog's */
  if (self->format != FORMAT_PNG)
    {
      g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");

      if (ffmpeg == NULL)
        {
          fail_to_start (self, _("ffmpeg, which encodes the video, is not installed: install it "
                               "(Debian: apt-get install ffmpeg), or choose PNG frames as the format."));
          return FALSE;
        }
    }
  if (self->window == NULL || (session = cml_window_get_session (self->window, &error)) == NULL)
    {
      fail_to_start (self, error ? error->message : _("The window has closed."));
      return FALSE;
    }
  session_path = cml_export_session_file (session, &error);
  if (session_path == NULL)
    {
      fail_to_start (self, error->message);
      return FALSE;
    }
  argv = cml_export_dialog_build_argv (self, cli, session_path);
  {
    g_autofree char *joined = g_strjoinv (" ", (char **) argv->pdata);
    g_debug ("running %s", joined);
  }

  /* one pipe for both: the progress lines and the messages come in the order said */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE
                                        | G_SUBPROCESS_FLAGS_STDIN_INHERIT);
  /* a built-in is looked up where this program found it */
  g_subprocess_launcher_setenv (launcher, "CMLAB_MODELS_DIR", cml_model_builtin_dir (), TRUE);
  g_subprocess_launcher_set_child_setup (launcher, cml_export_job_child_setup, NULL, NULL);

  job = g_new0 (CmlExportJob, 1);
  job->ref_count = 1;
  job->dialog = self;
  job->messages = g_string_new (NULL);
  job->output = g_strdup (self->output);
  job->session = g_steal_pointer (&session_path);
  job->started = g_get_real_time ();
  job->proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  if (job->proc == NULL)
    {
      g_autofree char *detail = g_strdup_printf (_("Cannot run %s: %s"), cli, error->message);

      cml_export_job_unref (job);
      fail_to_start (self, detail);
      return FALSE;
    }
  stdout_pipe = g_subprocess_get_stdout_pipe (job->proc);
  job->out = g_data_input_stream_new (stdout_pipe);
  g_data_input_stream_set_newline_type (job->out, G_DATA_STREAM_NEWLINE_TYPE_LF);

  self->job = job;  /* the dialog's reference */
  /* the next export, of an animation or a plot, opens in this folder */
  cml_export_folder_remember (self->output);
  self->folder_chosen = FALSE;  /* from now on the folder follows the last export */
  set_state (self, CML_EXPORT_RUNNING);
  cml_export_dialog_show_progress (self, job);
  cml_export_job_read_next_line (job);
  g_subprocess_wait_async (job->proc, NULL, cml_export_job_on_exited, cml_export_job_ref (job));
  return TRUE;
}

void
cml_export_dialog_cancel (CmlExportDialog *self)
{
  g_return_if_fail (CML_IS_EXPORT_DIALOG (self));

  if (self->job == NULL)
    return;
  cml_export_job_cancel (self->job);
  set_state (self, CML_EXPORT_CANCELLING);
  cml_export_dialog_show_progress (self, self->job);
}

CmlExportState
cml_export_dialog_get_state (CmlExportDialog *self)
{
  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), CML_EXPORT_IDLE);

  return self->state;
}

double
cml_export_dialog_get_fraction (CmlExportDialog *self)
{
  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), 0);

  return gtk_progress_bar_get_fraction (self->progress_bar);
}

char *
cml_export_dialog_dup_message (CmlExportDialog *self)
{
  const char *text, *detail;

  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), NULL);

  if (!gtk_info_bar_get_revealed (self->banner))
    return g_strdup ("");
  text = gtk_label_get_text (self->banner_label);
  detail = gtk_label_get_text (self->banner_detail);
  return *detail ? g_strdup_printf ("%s\n%s", text, detail) : g_strdup (text);
}

/* The file the export would replace: the video, or the first PNG frame; NULL if none. */
static char *
existing_output (CmlExportDialog *self)
{
  g_autofree char *first = NULL;
  const char *path = self->output;

  if (path == NULL)
    return NULL;
  if (strchr (path, '%'))
    {
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      first = g_strdup_printf (path, 0);
      G_GNUC_END_IGNORE_DEPRECATIONS
      path = first;
    }
  return g_file_test (path, G_FILE_TEST_EXISTS) ? g_strdup (path) : NULL;
}

static void
on_replace_response (AdwMessageDialog *dialog, const char *response, CmlExportDialog *self)
{
  /* the dialog closes itself */
  self->confirm = NULL;
  if (g_str_equal (response, "replace"))
    cml_export_dialog_start (self);
}

gboolean
cml_export_dialog_export (CmlExportDialog *self)
{
  g_autofree char *existing = NULL;
  g_autofree char *base = NULL;
  GtkWidget *dialog;

  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), FALSE);

  existing = existing_output (self);
  if (existing == NULL)
    return cml_export_dialog_start (self);
  if (self->confirm)
    {
      gtk_window_present (GTK_WINDOW (self->confirm));
      return FALSE;
    }
  /* a file that is there is the user's: replace it only when asked to */
  base = g_path_get_basename (existing);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), NULL,
                                   strchr (self->output, '%')
                                     ? _("The folder already holds frames of this name; the export writes over them.")
                                     : _("A file of this name already exists; the export replaces it when it is complete."));
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Replace “%s”?"), base);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                    "replace", _("_Replace"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace", ADW_RESPONSE_DESTRUCTIVE);
  /* Enter and Escape keep the file */
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_replace_response), self);
  self->confirm = dialog;
  gtk_window_present (GTK_WINDOW (dialog));
  return FALSE;
}

GtkWidget *
cml_export_dialog_get_confirmation (CmlExportDialog *self)
{
  g_return_val_if_fail (CML_IS_EXPORT_DIALOG (self), NULL);

  return self->confirm;
}

static void
on_export_clicked (CmlExportDialog *self)
{
  cml_export_dialog_export (self);
}

static void
on_cancel_clicked (CmlExportDialog *self)
{
  cml_export_dialog_cancel (self);
}

/* ---- the plot list ------------------------------------------------------------------- */

/* The quantity at POS of the plot list: the list shows it as people write it ("ρ [m]"),
 * each entry keeps its name. */
const char *
cml_export_dialog_plot_name (CmlExportDialog *self, guint pos)
{
  g_autoptr (GObject) item = g_list_model_get_item (G_LIST_MODEL (self->plot_names), pos);
  return item ? g_object_get_data (item, "cml-name") : NULL;
}

/* ---- the window's run ----------------------------------------------------------------- */

void
cml_export_dialog_refresh (CmlExportDialog *self)
{
  g_autoptr (CmlSession) session = NULL;
  CmlSystem *sys;
  CmlModel *model;
  g_autofree char *plotted = NULL;
  guint sel;
  gboolean has_table = FALSE;

  g_return_if_fail (CML_IS_EXPORT_DIALOG (self));

  if (self->window == NULL || self->job)
    return;
  /* the window's run and view, as a session has them (none while no model runs) */
  session = cml_window_get_session (self->window, NULL);
  sys = session ? session->system : NULL;
  if (self->output == NULL)
    {
      g_autofree char *path = default_output (self);
      set_output (self, path);
    }
  else if (!self->folder_chosen)
    {
      /* not chosen here: the folder the last export (maybe a plot's) went to */
      g_autofree char *folder = cml_export_folder_get (CML_EXPORT_FOLDER_VIDEOS);
      g_autofree char *dir = g_path_get_dirname (self->output);

      if (g_strcmp0 (folder, dir) != 0)
        {
          g_autofree char *base = g_path_get_basename (self->output);
          g_autofree char *path = g_build_filename (folder, base, NULL);
          set_output (self, path);
        }
    }
  if (!self->refreshed)
    {
      /* the first time: as the window shows it (the user's choices are kept afterwards) */
      const char *speed = session ? g_hash_table_lookup (session->view, "speed") : NULL;
      const char *table = session ? g_hash_table_lookup (session->view, "table-frame") : NULL;

      if (speed)
        gtk_spin_button_set_value (self->speed_spin, g_ascii_strtod (speed, NULL));
      gtk_drop_down_set_selected (self->frame_dropdown, g_strcmp0 (table, "true") == 0 ? 1 : 0);
      self->refreshed = session != NULL;
    }

  /* the plot's quantities are the model's: keep the one chosen if the model has it */
  sel = gtk_drop_down_get_selected (self->plot_dropdown);
  if (sel > 0 && sel < g_list_model_get_n_items (G_LIST_MODEL (self->plot_names)))
    plotted = g_strdup (cml_export_dialog_plot_name (self, sel));
  gtk_string_list_splice (self->plot_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->plot_names)), NULL);
  gtk_string_list_append (self->plot_names, _("None"));
  sel = 0;
  if (sys)
    for (guint j = 0; j < cml_system_n_observables (sys); j++)
      {
        const char *name = cml_system_observable_name (sys, j);
        CmlModel *md = cml_system_get_model (sys);
        g_autofree char *shown = cml_model_display_name (md, name);
        g_autofree char *unit = cml_plot_format_unit (cml_model_unit (md, name));
        g_autofree char *text = unit[0] ? g_strdup_printf ("%s [%s]", shown, unit) : g_strdup (shown);
        guint at = g_list_model_get_n_items (G_LIST_MODEL (self->plot_names));

        gtk_string_list_append (self->plot_names, text);
        g_autoptr (GObject) item = g_list_model_get_item (G_LIST_MODEL (self->plot_names), at);
        g_object_set_data_full (item, "cml-name", g_strdup (name), g_free);
        if (g_strcmp0 (name, plotted) == 0)
          sel = j + 1;
      }
  gtk_drop_down_set_selected (self->plot_dropdown, sel);

  /* a turning frame exists where a trail has a frame angle (the turntable's) */
  model = sys ? cml_system_get_model (sys) : NULL;
  for (guint k = 0; model && model->scene && k < model->scene->len; k++)
    {
      CmlSceneObject *so = model->scene->pdata[k];

      if (g_str_equal (so->type, "trail") && g_hash_table_contains (so->props, "frame-angle"))
        has_table = TRUE;
    }
  if (!has_table)
    gtk_drop_down_set_selected (self->frame_dropdown, 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->frame_dropdown), has_table);
  g_clear_pointer (&self->time_unit, g_free);
  if (model && model->time_unit && !g_str_equal (model->time_unit, "1"))
    {
      self->time_unit = g_strdup (model->time_unit);
      /* TRANSLATORS: the model's time unit, e.g. "s simulated" beside the duration field */
      g_autofree char *unit = g_strdup_printf (_("%s simulated"), model->time_unit);
      gtk_label_set_text (self->duration_unit_label, unit);
    }
  else
    gtk_label_set_text (self->duration_unit_label, _("time units"));
  update_summary (self);
}

/* ---- GObject -------------------------------------------------------------------------- */

static gboolean
cml_export_dialog_close_request (GtkWindow *window)
{
  CmlExportDialog *self = CML_EXPORT_DIALOG (window);

  /* nothing goes on unseen: closing while it runs stops the export */
  if (self->job)
    cml_export_dialog_cancel (self);
  return GTK_WINDOW_CLASS (cml_export_dialog_parent_class)->close_request (window);
}

static void
cml_export_dialog_dispose (GObject *object)
{
  CmlExportDialog *self = CML_EXPORT_DIALOG (object);

  if (self->job)
    {
      /* the job goes on alone: it reads the pipe to its end, reaps the child and
       * removes the temporary model */
      cml_export_job_cancel (self->job);
      self->job->dialog = NULL;
      cml_export_job_unref (g_steal_pointer (&self->job));
    }
  if (self->chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  if (self->window)
    g_object_remove_weak_pointer (G_OBJECT (self->window), (gpointer *) &self->window);
  self->window = NULL;
  /* no gtk_widget_dispose_template (): GtkWindow unparents its titlebar and child itself */

  G_OBJECT_CLASS (cml_export_dialog_parent_class)->dispose (object);
}

static void
cml_export_dialog_finalize (GObject *object)
{
  CmlExportDialog *self = CML_EXPORT_DIALOG (object);

  g_clear_object (&self->plot_names);
  g_free (self->output);
  g_free (self->time_unit);
  g_free (self->done_path);

  G_OBJECT_CLASS (cml_export_dialog_parent_class)->finalize (object);
}

static void
cml_export_dialog_class_init (CmlExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = cml_export_dialog_dispose;
  object_class->finalize = cml_export_dialog_finalize;
  window_class->close_request = cml_export_dialog_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, close_button);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, export_button);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, banner);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, banner_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, banner_detail);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, open_button);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, form);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, file_button);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, file_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, folder_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, width_spin);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, height_spin);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, fps_spin);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, duration_spin);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, duration_unit_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, speed_spin);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, frame_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, plot_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, clock_check);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, span_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, summary_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, progress_label);
  gtk_widget_class_bind_template_child (widget_class, CmlExportDialog, cancel_button);
  gtk_widget_class_bind_template_callback (widget_class, on_export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_file_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_open_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_banner_response);
}

static void
cml_export_dialog_init (CmlExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->plot_names = gtk_string_list_new (NULL);
  gtk_string_list_append (self->plot_names, _("None"));
  gtk_drop_down_set_model (self->plot_dropdown, G_LIST_MODEL (self->plot_names));
  self->format = FORMAT_MP4;
  self->state = CML_EXPORT_IDLE;
  set_state (self, CML_EXPORT_IDLE);

  g_signal_connect_swapped (self->format_dropdown, "notify::selected", G_CALLBACK (on_format_selected), self);
  g_signal_connect_swapped (self->fps_spin, "value-changed", G_CALLBACK (update_summary), self);
  g_signal_connect_swapped (self->duration_spin, "value-changed", G_CALLBACK (update_summary), self);
  g_signal_connect_swapped (self->speed_spin, "value-changed", G_CALLBACK (update_summary), self);
  update_summary (self);
}

CmlExportDialog *
cml_export_dialog_new (CmlWindow *window)
{
  CmlExportDialog *self;

  g_return_val_if_fail (CML_IS_WINDOW (window), NULL);

  self = g_object_new (CML_TYPE_EXPORT_DIALOG, "transient-for", window, NULL);
  self->window = window;
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->window);
  cml_export_dialog_refresh (self);
  return self;
}
