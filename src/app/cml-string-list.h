/* cml-string-list.h — the names a drop-down offers (a GtkStringList): where a name is, and
 * which one is chosen.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The position of NAME in LIST, or GTK_INVALID_LIST_POSITION (also for a NULL NAME). */
guint       cml_string_list_find     (GtkStringList *list, const char *name);
/* The name of LIST that DROP (showing LIST) has chosen, or NULL when none is. */
const char *cml_string_list_selected (GtkDropDown *drop, GtkStringList *list);

G_END_DECLS
