/* test-invariants.c — the conserved quantities of doc/theory.md §9 along long runs,
 * the energy balance of the rolling ball, and the constraint residuals.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every invariant is computed here from the formula of doc/theory.md §9 and the observables
 * (coordinates, velocities, momenta); where the model file has a monitor for it, the monitor
 * is checked against the formula too.  Runs: rk8pd, rtol = atol = 1e-12, t ∈ [0, 50];
 * conservation to 1e-9 relative (absolute below magnitude 1).
 */
#define G_LOG_DOMAIN "test-invariants"

#include "physics-util.h"

#define T_END 50.0
#define DT 0.5
#define REL 1e-9
#define RESIDUAL_MAX 1e-10

typedef double (*InvariantFunc) (CmlSimulation *sim);

typedef struct
{
  const char   *name;
  InvariantFunc f;
  const char   *monitor; /* the model's monitor for it, or NULL */
} Invariant;

#define P(name) cml_simulation_get_param (sim, name)
#define O(name) sim_obs (sim, name)

/* Integrates to T_END and checks every invariant and (if CHECK_RESIDUAL) the constraint
 * residual at every DT. */
static void
check_invariants (CmlSimulation *sim, const Invariant *inv, guint n, gboolean check_residual)
{
  g_autofree double *v0 = g_new (double, n);
  double worst_res = 0;

  sim_precise (sim);
  for (guint k = 0; k < n; k++)
    {
      v0[k] = inv[k].f (sim);
      if (inv[k].monitor)
        assert_close (O (inv[k].monitor), v0[k], 1e-12 * MAX (1, fabs (v0[k])));
    }
  for (int j = 1; j * DT <= T_END; j++)
    {
      sim_advance (sim, j * DT);
      for (guint k = 0; k < n; k++)
        {
          double v = inv[k].f (sim);
          if (!(fabs (v - v0[k]) <= REL * MAX (1, fabs (v0[k]))))
            g_error ("%s at t = %g: %.17g, at t = 0: %.17g (|diff| = %.3g)", inv[k].name, j * DT, v, v0[k],
                     fabs (v - v0[k]));
          if (inv[k].monitor)
            assert_close (O (inv[k].monitor), v, 1e-12 * MAX (1, fabs (v)));
        }
      if (check_residual)
        {
          double r = O ("residual");
          worst_res = MAX (worst_res, r);
          if (!(r <= RESIDUAL_MAX))
            g_error ("constraint residual %.3g at t = %g", r, j * DT);
          assert_close (cml_simulation_residual (sim), r, 1e-14);
        }
    }
  if (check_residual)
    g_test_message ("largest constraint residual on [0, %g]: %.3g", T_END, worst_res);
}

/* ---- rolling ball (doc/theory.md §9.1) ------------------------------------------------------------ */

static double
table_speed (CmlSimulation *sim)
{
  CmlModel *md = cml_system_get_model (cml_simulation_get_system (sim));
  double t = cml_simulation_get_time (sim);
  if (cml_model_find_param (md, "Omega0"))
    return P ("Omega0") + P ("Omega1") * sin (P ("nu") * t);
  return P ("Omega");
}

static double
table_accel (CmlSimulation *sim)
{
  CmlModel *md = cml_system_get_model (cml_simulation_get_system (sim));
  double t = cml_simulation_get_time (sim);
  if (cml_model_find_param (md, "Omega0"))
    return P ("Omega1") * P ("nu") * cos (P ("nu") * t);
  return 0;
}

static double
ball_kappa (CmlSimulation *sim)
{
  return P ("k2") / (P ("k2") + P ("r") * P ("r"));
}

/* E_L = (m/2)(u² + v²) + (m k²/2)|ω|² */
static double
ball_energy (CmlSimulation *sim)
{
  double m = P ("m"), k2 = P ("k2");
  return m / 2 * (pow (O ("u"), 2) + pow (O ("v"), 2)) + m * k2 / 2 * (pow (O ("w1"), 2) + pow (O ("w2"), 2) + pow (O ("w3"), 2));
}

static double ball_w3 (CmlSimulation *sim) { return O ("w3"); }
static double ball_Cx (CmlSimulation *sim) { return O ("u") + ball_kappa (sim) * table_speed (sim) * O ("y"); }
static double ball_Cy (CmlSimulation *sim) { return O ("v") - ball_kappa (sim) * table_speed (sim) * O ("x"); }
static double ball_speed (CmlSimulation *sim) { return hypot (O ("u"), O ("v")); }

