/* test-export-dialog.c — "Export Animation…": the dialog, the command it runs, progress,
 * cancelling, errors, and a window that stays in use throughout.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under a display (tools/run-tests gives it Xvfb); without one every test skips.
 * The dialog runs the built cmlab-cli ($CMLAB_CLI, set by tests/meson.build); the exports
 * that make a real video skip where headless OpenGL, ffmpeg or ffprobe is missing.  A
 * stand-in cmlab-cli (a shell script) records the arguments it is given and keeps the
 * session file it is handed (--session), to check that the run is passed exactly, and
 * prints progress lines the test chooses.  Waiting is
 * done by spinning the main loop: the export never blocks it, and the tests measure that.
 */
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "cml-export-folder.h"
#include "cml-parameter-panel-private.h"
#include "cml-plot-view-private.h"
#include "cml-window-private.h"
#include "ui-util.h"
#include "../cli/cli-util.h"

/* ---- helpers ----------------------------------------------------------------------------- */

/* Opens the dialog through the window's action, as the menu and Ctrl+Shift+E do, and
 * lets both windows draw their first frames (making the GL views' shaders takes a good
 * part of a second: not the export's doing, and not to be measured with it). */
static CmlExportDialog *
open_dialog (CmlWindow *win)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.export-animation", NULL));
  g_assert_nonnull (win->export_dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->export_dialog)));
  wait_frames (GTK_WIDGET (win), 3);
  wait_frames (GTK_WIDGET (win->export_dialog), 3);
  return win->export_dialog;
}

static GObject *
child (CmlExportDialog *dlg, const char *name)
{
  GObject *c = gtk_widget_get_template_child (GTK_WIDGET (dlg), CML_TYPE_EXPORT_DIALOG, name);

  if (c == NULL)
    g_error ("export dialog: template child %s is missing", name);
  return c;
}

static void
set_spin (CmlExportDialog *dlg, const char *name, double value)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (child (dlg, name));

  gtk_spin_button_set_value (spin, value);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, value);
}

/* 160 × 90 at 10 fps, for DURATION simulated seconds */
static void
small_settings (CmlExportDialog *dlg, double duration)
{
  set_spin (dlg, "width_spin", 160);
  set_spin (dlg, "height_spin", 90);
  set_spin (dlg, "fps_spin", 10);
  set_spin (dlg, "duration_spin", duration);
  set_spin (dlg, "speed_spin", 1);
}

static gboolean
export_ended (gpointer data)
{
  CmlExportState s = cml_export_dialog_get_state (data);

  return s == CML_EXPORT_DONE || s == CML_EXPORT_FAILED || s == CML_EXPORT_CANCELLED;
}




/* ---- can this machine make a video at all ------------------------------------------------ */

static int can_render = -1;

static gboolean
skip_without_render (void)
{
  if (can_render < 0)
    {
      g_autofree char *dir = cli_make_temp_dir ();
      g_autofree char *out = g_build_filename (dir, "f%d.png", NULL);
      g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");
      g_autofree char *ffprobe = g_find_program_in_path ("ffprobe");
      const char *argv[] = { g_getenv ("CMLAB_CLI"), "render", "rolling-ball", "--t-end", "0.1",
                             "--fps", "10", "--size", "32x32", "-o", out, NULL };
      int status = -1;

      can_render = argv[0] && ffmpeg && ffprobe
                   && g_spawn_sync (NULL, (char **) argv, NULL,
                                    G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                    NULL, NULL, NULL, &status, NULL)
                   && WIFEXITED (status) && WEXITSTATUS (status) == 0;
      cli_remove_dir (dir);
    }
  if (!can_render)
    g_test_skip ("no headless OpenGL, ffmpeg or ffprobe here (or CMLAB_CLI unset)");
  return !can_render;
}

