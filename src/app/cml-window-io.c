/* cml-window-io.c — sessions, recent sessions and data export from the window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session (cml-session.h) holds the running model's text, the newest frame's
 * parameters, the state the current run started from (computed again from what the run
 * was reset with: the model's initial data overridden by the values last applied), the
 * integrator and the view settings:
 *
 *   table-frame, presentation                  true / false
 *   (a "dark" of older sessions is left unread: the style is the person's and the
 *   desktop's, chosen in the menu and remembered, not the session's)
 *   speed                                      simulated seconds per second (×1: 1)
 *   time-plot-x, phase-plot-x                  an observable, or "time"
 *   time-plot-y, phase-plot-y                  observables, comma-separated
 *   time-plot-show-all, phase-plot-show-all    true / false
 *
 * Opening validates everything (the file, the embedded model, the system, parameters and
 * initial data through a trial simulation) before the window changes anything; opened from
 * a file, a lesson or the command line, the trial runs on a worker (cml-window-derive.c).
 *
 * The same session, made by cml_window_get_session (), is what Save Session writes and
 * what Export Animation hands to `cmlab-cli render --session`.
 */
#define G_LOG_DOMAIN "cml-window-io"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include "cml-error.h"
#include "cml-output.h"
#include "cml-parameter-panel-private.h"
#include "cml-session.h"

#include <math.h>
#include <string.h>

#define SESSION_MIME  "application/x-cmlab-session"
#define SESSION_EXT   ".cmlsession"
#define N_RECENT      5

enum
{
  IO_SAVE_SESSION,
  IO_OPEN_SESSION,
  IO_EXPORT_DATA,
};

gboolean
cml_is_session_path (const char *path)
{
  g_autofree char *lower = path ? g_ascii_strdown (path, -1) : NULL;

  return lower && g_str_has_suffix (lower, SESSION_EXT);
}

GHashTable *
cml_window_copy_values (GHashTable *from)
{
  GHashTable *to = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter it;
  gpointer k, v;

  if (from)
    {
      g_hash_table_iter_init (&it, from);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (to, g_strdup (k), g_memdup2 (v, sizeof (double)));
    }
  return to;
}

void
cml_window_set_run_given (CmlWindow *self, GHashTable *given)
{
  g_clear_pointer (&self->run_given, g_hash_table_unref);
  if (given)
    self->run_given = cml_window_copy_values (given);
}

/* A simulation of SYS at t = 0 with PARAMS (name -> double*, may be NULL), INTEGRATOR
 * (may be NULL) and the model's initial data overridden by GIVEN (may be NULL).  Any
 * thread: on a worker only once SYS is prepared for INTEGRATOR's kind (cml_system_prepare
 * on the thread that owns it). */
CmlSimulation *
cml_window_trial_simulation (CmlSystem *sys, GHashTable *params, const CmlIntegratorOptions *integrator,
                             GHashTable *given, GError **error)
{
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, error);
  GHashTableIter it;
  gpointer k, v;

  if (sim == NULL)
    return NULL;
  if (params)
    {
      g_hash_table_iter_init (&it, params);
      while (g_hash_table_iter_next (&it, &k, &v))
        if (!cml_simulation_set_param (sim, k, *(double *) v, error))
          return NULL;
    }
  if (integrator && !cml_simulation_set_integrator (sim, integrator, error))
    return NULL;
  if (!cml_simulation_reset (sim, given, error))
    return NULL;
  return g_steal_pointer (&sim);
}

/* The newest parameters of the chosen system (name -> double*). */
static GHashTable *
current_params (CmlWindow *self)
{
  GHashTable *params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  CmlModel *model = cml_system_get_model (self->system);
  CmlFrame *frame;

  cml_runner_sync (self->runner);
  frame = cml_runner_get_frame (self->runner);
  if (frame->system == self->system && frame->n_params == model->params->len)
    for (guint k = 0; k < frame->n_params; k++)
      {
        CmlParam *p = model->params->pdata[k];
        g_hash_table_insert (params, g_strdup (p->name), g_memdup2 (&frame->params[k], sizeof (double)));
      }
  cml_frame_unref (frame);
  return params;
}

