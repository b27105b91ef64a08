/* test-multipliers.c — the multipliers λ of nonholonomic systems, the observables
 * lambda_<constraint>, against closed forms.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sign convention is that of doc/theory.md §3: W ẏ = R + Φ_yᵀ λ, φ(t, x, y) = 0.  The
 * closed forms, derived here:
 *
 * (1) The isokinetic particle (tests/models/data/isokinetic.cml): L = (u² + v²)/2 − g y on
 *     TR², φ = u² + v² − 1 (Chetaev's rule).  W = 1, R = (0, −g), Φ_y = (2u, 2v), so
 *       u̇ = 2u λ,  v̇ = −g + 2v λ.
 *     Along the motion 0 = φ̇ = 2u u̇ + 2v v̇ = 4 (u² + v²) λ − 2 g v, hence
 *       λ = g v / (2 (u² + v²))
 *     at every state (on or off |y| = 1).  On |y| = 1 write (u, v) = (cos θ, sin θ): then
 *     θ̇ = u v̇ − v u̇ = −g cos θ, and with ψ = θ + π/2, ψ̇ = −g sin ψ, whose solution is
 *     tan(ψ/2) = tan(ψ₀/2) e^{−g t}.  So λ(t) = (g/2) sin θ(t) = −(g/2) cos ψ(t).
 *
 * (2) The vertical rolling disk (models/vertical-disk.cml): L = m (u² + v²)/2 + Ia θ̇²/2 +
 *     Id φ̇²/2 on TQ (R = 0: L does not depend on the point), constraints
 *     roll_x = u − r cos φ θ̇, roll_y = v − r sin φ θ̇, Φ_y rows (1, 0, −r cos φ, 0) and
 *     (0, 1, −r sin φ, 0).  The equations: m u̇ = λx, m v̇ = λy, Ia θ̈ = −r (cos φ λx +
 *     sin φ λy), Id φ̈ = 0.  Differentiating the constraints, cos φ u̇ + sin φ v̇ = r θ̈, so
 *     (cos φ λx + sin φ λy)/m = r θ̈ = −r² (cos φ λx + sin φ λy)/Ia: both vanish, θ̇ and φ̇
 *     are constant, and
 *       λx = m u̇ = −m r θ̇ φ̇ sin φ,   λy = m v̇ = m r θ̇ φ̇ cos φ
 *     (the centripetal force), with φ(t) = φ₀ + φ̇₀ t.
 *
 * (3) The rolling ball on a turning table (models/rolling-ball.cml): W = diag(m, m, m k2,
 *     m k2, m k2); R = 0 (L does not depend on the point, and the so(3) bracket term is
 *     w × (m k2 w) = 0).  roll_x = u − r w2 + Ω y, roll_y = v + r w1 − Ω x give Φ_y rows
 *     (1, 0, 0, −r, 0) and (0, 1, r, 0, 0), so
 *       m u̇ = λx,  m v̇ = λy,  m k2 ẇ1 = r λy,  m k2 ẇ2 = −r λx,  m k2 ẇ3 = 0.
 *     Differentiating roll_x along the motion (ẏ = v): u̇ − r ẇ2 + Ω v = 0, i.e.
 *     λx (1/m + r²/(m k2)) = −Ω v; likewise v̇ + r ẇ1 − Ω u = 0.  With κ = k2/(k2 + r²):
 *       λx = −m κ Ω v,   λy = m κ Ω u.
 *     And, with the system's own right-hand side at a random state, W ẏ − R = Φ_yᵀ λ
 *     component by component.
 *
 * The names lambda_<constraint> may be used by monitors and by the scene: the ball's
 * contact-force arrow is 10 (λx, λy, 0) — the only horizontal force on the ball, so also
 * (m u̇, m v̇) by Newton's law for its centre.  A vakonomic system's multipliers are
 * mu_<constrained coordinate> = −p_α (doc/theory.md §4).
 *
 * And cmlab-cli simulate --columns writes them: at t = 0 of the ball's oracle O1 (x = 1,
 * y = 0, u = 0, v = 0.5, m = r = Ω = 1, k2 = 0.4, κ = 2/7), λx = −κ/2 = −1/7, λy = 0.
 */
