/* test-plot-view.c — the live plot widget under a display (GL checks skip without GL).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <sys/resource.h>
#include <math.h>
#include <string.h>

#include "../core/particles-util.h"
#include "cml-plot-view.h"
#include "cml-simulation.h"

/* Runs what the main loop has pending (redraws, idles, finalizers). */
static void
flush (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Waits for a state, not a time: WIDGET mapped and laid out, however long a busy machine
 * takes (the bound only turns a hang into a failure); then runs what is pending. */
static void
wait_shown (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) == 0)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the window was not shown within 10 minutes");
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  flush ();
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
  wait_shown (GTK_WIDGET (view));

  /* the default: the model's monitors (energy …) against time; the series counted here
   * are the data's (test_reference checks the closed forms drawn beside them) */
  cml_plot_view_set_system (view, sys);
  cml_plot_view_set_show_reference (view, FALSE);
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
  flush ();

  if (!have_gl)
    g_test_skip ("no GL context: pixels not checked");

  g_object_ref (view);
  gtk_window_destroy (GTK_WINDOW (window));
  flush ();
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

/* Every widget shown under ROOT (popovers aside: they are windows of their own) lies
 * inside VIEW, and no label in it is ellipsized or allocated less than it needs. */
static void
assert_inside (GtkWidget *view, GtkWidget *root, guint *n_checked)
{
  for (GtkWidget *w = gtk_widget_get_first_child (root); w; w = gtk_widget_get_next_sibling (w))
    {
      /* (mapped: a stack's hidden pages are visible but not shown) */
      if (!gtk_widget_get_mapped (w) || GTK_IS_POPOVER (w) || GTK_IS_NATIVE (w))
        continue;
      graphene_rect_t b;
      const char *type = G_OBJECT_TYPE_NAME (w);
      g_assert_true (gtk_widget_compute_bounds (w, view, &b));
      g_test_message ("%s at %.0f,%.0f %.0f×%.0f%s%s", type, b.origin.x, b.origin.y, b.size.width,
                      b.size.height, GTK_IS_LABEL (w) ? ": " : "",
                      GTK_IS_LABEL (w) ? gtk_label_get_label (GTK_LABEL (w)) : "");
      g_assert_cmpfloat (b.origin.x, >=, -0.5);
      g_assert_cmpfloat (b.origin.y, >=, -0.5);
      g_assert_cmpfloat (b.origin.x + b.size.width, <=, gtk_widget_get_width (view) + 0.5);
      g_assert_cmpfloat (b.origin.y + b.size.height, <=, gtk_widget_get_height (view) + 0.5);
      if (GTK_IS_LABEL (w))
        {
          int min;
          g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (w))));
          gtk_widget_measure (w, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
          g_assert_cmpint (gtk_widget_get_width (w), >=, min);
        }
      (*n_checked)++;
      assert_inside (view, w, n_checked);
    }
}

/* The header in the right column of a 1280-pixel projector: 380 px wide, with normal type,
 * with the application's presentation style, and with everything at presentation size
 * (15 pt, the header too): every control inside the view, no label cut. */
