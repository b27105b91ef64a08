/* cml-window-steer.c — steering the run to a target clicked in the 3-D view: the window's
 * side of the shooting (cml-scene-shoot.c does the aiming and the worker).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The shooting starts from the run's initial state (the parameters of the newest frame,
 * the initial values the run was reset from, the window's integrator) on a simulation of
 * its own, on a worker.  When it comes back, the run restarts from the momenta found as
 * "start where you point" does (cml_parameter_panel_start_from_step: one step to undo),
 * and the scene marks the target and the conjugate points.  A shooting that a newer one,
 * a model change or cml_window_steer_cancel replaced is dropped when it comes back.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-steer.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-parameter-panel-private.h"
#include "cml-scene-shoot.h"
#include "cml-scene-steer.h"
#include "cml-window-private.h"

typedef struct
{
  GCancellable *cancel;   /* of the shooting under way, or NULL */
  guint         serial;   /* of the newest shooting */
  gboolean      running;
  gboolean      restarting; /* the run restarts from an extremal found */
  gboolean      has_target;
  double        target[3];  /* of the newest shooting */
} Steer;

typedef struct
{
  GWeakRef    win;
  guint       serial;
  CmlSystem  *sys;
  CmlSceneAim aim;
  double      target[3];
  double      t_end;
} Job;

static void
steer_free (Steer *st)
{
  if (st->cancel)
    g_cancellable_cancel (st->cancel);
  g_clear_object (&st->cancel);
  g_free (st);
}

static Steer *
get_steer (CmlWindow *self)
{
  Steer *st = g_object_get_data (G_OBJECT (self), "cml-steer");
  if (st == NULL)
    {
      st = g_new0 (Steer, 1);
      g_object_set_data_full (G_OBJECT (self), "cml-steer", st, (GDestroyNotify) steer_free);
    }
  return st;
}

static void
job_free (Job *job)
{
  g_weak_ref_clear (&job->win);
  cml_system_unref (job->sys);
  g_free (job);
}

/* "x1 = 1.2, x2 = 0.5" */
static char *
target_text (const CmlSceneAim *aim, const double target[3])
{
  GString *s = g_string_new (NULL);
  for (guint j = 0; j < 3; j++)
    if (aim->names[j])
      {
        g_autofree char *name = cml_expr_pretty_name (aim->names[j], FALSE);
        g_string_append_printf (s, "%s%s = %.4g", s->len ? ", " : "", name, target[j]);
      }
  return g_string_free (s, FALSE);
}

static char *
time_text (CmlSystem *sys, double t)
{
  const char *unit = cml_system_get_model (sys)->time_unit;
  return g_strdup_printf ("%.4g%s%s", t, unit ? " " : "", unit ? unit : "");
}

void
cml_window_steer_cancel (CmlWindow *self)
{
  g_return_if_fail (CML_IS_WINDOW (self));
  Steer *st = get_steer (self);
  if (st->cancel)
    g_cancellable_cancel (st->cancel);
  g_clear_object (&st->cancel);
  st->serial++;
  if (st->running)
    cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_NONE, NULL, NULL);
  st->running = FALSE;
}

gboolean
cml_window_steer_is_running (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  return get_steer (self)->running;
}

gboolean
cml_window_steer_get_target (CmlWindow *self, double target[3])
{
  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  Steer *st = get_steer (self);
  if (st->has_target)
    memcpy (target, st->target, sizeof st->target);
  return st->has_target;
}

double
cml_window_steer_end_time (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), CML_SCENE_SHOOT_DEFAULT_T);
  double t = 0;
  if (self->runner)
    {
      CmlFrame *f = cml_runner_get_frame (self->runner);
      if (f && f->system == self->system && isfinite (f->t))
        t = f->t;
      if (f)
        cml_frame_unref (f);
    }
  return t > 0 ? t : CML_SCENE_SHOOT_DEFAULT_T;
}

