/* bench-variational.c — the discrete Lagrange–d'Alembert integrators against the others on
 * long runs of published nonholonomic test problems (doc/theory.md §14).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The contact oscillator of McLachlan and Perlmutter, "Integrators for nonholonomic
 * mechanical systems", J. Nonlinear Sci. 16 (2006), section 5.2 (bench/models), its
 * non-reversible variant, the vertical disk and the Chaplygin sleigh, at the step
 * h = 2 sin(π/40) ≈ 0.157 for 4·10⁵ steps (10⁴ with --quick).  For every integrator: the
 * largest |H − H₀| in the first and in the second half of the run, the largest constraint
 * residual |φ| at the output points (every step), and the cost in right-hand-side-equivalent
 * evaluations (cml_simulation_n_rhs) and seconds.  Equal cost is equal right-hand-side
 * equivalents: "rk4 (equal cost)" is the classical fixed-step Runge–Kutta method on the
 * system's right-hand side, without projection, with the step that spends as many
 * evaluations (4 per step) as variational did; rk8pd is adaptive at rtol 1e-10, atol 1e-12
 * with projection, implicit-midpoint at the same h with projection.
 *
 * Then the seeded systems of issue 35 that the variational integrators take — Martinet
 * (vakonomic, doc/theory.md §14.3), both Capri–Kobayashi models (singular, §14.4) and the
 * plate–ball (vakonomic on (ℝ² × ℝ²) × SO(3), §14.5: the elastica and a spinning ball) — at
 * h = 0.01 for 10⁶ steps (10⁴ with --quick): max |E − E₀| (the model's monitor energy:
 * Martinet's Hamiltonian; the plate–ball's H) in each half and the largest residual of the model's constraints
 * (Martinet's y2 = 0, the Capri–Kobayashi final constraints) at the steps, variational and
 * variational4 against rk4 at their costs and rk8pd at its default tolerances.  --only
 * variational-seeded runs these alone.
 */
#include "bench-variational.h"

#ifdef CMLAB_BENCH_HAVE_RENDER
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#endif

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-system.h"
#include "cml-simulation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  double e1, e2, res, secs;
  guint64 cost;
  gboolean ok;
  char *why;
  GArray *t, *e; /* the time series of |H − H₀| (with --csv), else NULL */
} Run;

static char *csv_dir;

#define SUBTITLE_PI40 "largest |H − H0| in each thousandth of the run, h = 2 sin(π/40); 10^-17 stands for 0"

void
bench_variational_set_csv_dir (const char *dir)
{
  g_free (csv_dir);
  csv_dir = g_strdup (dir);
}

/* A parameter the seeded runs set on every simulation (the plate–ball's spin c), or none */
static const char *run_param;
static double run_param_value;

/* The model's monitor energy, else its Hamiltonian H (the plate–ball's). */
static CmlExpr *
energy_expr (CmlModel *md)
{
  CmlExpr *H = NULL;
  for (guint i = 0; i < md->monitors->len; i++)
    {
      CmlNamedExpr *ne = md->monitors->pdata[i];
      if (g_str_equal (ne->name, "energy"))
        return ne->expr;
      if (g_str_equal (ne->name, "H"))
        H = ne->expr;
    }
  return H;
}

static void
apply_run_param (CmlSimulation *sim)
{
  if (sim && run_param)
    (void) cml_simulation_set_param (sim, run_param, run_param_value, NULL);
}

static void
track (Run *r, CmlSimulation *sim, CmlExpr *H, double H0, guint64 j, guint64 N)
{
  double e = fabs (cml_simulation_eval_expr (sim, H) - H0);
  if (r->t)
    {
      double t = cml_simulation_get_time (sim);
      g_array_append_val (r->t, t);
      g_array_append_val (r->e, e);
    }
  if (j <= N / 2)
    r->e1 = MAX (r->e1, e);
  else
    r->e2 = MAX (r->e2, e);
  r->res = MAX (r->res, cml_simulation_residual (sim));
}

