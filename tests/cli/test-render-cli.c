/* test-render-cli.c — `cmlab-cli render` as a user runs it, with no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each format is made and read back: MP4, WebM and GIF with ffprobe (frame count, size,
 * duration), PNG frames with Cairo (size, not blank).  A render of T seconds at F fps
 * has frames at t = k/F for k/F < T — T excluded — so 1 s at 10 fps is 10 frames and
 * 1.0 s of video.  Bad input (unknown format, bad size or fps, a directory that cannot
 * take the file, no ffmpeg on PATH) exits 2 and a diverging run exits 1 naming the time,
 * and none of them leaves a file behind; nor does an interrupted export.
 *
 * The executable comes from $CMLAB_CLI.  Video checks skip where ffmpeg or ffprobe is
 * missing, everything skips where there is no headless OpenGL (EGL).
 */
#define G_LOG_DOMAIN "test-render-cli"

#include "cli-util.h"
#include "cml-atomic-file.h"

#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define W 160
#define H 120

/* TRUE if this machine renders headlessly at all (else the test is skipped). */
static gboolean
have_gl (void)
{
  static int have = -1;
  if (have < 0)
    {
      g_autofree char *dir = cli_make_temp_dir ();
      g_autofree char *out = g_build_filename (dir, "f-%d.png", NULL);
      g_autofree char *err = NULL;
      const char *args[] = { "render", "rolling-ball", "--t-end", "0.1", "--fps", "10", "--size",
                             "32x32", "-o", out, NULL };
      int status = cli_run_argv (NULL, 0, NULL, &err, args);
      have = status == 0;
      if (!have)
        g_printerr ("# no headless rendering here (exit %d): %s", status, err);
      cli_remove_dir (dir);
    }
  return have;
}

static gboolean
skip_without_gl (void)
{
  if (have_gl ())
    return FALSE;
  g_test_skip ("no headless OpenGL (EGL) on this machine");
  return TRUE;
}

static gboolean
skip_without_ffmpeg (void)
{
  if (skip_without_gl ())
    return TRUE;
  g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");
  g_autofree char *ffprobe = g_find_program_in_path ("ffprobe");
  if (ffmpeg && ffprobe)
    return FALSE;
  g_test_skip ("ffmpeg or ffprobe is not installed");
  return TRUE;
}

/* ---- reading back ---------------------------------------------------------------------- */

/* The value of "KEY": in ffprobe's JSON (quoted or not), as a number. */
static double
json_number (const char *json, const char *key)
{
  g_autofree char *needle = g_strdup_printf ("\"%s\":", key);
  const char *p = strstr (json, needle);
  g_assert_nonnull (p);
  p += strlen (needle);
  while (*p == ' ' || *p == '"')
    p++;
  return g_ascii_strtod (p, NULL);
}

typedef struct
{
  int    frames, width, height;
  double duration;
} VideoInfo;

static void
probe (const char *path, VideoInfo *info)
{
  const char *argv[] = { "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                         "-show_entries", "stream=nb_read_frames,width,height",
                         "-show_entries", "format=duration", "-of", "json", path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
                               &err, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_test_message ("ffprobe %s: %s", path, out);
  info->frames = (int) json_number (out, "nb_read_frames");
  info->width = (int) json_number (out, "width");
  info->height = (int) json_number (out, "height");
  info->duration = json_number (out, "duration");
}

/* Pixels of an ARGB32 image that differ from its top-left pixel (the background). */
static guint
count_not_background (cairo_surface_t *s, int x0, int y0, int x1, int y1)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);
  guint32 bg = *(const guint32 *) (data + (gsize) y0 * stride + x0 * 4);
  guint n = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = *(const guint32 *) (data + (gsize) y * stride + x * 4);
        int d = 0;
        for (int c = 0; c < 24; c += 8)
          d = MAX (d, abs ((int) ((p >> c) & 0xff) - (int) ((bg >> c) & 0xff)));
        if (d > 24)
          n++;
      }
  return n;
}

