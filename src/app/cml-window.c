/* cml-window.c — the main window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One tick callback per window does all the hand-off from the worker (one tick callback,
 * no idle callback per step): it takes the newest frame, copies the history rows that are new
 * since the last tick into one reusable buffer, pushes them to the 3-D view (trails) and
 * the plots, hands the frame to the 3-D view, and refreshes the status line and the
 * equations panel at a reading pace.  Nothing here waits for the worker.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cml-atomic-file.h"
#include "cml-resources.h"
#include "cml-run-failure.h"
#include "cml-style.h"
#include "cml-window-geometry.h"
#include "cml-window-sweep.h"
#include "cml-window-steer.h"

#include <math.h>
#include <string.h>


#define HISTORY_ROWS    4096     /* rows copied per read */
#define STATUS_US       (100000) /* status line: 10 Hz */
#define EQUATIONS_US    (100000) /* equations panel: 10 Hz */

G_DEFINE_FINAL_TYPE (CmlWindow, cml_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_PRESENTATION,
  PROP_DARK,
  PROP_STYLE,
  PROP_TABLE_FRAME,
  PROP_SIDEBAR_VISIBLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- errors ---------------------------------------------------------------------------- */

void
cml_window_show_error (CmlWindow *self, const char *primary, const char *secondary)
{
  GtkWidget *dialog;

  /* tests and scripted runs have nobody to read a dialog */
  if (g_getenv ("CMLAB_NO_DIALOGS"))
    {
      g_message ("%s: %s", primary, secondary ? secondary : "");
      return;
    }
  dialog = adw_message_dialog_new (GTK_WINDOW (self), primary, NULL);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  if (secondary)
    {
      /* FILE:LINE messages are for copying into an editor: a label that can be selected
       * in the body's place */
      GtkWidget *label = gtk_label_new (secondary);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), label);
    }
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* A model that could not be opened: the scene's place says so (file, line and problem)
 * until a model runs, rather than a dialog over a window that shows something else. */
void
cml_window_show_load_error (CmlWindow *self, const char *path, const char *message)
{
  g_autofree char *base = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (CML_IS_WINDOW (self));

  g_free (self->failed_path);
  self->failed_path = g_strdup (path);
  base = path ? g_path_get_basename (path) : NULL;
  title = base ? g_strdup_printf (_("Could not open “%s”"), base) : g_strdup (_("Could not open the model"));
  gtk_label_set_text (self->error_title, title);
  gtk_label_set_text (self->error_detail, message ? message : "");
  gtk_widget_set_visible (self->error_retry_button, path != NULL);
  gtk_stack_set_visible_child_name (self->scene_stack, "error");
  if (self->system == NULL)
    {
      gtk_label_set_text (self->title_label, title);
      gtk_window_set_title (GTK_WINDOW (self), "cmlab");
    }
  g_message ("%s: %s", title, message ? message : "");
}

static void
on_toast_dismissed (AdwToast *toast, CmlWindow *self)
{
  if (self->toast == toast)
    g_clear_object (&self->toast);
}

/* A passing note over the 3-D view (libadwaita's toast): a new one takes the place of the
 * one shown, rather than waiting behind it. */
void
cml_window_show_toast (CmlWindow *self, const char *text)
{
  g_autofree char *markup = NULL;

  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (text != NULL);

  if (self->toast)
    {
      g_autoptr (AdwToast) shown = g_steal_pointer (&self->toast);

      adw_toast_dismiss (shown);
    }
  /* a toast's title is Pango markup: a file's name may hold an & or a < */
  markup = g_markup_escape_text (text, -1);
  self->toast = adw_toast_new (markup);
  /* long enough to read twice */
  adw_toast_set_timeout (self->toast, 4);
  g_signal_connect_object (self->toast, "dismissed", G_CALLBACK (on_toast_dismissed), self, 0);
  g_object_set_data_full (G_OBJECT (self->toast), "cml-text", g_strdup (text), g_free);
  /* the overlay holds a reference of its own until the toast is dismissed */
  adw_toast_overlay_add_toast (self->toast_overlay, g_object_ref (self->toast));
}

const char *
cml_window_get_toast (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  return self->toast ? g_object_get_data (G_OBJECT (self->toast), "cml-text") : NULL;
}

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

static void
update_title (CmlWindow *self)
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
  update_title (self);
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

static void
on_model_selected (CmlWindow *self, gpointer model)
{
  gtk_popover_popdown (self->systems_popover);
  /* derived on a worker; a failure is told as "Could not start …" */
  cml_window_open_model (self, model, NULL, NULL);
}

/* ---- panels to runner ------------------------------------------------------------------ */

static void
on_param_changed (CmlWindow *self, const char *name, double value)
{
  if (self->runner)
    cml_runner_set_param (self->runner, name, value);
  cml_window_compare_param (self, name, value);
}

static void
on_restart_requested (CmlWindow *self, GHashTable *given)
{
  cml_window_set_run_given (self, given);
  if (self->runner)
    cml_runner_reset (self->runner, given);
  cml_window_compare_reset (self, given);
}

/* A click or drag in a phase portrait, or a body dragged in the scene: the run starts from
 * that point (one undo step per drag); the panel shows what the constraints made of it. */
static void
on_pick_initial (CmlWindow *self, const char *x_name, double x, const char *y_name, double y, gboolean done,
                 gpointer view)
{
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GError) error = NULL;

  g_hash_table_insert (values, g_strdup (x_name), g_memdup2 (&x, sizeof x));
  g_hash_table_insert (values, g_strdup (y_name), g_memdup2 (&y, sizeof y));
  if (!cml_parameter_panel_start_from_step (self->parameter_panel, values, !self->picking, &error))
    cml_window_show_toast (self, error->message);
  self->picking = !done;
}

typedef struct
{
  CmlWindow *win;
  double     x, y;
  int        tries;
} PendingOrbit;

static void
pending_orbit_free (gpointer data)
{
  PendingOrbit *p = data;
  if (p->win)
    g_object_remove_weak_pointer (G_OBJECT (p->win), (gpointer *) &p->win);
  g_free (p);
}

