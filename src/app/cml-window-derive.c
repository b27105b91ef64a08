/* cml-window-derive.c — a model's system derived on a worker thread while the window goes
 * on answering.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deriving a system (cml_system_new: the symbolic equations of motion, solved and
 * compiled) takes seconds for a large model — a 50-link pendulum on a cold derived-system
 * cache — and the window's thread would stop answering meanwhile.  Opening a model (the
 * list of systems, File > Open, a file dropped, a session) therefore begins the derivation
 * on a worker (GTask), shows a card over the view ("Deriving the equations of …") and lets
 * the model shown run on; the new model is installed when its system is ready.
 *
 * One derivation runs per model object at a time, alone with that model: it grows the
 * model's expression context, which nothing else touches meanwhile (each file load makes a
 * model of its own, and the window only reads a waiting model's plain fields).  A
 * derivation cannot be interrupted: a newer request replaces the one the window waits for,
 * and the older derivation finishes in the background, its system kept (choosing that
 * model again then installs it at once).  The check that the model's own initial data
 * start a run, and everything that follows, happens on the window's thread, as before.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"
#include "cml-test-gate.h"

#include <glib/gi18n.h>

/* A derivation begun for one model: the worker fills SYSTEM or ERROR and sets DONE under
 * LOCK; the window's thread reads them under LOCK, or after the task's callback. */
typedef struct
{
  GWeakRef   window;   /* the window that began it */
  CmlModel  *model;
  GMutex     lock;
  GCond      cond;     /* DONE became TRUE */
  gboolean   done;
  CmlSystem *system;
  GError    *error;
  gint64     started_us;
} Derivation;

/* What the window waits for: a model to switch to, or a session to open onto it. */
struct _CmlPendingOpen
{
  CmlModel   *model;
  char       *path;    /* the file it came from, or NULL */
  CmlSession *session; /* or NULL */
  int         lesson_step; /* the lesson's step the session is (from 0), or -1 */
  gint64      started_us;
  CmlWindowOpenedFunc then; /* told how it ended, or NULL */
  gpointer    then_data;
};

static void
derivation_clear (gpointer data)
{
  Derivation *d = data;

  g_weak_ref_clear (&d->window);
  g_clear_pointer (&d->model, cml_model_unref);
  g_clear_pointer (&d->system, cml_system_unref);
  g_clear_error (&d->error);
  g_mutex_clear (&d->lock);
  g_cond_clear (&d->cond);
}

static void
derivation_unref (gpointer d)
{
  g_atomic_rc_box_release_full (d, derivation_clear);
}

static void
pending_free (CmlPendingOpen *p)
{
  g_clear_pointer (&p->model, cml_model_unref);
  g_clear_pointer (&p->session, cml_session_free);
  g_free (p->path);
  g_free (p);
}

/* Worker thread: the derivation, and nothing else. */
static void
derive_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Derivation *d = data;
  GError *error = NULL;
  CmlSystem *sys;

  /* tests: a derivation that lasts until the test lets it go (as test-e2e-tiered's compiler) */
  cml_test_gate_wait ("CMLAB_TEST_DERIVE_GATE");
  sys = cml_system_new (d->model, &error);

  g_mutex_lock (&d->lock);
  d->system = sys;
  d->error = error;
  d->done = TRUE;
  g_cond_broadcast (&d->cond);
  g_mutex_unlock (&d->lock);
  g_task_return_boolean (task, TRUE);
}

/* ---- the card over the view ---------------------------------------------------------------- */

static void
update_card (CmlWindow *self)
{
  CmlPendingOpen *p = self->pending_open;
  g_autofree char *detail = NULL;
  gint64 started_us;
  int s;

  if (p == NULL && self->compare_pending == NULL)
    return;
  started_us = p ? p->started_us : self->compare_started_us;
  s = (int) ((g_get_monotonic_time () - started_us) / G_USEC_PER_SEC);
  if (p == NULL)
    detail = g_strdup_printf (_("%d s so far. This run goes on meanwhile; the vakonomic run starts beside it "
                                "when its equations are ready."), s);
  else if (self->system)
    detail = g_strdup_printf (_("%d s so far. The model shown keeps running until the new one is ready; "
                                "the derivation cannot be interrupted."), s);
  else
    detail = g_strdup_printf (_("%d s so far. The derivation cannot be interrupted."), s);
  gtk_label_set_text (self->derive_detail, detail);
}

static gboolean
tick_card (gpointer data)
{
  update_card (data);
  return G_SOURCE_CONTINUE;
}

