/* test-equations-es.c — the window's equations page and plots in Spanish: the page's kind,
 * Lie algebroid and regularity lines come from the account of the system (cml-describe.c)
 * in Spanish, and its equations view holds the account from the algebroid to the
 * equations, not the texts shown above it nor the conserved quantities listed beside it;
 * the plots name a monitor by its Spanish label ("energía", not "energy").
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

static gboolean
plot_has_series (gpointer data)
{
  CmlWindow *win = data;
  return cml_plot_get_n_series (cml_plot_view_get_plot (win->time_plot)) > 0;
}

static void
test_equations_page (void)
{
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  /* the page's account is made when it is shown */
  cml_window_show_page (win, "equations");
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

/* the energy plot's selector and legend say "energía" */
static void
test_plot_labels (void)
{
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  GObject *button = gtk_widget_get_template_child (GTK_WIDGET (win->time_plot), CML_TYPE_PLOT_VIEW, "y_button");
  g_assert_nonnull (button);
  g_assert_true (spin_until (plot_has_series, win, 60));

  const char *label = gtk_menu_button_get_label (GTK_MENU_BUTTON (button));
  g_test_message ("selector: %s", label);
  g_assert_true (g_str_has_prefix (label, "energía"));

  CmlPlot *plot = cml_plot_view_get_plot (win->time_plot);
  gboolean energy = FALSE;
  for (guint i = 0; i < cml_plot_get_n_series (plot); i++)
    {
      const char *name = cml_plot_series_get_name (cml_plot_get_series (plot, i));
      g_test_message ("series: %s", name);
      g_assert_cmpstr (name, !=, "energy");
      energy |= g_str_equal (name, "energía");
    }
  g_assert_true (energy);
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
  g_test_add_func ("/i18n/plot-labels", test_plot_labels);
  return g_test_run ();
}