#define G_LOG_DOMAIN "test-multipliers"

#include "physics-util.h"
#include "cli-util.h"

#define TOL 1e-10

static char *
data_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

/* The observables lambda_<name> follow the constraints, in their order, after the others. */
static void
test_names (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint n = cml_system_n_observables (sys);
  g_assert_cmpint (cml_system_observable_index (sys, "lambda_roll_x"), ==, n - 2);
  g_assert_cmpint (cml_system_observable_index (sys, "lambda_roll_y"), ==, n - 1);
  /* and the model's default output is unchanged */
  CmlModel *model = cml_system_get_model (sys);
  for (guint k = 0; model->columns[k]; k++)
    g_assert_false (g_str_has_prefix (model->columns[k], "lambda_"));

  /* a system without nonholonomic constraints has none */
  g_autoptr (CmlSimulation) top = sim_open ("heavy-top");
  CmlSystem *tsys = cml_simulation_get_system (top);
  for (guint i = 0; i < cml_system_n_observables (tsys); i++)
    g_assert_false (g_str_has_prefix (cml_system_observable_name (tsys, i), "lambda_"));
}

static void
test_isokinetic (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_path ("isokinetic.cml");
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  const double g = 1.7, theta0 = 0.9;
  sim_set_params (sim, "g", g, NULL);
  sim_precise (sim);
  sim_reset (sim, "u", cos (theta0), "v", sin (theta0), NULL);

  const double psi0 = theta0 + G_PI / 2;
  for (int j = 0; j <= 8; j++)
    {
      double t = 0.25 * j;
      if (j > 0)
        sim_advance (sim, t);
      double u = sim_obs (sim, "u"), v = sim_obs (sim, "v"), lam = sim_obs (sim, "lambda_speed");
      /* at the state */
      assert_close (lam, g * v / (2 * (u * u + v * v)), TOL);
      /* along the closed-form motion */
      double psi = 2 * atan (tan (psi0 / 2) * exp (-g * t));
      assert_close (lam, -g / 2 * cos (psi), TOL);
    }

  /* off the constraint set too, the formula at the state */
  {
    CmlSystem *sys = cml_simulation_get_system (sim);
    g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), cml_system_dim (sys) * sizeof (double));
    z[cml_sim_state_index (sim, "u")] = 0.3;
    z[cml_sim_state_index (sim, "v")] = -1.4;
    cml_simulation_set_state (sim, 0.5, z);
    assert_close (sim_obs (sim, "lambda_speed"), g * -1.4 / (2 * (0.09 + 1.96)), TOL);
  }
}

static void
test_vertical_disk (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("vertical-disk");
  const double m = 1.3, r = 0.8, dtheta0 = 1.5, dphi0 = -0.7, phi0 = 0.4;
  sim_set_params (sim, "m", m, "r", r, "Ia", 0.6, "Id", 0.2, NULL);
  sim_precise (sim);
  sim_reset (sim, "phi", phi0, "dtheta", dtheta0, "dphi", dphi0, NULL);
  for (int j = 0; j <= 8; j++)
    {
      double t = 0.5 * j;
      if (j > 0)
        sim_advance (sim, t);
      double phi = phi0 + dphi0 * t;
      assert_close (sim_obs (sim, "lambda_roll_x"), -m * r * dtheta0 * dphi0 * sin (phi), TOL);
      assert_close (sim_obs (sim, "lambda_roll_y"), m * r * dtheta0 * dphi0 * cos (phi), TOL);
    }
}