static void
show_card (CmlWindow *self)
{
  g_autofree char *title = NULL;

  if (self->pending_open)
    {
      CmlModel *m = self->pending_open->model;
      title = g_strdup_printf (_("Deriving the equations of motion of “%s”…"), m->title ? m->title : m->name);
    }
  else if (self->compare_pending)
    {
      CmlModel *m = self->compare_source;
      /* TRANSLATORS: the model's title; its vakonomic reading is compared with the run shown */
      title = g_strdup_printf (_("Deriving the vakonomic equations of “%s”…"), m->title ? m->title : m->name);
    }
  else
    return;
  gtk_label_set_text (self->derive_label, title);
  gtk_widget_set_tooltip_text (self->derive_cancel_button,
                               self->pending_open
                                 ? _("Stay with the model shown. The derivation already started cannot be interrupted: it "
                                   "finishes in the background, and choosing this model again then opens it at once.")
                                 : _("Give up the comparison: this run goes on alone. The derivation already started "
                                   "finishes in the background, and asking for the comparison again then starts it at "
                                   "once."));
  update_card (self);
  gtk_widget_set_visible (self->derive_box, TRUE);
  gtk_spinner_start (self->derive_spinner);
  if (self->derive_clock == 0)
    self->derive_clock = g_timeout_add_seconds (1, tick_card, self);
}

static void
hide_card (CmlWindow *self)
{
  if (self->pending_open || self->compare_pending)
    {
      show_card (self); /* what is still waited for */
      return;
    }
  g_clear_handle_id (&self->derive_clock, g_source_remove);
  gtk_spinner_stop (self->derive_spinner);
  gtk_widget_set_visible (self->derive_box, FALSE);
}

/* ---- switching once the system is there ---------------------------------------------------- */

/* The list of systems shows what runs again (the waited-for model did not start). */
static void
select_running (CmlWindow *self)
{
  cml_model_picker_set_selected (self->model_picker,
                                 self->system ? cml_system_get_model (self->system) : NULL);
}

/* Tells whoever asked for P how it ended (once): INSTALLED, or not (ERROR says why, or
 * NULL when the wait was given up). */
static void
tell (CmlWindow *self, CmlPendingOpen *p, gboolean installed, const GError *error)
{
  CmlWindowOpenedFunc then = p->then;

  p->then = NULL;
  if (then)
    then (self, installed, error, p->then_data);
}

/* Switches as P asks (MODEL's system derived by now); a failure is shown as opening it
 * would have shown it: where the view was when nothing runs, else in a dialog. */
static void
finish (CmlWindow *self, CmlPendingOpen *p)
{
  g_autoptr (GError) error = NULL;
  CmlModel *m = p->model;

  if (p->session)
    {
      if (!cml_window_apply_session (self, p->session, m, p->path, &error))
        {
          cml_window_show_error (self, p->lesson_step >= 0 ? _("Could not open the lesson’s step")
                                                            : _("Could not open the session"),
                                 error->message);
          select_running (self);
        }
      else if (p->lesson_step >= 0)
        cml_window_lesson_step_opened (self, (guint) p->lesson_step);
      tell (self, p, error == NULL, error);
      return;
    }
  if (cml_window_set_model (self, m, &error))
    {
      tell (self, p, TRUE, NULL);
      return;
    }
  if (p->path && self->system == NULL)
    cml_window_show_load_error (self, p->path, error->message);
  else
    {
      g_autofree char *base = p->path ? g_path_get_basename (p->path) : NULL;
      g_autofree char *primary = base ? g_strdup_printf (_("Could not open “%s”"), base)
                                      : g_strdup_printf (_("Could not start “%s”"), m->title ? m->title : m->name);

      cml_window_show_error (self, primary, error->message);
      select_running (self);
    }
  tell (self, p, FALSE, error);
}

/* The comparison waited for can start: D (done) is taken. */
static void
compare_ready (CmlWindow *self, Derivation *d)
{
  g_autoptr (CmlModel) vakonomic = g_steal_pointer (&self->compare_pending);
  g_autoptr (CmlSystem) sys = d->system ? cml_system_ref (d->system) : NULL;
  g_autoptr (GError) error = d->error ? g_error_copy (d->error) : NULL;

  g_clear_pointer (&self->compare_source, cml_model_unref);
  g_hash_table_remove (self->derivations, vakonomic); /* (D may go with it) */
  if (sys)
    g_hash_table_insert (self->systems, cml_model_ref (vakonomic), cml_system_ref (sys));
  hide_card (self);
  cml_window_compare_derived (self, sys, error);
}

