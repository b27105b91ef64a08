/* test-initial.c — what the user gives is what runs: initial data for every kind of system.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rule (doc/model-format.md, "Initial data"): values given on the command line (or typed
 * in the window) are kept over the model file's [initial]; the coordinates the constraints
 * determine are solved from the rest; only given values that contradict a constraint are
 * projected, with a note naming each one.  Vakonomic systems: the W1 relation is solved with
 * the given velocities and momenta fixed; what contradicts it, or a constraint, is refused.
 *
 * The models are in tests/models/data; each file's comment derives what is checked here.
 */
#define G_LOG_DOMAIN "test-initial"

#include "cli-util.h"
#include "physics-util.h"

static char *
data_model (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

/* A CSV written by `cmlab-cli simulate`: the header's names and the rows. */
typedef struct
{
  GStrv   names;
  GArray *rows; /* double, n_names per row */
} Csv;

static void
csv_clear (Csv *csv)
{
  g_clear_pointer (&csv->names, g_strfreev);
  g_clear_pointer (&csv->rows, g_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Csv, csv_clear)

static void
csv_parse (const char *text, Csv *csv)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  csv->rows = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint k = 0; lines[k]; k++)
    {
      if (lines[k][0] == '#' || lines[k][0] == '\0')
        continue;
      g_auto (GStrv) cells = g_strsplit (lines[k], ",", -1);
      if (csv->names == NULL)
        {
          csv->names = g_steal_pointer (&cells);
          continue;
        }
      g_assert_cmpuint (g_strv_length (cells), ==, g_strv_length (csv->names));
      for (guint c = 0; cells[c]; c++)
        {
          double v = g_ascii_strtod (cells[c], NULL);
          g_array_append_val (csv->rows, v);
        }
    }
  g_assert_nonnull (csv->names);
}

static double
csv_get (const Csv *csv, guint row, const char *name)
{
  guint nc = g_strv_length (csv->names);
  for (guint c = 0; c < nc; c++)
    if (g_str_equal (csv->names[c], name))
      {
        g_assert_cmpuint ((row + 1) * nc, <=, csv->rows->len);
        return g_array_index (csv->rows, double, row * nc + c);
      }
  g_error ("no column “%s”", name);
  return NAN;
}

static guint
csv_n_rows (const Csv *csv)
{
  return csv->rows->len / g_strv_length (csv->names);
}

/* ---- singular Lagrangians ------------------------------------------------------------- */

/* y = 0.9 given: the constraint y = k1 x/(k1 + k2) determines x = 0.9 (k1 + k2)/k1 = 1.35
 * (k1 = 2, k2 = 1); y stays 0.9 and the file's u = 0.2 and v = k1 u/(k1 + k2) are kept.  Then
 * x(t) = x0 cos(w t) + u0/w sin(w t), w² = k1 k2/(m (k1 + k2)) = 2/3 (the file's comment). */
static void
test_singular_given_kept (void)
{
  g_autofree char *model = data_model ("springs-massless-node.cml");
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Csv) csv = { 0 };
  const double w = sqrt (2.0 / 3), x0 = 1.35, u0 = 0.2, T = 2.5;

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "y=0.9", "--t-end", "2.5", "--dt-out", "2.5",
                            "--rtol", "1e-12", "--atol", "1e-13", NULL), ==, 0);
  g_test_message ("stderr: %s", err);
  csv_parse (out, &csv);
  g_assert_cmpuint (csv_n_rows (&csv), ==, 2);
  g_assert_cmpfloat (csv_get (&csv, 0, "y"), ==, 0.9);
  assert_close (csv_get (&csv, 0, "x"), x0, 1e-14);
  assert_close (csv_get (&csv, 0, "u"), u0, 1e-15);
  assert_close (csv_get (&csv, 0, "v"), 2 * u0 / 3, 1e-15);
  /* x was not given: it is solved, and the note says so; y is not projected */
  g_assert_nonnull (strstr (err, "x: 1 -> 1.35"));
  g_assert_nonnull (strstr (err, "solved from the constraints"));
  g_assert_null (strstr (err, "y: "));
  assert_close (csv_get (&csv, 1, "x"), x0 * cos (w * T) + u0 / w * sin (w * T), 1e-10);
  assert_close (csv_get (&csv, 1, "y"), 2 * csv_get (&csv, 1, "x") / 3, 1e-12);
}

