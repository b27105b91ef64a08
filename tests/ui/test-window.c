/* test-window.c — the application shell: templates, model switching, live parameters,
 * run controls, initial conditions, and no leaked widgets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under a display (tools/run-tests gives it Xvfb); without one every test skips.
 * The physics is checked through the runner's frames (cml_runner_sync makes the worker
 * catch up); the views through the window's tick callback, by spinning the main loop.
 */
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "cml-conserved.h"
#include "cml-error.h"
#include "cml-frame-stats.h"
#include "cml-parameter-panel-private.h"
#include "cml-window-private.h"
#include "cml-window-sweep.h"
#include "ui-util.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static CmlFrame *
synced_frame (CmlWindow *win)
{
  cml_runner_sync (win->runner);
  return cml_runner_get_frame (win->runner);
}

static double
frame_obs (CmlFrame *frame, const char *name)
{
  int k = cml_system_observable_index (frame->system, name);

  g_assert_cmpint (k, >=, 0);
  return frame->obs[k];
}

static double
frame_param (CmlFrame *frame, const char *name)
{
  int k = cml_model_param_index (cml_system_get_model (frame->system), name);

  g_assert_cmpint (k, >=, 0);
  g_assert_cmpuint ((guint) k, <, frame->n_params);
  return frame->params[k];
}

/* The views show the frame's system and have taken the first sample of its run. */
static gboolean
views_caught_up (gpointer data)
{
  CmlWindow *win = data;
  CmlFrame *frame = cml_runner_get_frame (win->runner);
  gboolean ok = win->shown_system == frame->system && win->run_generation == frame->generation;

  cml_frame_unref (frame);
  return ok;
}

/* ---- templates --------------------------------------------------------------------------- */

static void
assert_template_children (GtkWidget *widget, GType type, const char *const *names)
{
  for (guint i = 0; names[i]; i++)
    {
      GObject *child = gtk_widget_get_template_child (widget, type, names[i]);

      if (child == NULL)
        g_error ("%s: template child %s is missing", g_type_name (type), names[i]);
    }
}

static void
test_templates (void)
{
  static const char *const picker_children[] = { "box", "heading", "scroller", "list_box", NULL };
  static const char *const panel_children[] = {
    "box", "params_heading", "defaults_button", "param_grid", "no_params_label", "preset_box",
    "preset_dropdown", "preset_apply_button", "initial_heading", "initial_grid",
    "restart_button", "projection_label", "scroller", "recon_expander", "recon_grid", NULL
  };
  static const char *const equations_children[] = {
    "scroller", "box", "title_label", "kind_label", "algebroid_label", "regularity_label",
    "regularity_value_label", "monitors_heading", "monitor_grid", "steps_box", "steps_label",
    "warnings_label", "equations_view", NULL
  };
  GtkWidget *w;
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();

  w = g_object_ref_sink (cml_model_picker_new ());
  assert_template_children (w, CML_TYPE_MODEL_PICKER, picker_children);
  g_assert_finalize_object (w);

  w = g_object_ref_sink (cml_parameter_panel_new ());
  assert_template_children (w, CML_TYPE_PARAMETER_PANEL, panel_children);
  g_assert_nonnull (cml_parameter_panel_get_preset_dropdown (CML_PARAMETER_PANEL (w)));
  g_assert_finalize_object (w);

  w = g_object_ref_sink (cml_equations_panel_new ());
  assert_template_children (w, CML_TYPE_EQUATIONS_PANEL, equations_children);
  g_assert_finalize_object (w);

  /* the window: every bound field, before and after a model is loaded */
  win = window_new (NULL);
  {
    gpointer fields[] = {
      win->header_bar, win->play_button, win->step_button, win->reset_button,
      win->speed_dropdown, win->title_label, win->subtitle_label, win->integrator_dropdown,
      win->tolerance_dropdown, win->open_button, win->menu_button, win->outer_paned,
      win->content_paned, win->model_picker, win->parameter_panel, win->sidebar_button,
      win->systems_button, gtk_menu_button_get_popover (win->systems_button), win->scene_stack, win->error_title,
      win->error_detail, win->error_retry_button, win->toast_overlay,
      win->failure_details_button, win->failure_explanation, win->failure_technical,
      win->scene_view, win->side_stack, win->plots_paned, win->time_plot, win->phase_plot,
      win->equations_panel, win->time_label, win->speed_label, win->state_label,
      win->message_label, win->failure_box, win->failure_label, win->failure_reset_button,
    };

    for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
      if (fields[i] == NULL)
        g_error ("window template child %u is not bound", i);
  }
  g_assert_true (CML_IS_SCENE_VIEW (win->scene_view));
  g_assert_true (CML_IS_PLOT_VIEW (win->time_plot));
  g_assert_true (CML_IS_PLOT_VIEW (win->phase_plot));
  window_free (win);

  /* the shortcuts window (GtkApplication loads it from this path) */
  {
    g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource ("/org/cmlab/Cmlab/gtk/help-overlay.ui");
    GObject *overlay = gtk_builder_get_object (builder, "help_overlay");

    g_assert_true (GTK_IS_SHORTCUTS_WINDOW (overlay));
    gtk_window_destroy (GTK_WINDOW (overlay));
  }
}

/* ---- every built-in loads in the window -------------------------------------------------- */

static void
test_builtin_models (void)
{
  CmlWindow *win;
  g_auto (GStrv) names = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  names = cml_model_picker_list_builtin (win->model_picker);
  g_assert_cmpuint (g_strv_length (names), >=, 6);
  g_assert_true (g_strv_contains ((const char *const *) names, "rolling-ball"));

  for (guint i = 0; names[i]; i++)
    {
      CmlFrame *frame;
      CmlModel *model;

      g_test_message ("model %s", names[i]);
      g_assert_true (pick_model (win, names[i]));
      model = cml_model_picker_get_selected (win->model_picker);
      g_assert_nonnull (model);
      g_assert_cmpstr (model->name, ==, names[i]);

      /* the worker switched, keeping the layout (same window, same views) */
      frame = synced_frame (win);
      g_assert_cmpstr (cml_system_get_model (frame->system)->name, ==, names[i]);
      g_assert_true (frame->system == win->system);
      g_assert_cmpint (frame->state, !=, CML_RUNNER_FAILED);
      cml_frame_unref (frame);

      /* the panels follow at once, the views with the next ticks */
      g_assert_true (cml_parameter_panel_get_system (win->parameter_panel) == win->system);
      wait_for (views_caught_up, win, "views_caught_up");

      /* it runs */
      cml_runner_step (win->runner, 0.05);
      frame = synced_frame (win);
      g_assert_cmpfloat_with_epsilon (frame->t, 0.05, 1e-9);
      g_assert_cmpint (frame->state, ==, CML_RUNNER_PAUSED);
      cml_frame_unref (frame);
    }

  /* the equations panel describes the last one */
  {
    g_autofree char *text = cml_equations_panel_get_equations_text (win->equations_panel);

    g_assert_true (strstr (text, "Equations of motion") != NULL);
  }
  window_free (win);
}

