/* test-reference.c — closed-form references ([reference] in model files): the loader, the
 * core API (cml-reference.h), the CLI's NAME_ref/NAME_err columns, and every built-in's
 * closed forms against its runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The built-ins' test is the acceptance test of the closed forms: each built-in is run by
 * `cmlab-cli simulate --reference` at the default tolerances over a few periods, and every
 * NAME_err column must stay below 1e-8 relative to the scale of its quantity
 * (max(1, max |NAME_ref|)).  A model with a deliberately wrong closed form shows that the
 * test can fail.  The malformed [reference] groups are in tests/malformed/reference-*.cml.
 */
#define G_LOG_DOMAIN "test-reference"

#include "cli-util.h"

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-reference.h"
#include "cml-system.h"

static char *
data_file (const char *file)
{
  return g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
}

/* ---- a CSV written by cmlab-cli ------------------------------------------------------ */

typedef struct
{
  GPtrArray *names;  /* char* */
  GArray    *values; /* double, row-major */
  char      *units;  /* the "# units:" comment line */
} Table;

static void
table_free (Table *t)
{
  g_ptr_array_unref (t->names);
  g_array_unref (t->values);
  g_free (t->units);
  g_free (t);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

static Table *
table_parse (const char *csv)
{
  Table *t = g_new0 (Table, 1);
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);

  t->names = g_ptr_array_new_with_free_func (g_free);
  t->values = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; lines[i]; i++)
    {
      if (lines[i][0] == '\0')
        continue;
      if (lines[i][0] == '#')
        {
          if (g_str_has_prefix (lines[i], "# units:"))
            t->units = g_strdup (lines[i]);
          continue;
        }
      g_auto (GStrv) fields = g_strsplit (lines[i], ",", -1);
      if (t->names->len == 0)
        {
          for (guint j = 0; fields[j]; j++)
            g_ptr_array_add (t->names, g_strdup (fields[j]));
          continue;
        }
      g_assert_cmpuint (g_strv_length (fields), ==, t->names->len);
      for (guint j = 0; fields[j]; j++)
        {
          double v = g_ascii_strtod (fields[j], NULL);
          g_array_append_val (t->values, v);
        }
    }
  g_assert_cmpuint (t->names->len, >, 0);
  return t;
}

static int
table_column (const Table *t, const char *name)
{
  for (guint j = 0; j < t->names->len; j++)
    if (g_str_equal (t->names->pdata[j], name))
      return (int) j;
  return -1;
}

static guint
table_rows (const Table *t)
{
  return t->values->len / t->names->len;
}

static double
table_get (const Table *t, guint row, int col)
{
  return g_array_index (t->values, double, row * t->names->len + (guint) col);
}

/* The largest |NAME_err| over the run relative to max(1, max |NAME_ref|); *WHICH names
 * the worst reference (not owned). */
static double
table_worst_error (const Table *t, const char **which)
{
  double worst = 0;

  *which = NULL;
  for (guint j = 0; j < t->names->len; j++)
    {
      const char *name = t->names->pdata[j];
      if (!g_str_has_suffix (name, "_err"))
        continue;
      g_autofree char *base = g_strndup (name, strlen (name) - 4);
      g_autofree char *ref_name = g_strdup_printf ("%s_ref", base);
      int r = table_column (t, ref_name);
      g_assert_cmpint (r, >=, 0);
      double scale = 1, err = 0;
      for (guint i = 0; i < table_rows (t); i++)
        {
          scale = MAX (scale, fabs (table_get (t, i, r)));
          /* a NaN error (a closed form not defined here) is a failure too */
          err = isnan (table_get (t, i, (int) j)) ? INFINITY : MAX (err, fabs (table_get (t, i, (int) j)));
        }
      if (err / scale >= worst)
        {
          worst = err / scale;
          *which = t->names->pdata[j];
        }
    }
  return worst;
}

/* ---- the loader and the core API ----------------------------------------------------- */