/* Starts the orbit once the runner shows the chosen system (a few frames after start). */
static gboolean
start_pending_orbit (gpointer data)
{
  PendingOrbit *p = data;
  g_autoptr (GError) error = NULL;

  if (p->win == NULL)
    return G_SOURCE_REMOVE; /* the window is gone */
  if (p->win->shown_system != p->win->system && p->tries++ < 100)
    return G_SOURCE_CONTINUE;
  if (!cml_section_view_start_orbit (p->win->section_view, p->x, p->y, &error))
    g_printerr ("cmlab: %s\n", error->message);
  return G_SOURCE_REMOVE;
}

void
cml_window_start_orbit (CmlWindow *self, double x, double y)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->side_stack, "section");
  PendingOrbit *p = g_new0 (PendingOrbit, 1);
  p->win = self, p->x = x, p->y = y;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &p->win);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 50, start_pending_orbit, p, pending_orbit_free);
}

/* The closed form is drawn faint in the scene while the time plot shows it dashed. */
static void
on_show_reference (CmlWindow *self)
{
  gboolean show = FALSE;
  g_object_get (self->time_plot, "show-reference", &show, NULL);
  cml_scene_view_set_show_reference (self->scene_view, show);
}

/* ---- view settings --------------------------------------------------------------------- */

gboolean
cml_window_get_dark (CmlWindow *self)
{
  return cml_style_is_dark ();
}

/* Dark or light for this run (--dark, a test): the choice remembered is left alone. */
void
cml_window_set_dark (CmlWindow *self, gboolean dark)
{
  /* application-wide, like the desktop's dark style */
  cml_style_set_choice (dark ? "dark" : "light");
}

/* The menu's choice (follow the desktop, light or dark): applied to every window and
 * remembered for the next run. */
static void
cml_window_set_style_choice (CmlWindow *self, const char *choice)
{
  if (choice == NULL || !cml_style_set_choice (choice))
    return;
  cml_style_remember (self->settings);
}

/* cmlab's own drawings in the style the widgets have: dark or light, and in black and
 * white with thicker lines when the desktop asks for high contrast. */
static void
on_style_changed (CmlWindow *self)
{
  gboolean dark = cml_window_get_dark (self);
  gboolean hc = cml_style_is_high_contrast ();

  cml_scene_view_set_style (self->scene_view, dark, hc);
  cml_plot_view_set_style (self->time_plot, dark, hc);
  cml_plot_view_set_style (self->phase_plot, dark, hc);
  cml_section_view_set_style (self->section_view, dark, hc, self->presentation);
  cml_sweep_view_set_style (cml_window_sweep_view (self), dark, hc, self->presentation);
  cml_geometry_view_set_style (cml_window_geometry_view (self), dark, hc, self->presentation);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DARK]);
}

static void
on_style_choice_changed (CmlWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STYLE]);
}

void
cml_window_set_sidebar_visible (CmlWindow *self, gboolean visible)
{
  visible = !!visible;
  if (self->sidebar_visible == visible)
    return;
  self->sidebar_visible = visible;
  gtk_widget_set_visible (GTK_WIDGET (self->parameter_panel), visible);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIDEBAR_VISIBLE]);
}

/* Presentation mode is for a projector: the side panel folds away (its button brings it
 * back), the 3-D view and the plots share the room, type and lines grow.  Leaving it
 * restores the panel and the split as they were. */
void
cml_window_set_presentation (CmlWindow *self, gboolean presentation)
{
  presentation = !!presentation;
  if (self->presentation == presentation)
    return;
  self->presentation = presentation;
  if (presentation)
    {
      int cw = gtk_widget_get_width (GTK_WIDGET (self->content_paned));

      self->saved_sidebar_visible = self->sidebar_visible;
      /* the plots column's width: the paned keeps its end child's width when it is resized */
      self->saved_content_position = self->layout_done && cw > 0
                                       ? cw - gtk_paned_get_position (self->content_paned) : -1;
      gtk_widget_add_css_class (GTK_WIDGET (self), "presentation");
      cml_window_set_sidebar_visible (self, FALSE);
      self->layout_done = FALSE;
      self->layout_wait = 2;
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self), "presentation");
      cml_window_set_sidebar_visible (self, self->saved_sidebar_visible);
      if (self->saved_content_position >= 0)
        {
          int cw = gtk_widget_get_width (GTK_WIDGET (self->content_paned));

          /* the column as wide as it was; when the side panel comes back the view gives
           * up the room, and the column keeps its width */
          gtk_paned_set_position (self->content_paned, MAX (cw - self->saved_content_position, 0));
          self->saved_content_position = -1;
          self->layout_done = TRUE;
        }
      else
        self->layout_done = FALSE;
    }
  /* the integrator's settings and the open button are the teacher's, not the hall's:
   * they leave the header bar to the title */
  gtk_widget_set_visible (GTK_WIDGET (self->integrator_dropdown), !presentation);
  cml_window_show_integrator_choice (self);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), !presentation);
  /* the header bar shows the speed: the status line's room goes to the scrubber and the
   * distance */
  gtk_widget_set_visible (GTK_WIDGET (self->speed_label), !presentation);
  /* on a projector the title is read whole, on two lines when it must, and the model's
   * file name and formalism (the teacher's) make room for it */
  gtk_label_set_single_line_mode (self->title_label, !presentation);
  gtk_label_set_wrap (self->title_label, presentation);
  gtk_label_set_lines (self->title_label, presentation ? 2 : -1);
  gtk_label_set_justify (self->title_label, GTK_JUSTIFY_CENTER);
  /* a wrapping label asks for its whole text on one line: bounded, the header bar does
   * not widen the window for it */
  gtk_label_set_width_chars (self->title_label, presentation ? 12 : -1);
  gtk_label_set_max_width_chars (self->title_label, presentation ? 32 : -1);
  update_title (self);
  cml_scene_view_set_presentation (self->scene_view, presentation);
  cml_window_pen_presentation (self, presentation);
  cml_timeline_set_compact (self->timeline, presentation);
  cml_plot_view_set_presentation (self->time_plot, presentation);
  cml_plot_view_set_presentation (self->phase_plot, presentation);
  cml_section_view_set_style (self->section_view, cml_window_get_dark (self), cml_style_is_high_contrast (),
                              presentation);
  cml_sweep_view_set_style (cml_window_sweep_view (self), cml_window_get_dark (self), cml_style_is_high_contrast (),
                            presentation);
  cml_geometry_view_set_style (cml_window_geometry_view (self), cml_window_get_dark (self),
                               cml_style_is_high_contrast (), presentation);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRESENTATION]);
}

