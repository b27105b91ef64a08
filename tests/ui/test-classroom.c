/* test-classroom.c — the window in front of a class: it fits, input cannot wreck a
 * running demonstration, and errors and confirmations are shown in the window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout: at 1280×720 and 1920×1080, in the normal layout and in presentation mode, every
 * widget shown lies inside the window, no label that must be read is cut short with an
 * ellipsis, and the side panel holds a model's parameters, presets and initial state
 * without scrolling.  Input: the wheel over an unfocused slider scrolls the panel; a
 * typed value that is not a number or is out of range is refused with a reason and the
 * old value kept; parameter changes and restarts undo and redo.  Errors: a model that
 * cannot be loaded takes the view's place; a diverging run is explained in plain words;
 * saving says so; a screenshot has the window's size.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cml-parameter-panel-private.h"
#include "cml-run-failure.h"
#include "ui-util.h"

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct
{
  CmlWindow *win;
  int        w, h;
} SizeWait;

static gboolean
has_size (gpointer data)
{
  SizeWait *s = data;

  return gtk_widget_get_width (GTK_WIDGET (s->win)) == s->w && gtk_widget_get_height (GTK_WIDGET (s->win)) == s->h
         && s->win->layout_done;
}

/* The window is no longer W×H: it took another size. */
static gboolean
size_changed (gpointer data)
{
  SizeWait *s = data;

  return gtk_widget_get_width (GTK_WIDGET (s->win)) != s->w || gtk_widget_get_height (GTK_WIDGET (s->win)) != s->h;
}

/* The view's place shows the error of a file that did not load. */
static gboolean
error_shown (gpointer data)
{
  CmlWindow *win = data;

  return g_strcmp0 (gtk_stack_get_visible_child_name (win->scene_stack), "error") == 0;
}

/* The run went to t = 0.5 at least. */
static gboolean
ran_a_while (gpointer data)
{
  CmlFrame *f = cml_runner_get_frame (cml_window_get_runner (data));
  gboolean ran = f->t >= 0.5;

  cml_frame_unref (f);
  return ran;
}

/* TRUE if the screen can hold a W×H window (tools/run-tests gives Xvfb 2000×1200). */
static gboolean
screen_holds (int w, int h)
{
  GListModel *monitors = gdk_display_get_monitors (gdk_display_get_default ());
  g_autoptr (GdkMonitor) monitor = g_list_model_get_item (monitors, 0);
  GdkRectangle geo = { 0 };

  if (monitor)
    gdk_monitor_get_geometry (monitor, &geo);
  return geo.width >= w && geo.height >= h;
}

/* A window with MODEL at exactly W×H, laid out and running. */
static CmlWindow *
sized_window (const char *model, int w, int h)
{
  CmlWindow *win = cml_window_new (NULL);
  g_autoptr (GError) error = NULL;
  SizeWait s = { win, w, h };

  g_object_ref (win);
  cml_window_set_fixed_size (win, w, h);
  gtk_window_present (GTK_WINDOW (win));
  if (model)
    {
      g_assert_true (cml_window_load (win, model, &error));
      g_assert_no_error (error);
    }
  if (!spin_until (has_size, &s, WAIT_BOUND))
    g_error ("the window did not take the size %d×%d (it is %d×%d)", w, h,
             gtk_widget_get_width (GTK_WIDGET (win)), gtk_widget_get_height (GTK_WIDGET (win)));
  wait_layout_settled (GTK_WIDGET (win));
  return win;
}

static const char *
describe (GtkWidget *w, char *buf, gsize size)
{
  const char *text = GTK_IS_LABEL (w) ? gtk_label_get_text (GTK_LABEL (w))
                     : GTK_IS_BUTTON (w) ? gtk_button_get_label (GTK_BUTTON (w)) : NULL;

  g_snprintf (buf, size, "%s%s%s%s", G_OBJECT_TYPE_NAME (w), text ? " “" : "", text ? text : "", text ? "”" : "");
  return buf;
}

/* Every mapped widget under W lies inside the window (1 px of rounding allowed), unless it
 * is inside a scrolled window (then the scrolled window must be inside); no mapped label
 * is ellipsized unless marked "may-ellipsize" (a title with a tooltip). */