/* A given value that contradicts a constraint by itself is projected, with a note that
 * names it and the constraint; the others are kept. */
static void
test_singular_given_contradicts (void)
{
  g_autofree char *model = data_model ("springs-massless-node.cml");
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Csv) csv = { 0 };

  /* x and y both given: 2(1.2 − 0.5) − 0.5 ≠ 0; the least change onto y = 2x/3 */
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "x=1.2", "--init", "y=0.5", "--t-end", "0",
                            "--dt-out", "1", NULL), ==, 0);
  g_test_message ("stderr: %s", err);
  csv_parse (out, &csv);
  double x = csv_get (&csv, 0, "x"), y = csv_get (&csv, 0, "y");
  assert_close (2 * (x - y) - y, 0, 1e-14);
  /* nearest point of the line 3y = 2x to (1.2, 0.5) */
  double t = (2 * 1.2 - 3 * 0.5) / 13;
  assert_close (x, 1.2 - 2 * t, 1e-14);
  assert_close (y, 0.5 + 3 * t, 1e-14);
  g_assert_nonnull (strstr (err, "x: 1.2 -> "));
  g_assert_nonnull (strstr (err, "y: 0.5 -> "));
  g_assert_nonnull (strstr (err, "contradicts the constraint"));
  /* u (the file's) is kept; v is solved from it */
  assert_close (csv_get (&csv, 0, "u"), 0.2, 0);
  assert_close (csv_get (&csv, 0, "v"), 0.4 / 3, 1e-15);
}

/* solve-for = y, v: the file gives only x and u; y and v are computed, silently. */
static void
test_singular_solve_for (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_model ("springs-massless-node-solve-for.cml");
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);

  sim_reset (sim, NULL);
  assert_close (sim_state (sim, "y"), 2.0 / 3, 1e-15);
  assert_close (sim_state (sim, "v"), 0.4 / 3, 1e-15);
  g_assert_cmpfloat (sim_state (sim, "x"), ==, 1);
  g_assert_cmpfloat (sim_state (sim, "u"), ==, 0.2);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);

  sim_reset (sim, "x", 0.6, "u", -0.3, NULL);
  assert_close (sim_state (sim, "y"), 0.4, 1e-15);
  assert_close (sim_state (sim, "v"), -0.2, 1e-15);
  g_assert_cmpfloat (sim_state (sim, "x"), ==, 0.6);
  g_assert_cmpfloat (sim_state (sim, "u"), ==, -0.3);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);
}

/* ---- nonholonomic: a constraint nonlinear in the velocities ------------------------- */

/* The file's own data (u = v = 0) are not on |y| = 1; --init u = 0.6, v = 0.8 are, and the
 * run starts from them.  Heading: tan(ψ/2) = tan(ψ0/2) e^{−g t}, ψ = θ + π/2 (the file's
 * comment). */
static void
test_nonlinear_constraint_from_init (void)
{
  g_autofree char *model = data_model ("isokinetic.cml");
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Csv) csv = { 0 };

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "u=0.6", "--init", "v=0.8", "--t-end", "2",
                            "--dt-out", "1", "--rtol", "1e-12", "--atol", "1e-13", NULL), ==, 0);
  g_test_message ("stderr: %s", err);
  g_assert_cmpstr (err, ==, "");
  csv_parse (out, &csv);
  g_assert_cmpfloat (csv_get (&csv, 0, "u"), ==, 0.6);
  g_assert_cmpfloat (csv_get (&csv, 0, "v"), ==, 0.8);
  double psi0 = atan2 (0.8, 0.6) + G_PI / 2;
  for (guint r = 1; r < 3; r++)
    {
      double t = r, psi = 2 * atan (tan (psi0 / 2) * exp (-t));
      assert_close (csv_get (&csv, r, "u"), cos (psi - G_PI / 2), 1e-10);
      assert_close (csv_get (&csv, r, "v"), sin (psi - G_PI / 2), 1e-10);
    }

  /* without velocities the model's data cannot be used, and the run says why (exit 2) */
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "1", "--dt-out", "1", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "isokinetic.cml:"));
}

