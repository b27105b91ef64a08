/* test-compare.c — two runs side by side: a copy, the vakonomic reading, another
 * integrator; the second run follows the first's commands and is drawn beside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-compare"

#include "ui-util.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

static CmlFrame *
ghost_frame (CmlWindow *win)
{
  return cml_runner_get_frame (win->ghost_runner);
}

typedef struct
{
  CmlWindow *win;
  double     t;
} Wait;

/* the time plot draws the difference of the runs (its first curve, Δx), over samples */
static gboolean
difference_shown (gpointer data)
{
  CmlWindow *win = data;
  CmlPlot *plot = cml_plot_view_get_plot (win->time_plot);
  CmlPlotSeries *d = cml_plot_get_n_series (plot) > 0 ? cml_plot_get_series (plot, 0) : NULL;

  return d && g_str_has_prefix (cml_plot_series_get_name (d), "Δ") && cml_plot_series_get_n (d) > 10;
}

/* both runs past W->t, and the plots holding the second run's samples */
static gboolean
both_past (gpointer data)
{
  Wait *w = data;
  CmlFrame *a = cml_runner_get_frame (cml_window_get_runner (w->win));
  CmlFrame *b = ghost_frame (w->win);
  gboolean past = a->t >= w->t && b->t >= w->t
                  && cml_plot_view_get_n_ghost_samples (w->win->time_plot) > 0;
  cml_frame_unref (a);
  cml_frame_unref (b);
  return past;
}

static double
obs_of (CmlFrame *f, const char *name)
{
  int i = cml_system_observable_index (f->system, name);
  g_assert_cmpint (i, >=, 0);
  return f->obs[i];
}

static double
param_of (CmlFrame *f, const char *name)
{
  int i = cml_model_param_index (cml_system_get_model (f->system), name);
  g_assert_cmpint (i, >=, 0);
  return f->params[i];
}

/* the second run has started (the vakonomic reading's system is derived on a worker) */
static gboolean
has_ghost (gpointer data)
{
  CmlWindow *win = data;
  return win->ghost_runner != NULL;
}

/* The vakonomic reading runs beside the ball, from the same start, in step with it, and
 * the two motions part: the plots and the scene hold both. */
static void
test_vakonomic (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;

  g_assert_true (cml_window_compare_with (win, "vakonomic", &error));
  g_assert_no_error (error);
  wait_for (has_ghost, win, "the comparison's ghost to be drawn");
  g_assert_cmpint (cml_system_get_model (win->ghost_system)->kind, ==, CML_CONSTRAINTS_VAKONOMIC);
  g_assert_cmpstr (cml_scene_view_get_ghost_note (win->scene_view), ==, "Faint: the vakonomic run");

  cml_window_play (win);
  Wait w = { win, 3.0 };
  wait_for (both_past, &w, "both_past");

  /* same start */
  cml_window_compare_seek (win, 0);
  cml_runner_seek (cml_window_get_runner (win), 0);
  cml_runner_sync (cml_window_get_runner (win));
  cml_runner_sync (win->ghost_runner);
  CmlFrame *a = cml_runner_get_frame (cml_window_get_runner (win));
  CmlFrame *b = ghost_frame (win);
  g_assert_cmpfloat (a->t, ==, 0);
  g_assert_cmpfloat (b->t, ==, 0);
  g_assert_cmpfloat (obs_of (a, "x"), ==, obs_of (b, "x"));
  g_assert_cmpfloat (obs_of (a, "v"), ==, obs_of (b, "v"));
  g_assert_cmpfloat (obs_of (b, "p3"), ==, 0);
  cml_frame_unref (a);
  cml_frame_unref (b);

  /* the plots: each quantity twice, its difference on request */
  CmlPlot *plot = cml_plot_view_get_plot (win->time_plot);
  guint n_both = cml_plot_get_n_series (plot);
  g_assert_cmpuint (n_both % 2, ==, 0);
  cml_plot_view_set_show_difference (win->time_plot, TRUE);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, n_both / 2);
  g_assert_nonnull (strstr (cml_plot_series_get_name (cml_plot_get_series (plot, 0)), "Δ"));
  cml_plot_view_set_show_difference (win->time_plot, FALSE);
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, n_both);

  g_assert_true (cml_window_compare_with (win, "none", &error));
  g_assert_null (win->ghost_runner);
  g_assert_null (cml_scene_view_get_ghost_note (win->scene_view));
  g_assert_cmpuint (cml_plot_get_n_series (plot), ==, n_both / 2);
  window_free (win);
}

