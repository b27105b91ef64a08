/* bench-dop853.c — the benchmark's figure "dop853": Martinet over 1024 periods at
 * rtol = atol = 1e-10, an output every period, with cmlab's dop853 (its whole step in
 * native code) and rk8pd beside XPPAUT (83dp), Boost.Odeint (runge_kutta_fehlberg78
 * controlled, runge_kutta_dopri5 dense output: bench/boost-peer.cpp) and SciPy
 * (solve_ivp DOP853, bench/peers.py), in one run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each tool runs as a whole process (wall time from spawn to exit, median of the rounds,
 * every tool once per round so that a burst of load hits all alike); cmlab and Boost also
 * in-process (CPU time of the integration alone: cmlab's simulate loop in this process,
 * Boost's own measurement inside its process).  The error is the largest deviation of x1,
 * u, y1 and x2 from the closed form at the end (doc/theory.md §9.3).  The targets: cmlab's
 * dop853 as a whole process at least 6 times faster than XPPAUT, and at least as fast as
 * Boost's rkf78 in-process, with an error no larger than either's.
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-dop853.h"
#include "bench-csv.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-system.h"
#include "cml-simulation.h"
#include "reference-rhs.h"

#define PERIODS     1024
#define PERIODS_QUICK 128
#define TOL         1e-10

typedef struct
{
  const char *label;
  char      **argv;          /* NULL: not available */
  char      **argv0;         /* the untimed first run that gives the result (NULL: argv) */
  const char *csv;           /* cmlab's rows */
  int         kind;          /* cmlab's integrator (CmlIntegratorKind), -1 for a peer */
  char       *why;           /* why not */
  double     *wall;          /* per round */
  double      wall_ms;       /* median */
  double      inproc_ms;     /* NaN when not measured */
  double      err;
  gboolean    is_boost, is_scipy, is_xpp, ok;
  gboolean    rows_out;      /* cmlab writing its rows to standard output instead of -o FILE */
} Tool;

/* Martinet's closed form at T (x1, p_u, p_y1, x2 from bench/reference-rhs.c), against the
 * values looked up by NAME through GET. */
static double
martinet_error (double t, double (*get) (gpointer, const char *), gpointer data)
{
  const CmlRefSystem *ref = cml_ref_system_lookup ("martinet");
  CmlRefParams p = { { 0 } };
  const double z0[6] = { 0, 1, 0, 1, 0, 0 };
  const char *names[16];
  double exact[16], err = 0;
  guint n;

  ref->prepare (&p);
  n = cml_ref_exact (ref, &p, z0, t, names, exact, 16);
  if (n == 0)
    return NAN;
  for (guint k = 0; k < n; k++)
    {
      double v = get (data, names[k]);
      if (!isnan (v))
        err = MAX (err, fabs (v - exact[k]));
    }
  return err;
}

static double
get_pairs (gpointer data, const char *name)
{
  double *v = g_hash_table_lookup (data, name);
  return v ? *v : NAN;
}

/* XPPAUT's last row: t, the state, then the error columns scaled by 1e12 (bench/martinet.ode). */
static double
xpp_error (const char *path, double t_end)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  const char *last = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NAN;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*g_strstrip (lines[i]))
      last = lines[i];
  if (last == NULL)
    return NAN;
  g_auto (GStrv) cells = g_strsplit_set (last, " \t", -1);
  double err = 0;
  guint nc = 0;
  for (guint i = 0; cells[i]; i++)
    {
      if (!*cells[i])
        continue;
      double v = g_ascii_strtod (cells[i], NULL);
      if (nc == 0 && !(fabs (v - t_end) <= 1e-5 * t_end))
        return NAN;
      if (nc > 6)
        err = MAX (err, fabs (v) * 1e-12);
      nc++;
    }
  return nc > 7 ? err : NAN;
}

/* bench/martinet.ode with its span set to TOTAL, written to DEST. */
static gboolean
write_ode (const char *src, const char *dest, double total)
{
  g_autofree char *text = NULL, *joined = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (src, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "@ total="))
      {
        g_free (lines[i]);
        lines[i] = g_strdup_printf ("@ total=%.17g", total);
      }
  joined = g_strjoinv ("\n", lines);
  return g_file_set_contents (dest, joined, -1, NULL);
}

