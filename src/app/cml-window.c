/* cml-window.c — the main window.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One tick callback per window does all the hand-off from the worker (one tick callback,
 * no idle callback per step): it takes the newest frame, copies the history rows that are new
 * since the last tick into one reusable buffer, pushes them to the 3-D view (trails) and
 * the plots, hands the frame to the 3-D view, and refreshes the status line and the
 * equations panel at a reading pace.  Nothing here waits for the worker.
 *
 * This file: the tick callback, the panels' hand-off to the runner, the command line's
 * settings, dropped files and the instance.  Messages and toasts (cml-window-messages.c),
 * choosing a model (-models.c), the layout and style (-layout.c) and the status line
 * (-status.c) are files of their own, as are the window's other concepts (cml-window-*.c,
 * sharing cml-window-private.h).
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"
#include "cml-popover-renew.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cml-atomic-file.h"
#include "cml-resources.h"
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

GParamSpec *cml_window_properties[CML_WINDOW_N_PROPS];

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

void
cml_window_push_rows (CmlWindow *self, guint start, guint end)
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
              cml_window_push_rows (self, start, i);
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
      cml_window_push_rows (self, start, n);
      if (n < self->history_cap)
        break;
    }
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
  cml_window_update_text_scale (self);
  cml_window_initial_layout (self);
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
  cml_window_timeline_show_until (self, frame, now);
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
      cml_window_update_play_button (self, frame->state);
      self->last_status_us = 0;
    }
  if (now - self->last_status_us >= STATUS_US)
    {
      self->last_status_us = now;
      cml_window_update_status (self, frame, now);
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
    case CML_WINDOW_PROP_PRESENTATION:
      g_value_set_boolean (value, self->presentation);
      break;
    case CML_WINDOW_PROP_DARK:
      g_value_set_boolean (value, cml_window_get_dark (self));
      break;
    case CML_WINDOW_PROP_STYLE:
      g_value_set_string (value, cml_style_get_choice ());
      break;
    case CML_WINDOW_PROP_TABLE_FRAME:
      g_value_set_boolean (value, self->table_frame);
      break;
    case CML_WINDOW_PROP_SIDEBAR_VISIBLE:
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
    case CML_WINDOW_PROP_PRESENTATION:
      cml_window_set_presentation (self, g_value_get_boolean (value));
      break;
    case CML_WINDOW_PROP_DARK:
      cml_window_set_dark (self, g_value_get_boolean (value));
      break;
    case CML_WINDOW_PROP_STYLE:
      cml_window_set_style_choice (self, g_value_get_string (value));
      break;
    case CML_WINDOW_PROP_TABLE_FRAME:
      cml_window_set_table_frame (self, g_value_get_boolean (value));
      break;
    case CML_WINDOW_PROP_SIDEBAR_VISIBLE:
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
  g_clear_pointer (&self->last_toast, g_free);
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

  cml_window_properties[CML_WINDOW_PROP_PRESENTATION] =
    g_param_spec_boolean ("presentation", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  cml_window_properties[CML_WINDOW_PROP_DARK] =
    g_param_spec_boolean ("dark", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "follow" (the desktop's), "light" or "dark": the menu's choice, remembered */
  cml_window_properties[CML_WINDOW_PROP_STYLE] =
    g_param_spec_string ("style", NULL, NULL, "follow",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  cml_window_properties[CML_WINDOW_PROP_TABLE_FRAME] =
    g_param_spec_boolean ("table-frame", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  cml_window_properties[CML_WINDOW_PROP_SIDEBAR_VISIBLE] =
    g_param_spec_boolean ("sidebar-visible", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, CML_WINDOW_N_PROPS, cml_window_properties);

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

/* The list's popover, the first and each one made anew when it closed
 * (cml-popover-renew.c): its handler. */
static void
on_systems_popover_renewed (GtkPopover *popover, gpointer data)
{
  g_signal_connect_object (popover, "show", G_CALLBACK (on_systems_popover_show), data, G_CONNECT_SWAPPED);
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
  /* made anew each time it closes, as the other menus made by hand: after the list was
   * closed (Escape, or a system chosen) the next click would otherwise be lost */
  on_systems_popover_renewed (gtk_menu_button_get_popover (self->systems_button), self);
  cml_menu_button_renew_popover_full (self->systems_button, on_systems_popover_renewed, self);
  /* tabs as wide as their names, not all as wide as the widest: the column fits 1024 px */
  gtk_box_layout_set_homogeneous (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self->side_switcher))), FALSE);

  g_signal_connect_swapped (self->model_picker, "model-selected", G_CALLBACK (cml_window_on_model_selected), self);
  /* timeline */
  self->shown_until = INFINITY;
  g_signal_connect_swapped (self->timeline, "seek", G_CALLBACK (cml_window_on_timeline_seek), self);
  g_signal_connect_swapped (self->timeline, "notify::reversed", G_CALLBACK (cml_window_on_timeline_reversed), self);
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

    g_signal_connect_swapped (style, "notify::dark", G_CALLBACK (cml_window_on_style_changed), self);
    g_signal_connect_swapped (style, "notify::high-contrast", G_CALLBACK (cml_window_on_style_changed), self);
    g_signal_connect_swapped (style, "notify::color-scheme", G_CALLBACK (cml_window_on_style_choice_changed), self);
    cml_window_on_style_changed (self);
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
  cml_window_update_title (self);
  cml_window_update_actions (self);
}

CmlWindow *
cml_window_new (GtkApplication *application)
{
  return g_object_new (CML_TYPE_WINDOW, "application", application, NULL);
}