/* ---- view settings ----------------------------------------------------------------------- */

static void
put_plot_view (GHashTable *view, const char *prefix, CmlPlotView *plot)
{
  g_auto (GStrv) ys = cml_plot_view_dup_y_names (plot);
  const char *x = cml_plot_view_get_x_name (plot);

  g_hash_table_insert (view, g_strdup_printf ("%s-x", prefix), g_strdup (x ? x : "time"));
  g_hash_table_insert (view, g_strdup_printf ("%s-y", prefix), g_strjoinv (",", ys));
  g_hash_table_insert (view, g_strdup_printf ("%s-show-all", prefix),
                       g_strdup (cml_plot_view_get_show_all (plot) ? "true" : "false"));
}

static GHashTable *
collect_view (CmlWindow *self)
{
  GHashTable *view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_hash_table_insert (view, g_strdup ("table-frame"), g_strdup (self->table_frame ? "true" : "false"));
  {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];

    g_hash_table_insert (view, g_strdup ("speed"),
                         g_strdup (g_ascii_formatd (buf, sizeof buf, "%g", cml_window_speeds[self->speed_index])));
  }
  g_hash_table_insert (view, g_strdup ("presentation"), g_strdup (self->presentation ? "true" : "false"));
  put_plot_view (view, "time-plot", self->time_plot);
  put_plot_view (view, "phase-plot", self->phase_plot);
  return view;
}

static gboolean
view_bool (GHashTable *view, const char *key, gboolean *out)
{
  const char *v = g_hash_table_lookup (view, key);

  if (v == NULL)
    return FALSE;
  *out = g_ascii_strcasecmp (v, "true") == 0 || g_str_equal (v, "1");
  return TRUE;
}

static void
apply_plot_view (GHashTable *view, const char *prefix, CmlPlotView *plot)
{
  g_autofree char *kx = g_strdup_printf ("%s-x", prefix);
  g_autofree char *ky = g_strdup_printf ("%s-y", prefix);
  g_autofree char *ka = g_strdup_printf ("%s-show-all", prefix);
  const char *x = g_hash_table_lookup (view, kx);
  const char *y = g_hash_table_lookup (view, ky);
  CmlSystem *sys = cml_plot_view_get_system (plot);
  gboolean all;

  if (y && sys)
    {
      g_auto (GStrv) ys = g_strsplit (y, ",", -1);
      g_autoptr (GStrvBuilder) known = g_strv_builder_new ();
      g_auto (GStrv) names = NULL;

      /* unknown names are dropped quietly: a forged file must not warn (fatal in tests) */
      /* at most CML_SESSION_MAX_VIEW_PLOTS series, each once (a forged list of 10⁵ hung the window) */
      const char *taken[CML_SESSION_MAX_VIEW_PLOTS];
      guint n_known = 0;
      for (guint k = 0; ys[k] && n_known < CML_SESSION_MAX_VIEW_PLOTS; k++)
        {
          gboolean again = FALSE;
          for (guint j = 0; j < n_known && !again; j++)
            again = g_str_equal (taken[j], ys[k]);
          if (*ys[k] && !again && cml_system_observable_index (sys, ys[k]) >= 0)
            {
              g_strv_builder_add (known, ys[k]);
              taken[n_known++] = ys[k];
            }
        }
      names = g_strv_builder_end (known);
      if (x && !g_str_equal (x, "time") && cml_system_observable_index (sys, x) < 0)
        x = NULL;
      cml_plot_view_set_series (plot, x, (const char *const *) names);
    }
  if (view_bool (view, ka, &all))
    cml_plot_view_set_show_all (plot, all);
}

void
cml_window_apply_pending_view (CmlWindow *self)
{
  g_autoptr (GHashTable) view = g_steal_pointer (&self->pending_view);

  if (view == NULL)
    return;
  apply_plot_view (view, "time-plot", self->time_plot);
  apply_plot_view (view, "phase-plot", self->phase_plot);
}

