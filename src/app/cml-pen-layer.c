/* cml-pen-layer.c — a transparent layer over the 3-D view and the plots: the teacher's
 * pen and a pointer a hall can follow.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A stroke is the points of one drag.  Each belongs to the view it was begun over (a
 * "target") and keeps its points as fractions of that view's size: drawn, a point is
 *
 *   x = bounds.x + fx · bounds.width,   y = bounds.y + fy · bounds.height
 *
 * with the view's bounds as they are now, so a resized window or a moved split leaves a
 * circle around the ball around the ball.  Points closer than a pixel and a half to the
 * one before are not kept; memory is bounded (cml-pen-layer.h).
 *
 * The layer takes no clicks unless the pen is on: off, everything under it works as if
 * it were not there; on, the buttons under it (the page tabs, the view's corner buttons)
 * still take theirs.  The pointer's ring is moved by a motion controller on the widget
 * the layer covers, which sees the pointer whoever takes the clicks.
 */
#define G_LOG_DOMAIN "cml-pen-layer"

#include "cml-pen-layer.h"

#include <math.h>

#define MAX_TARGETS 8
#define NO_TARGET   G_MAXUINT /* the stroke belongs to the layer itself */

typedef struct
{
  guint   target;  /* index in targets, or NO_TARGET */
  GArray *points;  /* float pairs: fractions of the target's width and height */
} Stroke;

struct _CmlPenLayer
{
  GtkWidget  parent_instance;

  GWeakRef   targets[MAX_TARGETS];
  guint      n_targets;
  GPtrArray *strokes;        /* Stroke*, the oldest first */
  gboolean   drawing;        /* a stroke is being drawn: the last one */
  double     start_x, start_y;
  gboolean   pen;
  gboolean   pointer;
  double     pointer_x, pointer_y; /* NAN: outside */
};