/* ---- a parameter change reaches the worker, live ----------------------------------------- */

static void
test_param_live (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  GtkSpinButton *spin;
  GtkRange *scale;
  double x0, y0, x1, y1;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");

  /* the default run, one step */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat_with_epsilon (frame->t, cml_window_step_size (win), 1e-9);
  x0 = frame_obs (frame, "x");
  y0 = frame_obs (frame, "y");
  cml_frame_unref (frame);

  /* the table speed, through the panel's spin button, while paused at t = 0 */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.reset", NULL);
  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (spin, 3.0);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->t, ==, 0.0);
  g_assert_cmpfloat (frame_param (frame, "Omega"), ==, 3.0);
  cml_frame_unref (frame);

  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  x1 = frame_obs (frame, "x");
  y1 = frame_obs (frame, "y");
  cml_frame_unref (frame);
  g_assert_cmpfloat (hypot (x1 - x0, y1 - y0), >, 1e-4);

  /* a slider drag goes the same way, without a restart */
  scale = cml_parameter_panel_get_param_scale (win->parameter_panel, "Omega");
  g_assert_nonnull (scale);
  gtk_range_set_value (scale, -2.0);
  frame = synced_frame (win);
  g_assert_cmpfloat_with_epsilon (frame_param (frame, "Omega"), -2.0, 1e-9);
  g_assert_cmpfloat (frame->t, >, 0.0);           /* no restart */
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (spin), -2.0, 1e-9);
  cml_frame_unref (frame);

  /* choosing the running model again keeps the run and the panel as they are */
  g_assert_true (pick_model (win, "rolling-ball"));
  frame = synced_frame (win);
  g_assert_cmpfloat_with_epsilon (frame_param (frame, "Omega"), -2.0, 1e-9);
  g_assert_cmpfloat (frame->t, >, 0.0);
  cml_frame_unref (frame);
  g_assert_true (spin == cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega"));
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (spin), -2.0, 1e-9);

  /* and while running */
  cml_window_play (win);
  gtk_spin_button_set_value (spin, 0.5);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "Omega"), ==, 0.5);
  g_assert_cmpint (frame->state, ==, CML_RUNNER_RUNNING);
  cml_frame_unref (frame);

  window_free (win);
}

/* A rigid body no body can be (I₁ > I₂ + I₃): refused from the slider, from a click on a
 * sweep's curve and from the command line's way in, with the reason under I₁'s field; the
 * run keeps I₁ = 1.  A possible value still passes. */
static void
test_param_impossible (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  GtkRange *scale;
  g_autoptr (GError) error = NULL;
  const char *msg;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rigid-body");

  /* the sweep's click */
  g_signal_emit_by_name (cml_window_sweep_view (win), "param-picked", "I1", 6.0);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "I1"), ==, 1.0);
  cml_frame_unref (frame);
  msg = cml_parameter_panel_get_input_error (win->parameter_panel);
  g_test_message ("%s", msg);
  g_assert_nonnull (msg);
  g_assert_nonnull (strstr (msg, "I₁ ≤ I₂ + I₃"));
  g_assert_nonnull (strstr (msg, "each principal moment of inertia must be at most the sum of the other two"));
  g_assert_nonnull (cml_window_get_toast (win));

  /* the slider dragged past the possible */
  scale = cml_parameter_panel_get_param_scale (win->parameter_panel, "I1");
  gtk_range_set_value (scale, log10 (6.0));
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "I1"), ==, 1.0);
  cml_frame_unref (frame);
  g_assert_cmpfloat_with_epsilon (gtk_range_get_value (scale), 0.0, 1e-9);
  g_assert_cmpfloat (gtk_spin_button_get_value (cml_parameter_panel_get_param_spin (win->parameter_panel, "I1")), ==, 1.0);

  /* --set's way in */
  g_assert_false (cml_parameter_panel_set_param (win->parameter_panel, "I1", 5.5, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_clear_error (&error);

  /* equality is possible (a flat body: I₁ = I₂ + I₃) */
  g_assert_true (cml_parameter_panel_set_param (win->parameter_panel, "I1", 5.0, &error));
  g_assert_no_error (error);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "I1"), ==, 5.0);
  cml_frame_unref (frame);
  g_assert_null (cml_parameter_panel_get_input_error (win->parameter_panel));

  window_free (win);
}

/* ---- play, pause, step, reset ------------------------------------------------------------ */

static gboolean
time_advanced (gpointer data)
{
  CmlWindow *win = data;
  CmlFrame *frame = cml_runner_get_frame (win->runner);
  gboolean ok = frame->t > 0.2;

  cml_frame_unref (frame);
  return ok;
}

