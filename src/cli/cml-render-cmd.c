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
 *      everything the whole run shows, clear of the legend (frame_scene);
 *   4. the run again from the same initial state (bit for bit the same trajectory),
 *      drawing each frame: the scene through OpenGL, read back through a ring of
 *      pixel-buffer objects (so the CPU steps and draws frame k+1 while frame k is copied
 *      out), the scene's legend over its bottom-left corner and the plot with Cairo beside
 *      or below it;
 *   5. a writer thread hands the frames to ffmpeg's standard input (ffmpeg runs in its
 *      own process group, so Ctrl-C reaches only us) — RGBA for GIF, 4:2:0 YUV for MP4
 *      and WebM — or writes PNG files.
 * Every file goes through cml-atomic-file.c: a video is written by ffmpeg under a
 * temporary name of ours in the target's directory (`.NAME.cmlab-tmp-PID-XXXXXX`) and
 * renamed only when ffmpeg has finished well; a failure or an interruption (SIGINT,
 * SIGTERM, SIGHUP) removes it, and the PNG frames a failed run had written.  A run that
 * was killed outright (SIGKILL) cannot clean up: its temporary is removed by the next run
 * that writes into the directory.  A device or a FIFO is written directly, a symbolic
 * link is followed, a read-only file is refused.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#define G_LOG_DOMAIN "cml-render-cmd"

#include "cml-render-cmd.h"

#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-camera.h"
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-offscreen.h"
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#include "cml-scene-renderer.h"

extern char **environ;

#define EXIT_INTERRUPTED   130
#define SAMPLES_PER_SECOND 240.0   /* trail and plot samples per simulated second, at least */
#define MAX_SUBSTEPS       4096    /* samples between two frames, at most */
#define MAX_FRAMES         1000000
#define MAX_SAMPLES        1e8     /* frames × samples between two frames, at most */
#define MIN_SIDE           16      /* px */
#define MAX_SIDE           8192    /* px */
#define MAX_FPS            240.0
#define MIN_FPS            0.01
#define N_BUFFERS          6       /* frame buffers shared by the renderer and the writers */
#define N_PNG_WRITERS      2       /* PNG compression is the slow part of PNG frames */
#define READ_DEPTH         2       /* frames drawn before the oldest is collected */
#define SCENE_SAMPLES      0       /* no MSAA: 4× makes drawing (llvmpipe) 3.4 times as costly
                                    * and a 720p60 export nearly twice as long */

static const char *render_usage =
  "Usage:\n"
  "  cmlab-cli render MODEL [--set P=V]... [--init S=V]... --t-end T --fps F --size WxH\n"
  "            [--frame lab|table] [--with-plot COL] [--speed S] [--integrator NAME]\n"
  "            [--rtol R] [--atol A] [--step H] [--progress lines] -o FILE.{mp4,webm,gif}\n"
  "  cmlab-cli render MODEL ... -o DIR/frame-%05d.png      (numbered PNG frames)\n"
  "\n"
  "Frame k shows simulated time k·S/F for every k with k·S/F < T: a video T/S seconds\n"
  "long.  Defaults: --fps 30, --size 1280x720, --speed 1, --frame lab.\n"
  "--progress lines prints, on standard output, `prepare DONE TOTAL SECONDS` while the run\n"
  "is simulated and the camera placed, then `progress DONE TOTAL SECONDS` as frames are\n"
  "drawn (SECONDS: since drawing began), then `finishing` while the file is completed.\n";

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

typedef enum
{
  OUT_MP4,
  OUT_WEBM,
  OUT_GIF,
  OUT_PNG,
} OutKind;

typedef struct
{
  CmlCliRunOptions run;        /* --set, --init, --t-end, --integrator, --rtol, --atol, --step, -o */
  char       *model;
  double      t_end, fps, speed;
  int         width, height;
  gboolean    table_frame;
  char       *plot_column;
  const char *output;
  gboolean    progress_lines;  /* --progress lines: machine-readable progress on stdout */
} RenderOptions;

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
  RenderOptions *o = data;

  if (g_str_equal (a, "--fps"))
    {
      /* (1e-9 reached ffmpeg, which refused the duration with a raw error) */
      if (!cml_cli_parse_double (val, &o->fps) || !(o->fps >= MIN_FPS) || o->fps > MAX_FPS)
        return cml_cli_option_error (error, "--fps needs frames per second from %g to %g, not “%s”", MIN_FPS, MAX_FPS,
                                    val);
    }
  else if (g_str_equal (a, "--size"))
    {
      if (!parse_size (val, &o->width, &o->height))
        return cml_cli_option_error (error, "--size needs WIDTHxHEIGHT in pixels, each %d to %d (e.g. 1280x720), not “%s”",
                                    MIN_SIDE, MAX_SIDE, val);
    }
  else if (g_str_equal (a, "--frame"))
    {
      if (g_str_equal (val, "lab"))
        o->table_frame = FALSE;
      else if (g_str_equal (val, "table"))
        o->table_frame = TRUE;
      else
        return cml_cli_option_error (error, "--frame must be lab or table, not “%s”", val);
    }
  else if (g_str_equal (a, "--with-plot"))
    {
      g_free (o->plot_column);
      o->plot_column = g_strdup (val);
    }
  else if (g_str_equal (a, "--speed"))
    {
      if (!cml_cli_parse_double (val, &o->speed) || !(o->speed > 0))
        return cml_cli_option_error (error, "--speed needs simulated seconds per second of video > 0, not “%s”", val);
    }
  else /* --progress */
    {
      if (g_str_equal (val, "lines"))
        o->progress_lines = TRUE;
      else if (g_str_equal (val, "auto"))
        o->progress_lines = FALSE;
      else
        return cml_cli_option_error (error, "--progress must be lines or auto, not “%s”", val);
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
  G_OPTION_ENTRY_NULL
};

/* Returns CML_CLI_CONTINUE, or an exit status after printing why. */
static int
parse_render_options (int argc, char **argv, RenderOptions *o)
{
  int status = cml_cli_parse_args (argc, argv, render_entries, o, &o->run, CML_CLI_RUN_OPTIONS_ALL, render_usage,
                                   &o->model);
  if (status != CML_CLI_CONTINUE)
    return status;
  o->t_end = o->run.t_end;
  o->output = o->run.output;
  if (!o->run.has_t_end)
    return cml_cli_usage_error (render_usage, "render needs --t-end T (simulated time to show)");
  if (o->output == NULL)
    return cml_cli_usage_error (render_usage,
                                "render needs -o FILE.mp4, FILE.webm, FILE.gif or DIR/frame-%%05d.png");
  return CML_CLI_CONTINUE;
}

/* ---- the output ----------------------------------------------------------------------- */

typedef struct
{
  OutKind kind;
  char   *path;        /* as given */
  char   *dir;         /* its directory */
  /* PNG frames: the name of frame k is PREFIX, k in DIGITS digits (zero-padded), SUFFIX */
  char   *png_prefix, *png_suffix;
  int     png_digits;
} OutSpec;