/* The window's thread, when a derivation has ended: the model waited for is switched to. */
static void
derive_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Derivation *d = g_task_get_task_data (G_TASK (result));
  g_autoptr (CmlWindow) self = g_weak_ref_get (&d->window);
  CmlPendingOpen *p;

  if (self == NULL || self->derivations == NULL)
    return; /* the window is gone: the system goes with the task */
  g_debug ("%s derived in %.1f s%s%s", d->model->name, (g_get_monotonic_time () - d->started_us) / 1e6,
           d->error ? ": " : "", d->error ? d->error->message : "");
  if (self->compare_pending == d->model)
    {
      compare_ready (self, d);
      return;
    }
  p = self->pending_open;
  if (p == NULL || p->model != d->model)
    return; /* no longer waited for: kept for a later choice */
  self->pending_open = NULL;
  hide_card (self);
  finish (self, p);
  pending_free (p);
}

static Derivation *
begin_derivation (CmlWindow *self, CmlModel *model)
{
  Derivation *d = g_atomic_rc_box_new0 (Derivation);
  g_autoptr (GTask) task = NULL;

  g_weak_ref_init (&d->window, self);
  d->model = cml_model_ref (model);
  g_mutex_init (&d->lock);
  g_cond_init (&d->cond);
  d->started_us = g_get_monotonic_time ();
  g_hash_table_insert (self->derivations, model, d);

  task = g_task_new (NULL, NULL, derive_done, NULL);
  g_task_set_source_tag (task, begin_derivation);
  g_task_set_task_data (task, g_atomic_rc_box_acquire (d), derivation_unref);
  g_task_run_in_thread (task, derive_thread);
  return d;
}

/* Gives up the wait for P (replaced, or stopped): whoever asked is told. */
static void
drop_pending (CmlWindow *self)
{
  CmlPendingOpen *p = g_steal_pointer (&self->pending_open);

  if (p == NULL)
    return;
  tell (self, p, FALSE, NULL);
  pending_free (p);
}

void
cml_window_open_model (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session)
{
  cml_window_open_model_then (self, model, path, session, NULL, NULL);
}

/* Opens MODEL (with SESSION, a lesson's step LESSON_STEP from 0 or -1) once its system is
 * derived; THEN is told how it ended. */
static void
open_pending (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session, int lesson_step,
              CmlWindowOpenedFunc then, gpointer then_data)
{
  Derivation *d;
  CmlPendingOpen *p;
  gboolean ready;

  if (self->derivations == NULL)
    {
      g_clear_pointer (&session, cml_session_free);
      return; /* the window is closing */
    }
  p = g_new0 (CmlPendingOpen, 1);
  p->model = cml_model_ref (model);
  p->path = g_strdup (path);
  p->session = session;
  p->lesson_step = lesson_step;
  p->started_us = g_get_monotonic_time ();
  p->then = then;
  p->then_data = then_data;

  /* this replaces what the window waited for */
  drop_pending (self);

  d = g_hash_table_lookup (self->derivations, model);
  if (g_hash_table_contains (self->systems, model))
    ready = TRUE;
  else if (d == NULL)
    {
      d = begin_derivation (self, model);
      ready = FALSE;
    }
  else
    {
      g_mutex_lock (&d->lock);
      ready = d->done;
      g_mutex_unlock (&d->lock);
    }
  if (ready)
    {
      hide_card (self);
      finish (self, p);
      pending_free (p);
      return;
    }
  self->pending_open = p;
  if (d->started_us < p->started_us)
    p->started_us = d->started_us; /* the time counted is the derivation's */
  show_card (self);
}

void
cml_window_open_model_then (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session,
                            CmlWindowOpenedFunc then, gpointer then_data)
{
  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (model != NULL);

  open_pending (self, model, path, session, -1, then, then_data);
}

void
cml_window_open_lesson_step (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session, guint step)
{
  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (model != NULL && session != NULL);

  open_pending (self, model, path, session, (int) step, NULL, NULL);
}

int
cml_window_get_lesson_waiting (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), -1);

  return self->pending_open ? self->pending_open->lesson_step : -1;
}