static void
shoot_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Job *job = data;
  g_autoptr (CmlWindow) self = g_weak_ref_get (&job->win);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSceneShootResult) res = cml_scene_shoot_finish (result, &error);

  if (self == NULL || job->serial != get_steer (self)->serial || self->system != job->sys)
    {
      job_free (job);
      return; /* replaced, cancelled, or the window or model gone */
    }
  Steer *st = get_steer (self);
  st->running = FALSE;
  g_clear_object (&st->cancel);
  g_autofree char *where = target_text (&job->aim, job->target);
  g_autofree char *when = time_text (job->sys, job->t_end);

  if (res == NULL)
    {
      /* nothing changes: the run goes on as it was.  What the solver met (its residual,
       * its Newton steps) means nothing to a student: what happened and what to try. */
      g_debug ("steering to %s at T = %s: %s", where, when, error->message);
      g_autofree char *msg = NULL;
      if (g_error_matches (error, CML_ERROR, CML_ERROR_UNREACHABLE))
        /* a nearer guess cannot help: the point is off the places the run can reach */
        msg = g_markup_printf_escaped (
          _("<b>No motion from here reaches %s at T = %s.</b>\n"
            "The places the run can reach from its start at that time do not include this point "
            "(with integrable constraints they form only a curve or a surface).  Choose a point "
            "the run can reach."),
          where, when);
      else
        msg = g_markup_printf_escaped (
          _("<b>cmlab could not find a motion that reaches %s at T = %s.</b>\n"
            "Try a target nearer to where the run goes now, or a longer time: let the run play "
            "longer before you click (the time to reach the target is the run's present time)."),
          where, when);
      cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_NONE, msg, NULL);
      job_free (job);
      return;
    }

  /* each momentum found, or where the panel shows the velocity in its place (Martinet's u
   * for p_u), that velocity on the extremal found */
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  CmlModel *model = cml_system_get_model (job->sys);
  for (guint a = 0; a < model->n; a++)
    {
      const char *name = cml_parameter_panel_get_initial_spin (self->parameter_panel, model->momenta[a])
                           ? model->momenta[a]
                         : cml_parameter_panel_get_initial_spin (self->parameter_panel, model->fibre[a])
                           ? model->fibre[a] : NULL;
      for (guint k = 0; name && k < res->n_values; k++)
        if (g_str_equal (res->names[k], name))
          g_hash_table_insert (values, g_strdup (name), g_memdup2 (&res->values[k], sizeof (double)));
    }
  st->restarting = TRUE;
  gboolean started = cml_parameter_panel_start_from_step (self->parameter_panel, values, TRUE, &error);
  st->restarting = FALSE;
  if (!started)
    {
      g_autofree char *msg = g_markup_printf_escaped (_("<b>The run could not start from the motion found.</b>\n%s"),
                                                      error->message);
      cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_NONE, msg, NULL);
      job_free (job);
      return;
    }

  GArray *times = res->shoot->conjugate_times;
  cml_scene_view_set_steer_markers (self->scene_view, job->target, res->conjugate_points, times->len);
  cml_scene_view_set_steer_path (self->scene_view, (const double *) (gpointer) res->path->data, res->path->len / 3);
  g_autofree char *head = g_markup_printf_escaped (_("target %s, reached at T = %s"), where, when);
  /* the tooltip: what a conjugate point is, and why none are shown when none could be
   * looked for, in plain words (the core's reason is for the command line) */
  const char *what = _("The dashed line is the path the run will take to the target.  A conjugate point is a "
                       "place on that path after which it is no longer the shortest way between its ends.");
  g_autofree char *tip = NULL;
  if (res->shoot->at_rest)
    tip = g_strdup_printf (_("%s\nThe target is where the run starts: the run stays there, at rest."), what);
  else if (res->shoot->degenerate)
    tip = g_strdup_printf (_("%s\nHere the constraints are integrable: the places the run can reach from its start "
                             "form a smaller set (a curve or a surface), every point of the path would count as "
                             "conjugate, and none are shown."),
                           what);
  else if (res->shoot->conjugate_rows == NULL)
    {
      g_debug ("conjugate points: %s", res->shoot->conjugate_note);
      guint n_mom = res->shoot->n_momenta, n_coord = cml_system_dim (job->sys) - n_mom;
      tip = g_strdup_printf (_("%s\ncmlab finds conjugate points by comparing the path with its neighbours, which "
                               "needs as many coordinates as momenta to start from; this model has %u coordinates "
                               "and %u momenta, so they are not looked for here."),
                             what, n_coord, n_mom);
    }
  else if (res->shoot->conjugate_note)
    tip = g_strdup_printf (_("%s\nThis time they could not be looked for along the whole path."), what);
  else
    tip = g_strdup (what);
  cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_TARGET, head, tip);
  if (times->len > 0)
    {
      g_autoptr (GString) ts = g_string_new (NULL);
      for (guint k = 0; k < times->len; k++)
        g_string_append_printf (ts, "%s%.4g", k ? ", " : "", g_array_index (times, double, k));
      g_autofree char *conj = g_markup_printf_escaped (_("conjugate point (the path is no longer the shortest after "
                                                       "it): t = %s"), ts->str);
      cml_scene_view_set_steer_conjugate_note (self->scene_view, conj, TRUE);
    }
  else if (res->shoot->conjugate_rows && !res->shoot->conjugate_note)
    cml_scene_view_set_steer_conjugate_note (self->scene_view, _("no conjugate point before T: the path is the "
                                             "shortest all the way"), FALSE);
  else if (res->shoot->degenerate)
    cml_scene_view_set_steer_conjugate_note (self->scene_view, _("no conjugate points: the constraints are integrable "
                                             "(the run can reach only a curve or a surface)"), FALSE);
  else
    cml_scene_view_set_steer_conjugate_note (self->scene_view, _("conjugate points are not shown for this model"), FALSE);
  job_free (job);
}