static double
ball_I (CmlSimulation *sim)
{
  double W = table_speed (sim);
  return ball_energy (sim) - P ("m") * ball_kappa (sim) * W * W * (pow (O ("x"), 2) + pow (O ("y"), 2)) / 2;
}

static const Invariant ball_invariants[] = {
  { "w3", ball_w3, NULL },
  { "Cx", ball_Cx, "Cx" },
  { "Cy", ball_Cy, "Cy" },
  { "I", ball_I, "I" },
};

/* dE_L/dt from the derived right-hand side against mκΩ[Ω(xu + yv) + Ω'(x² + y²)], and the
 * redundant ω̇1 = r(Ωu + Ω'x)/(k² + r²), ω̇2 = r(Ωv + Ω'y)/(k² + r²). */
static void
check_energy_rate (CmlSimulation *sim)
{
  g_autoptr (GError) error = NULL;
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autofree double *dz = g_new (double, cml_system_dim (sys));
  double m = P ("m"), k2 = P ("k2"), r = P ("r"), W = table_speed (sim), Wd = table_accel (sim);
  double x = O ("x"), y = O ("y"), u = O ("u"), v = O ("v");

  g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
  g_assert_no_error (error);
#define D(name) dz[cml_sim_state_index (sim, name)]
  double dE = m * (u * D ("u") + v * D ("v")) + m * k2 * (O ("w1") * D ("w1") + O ("w2") * D ("w2") + O ("w3") * D ("w3"));
  double expect = m * ball_kappa (sim) * W * (W * (x * u + y * v) + Wd * (x * x + y * y));
  assert_close (dE, expect, 1e-11 * MAX (1, fabs (expect)));
  assert_close (D ("w1"), r * (W * u + Wd * x) / (k2 + r * r), 1e-12);
  assert_close (D ("w2"), r * (W * v + Wd * y) / (k2 + r * r), 1e-12);
  assert_close (D ("w3"), 0, 1e-14);
  assert_close (D ("x"), u, 1e-14);
  assert_close (D ("y"), v, 1e-14);
#undef D
}

static void
check_ball (const char *model, double m, double r, double k2, double Omega, gboolean default_params)
{
  g_autoptr (CmlSimulation) sim = sim_open (model);
  gboolean varying = g_str_equal (model, "rolling-ball-varying");

  if (!default_params)
    {
      sim_set_params (sim, "m", m, "r", r, "k2", k2, varying ? "Omega0" : "Omega", Omega, NULL);
      sim_reset (sim, "x", 0.8, "y", -0.3, "u", 0.25, "v", 0.6, "w3", -0.7, NULL);
    }
  check_invariants (sim, ball_invariants, G_N_ELEMENTS (ball_invariants), TRUE);

  /* E_L is not conserved, but changes at the rate of doc/theory.md §9.1; for constant Ω the
   * speed |ẋ| is conserved */
  if (default_params)
    sim_reset (sim, NULL);
  else
    sim_reset (sim, "x", 0.8, "y", -0.3, "u", 0.25, "v", 0.6, "w3", -0.7, NULL);
  sim_precise (sim);
  double E0 = ball_energy (sim), s0 = ball_speed (sim), Emax_change = 0;
  for (int j = 0; j <= 20; j++)
    {
      if (j)
        sim_advance (sim, j * 1.3);
      check_energy_rate (sim);
      Emax_change = MAX (Emax_change, fabs (ball_energy (sim) - E0));
      if (!varying)
        assert_close (ball_speed (sim), s0, REL * MAX (1, s0));
    }
  g_assert_cmpfloat (Emax_change, >, 1e-2);
}

static void test_ball_default (void) { check_ball ("rolling-ball", 0, 0, 0, 0, TRUE); }
static void test_ball_other (void) { check_ball ("rolling-ball", 2.5, 0.7, 0.3, -1.3, FALSE); }
static void test_varying_default (void) { check_ball ("rolling-ball-varying", 0, 0, 0, 0, TRUE); }
static void test_varying_other (void) { check_ball ("rolling-ball-varying", 2.5, 0.7, 0.3, -1.3, FALSE); }

/* ---- plate-ball (doc/theory.md §9.2) --------------------------------------------------------------- */