/* ---- vakonomic -------------------------------------------------------------------------- */

/* u1 = 1 with p2 = 0.5: u2 = p2 + p3 x1 − c u1 = 0.4, p1 = u1 + c u2 = 1.12 (the file's
 * comment; c = 0.3, x1 = 0.5, p3 = 0.4); u1(0) is the given 1. */
static void
test_vakonomic_velocity_and_momentum (void)
{
  g_autofree char *model = data_model ("vakonomic-coupled.cml");
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Csv) csv = { 0 };

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "u1=1", "--init", "p2=0.5", "--t-end", "0",
                            "--dt-out", "1", NULL), ==, 0);
  csv_parse (out, &csv);
  assert_close (csv_get (&csv, 0, "u1"), 1, 1e-15);
  assert_close (csv_get (&csv, 0, "u2"), 0.4, 1e-15);
  assert_close (csv_get (&csv, 0, "u3"), 0.2, 1e-15);
  assert_close (csv_get (&csv, 0, "p1"), 1.12, 1e-15);
  g_assert_cmpfloat (csv_get (&csv, 0, "p2"), ==, 0.5);
  g_assert_cmpfloat (csv_get (&csv, 0, "p3"), ==, 0.4);

  /* a constrained velocity that agrees with its constraint is accepted */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, NULL, "simulate", model, "--init", "u1=1", "--init", "p2=0.5", "--init", "u3=0.2",
                            "--t-end", "0", "--dt-out", "1", NULL), ==, 0);
  /* a velocity with its own momentum, consistent: accepted */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, NULL, "simulate", model, "--init", "u1=1", "--init", "p1=1.12", "--init", "p2=0.5",
                            "--t-end", "0", "--dt-out", "1", NULL), ==, 0);
}

static void
test_vakonomic_refused (void)
{
  g_autofree char *model = data_model ("vakonomic-coupled.cml");
  g_autofree char *out = NULL, *err = NULL;

  /* u3 = 5 where the constraint gives u3 = x1 u2 */
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "u1=1", "--init", "p2=0.5", "--init", "u3=5",
                            "--t-end", "1", "--dt-out", "1", NULL), ==, 2);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "u3 = 5 contradicts the vakonomic constraint u3 = "));
  g_assert_nonnull (strstr (err, "which gives u3 = 0.2"));
  g_assert_nonnull (strstr (err, "vakonomic-coupled.cml:27:"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a velocity and its own momentum that disagree: neither is preferred silently */
  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "u1=1", "--init", "p1=2", "--init", "p2=0.5",
                            "--t-end", "1", "--dt-out", "1", NULL), ==, 2);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "u1 = 1 and p1 = 2 contradict the W1 relation"));
}

/* The W1 relations and their derivatives, derived once per system and only evaluated by
 * every reset after, whatever is given: three patterns on one simulation — a velocity and
 * a momentum, two momenta (two unknown velocities at once), two velocities — against the
 * file's closed form, the first again bit for bit, and no expression added after the first
 * reset.  With x1 = 0.5, p3 = 0.4, c = 0.3: p1 = u1 + c u2, p2 = u2 + c u1 − p3 x1. */