gboolean
cml_window_steer_to (CmlWindow *self, const double target[3], double t_end, GError **error)
{
  CmlSceneAim aim;
  g_autofree char *why = NULL;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  if (!cml_scene_aim_find (self->system, &aim, &why))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s", why);
      return FALSE;
    }
  if (self->runner == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("No model is running."));
      return FALSE;
    }
  cml_window_steer_cancel (self);
  double T = t_end > 0 ? t_end : cml_window_steer_end_time (self);

  /* the run's start, on a simulation of the worker's own */
  CmlSystem *sys = self->system;
  CmlModel *model = cml_system_get_model (sys);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, error);
  if (sim == NULL)
    return FALSE;
  CmlFrame *f = cml_runner_get_frame (self->runner);
  for (guint k = 0; k < model->params->len; k++)
    {
      const CmlParam *p = model->params->pdata[k];
      double v = f && f->system == sys && k < f->n_params ? f->params[k] : p->value;
      cml_simulation_set_param (sim, p->name, v, NULL);
    }
  if (f)
    cml_frame_unref (f);
  GHashTable *given = cml_parameter_panel_get_given (self->parameter_panel);
  if (!cml_simulation_set_integrator (sim, &self->integrator, error) || !cml_simulation_reset (sim, given, error))
    return FALSE;

  /* the velocities too, on the extremal found: the panel may show them for the momenta */
  g_autoptr (GPtrArray) also = g_ptr_array_new ();
  for (guint a = 0; a < model->n; a++)
    g_ptr_array_add (also, model->fibre[a]);
  g_ptr_array_add (also, NULL);

  Steer *st = get_steer (self);
  Job *job = g_new0 (Job, 1);
  g_weak_ref_init (&job->win, self);
  job->serial = st->serial;
  job->sys = cml_system_ref (sys);
  job->aim = aim;
  memcpy (job->target, target, sizeof job->target);
  job->t_end = T;
  st->has_target = TRUE;
  memcpy (st->target, target, sizeof st->target);
  st->cancel = g_cancellable_new ();
  st->running = TRUE;

  g_autofree char *where = target_text (&aim, target);
  g_autofree char *when = time_text (sys, T);
  g_autofree char *msg = g_markup_printf_escaped (_("Looking for the motion that reaches %s at T = %s…"), where, when);
  cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_BUSY, msg, NULL);
  cml_scene_shoot_async (g_steal_pointer (&sim), &aim, target, T, (const char *const *) also->pdata, st->cancel,
                         shoot_done, job);
  return TRUE;
}