static double
plate_H (CmlSimulation *sim)
{
  double r = P ("r"), W = P ("Omega"), c = P ("c");
  double p1 = O ("p1"), p2 = O ("p2"), p3 = O ("p3"), p4 = O ("p4"), p5 = O ("p5");
  return pow (p1 + p4 / r, 2) / 2 + pow (p2 - p3 / r, 2) / 2 + c * p5 + W / r * (p3 * O ("x1") + p4 * O ("x2"));
}

static double
plate_casimir (CmlSimulation *sim)
{
  return pow (O ("p3"), 2) + pow (O ("p4"), 2) + pow (O ("p5"), 2);
}

static double
plate_J (CmlSimulation *sim)
{
  return O ("x1") * O ("p2") - O ("x2") * O ("p1") - P ("sigma") * O ("p5");
}

static double plate_p1 (CmlSimulation *sim) { return O ("p1"); }
static double plate_p2 (CmlSimulation *sim) { return O ("p2"); }

static const Invariant plate_invariants[] = {
  { "H", plate_H, "H" },
  { "casimir", plate_casimir, "casimir" },
  { "J", plate_J, "J" },
  { "p1", plate_p1, NULL }, /* Ω = 0 only */
  { "p2", plate_p2, NULL },
};

static void
check_plate (double sigma, double c, double Omega)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");

  sim_set_params (sim, "sigma", sigma, "c", c, "Omega", Omega, NULL);
  if (c != 0 || Omega != 0)
    sim_reset (sim, "x1", 0.2, "x2", -0.3, "p1", 1.0, "p2", 0.2, "p3", 0.3, "p4", -0.1, "p5", 0.5, NULL);
  else
    sim_reset (sim, NULL);
  /* the velocities are those of the W1 relations y1 = p1 + p4/r, y2 = p2 − p3/r */
  assert_close (O ("y1"), O ("p1") + O ("p4") / P ("r"), 1e-15);
  assert_close (O ("y2"), O ("p2") - O ("p3") / P ("r"), 1e-15);
  check_invariants (sim, plate_invariants, Omega == 0 ? G_N_ELEMENTS (plate_invariants) : 3, FALSE);
  if (Omega != 0)
    {
      /* p1, p2 are not conserved on a turning table (ṗ1 = −Ωp3/r) */
      g_assert_cmpfloat (fabs (O ("p1") - 1.0) + fabs (O ("p2") - 0.2), >, 1e-3);
    }
}

static void test_plate_minus (void) { check_plate (-1, 0, 0); }
static void test_plate_plus (void) { check_plate (+1, 0, 0); }
static void test_plate_minus_turning (void) { check_plate (-1, 0.3, 0.4); }
static void test_plate_plus_turning (void) { check_plate (+1, 0.3, 0.4); }

/* ---- Martinet (doc/theory.md §9.3) ----------------------------------------------------------------- */

static double martinet_h (CmlSimulation *sim) { return (pow (O ("u"), 2) + pow (O ("y1"), 2)) / 2; }
static double martinet_k (CmlSimulation *sim) { return O ("k"); }
static double martinet_a (CmlSimulation *sim) { return O ("y1") - O ("k") * pow (O ("x1"), 2) / 2; }

static const Invariant martinet_invariants[] = {
  { "h", martinet_h, "energy" },
  { "k", martinet_k, NULL },
  { "a", martinet_a, "a" },
};

static void
test_martinet_libration (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  check_invariants (sim, martinet_invariants, G_N_ELEMENTS (martinet_invariants), FALSE);
}

static void
test_martinet_rotation (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  sim_reset (sim, "x1", 2.0, "u", 1.0, "y1", -0.4, "k", 0.7, NULL);
  check_invariants (sim, martinet_invariants, G_N_ELEMENTS (martinet_invariants), FALSE);
}

/* ---- Capri–Kobayashi (doc/theory.md §9.4) ---------------------------------------------------------- */

static double
capri_El (CmlSimulation *sim)
{
  double m2 = P ("m2"), rho = O ("rho");
  return m2 / 2 * (pow (O ("v"), 2) + rho * rho * pow (O ("r"), 2)) + pow (O ("x1"), 2) + pow (O ("y1"), 2) + rho * rho;
}

static double
capri_pr (CmlSimulation *sim)
{
  return pow (O ("rho"), 2) * (P ("m2") * O ("r") + 1);
}

static double capri_x1 (CmlSimulation *sim) { return O ("x1"); }
static double capri_y1 (CmlSimulation *sim) { return O ("y1"); }
static double capri_vx1 (CmlSimulation *sim) { return O ("vx1"); }
static double capri_vy1 (CmlSimulation *sim) { return O ("vy1"); }