static void
out_spec_clear (OutSpec *s)
{
  g_clear_pointer (&s->path, g_free);
  g_clear_pointer (&s->dir, g_free);
  g_clear_pointer (&s->png_prefix, g_free);
  g_clear_pointer (&s->png_suffix, g_free);
}

/* Splits the file name of a PNG pattern at its one %d (or %0Nd); "%%" is a per cent sign.
 * Returns FALSE if there is not exactly one conversion, or another '%'. */
static gboolean
parse_png_pattern (const char *path, OutSpec *s)
{
  g_autofree char *dir = g_path_get_dirname (path);
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  GString *prefix = g_string_new_len (path, base - path);
  GString *suffix = g_string_new (NULL);
  GString *cur = prefix;
  int n_conv = 0, digits = 0;

  for (const char *p = base; *p; p++)
    {
      if (*p != '%')
        {
          g_string_append_c (cur, *p);
          continue;
        }
      if (p[1] == '%')
        {
          g_string_append_c (cur, '%');
          p++;
          continue;
        }
      const char *q = p + 1;
      gboolean zero = *q == '0';
      if (zero)
        q++;
      int width = 0;
      while (g_ascii_isdigit (*q) && width < 100)
        width = width * 10 + (*q++ - '0');
      if (*q != 'd' || n_conv > 0 || width > 12 || (width > 0 && !zero))
        {
          g_string_free (prefix, TRUE);
          g_string_free (suffix, TRUE);
          return FALSE;
        }
      n_conv++;
      digits = width;
      cur = suffix;
      p = q;
    }
  if (n_conv != 1)
    {
      g_string_free (prefix, TRUE);
      g_string_free (suffix, TRUE);
      return FALSE;
    }
  s->png_prefix = g_string_free (prefix, FALSE);
  s->png_suffix = g_string_free (suffix, FALSE);
  s->png_digits = digits;
  return TRUE;
}

static char *
png_frame_name (const OutSpec *s, guint k)
{
  return g_strdup_printf ("%s%0*u%s", s->png_prefix, s->png_digits, k, s->png_suffix);
}

static int
parse_output (const char *path, OutSpec *s)
{
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr (base, '.');

  s->path = g_strdup (path);
  s->dir = g_path_get_dirname (path);
  if (*base == '\0')
    return cml_cli_usage_error (render_usage, "-o needs a file name, not the directory “%s”", path);
  if (dot == NULL)
    return cml_cli_usage_error (render_usage,
                                "cannot tell the format of “%s”: give it the extension .mp4, .webm, "
                                ".gif or .png (with a frame number, e.g. frame-%%05d.png)",
                                path);
  if (g_ascii_strcasecmp (dot, ".mp4") == 0)
    s->kind = OUT_MP4;
  else if (g_ascii_strcasecmp (dot, ".webm") == 0)
    s->kind = OUT_WEBM;
  else if (g_ascii_strcasecmp (dot, ".gif") == 0)
    s->kind = OUT_GIF;
  else if (g_ascii_strcasecmp (dot, ".png") == 0)
    {
      s->kind = OUT_PNG;
      if (!parse_png_pattern (path, s))
        return cml_cli_usage_error (render_usage,
                                    "PNG frames need a file name with one frame number in it, such "
                                    "as DIR/frame-%%05d.png, not “%s”",
                                    path);
    }
  else
    return cml_cli_usage_error (render_usage,
                                "unknown format “%s” of “%s”: cmlab-cli render writes .mp4 (H.264), "
                                ".webm (VP9), .gif and numbered .png frames",
                                dot, path);
  return 0;
}

/* ---- ffmpeg --------------------------------------------------------------------------- */

typedef struct
{
  GPid   pid;
  int    stdin_fd;   /* the pipe's writing end; -1 once closed */
  int    stderr_fd;  /* an unlinked temporary file that receives ffmpeg's messages */
  CmlAtomicFile *video; /* the video, written by ffmpeg under a temporary name meanwhile
                          * (cml-atomic-file.c), or straight into a device or a FIFO */
} Ffmpeg;

static char *
format_double (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
}

/* MP4 and WebM get the frames already in the encoders' 4:2:0 YUV (see rgba_to_i420);
 * GIF gets RGBA, from which it makes its palette. */
static gboolean
sends_yuv (OutKind kind)
{
  return kind == OUT_MP4 || kind == OUT_WEBM;
}

/* RGBA (opaque, sRGB) to planar Y′CbCr 4:2:0 with the BT.709 matrix in limited range
 * (Y′ 16–235, Cb and Cr 16–240), chroma the mean of each 2×2 block; W and H even.  In
 * 16-bit fixed point:
 *   Y′ = 16  + ( 0.2126 R + 0.7152 G + 0.0722 B) · 219/255
 *   Cb = 128 + (−0.1146 R − 0.3854 G + 0.5    B) · 224/255
 *   Cr = 128 + ( 0.5    R − 0.4542 G − 0.0458 B) · 224/255
 * This is ffmpeg's own conversion (swscale) moved into our writer thread, where it costs
 * about half as much, and it makes the pipe carry 1.5 bytes a pixel instead of 4: at
 * 1280×720 × 60 fps a tenth of the whole export's CPU time. */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE_SIZE__)
__attribute__ ((optimize ("O3")))  /* vectorised: three times faster than at -O2 */
#endif
static void
rgba_to_i420 (const guint8 *restrict rgba, int w, int h, guint8 *restrict out)
{
  guint8 *Y = out, *U = out + (gsize) w * h, *V = U + (gsize) (w / 2) * (h / 2);

  for (int y = 0; y < h; y++)
    {
      const guint8 *s = rgba + (gsize) y * w * 4;
      guint8 *d = Y + (gsize) y * w;
      for (int x = 0; x < w; x++)
        d[x] = (guint8) ((11966 * s[4 * x] + 40254 * s[4 * x + 1] + 4064 * s[4 * x + 2]
                          + (16 << 16) + (1 << 15)) >> 16);
    }
  for (int y = 0; y < h / 2; y++)
    {
      const guint8 *s0 = rgba + (gsize) (2 * y) * w * 4, *s1 = s0 + (gsize) w * 4;
      guint8 *u = U + (gsize) y * (w / 2), *v = V + (gsize) y * (w / 2);
      for (int x = 0; x < w / 2; x++)
        {
          int r = s0[8 * x] + s0[8 * x + 4] + s1[8 * x] + s1[8 * x + 4];
          int g = s0[8 * x + 1] + s0[8 * x + 5] + s1[8 * x + 1] + s1[8 * x + 5];
          int b = s0[8 * x + 2] + s0[8 * x + 6] + s1[8 * x + 2] + s1[8 * x + 6];
          u[x] = (guint8) ((-6598 * r - 22187 * g + 28785 * b + (128 << 18) + (1 << 17)) >> 18);
          v[x] = (guint8) ((28785 * r - 26145 * g - 2640 * b + (128 << 18) + (1 << 17)) >> 18);
        }
    }
}

/* The command line for KIND: raw frames of W × H at FPS on standard input (yuv420p or
 * rgba, see sends_yuv). */