void
cml_window_set_table_frame (CmlWindow *self, gboolean table_frame)
{
  table_frame = !!table_frame;
  if (self->table_frame == table_frame)
    return;
  self->table_frame = table_frame;
  cml_scene_view_set_table_frame (self->scene_view, table_frame);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TABLE_FRAME]);
}

/* ---- the tick callback ----------------------------------------------------------------- */

typedef struct
{
  CmlWindow   *self;
  CmlPlotView *plot;
} FlushTarget;

static void
flush_slice (const double *t, const double *rows, guint n, guint n_cols, gpointer data)
{
  FlushTarget *ft = data;

  cml_plot_view_push_samples (ft->plot, t, rows, n, n_cols, cml_system_n_observables (ft->self->shown_system));
}

/* Hands the queued rows to the plot. */
static void
plot_queue_flush (CmlWindow *self, CmlPlotQueue *q, CmlPlotView *plot)
{
  FlushTarget ft = { self, plot };

  if (cml_plot_queue_get_n (q) == 0 || self->shown_system == NULL)
    return;
  cml_plot_queue_flush (q, flush_slice, &ft);
}

/* The observable that expression E of SYS's model is, if it is a plain name; else NULL. */
static char *
plain_observable (CmlSystem *sys, CmlExpr *e)
{
  CmlModel *model = cml_system_get_model (sys);
  char *name = cml_expr_to_string (model->ctx, e);

  if (cml_system_observable_index (sys, name) < 0)
    g_clear_pointer (&name, g_free);
  return name;
}

/* The plots' second view, a portrait that explains the motion without a legend:
 *   1. the path the model's first trail draws, seen from above, when the trail's point is
 *      made of plain coordinates (the ball's contact point, the elastica, the epicycles);
 *   2. else the first two base coordinates, unless the constraints hold both at rest;
 *   3. else the first moving base coordinate against its velocity (a phase portrait);
 *   4. else the first two state variables.
 * "At rest": value and rate both 0 at t = 0, as for the coordinates a singular
 * Lagrangian's constraint algorithm sets to zero. */
static void
choose_phase_series (CmlWindow *self, CmlSystem *sys)
{
  CmlModel *model = cml_system_get_model (sys);
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autofree double *rate = NULL;
  const double *z = NULL;
  guint dim = cml_system_dim (sys);

  for (guint k = 0; model->scene && k < model->scene->len && x == NULL; k++)
    {
      CmlSceneObject *so = model->scene->pdata[k];
      GPtrArray *point;

      if (g_strcmp0 (so->type, "trail") != 0)
        continue;
      point = g_hash_table_lookup (so->props, "point");
      if (point && point->len >= 2)
        {
          x = plain_observable (sys, point->pdata[0]);
          y = plain_observable (sys, point->pdata[1]);
          if (x == NULL || y == NULL)
            {
              g_clear_pointer (&x, g_free);
              g_clear_pointer (&y, g_free);
            }
        }
      break; /* only the first trail says what the model draws */
    }

  if (x == NULL && model->m > 0)
    {
      sim = cml_simulation_new (sys, NULL);
      rate = g_new0 (double, dim);
      if (sim && cml_simulation_eval_rhs (sim, rate, NULL))
        z = cml_simulation_get_state (sim);
    }
#define AT_REST(i) (z != NULL && fabs (z[i]) < 1e-12 && fabs (rate[i]) < 1e-12)

  if (x == NULL && model->m >= 2 && !(AT_REST (0) && AT_REST (1)))
    {
      x = g_strdup (model->base[0]);
      y = g_strdup (model->base[1]);
    }
  for (guint i = 0; x == NULL && i < model->m; i++)
    {
      int velocity = -1;

      if (AT_REST (i))
        continue;
      /* the fibre coordinate whose anchor is d/dx^i alone */
      for (guint a = 0; a < model->n; a++)
        {
          CmlExpr *rho = model->anchor[i * model->n + a];
          g_autofree char *text = rho ? cml_expr_to_string (model->ctx, rho) : NULL;

          if (text == NULL || g_str_equal (text, "0"))
            continue;
          velocity = (velocity == -1 && g_str_equal (text, "1")) ? (int) a : -2;
        }
      if (velocity >= 0 && cml_system_observable_index (sys, model->fibre[velocity]) >= 0)
        {
          x = g_strdup (model->base[i]);
          y = g_strdup (model->fibre[velocity]);
        }
    }
#undef AT_REST
  if (x == NULL && dim >= 2)
    {
      x = g_strdup (cml_system_state_name (sys, 0));
      y = g_strdup (cml_system_state_name (sys, 1));
    }

  if (x && y && cml_system_observable_index (sys, x) >= 0 && cml_system_observable_index (sys, y) >= 0)
    {
      const char *ys[] = { y, NULL };

      g_debug ("%s: second plot %s against %s", model->name, y, x);
      cml_plot_view_set_series (self->phase_plot, x, ys);
    }
}

/* The views start showing SYS (the worker has switched to it). */
static void
show_system (CmlWindow *self, CmlSystem *sys)
{
  guint cols = cml_system_n_observables (sys) + cml_system_n_scene_values (sys);

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->shown_system, cml_system_unref);
  self->shown_system = sys;

  cml_scene_view_set_system (self->scene_view, sys);
  cml_plot_view_set_system (self->time_plot, sys);
  cml_plot_view_set_system (self->phase_plot, sys);
  choose_phase_series (self, sys);

  if (cols != self->history_cols)
    {
      self->history_cols = cols;
      g_free (self->history_rows);
      self->history_rows = g_new (double, (gsize) self->history_cap * MAX (cols, 1));
    }
  cml_plot_queue_clear (self->plot_queue[0]);
  cml_plot_queue_clear (self->plot_queue[1]);
  self->last_sample_t = -INFINITY;
  self->run_generation = 0;
  self->rate_wall0 = 0;
}

/* A new run began with ROW (its t = 0 sample): the plots and trails start over, and the
 * panels learn the initial values actually used. */