static void
test_header_fits (void)
{
  static const char *const styles[] = {
    NULL,
    "app",
    "window.presentation, window.presentation * { font-size: 15pt; }",
  };
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");

  for (guint k = 0; k < G_N_ELEMENTS (styles); k++)
    {
      g_autoptr (GtkCssProvider) css = gtk_css_provider_new ();
      GtkWidget *window = gtk_window_new ();
      CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());
      guint n_checked = 0;

      if (styles[k])
        {
          if (g_str_equal (styles[k], "app"))
            gtk_css_provider_load_from_resource (css, "/org/cmlab/Cmlab/ui/style.css");
          else
            gtk_css_provider_load_from_data (css, styles[k], -1);
          gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                      GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
          gtk_widget_add_css_class (window, "presentation");
          /* the application's presentation mode folds the selectors away; large type
           * alone (the third style) keeps them */
          if (k == 1)
            cml_plot_view_set_presentation (view, TRUE);
        }
      gtk_window_set_default_size (GTK_WINDOW (window), 380, 420);
      gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
      cml_plot_view_set_system (view, sys);
      /* the longest selection label: four monitors ("energy, I, Cx, Cy") */
      const char *ys[] = { "energy", "I", "Cx", "Cy", NULL };
      cml_plot_view_set_series (view, NULL, ys);
      gtk_window_present (GTK_WINDOW (window));
      wait_shown (GTK_WIDGET (view));

      g_test_message ("style %u: the view is %d × %d", k, gtk_widget_get_width (GTK_WIDGET (view)),
                      gtk_widget_get_height (GTK_WIDGET (view)));
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (view)), ==, 380);
      assert_inside (GTK_WIDGET (view), GTK_WIDGET (view), &n_checked);
      GtkWidget *area = gtk_widget_get_last_child (GTK_WIDGET (view));
      g_assert_true (GTK_IS_GL_AREA (area));
      if (k == 1)
        {
          /* presentation: only the plot, over the whole height */
          g_assert_cmpuint (n_checked, ==, 1);
          g_assert_cmpint (gtk_widget_get_height (area), ==, gtk_widget_get_height (GTK_WIDGET (view)));
        }
      else
        {
          g_assert_cmpuint (n_checked, >=, 8);
          /* and the plot keeps most of the height */
          g_assert_cmpint (gtk_widget_get_height (area), >=, gtk_widget_get_height (GTK_WIDGET (view)) * 2 / 3);
        }

      /* the window toggle names its unit */
      GtkWidget *window_button = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (view), CML_TYPE_PLOT_VIEW, "window_button");
      g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (window_button)), ==, "Last 20 s");

      if (styles[k])
        gtk_style_context_remove_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css));
      gtk_window_destroy (GTK_WINDOW (window));
      flush ();
    }
}

/* The menu's "Equal Scales" is the plot's toggle. */
static void
test_equal_scales (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  CmlPlotView *view = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  CmlPlot *plot = cml_plot_view_get_plot (view);
  const char *ys[] = { "y", NULL };

  cml_plot_view_set_system (view, sys);
  cml_plot_view_set_series (view, "x", ys);
  g_assert_true (cml_plot_view_get_equal_scales (view));
  g_assert_true (cml_plot_get_equal_scales_apply (plot));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "plot.equal-scales", NULL));
  g_assert_false (cml_plot_view_get_equal_scales (view));
  g_assert_false (cml_plot_get_equal_scales_apply (plot));
  g_object_set (view, "equal-scales", TRUE, NULL);
  g_assert_true (cml_plot_get_equal_scales (plot));
  /* u [m/s] against x [m]: the toggle is on, but there is no shape to keep */
  const char *us[] = { "u", NULL };
  cml_plot_view_set_series (view, "x", us);
  g_assert_false (cml_plot_get_equal_scales_apply (plot));
  cml_plot_view_set_system (view, NULL);
  g_assert_finalize_object (view);
}

/* An exported figure says what it shows: the model and the quantities in its title, the
 * parameters below. */
