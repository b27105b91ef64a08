/* test-pen.c — the teacher's pen and the hall's pointer over the 3-D view and the plots
 * (cml-pen-layer.c, cml-window-pen.c): off, the layer takes no clicks; on, strokes are
 * kept where they were drawn over a plot when the split moves; the drawing is bounded,
 * wiped by "Clear" and by a lesson's next step; the pointer's ring shows only where the
 * pointer is and goes with presentation mode.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under a display; without one every test skips.  Waits are for states, bounded.
 */
#include <math.h>

#include "cml-parameter-panel-private.h"
#include "cml-pen-layer.h"
#include "cml-window-private.h"
#include "ui-util.h"

/* The centre of WIDGET in the pen layer's coordinates, and its size. */
static void
place_of (CmlWindow *win, GtkWidget *widget, double *x, double *y, double *w, double *h)
{
  graphene_rect_t r;

  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (win->pen_layer), &r));
  *x = r.origin.x + 0.5 * r.size.width;
  *y = r.origin.y + 0.5 * r.size.height;
  if (w)
    *w = r.size.width;
  if (h)
    *h = r.size.height;
}

/* What a click at (X, Y) of the layer would reach. */
static GtkWidget *
picked (CmlWindow *win, double x, double y)
{
  graphene_point_t p;

  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (win->pen_layer), GTK_WIDGET (win), &GRAPHENE_POINT_INIT (x, y), &p));
  return gtk_widget_pick (GTK_WIDGET (win), p.x, p.y, GTK_PICK_DEFAULT);
}

static gboolean
stack_still (gpointer data)
{
  return !gtk_stack_get_transition_running (GTK_STACK (data));
}