/* Runs ARGV (stdout into *OUT if not NULL): the wall time in seconds, NaN on failure. */
static double
run (char **argv, char **out)
{
  g_autoptr (GError) error = NULL;
  int status = 0;
  gint64 t0 = g_get_monotonic_time ();

  /* descriptors left open: GLib then spawns by vfork, and a fork's copy of this large
   * process's page tables is not counted as the child's time (bench-startup.c) */
  GSpawnFlags flags = G_SPAWN_LEAVE_DESCRIPTORS_OPEN | G_SPAWN_STDERR_TO_DEV_NULL
                      | (out ? 0 : G_SPAWN_STDOUT_TO_DEV_NULL);

  if (!g_spawn_sync (NULL, argv, NULL, flags, NULL, NULL, out, NULL, &status, &error)
      || !g_spawn_check_wait_status (status, NULL))
    return NAN;
  return (g_get_monotonic_time () - t0) * 1e-6;
}

/* cmlab in-process: the simulate loop with KIND (advance to each output, observe there),
 * CPU time of this thread, median of REPS; the error at the end in *ERR. */
static double
cmlab_inproc (CmlIntegratorKind kind, double t_end, double dt, guint reps, double *err)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) md = cml_model_load ("martinet", &error);
  g_autoptr (CmlSystem) sys = md ? cml_system_new (md, &error) : NULL;
  g_autoptr (CmlSimulation) sim = sys ? cml_simulation_new (sys, &error) : NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_autofree double *times = g_new (double, reps);
  g_autofree double *obs = NULL;
  const guint n = (guint) (t_end / dt * (1 + 1e-12));

  *err = NAN;
  if (sim == NULL)
    return NAN;
  obs = g_new (double, cml_system_n_observables (sys));
  o.kind = kind;
  o.rtol = o.atol = TOL;
  if (!cml_simulation_set_integrator (sim, &o, NULL))
    return NAN;
  for (guint r = 0; r < reps; r++)
    {
      if (!cml_simulation_reset (sim, NULL, NULL))
        return NAN;
      double t0 = bench_thread_cpu_s ();
      cml_simulation_observe (sim, obs);
      for (guint k = 1; k <= n; k++)
        {
          if (!cml_simulation_advance (sim, k * dt, NULL))
            return NAN;
          cml_simulation_observe (sim, obs);
        }
      times[r] = bench_thread_cpu_s () - t0;
    }
  g_autoptr (GHashTable) v = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < cml_system_n_observables (sys); i++)
    g_hash_table_insert (v, g_strdup (cml_system_observable_name (sys, i)), g_memdup2 (&obs[i], sizeof (double)));
  *err = martinet_error (cml_simulation_get_time (sim), get_pairs, v);
  return bench_median (times, reps) * 1e3;
}

/* dop853 against rk8pd on the built-ins with closed forms: the error at the end and the CPU
 * time of the simulate loop (best of 3) over a sweep of tolerances, printed side by side. */
