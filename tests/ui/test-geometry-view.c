/* test-geometry-view.c — the Geometry page: the fan of extremals of Martinet run on worker
 * threads through the core's cml_explore_full (the wavefront drawn is cml_explore's, bit
 * for bit, for the same options from the run's start), a click on the wavefront starting
 * the run on that extremal (one undo step), Cancel, and, for a model that is not
 * vakonomic, no tab and no run.  The endpoints appear as each extremal ends: with the
 * worker held at a gate once 5 extremals have ended, exactly those 5 are drawn (each
 * cml_explore's, bit for bit) while the fan runs; let go, all 24.  On Heisenberg written
 * as a user would (doc/examples/heisenberg.cml, whose [reference] gives the closed forms of
 * x, y and z), the wavefront's closed form is drawn dashed and the largest differences
 * of the wavefront and of the conjugate and Maxwell points (on the z axis at 2π) from it
 * are below 1e-8; on Martinet (no closed form of x1, x2) none is drawn.  The wavefront
 * grows: drawn at T/4, T/2, 3T/4 and T (each cml_explore's, bit for bit); on Heisenberg at
 * its cut time 2π the front at T is one point and the plot still covers the earlier ones
 * (circles of radius up to 2), never zoomed into rounding noise, nor while the fan runs.
 * On SE(2) (doc/examples/se2.cml, recognised by its structure) the points at Sachkov's first
 * Maxwell time 2K(k) are drawn dashed, the Maxwell times found within 1e-8 of it and the
 * Maxwell points within 1e-8 of those points; on Heisenberg none are.  The fan is drawn
 * in the 3-D scene too (Martinet's scene draws x1, x2, x3): of 250 extremals every third,
 * 84 curves (at most 100), with the wavefront at the time shown drawn; a new model clears
 * them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-geometry-view"

#include "ui-util.h"

#include <glib/gstdio.h>
#include <math.h>

#include "cml-error.h"
#include "cml-explore.h"
#include "cml-geometry-view.h"
#include "cml-parameter-panel-private.h"

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static gboolean
fan_done (gpointer data)
{
  return !cml_geometry_view_is_running (data);
}

static CmlGeometryView *
geometry_page (CmlWindow *win)
{
  GtkWidget *page = gtk_stack_get_child_by_name (win->side_stack, "geometry");
  g_assert_nonnull (page);
  return CML_GEOMETRY_VIEW (page);
}

/* The fan cml_explore () gives from the window's start with its integrator. */
static CmlExploreResult *
fan_of (CmlWindow *win, const CmlExploreOptions *opt)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (win->system, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_set_integrator (sim, &win->integrator, &error));
  g_assert_true (cml_simulation_reset (sim, cml_parameter_panel_get_given (win->parameter_panel), &error));
  CmlExploreResult *res = cml_explore (sim, opt, &error);
  g_assert_no_error (error);
  return res;
}

