/* test-plot-view.c — the live plot widget under a display (GL checks skip without GL).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gtk/gtk.h>
#include <math.h>

#include "cml-plot-view.h"

static void
iterate (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static CmlSystem *
load_system (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  CmlSystem *sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  return sys;
}

/* Synthetic rows: every observable a sine of its own frequency, 2 extra columns (scene
 * values) after them. */
static void
push_synthetic (CmlPlotView *view, guint n_obs, guint n, double t0)
{
  const guint extra = 2, n_cols = n_obs + extra;
  g_autofree double *t = g_new (double, n);
  g_autofree double *rows = g_new (double, (gsize) n * n_cols);
  for (guint k = 0; k < n; k++)
    {
      t[k] = t0 + k / 120.0;
      for (guint j = 0; j < n_cols; j++)
        rows[(gsize) k * n_cols + j] = j < n_obs ? sin ((j + 1) * 0.3 * t[k]) + j : NAN;
    }
  cml_plot_view_push_samples (view, t, rows, n, n_cols, n_obs);
}

static void
test_plot_view (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  guint n_obs = cml_system_n_observables (sys);
  GtkWidget *window = gtk_window_new ();
  CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  iterate (300);

  /* the default: the model's monitors (energy …) against time */
  cml_plot_view_set_system (view, sys);
  CmlPlot *plot = cml_plot_view_get_plot (view);
  g_assert_nonnull (plot);
  g_assert_true (cml_plot_get_against_time (plot));
  g_assert_cmpuint (cml_plot_get_n_series (plot), >=, 1);
  gboolean has_energy = FALSE;
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    has_energy |= g_str_equal (cml_plot_series_get_name (cml_plot_get_series (plot, i)), "energy");
  g_assert_true (has_energy);
  g_autofree char *x_title = cml_plot_axis_dup_title (cml_plot_get_x_axis (plot));
  g_assert_true (g_str_has_prefix (x_title, "t"));

  /* 30 time units of samples, in pieces as the window hands them over */
  for (int chunk = 0; chunk < 30; chunk++)
    push_synthetic (view, n_obs, 120, chunk);
  g_assert_cmpuint (cml_plot_series_get_n (cml_plot_get_series (plot, 0)), ==, 3600);

  double fraction = 0;
  gboolean have_gl = cml_plot_view_probe_pixels (view, &fraction);
  if (have_gl)
    {
      g_test_message ("against time: %.1f %% of the pixels drawn", 100 * fraction);
      g_assert_cmpfloat (fraction, >, 0.01);
    }

  /* another selection shows the whole history of the new variable at once */
  const char *ys[] = { "x", "y", NULL };
  cml_plot_view_set_series (view, NULL, ys);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 2);
  g_assert_cmpuint (cml_plot_series_get_n (cml_plot_get_series (plot, 1)), ==, 3600);

  /* a phase portrait */
  const char *vs[] = { "v", NULL };
  cml_plot_view_set_series (view, "u", vs);
  g_assert_false (cml_plot_get_against_time (plot));
  g_autofree char *x_title2 = cml_plot_axis_dup_title (cml_plot_get_x_axis (plot));
  g_assert_true (g_str_has_prefix (x_title2, "u"));
  if (have_gl)
    {
      g_assert_true (cml_plot_view_probe_pixels (view, &fraction));
      g_test_message ("phase portrait: %.1f %% of the pixels drawn", 100 * fraction);
      g_assert_cmpfloat (fraction, >, 0.01);
    }

  /* "time" names the time axis */
  cml_plot_view_set_series (view, "time", vs);
  g_assert_true (cml_plot_get_against_time (plot));

  /* the constraint residual, in presentation mode on dark */
  const char *rs[] = { "residual", NULL };
  cml_plot_view_set_series (view, NULL, rs);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 1);
  cml_plot_view_set_presentation (view, TRUE);
  cml_plot_view_set_dark (view, TRUE);
  cml_plot_set_show_all (plot, TRUE);
  if (have_gl)
    {
      g_assert_true (cml_plot_view_probe_pixels (view, &fraction));
      g_assert_cmpfloat (fraction, >, 0.01);
    }

  /* a new run without a clear (time steps back): the plot starts over */
  push_synthetic (view, n_obs, 60, 0.0);
  g_assert_cmpuint (cml_plot_series_get_n (cml_plot_get_series (plot, 0)), ==, 60);

  /* a reset: no data, but axes and a hint are still drawn */
  cml_plot_view_clear (view);
  g_assert_cmpuint (cml_plot_series_get_n (cml_plot_get_series (plot, 0)), ==, 0);
  if (have_gl)
    {
      g_assert_true (cml_plot_view_probe_pixels (view, &fraction));
      g_assert_cmpfloat (fraction, >, 0.001);
    }

  /* no system at all */
  cml_plot_view_set_system (view, NULL);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 0);
  iterate (100);

  if (!have_gl)
    g_test_skip ("no GL context: pixels not checked");

  g_object_ref (view);
  gtk_window_destroy (GTK_WINDOW (window));
  iterate (50);
  g_assert_finalize_object (view);
}

/* Two views of one run: the second reads the first's columns and keeps no copy. */
static void
test_share_data (void)
{
  g_autoptr (CmlSystem) sys = load_system ("martinet");
  guint n_obs = cml_system_n_observables (sys);
  CmlPlotView *owner = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  CmlPlotView *other = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));

  cml_plot_view_share_data (other, owner);
  cml_plot_view_set_system (owner, sys);
  cml_plot_view_set_system (other, sys);
  const char *ys[] = { "x1", NULL };
  cml_plot_view_set_series (other, "time", ys);
  push_synthetic (owner, n_obs, 50, 0);
  /* pushing to the sharer adds nothing: the owner appends */
  push_synthetic (other, n_obs, 50, 1);
  CmlPlot *po = cml_plot_view_get_plot (owner), *pt = cml_plot_view_get_plot (other);
  g_assert_cmpuint (cml_plot_get_n_series (pt), ==, 1);
  CmlPlotSeries *s = cml_plot_get_series (pt, 0);
  g_assert_cmpuint (cml_plot_series_get_n (s), ==, 50);
  g_assert_true (cml_plot_series_get_time_column (s) == cml_plot_series_get_time_column (cml_plot_get_series (po, 0)));
  push_synthetic (owner, n_obs, 10, 10);
  g_assert_cmpuint (cml_plot_series_get_n (s), ==, 60);
  /* clearing the sharer leaves the data alone; clearing the owner empties both */
  cml_plot_view_clear (other);
  g_assert_cmpuint (cml_plot_series_get_n (s), ==, 60);
  cml_plot_view_clear (owner);
  g_assert_cmpuint (cml_plot_series_get_n (s), ==, 0);
  /* the owner going away first leaves the sharer safe */
  g_assert_finalize_object (owner);
  cml_plot_view_set_system (other, NULL);
  g_assert_finalize_object (other);
}

int
main (int argc, char *argv[])
{
  /* no accessibility bus under a bare Xvfb (its absence is a warning, fatal in tests) */
  g_setenv ("GTK_A11Y", "none", TRUE);
  g_test_init (&argc, &argv, NULL);
  if (!gtk_init_check ())
    {
      g_test_message ("no display");
      return 77;
    }

  g_test_add_func ("/ui/plot-view/basic", test_plot_view);
  g_test_add_func ("/ui/plot-view/share-data", test_share_data);

  return g_test_run ();
}