static void
against_rk8pd (CmlJson *json, gboolean quick)
{
  static const char *const models[] = { "rolling-ball", "rolling-ball-varying", "plate-ball", "martinet",
                                         "capri-kobayashi", "capri-kobayashi-full" };
  static const double periods[] = { 100, 100, 100, 200, 300, 1000 };
  /* taylor and auto beside them: the measurements the automatic choice rests on
   * (cml-integrator-choice.c) */
  static const CmlIntegratorKind kinds[] = { CML_INTEGRATOR_RK8PD, CML_INTEGRATOR_DOP853, CML_INTEGRATOR_TAYLOR,
                                             CML_INTEGRATOR_AUTO };

  printf ("\n   dop853, rk8pd, taylor and auto: error at the end / CPU ms of the simulate loop (a row every period)\n");
  printf ("   %-28s %-7s %21s %21s %21s %21s %21s %21s %21s\n", "model (periods)", "", "tol 1e-6", "1e-7", "1e-8",
          "1e-9", "1e-10", "1e-11", "1e-12");
  if (json != NULL)
    cml_json_begin_object (json, "dop853_against_rk8pd", CML_JSON_BLOCK);
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) md = cml_model_load (models[m], &error);
      g_autoptr (CmlSystem) sys = md ? cml_system_new (md, &error) : NULL;
      g_autoptr (CmlSimulation) sim = sys ? cml_simulation_new (sys, &error) : NULL;
      const CmlRefSystem *ref = cml_ref_system_lookup (models[m]);
      CmlRefParams p = { { 0 } };
      double z0[CML_REF_MAX_DIM];
      const double n_periods = quick ? periods[m] / 10 : periods[m];

      if (sim == NULL || ref == NULL || !cml_simulation_reset (sim, NULL, NULL))
        continue;
      const guint dim = cml_system_dim (sys);
      g_autofree double *obs = g_new (double, cml_system_n_observables (sys));
      memcpy (z0, cml_simulation_get_state (sim), MIN (dim, CML_REF_MAX_DIM) * sizeof (double));
      for (guint k = 0; k < ref->n_params; k++)
        p.p[k] = cml_simulation_get_param (sim, ref->param_names[k]);
      ref->prepare (&p);
      const double T = cml_ref_period (ref, &p, z0);
      if (json != NULL)
        cml_json_begin_object (json, models[m], CML_JSON_BLOCK);
      for (guint kk = 0; kk < G_N_ELEMENTS (kinds); kk++)
        {
          g_autofree char *label = g_strdup_printf ("%s (%.0f)", models[m], n_periods);
          printf ("   %-28s %-7s", kk == 0 ? label : "", cml_integrator_kind_to_string (kinds[kk]));
          if (json != NULL)
            cml_json_begin_array (json, cml_integrator_kind_to_string (kinds[kk]), CML_JSON_LINE);
          for (int e = 6; e <= 12; e++)
            {
              CmlIntegratorOptions o = cml_integrator_options_default ();
              double best = INFINITY, err = 0;
              const char *names[16];
              double exact[16];

              o.kind = kinds[kk];
              o.rtol = o.atol = pow (10.0, -e);
              if (!cml_simulation_set_integrator (sim, &o, NULL))
                continue;
              for (int rep = 0; rep < 3; rep++)
                {
                  if (!cml_simulation_reset (sim, NULL, NULL))
                    break;
                  double t0 = bench_thread_cpu_s ();
                  gboolean ok = TRUE;
                  for (int k = 1; k <= (int) n_periods && ok; k++)
                    {
                      ok = cml_simulation_advance (sim, k * T, NULL);
                      cml_simulation_observe (sim, obs);
                    }
                  best = MIN (best, bench_thread_cpu_s () - t0);
                }
              guint n = cml_ref_exact (ref, &p, z0, cml_simulation_get_time (sim), names, exact, 16);
              cml_simulation_observe (sim, obs);
              for (guint k = 0; k < n; k++)
                {
                  int i = cml_system_observable_index (sys, names[k]);
                  if (i >= 0)
                    err = MAX (err, fabs (obs[i] - exact[k]));
                }
              printf ("  %9.1e / %7.2f", err, best * 1e3);
              if (json != NULL)
                {
                  cml_json_number (json, NULL, err);
                  cml_json_number (json, NULL, best * 1e3);
                }
            }
          printf ("\n");
          if (json != NULL)
            cml_json_end (json);
        }
      if (json != NULL)
        cml_json_end (json);
    }
  if (json != NULL)
    cml_json_end (json);
}

