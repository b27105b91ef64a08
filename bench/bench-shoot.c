/* bench-shoot.c — how long shooting takes: the initial momenta of a Martinet geodesic
 * that reaches a given point (x1, x2, x3) at T = 5, from guesses within 20 % of them
 * (cml-shoot.c, doc/theory.md §13).  Target: under 50 ms a solve, with the default
 * integrator (rk8pd, rtol 1e-10), without and with the conjugate times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-shoot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cml-shoot.h"
#include "cml-system.h"

#define SHOOT_TARGET_MS 50.0

static void
reset (CmlSimulation *sim, double u, double y1, double k)
{
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (given, "u", g_memdup2 (&u, sizeof u));
  g_hash_table_insert (given, "y1", g_memdup2 (&y1, sizeof y1));
  g_hash_table_insert (given, "k", g_memdup2 (&k, sizeof k));
  if (!cml_simulation_reset (sim, given, NULL))
    g_error ("martinet: the initial data were refused");
}

gboolean
bench_shoot (CmlJson *json, gboolean quick)
{
  static const double truth[3] = { 0.8, 0.6, 1.5 }, T = 5;
  static const char *const names[] = { "x1", "x2", "x3" };
  /* guesses within 20 % of the momenta (u, y1, k) */
  static const double factors[][3] = { { 1.2, 0.8, 0.85 }, { 0.85, 1.15, 1.2 }, { 1.1, 1.2, 0.8 }, { 0.8, 0.9, 1.1 } };
  const guint reps = quick ? 3 : 10, n_guess = G_N_ELEMENTS (factors);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
  g_autoptr (CmlSystem) sys = model ? cml_system_new (model, &error) : NULL;
  g_autoptr (CmlSimulation) sim = sys ? cml_simulation_new (sys, &error) : NULL;
  gboolean ok = TRUE;

  printf ("\nShooting: Martinet, the momenta (u, y1, k) that reach a point at T = %g from guesses within 20 %%\n\n", T);
  if (sim == NULL)
    {
      g_printerr ("bench: martinet: %s\n", error->message);
      return FALSE;
    }
  reset (sim, truth[0], truth[1], truth[2]);
  if (!cml_simulation_advance (sim, T, &error))
    {
      g_printerr ("bench: martinet: %s\n", error->message);
      return FALSE;
    }
  double target[3];
  {
    guint n_obs = cml_system_n_observables (sys);
    g_autofree double *obs = g_new (double, n_obs);
    cml_simulation_observe (sim, obs);
    for (guint i = 0; i < 3; i++)
      target[i] = obs[cml_system_observable_index (sys, names[i])];
  }

  cml_json_begin_object (json, "shoot", CML_JSON_BLOCK);
  for (int with_conjugate = 0; with_conjugate <= 1; with_conjugate++)
    {
      CmlShootOptions opt = cml_shoot_options_default ();
      if (!with_conjugate)
        opt.n_samples = 0;
      g_autofree double *ms = g_new (double, reps * n_guess);
      double worst_err = 0;
      guint iters = 0;
      for (guint r = 0; r < reps; r++)
        for (guint g = 0; g < n_guess; g++)
          {
            reset (sim, truth[0] * factors[g][0], truth[1] * factors[g][1], truth[2] * factors[g][2]);
            gint64 t0 = g_get_monotonic_time ();
            g_autoptr (CmlShootResult) res = cml_shoot (sim, T, 3, names, target, &opt, &error);
            ms[r * n_guess + g] = (g_get_monotonic_time () - t0) / 1e3;
            if (res == NULL)
              {
                g_printerr ("bench: shooting failed: %s\n", error->message);
                g_clear_error (&error);
                ok = FALSE;
                continue;
              }
            iters = MAX (iters, res->iterations);
            for (guint j = 0; j < 3; j++)
              worst_err = MAX (worst_err, fabs (res->momenta[j] - truth[j]));
          }
      qsort (ms, reps * n_guess, sizeof (double), bench_cmp_double);
      double median = ms[reps * n_guess / 2], worst = ms[reps * n_guess - 1];
      const char *what = with_conjugate ? "with the conjugate times" : "shooting alone";
      printf ("   %-26s median %7.2f ms, slowest %7.2f ms, at most %u iterations, momenta to %.1e  %s\n", what,
              median, worst, iters, worst_err, median < SHOOT_TARGET_MS ? "(target < 50 ms: met)"
                                                                        : "(target < 50 ms: MISSED)");
      cml_json_begin_object (json, with_conjugate ? "with_conjugate_times" : "alone", CML_JSON_LINE);
      cml_json_number (json, "median_ms", median);
      cml_json_number (json, "slowest_ms", worst);
      cml_json_number (json, "momenta_error", worst_err);
      cml_json_end (json);
    }
  cml_json_end (json);
  return ok;
}
