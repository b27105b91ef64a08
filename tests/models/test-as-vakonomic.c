/* test-as-vakonomic.c — a nonholonomic model read by the vakonomic principle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cml_model_new_as_vakonomic solves the constraints of a nonholonomic model for its
 * solve-for coordinates and writes the vakonomic model with that graph.  Checked against
 * truth: the rolling ball read as vakonomic runs exactly as the same system written by
 * hand as a vakonomic model file (tests/models/data/rolling-ball-vakonomic.cml), at the
 * defaults and at other parameters and multipliers; its Hamiltonian
 *   H = p_A y^A − L(y),  y^α = Ψ^α,
 * is conserved (the system does not depend on t); the two principles give different
 * motions from the same start; and the models the reading does not apply to are refused
 * with a message naming the reason.
 */
#define G_LOG_DOMAIN "test-as-vakonomic"

#include "cml-as-vakonomic.h"
#include "cli-util.h"
#include "physics-util.h"

static char *
data_path (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

static CmlModel *
load (const char *name_or_path)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_model_load (name_or_path, &error);
  g_assert_no_error (error);
  return model;
}

static CmlModel *
as_vakonomic (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) nh = load (name);
  CmlModel *vk = cml_model_new_as_vakonomic (nh, &error);
  g_assert_no_error (error);
  g_assert_nonnull (vk);
  g_assert_cmpint (vk->kind, ==, CML_CONSTRAINTS_VAKONOMIC);
  return vk;
}

static const char *const compared[] = { "x", "y", "u", "v", "w1", "w2", "w3", "p1", "p2", "p3", "p4", "p5", NULL };

/* The derived and the hand-written model, from the same start with the same parameters,
 * agree to the integrator's tolerance at every sampled time. */
static void
compare_runs (const char *const *params, const double *values, double p3, double p4)
{
  g_autoptr (CmlModel) derived = as_vakonomic ("rolling-ball");
  g_autofree char *path = data_path ("rolling-ball-vakonomic.cml");
  g_autoptr (CmlModel) by_hand = load (path);
  CmlSimulation *a = sim_from_model (derived);
  CmlSimulation *b = sim_from_model (by_hand);
  for (guint k = 0; params != NULL && params[k] != NULL; k++)
    {
      sim_set_params (a, params[k], values[k], NULL);
      sim_set_params (b, params[k], values[k], NULL);
    }
  sim_precise (a);
  sim_precise (b);
  sim_reset (a, "p3", p3, "p4", p4, NULL);
  sim_reset (b, "p3", p3, "p4", p4, NULL);
  for (int s = 1; s <= 10; s++)
    {
      double t = 1.5 * s;
      sim_advance (a, t);
      sim_advance (b, t);
      /* the tolerance scales with the state: with multipliers the motion grows */
      double scale = 1.0;
      for (guint c = 0; compared[c] != NULL; c++)
        scale = MAX (scale, fabs (sim_obs (b, compared[c])));
      for (guint c = 0; compared[c] != NULL; c++)
        assert_close (sim_obs (a, compared[c]), sim_obs (b, compared[c]), 1e-10 * scale);
    }
  cml_simulation_free (a);
  cml_simulation_free (b);
}

static void
test_matches_hand_written (void)
{
  compare_runs (NULL, NULL, 0, 0);
}

static void
test_matches_hand_written_other (void)
{
  const char *params[] = { "r", "Omega", "k2", "m", NULL };
  const double values[] = { 0.7, -1.3, 0.25, 2.0 };
  compare_runs (params, values, 0.2, -0.15);
}

/* The graph holds along the run, and the free velocities and zero multipliers are the
 * ones the nonholonomic file gave. */
static void
test_initial_data (void)
{
  g_autoptr (CmlModel) vk = as_vakonomic ("rolling-ball");
  CmlSimulation *sim = sim_from_model (vk);
  sim_precise (sim);
  assert_close (sim_obs (sim, "u"), 0.0, 1e-14);
  assert_close (sim_obs (sim, "v"), 0.5, 1e-14);
  assert_close (sim_obs (sim, "w3"), 0.3, 1e-14);
  assert_close (sim_obs (sim, "p3"), 0.0, 0.0);
  assert_close (sim_obs (sim, "p4"), 0.0, 0.0);
  sim_advance (sim, 7.0);
  /* w1 = (Omega x - v)/r and w2 = (u + Omega y)/r with r = Omega = 1 */
  assert_close (sim_obs (sim, "w1"), sim_obs (sim, "x") - sim_obs (sim, "v"), 1e-12);
  assert_close (sim_obs (sim, "w2"), sim_obs (sim, "u") + sim_obs (sim, "y"), 1e-12);
  cml_simulation_free (sim);
}

/* H = p_A y^A − L is conserved along the vakonomic motion of a system that does not
 * depend on t. */