static GPtrArray *
ffmpeg_argv (const char *ffmpeg, OutKind kind, int width, int height, double fps, const char *out)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
#define ADD(...) G_STMT_START { const char *_v[] = { __VA_ARGS__ };                              \
    for (guint _i = 0; _i < G_N_ELEMENTS (_v); _i++) g_ptr_array_add (a, g_strdup (_v[_i])); } G_STMT_END

  g_ptr_array_add (a, g_strdup (ffmpeg));
  ADD ("-hide_banner", "-nostdin", "-loglevel", "error", "-y");
  g_ptr_array_add (a, g_strdup ("-f"));
  g_ptr_array_add (a, g_strdup ("rawvideo"));
  ADD ("-pix_fmt", sends_yuv (kind) ? "yuv420p" : "rgba");
  g_ptr_array_add (a, g_strdup ("-video_size"));
  g_ptr_array_add (a, g_strdup_printf ("%dx%d", width, height));
  g_ptr_array_add (a, g_strdup ("-framerate"));
  g_ptr_array_add (a, format_double (fps));
  ADD ("-i", "pipe:0");
  switch (kind)
    {
    case OUT_MP4:
      /* H.264 in yuv420p, which every browser and player decodes; BT.709 as HD video is
       * assumed to be; the index at the front so that a browser can start at once */
      ADD ("-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
           "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
           "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4");
      break;
    case OUT_WEBM:
      ADD ("-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
           "-b:v", "0", "-crf", "32", "-pix_fmt", "yuv420p", "-colorspace", "bt709",
           "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
           "-f", "webm");
      break;
    case OUT_GIF:
      /* one palette for the whole animation, from the pixels that change */
      ADD ("-filter_complex",
           "[0:v]split[a][b];[a]palettegen=stats_mode=diff[p];"
           "[b][p]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle",
           "-loop", "0", "-f", "gif");
      break;
    case OUT_PNG:
      g_assert_not_reached ();
    }
  /* file: so that a name with a colon is not taken for a protocol */
  g_ptr_array_add (a, g_strconcat ("file:", out, NULL));
  g_ptr_array_add (a, NULL);
#undef ADD
  return a;
}

static gboolean
ffmpeg_start (Ffmpeg *f, const char *ffmpeg, GPtrArray *argv, GError **error)
{
  int fds[2];
  g_autofree char *err_path = NULL;

  f->stderr_fd = g_file_open_tmp ("cmlab-ffmpeg-XXXXXX.log", &err_path, error);
  if (f->stderr_fd < 0)
    return FALSE;
  g_unlink (err_path);

  if (pipe2 (fds, O_CLOEXEC) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot make a pipe: %s", g_strerror (errno));
      return FALSE;
    }
#ifdef F_SETPIPE_SZ
  /* fewer, larger writes (ignored where the system limit is lower) */
  (void) fcntl (fds[1], F_SETPIPE_SZ, 1 << 20);
#endif

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  sigset_t defaults, none;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addopen (&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2 (&fa, f->stderr_fd, STDERR_FILENO);
  posix_spawnattr_init (&at);
  /* its own process group: a Ctrl-C in the terminal is ours to handle, not ffmpeg's
   * (which would otherwise finish the file as if all were well) */
  posix_spawnattr_setpgroup (&at, 0);
  sigemptyset (&defaults);
  sigaddset (&defaults, SIGPIPE);
  sigaddset (&defaults, SIGINT);
  sigaddset (&defaults, SIGTERM);
  sigaddset (&defaults, SIGHUP);
  posix_spawnattr_setsigdefault (&at, &defaults);
  sigemptyset (&none);
  posix_spawnattr_setsigmask (&at, &none);
  posix_spawnattr_setflags (&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t pid;
  int r = posix_spawn (&pid, ffmpeg, &fa, &at, (char **) argv->pdata, environ);
  posix_spawn_file_actions_destroy (&fa);
  posix_spawnattr_destroy (&at);
  close (fds[0]);
  if (r != 0)
    {
      close (fds[1]);
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot run %s: %s", ffmpeg, g_strerror (r));
      return FALSE;
    }
  f->pid = pid;
  f->stdin_fd = fds[1];
  return TRUE;
}

/* The last lines ffmpeg printed, or "". */
static char *
ffmpeg_messages (Ffmpeg *f)
{
  if (f->stderr_fd < 0)
    return g_strdup ("");
  GString *s = g_string_new (NULL);
  char buf[4096];
  ssize_t n;
  lseek (f->stderr_fd, 0, SEEK_SET);
  while ((n = read (f->stderr_fd, buf, sizeof buf)) > 0)
    {
      g_string_append_len (s, buf, n);
      if (s->len > 64 * 1024)
        g_string_erase (s, 0, s->len - 4096);
    }
  g_strstrip (s->str);
  s->len = strlen (s->str);
  if (s->len > 2000)
    g_string_erase (s, 0, s->len - 2000);
  return g_string_free (s, FALSE);
}

/* The reason, in a word a person knows, why ffmpeg could not write the file, if its
 * messages give one of the usual ones; else NULL.  Its messages are long and name the
 * temporary file; they are in English (ffmpeg sets no locale), ours in the user's
 * language. */
static const char *
ffmpeg_io_reason (const char *msgs)
{
  static const struct
  {
    const char *text;
    int         err;
  } reasons[] = {
    { "No space left on device", ENOSPC },
    { "File too large", EFBIG },
    { "Disk quota exceeded", EDQUOT },
    { "Read-only file system", EROFS },
    { "Permission denied", EACCES },
    { "Input/output error", EIO },
  };
  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (strstr (msgs, reasons[i].text))
      return g_strerror (reasons[i].err);
  return NULL;
}

/* Waits for ffmpeg (killing it first if KILL); TRUE if it exited with status 0. */
static gboolean
ffmpeg_finish (Ffmpeg *f, gboolean kill_it)
{
  if (f->stdin_fd >= 0)
    {
      close (f->stdin_fd);
      f->stdin_fd = -1;
    }
  if (f->pid <= 0)
    return FALSE;
  if (kill_it)
    kill (f->pid, SIGKILL);
  int status = 0;
  for (;;)
    {
      pid_t r = waitpid (f->pid, &status, 0);
      if (r == f->pid)
        break;
      if (r < 0 && errno != EINTR)
        {
          status = -1;
          break;
        }
      /* interrupted while ffmpeg finishes the file: it is no longer wanted */
      if (interrupted)
        kill (f->pid, SIGKILL);
    }
  f->pid = 0;
  return status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* ---- the writer thread ------------------------------------------------------------------- */

typedef struct
{
  guint8 *rgba;   /* the whole frame, WIDTH × HEIGHT × 4 */
  guint   index;  /* frame number */
} FrameBuf;

static FrameBuf end_of_frames;  /* the sentinel that ends the writer */

typedef struct
{
  GAsyncQueue *free_q, *full_q;  /* FrameBuf* */
  GThread     *threads[N_PNG_WRITERS];
  guint        n_threads;
  const OutSpec *out;
  int          width, height;
  int          fd;               /* ffmpeg's standard input (videos) */
  gint         failed;           /* atomic: a writer gave up; MESSAGE says why */
  GMutex       lock;             /* MESSAGE and WRITTEN */
  char        *message;
  GPtrArray   *written;          /* PNG files made so far (char*), to remove on failure */
} Writer;

static void
writer_fail (Writer *w, char *message)
{
  g_mutex_lock (&w->lock);
  if (w->message == NULL)
    w->message = message;
  else
    g_free (message);
  g_mutex_unlock (&w->lock);
  g_atomic_int_set (&w->failed, 1);
}

/* Stops the writers once they have written what is queued. */
static void
writer_join (Writer *w)
{
  for (guint i = 0; i < w->n_threads; i++)
    g_async_queue_push (w->full_q, &end_of_frames);
  for (guint i = 0; i < w->n_threads; i++)
    g_thread_join (w->threads[i]);
  w->n_threads = 0;
}

static gboolean
write_all (int fd, const guint8 *data, gsize size, int *err)
{
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);
      if (n < 0)
        {
          if (errno == EINTR && !interrupted)
            continue;
          *err = errno;
          return FALSE;
        }
      data += n;
      size -= n;
    }
  return TRUE;
}

static cairo_status_t
png_write_func (void *closure, const unsigned char *data, unsigned int length)
{
  int *fd_err = closure;
  if (!write_all (fd_err[0], data, length, &fd_err[1]))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

/* Writes frame B as a PNG file: Cairo's ARGB32 (native-endian, premultiplied; our pixels
 * are opaque) from RGBA, into a temporary file renamed when complete. */
static gboolean
write_png (Writer *w, const FrameBuf *b, guint32 *argb)
{
  gsize n = (gsize) w->width * w->height;
  for (gsize i = 0; i < n; i++)
    {
      const guint8 *p = b->rgba + i * 4;
      argb[i] = (guint32) p[3] << 24 | (guint32) p[0] << 16 | (guint32) p[1] << 8 | p[2];
    }
  cairo_surface_t *surface = cairo_image_surface_create_for_data ((unsigned char *) argb,
                                                                  CAIRO_FORMAT_ARGB32, w->width,
                                                                  w->height, w->width * 4);
  g_autofree char *name = png_frame_name (w->out, b->index);
  g_autoptr (GError) error = NULL;
  /* all or nothing, under a temporary name of ours, never in place of a device or a link */
  g_autoptr (CmlAtomicFile) file = cml_atomic_file_new (name, CML_ATOMIC_FILE_DEFAULT, &error);
  if (file == NULL)
    {
      cairo_surface_destroy (surface);
      writer_fail (w, g_strdup (error->message));
      return FALSE;
    }
  int fd_err[2] = { cml_atomic_file_get_fd (file), 0 };
  cairo_status_t st = cairo_surface_write_to_png_stream (surface, png_write_func, fd_err);
  cairo_surface_destroy (surface);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      writer_fail (w, g_strdup_printf ("%s: %s", name,
                                       fd_err[1] ? g_strerror (fd_err[1]) : cairo_status_to_string (st)));
      return FALSE; /* the free removes the temporary file */
    }
  if (!cml_atomic_file_commit (file, &error))
    {
      writer_fail (w, g_strdup (error->message));
      return FALSE;
    }
  g_mutex_lock (&w->lock);
  g_ptr_array_add (w->written, g_steal_pointer (&name));
  g_mutex_unlock (&w->lock);
  return TRUE;
}

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;
  gsize size = (gsize) w->width * w->height * 4;
  gsize yuv_size = (gsize) w->width * w->height * 3 / 2;
  g_autofree guint32 *argb = w->out->kind == OUT_PNG ? g_malloc (size) : NULL;
  g_autofree guint8 *yuv = sends_yuv (w->out->kind) ? g_malloc (yuv_size) : NULL;

  for (;;)
    {
      FrameBuf *b = g_async_queue_pop (w->full_q);
      if (b == &end_of_frames)
        break;
      if (!g_atomic_int_get (&w->failed))
        {
          int err = 0;
          if (w->out->kind == OUT_PNG)
            write_png (w, b, argb);
          else if (yuv)
            {
              rgba_to_i420 (b->rgba, w->width, w->height, yuv);
              if (!write_all (w->fd, yuv, yuv_size, &err))
                writer_fail (w, g_strdup_printf ("ffmpeg stopped taking frames (%s)", g_strerror (err)));
            }
          else if (!write_all (w->fd, b->rgba, size, &err))
            writer_fail (w, g_strdup_printf ("ffmpeg stopped taking frames (%s)", g_strerror (err)));
        }
      g_async_queue_push (w->free_q, b);
    }
  return NULL;
}

