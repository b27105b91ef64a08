/* cml-equations-account.c — the equations page's account of a system, made on a worker.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For a large system the account takes far longer than anything else the window does:
 * a 50-link pendulum's 100 equations typeset, and the conserved-quantity inspector's runs
 * and expansions (cml-conserved.c) — tens of seconds, which froze the window when its
 * Equations page was opened.  Both grow the model's expression context, which the window's
 * thread uses too (plots, the panels), so the worker does not touch the window's model: it
 * reads the model's text into a model of its own, derives its system (from the
 * derived-system cache when it has it) and makes the account from that — the same text
 * gives the same equations, printed the same.  The copy is kept with the job: the
 * inspector's candidates point into its context.
 */
#define G_LOG_DOMAIN "cml-equations-panel"

#include "cml-equations-account.h"
#include "cml-test-gate.h"

#include <string.h>

struct _CmlAccountJob
{
  gint           ref_count;
  /* the request (read-only once started) */
  char          *text;
  char          *path;
  double        *params;     /* NULL: the model's */
  gboolean       with_text;
  GWeakRef       owner;
  CmlAccountDone done_cb;
  /* the result, under LOCK until DONE */
  GMutex         lock;
  GCond          cond;
  gboolean       done;
  CmlModel      *model;      /* the worker's copy */
  CmlSystem     *sys;
  char          *account;
  CmlConservedReport *report;
  char          *error;
};

CmlAccountJob *
cml_account_job_ref (CmlAccountJob *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}

void
cml_account_job_unref (CmlAccountJob *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  g_free (job->text);
  g_free (job->path);
  g_free (job->params);
  g_weak_ref_clear (&job->owner);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->cond);
  g_clear_pointer (&job->report, cml_conserved_report_free);
  g_clear_pointer (&job->sys, cml_system_unref);
  g_clear_pointer (&job->model, cml_model_unref);
  g_free (job->account);
  g_free (job->error);
  g_free (job);
}

/* Worker thread: a model of its own, its system, the account. */
static void
account_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CmlAccountJob *job = data;
  g_autoptr (GError) error = NULL;
  CmlModel *model;
  CmlSystem *sys;
  char *account;
  CmlConservedReport *report;

  /* tests: an account that is made only once the test lets it go */
  cml_test_gate_wait ("CMLAB_TEST_ACCOUNT_GATE");
  model = cml_model_new_from_data (job->text, job->path, &error);
  sys = model ? cml_system_new (model, &error) : NULL;
  account = sys && job->with_text ? cml_system_describe_readable_equations (sys) : NULL;
  report = sys ? cml_conserved_inspect_at (sys, job->params) : NULL;

  g_mutex_lock (&job->lock);
  job->model = model;
  job->sys = sys;
  job->account = account;
  job->report = report;
  job->error = error ? g_strdup (error->message) : NULL;
  job->done = TRUE;
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
  g_task_return_boolean (task, TRUE);
}

static void
account_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlAccountJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr (GObject) owner = g_weak_ref_get (&job->owner);

  if (owner && job->done_cb)
    job->done_cb (job, owner);
}

CmlAccountJob *
cml_account_job_start (CmlSystem *sys, const double *params, gboolean with_text, GObject *owner,
                       CmlAccountDone done)
{
  CmlModel *model = cml_system_get_model (sys);
  CmlAccountJob *job = g_new0 (CmlAccountJob, 1);
  g_autoptr (GTask) task = NULL;

  job->ref_count = 1;
  job->text = g_strdup (model->text);
  job->path = g_strdup (model->path);
  job->params = params ? g_memdup2 (params, model->params->len * sizeof (double)) : NULL;
  job->with_text = with_text;
  g_weak_ref_init (&job->owner, owner);
  job->done_cb = done;
  g_mutex_init (&job->lock);
  g_cond_init (&job->cond);

  task = g_task_new (NULL, NULL, account_done, NULL);
  g_task_set_source_tag (task, cml_account_job_start);
  g_task_set_task_data (task, cml_account_job_ref (job), (GDestroyNotify) cml_account_job_unref);
  g_task_run_in_thread (task, account_thread);
  return job;
}

void
cml_account_job_wait (CmlAccountJob *job)
{
  g_mutex_lock (&job->lock);
  while (!job->done)
    g_cond_wait (&job->cond, &job->lock);
  g_mutex_unlock (&job->lock);
}

gboolean
cml_account_job_is_done (CmlAccountJob *job)
{
  gboolean done;

  g_mutex_lock (&job->lock);
  done = job->done;
  g_mutex_unlock (&job->lock);
  return done;
}

const char *
cml_account_job_get_text (CmlAccountJob *job)
{
  g_return_val_if_fail (cml_account_job_is_done (job), NULL);
  return job->account;
}

CmlConservedReport *
cml_account_job_steal_report (CmlAccountJob *job)
{
  g_return_val_if_fail (cml_account_job_is_done (job), NULL);
  return g_steal_pointer (&job->report);
}

const char *
cml_account_job_get_error (CmlAccountJob *job)
{
  g_return_val_if_fail (cml_account_job_is_done (job), NULL);
  return job->error;
}
