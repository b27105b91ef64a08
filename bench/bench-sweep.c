/* bench-sweep.c — the benchmark's sweep figure: how well a parameter sweep uses the
 * processors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rolling ball on its rotating table, swept over Ω from 0.5 to 1.5 rad/s in 10⁴
 * points (10³ with --quick), each run for 100 periods of the ball's circle at the default
 * parameters (T = 2π (r² + k₂) / (k₂ Ω) = 22.0 s, so 2199 s), through the core's sweep
 * runner (cml-sweep.c, what `cmlab-cli sweep` and the window's Sweep page use) with one
 * job and with two.  For each: the wall time, the process's CPU time (user + system,
 * every thread) over the wall time, and the speed-up of two jobs over one.  Targets:
 * CPU ≥ 1.8 × wall and a speed-up ≥ 1.8 with two jobs.  Both sweeps must give the same
 * numbers, bit for bit (the points do not depend on the number of threads).
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cml-model.h"
#include "cml-simulation.h"
#include "cml-sweep.h"
#include "cml-system.h"

static double
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static void
keep_row (guint64 k, guint64 g, const guint *idx, const double *values, const char *why, gpointer data)
{
  ((double *) data)[k] = values[0];
}

typedef struct
{
  double wall, cpu;
} Timing;

static Timing
run (const CmlSweepSpec *spec, double *out)
{
  double c0 = cpu_seconds ();
  gint64 w0 = g_get_monotonic_time ();
  cml_sweep_run (spec, keep_row, NULL, out, NULL);
  return (Timing) { (g_get_monotonic_time () - w0) * 1e-6, cpu_seconds () - c0 };
}

void
bench_sweep (gboolean quick, CmlJson *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_autoptr (CmlSystem) sys = model ? cml_system_new (model, &error) : NULL;
  g_autoptr (CmlSimulation) sim = sys ? cml_simulation_new (sys, &error) : NULL;

  printf ("\n10. Parameter sweep — rolling-ball over Omega, 100 periods a point, one job and two\n\n");
  if (sim == NULL)
    {
      printf ("   (not run: %s)\n", error->message);
      return;
    }
  g_autofree double *base = g_new (double, model->params->len + 1);
  for (guint p = 0; p < model->params->len; p++)
    base[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);
  double r = cml_simulation_get_param (sim, "r"), k2 = cml_simulation_get_param (sim, "k2");
  double omega = cml_simulation_get_param (sim, "Omega");
  double period = 2 * G_PI * (r * r + k2) / (k2 * omega), t_end = 100 * period;
  guint n = quick ? 1000 : 10000;
  CmlSweepVary vary = { .name = (char *) "Omega", .a = 0.5, .b = 1.5, .n = n,
                        .param = cml_model_param_index (model, "Omega") };
  int measure = cml_system_observable_index (sys, "x");
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlSweepSpec spec = {
    .sys = sys, .base = base, .vary = &vary, .n_vary = 1, .iopt = &iopt,
    .at = &t_end, .n_at = 1, .measure = &measure, .n_measures = 1,
  };
  g_autofree double *one = g_new (double, n), *two = g_new (double, n);

  spec.jobs = 1;
  Timing t1 = run (&spec, one);
  spec.jobs = 2;
  Timing t2 = run (&spec, two);
  gboolean same = memcmp (one, two, n * sizeof (double)) == 0;
  double speedup = t1.wall / t2.wall;

  printf ("   %u points, t = %.0f s each (100 periods of %.2f s); %u processors\n\n", n, t_end, period,
          g_get_num_processors ());
  printf ("   jobs   wall [s]   CPU [s]   CPU / wall\n");
  printf ("   %4d   %8.2f   %7.2f   %10.2f\n", 1, t1.wall, t1.cpu, t1.cpu / t1.wall);
  printf ("   %4d   %8.2f   %7.2f   %10.2f\n", 2, t2.wall, t2.cpu, t2.cpu / t2.wall);
  printf ("\n   speed-up of two jobs: %.2f× (target ≥ 1.8×: %s); CPU / wall with two: %.2f (target ≥ 1.8: %s);\n"
          "   the two sweeps' numbers %s\n",
          speedup, speedup >= 1.8 ? "met" : "missed", t2.cpu / t2.wall, t2.cpu / t2.wall >= 1.8 ? "met" : "missed",
          same ? "agree bit for bit" : "DIFFER");

  cml_json_begin_object (json, "sweep", CML_JSON_BLOCK);
  cml_json_int (json, "points", n);
  cml_json_number (json, "t_end", t_end);
  cml_json_number (json, "wall_1", t1.wall);
  cml_json_number (json, "cpu_1", t1.cpu);
  cml_json_number (json, "wall_2", t2.wall);
  cml_json_number (json, "cpu_2", t2.cpu);
  cml_json_number (json, "speedup", speedup);
  cml_json_bool (json, "identical", same);
  cml_json_end (json);
}