static void
test_load (void)
{
  g_autofree char *path = data_file ("oscillator-reference.cml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (model->references->len, ==, 4);
  const char *names[] = { "x", "y", "u", "energy" };
  for (guint i = 0; i < 4; i++)
    {
      CmlNamedExpr *ne = model->references->pdata[i];
      g_assert_cmpstr (ne->name, ==, names[i]);
      g_assert_cmpint (ne->sym, ==, cml_expr_ctx_lookup (model->ctx, names[i]));
      g_assert_nonnull (ne->expr);
      g_assert_cmpint (ne->line, >, 40);
    }
  /* a NAME_0 for every coordinate, velocity, momentum and monitor */
  const char *zeros[] = { "x_0", "y_0", "u_0", "v_0", "p1_0", "p2_0", "energy_0" };
  for (guint i = 0; i < G_N_ELEMENTS (zeros); i++)
    {
      int id = cml_expr_ctx_lookup (model->ctx, zeros[i]);
      gboolean found = FALSE;
      g_assert_cmpint (id, >=, 0);
      for (guint k = 0; k < model->initial_syms->len; k++)
        found |= g_array_index (model->initial_syms, CmlInitialSym, k).zero_sym == id;
      g_assert_true (found);
    }
  /* a definition has no NAME_0 */
  g_assert_cmpint (cml_expr_ctx_lookup (model->ctx, "w_0"), <, 0);
}

/* Evaluated beside a simulation, with the run's own parameters and start. */
static void
test_evaluate (void)
{
  g_autofree char *path = data_file ("oscillator-reference.cml");
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autoptr (CmlReference) ref = cml_reference_new (sys, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ref);
  g_assert_cmpuint (cml_reference_get_n (ref), ==, 4);
  g_assert_cmpstr (cml_reference_get_name (ref, 2), ==, "u");
  g_assert_cmpint (cml_reference_get_observable (ref, 2), ==, cml_system_observable_index (sys, "u"));
  g_assert_cmpint (cml_reference_find (ref, "energy"), ==, 3);
  g_assert_cmpint (cml_reference_find (ref, "v"), ==, -1);
  g_assert_false (cml_reference_is_started (ref));

  /* another stiffness and another start: the closed form follows both */
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  double x0 = -0.3, u0 = 0.7;
  g_hash_table_insert (given, g_strdup ("x"), g_memdup2 (&x0, sizeof x0));
  g_hash_table_insert (given, g_strdup ("u"), g_memdup2 (&u0, sizeof u0));
  g_assert_true (cml_simulation_set_param (sim, "k", 2.25, &error));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);
  cml_reference_start_from_simulation (ref, sim);
  g_assert_true (cml_reference_is_started (ref));

  guint n_obs = cml_system_n_observables (sys);
  g_autofree double *obs = g_new (double, n_obs);
  double values[4], errors[4];
  for (int k = 1; k <= 20; k++)
    {
      double t = 0.5 * k, w = 1.5;
      g_assert_true (cml_simulation_advance (sim, t, &error));
      cml_simulation_observe (sim, obs);
      cml_reference_compare (ref, t, obs, values, errors);
      g_assert_cmpfloat_with_epsilon (values[0], x0 * cos (w * t) + u0 * sin (w * t) / w, 1e-14);
      g_assert_cmpfloat_with_epsilon (values[2], u0 * cos (w * t) - x0 * w * sin (w * t), 1e-14);
      g_assert_cmpfloat_with_epsilon (values[3], (u0 * u0 + 0.25) / 2 + 2.25 * x0 * x0 / 2, 1e-14);
      for (guint i = 0; i < 4; i++)
        g_assert_cmpfloat (fabs (errors[i]), <, 1e-8);
    }
  /* the values alone */
  double again[4];
  cml_reference_eval (ref, 10, again);
  g_assert_cmpfloat (again[0], ==, values[0]);
}

static void
test_none (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (CLI_BLOWUP_MODEL, "blowup.cml", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (model->references->len, ==, 0);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_null (cml_reference_new (sys, &error));
  g_assert_no_error (error);
}

/* ---- the CLI ---------------------------------------------------------------------------- */

static void
test_cli_csv (void)
{
  g_autofree char *path = data_file ("oscillator-reference.cml");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", path, "--t-end", "3", "--dt-out", "0.5", "--reference", NULL),
                   ==, 0);
  g_autoptr (Table) t = table_parse (out);
  /* the model's columns, then NAME_ref, NAME_err in the group's order */
  const char *expect[] = { "t", "x", "y", "u", "v", "energy", "x_ref", "x_err", "y_ref", "y_err",
                           "u_ref", "u_err", "energy_ref", "energy_err" };
  g_assert_cmpuint (t->names->len, ==, G_N_ELEMENTS (expect));
  for (guint j = 0; j < G_N_ELEMENTS (expect); j++)
    g_assert_cmpstr (t->names->pdata[j], ==, expect[j]);
  g_assert_cmpuint (table_rows (t), ==, 7);
  /* with units */
  g_assert_nonnull (strstr (t->units, "x_ref [m], x_err [m]"));
  g_assert_nonnull (strstr (t->units, "u_ref [m/s], u_err [m/s]"));
  g_assert_nonnull (strstr (t->units, "energy_ref [J], energy_err [J]"));
  /* NAME_err is the run minus NAME_ref */
  for (guint i = 0; i < table_rows (t); i++)
    {
      double x = table_get (t, i, table_column (t, "x")), x_ref = table_get (t, i, table_column (t, "x_ref"));
      g_assert_cmpfloat (table_get (t, i, table_column (t, "x_err")), ==, x - x_ref);
      g_assert_cmpfloat (fabs (x - x_ref), <, 1e-8);
    }
  g_assert_cmpfloat (table_get (t, 6, table_column (t, "x_ref")), ==, cos (2 * 3.0));

  /* without the option, no reference columns */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, NULL, "simulate", path, "--t-end", "1", "--dt-out", "0.5", NULL), ==, 0);
  g_assert_null (strstr (out, "_ref"));
}