static void
test_rolling_ball (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);
  const double m = 1.3, r = 0.7, k2 = 0.5, Omega = 0.8, kappa = k2 / (k2 + r * r);
  sim_set_params (sim, "m", m, "r", r, "k2", k2, "Omega", Omega, NULL);
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint dim = cml_system_dim (sys);

  for (int trial = 0; trial < 5; trial++)
    {
      /* a random state on the constraint set */
      g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
      double x = g_rand_double_range (rand, -2, 2), y = g_rand_double_range (rand, -2, 2);
      double u = g_rand_double_range (rand, -2, 2), v = g_rand_double_range (rand, -2, 2);
      z[cml_sim_state_index (sim, "x")] = x;
      z[cml_sim_state_index (sim, "y")] = y;
      z[cml_sim_state_index (sim, "u")] = u;
      z[cml_sim_state_index (sim, "v")] = v;
      z[cml_sim_state_index (sim, "w1")] = (Omega * x - v) / r;
      z[cml_sim_state_index (sim, "w2")] = (u + Omega * y) / r;
      z[cml_sim_state_index (sim, "w3")] = g_rand_double_range (rand, -2, 2);
      cml_simulation_set_state (sim, g_rand_double_range (rand, 0, 3), z);

      double lx = sim_obs (sim, "lambda_roll_x"), ly = sim_obs (sim, "lambda_roll_y");
      assert_close (lx, -m * kappa * Omega * v, TOL);
      assert_close (ly, m * kappa * Omega * u, TOL);

      /* W ẏ − R = Φ_yᵀ λ with the system's own right-hand side (R = 0) */
      g_autoptr (GError) error = NULL;
      g_autofree double *dz = g_new (double, dim);
      g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_no_error (error);
      assert_close (m * dz[cml_sim_state_index (sim, "u")], lx, TOL);
      assert_close (m * dz[cml_sim_state_index (sim, "v")], ly, TOL);
      assert_close (m * k2 * dz[cml_sim_state_index (sim, "w1")], r * ly, TOL);
      assert_close (m * k2 * dz[cml_sim_state_index (sim, "w2")], -r * lx, TOL);
      assert_close (m * k2 * dz[cml_sim_state_index (sim, "w3")], 0.0, TOL);
    }
}

/* The scene's contact-force arrow and a monitor built from the multipliers, at random
 * states on the constraint set, against Newton's law for the centre. */
static void
test_scene_and_monitor (void)
{
  g_autoptr (CmlModel) model = model_variant ("rolling-ball", "[monitors]\n",
                                              "[monitors]\nfriction = sqrt(lambda_roll_x^2 + lambda_roll_y^2)\n");
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  g_autoptr (GRand) rand = g_rand_new_with_seed (4711);
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint dim = cml_system_dim (sys), obj = G_MAXUINT;
  const double m = 1.7, r = 0.6, Omega = 1.3;
  sim_set_params (sim, "m", m, "r", r, "Omega", Omega, NULL);
  for (guint k = 0; k < model->scene->len; k++)
    if (g_str_equal (((CmlSceneObject *) model->scene->pdata[k])->name, "contact-force"))
      obj = k;
  g_assert_cmpuint (obj, !=, G_MAXUINT);
  int from = cml_system_scene_offset (sys, obj, "from"), vec = cml_system_scene_offset (sys, obj, "vector");
  g_assert_cmpint (from, >=, 0);
  g_assert_cmpint (vec, >=, 0);
  g_assert_cmpstr (cml_model_unit (model, "lambda_roll_x"), ==, "N");
  g_assert_nonnull (strstr (cml_model_meaning (model, "lambda_roll_y"), "reaction force"));

  for (int trial = 0; trial < 5; trial++)
    {
      g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
      g_autofree double *scene = g_new (double, MAX (cml_system_n_scene_values (sys), 1));
      g_autofree double *dz = g_new (double, dim);
      g_autoptr (GError) error = NULL;
      double x = g_rand_double_range (rand, -2, 2), y = g_rand_double_range (rand, -2, 2);
      double u = g_rand_double_range (rand, -2, 2), v = g_rand_double_range (rand, -2, 2);
      z[cml_sim_state_index (sim, "x")] = x;
      z[cml_sim_state_index (sim, "y")] = y;
      z[cml_sim_state_index (sim, "u")] = u;
      z[cml_sim_state_index (sim, "v")] = v;
      z[cml_sim_state_index (sim, "w1")] = (Omega * x - v) / r;
      z[cml_sim_state_index (sim, "w2")] = (u + Omega * y) / r;
      cml_simulation_set_state (sim, 0.5, z);
      cml_simulation_eval_scene (sim, scene);
      g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_no_error (error);
      double fx = m * dz[cml_sim_state_index (sim, "u")], fy = m * dz[cml_sim_state_index (sim, "v")];
      assert_close (scene[from], x, TOL);
      assert_close (scene[from + 1], y, TOL);
      assert_close (scene[from + 2], 0.0, TOL);
      assert_close (scene[vec], 10 * fx, TOL);
      assert_close (scene[vec + 1], 10 * fy, TOL);
      assert_close (scene[vec + 2], 0.0, TOL);
      assert_close (sim_obs (sim, "friction"), hypot (fx, fy), TOL);
    }
}

