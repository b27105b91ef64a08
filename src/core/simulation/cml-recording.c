/* cml-recording.c — a recorded motion played by a simulation instead of integrating:
 * the rows, their cubic Hermite interpolation (the equations are in cml-recording.h) and
 * what a simulation does with them (advance, observe, reset).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-recording"

#include "cml-recording.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-simulation-private.h"

struct _CmlRecording
{
  gint    ref_count;
  guint   n_cols, n_rows; /* columns besides t */
  char  **names;          /* n_cols, NULL-terminated */
  double *t;              /* n_rows, increasing */
  double *y;              /* n_rows × n_cols */
  double *d;              /* n_rows × n_cols: the slopes at the rows */
};

/* The slopes d_i of every column (cml-recording.h). */
static void
compute_slopes (CmlRecording *rec)
{
  guint n = rec->n_rows, c = rec->n_cols;

  for (guint j = 0; j < c; j++)
    {
#define Y(i) rec->y[(gsize) (i) * c + j]
#define H(i) (rec->t[(i) + 1] - rec->t[i])
#define M(i) ((Y ((i) + 1) - Y (i)) / H (i))
      if (n == 2)
        {
          rec->d[j] = rec->d[c + j] = M (0);
          continue;
        }
      /* the parabola through three rows: centred inside, one-sided at the ends */
      rec->d[j] = ((2 * H (0) + H (1)) * M (0) - H (0) * M (1)) / (H (0) + H (1));
      for (guint i = 1; i + 1 < n; i++)
        rec->d[(gsize) i * c + j] = (H (i - 1) * M (i) + H (i) * M (i - 1)) / (H (i - 1) + H (i));
      rec->d[(gsize) (n - 1) * c + j]
        = ((2 * H (n - 2) + H (n - 3)) * M (n - 2) - H (n - 2) * M (n - 3)) / (H (n - 2) + H (n - 3));
#undef M
#undef H
#undef Y
    }
}

CmlRecording *
cml_recording_new (const char *const *names, guint n_cols, guint n_rows, const double *values, GError **error)
{
  g_autoptr (CmlRecording) rec = NULL;
  int tcol = -1;
  guint k = 0;

  g_return_val_if_fail (names != NULL && values != NULL, NULL);

  for (guint j = 0; j < n_cols; j++)
    if (g_str_equal (names[j], "t"))
      tcol = (int) j;
  if (tcol < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the recorded motion has no column t"));
      return NULL;
    }
  if (n_rows < 2)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the recorded motion needs two rows or more, not %u"), n_rows);
      return NULL;
    }

  rec = g_new0 (CmlRecording, 1);
  rec->ref_count = 1;
  rec->n_cols = n_cols - 1;
  rec->n_rows = n_rows;
  rec->names = g_new0 (char *, n_cols);
  rec->t = g_new (double, n_rows);
  rec->y = g_new (double, (gsize) n_rows * rec->n_cols);
  rec->d = g_new (double, (gsize) n_rows * rec->n_cols);
  for (guint j = 0; j < n_cols; j++)
    if ((int) j != tcol)
      rec->names[k++] = g_strdup (names[j]);
  for (guint i = 0; i < n_rows; i++)
    {
      const double *row = values + (gsize) i * n_cols;

      k = 0;
      for (guint j = 0; j < n_cols; j++)
        {
          if (!isfinite (row[j]))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                           _("the recorded motion’s row %u has a value of %s that is not a number"), i + 1, names[j]);
              return NULL;
            }
          if ((int) j == tcol)
            rec->t[i] = row[j];
          else
            rec->y[(gsize) i * rec->n_cols + k++] = row[j];
        }
      if (i > 0 && !(rec->t[i] > rec->t[i - 1]))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("the recorded motion’s times must increase: row %u has t = %.17g after t = %.17g"), i + 1,
                       rec->t[i], rec->t[i - 1]);
          return NULL;
        }
    }
  compute_slopes (rec);
  return g_steal_pointer (&rec);
}

CmlRecording *
cml_recording_ref (CmlRecording *rec)
{
  g_return_val_if_fail (rec != NULL, NULL);

  __atomic_fetch_add (&rec->ref_count, 1, __ATOMIC_RELAXED);
  return rec;
}

void
cml_recording_unref (CmlRecording *rec)
{
  if (rec == NULL || __atomic_fetch_sub (&rec->ref_count, 1, __ATOMIC_ACQ_REL) != 1)
    return;
  g_strfreev (rec->names);
  g_free (rec->t);
  g_free (rec->y);
  g_free (rec->d);
  g_free (rec);
}

double
cml_recording_start (const CmlRecording *rec)
{
  return rec->t[0];
}

double
cml_recording_end (const CmlRecording *rec)
{
  return rec->t[rec->n_rows - 1];
}

int
cml_recording_column (const CmlRecording *rec, const char *name)
{
  for (guint j = 0; j < rec->n_cols; j++)
    if (g_str_equal (rec->names[j], name))
      return (int) j;
  return -1;
}