/* the pen's toggle; strokes over a plot stay over it when the split moves */
static void
test_strokes (void)
{
  CmlWindow *win;
  CmlPenLayer *layer;
  GtkWidget *plot, *hit;
  double x, y, w, h, px, py, x2, y2, w2, h2;
  int pos;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));
  layer = win->pen_layer;
  plot = GTK_WIDGET (win->time_plot);
  place_of (win, plot, &x, &y, &w, &h);

  /* off: a click reaches the plot, not the layer */
  g_assert_false (cml_pen_layer_get_pen (layer));
  hit = picked (win, x, y);
  g_assert_true (hit == plot || gtk_widget_is_ancestor (hit, plot));

  /* the header bar's toggle (its action) turns it on: now the layer takes the click */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "pen.draw", NULL));
  g_assert_true (cml_pen_layer_get_pen (layer));
  g_assert_true (picked (win, x, y) == GTK_WIDGET (layer));

  /* a stroke from the plot's centre a quarter of its width to the right */
  cml_pen_layer_begin_stroke (layer, x, y);
  for (int i = 1; i <= 10; i++)
    cml_pen_layer_extend_stroke (layer, x + i * 0.025 * w, y + i * 0.01 * h);
  cml_pen_layer_extend_stroke (layer, x + 0.25 * w + 0.5, y + 0.1 * h); /* closer than 1.5 px: not kept */
  cml_pen_layer_end_stroke (layer);
  g_assert_cmpuint (cml_pen_layer_get_n_strokes (layer), ==, 1);
  g_assert_cmpuint (cml_pen_layer_get_n_points (layer, 0), ==, 11);
  g_assert_true (cml_pen_layer_get_point (layer, 0, 0, &px, &py));
  g_assert_cmpfloat (fabs (px - x), <, 1e-3);
  g_assert_cmpfloat (fabs (py - y), <, 1e-3);

  /* the plots' column made narrower: the stroke still starts at the plot's centre, and
   * ends a quarter of its (new) width to the right */
  pos = gtk_paned_get_position (win->content_paned);
  gtk_paned_set_position (win->content_paned, pos + 120);
  wait_layout_settled (GTK_WIDGET (win));
  place_of (win, plot, &x2, &y2, &w2, &h2);
  g_assert_cmpfloat (fabs (w2 - w), >, 50);
  g_assert_true (cml_pen_layer_get_point (layer, 0, 0, &px, &py));
  g_assert_cmpfloat (fabs (px - x2), <, 1e-3 * w2);
  g_assert_cmpfloat (fabs (py - y2), <, 1e-3 * h2);
  g_assert_true (cml_pen_layer_get_point (layer, 0, 10, &px, &py));
  g_assert_cmpfloat (fabs (px - (x2 + 0.25 * w2)), <, 1e-3 * w2);
  g_assert_cmpfloat (fabs (py - (y2 + 0.1 * h2)), <, 1e-3 * h2);

  /* the Plots page hidden (the Equations shown): a stroke on a plot is not drawn */
  gtk_stack_set_visible_child_name (win->side_stack, "equations");
  wait_for (stack_still, win->side_stack, "the side column's cross-fade to end");
  wait_layout_settled (GTK_WIDGET (win));
  g_assert_false (cml_pen_layer_get_point (layer, 0, 0, &px, &py));
  gtk_stack_set_visible_child_name (win->side_stack, "plots");
  wait_for (stack_still, win->side_stack, "the side column's cross-fade to end");
  wait_layout_settled (GTK_WIDGET (win));
  g_assert_true (cml_pen_layer_get_point (layer, 0, 0, &px, &py));

  /* with the pen on, the page tabs still take their clicks: a teacher drawing can change
   * page */
  {
    GtkWidget *tab = gtk_widget_get_first_child (GTK_WIDGET (win->side_switcher));
    double tx, ty;

    g_assert_nonnull (tab);
    place_of (win, tab, &tx, &ty, NULL, NULL);
    hit = picked (win, tx, ty);
    g_test_message ("a click on the first page tab reaches a %s", hit ? G_OBJECT_TYPE_NAME (hit) : "(nothing)");
    g_assert_true (hit == tab || gtk_widget_is_ancestor (hit, tab));
  }

  /* "Clear drawing" wipes it; off again, the plot has its clicks back */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "pen.clear", NULL));
  g_assert_cmpuint (cml_pen_layer_get_n_strokes (layer), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "pen.draw", NULL));
  g_assert_false (cml_pen_layer_get_pen (layer));
  hit = picked (win, x2, y2);
  g_test_message ("a click at the plot's centre reaches a %s", hit ? G_OBJECT_TYPE_NAME (hit) : "(nothing)");
  g_assert_true (hit == plot || gtk_widget_is_ancestor (hit, plot));
  window_free (win);
}

/* at most CML_PEN_MAX_STROKES strokes of CML_PEN_MAX_POINTS points: the oldest go */
static void
test_bound (void)
{
  CmlWindow *win;
  CmlPenLayer *layer;
  double x, y, w, h, px, py;
  guint n;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));
  layer = win->pen_layer;
  cml_pen_layer_set_pen (layer, TRUE);
  place_of (win, GTK_WIDGET (win->scene_stack), &x, &y, &w, &h);

  /* a scribble longer than a stroke holds: it goes on as a second stroke, unbroken */
  cml_pen_layer_begin_stroke (layer, x, y);
  for (guint i = 1; i < CML_PEN_MAX_POINTS + 100; i++)
    cml_pen_layer_extend_stroke (layer, x + (i % 2) * 10, y + (i % 3) * 4);
  cml_pen_layer_end_stroke (layer);
  g_assert_cmpuint (cml_pen_layer_get_n_strokes (layer), ==, 2);
  g_assert_cmpuint (cml_pen_layer_get_n_points (layer, 0), ==, CML_PEN_MAX_POINTS);
  /* the second begins where the first ends */
  {
    double ex, ey;
    g_assert_true (cml_pen_layer_get_point (layer, 0, CML_PEN_MAX_POINTS - 1, &ex, &ey));
    g_assert_true (cml_pen_layer_get_point (layer, 1, 0, &px, &py));
    g_assert_cmpfloat (fabs (px - ex), <, 1e-3);
    g_assert_cmpfloat (fabs (py - ey), <, 1e-3);
  }

  /* many short strokes: the oldest are dropped, the newest kept */
  for (guint k = 0; k < CML_PEN_MAX_STROKES + 10; k++)
    {
      double sx = x - 0.4 * w + (k % 40) * 0.02 * w;

      cml_pen_layer_begin_stroke (layer, sx, y);
      cml_pen_layer_extend_stroke (layer, sx, y + 20);
      cml_pen_layer_end_stroke (layer);
    }
  n = cml_pen_layer_get_n_strokes (layer);
  g_assert_cmpuint (n, ==, CML_PEN_MAX_STROKES);
  g_assert_true (cml_pen_layer_get_point (layer, n - 1, 0, &px, &py));
  g_assert_cmpfloat (fabs (px - (x - 0.4 * w + ((CML_PEN_MAX_STROKES + 9) % 40) * 0.02 * w)), <, 1e-3 * w);
  for (guint k = 0; k < n; k++)
    g_assert_cmpuint (cml_pen_layer_get_n_points (layer, k), ==, 2);
  window_free (win);
}

