/* cml-native-queue.c — tiered evaluation: native code compiled in the background.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A system's programs run at once on the interpreter; what native code they lack is
 * compiled here, one object after another on a single worker thread (the C compiler is a
 * child process of it), so that the interpreter keeps the other processor.  A simulation
 * looks at cml_native_generation () between its steps and takes the new objects at a step
 * boundary (cml-system-native.c).  Native code computes bit for bit what the interpreter
 * computes, so a run that switches mid-way writes the bytes a run native throughout
 * writes; only its speed changes.
 *
 * $CMLAB_NATIVE=wait compiles before the run goes on instead (the behaviour without
 * tiers: for measuring native code alone); $CMLAB_NATIVE=0 turns native code off.
 *
 * The queue and its worker are a pthread mutex, a condition and one thread (not GLib's
 * thread pool, whose futex-based locks ThreadSanitizer cannot see through): a job is
 * handed over under the mutex and handed back by its atomic done flag.
 */
#define G_LOG_DOMAIN "cml-native"

#include "cml-native.h"

#include <pthread.h>

struct _CmlNativeJob
{
  gint            refs;
  gint            done;
  char           *key;
  char           *source;      /* the source, or NULL: written by write (data) on the worker */
  CmlNativeSource write;
  gpointer        data;
  GDestroyNotify  destroy;
  CmlNative      *native;
  char           *error;
};

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_filled = PTHREAD_COND_INITIALIZER; /* a job queued (wakes the worker) */
static pthread_cond_t queue_ended = PTHREAD_COND_INITIALIZER;  /* a job ended (wakes cml_native_wait) */
static GQueue queue_jobs = G_QUEUE_INIT; /* jobs not yet started, under queue_lock */
static guint queue_pending;     /* jobs queued or running, under queue_lock */
static gboolean queue_worker;   /* the worker thread started, under queue_lock */
static guint queue_generation;  /* jobs ended, atomic */

gboolean
cml_native_in_background (void)
{
  static gsize mode = 0;

  if (g_once_init_enter (&mode))
    {
      const char *env = g_getenv ("CMLAB_NATIVE");
      g_once_init_leave (&mode, env != NULL && g_ascii_strcasecmp (env, "wait") == 0 ? 1 : 2);
    }
  return mode == 2;
}

static gboolean
string_source (gpointer data, GString *s)
{
  g_string_append (s, data);
  return TRUE;
}

static void
job_run (CmlNativeJob *job)
{
  g_autoptr (GError) error = NULL;

  if (job->write != NULL)
    job->native = cml_native_build_keyed (job->key, job->write, job->data, &error);
  else
    job->native = job->key != NULL ? cml_native_build_keyed (job->key, string_source, job->source, &error)
                                   : cml_native_build (job->source, &error);
  if (job->native == NULL)
    job->error = g_strdup (error->message);
  g_debug ("built in the background: %s", job->native ? cml_native_path (job->native) : job->error);
  g_clear_pointer (&job->source, g_free);
  if (job->destroy != NULL)
    g_clear_pointer (&job->data, job->destroy);
  g_atomic_int_set (&job->done, 1);
  g_atomic_int_inc (&queue_generation);
  cml_native_job_unref (job);
}

/* The worker: takes the jobs one after another, for the life of the process. */
static gpointer
worker_main (gpointer unused)
{
  for (;;)
    {
      CmlNativeJob *job;

      pthread_mutex_lock (&queue_lock);
      while (g_queue_is_empty (&queue_jobs))
        pthread_cond_wait (&queue_filled, &queue_lock);
      job = g_queue_pop_head (&queue_jobs);
      pthread_mutex_unlock (&queue_lock);

      job_run (job);

      pthread_mutex_lock (&queue_lock);
      queue_pending--;
      pthread_cond_broadcast (&queue_ended);
      pthread_mutex_unlock (&queue_lock);
    }
  return NULL;
}

static CmlNativeJob *
job_push (CmlNativeJob *job)
{
  job->refs = 2; /* the caller's and the worker's */
  pthread_mutex_lock (&queue_lock);
  if (!queue_worker)
    {
      /* one worker: the compiler takes one processor, the interpreter the other */
      g_autoptr (GError) error = NULL;
      GThread *worker = g_thread_try_new ("cml-native", worker_main, NULL, &error);
      if (worker == NULL)
        {
          /* no thread to be had (the address space or the process limit is full): the
           * job is built here, as $CMLAB_NATIVE=wait builds it; a later job tries again */
          pthread_mutex_unlock (&queue_lock);
          g_debug ("no background worker (%s): building on the caller's thread", error->message);
          job_run (job);
          return job;
        }
      g_thread_unref (worker);
      queue_worker = TRUE;
    }
  g_queue_push_tail (&queue_jobs, job);
  queue_pending++;
  pthread_cond_signal (&queue_filled);
  pthread_mutex_unlock (&queue_lock);
  return job;
}

CmlNativeJob *
cml_native_build_later (const char *key, char *source)
{
  CmlNativeJob *job = g_new0 (CmlNativeJob, 1);

  job->key = g_strdup (key);
  job->source = source;
  return job_push (job);
}

CmlNativeJob *
cml_native_build_keyed_later (const char *key, CmlNativeSource source, gpointer data,
                              GDestroyNotify destroy)
{
  CmlNativeJob *job = g_new0 (CmlNativeJob, 1);

  job->key = g_strdup (key);
  job->write = source;
  job->data = data;
  job->destroy = destroy;
  return job_push (job);
}

gboolean
cml_native_job_done (CmlNativeJob *job)
{
  return g_atomic_int_get (&job->done) != 0;
}

CmlNative *
cml_native_job_steal (CmlNativeJob *job, char **error)
{
  g_return_val_if_fail (cml_native_job_done (job), NULL);
  if (error != NULL)
    *error = g_strdup (job->error);
  return g_steal_pointer (&job->native);
}

void
cml_native_job_unref (CmlNativeJob *job)
{
  if (job == NULL || !g_atomic_int_dec_and_test (&job->refs))
    return;
  g_clear_pointer (&job->native, cml_native_free);
  g_free (job->key);
  g_free (job->source);
  g_free (job->error);
  g_free (job);
}

guint
cml_native_generation (void)
{
  return (guint) g_atomic_int_get (&queue_generation);
}

void
cml_native_wait (void)
{
  pthread_mutex_lock (&queue_lock);
  while (queue_pending > 0)
    pthread_cond_wait (&queue_ended, &queue_lock);
  pthread_mutex_unlock (&queue_lock);
}