/* A PNG file of W × H whose picture is not blank: returns the surface to look further. */
static cairo_surface_t *
check_png (const char *path, int width, int height)
{
  cairo_surface_t *s = cairo_image_surface_create_from_png (path);
  g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (s), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (s), ==, height);
  guint fg = count_not_background (s, 0, 0, width, height);
  g_assert_cmpuint (fg, >, (guint) (width * height / 20));
  return s;
}

/* ---- the formats ------------------------------------------------------------------------- */

static void
check_video (const char *ext)
{
  if (skip_without_ffmpeg ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *name = g_strdup_printf ("ball.%s", ext);
  g_autofree char *out = g_build_filename (dir, name, NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "1", "--fps", "10", "--size",
                         "160x120", "-o", out, NULL };

  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  g_test_message ("%s", err);
  /* the one-line summary */
  g_assert_nonnull (strstr (err, "wrote"));
  g_assert_nonnull (strstr (err, "10 frames"));

  VideoInfo info;
  probe (out, &info);
  g_assert_cmpint (info.frames, ==, 10);  /* t = 0, 0.1, …, 0.9: T excluded */
  g_assert_cmpint (info.width, ==, W);
  g_assert_cmpint (info.height, ==, H);
  g_assert_cmpfloat (fabs (info.duration - 1.0), <, 0.03);
  /* nothing else in the directory: the temporary file took the name */
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);

  /* a frame decoded again is the scene, not a blank picture */
  g_autofree char *png = g_build_filename (dir, "frame.png", NULL);
  const char *argv[] = { "ffmpeg", "-v", "error", "-i", out, "-frames:v", "1", "-y", png, NULL };
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  cairo_surface_destroy (check_png (png, W, H));
  cli_remove_dir (dir);
}

static void
test_mp4 (void)
{
  check_video ("mp4");
}

static void
test_webm (void)
{
  check_video ("webm");
}

static void
test_gif (void)
{
  check_video ("gif");
}

static void
test_png_frames (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "frame-%05d.png", NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "1", "--fps", "10", "--size",
                         "160x120", "-o", out, NULL };
  /* no ffmpeg needed for PNG frames */
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "PATH", "/nonexistent", TRUE);

  g_assert_cmpint (cli_run_argv (envp, 0, NULL, &err, args), ==, 0);
  g_assert_cmpuint (cli_count_entries (dir), ==, 10);
  for (guint k = 0; k < 10; k++)
    {
      g_autofree char *name = g_strdup_printf ("frame-%05u.png", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      cairo_surface_destroy (check_png (path, W, H));
    }
  cli_remove_dir (dir);

  /* the number of frames: ⌈T·F/S⌉, the frame at T itself left out */
  const struct
  {
    const char *t_end, *fps, *speed;
    guint frames;
  } counts[] = {
    { "2", "10", "2", 10 },     /* twice as fast: 2 s of simulation in 1 s of video */
    { "1.05", "10", "1", 11 },  /* t = 0 … 1.0 */
    { "0.3", "10", "0.5", 6 },  /* slow motion */
    { "0.01", "10", "1", 1 },   /* t = 0 only */
  };
  for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      g_autofree char *d = cli_make_temp_dir ();
      g_autofree char *o = g_build_filename (d, "f%d.png", NULL);
      g_autofree char *e = NULL;
      const char *a[] = { "render", "rolling-ball", "--t-end", counts[c].t_end, "--fps",
                          counts[c].fps, "--speed", counts[c].speed, "--size", "32x32", "-o", o,
                          NULL };
      g_assert_cmpint (cli_run_argv (envp, 0, NULL, &e, a), ==, 0);
      g_assert_cmpuint (cli_count_entries (d), ==, counts[c].frames);
      cli_remove_dir (d);
    }
}

