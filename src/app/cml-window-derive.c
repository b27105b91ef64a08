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
 * model again then installs it at once).
 *
 * The checks before the window changes run on workers too, since a large or slow model
 * makes them long: the derivation's worker, while it still owns the new system, prepares
 * what a run will ask for first and checks that the model's own initial data start a run;
 * a session (or a lesson's step) is tried — a simulation reset with its parameters,
 * integrator and initial data — on a worker of its own, begun once the system is there
 * (prepared for the session's integrator on the window's thread, which owns it by then).
 * Its result comes back to the window's thread and opens the session, or says why not, as
 * opening it there did; a result that comes after the user chose something else is
 * dropped.  The run shown is untouched until a check has passed.
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
  GError    *own_data; /* why the model's own initial data do not start a run, or NULL */
  CmlIntegratorKind kind; /* prepared for besides auto: the integrator the run will use */
  gint64     started_us;
} Derivation;

/* A session's trial run on a worker: the result (ERROR or none) for the open numbered
 * SERIAL. */
typedef struct
{
  GWeakRef   window;
  guint      serial;
  CmlSystem *system;
  GHashTable *params;  /* name -> double*, or NULL */
  CmlIntegratorOptions integrator;
  GHashTable *initial; /* name -> double*, or NULL */
  GError    *error;
} Trial;

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
  guint       serial;  /* which open this is (a trial's result names it) */
  gboolean    trying;  /* the session's trial run is on a worker */
  gboolean    card_later; /* the card not shown yet: only if the trial lasts */
};

static guint next_serial;

static void
derivation_clear (gpointer data)
{
  Derivation *d = data;

  g_weak_ref_clear (&d->window);
  g_clear_pointer (&d->model, cml_model_unref);
  g_clear_pointer (&d->system, cml_system_unref);
  g_clear_error (&d->error);
  g_clear_error (&d->own_data);
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

/* Whether the model's own initial data start a run of SYS (as the runner's worker will try);
 * the thread that owns SYS. */
static gboolean
check_own_data (CmlSystem *sys, GError **error)
{
  g_autoptr (CmlSimulation) check = cml_simulation_new (sys, error);

  return check != NULL && cml_simulation_reset (check, NULL, error);
}

/* Worker thread: the derivation, what a run asks for first, and the check of the model's own
 * initial data — all while this thread alone has the model. */
static void
derive_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Derivation *d = data;
  GError *error = NULL, *own_data = NULL;
  CmlSystem *sys;

  /* tests: a derivation that lasts until the test lets it go (as test-e2e-tiered's compiler) */
  cml_test_gate_wait ("CMLAB_TEST_DERIVE_GATE");
  sys = cml_system_new (d->model, &error);
  if (sys)
    {
      /* the runner, the integrator's tooltip and a session's trial would derive these on
       * the window's thread */
      cml_system_prepare (sys, CML_INTEGRATOR_AUTO);
      cml_system_prepare (sys, d->kind);
      /* tests: a check that lasts until the test lets it go */
      cml_test_gate_hold ("CMLAB_TEST_TRIAL_GATE");
      (void) check_own_data (sys, &own_data);
    }

  g_mutex_lock (&d->lock);
  d->own_data = own_data;
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
  if (p && p->trying)
    detail = g_strdup_printf (_("%d s so far. The model shown keeps running until the new one is ready."), s);
  else if (p == NULL)
    detail = g_strdup_printf (_("%d s so far. This run goes on meanwhile; the vakonomic run starts beside it "
                                "when its equations are ready."), s);
  else if (self->system)
    detail = g_strdup_printf (_("%d s so far. The model shown keeps running until the new one is ready; "
                                "the derivation cannot be interrupted."), s);
  else
    detail = g_strdup_printf (_("%d s so far. The derivation cannot be interrupted."), s);
  gtk_label_set_text (self->derive_detail, detail);
}

static void show_card (CmlWindow *self);

