/* cml-export-job.c — one run of `cmlab-cli render` for the export dialog: the child
 * process, its output read line by line (progress lines move the bar, the rest is kept
 * for the message shown if the export fails), its cancelling, and the files a child
 * that did not end by itself leaves behind.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A job outlives the dialog if the dialog goes first: it must still read the pipe to its
 * end, reap the child and remove the temporary session.
 */
#define G_LOG_DOMAIN "cml-export-job"

#include "cml-export-dialog-private.h"

#include <glib/gi18n.h>

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define KILL_AFTER_S     10      /* after SIGTERM, SIGKILL if the child has not exited */
#define MAX_MESSAGES     16384   /* bytes of the child's messages kept (the end) */

CmlExportJob *
cml_export_job_ref (CmlExportJob *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}


void
cml_export_job_unref (CmlExportJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  g_clear_handle_id (&job->kill_id, g_source_remove);
  g_clear_object (&job->proc);
  g_clear_object (&job->out);
  if (job->messages)
    g_string_free (job->messages, TRUE);
  if (job->session)
    g_unlink (job->session);
  g_free (job->session);
  g_free (job->output);
  g_free (job);
}


/* After a child that did not end by itself (killed, crashed): the temporary files it
 * had made — PATH.XXXXXX for a video; for PNG frames the frames and their temporary
 * files — made since the export began.  A child that exits, even on SIGTERM, removes
 * them itself. */
void
cml_export_job_remove_leftovers (const char *output, gint64 since_us)
{
  g_autofree char *dir = g_path_get_dirname (output);
  g_autofree char *base = g_path_get_basename (output);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *pct = strchr (base, '%');
  g_autofree char *prefix = pct ? g_strndup (base, pct - base) : g_strdup (base);
  const char *suffix = pct ? strchr (pct, 'd') : NULL;
  const char *name;

  suffix = suffix ? suffix + 1 : "";
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      const char *rest;
      gboolean ours = FALSE;
      GStatBuf st;

      if (!g_str_has_prefix (name, prefix))
        ours = g_str_has_prefix (name, ".cmlab-render-") && strlen (name) == strlen (".cmlab-render-XXXXXX");
      else if (pct == NULL)
        ours = name[strlen (prefix)] == '.' && strlen (name) == strlen (prefix) + 7;
      else
        {
          rest = name + strlen (prefix);
          if (!g_ascii_isdigit (*rest))
            continue;
          while (g_ascii_isdigit (*rest))
            rest++;
          ours = g_str_has_prefix (rest, suffix)
                 && (rest[strlen (suffix)] == '\0' || strlen (rest + strlen (suffix)) == 7);
        }
      if (ours && g_stat (p, &st) == 0 && (gint64) st.st_mtime >= since_us / G_USEC_PER_SEC - 1)
        g_unlink (p);
    }
}


/* What the child said, as a message for a person: its first "cmlab-cli: " line, and
 * what follows it (ffmpeg's words) up to the usage text. */
char *
cml_export_job_failure_message (CmlExportJob *job, int status)
{
  g_auto (GStrv) lines = g_strsplit (job->messages->str, "\n", -1);
  GString *more = g_string_new (NULL);
  const char *first = NULL;

  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i];

      if (first == NULL)
        {
          if (g_str_has_prefix (l, "cmlab-cli: "))
            first = l + strlen ("cmlab-cli: ");
          continue;
        }
      if (g_str_has_prefix (l, "Usage:"))
        break;
      if (*l)
        g_string_append_printf (more, "%s%s", more->len ? "\n" : "", l);
    }
  if (first == NULL)
    {
      /* a crash, or a message of another form: the last line said */
      for (guint i = 0; lines[i]; i++)
        if (*g_strstrip (lines[i]))
          first = lines[i];
    }
  if (first && *first)
    {
      /* a sentence starts with a capital letter, unless it starts with a program's name */
      g_string_prepend (more, more->len ? "\n" : "");
      g_string_prepend (more, first);
      if (!g_str_has_prefix (first, "ffmpeg") && !g_str_has_prefix (first, "cmlab"))
        more->str[0] = g_ascii_toupper (more->str[0]);
    }
  else if (WIFSIGNALED (status))
    g_string_printf (more, _("cmlab-cli stopped unexpectedly (%s)"), g_strsignal (WTERMSIG (status)));
  else
    g_string_printf (more, _("cmlab-cli stopped with exit status %d"), WEXITSTATUS (status));
  return g_string_free (more, FALSE);
}


