/* cml-video.c — the video pipeline: RGBA frames through a ring of buffers to writer
 * threads, and from them to ffmpeg (MP4, WebM, GIF) or to numbered PNG files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See cml-video.h.  The writers take the frames from the drawing thread's queue so that
 * drawing frame k+1 and writing frame k overlap; for MP4 and WebM they also convert the
 * frames to the encoders' 4:2:0 YUV (rgba_to_i420), which makes the pipe to ffmpeg carry
 * 1.5 bytes a pixel instead of 4.
 */
#define _GNU_SOURCE /* pipe2, F_SETPIPE_SZ */
#define G_LOG_DOMAIN "cml-video"

#include "cml-video.h"

#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"

extern char **environ;

#define N_BUFFERS     CML_VIDEO_N_BUFFERS
#define N_PNG_WRITERS 2  /* PNG compression is the slow part of PNG frames */

G_DEFINE_QUARK (cml-video-error-quark, cml_video_error)

/* ---- the target ------------------------------------------------------------------------ */

void
cml_video_target_clear (CmlVideoTarget *s)
{
  g_return_if_fail (s != NULL);
  g_clear_pointer (&s->path, g_free);
  g_clear_pointer (&s->dir, g_free);
  g_clear_pointer (&s->png_prefix, g_free);
  g_clear_pointer (&s->png_suffix, g_free);
}

/* Splits the file name of a PNG pattern at its one %d (or %0Nd); "%%" is a per cent sign.
 * Returns FALSE if there is not exactly one conversion, or another '%'. */
static gboolean
parse_png_pattern (const char *path, CmlVideoTarget *s)
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

char *
cml_video_target_frame_name (const CmlVideoTarget *s, guint k)
{
  g_return_val_if_fail (s != NULL && s->png_prefix != NULL, NULL);
  return g_strdup_printf ("%s%0*u%s", s->png_prefix, s->png_digits, k, s->png_suffix);
}

CmlVideoTargetProblem
cml_video_target_parse (const char *path, CmlVideoTarget *s)
{
  g_return_val_if_fail (path != NULL && s != NULL, CML_VIDEO_TARGET_NO_NAME);

  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr (base, '.');

  memset (s, 0, sizeof *s);
  s->path = g_strdup (path);
  s->dir = g_path_get_dirname (path);
  if (*base == '\0')
    return CML_VIDEO_TARGET_NO_NAME;
  if (dot == NULL)
    return CML_VIDEO_TARGET_NO_EXTENSION;
  if (g_ascii_strcasecmp (dot, ".mp4") == 0)
    s->format = CML_VIDEO_MP4;
  else if (g_ascii_strcasecmp (dot, ".webm") == 0)
    s->format = CML_VIDEO_WEBM;
  else if (g_ascii_strcasecmp (dot, ".gif") == 0)
    s->format = CML_VIDEO_GIF;
  else if (g_ascii_strcasecmp (dot, ".png") == 0)
    {
      s->format = CML_VIDEO_PNG;
      if (!parse_png_pattern (path, s))
        return CML_VIDEO_TARGET_BAD_PATTERN;
    }
  else
    return CML_VIDEO_TARGET_UNKNOWN_FORMAT;
  return CML_VIDEO_TARGET_OK;
}

