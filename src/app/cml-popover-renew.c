/* cml-popover-renew.c — a menu button's own popover made anew each time it closes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With GTK 4.8 on X11, once a menu button's own popover has closed (Escape, a click on its
 * button, a click outside), the next press anywhere in the window is delivered to that
 * closed popover, which takes it for a click outside itself and drops it: a person who
 * closes "More for k₂" and clicks the menu of Ω just below sees nothing happen, and has
 * to click again.  The window's drop-downs and its menus made from menu models do not do
 * this; the popovers made by hand here did.  A popover that is destroyed no longer takes
 * the press, so when one has closed its content moves to a new popover with the same
 * look, and the old one goes.  tests/e2e/test-e2e-keys.sh clicks each menu once, right
 * after closing the one before, and fails if the click is lost.
 */
#include "cml-popover-renew.h"

static void on_closed (GtkPopover *popover, GtkMenuButton *button);

/* What the owner asked to hear of each new popover (on the button, "cml-popover-renewed"). */
typedef struct
{
  CmlPopoverRenewed renewed;
  gpointer          data;
} Renewed;

/* Once the closing has run its course (the popover's own handlers and the button's toggle
 * come first): the content into a new popover, unless it was opened again.  Before the
 * next click: at a priority above the events' (G_PRIORITY_HIGH), so that a click already
 * queued when the popover closed — a person quick on the mouse, or a busy machine — finds
 * the new popover; at the events' own priority it was dispatched first, to the closed one,
 * and lost (test-e2e-keys, about one run in three at load 7). */
static gboolean
renew (gpointer data)
{
  GtkMenuButton *button = data;
  GtkPopover *old = gtk_menu_button_get_popover (button), *fresh;
  GtkWidget *child;

  const Renewed *r = g_object_get_data (G_OBJECT (button), "cml-popover-renewed");

  /* open again, or the button gone from its window (the window closing) */
  if (old == NULL || gtk_widget_get_visible (GTK_WIDGET (old)) || gtk_widget_get_root (GTK_WIDGET (button)) == NULL)
    return G_SOURCE_REMOVE;
  fresh = GTK_POPOVER (gtk_popover_new ());
  gtk_popover_set_has_arrow (fresh, gtk_popover_get_has_arrow (old));
  gtk_popover_set_autohide (fresh, gtk_popover_get_autohide (old));
  gtk_popover_set_position (fresh, gtk_popover_get_position (old));
  gtk_popover_set_cascade_popdown (fresh, gtk_popover_get_cascade_popdown (old));
  {
    g_auto (GStrv) classes = gtk_widget_get_css_classes (GTK_WIDGET (old));
    gtk_widget_set_css_classes (GTK_WIDGET (fresh), (const char **) classes);
  }
  child = gtk_popover_get_child (old);
  if (child != NULL)
    {
      g_object_ref (child);
      gtk_popover_set_child (old, NULL);
      gtk_popover_set_child (fresh, child);
      g_object_unref (child);
    }
  g_signal_handlers_disconnect_by_func (old, on_closed, button);
  /* the button lets go of the old popover, which is destroyed */
  gtk_menu_button_set_popover (button, GTK_WIDGET (fresh));
  g_signal_connect_object (fresh, "closed", G_CALLBACK (on_closed), button, 0);
  if (r != NULL)
    r->renewed (fresh, r->data);
  return G_SOURCE_REMOVE;
}

static void
on_closed (GtkPopover *popover, GtkMenuButton *button)
{
  g_idle_add_full (G_PRIORITY_HIGH, renew, g_object_ref (button), g_object_unref);
}

void
cml_menu_button_renew_popover (GtkMenuButton *button)
{
  GtkPopover *popover;

  g_return_if_fail (GTK_IS_MENU_BUTTON (button));
  popover = gtk_menu_button_get_popover (button);
  g_return_if_fail (popover != NULL);
  g_signal_connect_object (popover, "closed", G_CALLBACK (on_closed), button, 0);
}

void
cml_menu_button_renew_popover_full (GtkMenuButton *button, CmlPopoverRenewed renewed, gpointer data)
{
  Renewed *r = g_new (Renewed, 1);

  g_return_if_fail (renewed != NULL);
  cml_menu_button_renew_popover (button);
  r->renewed = renewed;
  r->data = data;
  g_object_set_data_full (G_OBJECT (button), "cml-popover-renewed", r, g_free);
}