/* ---- the scene and the plot ------------------------------------------------------------- */

typedef struct
{
  RenderOptions  *o;
  OutSpec         out;
  CmlSimulation  *sim;
  CmlSystem      *sys;
  GHashTable     *given;       /* --init */
  guint           n_scene, n_obs;
  double         *scene, *obs;
  /* what the scene renderer reads: the scene values, or the observables for a model
   * without a scene (cml_scene_values_are_observables) */
  guint           n_values;
  double         *values;
  int             plot_index;  /* observable plotted, or -1 */

  guint           n_frames;
  guint           substeps;    /* samples from one frame to the next */
  double          frame_dt;    /* simulated time between frames */

  /* layout: the scene at (scene_x, scene_y), SCENE_W × SCENE_H; the plot likewise */
  int             scene_x, scene_y, scene_w, scene_h;
  int             plot_x, plot_y, plot_w, plot_h;

  CmlOffscreen     *off;
  CmlSceneRenderer *renderer;
  CmlSceneStyle     style;
  CmlCamera         camera;
  /* the scene's legend, drawn once (premultiplied ARGB32), laid over every frame */
  cairo_surface_t  *legend;
  int               legend_x, legend_y;

  CmlPlot          *plot;
  CmlPlotSeries    *series;
  CmlPlotStyle      plot_style;
  cairo_surface_t  *plot_surface;
  double            y_min, y_max;  /* of the plotted quantity over the run */

  /* --progress lines */
  gint64            t_start;       /* µs, monotonic: when the command began */
  gint64            last_report;   /* µs, monotonic: the last line printed */
  guint             prep_done, prep_total;  /* simulated frames before drawing */
} Render;

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
report_due (Render *R, guint done, guint total)
{
  gint64 now = g_get_monotonic_time ();
  if (now - R->last_report < 100000 && done < total && R->last_report != 0)
    return FALSE;
  R->last_report = now;
  return TRUE;
}

/* The preparation (the pre-run, one pass over the run) has simulated N more frames. */
static void
report_prepare (Render *R, guint n)
{
  if (!R->o->progress_lines)
    return;
  R->prep_done = MIN (R->prep_done + n, R->prep_total);
  if (report_due (R, R->prep_done, R->prep_total))
    report_line ("prepare", R->prep_done, R->prep_total, (g_get_monotonic_time () - R->t_start) / 1e6);
}