/* ---- recent sessions --------------------------------------------------------------------- */

static void
add_recent (const char *path)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GtkRecentData data = { 0 };
  static char *groups[] = { (char *) "cmlab", NULL };

  if (uri == NULL)
    return;
  data.display_name = NULL;
  data.mime_type = (char *) SESSION_MIME;
  data.app_name = (char *) "cmlab";
  data.app_exec = (char *) "cmlab %f";
  data.groups = groups;
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static int
compare_modified (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *ia = *(GtkRecentInfo **) a, *ib = *(GtkRecentInfo **) b;

  return -g_date_time_compare (gtk_recent_info_get_modified (ia), gtk_recent_info_get_modified (ib));
}

void
cml_window_rebuild_recent (CmlWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr (GPtrArray) sessions = g_ptr_array_new ();
  guint shown = 0;

  if (self->recent_section == NULL)
    {
      g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
      return;
    }
  for (GList *l = items; l; l = l->next)
    {
      GtkRecentInfo *info = l->data;

      if (g_strcmp0 (gtk_recent_info_get_mime_type (info), SESSION_MIME) == 0
          || cml_is_session_path (gtk_recent_info_get_uri (info)))
        g_ptr_array_add (sessions, info);
    }
  g_ptr_array_sort (sessions, compare_modified);

  g_menu_remove_all (self->recent_section);
  for (guint k = 0; k < sessions->len && shown < N_RECENT; k++)
    {
      GtkRecentInfo *info = sessions->pdata[k];
      g_autofree char *path = g_filename_from_uri (gtk_recent_info_get_uri (info), NULL, NULL);
      g_autofree char *base = NULL;
      g_autoptr (GMenuItem) item = NULL;

      if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      base = g_path_get_basename (path);
      item = g_menu_item_new (base, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (path));
      g_menu_append_item (self->recent_section, item);
      shown++;
    }
  if (shown == 0)
    {
      g_autoptr (GMenuItem) item = g_menu_item_new (_("No recent sessions"), "win.no-recent");
      g_menu_append_item (self->recent_section, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

/* ---- sessions ---------------------------------------------------------------------------- */

CmlSession *
cml_window_get_session (CmlWindow *self, GError **error)
{
  g_autoptr (GHashTable) params = NULL;
  g_autoptr (GHashTable) view = NULL;
  g_autoptr (CmlSimulation) sim = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  if (self->runner == NULL || self->system == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no model is running"));
      return NULL;
    }
  params = current_params (self);
  /* the state this run started from: the model's initial data with what it was reset
   * from, under the current parameters (as the worker computed it) */
  sim = cml_window_trial_simulation (self->system, params, &self->integrator, self->run_given, error);
  if (sim == NULL)
    return NULL;
  view = collect_view (self);
  return cml_session_new (sim, cml_simulation_get_state (sim), view);
}

gboolean
cml_window_save_session (CmlWindow *self, const char *path, GError **error)
{
  g_autoptr (CmlSession) session = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  session = cml_window_get_session (self, error);
  if (session == NULL || !cml_session_save (session, path, error))
    return FALSE;
  add_recent (path);
  cml_window_rebuild_recent (self);
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *done = g_strdup_printf (_("Session saved as “%s”"), base);

    cml_window_show_toast (self, done);
  }
  return TRUE;
}

static guint
nearest_tolerance (double rtol)
{
  guint best = CML_DEFAULT_TOLERANCE_INDEX;
  double best_d = INFINITY;

  for (guint k = 0; k < CML_N_TOLERANCES; k++)
    {
      double d = fabs (log10 (rtol) - log10 (cml_window_tolerances[k]));
      if (d < best_d)
        best = k, best_d = d;
    }
  return best;
}

static guint
nearest_step (double h)
{
  guint best = CML_DEFAULT_STEP_INDEX;
  double best_d = INFINITY;

  for (guint k = 0; k < CML_N_STEPS; k++)
    {
      double d = fabs (log10 (h) - log10 (cml_window_steps[k]));
      if (d < best_d)
        best = k, best_d = d;
    }
  return best;
}

CmlModel *
cml_window_session_model (CmlWindow *self, CmlSession *session)
{
  CmlModel *model = session->model;
  CmlModel *known = cml_model_picker_find (self->model_picker, model->name);

  /* the same model text as one the window has: use that one (its system is derived) */
  if (known && g_strcmp0 (known->text, model->text) == 0)
    return known;
  if (self->system && g_strcmp0 (cml_system_get_model (self->system)->text, model->text) == 0)
    return cml_system_get_model (self->system);
  return model;
}

gboolean
cml_window_open_session (CmlWindow *self, const char *path, GError **error)
{
  g_autoptr (CmlSession) session = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  session = cml_session_load (path, error);
  if (session == NULL)
    return FALSE;
  return cml_window_apply_session (self, session, cml_window_session_model (self, session), path, error);
}

/* The session's model derived or not (derived here if not): everything checked before the
 * window changes — the trial run of the session's data here, unless TRIED says it was run
 * (on a worker, cml-window-derive.c) and went well. */
gboolean
cml_window_apply_session_tried (CmlWindow *self, CmlSession *session, CmlModel *model, const char *path,
                                gboolean tried, GError **error)
{
  g_autoptr (CmlSimulation) trial = NULL;
  CmlSystem *sys;
  g_autoptr (CmlSystem) new_sys = NULL;
  gboolean b;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session != NULL && model != NULL, FALSE);

  sys = g_hash_table_lookup (self->systems, model);
  if (sys == NULL)
    {
      new_sys = cml_window_take_derived (self, model, NULL, error);
      if (new_sys == NULL)
        return FALSE;
      sys = new_sys;
    }
  if (!tried)
    {
      trial = cml_window_trial_simulation (sys, session->params, &session->integrator, session->initial, error);
      if (trial == NULL)
        {
          if (error && *error)
            g_prefix_error (error, "%s: ", path);
          return FALSE;
        }
    }
  if (new_sys)
    g_hash_table_insert (self->systems, cml_model_ref (model), g_steal_pointer (&new_sys));
  if (model == session->model && model->path)
    cml_model_picker_add_model (self->model_picker, model);

  if (!cml_window_set_model (self, model, error))
    return FALSE;

  /* the integrator: the dropdowns show the nearest choice, the run gets the exact options */
  gtk_drop_down_set_selected (self->integrator_dropdown, session->integrator.kind);
  gtk_drop_down_set_selected (self->tolerance_dropdown, nearest_tolerance (session->integrator.rtol));
  gtk_drop_down_set_selected (self->step_dropdown, nearest_step (session->integrator.h_fixed));
  self->integrator = session->integrator;
  cml_runner_set_integrator (self->runner, &self->integrator);

  /* parameters: through the panel's fields where it has one (the runner follows) */
  {
    GHashTableIter it;
    gpointer k, v;

    g_hash_table_iter_init (&it, session->params);
    while (g_hash_table_iter_next (&it, &k, &v))
      {
        GtkSpinButton *spin = cml_parameter_panel_get_param_spin (self->parameter_panel, k);

        if (spin)
          gtk_spin_button_set_value (spin, *(double *) v);
        cml_runner_set_param (self->runner, k, *(double *) v);
      }
  }

  /* the run starts from the session's initial state (integrated: a lesson's step played
   * from its recording sets that again once it is installed) */
  cml_window_set_run_given (self, session->initial);
  cml_runner_set_recording (self->runner, NULL);
  cml_runner_reset (self->runner, self->run_given);

  /* view settings: the window's now, the plots' once they show the system */
  if (view_bool (session->view, "table-frame", &b))
    cml_window_set_table_frame (self, b);
  if (view_bool (session->view, "presentation", &b))
    cml_window_set_presentation (self, b);
  if (g_hash_table_contains (session->view, "speed"))
    {
      /* the nearest of the window's speeds */
      double speed = g_ascii_strtod (g_hash_table_lookup (session->view, "speed"), NULL);
      guint best = CML_DEFAULT_SPEED_INDEX;

      for (guint k = 0; speed > 0 && k < CML_N_SPEEDS; k++)
        if (fabs (log (cml_window_speeds[k] / speed)) < fabs (log (cml_window_speeds[best] / speed)))
          best = k;
      cml_window_set_speed_index (self, best);
    }
  g_clear_pointer (&self->pending_view, g_hash_table_unref);
  self->pending_view = g_hash_table_ref (session->view);
  if (self->shown_system == self->system)
    cml_window_apply_pending_view (self);

  /* a lesson's step is not a session to reopen */
  if (!cml_is_lesson_path (path))
    {
      add_recent (path);
      cml_window_rebuild_recent (self);
    }
  return TRUE;
}

gboolean
cml_window_apply_session (CmlWindow *self, CmlSession *session, CmlModel *model, const char *path, GError **error)
{
  return cml_window_apply_session_tried (self, session, model, path, FALSE, error);
}

/* ---- data export ------------------------------------------------------------------------- */

gboolean
cml_window_export_data (CmlWindow *self, const char *path, GError **error)
{
  g_autofree char *lower = NULL;
  CmlOutputFormat format;
  CmlSystem *sys;
  CmlPlotColumn *tcol;
  g_autoptr (GHashTable) params = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (CmlOutput) out = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree double *obs = NULL;
  g_autofree const double **data = NULL;
  guint n_obs, n_rows;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".csv"))
    format = CML_OUTPUT_CSV;
  else if (g_str_has_suffix (lower, ".json"))
    format = CML_OUTPUT_JSON;
  else
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s: unknown data format (use .csv or .json)"), path);
      return FALSE;
    }

  sys = cml_plot_view_get_system (self->time_plot);
  if (sys == NULL || self->runner == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no run to export"));
      return FALSE;
    }
  /* the header: the model, the newest parameters, the run's initial state */
  params = sys == self->system ? current_params (self) : NULL;
  sim = cml_window_trial_simulation (sys, params, &self->integrator, sys == self->system ? self->run_given : NULL, error);
  if (sim == NULL)
    return FALSE;

  n_obs = cml_system_n_observables (sys);
  for (guint j = 0; j < n_obs; j++)
    g_ptr_array_add (names, (gpointer) cml_system_observable_name (sys, j));
  g_ptr_array_add (names, NULL);

  tcol = cml_plot_view_get_time_column (self->time_plot);
  n_rows = cml_plot_column_get_n (tcol);
  data = g_new (const double *, MAX (n_obs, 1));
  for (guint j = 0; j < n_obs; j++)
    {
      CmlPlotColumn *c = cml_plot_view_get_column (self->time_plot, j);

      data[j] = cml_plot_column_get_data (c);
      n_rows = MIN (n_rows, cml_plot_column_get_n (c));
    }

  out = cml_output_new (path, format, error);
  if (out == NULL)
    return FALSE;
  if (!cml_output_begin (out, sim, (const char *const *) names->pdata, error))
    return FALSE;
  obs = g_new (double, MAX (n_obs, 1));
  {
    const double *t = cml_plot_column_get_data (tcol);

    for (guint i = 0; i < n_rows; i++)
      {
        for (guint j = 0; j < n_obs; j++)
          obs[j] = data[j][i];
        if (!cml_output_row_obs (out, t[i], obs, error))
          return FALSE;
      }
  }
  if (!cml_output_finish (out, error))
    return FALSE;
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *done = g_strdup_printf (ngettext ("%u row written to “%s”", "%u rows written to “%s”", n_rows), n_rows, base);

    cml_window_show_toast (self, done);
  }
  return TRUE;
}