/* A run that starts at t0 = 2 (--t-start): NAME_0 are its values at t0 and the closed form
 * follows them, forwards and backwards — x(t) = cos(2 (t − t0)) from x = 1, u = 0 at t0
 * (w = 2) — not the closed form from t = 0 with the values at t0. */
static void
test_cli_t_start (void)
{
  g_autofree char *path = data_file ("oscillator-reference.cml");
  const char *ends[] = { "3", "1" };

  for (guint e = 0; e < G_N_ELEMENTS (ends); e++)
    {
      g_autofree char *out = NULL, *err = NULL;
      const char *which = NULL;
      g_assert_cmpint (cli_run (&out, &err, "simulate", path, "--t-start", "2", "--t-end", ends[e], "--dt-out", "0.5",
                                "--reference", "--rtol", "1e-12", "--atol", "1e-13", NULL), ==, 0);
      g_autoptr (Table) t = table_parse (out);
      g_assert_cmpuint (table_rows (t), ==, 3);
      double worst = table_worst_error (t, &which);
      g_test_message ("to t = %s: worst error %.3g (%s)", ends[e], worst, which);
      g_assert_cmpfloat (worst, <, 1e-9);
      for (guint i = 0; i < table_rows (t); i++)
        {
          double tt = table_get (t, i, table_column (t, "t"));
          g_assert_cmpfloat (fabs (table_get (t, i, table_column (t, "x_ref")) - cos (2 * (tt - 2))), <, 1e-14);
        }
    }
}

/* The closed form of a system whose equations depend on t holds for a start at t = 0: it
 * matches the run from there, and a run from --t-start 2 is refused with the reason. */
static void
test_cli_t_start_time_dependent (void)
{
  g_autofree char *path = data_file ("driven-reference.cml");
  g_autofree char *out = NULL, *err = NULL;
  const char *which = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", path, "--t-end", "3", "--dt-out", "0.5", "--reference", "--rtol",
                            "1e-12", "--atol", "1e-13", NULL), ==, 0);
  g_autoptr (Table) t = table_parse (out);
  g_assert_cmpfloat (table_worst_error (t, &which), <, 1e-9);
  g_assert_cmpfloat (fabs (table_get (t, 6, table_column (t, "x_ref")) - (1 + 0.5 * 3 + 0.6 * 27 / 6)), <, 1e-14);

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli_run (&out, &err, "simulate", path, "--t-start", "2", "--t-end", "3", "--dt-out", "0.5",
                            "--reference", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "starts at t = 0"));
  g_assert_nonnull (strstr (err, "t = 2"));
  /* without --reference the run from t = 2 goes */
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (cli_run (&out, NULL, "simulate", path, "--t-start", "2", "--t-end", "3", "--dt-out", "0.5", NULL),
                   ==, 0);
}

static void
test_cli_json (void)
{
  g_autofree char *path = data_file ("oscillator-reference.cml");
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (cli_run (&out, NULL, "simulate", path, "--t-end", "1", "--dt-out", "0.5", "--reference",
                            "--format", "json", NULL),
                   ==, 0);
  g_assert_nonnull (strstr (out, "\"energy\", \"x_ref\", \"x_err\", \"y_ref\", \"y_err\", \"u_ref\", \"u_err\", "
                                 "\"energy_ref\", \"energy_err\"]"));
  g_assert_nonnull (strstr (out, "\"J\", \"m\", \"m\", \"m\", \"m\", \"m/s\", \"m/s\", \"J\", \"J\"]"));
  /* every row has its 14 numbers */
  const char *rows = strstr (out, "\"rows\": [");
  g_assert_nonnull (rows);
  g_auto (GStrv) lines = g_strsplit (rows, "\n", -1);
  guint n_rows = 0;
  for (guint i = 1; lines[i]; i++)
    if (strchr (lines[i], '['))
      {
        /* "    [t, …]," — the comma after the row is not a field */
        g_autofree char *row = g_strndup (strchr (lines[i], '['), strchr (lines[i], ']') - strchr (lines[i], '['));
        g_auto (GStrv) fields = g_strsplit (row, ",", -1);
        g_assert_cmpuint (g_strv_length (fields), ==, 14);
        n_rows++;
      }
  g_assert_cmpuint (n_rows, ==, 3);
}

