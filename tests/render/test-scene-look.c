/* test-scene-look.c — what a person sees in the 3-D scene, checked on the pixels drawn.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * - the vertical disk is drawn in its legend's colour (orange), not as a dark sliver;
 * - the plate of the plate–ball is drawn (its light blue shows over the ball);
 * - the heavy top has a floor with the axis' shadow and the vertical through the fixed
 *   point to read its tilt against;
 * - the rolling ball's table force shows at t = 0 (it is not hidden under the ball);
 * - the legend says "(drag its tip)" in the window only, not in exported pictures.
 * Each scene is drawn at 640 × 360 with the camera the exporter places.  The renderer
 * needs a GL context (EGL, no display); where there is none the drawing tests skip.
 */
#define G_LOG_DOMAIN "test-scene-look"

#include <math.h>
#include <string.h>

#include "cml-offscreen.h"
#include "cml-scene-fit.h"
#include "cml-simulation.h"

#define W 640
#define H 360

static CmlOffscreen *
offscreen_or_skip (void)
{
  g_autoptr (GError) error = NULL;
  CmlOffscreen *off = cml_offscreen_new (64, 64, 0, &error);
  if (off == NULL)
    g_test_skip (error->message);
  return off;
}

/* A drawing of model NAME after SECONDS (0: at its start): RGBA pixels, W × H; *SIZE
 * (may be NULL) the size on the screen of the scene object named OBJECT, in pixels. */
static guint8 *
draw_model_size (const char *name, double seconds, const char *object, double *size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);
  guint ns = cml_system_n_scene_values (sys);
  g_autofree double *v = g_new0 (double, MAX (ns, 1));
  for (int k = 0; k <= (int) lround (seconds * 60); k++)
    {
      double t = k / 60.0;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      cml_simulation_eval_scene (sim, v);
      cml_scene_renderer_push_trail_samples_timed (r, &t, v, 1, ns, 0);
    }
  CmlSceneStyle style = cml_scene_style_default ();
  style.samples = 0;
  CmlCamera cam;
  cml_scene_fit_camera (r, v, &style, (double) W / H, NULL, &cam);
  guint8 *rgba = g_malloc ((gsize) W * H * 4);
  g_assert_true (cml_scene_renderer_draw_to_pixels (r, v, &cam, W, H, &style, rgba));
  for (guint i = 0; size && i < model->scene->len; i++)
    if (g_str_equal (((CmlSceneObject *) model->scene->pdata[i])->name, object))
      *size = cml_scene_renderer_get_drawn_size (r, i, v, &cam, W, H, &style);
  cml_scene_renderer_free (r);
  return rgba;
}

static guint8 *
draw_model (const char *name, double seconds)
{
  return draw_model_size (name, seconds, NULL, NULL);
}

/* The vertical disk reads as an orange disk, its legend's colour (f57900). */
static void
test_disk_color (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  double size = 0;
  g_autofree guint8 *rgba = draw_model_size ("vertical-disk", 1.0, "disk", &size);
  /* bright orange as the legend's swatch, however lit and seen through: not brown */
  guint n = 0;
  for (int i = 0; i < W * H; i++)
    {
      int red = rgba[4 * i], green = rgba[4 * i + 1], blue = rgba[4 * i + 2];
      if (red > 200 && green > 90 && green < 175 && blue < 110 && red - blue > 120)
        n++;
    }
  /* a disk SIZE pixels across, seen at a slant: a good part of its area */
  g_test_message ("vertical-disk: %u pixels of the disk's orange, %.0f px across", n, size);
  g_assert_cmpfloat (size, >, 12);
  g_assert_cmpfloat (n, >, 0.25 * G_PI / 4 * size * size);
}

/* The plate–ball's plate is drawn: its scene has a flat disc above the ball, and its
 * light blue (99c1f1, seen through over the scene) covers a fair part of the picture. */
static void
test_plate_drawn (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("plate-ball", &error);
  g_assert_no_error (error);
  gboolean plate = FALSE;
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      if (g_str_equal (so->type, "disc") && g_str_equal (so->name, "plate"))
        plate = TRUE;
    }
  g_assert_true (plate);

  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  g_autofree guint8 *rgba = draw_model ("plate-ball", 0.0);
  guint bluish = 0;
  for (int i = 0; i < W * H; i++)
    if (rgba[4 * i + 2] > rgba[4 * i] + 25 && rgba[4 * i + 2] > 150)
      bluish++;
  g_test_message ("plate-ball: %u pixels of the plate's blue", bluish);
  g_assert_cmpuint (bluish, >, W * H / 50);
}

/* The heavy top stands over a floor with its shadow and a vertical to read its tilt. */
static void
test_top_references (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("heavy-top", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autofree double *v = g_new0 (double, cml_system_n_scene_values (sys));
  cml_simulation_eval_scene (sim, v);
  gboolean floor = FALSE, vertical = FALSE, shadow = FALSE;
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      if (g_str_equal (so->type, "plane"))
        floor = TRUE;
      if (!g_str_equal (so->type, "arrow"))
        continue;
      const double *vec = v + cml_system_scene_offset (sys, i, "vector");
      double flat = hypot (vec[0], vec[1]);
      if (flat < 1e-12 && vec[2] > 1)
        vertical = TRUE;  /* straight up, longer than the axis */
      if (fabs (vec[2]) < 1e-12 && flat > 0.1)
        shadow = TRUE;    /* lying on the floor, as long as the axis' tilt makes it */
    }
  g_assert_true (floor);
  g_assert_true (vertical);
  g_assert_true (shadow);
}

/* The rolling ball's table force (red, e01b24) shows at t = 0. */
static void
test_table_force_shows (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  g_autofree guint8 *rgba = draw_model ("rolling-ball", 0.0);
  guint red = 0;
  for (int i = 0; i < W * H; i++)
    if (rgba[4 * i] > 150 && rgba[4 * i + 1] < 70 && rgba[4 * i + 2] < 80)
      red++;
  /* drawn from the contact point under the ball, only its head showed (about 150 pixels
   * at this size); from the edge of the ball's footprint the whole arrow shows */
  g_test_message ("rolling-ball: %u red pixels of the table's force", red);
  g_assert_cmpuint (red, >, 220);
}

/* "(drag its tip)" is said in the window, and only there. */
static void
test_legend_drag_hint (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  CmlSceneStyle style = cml_scene_style_default ();
  g_auto (GStrv) exported = cml_scene_legend_lines (sys, &style);
  style.interactive = TRUE;
  g_auto (GStrv) window = cml_scene_legend_lines (sys, &style);
  guint hints = 0;
  for (guint i = 0; exported[i]; i++)
    g_assert_null (strstr (exported[i], "drag"));
  for (guint i = 0; window[i]; i++)
    if (strstr (window[i], "(drag its tip)"))
      {
        g_assert_nonnull (strstr (window[i], "velocity"));
        hints++;
      }
  g_assert_cmpuint (hints, ==, 1);
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/scene-look/disk-color", test_disk_color);
  g_test_add_func ("/render/scene-look/plate-drawn", test_plate_drawn);
  g_test_add_func ("/render/scene-look/top-references", test_top_references);
  g_test_add_func ("/render/scene-look/table-force-shows", test_table_force_shows);
  g_test_add_func ("/render/scene-look/legend-drag-hint", test_legend_drag_hint);
  return g_test_run ();
}