/* A copy keeps the parameters it was made with; the first run's change does not reach
 * it, and a restart starts both again. */
static void
test_copy (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;

  g_assert_true (cml_window_compare_with (win, "copy", &error));
  g_assert_no_error (error);
  g_assert_true (cml_parameter_panel_set_param (win->parameter_panel, "Omega", 2.5, &error));
  g_assert_no_error (error);
  cml_runner_sync (cml_window_get_runner (win));
  cml_runner_sync (win->ghost_runner);
  CmlFrame *a = cml_runner_get_frame (cml_window_get_runner (win));
  CmlFrame *b = ghost_frame (win);
  g_assert_cmpfloat (param_of (a, "Omega"), ==, 2.5);
  g_assert_cmpfloat (param_of (b, "Omega"), ==, 1.0);
  cml_frame_unref (a);
  cml_frame_unref (b);

  cml_window_play (win);
  Wait w = { win, 2.0 };
  wait_for (both_past, &w, "both_past");
  /* the difference is computed where both runs have samples, and is not zero */
  cml_plot_view_set_show_difference (win->time_plot, TRUE);
  cml_plot_view_set_series (win->time_plot, NULL, (const char *const[]) { "x", NULL });
  wait_for (difference_shown, win, "the plot of the difference");
  CmlPlotSeries *d = cml_plot_get_series (cml_plot_view_get_plot (win->time_plot), 0);
  g_assert_cmpuint (cml_plot_series_get_n (d), >, 10);
  window_free (win);
}

/* Another integrator: the same system, rkf45 at 1e-6 against rk8pd at 1e-10. */
static void
test_integrator (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rigid-body");
  g_autoptr (GError) error = NULL;

  g_assert_true (cml_window_compare_with (win, "integrator", &error));
  g_assert_no_error (error);
  g_assert_true (win->ghost_system == win->system);
  g_assert_nonnull (strstr (win->ghost_label, "rkf45"));
  g_assert_true (cml_plot_view_get_show_drift (win->time_plot));
  cml_window_play (win);
  Wait w = { win, 1.0 };
  wait_for (both_past, &w, "both_past");
  window_free (win);
}

/* A fixed-step first run is compared with the classical Runge–Kutta method at the same
 * step (what a structure-preserving method keeps, next to one that does not), and both run. */