static int
probe_frames (const char *path)
{
  const char *argv[] = { "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                         "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  return (int) g_ascii_strtoll (out, NULL, 10);
}

/* ---- the dialog -------------------------------------------------------------------------- */

/* Whether the main loop ran while an export was running: an idle callback added as it
 * starts (at high priority: a window drawing every frame keeps plain idles waiting) notes the dialog's state when the loop gets to it (a loop blocked by the export
 * would get there only once it ended).  A state, not a time: a busy machine may give the
 * loop long gaps, but never none. */
typedef struct
{
  CmlExportDialog *dlg;
  gboolean         ran;
  CmlExportState   state;
} LoopProbe;

static gboolean
loop_probe_run (gpointer data)
{
  LoopProbe *p = data;
  p->ran = TRUE;
  p->state = cml_export_dialog_get_state (p->dlg);
  return G_SOURCE_REMOVE;
}

static void
test_dialog (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  GtkDropDown *plot, *format, *frame;
  g_autofree char *message = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  dlg = open_dialog (win);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dlg)) == GTK_WINDOW (win));
  /* not modal: the window stays in use */
  g_assert_false (gtk_window_get_modal (GTK_WINDOW (dlg)));

  /* the defaults */
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "width_spin"))), ==, 1280);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "height_spin"))), ==, 720);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "fps_spin"))), ==, 30);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "duration_spin"))), ==, 10);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "speed_spin"))), ==,
                     cml_window_speeds[win->speed_index]);
  g_assert_true (g_str_has_suffix (cml_export_dialog_get_output (dlg), "/rolling-ball.mp4"));
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_IDLE);
  message = cml_export_dialog_dup_message (dlg);
  g_assert_cmpstr (message, ==, "");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (child (dlg, "summary_label"))), ==,
                   "300 frames · 10 s of video");
  /* the span of the run it shows: from the start, whatever the window shows now */
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (child (dlg, "span_label"))), ==,
                   "The video shows the run from its start, t = 0, to t = 10 s: it is simulated again from the "
                   "initial values, whatever time the window shows now.");
  set_spin (dlg, "duration_spin", 18);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (child (dlg, "span_label"))), "to t = 18 s:"));
  set_spin (dlg, "duration_spin", 10);
  /* the clock is on unless unticked */
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (child (dlg, "clock_check"))));

  /* the plot offers the model's quantities, named as people write them, with their
   * units; the ball has a turning table */
  plot = GTK_DROP_DOWN (child (dlg, "plot_dropdown"));
  {
    GListModel *names = gtk_drop_down_get_model (plot);
    gboolean energy = FALSE, w1 = FALSE;

    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (names), 0), ==, "None");
    for (guint i = 0; i < g_list_model_get_n_items (names); i++)
      {
        const char *s = gtk_string_list_get_string (GTK_STRING_LIST (names), i);
        energy |= g_strcmp0 (s, "energy [J]") == 0;
        w1 |= g_strcmp0 (s, "w₁ [rad/s]") == 0;
        g_assert_cmpstr (s, !=, "w1");
      }
    g_assert_true (energy);
    g_assert_true (w1);
  }
  frame = GTK_DROP_DOWN (child (dlg, "frame_dropdown"));
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (frame)));

  /* the summary follows the settings: frames at k·S/F < T */
  set_spin (dlg, "fps_spin", 60);
  set_spin (dlg, "speed_spin", 2);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (child (dlg, "summary_label"))), ==,
                   "300 frames · 5 s of video");

  /* the format and the file name go together */
  format = GTK_DROP_DOWN (child (dlg, "format_dropdown"));
  cml_export_dialog_set_output (dlg, "/tmp/some/clip.webm");
  g_assert_cmpuint (gtk_drop_down_get_selected (format), ==, 1);
  gtk_drop_down_set_selected (format, 2);
  g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, "/tmp/some/clip.gif");
  gtk_drop_down_set_selected (format, 3);
  g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, "/tmp/some/clip-%05d.png");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (child (dlg, "file_label"))), ==,
                   "clip-00000.png, clip-00001.png, …");
  gtk_drop_down_set_selected (format, 0);
  g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, "/tmp/some/clip.mp4");
  cml_export_dialog_set_output (dlg, "/tmp/some/frames.png");
  g_assert_cmpuint (gtk_drop_down_get_selected (format), ==, 3);
  g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, "/tmp/some/frames-%05d.png");
  cml_export_dialog_set_output (dlg, "/tmp/some/noext");
  g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, "/tmp/some/noext-%05d.png");

  /* a model with nothing turning has no table frame; the plot follows the model */
  g_assert_true (pick_model (win, "martinet"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.export-animation", NULL);
  g_assert_true (win->export_dialog == dlg);  /* the same dialog, with its settings */
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (frame)));
  g_assert_cmpuint (gtk_drop_down_get_selected (frame), ==, 0);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (child (dlg, "fps_spin"))), ==, 60);

  /* closing hides it; the window's end takes it along */
  gtk_window_close (GTK_WINDOW (dlg));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (dlg)));
  g_assert_true (win->export_dialog == dlg);
  window_free (win);
}

/* ---- a real export ----------------------------------------------------------------------- */

