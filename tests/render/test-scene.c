/* test-scene.c — what the 3-D scene shows, checked on the scene state, not on pixels.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * - the rolling ball stays on its turntable: with v = 1 its orbit is larger than the
 *   model's table (radius 4), and the drawn table grows so that the ball's contact point,
 *   plus its radius, is always within it;
 * - for every built-in model, after 10 s the camera as the window and `cmlab-cli render`
 *   fit it holds the box around every body and trail point of the run (computed here from
 *   the scene values, not taken from the renderer) inside the view, clear of the legend,
 *   and every body is drawn at least 12 pixels across at 1280 × 720;
 * - every labelled object is in the legend, and the rolling ball's legend says which
 *   frame its path is drawn in;
 * - a model without a scene still gets a picture: a point and a path over its
 *   coordinates.
 * The renderer needs a GL context to be made (an EGL one, no display); where there is
 * none the tests that need one skip.
 */
#define G_LOG_DOMAIN "test-scene"

#include <math.h>

#include <pango/pangocairo.h>
#include <string.h>

#include "render-util.h"
#include "cml-camera.h"
#include "cml-offscreen.h"
#include "cml-scene-renderer.h"
#include "cml-simulation.h"

#define W 1280
#define H 720
#define SAMPLE_DT (1.0 / 60)

static CmlOffscreen *
offscreen_or_skip (void)
{
  g_autoptr (GError) error = NULL;
  CmlOffscreen *off = cml_offscreen_new (64, 64, 0, &error);
  if (off == NULL)
    g_test_skip (error->message);
  return off;
}

/* A box that grows. */
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
      else if (g_str_equal (so->type, "arrow"))
        {
          int from = cml_system_scene_offset (sys, i, "from");
          int vector = cml_system_scene_offset (sys, i, "vector");
          double tip[3] = { v[from] + v[vector], v[from + 1] + v[vector + 1], v[from + 2] + v[vector + 2] };
          box_add (b, v + from, 0);
          box_add (b, tip, 0);
        }
    }
}

static CmlSystem *
load (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  CmlSystem *sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

/* ---- the turntable covers the ball -------------------------------------------------------- */

static void
test_table_covers_ball (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = load ("rolling-ball");
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (given, (gpointer) "v", g_memdup2 (&(double) { 1.0 }, sizeof (double)));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);

  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);

  /* the objects: table, ball, path (models/rolling-ball.cml) */
  int table = -1, ball = -1;
  CmlModel *model = cml_system_get_model (sys);
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      if (g_str_equal (so->type, "turntable"))
        table = i;
      else if (g_str_equal (so->type, "sphere"))
        ball = i;
    }
  g_assert_cmpint (table, >=, 0);
  g_assert_cmpint (ball, >=, 0);
  int center = cml_system_scene_offset (sys, ball, "center");
  int radius = cml_system_scene_offset (sys, ball, "radius");
  int table_radius = cml_system_scene_offset (sys, table, "radius");

  guint ns = cml_system_n_scene_values (sys);
  g_autofree double *v = g_new0 (double, ns);
  double farthest = 0, largest = 0;
  for (int k = 0; k <= 40 * 60; k++)
    {
      double t = k * SAMPLE_DT;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      cml_simulation_eval_scene (sim, v);
      cml_scene_renderer_push_trail_samples_timed (r, &t, v, 1, ns, 0);
      double drawn = cml_scene_renderer_get_table_radius (r, table, v);
      double contact = hypot (v[center], v[center + 1]);
      farthest = MAX (farthest, contact);
      /* the model's radius is the least; the ball is on the table, all of it */
      g_assert_cmpfloat (drawn, >=, v[table_radius]);
      if (!(contact + v[radius] <= drawn))
        g_error ("t = %g: contact point %.3f from the centre, ball radius %g, table drawn %.3f",
                 t, contact, v[radius], drawn);
      /* and it does not shrink while the run goes on */
      g_assert_cmpfloat (drawn, >=, largest);
      largest = drawn;
    }
  /* the case that needs it: this orbit leaves the model's table */
  g_assert_cmpfloat (farthest + v[radius], >, v[table_radius]);
  g_test_message ("contact point up to %.3f from the centre; table drawn at %.3f", farthest, largest);

  /* a new run starts from the model's table again */
  cml_scene_renderer_clear_trails (r);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  cml_simulation_eval_scene (sim, v);
  g_assert_cmpfloat (cml_scene_renderer_get_table_radius (r, table, v), ==, v[table_radius]);
  /* not a turntable */
  g_assert_true (isnan (cml_scene_renderer_get_table_radius (r, ball, v)));

  cml_scene_renderer_free (r);
}