static void
test_run_cycle (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  double t_paused, speed;
  guint generation;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("plate-ball");
  frame = synced_frame (win);
  g_assert_cmpint (frame->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat (frame->t, ==, 0.0);
  generation = frame->generation;
  cml_frame_unref (frame);

  /* play: time goes on (the tick keeps pulling frames meanwhile) */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL);
  frame = synced_frame (win);
  g_assert_cmpint (frame->state, ==, CML_RUNNER_RUNNING);
  cml_frame_unref (frame);
  wait_for (time_advanced, win, "time_advanced");
  g_assert_cmpstr (gtk_button_get_icon_name (win->play_button), ==, "media-playback-pause-symbolic");

  /* pause: time stands still */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.play-pause", NULL);
  frame = synced_frame (win);
  g_assert_cmpint (frame->state, ==, CML_RUNNER_PAUSED);
  t_paused = frame->t;
  cml_frame_unref (frame);
  wait_frames (GTK_WIDGET (win), 10); /* frames go by … */
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->t, ==, t_paused);
  cml_frame_unref (frame);
  wait_for (views_caught_up, win, "views_caught_up");
  wait_window_shows_runner (win);
  g_assert_cmpstr (gtk_button_get_icon_name (win->play_button), ==, "media-playback-start-symbolic");

  /* step: one step further, paused */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  g_assert_cmpint (frame->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat_with_epsilon (frame->t, t_paused + cml_window_step_size (win), 1e-9);
  cml_frame_unref (frame);

  /* faster, slower: the step follows the speed */
  speed = cml_window_speeds[win->speed_index];
  gtk_widget_activate_action (GTK_WIDGET (win), "win.faster", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->speed, >, speed);
  cml_frame_unref (frame);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.slower", NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.slower", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->speed, <, speed);
  cml_frame_unref (frame);

  /* reset: t = 0, a new run, the model's initial data */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.reset", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->t, ==, 0.0);
  g_assert_cmpuint (frame->generation, >, generation);
  g_assert_cmpfloat (frame_obs (frame, "p1"), ==, 1.0);
  g_assert_cmpfloat (frame_obs (frame, "p5"), ==, 0.5);
  cml_frame_unref (frame);
  wait_for (views_caught_up, win, "views_caught_up");

  /* and again from the start */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat_with_epsilon (frame->t, cml_window_step_size (win), 1e-9);
  cml_frame_unref (frame);

  window_free (win);
}

/* ---- initial conditions ------------------------------------------------------------------ */

static gboolean
note_shown (gpointer data)
{
  CmlWindow *win = data;

  return *cml_parameter_panel_get_projection_note (win->parameter_panel) != '\0';
}

static void
test_initial_conditions (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  GtkSpinButton *spin;
  const char *note;

  SKIP_WITHOUT_DISPLAY ();

  /* a change restarts from the new data; the constraints determine w1, w2 */
  win = window_new ("rolling-ball");
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  spin = cml_parameter_panel_get_initial_spin (win->parameter_panel, "x");
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (spin, 2.0);
  cml_parameter_panel_apply_initial (win->parameter_panel);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame->t, ==, 0.0);
  g_assert_cmpfloat (frame_obs (frame, "x"), ==, 2.0);
  g_assert_cmpfloat (frame_obs (frame, "v"), ==, 0.5);
  /* roll_y = v + r w1 − Omega x = 0 with r = Omega = 1: w1 = 1.5 */
  g_assert_cmpfloat_with_epsilon (frame_obs (frame, "w1"), 1.5, 1e-12);
  cml_frame_unref (frame);
  wait_for (views_caught_up, win, "views_caught_up");
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 2.0);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (cml_parameter_panel_get_initial_spin (win->parameter_panel, "w1")),
                                  1.5, 1e-9);
  g_assert_cmpstr (cml_parameter_panel_get_projection_note (win->parameter_panel), ==, "");

  /* a plain reset starts from the data last applied */
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.reset", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_obs (frame, "x"), ==, 2.0);
  cml_frame_unref (frame);

  /* a preset: its parameters, then a restart */
  g_assert_true (g_list_model_get_n_items (gtk_drop_down_get_model (cml_parameter_panel_get_preset_dropdown (win->parameter_panel))) >= 1);
  {
    CmlModel *model = cml_system_get_model (win->system);
    guint still = G_MAXUINT;

    for (guint i = 0; i < model->presets->len; i++)
      if (g_strcmp0 (((CmlPreset *) model->presets->pdata[i])->name, "still-table") == 0)
        still = i;
    g_assert_cmpuint (still, !=, G_MAXUINT);
    cml_parameter_panel_apply_preset (win->parameter_panel, still);
    frame = synced_frame (win);
    g_assert_cmpfloat (frame_param (frame, "Omega"), ==, 0.0);
    g_assert_cmpfloat (frame->t, ==, 0.0);
    g_assert_cmpfloat (frame_obs (frame, "x"), ==, 1.0); /* the model's initial data again */
    cml_frame_unref (frame);
  }

  /* off the constraint set: Capri–Kobayashi forces x1 = 0; the panel says so */
  g_assert_true (pick_model (win, "capri-kobayashi"));
  spin = cml_parameter_panel_get_initial_spin (win->parameter_panel, "x1");
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (spin, 0.3);
  cml_parameter_panel_apply_initial (win->parameter_panel);
  frame = synced_frame (win);
  g_assert_cmpint (frame->state, !=, CML_RUNNER_FAILED);
  g_assert_cmpfloat_with_epsilon (frame_obs (frame, "x1"), 0.0, 1e-12);
  cml_frame_unref (frame);
  wait_for (note_shown, win, "note_shown");
  note = cml_parameter_panel_get_projection_note (win->parameter_panel);
  g_test_message ("note: %s", note);
  g_assert_true (strstr (note, "x1") != NULL);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (spin), 0.0, 1e-12);

  window_free (win);
}

/* ---- opening model files ----------------------------------------------------------------- */