static void
start_run (CmlWindow *self, const double *row)
{
  guint n_obs = cml_system_n_observables (self->shown_system);

  cml_scene_view_clear_trails (self->scene_view);
  cml_plot_view_clear (self->time_plot);
  cml_plot_view_clear (self->phase_plot);
  cml_plot_queue_clear (self->plot_queue[0]);
  cml_plot_queue_clear (self->plot_queue[1]);
  cml_parameter_panel_show_initial (self->parameter_panel, self->shown_system, row, n_obs);
  cml_equations_panel_set_baseline (self->equations_panel, self->shown_system, row, n_obs);
  self->rate_wall0 = 0;
  self->shown_until = INFINITY;  /* timeline: the new run's rows are all shown */
}

static void
push_rows (CmlWindow *self, guint start, guint end)
{
  guint n_obs = cml_system_n_observables (self->shown_system);
  const double *t = self->history_t + start;
  const double *rows = self->history_rows + (gsize) start * self->history_cols;

  if (end <= start)
    return;
  cml_scene_view_push_samples (self->scene_view, t, rows, end - start, self->history_cols, n_obs);
  for (guint k = 0; k < 2; k++)
    cml_plot_queue_push (self->plot_queue[k], t, rows, end - start, self->history_cols);
}

/* Copies the new history rows and hands them on.  A run's rows start at t = 0 and their
 * times increase, so a row whose time does not exceed the previous row's begins a new run
 * (a reset or a model switch).  Such a row is only taken once the newest frame shows a
 * new generation too (FRAME was taken before the read, so it may still be of the old
 * run): until then the rows are left in the ring for the next tick, so that the views
 * switch systems before they see the new run's first sample. */
static void
pull_history (CmlWindow *self, CmlFrame *frame)
{
  for (guint round = 0; round < 64; round++)
    {
      guint64 dropped = 0;
      guint n = cml_runner_read_history (self->runner, &self->history_cursor, self->history_cols,
                                         self->history_t, self->history_rows, self->history_cap,
                                         &dropped);
      guint start = 0;

      if (dropped)
        g_debug ("%" G_GUINT64_FORMAT " history samples were overwritten before the UI read them", dropped);
      for (guint i = 0; i < n; i++)
        {
          if (self->history_t[i] <= self->last_sample_t || self->last_sample_t == -INFINITY)
            {
              push_rows (self, start, i);
              if (frame->generation == self->run_generation)
                {
                  /* not yet: read these again next tick */
                  self->history_cursor -= n - i;
                  return;
                }
              self->run_generation = frame->generation;
              start = i;
              start_run (self, self->history_rows + (gsize) i * self->history_cols);
            }
          self->last_sample_t = self->history_t[i];
        }
      push_rows (self, start, n);
      if (n < self->history_cap)
        break;
    }
}

/* ---- timeline hooks -------------------------------------------------------------------- */

/* At a recorded moment (after a seek) or in reversed time the plots and trails show the
 * run up to the frame's time: the record is read again from the runner and cut there (at
 * most 20 times a second while the time moves). */
static void
timeline_show_until (CmlWindow *self, CmlFrame *frame, gint64 now)
{
  double until = (frame->in_record || frame->direction < 0) ? frame->t : INFINITY;
  guint64 cursor = 0;

  if (until == self->shown_until || frame->generation != self->run_generation
      || frame->system != self->shown_system)
    return;
  if (isfinite (until) && isfinite (self->shown_until) && now - self->shown_until_us < 50000)
    return;
  self->shown_until = until;
  self->shown_until_us = now;

  cml_scene_view_clear_trails (self->scene_view);
  cml_plot_view_clear (self->time_plot);
  cml_plot_view_clear (self->phase_plot);
  cml_plot_queue_clear (self->plot_queue[0]);
  cml_plot_queue_clear (self->plot_queue[1]);
  for (;;)
    {
      guint n = cml_runner_read_history (self->runner, &cursor, self->history_cols, self->history_t,
                                         self->history_rows, self->history_cap, NULL);
      guint end = 0;

      while (end < n && self->history_t[end] <= until)
        end++;
      push_rows (self, 0, end);
      if (end < n || n < self->history_cap)
        break;
    }
}

static void
on_timeline_seek (CmlWindow *self, double t)
{
  if (self->runner)
    cml_runner_seek (self->runner, t);
  cml_window_compare_seek (self, t);
}

static void
on_timeline_reversed (CmlWindow *self)
{
  if (self->runner)
    cml_runner_set_reversed (self->runner, cml_timeline_get_reversed (self->timeline));
  cml_window_compare_reversed (self, cml_timeline_get_reversed (self->timeline));
}

static void
format_time (char *buf, gsize size, double t, const char *unit)
{
  /* a dimensionless time (unit "1") reads best without one */
  const char *sep = (unit == NULL || *unit == '\0' || g_str_equal (unit, "1")) ? "" : " ";

  if (*sep == '\0')
    unit = "";
  if (fabs (t) < 1e5)
    g_snprintf (buf, size, "t = %.2f%s%s", t, sep, unit);
  else
    g_snprintf (buf, size, "t = %.4g%s%s", t, sep, unit);
}

