/* cml-string-list.c — the names a drop-down offers (a GtkStringList): where a name is, and
 * which one is chosen.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-string-list.h"

guint
cml_string_list_find (GtkStringList *list, const char *name)
{
  for (guint k = 0; name && k < g_list_model_get_n_items (G_LIST_MODEL (list)); k++)
    if (g_str_equal (gtk_string_list_get_string (list, k), name))
      return k;
  return GTK_INVALID_LIST_POSITION;
}

const char *
cml_string_list_selected (GtkDropDown *drop, GtkStringList *list)
{
  guint i = gtk_drop_down_get_selected (drop);
  return i != GTK_INVALID_LIST_POSITION && i < g_list_model_get_n_items (G_LIST_MODEL (list))
           ? gtk_string_list_get_string (list, i)
           : NULL;
}
