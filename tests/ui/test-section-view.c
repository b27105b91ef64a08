/* test-section-view.c — the Poincaré section page: orbits started by clicking, on the
 * run's energy level, their crossings accumulated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-section-view"

#include "ui-util.h"

#include <math.h>

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static gboolean
orbits_done (gpointer data)
{
  return cml_section_view_get_n_running (data) == 0;
}

/* The ball's centre moves on a circle: started on y = 0, every upward crossing of y = 0
 * is the same point of the section (x and u coincide to the integrator's tolerance), and
 * the start is on the run's energy level. */
static void
test_periodic (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;

  wait_for (views_follow, win, "the views to follow the run");
  cml_window_show_page (win, "section");
  g_assert_true (cml_section_view_set_section (win->section_view, "y = 0", "up", "x", "u", &error));
  g_assert_no_error (error);
  /* (the run's energy, 0.193 J, is reached from x = 1, u = 0.05 with some v) */
  gboolean ok = cml_section_view_start_orbit (win->section_view, 1.0, 0.05, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  double started, level;
  cml_section_view_get_last_energy (win->section_view, &started, &level);
  g_assert_true (isfinite (level));
  g_assert_cmpfloat (fabs (started - level), <=, 1e-9 * MAX (1.0, fabs (level)));

  wait_for (orbits_done, win->section_view, "orbits_done");
  guint n = 0;
  const double *xy = cml_section_view_get_crossings (win->section_view, 0, &n);
  g_assert_nonnull (xy);
  g_test_message ("%u crossings, first (%g, %g)", n, xy[0], xy[1]);
  g_assert_cmpuint (n, >=, 3);
  for (guint k = 1; k < n; k++)
    {
      g_assert_cmpfloat (fabs (xy[2 * k] - xy[0]), <, 1e-7);
      g_assert_cmpfloat (fabs (xy[2 * k + 1] - xy[1]), <, 1e-7);
    }
  /* the first crossing is where the orbit started (it starts on the section, going up) */
  g_assert_cmpfloat (fabs (xy[0] - 1.0), <, 1e-6);
  g_assert_cmpfloat (fabs (xy[1] - 0.05), <, 1e-6);

  /* a point no motion of that energy passes through */
  g_assert_false (cml_section_view_start_orbit (win->section_view, 50, 0, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "no motion with this energy"));
  g_clear_error (&error);

  /* plotting a monitor: no click can start there */
  g_assert_true (cml_section_view_set_section (win->section_view, "y = 0", "both", "x", "energy", &error));
  g_assert_null (cml_section_view_get_crossings (win->section_view, 0, &n));
  g_assert_false (cml_section_view_start_orbit (win->section_view, 1, 0.2, &error));
  g_assert_nonnull (strstr (error->message, "not a quantity a run starts from"));
  g_clear_error (&error);

  /* a section that does not read */
  g_assert_false (cml_section_view_set_section (win->section_view, "y = = 0", "up", "x", "u", &error));
  g_assert_nonnull (error);
  window_free (win);
}

/* The heavy top on the section G₂ = 0 crossed upwards, G₁ against W₁: a click at
 * G₁ = 0.5 starts a motion that crosses there upwards — |Γ| = 1 kept by G₃, the energy
 * the run's by the spin, on the branch that crosses upwards — so its crossings lie where
 * the click was (G₁ > 0, near 0.5), not on the mirror branch G₁ ≈ −0.5; the start is
 * marked; a point no motion passes through (G₁ = 1.55, where |Γ| = 1 cannot hold) is
 * refused in plain words; the axes hold the reachable region |G₁| ≤ 1 (padded). */
static void
test_heavy_top_branch (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("heavy-top");
  g_autoptr (GError) error = NULL;

  wait_for (views_follow, win, "the views to follow the run");
  cml_window_show_page (win, "section");
  g_assert_true (cml_section_view_set_section (win->section_view, "G2 = 0", "up", "G1", "W1", &error));
  g_assert_no_error (error);
  double xr[2], yr[2];
  cml_section_view_get_ranges (win->section_view, xr, yr);
  g_test_message ("axes: G1 in [%g, %g], W1 in [%g, %g]", xr[0], xr[1], yr[0], yr[1]);
  g_assert_cmpfloat (xr[1], <=, 1.1);
  g_assert_cmpfloat (xr[1], >=, 1.0);
  g_assert_cmpfloat (xr[0], >=, -1.1);

  gboolean ok = cml_section_view_start_orbit (win->section_view, 0.5, 0.2, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  /* the start: on the section, |Γ|² and the energy as the run's, to rounding */
  double started, level;
  cml_section_view_get_last_energy (win->section_view, &started, &level);
  g_assert_cmpfloat (fabs (started - level), <=, 1e-12 * MAX (1.0, fabs (level)));
  g_assert_cmpfloat (fabs (cml_section_view_get_last_start_value (win->section_view, "casimir") - 1), <=, 1e-12);
  g_assert_cmpfloat (cml_section_view_get_last_start_value (win->section_view, "G1"), ==, 0.5);
  g_assert_cmpfloat (cml_section_view_get_last_start_value (win->section_view, "G2"), ==, 0);
  g_assert_cmpfloat (cml_section_view_get_last_start_value (win->section_view, "W1"), ==, 0.2);
  double sx = NAN, sy = NAN;
  g_assert_true (cml_section_view_get_start (win->section_view, 0, &sx, &sy));
  g_assert_cmpfloat (sx, ==, 0.5);
  g_assert_cmpfloat (sy, ==, 0.2);

  wait_for (orbits_done, win->section_view, "orbits_done");
  guint n = 0;
  const double *xy = cml_section_view_get_crossings (win->section_view, 0, &n);
  g_assert_nonnull (xy);
  g_test_message ("%u crossings, first (%g, %g)", n, xy[0], xy[1]);
  g_assert_cmpuint (n, >=, 3);
  /* the first dot is the click; the later crossings go on around it, on its side */
  g_assert_cmpfloat (fabs (xy[0] - 0.5), <, 1e-12);
  g_assert_cmpfloat (fabs (xy[1] - 0.2), <, 1e-12);
  double lo = INFINITY, hi = -INFINITY, nearest = INFINITY;
  for (guint k = 1; k < n; k++)
    {
      lo = MIN (lo, xy[2 * k]), hi = MAX (hi, xy[2 * k]);
      nearest = MIN (nearest, hypot (xy[2 * k] - 0.5, xy[2 * k + 1] - 0.2));
    }
  g_test_message ("later crossings: G1 in [%g, %g], nearest the click %g", lo, hi, nearest);
  g_assert_cmpfloat (lo, >, 0);
  g_assert_cmpfloat (nearest, <, 0.05);

  /* where |Γ| = 1 cannot hold: refused, nothing started */
  g_assert_false (cml_section_view_start_orbit (win->section_view, 1.55, 0.2, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "no motion with this energy passes through G₁ = 1.55"));
  g_assert_null (strstr (error->message, "casimir"));
  g_clear_error (&error);
  g_assert_false (cml_section_view_get_start (win->section_view, 1, &sx, &sy));
  cml_section_view_get_ranges (win->section_view, xr, yr);
  g_assert_cmpfloat (xr[1], <=, 1.1);
  window_free (win);
}

/* Fitting the axes tries some 150 starts, each solving the energy level: minutes of the
 * window's thread for a large model.  So it is done when the page is shown, not when a
 * model is opened with the page hidden. */
static gboolean
fitted (gpointer data)
{
  return cml_section_view_get_n_fits (data) > 0;
}

static void
test_fit_when_shown (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("heavy-top");
  g_autoptr (GError) error = NULL;

  wait_for (views_follow, win, "the views to follow the run");
  g_assert_true (cml_section_view_set_section (win->section_view, "G2 = 0", "up", "G1", "W1", &error));
  g_assert_no_error (error);
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (win->section_view)));
  g_assert_cmpuint (cml_section_view_get_n_fits (win->section_view), ==, 0);

  cml_window_show_page (win, "section");
  g_assert_true (spin_until (fitted, win->section_view, 60));
  double xr[2], yr[2];
  cml_section_view_get_ranges (win->section_view, xr, yr);
  g_assert_cmpfloat (xr[1], <=, 1.1);
  g_assert_cmpfloat (xr[0], >=, -1.1);
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/section/periodic", test_periodic);
  g_test_add_func ("/ui/section/heavy-top-branch", test_heavy_top_branch);
  g_test_add_func ("/ui/section/fit-when-shown", test_fit_when_shown);
  return g_test_run ();
}