/* ---- animation export -------------------------------------------------------------------- */

static void
export_animation_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);

  if (self->export_dialog == NULL)
    {
      self->export_dialog = cml_export_dialog_new (self);
      g_object_add_weak_pointer (G_OBJECT (self->export_dialog), (gpointer *) &self->export_dialog);
    }
  cml_export_dialog_refresh (self->export_dialog);
  gtk_window_present (GTK_WINDOW (self->export_dialog));
}

/* ---- actions and file choosers ----------------------------------------------------------- */

static char *
default_name (CmlWindow *self, const char *suffix)
{
  CmlModel *model = self->system ? cml_system_get_model (self->system) : NULL;

  return g_strdup_printf ("%s%s", model ? model->name : "cmlab", suffix);
}

static void
close_io_chooser (CmlWindow *self)
{
  if (self->io_chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->io_chooser));
      g_clear_object (&self->io_chooser);
    }
}

/* Saves, opens or exports as KIND says, and says how it went: a toast for a file written,
 * a dialog for an error. */
static void
run_io (CmlWindow *self, int kind, const char *path)
{
  g_autoptr (GError) error = NULL;
  const char *primary = NULL;

  switch (kind)
    {
    case IO_SAVE_SESSION:
      if (!cml_window_save_session (self, path, &error))
        primary = _("Could not save the session");
      break;
    case IO_OPEN_SESSION:
      cml_window_open_session_file (self, path);
      break;
    case IO_EXPORT_DATA:
      if (!cml_window_export_data (self, path, &error))
        primary = _("Could not export the data");
      break;
    default:
      break;
    }
  if (primary)
    cml_window_show_error (self, primary, error ? error->message : NULL);
}