void
cml_window_derive_compare (CmlWindow *self, CmlModel *vakonomic)
{
  Derivation *d;
  gboolean ready;

  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (vakonomic != NULL && self->system != NULL);

  cml_window_derive_compare_cancel (self);
  if (self->derivations == NULL)
    return; /* the window is closing */
  d = g_hash_table_lookup (self->derivations, vakonomic);
  if (d == NULL)
    {
      d = begin_derivation (self, vakonomic);
      ready = FALSE;
    }
  else
    {
      g_mutex_lock (&d->lock);
      ready = d->done;
      g_mutex_unlock (&d->lock);
    }
  self->compare_pending = cml_model_ref (vakonomic);
  self->compare_source = cml_model_ref (cml_system_get_model (self->system));
  self->compare_started_us = d->started_us;
  if (ready)
    {
      Derivation *held = g_atomic_rc_box_acquire (d);
      compare_ready (self, held);
      derivation_unref (held);
      return;
    }
  show_card (self);
}

void
cml_window_derive_compare_cancel (CmlWindow *self)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  if (self->compare_pending == NULL)
    return;
  g_clear_pointer (&self->compare_pending, cml_model_unref);
  g_clear_pointer (&self->compare_source, cml_model_unref);
  hide_card (self);
}

gboolean
cml_window_open_session_then (CmlWindow *self, const char *path, CmlWindowOpenedFunc then, gpointer then_data,
                              GError **error)
{
  CmlSession *session;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  session = cml_session_load (path, error);
  if (session == NULL)
    return FALSE;
  cml_window_open_model_then (self, cml_window_session_model (self, session), path, session, then, then_data);
  return TRUE;
}

void
cml_window_open_session_file (CmlWindow *self, const char *path)
{
  g_autoptr (GError) error = NULL;
  CmlSession *session;

  g_return_if_fail (CML_IS_WINDOW (self));
  g_return_if_fail (path != NULL);

  session = cml_session_load (path, &error);
  if (session == NULL)
    {
      cml_window_show_error (self, _("Could not open the session"), error->message);
      return;
    }
  cml_window_open_model (self, cml_window_session_model (self, session), path, session);
}

CmlSystem *
cml_window_take_derived (CmlWindow *self, CmlModel *model, GError **error)
{
  Derivation *d;
  CmlSystem *sys;

  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  d = self->derivations ? g_hash_table_lookup (self->derivations, model) : NULL;
  if (d == NULL)
    return cml_system_new (model, error);

  /* begun on the worker: its end is waited for (the model is not for two threads) */
  g_mutex_lock (&d->lock);
  while (!d->done)
    g_cond_wait (&d->cond, &d->lock);
  g_mutex_unlock (&d->lock);
  if (d->system == NULL)
    {
      g_propagate_error (error, g_error_copy (d->error));
      g_hash_table_remove (self->derivations, model); /* a later try derives again */
      return NULL;
    }
  sys = cml_system_ref (d->system);
  g_hash_table_remove (self->derivations, model);
  return sys;
}

const char *
cml_window_get_deriving (CmlWindow *self)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  return self->pending_open ? self->pending_open->model->name : NULL;
}

void
cml_window_stop_waiting (CmlWindow *self)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  if (self->pending_open == NULL)
    {
      cml_window_derive_compare_cancel (self); /* the card's Cancel, for a comparison */
      return;
    }
  drop_pending (self);
  hide_card (self);
  select_running (self);
}

static void
stop_waiting_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  cml_window_stop_waiting (CML_WINDOW (widget));
}

void
cml_window_derive_init (CmlWindow *self)
{
  self->derivations = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, derivation_unref);
  self->vakonomic_of = g_hash_table_new_full (g_direct_hash, g_direct_equal, (GDestroyNotify) cml_model_unref,
                                              (GDestroyNotify) cml_model_unref);
}

void
cml_window_derive_dispose (CmlWindow *self)
{
  /* a derivation still running ends on its own; its callback finds no window */
  g_clear_pointer (&self->pending_open, pending_free);
  g_clear_pointer (&self->compare_pending, cml_model_unref);
  g_clear_pointer (&self->compare_source, cml_model_unref);
  g_clear_pointer (&self->vakonomic_of, g_hash_table_unref);
  g_clear_handle_id (&self->derive_clock, g_source_remove);
  g_clear_pointer (&self->derivations, g_hash_table_unref);
}

void
cml_window_class_add_derive_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.stop-waiting", NULL, stop_waiting_action);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, derive_box);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, derive_spinner);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, derive_label);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, derive_detail);
  gtk_widget_class_bind_template_child (widget_class, CmlWindow, derive_cancel_button);
}
