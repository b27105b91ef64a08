/* cml-plot-view-export.c — the plot exported as PNG (a slide), SVG or PDF (a paper):
 * the file chooser with a suggested name, and the figure's titles (the model, what is
 * plotted, the parameters and initial values of the run).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cml-export-folder.h"
#include "cml-plot-cairo.h"
#include "cml-plot-figure.h"
#include "cml-window.h"

/* A file-name-friendly copy of TEXT: letters, digits, '-' and '_' kept, the rest '-'. */
static void
append_slug (GString *out, const char *text)
{
  for (const char *c = text; c && *c; c++)
    {
      if (g_ascii_isalnum (*c) || *c == '-' || *c == '_')
        g_string_append_c (out, g_ascii_tolower (*c));
      else if (out->len > 0 && out->str[out->len - 1] != '-')
        g_string_append_c (out, '-');
    }
  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate (out, out->len - 1);
}

/* "rolling-ball-energy.pdf": the model and what is plotted. */
static char *
suggested_name (CmlPlotView *self, const char *ext)
{
  GString *name = g_string_new (NULL);
  CmlModel *model = cml_plot_view_model (self);

  append_slug (name, model ? model->name : "plot");
  if (self->y_names->len > 0)
    {
      g_string_append_c (name, '-');
      append_slug (name, g_ptr_array_index (self->y_names, 0));
      if (self->x_name)
        {
          g_string_append (name, "-vs-");
          append_slug (name, self->x_name);
        }
    }
  if (name->len == 0)
    g_string_assign (name, "plot");
  g_string_append_printf (name, ".%s", ext);
  return g_string_free (name, FALSE);
}

static void
show_export_error (CmlPlotView *self, const char *path, const char *message)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *primary = g_strdup_printf (_("Could not export the plot to “%s”"), base);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog;

  /* tests and scripted runs have nobody to read a dialog */
  if (g_getenv ("CMLAB_NO_DIALOGS"))
    {
      g_message ("%s: %s", primary, message);
      return;
    }
  dialog
      = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, primary, message);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
cml_plot_view_close_chooser (CmlPlotView *self)
{
  if (self->chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  g_clear_pointer (&self->export_format, g_free);
}

static void
on_export_response (GtkNativeDialog *chooser, int response, CmlPlotView *self)
{
  g_autofree char *path = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      path = file ? g_file_get_path (file) : NULL;
    }
  if (path)
    {
      g_autoptr (GError) error = NULL;

      /* the chosen format, even if the name was typed without its extension */
      if (self->export_format && !g_str_has_suffix (path, self->export_format))
        {
          g_autofree char *ext = g_strdup_printf (".%s", self->export_format);
          g_autofree char *lower = g_ascii_strdown (path, -1);

          if (!g_str_has_suffix (lower, ext))
            {
              char *with = g_strconcat (path, ext, NULL);
              g_free (path);
              path = with;
            }
        }
      if (!cml_plot_view_export (self, path, &error))
        show_export_error (self, path, error->message);
      else
        cml_export_folder_remember (path);  /* the next export opens there */
    }
  cml_plot_view_close_chooser (self);
}

void
cml_plot_view_export_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  const char *format = g_variant_get_string (param, NULL);
  GtkRoot *root = gtk_widget_get_root (widget);
  g_autoptr (GtkFileFilter) filter = gtk_file_filter_new ();
  g_autofree char *name = NULL;
  g_autofree char *pattern = NULL;
  g_autofree char *title = NULL;
  g_autofree char *upper = NULL;

  if (!g_str_equal (format, "png") && !g_str_equal (format, "svg") && !g_str_equal (format, "pdf"))
    {
      g_warning ("plot.export: unknown format “%s”", format);
      return;
    }
  cml_plot_view_close_chooser (self);
  upper = g_ascii_strup (format, -1);
  title = g_strdup_printf (_("Export Plot as %s"), upper);
  self->chooser
      = gtk_file_chooser_native_new (title, GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                     GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  self->export_format = g_strdup (format);
  name = suggested_name (self, format);
  {
    /* the folder the last export went to, else Pictures, else home: not the working one */
    g_autofree char *dir = cml_export_folder_get (CML_EXPORT_FOLDER_PICTURES);
    g_autoptr (GFile) folder = g_file_new_for_path (dir);
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), folder, NULL);
  }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), name);
  pattern = g_strdup_printf ("*.%s", format);
  gtk_file_filter_set_name (filter, upper);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->chooser), TRUE);
  g_signal_connect (self->chooser, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

/* The exported figure's title ("Rolling ball on a rotating table — y against x") and
 * parameters' line ("m = 1 kg, r = 1 m, k2 = 0.4 m², Ω = 1 rad/s"): a figure dropped
 * into a talk says what it shows.  The live view has neither (the window says it). */
static void
figure_titles (CmlPlotView *self)
{
  CmlModel *model = cml_plot_view_model (self);
  if (model == NULL)
    return;
  g_autofree double *values = g_new (double, MAX (model->params->len, 1));
  cml_plot_view_current_parameters (self, model, values);
  cml_plot_set_figure_titles (self->plot, model, (const char *const *) self->y_names->pdata,
                              self->y_names->len, self->x_name, values);

  /* and the initial values the window's run started from (its session has them all) */
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  g_autoptr (CmlSession) session
      = CML_IS_WINDOW (root) ? cml_window_get_session (CML_WINDOW (root), NULL) : NULL;
  if (session && session->system && g_strcmp0 (session->model->name, model->name) == 0)
    {
      guint dim = cml_system_dim (session->system), n = 0;
      g_autofree const char **names = g_new (const char *, MAX (dim, 1));
      g_autofree double *initial = g_new (double, MAX (dim, 1));
      for (guint i = 0; i < dim; i++)
        {
          const char *name = cml_system_state_name (session->system, i);
          const double *v = g_hash_table_lookup (session->initial, name);
          if (v == NULL)
            continue;
          names[n] = name;
          initial[n++] = *v;
        }
      cml_plot_add_figure_initial (self->plot, model, names, initial, n);
    }
}

gboolean
cml_plot_view_export (CmlPlotView *self, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  g_autofree char *old_title = NULL, *old_subtitle = NULL;
  CmlPlotStyle style;
  int width, height;

  g_return_val_if_fail (CML_IS_PLOT_VIEW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".png"))
    {
      /* a slide: dark as shown, at a sharp size, type sized for the slide (not the view's:
       * presentation type is for a 380-pixel plot on a projector) */
      width = 1600, height = 900;
      cml_plot_style_init_for_figure (&style, self->dark, width, height);
    }
  else
    {
      /* a paper: light, 16:9 in points (unknown extensions fail below) */
      width = 800, height = 450;
      cml_plot_style_init_for_figure (&style, FALSE, width, height);
    }

  old_title = g_strdup (cml_plot_get_title (self->plot));
  old_subtitle = g_strdup (cml_plot_get_subtitle (self->plot));
  figure_titles (self);
  gboolean ok = cml_plot_export_with_style (self->plot, path, width, height, &style, error);
  cml_plot_set_title (self->plot, old_title);
  cml_plot_set_subtitle (self->plot, old_subtitle);
  return ok;
}