static double
frame_time (const Render *R, guint k)
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
take_sample (Render *R, SampleMode mode)
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
step_to_frame (Render *R, guint k, SampleMode mode, GError **error)
{
  double t0 = frame_time (R, k - 1), t1 = frame_time (R, k);
  for (guint j = 1; j <= R->substeps; j++)
    {
      double t = j == R->substeps ? t1 : t0 + (t1 - t0) * j / R->substeps;
      if (!cml_simulation_advance (R->sim, t, error))
        return FALSE;
      take_sample (R, mode);
    }
  return TRUE;
}

/* ---- the camera and the legend ------------------------------------------------------------ */

/* The legend's card, drawn once: it names what the video shows and does not change. */
static void
make_legend (Render *R)
{
  /* in proportion to the frame, as at 720 rows, but never more than 60 % of the scene's
   * width or half its height; too small to read (a thumbnail), none */
  CmlSceneStyle style = R->style;
  double w, h;
  style.scale = 1;
  if (!cml_scene_legend_measure (R->sys, &style, &w, &h))
    return;
  double scale = MIN (CLAMP (R->o->height / 720.0, 0.5, 4.0),
                      MIN (0.6 * R->scene_w / w, 0.5 * R->scene_h / h));
  if (scale < 0.5)
    return;
  style.scale = scale;
  cml_scene_legend_measure (R->sys, &style, &w, &h);
  int margin = (int) lround (10 * scale);
  int lw = MIN ((int) ceil (w), R->scene_w - 2 * margin);
  int lh = MIN ((int) ceil (h), R->scene_h - 2 * margin);
  if (lw <= 0 || lh <= 0)
    return;
  R->legend = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, lw, lh);
  cairo_t *cr = cairo_create (R->legend);
  cml_scene_legend_draw (R->sys, cr, &style);
  cairo_destroy (cr);
  cairo_surface_flush (R->legend);
  R->legend_x = R->scene_x + margin;
  R->legend_y = R->scene_y + R->scene_h - margin - lh;
}

/* Lays the legend over the RGBA frame FRAME (premultiplied over opaque). */
static void
draw_legend (Render *R, guint8 *frame)
{
  if (R->legend == NULL)
    return;
  const guint8 *src = cairo_image_surface_get_data (R->legend);
  int src_stride = cairo_image_surface_get_stride (R->legend);
  int lw = cairo_image_surface_get_width (R->legend), lh = cairo_image_surface_get_height (R->legend);
  gsize stride = (gsize) R->o->width * 4;
  for (int y = 0; y < lh; y++)
    {
      const guint32 *s = (const guint32 *) (src + (gsize) y * src_stride);
      guint8 *d = frame + (gsize) (R->legend_y + y) * stride + (gsize) R->legend_x * 4;
      for (int x = 0; x < lw; x++)
        {
          guint32 p = s[x];
          guint a = p >> 24;
          if (a == 0)
            continue;
          guint inv = 255 - a;
          d[4 * x + 0] = ((p >> 16) & 0xff) + (d[4 * x + 0] * inv + 127) / 255;
          d[4 * x + 1] = ((p >> 8) & 0xff) + (d[4 * x + 1] * inv + 127) / 255;
          d[4 * x + 2] = (p & 0xff) + (d[4 * x + 2] * inv + 127) / 255;
        }
    }
}

/* The camera: the window's default three-quarter view, fitted as the window fits it to
 * everything the whole run shows (the pre-run's bounds: bodies, trails, the table at its
 * final size), with the legend's corner kept free. */
static void
frame_scene (Render *R)
{
  double keep_out[2] = { 0, 0 };
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  cml_scene_renderer_get_frame_points (R->renderer, R->n_values ? R->values : NULL, &R->style, points);
  if (R->legend)
    {
      keep_out[0] = (double) (R->legend_x - R->scene_x + cairo_image_surface_get_width (R->legend)) / R->scene_w;
      keep_out[1] = (double) (R->scene_y + R->scene_h - R->legend_y) / R->scene_h;
    }
  cml_camera_init (&R->camera);
  cml_camera_fit_points (&R->camera, (double *) points->data, points->len,
                         (double) R->scene_w / R->scene_h, keep_out, TRUE);
  R->camera.auto_fit = FALSE;
}

/* The plot of the chosen observable against time over [0, T], its y range fixed to
 * what the whole run reaches, so nothing jumps while the curve grows. */
static void
setup_plot (Render *R)
{
  CmlModel *model = cml_system_get_model (R->sys);
  const char *name = cml_system_observable_name (R->sys, R->plot_index);
  const char *unit = cml_model_unit (model, name);
  if (unit == NULL || g_str_equal (unit, "1"))
    unit = "";

  R->plot = cml_plot_new ();
  R->series = cml_plot_series_new (name, unit);
  cml_plot_add_series (R->plot, R->series);
  cml_plot_set_title (R->plot, model->title);
  cml_plot_axis_set_label (cml_plot_get_x_axis (R->plot), "t", model->time_unit ? model->time_unit : "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (R->plot), name, unit);
  cml_plot_set_time_window (R->plot, R->o->t_end);
  cml_plot_axis_set_range (cml_plot_get_x_axis (R->plot), 0, R->o->t_end);

  CmlPlotAxis *y = cml_plot_get_y_axis (R->plot);
  if (R->y_min <= R->y_max)
    {
      /* auto-scale once, to the whole run's range, then keep it */
      cml_plot_axis_fit (y, R->y_min, R->y_max, TRUE);
      double lo, hi;
      cml_plot_axis_get_range (y, &lo, &hi);
      if (hi > lo)
        cml_plot_axis_set_range (y, lo, hi);
    }

  /* fonts and lines in proportion to the frame: the default style suits 720 rows */
  cml_plot_style_init (&R->plot_style, FALSE, FALSE);
  {
    /* one background for the whole frame */
    float bg[4];
    cml_scene_style_get_background (&R->style, bg);
    R->plot_style.background = (CmlPlotRgba) { bg[0], bg[1], bg[2], 1.f };
  }
  R->plot_style.scale = CLAMP (R->o->height / 720.0, 0.5, 4.0);
  R->plot_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, R->plot_w, R->plot_h);
}

/* Draws the plot as it stands into its rectangle of the RGBA frame FRAME. */
static void
draw_plot (Render *R, guint8 *frame)
{
  cairo_t *cr = cairo_create (R->plot_surface);
  cml_plot_cairo_draw (R->plot, cr, R->plot_w, R->plot_h, &R->plot_style);
  cairo_destroy (cr);
  cairo_surface_flush (R->plot_surface);

  const guint8 *src = cairo_image_surface_get_data (R->plot_surface);
  int src_stride = cairo_image_surface_get_stride (R->plot_surface);
  gsize stride = (gsize) R->o->width * 4;
  for (int y = 0; y < R->plot_h; y++)
    {
      const guint32 *s = (const guint32 *) (src + (gsize) y * src_stride);
      guint8 *d = frame + (gsize) (R->plot_y + y) * stride + (gsize) R->plot_x * 4;
      for (int x = 0; x < R->plot_w; x++)
        {
          /* ARGB32 is premultiplied; the plot's background is opaque, so it is plain */
          guint32 p = s[x];
          d[4 * x + 0] = (p >> 16) & 0xff;
          d[4 * x + 1] = (p >> 8) & 0xff;
          d[4 * x + 2] = p & 0xff;
          d[4 * x + 3] = 0xff;
        }
    }
}