typedef struct
{
  CmlWindow *self;
  int        kind;
  char      *path;
} PendingIo;

static void
on_replace_response (AdwMessageDialog *dialog, const char *response, PendingIo *io)
{
  /* the dialog closes itself */
  if (g_str_equal (response, "replace"))
    run_io (io->self, io->kind, io->path);
  g_object_unref (io->self);
  g_free (io->path);
  g_free (io);
}

/* The name the chooser confirmed got an extension added: a file of that name is the
 * user's, replace it only when asked to. */
static void
confirm_replace (CmlWindow *self, int kind, const char *path)
{
  PendingIo *io = g_new0 (PendingIo, 1);
  g_autofree char *base = g_path_get_basename (path);
  GtkWidget *dialog;

  io->self = g_object_ref (self);
  io->kind = kind;
  io->path = g_strdup (path);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), NULL,
                                   _("A file of this name already exists in the folder."));
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  adw_message_dialog_format_heading (ADW_MESSAGE_DIALOG (dialog), _("Replace “%s”?"), base);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"),
                                    "replace", _("_Replace"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace", ADW_RESPONSE_DESTRUCTIVE);
  /* Enter and Escape keep the file */
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (on_replace_response), io);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_io_response (GtkNativeDialog *chooser, int response, CmlWindow *self)
{
  g_autoptr (GFile) file = NULL;
  g_autofree char *path = NULL;
  gboolean extended = FALSE;
  int kind = self->io_kind;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      path = file ? g_file_get_path (file) : NULL;
    }
  if (path && kind == IO_SAVE_SESSION && !cml_is_session_path (path))
    {
      char *with = g_strconcat (path, SESSION_EXT, NULL);
      g_free (path);
      path = with;
      extended = TRUE;
    }
  if (path && kind == IO_EXPORT_DATA)
    {
      g_autofree char *lower = g_ascii_strdown (path, -1);

      if (!g_str_has_suffix (lower, ".csv") && !g_str_has_suffix (lower, ".json"))
        {
          GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
          const char *ext = filter && g_strcmp0 (gtk_file_filter_get_name (filter), "JSON") == 0 ? ".json" : ".csv";
          char *with = g_strconcat (path, ext, NULL);
          g_free (path);
          path = with;
          extended = TRUE;
        }
    }
  close_io_chooser (self);
  if (path == NULL)
    return;
  if (extended && g_file_test (path, G_FILE_TEST_EXISTS))
    confirm_replace (self, kind, path);
  else
    run_io (self, kind, path);
}

