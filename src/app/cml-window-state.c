/* cml-window-state.c — what the window shows, for an observer outside the process.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tests that drive the real window with keys and the pointer from outside
 * (tests/e2e) see the screen as pictures; what the window *means* they learn here.  When
 * the environment names a file in CMLAB_STATE_FILE, each SIGUSR1 makes the main loop
 * write it anew (whole, replaced atomically) as one JSON object:
 *
 *   serial        how many times it was written (a test waits for a larger one)
 *   model, state  the running system's name; "running", "paused" or "failed"
 *   deriving      the name of the model whose equations are being derived (on a worker)
 *                 for the window to switch to, or null
 *   compare       how the legends name the second run compared ("vakonomic", "copy", …), or
 *                 null; comparing: the reading whose equations are being derived for a
 *                 comparison ("vakonomic"), or null
 *   frames        the newest 120 frame intervals (ms): {"n", "median_ms", "p95_ms"}
 *   quit_after    the seconds of --quit-after once they count (the model given is shown
 *                 or has failed), else 0
 *   equations     the Equations page: "shown", "busy" (its equations and verdicts are
 *                 still being made on a worker), "first" the first equation of motion it
 *                 shows (null while none)
 *   t, speed      the simulated time shown, the speed chosen
 *   presentation, sidebar
 *   style         {"dark": the windows are dark now, "choice": the menu's "follow" (the
 *                 desktop's), "light" or "dark", "high_contrast": the desktop asks for it}
 *   window        [width, height] of the window; min_size its smallest [width, height];
 *                 surface_offset where the window's (0, 0) lies in its X window (the
 *                 shadow's width): every point below is in the window's coordinates
 *   controls      every shown menu button, drop-down, slider and value field with its
 *                 centre: {"kind", "name" (its builder id, or a field's parameter or
 *                 variable), "at": [x, y]} — what a person would click; a field also
 *                 its "text" and "text_whole" (false: the text is cut by the field's box)
 *   popups        every open popover: {"owner" (the builder id of the widget it belongs
 *                 to, e.g. "preset_dropdown", or null), "width", "height", "scrolls" (true:
 *                 part of its content must be scrolled to be seen)}
 *   min_widths    the smallest widths of the window's parts: header bar, side panel, 3-D
 *                 view, plots column, status line (what makes min_size what it is)
 *   outside       every shown widget that reaches past the widget holding it, or past the
 *                 window's edge ("GtkBox at (748, 68) 552×603 reaches past the window at
 *                 (0, 0) 1280×720"): none when nothing is cut off
 *   cut           every shown label whose text is cut short ("…"): {"text", "tooltip"
 *                 (true: it is marked as one a tooltip completes, a title)}
 *   popovers      how many popovers are open (the list of systems, a menu …)
 *   windows       how many windows the program shows (the main window, dialogs)
 *   focus         the focused widget's type, and its text when it is a text field
 *   body          [x, y] in the window of the centre of the body a drag would move, or null
 *   scene_body    [x, y] in the window of where the 3-D view draws the first moving body
 *                 (a sphere, point or disc of the model's scene), or null; scene_view the
 *                 3-D view's [x, y, width, height]
 *   time_plot, phase_plot   {"data": whether a curve is drawn, "samples": kept,
 *                 "zoomed": a wheel zoom holds the view, "note": the line about the other
 *                 run compared ("" none), "at": the middle of the drawing, or null}
 *   params        the parameters the run uses, by name
 *   panel_message what the side panel says about a value typed (a refused value's reason),
 *                 or null; panel_message_at its centre [x, y] (it stands under its field);
 *                 toast the passing note over the view, or null (it goes after 4 s: a
 *                 test reads toasts_shown, how many were shown since the window opened,
 *                 and last_toast, the newest one's text, which stay)
 *   text_px       the font sizes drawn, in pixels: the plots' tick labels, the 3-D view's
 *                 legend, the status line
 *   heap          the C library's allocator, in bytes (for the soak): in_use by the
 *                 program, free (kept but unused), mapped (large blocks of their own)
 *   section       the Poincaré section page: "shown", "status" (its line under the plot),
 *                 "running" orbits, "x_range" and "y_range" of its axes, "map" [x₀, y₀, x₁,
 *                 y₁]: where the data points (0, 0) and (1, 1) lie in the window (null when
 *                 not in view), "starts" [[x, y] …] where the orbits started, "orbits"
 *                 [{"n", "first": [x, y], "later_x": [lo, hi]} …] their crossings
 *   pen           the pen and the pointer (cml-window-pen.c): {"on": the pen draws, "pointer":
 *                 the ring is on, "pointer_at": [x, y] where it is drawn or null, "strokes"
 *                 kept, "points" in them all, "first": [x, y] the first stroke's first point
 *                 or null}
 *   lesson        null, or the lesson presented: "title", "step" shown (from 1; 0 until its
 *                 state is installed), "steps", "waiting" (the step being opened, from 1; 0
 *                 none), "caption", "prediction" "none", "asked", "answered" or "shown",
 *                 "value" the quantity at the prediction's time and "right" whether the
 *                 class was (null until shown), "hidden" the parameters shown as "?"
 *
 * A window whose main loop does not run writes nothing, so a test that waits for the
 * next serial also learns that the window still answers.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include "cml-style.h"

#include <glib-unix.h>

#include <malloc.h>
#include <signal.h>
#include <string.h>

#include "cml-frame-stats.h"
#include "cml-json.h"
#include "cml-parameter-panel-private.h"
#include "cml-runner.h"
#include "cml-section-view.h"

static guint64 serial;

static const char *
control_kind (GtkWidget *w)
{
  if (GTK_IS_MENU_BUTTON (w))
    return "menu";
  if (GTK_IS_DROP_DOWN (w))
    return "dropdown";
  if (GTK_IS_SCALE (w))
    return "slider";
  if (GTK_IS_SPIN_BUTTON (w) || GTK_IS_ENTRY (w))
    return "field";
  if (GTK_IS_CHECK_BUTTON (w))
    return "check";
  if (GTK_IS_BUTTON (w) || GTK_IS_TOGGLE_BUTTON (w))
    return "button";
  return NULL;
}

/* The shown controls a person would click, with their centres. */
/* NAME: the point (X, Y) of WIDGET in WINDOW's coordinates, or null when there is none
 * (not HAVE) or it cannot be placed. */