static void
test_export_titles (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  CmlPlotView *view = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-plot-view-XXXXXX", NULL);
  g_autofree char *svg = g_build_filename (dir, "orbit.svg", NULL);
  g_autofree char *text = NULL;
  const char *ys[] = { "y", NULL };

  cml_plot_view_set_system (view, sys);
  cml_plot_view_set_series (view, "x", ys);
  push_synthetic (view, cml_system_n_observables (sys), 240, 0);
  g_assert_true (cml_plot_view_export (view, svg, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<title>Rolling ball on a rotating table — y against x</title>"));
  g_assert_nonnull (strstr (text, "Ω = 1 rad/s"));
  /* the live plot keeps no title */
  g_assert_cmpstr (cml_plot_get_title (cml_plot_view_get_plot (view)), ==, "");
  g_unlink (svg);
  g_rmdir (dir);
  cml_plot_view_set_system (view, NULL);
  g_assert_finalize_object (view);
}

/* ---- closed forms ([reference]) ---------------------------------------------------------- */

static void
fixed_measure (const char *text, double size, gboolean bold, double *width, double *height, gpointer data)
{
  if (width)
    *width = 0.6 * size * g_utf8_strlen (text, -1);
  if (height)
    *height = 1.3 * size;
}

static GtkWidget *
find_button (GtkWidget *root, const char *label)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (root)), label) == 0)
    return root;
  if (GTK_IS_MENU_BUTTON (root) && gtk_menu_button_get_popover (GTK_MENU_BUTTON (root)))
    {
      GtkWidget *w = find_button (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (root))), label);
      if (w)
        return w;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *w = find_button (c, label);
      if (w)
        return w;
    }
  return NULL;
}

/* A model with closed forms: the plotted quantity's closed form is a dashed curve of its
 * colour named in the legend, its values those of the run; "Error against the closed
 * form" plots the errors; the menu's check item hides the closed forms. */
static void
test_reference (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  guint n_obs = cml_system_n_observables (sys);
  GtkWidget *window = gtk_window_new ();
  CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  cml_plot_view_set_system (view, sys);
  g_assert_true (cml_plot_view_has_reference (view));
  /* off until switched on */
  g_assert_false (cml_plot_view_get_show_reference (view));
  cml_plot_view_set_show_reference (view, TRUE);

  /* 10 s of the run itself, from t = 0 */
  const guint n = 201;
  g_autofree double *t = g_new (double, n);
  g_autofree double *rows = g_new (double, (gsize) n * n_obs);
  for (guint k = 0; k < n; k++)
    {
      t[k] = 0.05 * k;
      g_assert_true (cml_simulation_advance (sim, t[k], &error));
      cml_simulation_observe (sim, rows + (gsize) k * n_obs);
    }
  cml_plot_view_push_samples (view, t, rows, n, n_obs, n_obs);

  /* y against x: the circle, and its closed form dashed in the same colour */
  const char *ys[] = { "y", NULL };
  cml_plot_view_set_series (view, "x", ys);
  CmlPlot *plot = cml_plot_view_get_plot (view);
  CmlPlotStyle style;
  cml_plot_view_get_style (view, &style);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 2);
  CmlPlotSeries *closed = NULL, *data = NULL;
  for (guint i = 0; i < 2; i++)
    {
      CmlPlotSeries *s = cml_plot_get_series (plot, i);
      if (cml_plot_series_get_dashed (s))
        closed = s;
      else
        data = s;
    }
  g_assert_nonnull (closed);
  g_assert_nonnull (data);
  g_assert_cmpstr (cml_plot_series_get_name (closed), ==, "y (closed form)");
  CmlPlotRgba c1, c2;
  cml_plot_series_get_color (closed, &style, &c1);
  cml_plot_series_get_color (data, &style, &c2);
  g_assert_true (c1.r == c2.r && c1.g == c2.g && c1.b == c2.b);
  g_assert_cmpuint (cml_plot_series_get_n (closed), ==, n);
  const double *y_ref = cml_plot_column_get_data (cml_plot_series_get_y_column (closed));
  const double *x_ref = cml_plot_column_get_data (cml_plot_series_get_x_column (closed));
  /* oracle O1: (−0.75 + 1.75 cos(2t/7), 1.75 sin(2t/7)) */
  for (guint k = 0; k < n; k++)
    {
      g_assert_cmpfloat_with_epsilon (x_ref[k], -0.75 + 1.75 * cos (2 * t[k] / 7), 1e-12);
      g_assert_cmpfloat_with_epsilon (y_ref[k], 1.75 * sin (2 * t[k] / 7), 1e-12);
    }

  /* the legend names it */
  CmlPlotLayout L;
  cml_plot_layout (plot, &style, 800, 400, fixed_measure, NULL, &L);
  gboolean named = FALSE;
  for (guint i = 0; i < L.legend_labels->len; i++)
    named |= g_str_equal (((CmlPlotLabel *) g_ptr_array_index (L.legend_labels, i))->text, "y (closed form) [m]");
  cml_plot_layout_clear (&L);
  g_assert_true (named);

  double fraction = 0;
  if (cml_plot_view_probe_pixels (view, &fraction))
    g_assert_cmpfloat (fraction, >, 0.005);

  /* the menu's "Closed Form" hides it */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "plot.show-reference", NULL));
  g_assert_false (cml_plot_view_get_show_reference (view));
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "plot.show-reference", NULL));
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 2);

  /* "Error against the closed form": NAME_err of every closed form, all tiny */
  GtkWidget *error_button = find_button (GTK_WIDGET (view), "Error against the closed form");
  g_assert_nonnull (error_button);
  g_assert_true (gtk_widget_get_visible (error_button));
  g_signal_emit_by_name (error_button, "clicked");
  g_auto (GStrv) names = cml_plot_view_dup_y_names (view);
  g_assert_cmpstr (names[0], ==, "x_err");
  g_assert_cmpuint (g_strv_length (names), ==, cml_plot_get_n_series (plot));
  g_assert_null (cml_plot_view_get_x_name (view));
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    {
      CmlPlotSeries *s = cml_plot_get_series (plot, i);
      g_assert_false (cml_plot_series_get_dashed (s));
      g_assert_true (g_str_has_prefix (cml_plot_series_get_name (s), "error in "));
      g_assert_cmpuint (cml_plot_series_get_n (s), ==, n);
      double lo = 0, hi = 0;
      g_assert_true (cml_plot_column_range (cml_plot_series_get_y_column (s), 0, n, &lo, &hi));
      g_assert_cmpfloat (MAX (fabs (lo), fabs (hi)), <, 1e-8);
    }
  g_autofree char *x_err_label = cml_plot_series_dup_label (cml_plot_get_series (plot, 0));
  g_assert_cmpstr (x_err_label, ==, "error in x [m]");

  /* a new run (time goes back) starts the closed forms afresh */
  cml_plot_view_clear (view);
  cml_plot_view_push_samples (view, t, rows, n, n_obs, n_obs);
  g_assert_cmpuint (cml_plot_series_get_n (cml_plot_get_series (plot, 0)), ==, n);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A model without closed forms: no error entry, the menu item disabled. */