static void
test_vakonomic_resets (void)
{
  g_autofree char *path = data_model ("vakonomic-coupled.cml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  guint dim = cml_system_dim (cml_simulation_get_system (sim));
  gsize derived = cml_expr_ctx_memory (model->ctx);
  static const char *const names[][2] = { { "u1", "p2" }, { "p1", "p2" }, { "u1", "u2" }, { "u1", "p2" } };
  static const double values[][2] = { { 1, 0.5 }, { 0.7, 0.5 }, { 2, 0.1 }, { 1, 0.5 } };
  /* u1, u2, p1, p2 after each */
  const double expect[][4] = { { 1, 0.4, 1.12, 0.5 }, { 0.7 / 1.3, 0.7 / 1.3, 0.7, 0.5 }, { 2, 0.1, 2.03, 0.5 },
                               { 1, 0.4, 1.12, 0.5 } };
  static const char *const shown[] = { "u1", "u2", "p1", "p2" };
  g_autofree double *first = g_new (double, dim);

  for (guint r = 0; r < G_N_ELEMENTS (names); r++)
    {
      g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
      for (guint i = 0; i < 2; i++)
        g_hash_table_insert (given, (gpointer) names[r][i], g_memdup2 (&values[r][i], sizeof (double)));
      if (!cml_simulation_reset (sim, given, &error))
        g_error ("reset %u (%s, %s): %s", r, names[r][0], names[r][1], error->message);
      g_assert_cmpuint (cml_expr_ctx_memory (model->ctx), ==, derived);
      for (guint k = 0; k < G_N_ELEMENTS (shown); k++)
        assert_close (sim_obs (sim, shown[k]), expect[r][k], 1e-15);
      if (r == 0)
        memcpy (first, cml_simulation_get_state (sim), dim * sizeof (double));
    }
  g_assert_cmpmem (cml_simulation_get_state (sim), dim * sizeof (double), first, dim * sizeof (double));
}

/* `info` names the constraint algorithm's kernel accelerations so that they cannot be
 * read as the model's parameters (this model has a parameter k1). */
static void
test_info_kernel_names (void)
{
  g_autofree char *model = data_model ("springs-massless-node.cml");
  g_autofree char *out = NULL;

  g_assert_cmpint (cli_run (&out, NULL, "info", model, NULL), ==, 0);
  g_assert_null (strstr (out, "kernel acceleration k1"));
  g_assert_nonnull (strstr (out, "kernel acceleration κ₁ = "));
}

/* ---- nonholonomic: a solve-for velocity with two roots ------------------------------ */

/* u² + v² = 1.44 with solve-for = v and u = 0.5 given: v = ±√1.19, nothing contradicts the
 * given u.  The file gives no v (0, where ∂φ/∂v = 0): the positive root; a file with v < 0:
 * the negative one.  λ = 0, so x = u t, y = v t (the file's comment). */
static void
test_solve_for_root (void)
{
  const char *files[] = { "constant-speed.cml", "constant-speed-down.cml" };
  const double v0 = sqrt (1.44 - 0.25), T = 2;

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *model = data_model (files[f]);
      g_autofree char *out = NULL, *err = NULL;
      g_auto (Csv) csv = { 0 };
      double sign = f == 0 ? 1 : -1;

      g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--init", "u=0.5", "--t-end", "2", "--dt-out", "2",
                                "--rtol", "1e-12", "--atol", "1e-13", NULL), ==, 0);
      g_test_message ("%s: stderr: %s", files[f], err);
      /* the given u is not moved, and a solved v needs no note */
      g_assert_cmpstr (err, ==, "");
      csv_parse (out, &csv);
      g_assert_cmpfloat (csv_get (&csv, 0, "u"), ==, 0.5);
      assert_close (csv_get (&csv, 0, "v"), sign * v0, 1e-12);
      assert_close (csv_get (&csv, 1, "x"), 0.5 * T, 1e-10);
      assert_close (csv_get (&csv, 1, "y"), sign * v0 * T, 1e-10);
      assert_close (csv_get (&csv, 1, "v"), sign * v0, 1e-10);
    }
}

/* (v − 1)(v + 2) = 0 from the file's v = −0.4: Newton from there reaches v = 1, of the
 * other sign; the root of the file's sign, v = −2, is taken (the file's comment). */
static void
test_solve_for_sign (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_model ("two-roots.cml");
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);

  sim_reset (sim, NULL);
  assert_close (sim_state (sim, "v"), -2, 1e-14);
  g_assert_cmpfloat (sim_state (sim, "u"), ==, 0.3);
  sim_reset (sim, "u", -0.7, NULL);
  assert_close (sim_state (sim, "v"), -2, 1e-14);
  g_assert_cmpfloat (sim_state (sim, "u"), ==, -0.7);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);
}