/* KIND through the simulation, output every H for N steps. */
static void
run_init (Run *r)
{
  if (csv_dir)
    {
      r->t = g_array_new (FALSE, FALSE, sizeof (double));
      r->e = g_array_new (FALSE, FALSE, sizeof (double));
    }
}

static Run
run_kind (CmlSystem *sys, CmlIntegratorKind kind, double h, guint64 N)
{
  Run r = { 0 };
  run_init (&r);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  apply_run_param (sim);
  CmlExpr *H = energy_expr (cml_system_get_model (sys));
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.h_fixed = h;
  r.ok = sim && cml_simulation_set_integrator (sim, &o, &error);
  if (!r.ok)
    {
      r.why = g_strdup (error ? error->message : "?");
      return r;
    }
  double H0 = cml_simulation_eval_expr (sim, H), t0 = g_get_monotonic_time () / 1e6;
  for (guint64 j = 1; j <= N && r.ok; j++)
    {
      r.ok = cml_simulation_advance (sim, (double) j * h, &error);
      if (r.ok)
        track (&r, sim, H, H0, j, N);
    }
  r.secs = g_get_monotonic_time () / 1e6 - t0;
  r.cost = cml_simulation_n_rhs (sim);
  if (!r.ok)
    r.why = g_strdup (error->message);
  return r;
}

/* The classical fixed-step RK4 with COST right-hand-side evaluations over N steps of H. */
static Run
run_rk4 (CmlSystem *sys, double h, guint64 N, guint64 cost)
{
  Run r = { 0 };
  run_init (&r);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  apply_run_param (sim);
  CmlExpr *H = energy_expr (cml_system_get_model (sys));
  guint dim = cml_system_dim (sys);
  guint64 steps = MAX (cost / 4, 1);
  double T = (double) N * h, k = T / (double) steps;
  g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *w = g_new (double, 6 * dim);
  double *k1 = w, *k2 = w + dim, *k3 = w + 2 * dim, *k4 = w + 3 * dim, *y = w + 4 * dim;
  double H0 = cml_simulation_eval_expr (sim, H), t = 0, t0 = g_get_monotonic_time () / 1e6;
  guint64 out = 1;
  r.ok = TRUE;
  for (guint64 s = 0; s < steps && r.ok; s++)
    {
      r.ok = cml_simulation_eval_rhs_at (sim, t, z, k1, &error);
      for (guint i = 0; r.ok && i < dim; i++)
        y[i] = z[i] + 0.5 * k * k1[i];
      r.ok = r.ok && cml_simulation_eval_rhs_at (sim, t + 0.5 * k, y, k2, &error);
      for (guint i = 0; r.ok && i < dim; i++)
        y[i] = z[i] + 0.5 * k * k2[i];
      r.ok = r.ok && cml_simulation_eval_rhs_at (sim, t + 0.5 * k, y, k3, &error);
      for (guint i = 0; r.ok && i < dim; i++)
        y[i] = z[i] + k * k3[i];
      r.ok = r.ok && cml_simulation_eval_rhs_at (sim, t + k, y, k4, &error);
      for (guint i = 0; r.ok && i < dim; i++)
        z[i] += k / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
      t = (double) (s + 1) * k;
      /* sample where the others are sampled (at the first step past each output time) */
      if (r.ok && t >= (double) out * h - 1e-9 * h)
        {
          cml_simulation_set_state (sim, t, z);
          for (; out <= N && (double) out * h <= t + 1e-9 * h; out++)
            ;
          track (&r, sim, H, H0, (guint64) (t / h), N);
        }
    }
  r.secs = g_get_monotonic_time () / 1e6 - t0;
  r.cost = 4 * steps;
  if (!r.ok)
    r.why = g_strdup (error->message);
  return r;
}

static void
print_row (const char *name, const Run *r)
{
  if (!r->ok && r->why && r->cost == 0 && r->secs == 0)
    {
      printf ("    %-26s  refused: %.60s…\n", name, r->why);
      return;
    }
  printf ("    %-26s  %10.2e  %10.2e  %10.2e  %12" G_GUINT64_FORMAT "  %7.2f%s%s\n", name, r->e1, r->e2, r->res,
          r->cost, r->secs, r->ok ? "" : "  FAILED: ", r->ok ? "" : r->why);
}