static void
test_export_mp4 (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  g_autofree char *dir = NULL, *out = NULL, *message = NULL;
  guint64 ticks;

  SKIP_WITHOUT_DISPLAY ();
  if (skip_without_render ())
    return;

  win = window_new ("rolling-ball");
  cml_window_play (win);
  dlg = open_dialog (win);
  dir = cli_make_temp_dir ();
  out = g_build_filename (dir, "ball.mp4", NULL);
  small_settings (dlg, 1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (child (dlg, "plot_dropdown")), 0);
  cml_export_dialog_set_output (dlg, out);

  ticks = win->tick_count;
  longest_gap = 0;
  LoopProbe probe = { dlg, FALSE, CML_EXPORT_IDLE };
  g_assert_true (cml_export_dialog_start (dlg));
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_RUNNING);
  g_idle_add_full (G_PRIORITY_HIGH, loop_probe_run, &probe, NULL);
  /* the settings wait while it runs */
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (child (dlg, "form"))));
  g_assert_false (gtk_widget_get_sensitive (GTK_WIDGET (child (dlg, "export_button"))));
  g_assert_false (cml_export_dialog_start (dlg));  /* one at a time */

  wait_for (export_ended, dlg, "export_ended");
  message = cml_export_dialog_dup_message (dlg);
  g_test_message ("banner: %s", message);
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_DONE);
  g_assert_true (g_str_has_prefix (message, "Saved “ball.mp4”"));
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (child (dlg, "form"))));

  /* the window went on drawing (its software GL shares the cores with the export, so
   * not at full rate; /ui/export-dialog/arguments measures the main loop's gaps) */
  g_test_message ("ticks %" G_GUINT64_FORMAT ", longest main-loop gap %.3f s",
                  win->tick_count - ticks, longest_gap);
  /* a window blocked by the export would draw no frame and stall the loop for the whole
   * export; a busy machine may give few frames to a short one */
  g_assert_cmpuint (win->tick_count - ticks, >=, 1);
  g_assert_true (probe.ran);
  g_assert_cmpint (probe.state, ==, CML_EXPORT_RUNNING);

  /* the video: 1 s at 10 fps, frames at t = 0 … 0.9; nothing else in the directory */
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (probe_frames (out), ==, 10);
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);

  /* PNG frames: the format's choice makes the numbered name */
  {
    g_autofree char *frames = g_build_filename (dir, "ball-%05d.png", NULL);
    g_autofree char *first = g_build_filename (dir, "ball-00000.png", NULL);
    g_autofree char *last = g_build_filename (dir, "ball-00009.png", NULL);
    g_autofree char *banner = NULL;

    gtk_drop_down_set_selected (GTK_DROP_DOWN (child (dlg, "format_dropdown")), 3);
    g_assert_cmpstr (cml_export_dialog_get_output (dlg), ==, frames);
    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_DONE);
    banner = cml_export_dialog_dup_message (dlg);
    g_assert_true (g_str_has_prefix (banner, "Saved 10 frames"));
    g_assert_true (g_file_test (first, G_FILE_TEST_IS_REGULAR));
    g_assert_true (g_file_test (last, G_FILE_TEST_IS_REGULAR));
    g_assert_cmpuint (cli_count_entries (dir), ==, 11);
  }

  cli_remove_dir (dir);
  window_free (win);
}

/* Drawing has begun: the bar is past the preparation's share, and the video's
 * temporary file is there. */
static gboolean
drawing_begun (gpointer data)
{
  CmlExportDialog *dlg = data;
  g_autofree char *dir = g_path_get_dirname (cml_export_dialog_get_output (dlg));

  return export_ended (dlg)
         || (cml_export_dialog_get_fraction (dlg) > 0.11 && cli_count_entries (dir) > 0);
}

/* A window exporting 10 000 frames (minutes of work) to DIR/long.mp4, once the first
 * frames are drawn. */
static CmlExportDialog *
start_long_export (CmlWindow **win, char **dir, char **out)
{
  CmlExportDialog *dlg;

  *win = window_new ("rolling-ball");
  dlg = open_dialog (*win);
  *dir = cli_make_temp_dir ();
  *out = g_build_filename (*dir, "long.mp4", NULL);
  small_settings (dlg, 1000);
  cml_export_dialog_set_output (dlg, *out);
  g_assert_true (cml_export_dialog_start (dlg));
  wait_for (drawing_begun, dlg, "drawing_begun");
  return dlg;
}

