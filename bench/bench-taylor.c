/* bench-taylor.c — work–precision of the Taylor integrator against rk8pd: wall time at
 * equal error against the closed forms of the built-ins.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every built-in with a [reference] group: the Taylor method (native code) at
 * rtol = atol over t ∈ [0, T] with an output every 0.5, its error the largest
 * relative error of the closed forms at the outputs (as tests/core/test-taylor.c measures
 * it); both methods over the same sweep of tolerances (1e-10 … 1e-15), and at the error
 * E both reach — twice the Taylor method's error at 1e-14, or rk8pd's smallest error when
 * no rk8pd run gets within twice the Taylor error — each method's cheapest run whose error
 * is at most E.  Wall time is the median of three runs.  The right-hand side of each
 * model is classed by what it contains: polynomial and trigonometric (where high-order
 * Taylor methods are known to win: Biscani & Izzo,
 * "Revisiting high-order Taylor methods for astrodynamics and celestial mechanics",
 * MNRAS 504 (2021)) or with divisions and roots.
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-taylor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-reference.h"
#include "cml-simulation.h"
#include "cml-system.h"
#include "cml-taylor.h"

static const char *const models[] = {
  "rigid-body", "heavy-top", "chaplygin-sleigh", "vertical-disk", "martinet", "rolling-ball",
  "rolling-ball-varying", "plate-ball", "capri-kobayashi", "capri-kobayashi-full",
};

typedef struct
{
  double error;   /* largest relative error against the closed forms */
  double seconds; /* wall time of the integration (median of three) */
  guint64 steps;
  gboolean ok;
} Run;

static Run
run_once (CmlSystem *sys, CmlIntegratorKind kind, double tol, double span)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_autoptr (CmlReference) ref = NULL;
  Run r = { 0, 0, 0, FALSE };
  double times[3];

  if (sim == NULL)
    return r;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.rtol = o.atol = tol;
  o.h_min = 0;
  if (!cml_simulation_set_integrator (sim, &o, &error))
    return r;
  ref = cml_reference_new (sys, &error);
  if (ref == NULL)
    return r;
  guint n_obs = cml_system_n_observables (sys), n = cml_reference_get_n (ref);
  guint dim = cml_system_dim (sys);
  g_autofree double *obs = g_new (double, n_obs), *val = g_new (double, n), *err = g_new (double, n);
  g_autofree double *scale = g_new0 (double, n), *z0 = g_new (double, dim);
  guint n_out = (guint) (span / 0.5);
  g_autofree double *states = g_new (double, (gsize) n_out * dim);
  memcpy (z0, cml_simulation_get_state (sim), dim * sizeof (double));

  for (int rep = 0; rep < 3; rep++)
    {
      cml_simulation_set_state (sim, 0, z0);
      gint64 start = g_get_monotonic_time ();
      for (guint i = 1; i <= n_out; i++)
        {
          if (!cml_simulation_advance (sim, i * 0.5, &error))
            return r;
          memcpy (states + (gsize) (i - 1) * dim, cml_simulation_get_state (sim), dim * sizeof (double));
        }
      times[rep] = (g_get_monotonic_time () - start) * 1e-6;
    }
  r.seconds = bench_median (times, 3);

  cml_simulation_set_state (sim, 0, z0);
  cml_reference_start_from_simulation (ref, sim);
  for (guint i = 1; i <= n_out; i++)
    {
      cml_simulation_set_state (sim, i * 0.5, states + (gsize) (i - 1) * dim);
      cml_simulation_observe (sim, obs);
      cml_reference_compare (ref, i * 0.5, obs, val, err);
      for (guint k = 0; k < n; k++)
        {
          scale[k] = MAX (scale[k], MAX (1.0, fabs (val[k])));
          r.error = MAX (r.error, fabs (err[k]) / scale[k]);
        }
    }
  r.ok = TRUE;
  return r;
}

/* The cheapest of RUNS (N of them) whose error is at most E; -1 when none. */
static int
cheapest_within (const Run *runs, guint n, double e)
{
  int best = -1;
  for (guint i = 0; i < n; i++)
    if (runs[i].ok && runs[i].error <= e && (best < 0 || runs[i].seconds < runs[best].seconds))
      best = (int) i;
  return best;
}

void
bench_taylor (gboolean quick, const char *const *only)
{
  static const double tols[] = { 1e-10, 3e-11, 1e-11, 3e-12, 1e-12, 3e-13, 1e-13, 3e-14, 1e-14, 3e-15, 1e-15 };
  enum { N_TOLS = G_N_ELEMENTS (tols), AT = 8 /* 1e-14 */ };
  const double span = quick ? 100 : 1000;

  if (only != NULL && !g_strv_contains (only, "taylor"))
    return;
  printf ("\n== taylor: the Taylor method against rk8pd at equal error (t in [0, %g]) ==\n"
          "   E = twice the Taylor method's error at 1e-14, or rk8pd's smallest error when rk8pd never gets there;\n"
          "   each method's cheapest run (tolerances 1e-10 ... 1e-15) with an error at most E\n", span);
  printf ("%-22s %-22s %9s | %9s %10s %9s | %9s %10s %9s | %7s\n", "model", "right-hand side", "E",
          "taylor tol", "error", "time (ms)", "rk8pd tol", "error", "time (ms)", "speed-up");
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (models[m], &error);
      if (model == NULL)
        continue;
      g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
      if (sys == NULL)
        continue;
      const char *kind = "?";
      {
        CmlIntegratorOptions o = cml_integrator_options_default ();
        CmlTaylor *tp = cml_taylor_new_for_system (sys, NULL, &o, FALSE, NULL);
        if (tp)
          kind = cml_taylor_kind_of_rhs (tp);
        cml_taylor_free (tp);
      }
      Run ty[N_TOLS], rk[N_TOLS];
      double rk_best = INFINITY;
      for (guint i = 0; i < N_TOLS; i++)
        {
          ty[i] = run_once (sys, CML_INTEGRATOR_TAYLOR, tols[i], span);
          rk[i] = run_once (sys, CML_INTEGRATOR_RK8PD, tols[i], span);
          if (rk[i].ok)
            rk_best = MIN (rk_best, rk[i].error);
        }
      if (!ty[AT].ok || !isfinite (rk_best))
        {
          printf ("%-22s %s failed\n", models[m], ty[AT].ok ? "rk8pd" : "taylor");
          continue;
        }
      double e = MAX (2 * ty[AT].error, rk_best);
      int it = cheapest_within (ty, N_TOLS, e), ir = cheapest_within (rk, N_TOLS, e);
      g_assert (it >= 0 && ir >= 0);
      printf ("%-22s %-22s %9.1e | %9.0e %10.2e %9.2f | %9.0e %10.2e %9.2f | %6.1fx%s\n", models[m], kind, e,
              tols[it], ty[it].error, ty[it].seconds * 1e3, tols[ir], rk[ir].error, rk[ir].seconds * 1e3,
              rk[ir].seconds / ty[it].seconds,
              e > 2 * ty[AT].error ? "  (rk8pd reaches no less)" : "");
      fflush (stdout);
    }
}
