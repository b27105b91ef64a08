/* cml-render-cmd.c — `cmlab-cli render`: a video or numbered PNG frames of a model's
 * scene, rendered with no window and no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Time: frame k shows the simulation at t_k = k·S/F (S = --speed, simulated seconds per
 * second of video; F = --fps), for every k with t_k < T (--t-end): N = ⌈T·F/S⌉ frames and
 * a video N/F seconds long — T/S exactly when T·F/S is whole (1 s at 10 fps: 10 frames,
 * t = 0 … 0.9).  Between two frames the simulation is stepped to at least 240 sample
 * times per simulated second; each sample feeds the trails (with its time, so a trail
 * keeps its `length` seconds) and the plot.  Nothing depends on a screen or a clock.
 *
 * Steps:
 *   1. check the arguments and the output (extension, pattern, a writable directory,
 *      ffmpeg on PATH for a video);
 *   2. a headless OpenGL context (cml-offscreen.c) and the scene renderer;
 *   3. a pre-run of the whole simulation, without drawing: it finds a failing run before
 *      anything is written, the scene's bounds (and a turntable's drawn size) and the
 *      plotted quantity's range; then the camera (fixed for the whole video): the
 *      window's three-quarter view fitted, as the window fits it (cml_camera_fit), to
 *      everything the whole run shows, clear of the legend (cml-scene-fit.c);
 *   4. the writers (cml-video.c): a thread hands the frames to ffmpeg's standard input
 *      (ffmpeg runs in its own process group, so Ctrl-C reaches only us) — RGBA for GIF,
 *      4:2:0 YUV for MP4 and WebM — or two write PNG files;
 *   5. the run again from the same initial state (bit for bit the same trajectory),
 *      drawing each frame: the scene through OpenGL, read back through a ring of
 *      pixel-buffer objects (so the CPU steps and draws frame k+1 while frame k is copied
 *      out), the scene's legend over its bottom-left corner and the plot with Cairo beside
 *      or below it, and the clock (the simulated time, cml-video-clock.c) over its top-left
 *      corner unless --no-clock; then the file is finished.
 * Every file goes through cml-atomic-file.c: a video is written by ffmpeg under a
 * temporary name of ours in the target's directory (`.NAME.cmlab-tmp-PID-XXXXXX`) and
 * renamed only when ffmpeg has finished well; a failure or an interruption (SIGINT,
 * SIGTERM, SIGHUP) removes it, and the PNG frames a failed run had written.  A run that
 * was killed outright (SIGKILL) cannot clean up: its temporary is removed by the next run
 * that writes into the directory.  A device or a FIFO is written directly, a symbolic
 * link is followed, a read-only file is refused.
 */
#define G_LOG_DOMAIN "cml-render-cmd"

#include "cml-render-cmd-private.h"
#include "cml-render-cmd.h"

#include <glib/gi18n.h>

#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cml-camera.h"
#include "cml-cli-common.h"
#include "cml-integrator.h"
#include "cml-offscreen.h"
#include "cml-plot.h"
#include "cml-scene-renderer.h"
#include "cml-video-clock.h"
#include "cml-video.h"

#define EXIT_INTERRUPTED   130
#define SAMPLES_PER_SECOND 240.0   /* trail and plot samples per simulated second, at least */
#define MAX_SUBSTEPS       4096    /* samples between two frames, at most */
#define MAX_FRAMES         1000000
#define MAX_SAMPLES        1e8     /* frames × samples between two frames, at most */
#define MIN_SIDE           16      /* px */
#define MAX_SIDE           8192    /* px */
#define MAX_FPS            240.0
#define MIN_FPS            0.01
#define READ_DEPTH         2       /* frames drawn before the oldest is collected */
#define ESTIMATE_MIN_FRAMES  3    /* frames timed after the first before the time left is said */
#define ESTIMATE_MIN_SECONDS 1.0  /* and seconds they took, at least */
#define SCENE_SAMPLES      0       /* no MSAA: 4× makes drawing (llvmpipe) 3.4 times as costly
                                    * and a 720p60 export nearly twice as long */