static void
test_cancel (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  g_autofree char *dir = NULL, *out = NULL, *message = NULL;
  GtkLabel *progress;

  SKIP_WITHOUT_DISPLAY ();
  if (skip_without_render ())
    return;

  /* cancelled after a few frames */
  dlg = start_long_export (&win, &dir, &out);
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_RUNNING);

  /* the progress reads as a person wants it: where it is, and how long is left */
  progress = GTK_LABEL (child (dlg, "progress_label"));
  g_test_message ("progress: %s", gtk_label_get_text (progress));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (progress), "Frame "));
  g_assert_nonnull (strstr (gtk_label_get_text (progress), " of 10000"));
  g_assert_nonnull (strstr (gtk_label_get_text (progress), "left"));

  g_signal_emit_by_name (child (dlg, "cancel_button"), "clicked");
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_CANCELLING);
  wait_for (export_ended, dlg, "export_ended");
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_CANCELLED);
  message = cml_export_dialog_dup_message (dlg);
  g_assert_true (g_str_has_prefix (message, "Export cancelled"));

  /* no file under the name, and no temporary file either */
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);

  /* the dialog can export again */
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (child (dlg, "export_button"))));
  cli_remove_dir (dir);
  window_free (win);
}

/* The window closes while an export runs: the child is stopped and cleans up after
 * itself, with no dialog left to tell. */
static gboolean
dir_empty (gpointer data)
{
  return cli_count_entries (data) == 0;
}

static void
test_window_closed (void)
{
  CmlWindow *win;
  g_autofree char *dir = NULL, *out = NULL;

  SKIP_WITHOUT_DISPLAY ();
  if (skip_without_render ())
    return;

  start_long_export (&win, &dir, &out);
  window_free (win);
  /* the temporary file goes once the child has seen SIGTERM */
  wait_for (dir_empty, dir, "dir_empty");
  cli_remove_dir (dir);
}

/* ---- errors ------------------------------------------------------------------------------ */

typedef struct
{
  CmlWindow *win;
  guint64    ticks;
} TickWait;

static gboolean
window_ticked (gpointer data)
{
  TickWait *w = data;

  return w->win->tick_count > w->ticks;
}

/* The window answers: a step is taken and drawn. */
static void
assert_window_responds (CmlWindow *win)
{
  guint64 ticks = win->tick_count;
  CmlFrame *frame;
  double t0;

  cml_runner_sync (win->runner);
  frame = cml_runner_get_frame (win->runner);
  t0 = frame->t;
  cml_frame_unref (frame);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL));
  cml_runner_sync (win->runner);
  frame = cml_runner_get_frame (win->runner);
  g_assert_cmpfloat (frame->t, >, t0);
  cml_frame_unref (frame);
  TickWait w = { win, ticks };
  wait_for (window_ticked, &w, "a frame of the window");
  g_assert_cmpuint (win->tick_count, >, ticks);
}

static void
test_errors (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  g_autofree char *dir = NULL, *out = NULL;
  g_autofree char *cli = g_strdup (g_getenv ("CMLAB_CLI"));
  g_autofree char *path = g_strdup (g_getenv ("PATH"));

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  dlg = open_dialog (win);
  dir = cli_make_temp_dir ();
  out = g_build_filename (dir, "ball.mp4", NULL);
  small_settings (dlg, 1);
  cml_export_dialog_set_output (dlg, out);

  /* 1. no cmlab-cli: it says which program is missing; it never started */
  {
    g_autofree char *message = NULL;

    g_setenv ("CMLAB_CLI", "/nonexistent/bin/cmlab-cli", TRUE);
    g_assert_false (cml_export_dialog_start (dlg));
    g_setenv ("CMLAB_CLI", cli, TRUE);
    g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_FAILED);
    message = cml_export_dialog_dup_message (dlg);
    g_test_message ("%s", message);
    g_assert_nonnull (strstr (message, "could not be exported"));
    g_assert_nonnull (strstr (message, "cmlab-cli"));
    g_assert_nonnull (strstr (message, "/nonexistent/bin/cmlab-cli"));
    g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (child (dlg, "export_button"))));
    assert_window_responds (win);
  }
  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("CMLAB_CLI does not name the built cmlab-cli");
      goto out;
    }

  /* 2. a directory that cannot take the file: cmlab-cli's message, naming it */
  {
    g_autofree char *message = NULL;

    cml_export_dialog_set_output (dlg, "/nonexistent-dir/ball.mp4");
    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_FAILED);
    message = cml_export_dialog_dup_message (dlg);
    g_test_message ("%s", message);
    g_assert_nonnull (strstr (message, "/nonexistent-dir/ball.mp4"));
    /* the folder that is not there, checked before anything is drawn */
    g_assert_nonnull (strstr (message, "there is no directory “/nonexistent-dir”"));
    /* the usage text is not a message for a person at a window */
    g_assert_null (strstr (message, "Usage:"));
    assert_window_responds (win);
  }

  /* 3. no ffmpeg: what to install, or to export PNG frames */
  {
    g_autofree char *message = NULL;

    cml_export_dialog_set_output (dlg, out);
    g_setenv ("PATH", "/nonexistent", TRUE);
    g_assert_false (cml_export_dialog_start (dlg));
    g_setenv ("PATH", path, TRUE);
    g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_FAILED);
    message = cml_export_dialog_dup_message (dlg);
    g_test_message ("%s", message);
    g_assert_nonnull (strstr (message, "could not be exported\nffmpeg"));
    g_assert_nonnull (strstr (message, "not installed"));
    g_assert_nonnull (strstr (message, "PNG frames"));
    assert_window_responds (win);
  }
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);