/* --reference on a model with no closed form is a usage error that says so. */
static void
test_cli_no_reference (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = cli_write_file (dir, "blowup.cml", CLI_BLOWUP_MODEL);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", path, "--t-end", "0.1", "--dt-out", "0.05", "--reference", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err, "has no [reference] group"));
  g_assert_cmpstr (out, ==, "");
  cli_remove_dir (dir);
}

/* ---- the built-ins ------------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  const char *t_end; /* a few periods (or, without a period, a few time scales) */
} Builtin;

static const Builtin builtins[] = {
  { "rolling-ball", "66" },          /* 3 periods 7*pi of the centre's circle */
  { "rolling-ball-varying", "30" },
  { "vertical-disk", "38" },         /* 3 periods 4*pi */
  { "chaplygin-sleigh", "10" },      /* the turn dies out within a few seconds */
  { "capri-kobayashi", "6" },        /* 3 periods pi/sqrt(3) of rho */
  { "capri-kobayashi-full", "6" },
  { "rigid-body", "45" },            /* 3 periods of W */
  { "heavy-top", "10" },             /* 3 nutation periods */
  { "martinet", "23" },              /* 3 periods 4K(1/2) */
  { "plate-ball", "20" },            /* 3 periods 4K(1/16) */
};

static void
test_builtin (gconstpointer data)
{
  const Builtin *b = data;
  g_autofree char *out = NULL, *err = NULL;
  const char *which = NULL;

  g_assert_cmpint (cli_run (&out, &err, "simulate", b->name, "--t-end", b->t_end, "--dt-out", "0.05", "--reference",
                            NULL),
                   ==, 0);
  g_autoptr (Table) t = table_parse (out);
  double worst = table_worst_error (t, &which);
  g_assert_nonnull (which);
  g_test_message ("%s: worst relative error %.2g (%s)", b->name, worst, which);
  if (!(worst < 1e-8))
    g_error ("%s: %s reaches %.3g relative to its scale", b->name, which, worst);
}

/* Every built-in has closed forms to compare with (a new one needs its [reference] group, or
 * a line here saying why not). */
static void
test_builtins_covered (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  for (guint k = 0; names[k]; k++)
    {
      gboolean listed = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (builtins); i++)
        listed |= g_str_equal (builtins[i].name, names[k]);
      if (!listed)
        g_error ("the built-in %s is not in test-reference.c's list", names[k]);
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (names[k], &error);
      g_assert_no_error (error);
      g_assert_cmpuint (model->references->len, >, 0);
    }
}

/* A wrong closed form (x's frequency 1 % off) shows as a large error: the test can fail. */
static void
test_wrong_reference (void)
{
  g_autofree char *path = data_file ("oscillator-wrong-reference.cml");
  g_autofree char *out = NULL;
  const char *which = NULL;

  g_assert_cmpint (cli_run (&out, NULL, "simulate", path, "--t-end", "20", "--dt-out", "0.05", "--reference", NULL),
                   ==, 0);
  g_autoptr (Table) t = table_parse (out);
  double worst = table_worst_error (t, &which);
  g_assert_cmpstr (which, ==, "x_err");
  g_assert_cmpfloat (worst, >, 0.1);
  /* the right ones stay exact */
  double y_err = 0;
  for (guint i = 0; i < table_rows (t); i++)
    y_err = MAX (y_err, fabs (table_get (t, i, table_column (t, "y_err"))));
  g_assert_cmpfloat (y_err, <, 1e-8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/models/reference/load", test_load);
  g_test_add_func ("/models/reference/evaluate", test_evaluate);
  g_test_add_func ("/models/reference/none", test_none);
  g_test_add_func ("/models/reference/cli-csv", test_cli_csv);
  g_test_add_func ("/models/reference/cli-json", test_cli_json);
  g_test_add_func ("/models/reference/cli-t-start", test_cli_t_start);
  g_test_add_func ("/models/reference/cli-t-start-time-dependent", test_cli_t_start_time_dependent);
  g_test_add_func ("/models/reference/cli-no-reference", test_cli_no_reference);
  g_test_add_func ("/models/reference/builtins-covered", test_builtins_covered);
  for (guint i = 0; i < G_N_ELEMENTS (builtins); i++)
    {
      g_autofree char *path = g_strdup_printf ("/models/reference/builtin/%s", builtins[i].name);
      g_test_add_data_func (path, &builtins[i], test_builtin);
    }
  g_test_add_func ("/models/reference/wrong", test_wrong_reference);
  return g_test_run ();
}