/* The time series of the runs of one problem: MODEL.csv (integrator, t, |H − H₀|) in the
 * --csv directory, and with the render library a plot of log₁₀ |H − H₀| against time (its
 * largest value in each thousandth of the run), MODEL.png, titled TITLE and SUBTITLE. */
static void
write_series (const char *model, const char *title, const char *subtitle, const char *const *names, Run *const *runs,
              guint n)
{
  const char *base = g_str_has_prefix (model, "bench:") ? model + 6 : model;
  g_autofree char *file = g_strdup_printf ("%s.csv", base);
  g_autofree char *path = g_build_filename (csv_dir, file, NULL);
  FILE *f = fopen (path, "w");
  if (!f)
    {
      printf ("    (cannot write %s)\n", path);
      return;
    }
  fprintf (f, "integrator,t,abs_dH\n");
  for (guint i = 0; i < n; i++)
    for (guint k = 0; runs[i]->t && k < runs[i]->t->len; k++)
      fprintf (f, "%s,%.9g,%.6e\n", names[i], g_array_index (runs[i]->t, double, k),
               g_array_index (runs[i]->e, double, k));
  fclose (f);
  printf ("    time series: %s\n", path);
#ifdef CMLAB_BENCH_HAVE_RENDER
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  cml_plot_set_title (plot, title);
  cml_plot_set_subtitle (plot, subtitle);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", NULL);
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "log10 |H − H0|", NULL);
  cml_plot_set_show_all (plot, TRUE);
  for (guint i = 0; i < n; i++)
    {
      if (!runs[i]->t || runs[i]->t->len == 0)
        continue;
      /* the largest error in each of 1000 equal blocks of samples: the envelope */
      g_autoptr (CmlPlotSeries) series = cml_plot_series_new (names[i], NULL);
      guint len = runs[i]->t->len, nb = MIN (len, 1000), k = 0;
      g_autofree double *x = g_new (double, nb);
      g_autofree double *y = g_new (double, nb);
      for (guint b = 0; b < nb; b++)
        {
          guint k1 = (guint) (((guint64) (b + 1) * len) / nb);
          double e = 0;
          for (; k < k1; k++)
            e = MAX (e, g_array_index (runs[i]->e, double, k));
          x[b] = g_array_index (runs[i]->t, double, k1 - 1);
          y[b] = log10 (MAX (e, 1e-17));
        }
      cml_plot_series_append (series, x, y, nb);
      cml_plot_add_series (plot, series);
    }
  g_autofree char *png = g_strdup_printf ("%s/%s.png", csv_dir, base);
  g_autoptr (GError) error = NULL;
  if (cml_plot_export (plot, png, 1000, 560, &error))
    printf ("    figure: %s\n", png);
  else
    printf ("    figure not written: %s\n", error->message);
#else
  (void) title;
  (void) subtitle;
#endif
}

static void
free_run (Run *r)
{
  g_free (r->why);
  if (r->t)
    g_array_unref (r->t);
  if (r->e)
    g_array_unref (r->e);
}

/* The long run of the contact oscillator: 10⁶ steps, variational and variational4 against
 * rk4 at their costs and rk8pd. */
