/* test-offscreen.c — the headless OpenGL context (EGL, no window, no display).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A context is made without any display server, a built-in scene (the rolling ball, after
 * a few seconds of motion so that its trail shows) is drawn into the offscreen
 * framebuffer and read back: the picture must be the requested size, not blank, right
 * side up, and the same whether read at once or through the pixel-buffer ring.  Where
 * the machine has no EGL at all the tests skip, they do not fail.
 */
#define G_LOG_DOMAIN "test-offscreen"

#include <math.h>
#include <string.h>

#include "cml-camera.h"
#include "cml-offscreen.h"
#include "cml-scene-renderer.h"
#include "cml-simulation.h"

#define W 160
#define H 120

/* A context, or NULL after g_test_skip. */
static CmlOffscreen *
offscreen_or_skip (int width, int height, guint samples)
{
  g_autoptr (GError) error = NULL;
  CmlOffscreen *off = cml_offscreen_new (width, height, samples, &error);
  if (off == NULL)
    {
      g_test_skip (error->message);
      return NULL;
    }
  g_test_message ("context: %s", cml_offscreen_describe (off));
  return off;
}

/* The rolling ball after SECONDS, with its trail, framed by the camera as the window
 * frames it; returns the renderer (current context) and fills CAM and VALUES. */
static CmlSceneRenderer *
rolling_ball_scene (double seconds, CmlCamera *cam, double **values, int width, int height,
                    CmlSimulation **sim_out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);

  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);

  guint ns = cml_system_n_scene_values (sys);
  *values = g_new0 (double, ns);
  for (int k = 0; k <= (int) (seconds * 60); k++)
    {
      double t = k / 60.0;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      cml_simulation_eval_scene (sim, *values);
      cml_scene_renderer_push_trail_samples_timed (r, &t, *values, 1, ns, 0);
    }

  double min[3], max[3];
  CmlSceneStyle style = cml_scene_style_default ();
  cml_camera_init (cam);
  cml_scene_renderer_get_bounds (r, *values, &style, min, max);
  cml_camera_fit (cam, min, max, (double) width / height, NULL, TRUE);
  *sim_out = sim;
  return r;
}

/* Pixels that differ from the background by more than a little. */
static guint
count_foreground (const guint8 *rgba, int width, int height, const float bg[4])
{
  guint n = 0;
  for (int i = 0; i < width * height; i++)
    {
      int d = 0;
      for (int c = 0; c < 3; c++)
        d = MAX (d, abs ((int) rgba[i * 4 + c] - (int) lrintf (bg[c] * 255)));
      if (d > 24)
        n++;
    }
  return n;
}

/* Mean colour of a band of rows [Y0, Y1). */
static void
mean_rows (const guint8 *rgba, int width, int y0, int y1, double mean[3])
{
  double s[3] = { 0, 0, 0 };
  for (int y = y0; y < y1; y++)
    for (int x = 0; x < width; x++)
      for (int c = 0; c < 3; c++)
        s[c] += rgba[(y * width + x) * 4 + c];
  for (int c = 0; c < 3; c++)
    mean[c] = s[c] / ((double) (y1 - y0) * width);
}