static void
test_no_reference (void)
{
  static const char text[] = "[model]\nname = free\ntitle = free particle\n[algebroid]\nbase = x\nfibre = u\n"
                             "[anchor]\ne1 = x: 1\n[dynamics]\nlagrangian = u^2/2\n[initial]\nu = 1\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "free.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  GtkWidget *window = gtk_window_new ();
  CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  cml_plot_view_set_system (view, sys);
  g_assert_false (cml_plot_view_has_reference (view));
  GtkWidget *error_button = find_button (GTK_WIDGET (view), "Error against the closed form");
  g_assert_nonnull (error_button);
  g_assert_false (gtk_widget_get_visible (error_button));
  /* the menu hides a disabled item; activating it does nothing */
  gtk_widget_activate_action (GTK_WIDGET (view), "plot.show-reference", NULL);
  g_assert_false (cml_plot_view_get_show_reference (view));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- what the header and the menu say ------------------------------------------------------ */

/* The first widget under ROOT (popovers included) of type TYPE whose label is LABEL (any
 * label when NULL) or that has CSS class CLASS. */
static GtkWidget *
find_widget (GtkWidget *root, GType type, const char *label, const char *css_class)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      const char *text = GTK_IS_CHECK_BUTTON (root) ? gtk_check_button_get_label (GTK_CHECK_BUTTON (root))
                         : GTK_IS_BUTTON (root)     ? gtk_button_get_label (GTK_BUTTON (root))
                                                    : NULL;
      if ((css_class && gtk_widget_has_css_class (root, css_class)) || (label && g_strcmp0 (text, label) == 0)
          || (!label && !css_class))
        return root;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, label, css_class);
      if (found)
        return found;
    }
  return NULL;
}