double
cml_recording_value (const CmlRecording *rec, guint col, double t)
{
  guint lo = 0, hi = rec->n_rows - 1, c = rec->n_cols;
  double h, s, s2, s3;

  g_return_val_if_fail (col < c, NAN);

  if (!(t > rec->t[0]))
    return rec->y[col];
  if (!(t < rec->t[hi]))
    return rec->y[(gsize) hi * c + col];
  /* the row interval holding T: t[lo] <= t < t[hi], hi = lo + 1 */
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;

      if (rec->t[mid] <= t)
        lo = mid;
      else
        hi = mid;
    }
  h = rec->t[hi] - rec->t[lo];
  s = (t - rec->t[lo]) / h;
  s2 = s * s;
  s3 = s2 * s;
  return (2 * s3 - 3 * s2 + 1) * rec->y[(gsize) lo * c + col] + (s3 - 2 * s2 + s) * h * rec->d[(gsize) lo * c + col]
         + (-2 * s3 + 3 * s2) * rec->y[(gsize) hi * c + col] + (s3 - s2) * h * rec->d[(gsize) hi * c + col];
}

/* ---- a simulation playing it ---------------------------------------------------------- */

/* What the integrator kept of earlier steps goes (the state changed under it), and so
 * does a failure that a reset left pending. */
static void
forget_steps (CmlSimulation *sim)
{
  g_clear_error (&sim->pending);
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  if (sim->var)
    cml_variational_reset (sim->var);
}

/* The recorded state at T (clamped to the rows). */
static void
recorded_state (CmlSimulation *sim, double t)
{
  const CmlRecording *rec = sim->recording;

  sim->t = t;
  for (guint i = 0; i < sim->sys->dim; i++)
    sim->z[i] = cml_recording_value (rec, (guint) sim->rec_state_col[i], t);
}

gboolean
cml_simulation_set_recording (CmlSimulation *sim, CmlRecording *rec, GError **error)
{
  CmlSystem *sys;
  guint dim, n_obs;
  g_autofree int *state_col = NULL;
  g_autofree int *obs_col = NULL;

  g_return_val_if_fail (sim != NULL, FALSE);

  sys = sim->sys;
  if (rec == NULL)
    {
      cml_sim_recording_clear (sim);
      /* integrating from here: the integrator starts afresh from the state it has */
      forget_steps (sim);
      return TRUE;
    }
  dim = cml_system_dim (sys);
  n_obs = cml_system_n_observables (sys);
  state_col = g_new (int, MAX (dim, 1));
  obs_col = g_new (int, MAX (n_obs, 1));
  for (guint i = 0; i < dim; i++)
    if ((state_col[i] = cml_recording_column (rec, cml_system_state_name (sys, i))) < 0)
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the recorded motion has no column %s (a state variable of %s)"),
                     cml_system_state_name (sys, i), cml_system_get_model (sys)->name);
        return FALSE;
      }
  for (guint i = 0; i < n_obs; i++)
    obs_col[i] = cml_recording_column (rec, cml_system_observable_name (sys, i));

  cml_sim_recording_clear (sim);
  sim->recording = cml_recording_ref (rec);
  sim->rec_state_col = g_steal_pointer (&state_col);
  sim->rec_obs_col = g_steal_pointer (&obs_col);
  cml_sim_recorded_reset (sim, cml_recording_start (rec));
  return TRUE;
}

gboolean
cml_simulation_is_recorded (const CmlSimulation *sim)
{
  return sim->recording != NULL;
}

double
cml_simulation_get_end (const CmlSimulation *sim)
{
  return sim->recording ? cml_recording_end (sim->recording) : INFINITY;
}

void
cml_sim_recording_clear (CmlSimulation *sim)
{
  g_clear_pointer (&sim->recording, cml_recording_unref);
  g_clear_pointer (&sim->rec_state_col, g_free);
  g_clear_pointer (&sim->rec_obs_col, g_free);
}

void
cml_sim_recorded_reset (CmlSimulation *sim, double t0)
{
  const CmlRecording *rec = sim->recording;

  g_ptr_array_set_size (sim->report, 0);
  forget_steps (sim);
  recorded_state (sim, CLAMP (t0, cml_recording_start (rec), cml_recording_end (rec)));
}

gboolean
cml_sim_recorded_advance (CmlSimulation *sim, double t1, GError **error)
{
  const CmlRecording *rec = sim->recording;
  double t0 = cml_recording_start (rec), t_end = cml_recording_end (rec);
  double slack = 1e-12 * MAX (1.0, fabs (t_end));

  if (!(t1 <= t_end + slack) || !(t1 >= t0 - slack))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("the recorded motion goes from t = %g to t = %g, not to t = %g"),
                   t0, t_end, t1);
      return FALSE;
    }
  recorded_state (sim, CLAMP (t1, t0, t_end));
  return TRUE;
}

void
cml_sim_recorded_observe (CmlSimulation *sim, double *out)
{
  guint n_obs = cml_system_n_observables (sim->sys);

  for (guint i = 0; i < n_obs; i++)
    if (sim->rec_obs_col[i] >= 0)
      out[i] = cml_recording_value (sim->recording, (guint) sim->rec_obs_col[i], sim->t);
}