static void
check_tree (GtkWidget *root, GtkWidget *w, gboolean scrolled, GString *problems)
{
  int rw = gtk_widget_get_width (root), rh = gtk_widget_get_height (root);
  char buf[256];

  if (!gtk_widget_get_mapped (w))
    return;
  if (!scrolled && w != root && gtk_widget_get_width (w) > 0 && gtk_widget_get_height (w) > 0)
    {
      graphene_rect_t b;

      if (gtk_widget_compute_bounds (w, root, &b)
          && (b.origin.x < -1 || b.origin.y < -1 || b.origin.x + b.size.width > rw + 1
              || b.origin.y + b.size.height > rh + 1))
        g_string_append_printf (problems, "  %s at (%.0f, %.0f) %.0f×%.0f is not inside the %d×%d window\n",
                                describe (w, buf, sizeof buf), b.origin.x, b.origin.y, b.size.width,
                                b.size.height, rw, rh);
    }
  if (GTK_IS_LABEL (w) && gtk_label_get_ellipsize (GTK_LABEL (w)) != PANGO_ELLIPSIZE_NONE
      && !gtk_widget_has_css_class (w, "may-ellipsize")
      && *gtk_label_get_text (GTK_LABEL (w))
      && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (w))))
    g_string_append_printf (problems, "  %s is cut short (ellipsized)\n", describe (w, buf, sizeof buf));
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    check_tree (root, c, scrolled || GTK_IS_SCROLLED_WINDOW (w), problems);
}

static void
assert_fits (CmlWindow *win, const char *what)
{
  g_autoptr (GString) problems = g_string_new (NULL);

  check_tree (GTK_WIDGET (win), GTK_WIDGET (win), FALSE, problems);
  if (problems->len)
    g_error ("%s:\n%s", what, problems->str);
}

/* The side panel shows its whole content: no scrolling needed. */
static void
assert_panel_whole (CmlWindow *win, const char *what)
{
  /* the panel: a box of the scrolled body, then the fixed footer */
  GtkWidget *outer = gtk_widget_get_first_child (GTK_WIDGET (win->parameter_panel));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_first_child (outer));

  g_assert_nonnull (scroller);
  {
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);

    if (gtk_adjustment_get_upper (adj) > gtk_adjustment_get_page_size (adj) + 1)
      g_error ("%s: the side panel needs scrolling (%.0f px of content in %.0f px)", what,
               gtk_adjustment_get_upper (adj), gtk_adjustment_get_page_size (adj));
  }
}

/* ---- layout --------------------------------------------------------------------------------- */

typedef struct
{
  const char *model;
  int         w, h;
} LayoutCase;

typedef struct
{
  CmlWindow *win;
  int        scene_w;   /* the view's width in the normal layout */
  int        position;  /* the split in the normal layout (-1: any) */
  gboolean   presentation;
} Settled;

/* The layout has settled in or out of presentation mode: the split made anew (a frame or
 * two after the sizes change; on a busy machine many), the view wider in presentation
 * mode, the split as it was after. */
static gboolean
layout_settled (gpointer data)
{
  Settled *s = data;
  CmlWindow *win = s->win;

  if (!win->layout_done || gtk_widget_get_visible (GTK_WIDGET (win->parameter_panel)) == s->presentation)
    return FALSE;
  if (s->presentation)
    return gtk_widget_get_width (GTK_WIDGET (win->scene_view)) > s->scene_w + 100;
  return gtk_paned_get_position (win->content_paned) == s->position;
}

static void
test_layout (gconstpointer data)
{
  const LayoutCase *c = data;
  CmlWindow *win;
  g_autofree char *what = NULL;

  SKIP_WITHOUT_DISPLAY ();
  if (!screen_holds (c->w, c->h))
    {
      g_test_skip ("the screen is smaller than the window (run under xvfb-run -s '-screen 0 2000x1200x24')");
      return;
    }

  win = sized_window (c->model, c->w, c->h);
  what = g_strdup_printf ("%s at %d×%d", c->model, c->w, c->h);
  assert_fits (win, what);
  assert_panel_whole (win, what);

  /* presentation mode: the side panel folds away, the view gets more room, it still fits */
  {
    int scene_w = gtk_widget_get_width (GTK_WIDGET (win->scene_view));
    int pos = gtk_paned_get_position (win->content_paned);
    g_autofree char *pres = g_strdup_printf ("%s, presentation mode", what);

    Settled settled = { win, scene_w, pos, TRUE };

    g_object_set (win, "presentation", TRUE, NULL);
    wait_for (layout_settled, &settled, "presentation mode's layout");
    wait_layout_settled (GTK_WIDGET (win));
    g_assert_false (gtk_widget_get_visible (GTK_WIDGET (win->parameter_panel)));
    g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (win->scene_view)), >, scene_w + 100);
    assert_fits (win, pres);

    /* and back: the panel and the split as they were */
    g_object_set (win, "presentation", FALSE, NULL);
    settled.presentation = FALSE;
    wait_for (layout_settled, &settled, "the layout back from presentation mode");
    wait_layout_settled (GTK_WIDGET (win));
    g_assert_true (gtk_widget_get_visible (GTK_WIDGET (win->parameter_panel)));
    g_assert_cmpint (gtk_paned_get_position (win->content_paned), ==, pos);
    assert_fits (win, what);
  }
  window_free (win);
}