static void
test_hamiltonian (void)
{
  g_autoptr (CmlModel) vk = as_vakonomic ("rolling-ball");
  CmlSimulation *sim = sim_from_model (vk);
  sim_precise (sim);
  sim_reset (sim, "p3", 0.3, "p4", -0.2, NULL);
  const char *H = "p1*u + p2*v + p3*w1 + p4*w2 + p5*w3 - (m/2*(u^2 + v^2) + m*k2/2*(w1^2 + w2^2 + w3^2))";
  double h0 = sim_eval (sim, H);
  /* (with these multipliers the ball leaves the table's centre: x ≈ −38 at t = 10) */
  for (int s = 1; s <= 8; s++)
    {
      sim_advance (sim, 1.25 * s);
      assert_close (sim_eval (sim, H), h0, 1e-11);
    }
  cml_simulation_free (sim);
}

/* Nonholonomic and vakonomic motions from the same start part: the ball's centre ends
 * elsewhere (the point of putting both on one table). */
static void
test_principles_differ (void)
{
  g_autoptr (CmlModel) vk = as_vakonomic ("rolling-ball");
  CmlSimulation *a = sim_from_model (vk);
  CmlSimulation *b = sim_open ("rolling-ball");
  sim_precise (a);
  sim_precise (b);
  sim_advance (a, 10.0);
  sim_advance (b, 10.0);
  double d = hypot (sim_obs (a, "x") - sim_obs (b, "x"), sim_obs (a, "y") - sim_obs (b, "y"));
  g_assert_cmpfloat (d, >, 1e-3);
  cml_simulation_free (a);
  cml_simulation_free (b);
}

/* What the reading keeps and leaves out. */
static void
test_text (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) nh = load ("rolling-ball");
  g_autofree char *text = cml_model_vakonomic_text (nh, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "constraints=vakonomic"));
  g_assert_null (strstr (text, "solve-for"));
  g_assert_null (strstr (text, "[reference]"));
  g_assert_null (strstr (text, "| conserved"));
  g_assert_null (strstr (text, "roll_x"));
  g_autoptr (CmlModel) vk = cml_model_new_from_data (text, "vk", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (vk->name, ==, "rolling-ball-vakonomic");
  g_assert_cmpuint (vk->constraints->len, ==, 2);
  g_assert_cmpuint (vk->references->len, ==, 0);
  for (guint k = 0; k < vk->monitors->len; k++)
    g_assert_false (((CmlNamedExpr *) g_ptr_array_index (vk->monitors, k))->conserved);
}

/* Every nonholonomic built-in with linear or affine constraints can be read so, and runs. */
static void
test_builtins (void)
{
  const char *names[] = { "rolling-ball", "rolling-ball-varying", "chaplygin-sleigh", "vertical-disk", NULL };
  for (guint k = 0; names[k] != NULL; k++)
    {
      g_autoptr (CmlModel) vk = as_vakonomic (names[k]);
      CmlSimulation *sim = sim_from_model (vk);
      sim_advance (sim, 2.0);
      cml_simulation_free (sim);
    }
}

static void
assert_refused (CmlModel *model, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) vk = cml_model_new_as_vakonomic (model, &error);
  g_assert_null (vk);
  g_assert_nonnull (error);
  if (strstr (error->message, fragment) == NULL)
    g_error ("message “%s” lacks “%s”", error->message, fragment);
}

static void
test_refused (void)
{
  g_autoptr (CmlModel) martinet = load ("martinet");
  assert_refused (martinet, "only a nonholonomic model");
  g_autoptr (CmlModel) top = load ("heavy-top");
  assert_refused (top, "only a nonholonomic model");
  g_autofree char *iso_path = data_path ("isokinetic.cml");
  g_autoptr (CmlModel) iso = load (iso_path);
  assert_refused (iso, "solve-for");
  g_autoptr (CmlModel) nofor = model_variant ("rolling-ball", "solve-for = w1, w2\n", "");
  assert_refused (nofor, "solve-for");
  g_autoptr (CmlModel) nonlinear = model_variant ("rolling-ball", "roll_x = u - r*w2", "roll_x = u - r*w2^3");
  assert_refused (nonlinear, "not linear in the velocities");
}

/* The value of column NAME in the last row of CSV (cmlab-cli simulate's output). */
static double
csv_last (const char *csv, const char *name)
{
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  g_auto (GStrv) header = NULL;
  const char *last = NULL;
  for (guint k = 0; lines[k]; k++)
    {
      if (lines[k][0] == '#' || lines[k][0] == '\0')
        continue;
      if (header == NULL)
        header = g_strsplit (lines[k], ",", -1);
      else
        last = lines[k];
    }
  g_assert_nonnull (header);
  g_assert_nonnull (last);
  g_auto (GStrv) cells = g_strsplit (last, ",", -1);
  for (guint c = 0; header[c] && cells[c]; c++)
    if (g_str_equal (header[c], name))
      return g_ascii_strtod (cells[c], NULL);
  g_error ("no column %s", name);
  return NAN;
}

