/* bench-interp.c — the benchmark's figure "interpreter": what running the register program
 * through the interpreter instead of native code costs inside a whole integration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every built-in from its default initial data over the span of the work–precision
 * figures (10 periods, or 10 s; bench-wp.c) in one advance with rk8pd at rtol = atol =
 * 1e-10, once with native code and once after cml_simulation_set_native (sim, FALSE) (what
 * CMLAB_NATIVE=0 does): wall time in this process, median of alternating repetitions, and
 * the ratio interpreter / native.  Both must take the same steps (the same right-hand-side
 * evaluations and the same final state bit for bit).  The target: the interpreter within
 * 3× of native code inside a whole integration.
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-wp.h"

#include "cml-integrator.h"
#include "cml-model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INTERP_TARGET 3.0

/* One run with native code or the interpreter: its wall time; the evaluations and the
 * final state into N_RHS and Z (dim components). */
static double
one_run (BenchWpModel *m, gboolean native, guint64 *n_rhs, double *z, GError **error)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  double t0;
  o.kind = CML_INTEGRATOR_RK8PD;
  o.rtol = o.atol = 1e-10;
  cml_simulation_set_native (m->sim, native);
  if (!cml_simulation_set_integrator (m->sim, &o, error) || !cml_simulation_reset (m->sim, NULL, error))
    return NAN;
  t0 = bench_wall_s ();
  if (!cml_simulation_advance (m->sim, m->span, error))
    return NAN;
  t0 = bench_wall_s () - t0;
  *n_rhs = cml_simulation_n_rhs (m->sim);
  memcpy (z, cml_simulation_get_state (m->sim), cml_system_dim (m->sys) * sizeof (double));
  return t0;
}

void
bench_interp (CmlJson *json, gboolean quick, const char *const *only)
{
  g_auto (GStrv) models = cml_model_list_builtin ();
  gboolean any_figure = FALSE, any_model = FALSE;
  const guint reps = quick ? 3 : 15;
  guint n_hold = 0, n_all = 0;

  gboolean other_figure = FALSE;
  for (guint i = 0; only && only[i]; i++)
    {
      if (g_str_equal (only[i], "interpreter"))
        any_figure = TRUE;
      else if (models && g_strv_contains ((const char *const *) models, only[i]))
        any_model = TRUE;
      else
        other_figure = TRUE;
    }
  /* --only names figures (and not this one), or the models it names are none */
  if (other_figure && !any_figure)
    return;
  printf ("\n14. The interpreter inside a whole integration: rk8pd at rtol = atol = 1e-10 over the span of\n"
          "    figure 13, native code against the interpreter (cml_simulation_set_native (sim, FALSE), as\n"
          "    CMLAB_NATIVE=0), wall time in this process, median of %u alternating runs each\n\n", reps);
  printf ("    %-22s %9s %10s %12s %12s %7s  %s\n", "model", "span s", "rhs evals", "native ms", "interp. ms",
          "ratio", "≤ 3×");
  cml_json_begin_array (json, "interpreter", CML_JSON_BLOCK);
  for (guint mi = 0; models && models[mi]; mi++)
    {
      BenchWpModel m;
      g_autoptr (GError) error = NULL;
      if (any_model && !g_strv_contains (only, models[mi]))
        continue;
      if (!bench_wp_model_open (&m, models[mi], &error))
        {
          printf ("    %-22s %s\n", models[mi], error->message);
          bench_wp_model_close (&m);
          continue;
        }
      guint dim = cml_system_dim (m.sys);
      g_autofree double *zn = g_new (double, dim);
      g_autofree double *zi = g_new (double, dim);
      g_autofree double *tn = g_new (double, reps);
      g_autofree double *ti = g_new (double, reps);
      guint64 nn = 0, ni = 0;
      gboolean ok = TRUE, native = cml_simulation_set_native (m.sim, TRUE);
      /* untimed runs of each first, then alternately */
      ok = !isnan (one_run (&m, TRUE, &nn, zn, &error)) && !isnan (one_run (&m, FALSE, &ni, zi, &error));
      for (guint r = 0; ok && r < reps; r++)
        {
          tn[r] = one_run (&m, TRUE, &nn, zn, &error);
          ti[r] = one_run (&m, FALSE, &ni, zi, &error);
          ok = !isnan (tn[r]) && !isnan (ti[r]);
        }
      if (!ok)
        {
          printf ("    %-22s failed: %s\n", m.model, error ? error->message : "?");
          bench_wp_model_close (&m);
          continue;
        }
      double mn = bench_median (tn, reps), mi_ = bench_median (ti, reps), ratio = mi_ / mn;
      gboolean same = nn == ni && memcmp (zn, zi, dim * sizeof (double)) == 0;
      gboolean holds = ratio <= INTERP_TARGET;
      n_all++;
      n_hold += holds;
      printf ("    %-22s %9.4g %10" G_GUINT64_FORMAT " %12.3f %12.3f %7.2f  %s%s%s\n", m.model, m.span, nn, 1e3 * mn,
              1e3 * mi_, ratio, !native ? "(no native code)" : holds ? "yes" : "no",
              same ? "" : "  (the runs differ: ", same ? "" : "not the same steps)");
      cml_json_begin_object (json, NULL, CML_JSON_LINE);
      cml_json_string (json, "model", m.model);
      cml_json_bool (json, "native_code", native);
      cml_json_number (json, "span", m.span);
      cml_json_int (json, "rhs_evals", nn);
      cml_json_number (json, "native_s", mn);
      cml_json_number (json, "interpreter_s", mi_);
      cml_json_number (json, "ratio", ratio);
      cml_json_bool (json, "same_steps", same);
      cml_json_end (json);
      bench_wp_model_close (&m);
      fflush (stdout);
    }
  cml_json_end (json);
  printf ("\n    target: the interpreter within %g× of native code inside a whole integration — holds on %u of %u\n",
          INTERP_TARGET, n_hold, n_all);
}
