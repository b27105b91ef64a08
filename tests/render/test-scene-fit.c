/* test-scene-fit.c — the camera fitted to a whole run (src/render/cml-scene-fit.c), as
 * `cmlab-cli render` places it before drawing the first frame.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For the rolling ball with v = 1 (an orbit larger than the model's table, so the drawn
 * table grows) and for every built-in model: after sampling 12 s of the run into the
 * renderer, the fitted camera holds the run's box — every body and trail point of every
 * sample, computed here from the scene values, and the turntable's rim at its drawn size
 * — inside the view and off the corner kept for the legend; it fills a fair part of the
 * view; and it stays where it is (auto-fit off).  The renderer needs a GL context to be
 * made (EGL, no display); where there is none the test skips.
 */
#define G_LOG_DOMAIN "test-scene-fit"

#include <math.h>

#include "cml-offscreen.h"
#include "cml-scene-fit.h"
#include "cml-simulation.h"

#define W 1280
#define H 720
#define SAMPLE_DT (1.0 / 60)
#define SECONDS 12.0

typedef struct
{
  double   min[3], max[3];
  gboolean valid;
} Box;

static void
box_add (Box *b, const double p[3], double r)
{
  for (int k = 0; k < 3; k++)
    if (!isfinite (p[k]))
      return;
  for (int k = 0; k < 3; k++)
    {
      b->min[k] = b->valid ? MIN (b->min[k], p[k] - r) : p[k] - r;
      b->max[k] = b->valid ? MAX (b->max[k], p[k] + r) : p[k] + r;
    }
  b->valid = TRUE;
}

/* The bodies and trail points at scene values V, by the model's own description. */
static void
box_add_scene (Box *b, CmlSystem *sys, const double *v)
{
  CmlModel *model = cml_system_get_model (sys);
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      int center = cml_system_scene_offset (sys, i, "center");
      int position = cml_system_scene_offset (sys, i, "position");
      int point = cml_system_scene_offset (sys, i, "point");
      int radius = cml_system_scene_offset (sys, i, "radius");
      if (g_str_equal (so->type, "sphere"))
        box_add (b, v + center, v[radius]);
      else if (g_str_equal (so->type, "point") || g_str_equal (so->type, "disc"))
        box_add (b, v + position, radius >= 0 ? v[radius] : 0);
      else if (g_str_equal (so->type, "trail"))
        box_add (b, v + point, 0);
    }
}

/* Where P lands in the view of CAM (normalized device coordinates). */
static void
project (const CmlCamera *cam, const double p[3], double ndc[3])
{
  cml_camera_project (cam, (double) W / H, p, ndc);
}

static void
check_fit (const char *name, GHashTable *given)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);

  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);
  CmlSceneStyle style = cml_scene_style_default ();

  gboolean observables = cml_scene_values_are_observables (sys);
  guint ns = cml_system_n_scene_values (sys), no = cml_system_n_observables (sys);
  g_autofree double *v = g_new0 (double, MAX (ns, 1));
  g_autofree double *obs = g_new0 (double, MAX (no, 1));
  double *values = observables ? obs : v;
  guint n_values = observables ? no : ns;
  Box box = { 0 };
  for (int k = 0; k <= (int) lround (SECONDS / SAMPLE_DT); k++)
    {
      double t = k * SAMPLE_DT;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      g_assert_no_error (error);
      cml_simulation_eval_scene (sim, v);
      cml_simulation_observe (sim, obs);
      cml_scene_renderer_push_trail_samples_timed (r, &t, values, 1, n_values, 0);
      if (!observables)
        box_add_scene (&box, sys, v);
    }

  /* the corners to hold: the run's box, and each turntable's rim as drawn at the end */
  g_autoptr (GArray) corners = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  if (box.valid)
    for (int c = 0; c < 8; c++)
      {
        double p[3] = { c & 1 ? box.max[0] : box.min[0], c & 2 ? box.max[1] : box.min[1],
                        c & 4 ? box.max[2] : box.min[2] };
        g_array_append_vals (corners, p, 1);
      }
  for (guint i = 0; i < model->scene->len && !observables; i++)
    {
      double radius = cml_scene_renderer_get_table_radius (r, i, v);
      if (isnan (radius))
        continue;
      int center = cml_system_scene_offset (sys, i, "center");
      double c[3] = { 0, 0, 0 };
      for (int k = 0; k < 3 && center >= 0; k++)
        c[k] = v[center + k];
      for (int a = 0; a < 36; a++)
        {
          double p[3] = { c[0] + radius * cos (a * G_PI / 18), c[1] + radius * sin (a * G_PI / 18), c[2] };
          g_array_append_vals (corners, p, 1);
        }
    }

  const CmlCameraKeepOut keep_out = { { 0.3, 0.25 }, { 0.2, 0.08 } };
  CmlCamera cam;
  cml_scene_fit_camera (r, values, &style, (double) W / H, &keep_out, &cam);
  g_assert_false (cam.auto_fit);

  double worst = 0;
  for (guint i = 0; i < corners->len; i++)
    {
      const double *p = &g_array_index (corners, double, 3 * i);
      double ndc[3];
      project (&cam, p, ndc);
      if (!(fabs (ndc[0]) <= 1 && fabs (ndc[1]) <= 1 && fabs (ndc[2]) <= 1))
        g_error ("%s: (%g, %g, %g) of the run lands at (%g, %g, %g), out of view", name, p[0], p[1], p[2],
                 ndc[0], ndc[1], ndc[2]);
      /* not under the legend's corner nor the buttons' */
      g_assert_false (cml_camera_kept_out (&keep_out, ndc[0] + 1e-3 * (ndc[0] < 0 ? 1 : -1),
                                           ndc[1] + 1e-3 * (ndc[1] < 0 ? 1 : -1)));
      worst = MAX (worst, MAX (fabs (ndc[0]), fabs (ndc[1])));
    }
  g_test_message ("%s: %u points of the run reach %.2f of the half-view", name, corners->len, worst);
  /* and the view is not much wider than the run */
  if (corners->len > 0)
    g_assert_cmpfloat (worst, >, 0.5);

  /* fixed: more of the run does not move it */
  CmlCamera before = cam;
  cml_camera_fit (&cam, box.min, box.max, (double) W / H, &keep_out, FALSE);
  g_assert_cmpmem (&before, sizeof before, &cam, sizeof cam);

  cml_scene_renderer_free (r);
}

static void
test_rolling_ball (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlOffscreen) off = cml_offscreen_new (64, 64, 0, &error);
  if (off == NULL)
    {
      g_test_skip (error->message);
      return;
    }
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (given, (gpointer) "v", g_memdup2 (&(double) { 1.0 }, sizeof (double)));
  check_fit ("rolling-ball", given);
}

static void
test_builtin (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlOffscreen) off = cml_offscreen_new (64, 64, 0, &error);
  if (off == NULL)
    {
      g_test_skip (error->message);
      return;
    }
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_assert_cmpuint (g_strv_length (names), >=, 4);
  for (guint m = 0; names[m]; m++)
    check_fit (names[m], NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/scene-fit/rolling-ball", test_rolling_ball);
  g_test_add_func ("/render/scene-fit/builtin", test_builtin);
  return g_test_run ();
}