/* The panel's content fits for every built-in, and dark and presentation together too. */
static void
test_layout_every_model (void)
{
  CmlWindow *win;
  g_auto (GStrv) names = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  names = cml_model_picker_list_builtin (win->model_picker);
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *what = g_strdup_printf ("%s at 1280×720", names[i]);

      g_assert_true (pick_model (win, names[i]));
      wait_layout_settled (GTK_WIDGET (win));
      assert_fits (win, what);
      assert_panel_whole (win, what);
    }
  /* the equations beside the view, for every model too */
  cml_window_show_page (win, "equations");
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *what = g_strdup_printf ("%s's equations at 1280×720", names[i]);

      g_assert_true (pick_model (win, names[i]));
      wait_layout_settled (GTK_WIDGET (win));
      assert_fits (win, what);
    }
  /* and the Poincaré section page */
  cml_window_show_page (win, "section");
  for (guint i = 0; names[i]; i++)
    {
      g_autofree char *what = g_strdup_printf ("%s's section page at 1280×720", names[i]);

      g_assert_true (pick_model (win, names[i]));
      wait_layout_settled (GTK_WIDGET (win));
      assert_fits (win, what);
    }
  /* presentation mode lays the window out again over a few frames: wait for that (on a
   * busy machine a fixed time is not enough), then look */
  SizeWait laid_out = { win, 1280, 720 };
  g_object_set (win, "presentation", TRUE, NULL);
  wait_for (has_size, &laid_out, "presentation mode's layout at 1280×720");
  wait_layout_settled (GTK_WIDGET (win));
  assert_fits (win, "the section page in presentation mode at 1280×720");
  g_object_set (win, "presentation", FALSE, NULL);
  cml_window_show_page (win, "plots");
  g_object_set (win, "presentation", TRUE, "dark", TRUE, NULL);
  wait_for (has_size, &laid_out, "presentation mode's layout at 1280×720, dark");
  wait_layout_settled (GTK_WIDGET (win));
  assert_fits (win, "presentation and dark at 1280×720");
  g_object_set (win, "presentation", FALSE, "dark", FALSE, NULL);
  window_free (win);
}

/* A page change is a cross-fade in which both pages are drawn: the layout has settled only
 * when it has ended (a long fade here, so that three frames come well within it). */
static void
test_settled_after_page_change (void)
{
  CmlWindow *win;
  GtkWidget *section;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  cml_window_show_page (win, "section");
  wait_layout_settled (GTK_WIDGET (win));
  section = gtk_stack_get_child_by_name (win->side_stack, "section");
  g_assert_true (gtk_widget_get_mapped (section));
  gtk_stack_set_transition_duration (win->side_stack, 3000);
  cml_window_show_page (win, "plots");
  wait_layout_settled (GTK_WIDGET (win));
  g_assert_false (gtk_stack_get_transition_running (win->side_stack));
  g_assert_false (gtk_widget_get_mapped (section));
  window_free (win);
}

/* ---- input ---------------------------------------------------------------------------------- */