/* "Equal Scales" is off and cannot be ticked where it has no meaning (against time, or
 * axes in different units); its tooltip says why. */
static void
test_equal_scales_menu (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  CmlPlotView *view = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  const char *ys[] = { "y", NULL }, *us[] = { "u", NULL };

  cml_plot_view_set_system (view, sys);
  GtkWidget *check = find_widget (GTK_WIDGET (view), GTK_TYPE_CHECK_BUTTON, NULL, "plot-equal-scales");
  g_assert_nonnull (check);
  /* energy against time */
  g_assert_false (gtk_widget_get_sensitive (check));
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (check), "time"));
  /* y [m] against x [m] */
  cml_plot_view_set_series (view, "x", ys);
  g_assert_true (gtk_widget_get_sensitive (check));
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), FALSE);
  g_assert_false (cml_plot_view_get_equal_scales (view));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  g_assert_true (cml_plot_view_get_equal_scales (view));
  /* u [m/s] against x [m]: the tooltip names both units */
  cml_plot_view_set_series (view, "x", us);
  g_assert_false (gtk_widget_get_sensitive (check));
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (check), "m/s"));
  cml_plot_view_set_system (view, NULL);
  g_assert_finalize_object (view);
}

/* One y axis, one unit, always titled with it: a quantity of another unit is not drawn
 * on the same axis; ticking it in the selector plots it on its own. */
static void
test_one_unit (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  CmlPlotView *view = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  CmlPlot *plot = cml_plot_view_get_plot (view);
  const char *mixed[] = { "energy", "u", NULL }, *speeds[] = { "u", "v", NULL };

  cml_plot_view_set_system (view, sys);
  cml_plot_view_set_series (view, NULL, mixed);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 1);
  g_auto (GStrv) kept = cml_plot_view_dup_y_names (view);
  g_assert_cmpuint (g_strv_length (kept), ==, 1);
  g_assert_cmpstr (kept[0], ==, "energy");
  g_autofree char *title = cml_plot_axis_dup_title (cml_plot_get_y_axis (plot));
  g_assert_cmpstr (title, ==, "energy [J]");

  /* two speeds share the axis, titled with both and the unit */
  cml_plot_view_set_series (view, NULL, speeds);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 2);
  g_free (title);
  title = cml_plot_axis_dup_title (cml_plot_get_y_axis (plot));
  g_assert_cmpstr (title, ==, "u, v [m/s]");

  /* ticking energy [J] beside them plots energy alone; its tooltip said so */
  GtkWidget *energy = find_widget (GTK_WIDGET (view), GTK_TYPE_CHECK_BUTTON, "energy [J]", NULL);
  g_assert_nonnull (energy);
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (energy), "on its own"));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (energy), TRUE);
  g_auto (GStrv) now = cml_plot_view_dup_y_names (view);
  g_assert_cmpuint (g_strv_length (now), ==, 1);
  g_assert_cmpstr (now[0], ==, "energy");

  cml_plot_view_set_system (view, NULL);
  g_assert_finalize_object (view);
}

/* Every place the view names a quantity writes it as people do, with its unit: "ρ [m]"
 * and "pᵣ" in the selectors as in the legend, "|Γ|²" for the heavy top's Casimir. */