/* ---- the camera frames the run, bodies readable ----------------------------------------- */

/* Runs SYS for SECONDS into R, growing BOX; leaves the last values in V. */
static void
run_into (CmlSystem *sys, CmlSceneRenderer *r, double seconds, Box *box, double *v, double *obs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  gboolean observables = cml_scene_values_are_observables (sys);
  guint ns = observables ? cml_system_n_observables (sys) : cml_system_n_scene_values (sys);

  for (int k = 0; k <= (int) lround (seconds / SAMPLE_DT); k++)
    {
      double t = k * SAMPLE_DT;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      cml_simulation_eval_scene (sim, v);
      cml_simulation_observe (sim, obs);
      cml_scene_renderer_push_trail_samples_timed (r, &t, observables ? obs : v, 1, ns, 0);
      if (box)
        box_add_scene (box, sys, v);
    }
}

static void
test_camera_frames_run (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_assert_cmpuint (g_strv_length (names), >=, 4);
  CmlSceneStyle style = cml_scene_style_default ();

  for (guint m = 0; names[m]; m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlSystem) sys = load (names[m]);
      CmlSceneRenderer *r = cml_scene_renderer_new (&error);
      g_assert_no_error (error);
      cml_scene_renderer_set_system (r, sys);
      g_autofree double *v = g_new0 (double, MAX (cml_system_n_scene_values (sys), 1));
      g_autofree double *obs = g_new0 (double, cml_system_n_observables (sys));
      Box box = { 0 };
      run_into (sys, r, 10.0, &box, v, obs);
      g_assert_true (box.valid);

      /* the camera as the window and the exporter fit it, with a legend's corner free */
      double lw, lh;
      g_assert_true (cml_scene_legend_measure (sys, &style, &lw, &lh));
      CmlCameraKeepOut keep_out = { { (lw + 10) / W, (lh + 10) / H }, { 0, 0 } };
      g_autoptr (GArray) points = g_array_new (FALSE, FALSE, 3 * sizeof (double));
      cml_scene_renderer_get_frame_points (r, v, &style, points);
      CmlCamera cam;
      cml_camera_init (&cam);
      cml_camera_fit_points (&cam, (double *) points->data, points->len, (double) W / H, &keep_out, FALSE);

      /* every corner of the box of bodies and trails projects into clip space, through
       * the very matrices the renderer draws with */
      CmlMat4 view, proj, vp;
      cml_camera_get_matrices (&cam, (double) W / H, &view, &proj);
      cml_mat4_multiply (&vp, &proj, &view);
      double worst = 0;
      for (int c = 0; c < 8; c++)
        {
          CmlVec3 p = { c & 1 ? box.max[0] : box.min[0], c & 2 ? box.max[1] : box.min[1],
                        c & 4 ? box.max[2] : box.min[2] };
          CmlVec3 ndc = cml_mat4_transform_point (&vp, p);
          if (!(fabs (ndc.x) <= 1 && fabs (ndc.y) <= 1 && fabs (ndc.z) <= 1))
            g_error ("%s: corner (%g, %g, %g) of the run's box lands at (%g, %g, %g), out of view",
                     names[m], p.x, p.y, p.z, ndc.x, ndc.y, ndc.z);
          worst = MAX (worst, MAX (fabs (ndc.x), fabs (ndc.y)));
          /* and not under the legend */
          g_assert_false (cml_camera_kept_out (&keep_out, ndc.x + 1e-3, ndc.y - 1e-3));
        }
      g_test_message ("%s: the run's box reaches %.2f of the half-view", names[m], worst);

      /* the bodies are drawn large enough to see */
      for (guint i = 0; i < cml_scene_renderer_get_n_objects (r); i++)
        {
          const CmlSceneObject *so = cml_system_get_model (sys)->scene->pdata[i];
          if (!g_str_equal (so->type, "sphere") && !g_str_equal (so->type, "point")
              && !g_str_equal (so->type, "disc") && !g_str_equal (so->type, "arrow"))
            continue;
          double px = cml_scene_renderer_get_drawn_size (r, i, v, &cam, W, H, &style);
          g_test_message ("%s: %s %s drawn %.1f px", names[m], so->type, so->name, px);
          /* an arrow that stands for next to nothing (the sleigh's blade force, which dies
           * away) is not drawn at all, rather than drawn as large as a real one */
          if (px == 0 && g_str_equal (so->type, "arrow"))
            {
              int vec = cml_system_scene_offset (sys, i, "vector");
              double len = sqrt (v[vec] * v[vec] + v[vec + 1] * v[vec + 1] + v[vec + 2] * v[vec + 2]);
              double diag = sqrt ((box.max[0] - box.min[0]) * (box.max[0] - box.min[0])
                                  + (box.max[1] - box.min[1]) * (box.max[1] - box.min[1]));
              g_test_message ("%s: arrow %s (length %g) not drawn", names[m], so->name, len);
              g_assert_cmpfloat (len, <, 1e-3 * diag);
              continue;
            }
          if (!(px >= 12 - 1e-6))
            g_error ("%s: %s %s is drawn only %.1f px across", names[m], so->type, so->name, px);
        }
      cml_scene_renderer_free (r);
    }
}