static const Invariant capri_invariants[] = {
  { "E_l", capri_El, "energy" },
  { "p_r", capri_pr, "pr" },
  { "x1", capri_x1, NULL },
  { "y1", capri_y1, NULL },
  { "vx1", capri_vx1, NULL },
  { "vy1", capri_vy1, NULL },
};

static double
capri_full_E (CmlSimulation *sim)
{
  double m2 = P ("m2");
  return m2 / 2 * (pow (O ("vx2"), 2) + pow (O ("vy2"), 2)) + pow (O ("x1"), 2) + pow (O ("y1"), 2) + pow (O ("x2"), 2) + pow (O ("y2"), 2);
}

/* the θ-momentum in Cartesian form: m2 (x2 ẏ2 − y2 ẋ2) + x2² + y2² = ρ²(m2 r + 1) */
static double
capri_full_pr (CmlSimulation *sim)
{
  double x2 = O ("x2"), y2 = O ("y2");
  return P ("m2") * (x2 * O ("vy2") - y2 * O ("vx2")) + x2 * x2 + y2 * y2;
}

static const Invariant capri_full_invariants[] = {
  { "energy", capri_full_E, "energy" },
  { "p_r", capri_full_pr, "pr" },
  { "x1", capri_x1, NULL },
  { "y1", capri_y1, NULL },
  { "vx1", capri_vx1, NULL },
  { "vy1", capri_vy1, NULL },
};

static void
test_capri_default (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  check_invariants (sim, capri_invariants, G_N_ELEMENTS (capri_invariants), TRUE);
}

static void
test_capri_other (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  sim_set_params (sim, "m2", 2.0, NULL);
  sim_reset (sim, "rho", 1.2, "v", 0.3, "r", 0.4, "theta", 0.7, NULL);
  check_invariants (sim, capri_invariants, G_N_ELEMENTS (capri_invariants), TRUE);
}

static void
test_capri_full_default (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi-full");
  check_invariants (sim, capri_full_invariants, G_N_ELEMENTS (capri_full_invariants), TRUE);
}

static void
test_capri_full_other (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi-full");
  sim_set_params (sim, "m2", 2.0, NULL);
  sim_reset (sim, "x2", 0.9, "y2", 0.4, "vx2", -0.2, "vy2", 0.5, NULL);
  check_invariants (sim, capri_full_invariants, G_N_ELEMENTS (capri_full_invariants), TRUE);
}

/* Off the constraint set at the start: projected once, then the residual stays small. */
static void
test_capri_off_manifold (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  sim_reset (sim, "x1", 0.3, "y1", -0.2, "vx1", 1.0, "vy1", 0.0, NULL);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, >, 0);
  check_invariants (sim, capri_invariants, G_N_ELEMENTS (capri_invariants), TRUE);
}

/* ---- the extra built-ins (tests/models/ORACLES-extra.md) ------------------------------------------ */

/* vertical disk: linear constraints, E = m(u² + v²)/2 + Ia θ̇²/2 + Id φ̇²/2, θ̇ and φ̇ constant */
static double
disk_E (CmlSimulation *sim)
{
  return P ("m") / 2 * (pow (O ("u"), 2) + pow (O ("v"), 2)) + P ("Ia") / 2 * pow (O ("dtheta"), 2)
         + P ("Id") / 2 * pow (O ("dphi"), 2);
}

static double disk_dtheta (CmlSimulation *sim) { return O ("dtheta"); }
static double disk_dphi (CmlSimulation *sim) { return O ("dphi"); }
static double disk_speed (CmlSimulation *sim) { return hypot (O ("u"), O ("v")); }

static const Invariant disk_invariants[] = {
  { "energy", disk_E, "energy" },
  { "dtheta", disk_dtheta, NULL },
  { "dphi", disk_dphi, NULL },
  { "speed", disk_speed, "speed" },
};

static void
test_disk (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("vertical-disk");
  sim_set_params (sim, "m", 2.0, "r", 0.8, "Ia", 0.3, "Id", 0.2, NULL);
  sim_reset (sim, "x", 1.0, "y", -0.5, "theta", 0.2, "phi", 0.3, "dtheta", 1.5, "dphi", -0.7, NULL);
  check_invariants (sim, disk_invariants, G_N_ELEMENTS (disk_invariants), TRUE);
}