static const char *render_usage =
  N_("Usage:\n"
  "  cmlab-cli render MODEL [--set P=V]... [--init S=V]... --t-end T --fps F --size WxH\n"
  "            [--frame lab|table] [--with-plot COL] [--speed S] [--integrator NAME]\n"
  "            [--rtol R] [--atol A] [--step H] [--no-clock] [--progress lines]\n"
  "            -o FILE.{mp4,webm,gif}\n"
  "  cmlab-cli render MODEL ... -o DIR/frame-%05d.png      (numbered PNG frames)\n"
  "\n"
  "Frame k shows simulated time k·S/F for every k with k·S/F < T: a video T/S seconds\n"
  "long.  Defaults: --fps 30, --size 1280x720, --speed 1, --frame lab.\n"
  "Every frame shows the simulated time (\"t = 12.3 s\") in its top-left corner;\n"
  "--no-clock leaves it out.\n"
  "--progress lines prints, on standard output, `prepare DONE TOTAL SECONDS` while the run\n"
  "is simulated and the camera placed, then `progress DONE TOTAL SECONDS` as frames are\n"
  "drawn (SECONDS: since drawing began), then `finishing` while the file is completed.\n");

/* ---- signals -------------------------------------------------------------------------- */

static volatile sig_atomic_t interrupted = 0;

static void
on_signal (int sig)
{
  interrupted = sig;
}

static void
install_signal_handlers (void)
{
  struct sigaction sa = { 0 };
  /* no SA_RESTART: a blocked write or wait returns EINTR and sees the flag */
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  /* a dead ffmpeg must make write() fail with EPIPE, not kill us */
  signal (SIGPIPE, SIG_IGN);
}

/* ---- options ---------------------------------------------------------------------------- */


/* "1280x720" (or 1280×720) -> 1280, 720 */
static gboolean
parse_size (const char *s, int *w, int *h)
{
  g_autofree char *copy = g_strdup (s);
  char *sep = strchr (copy, 'x');
  if (sep == NULL)
    sep = strchr (copy, 'X');
  char *rest = NULL;
  if (sep)
    {
      *sep = '\0';
      rest = sep + 1;
    }
  else if ((sep = strstr (copy, "×")) != NULL)
    {
      *sep = '\0';
      rest = sep + strlen ("×");
    }
  else
    return FALSE;

  char *end = NULL;
  errno = 0;
  gint64 a = g_ascii_strtoll (copy, &end, 10);
  if (end == copy || *end != '\0' || errno)
    return FALSE;
  gint64 b = g_ascii_strtoll (rest, &end, 10);
  if (end == rest || *end != '\0' || errno)
    return FALSE;
  if (a < MIN_SIDE || b < MIN_SIDE || a > MAX_SIDE || b > MAX_SIDE)
    return FALSE;
  *w = (int) a;
  *h = (int) b;
  return TRUE;
}

/* One of render's own options, checked as it is parsed. */
static gboolean
render_option (const char *a, const char *val, gpointer data, GError **error)
{
  CmlRenderOptions *o = data;

  if (g_str_equal (a, "--fps"))
    {
      /* (1e-9 reached ffmpeg, which refused the duration with a raw error) */
      if (!cml_cli_parse_double (val, &o->fps) || !(o->fps >= MIN_FPS) || o->fps > MAX_FPS)
        return cml_cli_option_error (error, _("--fps needs frames per second from %g to %g, not “%s”"), MIN_FPS, MAX_FPS,
                                    val);
    }
  else if (g_str_equal (a, "--size"))
    {
      if (!parse_size (val, &o->width, &o->height))
        return cml_cli_option_error (error, _("--size needs WIDTHxHEIGHT in pixels, each %d to %d (e.g. 1280x720), not “%s”"),
                                    MIN_SIDE, MAX_SIDE, val);
    }
  else if (g_str_equal (a, "--frame"))
    {
      if (g_str_equal (val, "lab"))
        o->table_frame = FALSE;
      else if (g_str_equal (val, "table"))
        o->table_frame = TRUE;
      else
        return cml_cli_option_error (error, _("--frame must be lab or table, not “%s”"), val);
    }
  else if (g_str_equal (a, "--with-plot"))
    {
      g_free (o->plot_column);
      o->plot_column = g_strdup (val);
    }
  else if (g_str_equal (a, "--speed"))
    {
      if (!cml_cli_parse_double (val, &o->speed) || !(o->speed > 0))
        return cml_cli_option_error (error, _("--speed needs simulated seconds per second of video > 0, not “%s”"), val);
    }
  else if (g_str_equal (a, "--no-clock"))
    o->no_clock = TRUE;
  else /* --progress */
    {
      if (g_str_equal (val, "lines"))
        o->progress_lines = TRUE;
      else if (g_str_equal (val, "auto"))
        o->progress_lines = FALSE;
      else
        return cml_cli_option_error (error, _("--progress must be lines or auto, not “%s”"), val);
    }
  return TRUE;
}