/* the ring follows the pointer where it is, and goes away with presentation mode */
static void
test_pointer (void)
{
  CmlWindow *win;
  CmlPenLayer *layer;
  double x, y, px, py;
  GtkWidget *hit;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  cml_window_set_presentation (win, TRUE);
  wait_layout_settled (GTK_WIDGET (win));
  layer = win->pen_layer;
  place_of (win, GTK_WIDGET (win->scene_stack), &x, &y, NULL, NULL);

  g_assert_false (cml_pen_layer_get_pointer_shown (layer, NULL, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "pen.pointer", NULL));
  g_assert_true (cml_pen_layer_get_pointer (layer));
  /* not over the view (the pointer outside): nothing drawn */
  cml_pen_layer_move_pointer (layer, NAN, NAN);
  g_assert_false (cml_pen_layer_get_pointer_shown (layer, NULL, NULL));
  cml_pen_layer_move_pointer (layer, x, y);
  g_assert_true (cml_pen_layer_get_pointer_shown (layer, &px, &py));
  g_assert_cmpfloat (px, ==, x);
  g_assert_cmpfloat (py, ==, y);
  /* the ring takes no clicks: the 3-D view still does */
  hit = picked (win, x, y);
  g_assert_true (hit == GTK_WIDGET (win->scene_view) || gtk_widget_is_ancestor (hit, GTK_WIDGET (win->scene_view)));
  /* the pointer left */
  cml_pen_layer_move_pointer (layer, NAN, NAN);
  g_assert_false (cml_pen_layer_get_pointer_shown (layer, NULL, NULL));
  cml_pen_layer_move_pointer (layer, x, y);
  g_assert_true (cml_pen_layer_get_pointer_shown (layer, NULL, NULL));
  /* leaving presentation mode takes it away */
  cml_window_set_presentation (win, FALSE);
  g_assert_false (cml_pen_layer_get_pointer (layer));
  g_assert_false (cml_pen_layer_get_pointer_shown (layer, NULL, NULL));
  window_free (win);
}

typedef struct
{
  CmlWindow *win;
  guint      step;
} StepWait;

static gboolean
step_shown (gpointer data)
{
  StepWait *w = data;

  return cml_window_lesson_get_step (w->win, NULL) == w->step && cml_window_get_lesson_waiting (w->win) < 0;
}