static void
on_steer_target (CmlWindow *self, double x, double y, double z, CmlSceneView *view)
{
  g_autoptr (GError) error = NULL;
  if (!cml_window_steer_to (self, (const double[3]) { x, y, z }, 0, &error))
    {
      g_autofree char *msg = g_markup_escape_text (error->message, -1);
      cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_NONE, msg, NULL);
    }
}

/* Another start or other parameters: the extremal marked is not the run's any more, and a
 * shooting from the old start is dropped. */
static void
on_run_changed (CmlWindow *self)
{
  Steer *st = get_steer (self);
  if (st->restarting)
    return;
  cml_window_steer_cancel (self);
  cml_scene_view_set_steer_markers (self->scene_view, NULL, NULL, 0);
  cml_scene_view_set_steer_note (self->scene_view, CML_STEER_NOTE_NONE, NULL, NULL);
}

void
cml_window_steer_init (CmlWindow *self)
{
  g_signal_connect_swapped (self->scene_view, "steer-target", G_CALLBACK (on_steer_target), self);
  g_signal_connect_swapped (self->parameter_panel, "restart-requested", G_CALLBACK (on_run_changed), self);
  g_signal_connect_swapped (self->parameter_panel, "param-changed", G_CALLBACK (on_run_changed), self);
}

/* ---- --target: once the window shows its model -------------------------------------------- */

typedef struct
{
  GWeakRef win;
  double   values[3];
  guint    n;
  double   t_end;
  int      tries;
} Pending;

static void
pending_free (gpointer data)
{
  Pending *p = data;
  g_weak_ref_clear (&p->win);
  g_free (p);
}

static gboolean
steer_pending (gpointer data)
{
  Pending *p = data;
  g_autoptr (CmlWindow) self = g_weak_ref_get (&p->win);
  g_autoptr (GError) error = NULL;
  CmlSceneAim aim;

  if (self == NULL)
    return G_SOURCE_REMOVE;
  CmlFrame *f = self->runner ? cml_runner_get_frame (self->runner) : NULL;
  gboolean ready = f && self->shown_system == self->system && f->system == self->system;
  if (!ready && p->tries++ < 100)
    {
      if (f)
        cml_frame_unref (f);
      return G_SOURCE_CONTINUE;
    }
  double target[3] = { 0, 0, 0 };
  g_autofree char *why = NULL;
  gboolean ok = ready && cml_scene_aim_find (self->system, &aim, &why);
  if (!ready)
    g_printerr (_("cmlab: --target: the model did not start\n"));
  else if (!ok)
    g_printerr (_("cmlab: --target: %s\n"), why);
  else if (p->n != aim.n)
    {
      g_printerr (_("cmlab: --target takes %u values for this model:"), aim.n);
      for (guint j = 0; j < 3; j++)
        if (aim.names[j])
          g_printerr (" %s", aim.names[j]);
      g_printerr ("\n");
      ok = FALSE;
    }
  if (ok)
    {
      /* the values for the aim's targets in order; the fixed components where they are */
      int off = cml_system_scene_offset (self->system, aim.object, aim.key);
      guint i = 0;
      for (guint j = 0; j < 3; j++)
        target[j] = aim.names[j] ? p->values[i++] : off >= 0 && f->n_scene > (guint) off + j ? f->scene[off + j] : 0;
    }
  if (f)
    cml_frame_unref (f);
  if (ok && !cml_window_steer_to (self, target, p->t_end > 0 ? p->t_end : CML_SCENE_SHOOT_DEFAULT_T, &error))
    g_printerr (_("cmlab: --target: %s\n"), error->message);
  return G_SOURCE_REMOVE;
}

void
cml_window_steer_when_ready (CmlWindow *self, const double *values, guint n, double t_end)
{
  g_return_if_fail (CML_IS_WINDOW (self));
  Pending *p = g_new0 (Pending, 1);
  g_weak_ref_init (&p->win, self);
  p->n = MIN (n, 3);
  p->t_end = t_end;
  for (guint k = 0; k < p->n; k++)
    p->values[k] = values[k];
  g_timeout_add_full (G_PRIORITY_DEFAULT, 50, steer_pending, p, pending_free);
}