/* Chaplygin sleigh: E = m(u² + v²)/2 + Ic w²/2 = m f²/2 + (Ic + m a²) w²/2 */
static double
sleigh_E (CmlSimulation *sim)
{
  return P ("m") / 2 * (pow (O ("u"), 2) + pow (O ("v"), 2)) + P ("Ic") / 2 * pow (O ("w"), 2);
}

static double
sleigh_E_body (CmlSimulation *sim)
{
  double th = O ("theta"), f = O ("u") * cos (th) + O ("v") * sin (th);
  return P ("m") / 2 * f * f + (P ("Ic") + P ("m") * P ("a") * P ("a")) / 2 * pow (O ("w"), 2);
}

static const Invariant sleigh_invariants[] = {
  { "energy", sleigh_E, "energy" },
  { "energy (body frame)", sleigh_E_body, NULL },
};

static void
test_sleigh (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("chaplygin-sleigh");
  sim_set_params (sim, "m", 2.0, "Ic", 0.3, "a", 0.7, NULL);
  sim_reset (sim, "x", 0.5, "y", -1.0, "theta", 0.4, "u", 0.3, "v", -0.8, NULL);
  check_invariants (sim, sleigh_invariants, G_N_ELEMENTS (sleigh_invariants), TRUE);
}

/* v ↦ q v q* (the rotation R(q) of a unit quaternion), component K of the result */
static double
rotate (CmlSimulation *sim, const double v[3], int k)
{
  double q0 = O ("q0"), q1 = O ("q1"), q2 = O ("q2"), q3 = O ("q3");
  double R[3][3] = {
    { 1 - 2 * (q2 * q2 + q3 * q3), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2) },
    { 2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 * q1 + q3 * q3), 2 * (q2 * q3 - q0 * q1) },
    { 2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 * q1 + q2 * q2) },
  };
  return R[k][0] * v[0] + R[k][1] * v[1] + R[k][2] * v[2];
}

static void
body_momentum (CmlSimulation *sim, double M[3])
{
  M[0] = P ("I1") * O ("W1");
  M[1] = P ("I2") * O ("W2");
  M[2] = P ("I3") * O ("W3");
}

/* free rigid body: 2E = Σ I_i W_i², |I W|², the spatial angular momentum R(q) I W */
static double
rigid_E (CmlSimulation *sim)
{
  return (P ("I1") * pow (O ("W1"), 2) + P ("I2") * pow (O ("W2"), 2) + P ("I3") * pow (O ("W3"), 2)) / 2;
}

static double
rigid_casimir (CmlSimulation *sim)
{
  double M[3];
  body_momentum (sim, M);
  return M[0] * M[0] + M[1] * M[1] + M[2] * M[2];
}

static double rigid_mx (CmlSimulation *sim) { double M[3]; body_momentum (sim, M); return rotate (sim, M, 0); }
static double rigid_my (CmlSimulation *sim) { double M[3]; body_momentum (sim, M); return rotate (sim, M, 1); }
static double rigid_mz (CmlSimulation *sim) { double M[3]; body_momentum (sim, M); return rotate (sim, M, 2); }

static double
quaternion_norm (CmlSimulation *sim)
{
  return pow (O ("q0"), 2) + pow (O ("q1"), 2) + pow (O ("q2"), 2) + pow (O ("q3"), 2);
}

static const Invariant rigid_invariants[] = {
  { "energy", rigid_E, "energy" },
  { "|I W|^2", rigid_casimir, "casimir" },
  { "mx", rigid_mx, "mx" },
  { "my", rigid_my, "my" },
  { "mz", rigid_mz, "mz" },
  { "|q|^2", quaternion_norm, NULL },
};

static void
test_rigid (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rigid-body");
  check_invariants (sim, rigid_invariants, G_N_ELEMENTS (rigid_invariants), FALSE);
  sim_set_params (sim, "I1", 0.7, "I2", 1.9, "I3", 2.4, NULL);
  sim_reset (sim, "W1", 0.3, "W2", -0.4, "W3", 1.0, NULL);
  check_invariants (sim, rigid_invariants, G_N_ELEMENTS (rigid_invariants), FALSE);
}

/* heavy top: E = W·IW/2 + mgl Γ3, |Γ|², IW·Γ; the third row of R(q) is Γ */
static double
top_E (CmlSimulation *sim)
{
  return rigid_E (sim) + P ("mgl") * O ("G3");
}

static double
top_gamma2 (CmlSimulation *sim)
{
  return pow (O ("G1"), 2) + pow (O ("G2"), 2) + pow (O ("G3"), 2);
}

