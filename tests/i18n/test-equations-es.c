/* test-equations-es.c — the window's equations page in Spanish: its kind, Lie algebroid and
 * regularity lines come from the account of the system (cml-describe.c) in Spanish, and
 * its equations view holds the account from the algebroid to the equations, not the
 * texts shown above it nor the conserved quantities listed beside it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "../ui/ui-util.h"

static GtkLabel *
panel_label (CmlWindow *win, const char *name)
{
  GObject *o = gtk_widget_get_template_child (GTK_WIDGET (win->equations_panel), CML_TYPE_EQUATIONS_PANEL, name);

  g_assert_nonnull (o);
  return GTK_LABEL (o);
}

static gboolean
label_filled (gpointer data)
{
  return gtk_label_get_text (data)[0] != '\0';
}

static void
test_equations_page (void)
{
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  GtkLabel *kind = panel_label (win, "kind_label");
  GtkLabel *algebroid = panel_label (win, "algebroid_label");
  GtkLabel *regularity = panel_label (win, "regularity_label");
  GObject *view = gtk_widget_get_template_child (GTK_WIDGET (win->equations_panel), CML_TYPE_EQUATIONS_PANEL,
                                                 "equations_view");

  g_assert_true (spin_until (label_filled, kind, 60));
  g_test_message ("kind: %s", gtk_label_get_text (kind));
  g_test_message ("algebroid: %s", gtk_label_get_text (algebroid));
  g_test_message ("regularity: %s", gtk_label_get_text (regularity));

  /* the kind as the account says it, in Spanish */
  g_assert_true (g_str_has_prefix (gtk_label_get_text (kind), "Ecuaciones no holónomas"));
  /* the algebroid's rank and base, in Spanish, said once */
  {
    const char *a = gtk_label_get_text (algebroid);
    g_assert_true (g_str_has_prefix (a, "Algebroide de Lie: rango 5 sobre una base de dimensión 2"));
    g_assert_null (strstr (a + 1, "Algebroide de Lie"));
  }
  /* the rolling ball has a regularity matrix: C = Φ_y W⁻¹ Φ_yᵀ, not "none to check" */
  g_assert_true (g_str_has_prefix (gtk_label_get_text (regularity), "C = Φ_y W⁻¹ Φ_yᵀ (2×2) debe ser invertible"));

  /* the view: from the algebroid to the variables' meanings, without the title and the
   * about text (shown above it) and without the inspector's conserved quantities (beside) */
  {
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
    GtkTextIter start, end;
    gtk_text_buffer_get_bounds (buffer, &start, &end);
    g_autofree char *text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);

    g_assert_true (g_str_has_prefix (text, "Algebroide de Lie:"));
    g_assert_null (strstr (text, "Sobre este sistema:"));
    g_assert_null (strstr (text, "Cantidades conservadas, deducidas y comprobadas"));
    g_assert_nonnull (strstr (text, "Ecuaciones del movimiento"));
  }
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "es", TRUE);

  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  if (g_getenv ("CMLAB_LOCALEDIR") == NULL)
    g_error ("CMLAB_LOCALEDIR must name the build tree's po/ (tests/meson.build sets it)");

  g_test_add_func ("/i18n/equations-page", test_equations_page);
  return g_test_run ();
}