out:
  cli_remove_dir (dir);
  window_free (win);
}

/* ---- the command line: the run passed exactly -------------------------------------------- */

/* A stand-in for cmlab-cli: it keeps its arguments (one a line) and a copy of the session
 * file it is given (render --session FILE), prints progress lines with a pause of PAUSE
 * seconds, and exits with STATUS. */
static char *
write_fake_cli (const char *dir, int status, int pause)
{
  g_autofree char *script = g_strdup_printf (
    "#!/bin/sh\n"
    "printf '%%s\\n' \"$@\" > '%s/args'\n"
    "[ \"$2\" = --session ] && [ -f \"$3\" ] && cat \"$3\" > '%s/session-copy'\n"
    "echo 'prepare 0 50 0.1'\n"
    "echo 'prepare 50 50 0.2'\n"
    "echo 'a line that is not progress'\n"
    "echo 'progress 1 20 1.6'\n"
    "sleep %d\n"
    "echo 'progress 6 20 2.8'\n"
    "sleep %d\n"
    "echo 'progress 20 20 10.0'\n"
    "echo finishing\n"
    "echo 'cmlab-cli: writing the video failed: No space left on device' >&2\n"
    "echo 'ffmpeg: av_interleaved_write_frame(): No space left on device' >&2\n"
    "exit %d\n",
    dir, dir, pause, pause, status);
  char *path = g_build_filename (dir, "fake-cmlab-cli", NULL);

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

/* The value after each occurrence of OPTION in ARGS, as NAME -> VALUE (for --set,
 * --init) or the last value. */
static GHashTable *
option_values (char **args, const char *option)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; args[i] && args[i + 1]; i++)
    if (g_str_equal (args[i], option))
      {
        const char *v = args[i + 1];
        const char *eq = strchr (v, '=');

        if (eq && option[2] != 'o')
          g_hash_table_insert (t, g_strndup (v, eq - v), g_strdup (eq + 1));
        else
          g_hash_table_insert (t, g_strdup (""), g_strdup (v));
      }
  return t;
}

static gboolean
progress_seen (gpointer data)
{
  CmlExportDialog *dlg = data;

  return export_ended (dlg) || cml_export_dialog_get_fraction (dlg) > 0.2;
}

static gboolean
first_frame_seen (gpointer data)
{
  CmlExportDialog *dlg = data;

  return export_ended (dlg) || cml_export_dialog_get_fraction (dlg) > 0.12;
}

static char **
read_args (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "args", NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_strchomp (text);
  return g_strsplit (text, "\n", -1);
}

/* The session the stand-in was handed, read back (and its copy removed). */
static CmlSession *
read_session (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "session-copy", NULL);
  g_autoptr (GError) error = NULL;
  CmlSession *s = cml_session_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_unlink (path);  /* the next export's copy, not this one, is read next */
  return s;
}

