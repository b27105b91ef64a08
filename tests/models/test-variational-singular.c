/* test-variational-singular.c — the variational integrators (variational, variational4) of
 * a singular Lagrangian on the final constraint set (doc/theory.md §14.4), on both
 * Capri–Kobayashi models: order against rk8pd, the final constraints at every output, the
 * Noether momentum p_r kept to rounding and the energy bounded over 10⁵ steps, the reduced
 * and the unreduced model agreeing step by step, the singular systems refused with the
 * reason, a restart from the step state bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The continuous solution is rk8pd at rtol = 1e-13, atol = 1e-14.
 */
#define G_LOG_DOMAIN "test-variational-singular"

#include "variational-util.h"

#include <gsl/gsl_errno.h>

typedef struct
{
  const char *model;
  CmlIntegratorKind kind;
  double h, T, lo, hi; /* the ratio of the errors at h and h/2 must be in [lo, hi] */
} OrderCase;

static void
test_order (gconstpointer data)
{
  const OrderCase *c = data;
  double e1 = var_error_at (c->model, c->kind, c->h, c->T);
  double e2 = var_error_at (c->model, c->kind, c->h / 2, c->T);
  g_test_message ("%s, %s, T = %g: error %.3g at h = %g, %.3g at h/2: ratio %.3f", c->model,
                  cml_integrator_kind_to_string (c->kind), c->T, e1, c->h, e2, e1 / e2);
  g_assert_cmpfloat (e1 / e2, >=, c->lo);
  g_assert_cmpfloat (e1 / e2, <=, c->hi);
  g_assert_cmpfloat (e2, <=, 1e-2);
}

/* The final constraints x1 = y1 = 0, vx1 = vy1 = 0 at every output to 1e-12 (the method
 * holds them exactly), also from a state off them (the model's preset off-constraints:
 * the first step puts particle 1 back at the origin, at rest). */
static void
test_constraint (gconstpointer data)
{
  const char *model = data;
  for (int k = CML_INTEGRATOR_VARIATIONAL; k <= CML_INTEGRATOR_VARIATIONAL4; k++)
    for (int off = 0; off < 2; off++)
      {
        g_autoptr (CmlSimulation) sim = sim_open (model);
        g_autoptr (CmlVariational) var = var_for (sim, k, 0.05);
        g_autoptr (GError) error = NULL;
        CmlSystem *sys = cml_simulation_get_system (sim);
        guint dim = cml_system_dim (sys);
        g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
        const char *held[] = { "x1", "y1", "vx1", "vy1" };
        int ih[4];
        for (int i = 0; i < 4; i++)
          ih[i] = cml_sim_state_index (sim, held[i]);
        if (off)
          {
            z[ih[0]] = 0.3;
            z[ih[1]] = -0.2;
            z[ih[2]] = 1;
          }
        double t = 0, worst = 0;
        for (int j = 1; j <= 400; j++)
          {
            g_assert_true (cml_variational_advance (var, &t, 0.05 * j, z, &error));
            g_assert_no_error (error);
            for (int i = 0; i < 4; i++)
              worst = MAX (worst, fabs (z[ih[i]]));
            g_assert_cmpfloat (worst, <=, 1e-12);
            cml_simulation_set_state (sim, t, z);
            g_assert_cmpfloat (cml_simulation_residual (sim), <=, 1e-12);
          }
        g_test_message ("%s, %s%s: largest |x1|, |y1|, |vx1|, |vy1| %.3g", model, cml_integrator_kind_to_string (k),
                        off ? " (from off the constraints)" : "", worst);
      }
}

typedef struct
{
  const char *model;
  CmlIntegratorKind kind;
  double pr_tol, E_bound; /* |Δp_r|/p_r and max |ΔE|/E₀ allowed */
} ConservedCase;

/* Over 10⁵ steps of h = 0.01 (about 550 periods of ρ): the angular momentum p_r (the
 * monitor pr) and the energy (the monitor energy).  On the reduced model p_r is the
 * discrete Noether momentum of the cyclic θ, kept to rounding; the energy is bounded, no
 * larger a deviation in the second half than in the first, below the stated bound.  On the
 * unreduced model L is quadratic, so the discrete equations are linear and the midpoint
 * rule keeps both quadratic invariants to rounding. */