static void
write_point (CmlJson *json, const char *name, GtkWidget *widget, GtkWidget *window, gboolean have, double x, double y)
{
  graphene_point_t p;

  if (have && gtk_widget_compute_point (widget, window, &GRAPHENE_POINT_INIT (x, y), &p))
    {
      cml_json_begin_array (json, name, CML_JSON_LINE);
      cml_json_number (json, NULL, p.x);
      cml_json_number (json, NULL, p.y);
      cml_json_end (json);
    }
  else
    cml_json_null (json, name);
}

static void
collect_controls (GtkWidget *widget, GtkWidget *window, CmlJson *json)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      const char *kind = control_kind (c);
      graphene_rect_t r;

      if (GTK_IS_NATIVE (c) || !gtk_widget_get_mapped (c))
        continue;
      if (kind && gtk_widget_compute_bounds (c, window, &r))
        {
          const char *name = gtk_buildable_get_buildable_id (GTK_BUILDABLE (c));

          if (name == NULL && g_str_has_prefix (gtk_widget_get_name (c), "cml-field:"))
            name = gtk_widget_get_name (c) + strlen ("cml-field:");
          if (name == NULL && GTK_IS_BUTTON (c) && gtk_button_get_label (GTK_BUTTON (c)))
            name = gtk_button_get_label (GTK_BUTTON (c));
          if (name == NULL)
            name = gtk_widget_get_tooltip_text (c);
          cml_json_begin_object (json, NULL, CML_JSON_LINE);
          cml_json_string (json, "kind", kind);
          cml_json_string (json, "name", name);
          if (GTK_IS_EDITABLE (c))
            {
              /* whether the text is shown whole: its width against its box's */
              GtkEditable *delegate = gtk_editable_get_delegate (GTK_EDITABLE (c));
              GtkWidget *box = delegate ? GTK_WIDGET (delegate) : c;
              g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (box, gtk_editable_get_text (GTK_EDITABLE (c)));
              int text_width;

              pango_layout_get_pixel_size (layout, &text_width, NULL);
              cml_json_string (json, "text", gtk_editable_get_text (GTK_EDITABLE (c)));
              cml_json_bool (json, "text_whole", text_width <= gtk_widget_get_width (box));
            }
          cml_json_begin_array (json, "at", CML_JSON_LINE);
          cml_json_number (json, NULL, r.origin.x + 0.5 * r.size.width);
          cml_json_number (json, NULL, r.origin.y + 0.5 * r.size.height);
          cml_json_end (json);
          cml_json_end (json);
          if (!GTK_IS_SCALE (c))
            continue;
        }
      collect_controls (c, window, json);
    }
}