#define RENDER_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) render_option, "", arg }

static const GOptionEntry render_entries[] = {
  RENDER_ENTRY ("fps", "F"),
  RENDER_ENTRY ("size", "WxH"),
  RENDER_ENTRY ("frame", "lab|table"),
  RENDER_ENTRY ("with-plot", "COL"),
  RENDER_ENTRY ("speed", "S"),
  RENDER_ENTRY ("progress", "lines|auto"),
  { "no-clock", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) render_option, "", NULL },
  G_OPTION_ENTRY_NULL
};

/* Returns CML_CLI_CONTINUE, or an exit status after printing why. */
static int
parse_render_options (int argc, char **argv, CmlRenderOptions *o)
{
  int status = cml_cli_parse_args (argc, argv, render_entries, o, &o->run, CML_CLI_RUN_OPTIONS_ALL, render_usage,
                                   &o->model);
  if (status != CML_CLI_CONTINUE)
    return status;
  o->t_end = o->run.t_end;
  o->output = o->run.output;
  if (!o->run.has_t_end)
    return cml_cli_usage_error (render_usage, _("render needs --t-end T (simulated time to show)"));
  if (o->output == NULL)
    return cml_cli_usage_error (render_usage,
                                _("render needs -o FILE.mp4, FILE.webm, FILE.gif or DIR/frame-%%05d.png"));
  return CML_CLI_CONTINUE;
}
/* ---- the output ----------------------------------------------------------------------- */

/* Reads the output's format from its name (cml-video.c); 0, or an exit status after
 * printing why. */
static int
parse_output (const char *path, CmlVideoTarget *s)
{
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr (base, '.');

  switch (cml_video_target_parse (path, s))
    {
    case CML_VIDEO_TARGET_OK:
      break;
    case CML_VIDEO_TARGET_NO_NAME:
      return cml_cli_usage_error (render_usage, _("-o needs a file name, not the directory “%s”"), path);
    case CML_VIDEO_TARGET_NO_EXTENSION:
      return cml_cli_usage_error (render_usage,
                                  _("cannot tell the format of “%s”: give it the extension .mp4, .webm, "
                                  ".gif or .png (with a frame number, e.g. frame-%%05d.png)"),
                                  path);
    case CML_VIDEO_TARGET_BAD_PATTERN:
      return cml_cli_usage_error (render_usage,
                                  _("PNG frames need a file name with one frame number in it, such "
                                  "as DIR/frame-%%05d.png, not “%s”"),
                                  path);
    case CML_VIDEO_TARGET_UNKNOWN_FORMAT:
      return cml_cli_usage_error (render_usage,
                                  _("unknown format “%s” of “%s”: cmlab-cli render writes .mp4 (H.264), "
                                  ".webm (VP9), .gif and numbered .png frames"),
                                  dot, path);
    }
  return 0;
}

/* ---- the run ---------------------------------------------------------------------------- */

/* --progress lines: one line on standard output, flushed at once, for a program that
 * shows the progress (the window's export dialog).  A reader that went away is no
 * reason to stop: SIGPIPE is ignored and the write error with it. */
static void
report_line (const char *what, guint done, guint total, double seconds)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  printf ("%s %u %u %s\n", what, done, total, g_ascii_formatd (buf, sizeof buf, "%.3f", seconds));
  fflush (stdout);
}

/* True at most ten times a second, and always for the last of TOTAL. */
static gboolean
report_due (CmlRender *R, guint done, guint total)
{
  gint64 now = g_get_monotonic_time ();
  if (now - R->last_report < 100000 && done < total && R->last_report != 0)
    return FALSE;
  R->last_report = now;
  return TRUE;
}