static void
test_conserved (gconstpointer data)
{
  const ConservedCase *c = data;
  g_autoptr (CmlSimulation) sim = sim_open (c->model);
  double h = 0.01;
  int N = 100000;
  g_autoptr (CmlVariational) var = var_for (sim, c->kind, h);
  g_autoptr (GError) error = NULL;
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint dim = cml_system_dim (sys);
  g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  CmlExpr *E = var_monitor (sim, "energy"), *P = var_monitor (sim, "pr");
  double E0 = cml_simulation_eval_expr (sim, E), P0 = cml_simulation_eval_expr (sim, P);
  double dP = 0, dE1 = 0, dE2 = 0, t = 0;
  for (int j = 1; j <= N; j++)
    {
      g_assert_true (cml_variational_advance (var, &t, h * j, z, &error));
      g_assert_no_error (error);
      cml_simulation_set_state (sim, t, z);
      dP = MAX (dP, fabs (cml_simulation_eval_expr (sim, P) - P0));
      double dE = fabs (cml_simulation_eval_expr (sim, E) - E0);
      if (j <= N / 2)
        dE1 = MAX (dE1, dE);
      else
        dE2 = MAX (dE2, dE);
    }
  g_test_message ("%s, %s, h = %g, %d steps: max |Δp_r|/p_r %.3g, max |ΔE|/E₀ %.3g in the first half, %.3g in "
                  "the second", c->model, cml_integrator_kind_to_string (c->kind), h, N, dP / fabs (P0), dE1 / E0,
                  dE2 / E0);
  g_assert_cmpfloat (dP, <=, c->pr_tol * fabs (P0));
  g_assert_cmpfloat (dE2, <=, 1.5 * dE1 + 1e-13 * E0);
  g_assert_cmpfloat (MAX (dE1, dE2) / E0, <=, c->E_bound);
}

/* The unreduced state of a reduced one: z = x2 + i y2 = ρ e^{iθ}, ż = (v + i ρ r) e^{iθ};
 * particle 1 the same. */
static void
unreduce (const double *zr, double *out)
{
  /* zr = (x1, y1, rho, vx1, vy1, v, r, theta); out = (x1, y1, x2, y2, vx1, vy1, vx2, vy2) */
  double rho = zr[2], v = zr[5], r = zr[6], th = zr[7], c = cos (th), s = sin (th);
  out[0] = zr[0], out[1] = zr[1];
  out[2] = rho * c, out[3] = rho * s;
  out[4] = zr[3], out[5] = zr[4];
  out[6] = v * c - rho * r * s;
  out[7] = v * s + rho * r * c;
}

/* The largest difference, over the outputs of 2 s, between the reduced model's steps
 * mapped by unreduce () and the unreduced model's steps, both of KIND with step H. */
static double
reduction_gap (CmlIntegratorKind kind, double h)
{
  g_autoptr (CmlSimulation) red = sim_open ("capri-kobayashi");
  g_autoptr (CmlSimulation) full = sim_open ("capri-kobayashi-full");
  g_assert_cmpuint (cml_system_dim (cml_simulation_get_system (red)), ==, 8);
  g_assert_cmpuint (cml_system_dim (cml_simulation_get_system (full)), ==, 8);
  static const char *const names[] = { "x1", "y1", "rho", "vx1", "vy1", "v", "r", "theta" };
  static const char *const fnames[] = { "x1", "y1", "x2", "y2", "vx1", "vy1", "vx2", "vy2" };
  for (guint i = 0; i < 8; i++)
    {
      g_assert_cmpint (cml_sim_state_index (red, names[i]), ==, (int) i);
      g_assert_cmpint (cml_sim_state_index (full, fnames[i]), ==, (int) i);
    }
  var_use (red, kind, h);
  var_use (full, kind, h);
  double gap = 0, u[8];
  /* the same start: ρ = 1, θ = 0, v = 0, r = 0.5 is x2 = 1, y2 = 0, vx2 = 0, vy2 = 0.5 */
  unreduce (cml_simulation_get_state (red), u);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpfloat (fabs (u[i] - cml_simulation_get_state (full)[i]), <=, 1e-15);
  int N = (int) lround (2.0 / h);
  for (int j = 1; j <= N; j++)
    {
      var_advance (red, h * j);
      var_advance (full, h * j);
      unreduce (cml_simulation_get_state (red), u);
      for (guint i = 0; i < 8; i++)
        gap = MAX (gap, fabs (u[i] - cml_simulation_get_state (full)[i]));
    }
  return gap;
}