/* Whether something shown in WIDGET must be scrolled to be seen whole (a list in a popover
 * taller than the room it was given). */
static gboolean
must_scroll (GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget))
    return FALSE;
  if (GTK_IS_SCROLLED_WINDOW (widget))
    {
      GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (widget));

      if (gtk_adjustment_get_upper (v) - gtk_adjustment_get_lower (v) > gtk_adjustment_get_page_size (v) + 1)
        return TRUE;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (must_scroll (c))
      return TRUE;
  return FALSE;
}

/* Every open popover's size and whether its content must scroll. */
static void
collect_popups (GtkWidget *widget, CmlJson *json)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      if (GTK_IS_POPOVER (c) && gtk_widget_get_mapped (c))
        {
          cml_json_begin_object (json, NULL, CML_JSON_LINE);
          cml_json_string (json, "owner", gtk_buildable_get_buildable_id (GTK_BUILDABLE (widget)));
          cml_json_int (json, "width", gtk_widget_get_width (c));
          cml_json_int (json, "height", gtk_widget_get_height (c));
          cml_json_bool (json, "scrolls", must_scroll (c));
          cml_json_end (json);
        }
      collect_popups (c, json);
    }
}

/* Every shown label under WIDGET whose text is cut short. */
static void
collect_cut (GtkWidget *widget, CmlJson *json)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      if (GTK_IS_POPOVER (c) || !gtk_widget_get_mapped (c))
        continue;
      if (GTK_IS_LABEL (c) && gtk_label_get_ellipsize (GTK_LABEL (c)) != PANGO_ELLIPSIZE_NONE
          && *gtk_label_get_text (GTK_LABEL (c)) && pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (c))))
        {
          cml_json_begin_object (json, NULL, CML_JSON_LINE);
          cml_json_string (json, "text", gtk_label_get_text (GTK_LABEL (c)));
          cml_json_bool (json, "tooltip", gtk_widget_has_css_class (c, "may-ellipsize"));
          cml_json_end (json);
        }
      collect_cut (c, json);
    }
}

/* Every shown widget that reaches past the widget that holds it (so past the window, for
 * the outermost): it is cut off, or drawn over its neighbours.  AREA is WIDGET's rectangle
 * in the window's coordinates; JSON NULL: only count the open popovers. */
static void
collect (GtkWidget *widget, const graphene_rect_t *area, GtkWidget *window, CmlJson *json,
         guint *n_popovers)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      graphene_rect_t r;

      if (GTK_IS_POPOVER (c))
        {
          if (gtk_widget_get_mapped (c))
            (*n_popovers)++;
          collect (c, area, window, NULL, n_popovers);
          continue;
        }
      if (!gtk_widget_get_mapped (c) || !gtk_widget_compute_bounds (c, window, &r))
        continue;
      if (json && (r.origin.x < area->origin.x - 1 || r.origin.y < area->origin.y - 1
                   || r.origin.x + r.size.width > area->origin.x + area->size.width + 1
                   || r.origin.y + r.size.height > area->origin.y + area->size.height + 1))
        {
          /* the outermost widget cut off names the place; what it holds is cut off too */
          g_autofree char *text = g_strdup_printf ("%s at (%.0f, %.0f) %.0f×%.0f reaches past %s at (%.0f, %.0f) %.0f×%.0f",
                                                   G_OBJECT_TYPE_NAME (c), r.origin.x, r.origin.y, r.size.width, r.size.height,
                                                   widget == window ? "the window" : G_OBJECT_TYPE_NAME (widget),
                                                   area->origin.x, area->origin.y, area->size.width, area->size.height);
          cml_json_string (json, NULL, text);
          collect (c, &r, window, NULL, n_popovers);
          continue;
        }
      /* what scrolls inside a scrolled window may lie past its edges, and a slider's knob
       * past its trough */
      collect (c, &r, window, GTK_IS_SCROLLED_WINDOW (c) || GTK_IS_VIEWPORT (c) || GTK_IS_RANGE (c) ? NULL : json,
               n_popovers);
    }
}