static gboolean
tick_card (gpointer data)
{
  CmlWindow *self = data;

  if (self->pending_open && self->pending_open->card_later)
    {
      /* a trial that lasts: say so now */
      self->pending_open->card_later = FALSE;
      show_card (self);
    }
  else
    update_card (self);
  return G_SOURCE_CONTINUE;
}

static void
show_card (CmlWindow *self)
{
  g_autofree char *title = NULL;

  if (self->pending_open && self->pending_open->card_later)
    {
      /* most trials end within a frame: the card only for one that lasts */
      if (self->derive_clock == 0)
        self->derive_clock = g_timeout_add_seconds (1, tick_card, self);
      return;
    }
  if (self->pending_open && self->pending_open->trying)
    {
      CmlModel *m = self->pending_open->model;
      /* TRANSLATORS: the model's title; a session's (or a lesson step's) parameters and initial data are tried */
      title = g_strdup_printf (_("Checking the session’s initial data for “%s”…"), m->title ? m->title : m->name);
    }
  else if (self->pending_open)
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
                               self->pending_open && self->pending_open->trying
                                 ? _("Stay with the model shown.")
                               : self->pending_open
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

/* A session (or a lesson's step) P asked for could not be opened: ERROR says why. */
static void
session_failed (CmlWindow *self, CmlPendingOpen *p, const GError *error)
{
  cml_window_show_error (self, p->lesson_step >= 0 ? _("Could not open the lesson’s step")
                                                    : _("Could not open the session"),
                         error->message);
  select_running (self);
  tell (self, p, FALSE, error);
}

static gboolean begin_trial (CmlWindow *self, CmlPendingOpen *p);

/* Switches as P asks (MODEL's system derived by now); a failure is shown as opening it
 * would have shown it: where the view was when nothing runs, else in a dialog.  FALSE when
 * P waits on, for its session's trial run (P is the window's pending_open again). */
static gboolean
finish (CmlWindow *self, CmlPendingOpen *p)
{
  g_autoptr (GError) error = NULL;
  CmlModel *m = p->model;

  if (p->session)
    {
      if (!p->trying && begin_trial (self, p))
        return FALSE;
      if (!cml_window_apply_session_tried (self, p->session, m, p->path, p->trying, &error))
        {
          session_failed (self, p, error);
          return TRUE;
        }
      if (p->lesson_step >= 0)
        cml_window_lesson_step_opened (self, (guint) p->lesson_step);
      tell (self, p, TRUE, NULL);
      return TRUE;
    }
  if (cml_window_set_model (self, m, &error))
    {
      tell (self, p, TRUE, NULL);
      return TRUE;
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
  return TRUE;
}

/* ---- a session's trial run on a worker ----------------------------------------------------- */

static void
trial_free (gpointer data)
{
  Trial *t = data;

  g_weak_ref_clear (&t->window);
  g_clear_pointer (&t->system, cml_system_unref);
  g_clear_pointer (&t->params, g_hash_table_unref);
  g_clear_pointer (&t->initial, g_hash_table_unref);
  g_clear_error (&t->error);
  g_free (t);
}

/* Worker thread: the session's data tried on the system (prepared for its integrator). */
static void
trial_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Trial *t = data;
  g_autoptr (CmlSimulation) sim = NULL;

  /* tests: a trial that lasts until the test lets it go */
  cml_test_gate_hold ("CMLAB_TEST_TRIAL_GATE");
  sim = cml_window_trial_simulation (t->system, t->params, &t->integrator, t->initial, &t->error);
  g_task_return_boolean (task, TRUE);
}

/* The window's thread, when a trial has ended: the session opens, or says why not — unless
 * the window no longer waits for it. */
static void
trial_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Trial *t = g_task_get_task_data (G_TASK (result));
  g_autoptr (CmlWindow) self = g_weak_ref_get (&t->window);
  CmlPendingOpen *p;

  if (self == NULL)
    return;
  self->checks_running--;
  p = self->pending_open;
  if (p == NULL || p->serial != t->serial || self->derivations == NULL)
    return; /* the user chose something else meanwhile (or the window closes) */
  self->pending_open = NULL;
  if (t->error)
    {
      g_autoptr (GError) error = g_error_copy (t->error);

      g_prefix_error (&error, "%s: ", p->path);
      session_failed (self, p, error);
    }
  else
    (void) finish (self, p);
  pending_free (p);
  hide_card (self);
}