static void
test_wheel_scrolls_panel (void)
{
  CmlWindow *win;
  GtkRange *omega;
  GtkSpinButton *spin;
  double before;

  SKIP_WITHOUT_DISPLAY ();

  /* a short window, so the panel has something to scroll */
  win = sized_window ("rolling-ball", 1280, 480);
  omega = cml_parameter_panel_get_param_scale (win->parameter_panel, "Omega");
  spin = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  before = gtk_range_get_value (omega);

  /* the focus is on the run controls, not in the panel */
  g_assert_false (gtk_widget_get_state_flags (GTK_WIDGET (omega)) & GTK_STATE_FLAG_FOCUS_WITHIN);
  g_assert_true (cml_parameter_panel_wheel_over (win->parameter_panel, GTK_WIDGET (omega), 3, TRUE));
  g_assert_true (cml_parameter_panel_wheel_over (win->parameter_panel, GTK_WIDGET (spin), 3, TRUE));
  g_assert_cmpfloat (gtk_range_get_value (omega), ==, before);
  g_assert_cmpfloat (gtk_spin_button_get_value (spin), ==, before);

  /* the wheel's controller is there, in the capture phase, on both controls */
  for (int k = 0; k < 2; k++)
    {
      GtkWidget *w = k ? GTK_WIDGET (spin) : GTK_WIDGET (omega);
      g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (w);
      gboolean found = FALSE;

      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr (GtkEventController) ec = g_list_model_get_item (controllers, i);

          if (GTK_IS_EVENT_CONTROLLER_SCROLL (ec) && gtk_event_controller_get_propagation_phase (ec) == GTK_PHASE_CAPTURE)
            found = TRUE;
        }
      g_assert_true (found);
    }

  /* a control the teacher has focused takes the wheel */
  gtk_widget_grab_focus (GTK_WIDGET (omega));
  g_assert_false (cml_parameter_panel_wheel_over (win->parameter_panel, GTK_WIDGET (omega), 3, TRUE));
  window_free (win);
}

/* The message under the fields hides itself after a while, or at once when a good value
 * follows; then its timer goes too — it once stayed, and hid the message of a panel that
 * was gone by then (a critical, or the message of the next window's panel). */
static void
test_input_message_timer (void)
{
  CmlWindow *win;
  GtkSpinButton *r;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  r = cml_parameter_panel_get_param_spin (win->parameter_panel, "r");
  gtk_editable_set_text (GTK_EDITABLE (r), "abc");
  gtk_spin_button_update (r);
  g_assert_nonnull (cml_parameter_panel_get_input_error (win->parameter_panel));
  gtk_editable_set_text (GTK_EDITABLE (r), "2");
  gtk_spin_button_update (r);
  g_assert_null (cml_parameter_panel_get_input_error (win->parameter_panel));
  window_free (win);
  /* nothing of the panel that is gone may run later, nor touch the next window's panel:
   * a next window goes through frames of its own */
  win = sized_window ("rolling-ball", 1280, 720);
  wait_frames (GTK_WIDGET (win), 30);
  g_assert_null (cml_parameter_panel_get_input_error (win->parameter_panel));
  window_free (win);
}

static void
test_typed_values (void)
{
  CmlWindow *win;
  GtkSpinButton *r;
  const char *why;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  r = cml_parameter_panel_get_param_spin (win->parameter_panel, "r");

  gtk_editable_set_text (GTK_EDITABLE (r), "abc");
  gtk_spin_button_update (r);
  g_assert_cmpfloat (gtk_spin_button_get_value (r), ==, 1.0);
  why = cml_parameter_panel_get_input_error (win->parameter_panel);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "“abc” is not a number"));

  gtk_editable_set_text (GTK_EDITABLE (r), "1000");
  gtk_spin_button_update (r);
  g_assert_cmpfloat (gtk_spin_button_get_value (r), ==, 1.0);
  why = cml_parameter_panel_get_input_error (win->parameter_panel);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "r must be between 0.05 and 10 m"));

  /* a good value is taken (a decimal comma too) and the message goes */
  gtk_editable_set_text (GTK_EDITABLE (r), "1,5");
  gtk_spin_button_update (r);
  g_assert_cmpfloat (gtk_spin_button_get_value (r), ==, 1.5);
  g_assert_null (cml_parameter_panel_get_input_error (win->parameter_panel));

  /* an initial value too */
  {
    GtkSpinButton *v = cml_parameter_panel_get_initial_spin (win->parameter_panel, "v");

    gtk_editable_set_text (GTK_EDITABLE (v), "fast");
    gtk_spin_button_update (v);
    g_assert_cmpfloat (gtk_spin_button_get_value (v), ==, 0.5);
    g_assert_nonnull (cml_parameter_panel_get_input_error (win->parameter_panel));
  }
  window_free (win);
}