/* --with-plot: the scene on the left two thirds, the plot on the right third, both drawn */
static void
test_with_plot (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "p%d.png", NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "2", "--fps", "2", "--size",
                         "480x240", "--with-plot", "energy", "-o", out, NULL };

  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  g_assert_cmpuint (cli_count_entries (dir), ==, 4);
  g_autofree char *last = g_build_filename (dir, "p3.png", NULL);
  cairo_surface_t *s = check_png (last, 480, 240);
  g_assert_cmpuint (count_not_background (s, 0, 0, 320, 240), >, 320 * 240 / 20);
  /* the plot: axes, labels and the curve on its own background */
  g_assert_cmpuint (count_not_background (s, 320, 0, 480, 240), >, 160 * 240 / 50);
  cairo_surface_destroy (s);

  /* an unknown quantity names the ones there are */
  const char *bad[] = { "render", "rolling-ball", "--t-end", "1", "--with-plot", "nosuch", "-o",
                        out, NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, bad), ==, 2);
  g_assert_nonnull (strstr (err, "nosuch"));
  g_assert_nonnull (strstr (err, "energy"));
  cli_remove_dir (dir);
}

/* Pixels of the rectangle (X0, Y0)–(X1, Y1) that differ between A and B. */
static guint
count_different (cairo_surface_t *a, cairo_surface_t *b, int x0, int y0, int x1, int y1)
{
  const guint8 *da = cairo_image_surface_get_data (a), *db = cairo_image_surface_get_data (b);
  int stride = cairo_image_surface_get_stride (a);
  guint n = 0;
  g_assert_cmpint (stride, ==, cairo_image_surface_get_stride (b));
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      if (*(const guint32 *) (da + (gsize) y * stride + x * 4) != *(const guint32 *) (db + (gsize) y * stride + x * 4))
        n++;
  return n;
}

/* Frame K of the frames "DIR/c%d.png" (freed by the caller). */
static cairo_surface_t *
load_frame (const char *dir, guint k)
{
  g_autofree char *name = g_strdup_printf ("c%u.png", k);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  return check_png (path, 320, 240);
}

/* The clock: every frame carries the simulated time in the scene's top-left corner (the
 * corner's pixels change from frame to frame as the reading does, while the scene there
 * stays the same), and --no-clock leaves it out. */
static void
test_clock (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *plain = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "c%d.png", NULL);
  g_autofree char *out_plain = g_build_filename (plain, "c%d.png", NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "1", "--fps", "10", "--size",
                         "320x240", "-o", out, NULL };
  const char *args_plain[] = { "render", "rolling-ball", "--t-end", "1", "--fps", "10", "--size",
                               "320x240", "--no-clock", "-o", out_plain, NULL };

  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args_plain), ==, 0);
  cairo_surface_t *c0 = load_frame (dir, 0), *c5 = load_frame (dir, 5);
  cairo_surface_t *p0 = load_frame (plain, 0), *p5 = load_frame (plain, 5);

  /* the corner: a fifth of the width, a sixth of the height */
  int cx = 320 / 5, cy = 240 / 6;
  /* without the clock the corner is the scene's, the same at t = 0 and t = 0.5 */
  g_assert_cmpuint (count_different (p0, p5, 0, 0, cx, cy), ==, 0);
  /* with it, the card covers part of the corner and its reading changes */
  g_assert_cmpuint (count_different (c0, p0, 0, 0, cx, cy), >, (guint) (cx * cy / 10));
  g_assert_cmpuint (count_different (c0, c5, 0, 0, cx, cy), >, 5);
  /* and nothing else of the frame differs */
  g_assert_cmpuint (count_different (c5, p5, 0, 0, 320, 240), ==, count_different (c5, p5, 0, 0, 320 / 2, 240 / 4));
  cairo_surface_destroy (c0);
  cairo_surface_destroy (c5);
  cairo_surface_destroy (p0);
  cairo_surface_destroy (p5);
  cli_remove_dir (dir);
  cli_remove_dir (plain);
}

/* On a terminal the progress line gives no time left until it has timed some frames
 * after the first (which carries the start-up): "estimating", never a guess from it. */