static void
test_geometry (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("martinet");
  g_autoptr (GError) error = NULL;
  CmlGeometryView *view;
  guint n = 0;

  wait_for (views_follow, win, "views_follow");
  view = geometry_page (win);
  g_assert_true (cml_geometry_view_is_available (view));
  /* its tab says what it shows */
  GtkWidget *tab = gtk_widget_get_last_child (GTK_WIDGET (win->side_switcher));
  g_assert_true (gtk_widget_get_visible (tab));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (tab), "wavefront"));
  cml_window_show_page (win, "geometry");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (win->side_stack), ==, "geometry");

  /* a fan of 24 extremals to T = 2π, x₁ across and x₂ up */
  g_assert_true (cml_geometry_view_set_fan (view, 24, 2 * G_PI, "x1", "x2", &error));
  g_assert_no_error (error);
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  g_assert_true (cml_geometry_view_is_running (view));
  wait_for (fan_done, view, "the fan to be done");
  g_test_message ("status: %s", cml_geometry_view_get_status (view));
  g_assert_nonnull (strstr (cml_geometry_view_get_status (view), "Click the wavefront"));

  /* the wavefront drawn: cml_explore's endpoints at T, bit for bit */
  CmlExploreOptions opt = cml_geometry_view_get_options (view);
  g_assert_cmpuint (opt.n_covectors, ==, 24);
  g_autoptr (CmlExploreResult) truth = fan_of (win, &opt);
  const double *xy = cml_geometry_view_get_points (view, &n);
  g_assert_cmpuint (n, ==, 24);
  const CmlExploreResult *res = cml_geometry_view_get_result (view);
  g_assert_nonnull (res);
  g_assert_cmpstr (truth->coord_names[0], ==, "x1");
  g_assert_cmpstr (truth->coord_names[1], ==, "x2");
  guint n_conj = 0, nf = truth->n_times + 1;
  for (guint i = 0; i < n; i++)
    {
      const double *q = truth->points + ((gsize) i * nf + truth->n_times) * truth->n_coords;
      g_assert_true (isfinite (q[0]) && isfinite (q[1]));
      g_assert_cmpfloat (xy[2 * i], ==, q[0]);
      g_assert_cmpfloat (xy[2 * i + 1], ==, q[1]);
      g_assert_true (res->conjugate[i] == truth->conjugate[i]
                     || (isnan (res->conjugate[i]) && isnan (truth->conjugate[i])));
      n_conj += res->conjugate[i] <= opt.t_end;
    }
  /* Martinet's fan folds before 2π: some conjugate points are drawn */
  g_assert_cmpuint (n_conj, >, 0);
  /* and the wavefronts at T/4, T/2, 3T/4 inside it: cml_explore's, bit for bit */
  guint n_fronts = 0;
  const double *fronts = cml_geometry_view_get_fronts (view, &n, &n_fronts);
  g_assert_cmpuint (n, ==, 24);
  g_assert_cmpuint (truth->n_times, ==, 3);
  g_assert_cmpuint (n_fronts, ==, 4);
  for (guint f = 0; f < truth->n_times; f++)
    g_assert_cmpfloat (truth->times[f], ==, opt.t_end * (f + 1) / 4);
  for (guint f = 0; f < n_fronts; f++)
    for (guint i = 0; i < n; i++)
      {
        const double *q = truth->points + ((gsize) i * nf + f) * truth->n_coords;
        g_assert_cmpfloat (fronts[2 * ((gsize) f * n + i)], ==, q[0]);
        g_assert_cmpfloat (fronts[2 * ((gsize) f * n + i) + 1], ==, q[1]);
      }

  /* a click near extremal 5's endpoint: the run starts on it (its free momenta p_u = u,
   * p_y1 = y1 as the panel's initial values, to the six digits the fields show); one undo
   * goes back */
  GtkSpinButton *u = cml_parameter_panel_get_initial_spin (win->parameter_panel, "u");
  GtkSpinButton *y1 = cml_parameter_panel_get_initial_spin (win->parameter_panel, "y1");
  g_assert_nonnull (u);
  g_assert_nonnull (y1);
  double u_before = gtk_spin_button_get_value (u), y1_before = gtk_spin_button_get_value (y1);
  const double *p5 = res->covectors + 5 * res->n_momenta;
  g_assert_true (cml_geometry_view_pick (view, xy[10] + 1e-9, xy[11]));
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (u), p5[0], 1e-5);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (y1), p5[1], 1e-5);
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  g_assert_cmpfloat (gtk_spin_button_get_value (u), ==, u_before);
  g_assert_cmpfloat (gtk_spin_button_get_value (y1), ==, y1_before);

  /* Cancel before any extremal runs (the worker held at a gate until then): nothing new is
   * drawn, the fan drawn before stays */
  g_autofree char *dir = g_dir_make_tmp ("cmlab-gate-XXXXXX", NULL);
  g_autofree char *gate = g_build_filename (dir, "go", NULL);
  g_setenv ("CMLAB_TEST_GEOMETRY_GATE", gate, TRUE);
  g_assert_true (cml_geometry_view_set_fan (view, 200, 2 * G_PI, "x1", "x2", &error));
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  cml_geometry_view_cancel (view);
  g_assert_true (g_file_set_contents (gate, "", 0, NULL));
  wait_for (fan_done, view, "the cancelled fan to end");
  g_unsetenv ("CMLAB_TEST_GEOMETRY_GATE");
  g_unlink (gate);
  g_rmdir (dir);
  g_assert_nonnull (strstr (cml_geometry_view_get_status (view), "Cancelled"));
  g_assert_true (cml_geometry_view_get_result (view) == res);
  cml_geometry_view_get_points (view, &n);
  g_assert_cmpuint (n, ==, 24);

  /* a model that is not vakonomic: the placeholder, no Run */
  g_assert_true (cml_window_load (win, "rolling-ball", &error));
  g_assert_no_error (error);
  wait_for (views_follow, win, "views_follow");
  g_assert_false (cml_geometry_view_is_available (view));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (view)));
  g_assert_false (gtk_widget_get_visible (gtk_widget_get_last_child (GTK_WIDGET (win->side_switcher))));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (win->side_stack), !=, "geometry");
  g_assert_false (cml_geometry_view_start (view, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_null (cml_geometry_view_get_result (view));

  /* back to a vakonomic one, a fan running when the window goes is stopped with it */
  g_assert_true (cml_window_load (win, "plate-ball", &error));
  wait_for (views_follow, win, "views_follow");
  g_assert_true (cml_geometry_view_is_available (view));
  tab = gtk_widget_get_last_child (GTK_WIDGET (win->side_switcher));
  g_assert_true (gtk_widget_get_visible (tab));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (tab), "wavefront"));
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  window_free (win);
}