enum
{
  PROP_0,
  PROP_PEN,
  PROP_POINTER,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (CmlPenLayer, cml_pen_layer, GTK_TYPE_WIDGET)

static void
stroke_free (gpointer data)
{
  Stroke *s = data;

  g_array_unref (s->points);
  g_free (s);
}

/* The rectangle, in the layer, that stroke points of TARGET are fractions of; FALSE when
 * that view is gone or not shown. */
static gboolean
target_bounds (CmlPenLayer *self, guint target, graphene_rect_t *r)
{
  g_autoptr (GtkWidget) w = NULL;

  if (target == NO_TARGET)
    {
      graphene_rect_init (r, 0, 0, gtk_widget_get_width (GTK_WIDGET (self)), gtk_widget_get_height (GTK_WIDGET (self)));
      return r->size.width > 0 && r->size.height > 0;
    }
  w = g_weak_ref_get (&self->targets[target]);
  if (w == NULL || !gtk_widget_get_mapped (w) || !gtk_widget_compute_bounds (w, GTK_WIDGET (self), r))
    return FALSE;
  return r->size.width > 0 && r->size.height > 0;
}

static guint
target_at (CmlPenLayer *self, double x, double y)
{
  graphene_rect_t r;

  for (guint i = 0; i < self->n_targets; i++)
    if (target_bounds (self, i, &r) && graphene_rect_contains_point (&r, &GRAPHENE_POINT_INIT (x, y)))
      return i;
  return NO_TARGET;
}

static gboolean
point_at (CmlPenLayer *self, const Stroke *s, guint i, const graphene_rect_t *r, double *x, double *y)
{
  const float *p;

  if (i >= s->points->len / 2)
    return FALSE;
  p = &g_array_index (s->points, float, 2 * i);
  *x = r->origin.x + p[0] * r->size.width;
  *y = r->origin.y + p[1] * r->size.height;
  return TRUE;
}

static void
add_point (CmlPenLayer *self, Stroke *s, double x, double y)
{
  graphene_rect_t r;
  float p[2];

  if (!target_bounds (self, s->target, &r))
    return;
  p[0] = (float) ((x - r.origin.x) / r.size.width);
  p[1] = (float) ((y - r.origin.y) / r.size.height);
  g_array_append_vals (s->points, p, 2);
}

static Stroke *
new_stroke (CmlPenLayer *self, guint target)
{
  Stroke *s = g_new0 (Stroke, 1);

  s->target = target;
  s->points = g_array_sized_new (FALSE, FALSE, sizeof (float), 64);
  if (self->strokes->len >= CML_PEN_MAX_STROKES)
    g_ptr_array_remove_index (self->strokes, 0);
  g_ptr_array_add (self->strokes, s);
  return s;
}

void
cml_pen_layer_begin_stroke (CmlPenLayer *self, double x, double y)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  add_point (self, new_stroke (self, target_at (self, x, y)), x, y);
  self->drawing = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cml_pen_layer_extend_stroke (CmlPenLayer *self, double x, double y)
{
  Stroke *s;
  graphene_rect_t r;
  double lx = 0, ly = 0;

  g_return_if_fail (CML_IS_PEN_LAYER (self));
  if (!self->drawing || self->strokes->len == 0)
    {
      cml_pen_layer_begin_stroke (self, x, y);
      return;
    }
  s = self->strokes->pdata[self->strokes->len - 1];
  if (!target_bounds (self, s->target, &r))
    return;
  if (point_at (self, s, s->points->len / 2 - 1, &r, &lx, &ly) && hypot (x - lx, y - ly) < 1.5)
    return;
  if (s->points->len / 2 >= CML_PEN_MAX_POINTS)
    {
      /* full: the line goes on as a new stroke from where it was */
      Stroke *next = new_stroke (self, s->target);

      add_point (self, next, lx, ly);
      s = next;
    }
  add_point (self, s, x, y);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
cml_pen_layer_end_stroke (CmlPenLayer *self)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  self->drawing = FALSE;
}

void
cml_pen_layer_clear (CmlPenLayer *self)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  if (self->strokes->len == 0)
    return;
  g_ptr_array_set_size (self->strokes, 0);
  self->drawing = FALSE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
cml_pen_layer_get_n_strokes (CmlPenLayer *self)
{
  g_return_val_if_fail (CML_IS_PEN_LAYER (self), 0);
  return self->strokes->len;
}

guint
cml_pen_layer_get_n_points (CmlPenLayer *self, guint stroke)
{
  g_return_val_if_fail (CML_IS_PEN_LAYER (self), 0);
  if (stroke >= self->strokes->len)
    return 0;
  return ((Stroke *) self->strokes->pdata[stroke])->points->len / 2;
}

gboolean
cml_pen_layer_get_point (CmlPenLayer *self, guint stroke, guint i, double *x, double *y)
{
  graphene_rect_t r;
  Stroke *s;

  g_return_val_if_fail (CML_IS_PEN_LAYER (self), FALSE);
  if (stroke >= self->strokes->len)
    return FALSE;
  s = self->strokes->pdata[stroke];
  return target_bounds (self, s->target, &r) && point_at (self, s, i, &r, x, y);
}

/* ---- the pen and the pointer ---------------------------------------------------------- */

void
cml_pen_layer_set_pen (CmlPenLayer *self, gboolean pen)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  pen = !!pen;
  if (self->pen == pen)
    return;
  self->pen = pen;
  self->drawing = FALSE;
  /* off, the views under the layer take the clicks */
  gtk_widget_set_can_target (GTK_WIDGET (self), pen);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PEN]);
}

gboolean
cml_pen_layer_get_pen (CmlPenLayer *self)
{
  g_return_val_if_fail (CML_IS_PEN_LAYER (self), FALSE);
  return self->pen;
}

void
cml_pen_layer_set_pointer (CmlPenLayer *self, gboolean pointer)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  pointer = !!pointer;
  if (self->pointer == pointer)
    return;
  self->pointer = pointer;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POINTER]);
}

gboolean
cml_pen_layer_get_pointer (CmlPenLayer *self)
{
  g_return_val_if_fail (CML_IS_PEN_LAYER (self), FALSE);
  return self->pointer;
}

gboolean
cml_pen_layer_get_pointer_shown (CmlPenLayer *self, double *x, double *y)
{
  g_return_val_if_fail (CML_IS_PEN_LAYER (self), FALSE);
  if (!self->pointer || isnan (self->pointer_x) || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return FALSE;
  if (x)
    *x = self->pointer_x;
  if (y)
    *y = self->pointer_y;
  return TRUE;
}

void
cml_pen_layer_move_pointer (CmlPenLayer *self, double x, double y)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  self->pointer_x = x;
  self->pointer_y = isnan (x) ? NAN : y;
  if (self->pointer)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, CmlPenLayer *self)
{
  GtkWidget *watched = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (motion));
  graphene_point_t p;

  if (gtk_widget_compute_point (watched, GTK_WIDGET (self), &GRAPHENE_POINT_INIT (x, y), &p))
    cml_pen_layer_move_pointer (self, p.x, p.y);
}