static void
test_terminal_estimate (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *script = g_find_program_in_path ("script");
  if (script == NULL)
    {
      g_test_skip ("no script(1) to give the command a terminal");
      return;
    }
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "e%d.png", NULL);
  g_autofree char *command = g_strdup_printf ("'%s' render rolling-ball --t-end 1 --fps 10 --size 160x120 -o '%s'",
                                              g_getenv ("CMLAB_CLI"), out);
  const char *argv[] = { script, "-q", "-e", "-c", command, "/dev/null", NULL };
  g_autofree char *tty = NULL;
  int status = -1;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "LANGUAGE", "C", TRUE);

  g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &tty, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_test_message ("%s", tty);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  /* the first frame's line */
  g_assert_nonnull (strstr (tty, "rendering: frame 1 of 10 (10%), estimating the time left"));
  g_assert_null (strstr (tty, "~"));
  cli_remove_dir (dir);
}

/* --frame table: the trail drawn in the turning table's frame (the rosette) */
static void
test_table_frame (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "t%03d.png", NULL);
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "20", "--fps", "0.5", "--size",
                         "160x120", "--frame", "table", "-o", out, NULL };
  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  g_assert_cmpuint (cli_count_entries (dir), ==, 10);
  g_autofree char *last = g_build_filename (dir, "t009.png", NULL);
  cairo_surface_destroy (check_png (last, W, H));

  /* a model with nothing turning has no table frame */
  const char *none[] = { "render", "martinet", "--t-end", "1", "--frame", "table", "-o", out, NULL };
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, none), ==, 2);
  g_assert_nonnull (strstr (err, "frame-angle"));
  g_assert_cmpuint (cli_count_entries (dir), ==, 10);
  cli_remove_dir (dir);
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void
test_bad_input (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *mp4 = g_build_filename (dir, "out.mp4", NULL);
  g_autofree char *avi = g_build_filename (dir, "out.avi", NULL);
  g_autofree char *plain_png = g_build_filename (dir, "out.png", NULL);
  g_autofree char *afile = g_build_filename (dir, "a-file", NULL);
  g_autofree char *under_file = g_build_filename (afile, "out.mp4", NULL);
  g_assert_true (g_file_set_contents (afile, "x", 1, NULL));
  const struct
  {
    const char *args[16];
    const char *message;  /* a piece of what standard error must say */
  } cases[] = {
    { { "--size", "160x120", "-o", avi }, "unknown format" },
    { { "--size", "160x120", "-o", plain_png }, "frame number" },
    { { "--size", "10x10", "-o", mp4 }, "--size" },
    { { "--size", "abc", "-o", mp4 }, "--size" },
    { { "--size", "160x", "-o", mp4 }, "--size" },
    { { "--size", "161x120", "-o", mp4 }, "even" },
    { { "--size", "100000x100", "-o", mp4 }, "--size" },
    { { "--fps", "0", "-o", mp4 }, "--fps" },
    { { "--fps", "-5", "-o", mp4 }, "--fps" },
    { { "--fps", "ten", "-o", mp4 }, "--fps" },
    { { "--fps", "nan", "-o", mp4 }, "--fps" },
    { { "--speed", "0", "-o", mp4 }, "--speed" },
    { { "--frame", "sideways", "-o", mp4 }, "--frame" },
    { { "-o", "/nonexistent/dir/out.mp4" }, "/nonexistent/dir/out.mp4" },
    { { "-o", "/nonexistent/dir/f-%03d.png" }, "/nonexistent/dir" },
    { { "-o", under_file }, "cannot write" },
    { { "--set", "r=100", "-o", mp4 }, "r" },
    { { "--init", "nosuch=1", "-o", mp4 }, "nosuch" },
    { { "--t-end", "-1", "-o", mp4 }, "--t-end" },
    { { "--bogus", "-o", mp4 }, "unknown option" },
    { { "--integrator", "euler", "-o", mp4 }, "unknown integrator" },
    { { "--rtol", "0", "-o", mp4 }, "--rtol" },
    { { "--progress", "bars", "-o", mp4 }, "--progress" },
    { { "--size", "160x120" }, "-o" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases) + 1; c++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_autofree char *ro = NULL, *ro_out = NULL;
      const char *const *extra = c < G_N_ELEMENTS (cases) ? cases[c].args : NULL;
      const char *message = c < G_N_ELEMENTS (cases) ? cases[c].message : "Permission denied";
      if (extra == NULL)
        {
          /* a directory we may not write to (root may write anywhere: not tested then) */
          if (geteuid () == 0)
            continue;
          ro = g_build_filename (dir, "read-only", NULL);
          g_assert_cmpint (g_mkdir (ro, 0500), ==, 0);
          ro_out = g_build_filename (ro, "out.mp4", NULL);
        }
      g_autofree char *err = NULL;
      g_ptr_array_add (args, "render");
      g_ptr_array_add (args, "rolling-ball");
      g_ptr_array_add (args, "--t-end");
      g_ptr_array_add (args, "1");
      for (guint i = 0; extra && extra[i]; i++)
        g_ptr_array_add (args, (char *) extra[i]);
      if (ro_out)
        {
          g_ptr_array_add (args, "-o");
          g_ptr_array_add (args, ro_out);
        }
      g_ptr_array_add (args, NULL);
      int status = cli_run_argv (NULL, 0, NULL, &err, (const char *const *) args->pdata);
      g_test_message ("case %u: exit %d: %s", c, status, err);
      g_assert_cmpint (status, ==, 2);
      g_assert_nonnull (strstr (err, message));
      if (ro)
        {
          g_assert_cmpuint (cli_count_entries (ro), ==, 0);
          g_rmdir (ro);
        }
      /* nothing left behind but the file the test made */
      g_assert_cmpuint (cli_count_entries (dir), ==, 1);
    }
  cli_remove_dir (dir);
}