static void
test_arguments (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *fake = write_fake_cli (dir, 0, 3);
  g_autofree char *out = g_build_filename (dir, "ball.webm", NULL);
  g_autofree char *cli = g_strdup (g_getenv ("CMLAB_CLI"));
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GError) error = NULL;
  double x = 0.3;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  /* a parameter, an initial value, the integrator, the frame: as a person sets them */
  gtk_spin_button_set_value (cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega"), 0.25);
  g_hash_table_insert (given, g_strdup ("x"), g_memdup2 (&x, sizeof x));
  cml_window_set_run_given (win, given);
  cml_runner_reset (win->runner, win->run_given);
  gtk_drop_down_set_selected (win->integrator_dropdown, 1); /* rkf45 */
  cml_window_set_table_frame (win, TRUE);

  g_setenv ("CMLAB_CLI", fake, TRUE);
  dlg = open_dialog (win);
  small_settings (dlg, 2);
  set_spin (dlg, "speed_spin", 0.5);
  {
    GtkDropDown *plot = GTK_DROP_DOWN (child (dlg, "plot_dropdown"));
    GListModel *names = gtk_drop_down_get_model (plot);

    for (guint i = 0; i < g_list_model_get_n_items (names); i++)
      if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (names), i), "energy [J]") == 0)
        gtk_drop_down_set_selected (plot, i);
  }
  cml_export_dialog_set_output (dlg, out);
  LoopProbe probe = { dlg, FALSE, CML_EXPORT_IDLE };
  g_assert_true (cml_export_dialog_start (dlg));
  g_idle_add_full (G_PRIORITY_HIGH, loop_probe_run, &probe, NULL);

  /* the progress lines move the bar and the text */
  longest_gap = 0;
  wait_for (first_frame_seen, dlg, "first_frame_seen");
  if (!export_ended (dlg))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (child (dlg, "progress_label")));

      /* the first frame carries the start-up (1.6 s): no guess from it */
      g_test_message ("progress: %s", text);
      g_assert_cmpstr (text, ==, "Frame 1 of 20 · estimating the time left…");
    }
  wait_for (progress_seen, dlg, "progress_seen");
  if (!export_ended (dlg))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (child (dlg, "progress_label")));

      g_test_message ("progress: %s", text);
      /* measured from the frames after the first: 5 in 1.2 s, 14 to go: 3.4 s */
      g_assert_cmpstr (text, ==, "Frame 6 of 20 · about 4 s left");
      g_assert_cmpfloat_with_epsilon (cml_export_dialog_get_fraction (dlg), 0.1 + 0.9 * 6 / 20, 1e-9);
    }
  wait_for (export_ended, dlg, "export_ended");
  /* the child's 3 s pause never held the loop: it ran while the export did */
  g_test_message ("longest main-loop gap %.3f s", longest_gap);
  g_assert_true (probe.ran);
  g_assert_cmpint (probe.state, ==, CML_EXPORT_RUNNING);
  g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_DONE);

  {
    g_auto (GStrv) args = read_args (dir);
    g_autoptr (GHashTable) sets = option_values (args, "--set");
    g_autoptr (GHashTable) inits = option_values (args, "--init");
    g_autoptr (GHashTable) one = NULL;
    g_autoptr (CmlSession) session = NULL;
    g_autoptr (CmlSession) window_session = NULL;
    CmlModel *model;
    CmlSystem *sys;

    g_assert_cmpstr (args[0], ==, "render");
    g_assert_cmpstr (args[1], ==, "--session");  /* the run, as a session */
    /* nothing of the run besides it, and the temporary session is gone */
    g_assert_cmpuint (g_hash_table_size (sets), ==, 0);
    g_assert_cmpuint (g_hash_table_size (inits), ==, 0);
    g_assert_false (g_file_test (args[2], G_FILE_TEST_EXISTS));

    /* the model, every parameter and every state component, exactly (full precision) */
    session = read_session (dir);
    window_session = cml_window_get_session (win, &error);
    g_assert_no_error (error);
    sys = window_session->system;
    model = cml_system_get_model (sys);
    g_assert_cmpstr (session->model->name, ==, "rolling-ball");
    g_assert_cmpstr (session->model->text, ==, model->text);
    g_assert_cmpuint (g_hash_table_size (session->params), ==, model->params->len);
    for (guint k = 0; k < model->params->len; k++)
      {
        const char *name = ((CmlParam *) model->params->pdata[k])->name;
        const double *v = g_hash_table_lookup (session->params, name);

        g_assert_nonnull (v);
        g_assert_cmpfloat (*v, ==, *(double *) g_hash_table_lookup (window_session->params, name));
      }
    g_assert_cmpfloat (*(double *) g_hash_table_lookup (session->params, "Omega"), ==, 0.25);
    g_assert_cmpuint (g_hash_table_size (session->initial), ==, cml_system_dim (sys));
    for (guint i = 0; i < cml_system_dim (sys); i++)
      {
        const char *name = cml_system_state_name (sys, i);
        const double *v = g_hash_table_lookup (session->initial, name);

        g_assert_nonnull (v);
        g_assert_cmpfloat (*v, ==, *(double *) g_hash_table_lookup (window_session->initial, name));
      }
    g_assert_cmpfloat (*(double *) g_hash_table_lookup (session->initial, "x"), ==, 0.3);
    /* the integrator and its tolerances */
    g_assert_cmpint (session->integrator.kind, ==, CML_INTEGRATOR_RKF45);
    g_assert_cmpfloat (session->integrator.rtol, ==, 1e-10);
    g_assert_cmpfloat (session->integrator.atol, ==, window_session->integrator.atol);
    g_assert_cmpfloat (session->integrator.h_fixed, ==, window_session->integrator.h_fixed);
    g_assert_true (session->integrator.project == window_session->integrator.project);

#define ONE(opt, expected)                                                    \
    one = option_values (args, opt);                                          \
    g_assert_cmpstr (g_hash_table_lookup (one, ""), ==, expected);            \
    g_clear_pointer (&one, g_hash_table_unref)
    ONE ("--t-end", "2");
    ONE ("--fps", "10");
    ONE ("--speed", "0.5");
    ONE ("--size", "160x90");
    ONE ("--frame", "table");
    ONE ("--with-plot", "energy");
    ONE ("--progress", "lines");
    ONE ("-o", out);
#undef ONE
    /* the clock is left on */
    for (guint i = 0; args[i]; i++)
      g_assert_cmpstr (args[i], !=, "--no-clock");
  }

  /* a model of a file: its text as it was loaded, also once the file has changed since */
  {
    g_autofree char *model_path = g_build_filename (dir, "my-ball.cml", NULL);
    g_autofree char *builtin = g_build_filename (cml_model_builtin_dir (), "rolling-ball.cml", NULL);
    g_autofree char *text = NULL;
    g_autofree char *builtin_text = NULL;

    g_free (write_fake_cli (dir, 0, 0));  /* no pause from here on */

    /* the built-in with a comment: not the built-in's text */
    g_assert_true (g_file_get_contents (builtin, &builtin_text, NULL, NULL));
    text = g_strconcat ("# my own copy\n", builtin_text, NULL);
    g_assert_true (g_file_set_contents (model_path, text, -1, NULL));
    g_assert_true (cml_window_load (win, model_path, &error));
    g_assert_no_error (error);

    /* unchanged */
    cml_export_dialog_refresh (dlg);
    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    {
      g_autoptr (CmlSession) session = read_session (dir);
      g_auto (GStrv) a = read_args (dir);

      g_assert_cmpstr (session->model->text, ==, text);
      g_assert_false (g_file_test (a[2], G_FILE_TEST_EXISTS));
    }

    /* changed on disk: the text as loaded, still */
    g_assert_true (g_file_set_contents (model_path, "changed on disk\n", -1, NULL));

    cml_export_dialog_refresh (dlg);
    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    {
      g_autoptr (CmlSession) session = read_session (dir);
      g_auto (GStrv) a = read_args (dir);

      g_test_message ("session argument %s", a[2]);
      g_assert_cmpstr (a[1], ==, "--session");
      g_assert_cmpstr (session->model->text, ==, text);
      g_assert_false (g_file_test (a[2], G_FILE_TEST_EXISTS));
    }
  }

  /* the clock unticked: --no-clock */
  {
    gboolean no_clock = FALSE;

    gtk_check_button_set_active (GTK_CHECK_BUTTON (child (dlg, "clock_check")), FALSE);
    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    g_auto (GStrv) a = read_args (dir);
    for (guint i = 0; a[i]; i++)
      no_clock |= g_str_equal (a[i], "--no-clock");
    g_assert_true (no_clock);
  }

  /* a failing child: its first "cmlab-cli:" line, then what follows */
  {
    g_autofree char *failing = write_fake_cli (dir, 2, 0);
    g_autofree char *message = NULL;

    g_assert_true (cml_export_dialog_start (dlg));
    wait_for (export_ended, dlg, "export_ended");
    g_assert_cmpint (cml_export_dialog_get_state (dlg), ==, CML_EXPORT_FAILED);
    message = cml_export_dialog_dup_message (dlg);
    g_assert_cmpstr (message, ==, "The animation could not be exported\n"
                                  "Writing the video failed: No space left on device\n"
                                  "ffmpeg: av_interleaved_write_frame(): No space left on device");
  }

  g_setenv ("CMLAB_CLI", cli, TRUE);
  cli_remove_dir (dir);
  window_free (win);
}

