/* cml-window-pen.c — the window's pen and pointer for presenting: a layer over the 3-D
 * view and the plots (cml-pen-layer.c) and the keys and button that work it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * P (or the header bar's pen button) turns the pen on and off; Escape turns it off; C or
 * Delete wipes the drawing; L shows a large ring that follows the pointer, for a hall to
 * follow on a projector (it goes with presentation mode: leaving it takes the ring away).
 * The drawing belongs to the step of a lesson it was made on: the next step wipes it.
 * The single-letter keys are a field's own while one has the focus (P, L, C are not in
 * numbers, but a caption or a model's name has them): there Ctrl+Shift+P turns the pen on
 * and off — on, it takes the keys from the field — and Escape, while drawing, puts the pen
 * away and leaves the field.
 */
#define G_LOG_DOMAIN "cml-window-pen"

#include "cml-window-private.h"

#include "cml-pen-layer.h"

static void
clear_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  cml_pen_layer_clear (CML_WINDOW (data)->pen_layer);
}

/* Whether what has the focus takes typed text (a value's field, a caption being written). */
static gboolean
focus_in_field (GtkWidget *focus)
{
  return focus && (GTK_IS_EDITABLE (focus) || GTK_IS_TEXT_VIEW (focus));
}

/* The focus leaves the field it is in (a value typed there is taken as on leaving it),
 * so that the pen's keys reach the window. */
static void
leave_field (CmlWindow *self)
{
  gtk_root_set_focus (GTK_ROOT (self), NULL);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                CmlWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  CmlPenLayer *layer = self->pen_layer;
  GdkModifierType mods = state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK | GDK_ALT_MASK | GDK_SUPER_MASK);

  /* Ctrl+Shift+P: the pen from anywhere, a text field too (a presenter whose last click
   * was in a value's field); put on from a field, it takes the keys from the field */
  if ((keyval == GDK_KEY_p || keyval == GDK_KEY_P) && mods == (GDK_CONTROL_MASK | GDK_SHIFT_MASK))
    {
      gboolean on = !cml_pen_layer_get_pen (layer);

      if (on && focus_in_field (focus))
        leave_field (self);
      cml_pen_layer_set_pen (layer, on);
      return TRUE;
    }
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) != 0)
    return FALSE;
  /* Escape in a field while drawing: the pen goes away and the field lets go of the keys */
  if (keyval == GDK_KEY_Escape && focus_in_field (focus) && cml_pen_layer_get_pen (layer))
    {
      cml_pen_layer_set_pen (layer, FALSE);
      leave_field (self);
      return TRUE;
    }
  /* the single letters are a field's own while it has the focus */
  if (focus_in_field (focus) || (focus && gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER)))
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_p:
    case GDK_KEY_P:
      cml_pen_layer_set_pen (layer, !cml_pen_layer_get_pen (layer));
      return TRUE;
    case GDK_KEY_l:
    case GDK_KEY_L:
      cml_pen_layer_set_pointer (layer, !cml_pen_layer_get_pointer (layer));
      return TRUE;
    case GDK_KEY_c:
    case GDK_KEY_C:
    case GDK_KEY_Delete:
    case GDK_KEY_KP_Delete:
      cml_pen_layer_clear (layer);
      return TRUE;
    case GDK_KEY_Escape:
      /* only while drawing: otherwise Escape is everyone else's */
      if (!cml_pen_layer_get_pen (layer))
        return FALSE;
      cml_pen_layer_set_pen (layer, FALSE);
      return TRUE;
    default:
      return FALSE;
    }
}

void
cml_window_pen_presentation (CmlWindow *self, gboolean presentation)
{
  if (!presentation)
    cml_pen_layer_set_pointer (self->pen_layer, FALSE);
}

void
cml_window_pen_clear (CmlWindow *self)
{
  cml_pen_layer_clear (self->pen_layer);
}

void
cml_window_pen_init (CmlWindow *self)
{
  GSimpleActionGroup *group = g_simple_action_group_new ();
  g_autoptr (GPropertyAction) draw = g_property_action_new ("draw", self->pen_layer, "pen");
  g_autoptr (GPropertyAction) pointer = g_property_action_new ("pointer", self->pen_layer, "pointer");
  g_autoptr (GSimpleAction) clear = g_simple_action_new ("clear", NULL);
  GtkEventController *keys = gtk_event_controller_key_new ();

  /* the views a stroke keeps to: begun over a plot, it stays on that plot */
  cml_pen_layer_add_target (self->pen_layer, GTK_WIDGET (self->time_plot));
  cml_pen_layer_add_target (self->pen_layer, GTK_WIDGET (self->phase_plot));
  cml_pen_layer_add_target (self->pen_layer, GTK_WIDGET (self->scene_stack));
  cml_pen_layer_add_target (self->pen_layer, GTK_WIDGET (self->side_stack));
  cml_pen_layer_watch (self->pen_layer, gtk_widget_get_parent (GTK_WIDGET (self->pen_layer)));

  g_signal_connect (clear, "activate", G_CALLBACK (clear_activated), self);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (draw));
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (pointer));
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (clear));
  gtk_widget_insert_action_group (GTK_WIDGET (self), "pen", G_ACTION_GROUP (group));
  g_object_unref (group);

  gtk_event_controller_set_name (keys, "cml-pen-keys");
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

void
cml_window_class_add_pen (GtkWidgetClass *widget_class)
{
  g_type_ensure (CML_TYPE_PEN_LAYER);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, pen_layer);
}