static void
update_status (CmlWindow *self, CmlFrame *frame, gint64 now)
{
  CmlModel *model = cml_system_get_model (frame->system);
  const char *unit = model->time_unit ? model->time_unit : "s";
  char buf[256]; /* (the lagging note, translated, runs to some 100 bytes) */
  g_autofree char *tip = NULL;

  format_time (buf, sizeof buf, frame->t, unit);
  gtk_label_set_text (self->time_label, buf);

  g_snprintf (buf, sizeof buf, "×%g", frame->speed);
  gtk_label_set_text (self->speed_label, buf);

  switch (frame->state)
    {
    case CML_RUNNER_RUNNING:
      gtk_label_set_text (self->state_label, C_("run state", "running"));
      break;
    case CML_RUNNER_PAUSED:
      gtk_label_set_text (self->state_label, C_("run state", "paused"));
      break;
    case CML_RUNNER_FAILED:
    default:
      gtk_label_set_text (self->state_label, "");
      break;
    }

  /* how fast simulated time really goes, for the lagging note */
  if (frame->state == CML_RUNNER_RUNNING)
    {
      if (self->rate_wall0 == 0 || frame->t < self->rate_t0)
        {
          self->rate_wall0 = now;
          self->rate_t0 = frame->t;
        }
      else if (now - self->rate_wall0 >= 1000000)
        {
          self->effective_speed = (frame->t - self->rate_t0) / (1e-6 * (double) (now - self->rate_wall0));
          self->rate_wall0 = now;
          self->rate_t0 = frame->t;
        }
    }
  else
    self->rate_wall0 = 0;

  if (frame->state == CML_RUNNER_FAILED)
    {
      const char *message = frame->message ? frame->message : _("the run failed");

      if (g_strcmp0 (self->failure_shown, message) != 0)
        {
          g_autoptr (CmlRunFailure) why = cml_run_failure_explain (message, unit);

          g_free (self->failure_shown);
          self->failure_shown = g_strdup (message);
          gtk_label_set_text (self->failure_label, why->summary);
          gtk_widget_set_tooltip_text (GTK_WIDGET (self->failure_label), why->explanation);
          gtk_label_set_text (self->failure_explanation, why->explanation);
          gtk_label_set_text (self->failure_technical, message);
        }
      gtk_widget_set_visible (GTK_WIDGET (self->failure_box), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->message_label), FALSE);
      gtk_label_set_text (self->message_label, "");
    }
  else
    {
      gtk_widget_set_visible (GTK_WIDGET (self->failure_box), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->message_label), TRUE);
      g_clear_pointer (&self->failure_shown, g_free);
      if (frame->message)
        gtk_label_set_text (self->message_label, frame->message);
      else if (frame->lagging && frame->state == CML_RUNNER_RUNNING)
        {
          /* short enough for the status bar of a 1024-pixel window: what happens and what
           * to do; the whole explanation in the tooltip */
          if (self->effective_speed > 0)
            {
              /* in presentation mode's large type only the numbers fit beside the timeline */
              if (self->presentation)
                /* TRANSLATORS: the speed reached, then the speed chosen (×1 is real time); the
                 * shortest note in the status bar, in presentation mode */
                g_snprintf (buf, sizeof buf, _("Plays at ×%.2g, not ×%g"), self->effective_speed, frame->speed);
              else
                /* TRANSLATORS: the speed reached, then the speed chosen (×1 is real time); a
                 * short note in the status bar */
                g_snprintf (buf, sizeof buf, _("Plays at ×%.2g, not ×%g: lower speed or use a faster integrator"),
                            self->effective_speed, frame->speed);
              /* TRANSLATORS: the speed chosen, then the speed reached (×1 is real time) */
              tip = g_strdup_printf (_("The simulation is slower than ×%g: it plays at ×%.2g, as fast as it is "
                                       "computed. Lower the speed or choose a faster integrator."),
                                     frame->speed, self->effective_speed);
            }
          else
            {
              if (self->presentation)
                /* TRANSLATORS: the speed chosen (×1 is real time); the shortest note in the
                 * status bar, in presentation mode */
                g_snprintf (buf, sizeof buf, _("Slower than ×%g"), frame->speed);
              else
                /* TRANSLATORS: the speed chosen (×1 is real time); a short note in the status bar */
                g_snprintf (buf, sizeof buf, _("Slower than ×%g: lower speed or use a faster integrator"),
                            frame->speed);
              /* TRANSLATORS: the speed chosen (×1 is real time) */
              tip = g_strdup_printf (_("The simulation is slower than ×%g: it plays as fast as it is computed. "
                                       "Lower the speed or choose a faster integrator."),
                                     frame->speed);
            }
          gtk_label_set_text (self->message_label, buf);
        }
      else
        gtk_label_set_text (self->message_label, "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->message_label),
                                   tip ? tip : gtk_label_get_text (self->message_label));
    }
}

static void
update_play_button (CmlWindow *self, CmlRunnerState state)
{
  gboolean running = state == CML_RUNNER_RUNNING;

  gtk_button_set_icon_name (self->play_button, running ? "media-playback-pause-symbolic"
                                                       : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->play_button), running ? _("Pause (Space)") : _("Play (Space)"));
}

static void
finish_frame_stats (CmlWindow *self, CmlFrame *frame)
{
  g_autoptr (GError) error = NULL;
  const char *model = NULL;

  if (self->frame_stats == NULL || self->frame_stats_path == NULL)
    return;
  if (frame && frame->system)
    model = cml_system_get_model (frame->system)->name;
  if (!cml_frame_stats_write (self->frame_stats, self->frame_stats_path, model,
                              frame ? frame->t : 0.0, &error))
    g_warning ("frame statistics: %s", error->message);
  g_clear_pointer (&self->frame_stats_path, g_free);
}

/* On a projector the type grows with the screen: in presentation mode every text and
 * line is window height / 800 times its size (at least its size), so that the plots'
 * labels, the legend and the status line stay above 2.5 % of the height from 768 lines
 * to 4K.  Checked every frame (a resize, a move to another screen, F5). */