/* The reduction is exact (the reduced model is the unreduced one in polar coordinates with
 * θ cyclic), but the midpoint rule is not invariant under the change of coordinates
 * (x2, y2) ↔ (ρ, θ): the two discrete flows agree step by step to O(h²) (variational) and
 * O(h⁴) (variational4), not to rounding.  The gap over 2 s falls by about 4 (16) when h
 * halves, and is below the bounds observed. */
static void
test_reduction (void)
{
  double g1 = reduction_gap (CML_INTEGRATOR_VARIATIONAL, 0.02), g2 = reduction_gap (CML_INTEGRATOR_VARIATIONAL, 0.01);
  g_test_message ("variational: reduced against unreduced, max gap %.3g at h = 0.02, %.3g at h = 0.01: ratio %.3f",
                  g1, g2, g1 / g2);
  g_assert_cmpfloat (g1 / g2, >=, 3.6);
  g_assert_cmpfloat (g1 / g2, <=, 4.4);
  g_assert_cmpfloat (g2, <=, 1e-3);
  double f1 = reduction_gap (CML_INTEGRATOR_VARIATIONAL4, 0.04), f2 = reduction_gap (CML_INTEGRATOR_VARIATIONAL4, 0.02);
  g_test_message ("variational4: max gap %.3g at h = 0.04, %.3g at h = 0.02: ratio %.3f", f1, f2, f1 / f2);
  g_assert_cmpfloat (f1 / f2, >=, 13);
  g_assert_cmpfloat (f1 / f2, <=, 19);
  g_assert_cmpfloat (f2, <=, 1e-5);
}

/* Two runs agree bit for bit, and a restart from a saved step state continues exactly. */
static void
test_deterministic (gconstpointer data)
{
  const char *model = data;
  for (int k = CML_INTEGRATOR_VARIATIONAL; k <= CML_INTEGRATOR_VARIATIONAL4; k++)
    {
      g_autoptr (CmlSimulation) a = sim_open (model);
      g_autoptr (CmlSimulation) b = sim_open (model);
      var_use (a, k, 0.05);
      var_use (b, k, 0.05);
      var_advance (a, 1.5);
      var_advance (b, 1.5);
      guint dim = cml_system_dim (cml_simulation_get_system (a));
      g_assert_cmpmem (cml_simulation_get_state (a), dim * sizeof (double), cml_simulation_get_state (b),
                       dim * sizeof (double));
      guint ns = cml_simulation_step_state_size (a);
      g_assert_true (cml_simulation_step_state_is_exact (a));
      g_autofree double *ss = g_new (double, ns);
      g_autofree double *z = g_memdup2 (cml_simulation_get_state (a), dim * sizeof (double));
      cml_simulation_save_step_state (a, ss);
      var_advance (a, 3);
      g_autoptr (CmlSimulation) c = sim_open (model);
      var_use (c, k, 0.05);
      cml_simulation_restore (c, 1.5, z, ss);
      var_advance (c, 3);
      g_assert_cmpmem (cml_simulation_get_state (a), dim * sizeof (double), cml_simulation_get_state (c),
                       dim * sizeof (double));
      /* backwards to the start */
      var_advance (c, -1);
      g_assert_cmpfloat (cml_simulation_get_time (c), ==, -1);
    }
}

/* A singular Lagrangian whose final constraint set ties two coordinates (y = x, ẏ = ẋ:
 * the second coordinate has no velocity in L and a spring to the first) is refused, saying
 * why and what is taken. */
static void
test_refused (void)
{
  g_autoptr (CmlSimulation) sim = var_text_model (
    "[model]\nname = tied\ntitle = tied\n[algebroid]\nbase = x, y\nfibre = u, w\nsections = e1, e2\n"
    "[anchor]\ne1 = x: 1\ne2 = y: 1\n[dynamics]\nlagrangian = u^2/2 - x^2/2 - (x - y)^2\nconstraints = none\n"
    "[initial]\nx = 1\ny = 1\nu = 0\nw = 0\n", "singular-test.cml");
  var_assert_refused (sim, "singular Lagrangian", "both Capri–Kobayashi models",
                      "not given by coordinates and velocities held at numbers", NULL);
}

/* What the method derives (the compiled derivatives of L, the final constraints read as held
 * values) is derived by cml_system_prepare (); choosing and running the integrators later
 * derives nothing more, however often. */