static void
run_io_chooser (CmlWindow *self, int kind)
{
  gboolean save = kind != IO_OPEN_SESSION;
  const char *title = kind == IO_SAVE_SESSION ? _("Save Session")
                      : kind == IO_OPEN_SESSION ? _("Open Session") : _("Export Data");
  GtkFileChooser *fc;

  close_io_chooser (self);
  self->io_kind = kind;
  self->io_chooser = gtk_file_chooser_native_new (title, GTK_WINDOW (self),
                                                  save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN,
                                                  kind == IO_SAVE_SESSION ? _("_Save")
                                                  : kind == IO_OPEN_SESSION ? _("_Open") : _("_Export"),
                                                  _("_Cancel"));
  fc = GTK_FILE_CHOOSER (self->io_chooser);
  if (kind == IO_EXPORT_DATA)
    {
      g_autoptr (GtkFileFilter) csv = gtk_file_filter_new ();
      g_autoptr (GtkFileFilter) json = gtk_file_filter_new ();
      g_autofree char *name = default_name (self, "-data.csv");

      gtk_file_filter_set_name (csv, "CSV");
      gtk_file_filter_add_pattern (csv, "*.csv");
      gtk_file_chooser_add_filter (fc, csv);
      gtk_file_filter_set_name (json, "JSON");
      gtk_file_filter_add_pattern (json, "*.json");
      gtk_file_chooser_add_filter (fc, json);
      gtk_file_chooser_set_current_name (fc, name);
    }
  else
    {
      g_autoptr (GtkFileFilter) sessions = gtk_file_filter_new ();
      g_autoptr (GtkFileFilter) all = gtk_file_filter_new ();

      gtk_file_filter_set_name (sessions, _("cmlab sessions (*.cmlsession)"));
      gtk_file_filter_add_pattern (sessions, "*" SESSION_EXT);
      gtk_file_filter_add_mime_type (sessions, SESSION_MIME);
      gtk_file_chooser_add_filter (fc, sessions);
      gtk_file_filter_set_name (all, _("All files"));
      gtk_file_filter_add_pattern (all, "*");
      gtk_file_chooser_add_filter (fc, all);
      gtk_file_chooser_set_filter (fc, sessions);
      if (kind == IO_SAVE_SESSION)
        {
          g_autofree char *name = default_name (self, SESSION_EXT);
          gtk_file_chooser_set_current_name (fc, name);
        }
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (self->io_chooser), TRUE);
  g_signal_connect (self->io_chooser, "response", G_CALLBACK (on_io_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->io_chooser));
}

