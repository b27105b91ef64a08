/* test-video.c — the video pipeline alone (src/render/cml-video.c), with synthetic frames.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * - a target's name gives its format and the PNG frames' numbering, and the errors;
 * - N frames become N numbered PNG files, each with its own frame's pixels (two writers
 *   share the work), and nothing else is left in the folder;
 * - N frames become an MP4 of N frames (ffprobe -count_frames), in the order submitted
 *   (frames of rising brightness decode with rising brightness);
 * - the frame ring holds CML_VIDEO_N_BUFFERS buffers, handed out again once written, and
 *   a set cancel flag ends a wait for one;
 * - a folder that cannot take the file is an error at once; a folder that goes away
 *   while PNG frames are written is an error from the writers;
 * - an abandoned or failed video leaves nothing behind: no temporary file, no frames.
 * The MP4 cases skip where ffmpeg or ffprobe is not installed.
 */
#define G_LOG_DOMAIN "test-video"

#include <cairo.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "cml-video.h"
#include "../test-tmp.h"

#define W 64
#define H 48

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The names in DIR, sorted, as one string "a b c" ("" when empty). */
static char *
dir_listing (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("cmlab-test-video-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

/* Frame K's colour: a flat grey that rises with K, and red and blue that tell frames
 * apart exactly (PNG keeps them). */
static void
fill_frame (guint8 *rgba, guint k)
{
  for (gsize i = 0; i < (gsize) W * H; i++)
    {
      rgba[4 * i + 0] = (guint8) (10 * k);
      rgba[4 * i + 1] = (guint8) (20 + 20 * k);
      rgba[4 * i + 2] = (guint8) (255 - 7 * k);
      rgba[4 * i + 3] = 255;
    }
}

/* Writes N synthetic frames to TARGET's path through a whole video: new, start, N frames
 * in order, stop, finish.  Returns the video, finished. */
static CmlVideo *
write_frames (const char *path, guint n, double fps)
{
  g_autoptr (GError) error = NULL;
  CmlVideoTarget target;
  g_assert_cmpint (cml_video_target_parse (path, &target), ==, CML_VIDEO_TARGET_OK);
  g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");
  CmlVideo *video = cml_video_new (&target, W, H, fps, NULL, &error);
  cml_video_target_clear (&target);
  g_assert_no_error (error);
  g_assert_true (cml_video_start (video, ffmpeg, &error));
  g_assert_no_error (error);
  for (guint k = 0; k < n; k++)
    {
      CmlVideoFrame *frame = cml_video_acquire_frame (video);
      g_assert_nonnull (frame);
      frame->index = k;
      fill_frame (frame->rgba, k);
      cml_video_submit_frame (video, frame);
    }
  cml_video_stop (video, TRUE);
  g_assert_false (cml_video_has_failed (video));
  g_assert_true (cml_video_finish (video, &error));
  g_assert_no_error (error);
  return video;
}

static gboolean
have_ffmpeg (void)
{
  g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");
  g_autofree char *ffprobe = g_find_program_in_path ("ffprobe");
  if (ffmpeg == NULL || ffprobe == NULL)
    {
      g_test_skip ("ffmpeg or ffprobe is not installed");
      return FALSE;
    }
  return TRUE;
}

/* ---- targets ------------------------------------------------------------------------------ */

static void
test_target (void)
{
  static const struct
  {
    const char           *path;
    CmlVideoTargetProblem problem;
    CmlVideoFormat        format;
  } cases[] = {
    { "out/run.mp4", CML_VIDEO_TARGET_OK, CML_VIDEO_MP4 },
    { "run.WebM", CML_VIDEO_TARGET_OK, CML_VIDEO_WEBM },
    { "a.b/run.gif", CML_VIDEO_TARGET_OK, CML_VIDEO_GIF },
    { "out/frame-%05d.png", CML_VIDEO_TARGET_OK, CML_VIDEO_PNG },
    { "out/", CML_VIDEO_TARGET_NO_NAME, 0 },
    { "out/run", CML_VIDEO_TARGET_NO_EXTENSION, 0 },
    { "run.avi", CML_VIDEO_TARGET_UNKNOWN_FORMAT, 0 },
    { "frame.png", CML_VIDEO_TARGET_BAD_PATTERN, 0 },
    { "frame-%d-%d.png", CML_VIDEO_TARGET_BAD_PATTERN, 0 },
    { "frame-%5d.png", CML_VIDEO_TARGET_BAD_PATTERN, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      CmlVideoTarget t;
      g_assert_cmpint (cml_video_target_parse (cases[i].path, &t), ==, cases[i].problem);
      g_assert_cmpstr (t.path, ==, cases[i].path);
      if (cases[i].problem == CML_VIDEO_TARGET_OK)
        g_assert_cmpint (t.format, ==, cases[i].format);
      cml_video_target_clear (&t);
    }

  CmlVideoTarget t;
  g_assert_cmpint (cml_video_target_parse ("out/100%%-%03d.png", &t), ==, CML_VIDEO_TARGET_OK);
  g_autofree char *name = cml_video_target_frame_name (&t, 7);
  g_assert_cmpstr (name, ==, "out/100%-007.png");
  g_assert_cmpstr (t.dir, ==, "out");
  cml_video_target_clear (&t);
  g_assert_cmpstr (cml_video_format_name (CML_VIDEO_MP4), ==, "MP4 (H.264)");
}

/* ---- PNG frames --------------------------------------------------------------------------- */

static void
test_png_frames (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *pattern = g_build_filename (dir, "frame-%03d.png", NULL);
  const guint n = 9;  /* more than the ring holds */

  g_autoptr (CmlVideo) video = write_frames (pattern, n, 30);
  g_clear_pointer (&video, cml_video_free);

  /* the frames and nothing else */
  g_autofree char *listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, "frame-000.png frame-001.png frame-002.png frame-003.png frame-004.png "
                                "frame-005.png frame-006.png frame-007.png frame-008.png");
  /* each file holds its own frame */
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *name = g_strdup_printf ("%s/frame-%03u.png", dir, k);
      cairo_surface_t *s = cairo_image_surface_create_from_png (name);
      g_assert_cmpint (cairo_surface_status (s), ==, CAIRO_STATUS_SUCCESS);
      g_assert_cmpint (cairo_image_surface_get_width (s), ==, W);
      g_assert_cmpint (cairo_image_surface_get_height (s), ==, H);
      const guint32 *p = (const guint32 *) (gpointer) cairo_image_surface_get_data (s);
      guint32 want = 0xffu << 24 | (guint32) (10 * k) << 16 | (guint32) (20 + 20 * k) << 8 | (255 - 7 * k);
      g_assert_cmphex (p[0], ==, want);
      g_assert_cmphex (p[W * H - 1], ==, want);
      cairo_surface_destroy (s);
    }
  test_tmp_remove (dir);
}

/* ---- MP4 ------------------------------------------------------------------------------------ */

/* Runs ARGV to the end; its standard output. */
static char *
run_tool (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static void
test_mp4 (void)
{
  if (!have_ffmpeg ())
    return;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "run.mp4", NULL);
  const guint n = 10;

  g_autoptr (CmlVideo) video = write_frames (path, n, 10);
  g_clear_pointer (&video, cml_video_free);

  /* the file under its name, no temporary beside it */
  g_autofree char *listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, "run.mp4");

  /* every frame is in it */
  const char *probe[] = { "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                          "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", path, NULL };
  g_autofree char *out = run_tool (probe);
  g_strstrip (out);
  g_assert_cmpstr (out, ==, "64,48,10");

  /* in the order submitted: the brightness rises from frame to frame */
  g_autofree char *gray_path = g_build_filename (dir, "gray.raw", NULL);
  const char *decode[] = { "ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gray",
                           "-y", gray_path, NULL };
  g_free (run_tool (decode));
  g_autofree char *gray = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (gray_path, &gray, &len, NULL));
  g_assert_cmpuint (len, ==, (gsize) n * W * H);
  double last = -1;
  for (guint k = 0; k < n; k++)
    {
      double sum = 0;
      for (gsize i = 0; i < (gsize) W * H; i++)
        sum += (guint8) gray[(gsize) k * W * H + i];
      double mean = sum / (W * H);
      g_test_message ("frame %u: mean luma %.1f", k, mean);
      g_assert_cmpfloat (mean, >, last + 5);
      last = mean;
    }
  test_tmp_remove (dir);
}