static guint
n_drawn (CmlGeometryView *view)
{
  guint n = 0, k = 0;
  const double *xy = cml_geometry_view_get_points (view, &n);
  for (guint i = 0; i < n; i++)
    k += isfinite (xy[2 * i]) && isfinite (xy[2 * i + 1]);
  return k;
}

static gboolean
five_drawn (gpointer data)
{
  return n_drawn (data) >= 5;
}

/* The fan of VIEW started with every extremal after the fifth to end held at a gate, once
 * five are drawn; the gate's path (release_fan opens it). */
static char *
start_fan_held_after_five (CmlGeometryView *view)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-gate-XXXXXX", NULL);
  char *gate = g_build_filename (dir, "go", NULL);

  g_setenv ("CMLAB_TEST_GEOMETRY_HOLD_AFTER", "5", TRUE);
  g_setenv ("CMLAB_TEST_GEOMETRY_STEP_GATE", gate, TRUE);
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  wait_for (five_drawn, view, "five endpoints drawn");
  return gate;
}

/* The gate opened: the whole fan, until it is done; the gate and its directory removed. */
static void
release_fan (CmlGeometryView *view, const char *gate)
{
  g_autofree char *dir = g_path_get_dirname (gate);

  g_assert_true (g_file_set_contents (gate, "", 0, NULL));
  wait_for (fan_done, view, "the fan to be done");
  g_unsetenv ("CMLAB_TEST_GEOMETRY_HOLD_AFTER");
  g_unsetenv ("CMLAB_TEST_GEOMETRY_STEP_GATE");
  g_unlink (gate);
  g_rmdir (dir);
}

