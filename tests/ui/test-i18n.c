/* test-i18n.c — the window in Spanish: made under LANGUAGE=es with a Spanish locale
 * (es_ES.UTF-8, compiled into a private directory with localedef), it shows the
 * translations of po/es.po (the build tree's catalogue, $CMLAB_LOCALEDIR) in its widgets,
 * its interface files and its menus, and numbers with the locale's decimal comma; its
 * number fields take a comma or a point.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "cml-plot-area.h"
#include "ui-util.h"

/* whether es_ES.UTF-8 could be made (else the run is in C.UTF-8, and numbers have points) */
static gboolean have_comma_locale;

static char *
menu_label (GMenuModel *model, int section, int item)
{
  g_autoptr (GMenuModel) sec = g_menu_model_get_item_link (model, section, G_MENU_LINK_SECTION);
  char *label = NULL;

  g_assert_nonnull (sec);
  g_assert_true (g_menu_model_get_item_attribute (sec, item, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  return label;
}

/* The first widget of TYPE under WIDGET (depth first), or NULL. */
static GtkWidget *
first_of_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = first_of_type (c, type);
      if (found)
        return found;
    }
  return NULL;
}

/* Whether a label under WIDGET shows TEXT. */
static gboolean
has_label (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && g_str_equal (gtk_label_get_label (GTK_LABEL (widget)), text))
    return TRUE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    if (has_label (c, text))
      return TRUE;
  return FALSE;
}

/* Every spin button under WIDGET, in PTRS. */
static void
collect_spins (GtkWidget *widget, GPtrArray *ptrs)
{
  if (GTK_IS_SPIN_BUTTON (widget))
    g_ptr_array_add (ptrs, widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_spins (c, ptrs);
}

/* The spin button of the panel showing TEXT, or NULL. */
static GtkSpinButton *
spin_showing (CmlWindow *win, const char *text)
{
  g_autoptr (GPtrArray) spins = g_ptr_array_new ();

  collect_spins (GTK_WIDGET (win->parameter_panel), spins);
  for (guint k = 0; k < spins->len; k++)
    if (g_str_equal (gtk_editable_get_text (GTK_EDITABLE (spins->pdata[k])), text))
      return spins->pdata[k];
  return NULL;
}

static gboolean
plots_have_samples (gpointer data)
{
  CmlWindow *win = data;

  return cml_plot_column_get_n (cml_plot_view_get_time_column (win->time_plot)) > 0;
}

static void
test_labels (void)
{
  CmlWindow *win;

  SKIP_WITHOUT_DISPLAY ();
  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));

  /* composed in C: the play button's tooltip */
  {
    const char *tip = gtk_widget_get_tooltip_text (GTK_WIDGET (win->play_button));
    g_assert_nonnull (tip);
    if (!g_str_equal (tip, "Reproducir (Espacio)") && !g_str_equal (tip, "Pausar (Espacio)"))
      g_error ("the play button's tooltip is not in Spanish: “%s”", tip);
  }
  /* from an interface file: the main menu */
  {
    GMenuModel *menu = gtk_menu_button_get_menu_model (win->menu_button);
    g_autofree char *open = NULL, *quit = NULL;

    g_assert_nonnull (menu);
    open = menu_label (menu, 0, 0);
    g_assert_cmpstr (open, ==, "Abrir _modelo…");
    {
      int last = g_menu_model_get_n_items (menu) - 1;
      g_autoptr (GMenuModel) sec = g_menu_model_get_item_link (menu, last, G_MENU_LINK_SECTION);
      quit = menu_label (menu, last, g_menu_model_get_n_items (sec) - 1);
    }
    g_assert_cmpstr (quit, ==, "Sa_lir");
  }
  /* a tooltip set in an interface file */
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (win->menu_button)), ==, "Menú principal");
  /* the Section and Sweep pages' interface files: a label with a context, a button, and
   * the hint their plots show while empty (a property of the plot the file sets) */
  {
    GtkWidget *section = GTK_WIDGET (win->section_view);
    GtkWidget *sweep = gtk_stack_get_child_by_name (win->side_stack, "sweep");
    g_autofree char *section_hint = NULL, *sweep_hint = NULL;

    g_assert_nonnull (sweep);
    g_assert_true (has_label (section, "órbita"));
    g_assert_true (has_label (section, "_Limpiar"));
    g_assert_true (has_label (sweep, "Medir"));
    g_object_get (first_of_type (section, CML_TYPE_PLOT_AREA), "empty-hint", &section_hint, NULL);
    g_assert_cmpstr (section_hint, ==, "Pulse para empezar una órbita desde un punto");
    g_object_get (first_of_type (sweep, CML_TYPE_PLOT_AREA), "empty-hint", &sweep_hint, NULL);
    g_assert_cmpstr (sweep_hint, ==, "Ejecute un barrido para ver la cantidad frente al parámetro");
  }
  window_free (win);
}

/* the section page's status line, with a plural */
static void
test_plural (void)
{
  g_assert_cmpstr (ngettext ("%u orbit", "%u orbits", 1), ==, "%u órbita");
  g_assert_cmpstr (ngettext ("%u orbit", "%u orbits", 3), ==, "%u órbitas");
}