/* Runs that hung: 1.2·10⁸ samples of the run (--t-end 1e9 at --speed 1e6), or a span no
 * integrator covers (t = 9·10²⁹⁹ in steps of 0.3): refused at once, exit 2, with a hint.
 * And the run options shared with simulate: --step only with a fixed-step method, a value
 * missing at the end named. */
static void
test_unreachable_and_run_options (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *frames = g_build_filename (dir, "f-%05d.png", NULL);
  struct { const char *args[16]; const char *expect; } cases[] = {
    { { "render", "rolling-ball", "--t-end", "1e9", "--speed", "1e6", "--size", "64x48", "-o", frames },
      "use a shorter --t-end" },
    { { "render", "rolling-ball", "--t-end", "1e300", "--speed", "1e299", "--fps", "1", "--size", "64x48", "-o",
        frames }, "out of reach" },
    { { "render", "rolling-ball", "--t-end", "1", "--step", "0.01", "--size", "64x48", "-o", frames },
      "--step sets the step of a fixed-step integrator" },
    { { "render", "rolling-ball", "--t-end", "1", "--size", "64x48", "-o" }, "option -o needs a value" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *err = NULL;
      int st = cli_run_argv_timed (60, NULL, &err, cases[k].args);
      g_test_message ("case %u: status %d: %s", k, st, err);
      if (st == -1)
        g_error ("case %u still ran after 60 s", k);
      g_assert_cmpint (st, ==, 2);
      g_assert_nonnull (strstr (err, cases[k].expect));
    }
  /* a fixed-step method with its step: drawn */
  {
    g_autofree char *err = NULL;
    const char *args[] = { "render", "rolling-ball", "--t-end", "0.5", "--fps", "4", "--size", "64x48",
                           "--integrator", "implicit-midpoint", "--step", "0.01", "-o", frames, NULL };
    g_assert_cmpint (cli_run_argv_timed (120, NULL, &err, args), ==, 0);
  }
  g_assert_cmpuint (cli_count_entries (dir), ==, 2);
  cli_remove_dir (dir);
}

/* with no ffmpeg on PATH a video cannot be made: say what to install, or what to do */
static void
test_no_ffmpeg (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "out.mp4", NULL);
  g_autofree char *err = NULL;
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "PATH", "/nonexistent", TRUE);
  const char *args[] = { "render", "rolling-ball", "--t-end", "1", "--fps", "10", "--size",
                         "160x120", "-o", out, NULL };

  g_assert_cmpint (cli_run_argv (envp, 0, NULL, &err, args), ==, 2);
  g_assert_nonnull (strstr (err, "ffmpeg is not installed: install it (Debian: apt-get install ffmpeg) "
                                 "or export PNG frames with -o DIR/frame-%05d.png"));
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