/* The user's view is kept: turning or zooming stops the following, a reset brings it back. */
static void
test_camera_respects_user (void)
{
  static const double min[3] = { -1, -1, 0 }, max[3] = { 1, 1, 1 }, big[3] = { 5, 5, 1 };
  CmlCamera cam;
  cml_camera_init (&cam);
  cml_camera_fit (&cam, min, max, 1.5, NULL, FALSE);
  double d0 = cam.distance;
  cml_camera_fit (&cam, min, big, 1.5, NULL, FALSE);
  g_assert_cmpfloat (cam.distance, >, d0);  /* following the run as it grows */

  cml_camera_turn (&cam, 40, 10);
  g_assert_false (cam.auto_fit);
  double d1 = cam.distance, yaw = cam.yaw;
  cml_camera_fit (&cam, min, max, 1.5, NULL, FALSE);
  g_assert_cmpfloat (cam.distance, ==, d1);
  cml_camera_reset (&cam);
  g_assert_true (cam.auto_fit);
  g_assert_cmpfloat (cam.yaw, !=, yaw);
}

/* ---- the legend ------------------------------------------------------------------------- */

static void
test_legend (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  CmlSceneStyle style = cml_scene_style_default ();

  for (guint m = 0; names[m]; m++)
    {
      g_autoptr (CmlSystem) sys = load (names[m]);
      CmlModel *model = cml_system_get_model (sys);
      g_auto (GStrv) lines = cml_scene_legend_lines (sys, &style);
      /* every built-in scene object says what it is, and the legend lists it */
      for (guint i = 0; i < model->scene->len; i++)
        {
          const CmlSceneObject *so = model->scene->pdata[i];
          if (so->label == NULL)
            g_error ("%s: [scene %s] has no label", names[m], so->name);
          g_assert_true (g_strv_contains ((const char *const *) lines, so->label));
        }
      double w, h;
      g_assert_true (cml_scene_legend_measure (sys, &style, &w, &h));
      g_assert_cmpfloat (w, >, 40);
      g_assert_cmpfloat (h, >, 12);

      /* larger for a projector */
      CmlSceneStyle big = style;
      big.presentation = TRUE;
      double bw, bh;
      g_assert_true (cml_scene_legend_measure (sys, &big, &bw, &bh));
      g_assert_cmpfloat (bh, >, 1.2 * h);

      /* and it draws, light and dark */
      for (int dark = 0; dark < 2; dark++)
        {
          style.dark = dark;
          cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (w), (int) ceil (h));
          cairo_t *cr = cairo_create (s);
          cml_scene_legend_draw (sys, cr, &style);
          g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
          cairo_destroy (cr);
          cairo_surface_destroy (s);
        }
      style.dark = FALSE;
    }

  /* the frame the paths are drawn in, for a model whose table turns */
  g_autoptr (CmlSystem) ball = load ("rolling-ball");
  g_auto (GStrv) lab = cml_scene_legend_lines (ball, &style);
  g_assert_true (g_strv_contains ((const char *const *) lab, "paths drawn in the lab frame (fixed)"));
  style.table_frame = TRUE;
  g_auto (GStrv) turning = cml_scene_legend_lines (ball, &style);
  g_assert_true (g_strv_contains ((const char *const *) turning, "paths drawn in the turning table's frame"));
}

