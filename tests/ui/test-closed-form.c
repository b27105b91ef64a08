/* test-closed-form.c — the model's closed form drawn faint in the scene: on the computed
 * bodies when it is right, apart from them when it is wrong.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-closed-form"

#include "ui-util.h"

#include "cml-scene-renderer.h"

#include <math.h>

typedef struct
{
  CmlWindow *win;
  double     t;
} Wait;

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static gboolean
drawn_past (gpointer data)
{
  Wait *w = data;
  CmlFrame *f = cml_runner_get_frame (cml_window_get_runner (w->win));
  const double *ref;
  guint n;
  gboolean past = f->t >= w->t && cml_scene_view_get_reference_scene (w->win->scene_view, &ref, &n);
  cml_frame_unref (f);
  return past;
}

/* The largest distance between where the run and the closed form put the centre (or
 * position) of the scene's first body. */
static double
body_gap (CmlWindow *win)
{
  CmlFrame *f = cml_runner_get_frame (cml_window_get_runner (win));
  CmlModel *model = cml_system_get_model (f->system);
  const double *ref;
  guint n;
  double gap = NAN;

  g_assert_true (cml_scene_view_get_reference_scene (win->scene_view, &ref, &n));
  if (cml_scene_values_are_observables (f->system))
    {
      /* the default picture: the point (x, y) of the first two coordinates */
      g_assert_cmpuint (n, ==, f->n_obs);
      for (guint i = 0; i < 2; i++)
        {
          int k = cml_system_observable_index (f->system, model->base[i]);
          gap = isnan (gap) ? fabs (ref[k] - f->obs[k]) : MAX (gap, fabs (ref[k] - f->obs[k]));
        }
      cml_frame_unref (f);
      return gap;
    }
  g_assert_cmpuint (n, ==, f->n_scene);
  for (guint k = 0; k < model->scene->len && isnan (gap); k++)
    {
      CmlSceneObject *o = g_ptr_array_index (model->scene, k);
      int off = cml_system_scene_offset (f->system, k, g_str_equal (o->type, "sphere") ? "center" : "position");
      if (off < 0 || g_str_equal (o->type, "turntable") || g_str_equal (o->type, "plane"))
        continue;
      gap = 0;
      for (int j = 0; j < 3; j++)
        gap = MAX (gap, fabs (ref[off + j] - f->scene[off + j]));
    }
  cml_frame_unref (f);
  g_assert_false (isnan (gap));
  return gap;
}

static void
test_right_and_wrong (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *wrong = g_test_build_filename (G_TEST_DIST, "models", "data", "oscillator-wrong-reference.cml", NULL);
  const char *models[] = { "rolling-ball", wrong };

  for (guint m = 0; m < 2; m++)
    {
      CmlWindow *win = window_new (models[m]);
      cml_window_show_closed_form (win, TRUE);
      wait_for (views_follow, win, "views_follow");
      g_assert_nonnull (strstr (cml_scene_view_get_ghost_note (win->scene_view), "closed form"));
      cml_window_play (win);
      Wait w = { win, 6.0 };
      wait_for (drawn_past, &w, "drawn_past");
      cml_runner_pause (cml_window_get_runner (win));
      cml_runner_sync (cml_window_get_runner (win));
      /* at t = 6 exactly, whenever a busy machine let the run stop: the wrong closed form's
       * gap, |cos 2t − cos 2.02t| ≈ 0.02 t |sin 2t|, is 0.064 there but passes through 0
       * near t = 6.28 */
      cml_runner_seek (cml_window_get_runner (win), 6.0);
      cml_runner_sync (cml_window_get_runner (win));
      wait_window_shows_runner (win);
      double gap = body_gap (win);
      g_test_message ("%s: the closed form %.3g from the run", models[m], gap);
      if (m == 0)
        g_assert_cmpfloat (gap, <, 1e-6);   /* the ball's circle */
      else
        g_assert_cmpfloat (gap, >, 1e-2);   /* a frequency 1 % off, after 6 s */

      cml_window_show_closed_form (win, FALSE);
      const double *ref;
      guint n;
      g_assert_false (cml_scene_view_get_reference_scene (win->scene_view, &ref, &n));
      g_assert_null (cml_scene_view_get_ghost_note (win->scene_view));
      window_free (win);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/closed-form/right-and-wrong", test_right_and_wrong);
  return g_test_run ();
}