static void
save_session_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  run_io_chooser (CML_WINDOW (widget), IO_SAVE_SESSION);
}

static void
open_session_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  run_io_chooser (CML_WINDOW (widget), IO_OPEN_SESSION);
}

static void
export_data_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  run_io_chooser (CML_WINDOW (widget), IO_EXPORT_DATA);
}

static void
open_recent_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_window_open_session_file (CML_WINDOW (widget), g_variant_get_string (param, NULL));
}

static void
no_recent_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
}

void
cml_window_class_add_io_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.save-session", NULL, save_session_action);
  gtk_widget_class_install_action (widget_class, "win.open-session", NULL, open_session_action);
  gtk_widget_class_install_action (widget_class, "win.export-data", NULL, export_data_action);
  gtk_widget_class_install_action (widget_class, "win.export-animation", NULL, export_animation_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.export-animation", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_E, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.export-animation", NULL);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.no-recent", NULL, no_recent_action);
}

static void
on_menu_shown (CmlWindow *self)
{
  cml_window_rebuild_recent (self);
}

void
cml_window_io_init (CmlWindow *self)
{
  GtkPopover *popover = gtk_menu_button_get_popover (self->menu_button);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.no-recent", FALSE);
  if (popover)
    g_signal_connect_swapped (popover, "show", G_CALLBACK (on_menu_shown), self);
  cml_window_rebuild_recent (self);
}

void
cml_window_io_dispose (CmlWindow *self)
{
  close_io_chooser (self);
  /* an export still running is stopped (the child cleans up after itself) */
  if (self->export_dialog)
    gtk_window_destroy (GTK_WINDOW (self->export_dialog));
  g_clear_pointer (&self->run_given, g_hash_table_unref);
  g_clear_pointer (&self->pending_view, g_hash_table_unref);
}