/* cmlab-cli simulate|info MODEL --as vakonomic: the same run as the hand-written file. */
static void
test_cli (void)
{
  g_autofree char *by_hand = data_path ("rolling-ball-vakonomic.cml");
  g_autofree char *a = NULL, *b = NULL, *err = NULL;
  const char *run[] = { "--t-end", "6", "--dt-out", "2", "--rtol", "1e-12", "--atol", "1e-12", "--set", "Omega=0.7" };

  g_assert_cmpint (cli_run (&a, &err, "simulate", "rolling-ball", "--as", "vakonomic", run[0], run[1], run[2], run[3],
                            run[4], run[5], run[6], run[7], run[8], run[9], NULL), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&b, &err, "simulate", by_hand, run[0], run[1], run[2], run[3], run[4], run[5], run[6],
                            run[7], run[8], run[9], NULL), ==, 0);
  g_clear_pointer (&err, g_free);
  assert_close (csv_last (a, "x"), csv_last (b, "x"), 1e-9);
  assert_close (csv_last (a, "y"), csv_last (b, "y"), 1e-9);
  g_assert_cmpfloat (csv_last (a, "t"), ==, 6.0);

  g_autofree char *info = NULL;
  g_assert_cmpint (cli_run (&info, &err, "info", "rolling-ball", "--as", "vakonomic", NULL), ==, 0);
  g_clear_pointer (&err, g_free);
  g_assert_nonnull (strstr (info, "vakonomic equations"));
  g_assert_nonnull (strstr (info, "w₁ = (Ωx − v)/r"));

  g_autofree char *out = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "martinet", "--as", "vakonomic", "--t-end", "1", "--dt-out", "1",
                            NULL), ==, 2);
  g_assert_nonnull (strstr (err, "only a nonholonomic model"));
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, &err, "info", "rolling-ball", "--as", "lagrangian", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "--as takes vakonomic"));
}

/* What uses the nonholonomic multipliers (the ball's contact-force arrow, a monitor built
 * from them, their units) is left out of the vakonomic reading, which has costates
 * mu_<coordinate> instead; everything else of the scene stays. */
static void
test_multipliers_dropped (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) nh = load ("rolling-ball");
  g_autoptr (GString) text = g_string_new (nh->text);
  g_assert_cmpint (g_string_replace (text, "[monitors]\n", "[monitors]\nfriction = sqrt(lambda_roll_x^2 + lambda_roll_y^2)\n", 1), ==, 1);
  g_assert_cmpint (g_string_replace (text, "[units]\n", "[units]\nfriction = N\n", 1), ==, 1);
  g_autoptr (CmlModel) variant = cml_model_new_from_data (text->str, nh->path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlModel) vk = cml_model_new_as_vakonomic (variant, &error);
  g_assert_no_error (error);
  guint kept = 0;
  for (guint k = 0; k < vk->scene->len; k++)
    {
      CmlSceneObject *so = vk->scene->pdata[k];
      g_assert_cmpstr (so->name, !=, "contact-force");
      kept++;
    }
  g_assert_cmpuint (kept, ==, nh->scene->len - 1);
  for (guint k = 0; k < vk->monitors->len; k++)
    g_assert_cmpstr (((CmlNamedExpr *) vk->monitors->pdata[k])->name, !=, "friction");
  g_assert_cmpstr (cml_model_unit (vk, "friction"), ==, "");
  g_assert_cmpstr (cml_model_unit (vk, "lambda_roll_x"), ==, "");
  g_autoptr (CmlSystem) sys = cml_system_new (vk, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cml_system_observable_index (sys, "lambda_roll_x"), <, 0);
  g_assert_cmpint (cml_system_observable_index (sys, "mu_w1"), >=, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/as-vakonomic/matches-hand-written", test_matches_hand_written);
  g_test_add_func ("/models/as-vakonomic/matches-hand-written-other", test_matches_hand_written_other);
  g_test_add_func ("/models/as-vakonomic/initial-data", test_initial_data);
  g_test_add_func ("/models/as-vakonomic/hamiltonian", test_hamiltonian);
  g_test_add_func ("/models/as-vakonomic/principles-differ", test_principles_differ);
  g_test_add_func ("/models/as-vakonomic/text", test_text);
  g_test_add_func ("/models/as-vakonomic/builtins", test_builtins);
  g_test_add_func ("/models/as-vakonomic/refused", test_refused);
  g_test_add_func ("/models/as-vakonomic/cli", test_cli);
  g_test_add_func ("/models/as-vakonomic/multipliers-dropped", test_multipliers_dropped);
  return g_test_run ();
}
