/* test-sweep-view.c — the Sweep page: a parameter's sweep asked for from its row's menu,
 * run on worker threads through the core's sweep runner (each point the run a fresh
 * simulation makes, bit for bit), a click on the curve setting the parameter (one undo
 * step), and Cancel.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-sweep-view"

#include "ui-util.h"

#include <math.h>

#include "cml-error.h"
#include "cml-parameter-panel-private.h"
#include "cml-sweep-view.h"

static gboolean
views_follow (gpointer data)
{
  CmlWindow *win = data;
  return win->shown_system != NULL && win->shown_system == win->system;
}

static gboolean
sweep_done (gpointer data)
{
  return !cml_sweep_view_is_running (data);
}

static CmlSweepView *
sweep_page (CmlWindow *win)
{
  GtkWidget *page = gtk_stack_get_child_by_name (win->side_stack, "sweep");
  g_assert_nonnull (page);
  return CML_SWEEP_VIEW (page);
}

/* x of the rolling ball at T with Omega = OMEGA, run as a fresh simulation of the window's
 * system with its integrator. */
static double
x_at (CmlWindow *win, double omega, double t)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (win->system, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_set_param (sim, "Omega", omega, &error));
  g_assert_true (cml_simulation_set_integrator (sim, &win->integrator, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_true (cml_simulation_advance (sim, t, &error));
  g_autofree double *obs = g_new (double, cml_system_n_observables (win->system));
  cml_simulation_observe (sim, obs);
  return obs[cml_system_observable_index (win->system, "x")];
}

typedef struct
{
  CmlSweepView *view;
  gboolean     *running;
} NoteRunning;

static gboolean
note_running (gpointer data)
{
  NoteRunning *nr = data;
  *nr->running = cml_sweep_view_is_running (nr->view);
  return G_SOURCE_REMOVE;
}

static void
test_sweep (void)
{
  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("rolling-ball");
  g_autoptr (GError) error = NULL;
  CmlSweepView *view;
  guint n = 0;
  const double *xy;

  wait_for (views_follow, win, "views_follow");
  view = sweep_page (win);

  /* the row's "Sweep this parameter…" shows the page */
  cml_parameter_panel_request_sweep (win->parameter_panel, "Omega");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (win->side_stack), ==, "sweep");

  /* the drop-downs show the parameter and the quantity as people write them: Ω, not Omega */
  {
    GtkWidget *drop = GTK_WIDGET (view);
    while (drop && !GTK_IS_DROP_DOWN (drop))
      drop = gtk_widget_get_first_child (drop) ? gtk_widget_get_first_child (drop) : gtk_widget_get_next_sibling (drop);
    g_assert_nonnull (drop);
    GListModel *names = gtk_drop_down_get_model (GTK_DROP_DOWN (drop));
    GtkExpression *shown = gtk_drop_down_get_expression (GTK_DROP_DOWN (drop));
    g_assert_nonnull (shown);
    gboolean omega = FALSE;
    for (guint i = 0; i < g_list_model_get_n_items (names); i++)
      {
        g_autoptr (GObject) item = g_list_model_get_item (names, i);
        g_auto (GValue) value = G_VALUE_INIT;
        g_assert_true (gtk_expression_evaluate (shown, item, &value));
        omega |= g_strcmp0 (g_value_get_string (&value), "Ω") == 0;
      }
    g_assert_true (omega);
  }

  /* four points, each the run a fresh simulation makes */
  g_assert_true (cml_sweep_view_set_sweep (view, "Omega", 0.5, 2, 4, "x", 2, &error));
  g_assert_no_error (error);
  g_assert_true (cml_sweep_view_start (view, &error));
  g_assert_no_error (error);
  g_assert_true (cml_sweep_view_is_running (view));
  /* the window stays responsive: its loop runs while the sweep does (a state, not a time:
   * a busy machine may give the loop long gaps, but never none) */
  gboolean loop_saw_running = FALSE;
  /* at the loop's high priority: a window drawing every frame keeps idles waiting */
  g_idle_add_full (G_PRIORITY_HIGH, note_running, &(NoteRunning) { view, &loop_saw_running }, NULL);
  wait_for (sweep_done, view, "sweep_done");
  g_test_message ("longest main-loop gap %.3f s", longest_gap);
  g_assert_true (loop_saw_running);
  xy = cml_sweep_view_get_points (view, &n);
  g_assert_cmpuint (n, ==, 4);
  for (guint k = 0; k < 4; k++)
    {
      double omega = 0.5 + 0.5 * k;
      g_assert_cmpfloat (xy[2 * k], ==, omega);
      g_assert_cmpfloat (xy[2 * k + 1], ==, x_at (win, omega, 2));
    }
  g_assert_nonnull (strstr (cml_sweep_view_get_status (view), "4 points"));

  /* a click near Omega = 1.4 sets Omega to the nearest point, 1.5; one undo goes back */
  GtkSpinButton *spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  double before = gtk_spin_button_get_value (spin);
  g_assert_true (cml_sweep_view_pick (view, 1.4));
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 1.5);
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, before);

  /* refused: a measure the model has not */
  g_assert_false (cml_sweep_view_set_sweep (view, "Omega", 0, 1, 3, "nope", 1, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME);
  g_clear_error (&error);

  /* Cancel: a long sweep stops early, keeping the points done — cancelled as soon as it
   * has started, so that only the points already begun (one a worker) can finish, however
   * fast the machine */
  g_assert_true (cml_sweep_view_set_sweep (view, "Omega", 0, 2, 41, "x", 200000, &error));
  g_assert_true (cml_sweep_view_start (view, &error));
  g_assert_no_error (error);
  cml_sweep_view_cancel (view);
  wait_for (sweep_done, view, "sweep_done");
  xy = cml_sweep_view_get_points (view, &n);
  g_assert_cmpuint (n, <, 41);
  g_assert_nonnull (strstr (cml_sweep_view_get_status (view), "Cancelled"));

  /* a sweep running when the window goes is stopped with it */
  g_assert_true (cml_sweep_view_start (view, &error));
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  g_test_add_func ("/ui/sweep/run-pick-cancel", test_sweep);
  return g_test_run ();
}
