/* cml-window-models.c — choosing a model: the list of systems, a file opened or
 * dropped, the title and subtitle that name what runs (its formalism), and the switch to a
 * new model's system once it is derived.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include "cml-window-geometry.h"
#include "cml-window-sweep.h"
#include "cml-window-steer.h"

#include <string.h>

/* ---- switching models ------------------------------------------------------------------ */

/* The formalism in the header bar's subtitle, in the user's language (the core names it
 * in English, for files). */
static const char *
formalism_label (CmlFormalism f)
{
  switch (f)
    {
    case CML_FORMALISM_EULER_LAGRANGE: return _("Euler–Lagrange equations on a Lie algebroid");
    case CML_FORMALISM_NONHOLONOMIC: return _("nonholonomic (Lagrange–d'Alembert) equations");
    case CML_FORMALISM_VAKONOMIC: return _("vakonomic equations (normal extremals, Hamiltonian form on W1)");
    case CML_FORMALISM_SINGULAR: return _("singular Lagrangian (constraint algorithm with the SODE condition)");
    default: return cml_formalism_to_string (f);
    }
}

void
cml_window_update_title (CmlWindow *self)
{
  CmlModel *model;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;

  if (self->system == NULL)
    {
      gtk_label_set_text (self->title_label, "cmlab");
      gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), FALSE);
      gtk_window_set_title (GTK_WINDOW (self), "cmlab");
      return;
    }
  model = cml_system_get_model (self->system);
  gtk_label_set_text (self->title_label, model->title ? model->title : model->name);
  subtitle = g_strdup_printf ("%s · %s", model->name, formalism_label (cml_system_get_formalism (self->system)));
  gtk_label_set_text (self->subtitle_label, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), !self->presentation);
  /* the whole title and the formalism when the header bar cuts them short */
  {
    g_autofree char *tip = g_strdup_printf ("%s\n%s", model->title ? model->title : model->name, subtitle);
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label), tip);
  }
  title = g_strdup_printf ("%s — cmlab", model->title ? model->title : model->name);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

gboolean
cml_window_set_model (CmlWindow *self, CmlModel *model, GError **error)
{
  CmlSystem *sys;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (model != NULL, FALSE);

  /* a switch asked for now replaces one the window waits for */
  if (self->pending_open)
    cml_window_stop_waiting (self);

  /* derive once per model; a second visit is instant */
  sys = g_hash_table_lookup (self->systems, model);
  if (sys == NULL)
    {
      g_autoptr (GError) own_data = NULL;

      sys = cml_window_take_derived (self, model, &own_data, error);
      if (sys == NULL)
        return FALSE;
      /* the model's own initial data must start a run too (checked with the derivation, on
       * its worker): the runner's worker would fail the same way, say it here where a
       * dialog can */
      if (own_data)
        {
          g_propagate_error (error, g_steal_pointer (&own_data));
          cml_system_unref (sys);
          return FALSE;
        }
      g_hash_table_insert (self->systems, cml_model_ref (model), sys);
    }

  /* the same system again (its row clicked twice): keep the run and the panels as they are */
  if (sys == self->system && self->runner != NULL)
    {
      cml_model_picker_set_selected (self->model_picker, model);
      return TRUE;
    }

  /* a comparison belongs to the run it was made from, and so does a shooting */
  cml_window_compare_stop (self);
  cml_window_steer_cancel (self);

  if (self->runner == NULL)
    {
      CmlRunnerOptions options = cml_runner_options_default ();

      options.speed = cml_window_speeds[self->speed_index];
      self->runner = cml_runner_new (sys, &options, error);
      if (self->runner == NULL)
        return FALSE;
      cml_runner_set_integrator (self->runner, &self->integrator);
    }
  else
    cml_runner_set_system (self->runner, sys);

  cml_window_set_run_given (self, NULL); /* the new model's own initial data */

  /* the panels follow at once (commands are queued in order, so a parameter set now
   * reaches the new system); the views follow the frames in the tick */
  self->system = sys;
  cml_window_show_integrator_choice (self); /* what "automatic" is for this system */
  cml_parameter_panel_set_system (self->parameter_panel, sys);
  cml_equations_panel_set_system (self->equations_panel, sys);
  cml_section_view_set_system (self->section_view, sys, self->runner);
  cml_sweep_view_set_system (cml_window_sweep_view (self), sys, self->runner);
  cml_window_geometry_set_system (self, sys);
  cml_model_picker_set_selected (self->model_picker, model);
  gtk_stack_set_visible_child_name (self->scene_stack, "scene");
  g_clear_pointer (&self->failed_path, g_free);
  cml_window_update_title (self);
  cml_window_update_actions (self);
  return TRUE;
}

/* The model NAME_OR_PATH names (a new reference): a built-in by name, unless a file of that
 * name is meant; a file read is added to the list of systems. */
static CmlModel *
find_or_load (CmlWindow *self, const char *name_or_path, GError **error)
{
  CmlModel *model = g_file_test (name_or_path, G_FILE_TEST_IS_REGULAR)
                      ? NULL : cml_model_picker_find (self->model_picker, name_or_path);

  if (model)
    return cml_model_ref (model);
  model = cml_model_load (name_or_path, error);
  if (model)
    cml_model_picker_add_model (self->model_picker, model);
  return model;
}

gboolean
cml_window_load (CmlWindow *self, const char *name_or_path, GError **error)
{
  g_autoptr (CmlModel) model = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name_or_path != NULL, FALSE);

  model = find_or_load (self, name_or_path, error);
  return model && cml_window_set_model (self, model, error);
}

gboolean
cml_window_load_then (CmlWindow *self, const char *name_or_path, CmlWindowOpenedFunc then, gpointer then_data,
                      GError **error)
{
  g_autoptr (CmlModel) model = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (name_or_path != NULL, FALSE);

  model = find_or_load (self, name_or_path, error);
  if (model == NULL)
    return FALSE;
  cml_window_open_model_then (self, model, g_file_test (name_or_path, G_FILE_TEST_EXISTS) ? name_or_path : NULL, NULL,
                              then, then_data);
  return TRUE;
}

/* The file is read here (quick); its system is derived on a worker (cml-window-derive.c). */
void
cml_window_open_file (CmlWindow *self, GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autoptr (CmlModel) loaded = NULL;

  if (path == NULL)
    {
      uri = g_file_get_uri (file);
      cml_window_show_error (self, _("Cannot open this model"), uri);
      return;
    }
  if (cml_is_session_path (path))
    {
      cml_window_open_session_file (self, path);
      return;
    }
  if (cml_is_lesson_path (path))
    {
      if (!cml_window_open_lesson (self, path, 1, &error))
        cml_window_show_error (self, _("Could not open the lesson"), error->message);
      return;
    }
  loaded = cml_model_load (path, &error);
  if (loaded)
    {
      cml_model_picker_add_model (self->model_picker, loaded);
      cml_window_open_model (self, loaded, path, NULL);
    }
  else
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *primary = g_strdup_printf (_("Could not open “%s”"), base);

      /* nothing runs yet: the error takes the scene's place; otherwise the run goes on */
      if (self->system == NULL)
        cml_window_show_load_error (self, path, error->message);
      else
        cml_window_show_error (self, primary, error->message);
    }
}

void
cml_window_on_model_selected (CmlWindow *self, gpointer model)
{
  gtk_menu_button_popdown (self->systems_button);
  /* derived on a worker; a failure is told as "Could not start …" */
  cml_window_open_model (self, model, NULL, NULL);
}