static void
update_text_scale (CmlWindow *self)
{
  double scale = self->presentation ? MAX (1.0, gtk_widget_get_height (GTK_WIDGET (self)) / 800.0) : 1.0;
  char size[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *css = NULL;

  /* up to the next step of 1/20: a window a pixel taller changes nothing */
  scale = ceil (scale * 20.0) / 20.0;
  if (scale == self->text_scale)
    return;
  self->text_scale = scale;
  cml_plot_view_set_text_scale (self->time_plot, scale);
  cml_plot_view_set_text_scale (self->phase_plot, scale);
  cml_scene_view_set_text_scale (self->scene_view, scale);
  if (self->text_css == NULL)
    {
      self->text_css = gtk_css_provider_new ();
      gtk_style_context_add_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                  GTK_STYLE_PROVIDER (self->text_css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
    }
  g_ascii_formatd (size, sizeof size, "%.2f", 15.0 * scale);
  css = scale > 1.0 ? g_strdup_printf ("window.presentation { font-size: %spt; }", size) : g_strdup ("");
  gtk_css_provider_load_from_data (self->text_css, css, -1);
  /* the sizes changed: in presentation mode the split is made again for them (leaving it
   * restores the split the normal layout had) */
  if (self->presentation)
    {
      self->layout_done = FALSE;
      self->layout_wait = 2;
    }
}

/* The split between the 3-D view and the plots, once the window has its size: the plots
 * get a readable column (their natural width, within 38–50 % of the space, but not less
 * than their minimum) and the view the rest.  In presentation mode the view, which the
 * hall watches, gets at least 55 %.  Neither gets less than its minimum (the window is
 * never narrower than both: a 1024-pixel screen holds them), so nothing is cut off.  Done
 * again when presentation mode changes the sizes; a position the user chose (or the one
 * remembered) is kept otherwise. */
static void
initial_layout (CmlWindow *self)
{
  GtkWidget *column = gtk_paned_get_end_child (self->content_paned);
  GtkWidget *view = gtk_paned_get_start_child (self->content_paned);
  int w = gtk_widget_get_width (GTK_WIDGET (self->content_paned));
  int min = 0, nat = 0, view_min = 0, right;
  double hi = self->presentation ? 0.45 : 0.50;

  if (self->layout_done || w <= 0)
    return;
  /* wait for the width to settle: the side panel folding away, or type growing, takes a
   * frame or two to reach the allocation */
  if (w != self->last_layout_w || self->layout_wait > 0)
    {
      self->last_layout_w = w;
      self->layout_wait = MAX (self->layout_wait - 1, 0);
      return;
    }
  gtk_widget_measure (column, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  gtk_widget_measure (view, GTK_ORIENTATION_HORIZONTAL, -1, &view_min, NULL, NULL, NULL);
  right = MAX (CLAMP (nat, (int) (0.38 * w), (int) (hi * w)), min);
  right = MAX (MIN (right, w - view_min), min);
  gtk_paned_set_position (self->content_paned, MAX (w - right, 0));
  self->layout_done = TRUE;
}

/* ---- from the command line ----------------------------------------------------------------- */

void
cml_window_show_closed_form (CmlWindow *self, gboolean show)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  cml_plot_view_set_show_reference (self->time_plot, show);
  cml_plot_view_set_show_reference (self->phase_plot, show);
}

void
cml_window_show_page (CmlWindow *self, const char *page)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  gtk_stack_set_visible_child_name (self->side_stack, page);
}

static gboolean
split_assignment (const char *arg, char **name, double *value)
{
  const char *eq = strchr (arg, '=');

  if (eq == NULL)
    return FALSE;
  *name = g_strndup (arg, eq - arg);
  *value = g_ascii_strtod (eq + 1, NULL);
  return TRUE;
}

gboolean
cml_window_apply_command_line (CmlWindow *self, const char *const *set, const char *const *init, GError **error)
{
  g_autoptr (GHashTable) given = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  if (self->system == NULL)
    return TRUE;
  for (const char *const *a = set; a && *a; a++)
    {
      g_autofree char *name = NULL;
      double v = 0;

      if (!split_assignment (*a, &name, &v)
          || !cml_parameter_panel_set_param (self->parameter_panel, name, v, error))
        return FALSE;
    }
  if (init == NULL || *init == NULL)
    return TRUE;
  given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (const char *const *a = init; *a; a++)
    {
      char *name = NULL;
      double v = 0;

      if (!split_assignment (*a, &name, &v))
        return FALSE;
      g_hash_table_replace (given, name, g_memdup2 (&v, sizeof v));
    }
  return cml_parameter_panel_start_from (self->parameter_panel, given, error);
}

static gboolean
cml_window_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  CmlWindow *self = CML_WINDOW (widget);
  gint64 now = gdk_frame_clock_get_frame_time (clock);
  CmlFrame *frame;

  if (self->frame_stats)
    cml_frame_stats_add_frame (self->frame_stats, now);
  cml_frame_stats_add_frame (self->recent_frames, now);
  if (self->first_frame_us == 0)
    self->first_frame_us = now;
  cml_window_fit_fixed_size (self);
  cml_window_apply_remembered_split (self);
  update_text_scale (self);
  initial_layout (self);
  if (self->runner == NULL)
    {
      /* nothing runs (a model that failed to load): --quit-after still ends it */
      if (self->quit_after > 0 && !self->quitting
          && 1e-6 * (double) (now - self->first_frame_us) >= self->quit_after)
        {
          self->quitting = TRUE;
          finish_frame_stats (self, NULL);
          cml_window_quit_after_this_frame (self, clock);
        }
      return G_SOURCE_CONTINUE;
    }

  frame = cml_runner_get_frame (self->runner);
  if (frame->system != self->shown_system)
    show_system (self, frame->system);
  /* an opened session's plot settings, once the plots show its system */
  if (self->pending_view && self->shown_system == self->system)
    cml_window_apply_pending_view (self);

  pull_history (self, frame);
  cml_window_lesson_tick (self, frame);
  cml_window_compare_tick (self);
  timeline_show_until (self, frame, now);
  cml_timeline_update (self->timeline, frame);
  cml_scene_view_set_frame (self->scene_view, frame);
  /* the 3-D view redraws every frame; the two plots take turns (30 Hz each), so that a
   * frame never pays for all three GL views: on software OpenGL that keeps 60 Hz */
  self->tick_count++;
  if (self->tick_count % 2 == 0)
    plot_queue_flush (self, self->plot_queue[0], self->time_plot);
  else
    plot_queue_flush (self, self->plot_queue[1], self->phase_plot);

  if (frame->state != self->shown_state)
    {
      self->shown_state = frame->state;
      update_play_button (self, frame->state);
      self->last_status_us = 0;
    }
  if (now - self->last_status_us >= STATUS_US)
    {
      self->last_status_us = now;
      update_status (self, frame, now);
    }
  if (now - self->last_equations_us >= EQUATIONS_US
      && gtk_widget_get_mapped (GTK_WIDGET (self->equations_panel)))
    {
      self->last_equations_us = now;
      cml_equations_panel_update (self->equations_panel, frame);
    }

  if (self->quit_after > 0 && !self->quitting
      && 1e-6 * (double) (now - self->first_frame_us) >= self->quit_after)
    {
      self->quitting = TRUE;
      finish_frame_stats (self, frame);
      cml_frame_unref (frame);
      cml_window_quit_after_this_frame (self, clock);
      return G_SOURCE_CONTINUE;
    }

  cml_frame_unref (frame);
  return G_SOURCE_CONTINUE;
}