/* ---- a model without a scene ------------------------------------------------------------- */

static void
test_default_scene (void)
{
  static const char text[] =
    "[model]\nname = oscillator\ntitle = Oscillator\ndescription = a test\nsource = test\n"
    "[algebroid]\nbase = x, y\nfibre = u, v\n"
    "[anchor]\ne1 = x: 1\ne2 = y: 1\n"
    "[dynamics]\nlagrangian = (u^2 + v^2)/2 - (x^2 + 4*y^2)/2\n"
    "[initial]\nx = 1\nv = 1\n"
    "[units]\nx = m\ny = m\nu = m/s\nv = m/s\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "oscillator.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model->scene->len, ==, 0);
  g_assert_true (cml_scene_values_are_observables (sys));

  /* the legend needs no renderer */
  CmlSceneStyle style = cml_scene_style_default ();
  g_auto (GStrv) lines = cml_scene_legend_lines (sys, &style);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpstr (lines[0], ==, "state (x, y)");
  g_assert_cmpstr (lines[1], ==, "path of (x, y)");
  /* the axes are named, with their units */
  g_assert_cmpstr (lines[2], ==, "red axis: x [m]");
  g_assert_cmpstr (lines[3], ==, "green axis: y [m]");

  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);
  /* the scene the renderer builds: a trail and a point */
  g_assert_cmpuint (cml_scene_renderer_get_n_objects (r), ==, 2);
  g_assert_cmpstr (cml_scene_renderer_get_object_label (r, 0), ==, "path of (x, y)");
  g_assert_cmpstr (cml_scene_renderer_get_object_label (r, 1), ==, "state (x, y)");

  /* fed with the observables, its trail follows (x, y) and the bounds hold the ellipse */
  g_autofree double *v = g_new0 (double, 1);
  g_autofree double *obs = g_new0 (double, cml_system_n_observables (sys));
  run_into (sys, r, 10.0, NULL, v, obs);
  g_assert_cmpuint (cml_scene_renderer_get_trail_length (r, 0), >, 100);
  double min[3], max[3];
  cml_scene_renderer_get_bounds (r, obs, &style, min, max);
  g_assert_cmpfloat (min[0], <=, -0.99);
  g_assert_cmpfloat (max[0], >=, 0.99);
  g_assert_cmpfloat (max[1], >=, 0.49);

  /* and it draws something */
  CmlCamera cam;
  cml_camera_init (&cam);
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  cml_scene_renderer_get_frame_points (r, obs, &style, points);
  cml_camera_fit_points (&cam, (double *) points->data, points->len, 4.0 / 3.0, NULL, TRUE);
  g_assert_cmpfloat (cml_scene_renderer_get_drawn_size (r, 1, obs, &cam, 160, 120, &style), >=, 12);
  g_autofree guint8 *rgba = g_malloc (160 * 120 * 4);
  g_assert_true (cml_scene_renderer_draw_to_pixels (r, obs, &cam, 160, 120, &style, rgba));
  float bg[4];
  cml_scene_style_get_background (&style, bg);
  guint drawn = 0;
  for (int i = 0; i < 160 * 120; i++)
    if (abs (rgba[4 * i] - (int) lrintf (bg[0] * 255)) > 40 || abs (rgba[4 * i + 2] - (int) lrintf (bg[2] * 255)) > 40)
      drawn++;
  g_assert_cmpuint (drawn, >, 100);

  /* a run that runs away: its last steps are finite but far beyond anything a picture
   * holds (10¹⁹); the trail leaves them out, so the bounds (and the framing) stay the
   * run's */
  guint n_obs = cml_system_n_observables (sys);
  g_autofree double *far = g_memdup2 (obs, n_obs * sizeof (double));
  far[cml_system_observable_index (sys, "x")] = 1e19;
  g_assert_false (cml_scene_values_drawable (far, n_obs));
  g_assert_true (cml_scene_values_drawable (obs, n_obs));
  double t_far = 11.0;
  cml_scene_renderer_push_trail_samples_timed (r, &t_far, far, 1, n_obs, 0);
  cml_scene_renderer_get_bounds (r, obs, &style, min, max);
  g_assert_cmpfloat (max[0], <, 10);
  cml_scene_renderer_free (r);
}