gboolean
bench_dop853 (const char *cli, const char *bench_dir, const char *boost_peer, CmlJson *json, gboolean quick,
              const char *const *only)
{
  const double T = 7.416298709205488; /* 4 K(1/2): the period of bench/martinet.ode */
  const int periods = quick ? PERIODS_QUICK : PERIODS;
  const double t_end = periods * T;
  const guint rounds = quick ? 5 : 15;
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-bench-dop853-XXXXXX", NULL);
  g_autofree char *t_end_s = g_strdup_printf ("%.17g", t_end), *dt_s = g_strdup_printf ("%.17g", T);
  g_autofree char *tol_s = g_strdup_printf ("%g", TOL);
  g_autofree char *csv_dop = g_build_filename (tmp, "dop853.csv", NULL);
  g_autofree char *csv_rk = g_build_filename (tmp, "rk8pd.csv", NULL);
  g_autofree char *csv_ty = g_build_filename (tmp, "taylor.csv", NULL);
  g_autofree char *csv_auto = g_build_filename (tmp, "auto.csv", NULL);
  g_autofree char *ode_src = g_build_filename (bench_dir, "martinet.ode", NULL);
  g_autofree char *ode = g_build_filename (tmp, "run.ode", NULL);
  g_autofree char *xpp_out = g_build_filename (tmp, "xpp.dat", NULL);
  g_autofree char *peers_py = g_build_filename (bench_dir, "peers.py", NULL);
  g_autofree char *xpp = g_find_program_in_path ("xppaut");
  gboolean ok = TRUE;

  if (only != NULL && !g_strv_contains (only, "dop853"))
    return TRUE;
  if (tmp == NULL)
    return FALSE;

  char *argv_dop[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol", tol_s,
                       "--atol", tol_s, "--integrator", "dop853", "-o", csv_dop, NULL };
  char *argv_rk[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol", tol_s,
                      "--atol", tol_s, "--integrator", "rk8pd", "-o", csv_rk, NULL };
  char *argv_ty[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol", tol_s,
                      "--atol", tol_s, "--integrator", "taylor", "-o", csv_ty, NULL };
  char *argv_ty_out[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol",
                          tol_s, "--atol", tol_s, "--integrator", "taylor", NULL };
  g_autofree char *csv_ty_out = g_build_filename (tmp, "taylor-stdout.csv", NULL);
  /* the default: no --integrator (auto), the same tolerances */
  char *argv_auto[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol", tol_s,
                        "--atol", tol_s, "-o", csv_auto, NULL };
  char *argv_auto_out[] = { (char *) cli, "simulate", "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol",
                            tol_s, "--atol", tol_s, NULL };
  g_autofree char *csv_auto_out = g_build_filename (tmp, "auto-stdout.csv", NULL);
  char *argv_xpp[] = { xpp, ode, "-silent", "-quiet", "1", "-outfile", xpp_out, NULL };
  /* Boost: one integration per timed process; the first run repeats it for its in-process
   * median */
  char *argv_b78[] = { (char *) boost_peer, "rkf78", t_end_s, dt_s, tol_s, tol_s, "1", NULL };
  char *argv_bd5[] = { (char *) boost_peer, "dopri5", t_end_s, dt_s, tol_s, tol_s, "1", NULL };
  char *argv_b78_0[] = { (char *) boost_peer, "rkf78", t_end_s, dt_s, tol_s, tol_s, "21", NULL };
  char *argv_bd5_0[] = { (char *) boost_peer, "dopri5", t_end_s, dt_s, tol_s, tol_s, "21", NULL };
  char *argv_sp[] = { "/usr/bin/python3", peers_py, "martinet", "--t-end", t_end_s, "--dt-out", dt_s, "--rtol",
                      tol_s, "--atol", tol_s, NULL };
  enum { T_AUTO, T_AUTO_OUT, T_DOP, T_RK, T_TAYLOR, T_TAYLOR_OUT, T_XPP, T_B78, T_BD5, T_SCIPY };
  Tool tools[] = {
    [T_AUTO] = { "cmlab-cli simulate (default, auto)", argv_auto, .csv = csv_auto, .kind = CML_INTEGRATOR_AUTO },
    [T_AUTO_OUT] = { "  … default, rows to standard output", argv_auto_out, .csv = csv_auto_out,
                     .kind = CML_INTEGRATOR_AUTO, .rows_out = TRUE },
    [T_DOP] = { "cmlab-cli simulate --integrator dop853", argv_dop, .csv = csv_dop, .kind = CML_INTEGRATOR_DOP853 },
    [T_RK] = { "cmlab-cli simulate --integrator rk8pd", argv_rk, .csv = csv_rk, .kind = CML_INTEGRATOR_RK8PD },
    [T_TAYLOR] = { "cmlab-cli simulate --integrator taylor", argv_ty, .csv = csv_ty, .kind = CML_INTEGRATOR_TAYLOR },
    /* the same, its rows through a pipe like Boost's, without the complete-or-absent file
     * (a temporary synced to disk and renamed) that -o FILE writes */
    [T_TAYLOR_OUT] = { "  … taylor, rows to standard output", argv_ty_out, .csv = csv_ty_out,
                       .kind = CML_INTEGRATOR_TAYLOR, .rows_out = TRUE },
    [T_XPP] = { "XPPAUT 83dp", argv_xpp, .is_xpp = TRUE, .kind = -1 },
    [T_B78] = { "Boost.Odeint rkf78 (controlled)", argv_b78, argv_b78_0, .is_boost = TRUE, .kind = -1 },
    [T_BD5] = { "Boost.Odeint dopri5 (dense output)", argv_bd5, argv_bd5_0, .is_boost = TRUE, .kind = -1 },
    [T_SCIPY] = { "SciPy solve_ivp DOP853", argv_sp, .is_scipy = TRUE, .kind = -1 },
  };
  const guint nt = G_N_ELEMENTS (tools);

  if (xpp == NULL || !write_ode (ode_src, ode, t_end))
    {
      tools[T_XPP].argv = NULL;
      tools[T_XPP].why = g_strdup ("xppaut not installed");
    }
  if (boost_peer == NULL || !g_file_test (boost_peer, G_FILE_TEST_IS_EXECUTABLE))
    {
      tools[T_B78].argv = tools[T_BD5].argv = NULL;
      tools[T_B78].why = g_strdup ("no Boost.Odeint (libboost-dev) or no C++ compiler at build time");
      tools[T_BD5].why = g_strdup (tools[T_B78].why);
    }
  {
    char *check[] = { "/usr/bin/python3", "-c", "import scipy", NULL };
    if (isnan (run (check, NULL)))
      {
        tools[T_SCIPY].argv = NULL;
        tools[T_SCIPY].why = g_strdup ("python3-scipy not installed");
      }
  }

  /* rounds: every tool once per round, the first round untimed (caches, native code) */
  for (guint i = 0; i < nt; i++)
    {
      tools[i].wall = g_new (double, rounds);
      tools[i].ok = tools[i].argv != NULL;
      tools[i].inproc_ms = NAN;
      tools[i].err = NAN;
    }
  for (guint r = 0; r <= rounds; r++)
    for (guint i = 0; i < nt; i++)
      {
        Tool *tl = &tools[i];
        g_autofree char *out = NULL;
        double w;

        if (!tl->ok || (tl->is_scipy && r > 1))
          continue; /* SciPy takes seconds: one timed round */
        w = run (r == 0 && tl->argv0 ? tl->argv0 : tl->argv, &out);
        if (isnan (w))
          {
            tl->ok = FALSE;
            tl->why = g_strdup ("the run failed");
            continue;
          }
        if (r == 0)
          {
            /* the result, once */
            g_autoptr (GHashTable) v = NULL;
            if (tl->is_xpp)
              tl->err = xpp_error (xpp_out, t_end);
            else if (tl->is_boost || tl->is_scipy)
              {
                v = bench_parse_pairs (out);
                tl->err = martinet_error (get_pairs (v, "t"), get_pairs, v);
                tl->inproc_ms = get_pairs (v, "solve_cpu_seconds") * 1e3;
              }
            else
              {
                if (tl->rows_out && !g_file_set_contents (tl->csv, out ? out : "", -1, NULL))
                  {
                    tl->ok = FALSE;
                    continue;
                  }
                v = bench_csv_last_row (tl->csv, NULL);
                tl->err = v ? martinet_error (get_pairs (v, "t"), get_pairs, v) : NAN;
              }
            continue;
          }
        tl->wall[r - 1] = w;
      }
  for (guint i = 0; i < nt; i++)
    if (tools[i].ok)
      tools[i].wall_ms = bench_median (tools[i].wall, tools[i].is_scipy ? 1 : rounds) * 1e3;
  for (guint i = 0; i < nt; i++)
    if (tools[i].kind >= 0 && !tools[i].rows_out)
      {
        double e;
        tools[i].inproc_ms = cmlab_inproc (tools[i].kind, t_end, T, quick ? 5 : 21, &e);
      }
  tools[T_TAYLOR_OUT].inproc_ms = tools[T_TAYLOR].inproc_ms;
  tools[T_AUTO_OUT].inproc_ms = tools[T_AUTO].inproc_ms;

  printf ("\n== dop853: Martinet, %d periods, rtol = atol = %g, a row every period ==\n", periods, TOL);
  printf ("   %-40s %14s %14s %10s\n", "tool", "process ms", "in-process ms", "error");
  for (guint i = 0; i < nt; i++)
    {
      Tool *tl = &tools[i];
      if (!tl->ok)
        {
          printf ("   %-40s %14s %14s %10s  (%s)\n", tl->label, "-", "-", "-", tl->why ? tl->why : "");
          continue;
        }
      char inproc[32] = "-";
      if (!isnan (tl->inproc_ms))
        g_snprintf (inproc, sizeof inproc, "%.1f", tl->inproc_ms);
      printf ("   %-40s %14.1f %14s %10.1e\n", tl->label, tl->wall_ms, inproc, tl->err);
    }
  /* the targets, for dop853 and for cmlab's fastest at this tolerance (its error no larger
   * than the peers') */
  static const int judged[] = { T_AUTO, T_AUTO_OUT, T_DOP, T_TAYLOR, T_TAYLOR_OUT };
  for (guint j = 0; j < G_N_ELEMENTS (judged); j++)
    {
      Tool *d = &tools[judged[j]], *x = &tools[T_XPP], *b = &tools[T_B78];
      g_autofree char *name = g_strdup_printf ("%s%s", cml_integrator_kind_to_string (d->kind),
                                               d->rows_out ? " (rows to standard output)" : "");
      if (d->ok && x->ok)
        printf ("   target: %s whole process ≥ 6× faster than XPPAUT: %.1f× — %s; error %s XPPAUT's\n", name,
                x->wall_ms / d->wall_ms, x->wall_ms >= 6 * d->wall_ms ? "holds" : "does not hold",
                d->err <= x->err ? "no larger than" : "larger than");
      if (d->ok && b->ok)
        printf ("   target: %s whole process at least as fast as Boost rkf78 in-process: %.1f ms vs %.1f ms — %s; "
                "error %s Boost's\n",
                name, d->wall_ms, b->inproc_ms, d->wall_ms <= b->inproc_ms ? "holds" : "does not hold",
                d->err <= b->err ? "no larger than" : "larger than");
      if (d->ok && b->ok)
        printf ("   (in-process: %s %.1f ms vs Boost rkf78 %.1f ms: %.2f×)\n", name, d->inproc_ms, b->inproc_ms,
                b->inproc_ms / d->inproc_ms);
    }

  against_rk8pd (json, quick);

  if (json != NULL)
    {
      cml_json_begin_object (json, "dop853", CML_JSON_BLOCK);
      cml_json_int (json, "periods", periods);
      for (guint i = 0; i < nt; i++)
        {
          cml_json_begin_object (json, tools[i].label, CML_JSON_LINE);
          cml_json_number (json, "process_ms", tools[i].ok ? tools[i].wall_ms : NAN);
          cml_json_number (json, "in_process_ms", tools[i].ok ? tools[i].inproc_ms : NAN);
          cml_json_number (json, "error", tools[i].ok ? tools[i].err : NAN);
          cml_json_end (json);
        }
      cml_json_end (json);
    }

  for (guint i = 0; i < nt; i++)
    {
      g_free (tools[i].wall);
      g_free (tools[i].why);
    }
  g_unlink (csv_dop);
  g_unlink (csv_rk);
  g_unlink (csv_ty);
  g_unlink (csv_auto);
  g_unlink (ode);
  g_unlink (xpp_out);
  g_rmdir (tmp);
  ok = tools[T_AUTO].ok && tools[T_DOP].ok;
  return ok;
}