static void
render_clear (Render *R)
{
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
  g_clear_pointer (&R->series, cml_plot_series_unref);
  g_clear_pointer (&R->plot, cml_plot_unref);
  g_clear_pointer (&R->sim, cml_simulation_free);
  g_clear_pointer (&R->given, g_hash_table_unref);
  g_free (R->scene);
  g_free (R->obs);
  out_spec_clear (&R->out);
}

/* ---- progress ---------------------------------------------------------------------------- */

static void
show_progress (guint done, guint total, double elapsed, gboolean *shown)
{
  static double last = -1;
  if (last >= 0 && elapsed - last < 0.25 && done < total)
    return;
  last = elapsed;
  double left = done > 0 ? elapsed / done * (total - done) : 0;
  fprintf (stderr, "\r\033[Krendering: frame %u of %u (%.0f%%), %s%.0f s left", done, total,
           100.0 * done / total, done > 0 ? "" : "~", ceil (left));
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

static const char *
kind_name (OutKind k)
{
  switch (k)
    {
    case OUT_MP4: return "MP4 (H.264)";
    case OUT_WEBM: return "WebM (VP9)";
    case OUT_GIF: return "GIF";
    case OUT_PNG: return "PNG frames";
    }
  return "";
}

/* Acquires a free frame buffer, waiting for the writer; NULL if interrupted or the
 * writer failed meanwhile. */
static FrameBuf *
acquire_buffer (Writer *w)
{
  for (;;)
    {
      FrameBuf *b = g_async_queue_timeout_pop (w->free_q, 100 * 1000);
      if (b)
        return b;
      if (interrupted || g_atomic_int_get (&w->failed))
        return NULL;
    }
}

/* Collects the oldest frame drawn from the pixel-buffer ring into the buffer waiting for
 * it and hands it to the writer. */
static void
collect_frame (Render *R, GQueue *pending, Writer *w)
{
  FrameBuf *b = g_queue_pop_head (pending);
  gsize stride = (gsize) R->o->width * 4;
  guint8 *dst = b->rgba + (gsize) R->scene_y * stride + (gsize) R->scene_x * 4;
  if (!cml_offscreen_read_end (R->off, dst, stride))
    memset (dst, 0, stride * R->scene_h);
  draw_legend (R, b->rgba);
  g_async_queue_push (w->full_q, b);
}

int
cml_render_main (int argc, char **argv)
{
  RenderOptions o = {
    .fps = 30, .speed = 1, .width = 1280, .height = 720,
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *ffmpeg = NULL;
  Render R = { .o = &o, .plot_index = -1, .y_min = INFINITY, .y_max = -INFINITY };
  Ffmpeg ff = { .stdin_fd = -1, .stderr_fd = -1 };
  Writer w = { 0 };
  FrameBuf bufs[N_BUFFERS] = { { 0 } };
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlCliProgress sim_progress;
  int status;
  gint64 t_start = g_get_monotonic_time ();

  /* 1. arguments and output */
  cml_cli_run_options_init (&o.run);
  if ((status = parse_render_options (argc, argv, &o)) != CML_CLI_CONTINUE)
    goto done_early;
  if ((status = parse_output (o.output, &R.out)) != 0)
    goto done_early;
  {
    /* where the frames go: a directory that exists and takes files */
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", o.output, &why))
      {
        status = cml_cli_usage_error (render_usage, "%s", why);
        goto done_early;
      }
  }
  if ((status = cml_cli_run_options_integrator (&o.run, &iopt, render_usage)) != 0)
    goto done_early;
  if (R.out.kind == OUT_MP4 || R.out.kind == OUT_WEBM)
    if (o.width % 2 || o.height % 2)
      {
        status = cml_cli_usage_error (render_usage,
                                    "--size %dx%d: %s needs an even width and height (4:2:0 "
                                    "colour); try %dx%d",
                                    o.width, o.height, R.out.kind == OUT_MP4 ? "MP4" : "WebM",
                                    o.width + o.width % 2, o.height + o.height % 2);
        goto done_early;
      }
  double n_exact = o.t_end * o.fps / o.speed;
  if (!(n_exact <= MAX_FRAMES))
    {
      status = cml_cli_usage_error (render_usage,
                                    "--t-end %g at --fps %g and --speed %g asks for %.0f frames, more "
                                    "than %d: use a shorter --t-end or a smaller --fps",
                                    o.t_end, o.fps, o.speed, n_exact, MAX_FRAMES);
      goto done_early;
    }
  /* frames at k·S/F < T; the tolerance keeps a whole T·F/S from gaining a frame to
   * rounding */
  R.n_frames = (guint) MAX (1.0, ceil (n_exact - 1e-9));
  R.frame_dt = o.speed / o.fps;
  R.substeps = (guint) CLAMP (ceil (R.frame_dt * SAMPLES_PER_SECOND - 1e-9), 1, MAX_SUBSTEPS);
  /* every sample is a step of the simulation, twice (the pre-run and the drawn run) */
  if ((double) R.n_frames * R.substeps > MAX_SAMPLES)
    {
      status = cml_cli_usage_error (render_usage,
                                    "--t-end %g at --fps %g and --speed %g asks for %.3g samples of the run (%u "
                                    "frames of %u), more than 10^8: use a shorter --t-end or a smaller --fps",
                                    o.t_end, o.fps, o.speed, (double) R.n_frames * R.substeps, R.n_frames,
                                    R.substeps);
      goto done_early;
    }

  if (R.out.kind != OUT_PNG)
    {
      ffmpeg = g_find_program_in_path ("ffmpeg");
      if (ffmpeg == NULL)
        {
          fprintf (stderr,
                   "cmlab-cli: ffmpeg is not installed: install it (Debian: apt-get install ffmpeg) "
                   "or export PNG frames with -o DIR/frame-%%05d.png\n");
          status = CML_CLI_EXIT_USAGE;
          goto done_early;
        }
    }

  install_signal_handlers ();

  /* the target must take the file (cml-atomic-file.c: not a directory, not a read-only
   * file; a device or a FIFO is written directly): a video's temporary file now, a probe
   * of the first frame's name for PNGs.  Temporaries left by a killed export go now. */
  {
    g_autoptr (GError) werr = NULL;
    g_autofree char *first = R.out.kind == OUT_PNG ? png_frame_name (&R.out, 0) : NULL;
    CmlAtomicFile *probe = cml_atomic_file_new (first ? first : R.out.path, CML_ATOMIC_FILE_EXTERNAL, &werr);
    if (probe == NULL)
      {
        fprintf (stderr, "cmlab-cli: %s\n", werr->message);
        status = CML_CLI_EXIT_USAGE;
        goto done_early;
      }
    if (R.out.kind == OUT_PNG)
      cml_atomic_file_free (probe);
    else
      ff.video = probe;
  }

  /* from here on every way out goes through `done`, which removes what is unfinished */
  status = CML_CLI_EXIT_USAGE;

  /* the model, --set, --init */
  R.given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if ((status = cml_cli_parse_inits (o.run.inits, R.given, render_usage)) != 0)
    goto done;
  if ((status = cml_cli_open_simulation (o.model, o.run.sets, render_usage, &R.sim)) != 0)
    goto done;
  status = CML_CLI_EXIT_USAGE;
  cml_cli_progress_init (&sim_progress, "simulating", &iopt);
  if (!cml_simulation_set_integrator (R.sim, &iopt, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      goto done;
    }
  if (!cml_simulation_reset (R.sim, R.given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      goto done;
    }
  {
    /* a span the integrator cannot cover */
    g_autofree char *why = NULL;
    if (!cml_cli_check_span (R.sim, R.given, frame_time (&R, R.n_frames - 1), &why))
      {
        fprintf (stderr, "cmlab-cli: %s\n", why);
        goto done;
      }
  }
  {
    const GPtrArray *report = cml_simulation_get_projection_report (R.sim);
    for (guint k = 0; k < report->len; k++)
      fprintf (stderr, "note: %s\n", (char *) report->pdata[k]);
  }
  R.sys = cml_simulation_get_system (R.sim);
  R.n_scene = cml_system_n_scene_values (R.sys);
  R.n_obs = cml_system_n_observables (R.sys);
  R.scene = g_new0 (double, MAX (R.n_scene, 1));
  R.obs = g_new0 (double, MAX (R.n_obs, 1));
  gboolean observables = cml_scene_values_are_observables (R.sys);
  R.values = observables ? R.obs : R.scene;
  R.n_values = observables ? R.n_obs : R.n_scene;

  if (o.plot_column)
    {
      R.plot_index = cml_system_observable_index (R.sys, o.plot_column);
      if (R.plot_index < 0)
        {
          GString *names = g_string_new (NULL);
          for (guint i = 0; i < R.n_obs; i++)
            g_string_append_printf (names, "%s%s", i ? ", " : "", cml_system_observable_name (R.sys, i));
          fprintf (stderr, "cmlab-cli: --with-plot: %s has no quantity “%s”; it has %s\n",
                   cml_system_get_model (R.sys)->name, o.plot_column, names->str);
          g_string_free (names, TRUE);
          goto done;
        }
    }

  /* layout: the scene on the left two thirds and the plot on the right third of a
   * landscape frame; the scene above and the plot below in a portrait one */
  R.scene_w = o.width;
  R.scene_h = o.height;
  if (R.plot_index >= 0)
    {
      if (o.width >= o.height)
        {
          R.scene_w = (int) lround (o.width * 2.0 / 3.0);
          R.plot_x = R.scene_w;
          R.plot_w = o.width - R.scene_w;
          R.plot_h = o.height;
        }
      else
        {
          R.scene_h = (int) lround (o.height * 2.0 / 3.0);
          R.plot_y = R.scene_h;
          R.plot_w = o.width;
          R.plot_h = o.height - R.scene_h;
        }
    }

  /* 2. OpenGL without a display */
  R.off = cml_offscreen_new (R.scene_w, R.scene_h, 0, &error);
  if (R.off == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      goto done;
    }
  g_debug ("OpenGL: %s", cml_offscreen_describe (R.off));
  R.renderer = cml_scene_renderer_new (&error);
  if (R.renderer == NULL)
    {
      fprintf (stderr, "cmlab-cli: cannot draw the scene: %s\n", error->message);
      goto done;
    }
  cml_scene_renderer_set_system (R.renderer, R.sys);
  if (o.table_frame && !cml_scene_renderer_has_frame_angle (R.renderer))
    {
      fprintf (stderr,
               "cmlab-cli: --frame table: %s has no trail with a frame-angle, so there is no "
               "turning frame to show it in\n",
               cml_system_get_model (R.sys)->name);
      goto done;
    }
  R.style = cml_scene_style_default ();
  R.style.table_frame = o.table_frame;
  R.style.samples = SCENE_SAMPLES;
  /* trail and grid widths in proportion to the frame, as at 720 rows */
  R.style.scale = CLAMP (o.height / 720.0, 1.0, 4.0);

  /* 3. the pre-run: a failing run, the bounds, the plot's range; then the camera */
  R.t_start = t_start;
  R.prep_total = R.n_frames + 1;
  report_prepare (&R, 0);
  take_sample (&R, SAMPLE_BOUNDS);
  for (guint k = 1; k < R.n_frames; k++)
    {
      if (interrupted)
        goto interrupted_early;
      report_prepare (&R, 1);
      if (!step_to_frame (&R, k, SAMPLE_BOUNDS, &error))
        {
          cml_cli_progress_done (&sim_progress);
          fprintf (stderr, "cmlab-cli: run failed: %s\n", error->message);
          cml_cli_progress_failed (&sim_progress, error->message);
          status = CML_CLI_EXIT_RUN_FAILED;
          goto done;
        }
      cml_cli_progress_update (&sim_progress, frame_time (&R, k), frame_time (&R, R.n_frames - 1));
    }
  cml_cli_progress_done (&sim_progress);
  make_legend (&R);
  frame_scene (&R);
  g_debug ("pre-run %.3f s", (g_get_monotonic_time () - t_start) / 1e6);
  if (interrupted)
    goto interrupted_early;
  R.prep_done = R.prep_total - 1;
  report_prepare (&R, 1);
  if (R.plot_index >= 0)
    setup_plot (&R);

  /* the same run again, drawn; the trails start over as time goes back to 0, the bounds
   * (the floor's extent) stay */
  if (!cml_simulation_reset (R.sim, R.given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      goto done;
    }

  /* 4. ffmpeg and the writer */
  if (R.out.kind != OUT_PNG)
    {
      g_autoptr (GPtrArray) fargv = ffmpeg_argv (ffmpeg, R.out.kind, o.width, o.height, o.fps,
                                                 cml_atomic_file_get_write_path (ff.video));
      if (!ffmpeg_start (&ff, ffmpeg, fargv, &error))
        {
          fprintf (stderr, "cmlab-cli: %s\n", error->message);
          goto done;
        }
      if (R.out.kind == OUT_GIF && o.fps > 50)
        fprintf (stderr, "note: GIF frame delays are whole hundredths of a second and browsers slow "
                         "down GIFs faster than 50 fps; MP4 or WebM keep %g fps\n", o.fps);
    }
  w.free_q = g_async_queue_new ();
  w.full_q = g_async_queue_new ();
  w.out = &R.out;
  w.width = o.width;
  w.height = o.height;
  w.fd = ff.stdin_fd;
  w.written = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      bufs[i].rgba = g_malloc0 ((gsize) o.width * o.height * 4);
      g_async_queue_push (w.free_q, &bufs[i]);
    }
  g_mutex_init (&w.lock);
  w.n_threads = R.out.kind == OUT_PNG ? N_PNG_WRITERS : 1;
  for (guint i = 0; i < w.n_threads; i++)
    w.threads[i] = g_thread_new ("cmlab-render-writer", writer_thread, &w);

  {
    GQueue pending = G_QUEUE_INIT;
    gboolean progress = isatty (STDERR_FILENO), shown = FALSE;
    gint64 t_render = g_get_monotonic_time ();
    guint k;

    for (k = 0; k < R.n_frames; k++)
      {
        if (k == 0)
          take_sample (&R, SAMPLE_PLOT);
        else if (!step_to_frame (&R, k, SAMPLE_PLOT, &error))
          {
            if (shown)
              fputs ("\r\033[K", stderr);
            fprintf (stderr, "cmlab-cli: run failed: %s\n", error->message);
            status = CML_CLI_EXIT_RUN_FAILED;
            break;
          }
        FrameBuf *b = acquire_buffer (&w);
        if (b == NULL)
          break;
        b->index = k;
        if (R.plot_index >= 0)
          draw_plot (&R, b->rgba);
        cml_offscreen_bind (R.off);
        cml_scene_renderer_draw (R.renderer, R.n_values ? R.values : NULL, &R.camera, R.scene_w,
                                 R.scene_h, &R.style);
        cml_offscreen_read_begin (R.off);
        g_queue_push_tail (&pending, b);
        if (pending.length >= READ_DEPTH)
          collect_frame (&R, &pending, &w);
        if (interrupted || g_atomic_int_get (&w.failed))
          break;
        if (progress)
          show_progress (k + 1, R.n_frames, (g_get_monotonic_time () - t_render) / 1e6, &shown);
        if (o.progress_lines && report_due (&R, k + 1, R.n_frames))
          report_line ("progress", k + 1, R.n_frames, (g_get_monotonic_time () - t_render) / 1e6);
      }
    gboolean complete = k == R.n_frames && !interrupted;
    if (complete && o.progress_lines)
      {
        /* the encoder empties its queue and writes the index: seconds for a long video */
        fputs ("finishing\n", stdout);
        fflush (stdout);
      }
    /* what was drawn goes out (or back to the pool) before the writer stops */
    while (pending.length)
      {
        if (complete)
          collect_frame (&R, &pending, &w);
        else
          g_async_queue_push (w.free_q, g_queue_pop_head (&pending));
      }
    if (!complete && ff.pid > 0)
      /* a writer blocked on a full pipe: killing ffmpeg frees it (the pipe stays open
       * until the writer has stopped, so its descriptor cannot be reused meanwhile) */
      kill (ff.pid, SIGKILL);
    writer_join (&w);
    if (shown)
      fputs ("\r\033[K", stderr);

    if (interrupted)
      {
        fprintf (stderr, "cmlab-cli: interrupted; %s not written\n", R.out.path);
        status = EXIT_INTERRUPTED;
        goto done;
      }
    if (status == CML_CLI_EXIT_RUN_FAILED)
      goto done;
    if (!complete || g_atomic_int_get (&w.failed))
      {
        /* the writer gave up: ffmpeg's own words say why (a full disk, a missing encoder) */
        if (ff.pid > 0)
          ffmpeg_finish (&ff, FALSE);
        g_autofree char *msgs = ffmpeg_messages (&ff);
        const char *why = ffmpeg_io_reason (msgs);
        fprintf (stderr, "cmlab-cli: writing %s failed: %s%s%s\n", R.out.path,
                 why ? why : w.message ? w.message : "unknown error", *msgs ? "\nffmpeg: " : "",
                 msgs);
        status = CML_CLI_EXIT_USAGE;
        goto done;
      }

    /* 5. ffmpeg finishes the file; then it takes its name */
    if (R.out.kind != OUT_PNG)
      {
        gboolean finished = ffmpeg_finish (&ff, FALSE);
        g_autofree char *msgs = ffmpeg_messages (&ff);
        /* ffmpeg (5.1) exits with status 0 when it could not write the end of the file —
         * a full disk leaves it truncated: its messages (errors only) tell */
        if (finished && (strstr (msgs, "Error writing") || strstr (msgs, "Error closing")
                         || ffmpeg_io_reason (msgs) != NULL))
          finished = FALSE;
        if (!finished)
          {
            if (interrupted)
              {
                fprintf (stderr, "cmlab-cli: interrupted; %s not written\n", R.out.path);
                status = EXIT_INTERRUPTED;
              }
            else
              {
                const char *why = ffmpeg_io_reason (msgs);
                fprintf (stderr, "cmlab-cli: writing %s failed: %s%sffmpeg: %s\n", R.out.path,
                         why ? why : "", why ? "\n" : "", *msgs ? msgs : "it stopped with an error");
                status = CML_CLI_EXIT_USAGE;
              }
            goto done;
          }
        {
          g_autoptr (GError) werr = NULL;
          if (!cml_atomic_file_commit (ff.video, &werr))
            {
              fprintf (stderr, "cmlab-cli: %s\n", werr->message);
              status = CML_CLI_EXIT_USAGE;
              goto done;
            }
          g_clear_pointer (&ff.video, cml_atomic_file_free);
        }
      }

    double wall = (g_get_monotonic_time () - t_start) / 1e6;
    double render_wall = (g_get_monotonic_time () - t_render) / 1e6;
    fprintf (stderr,
             "wrote %s: %s, %u frames of %d×%d at %g fps (%.3g s of video, t = 0 … %.6g of %s) "
             "in %.2f s (%.0f frames/s)\n",
             R.out.path, kind_name (R.out.kind), R.n_frames,
             o.width, o.height, o.fps, R.n_frames / o.fps, frame_time (&R, R.n_frames - 1),
             cml_system_get_model (R.sys)->name, wall, R.n_frames / MAX (render_wall, 1e-9));
    status = 0;
  }

  goto done;

interrupted_early:
  fprintf (stderr, "cmlab-cli: interrupted; %s not written\n", R.out.path);
  status = EXIT_INTERRUPTED;
done:
  if (w.n_threads)
    writer_join (&w);
  if (ff.pid > 0)
    ffmpeg_finish (&ff, TRUE);
  if (ff.stderr_fd >= 0)
    close (ff.stderr_fd);
  /* an unfinished video's temporary file goes (the free aborts it) */
  g_clear_pointer (&ff.video, cml_atomic_file_free);
  if (status != 0 && w.written)
    for (guint i = 0; i < w.written->len; i++)
      g_unlink (w.written->pdata[i]);
  if (w.written)
    g_ptr_array_unref (w.written);
  g_free (w.message);
  if (w.free_q)
    g_mutex_clear (&w.lock);
  if (w.free_q)
    g_async_queue_unref (w.free_q);
  if (w.full_q)
    g_async_queue_unref (w.full_q);
  for (guint i = 0; i < N_BUFFERS; i++)
    g_free (bufs[i].rgba);
  render_clear (&R);
done_early:
  out_spec_clear (&R.out);
  cml_cli_run_options_clear (&o.run);
  g_free (o.model);
  g_free (o.plot_column);
  return status;
}