static void
on_leave (GtkEventControllerMotion *motion, CmlPenLayer *self)
{
  cml_pen_layer_move_pointer (self, NAN, NAN);
}

void
cml_pen_layer_watch (CmlPenLayer *self, GtkWidget *watched)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  g_return_if_fail (CML_IS_PEN_LAYER (self));
  gtk_event_controller_set_name (motion, "cml-pen-pointer");
  /* capture: seen before the view under the pointer, which may keep the event */
  gtk_event_controller_set_propagation_phase (motion, GTK_PHASE_CAPTURE);
  g_signal_connect_object (motion, "enter", G_CALLBACK (on_motion), self, 0);
  g_signal_connect_object (motion, "motion", G_CALLBACK (on_motion), self, 0);
  g_signal_connect_object (motion, "leave", G_CALLBACK (on_leave), self, 0);
  gtk_widget_add_controller (watched, motion);
}

void
cml_pen_layer_add_target (CmlPenLayer *self, GtkWidget *target)
{
  g_return_if_fail (CML_IS_PEN_LAYER (self));
  g_return_if_fail (self->n_targets < MAX_TARGETS);
  g_weak_ref_init (&self->targets[self->n_targets++], target);
}

/* ---- the drag -------------------------------------------------------------------------- */

static void
on_drag_begin (GtkGestureDrag *drag, double x, double y, CmlPenLayer *self)
{
  self->start_x = x;
  self->start_y = y;
  cml_pen_layer_begin_stroke (self, x, y);
}

/* (a drag the pen was put away in — Escape with the button down — draws no more) */
static void
on_drag_update (GtkGestureDrag *drag, double dx, double dy, CmlPenLayer *self)
{
  if (self->pen && self->drawing)
    cml_pen_layer_extend_stroke (self, self->start_x + dx, self->start_y + dy);
}

static void
on_drag_end (GtkGestureDrag *drag, double dx, double dy, CmlPenLayer *self)
{
  if (self->pen && self->drawing)
    cml_pen_layer_extend_stroke (self, self->start_x + dx, self->start_y + dy);
  cml_pen_layer_end_stroke (self);
}

/* ---- what the pen takes ---------------------------------------------------------------- */

/* With the pen on the layer takes the points over the views, but not those over a button
 * (the page tabs, the view's corner buttons) or a drop-down: those still work, so a teacher
 * drawing can still change page.  What is under the layer is the overlay's main child. */
static gboolean
cml_pen_layer_contains (GtkWidget *widget, double x, double y)
{
  CmlPenLayer *self = CML_PEN_LAYER (widget);
  GtkWidget *parent = gtk_widget_get_parent (widget), *below = NULL, *hit;
  graphene_point_t p;

  if (!self->pen)
    return FALSE;
  if (GTK_IS_OVERLAY (parent))
    below = gtk_overlay_get_child (GTK_OVERLAY (parent));
  if (below == NULL || !gtk_widget_compute_point (widget, below, &GRAPHENE_POINT_INIT (x, y), &p))
    return GTK_WIDGET_CLASS (cml_pen_layer_parent_class)->contains (widget, x, y);
  for (hit = gtk_widget_pick (below, p.x, p.y, GTK_PICK_DEFAULT); hit && hit != below;
       hit = gtk_widget_get_parent (hit))
    if (GTK_IS_BUTTON (hit) || GTK_IS_DROP_DOWN (hit) || GTK_IS_MENU_BUTTON (hit))
      return FALSE;
  return GTK_WIDGET_CLASS (cml_pen_layer_parent_class)->contains (widget, x, y);
}

/* ---- drawing --------------------------------------------------------------------------- */

/* Bright yellow over a dark edge: seen on the light plots and on a dark scene alike, and
 * from the back of a hall (the line grows with the layer). */