static void
test_prepared (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) md = cml_model_load ("capri-kobayashi", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (md, &error);
  g_assert_no_error (error);
  g_assert_true (cml_variational_supports (sys, NULL));
  gsize before = cml_expr_ctx_memory (md->ctx);
  cml_system_prepare (sys, CML_INTEGRATOR_VARIATIONAL);
  gsize derived = cml_expr_ctx_memory (md->ctx);
  g_assert_cmpuint (derived, >, before);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  for (int i = 0; i < 3; i++)
    {
      var_use (sim, CML_INTEGRATOR_VARIATIONAL4, 0.05);
      var_use (sim, CML_INTEGRATOR_VARIATIONAL, 0.05);
      g_assert_true (cml_variational_supports (sys, NULL));
    }
  var_advance (sim, 1);
  g_assert_cmpuint (cml_expr_ctx_memory (md->ctx), ==, derived);
}

/* Through CmlSimulation: variational4 reaches the end on the final constraint set, beside
 * rk8pd. */
static void
test_simulation (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  var_use (sim, CML_INTEGRATOR_VARIATIONAL4, 0.05);
  var_advance (sim, 10);
  g_assert_cmpfloat (cml_simulation_residual (sim), <=, 1e-12);
  double e = var_error_at ("capri-kobayashi", CML_INTEGRATOR_VARIATIONAL4, 0.05, 10);
  g_test_message ("capri-kobayashi, variational4, h = 0.05, T = 10: error %.3g", e);
  g_assert_cmpfloat (e, <=, 1e-3); /* 5.3e-4 observed: the phase of θ */
}

int
main (int argc, char *argv[])
{
  static const OrderCase orders[] = {
    { "capri-kobayashi", CML_INTEGRATOR_VARIATIONAL, 0.1, 2, 3.6, 4.4 },
    { "capri-kobayashi", CML_INTEGRATOR_VARIATIONAL4, 0.1, 2, 13, 19 },
    { "capri-kobayashi-full", CML_INTEGRATOR_VARIATIONAL, 0.1, 2, 3.6, 4.4 },
    { "capri-kobayashi-full", CML_INTEGRATOR_VARIATIONAL4, 0.1, 2, 13, 19 },
  };
  static const ConservedCase conserved[] = {
    /* observed: |Δp_r|/p_r 1.5e-16; |ΔE|/E₀ 6.9e-7 (O(h²)) and 1.7e-9 (O(h⁴)) */
    { "capri-kobayashi", CML_INTEGRATOR_VARIATIONAL, 1e-13, 1e-6 },
    { "capri-kobayashi", CML_INTEGRATOR_VARIATIONAL4, 1e-13, 3e-9 },
    /* observed: |Δp_r|/p_r 2.6e-14 and 7.7e-14, |ΔE|/E₀ 3.1e-14 and 7.2e-14 (rounding) */
    { "capri-kobayashi-full", CML_INTEGRATOR_VARIATIONAL, 1e-12, 1e-12 },
    { "capri-kobayashi-full", CML_INTEGRATOR_VARIATIONAL4, 1e-12, 1e-12 },
  };

  g_test_init (&argc, &argv, NULL);
  gsl_set_error_handler_off ();
  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      g_autofree char *path = g_strdup_printf ("/models/variational-singular/order/%s/%s", orders[i].model,
                                               cml_integrator_kind_to_string (orders[i].kind));
      g_test_add_data_func (path, &orders[i], test_order);
    }
  for (guint i = 0; i < G_N_ELEMENTS (conserved); i++)
    {
      g_autofree char *path = g_strdup_printf ("/models/variational-singular/conserved/%s/%s", conserved[i].model,
                                               cml_integrator_kind_to_string (conserved[i].kind));
      g_test_add_data_func (path, &conserved[i], test_conserved);
    }
  g_test_add_data_func ("/models/variational-singular/constraint/capri-kobayashi", "capri-kobayashi", test_constraint);
  g_test_add_data_func ("/models/variational-singular/constraint/capri-kobayashi-full", "capri-kobayashi-full",
                        test_constraint);
  g_test_add_func ("/models/variational-singular/reduction", test_reduction);
  g_test_add_data_func ("/models/variational-singular/deterministic/capri-kobayashi", "capri-kobayashi",
                        test_deterministic);
  g_test_add_data_func ("/models/variational-singular/deterministic/capri-kobayashi-full", "capri-kobayashi-full",
                        test_deterministic);
  g_test_add_func ("/models/variational-singular/refused", test_refused);
  g_test_add_func ("/models/variational-singular/simulation", test_simulation);
  g_test_add_func ("/models/variational-singular/prepared", test_prepared);
  return g_test_run ();
}
