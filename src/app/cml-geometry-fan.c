/* cml-geometry-fan.c — the Geometry page's fan of extremals on a worker thread: the core's
 * cml_explore_watch (each extremal's endpoint kept for the window as it ends), then the
 * points at the first conjugate and Maxwell times, each such extremal integrated again
 * from the start to that time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-geometry-view"

#include "cml-geometry-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-test-gate.h"

Job *
cml_geometry_job_ref (Job *job)
{
  g_atomic_int_inc (&job->ref_count);
  return job;
}

void
cml_geometry_job_unref (Job *job)
{
  if (!g_atomic_int_dec_and_test (&job->ref_count))
    return;
  g_clear_pointer (&job->sim, cml_simulation_free);
  g_free (job->covectors);
  g_free (job->ended);
  g_free (job->start);
  g_mutex_clear (&job->lock);
  g_clear_pointer (&job->res, cml_explore_result_free);
  g_free (job->conj_pts);
  g_free (job->max_pts);
  g_free (job->sachkov_t);
  g_free (job->sachkov_pts);
  g_free (job->paths);
  g_free (job);
}

static void
on_progress (guint done, guint total, gpointer data)
{
  Job *job = data;
  g_mutex_lock (&job->lock);
  job->done = done;
  g_mutex_unlock (&job->lock);
}

/* Extremal I has ended (a worker thread): its point at T kept for the window to draw.  A
 * test holds every extremal past the first HOLD_AFTER at the gate CMLAB_TEST_GEOMETRY_STEP_GATE
 * before it is kept, so that exactly that many are drawn until it lets them go. */
static void
on_ended (guint i, const double *point, double t_conjugate, gpointer data)
{
  Job *job = data;
  g_mutex_lock (&job->lock);
  guint slot = job->n_taken++;
  g_mutex_unlock (&job->lock);
  if (slot >= job->hold_after)
    cml_test_gate_wait ("CMLAB_TEST_GEOMETRY_STEP_GATE");
  g_mutex_lock (&job->lock);
  memcpy (job->ended + (gsize) i * job->n_coords, point, job->n_coords * sizeof (double));
  job->n_ended++;
  g_mutex_unlock (&job->lock);
}

/* The point of extremal I at time T (≤ the fan's T) into Q: its run again from the start. */
static void
point_at (Job *job, const double *z0, double t0, guint i, double t, double *q)
{
  CmlSystem *sys = cml_simulation_get_system (job->sim);
  CmlExploreResult *res = job->res;
  guint dim = cml_system_dim (sys), m = cml_system_get_model (sys)->m, nr = dim - m - res->n_momenta;
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));

  for (guint c = 0; c < res->n_coords; c++)
    q[c] = NAN;
  if (!isfinite (t))
    return;
  memcpy (z + m, res->covectors + (gsize) i * res->n_momenta, res->n_momenta * sizeof (double));
  cml_simulation_set_state (job->sim, t0, z);
  if (t > t0 && !cml_simulation_advance (job->sim, t, NULL))
    return;
  const double *s = cml_simulation_get_state (job->sim);
  memcpy (q, s, m * sizeof (double));
  memcpy (q + m, s + m + res->n_momenta, nr * sizeof (double));
}

/* Every STRIDE-th extremal (at most CML_GEOMETRY_MAX_PATHS of them) sampled at
 * CML_GEOMETRY_PATH_SAMPLES equal steps of [t0, T], for the 3-D scene. */