static void
test_display_names (void)
{
  g_autoptr (CmlSystem) sys = load_system ("capri-kobayashi");
  CmlPlotView *view = g_object_ref_sink (CML_PLOT_VIEW (cml_plot_view_new ()));
  CmlPlot *plot = cml_plot_view_get_plot (view);
  const char *ys[] = { "rho", NULL };

  cml_plot_view_set_system (view, sys);
  cml_plot_view_set_series (view, "pr", ys);
  g_assert_cmpstr (cml_plot_series_get_name (cml_plot_get_series (plot, 0)), ==, "ρ");
  g_autofree char *x_title = cml_plot_axis_dup_title (cml_plot_get_x_axis (plot));
  g_assert_true (g_str_has_prefix (x_title, "pᵣ"));
  /* the quantities' list and the "against" list */
  g_assert_nonnull (find_widget (GTK_WIDGET (view), GTK_TYPE_CHECK_BUTTON, "ρ [m]", NULL));
  g_assert_null (find_widget (GTK_WIDGET (view), GTK_TYPE_CHECK_BUTTON, "rho [m]", NULL));
  GtkDropDown *x_drop = GTK_DROP_DOWN (find_widget (GTK_WIDGET (view), GTK_TYPE_DROP_DOWN, NULL, NULL));
  GListModel *items = gtk_drop_down_get_model (x_drop);
  gboolean rho = FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      const char *s = gtk_string_list_get_string (GTK_STRING_LIST (items), i);
      g_assert_false (g_str_has_prefix (s, "rho") || g_str_has_prefix (s, "pr"));
      rho |= g_str_equal (s, "ρ [m]");
    }
  g_assert_true (rho);
  /* the button names what is plotted */
  GtkWidget *button = find_widget (GTK_WIDGET (view), GTK_TYPE_MENU_BUTTON, NULL, NULL);
  g_assert_cmpstr (gtk_menu_button_get_label (GTK_MENU_BUTTON (button)), ==, "ρ");

  g_autoptr (CmlSystem) top = load_system ("heavy-top");
  const char *casimir[] = { "casimir", NULL };
  cml_plot_view_set_system (view, top);
  cml_plot_view_set_series (view, NULL, casimir);
  g_assert_cmpstr (cml_plot_series_get_name (cml_plot_get_series (plot, 0)), ==, "|Γ|²");
  cml_plot_view_set_system (view, NULL);
  g_assert_finalize_object (view);
}

static gboolean
frame_drawn (gpointer data)
{
  return cml_plot_view_has_frame (data);
}

/* The wheel over the plot zooms around the pointer; outside the plot area it does not
 * (it is left to what is there); a reset follows the run again. */