static void
test_points_as_they_end (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("martinet");
  g_autoptr (GError) error = NULL;
  guint n = 0;

  wait_for (views_follow, win, "views_follow");
  CmlGeometryView *view = geometry_page (win);
  cml_window_show_page (win, "geometry");
  g_assert_true (cml_geometry_view_set_fan (view, 24, 2 * G_PI, "x1", "x2", &error));
  g_assert_no_error (error);

  /* every extremal after the fifth to end waits at the gate before it is kept */
  g_autofree char *gate = start_fan_held_after_five (view);
  g_assert_true (cml_geometry_view_is_running (view));
  g_assert_cmpuint (n_drawn (view), ==, 5);
  /* the points drawn are the fan's endpoints at T, where they belong in covector order */
  CmlExploreOptions opt = cml_geometry_view_get_options (view);
  g_autoptr (CmlExploreResult) truth = fan_of (win, &opt);
  const double *xy = cml_geometry_view_get_points (view, &n);
  g_assert_cmpuint (n, ==, 24);
  for (guint i = 0; i < n; i++)
    if (isfinite (xy[2 * i]))
      {
        const double *q = truth->points + ((gsize) i * (truth->n_times + 1) + truth->n_times) * truth->n_coords;
        g_assert_cmpfloat (xy[2 * i], ==, q[0]);
        g_assert_cmpfloat (xy[2 * i + 1], ==, q[1]);
      }
  /* a click while the fan runs starts nothing (the drawn fan is not the covectors shown) */
  g_assert_false (cml_geometry_view_pick (view, xy[0], xy[1]));
  g_assert_true (cml_geometry_view_is_running (view));
  g_assert_cmpuint (n_drawn (view), ==, 5);

  /* let go: the whole fan, its wavefront closed */
  release_fan (view, gate);
  g_assert_cmpuint (n_drawn (view), ==, 24);
  g_assert_nonnull (cml_geometry_view_get_result (view));
  window_free (win);
}

static void
test_closed_form (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "heisenberg.cml", NULL);
  CmlWindow *win = window_new (path);
  g_autoptr (GError) error = NULL;
  double dc = 0, dm = 0;

  wait_for (views_follow, win, "views_follow");
  CmlGeometryView *view = geometry_page (win);
  cml_window_show_page (win, "geometry");
  /* past the cut time 2π/|p3| = 2π: every extremal has its conjugate and Maxwell point */
  g_assert_true (cml_geometry_view_set_fan (view, 24, 7, "x", "z", &error));
  g_assert_no_error (error);
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  wait_for (fan_done, view, "the fan to be done");
  double d = cml_geometry_view_get_closed_form_difference (view, &dc, &dm);
  g_test_message ("largest differences from the closed form: wavefront %.3g, conjugate %.3g, Maxwell %.3g", d, dc,
                  dm);
  g_assert_true (d <= 1e-8);
  g_assert_true (dc <= 1e-8);
  g_assert_true (dm <= 1e-8);
  /* and the axes changed: drawn again, with the closed form */
  g_assert_true (cml_geometry_view_set_fan (view, 24, 7, "x", "y", &error));
  g_assert_true (cml_geometry_view_get_closed_form_difference (view, NULL, NULL) <= 1e-8);

  /* Martinet has no closed form of x1, x2: none drawn */
  g_assert_true (cml_window_load (win, "martinet", &error));
  g_assert_no_error (error);
  wait_for (views_follow, win, "views_follow");
  g_assert_true (cml_geometry_view_set_fan (view, 12, 2, "x1", "x2", &error));
  g_assert_true (cml_geometry_view_start (view, &error));
  wait_for (fan_done, view, "the fan to be done");
  g_assert_true (isnan (cml_geometry_view_get_closed_form_difference (view, NULL, NULL)));
  window_free (win);
}

/* Heisenberg (doc/examples/heisenberg.cml: unit speed, p3 = 1) to its cut time T = 2π: every
 * extremal is back on the z axis, so the wavefront at T in (x, y) is one point (to rounding).
 * The page draws it growing: the fronts at T/4, T/2, 3T/4 are circles about the start of
 * radius 2 sin(t/2) (√2, 2, √2), the one at T/2 of radius 2; the plot's ranges cover them
 * and the collapsed point, never zoomed into the rounding noise.  While the fan runs with
 * only its endpoints at T drawn (all one point), the axes keep the start's scale (±1 about
 * the point at the origin). */