/* the model of cli-util.h that blows up at t ≈ 0.38, with something to draw */
static const char blowup_text[] =
  CLI_BLOWUP_MODEL
  "\n"
  "[scene p]\n"
  "type = point\n"
  "position = x, 0, 0\n";

static void
test_diverging (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "blowup.cml", blowup_text);
  const char *outs[] = { "out.mp4", "f-%04d.png" };

  for (guint i = 0; i < G_N_ELEMENTS (outs); i++)
    {
      g_autofree char *out = g_build_filename (dir, outs[i], NULL);
      g_autofree char *err = NULL;
      const char *args[] = { "render", model, "--t-end", "2", "--fps", "10", "--size", "160x120",
                             "-o", out, NULL };
      g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 1);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, "run failed"));
      g_assert_nonnull (strstr (err, "t = 0.38"));
      g_assert_cmpuint (cli_count_entries (dir), ==, 1);  /* the model file only */
    }
  cli_remove_dir (dir);
}

/* --progress lines: the preparation, then the frames drawn, counting up to the total,
 * then the finishing — each a whole line on standard output (the window's dialog reads
 * them); the options that make the export match the window's run are taken. */
static void
test_progress_lines (void)
{
  if (skip_without_ffmpeg ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "ball.mp4", NULL);
  g_autofree char *stdout_text = NULL, *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--set", "Omega=0.5", "--init", "x=0.25",
                         "--integrator", "rkf45", "--rtol", "1e-8", "--atol", "1e-10", "--t-end",
                         "3", "--fps", "10", "--size", "160x120", "--progress", "lines", "-o", out,
                         NULL };
  g_assert_cmpint (cli_run_argv (NULL, 0, &stdout_text, &err, args), ==, 0);
  g_test_message ("%s", stdout_text);
  g_assert_true (g_str_has_suffix (stdout_text, "\n"));

  g_auto (GStrv) lines = g_strsplit (stdout_text, "\n", -1);
  guint n_prepare = 0, n_progress = 0, last_done = 0, last_prep = 0;
  gboolean finishing = FALSE;
  for (guint i = 0; lines[i] && lines[i][0]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);
      if (g_str_equal (f[0], "finishing"))
        {
          g_assert_cmpuint (g_strv_length (f), ==, 1);
          g_assert_cmpuint (last_done, ==, 30);
          finishing = TRUE;
          continue;
        }
      g_assert_cmpuint (g_strv_length (f), ==, 4);
      guint done = (guint) g_ascii_strtoull (f[1], NULL, 10);
      guint total = (guint) g_ascii_strtoull (f[2], NULL, 10);
      double seconds = g_ascii_strtod (f[3], NULL);
      g_assert_cmpfloat (seconds, >=, 0);
      g_assert_false (finishing);
      if (g_str_equal (f[0], "prepare"))
        {
          g_assert_cmpuint (n_progress, ==, 0);  /* all before the first frame */
          g_assert_cmpuint (done, >=, last_prep);
          g_assert_cmpuint (done, <=, total);
          last_prep = done;
          n_prepare++;
        }
      else
        {
          g_assert_cmpstr (f[0], ==, "progress");
          g_assert_cmpuint (total, ==, 30);
          g_assert_cmpuint (done, >, last_done);
          g_assert_cmpuint (done, <=, total);
          last_done = done;
          n_progress++;
        }
    }
  g_assert_cmpuint (n_prepare, >=, 1);
  g_assert_cmpuint (n_progress, >=, 1);
  g_assert_true (finishing);

  VideoInfo info;
  probe (out, &info);
  g_assert_cmpint (info.frames, ==, 30);
  cli_remove_dir (dir);
}

/* A full disk (a file-size limit: writes past it fail as on a full disk), for a video
 * (ffmpeg writes it) and for PNG frames (we do): exit 2, a message that names the file
 * and the reason, and nothing left in the directory — no partial video, no temporary
 * file, none of the frames written before the disk filled. */