static void
write_plot (CmlJson *json, const char *key, CmlPlotView *plot, GtkWidget *window)
{
  /* the drawing is the view's last child: where its middle is, for the pointer */
  GtkWidget *area = gtk_widget_get_last_child (GTK_WIDGET (plot));
  graphene_rect_t r;

  cml_json_begin_object (json, key, CML_JSON_LINE);
  cml_json_bool (json, "data", cml_plot_view_shows_data (plot));
  cml_json_int (json, "samples", cml_plot_view_get_n_samples (plot));
  cml_json_bool (json, "zoomed", cml_plot_view_get_zoomed (plot));
  cml_json_string (json, "note", cml_plot_view_get_ghost_note (plot));
  if (area && gtk_widget_get_mapped (area) && gtk_widget_compute_bounds (area, window, &r))
    {
      cml_json_begin_array (json, "at", CML_JSON_LINE);
      cml_json_number (json, NULL, r.origin.x + 0.5 * r.size.width);
      cml_json_number (json, NULL, r.origin.y + 0.5 * r.size.height);
      cml_json_end (json);
    }
  else
    cml_json_null (json, "at");
  cml_json_end (json);
}

static void
write_section (CmlJson *json, CmlWindow *self)
{
  CmlSectionView *sv = self->section_view;
  double xr[2], yr[2], p0[2], p1[2], x, y;

  cml_json_begin_object (json, "section", CML_JSON_BLOCK);
  cml_json_bool (json, "shown", gtk_widget_get_mapped (GTK_WIDGET (sv)));
  cml_json_string (json, "status", cml_section_view_get_status (sv));
  cml_json_int (json, "running", cml_section_view_get_n_running (sv));
  cml_section_view_get_ranges (sv, xr, yr);
  cml_json_begin_array (json, "x_range", CML_JSON_LINE);
  cml_json_number (json, NULL, xr[0]);
  cml_json_number (json, NULL, xr[1]);
  cml_json_end (json);
  cml_json_begin_array (json, "y_range", CML_JSON_LINE);
  cml_json_number (json, NULL, yr[0]);
  cml_json_number (json, NULL, yr[1]);
  cml_json_end (json);
  /* two points of the plot area: the map is affine */
  double ax = 0.5 * (xr[0] + xr[1]), ay = 0.5 * (yr[0] + yr[1]), bx = ax + 0.1 * (xr[1] - xr[0]),
         by = ay + 0.1 * (yr[1] - yr[0]);
  if (gtk_widget_get_mapped (GTK_WIDGET (sv))
      && cml_section_view_point_at (sv, ax, ay, GTK_WIDGET (self), &p0[0], &p0[1])
      && cml_section_view_point_at (sv, bx, by, GTK_WIDGET (self), &p1[0], &p1[1]))
    {
      double sx = (p1[0] - p0[0]) / (bx - ax), sy = (p1[1] - p0[1]) / (by - ay);
      cml_json_begin_array (json, "map", CML_JSON_LINE);
      cml_json_number (json, NULL, p0[0] - sx * ax);
      cml_json_number (json, NULL, p0[1] - sy * ay);
      cml_json_number (json, NULL, p0[0] + sx * (1 - ax));
      cml_json_number (json, NULL, p0[1] + sy * (1 - ay));
      cml_json_end (json);
    }
  else
    cml_json_null (json, "map");
  cml_json_begin_array (json, "starts", CML_JSON_LINE);
  for (guint k = 0; cml_section_view_get_start (sv, k, &x, &y); k++)
    {
      cml_json_begin_array (json, NULL, CML_JSON_LINE);
      cml_json_number (json, NULL, x);
      cml_json_number (json, NULL, y);
      cml_json_end (json);
    }
  cml_json_end (json);
  cml_json_begin_array (json, "orbits", CML_JSON_BLOCK);
  for (guint k = 0; k < cml_section_view_get_n_orbits (sv); k++)
    {
      guint n = 0;
      const double *xy = cml_section_view_get_crossings (sv, k, &n);
      double lo = INFINITY, hi = -INFINITY;
      for (guint i = 1; xy && i < n; i++)
        lo = MIN (lo, xy[2 * i]), hi = MAX (hi, xy[2 * i]);
      cml_json_begin_object (json, NULL, CML_JSON_LINE);
      cml_json_int (json, "n", n);
      if (xy && n > 0)
        {
          cml_json_begin_array (json, "first", CML_JSON_LINE);
          cml_json_number (json, NULL, xy[0]);
          cml_json_number (json, NULL, xy[1]);
          cml_json_end (json);
        }
      else
        cml_json_null (json, "first");
      if (n > 1)
        {
          cml_json_begin_array (json, "later_x", CML_JSON_LINE);
          cml_json_number (json, NULL, lo);
          cml_json_number (json, NULL, hi);
          cml_json_end (json);
        }
      else
        cml_json_null (json, "later_x");
      cml_json_end (json);
    }
  cml_json_end (json);
  cml_json_end (json);
}