static void
test_growing (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "heisenberg.cml", NULL);
  CmlWindow *win = window_new (path);
  g_autoptr (GError) error = NULL;
  guint n = 0, n_fronts = 0;
  double x0, x1, y0, y1;

  wait_for (views_follow, win, "views_follow");
  CmlGeometryView *view = geometry_page (win);
  cml_window_show_page (win, "geometry");
  g_assert_true (cml_geometry_view_set_fan (view, 24, 2 * G_PI, "x", "y", &error));
  g_assert_no_error (error);

  /* while it runs: five endpoints at T, all at the origin to rounding; the axes ±1 */
  g_autofree char *gate = start_fan_held_after_five (view);
  const double *xy = cml_geometry_view_get_points (view, &n);
  for (guint i = 0; i < n; i++)
    if (isfinite (xy[2 * i]))
      g_assert_true (fabs (xy[2 * i]) < 1e-6 && fabs (xy[2 * i + 1]) < 1e-6);
  cml_geometry_view_get_ranges (view, &x0, &x1, &y0, &y1);
  g_test_message ("while running: x in [%g, %g], y in [%g, %g]", x0, x1, y0, y1);
  g_assert_cmpfloat (x1 - x0, >=, 1);
  g_assert_cmpfloat (y1 - y0, >=, 1);
  g_assert_true (x0 < 0 && x1 > 0 && y0 < 0 && y1 > 0);
  release_fan (view, gate);

  /* the fronts drawn: cml_explore's, bit for bit */
  CmlExploreOptions opt = cml_geometry_view_get_options (view);
  g_autoptr (CmlExploreResult) truth = fan_of (win, &opt);
  const double *fronts = cml_geometry_view_get_fronts (view, &n, &n_fronts);
  g_assert_cmpuint (n, ==, 24);
  g_assert_cmpuint (n_fronts, ==, 4);
  g_assert_cmpuint (truth->n_times, ==, 3);
  for (guint f = 0; f < n_fronts; f++)
    for (guint i = 0; i < n; i++)
      {
        const double *q = truth->points + ((gsize) i * n_fronts + f) * truth->n_coords;
        double t = f < truth->n_times ? truth->times[f] : opt.t_end;
        double fx = fronts[2 * ((gsize) f * n + i)], fy = fronts[2 * ((gsize) f * n + i) + 1];
        g_assert_cmpfloat (fx, ==, q[0]);
        g_assert_cmpfloat (fy, ==, q[1]);
        /* at distance 2 |sin(t/2)| from the start (the origin): √2, 2, √2, 0 */
        g_assert_cmpfloat_with_epsilon (hypot (fx, fy), 2 * fabs (sin (t / 2)), 1e-8);
      }
  /* the T/2 front is the circle of radius 2 */
  g_assert_cmpfloat (truth->times[1], ==, G_PI);

  /* the plot covers every front, the collapsed one inside: not zoomed into rounding noise */
  cml_geometry_view_get_ranges (view, &x0, &x1, &y0, &y1);
  g_test_message ("x in [%g, %g], y in [%g, %g]", x0, x1, y0, y1);
  g_assert_cmpfloat (x1 - x0, >=, 4);
  g_assert_cmpfloat (y1 - y0, >=, 4);
  for (guint f = 0; f < n_fronts; f++)
    for (guint i = 0; i < n; i++)
      {
        double fx = fronts[2 * ((gsize) f * n + i)], fy = fronts[2 * ((gsize) f * n + i) + 1];
        g_assert_true (fx >= x0 && fx <= x1 && fy >= y0 && fy <= y1);
      }
  /* and the closed forms of every front, dashed, within 1e-8 */
  g_assert_true (cml_geometry_view_get_closed_form_difference (view, NULL, NULL) <= 1e-8);
  window_free (win);
}