static void
sample_paths (Job *job, const double *z0, double t0)
{
  const CmlExploreResult *res = job->res;
  CmlSystem *sys = cml_simulation_get_system (job->sim);
  guint dim = cml_system_dim (sys), m = cml_system_get_model (sys)->m, nc = res->n_coords, S = CML_GEOMETRY_PATH_SAMPLES;
  guint nr = dim - m - res->n_momenta;
  guint stride = (res->n + CML_GEOMETRY_MAX_PATHS - 1) / CML_GEOMETRY_MAX_PATHS;
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));

  job->n_paths = (res->n + stride - 1) / stride;
  job->t0 = t0;
  job->paths = g_new (double, (gsize) job->n_paths * S * nc);
  for (gsize k = 0; k < (gsize) job->n_paths * S * nc; k++)
    job->paths[k] = NAN;
  for (guint p = 0; p < job->n_paths && !g_atomic_int_get (&job->cancel); p++)
    {
      memcpy (z + m, res->covectors + (gsize) p * stride * res->n_momenta, res->n_momenta * sizeof (double));
      cml_simulation_set_state (job->sim, t0, z);
      for (guint k = 0; k < S; k++)
        {
          double t = t0 + (job->opt.t_end - t0) * k / (S - 1);
          if (k > 0 && !cml_simulation_advance (job->sim, t, NULL))
            break;
          const double *s = cml_simulation_get_state (job->sim);
          double *q = job->paths + ((gsize) p * S + k) * nc;
          memcpy (q, s, m * sizeof (double));
          memcpy (q + m, s + m + res->n_momenta, nr * sizeof (double));
        }
    }
}

/* SE(2): each extremal's first Maxwell time in closed form (Sachkov's 2K(k), from its frame
 * momenta) and its point then, integrated again as the Maxwell points are. */
static void
sachkov_points (Job *job, const double *z0, double t0)
{
  const CmlExploreResult *res = job->res;
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (job->sim));
  guint nc = res->n_coords, idx[3] = { job->se2_frame.translation, job->se2_frame.rotation, job->se2_frame.lateral };
  for (guint a = 0; a < 3; a++)
    {
      guint j = 0;
      while (j < res->n_momenta && g_strcmp0 (res->momentum_names[j], model->momenta[idx[a]]) != 0)
        j++;
      if (j == res->n_momenta)
        return; /* not the model's momenta: nothing drawn */
      idx[a] = j;
    }
  job->sachkov_t = g_new (double, res->n);
  job->sachkov_pts = g_new (double, (gsize) res->n * nc);
  for (guint i = 0; i < res->n && !g_atomic_int_get (&job->cancel); i++)
    {
      const double *h = res->covectors + (gsize) i * res->n_momenta;
      double t = t0 + cml_se2_maxwell_time (h[idx[0]], h[idx[1]], h[idx[2]]);
      job->sachkov_t[i] = t <= job->opt.t_end ? t : NAN;
      point_at (job, z0, t0, i, job->sachkov_t[i], job->sachkov_pts + (gsize) i * nc);
    }
}

void
cml_geometry_fan_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  GError *error = NULL;

  cml_test_gate_wait ("CMLAB_TEST_GEOMETRY_GATE");
  job->res = cml_explore_watch (job->sim, &job->opt, on_progress, on_ended, job, &job->cancel, &error);
  if (job->res == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* the conjugate and Maxwell points, each extremal run again to its time */
  CmlSystem *sys = cml_simulation_get_system (job->sim);
  guint dim = cml_system_dim (sys), nc = job->res->n_coords;
  double t0 = cml_simulation_get_time (job->sim);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (job->sim), dim * sizeof (double));
  job->conj_pts = g_new (double, (gsize) job->res->n * nc);
  job->max_pts = g_new (double, (gsize) job->res->n * nc);
  for (guint i = 0; i < job->res->n && !g_atomic_int_get (&job->cancel); i++)
    {
      double tc = job->res->conjugate[i], tm = job->res->maxwell[i];
      point_at (job, z0, t0, i, tc <= job->opt.t_end ? tc : NAN, job->conj_pts + (gsize) i * nc);
      point_at (job, z0, t0, i, tm <= job->opt.t_end ? tm : NAN, job->max_pts + (gsize) i * nc);
    }
  if (job->se2)
    sachkov_points (job, z0, t0);
  sample_paths (job, z0, t0);
  cml_simulation_set_state (job->sim, t0, z0);
  if (g_atomic_int_get (&job->cancel))
    {
      g_task_return_new_error (task, CML_ERROR, CML_ERROR_CANCELLED, "%s", _("the fan of extremals was cancelled"));
      return;
    }
  g_task_return_boolean (task, TRUE);
}