static void
test_undo_redo (void)
{
  CmlWindow *win;
  GtkSpinButton *omega, *v;
  GtkAdjustment *adj;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  omega = cml_parameter_panel_get_param_spin (win->parameter_panel, "Omega");
  v = cml_parameter_panel_get_initial_spin (win->parameter_panel, "v");
  adj = gtk_spin_button_get_adjustment (omega);

  g_assert_false (cml_parameter_panel_undo (win->parameter_panel));  /* nothing yet */

  /* a drag: many values of one slider in a second are one step */
  for (int i = 1; i <= 5; i++)
    gtk_adjustment_set_value (adj, 1.0 + 0.2 * i);
  g_assert_cmpfloat (gtk_spin_button_get_value (omega), ==, 2.0);

  /* a restart from other initial data is another */
  gtk_spin_button_set_value (v, 0.8);
  cml_parameter_panel_apply_initial (win->parameter_panel);
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (cml_parameter_panel_get_given (win->parameter_panel), "v"), ==, 0.8);

  /* undo the restart: back to the model's v = 0.5 */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.undo", NULL));
  g_assert_cmpfloat (gtk_spin_button_get_value (v), ==, 0.5);
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (cml_parameter_panel_get_given (win->parameter_panel), "v"), ==, 0.5);
  g_assert_cmpfloat (gtk_spin_button_get_value (omega), ==, 2.0);

  /* undo the drag: Omega back to 1 in one step */
  g_assert_true (cml_parameter_panel_undo (win->parameter_panel));
  g_assert_cmpfloat (gtk_spin_button_get_value (omega), ==, 1.0);
  g_assert_false (cml_parameter_panel_undo (win->parameter_panel));

  /* and redo both */
  g_assert_true (cml_parameter_panel_redo (win->parameter_panel));
  g_assert_cmpfloat (gtk_spin_button_get_value (omega), ==, 2.0);
  g_assert_true (cml_parameter_panel_redo (win->parameter_panel));
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (cml_parameter_panel_get_given (win->parameter_panel), "v"), ==, 0.8);
  g_assert_false (cml_parameter_panel_redo (win->parameter_panel));
  window_free (win);
}

/* ---- errors and confirmations ----------------------------------------------------------------- */

static void
test_load_error_in_window (void)
{
  CmlWindow *win;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-classroom-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.cml", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (bad);

  SKIP_WITHOUT_DISPLAY ();

  g_assert_true (g_file_set_contents (bad, "[model]\nname = bad\ntitle = Bad\n\n[algebroid]\nbase = x\nfibre = u\n"
                                           "\n[dynamics]\nlagrangian = u^2/2 - k*x^2\n", -1, NULL));
  win = sized_window (NULL, 1280, 720);
  cml_window_open_file (win, file);
  wait_for (error_shown, win, "the view to show the file's error");
  /* no model in its place: the error where the view was, with the file and the line */
  g_assert_null (win->system);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (win->scene_stack), ==, "error");
  g_assert_nonnull (strstr (gtk_label_get_text (win->error_detail), "bad.cml:10:"));
  g_assert_nonnull (strstr (gtk_label_get_text (win->error_detail), "unknown name"));
  g_assert_true (gtk_widget_get_visible (win->error_retry_button));
  assert_fits (win, "the load error at 1280×720");

  /* a good model replaces the error */
  {
    g_autoptr (GError) error = NULL;

    g_assert_true (cml_window_load (win, "martinet", &error));
    g_assert_cmpstr (gtk_stack_get_visible_child_name (win->scene_stack), ==, "scene");
  }
  window_free (win);
  g_unlink (bad);
  g_rmdir (dir);
}

static void
test_failure_in_plain_words (void)
{
  static const struct
  {
    const char *message, *summary;
  } cases[] = {
    { "step size underflow at t = 0.382512 (step 1e-16 < h_min 1e-14)", "Stopped at t = 0.382512 s: the motion runs away" },
    { "non-finite state at t = 0.68", "Stopped at t = 0.68 s: the state became infinite" },
    { "the regularity matrix C became singular at t = 3.5", "Stopped at t = 3.5 s: the equations cannot be solved here" },
    { "right-hand side failed at t = 2", "Stopped at t = 2 s: the equations could not be evaluated" },
    { "something else", "Stopped: the run failed" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CmlRunFailure) f = cml_run_failure_explain (cases[i].message, "s");

      g_assert_cmpstr (f->summary, ==, cases[i].summary);
      g_assert_null (strstr (f->summary, "h_min"));
      g_assert_null (strstr (f->explanation, "h_min"));
      g_assert_cmpuint (strlen (f->explanation), >, 80);
    }
}

static gboolean
run_failed (gpointer data)
{
  CmlWindow *win = data;

  return gtk_widget_get_visible (GTK_WIDGET (win->failure_box));
}