static double
top_mz (CmlSimulation *sim)
{
  double M[3];
  body_momentum (sim, M);
  return M[0] * O ("G1") + M[1] * O ("G2") + M[2] * O ("G3");
}

static double
top_gamma_err (CmlSimulation *sim)
{
  double q0 = O ("q0"), q1 = O ("q1"), q2 = O ("q2"), q3 = O ("q3");
  return sqrt (pow (2 * (q1 * q3 - q0 * q2) - O ("G1"), 2) + pow (2 * (q2 * q3 + q0 * q1) - O ("G2"), 2)
               + pow (1 - 2 * (q1 * q1 + q2 * q2) - O ("G3"), 2));
}

static const Invariant top_invariants[] = {
  { "energy", top_E, "energy" },
  { "|Gamma|^2", top_gamma2, "casimir" },
  { "I W . Gamma", top_mz, "mz" },
  { "|R(q)^T e3 - Gamma|", top_gamma_err, "gamma_err" },
  { "|q|^2", quaternion_norm, NULL },
};

static void
test_top (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("heavy-top");
  check_invariants (sim, top_invariants, G_N_ELEMENTS (top_invariants), FALSE);
  /* an asymmetric top, a general start */
  sim_set_params (sim, "I1", 1.0, "I2", 1.5, "I3", 0.5, "mgl", 2.0, NULL);
  sim_reset (sim, "W1", 0.4, "W2", -0.3, "W3", 5.0, NULL);
  check_invariants (sim, top_invariants, G_N_ELEMENTS (top_invariants), FALSE);
}

/* The implicit midpoint rule keeps Martinet's energy (quadratic in the state) to rounding
 * while the reconstruction coordinates x2, x3 grow: its stage equation is solved to each
 * component's own precision, not to one scaled by the largest coordinate. */
static void
test_midpoint_no_drift (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  CmlIntegratorOptions opt = cml_integrator_options_default ();
  g_autoptr (GError) error = NULL;
  opt.kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  opt.h_fixed = 0.02;
  g_assert_true (cml_simulation_set_integrator (sim, &opt, &error));
  double e0 = sim_obs (sim, "energy");
  sim_advance (sim, 2000);
  g_test_message ("energy error %.3g with x3 = %.4g", fabs (sim_obs (sim, "energy") - e0), sim_obs (sim, "x3"));
  g_assert_cmpfloat (fabs (sim_obs (sim, "x3")), >, 100);
  g_assert_cmpfloat (fabs (sim_obs (sim, "energy") - e0), <, 1e-12);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/models/rolling-ball/invariants-default", test_ball_default);
  g_test_add_func ("/models/martinet/midpoint-energy-no-drift", test_midpoint_no_drift);
  g_test_add_func ("/models/rolling-ball/invariants-other", test_ball_other);
  g_test_add_func ("/models/rolling-ball-varying/invariants-default", test_varying_default);
  g_test_add_func ("/models/rolling-ball-varying/invariants-other", test_varying_other);
  g_test_add_func ("/models/plate-ball/invariants-sigma-1", test_plate_minus);
  g_test_add_func ("/models/plate-ball/invariants-sigma+1", test_plate_plus);
  g_test_add_func ("/models/plate-ball/invariants-sigma-1-c0.3-Omega0.4", test_plate_minus_turning);
  g_test_add_func ("/models/plate-ball/invariants-sigma+1-c0.3-Omega0.4", test_plate_plus_turning);
  g_test_add_func ("/models/martinet/invariants-libration", test_martinet_libration);
  g_test_add_func ("/models/martinet/invariants-rotation", test_martinet_rotation);
  g_test_add_func ("/models/capri-kobayashi/invariants-default", test_capri_default);
  g_test_add_func ("/models/capri-kobayashi/invariants-m2-2", test_capri_other);
  g_test_add_func ("/models/capri-kobayashi/invariants-off-manifold", test_capri_off_manifold);
  g_test_add_func ("/models/capri-kobayashi-full/invariants-default", test_capri_full_default);
  g_test_add_func ("/models/capri-kobayashi-full/invariants-m2-2", test_capri_full_other);
  g_test_add_func ("/models/vertical-disk/invariants", test_disk);
  g_test_add_func ("/models/chaplygin-sleigh/invariants", test_sleigh);
  g_test_add_func ("/models/rigid-body/invariants", test_rigid);
  g_test_add_func ("/models/heavy-top/invariants", test_top);
  return g_test_run ();
}