/* ---- where the file choosers open ------------------------------------------------------- */

static char *
special_or_home (GUserDirectory which)
{
  const char *dir = g_get_user_special_dir (which);

  return g_strdup (dir && g_file_test (dir, G_FILE_TEST_IS_DIR) ? dir : g_get_home_dir ());
}

static gboolean
chooser_has_folder (gpointer data)
{
  g_autoptr (GFile) folder = gtk_file_chooser_get_current_folder (data);

  return folder != NULL;
}

/* The chooser is in a folder named "talk". */
static gboolean
chooser_in_talk (gpointer data)
{
  g_autoptr (GFile) folder = gtk_file_chooser_get_current_folder (data);
  g_autofree char *base = folder ? g_file_get_basename (folder) : NULL;

  return g_strcmp0 (base, "talk") == 0;
}

/* The folder the plot's export chooser opens in. */
static char *
plot_chooser_folder (CmlWindow *win)
{
  CmlPlotView *plot = win->time_plot;
  g_autoptr (GFile) folder = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (plot), "plot.export", "s", "svg"));
  g_assert_nonnull (plot->chooser);
  /* the chooser takes its folder as it opens */
  wait_for (chooser_has_folder, plot->chooser, "the file chooser to take its folder");
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (plot->chooser));
  return folder ? g_file_get_path (folder) : g_strdup ("(none)");
}