void
cml_window_set_frame_stats (CmlWindow *self, const char *path, double quit_after)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  g_clear_pointer (&self->frame_stats_path, g_free);
  self->frame_stats_path = g_strdup (path);
  self->quit_after = quit_after;
  self->first_frame_us = 0; /* the wall time counts from the next frame */
  if (path && self->frame_stats == NULL)
    self->frame_stats = cml_frame_stats_new ();
}

CmlRunner *
cml_window_get_runner (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  return self->runner;
}

/* ---- drag and drop --------------------------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, CmlWindow *self)
{
  GSList *files = NULL;
  gboolean any = FALSE;

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    files = g_slist_copy (g_value_get_boxed (value));
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    files = g_slist_prepend (NULL, g_value_get_object (value));

  for (GSList *l = files; l; l = l->next)
    {
      cml_window_open_file (self, l->data);
      any = TRUE;
    }
  g_slist_free (files);
  return any;
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlWindow *self = CML_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PRESENTATION:
      g_value_set_boolean (value, self->presentation);
      break;
    case PROP_DARK:
      g_value_set_boolean (value, cml_window_get_dark (self));
      break;
    case PROP_STYLE:
      g_value_set_string (value, cml_style_get_choice ());
      break;
    case PROP_TABLE_FRAME:
      g_value_set_boolean (value, self->table_frame);
      break;
    case PROP_SIDEBAR_VISIBLE:
      g_value_set_boolean (value, self->sidebar_visible);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CmlWindow *self = CML_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PRESENTATION:
      cml_window_set_presentation (self, g_value_get_boolean (value));
      break;
    case PROP_DARK:
      cml_window_set_dark (self, g_value_get_boolean (value));
      break;
    case PROP_STYLE:
      cml_window_set_style_choice (self, g_value_get_string (value));
      break;
    case PROP_TABLE_FRAME:
      cml_window_set_table_frame (self, g_value_get_boolean (value));
      break;
    case PROP_SIDEBAR_VISIBLE:
      cml_window_set_sidebar_visible (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Disconnects from WIDGET and everything under it every handler that calls SELF. */
static void
let_go_of (GtkWidget *widget, CmlWindow *self)
{
  g_signal_handlers_disconnect_by_data (widget, self);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    let_go_of (c, self);
}

static void
cml_window_dispose (GObject *object)
{
  CmlWindow *self = CML_WINDOW (object);

  /* GtkWindow's own dispose, after this one, unparents the children, and what they emit
   * on the way out (a drop-down's selection cleared, a panel's last change) would reach a
   * window whose other widgets may be freed already: they let go of it first */
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self)); c; c = gtk_widget_get_next_sibling (c))
    let_go_of (c, self);

  if (self->tick_id)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  /* the style manager outlives the window */
  g_signal_handlers_disconnect_by_data (adw_style_manager_get_default (), self);
  if (self->toast)
    g_signal_handlers_disconnect_by_data (self->toast, self);
  g_clear_object (&self->toast);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->failed_path, g_free);
  g_clear_pointer (&self->failure_shown, g_free);
  g_clear_pointer (&self->screenshot_path, g_free);
  if (self->chooser)
    {
      gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (self->chooser));
      g_clear_object (&self->chooser);
    }
  cml_window_io_dispose (self);
  cml_window_derive_dispose (self);
  cml_window_lesson_dispose (self);
  cml_window_lesson_author_dispose (self);
  if (self->frame_stats_path)
    {
      CmlFrame *frame = self->runner ? cml_runner_get_frame (self->runner) : NULL;

      finish_frame_stats (self, frame);
      g_clear_pointer (&frame, cml_frame_unref);
    }
  /* stop the workers before the views that show their frames go */
  cml_window_compare_stop (self);
  cml_window_sweep_stop (self);
  cml_window_geometry_stop (self);
  g_clear_pointer (&self->runner, cml_runner_free);

  /* no gtk_widget_dispose_template () here: GtkWindow unparents its titlebar and child
   * itself and would find them gone */

  g_clear_pointer (&self->shown_system, cml_system_unref);
  self->system = NULL; /* owned by the systems table */
  g_clear_pointer (&self->systems, g_hash_table_unref);
  if (self->text_css)
    gtk_style_context_remove_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                   GTK_STYLE_PROVIDER (self->text_css));
  g_clear_object (&self->text_css);
  g_clear_pointer (&self->frame_stats, cml_frame_stats_free);
  g_clear_pointer (&self->recent_frames, cml_frame_stats_free);
  g_clear_pointer (&self->frame_stats_path, g_free);
  g_clear_pointer (&self->history_t, g_free);
  g_clear_pointer (&self->history_rows, g_free);
  for (guint k = 0; k < 2; k++)
    g_clear_pointer (&self->plot_queue[k], cml_plot_queue_free);

  G_OBJECT_CLASS (cml_window_parent_class)->dispose (object);
}

static void
cml_window_class_init (CmlWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_window_dispose;
  object_class->get_property = cml_window_get_property;
  object_class->set_property = cml_window_set_property;
  GTK_WINDOW_CLASS (klass)->close_request = cml_window_on_close_request;

  properties[PROP_PRESENTATION] =
    g_param_spec_boolean ("presentation", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DARK] =
    g_param_spec_boolean ("dark", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "follow" (the desktop's), "light" or "dark": the menu's choice, remembered */
  properties[PROP_STYLE] =
    g_param_spec_string ("style", NULL, NULL, "follow",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TABLE_FRAME] =
    g_param_spec_boolean ("table-frame", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SIDEBAR_VISIBLE] =
    g_param_spec_boolean ("sidebar-visible", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* libadwaita's style sheet and style manager for every window, whoever makes it (the
   * application has done this already; the tests make windows of their own) */
  adw_init ();

  /* the templates live in the render library's resource bundle (a static library: a
   * reference makes sure the linker keeps it) */
  (void) cml_get_resource ();

  g_type_ensure (CML_TYPE_MODEL_PICKER);
  g_type_ensure (CML_TYPE_PARAMETER_PANEL);
  g_type_ensure (CML_TYPE_EQUATIONS_PANEL);
  g_type_ensure (CML_TYPE_SECTION_VIEW);
  g_type_ensure (CML_TYPE_SCENE_VIEW);
  g_type_ensure (CML_TYPE_PLOT_VIEW);
  g_type_ensure (CML_TYPE_TIMELINE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, header_bar);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, sidebar_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, systems_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, systems_popover);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, scene_stack);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, error_title);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, error_detail);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, error_retry_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_details_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_explanation);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_technical);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, play_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, step_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, reset_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, speed_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, integrator_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, tolerance_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, step_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, menu_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, outer_paned);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, content_paned);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, model_picker);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, parameter_panel);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, scene_view);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, side_switcher);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, plots_paned);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, time_plot);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, phase_plot);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, section_view);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, equations_panel);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, time_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, speed_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, state_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, message_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_box);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, failure_reset_button);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, recent_section);

  cml_window_class_add_actions (widget_class);
  cml_window_class_add_io_actions (widget_class);
  cml_window_class_add_derive_actions (widget_class);
  cml_window_class_add_lesson_actions (widget_class);
  cml_window_class_add_pen (widget_class);
  cml_window_class_add_lesson_author_actions (widget_class);
}