/* ---- the ring ------------------------------------------------------------------------------- */

static void
test_ring (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = make_dir ();
  g_autofree char *pattern = g_build_filename (dir, "f-%d.png", NULL);
  volatile sig_atomic_t cancel = 0;
  CmlVideoTarget target;
  g_assert_cmpint (cml_video_target_parse (pattern, &target), ==, CML_VIDEO_TARGET_OK);
  g_autoptr (CmlVideo) video = cml_video_new (&target, W, H, 30, &cancel, &error);
  cml_video_target_clear (&target);
  g_assert_no_error (error);
  g_assert_true (cml_video_start (video, NULL, &error));

  /* every buffer of the ring, each a different one */
  CmlVideoFrame *frames[CML_VIDEO_N_BUFFERS];
  for (guint i = 0; i < CML_VIDEO_N_BUFFERS; i++)
    {
      frames[i] = cml_video_acquire_frame (video);
      g_assert_nonnull (frames[i]);
      for (guint j = 0; j < i; j++)
        g_assert_true (frames[j] != frames[i] && frames[j]->rgba != frames[i]->rgba);
    }
  /* none left: a wait that the cancel flag ends */
  cancel = 1;
  g_assert_null (cml_video_acquire_frame (video));
  cancel = 0;
  /* one put back unwritten, one written: both come round again */
  cml_video_release_frame (video, frames[0]);
  g_assert_true (cml_video_acquire_frame (video) == frames[0]);
  frames[1]->index = 0;
  fill_frame (frames[1]->rgba, 0);
  cml_video_submit_frame (video, frames[1]);
  g_assert_true (cml_video_acquire_frame (video) == frames[1]);

  /* abandoned: the frame written goes */
  cml_video_stop (video, FALSE);
  g_assert_false (cml_video_finish (video, &error));
  g_assert_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED);
  g_clear_pointer (&video, cml_video_free);
  g_autofree char *listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, "");
  test_tmp_remove (dir);
}