static void
test_zoom_view (void)
{
  g_autoptr (CmlSystem) sys = load_system ("rolling-ball");
  GtkWidget *window = gtk_window_new ();
  CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());
  CmlPlot *plot = cml_plot_view_get_plot (view);

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  cml_plot_view_set_system (view, sys);
  for (int chunk = 0; chunk < 40; chunk++)
    push_synthetic (view, cml_system_n_observables (sys), 120, chunk);
  gint64 end = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;
  while (!frame_drawn (view) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  if (!frame_drawn (view))
    {
      g_test_skip ("no GL frame drawn");
      gtk_window_destroy (GTK_WINDOW (window));
      return;
    }
  double t0, t1, z0, z1;
  cml_plot_get_visible_time (plot, &t0, &t1);
  GtkWidget *area = gtk_widget_get_last_child (GTK_WIDGET (view));
  double w = gtk_widget_get_width (area), h = gtk_widget_get_height (area);
  /* the corner is outside the plot area (the tick labels are there) */
  g_assert_false (cml_plot_view_zoom_at (view, 1, h - 1, -1));
  g_assert_false (cml_plot_view_get_zoomed (view));
  /* two steps in at the middle */
  g_assert_true (cml_plot_view_zoom_at (view, 0.6 * w, 0.5 * h, -2));
  g_assert_true (cml_plot_view_get_zoomed (view));
  cml_plot_get_visible_time (plot, &z0, &z1);
  g_assert_cmpfloat (fabs ((z1 - z0) - (t1 - t0) / 1.5625), <, 1e-9);
  g_assert_cmpfloat (z0, >, t0);
  g_assert_cmpfloat (z1, <, t1);
  /* back */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "plot.reset-zoom", NULL));
  g_assert_false (cml_plot_view_get_zoomed (view));
  cml_plot_get_visible_time (plot, &z0, &z1);
  g_assert_cmpfloat (z1, ==, t1);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A column per observable, each room for the newest 73 728 samples taken at once (over
 * 100 MB for the 60 particles' observables).  The window's thread does not make them
 * resident page by page (a thread of their own does), so showing a system costs it about
 * as many page faults with a hundred observables as with a few; the samples still come. */
static void
test_columns_resident_off_thread_body (void)
{
  g_autoptr (CmlSystem) small = particles_system (1);
  g_autoptr (CmlSystem) large = particles_system (60);
  guint n_large = cml_system_n_observables (large);
  GtkWidget *window = gtk_window_new ();
  CmlPlotView *view = CML_PLOT_VIEW (cml_plot_view_new ());
  long f0, faults_small, faults_large;
  double room = (double) n_large * 65536 * 9 / 8 * sizeof (double);

  gtk_window_set_default_size (GTK_WINDOW (window), 800, 400);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  wait_shown (GTK_WIDGET (view));

  /* the small one once first: what a first showing sets up beside the columns (the large
   * one's memory is not shown before it is measured: freed, it would stay resident) */
  cml_plot_view_set_system (view, small);
  cml_plot_view_set_system (view, NULL);

  f0 = thread_page_faults ();
  cml_plot_view_set_system (view, small);
  faults_small = thread_page_faults () - f0;
  cml_plot_view_set_system (view, NULL);
  f0 = thread_page_faults ();
  cml_plot_view_set_system (view, large);
  faults_large = thread_page_faults () - f0;
  g_test_message ("page faults on the window's thread: %ld (2 observables), %ld (%u); columns %.0f MB",
                  faults_small, faults_large, n_large, room / 1048576.0);
  g_assert_cmpfloat ((double) (faults_large - faults_small) * sysconf (_SC_PAGESIZE), <, 0.25 * room);

  push_synthetic (view, n_large, 500, 0.0);
  g_assert_cmpuint (cml_plot_view_get_n_samples (view), ==, 500);
  cml_plot_view_set_system (view, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The page faults are counted in a process whose malloc () does not fill what it hands
 * out (meson sets MALLOC_PERTURB_, which writes every block on the caller's thread). */
static void
test_columns_resident_off_thread (void)
{
  if (PARTICLES_UNDER_SANITIZER)
    {
      g_test_skip ("a sanitizer's allocator writes its shadow of each block on the allocating thread "
                   "(the build without sanitizers counts the faults)");
      return;
    }
  if (g_test_subprocess ())
    {
      test_columns_resident_off_thread_body ();
      return;
    }
  g_setenv ("MALLOC_PERTURB_", "0", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
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
  g_test_add_func ("/ui/plot-view/columns-resident-off-thread", test_columns_resident_off_thread);
  g_test_add_func ("/ui/plot-view/share-data", test_share_data);
  g_test_add_func ("/ui/plot-view/header-fits", test_header_fits);
  g_test_add_func ("/ui/plot-view/equal-scales", test_equal_scales);
  g_test_add_func ("/ui/plot-view/export-titles", test_export_titles);
  g_test_add_func ("/ui/plot-view/reference", test_reference);
  g_test_add_func ("/ui/plot-view/no-reference", test_no_reference);
  g_test_add_func ("/ui/plot-view/equal-scales-menu", test_equal_scales_menu);
  g_test_add_func ("/ui/plot-view/one-unit", test_one_unit);
  g_test_add_func ("/ui/plot-view/display-names", test_display_names);
  g_test_add_func ("/ui/plot-view/zoom", test_zoom_view);

  return g_test_run ();
}