static gboolean
parse_progress (CmlExportJob *job, const char *line)
{
  g_auto (GStrv) f = NULL;
  guint n;

  if (g_str_equal (line, "finishing"))
    {
      job->finishing = TRUE;
      return TRUE;
    }
  if (!g_str_has_prefix (line, "prepare ") && !g_str_has_prefix (line, "progress "))
    return FALSE;
  f = g_strsplit (line, " ", -1);
  n = g_strv_length (f);
  if (n != 4)
    return FALSE;
  if (f[0][1] == 'r' && f[0][2] == 'e')  /* prepare */
    {
      job->prep_done = (guint) g_ascii_strtoull (f[1], NULL, 10);
      job->prep_total = (guint) g_ascii_strtoull (f[2], NULL, 10);
    }
  else
    {
      job->done = (guint) g_ascii_strtoull (f[1], NULL, 10);
      job->total = (guint) g_ascii_strtoull (f[2], NULL, 10);
      job->seconds = g_ascii_strtod (f[3], NULL);
      if (!job->has_base && job->done > 0)
        {
          job->has_base = TRUE;
          job->base_done = job->done;
          job->base_seconds = job->seconds;
        }
    }
  return TRUE;
}


static void on_line (GObject *source, GAsyncResult *result, gpointer data);

void
cml_export_job_read_next_line (CmlExportJob *job)
{
  g_data_input_stream_read_line_async (job->out, G_PRIORITY_DEFAULT, NULL, on_line, cml_export_job_ref (job));
}


static void
on_line (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlExportJob *job = data;
  g_autoptr (GError) error = NULL;
  gsize len = 0;
  g_autofree char *line = g_data_input_stream_read_line_finish (job->out, result, &len, &error);

  if (line == NULL)
    {
      /* the end of the pipe (or an error reading it: the exit status still tells) */
      if (error)
        g_debug ("reading cmlab-cli's output: %s", error->message);
      job->eof = TRUE;
      if (job->exited)
        cml_export_dialog_finish_job (job);
      cml_export_job_unref (job);
      return;
    }
  if (parse_progress (job, line))
    {
      if (job->dialog)
        cml_export_dialog_show_progress (job->dialog, job);
    }
  else
    {
      g_string_append (job->messages, line);
      g_string_append_c (job->messages, '\n');
      if (job->messages->len > MAX_MESSAGES)
        g_string_erase (job->messages, 0, job->messages->len - MAX_MESSAGES / 2);
    }
  cml_export_job_read_next_line (job);
  cml_export_job_unref (job);
}


void
cml_export_job_on_exited (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlExportJob *job = data;
  g_autoptr (GError) error = NULL;

  /* fails only when cancelled, which it never is: the status is there either way */
  if (!g_subprocess_wait_finish (job->proc, result, &error))
    g_debug ("waiting for cmlab-cli: %s", error->message);
  job->exited = TRUE;
  if (job->eof)
    cml_export_dialog_finish_job (job);
  cml_export_job_unref (job);
}


static gboolean
on_kill_timeout (gpointer data)
{
  CmlExportJob *job = data;

  job->kill_id = 0;
  if (!job->exited)
    {
      g_warning ("cmlab-cli did not stop within %d s of SIGTERM: killing it", KILL_AFTER_S);
      g_subprocess_force_exit (job->proc);
    }
  return G_SOURCE_REMOVE;
}


void
cml_export_job_cancel (CmlExportJob *job)
{
  if (job->exited || job->cancel_requested)
    return;
  job->cancel_requested = TRUE;
  /* the command removes its temporary file and exits 130; a hung one is killed */
  g_subprocess_send_signal (job->proc, SIGTERM);
  job->kill_id = g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, KILL_AFTER_S, on_kill_timeout,
                                             cml_export_job_ref (job), (GDestroyNotify) cml_export_job_unref);
}


/* In the child, before exec: it gets SIGTERM (and cleans up) if the application dies. */
void
cml_export_job_child_setup (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}
