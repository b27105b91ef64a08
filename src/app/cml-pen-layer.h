/* cml-pen-layer.h — a transparent layer over the 3-D view and the plots where a teacher
 * draws with the pointer (the pen) and where a large ring follows the pointer for a
 * projector's hall (the pointer).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The memory a drawing takes is bounded: a stroke keeps at most CML_PEN_MAX_POINTS points
 * (a longer drag goes on as a new stroke), and the layer at most CML_PEN_MAX_STROKES
 * strokes (the oldest is dropped): 64 × 2048 points of two floats, 1 MiB at most. */
#define CML_PEN_MAX_STROKES 64
#define CML_PEN_MAX_POINTS  2048

#define CML_TYPE_PEN_LAYER (cml_pen_layer_get_type ())
G_DECLARE_FINAL_TYPE (CmlPenLayer, cml_pen_layer, CML, PEN_LAYER, GtkWidget)

/* All: UI thread. */
GtkWidget *cml_pen_layer_new (void);
/* A widget under the layer that strokes begun over it belong to: they are kept as
 * fractions of its size, so a resize or a moved split keeps them over what they marked
 * (and while it is not shown they are not either).  Strokes begun over none belong to
 * the layer itself.  The first added that holds a stroke's start takes it. */
void       cml_pen_layer_add_target (CmlPenLayer *self, GtkWidget *target);
/* The pointer is followed over WATCHED (the layer's parent: an overlay holding the layer
 * over the targets), whether or not the pen is on. */
void       cml_pen_layer_watch (CmlPenLayer *self, GtkWidget *watched);

/* The pen: on, a drag over the layer draws (and the views under it get no clicks). */
void       cml_pen_layer_set_pen (CmlPenLayer *self, gboolean pen);
gboolean   cml_pen_layer_get_pen (CmlPenLayer *self);
/* The pointer: on, a ring follows the mouse over the watched widget. */
void       cml_pen_layer_set_pointer (CmlPenLayer *self, gboolean pointer);
gboolean   cml_pen_layer_get_pointer (CmlPenLayer *self);
/* Whether the ring is drawn now, and its centre in the layer's coordinates. */
gboolean   cml_pen_layer_get_pointer_shown (CmlPenLayer *self, double *x, double *y);
/* Moves the ring (X, Y in the layer; NAN: the pointer left), as the pointer does. */
void       cml_pen_layer_move_pointer (CmlPenLayer *self, double x, double y);

/* Drawing, as the drag does (X, Y in the layer's coordinates). */
void       cml_pen_layer_begin_stroke (CmlPenLayer *self, double x, double y);
void       cml_pen_layer_extend_stroke (CmlPenLayer *self, double x, double y);
void       cml_pen_layer_end_stroke (CmlPenLayer *self);
/* Wipes the drawing. */
void       cml_pen_layer_clear (CmlPenLayer *self);

guint      cml_pen_layer_get_n_strokes (CmlPenLayer *self);
guint      cml_pen_layer_get_n_points (CmlPenLayer *self, guint stroke);
/* Point I of STROKE where it is drawn now, in the layer's coordinates (FALSE: there is no
 * such point, or what it marked is not shown). */
gboolean   cml_pen_layer_get_point (CmlPenLayer *self, guint stroke, guint i, double *x, double *y);

G_END_DECLS