/* A vakonomic system's multipliers are mu_<constrained coordinate> = −p_α, said to be no
 * force; a model's own name lambda_<constraint> (a monitor) is kept as the model made it. */
static void
test_vakonomic_and_taken_names (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  guint nmu = 0;
  for (guint a = 0; a < model->n; a++)
    {
      g_autofree char *name = g_strdup_printf ("mu_%s", model->fibre[a]);
      gboolean constrained = FALSE;
      for (guint c = 0; c < model->constraints->len; c++)
        constrained |= g_str_equal (((CmlNamedExpr *) model->constraints->pdata[c])->name, model->fibre[a]);
      g_assert_cmpint (cml_system_observable_index (sys, name) >= 0, ==, constrained);
      if (!constrained)
        continue;
      nmu++;
      g_assert_nonnull (strstr (cml_model_meaning (model, name), "not a force"));
      g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), cml_system_dim (sys) * sizeof (double));
      z[cml_sim_state_index (sim, model->momenta[a])] = 0.25 + a;
      cml_simulation_set_state (sim, 0, z);
      assert_close (sim_obs (sim, name), -(0.25 + a), 0.0);
    }
  g_assert_cmpuint (nmu, ==, model->constraints->len);
  for (guint i = 0; i < cml_system_n_observables (sys); i++)
    g_assert_false (g_str_has_prefix (cml_system_observable_name (sys, i), "lambda_"));

  g_autoptr (CmlModel) own = model_variant ("rolling-ball", "[monitors]\n", "[monitors]\nlambda_roll_x = 2*x\n");
  g_autoptr (CmlSimulation) osim = sim_from_model (own);
  CmlSystem *osys = cml_simulation_get_system (osim);
  guint count = 0;
  for (guint i = 0; i < cml_system_n_observables (osys); i++)
    count += g_str_equal (cml_system_observable_name (osys, i), "lambda_roll_x");
  g_assert_cmpuint (count, ==, 1);
  assert_close (sim_obs (osim, "lambda_roll_x"), 2 * sim_state (osim, "x"), 0.0);
  g_assert_cmpint (cml_system_observable_index (osys, "lambda_roll_y"), >=, 0);
}

static void
test_cli_columns (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "1", "--columns",
                            "x,lambda_roll_x,lambda_roll_y", NULL),
                   ==, 0);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint k = 0;
  while (lines[k] && lines[k][0] == '#')
    k++;
  g_assert_cmpstr (lines[k], ==, "t,x,lambda_roll_x,lambda_roll_y");
  g_auto (GStrv) row = g_strsplit (lines[k + 1], ",", -1);
  g_assert_cmpuint (g_strv_length (row), ==, 4);
  assert_close (g_ascii_strtod (row[0], NULL), 0.0, 0.0);
  assert_close (g_ascii_strtod (row[1], NULL), 1.0, TOL);
  assert_close (g_ascii_strtod (row[2], NULL), -1.0 / 7, TOL);
  assert_close (g_ascii_strtod (row[3], NULL), 0.0, TOL);

  /* an unknown name is refused */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "1", "--columns",
                            "x,lambda_nothing", NULL),
                   !=, 0);
  g_assert_nonnull (strstr (err, "lambda_nothing"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/multipliers/names", test_names);
  g_test_add_func ("/multipliers/isokinetic", test_isokinetic);
  g_test_add_func ("/multipliers/vertical-disk", test_vertical_disk);
  g_test_add_func ("/multipliers/rolling-ball", test_rolling_ball);
  g_test_add_func ("/multipliers/scene-and-monitor", test_scene_and_monitor);
  g_test_add_func ("/multipliers/vakonomic-and-taken-names", test_vakonomic_and_taken_names);
  g_test_add_func ("/multipliers/cli-columns", test_cli_columns);
  return g_test_run ();
}