static void
test_divergence_in_window (void)
{
  CmlWindow *win;
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "blowup.cml", NULL);

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window (model, 1280, 720);
  cml_window_play (win);
  wait_for (run_failed, win, "run_failed");
  g_assert_true (g_str_has_prefix (gtk_label_get_text (win->failure_label), "Stopped at t = 0.38"));
  g_assert_nonnull (strstr (gtk_label_get_text (win->failure_technical), "step size underflow"));
  g_assert_cmpuint (strlen (gtk_label_get_text (win->failure_explanation)), >, 80);
  assert_fits (win, "a stopped run at 1280×720");
  window_free (win);
}

/* The status bar says the run cannot keep up (its note, with the speed reached; in any
 * language: test-classroom-es runs the layout tests in Spanish). */
static gboolean
slow_note_shown (gpointer data)
{
  CmlWindow *win = data;

  return win->effective_speed > 0 && gtk_widget_get_mapped (GTK_WIDGET (win->message_label))
         && strstr (gtk_label_get_text (win->message_label), "×100") != NULL;
}

/* A run that cannot keep up says so in words that fit the status bar of a 1024×768
 * projector in presentation mode's large type, whole (not cut with an ellipsis); the
 * advice is in the tooltip.  The fifty-link pendulum of the benchmark at the fastest speed
 * the menu offers (×100): this machine computes it at about ×0.5, so it lags on any
 * machine there is. */
static void
test_slow_note_fits (void)
{
  CmlWindow *win;
  Settled settled;
  const char *tip;
  g_autofree char *model = NULL;

  SKIP_WITHOUT_DISPLAY ();
  if (!screen_holds (1024, 768))
    {
      g_test_skip ("the screen is smaller than 1024×768");
      return;
    }
  model = g_test_build_filename (G_TEST_DIST, "..", "bench", "models", "pendulum", "pendulum-50-scene.cml", NULL);
  win = sized_window (model, 1024, 768);
  settled = (Settled) { win, gtk_widget_get_width (GTK_WIDGET (win->scene_view)), -1, TRUE };
  g_object_set (win, "presentation", TRUE, NULL);
  wait_for (layout_settled, &settled, "presentation mode's layout");
  gtk_drop_down_set_selected (win->speed_dropdown, CML_N_SPEEDS - 1);
  g_assert_cmpfloat (cml_window_speeds[CML_N_SPEEDS - 1], ==, 100);
  cml_window_play (win);
  wait_for (slow_note_shown, win, "the note that the run cannot keep up");
  wait_layout_settled (GTK_WIDGET (win));
  if (pango_layout_is_ellipsized (gtk_label_get_layout (win->message_label)))
    g_error ("the note “%s” is cut short in a %d px label", gtk_label_get_text (win->message_label),
             gtk_widget_get_width (GTK_WIDGET (win->message_label)));
  assert_fits (win, "rolling-ball at 1024×768, presentation mode, a run that cannot keep up");
  tip = gtk_widget_get_tooltip_text (GTK_WIDGET (win->message_label));
  g_assert_cmpuint (strlen (tip), >, strlen (gtk_label_get_text (win->message_label)) + 40);
  window_free (win);
}

static void
test_toast_on_save (void)
{
  CmlWindow *win;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-classroom-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "demo.cmlsession", NULL);
  g_autoptr (GError) error = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("rolling-ball", 1280, 720);
  g_assert_null (cml_window_get_toast (win));
  g_assert_true (cml_window_save_session (win, path, &error));
  g_assert_no_error (error);
  g_assert_nonnull (cml_window_get_toast (win));
  g_assert_nonnull (strstr (cml_window_get_toast (win), "demo.cmlsession"));
  window_free (win);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_screenshot (void)
{
  CmlWindow *win;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-classroom-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "shot.png", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GFile) file = NULL;

  SKIP_WITHOUT_DISPLAY ();

  win = sized_window ("plate-ball", 1280, 720);
  cml_window_play (win);
  wait_for (ran_a_while, win, "the run to reach t = 0.5");
  wait_frames (GTK_WIDGET (win), 3);
  g_assert_true (cml_window_save_screenshot (win, path, &error));
  g_assert_no_error (error);
  file = g_file_new_for_path (path);
  texture = gdk_texture_new_from_file (file, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 1280);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, 720);
  window_free (win);
  g_unlink (path);
  g_rmdir (dir);
}