/* The preparation (the pre-run, one pass over the run) has simulated N more frames. */
static void
report_prepare (CmlRender *R, guint n)
{
  if (!R->o->progress_lines)
    return;
  R->prep_done = MIN (R->prep_done + n, R->prep_total);
  if (report_due (R, R->prep_done, R->prep_total))
    report_line ("prepare", R->prep_done, R->prep_total, (g_get_monotonic_time () - R->t_start) / 1e6);
}

double
cml_render_frame_time (const CmlRender *R, guint k)
{
  return (double) k * R->o->speed / R->o->fps;
}

typedef enum
{
  SAMPLE_BOUNDS,  /* and the scene's bounds and the plotted quantity's range (pre-run) */
  SAMPLE_PLOT,    /* and a point of the plot (the drawn run) */
} SampleMode;

/* Takes one sample at the simulation's current state. */
static void
take_sample (CmlRender *R, SampleMode mode)
{
  gboolean pre_run = mode == SAMPLE_BOUNDS;
  double t = cml_simulation_get_time (R->sim);
  cml_simulation_eval_scene (R->sim, R->scene);
  if (R->values == R->obs || R->plot_index >= 0)
    cml_simulation_observe (R->sim, R->obs);
  if (R->n_values > 0)
    cml_scene_renderer_push_trail_samples_timed (R->renderer, &t, R->values, 1, R->n_values, 0);
  if (R->plot_index >= 0)
    {
      double y = R->obs[R->plot_index];
      if (pre_run)
        {
          if (isfinite (y))
            {
              R->y_min = MIN (R->y_min, y);
              R->y_max = MAX (R->y_max, y);
            }
        }
      else
        cml_plot_series_append (R->series, &t, &y, 1);
    }
  if (pre_run)
    {
      double min[3], max[3];
      /* the objects where they are now join the bounds (which only grow) */
      cml_scene_renderer_get_bounds (R->renderer, R->n_values ? R->values : NULL, &R->style, min, max);
    }
}

/* Steps from frame K−1's time to frame K's in R->substeps samples. */
static gboolean
step_to_frame (CmlRender *R, guint k, SampleMode mode, GError **error)
{
  double t0 = cml_render_frame_time (R, k - 1), t1 = cml_render_frame_time (R, k);
  for (guint j = 1; j <= R->substeps; j++)
    {
      double t = j == R->substeps ? t1 : t0 + (t1 - t0) * j / R->substeps;
      if (!cml_simulation_advance (R->sim, t, error))
        return FALSE;
      take_sample (R, mode);
    }
  return TRUE;
}

/* ---- clearing up ------------------------------------------------------------------------ */

static void
render_clear (CmlRender *R)
{
  /* first the video: an unfinished file goes */
  g_clear_pointer (&R->video, cml_video_free);
  if (R->renderer)
    {
      GError *error = NULL;
      if (cml_offscreen_make_current (R->off, &error))
        cml_scene_renderer_free (R->renderer);
      g_clear_error (&error);
    }
  g_clear_pointer (&R->off, cml_offscreen_free);
  g_clear_pointer (&R->plot_surface, cairo_surface_destroy);
  g_clear_pointer (&R->legend, cairo_surface_destroy);
  g_clear_pointer (&R->clock_surface, cairo_surface_destroy);
  cml_video_clock_clear (&R->clock);
  g_clear_pointer (&R->series, cml_plot_series_unref);
  g_clear_pointer (&R->plot, cml_plot_unref);
  g_clear_pointer (&R->sim, cml_simulation_free);
  g_clear_pointer (&R->given, g_hash_table_unref);
  g_free (R->scene);
  g_free (R->obs);
  cml_video_target_clear (&R->out);
}

/* ---- progress ---------------------------------------------------------------------------- */

/* On a terminal: the frame, and the time left measured over the frames after the first
 * (which carries the start-up: the encoder, the first frame's shaders) once there are
 * ESTIMATE_MIN_FRAMES of them over ESTIMATE_MIN_SECONDS; until then it says it is
 * estimating. */