static void
test_open_files (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  g_autoptr (GError) error = NULL;
  g_autofree char *good = NULL;
  g_autofree char *bad = NULL;
  g_autoptr (GFile) file = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");

  /* a model file by path: a row under "Opened files", and the worker switches */
  good = g_build_filename (g_getenv ("CMLAB_MODELS_DIR"), "martinet.cml", NULL);
  g_assert_true (cml_window_load (win, good, &error));
  g_assert_no_error (error);
  frame = synced_frame (win);
  g_assert_cmpstr (cml_system_get_model (frame->system)->name, ==, "martinet");
  cml_frame_unref (frame);
  g_assert_true (cml_model_picker_find (win->model_picker, good) == cml_model_picker_get_selected (win->model_picker));

  /* the same file again replaces its row (an edited file reloads) */
  file = g_file_new_for_path (good);
  cml_window_open_file (win, file);
  frame = synced_frame (win);
  g_assert_cmpstr (cml_system_get_model (frame->system)->name, ==, "martinet");
  cml_frame_unref (frame);

  /* a broken file: FILE:LINE in the error, and the window goes on with what it had */
  bad = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "malformed", "anchor-missing-colon.cml", NULL);
  g_assert_false (cml_window_load (win, bad, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (strstr (error->message, "anchor-missing-colon.cml:") != NULL);
  g_clear_error (&error);
  cml_runner_step (win->runner, 0.1);
  frame = synced_frame (win);
  g_assert_cmpstr (cml_system_get_model (frame->system)->name, ==, "martinet");
  g_assert_cmpint (frame->state, ==, CML_RUNNER_PAUSED);
  cml_frame_unref (frame);

  g_assert_false (cml_window_load (win, "no-such-model", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  window_free (win);
}

/* ---- view settings ----------------------------------------------------------------------- */

static void
test_view_settings (void)
{
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");

  gtk_widget_activate_action (GTK_WIDGET (win), "win.presentation", NULL);
  g_assert_true (win->presentation);
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (win), "presentation"));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.presentation", NULL);
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (win), "presentation"));

  /* the menu's style: dark, light, or the desktop's (light here: the tests' desktop
   * states no preference), each remembered for the next run */
  for (guint k = 0; k < 3; k++)
    {
      const char *choice = (const char *[]) { "dark", "light", "follow" }[k];
      g_autofree char *shown = NULL;

      gtk_widget_activate_action (GTK_WIDGET (win), "win.style", "s", choice);
      g_object_get (win, "style", &shown, NULL);
      g_assert_cmpstr (shown, ==, choice);
      g_assert_true (cml_window_get_dark (win) == (k == 0));
      if (win->settings)
        {
          g_autofree char *remembered = g_settings_get_string (win->settings, "style");
          g_assert_cmpstr (remembered, ==, choice);
        }
    }
  /* --dark is for one run: the choice remembered stays */
  g_object_set (win, "dark", TRUE, NULL);
  g_assert_true (cml_window_get_dark (win));
  if (win->settings)
    {
      g_autofree char *remembered = g_settings_get_string (win->settings, "style");
      g_assert_cmpstr (remembered, ==, "follow");
    }
  gtk_widget_activate_action (GTK_WIDGET (win), "win.style", "s", "follow");
  g_assert_false (cml_window_get_dark (win));

  gtk_widget_activate_action (GTK_WIDGET (win), "win.table-frame", NULL);
  g_assert_true (cml_scene_view_get_table_frame (win->scene_view));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.table-frame", NULL);
  g_assert_false (cml_scene_view_get_table_frame (win->scene_view));

  gtk_widget_activate_action (GTK_WIDGET (win), "win.reset-view", NULL);

  window_free (win);
}

/* A fixed-step integrator gets a step instead of a tolerance: the chooser beside the
 * integrator changes, the run and the session take the step, presentation mode hides both. */