static void
draw_strokes (CmlPenLayer *self, cairo_t *cr, double width)
{
  static const double edge[4] = { 0, 0, 0, 0.75 }, ink[4] = { 1.0, 0.9, 0.0, 1.0 };

  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (int pass = 0; pass < 2; pass++)
    {
      const double *c = pass == 0 ? edge : ink;

      cairo_set_source_rgba (cr, c[0], c[1], c[2], c[3]);
      cairo_set_line_width (cr, pass == 0 ? width + 4 : width);
      for (guint k = 0; k < self->strokes->len; k++)
        {
          Stroke *s = self->strokes->pdata[k];
          graphene_rect_t r;
          guint n = s->points->len / 2;
          double x = 0, y = 0;

          if (n == 0 || !target_bounds (self, s->target, &r))
            continue;
          point_at (self, s, 0, &r, &x, &y);
          cairo_move_to (cr, x, y);
          if (n == 1)
            cairo_line_to (cr, x, y); /* a dot: the round cap draws it */
          for (guint i = 1; i < n; i++)
            {
              point_at (self, s, i, &r, &x, &y);
              cairo_line_to (cr, x, y);
            }
          cairo_stroke (cr);
        }
    }
}

/* A red ring with a dark and a light edge and a translucent red disc: seen on any colour. */
static void
draw_pointer (CmlPenLayer *self, cairo_t *cr, double radius)
{
  double x = self->pointer_x, y = self->pointer_y;

  cairo_new_path (cr);
  cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
  cairo_set_source_rgba (cr, 1, 0.1, 0.1, 0.30);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 1, 1, 1, 0.9);
  cairo_set_line_width (cr, 9);
  cairo_stroke_preserve (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.9);
  cairo_set_line_width (cr, 7);
  cairo_stroke_preserve (cr);
  cairo_set_source_rgb (cr, 1, 0.12, 0.12);
  cairo_set_line_width (cr, 4);
  cairo_stroke (cr);
  cairo_arc (cr, x, y, MAX (3, radius / 6), 0, 2 * G_PI);
  cairo_set_source_rgb (cr, 1, 0.12, 0.12);
  cairo_fill (cr);
}

static void
cml_pen_layer_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  CmlPenLayer *self = CML_PEN_LAYER (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  double size = MIN (w, h);
  cairo_t *cr;

  if (w <= 0 || h <= 0 || (self->strokes->len == 0 && !cml_pen_layer_get_pointer_shown (self, NULL, NULL)))
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  if (self->strokes->len > 0)
    draw_strokes (self, cr, MAX (5.0, size / 110.0));
  if (cml_pen_layer_get_pointer_shown (self, NULL, NULL))
    draw_pointer (self, cr, MAX (24.0, size / 18.0));
  cairo_destroy (cr);
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_pen_layer_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlPenLayer *self = CML_PEN_LAYER (object);

  switch (prop_id)
    {
    case PROP_PEN:
      g_value_set_boolean (value, self->pen);
      break;
    case PROP_POINTER:
      g_value_set_boolean (value, self->pointer);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_pen_layer_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CmlPenLayer *self = CML_PEN_LAYER (object);

  switch (prop_id)
    {
    case PROP_PEN:
      cml_pen_layer_set_pen (self, g_value_get_boolean (value));
      break;
    case PROP_POINTER:
      cml_pen_layer_set_pointer (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_pen_layer_finalize (GObject *object)
{
  CmlPenLayer *self = CML_PEN_LAYER (object);

  for (guint i = 0; i < self->n_targets; i++)
    g_weak_ref_clear (&self->targets[i]);
  g_ptr_array_unref (self->strokes);
  G_OBJECT_CLASS (cml_pen_layer_parent_class)->finalize (object);
}

static void
cml_pen_layer_class_init (CmlPenLayerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = cml_pen_layer_get_property;
  object_class->set_property = cml_pen_layer_set_property;
  object_class->finalize = cml_pen_layer_finalize;
  widget_class->snapshot = cml_pen_layer_snapshot;
  widget_class->contains = cml_pen_layer_contains;

  properties[PROP_PEN] =
    g_param_spec_boolean ("pen", NULL, NULL, FALSE, G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_POINTER] =
    g_param_spec_boolean ("pointer", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_widget_class_set_css_name (widget_class, "penlayer");
}

static void
cml_pen_layer_init (CmlPenLayer *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  self->strokes = g_ptr_array_new_with_free_func (stroke_free);
  self->pointer_x = self->pointer_y = NAN;
  gtk_widget_set_can_target (GTK_WIDGET (self), FALSE);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "crosshair");
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
}

GtkWidget *
cml_pen_layer_new (void)
{
  return g_object_new (CML_TYPE_PEN_LAYER, NULL);
}