static void
long_run (const char *dir, double h)
{
  const guint64 N = 1000000;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_strdup_printf ("%s/models/contact-oscillator.cml", dir);
  g_autoptr (CmlModel) md = cml_model_load (path, &error);
  g_autoptr (CmlSystem) sys = md ? cml_system_new (md, &error) : NULL;
  if (!sys)
    {
      printf ("  contact-oscillator: %s\n", error->message);
      return;
    }
  printf ("  contact-oscillator, %" G_GUINT64_FORMAT " steps\n    %-26s  %10s  %10s  %10s  %12s  %7s\n", N,
          "integrator", "|ΔH| 1st", "|ΔH| 2nd", "max |φ|", "cost (rhs)", "s");
  Run v = run_kind (sys, CML_INTEGRATOR_VARIATIONAL, h, N);
  print_row ("variational", &v);
  Run v4 = run_kind (sys, CML_INTEGRATOR_VARIATIONAL4, h, N);
  print_row ("variational4", &v4);
  Run rk = run_rk4 (sys, h, N, v.cost);
  print_row ("rk4 (variational's cost)", &rk);
  Run rk4 = run_rk4 (sys, h, N, v4.cost);
  print_row ("rk4 (variational4's cost)", &rk4);
  Run r8 = run_kind (sys, CML_INTEGRATOR_RK8PD, h, N);
  print_row ("rk8pd (1e-10)", &r8);
  if (csv_dir)
    {
      const char *names[] = { "variational", "variational4", "rk4 (variational's cost)", "rk4 (variational4's cost)",
                              "rk8pd (1e-10)" };
      Run *all[] = { &v, &v4, &rk, &rk4, &r8 };
      write_series ("contact-oscillator-1e6", "Contact oscillator, 10^6 steps", SUBTITLE_PI40, names, all,
                    G_N_ELEMENTS (all));
    }
  Run *all[] = { &v, &v4, &rk, &rk4, &r8 };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    free_run (all[i]);
}

/* The long runs of the seeded systems the variational integrators take: N steps of
 * h = 0.01, variational and variational4 against rk4 at their costs and rk8pd. */
static void
seeded_long_runs (guint64 N)
{
  /* the plate–ball twice: the elastica (its defaults) and a spinning ball (c = 1) */
  static const char *const models[] = { "martinet", "capri-kobayashi", "capri-kobayashi-full", "plate-ball",
                                        "plate-ball" };
  static const char *const params[] = { NULL, NULL, NULL, NULL, "c" };
  static const double values[] = { 0, 0, 0, 0, 1 };
  const double h = 0.01;

  printf ("\n== variational: the seeded systems, h = %g, %" G_GUINT64_FORMAT " steps ==\n", h, N);
  printf ("   (max |ΔE| in the first and the second half, E the model's monitor energy; max residual of\n"
          "    the model's constraints at the steps; cost in right-hand-side equivalents; seconds)\n");
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) md = cml_model_load (models[m], &error);
      g_autoptr (CmlSystem) sys = md ? cml_system_new (md, &error) : NULL;
      if (!sys)
        {
          printf ("  %s: %s\n", models[m], error->message);
          continue;
        }
      run_param = params[m];
      run_param_value = values[m];
      g_autofree char *label = params[m] ? g_strdup_printf ("%s, %s = %g", models[m], params[m], values[m])
                                         : g_strdup (models[m]);
      printf ("  %s\n    %-26s  %10s  %10s  %10s  %12s  %7s\n", label, "integrator", "|ΔE| 1st", "|ΔE| 2nd",
              "max resid.", "cost (rhs)", "s");
      Run v = run_kind (sys, CML_INTEGRATOR_VARIATIONAL, h, N);
      print_row ("variational", &v);
      Run v4 = run_kind (sys, CML_INTEGRATOR_VARIATIONAL4, h, N);
      print_row ("variational4", &v4);
      Run rk = run_rk4 (sys, h, N, v.cost);
      print_row ("rk4 (variational's cost)", &rk);
      Run rk4 = run_rk4 (sys, h, N, v4.cost);
      print_row ("rk4 (variational4's cost)", &rk4);
      Run r8 = run_kind (sys, CML_INTEGRATOR_RK8PD, h, N);
      print_row ("rk8pd (default tol.)", &r8);
      Run *all[] = { &v, &v4, &rk, &rk4, &r8 };
      if (csv_dir)
        {
          const char *names[] = { "variational", "variational4", "rk4 (variational's cost)",
                                  "rk4 (variational4's cost)", "rk8pd (default tol.)" };
          g_autofree char *base = params[m] ? g_strdup_printf ("%s-%s%g-seeded", models[m], params[m], values[m])
                                            : g_strdup_printf ("%s-seeded", models[m]);
          g_autofree char *title = params[m] ? g_strdup_printf ("%s, %s = %g", md->title, params[m], values[m])
                                             : g_strdup (md->title);
          write_series (base, title,
                        "largest |E − E0| in each thousandth of the run, E the model's energy, h = 0.01; "
                        "10^-17 stands for 0",
                        names, all, G_N_ELEMENTS (all));
        }
      for (guint i = 0; i < G_N_ELEMENTS (all); i++)
        free_run (all[i]);
    }
  run_param = NULL;
}