/* The size is remembered (GSettings, in memory here) and used by the next window. */
static void
test_remembers_size (void)
{
  CmlWindow *win;
  int w = 0, h = 0;

  SKIP_WITHOUT_DISPLAY ();

  win = window_new ("rolling-ball");
  if (win->settings == NULL)
    {
      window_free (win);
      g_test_skip ("no settings schema (GSETTINGS_SCHEMA_DIR)");
      return;
    }
  /* the window shown at its first size (the answer to its first configure in), then told
   * another, which it takes */
  wait_layout_settled (GTK_WIDGET (win));
  SizeWait first = { win, gtk_widget_get_width (GTK_WIDGET (win)), gtk_widget_get_height (GTK_WIDGET (win)) };
  gtk_window_set_default_size (GTK_WINDOW (win), 1111, 666);
  wait_for (size_changed, &first, "the window to take the size 1111×666");
  wait_layout_settled (GTK_WIDGET (win));
  /* closing remembers */
  g_assert_false (GTK_WINDOW_GET_CLASS (win)->close_request (GTK_WINDOW (win)));
  g_assert_cmpint (g_settings_get_int (win->settings, "window-width"), ==, 1111);
  window_free (win);

  win = window_new ("rolling-ball");
  gtk_window_get_default_size (GTK_WINDOW (win), &w, &h);
  g_assert_cmpint (w, ==, 1111);
  g_assert_cmpint (h, ==, 666);
  g_settings_reset (win->settings, "window-width");
  g_settings_reset (win->settings, "window-height");
  window_free (win);
}

/* The first widget of TYPE under W (W too) that is aligned to the bottom. */
static GtkWidget *
find_at_bottom (GtkWidget *w, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_widget_get_valign (w) == GTK_ALIGN_END)
    return w;
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_at_bottom (c, type);

      if (found)
        return found;
    }
  return NULL;
}

/* At 1024×768 (a 4:3 projector), in the normal layout and in presentation mode, the
 * scene's legend takes at most a quarter of the view's height (or what is below a square
 * of its width, in a view taller than wide) — smaller type in a short
 * view, not below what a hall reads (2.5 % of the window's height in presentation mode),
 * or else folded into a button that shows it — so the body keeps the view; shown, it lies
 * whole inside the view. */
static void
test_legend_short_view (void)
{
  const char *models[] = { "rolling-ball", "plate-ball" };

  SKIP_WITHOUT_DISPLAY ();
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    for (int presentation = 0; presentation <= 1; presentation++)
      {
        CmlWindow *win = sized_window (models[m], 1024, 768);
        SizeWait laid_out = { win, 1024, 768 };
        GtkWidget *view = GTK_WIDGET (win->scene_view), *legend, *button;
        graphene_rect_t r;
        int vh;

        g_object_set (win, "presentation", (gboolean) presentation, NULL);
        wait_for (has_size, &laid_out, "the layout at 1024×768");
        wait_layout_settled (GTK_WIDGET (win));
        legend = find_at_bottom (view, GTK_TYPE_DRAWING_AREA);
        button = find_at_bottom (view, GTK_TYPE_TOGGLE_BUTTON);
        g_assert_nonnull (legend);
        g_assert_nonnull (button);
        vh = gtk_widget_get_height (view);
        if (gtk_widget_get_mapped (button))
          {
            /* folded: the button alone, then the legend on demand */
            g_assert_false (gtk_widget_get_mapped (legend));
            g_assert_true (gtk_widget_compute_bounds (button, view, &r));
            g_assert_cmpfloat (r.size.height, <=, 0.25 * vh);
            g_test_message ("%s%s: the legend folded into a button %g × %g px", models[m],
                            presentation ? " in presentation mode" : "", r.size.width, r.size.height);
            gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);
            wait_layout_settled (GTK_WIDGET (win));
            g_assert_true (gtk_widget_get_mapped (legend));
            g_assert_true (gtk_widget_compute_bounds (legend, view, &r));
            g_assert_cmpfloat (r.origin.y, >=, -1);
          }
        else
          {
            g_assert_true (gtk_widget_get_mapped (legend));
            g_assert_true (gtk_widget_compute_bounds (legend, view, &r));
            g_test_message ("%s%s: the legend %g × %g px (%d × %d at full size) of a view %d × %d", models[m],
                            presentation ? " in presentation mode" : "", r.size.width, r.size.height,
                            gtk_drawing_area_get_content_width (GTK_DRAWING_AREA (legend)),
                            gtk_drawing_area_get_content_height (GTK_DRAWING_AREA (legend)),
                            gtk_widget_get_width (view), vh);
            /* a view taller than wide may also give it what is below a square of its width */
            g_assert_cmpfloat (r.size.height, <=, MAX (0.25 * vh, vh - gtk_widget_get_width (view) - 8) + 1);
          }
        g_assert_cmpfloat (r.origin.y + r.size.height, <=, vh + 1);
        g_assert_cmpfloat (r.origin.x + r.size.width, <=, gtk_widget_get_width (view) + 1);
        window_free (win);
      }
}