static void
show_progress (guint done, guint total, double elapsed, gboolean *shown)
{
  static double last = -1;
  static guint base_done = 0;
  static double base_elapsed = -1;
  if (base_elapsed < 0 && done > 0)
    {
      base_done = done;
      base_elapsed = elapsed;
    }
  if (last >= 0 && elapsed - last < 0.25 && done < total)
    return;
  last = elapsed;
  guint measured = base_elapsed >= 0 ? done - base_done : 0;
  double spent = base_elapsed >= 0 ? elapsed - base_elapsed : 0;
  fputs ("\r\033[K", stderr);
  if (measured >= ESTIMATE_MIN_FRAMES && spent >= ESTIMATE_MIN_SECONDS)
    fprintf (stderr, _("rendering: frame %u of %u (%.0f%%), %s%.0f s left"), done, total,
             100.0 * done / total, "", ceil (spent / measured * (total - done)));
  else
    fprintf (stderr, _("rendering: frame %u of %u (%.0f%%), estimating the time left…"), done, total,
             100.0 * done / total);
  fflush (stderr);
  *shown = TRUE;
}

/* ---- the command ------------------------------------------------------------------------- */

/* fontconfig (under Pango, for the plot's text) loses a few bytes while it parses its
 * configuration, outside our control: a LeakSanitizer build (tools/run-tests) should
 * report only ours.  Unused in other builds. */
const char *__lsan_default_suppressions (void);
const char *
__lsan_default_suppressions (void)
{
  return "leak:libfontconfig.so\n";
}
/* Collects the oldest frame drawn from the pixel-buffer ring into the buffer waiting for
 * it and hands it to the writers. */
static void
collect_frame (CmlRender *R, GQueue *pending)
{
  CmlVideoFrame *b = g_queue_pop_head (pending);
  gsize stride = (gsize) R->o->width * 4;
  guint8 *dst = b->rgba + (gsize) R->scene_y * stride + (gsize) R->scene_x * 4;
  if (!cml_offscreen_read_end (R->off, dst, stride))
    memset (dst, 0, stride * R->scene_h);
  cml_render_draw_legend (R, b->rgba);
  cml_render_draw_clock (R, b->index, b->rgba);
  cml_video_submit_frame (R->video, b);
}

/* An interruption before the file was complete: nothing is left of it. */
static int
not_written (CmlRender *R)
{
  fprintf (stderr, _("cmlab-cli: interrupted; %s not written\n"), R->out.path);
  return EXIT_INTERRUPTED;
}

/* 1. The arguments and the output (extension, pattern, a writable directory, ffmpeg on
 * PATH for a video), the number of frames and of samples between them.
 * CML_CLI_CONTINUE, or an exit status after printing why. */
static int
check_request (int argc, char **argv, CmlRender *R, CmlIntegratorOptions *iopt, char **ffmpeg)
{
  CmlRenderOptions *o = R->o;
  int status;

  if ((status = parse_render_options (argc, argv, o)) != CML_CLI_CONTINUE)
    return status;
  if ((status = parse_output (o->output, &R->out)) != 0)
    return status;
  {
    /* where the frames go: a directory that exists and takes files */
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", o->output, &why))
      return cml_cli_usage_error (render_usage, "%s", why);
  }
  if ((status = cml_cli_run_options_integrator (&o->run, iopt, render_usage)) != 0)
    return status;
  if (R->out.format == CML_VIDEO_MP4 || R->out.format == CML_VIDEO_WEBM)
    if (o->width % 2 || o->height % 2)
      return cml_cli_usage_error (render_usage,
                                  _("--size %dx%d: %s needs an even width and height (4:2:0 "
                                  "colour); try %dx%d"),
                                  o->width, o->height, R->out.format == CML_VIDEO_MP4 ? "MP4" : "WebM",
                                  o->width + o->width % 2, o->height + o->height % 2);
  double n_exact = o->t_end * o->fps / o->speed;
  if (!(n_exact <= MAX_FRAMES))
    return cml_cli_usage_error (render_usage,
                                _("--t-end %g at --fps %g and --speed %g asks for %.0f frames, more "
                                "than %d: use a shorter --t-end or a smaller --fps"),
                                o->t_end, o->fps, o->speed, n_exact, MAX_FRAMES);
  /* frames at k·S/F < T; the tolerance keeps a whole T·F/S from gaining a frame to
   * rounding */
  R->n_frames = (guint) MAX (1.0, ceil (n_exact - 1e-9));
  R->frame_dt = o->speed / o->fps;
  R->substeps = (guint) CLAMP (ceil (R->frame_dt * SAMPLES_PER_SECOND - 1e-9), 1, MAX_SUBSTEPS);
  /* every sample is a step of the simulation, twice (the pre-run and the drawn run) */
  if ((double) R->n_frames * R->substeps > MAX_SAMPLES)
    return cml_cli_usage_error (render_usage,
                                _("--t-end %g at --fps %g and --speed %g asks for %.3g samples of the run (%u "
                                "frames of %u), more than 10^8: use a shorter --t-end or a smaller --fps"),
                                o->t_end, o->fps, o->speed, (double) R->n_frames * R->substeps, R->n_frames,
                                R->substeps);

  if (R->out.format != CML_VIDEO_PNG)
    {
      *ffmpeg = g_find_program_in_path ("ffmpeg");
      if (*ffmpeg == NULL)
        {
          fprintf (stderr,
                   _("cmlab-cli: ffmpeg is not installed: install it (Debian: apt-get install ffmpeg) "
                   "or export PNG frames with -o DIR/frame-%%05d.png\n"));
          return CML_CLI_EXIT_USAGE;
        }
    }
  return CML_CLI_CONTINUE;
}