static void
test_sachkov (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "se2.cml", NULL);
  CmlWindow *win = window_new (path);
  g_autoptr (GError) error = NULL;
  double dp = 0;

  wait_for (views_follow, win, "views_follow");
  CmlGeometryView *view = geometry_page (win);
  cml_window_show_page (win, "geometry");
  /* the start's p3 = 0.3: of 60 covectors, mirror pairs meet before T = 4 */
  g_assert_true (cml_geometry_view_set_fan (view, 60, 4, "x", "y", &error));
  g_assert_no_error (error);
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  wait_for (fan_done, view, "the fan to be done");
  double d = cml_geometry_view_get_sachkov_difference (view, &dp);
  g_test_message ("largest differences from Sachkov's closed form: Maxwell times %.3g, points %.3g", d, dp);
  g_assert_true (d <= 1e-8);
  g_assert_true (dp <= 1e-8);
  g_assert_true (isnan (cml_geometry_view_get_closed_form_difference (view, NULL, NULL)));

  /* Heisenberg is not SE(2): nothing of Sachkov's */
  g_autofree char *heis = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "heisenberg.cml", NULL);
  g_assert_true (cml_window_load (win, heis, &error));
  g_assert_no_error (error);
  wait_for (views_follow, win, "views_follow");
  g_assert_true (cml_geometry_view_set_fan (view, 24, 7, "x", "z", &error));
  g_assert_true (cml_geometry_view_start (view, &error));
  wait_for (fan_done, view, "the fan to be done");
  g_assert_true (isnan (cml_geometry_view_get_sachkov_difference (view, NULL)));
  g_assert_true (cml_geometry_view_get_closed_form_difference (view, NULL, NULL) <= 1e-8);
  window_free (win);
}

static gboolean
scene_front_drawn (gpointer data)
{
  CmlWindow *win = data;
  guint front = 0;
  cml_scene_view_get_fan (win->scene_view, &front);
  return front > 0;
}

static void
test_scene_fan (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("martinet");
  g_autoptr (GError) error = NULL;

  wait_for (views_follow, win, "views_follow");
  CmlGeometryView *view = geometry_page (win);
  g_assert_cmpuint (cml_scene_view_get_fan (win->scene_view, NULL), ==, 0);
  g_assert_true (cml_geometry_view_set_fan (view, 250, 2, "x1", "x2", &error));
  g_assert_true (cml_geometry_view_start (view, &error));
  g_assert_no_error (error);
  wait_for (fan_done, view, "the fan to be done");
  g_assert_cmpuint (cml_scene_view_get_fan (win->scene_view, NULL), ==, 84);
  /* the run shows t = 0, inside [0, T]: the wavefront there is drawn */
  wait_for (scene_front_drawn, win, "the wavefront in the scene");
  guint front = 0;
  cml_scene_view_get_fan (win->scene_view, &front);
  g_assert_cmpuint (front, <=, 84);

  /* another model: the fan is gone from the scene */
  g_autofree char *heis = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "heisenberg.cml", NULL);
  g_assert_true (cml_window_load (win, heis, &error));
  g_assert_no_error (error);
  wait_for (views_follow, win, "views_follow");
  g_assert_cmpuint (cml_scene_view_get_fan (win->scene_view, NULL), ==, 0);
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/geometry/run-pick-cancel", test_geometry);
  g_test_add_func ("/ui/geometry/points-as-they-end", test_points_as_they_end);
  g_test_add_func ("/ui/geometry/closed-form", test_closed_form);
  g_test_add_func ("/ui/geometry/sachkov", test_sachkov);
  g_test_add_func ("/ui/geometry/scene-fan", test_scene_fan);
  g_test_add_func ("/ui/geometry/growing", test_growing);
  return g_test_run ();
}