/* a drawing belongs to the step it was made on: the next step wipes it */
static void
test_lesson_step (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "lessons", "turning-table.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  CmlWindow *win;
  CmlPenLayer *layer;
  StepWait sw;
  double x, y;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new (NULL);
  g_assert_true (cml_window_open_lesson (win, path, 1, &error));
  g_assert_no_error (error);
  sw = (StepWait) { win, 1 };
  wait_for (step_shown, &sw, "the lesson's first step");
  cml_window_set_presentation (win, TRUE);
  wait_layout_settled (GTK_WIDGET (win));
  layer = win->pen_layer;
  place_of (win, GTK_WIDGET (win->scene_stack), &x, &y, NULL, NULL);
  cml_pen_layer_set_pen (layer, TRUE);
  cml_pen_layer_begin_stroke (layer, x, y);
  cml_pen_layer_extend_stroke (layer, x + 30, y + 30);
  cml_pen_layer_end_stroke (layer);
  g_assert_cmpuint (cml_pen_layer_get_n_strokes (layer), ==, 1);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (win), "win.lesson-next", NULL));
  sw.step = 2;
  wait_for (step_shown, &sw, "the lesson's second step");
  g_assert_cmpuint (cml_pen_layer_get_n_strokes (layer), ==, 0);
  /* the pen stays in the teacher's hand */
  g_assert_true (cml_pen_layer_get_pen (layer));
  window_free (win);
}

/* A key as the window's pen keys get it (their capture-phase controller, before the
 * focused widget); whether they took it. */
static gboolean
pen_key (CmlWindow *win, guint keyval, GdkModifierType state)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (win));
  gboolean handled = FALSE;

  for (guint k = 0; k < g_list_model_get_n_items (controllers); k++)
    {
      g_autoptr (GtkEventController) c = g_list_model_get_item (controllers, k);

      if (g_strcmp0 (gtk_event_controller_get_name (c), "cml-pen-keys") == 0)
        {
          g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
          return handled;
        }
    }
  g_error ("the window has no pen keys");
}

static gboolean
focus_in_field (CmlWindow *win)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (win));

  return focus && GTK_IS_EDITABLE (focus);
}

/* While a value's field has the focus, P is the field's; Ctrl+Shift+P turns the pen on
 * (and takes the keys from the field) and off; Escape in a field puts the pen away and
 * leaves the field, and is the field's when the pen is away. */
static void
test_keys_in_field (void)
{
  CmlWindow *win;
  CmlPenLayer *layer;
  GtkWidget *spin;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));
  layer = win->pen_layer;
  spin = GTK_WIDGET (cml_parameter_panel_get_param_spin (win->parameter_panel, "m"));
  g_assert_nonnull (spin);

  g_assert_true (gtk_widget_grab_focus (spin));
  g_assert_true (focus_in_field (win));
  g_assert_false (pen_key (win, GDK_KEY_p, 0));
  g_assert_false (cml_pen_layer_get_pen (layer));

  g_assert_true (pen_key (win, GDK_KEY_P, GDK_CONTROL_MASK | GDK_SHIFT_MASK));
  g_assert_true (cml_pen_layer_get_pen (layer));
  g_assert_false (focus_in_field (win));
  /* the pen's keys are the window's again */
  g_assert_true (pen_key (win, GDK_KEY_c, 0));
  g_assert_true (pen_key (win, GDK_KEY_P, GDK_CONTROL_MASK | GDK_SHIFT_MASK));
  g_assert_false (cml_pen_layer_get_pen (layer));

  /* drawing, back in the field: Escape */
  cml_pen_layer_set_pen (layer, TRUE);
  g_assert_true (gtk_widget_grab_focus (spin));
  g_assert_true (focus_in_field (win));
  g_assert_true (pen_key (win, GDK_KEY_Escape, 0));
  g_assert_false (cml_pen_layer_get_pen (layer));
  g_assert_false (focus_in_field (win));
  /* the pen away, Escape is the field's */
  g_assert_true (gtk_widget_grab_focus (spin));
  g_assert_false (pen_key (win, GDK_KEY_Escape, 0));
  g_assert_true (focus_in_field (win));
  window_free (win);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ui_test_init ();

  g_test_add_func ("/ui/pen/strokes", test_strokes);
  g_test_add_func ("/ui/pen/bound", test_bound);
  g_test_add_func ("/ui/pen/pointer", test_pointer);
  g_test_add_func ("/ui/pen/lesson-step", test_lesson_step);
  g_test_add_func ("/ui/pen/keys-in-field", test_keys_in_field);

  return g_test_run ();
}
