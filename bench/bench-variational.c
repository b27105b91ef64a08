/* bench-variational.c — the discrete Lagrange–d'Alembert integrators against the others on
 * long runs of published nonholonomic test problems (docs/theory.md §14).
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
 */
#include "bench-variational.h"

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-system.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct
{
  double e1, e2, res, secs;
  guint64 cost;
  gboolean ok;
  char *why;
} Run;

static CmlExpr *
energy_expr (CmlModel *md)
{
  for (guint i = 0; i < md->monitors->len; i++)
    {
      CmlNamedExpr *ne = md->monitors->pdata[i];
      if (g_str_equal (ne->name, "energy"))
        return ne->expr;
    }
  return NULL;
}

static void
track (Run *r, CmlSimulation *sim, CmlExpr *H, double H0, guint64 j, guint64 N)
{
  double e = fabs (cml_simulation_eval_expr (sim, H) - H0);
  if (j <= N / 2)
    r->e1 = MAX (r->e1, e);
  else
    r->e2 = MAX (r->e2, e);
  r->res = MAX (r->res, cml_simulation_residual (sim));
}

/* KIND through the simulation, output every H for N steps. */
static Run
run_kind (CmlSystem *sys, CmlIntegratorKind kind, double h, guint64 N)
{
  Run r = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
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
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
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
      printf ("    %-22s  refused: %.60s…\n", name, r->why);
      return;
    }
  printf ("    %-22s  %10.2e  %10.2e  %10.2e  %12" G_GUINT64_FORMAT "  %7.2f%s%s\n", name, r->e1, r->e2, r->res,
          r->cost, r->secs, r->ok ? "" : "  FAILED: ", r->ok ? "" : r->why);
}

void
bench_variational (gboolean quick, const char *const *only)
{
  static const char *const models[] = { "bench:contact-oscillator", "bench:contact-oscillator-gyro", "vertical-disk",
                                        "chaplygin-sleigh" };
  const char *dir = g_getenv ("CMLAB_BENCH_DIR") ? g_getenv ("CMLAB_BENCH_DIR") : CMLAB_BENCH_SOURCE_DIR;
  const double h = 2 * sin (G_PI / 40);
  const guint64 N = quick ? 10000 : 400000;

  if (only && !g_strv_contains (only, "variational"))
    return;
  printf ("\n== variational: long runs of nonholonomic test problems, h = 2 sin(π/40) = %.6f, %" G_GUINT64_FORMAT
          " steps ==\n", h, N);
  printf ("   (max |ΔH| in the first and the second half, max |φ| at the steps, cost in right-hand-side\n"
          "    equivalents, seconds; rk4 (equal cost): fixed-step RK4 with variational's cost, no projection)\n");
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
      printf ("  %s\n    %-22s  %10s  %10s  %10s  %12s  %7s\n", models[m], "integrator", "|ΔH| 1st", "|ΔH| 2nd",
              "max |φ|", "cost (rhs)", "s");
      Run v = run_kind (sys, CML_INTEGRATOR_VARIATIONAL, h, N);
      print_row ("variational", &v);
      Run v4 = run_kind (sys, CML_INTEGRATOR_VARIATIONAL4, h, N);
      print_row ("variational4", &v4);
      Run mp = run_kind (sys, CML_INTEGRATOR_IMPLICIT_MIDPOINT, h, N);
      print_row ("implicit-midpoint", &mp);
      Run rk = run_rk4 (sys, h, N, v.cost);
      print_row ("rk4 (equal cost)", &rk);
      Run r8 = run_kind (sys, CML_INTEGRATOR_RK8PD, h, N);
      print_row ("rk8pd (1e-10)", &r8);
      Run *all[] = { &v, &v4, &mp, &rk, &r8 };
      for (guint i = 0; i < G_N_ELEMENTS (all); i++)
        g_free (all[i]->why);
    }
  fflush (stdout);
}
