/* cml-popover-renew.h — a menu button's own popover made anew each time it closes, so
 * that the next click in the window reaches what it was meant for.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* UI thread.  BUTTON's popover (one given with gtk_menu_button_set_popover, not made from
 * a menu model) is replaced, each time it has closed, by a new popover with the same
 * content and look; the closed one is destroyed.  Code that needs the popover asks
 * BUTTON for it (gtk_menu_button_get_popover, gtk_menu_button_popdown) instead of
 * keeping a pointer to it. */
void cml_menu_button_renew_popover (GtkMenuButton *button);

/* Called with each new popover, before it is shown, for what the owner attaches to it
 * (its handlers); not called once BUTTON has left its window. */
typedef void (*CmlPopoverRenewed) (GtkPopover *fresh, gpointer data);

/* The same, with RENEWED called with DATA for every new popover. */
void cml_menu_button_renew_popover_full (GtkMenuButton *button, CmlPopoverRenewed renewed, gpointer data);

G_END_DECLS