static void
write_pen (CmlJson *json, CmlWindow *self)
{
  CmlPenLayer *layer = self->pen_layer;
  guint n = cml_pen_layer_get_n_strokes (layer), points = 0;
  double x, y;
  gboolean have;

  for (guint k = 0; k < n; k++)
    points += cml_pen_layer_get_n_points (layer, k);
  cml_json_begin_object (json, "pen", CML_JSON_LINE);
  cml_json_bool (json, "on", cml_pen_layer_get_pen (layer));
  cml_json_bool (json, "pointer", cml_pen_layer_get_pointer (layer));
  have = cml_pen_layer_get_pointer_shown (layer, &x, &y);
  write_point (json, "pointer_at", GTK_WIDGET (layer), GTK_WIDGET (self), have, x, y);
  cml_json_int (json, "strokes", n);
  cml_json_int (json, "points", points);
  have = cml_pen_layer_get_point (layer, 0, 0, &x, &y);
  write_point (json, "first", GTK_WIDGET (layer), GTK_WIDGET (self), have, x, y);
  cml_json_end (json);
}

static char *
describe (CmlWindow *self)
{
  GtkWidget *window = GTK_WIDGET (self);
  int ww = gtk_widget_get_width (window), wh = gtk_widget_get_height (window);
  int min_w = 0, min_h = 0;
  guint n_popovers = 0, n_windows = 0;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  g_autoptr (GString) out = g_string_new (NULL);
  CmlJson *json = cml_json_new_string (out);
  CmlFrame *frame = self->runner ? cml_runner_get_frame (self->runner) : NULL;
  double bx, by, sx, sy;

  gtk_widget_measure (window, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL, NULL);
  gtk_widget_measure (window, GTK_ORIENTATION_VERTICAL, MAX (ww, min_w), &min_h, NULL, NULL, NULL);
  GListModel *toplevels = gtk_window_get_toplevels (); /* not ours */
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);
      n_windows += gtk_widget_get_mapped (w);
    }

  cml_json_set_digits (json, 10);
  cml_json_begin_object (json, NULL, CML_JSON_BLOCK);
  cml_json_int (json, "serial", (gint64) ++serial);
  cml_json_string (json, "model", self->system ? cml_system_get_model (self->system)->name : NULL);
  cml_json_string (json, "deriving", cml_window_get_deriving (self));
  cml_json_number (json, "quit_after", self->quit_after);
  cml_json_begin_object (json, "frames", CML_JSON_LINE);
  cml_json_int (json, "n", cml_frame_stats_get_n_frames (self->recent_frames));
  cml_json_number (json, "median_ms", cml_frame_stats_get_interval_quantile (self->recent_frames, 0.5));
  cml_json_number (json, "p95_ms", cml_frame_stats_get_interval_quantile (self->recent_frames, 0.95));
  cml_json_end (json);
  cml_json_string (json, "compare", self->ghost_label);
  cml_json_string (json, "comparing", self->compare_pending ? "vakonomic" : NULL);
  {
    g_autofree char *first = cml_equations_panel_get_first_equation (self->equations_panel);

    cml_json_begin_object (json, "equations", CML_JSON_LINE);
    cml_json_bool (json, "shown", g_strcmp0 (gtk_stack_get_visible_child_name (self->side_stack), "equations") == 0);
    cml_json_bool (json, "busy", cml_equations_panel_is_busy (self->equations_panel));
    cml_json_string (json, "first", first);
    cml_json_end (json);
  }
  cml_json_string (json, "state", frame == NULL ? NULL
                                  : frame->state == CML_RUNNER_RUNNING ? "running"
                                  : frame->state == CML_RUNNER_FAILED  ? "failed"
                                                                       : "paused");
  cml_json_number (json, "t", frame ? frame->t : NAN);
  cml_json_number (json, "speed", cml_window_speeds[self->speed_index]);
  cml_json_bool (json, "presentation", self->presentation);
  cml_json_bool (json, "sidebar", self->sidebar_visible);
  cml_json_begin_object (json, "style", CML_JSON_LINE);
  cml_json_bool (json, "dark", cml_style_is_dark ());
  cml_json_string (json, "choice", cml_style_get_choice ());
  cml_json_bool (json, "high_contrast", cml_style_is_high_contrast ());
  cml_json_end (json);
  cml_json_begin_array (json, "window", CML_JSON_LINE);
  cml_json_int (json, NULL, ww);
  cml_json_int (json, NULL, wh);
  cml_json_end (json);
  cml_json_begin_array (json, "min_size", CML_JSON_LINE);
  cml_json_int (json, NULL, min_w);
  cml_json_int (json, NULL, min_h);
  cml_json_end (json);
  gtk_native_get_surface_transform (GTK_NATIVE (self), &sx, &sy);
  cml_json_begin_array (json, "surface_offset", CML_JSON_LINE);
  cml_json_number (json, NULL, sx);
  cml_json_number (json, NULL, sy);
  cml_json_end (json);
  cml_json_begin_array (json, "controls", CML_JSON_BLOCK);
  collect_controls (window, window, json);
  cml_json_end (json);
  cml_json_begin_object (json, "min_widths", CML_JSON_LINE);
  {
    struct { const char *name; GtkWidget *w; } parts[] = {
      { "header_bar", GTK_WIDGET (self->header_bar) },
      { "side_panel", GTK_WIDGET (self->parameter_panel) },
      { "view", GTK_WIDGET (self->scene_stack) },
      { "plots", gtk_paned_get_end_child (self->content_paned) },
      { "status_line", gtk_widget_get_parent (GTK_WIDGET (self->time_label)) },
    };
    for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
      {
        int m = 0;
        if (parts[i].w && gtk_widget_get_visible (parts[i].w))
          gtk_widget_measure (parts[i].w, GTK_ORIENTATION_HORIZONTAL, -1, &m, NULL, NULL, NULL);
        cml_json_int (json, parts[i].name, m);
      }
  }
  cml_json_end (json);
  cml_json_begin_array (json, "outside", CML_JSON_BLOCK);
  collect (window, &GRAPHENE_RECT_INIT (0, 0, ww, wh), window, json, &n_popovers);
  cml_json_end (json);
  cml_json_begin_array (json, "cut", CML_JSON_BLOCK);
  collect_cut (window, json);
  cml_json_end (json);
  cml_json_int (json, "popovers", n_popovers);
  cml_json_begin_array (json, "popups", CML_JSON_BLOCK);
  collect_popups (window, json);
  cml_json_end (json);
  cml_json_int (json, "windows", n_windows);
  cml_json_begin_object (json, "focus", CML_JSON_LINE);
  cml_json_string (json, "type", focus ? G_OBJECT_TYPE_NAME (focus) : NULL);
  cml_json_string (json, "text", focus && GTK_IS_EDITABLE (focus) ? gtk_editable_get_text (GTK_EDITABLE (focus)) : NULL);
  cml_json_end (json);
  /* (each point asked for before it is passed: arguments have no order of evaluation) */
  gboolean have = cml_scene_view_get_body_point (self->scene_view, &bx, &by);
  write_point (json, "body", GTK_WIDGET (self->scene_view), window, have, bx, by);
  /* where the 3-D view shows the moving body, and the view's rectangle */
  have = cml_scene_view_get_moving_point (self->scene_view, &bx, &by);
  write_point (json, "scene_body", GTK_WIDGET (self->scene_view), window, have, bx, by);
  {
    graphene_rect_t view;
    if (gtk_widget_compute_bounds (GTK_WIDGET (self->scene_view), window, &view))
      {
        cml_json_begin_array (json, "scene_view", CML_JSON_LINE);
        cml_json_number (json, NULL, view.origin.x);
        cml_json_number (json, NULL, view.origin.y);
        cml_json_number (json, NULL, view.size.width);
        cml_json_number (json, NULL, view.size.height);
        cml_json_end (json);
      }
    else
      cml_json_null (json, "scene_view");
  }
  write_plot (json, "time_plot", self->time_plot, window);
  write_plot (json, "phase_plot", self->phase_plot, window);
  cml_json_string (json, "panel_message", cml_parameter_panel_get_input_error (self->parameter_panel));
  {
    /* where the message shows (its centre), to tell it stands by its field */
    GtkWidget *message = cml_parameter_panel_get_input_error_widget (self->parameter_panel);
    graphene_rect_t r;

    if (message && gtk_widget_get_mapped (message) && gtk_widget_compute_bounds (message, GTK_WIDGET (self), &r))
      {
        cml_json_begin_array (json, "panel_message_at", CML_JSON_LINE);
        cml_json_number (json, NULL, r.origin.x + 0.5 * r.size.width);
        cml_json_number (json, NULL, r.origin.y + 0.5 * r.size.height);
        cml_json_end (json);
      }
    else
      cml_json_null (json, "panel_message_at");
  }
  cml_json_string (json, "toast", cml_window_get_toast (self));
  cml_json_number (json, "toasts_shown", self->n_toasts);
  cml_json_string (json, "last_toast", self->last_toast);
  cml_json_begin_object (json, "text_px", CML_JSON_LINE);
  cml_json_number (json, "plots", cml_plot_view_get_font (self->time_plot));
  cml_json_number (json, "legend", cml_scene_view_get_legend_font (self->scene_view));
  {
    PangoFontDescription *font = pango_context_get_font_description (gtk_widget_get_pango_context (GTK_WIDGET (self->time_label)));
    double size = font ? pango_font_description_get_size (font) / (double) PANGO_SCALE : 0;
    /* points at 96 dots per inch, unless the size is already in pixels */
    cml_json_number (json, "status", font && pango_font_description_get_size_is_absolute (font) ? size : size * 96.0 / 72.0);
  }
  cml_json_end (json);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  {
    struct mallinfo2 mi = mallinfo2 ();
    cml_json_begin_object (json, "heap", CML_JSON_LINE);
    cml_json_int (json, "in_use", (gint64) (mi.uordblks + mi.hblkhd));
    cml_json_int (json, "free", (gint64) mi.fordblks);
    cml_json_int (json, "mapped", (gint64) mi.hblkhd);
    cml_json_end (json);
  }