/* Numbers follow the locale in the window: k2 = 0.4 shows as 0,4; a typed 0,25 and a
 * typed 0.3 are both taken. */
static void
test_decimal_comma (void)
{
  CmlWindow *win;
  GtkSpinButton *k2;

  SKIP_WITHOUT_DISPLAY ();
  if (!have_comma_locale)
    {
      g_test_skip ("localedef could not make es_ES.UTF-8 (Debian: locales)");
      return;
    }
  win = window_new ("rolling-ball");
  wait_layout_settled (GTK_WIDGET (win));

  k2 = spin_showing (win, "0,4");
  if (k2 == NULL)
    g_error ("no number field shows k2 = 0.4 as 0,4");

  gtk_editable_set_text (GTK_EDITABLE (k2), "0,25");
  gtk_spin_button_update (k2);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (k2), 0.25, 1e-12);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (k2)), ==, "0,25");

  gtk_editable_set_text (GTK_EDITABLE (k2), "0.3");
  gtk_spin_button_update (k2);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (k2), 0.3, 1e-12);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (k2)), ==, "0,3");

  /* files never follow the locale: the session holds k2 = 0.3 in C syntax, and every
   * row of the exported CSV has as many fields as its header */
  {
    g_autofree char *dir = g_dir_make_tmp ("cmlab-test-i18n-XXXXXX", NULL);
    g_autofree char *session = g_build_filename (dir, "es.cmlsession", NULL);
    g_autofree char *csv = g_build_filename (dir, "es.csv", NULL);
    g_autofree char *text = NULL;
    g_autoptr (GError) error = NULL;

    /* the run restarted with k2 = 0.3 and the plots hold its first samples */
    cml_runner_sync (cml_window_get_runner (win));
    wait_window_shows_runner (win);
    wait_for (plots_have_samples, win, "the plots' first samples");
    g_assert_true (cml_window_save_session (win, session, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (session, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "0.3"));
    g_assert_null (strstr (text, "0,3"));
    g_clear_pointer (&text, g_free);

    g_assert_true (cml_window_export_data (win, csv, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    guint fields = 0, rows = 0;
    for (guint k = 0; lines[k]; k++)
      {
        if (lines[k][0] == '#' || lines[k][0] == '\0')
          continue;
        g_auto (GStrv) f = g_strsplit (lines[k], ",", -1);
        if (fields == 0)
          fields = g_strv_length (f); /* the header */
        else
          {
            g_assert_cmpuint (g_strv_length (f), ==, fields);
            for (guint j = 0; f[j]; j++)
              {
                char *end = NULL;
                g_ascii_strtod (f[j], &end);
                g_assert_true (end != f[j] && *end == '\0');
              }
            rows++;
          }
      }
    g_assert_cmpuint (rows, >, 0);
    g_remove (session);
    g_remove (csv);
    g_rmdir (dir);
  }

  /* the step list of the fixed-step integrators, translated with its comma */
  {
    GListModel *steps = G_LIST_MODEL (gtk_drop_down_get_model (win->step_dropdown));
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (steps), 2), ==, "paso 0,05");
  }
  window_free (win);
}

int
main (int argc, char *argv[])
{
  g_autofree char *localedef = g_find_program_in_path ("localedef");
  g_autofree char *dir = g_dir_make_tmp ("cmlab-test-locale-XXXXXX", NULL);
  g_autofree char *target = g_build_filename (dir, "es_ES.UTF-8", NULL);

  /* es_ES.UTF-8 in a private directory, before anything reads the locale */
  if (localedef)
    {
      const char *ld[] = { localedef, "-i", "es_ES", "-f", "UTF-8", target, NULL };
      int status = 0;
      have_comma_locale = g_spawn_sync (NULL, (char **) ld, NULL,
                                        G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                                        NULL, NULL, &status, NULL)
                          && g_file_test (target, G_FILE_TEST_IS_DIR);
    }
  if (have_comma_locale)
    g_setenv ("LOCPATH", dir, TRUE);
  g_setenv ("LC_ALL", have_comma_locale ? "es_ES.UTF-8" : "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "es", TRUE);

  g_test_init (&argc, &argv, NULL);
  ui_test_init ();
  if (g_getenv ("CMLAB_LOCALEDIR") == NULL)
    g_error ("CMLAB_LOCALEDIR must name the build tree's po/ (tests/meson.build sets it)");

  g_test_add_func ("/ui/i18n/labels", test_labels);
  g_test_add_func ("/ui/i18n/plural", test_plural);
  g_test_add_func ("/ui/i18n/decimal-comma", test_decimal_comma);
  int status = g_test_run ();

  if (have_comma_locale)
    {
      g_autoptr (GDir) d = g_dir_open (target, 0, NULL);
      const char *name;
      while (d && (name = g_dir_read_name (d)))
        {
          g_autofree char *p = g_build_filename (target, name, NULL);
          if (g_file_test (p, G_FILE_TEST_IS_DIR))
            {
              g_autoptr (GDir) sub = g_dir_open (p, 0, NULL);
              const char *n2;
              while (sub && (n2 = g_dir_read_name (sub)))
                {
                  g_autofree char *q = g_build_filename (p, n2, NULL);
                  g_remove (q);
                }
            }
          g_remove (p);
        }
      g_remove (target);
    }
  g_remove (dir);
  return status;
}