static void
test_full_disk (void)
{
  if (skip_without_ffmpeg ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *mp4 = g_build_filename (dir, "ball.mp4", NULL);
  g_autofree char *gif = g_build_filename (dir, "ball.gif", NULL);
  g_autofree char *png = g_build_filename (dir, "frame-%03d.png", NULL);
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  const char *const render_args[] = { "render", "rolling-ball", "--t-end", "10", "--fps", "10", "--size",
                                      "320x240", NULL };
  /* the frames' sizes, from the same render without a limit (they depend on the scene:
   * about 20–23 KB here, growing with the trail) */
  gsize smallest = G_MAXSIZE, largest = 0;
  {
    g_autofree char *calib = cli_make_temp_dir ();
    g_autofree char *pattern = g_build_filename (calib, "frame-%03d.png", NULL);
    const char *args[] = { render_args[0], render_args[1], render_args[2], render_args[3], render_args[4],
                           render_args[5], render_args[6], render_args[7], "-o", pattern, NULL };
    g_assert_cmpint (cli_run_argv (envp, 0, NULL, NULL, args), ==, 0);
    g_autoptr (GDir) d = g_dir_open (calib, 0, NULL);
    for (const char *f; d && (f = g_dir_read_name (d));)
      {
        g_autofree char *path = g_build_filename (calib, f, NULL);
        GStatBuf st;
        g_assert_cmpint (g_stat (path, &st), ==, 0);
        smallest = MIN (smallest, (gsize) st.st_size);
        largest = MAX (largest, (gsize) st.st_size);
      }
    cli_remove_dir (calib);
    g_assert_cmpuint (smallest, <, largest);
  }
  const struct
  {
    const char *out, *named;
    gsize limit;   /* bytes a file may have */
  } cases[] = {
    /* below the video's size: ffmpeg (5.1) fails only when it writes the index at the
     * end, and then exits with status 0 all the same */
    { mp4, mp4, 8 * 1024 },
    { gif, gif, 32 * 1024 },
    /* between the smallest frame's size and the largest's: some frames are written, a
     * larger one fails, and the ones written must go */
    { png, dir, (smallest + largest) / 2 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *err = NULL;
      const char *args[] = { render_args[0], render_args[1], render_args[2], render_args[3], render_args[4],
                             render_args[5], render_args[6], render_args[7], "-o", cases[c].out, NULL };
      int status = cli_run_argv (envp, cases[c].limit, NULL, &err, args);
      g_test_message ("%s: exit %d: %s", cases[c].out, status, err);
      g_assert_cmpint (status, ==, 2);
      g_assert_nonnull (strstr (err, "writing"));
      g_assert_nonnull (strstr (err, cases[c].named));
      g_assert_nonnull (strstr (err, "File too large"));
      g_assert_cmpuint (cli_count_entries (dir), ==, 0);
    }
  cli_remove_dir (dir);
}

/* Ctrl-C in the middle of an export: exit 130, no file, no temporary file */
static void
test_interrupted (void)
{
  if (skip_without_ffmpeg ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "long.mp4", NULL);
  /* long enough to be interrupted mid-encode, short enough that the pre-run (the whole
   * simulation before the first frame) is quick even under AddressSanitizer */
  const char *argv[] = { cli_path (), "render", "rolling-ball", "--t-end", "1000", "--fps", "10",
                         "--size", "160x120", "-o", out, NULL };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int status = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  /* wait until ffmpeg has written part of the video under its temporary name */
  gboolean writing = FALSE;
  for (int i = 0; i < 3600 && !writing; i++)
    {
      g_usleep (50 * 1000);
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (dir, name, NULL);
          GStatBuf st;
          if (g_stat (p, &st) == 0 && st.st_size > 0)
            writing = TRUE;
        }
    }
  g_assert_true (writing);
  kill (pid, SIGINT);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 130);
  g_assert_cmpuint (cli_count_entries (dir), ==, 0);
  cli_remove_dir (dir);
}

