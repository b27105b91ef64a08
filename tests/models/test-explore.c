/* test-explore.c — the fan of extremals's progress and cancel, and its covectors made apart
 * (cml-explore.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On Martinet from its initial point: the progress counts every extremal once, in
 * increasing order, up to N; a cancel flag set before the call runs no extremal and
 * gives CML_ERROR_CANCELLED; set from the progress callback after the third extremal
 * (on one thread: by construction, no timing) no fourth one starts.  The covectors made
 * apart on this thread, then the fan given them on a worker thread with a simulation of its
 * own, give the same numbers, bit for bit, as cml_explore () on this thread.
 */
#define G_LOG_DOMAIN "test-explore"

#include <string.h>

#include "cml-error.h"
#include "cml-explore.h"
#include "physics-util.h"

#define FAN_N 12
#define FAN_T 3.0

static CmlExploreOptions
fan_options (guint jobs)
{
  CmlExploreOptions opt = cml_explore_options_default ();
  opt.n_covectors = FAN_N;
  opt.t_end = FAN_T;
  opt.n_samples = 40;
  opt.maxwell_samples = 40;
  opt.jobs = jobs;
  return opt;
}

typedef struct
{
  GMutex  lock;
  GArray *seen;   /* the DONE of each call */
  guint   total;
  gint   *cancel; /* set when DONE reaches STOP_AT (0: never) */
  guint   stop_at;
} Progress;

static void
on_progress (guint done, guint total, gpointer data)
{
  Progress *p = data;
  g_mutex_lock (&p->lock);
  g_array_append_val (p->seen, done);
  p->total = total;
  if (p->stop_at && done == p->stop_at)
    g_atomic_int_set (p->cancel, 1);
  g_mutex_unlock (&p->lock);
}

static void
progress_init (Progress *p)
{
  memset (p, 0, sizeof *p);
  g_mutex_init (&p->lock);
  p->seen = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
progress_clear (Progress *p)
{
  g_array_unref (p->seen);
  g_mutex_clear (&p->lock);
}

static void
test_progress (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  g_autoptr (GError) error = NULL;
  CmlExploreOptions opt = fan_options (2);
  Progress p;

  progress_init (&p);
  g_autoptr (CmlExploreResult) res = cml_explore_full (sim, &opt, on_progress, &p, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (res);
  g_assert_cmpuint (p.seen->len, ==, FAN_N);
  g_assert_cmpuint (p.total, ==, FAN_N);
  for (guint k = 0; k < p.seen->len; k++)
    g_assert_cmpuint (g_array_index (p.seen, guint, k), ==, k + 1);
  progress_clear (&p);
}

static void
test_cancel_before (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  g_autoptr (GError) error = NULL;
  CmlExploreOptions opt = fan_options (2);
  gint cancel = 1;
  Progress p;

  progress_init (&p);
  CmlExploreResult *res = cml_explore_full (sim, &opt, on_progress, &p, &cancel, &error);
  g_assert_null (res);
  g_assert_error (error, CML_ERROR, CML_ERROR_CANCELLED);
  g_assert_cmpuint (p.seen->len, ==, 0);
  progress_clear (&p);
}

static void
test_cancel_during (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  g_autoptr (GError) error = NULL;
  CmlExploreOptions opt = fan_options (1);
  gint cancel = 0;
  Progress p;

  progress_init (&p);
  p.cancel = &cancel;
  p.stop_at = 3;
  CmlExploreResult *res = cml_explore_full (sim, &opt, on_progress, &p, &cancel, &error);
  g_assert_null (res);
  g_assert_error (error, CML_ERROR, CML_ERROR_CANCELLED);
  /* one thread: the fourth extremal never started */
  g_assert_cmpuint (p.seen->len, ==, 3);
  progress_clear (&p);
}

typedef struct
{
  CmlSimulation    *sim;
  CmlExploreOptions opt;
  CmlExploreResult *res;
  GError           *error;
} Worker;

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  w->res = cml_explore_full (w->sim, &w->opt, NULL, NULL, NULL, &w->error);
  return NULL;
}

static void
test_covectors_apart (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  g_autoptr (GError) error = NULL;
  CmlExploreOptions opt = fan_options (2);
  guint n_momenta = 0;

  g_autoptr (CmlExploreResult) whole = cml_explore (sim, &opt, &error);
  g_assert_no_error (error);
  g_autofree double *cov = cml_explore_covectors (sim, &opt, &n_momenta, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_momenta, ==, whole->n_momenta);
  g_assert_cmpmem (cov, FAN_N * n_momenta * sizeof (double), whole->covectors, FAN_N * n_momenta * sizeof (double));

  /* on a worker thread with a simulation of its own */
  Worker w = { .sim = sim_open ("martinet"), .opt = opt };
  w.opt.covectors = cov;
  GThread *thread = g_thread_new ("explore", worker_run, &w);
  g_thread_join (thread);
  g_assert_no_error (w.error);
  g_assert_nonnull (w.res);
  gsize np = (gsize) FAN_N * (whole->n_times + 1) * whole->n_coords;
  g_assert_cmpmem (w.res->points, np * sizeof (double), whole->points, np * sizeof (double));
  for (guint i = 0; i < FAN_N; i++)
    {
      g_assert_true (w.res->conjugate[i] == whole->conjugate[i]
                     || (isnan (w.res->conjugate[i]) && isnan (whole->conjugate[i])));
      g_assert_true (w.res->maxwell[i] == whole->maxwell[i]
                     || (isnan (w.res->maxwell[i]) && isnan (whole->maxwell[i])));
      g_assert_cmpuint (w.res->partner[i], ==, whole->partner[i]);
    }
  /* the fan reaches the start's level: half the squared speed 0.5 (p_u² + p_y1² = 1) */
  for (guint i = 0; i < FAN_N; i++)
    g_assert_cmpfloat_with_epsilon (cov[i * n_momenta] * cov[i * n_momenta]
                                      + cov[i * n_momenta + 1] * cov[i * n_momenta + 1], 1.0, 1e-12);
  cml_explore_result_free (w.res);
  cml_simulation_free (w.sim);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/explore/progress", test_progress);
  g_test_add_func ("/explore/cancel-before", test_cancel_before);
  g_test_add_func ("/explore/cancel-during", test_cancel_during);
  g_test_add_func ("/explore/covectors-apart", test_covectors_apart);
  return g_test_run ();
}