void
bench_variational (gboolean quick, const char *const *only)
{
  static const char *const models[] = { "bench:contact-oscillator", "bench:contact-oscillator-gyro",
                                        "bench:nonholonomic-particle", "vertical-disk", "chaplygin-sleigh",
                                        "rigid-body", "bench:suslov" };
  const char *dir = g_getenv ("CMLAB_BENCH_DIR") ? g_getenv ("CMLAB_BENCH_DIR") : CMLAB_BENCH_SOURCE_DIR;
  const double h = 2 * sin (G_PI / 40);
  const guint64 N = quick ? 10000 : 400000;

  if (only && !g_strv_contains (only, "variational"))
    {
      if (g_strv_contains (only, "variational-seeded"))
        seeded_long_runs (quick ? 10000 : 1000000);
      fflush (stdout);
      return;
    }
  printf ("\n== variational: long runs of nonholonomic test problems, h = 2 sin(π/40) = %.6f, %" G_GUINT64_FORMAT
          " steps ==\n", h, N);
  printf ("   (max |ΔH| in the first and the second half, max |φ| at the steps, cost in right-hand-side\n"
          "    equivalents, seconds; rk4 (… cost): fixed-step RK4 with as many right-hand-side\n"
          "    equivalents as variational or variational4 spent, no projection)\n");
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = g_str_has_prefix (models[m], "bench:")
                                ? g_strdup_printf ("%s/models/%s.cml", dir, models[m] + 6)
                                : g_strdup (models[m]);
      g_autoptr (CmlModel) md = cml_model_load (path, &error);
      g_autoptr (CmlSystem) sys = md ? cml_system_new (md, &error) : NULL;
      if (!sys)
        {
          printf ("  %s: %s\n", models[m], error->message);
          continue;
        }
      printf ("  %s\n    %-26s  %10s  %10s  %10s  %12s  %7s\n", models[m], "integrator", "|ΔH| 1st", "|ΔH| 2nd",
              "max |φ|", "cost (rhs)", "s");
      Run v = run_kind (sys, CML_INTEGRATOR_VARIATIONAL, h, N);
      print_row ("variational", &v);
      Run v4 = run_kind (sys, CML_INTEGRATOR_VARIATIONAL4, h, N);
      print_row ("variational4", &v4);
      Run mp = run_kind (sys, CML_INTEGRATOR_IMPLICIT_MIDPOINT, h, N);
      print_row ("implicit-midpoint", &mp);
      Run rk = run_rk4 (sys, h, N, v.cost);
      print_row ("rk4 (variational's cost)", &rk);
      Run rk4 = run_rk4 (sys, h, N, v4.cost);
      print_row ("rk4 (variational4's cost)", &rk4);
      Run r8 = run_kind (sys, CML_INTEGRATOR_RK8PD, h, N);
      print_row ("rk8pd (1e-10)", &r8);
      Run *all[] = { &v, &v4, &mp, &rk, &rk4, &r8 };
      if (csv_dir)
        {
          const char *names[] = { "variational", "variational4", "implicit-midpoint", "rk4 (variational's cost)",
                                  "rk4 (variational4's cost)", "rk8pd (1e-10)" };
          write_series (models[m], md->title, SUBTITLE_PI40, names, all, G_N_ELEMENTS (all));
        }
      for (guint i = 0; i < G_N_ELEMENTS (all); i++)
        free_run (all[i]);
    }
  if (!quick)
    long_run (dir, h);
  seeded_long_runs (quick ? 10000 : 1000000);
  fflush (stdout);
}