/* Killed outright (SIGKILL: no chance to clean up) in the middle of an export: the partial
 * video stays under a temporary name of ours, `.long.mp4.cmlab-tmp-PID-XXXXXX`, never
 * under the name asked for; the next export into the directory removes it. */
static void
test_killed_leftover (void)
{
  if (skip_without_ffmpeg ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "long.mp4", NULL);
  g_autofree char *next = g_build_filename (dir, "next.gif", NULL);
  const char *argv[] = { cli_path (), "render", "rolling-ball", "--t-end", "1000", "--fps", "10",
                         "--size", "160x120", "-o", out, NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *left = NULL;
  GPid pid;
  int status = 0;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 3600 && left == NULL; i++)
    {
      g_usleep (50 * 1000);
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (dir, name, NULL);
          GStatBuf st;
          if (g_stat (p, &st) == 0 && st.st_size > 0)
            left = g_strdup (name);
        }
    }
  g_assert_nonnull (left);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_test_message ("left behind: %s", left);
  {
    GPid owner = 0;
    g_assert_true (cml_atomic_file_is_temporary (left, &owner));
    g_assert_cmpint (owner, ==, pid);
    g_assert_true (g_str_has_prefix (left, ".long.mp4."));
  }
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  /* the next export into the directory */
  {
    g_autofree char *err = NULL;
    const char *args[] = { "render", "rolling-ball", "--t-end", "0.5", "--fps", "10", "--size",
                           "64x48", "-o", next, NULL };
    g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  }
  g_assert_true (g_file_test (next, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);
  cli_remove_dir (dir);
}

/* PNG frames are written to the frame files' targets with the same rules as any output:
 * a frame name that is a symbolic link is followed, the link stays. */
static void
test_png_frame_link (void)
{
  if (skip_without_gl ())
    return;
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *out = g_build_filename (dir, "f-%02d.png", NULL);
  g_autofree char *link = g_build_filename (dir, "f-00.png", NULL);
  g_autofree char *real = cli_write_file (dir, "real.png", "old");
  g_autofree char *err = NULL;
  const char *args[] = { "render", "rolling-ball", "--t-end", "0.3", "--fps", "10", "--size",
                         "64x48", "-o", out, NULL };
  GStatBuf st;

  g_assert_cmpint (symlink ("real.png", link), ==, 0);
  g_assert_cmpint (cli_run_argv (NULL, 0, NULL, &err, args), ==, 0);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  cairo_surface_destroy (check_png (real, 64, 48));
  /* f-00 (the link), f-01, f-02 and the file the link names */
  g_assert_cmpuint (cli_count_entries (dir), ==, 4);
  cli_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/render-cli/mp4", test_mp4);
  g_test_add_func ("/models/render-cli/webm", test_webm);
  g_test_add_func ("/models/render-cli/gif", test_gif);
  g_test_add_func ("/models/render-cli/png-frames", test_png_frames);
  g_test_add_func ("/models/render-cli/with-plot", test_with_plot);
  g_test_add_func ("/models/render-cli/table-frame", test_table_frame);
  g_test_add_func ("/models/render-cli/clock", test_clock);
  g_test_add_func ("/models/render-cli/terminal-estimate", test_terminal_estimate);
  g_test_add_func ("/models/render-cli/bad-input-exit-2", test_bad_input);
  g_test_add_func ("/models/render-cli/no-ffmpeg-exit-2", test_no_ffmpeg);
  g_test_add_func ("/models/render-cli/unreachable-and-run-options", test_unreachable_and_run_options);
  g_test_add_func ("/models/render-cli/diverging-run-exit-1", test_diverging);
  g_test_add_func ("/models/render-cli/interrupted-exit-130", test_interrupted);
  g_test_add_func ("/models/render-cli/killed-leftover-removed", test_killed_leftover);
  g_test_add_func ("/models/render-cli/png-frame-link", test_png_frame_link);
  g_test_add_func ("/models/render-cli/full-disk-exit-2", test_full_disk);
  g_test_add_func ("/models/render-cli/progress-lines", test_progress_lines);
  return g_test_run ();
}