#endif
  write_section (json, self);
  write_pen (json, self);
  cml_window_lesson_describe (self, json);
  cml_json_begin_object (json, "params", CML_JSON_LINE);
  if (frame && self->system && frame->system == self->system)
    {
      CmlModel *model = cml_system_get_model (self->system);

      for (guint i = 0; i < model->params->len && i < frame->n_params; i++)
        cml_json_number (json, ((CmlParam *) model->params->pdata[i])->name, frame->params[i]);
    }
  cml_json_end (json);
  cml_json_end (json);
  cml_json_free (json);
  g_clear_pointer (&frame, cml_frame_unref);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
on_signal (gpointer user_data)
{
  GtkApplication *app = user_data;
  const char *path = g_getenv ("CMLAB_STATE_FILE");
  GtkWindow *active = gtk_application_get_active_window (app);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  if (active == NULL || !CML_IS_WINDOW (active) || path == NULL || *path == '\0')
    return G_SOURCE_CONTINUE;
  text = describe (CML_WINDOW (active));
  if (!g_file_set_contents (path, text, -1, &error))
    g_warning ("CMLAB_STATE_FILE: %s", error->message);
  return G_SOURCE_CONTINUE;
}

void
cml_window_state_watch (GtkApplication *app)
{
  /* installed always: a stray SIGUSR1 is ignored rather than ending the program */
  g_unix_signal_add (SIGUSR1, on_signal, app);
}