/* ---- a run that starts at t0 != 0 ----------------------------------------------------- */

/* The sleigh on a belt whose speed is c t (the file's comment): a run 0 -> 8, then a run
 * from its end state given at t0 = 8 back to 0.  The blade constraint depends on t, so the
 * end state satisfies it at t = 8 and nothing given may be moved; the run back returns to
 * the start within the tolerance (the backward run amplifies errors: the sleigh's motion
 * is stable forwards).  Given everything but w, the solve-for w is solved at t = 8: the
 * forward run's w(8). */
static void
test_t_start_time_dependent (void)
{
  g_autofree char *model = data_model ("sleigh-belt.cml");
  const char *names[] = { "x", "y", "theta", "u", "v", "w" };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (Csv) fwd = { 0 };

  g_assert_cmpint (cli_run (&out, &err, "simulate", model, "--t-end", "8", "--dt-out", "8", "--rtol", "1e-12",
                            "--atol", "1e-13", NULL), ==, 0);
  csv_parse (out, &fwd);
  g_assert_cmpuint (csv_n_rows (&fwd), ==, 2);
  assert_close (csv_get (&fwd, 1, "t"), 8, 0);

  for (guint with_w = 0; with_w < 2; with_w++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *bout = NULL, *berr = NULL;
      g_auto (Csv) back = { 0 };
      const char *fixed[] = { "simulate", model, "--t-start", "8", "--t-end", "0", "--dt-out", "8", "--rtol",
                              "1e-12", "--atol", "1e-13" };
      for (guint k = 0; k < G_N_ELEMENTS (fixed); k++)
        g_ptr_array_add (args, g_strdup (fixed[k]));
      for (guint k = 0; k < G_N_ELEMENTS (names) - (with_w ? 0 : 1); k++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_ptr_array_add (args, g_strdup ("--init"));
          g_ptr_array_add (args, g_strdup_printf ("%s=%s", names[k],
                                                  g_ascii_dtostr (buf, sizeof buf, csv_get (&fwd, 1, names[k]))));
        }
      g_ptr_array_add (args, NULL);
      g_assert_cmpint (cli_run_argv (NULL, 0, &bout, &berr, (const char *const *) args->pdata), ==, 0);
      g_test_message ("back (w given: %u): stderr: %s", with_w, berr);
      g_assert_cmpstr (berr, ==, "");
      csv_parse (bout, &back);
      g_assert_cmpuint (csv_n_rows (&back), ==, 2);
      assert_close (csv_get (&back, 0, "t"), 8, 0);
      assert_close (csv_get (&back, 1, "t"), 0, 0);
      /* at t0 = 8: the given values as given, w solved there */
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        assert_close (csv_get (&back, 0, names[k]), csv_get (&fwd, 1, names[k]), k < 5 || with_w ? 0 : 1e-9);
      /* back at t = 0: the forward run's start */
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        assert_close (csv_get (&back, 1, names[k]), csv_get (&fwd, 0, names[k]), 1e-6);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/initial/singular/given-kept", test_singular_given_kept);
  g_test_add_func ("/models/initial/singular/given-contradicts", test_singular_given_contradicts);
  g_test_add_func ("/models/initial/singular/solve-for", test_singular_solve_for);
  g_test_add_func ("/models/initial/nonholonomic/nonlinear-from-init", test_nonlinear_constraint_from_init);
  g_test_add_func ("/models/initial/vakonomic/velocity-and-momentum", test_vakonomic_velocity_and_momentum);
  g_test_add_func ("/models/initial/vakonomic/refused", test_vakonomic_refused);
  g_test_add_func ("/models/initial/vakonomic/resets", test_vakonomic_resets);
  g_test_add_func ("/models/initial/info-kernel-names", test_info_kernel_names);
  g_test_add_func ("/models/initial/nonholonomic/solve-for-root", test_solve_for_root);
  g_test_add_func ("/models/initial/nonholonomic/solve-for-sign", test_solve_for_sign);
  g_test_add_func ("/models/initial/t-start/time-dependent", test_t_start_time_dependent);
  return g_test_run ();
}