static void
test_integrator_step (void)
{
  g_autoptr (GError) error = NULL;

  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("vertical-disk");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->tolerance_dropdown)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->step_dropdown)));

  g_assert_true (cml_window_set_integrator (win, "variational", 0.09, &error));
  g_assert_no_error (error);
  g_assert_cmpint (win->integrator.kind, ==, CML_INTEGRATOR_VARIATIONAL);
  g_assert_cmpfloat (win->integrator.h_fixed, ==, 0.1);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->tolerance_dropdown)));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->step_dropdown)));
  g_autoptr (CmlSession) session = cml_window_get_session (win, &error);
  g_assert_no_error (error);
  g_assert_cmpint (session->integrator.kind, ==, CML_INTEGRATOR_VARIATIONAL);
  g_assert_cmpfloat (session->integrator.h_fixed, ==, 0.1);

  gtk_widget_activate_action (GTK_WIDGET (win), "win.presentation", NULL);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->step_dropdown)));
  gtk_widget_activate_action (GTK_WIDGET (win), "win.presentation", NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->step_dropdown)));

  g_assert_true (cml_window_set_integrator (win, "rk8pd", 0, &error));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->tolerance_dropdown)));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->step_dropdown)));
  g_assert_false (cml_window_set_integrator (win, "euler", 0, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  window_free (win);
}

/* The menu starts at "automatic", whose tooltip names the method it is for this model and
 * tolerance and why; another model, another tolerance, choose again; a session keeps auto. */
static void
test_integrator_automatic (void)
{
  g_autoptr (GError) error = NULL;

  SKIP_WITHOUT_DISPLAY ();
  CmlWindow *win = window_new ("martinet");
  g_assert_cmpint (win->integrator.kind, ==, CML_INTEGRATOR_AUTO);
  g_assert_cmpuint (gtk_drop_down_get_selected (win->integrator_dropdown), ==, CML_INTEGRATOR_AUTO);
  const char *tip = gtk_widget_get_tooltip_text (GTK_WIDGET (win->integrator_dropdown));
  g_assert_nonnull (strstr (tip, "taylor (chosen: tolerance 1e-12, polynomial right-hand side)"));

  /* a loose tolerance (1e-6, the first): rk8pd */
  gtk_drop_down_set_selected (win->tolerance_dropdown, 0);
  const char *loose = gtk_widget_get_tooltip_text (GTK_WIDGET (win->integrator_dropdown));
  g_assert_nonnull (strstr (loose, "rk8pd (chosen: tolerance 1e-08, the Taylor method pays at tighter tolerances)"));
  gtk_drop_down_set_selected (win->tolerance_dropdown, CML_DEFAULT_TOLERANCE_INDEX);

  /* a rational right-hand side: rk8pd */
  g_assert_true (cml_window_load (win, "vertical-disk", &error));
  g_assert_no_error (error);
  const char *other = gtk_widget_get_tooltip_text (GTK_WIDGET (win->integrator_dropdown));
  g_assert_nonnull (strstr (other, "rk8pd (chosen: the right-hand side divides"));

  g_autoptr (CmlSession) session = cml_window_get_session (win, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session->integrator.chosen);

  /* a method named: the menu's own tooltip */
  g_assert_true (cml_window_set_integrator (win, "dop853", 0, &error));
  const char *named = gtk_widget_get_tooltip_text (GTK_WIDGET (win->integrator_dropdown));
  g_assert_null (strstr (named, "chosen"));
  window_free (win);
}

/* ---- the 3-D view inside the window draws ------------------------------------------------ */

static void
test_scene_renders (void)
{
  CmlWindow *win;
  double fraction = 0;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  cml_window_play (win);
  wait_for (time_advanced, win, "time_advanced");
  wait_frames (GTK_WIDGET (win), 3); /* the scene drawn */
  if (!cml_scene_view_probe_pixels (win->scene_view, &fraction))
    g_test_message ("no GL context: the pixel check is skipped");
  else
    {
      g_test_message ("scene: %.1f %% of the pixels differ from the background", 100 * fraction);
      g_assert_cmpfloat (fraction, >, 0.01);
    }
  window_free (win);
}

/* ---- frame statistics -------------------------------------------------------------------- */

static void
test_frame_stats (void)
{
  g_autoptr (CmlFrameStats) stats = cml_frame_stats_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-test-XXXXXX", &error);
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  gint64 t = 1000000;

  g_assert_no_error (error);
  /* 100 frames at 60 Hz, then five slow ones */
  for (guint i = 0; i < 100; i++, t += 16667)
    cml_frame_stats_add_frame (stats, t);
  for (guint i = 0; i < 5; i++, t += 50000)
    cml_frame_stats_add_frame (stats, t);

  g_assert_cmpuint (cml_frame_stats_get_n_frames (stats), ==, 105);
  g_assert_cmpfloat_with_epsilon (cml_frame_stats_get_interval_quantile (stats, 0.5), 16.667, 1e-9);
  g_assert_cmpfloat (cml_frame_stats_get_interval_quantile (stats, 0.95), <, 50.0 + 1e-9);
  g_assert_cmpfloat (cml_frame_stats_get_interval_quantile (stats, 0.99), >, 30.0);

  path = g_build_filename (dir, "stats.json", NULL);
  g_assert_true (cml_frame_stats_write (stats, path, "rolling-ball", 12.5, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &json, NULL, NULL));
  g_test_message ("%s", json);
  g_assert_true (strstr (json, "\"frames\": 105") != NULL);
  g_assert_true (strstr (json, "\"median_interval_ms\": 16.667") != NULL);
  g_assert_true (strstr (json, "\"p95_interval_ms\": ") != NULL);
  g_assert_true (strstr (json, "\"sim_time\": 12.5") != NULL);
  g_assert_true (strstr (json, "\"wall_time\": ") != NULL);
  g_assert_true (strstr (json, "\"model\": \"rolling-ball\"") != NULL);
  g_remove (path);
  g_rmdir (dir);
}

/* The window's newest frames only (the state file's "frames"): slow frames long past no
 * longer count. */
static void
test_frame_stats_recent (void)
{
  g_autoptr (CmlFrameStats) stats = cml_frame_stats_new_recent (121);
  gint64 t = 1000000;

  for (guint i = 0; i < 50; i++, t += 100000)
    cml_frame_stats_add_frame (stats, t);
  g_assert_cmpfloat_with_epsilon (cml_frame_stats_get_interval_quantile (stats, 0.5), 100.0, 1e-9);
  for (guint i = 0; i < 200; i++, t += 16667)
    cml_frame_stats_add_frame (stats, t);
  g_assert_cmpuint (cml_frame_stats_get_n_frames (stats), ==, 121);
  g_assert_cmpfloat_with_epsilon (cml_frame_stats_get_interval_quantile (stats, 0.5), 16.667, 1e-9);
  g_assert_cmpfloat_with_epsilon (cml_frame_stats_get_interval_quantile (stats, 0.95), 16.667, 1e-9);
}

/* ---- exports and sessions ---------------------------------------------------------------- */

static gboolean
plots_took_all (gpointer data)
{
  CmlWindow *win = data;

  return cml_plot_queue_get_n (win->plot_queue[0]) == 0 && cml_plot_queue_get_n (win->plot_queue[1]) == 0;
}

/* Runs WIN's model a little, pauses, and lets the plots take every sample. */
static void
run_a_little (CmlWindow *win)
{
  for (int k = 0; k < 10; k++)
    gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  cml_runner_sync (win->runner);
  /* the plots take samples on frame ticks: wait until the window took the last frame's
   * and both plots emptied their queues (slow under sanitizers) */
  wait_window_shows_runner (win);
  wait_for (plots_took_all, win, "the plots to take every sample");
  g_assert_cmpuint (cml_plot_column_get_n (cml_plot_view_get_time_column (win->time_plot)), >, 10);
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

static void
test_plot_export (void)
{
  CmlWindow *win;
  g_autofree char *dir = NULL;
  g_autofree char *png = NULL, *svg = NULL, *pdf = NULL;
  g_autoptr (GError) error = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  run_a_little (win);
  dir = g_dir_make_tmp ("cmlab-plot-export-XXXXXX", NULL);
  png = g_build_filename (dir, "energy.png", NULL);
  svg = g_build_filename (dir, "energy.svg", NULL);
  pdf = g_build_filename (dir, "energy.pdf", NULL);

  /* the header's menu offers the three formats */
  g_assert_nonnull (gtk_widget_get_template_child (GTK_WIDGET (win->time_plot), CML_TYPE_PLOT_VIEW,
                                                   "export_button"));

  g_assert_true (cml_plot_view_export (win->time_plot, png, &error));
  g_assert_no_error (error);
  {
    cairo_surface_t *surface = cairo_image_surface_create_from_png (png);
    int w, h, stride, differ = 0;
    const guint8 *px;

    g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
    w = cairo_image_surface_get_width (surface);
    h = cairo_image_surface_get_height (surface);
    g_assert_cmpint (w, ==, 1600);
    g_assert_cmpint (h, ==, 900);
    cairo_surface_flush (surface);
    px = cairo_image_surface_get_data (surface);
    stride = cairo_image_surface_get_stride (surface);
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        if (*(const guint32 *) (px + y * stride + 4 * x) != *(const guint32 *) px)
          differ++;
    g_assert_cmpfloat ((double) differ / (w * h), >, 0.005);
    cairo_surface_destroy (surface);
  }

  g_assert_true (cml_plot_view_export (win->time_plot, svg, &error));
  g_assert_no_error (error);
  {
    g_autofree char *text = read_text (svg);
    g_assert_true (g_str_has_prefix (text, "<?xml"));
  }
  g_assert_true (cml_plot_view_export (win->phase_plot, pdf, &error));
  g_assert_no_error (error);
  {
    g_autofree char *text = read_text (pdf);
    g_assert_true (g_str_has_prefix (text, "%PDF"));
  }

  /* an unwritable place: an error, and nothing left behind */
  g_assert_false (cml_plot_view_export (win->time_plot, "/nonexistent-dir/plot.pdf", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (g_file_test ("/nonexistent-dir/plot.pdf", G_FILE_TEST_EXISTS));
  /* an unknown format */
  {
    g_autofree char *bad = g_build_filename (dir, "plot.bmp", NULL);
    g_assert_false (cml_plot_view_export (win->time_plot, bad, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
    g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
  }
  /* the directory holds the three exports and no temporary files */
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    guint n = 0;
    while (g_dir_read_name (d))
      n++;
    g_assert_cmpuint (n, ==, 3);
  }

  g_remove (png);
  g_remove (svg);
  g_remove (pdf);
  g_rmdir (dir);
  window_free (win);
}

static gboolean
pending_view_applied (gpointer data)
{
  CmlWindow *win = data;

  return win->pending_view == NULL && win->shown_system == win->system;
}

static void
test_session_roundtrip (void)
{
  CmlWindow *win;
  CmlFrame *frame;
  GtkSpinButton *spin;
  g_autofree char *dir = NULL, *path = NULL, *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *embedded = NULL;
  const char *ys[] = { "x", NULL };
  g_auto (GStrv) shown = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  dir = g_dir_make_tmp ("cmlab-session-XXXXXX", NULL);
  path = g_build_filename (dir, "ball.cmlsession", NULL);
  wait_for (views_caught_up, win, "views_caught_up");

  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  g_assert_nonnull (spin);
  gtk_spin_button_set_value (spin, 3.0);
  cml_window_set_table_frame (win, TRUE);
  cml_plot_view_set_series (win->time_plot, NULL, ys);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "Omega"), ==, 3.0);
  cml_frame_unref (frame);

  g_assert_true (cml_window_save_session (win, path, &error));
  g_assert_no_error (error);

  /* the model's text is embedded */
  text = read_text (path);
  g_assert_true (g_key_file_load_from_data (kf, text, -1, G_KEY_FILE_NONE, &error));
  g_assert_no_error (error);
  embedded = g_key_file_get_string (kf, "session", "model", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (embedded, ==, cml_system_get_model (win->system)->text);
  g_assert_true (g_key_file_get_boolean (kf, "view", "table-frame", NULL));
  {
    g_autofree char *y = g_key_file_get_string (kf, "view", "time-plot-y", NULL);
    g_assert_cmpstr (y, ==, "x");
  }

  /* change things, then open: they come back */
  gtk_spin_button_set_value (spin, -1.0);
  cml_window_set_table_frame (win, FALSE);
  {
    const char *others[] = { "y", NULL };
    cml_plot_view_set_series (win->time_plot, NULL, others);
  }
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "Omega"), ==, -1.0);
  g_assert_cmpfloat (frame->t, >, 0.0);
  cml_frame_unref (frame);

  g_assert_true (cml_window_open_session (win, path, &error));
  g_assert_no_error (error);
  frame = synced_frame (win);
  g_assert_cmpfloat (frame_param (frame, "Omega"), ==, 3.0);
  g_assert_cmpfloat (frame->t, ==, 0.0);
  cml_frame_unref (frame);
  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, 3.0);
  g_assert_true (win->table_frame);
  wait_for (pending_view_applied, win, "pending_view_applied");
  shown = cml_plot_view_dup_y_names (win->time_plot);
  g_assert_cmpuint (g_strv_length (shown), ==, 1);
  g_assert_cmpstr (shown[0], ==, "x");

  /* replay: a reset starts from the session's initial state again */
  g_assert_nonnull (win->run_given);

  g_remove (path);
  g_rmdir (dir);
  window_free (win);
}

static void
test_session_forged (void)
{
  CmlWindow *win;
  CmlSystem *before;
  g_autofree char *dir = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  CmlFrame *frame;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  before = win->system;
  dir = g_dir_make_tmp ("cmlab-session-XXXXXX", NULL);
  path = g_build_filename (dir, "forged.cmlsession", NULL);

  /* a bad format line */
  g_assert_true (g_file_set_contents (path, "[session]\nformat=cmlab-session 99\nmodel=model x\n", -1, NULL));
  g_assert_false (cml_window_open_session (win, path, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "not a cmlab session"));
  g_clear_error (&error);
  g_assert_true (win->system == before);

  /* the right format line, a broken model */
  g_assert_true (g_file_set_contents (path, "[session]\nformat=cmlab-session 1\nmodel=this is not a model\n", -1, NULL));
  g_assert_false (cml_window_open_session (win, path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  /* not a key file at all, and a missing file */
  g_assert_true (g_file_set_contents (path, "\x01\x02 garbage", -1, NULL));
  g_assert_false (cml_window_open_session (win, path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (cml_window_open_session (win, "/nonexistent-dir/x.cmlsession", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  /* the window keeps its model and still runs */
  g_assert_true (win->system == before);
  gtk_widget_activate_action (GTK_WIDGET (win), "win.step", NULL);
  frame = synced_frame (win);
  g_assert_true (frame->system == before);
  g_assert_cmpfloat (frame->t, >, 0.0);
  cml_frame_unref (frame);

  g_remove (path);
  g_rmdir (dir);
  window_free (win);
}

static void
test_data_export (void)
{
  CmlWindow *win;
  g_autofree char *dir = NULL, *csv = NULL, *json = NULL, *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_rows, k = 0, rows = 0, n_hash = 0;
  guint n_obs;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  run_a_little (win);
  dir = g_dir_make_tmp ("cmlab-data-XXXXXX", NULL);
  csv = g_build_filename (dir, "run.csv", NULL);
  json = g_build_filename (dir, "run.json", NULL);

  n_rows = cml_plot_column_get_n (cml_plot_view_get_time_column (win->time_plot));
  n_obs = cml_system_n_observables (win->shown_system);
  g_assert_true (cml_window_export_data (win, csv, &error));
  g_assert_no_error (error);
  text = read_text (csv);
  lines = g_strsplit (text, "\n", -1);
  while (lines[k] && lines[k][0] == '#')
    k++, n_hash++;
  g_assert_cmpuint (n_hash, >=, 4);
  g_assert_true (g_str_has_prefix (lines[0], "# cmlab rolling-ball"));
  g_assert_nonnull (strstr (text, "# parameters:"));
  g_assert_nonnull (strstr (text, "# initial state (t = 0):"));
  g_assert_nonnull (lines[k]);
  g_assert_true (g_str_has_prefix (lines[k], "t,"));
  {
    g_auto (GStrv) header = g_strsplit (lines[k], ",", -1);
    g_assert_cmpuint (g_strv_length (header), ==, n_obs + 1);
  }
  for (k++; lines[k]; k++)
    if (lines[k][0])
      {
        g_auto (GStrv) cells = g_strsplit (lines[k], ",", -1);
        g_assert_cmpuint (g_strv_length (cells), ==, n_obs + 1);
        rows++;
      }
  g_assert_cmpuint (rows, ==, n_rows);

  g_assert_true (cml_window_export_data (win, json, &error));
  g_assert_no_error (error);
  {
    g_autofree char *j = read_text (json);
    g_assert_nonnull (strstr (j, "\"model\": \"rolling-ball\""));
    g_assert_nonnull (strstr (j, "\"rows\": ["));
  }

  g_assert_false (cml_window_export_data (win, "/nonexistent-dir/run.csv", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  g_remove (csv);
  g_remove (json);
  g_rmdir (dir);
  window_free (win);
}

/* A window going away lets go of its children first: GtkWindow's own dispose unparents
 * them after the window's, and what they emit on the way out (a drop-down's selection
 * cleared, say) must not reach a window whose widgets are half gone (the integrator's
 * choice has been reached that way, and checks for its choosers gone). */
static void
test_children_let_go (void)
{
  CmlWindow *win;
  GPtrArray *held = g_ptr_array_new_with_free_func (g_object_unref);

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));
  g_ptr_array_add (held, g_object_ref (win->integrator_dropdown));
  g_ptr_array_add (held, g_object_ref (win->tolerance_dropdown));
  g_ptr_array_add (held, g_object_ref (win->step_dropdown));
  g_ptr_array_add (held, g_object_ref (win->speed_dropdown));
  g_ptr_array_add (held, g_object_ref (win->parameter_panel));
  g_ptr_array_add (held, g_object_ref (win->timeline));
  g_ptr_array_add (held, g_object_ref (win->time_plot));
  g_ptr_array_add (held, g_object_ref (win->scene_view));
  for (guint i = 0; i < held->len; i++)
    g_assert_cmpuint (g_signal_handler_find (g_ptr_array_index (held, i), G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, win),
                      !=, 0);
  window_free (win);
  for (guint i = 0; i < held->len; i++)
    {
      GObject *child = g_ptr_array_index (held, i);

      if (g_signal_handler_find (child, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, win) != 0)
        g_error ("a %s still calls the window it belonged to", G_OBJECT_TYPE_NAME (child));
    }
  g_ptr_array_unref (held);
}

/* The equations page's account (the equations printed, the inspector's verdicts) is made
 * when the page is shown or read, not when a model loads: a 50-link pendulum's took 24 s
 * of the window's thread at load while the plots were on show. */
static void
test_equations_when_shown (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
  g_autoptr (CmlSystem) sys = NULL;
  GtkWidget *panel = g_object_ref_sink (cml_equations_panel_new ());
  GtkLabel *kind = GTK_LABEL (gtk_widget_get_template_child (panel, CML_TYPE_EQUATIONS_PANEL, "kind_label"));

  g_assert_no_error (error);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);

  /* not shown: nothing made yet */
  cml_equations_panel_set_system (CML_EQUATIONS_PANEL (panel), sys);
  g_assert_cmpstr (gtk_label_get_text (kind), ==, "");

  /* read: made then */
  {
    g_autofree char *text = cml_equations_panel_get_equations_text (CML_EQUATIONS_PANEL (panel));

    g_assert_nonnull (strstr (text, "Equations of motion"));
    g_assert_cmpstr (gtk_label_get_text (kind), !=, "");
  }
  cml_equations_panel_set_system (CML_EQUATIONS_PANEL (panel), NULL);
  g_assert_finalize_object (panel);
}

static gboolean
energy_judged_conserved (gpointer data)
{
  CmlWindow *win = data;
  const char *v = cml_equations_panel_get_verdict (win->equations_panel, "E_L");
  return v != NULL && g_strcmp0 (v, cml_conserved_verdict_to_string (CML_CONSERVED_NOT)) != 0;
}

/* the equations page judges the conserved quantities at the parameters the run has: the
 * rolling ball's energy changes on a turning table (Ω = 1), not on a still one (Ω = 0) */
static void
test_verdicts_follow_params (void)
{
  CmlWindow *win;
  g_autoptr (GError) error = NULL;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  cml_window_show_page (win, "equations");
  g_assert_cmpstr (cml_equations_panel_get_verdict (win->equations_panel, "E_L"), ==,
                   cml_conserved_verdict_to_string (CML_CONSERVED_NOT));
  g_assert_true (cml_parameter_panel_set_param (win->parameter_panel, "Omega", 0, &error));
  g_assert_no_error (error);
  if (!spin_until (energy_judged_conserved, win, WAIT_BOUND))
    g_error ("with Ω = 0 the equations page still says E_L is %s",
             cml_equations_panel_get_verdict (win->equations_panel, "E_L"));
  window_free (win);
}

/* ---- checks off the window's thread ------------------------------------------------------ */

/* The check that a model's own initial data start a run, and the trial run of a session's
 * parameters and initial data, are made on a worker: held there by the test's gate, the
 * window's frame clock goes on and the model shown stays; a trial whose result comes after
 * another model was chosen is dropped. */
static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

typedef struct
{
  CmlWindow  *win;
  const char *name;
} Shows;

static gboolean
shows_model (gpointer data)
{
  Shows *s = data;

  return cml_window_get_deriving (s->win) == NULL && s->win->system != NULL
         && g_str_equal (cml_system_get_model (s->win->system)->name, s->name);
}

static gboolean
no_checks (gpointer data)
{
  return ((CmlWindow *) data)->checks_running == 0;
}

/* How an open ended (cml_window_open_session_then). */
typedef struct
{
  gboolean told, installed;
  char    *message;
} Opened;

static void
on_opened (CmlWindow *win, gboolean installed, const GError *error, gpointer data)
{
  Opened *o = data;

  o->told = TRUE;
  o->installed = installed;
  o->message = error ? g_strdup (error->message) : NULL;
}

static gboolean
told (gpointer data)
{
  return ((Opened *) data)->told;
}

static void
assert_held_on_worker (const char *held)
{
  g_autofree char *where = NULL;

  wait_for (file_exists, (gpointer) held, "the check to reach the test's gate");
  g_assert_true (g_file_get_contents (held, &where, NULL, NULL));
  /* "window": the check ran on the window's thread, which stopped meanwhile */
  g_assert_cmpstr (where, ==, "worker");
}

static void
test_checks_off_thread (void)
{
  CmlWindow *win;
  g_autofree char *dir = NULL, *gate = NULL, *held = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  Shows martinet = { NULL, "martinet" }, ball = { NULL, "rolling-ball" };

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  martinet.win = ball.win = win;
  dir = g_dir_make_tmp ("cmlab-trial-XXXXXX", NULL);
  gate = g_build_filename (dir, "go", NULL);
  held = g_build_filename (dir, "go.held", NULL);
  path = g_build_filename (dir, "martinet.cmlsession", NULL);
  g_setenv ("CMLAB_TEST_TRIAL_GATE", gate, TRUE);
  g_setenv ("CMLAB_NO_DIALOGS", "1", TRUE); /* (the error of a forged session, below) */
  cml_window_play (win);

  /* a model: the check of its own initial data, held */
  cml_window_open_model (win, cml_model_picker_find (win->model_picker, "martinet"), NULL, NULL);
  assert_held_on_worker (held);
  wait_frames (GTK_WIDGET (win), 3);
  g_assert_cmpstr (cml_window_get_deriving (win), ==, "martinet");
  g_assert_cmpstr (cml_system_get_model (win->system)->name, ==, "rolling-ball");
  g_assert_true (g_file_set_contents (gate, "", 0, NULL));
  wait_for (shows_model, &martinet, "martinet shown once its check let through");

  /* a session of it: the trial run of its data, held */
  g_assert_true (cml_window_save_session (win, path, &error));
  g_assert_no_error (error);
  g_unlink (gate);
  g_unlink (held);
  cml_window_open_session_file (win, path);
  assert_held_on_worker (held);
  wait_frames (GTK_WIDGET (win), 3);
  g_assert_cmpstr (cml_window_get_deriving (win), ==, "martinet");
  g_assert_cmpuint (win->checks_running, ==, 1);

  /* another model chosen meanwhile: the trial's result, when it comes, is dropped */
  g_assert_true (cml_window_load (win, "rolling-ball", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (gate, "", 0, NULL));
  wait_for (no_checks, win, "the trial run to end");
  g_assert_true (shows_model (&ball));

  /* a session whose data cannot start a run: said as before, with the file's name, and the
   * model shown stays */
  {
    g_autofree char *text = read_text (path);
    g_autofree char *forged = g_strconcat (text, "\n[initial]\nzz=1\n", NULL);
    g_autofree char *bad = g_build_filename (dir, "forged.cmlsession", NULL);
    Opened o = { 0 };

    g_assert_true (g_file_set_contents (bad, forged, -1, NULL));
    g_assert_true (cml_window_open_session_then (win, bad, on_opened, &o, &error));
    g_assert_no_error (error);
    wait_for (told, &o, "the forged session's trial run to end");
    g_assert_false (o.installed);
    g_assert_nonnull (o.message);
    g_assert_true (g_str_has_prefix (o.message, bad));
    g_assert_nonnull (strstr (o.message, "“zz” is not an initial datum"));
    g_assert_true (shows_model (&ball));
    g_free (o.message);
    g_unlink (bad);
  }

  /* let through: the session opens */
  cml_window_open_session_file (win, path);
  wait_for (shows_model, &martinet, "the session's model shown once its trial run let through");
  g_assert_nonnull (win->run_given);

  g_unsetenv ("CMLAB_TEST_TRIAL_GATE");
  g_unsetenv ("CMLAB_NO_DIALOGS");
  window_free (win);
  g_unlink (gate);
  g_unlink (held);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/window/frame-stats", test_frame_stats);
  g_test_add_func ("/ui/window/frame-stats-recent", test_frame_stats_recent);
  g_test_add_func ("/ui/window/templates", test_templates);
  g_test_add_func ("/ui/window/equations-when-shown", test_equations_when_shown);
  g_test_add_func ("/ui/window/builtin-models", test_builtin_models);
  g_test_add_func ("/ui/window/param-live", test_param_live);
  g_test_add_func ("/ui/window/verdicts-follow-params", test_verdicts_follow_params);
  g_test_add_func ("/ui/window/run-cycle", test_run_cycle);
  g_test_add_func ("/ui/window/initial-conditions", test_initial_conditions);
  g_test_add_func ("/ui/window/open-files", test_open_files);
  g_test_add_func ("/ui/window/view-settings", test_view_settings);
  g_test_add_func ("/ui/window/integrator-step", test_integrator_step);
  g_test_add_func ("/ui/window/integrator-automatic", test_integrator_automatic);
  g_test_add_func ("/ui/window/scene-renders", test_scene_renders);
  g_test_add_func ("/ui/window/plot-export", test_plot_export);
  g_test_add_func ("/ui/window/session-roundtrip", test_session_roundtrip);
  g_test_add_func ("/ui/window/session-forged", test_session_forged);
  g_test_add_func ("/ui/window/data-export", test_data_export);
  g_test_add_func ("/ui/window/children-let-go", test_children_let_go);
  g_test_add_func ("/ui/window/param-impossible", test_param_impossible);
  g_test_add_func ("/ui/window/checks-off-thread", test_checks_off_thread);

  return g_test_run ();
}