/* The target must take the file (a video's temporary file is made now, the first PNG
 * frame's name tried); temporaries left by a killed export go now. */
static int
open_video (CmlRender *R)
{
  g_autoptr (GError) error = NULL;

  R->video = cml_video_new (&R->out, R->o->width, R->o->height, R->o->fps, &interrupted, &error);
  if (R->video == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  return CML_CLI_CONTINUE;
}

/* The model, --set, --init and the integrator; the values the scene reads, the plotted
 * quantity, and the frame's layout. */
static int
load_run (CmlRender *R, CmlIntegratorOptions *iopt)
{
  CmlRenderOptions *o = R->o;
  g_autoptr (GError) error = NULL;
  int status;

  R->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if ((status = cml_cli_start_simulation (o->model, o->run.sets, o->run.inits, R->given, iopt,
                                          &R->sim_progress,
                                          cml_render_frame_time (R, R->n_frames - 1), render_usage,
                                          &R->sim)) != 0)
    return status;
  {
    const GPtrArray *report = cml_simulation_get_projection_report (R->sim);
    for (guint k = 0; k < report->len; k++)
      fprintf (stderr, _("note: %s\n"), (char *) report->pdata[k]);
  }
  R->sys = cml_simulation_get_system (R->sim);
  R->n_scene = cml_system_n_scene_values (R->sys);
  R->n_obs = cml_system_n_observables (R->sys);
  R->scene = g_new0 (double, MAX (R->n_scene, 1));
  R->obs = g_new0 (double, MAX (R->n_obs, 1));
  gboolean observables = cml_scene_values_are_observables (R->sys);
  R->values = observables ? R->obs : R->scene;
  R->n_values = observables ? R->n_obs : R->n_scene;

  if (o->plot_column)
    {
      R->plot_index = cml_system_observable_index (R->sys, o->plot_column);
      if (R->plot_index < 0)
        {
          GString *names = g_string_new (NULL);
          for (guint i = 0; i < R->n_obs; i++)
            g_string_append_printf (names, "%s%s", i ? ", " : "", cml_system_observable_name (R->sys, i));
          fprintf (stderr, _("cmlab-cli: --with-plot: %s has no quantity “%s”; it has %s\n"),
                   cml_system_get_model (R->sys)->name, o->plot_column, names->str);
          g_string_free (names, TRUE);
          return CML_CLI_EXIT_USAGE;
        }
    }

  /* layout: the scene on the left two thirds and the plot on the right third of a
   * landscape frame; the scene above and the plot below in a portrait one */
  R->scene_w = o->width;
  R->scene_h = o->height;
  if (R->plot_index >= 0)
    {
      if (o->width >= o->height)
        {
          R->scene_w = (int) lround (o->width * 2.0 / 3.0);
          R->plot_x = R->scene_w;
          R->plot_w = o->width - R->scene_w;
          R->plot_h = o->height;
        }
      else
        {
          R->scene_h = (int) lround (o->height * 2.0 / 3.0);
          R->plot_y = R->scene_h;
          R->plot_w = o->width;
          R->plot_h = o->height - R->scene_h;
        }
    }
  return CML_CLI_CONTINUE;
}

/* 2. OpenGL without a display, the scene renderer and its style. */
static int
open_scene (CmlRender *R)
{
  CmlRenderOptions *o = R->o;
  g_autoptr (GError) error = NULL;

  R->off = cml_offscreen_new (R->scene_w, R->scene_h, 0, &error);
  if (R->off == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  g_debug ("OpenGL: %s", cml_offscreen_describe (R->off));
  R->renderer = cml_scene_renderer_new (&error);
  if (R->renderer == NULL)
    {
      fprintf (stderr, _("cmlab-cli: cannot draw the scene: %s\n"), error->message);
      return CML_CLI_EXIT_USAGE;
    }
  cml_scene_renderer_set_system (R->renderer, R->sys);
  if (o->table_frame && !cml_scene_renderer_has_frame_angle (R->renderer))
    {
      fprintf (stderr,
               _("cmlab-cli: --frame table: %s has no trail with a frame-angle, so there is no "
               "turning frame to show it in\n"),
               cml_system_get_model (R->sys)->name);
      return CML_CLI_EXIT_USAGE;
    }
  R->style = cml_scene_style_default ();
  R->style.table_frame = o->table_frame;
  R->style.samples = SCENE_SAMPLES;
  /* trail and grid widths in proportion to the frame, as at 720 rows */
  R->style.scale = CLAMP (o->height / 720.0, 1.0, 4.0);
  return CML_CLI_CONTINUE;
}

/* 3. The pre-run: a failing run, the bounds, the plot's range; then the legend, the
 * camera and the plot; and back to the initial state for the drawn run. */
static int
pre_run (CmlRender *R)
{
  g_autoptr (GError) error = NULL;

  R->prep_total = R->n_frames + 1;
  report_prepare (R, 0);
  take_sample (R, SAMPLE_BOUNDS);
  for (guint k = 1; k < R->n_frames; k++)
    {
      if (interrupted)
        return not_written (R);
      report_prepare (R, 1);
      if (!step_to_frame (R, k, SAMPLE_BOUNDS, &error))
        {
          cml_cli_progress_done (&R->sim_progress);
          fprintf (stderr, _("cmlab-cli: run failed: %s\n"), error->message);
          cml_cli_progress_failed (&R->sim_progress, error->message);
          return CML_CLI_EXIT_RUN_FAILED;
        }
      cml_cli_progress_update (&R->sim_progress, cml_render_frame_time (R, k), cml_render_frame_time (R, R->n_frames - 1));
    }
  cml_cli_progress_done (&R->sim_progress);
  cml_render_make_legend (R);
  cml_render_make_clock (R);
  cml_render_frame_scene (R);
  g_debug ("pre-run %.3f s", (g_get_monotonic_time () - R->t_start) / 1e6);
  if (interrupted)
    return not_written (R);
  R->prep_done = R->prep_total - 1;
  report_prepare (R, 1);
  if (R->plot_index >= 0)
    cml_render_setup_plot (R);

  /* the same run again, drawn; the trails start over as time goes back to 0, the bounds
   * (the floor's extent) stay */
  if (!cml_simulation_reset (R->sim, R->given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  return CML_CLI_CONTINUE;
}

/* 4. ffmpeg and the writers. */
static int
start_video (CmlRender *R, const char *ffmpeg)
{
  g_autoptr (GError) error = NULL;

  if (!cml_video_start (R->video, ffmpeg, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  if (R->out.format == CML_VIDEO_GIF && R->o->fps > 50)
    fprintf (stderr, _("note: GIF frame delays are whole hundredths of a second and browsers slow "
                     "down GIFs faster than 50 fps; MP4 or WebM keep %g fps\n"), R->o->fps);
  return CML_CLI_CONTINUE;
}

/* 5. The drawn run: each frame's scene through OpenGL, read back through the ring of
 * pixel-buffer objects, the legend and the plot laid on, handed to the writers; then the
 * file is finished.  The exit status. */
static int
draw_frames (CmlRender *R)
{
  CmlRenderOptions *o = R->o;
  g_autoptr (GError) error = NULL;
  GQueue pending = G_QUEUE_INIT;
  gboolean progress = isatty (STDERR_FILENO), shown = FALSE;
  gint64 t_render = g_get_monotonic_time ();
  int status = CML_CLI_EXIT_USAGE;
  guint k;

  for (k = 0; k < R->n_frames; k++)
    {
      if (k == 0)
        take_sample (R, SAMPLE_PLOT);
      else if (!step_to_frame (R, k, SAMPLE_PLOT, &error))
        {
          if (shown)
            fputs ("\r\033[K", stderr);
          fprintf (stderr, _("cmlab-cli: run failed: %s\n"), error->message);
          status = CML_CLI_EXIT_RUN_FAILED;
          break;
        }
      CmlVideoFrame *b = cml_video_acquire_frame (R->video);
      if (b == NULL)
        break;
      b->index = k;
      if (R->plot_index >= 0)
        cml_render_draw_plot (R, b->rgba);
      cml_offscreen_bind (R->off);
      cml_scene_renderer_draw (R->renderer, R->n_values ? R->values : NULL, &R->camera, R->scene_w,
                               R->scene_h, &R->style);
      cml_offscreen_read_begin (R->off);
      g_queue_push_tail (&pending, b);
      if (pending.length >= READ_DEPTH)
        collect_frame (R, &pending);
      if (interrupted || cml_video_has_failed (R->video))
        break;
      if (progress)
        show_progress (k + 1, R->n_frames, (g_get_monotonic_time () - t_render) / 1e6, &shown);
      if (o->progress_lines && report_due (R, k + 1, R->n_frames))
        report_line ("progress", k + 1, R->n_frames, (g_get_monotonic_time () - t_render) / 1e6);
    }
  gboolean complete = k == R->n_frames && !interrupted;
  if (complete && o->progress_lines)
    {
      /* the encoder empties its queue and writes the index: seconds for a long video */
      fputs ("finishing\n", stdout);
      fflush (stdout);
    }
  /* what was drawn goes out (or back to the pool) before the writers stop */
  while (pending.length)
    {
      if (complete)
        collect_frame (R, &pending);
      else
        cml_video_release_frame (R->video, g_queue_pop_head (&pending));
    }
  cml_video_stop (R->video, complete);
  if (shown)
    fputs ("\r\033[K", stderr);

  if (interrupted)
    return not_written (R);
  if (status == CML_CLI_EXIT_RUN_FAILED)
    return status;
  /* ffmpeg finishes the file; then it takes its name */
  if (!cml_video_finish (R->video, &error))
    {
      if (g_error_matches (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_CANCELLED))
        return not_written (R);
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }

  double wall = (g_get_monotonic_time () - R->t_start) / 1e6;
  double render_wall = (g_get_monotonic_time () - t_render) / 1e6;
  fprintf (stderr,
           _("wrote %s: %s, %u frames of %d×%d at %g fps (%.3g s of video, t = 0 … %.6g of %s) "
           "in %.2f s (%.0f frames/s)\n"),
           R->out.path, cml_video_format_name (R->out.format), R->n_frames,
           o->width, o->height, o->fps, R->n_frames / o->fps, cml_render_frame_time (R, R->n_frames - 1),
           cml_system_get_model (R->sys)->name, wall, R->n_frames / MAX (render_wall, 1e-9));
  return 0;
}

int
cml_render_main (int argc, char **argv)
{
  CmlRenderOptions o = {
    .fps = 30, .speed = 1, .width = 1280, .height = 720,
  };
  CmlRender R = { .o = &o, .plot_index = -1, .y_min = INFINITY, .y_max = -INFINITY,
               .t_start = g_get_monotonic_time () };
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  g_autofree char *ffmpeg = NULL;
  int status;

  cml_cli_run_options_init (&o.run);
  status = check_request (argc, argv, &R, &iopt, &ffmpeg);
  if (status == CML_CLI_CONTINUE)
    {
      install_signal_handlers ();
      status = open_video (&R);
    }
  if (status != CML_CLI_CONTINUE)
    goto done;

  /* from here on every way out frees the video, which removes what is unfinished */
  if ((status = load_run (&R, &iopt)) == CML_CLI_CONTINUE
      && (status = open_scene (&R)) == CML_CLI_CONTINUE
      && (status = pre_run (&R)) == CML_CLI_CONTINUE
      && (status = start_video (&R, ffmpeg)) == CML_CLI_CONTINUE)
    status = draw_frames (&R);
  render_clear (&R);
done:
  cml_video_target_clear (&R.out);
  cml_cli_run_options_clear (&o.run);
  g_free (o.model);
  g_free (o.plot_column);
  return status;
}