const char *
cml_video_format_name (CmlVideoFormat k)
{
  switch (k)
    {
    case CML_VIDEO_MP4: return "MP4 (H.264)";
    case CML_VIDEO_WEBM: return "WebM (VP9)";
    case CML_VIDEO_GIF: return "GIF";
    case CML_VIDEO_PNG: return "PNG frames";
    }
  return "";
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
sends_yuv (CmlVideoFormat kind)
{
  return kind == CML_VIDEO_MP4 || kind == CML_VIDEO_WEBM;
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
ffmpeg_argv (const char *ffmpeg, CmlVideoFormat kind, int width, int height, double fps, const char *out)
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
    case CML_VIDEO_MP4:
      /* H.264 in yuv420p, which every browser and player decodes; BT.709 as HD video is
       * assumed to be; the index at the front so that a browser can start at once */
      ADD ("-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
           "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
           "-color_range", "tv", "-movflags", "+faststart", "-f", "mp4");
      break;
    case CML_VIDEO_WEBM:
      ADD ("-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1",
           "-b:v", "0", "-crf", "32", "-pix_fmt", "yuv420p", "-colorspace", "bt709",
           "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
           "-f", "webm");
      break;
    case CML_VIDEO_GIF:
      /* one palette for the whole animation, from the pixels that change */
      ADD ("-filter_complex",
           "[0:v]split[a][b];[a]palettegen=stats_mode=diff[p];"
           "[b][p]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle",
           "-loop", "0", "-f", "gif");
      break;
    case CML_VIDEO_PNG:
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
ffmpeg_finish (Ffmpeg *f, gboolean kill_it, const volatile sig_atomic_t *cancel)
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
      if (cancel && *cancel)
        kill (f->pid, SIGKILL);
    }
  f->pid = 0;
  return status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* ---- the writer thread ------------------------------------------------------------------- */

static CmlVideoFrame end_of_frames;  /* the sentinel that ends the writer */

typedef struct
{
  GAsyncQueue *free_q, *full_q;  /* CmlVideoFrame* */
  GThread     *threads[N_PNG_WRITERS];
  guint        n_threads;
  const CmlVideoTarget *out;
  int          width, height;
  int          fd;               /* ffmpeg's standard input (videos) */
  gint         failed;           /* atomic: a writer gave up; MESSAGE says why */
  GMutex       lock;             /* MESSAGE and WRITTEN */
  char        *message;
  GPtrArray   *written;          /* PNG files made so far (char*), to remove on failure */
  const volatile sig_atomic_t *cancel;  /* may be NULL */
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
write_all (int fd, const guint8 *data, gsize size, int *err, const volatile sig_atomic_t *cancel)
{
  while (size > 0)
    {
      ssize_t n = write (fd, data, size);
      if (n < 0)
        {
          if (errno == EINTR && !(cancel && *cancel))
            continue;
          *err = errno;
          return FALSE;
        }
      data += n;
      size -= n;
    }
  return TRUE;
}

/* Where a PNG stream goes: a file, the error that stopped it, the cancel flag. */
typedef struct
{
  int fd, err;
  const volatile sig_atomic_t *cancel;
} PngSink;

static cairo_status_t
png_write_func (void *closure, const unsigned char *data, unsigned int length)
{
  PngSink *sink = closure;
  if (!write_all (sink->fd, data, length, &sink->err, sink->cancel))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

/* Writes frame B as a PNG file: Cairo's ARGB32 (native-endian, premultiplied; our pixels
 * are opaque) from RGBA, into a temporary file renamed when complete. */
static gboolean
write_png (Writer *w, const CmlVideoFrame *b, guint32 *argb)
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
  g_autofree char *name = cml_video_target_frame_name (w->out, b->index);
  g_autoptr (GError) error = NULL;
  /* all or nothing, under a temporary name of ours, never in place of a device or a link */
  g_autoptr (CmlAtomicFile) file = cml_atomic_file_new (name, CML_ATOMIC_FILE_DEFAULT, &error);
  if (file == NULL)
    {
      cairo_surface_destroy (surface);
      writer_fail (w, g_strdup (error->message));
      return FALSE;
    }
  PngSink sink = { cml_atomic_file_get_fd (file), 0, w->cancel };
  cairo_status_t st = cairo_surface_write_to_png_stream (surface, png_write_func, &sink);
  cairo_surface_destroy (surface);
  if (st != CAIRO_STATUS_SUCCESS)
    {
      writer_fail (w, g_strdup_printf ("%s: %s", name,
                                       sink.err ? g_strerror (sink.err) : cairo_status_to_string (st)));
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
  g_autofree guint32 *argb = w->out->format == CML_VIDEO_PNG ? g_malloc (size) : NULL;
  g_autofree guint8 *yuv = sends_yuv (w->out->format) ? g_malloc (yuv_size) : NULL;

  for (;;)
    {
      CmlVideoFrame *b = g_async_queue_pop (w->full_q);
      if (b == &end_of_frames)
        break;
      if (!g_atomic_int_get (&w->failed))
        {
          int err = 0;
          if (w->out->format == CML_VIDEO_PNG)
            write_png (w, b, argb);
          else if (yuv)
            {
              rgba_to_i420 (b->rgba, w->width, w->height, yuv);
              if (!write_all (w->fd, yuv, yuv_size, &err, w->cancel))
                writer_fail (w, g_strdup_printf ("ffmpeg stopped taking frames (%s)", g_strerror (err)));
            }
          else if (!write_all (w->fd, b->rgba, size, &err, w->cancel))
            writer_fail (w, g_strdup_printf ("ffmpeg stopped taking frames (%s)", g_strerror (err)));
        }
      g_async_queue_push (w->free_q, b);
    }
  return NULL;
}

/* Acquires a free frame buffer, waiting for the writer; NULL if interrupted or the
 * writer failed meanwhile. */
static CmlVideoFrame *
acquire_buffer (Writer *w)
{
  for (;;)
    {
      CmlVideoFrame *b = g_async_queue_timeout_pop (w->free_q, 100 * 1000);
      if (b)
        return b;
      if ((w->cancel && *w->cancel) || g_atomic_int_get (&w->failed))
        return NULL;
    }
}

/* ---- the video ---------------------------------------------------------------------------- */

struct _CmlVideo
{
  CmlVideoTarget out;
  int            width, height;
  double         fps;
  const volatile sig_atomic_t *cancel;
  Ffmpeg         ff;
  Writer         w;
  CmlVideoFrame  bufs[N_BUFFERS];
  gboolean       complete;  /* cml_video_stop was told all frames were submitted */
  gboolean       finished;  /* the file (or every PNG frame) has its name */
};

CmlVideo *
cml_video_new (const CmlVideoTarget *target, int width, int height, double fps,
               const volatile sig_atomic_t *cancel, GError **error)
{
  g_return_val_if_fail (target != NULL && target->path != NULL, NULL);
  g_return_val_if_fail (target->format != CML_VIDEO_PNG || target->png_prefix != NULL, NULL);
  g_return_val_if_fail (width > 0 && height > 0 && fps > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* the target must take the file (cml-atomic-file.c: not a directory, not a read-only
   * file; a device or a FIFO is written directly): a video's temporary file now, a probe
   * of the first frame's name for PNGs.  Temporaries left by a killed export go now. */
  g_autofree char *first = target->format == CML_VIDEO_PNG ? cml_video_target_frame_name (target, 0) : NULL;
  CmlAtomicFile *probe = cml_atomic_file_new (first ? first : target->path, CML_ATOMIC_FILE_EXTERNAL, error);
  if (probe == NULL)
    return NULL;

  CmlVideo *v = g_new0 (CmlVideo, 1);
  v->out = (CmlVideoTarget) {
    .format = target->format,
    .path = g_strdup (target->path),
    .dir = g_strdup (target->dir),
    .png_prefix = g_strdup (target->png_prefix),
    .png_suffix = g_strdup (target->png_suffix),
    .png_digits = target->png_digits,
  };
  v->width = width;
  v->height = height;
  v->fps = fps;
  v->cancel = cancel;
  v->ff = (Ffmpeg) { .stdin_fd = -1, .stderr_fd = -1 };
  if (target->format == CML_VIDEO_PNG)
    cml_atomic_file_free (probe);
  else
    v->ff.video = probe;
  return v;
}

gboolean
cml_video_start (CmlVideo *v, const char *ffmpeg, GError **error)
{
  g_return_val_if_fail (v != NULL && v->w.free_q == NULL, FALSE);
  g_return_val_if_fail (v->out.format == CML_VIDEO_PNG || ffmpeg != NULL, FALSE);

  Writer *w = &v->w;
  if (v->out.format != CML_VIDEO_PNG)
    {
      g_autoptr (GPtrArray) fargv = ffmpeg_argv (ffmpeg, v->out.format, v->width, v->height, v->fps,
                                                 cml_atomic_file_get_write_path (v->ff.video));
      if (!ffmpeg_start (&v->ff, ffmpeg, fargv, error))
        return FALSE;
    }
  w->free_q = g_async_queue_new ();
  w->full_q = g_async_queue_new ();
  w->out = &v->out;
  w->width = v->width;
  w->height = v->height;
  w->fd = v->ff.stdin_fd;
  w->cancel = v->cancel;
  w->written = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < N_BUFFERS; i++)
    {
      v->bufs[i].rgba = g_malloc0 ((gsize) v->width * v->height * 4);
      g_async_queue_push (w->free_q, &v->bufs[i]);
    }
  g_mutex_init (&w->lock);
  w->n_threads = v->out.format == CML_VIDEO_PNG ? N_PNG_WRITERS : 1;
  for (guint i = 0; i < w->n_threads; i++)
    w->threads[i] = g_thread_new ("cmlab-render-writer", writer_thread, w);
  return TRUE;
}

CmlVideoFrame *
cml_video_acquire_frame (CmlVideo *v)
{
  g_return_val_if_fail (v != NULL && v->w.free_q != NULL, NULL);
  return acquire_buffer (&v->w);
}

void
cml_video_submit_frame (CmlVideo *v, CmlVideoFrame *frame)
{
  g_return_if_fail (v != NULL && v->w.n_threads > 0 && frame != NULL);
  g_async_queue_push (v->w.full_q, frame);
}

void
cml_video_release_frame (CmlVideo *v, CmlVideoFrame *frame)
{
  g_return_if_fail (v != NULL && v->w.free_q != NULL && frame != NULL);
  g_async_queue_push (v->w.free_q, frame);
}

gboolean
cml_video_has_failed (CmlVideo *v)
{
  g_return_val_if_fail (v != NULL, TRUE);
  return g_atomic_int_get (&v->w.failed);
}

void
cml_video_stop (CmlVideo *v, gboolean complete)
{
  g_return_if_fail (v != NULL);

  v->complete = complete;
  if (!complete && v->ff.pid > 0)
    /* a writer blocked on a full pipe: killing ffmpeg frees it (the pipe stays open
     * until the writer has stopped, so its descriptor cannot be reused meanwhile) */
    kill (v->ff.pid, SIGKILL);
  writer_join (&v->w);
}

gboolean
cml_video_finish (CmlVideo *v, GError **error)
{
  g_return_val_if_fail (v != NULL && v->w.n_threads == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  Ffmpeg *ff = &v->ff;
  if (!v->complete || g_atomic_int_get (&v->w.failed))
    {
      /* the writer gave up: ffmpeg's own words say why (a full disk, a missing encoder) */
      if (ff->pid > 0)
        ffmpeg_finish (ff, FALSE, v->cancel);
      g_autofree char *msgs = ffmpeg_messages (ff);
      const char *why = ffmpeg_io_reason (msgs);
      g_set_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED, "writing %s failed: %s%s%s", v->out.path,
                   why ? why : v->w.message ? v->w.message : "unknown error", *msgs ? "\nffmpeg: " : "",
                   msgs);
      return FALSE;
    }

  /* ffmpeg finishes the file; then it takes its name */
  if (v->out.format != CML_VIDEO_PNG)
    {
      gboolean finished = ffmpeg_finish (ff, FALSE, v->cancel);
      g_autofree char *msgs = ffmpeg_messages (ff);
      /* ffmpeg (5.1) exits with status 0 when it could not write the end of the file —
       * a full disk leaves it truncated: its messages (errors only) tell */
      if (finished && (strstr (msgs, "Error writing") || strstr (msgs, "Error closing")
                       || ffmpeg_io_reason (msgs) != NULL))
        finished = FALSE;
      if (!finished)
        {
          if (v->cancel && *v->cancel)
            g_set_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_CANCELLED, "interrupted; %s not written",
                         v->out.path);
          else
            {
              const char *why = ffmpeg_io_reason (msgs);
              g_set_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED, "writing %s failed: %s%sffmpeg: %s",
                           v->out.path, why ? why : "", why ? "\n" : "", *msgs ? msgs : "it stopped with an error");
            }
          return FALSE;
        }
      {
        g_autoptr (GError) werr = NULL;
        if (!cml_atomic_file_commit (ff->video, &werr))
          {
            g_set_error_literal (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED, werr->message);
            return FALSE;
          }
        g_clear_pointer (&ff->video, cml_atomic_file_free);
      }
    }
  v->finished = TRUE;
  return TRUE;
}

void
cml_video_free (CmlVideo *v)
{
  if (v == NULL)
    return;

  Writer *w = &v->w;
  Ffmpeg *ff = &v->ff;
  if (w->n_threads)
    writer_join (w);
  if (ff->pid > 0)
    ffmpeg_finish (ff, TRUE, v->cancel);
  if (ff->stderr_fd >= 0)
    close (ff->stderr_fd);
  /* an unfinished video's temporary file goes (the free aborts it) */
  g_clear_pointer (&ff->video, cml_atomic_file_free);
  if (!v->finished && w->written)
    for (guint i = 0; i < w->written->len; i++)
      g_unlink (w->written->pdata[i]);
  if (w->written)
    g_ptr_array_unref (w->written);
  g_free (w->message);
  if (w->free_q)
    g_mutex_clear (&w->lock);
  if (w->free_q)
    g_async_queue_unref (w->free_q);
  if (w->full_q)
    g_async_queue_unref (w->full_q);
  for (guint i = 0; i < N_BUFFERS; i++)
    g_free (v->bufs[i].rgba);
  cml_video_target_clear (&v->out);
  g_free (v);
}