/* Begins P's trial run on a worker, once P's model has its system; FALSE when there is none
 * (its derivation failed: opening says so). */
static gboolean
begin_trial (CmlWindow *self, CmlPendingOpen *p)
{
  CmlSystem *sys = g_hash_table_lookup (self->systems, p->model);
  g_autoptr (GTask) task = NULL;
  Trial *t;

  if (sys == NULL)
    {
      Derivation *d = g_hash_table_lookup (self->derivations, p->model);

      if (d == NULL)
        return FALSE;
      g_mutex_lock (&d->lock);
      sys = d->done ? d->system : NULL;
      g_mutex_unlock (&d->lock);
      if (sys == NULL)
        return FALSE;
    }
  /* this thread owns the system now: what the trial's simulation asks for is derived here
   * (on the derivation's worker already, when it was begun for this session) */
  cml_system_prepare (sys, p->session->integrator.kind);

  t = g_new0 (Trial, 1);
  g_weak_ref_init (&t->window, self);
  t->serial = p->serial;
  t->system = cml_system_ref (sys);
  t->params = p->session->params ? cml_window_copy_values (p->session->params) : NULL;
  t->integrator = p->session->integrator;
  t->initial = p->session->initial ? cml_window_copy_values (p->session->initial) : NULL;

  p->trying = TRUE;
  p->card_later = !gtk_widget_get_visible (self->derive_box);
  self->pending_open = p;
  self->checks_running++;
  task = g_task_new (NULL, NULL, trial_done, NULL);
  g_task_set_source_tag (task, begin_trial);
  g_task_set_task_data (task, t, trial_free);
  g_task_run_in_thread (task, trial_thread);
  return TRUE;
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
  if (p == NULL || p->model != d->model || p->trying)
    return; /* no longer waited for: kept for a later choice */
  self->pending_open = NULL;
  if (finish (self, p))
    pending_free (p);
  hide_card (self); /* (shown on for a trial begun) */
}

static Derivation *
begin_derivation (CmlWindow *self, CmlModel *model, CmlIntegratorKind kind)
{
  Derivation *d = g_atomic_rc_box_new0 (Derivation);
  g_autoptr (GTask) task = NULL;

  g_weak_ref_init (&d->window, self);
  d->model = cml_model_ref (model);
  d->kind = kind;
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
  p->serial = ++next_serial;

  /* this replaces what the window waited for */
  drop_pending (self);

  d = g_hash_table_lookup (self->derivations, model);
  if (g_hash_table_contains (self->systems, model))
    ready = TRUE;
  else if (d == NULL)
    {
      d = begin_derivation (self, model, session ? session->integrator.kind : self->integrator.kind);
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
      if (finish (self, p))
        pending_free (p);
      hide_card (self); /* (or shows the trial's, when it lasts) */
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
      d = begin_derivation (self, vakonomic, self->integrator.kind);
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
cml_window_take_derived (CmlWindow *self, CmlModel *model, GError **own_data, GError **error)
{
  Derivation *d;
  CmlSystem *sys;

  g_return_val_if_fail (CML_IS_WINDOW (self), NULL);

  d = self->derivations ? g_hash_table_lookup (self->derivations, model) : NULL;
  if (d == NULL)
    {
      /* asked for here and now (a test, a command): derived and checked on this thread */
      sys = cml_system_new (model, error);
      if (sys && own_data)
        (void) check_own_data (sys, own_data);
      return sys;
    }

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
  if (own_data && d->own_data)
    *own_data = g_error_copy (d->own_data);
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