/* Animations and plots open in one folder: Videos (animations) or Pictures (plots), else
 * home — never the working folder — until an export is made; then the folder it went to,
 * for both.  The plot exported on the way states the run's initial values. */
static void
test_folder (void)
{
  CmlWindow *win;
  CmlExportDialog *dlg;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *videos = special_or_home (G_USER_DIRECTORY_VIDEOS);
  g_autofree char *pictures = special_or_home (G_USER_DIRECTORY_PICTURES);
  g_autofree char *cwd = g_get_current_dir ();

  SKIP_WITHOUT_DISPLAY ();

  cml_export_folder_forget ();
  /* a working folder that is none of them, as when started from a terminal elsewhere */
  g_assert_cmpint (g_chdir (dir), ==, 0);
  win = window_new ("rolling-ball");
  dlg = open_dialog (win);
  {
    g_autofree char *out_dir = g_path_get_dirname (cml_export_dialog_get_output (dlg));
    g_autofree char *plot_dir = plot_chooser_folder (win);

    g_assert_cmpstr (out_dir, ==, videos);
    g_assert_cmpstr (plot_dir, ==, pictures);
  }

  /* a plot exported into a folder of the user's: both open there from now on */
  {
    g_autofree char *talk = g_build_filename (dir, "talk", NULL);
    g_autofree char *svg = g_build_filename (talk, "energy.svg", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (svg);
    g_autoptr (GFile) folder = g_file_new_for_path (talk);
    CmlPlotView *plot = win->time_plot;

    g_assert_cmpint (g_mkdir (talk, 0700), ==, 0);
    g_assert_nonnull (plot->chooser);
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (plot->chooser), folder, NULL);
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (plot->chooser), "energy.svg");
    wait_for (chooser_in_talk, plot->chooser, "chooser_in_talk");
    g_signal_emit_by_name (plot->chooser, "response", GTK_RESPONSE_ACCEPT);
    g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
    {
      /* the figure states the parameters and the initial values the run started from */
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
      g_assert_nonnull (strstr (text, "Ω = 1 rad/s"));
      g_assert_nonnull (strstr (text, ">from x = "));
    }

    gtk_widget_activate_action (GTK_WIDGET (win), "win.export-animation", NULL);
    g_autofree char *out_dir = g_path_get_dirname (cml_export_dialog_get_output (dlg));
    g_autofree char *plot_dir = plot_chooser_folder (win);
    g_assert_cmpstr (out_dir, ==, talk);
    g_assert_cmpstr (plot_dir, ==, talk);
  }

  window_free (win);
  cml_export_folder_forget ();
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  cli_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/export-dialog/dialog", test_dialog);
  g_test_add_func ("/ui/export-dialog/arguments", test_arguments);
  g_test_add_func ("/ui/export-dialog/export-mp4", test_export_mp4);
  g_test_add_func ("/ui/export-dialog/cancel", test_cancel);
  g_test_add_func ("/ui/export-dialog/window-closed", test_window_closed);
  g_test_add_func ("/ui/export-dialog/errors", test_errors);
  g_test_add_func ("/ui/export-dialog/folder", test_folder);

  return g_test_run ();
}
