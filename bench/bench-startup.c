/* bench-startup.c — how long cmlab-cli takes to start: `simulate MODEL --t-end 0` (load the
 * model, derive its equations, load its native code from the cache, write the row at
 * t = 0) for a built-in and for a larger model file (bench/models/pendulum-5.cml: five
 * links, its 5 × 5 mass matrix solved symbolically) and `list` (the built-in models'
 * titles), each a whole process, wall time from
 * the benchmark's spawn to the child's exit.  Targets: 2 ms each, with the caches filled
 * (the native code of the model, its derived equations, the titles); beside them the two
 * models with their equations derived each time (the derived-system cache off), and
 * /bin/true: what starting any
 * process costs here, the floor under both.  The children are spawned as posix_spawn does
 * it (a vfork: GLib takes that way when the descriptors stay open), not by a fork of the
 * benchmark: a fork copies the page tables of the benchmark, by then a large process, and
 * that copy (0.3 ms here) was counted as the child's start-up.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-startup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define STARTUP_TARGET_MS 2.0

static double
children_cpu_s (void)
{
  struct rusage ru;
  getrusage (RUSAGE_CHILDREN, &ru);
  return (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec + (double) ru.ru_stime.tv_sec
         + 1e-6 * (double) ru.ru_stime.tv_usec;
}

typedef struct
{
  const char *name;
  double      min_ms, median_ms, cpu_ms; /* wall: least and median; CPU: median */
  gboolean    ok;
} Row;

/* Runs ARGV REPS times (after one run that fills the caches) in the environment ENVP (NULL:
 * the benchmark's), output thrown away. */
static void
time_command (char **argv, char **envp, guint reps, Row *row)
{
  g_autofree double *wall = g_new (double, reps);
  g_autofree double *cpu = g_new (double, reps);

  row->ok = TRUE;
  for (guint r = 0; r <= reps && row->ok; r++)
    {
      g_autoptr (GError) error = NULL;
      int status = 0;
      double c0 = children_cpu_s ();
      gint64 t0 = g_get_monotonic_time ();
      if (!g_spawn_sync (NULL, argv, envp,
                         G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL | G_SPAWN_LEAVE_DESCRIPTORS_OPEN, NULL, NULL,
                         NULL, NULL, &status, &error)
          || !g_spawn_check_wait_status (status, &error))
        {
          g_printerr ("bench: %s %s: %s\n", argv[0], argv[1] ? argv[1] : "", error->message);
          row->ok = FALSE;
          break;
        }
      if (r == 0)
        continue; /* the warm-up: native code compiled, titles recorded */
      wall[r - 1] = (double) (g_get_monotonic_time () - t0) / 1000.0;
      cpu[r - 1] = (children_cpu_s () - c0) * 1000.0;
    }
  if (!row->ok)
    {
      row->min_ms = row->median_ms = row->cpu_ms = NAN;
      return;
    }
  row->median_ms = bench_median (wall, reps); /* sorts: the least is first */
  row->min_ms = wall[0];
  row->cpu_ms = bench_median (cpu, reps);
}

gboolean
bench_startup (const char *cli, const char *bench_dir, CmlJson *json, gboolean quick, const char *const *only)
{
  const guint reps = quick ? 11 : 41;
  g_autofree char *pendulum = g_build_filename (bench_dir, "models", "pendulum-5.cml", NULL);
  char *simulate[] = { (char *) cli, "simulate", "martinet", "--t-end", "0", "--dt-out", "1", NULL };
  char *simulate_large[] = { (char *) cli, "simulate", pendulum, "--t-end", "0", "--dt-out", "1", NULL };
  char *list[] = { (char *) cli, "list", NULL };
  char *floor_cmd[] = { "/bin/true", NULL };
  /* the derived-system cache off (its directory a file): the equations derived each time */
  g_auto (GStrv) derive = g_environ_setenv (g_get_environ (), "CMLAB_DERIVED_CACHE", "/dev/null", TRUE);
  Row rows[] = { { "simulate martinet --t-end 0" },
                 { "simulate bench/models/pendulum-5.cml --t-end 0 (a larger model file)" },
                 { "list" },
                 { "… martinet, its equations derived (no derived-system cache)" },
                 { "… pendulum-5.cml, its equations derived" },
                 { "/bin/true (starting a process)" } };
  char **argvs[] = { simulate, simulate_large, list, simulate, simulate_large, floor_cmd };
  char **envps[] = { NULL, NULL, NULL, derive, derive, NULL };
  static const gboolean target[] = { TRUE, TRUE, TRUE, FALSE, FALSE, FALSE };
  static const char *const keys[] = { "simulate_t_end_0", "simulate_pendulum_5_t_end_0", "list",
                                      "simulate_t_end_0_derived", "simulate_pendulum_5_t_end_0_derived", "true" };
  gboolean ok = TRUE;

  if (only && !g_strv_contains (only, "startup"))
    return TRUE;

  printf ("\nStart-up of cmlab-cli (whole processes, caches filled; wall ms over %u runs, CPU ms median)\n\n", reps);
  printf ("| command | min | median | cpu | target |\n|---|---:|---:|---:|---|\n");
  cml_json_begin_object (json, "startup", CML_JSON_BLOCK);
  cml_json_number (json, "target_ms", STARTUP_TARGET_MS);
  for (guint k = 0; k < G_N_ELEMENTS (rows); k++)
    {
      Row *r = &rows[k];
      time_command (argvs[k], envps[k], reps, r);
      ok &= r->ok;
      const char *verdict = !r->ok ? "failed" : !target[k] ? "" : r->median_ms <= STARTUP_TARGET_MS ? "holds" : "does not hold";
      printf ("| %s | %.2f | %.2f | %.2f | %s |\n", r->name, r->min_ms, r->median_ms, r->cpu_ms, verdict);
      cml_json_begin_object (json, keys[k], CML_JSON_LINE);
      cml_json_number (json, "min_ms", r->min_ms);
      cml_json_number (json, "median_ms", r->median_ms);
      cml_json_number (json, "cpu_ms", r->cpu_ms);
      cml_json_end (json);
    }
  cml_json_end (json);
  return ok;
}