static void
test_integrator_fixed_step (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("vertical-disk");
  g_autoptr (GError) error = NULL;

  g_assert_true (cml_window_set_integrator (win, "variational", 0.1, &error));
  g_assert_no_error (error);
  g_assert_true (cml_window_compare_with (win, "integrator", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (win->ghost_label, ==, "classical Runge–Kutta (h = 0.1)");
  cml_window_play (win);
  Wait w = { win, 1.0 };
  wait_for (both_past, &w, "both_past");
  cml_window_compare_with (win, "none", NULL);

  g_assert_true (cml_window_set_integrator (win, "rk4-fixed", 0.05, &error));
  g_assert_true (cml_window_compare_with (win, "integrator", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (win->ghost_label, ==, "implicit midpoint (h = 0.05)");
  /* another integrator chosen meanwhile: the other run is chosen anew, at its step */
  g_assert_true (cml_window_set_integrator (win, "variational4", 0.01, &error));
  g_assert_no_error (error);
  g_assert_nonnull (win->ghost_runner);
  g_assert_cmpstr (win->ghost_label, ==, "classical Runge–Kutta (h = 0.01)");
  window_free (win);
}

/* Every built-in under the variational integrators, compared with the classical
 * Runge–Kutta method at the same step: both runs advance, the plot against time shows
 * both runs' drift of an invariant (log₁₀ |Q − Q(0)|), each named by its method, and
 * where the discrete method keeps the invariant (its momentum map, the Casimirs, the
 * rolling ball's I and C — cmlab-cli simulate MODEL --step 0.1 --t-end 5 measures
 * them) its drift stays at rounding while the Runge–Kutta run's is ten times larger
 * or more.  The chaplygin sleigh and the vertical disk keep none of theirs exactly:
 * their energy drifts, bounded, under both (there the Runge–Kutta run's is smaller). */
typedef struct
{
  const char *model;
  const char *kept;    /* an invariant the discrete method keeps to rounding, or NULL */
  const char *shown;   /* else the one plotted */
  gboolean    rk4_drifts; /* the Runge–Kutta run lets KEPT drift, by 10⁻¹⁰ or more */
} Kept;

static const Kept kept[] = {
  { "rolling-ball", "I", NULL, FALSE },
  { "rolling-ball-varying", "Cx", NULL, TRUE },
  { "plate-ball", "casimir", NULL, TRUE },
  { "martinet", "a", NULL, TRUE },
  { "capri-kobayashi", "pr", NULL, TRUE },
  { "capri-kobayashi-full", "pr", NULL, TRUE },
  { "heavy-top", "casimir", NULL, TRUE },
  { "rigid-body", "casimir", NULL, TRUE },
  { "chaplygin-sleigh", NULL, "energy", FALSE },
  { "vertical-disk", NULL, "energy", FALSE },
};

/* the plot's two drift series both reach W->t */
static gboolean
drift_plotted (gpointer data)
{
  Wait *w = data;
  CmlPlot *plot = cml_plot_view_get_plot (w->win->time_plot);
  if (cml_plot_get_n_series (plot) != 2)
    return FALSE;
  for (guint i = 0; i < 2; i++)
    {
      CmlPlotColumn *t = cml_plot_series_get_time_column (cml_plot_get_series (plot, i));
      guint n = cml_plot_column_get_n (t);
      if (n < 10 || cml_plot_column_get_data (t)[n - 1] < w->t)
        return FALSE;
    }
  return TRUE;
}

/* the largest of a drift series' values (log₁₀ |Q − Q(0)|) */
static double
series_max (CmlPlotSeries *s)
{
  CmlPlotColumn *y = cml_plot_series_get_y_column (s);
  const double *v = cml_plot_column_get_data (y);
  double m = -INFINITY;
  for (guint i = 0; i < cml_plot_column_get_n (y); i++)
    m = MAX (m, v[i]);
  return m;
}

static void
test_integrator_variational (void)
{
  SKIP_WITHOUT_DISPLAY ();
  const char *kinds[] = { "variational", "variational4" };

  for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
    for (guint v = 0; v < G_N_ELEMENTS (kinds); v++)
      {
        const Kept *c = &kept[k];
        const char *name = c->kept ? c->kept : c->shown;
        CmlWindow *win = window_new (c->model);
        g_autoptr (GError) error = NULL;

        g_test_message ("%s, %s", c->model, kinds[v]);
        g_assert_true (cml_window_set_integrator (win, kinds[v], 0.1, &error));
        g_assert_no_error (error);
        cml_window_set_speed_index (win, 8); /* ×50 */
        g_assert_true (cml_window_compare_with (win, "integrator", &error));
        g_assert_no_error (error);
        g_assert_cmpstr (win->ghost_label, ==, "classical Runge–Kutta (h = 0.1)");
        cml_window_play (win);
        Wait w = { win, 5.0 };
        wait_for (both_past, &w, "both runs past t = 5");
        /* (every quantity's drift is kept: any can be plotted) */
        cml_plot_view_set_series (win->time_plot, NULL, (const char *const[]) { name, NULL });
        wait_for (drift_plotted, &w, "both runs' drift plotted past t = 5");

        /* both ran: neither stopped, no error shown */
        CmlFrame *a = cml_runner_get_frame (cml_window_get_runner (win));
        CmlFrame *b = ghost_frame (win);
        g_assert_cmpint (a->state, !=, CML_RUNNER_FAILED);
        g_assert_cmpint (b->state, !=, CML_RUNNER_FAILED);
        cml_frame_unref (a);
        cml_frame_unref (b);

        /* the drift of NAME, twice: the Runge–Kutta run's (dashed), then this run's */
        CmlPlot *plot = cml_plot_view_get_plot (win->time_plot);
        g_assert_cmpuint (cml_plot_get_n_series (plot), ==, 2);
        CmlPlotSeries *rk4 = cml_plot_get_series (plot, 0);
        CmlPlotSeries *mine = cml_plot_get_series (plot, 1);
        g_assert_nonnull (strstr (cml_plot_series_get_name (rk4), "classical Runge–Kutta (h = 0.1)"));
        g_assert_true (cml_plot_series_get_dashed (rk4));
        g_assert_nonnull (strstr (cml_plot_series_get_name (mine), v == 0 ? "variational (h = 0.1)"
                                                                          : "variational, order 4 (h = 0.1)"));
        g_assert_cmpstr (cml_plot_axis_get_label (cml_plot_get_y_axis (plot)), ==, "log₁₀ |drift|");
        g_assert_cmpuint (cml_plot_series_get_n (rk4), >, 10);
        g_assert_cmpuint (cml_plot_series_get_n (mine), >, 10);
        double d_mine = series_max (mine), d_rk4 = series_max (rk4);
        g_test_message ("  drift of %s: %.3g (this run), %.3g (Runge–Kutta)", name, d_mine, d_rk4);
        g_assert_true (isfinite (d_mine) && isfinite (d_rk4));
        if (c->kept)
          g_assert_cmpfloat (d_mine, <, -12);
        else
          g_assert_cmpfloat (d_mine, <, -4); /* bounded: 10⁻⁷ at t = 5 */
        if (c->rk4_drifts)
          g_assert_cmpfloat (d_rk4, >, d_mine + 1); /* ten times or more (100 to 10⁷ measured) */
        window_free (win);
      }
}

/* What cannot be compared says why, and a model switch ends the comparison. */
static void
test_refused (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("martinet");
  g_autoptr (GError) error = NULL;

  g_assert_false (cml_window_compare_with (win, "vakonomic", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "only a nonholonomic model"));
  g_assert_null (win->ghost_runner);
  g_clear_error (&error);
  g_assert_false (cml_window_compare_with (win, "sideways", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_assert_true (cml_window_compare_with (win, "copy", &error));
  g_assert_nonnull (win->ghost_runner);
  g_assert_true (cml_window_load (win, "rolling-ball", &error));
  g_assert_null (win->ghost_runner);
  window_free (win);
}

/* A line on the plots says why the other run's curves end early (here it is held back, as
 * a run slower to compute is); the plot's menu offers the difference while comparing. */
static gboolean
has_note (gpointer data)
{
  CmlWindow *win = data;
  const char *note = cml_plot_view_get_ghost_note (win->time_plot);
  return note && strstr (note, "vakonomic") && strstr (note, "t = 0.0");
}

static gboolean
menu_has_action (GMenuModel *menu, const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *a = NULL;
      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &a) && g_str_equal (a, action))
        return TRUE;
      g_autoptr (GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);
      if (section && menu_has_action (section, action))
        return TRUE;
    }
  return FALSE;
}

static GtkMenuButton *
plot_menu_button (GtkWidget *root)
{
  if (GTK_IS_MENU_BUTTON (root) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (root)))
    return GTK_MENU_BUTTON (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkMenuButton *b = plot_menu_button (c);
      if (b)
        return b;
    }
  return NULL;
}

static void
test_ghost_note (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;

  GtkMenuButton *menu = plot_menu_button (GTK_WIDGET (win->time_plot));
  g_assert_nonnull (menu);
  g_assert_true (menu_has_action (gtk_menu_button_get_menu_model (menu), "win.compare-difference"));

  g_assert_true (cml_window_compare_with (win, "vakonomic", &error));
  g_assert_no_error (error);
  wait_for (has_ghost, win, "the comparison's ghost to be drawn");
  g_assert_cmpstr (cml_plot_view_get_ghost_note (win->time_plot), ==, "");
  /* the other run held at t = 0 while this one plays on */
  cml_window_play (win);
  cml_runner_pause (win->ghost_runner);
  wait_for (has_note, win, "has_note");
  g_assert_nonnull (strstr (cml_plot_view_get_ghost_note (win->phase_plot), "vakonomic"));
  /* the note goes with the comparison */
  g_assert_true (cml_window_compare_with (win, "none", &error));
  g_assert_cmpstr (cml_plot_view_get_ghost_note (win->time_plot), ==, "");
  window_free (win);
}

/* The vakonomic reading is a second system to derive: that happens on a worker (held here
 * by the test's gate) while the window goes on — its run advances, the card says what is
 * derived — and the comparison starts once it is ready.  A change of model meanwhile
 * gives the wait up. */
static gboolean
run_past (gpointer data)
{
  Wait *w = data;
  CmlFrame *a = cml_runner_get_frame (cml_window_get_runner (w->win));
  gboolean past = a->t >= w->t;
  cml_frame_unref (a);
  return past;
}

static void
test_vakonomic_off_thread (void)
{
  SKIP_WITHOUT_DISPLAY ();
  g_autofree char *dir = g_dir_make_tmp ("cmlab-gate-XXXXXX", NULL);
  g_autofree char *gate = g_build_filename (dir, "go", NULL);
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;

  g_setenv ("CMLAB_TEST_DERIVE_GATE", gate, TRUE);
  cml_window_play (win);
  g_assert_true (cml_window_compare_with (win, "vakonomic", &error));
  g_assert_no_error (error);
  /* held: no second run yet, the card says what is derived, the first run goes on */
  g_assert_null (win->ghost_runner);
  g_assert_nonnull (win->compare_pending);
  g_assert_true (gtk_widget_get_visible (win->derive_box));
  g_assert_nonnull (strstr (gtk_label_get_text (win->derive_label), "vakonomic"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (win->derive_cancel_button), "comparison"));
  Wait w = { win, 0.5 };
  wait_for (run_past, &w, "the run to go past the time asked");
  g_assert_null (win->ghost_runner);

  /* another model chosen meanwhile: the wait is given up */
  g_assert_true (cml_window_load (win, "rolling-ball-varying", &error));
  g_assert_null (win->compare_pending);
  g_assert_false (gtk_widget_get_visible (win->derive_box));

  /* this one's reading, let through: the comparison starts when it is ready */
  g_assert_true (g_file_set_contents (gate, "", 0, NULL));
  g_assert_true (cml_window_compare_with (win, "vakonomic", &error));
  g_assert_no_error (error);
  wait_for (has_ghost, win, "the comparison's ghost to be drawn");
  g_assert_null (win->compare_pending);
  g_assert_false (gtk_widget_get_visible (win->derive_box));
  g_assert_cmpint (cml_system_get_model (win->ghost_system)->kind, ==, CML_CONSTRAINTS_VAKONOMIC);

  g_unsetenv ("CMLAB_TEST_DERIVE_GATE");
  window_free (win);
  g_unlink (gate);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/compare/vakonomic", test_vakonomic);
  g_test_add_func ("/ui/compare/vakonomic-off-thread", test_vakonomic_off_thread);
  g_test_add_func ("/ui/compare/copy", test_copy);
  g_test_add_func ("/ui/compare/integrator", test_integrator);
  g_test_add_func ("/ui/compare/integrator-fixed-step", test_integrator_fixed_step);
  g_test_add_func ("/ui/compare/integrator-variational", test_integrator_variational);
  g_test_add_func ("/ui/compare/refused", test_refused);
  g_test_add_func ("/ui/compare/ghost-note", test_ghost_note);
  return g_test_run ();
}