/* The list of systems at its full height, as far as the window allows, the running system
 * selected (arrow keys may have moved the selection the last time it was open). */
static void
on_systems_popover_show (CmlWindow *self)
{
  int h = gtk_widget_get_height (GTK_WIDGET (self));

  cml_model_picker_set_selected (self->model_picker,
                                 self->system ? cml_system_get_model (self->system) : NULL);
  gtk_widget_set_size_request (GTK_WIDGET (self->model_picker), 440, CLAMP (h - 110, 240, 720));
}

/* The style sheet, once per display: every window (and every test's) looks the same. */
static void
load_style (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autoptr (GtkCssProvider) css = NULL;

  if (display == NULL || g_object_get_data (G_OBJECT (display), "cml-style"))
    return;
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/org/cmlab/Cmlab/ui/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "cml-style", g_steal_pointer (&css), g_object_unref);
}

static void
cml_window_init (CmlWindow *self)
{
  GtkDropTarget *drop;
  GType types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };

  load_style (GTK_WIDGET (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  cml_window_sweep_init (self);
  cml_window_geometry_init (self);
  /* both plots show one run: the phase portrait reads the time plot's columns */
  cml_plot_view_share_data (self->phase_plot, self->time_plot);

  self->recent_frames = cml_frame_stats_new_recent (121);
  self->systems = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                         (GDestroyNotify) cml_model_unref,
                                         (GDestroyNotify) cml_system_unref);
  self->speed_index = CML_DEFAULT_SPEED_INDEX;
  self->integrator = cml_integrator_options_default ();
  self->integrator.rtol = cml_window_tolerances[CML_DEFAULT_TOLERANCE_INDEX];
  self->integrator.atol = 1e-2 * self->integrator.rtol;
  self->history_cap = HISTORY_ROWS;
  self->text_scale = 1.0;
  self->history_t = g_new (double, self->history_cap);
  for (guint k = 0; k < 2; k++)
    self->plot_queue[k] = cml_plot_queue_new ();
  self->shown_state = (CmlRunnerState) -1;
  self->last_sample_t = -INFINITY;
  self->sidebar_visible = TRUE;
  self->saved_sidebar_visible = TRUE;
  self->saved_content_position = -1;
  self->settings = cml_window_open_settings ();
  cml_window_choose_size (self);
  g_signal_connect_swapped (self->systems_popover, "show", G_CALLBACK (on_systems_popover_show), self);
  /* tabs as wide as their names, not all as wide as the widest: the column fits 1024 px */
  gtk_box_layout_set_homogeneous (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self->side_switcher))), FALSE);

  g_signal_connect_swapped (self->model_picker, "model-selected", G_CALLBACK (on_model_selected), self);
  /* timeline */
  self->shown_until = INFINITY;
  g_signal_connect_swapped (self->timeline, "seek", G_CALLBACK (on_timeline_seek), self);
  g_signal_connect_swapped (self->timeline, "notify::reversed", G_CALLBACK (on_timeline_reversed), self);
  g_signal_connect_swapped (self->parameter_panel, "param-changed", G_CALLBACK (on_param_changed), self);
  g_signal_connect_swapped (self->parameter_panel, "restart-requested", G_CALLBACK (on_restart_requested), self);
  g_signal_connect_swapped (self->time_plot, "pick-initial", G_CALLBACK (on_pick_initial), self);
  g_signal_connect_swapped (self->phase_plot, "pick-initial", G_CALLBACK (on_pick_initial), self);
  g_signal_connect_swapped (self->scene_view, "drag-initial", G_CALLBACK (on_pick_initial), self);
  g_signal_connect_swapped (self->time_plot, "notify::show-reference", G_CALLBACK (on_show_reference), self);
  g_signal_connect_swapped (self->speed_dropdown, "notify::selected", G_CALLBACK (cml_window_on_speed_selected), self);
  g_signal_connect_swapped (self->integrator_dropdown, "notify::selected", G_CALLBACK (cml_window_on_integrator_selected), self);
  g_signal_connect_swapped (self->tolerance_dropdown, "notify::selected", G_CALLBACK (cml_window_on_integrator_selected), self);
  g_signal_connect_swapped (self->step_dropdown, "notify::selected", G_CALLBACK (cml_window_on_integrator_selected), self);
  {
    AdwStyleManager *style = adw_style_manager_get_default ();

    g_signal_connect_swapped (style, "notify::dark", G_CALLBACK (on_style_changed), self);
    g_signal_connect_swapped (style, "notify::high-contrast", G_CALLBACK (on_style_changed), self);
    g_signal_connect_swapped (style, "notify::color-scheme", G_CALLBACK (on_style_choice_changed), self);
    on_style_changed (self);
  }

  drop = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (drop, types, G_N_ELEMENTS (types));
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  /* the keyboard starts on the run controls, not in the first number field of the side
   * panel, so Space plays and the wheel scrolls the panel from the start */
  gtk_widget_grab_focus (GTK_WIDGET (self->play_button));
  cml_window_add_shortcuts (self);
  cml_window_io_init (self);
  cml_window_derive_init (self);
  cml_window_lesson_init (self);
  cml_window_lesson_author_init (self);
  cml_window_pen_init (self);
  cml_window_steer_init (self);
  self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), cml_window_tick, NULL, NULL);
  update_title (self);
  cml_window_update_actions (self);
}

CmlWindow *
cml_window_new (GtkApplication *application)
{
  return g_object_new (CML_TYPE_WINDOW, "application", application, NULL);
}