/* ---- errors and what they leave ----------------------------------------------------------- */

static void
test_unwritable (void)
{
  g_autofree char *dir = make_dir ();
  const char *names[] = { "missing/frame-%03d.png", "missing/run.mp4", "taken.mp4" };
  g_autofree char *taken = g_build_filename (dir, "taken.mp4", NULL);
  g_assert_cmpint (g_mkdir (taken, 0755), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      CmlVideoTarget target;
      g_assert_cmpint (cml_video_target_parse (path, &target), ==, CML_VIDEO_TARGET_OK);
      CmlVideo *video = cml_video_new (&target, W, H, 30, NULL, &error);
      cml_video_target_clear (&target);
      g_assert_null (video);
      g_assert_nonnull (error);
      g_test_message ("%s: %s", names[i], error->message);
    }
  g_autofree char *listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, "taken.mp4");
  test_tmp_remove (dir);
}

/* The folder goes away while PNG frames are written: the writers fail, the video says so
 * and what was written is gone. */
static void
test_folder_gone (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *top = make_dir ();
  g_autofree char *dir = g_build_filename (top, "frames", NULL);
  g_autofree char *pattern = g_build_filename (dir, "frame-%03d.png", NULL);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  CmlVideoTarget target;
  g_assert_cmpint (cml_video_target_parse (pattern, &target), ==, CML_VIDEO_TARGET_OK);
  g_autoptr (CmlVideo) video = cml_video_new (&target, W, H, 30, NULL, &error);
  cml_video_target_clear (&target);
  g_assert_no_error (error);
  g_assert_true (cml_video_start (video, NULL, &error));

  /* two frames written, then the folder removed */
  for (guint k = 0; k < 2; k++)
    {
      CmlVideoFrame *frame = cml_video_acquire_frame (video);
      frame->index = k;
      fill_frame (frame->rgba, k);
      cml_video_submit_frame (video, frame);
    }
  for (int tries = 0; tries < 500; tries++)
    {
      g_autofree char *listing = dir_listing (dir);
      if (g_str_equal (listing, "frame-000.png frame-001.png"))
        break;
      g_usleep (10000);
    }
  test_tmp_remove (dir);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));

  guint k;
  for (k = 2; k < 200 && !cml_video_has_failed (video); k++)
    {
      CmlVideoFrame *frame = cml_video_acquire_frame (video);
      if (frame == NULL)
        break;
      frame->index = k;
      fill_frame (frame->rgba, k % 20);
      cml_video_submit_frame (video, frame);
    }
  cml_video_stop (video, TRUE);
  g_assert_true (cml_video_has_failed (video));
  g_assert_false (cml_video_finish (video, &error));
  g_assert_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "writing "));
  g_clear_pointer (&video, cml_video_free);
  g_autofree char *listing = dir_listing (top);
  g_assert_cmpstr (listing, ==, "");
  test_tmp_remove (top);
}

/* A video abandoned part-way: ffmpeg is stopped, its temporary file removed. */
static void
test_mp4_abandoned (void)
{
  if (!have_ffmpeg ())
    return;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "run.mp4", NULL);
  g_autofree char *ffmpeg = g_find_program_in_path ("ffmpeg");
  CmlVideoTarget target;
  g_assert_cmpint (cml_video_target_parse (path, &target), ==, CML_VIDEO_TARGET_OK);
  g_autoptr (CmlVideo) video = cml_video_new (&target, W, H, 10, NULL, &error);
  cml_video_target_clear (&target);
  g_assert_no_error (error);
  /* the temporary file is there from the start … */
  g_autofree char *before = dir_listing (dir);
  g_assert_cmpstr (before, !=, "");
  g_assert_true (cml_video_start (video, ffmpeg, &error));
  for (guint k = 0; k < 3; k++)
    {
      CmlVideoFrame *frame = cml_video_acquire_frame (video);
      frame->index = k;
      fill_frame (frame->rgba, k);
      cml_video_submit_frame (video, frame);
    }
  cml_video_stop (video, FALSE);
  g_assert_false (cml_video_finish (video, &error));
  g_assert_error (error, CML_VIDEO_ERROR, CML_VIDEO_ERROR_FAILED);
  /* … and gone with the video */
  g_clear_pointer (&video, cml_video_free);
  g_autofree char *listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, "");
  test_tmp_remove (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* a dead ffmpeg must make a write fail, not end the test (cml-video.h) */
  signal (SIGPIPE, SIG_IGN);

  g_test_add_func ("/render/video/target", test_target);
  g_test_add_func ("/render/video/png-frames", test_png_frames);
  g_test_add_func ("/render/video/mp4", test_mp4);
  g_test_add_func ("/render/video/ring", test_ring);
  g_test_add_func ("/render/video/unwritable", test_unwritable);
  g_test_add_func ("/render/video/folder-gone", test_folder_gone);
  g_test_add_func ("/render/video/mp4-abandoned", test_mp4_abandoned);
  return g_test_run ();
}