/* A short arrow is lengthened to be seen; one that stands for next to nothing (a force
 * that has died away, less than a tenth of that least length) is not drawn. */
static void
test_arrow_vanishes (void)
{
  g_autoptr (CmlOffscreen) off = offscreen_or_skip ();
  if (off == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = load ("rolling-ball");
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  CmlModel *model = cml_system_get_model (sys);
  guint obj = G_MAXUINT;
  for (guint k = 0; k < model->scene->len; k++)
    if (g_str_equal (((CmlSceneObject *) model->scene->pdata[k])->name, "contact-force"))
      obj = k;
  g_assert_cmpuint (obj, !=, G_MAXUINT);
  int vec = cml_system_scene_offset (sys, obj, "vector");
  g_autofree double *v = g_new0 (double, cml_system_n_scene_values (sys));
  cml_simulation_eval_scene (sim, v);
  CmlSceneRenderer *r = cml_scene_renderer_new (&error);
  g_assert_no_error (error);
  cml_scene_renderer_set_system (r, sys);
  CmlSceneStyle style = cml_scene_style_default ();
  CmlCamera cam;
  cml_camera_init (&cam);
  static const double min[3] = { -4, -4, 0 }, max[3] = { 4, 4, 2 };
  cml_camera_fit (&cam, min, max, 4.0 / 3.0, NULL, FALSE);

  double full = cml_scene_renderer_get_drawn_size (r, obj, v, &cam, 800, 600, &style);
  g_assert_cmpfloat (full, >=, 12);
  /* shorter on the screen than the least length: drawn at the least length */
  double least = 0;
  for (double f = 1; f > 1e-12; f /= 2)
    {
      double w[3] = { v[vec], v[vec + 1], v[vec + 2] };
      for (int c = 0; c < 3; c++)
        v[vec + c] = w[c] * f;
      double px = cml_scene_renderer_get_drawn_size (r, obj, v, &cam, 800, 600, &style);
      for (int c = 0; c < 3; c++)
        v[vec + c] = w[c];
      if (px == 0)
        break;
      g_assert_cmpfloat (px, >=, 12);
      least = least == 0 ? px : MIN (least, px);
    }
  g_assert_cmpfloat (least, <, full);
  /* and a millionth of the force is not drawn */
  for (int c = 0; c < 3; c++)
    v[vec + c] *= 1e-6;
  g_assert_cmpfloat (cml_scene_renderer_get_drawn_size (r, obj, v, &cam, 800, 600, &style), ==, 0);
  cml_scene_renderer_free (r);
}

/* High contrast: the scene stands on white, or on black when dark; without it the
 * backgrounds are the softer ones. */
static void
test_high_contrast_background (void)
{
  for (int dark = 0; dark < 2; dark++)
    {
      CmlSceneStyle style = cml_scene_style_default ();
      float plain[4], hc[4];

      style.dark = dark;
      cml_scene_style_get_background (&style, plain);
      style.high_contrast = TRUE;
      cml_scene_style_get_background (&style, hc);
      for (int c = 0; c < 3; c++)
        {
          g_assert_cmpfloat (hc[c], ==, dark ? 0.f : 1.f);
          g_assert_cmpfloat (plain[c], !=, hc[c]);
        }
      g_assert_cmpfloat (hc[3], ==, 1.f);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/scene/table-covers-ball", test_table_covers_ball);
  g_test_add_func ("/render/scene/camera-frames-run", test_camera_frames_run);
  g_test_add_func ("/render/scene/camera-respects-user", test_camera_respects_user);
  g_test_add_func ("/render/scene/legend", test_legend);
  g_test_add_func ("/render/scene/default-scene", test_default_scene);
  g_test_add_func ("/render/scene/arrow-vanishes", test_arrow_vanishes);
  g_test_add_func ("/render/scene/high-contrast-background", test_high_contrast_background);

  int status = g_test_run ();
  render_test_drop_font_caches ();
  return status;
}