/* On a large screen in presentation mode the legend is shown whole, not folded into its
 * button: the hall reads the arrows and colours from it (up to 35 % of a view 700 pixels
 * tall or more), in type at least 2.5 % of the window's height. */
static void
test_legend_presentation_large (void)
{
  CmlWindow *win;
  Settled settled;
  GtkWidget *view, *legend, *button;
  graphene_rect_t r;
  int vh;

  SKIP_WITHOUT_DISPLAY ();
  if (!screen_holds (1920, 1080))
    {
      g_test_skip ("the screen is smaller than 1920×1080");
      return;
    }
  win = sized_window ("rolling-ball", 1920, 1080);
  view = GTK_WIDGET (win->scene_view);
  settled = (Settled) { win, gtk_widget_get_width (view), -1, TRUE };
  g_object_set (win, "presentation", TRUE, NULL);
  wait_for (layout_settled, &settled, "presentation mode's layout");
  wait_layout_settled (GTK_WIDGET (win));
  legend = find_at_bottom (view, GTK_TYPE_DRAWING_AREA);
  button = find_at_bottom (view, GTK_TYPE_TOGGLE_BUTTON);
  vh = gtk_widget_get_height (view);
  g_assert_cmpint (vh, >=, 700);
  g_assert_false (button && gtk_widget_get_mapped (button));
  g_assert_true (gtk_widget_get_mapped (legend));
  g_assert_true (gtk_widget_compute_bounds (legend, view, &r));
  g_test_message ("the legend %g × %g px in a view %d × %d", r.size.width, r.size.height, gtk_widget_get_width (view), vh);
  g_assert_cmpfloat (r.size.height, <=, 0.35 * vh + 1);
  g_assert_cmpfloat (cml_scene_view_get_legend_font (win->scene_view), >=, 0.025 * 1080 - 0.01);
  window_free (win);
}

int
main (int argc, char *argv[])
{
  static const LayoutCase layouts[] = {
    { "rolling-ball", 1280, 720 },
    { "plate-ball", 1280, 720 },
    { "capri-kobayashi", 1280, 720 },
    { "rolling-ball", 1920, 1080 },
    { "martinet", 1920, 1080 },
  };

  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ui/classroom/layout/%s-%dx%d", layouts[i].model,
                                               layouts[i].w, layouts[i].h);
      g_test_add_data_func (path, &layouts[i], test_layout);
    }
  g_test_add_func ("/ui/classroom/layout/every-model", test_layout_every_model);
  g_test_add_func ("/ui/classroom/layout/settled-after-page-change", test_settled_after_page_change);
  g_test_add_func ("/ui/classroom/layout/slow-note-1024x768", test_slow_note_fits);
  g_test_add_func ("/ui/classroom/layout/legend-short-view", test_legend_short_view);
  g_test_add_func ("/ui/classroom/layout/legend-presentation-large", test_legend_presentation_large);
  g_test_add_func ("/ui/classroom/input/wheel-scrolls-panel", test_wheel_scrolls_panel);
  g_test_add_func ("/ui/classroom/input/typed-values", test_typed_values);
  g_test_add_func ("/ui/classroom/input/message-timer", test_input_message_timer);
  g_test_add_func ("/ui/classroom/input/undo-redo", test_undo_redo);
  g_test_add_func ("/ui/classroom/errors/load-error-in-window", test_load_error_in_window);
  g_test_add_func ("/ui/classroom/errors/failure-in-plain-words", test_failure_in_plain_words);
  g_test_add_func ("/ui/classroom/errors/divergence-in-window", test_divergence_in_window);
  g_test_add_func ("/ui/classroom/errors/toast-on-save", test_toast_on_save);
  g_test_add_func ("/ui/classroom/window/screenshot", test_screenshot);
  g_test_add_func ("/ui/classroom/window/remembers-size", test_remembers_size);
  return g_test_run ();
}