static void
test_context (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip (W, H, 0);
  if (off == NULL)
    return;
  g_assert_cmpint (cml_offscreen_get_width (off), ==, W);
  g_assert_cmpint (cml_offscreen_get_height (off), ==, H);
  g_assert_nonnull (cml_offscreen_describe (off));

  /* top half red, bottom half blue: the read-back must come top row first */
  g_autofree guint8 *rgba = g_malloc ((gsize) W * H * 4);
  cml_offscreen_bind (off);
  glDisable (GL_SCISSOR_TEST);
  glClearColor (0, 0, 1, 1);
  glClear (GL_COLOR_BUFFER_BIT);
  glEnable (GL_SCISSOR_TEST);
  glScissor (0, H / 2, W, H - H / 2);
  glClearColor (1, 0, 0, 1);
  glClear (GL_COLOR_BUFFER_BIT);
  glDisable (GL_SCISSOR_TEST);
  cml_offscreen_read_pixels (off, rgba, 0);
  g_assert_cmpuint (rgba[0], ==, 255);
  g_assert_cmpuint (rgba[2], ==, 0);
  g_assert_cmpuint (rgba[((gsize) (H - 1) * W) * 4 + 2], ==, 255);
  g_assert_cmpuint (rgba[((gsize) (H - 1) * W) * 4 + 0], ==, 0);
  g_assert_cmpuint (glGetError (), ==, GL_NO_ERROR);

  /* into a wider picture (rows STRIDE apart), at once and through the ring: the same
   * rows, and the bytes beyond each row untouched */
  gsize stride = (W + 8) * 4;
  for (int ring = 0; ring < 2; ring++)
    {
      g_autofree guint8 *wide = g_malloc (stride * H);
      memset (wide, 0x5a, stride * H);
      if (ring)
        {
          cml_offscreen_read_begin (off);
          g_assert_true (cml_offscreen_read_end (off, wide, stride));
        }
      else
        cml_offscreen_read_pixels (off, wide, stride);
      for (int y = 0; y < H; y++)
        {
          g_assert_cmpmem (wide + y * stride, W * 4, rgba + y * W * 4, W * 4);
          g_assert_cmpuint (wide[y * stride + W * 4], ==, 0x5a);
          g_assert_cmpuint (wide[y * stride + stride - 1], ==, 0x5a);
        }
    }

  /* resize keeps working */
  g_autoptr (GError) error = NULL;
  g_assert_true (cml_offscreen_resize (off, 64, 48, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (cml_offscreen_get_width (off), ==, 64);
}

static void
check_scene (CmlOffscreen *off, guint samples)
{
  CmlCamera cam;
  g_autofree double *values = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  CmlSceneRenderer *r = rolling_ball_scene (8.0, &cam, &values, W, H, &sim);
  CmlSceneStyle style = cml_scene_style_default ();
  style.samples = samples;
  float bg[4];
  cml_scene_style_get_background (&style, bg);

  g_autofree guint8 *now = g_malloc ((gsize) W * H * 4);
  g_autofree guint8 *ring = g_malloc ((gsize) W * H * 4);
  cml_offscreen_bind (off);
  cml_scene_renderer_draw (r, values, &cam, W, H, &style);
  cml_offscreen_read_pixels (off, now, 0);

  /* not blank: the table, the ball and the trail cover a good part of the picture */
  guint fg = count_foreground (now, W, H, bg);
  g_test_message ("%u of %u pixels are not background", fg, W * H);
  g_assert_cmpuint (fg, >, W * H / 10);
  /* and not all foreground: the background shows around the table */
  g_assert_cmpuint (fg, <, W * H);
  /* the camera looks down on the table: the top rows are background, the middle not */
  double top[3], middle[3];
  mean_rows (now, W, 0, 3, top);
  mean_rows (now, W, H / 2 - 5, H / 2 + 5, middle);
  g_assert_cmpfloat (fabs (top[0] - bg[0] * 255), <, 8);
  g_assert_cmpfloat (fabs (middle[0] - bg[0] * 255) + fabs (middle[2] - bg[2] * 255), >, 20);

  /* the same picture through the pixel-buffer ring, two frames in flight */
  cml_offscreen_bind (off);
  cml_scene_renderer_draw (r, values, &cam, W, H, &style);
  cml_offscreen_read_begin (off);
  cml_offscreen_bind (off);
  cml_scene_renderer_draw (r, values, &cam, W, H, &style);
  cml_offscreen_read_begin (off);
  g_assert_cmpuint (cml_offscreen_n_pending (off), ==, 2);
  for (int k = 0; k < 2; k++)
    {
      memset (ring, 0, (gsize) W * H * 4);
      g_assert_true (cml_offscreen_read_end (off, ring, 0));
      g_assert_cmpmem (ring, (gsize) W * H * 4, now, (gsize) W * H * 4);
    }
  g_assert_false (cml_offscreen_read_end (off, ring, 0));

  /* the renderer's own offscreen path agrees (up to antialiased edges, where ours is
   * multisampled and its is not) */
  g_assert_true (cml_scene_renderer_draw_to_pixels (r, values, &cam, W, H, &style, ring));
  guint fg2 = count_foreground (ring, W, H, bg);
  if (cml_offscreen_get_samples (off) > 1)
    g_assert_cmpfloat (fabs ((double) fg2 - fg), <, 0.05 * fg);
  else
    g_assert_cmpuint (fg2, ==, fg);
  g_assert_cmpuint (glGetError (), ==, GL_NO_ERROR);
  cml_scene_renderer_free (r);
}

static void
test_scene (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip (W, H, 0);
  if (off == NULL)
    return;
  check_scene (off, 0);
}

/* multisampling in the offscreen framebuffer (resolved when read) */
static void
test_scene_msaa (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip (W, H, 4);
  if (off == NULL)
    return;
  g_test_message ("%u samples", cml_offscreen_get_samples (off));
  check_scene (off, 0);
}

/* the OpenGL ES 3.0 fallback draws the same scene */
static void
test_scene_gles (void)
{
  g_setenv ("CMLAB_OFFSCREEN_API", "gles", TRUE);
  g_autoptr (CmlOffscreen) off = offscreen_or_skip (W, H, 0);
  g_unsetenv ("CMLAB_OFFSCREEN_API");
  if (off == NULL)
    return;
  g_assert_true (cml_offscreen_is_es (off));
  check_scene (off, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/offscreen/context", test_context);
  g_test_add_func ("/render/offscreen/scene", test_scene);
  g_test_add_func ("/render/offscreen/scene-msaa", test_scene_msaa);
  g_test_add_func ("/render/offscreen/scene-gles", test_scene_gles);
  return g_test_run ();
}
