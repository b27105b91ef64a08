/* test-sweep-cli.c — `cmlab-cli sweep`: every point is the run simulate makes with the
 * same parameters, bit for bit; the shards of a sweep are the whole sweep; the number of
 * threads changes nothing; a failing point is nan and a note; bad arguments exit 2.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-sweep-cli"

#include <string.h>

#include "cli-util.h"

/* ẍ = 6 a x⁵ from x = 1, ẋ = 1: with a = 0 a free particle (x = 1 + t), with a = 1 a run
 * that blows up at t ≈ 0.38. */
#define SWEEP_BLOWUP_MODEL                  \
  "[model]\n"                               \
  "name = blowup\n"                         \
  "title = x'' = 6 a x^5\n"                 \
  "\n"                                      \
  "[algebroid]\n"                           \
  "base = x\n"                              \
  "fibre = u\n"                             \
  "\n"                                      \
  "[anchor]\n"                              \
  "e1 = x: 1\n"                             \
  "\n"                                      \
  "[parameters]\n"                          \
  "a = 1 | 0 .. 2 | 1 | strength\n"         \
  "\n"                                      \
  "[dynamics]\n"                            \
  "lagrangian = u^2/2 + a*x^6\n"            \
  "\n"                                      \
  "[initial]\n"                             \
  "x = 1\n"                                 \
  "u = 1\n"

/* The lines of CSV text, without the empty one after the last newline. */
static GStrv
csv_lines (const char *csv)
{
  GStrv lines = g_strsplit (csv, "\n", -1);
  guint n = g_strv_length (lines);

  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpstr (lines[n - 1], ==, "");
  g_free (lines[n - 1]);
  lines[n - 1] = NULL;
  return lines;
}

/* The field of COLUMN (named in the header) in the last row of simulate's CSV. */
static char *
simulate_last_field (const char *csv, const char *column)
{
  g_auto (GStrv) lines = csv_lines (csv);
  g_auto (GStrv) header = NULL;
  g_auto (GStrv) cells = NULL;
  guint n = g_strv_length (lines);
  int col = -1;

  for (guint k = 0; k < n; k++)
    if (lines[k][0] != '#')
      {
        header = g_strsplit (lines[k], ",", -1);
        break;
      }
  g_assert_nonnull (header);
  for (guint c = 0; header[c]; c++)
    if (g_str_equal (header[c], column))
      col = (int) c;
  g_assert_cmpint (col, >=, 0);
  cells = g_strsplit (lines[n - 1], ",", -1);
  g_assert_cmpuint (g_strv_length (cells), >, (guint) col);
  return g_strdup (cells[col]);
}

/* The table of a sweep's CSV, as a reader that skips comment lines reads it: the first
 * line (which names the sweep), then the lines that are not comments, each with its
 * newline. */
static char *
sweep_table (const char *csv)
{
  g_auto (GStrv) lines = csv_lines (csv);
  GString *table = g_string_new (NULL);

  for (guint k = 0; lines[k]; k++)
    if (k == 0 || lines[k][0] != '#')
      g_string_append_printf (table, "%s\n", lines[k]);
  return g_string_free (table, FALSE);
}

/* sweep_table () as lines. */
static GStrv
sweep_table_lines (const char *csv)
{
  g_autofree char *table = sweep_table (csv);
  return csv_lines (table);
}

/* The comment lines after the first. */
static char *
sweep_comments (const char *csv)
{
  g_auto (GStrv) lines = csv_lines (csv);
  GString *comments = g_string_new (NULL);

  for (guint k = 1; lines[k] && lines[k][0] == '#'; k++)
    g_string_append_printf (comments, "%s\n", lines[k]);
  return g_string_free (comments, FALSE);
}

/* A 1-D sweep of the rolling ball over Omega: each row's x at T is simulate's with
 * --set Omega=… at T, to the last bit. */
static void
test_sweep_matches_simulate (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_cmpint (cli_run (&out, &err, "sweep", "rolling-ball", "--vary", "Omega=-1:2:7", "--t-end", "3",
                            "--measure", "x", NULL), ==, 0);
  lines = sweep_table_lines (out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2 + 7);
  g_assert_cmpstr (lines[0], ==, "# cmlab sweep: model rolling-ball; vary Omega");
  g_assert_cmpstr (lines[1], ==, "Omega,x");
  for (guint k = 2; lines[k]; k++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[k], ",", -1);
      g_autofree char *set = NULL, *sim_out = NULL, *x = NULL;

      g_assert_cmpuint (g_strv_length (cells), ==, 2);
      set = g_strdup_printf ("Omega=%s", cells[0]);
      g_assert_cmpint (cli_run (&sim_out, NULL, "simulate", "rolling-ball", "--set", set, "--t-end", "3",
                                "--dt-out", "3", NULL), ==, 0);
      x = simulate_last_field (sim_out, "x");
      g_assert_cmpstr (cells[1], ==, x);
    }
  /* the grid: -1, -0.5, …, 2 */
  g_assert_true (g_str_has_prefix (lines[2], "-1,"));
  g_assert_true (g_str_has_prefix (lines[3], "-0.5,"));
  g_assert_true (g_str_has_prefix (lines[8], "2,"));
}

static const char *const grid_args[] = {
  "sweep", "rolling-ball", "--vary", "Omega=0:2:4", "--vary", "k2=0.2:0.6:3", "--t-end", "2",
  "--measure", "x,y", "--at", "1,2",
};

/* sweep with grid_args and EXTRA (NULL-terminated); standard output. */
static char *
run_grid (const char *extra0, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  char *out = NULL;
  va_list ap;

  for (guint k = 0; k < G_N_ELEMENTS (grid_args); k++)
    g_ptr_array_add (args, (char *) grid_args[k]);
  va_start (ap, extra0);
  for (const char *a = extra0; a; a = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  g_assert_cmpint (cli_run_argv (NULL, 0, &out, NULL, (const char *const *) args->pdata), ==, 0);
  return out;
}

/* Three shards of a 2-D sweep, their rows merged in grid order (row j of shard i is the
 * grid's point 3j + i − 1), are the unsharded rows; the header lines (the comment naming
 * the sweep, those saying what made it and the columns) are the same. */
static void
test_sweep_shards (void)
{
  g_autofree char *whole = run_grid (NULL);
  g_autofree char *whole_comments = sweep_comments (whole);
  g_auto (GStrv) whole_lines = sweep_table_lines (whole);
  g_autoptr (GString) merged = g_string_new (NULL);
  GStrv shard_lines[3];

  g_assert_cmpuint (g_strv_length (whole_lines), ==, 2 + 12);
  g_assert_cmpstr (whole_lines[0], ==, "# cmlab sweep: model rolling-ball; vary Omega, k2");
  g_assert_cmpstr (whole_lines[1], ==, "Omega,k2,x@1,x@2,y@1,y@2");
  /* the last --vary varies fastest */
  g_assert_true (g_str_has_prefix (whole_lines[2], "0,0.20000000000000001,"));
  g_assert_true (g_str_has_prefix (whole_lines[3], "0,0.40000000000000002,"));
  g_assert_true (g_str_has_prefix (whole_lines[5], "0.66666666666666663,0.20000000000000001,"));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *shard = g_strdup_printf ("%u/3", i + 1);
      g_autofree char *out = run_grid ("--shard", shard, NULL);

      g_autofree char *comments = sweep_comments (out);

      g_assert_cmpstr (comments, ==, whole_comments);
      shard_lines[i] = sweep_table_lines (out);
      g_assert_cmpstr (shard_lines[i][0], ==, whole_lines[0]);
      g_assert_cmpstr (shard_lines[i][1], ==, whole_lines[1]);
      g_assert_cmpuint (g_strv_length (shard_lines[i]), ==, 2 + 4);
    }
  for (guint k = 0; k < 12; k++)
    {
      g_string_append (merged, shard_lines[k % 3][2 + k / 3]);
      g_string_append_c (merged, '\n');
    }
  {
    g_autofree char *table = sweep_table (whole);
    g_assert_cmpstr (merged->str, ==, strchr (strchr (table, '\n') + 1, '\n') + 1);
  }
  for (guint i = 0; i < 3; i++)
    g_strfreev (shard_lines[i]);
}

/* One thread or two: the same bytes; and -o FILE holds what standard output shows. */
static void
test_sweep_jobs (void)
{
  g_autofree char *one = run_grid ("--jobs", "1", NULL);
  g_autofree char *two = run_grid ("--jobs", "2", NULL);
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "sweep.csv", NULL);
  g_autofree char *out = run_grid ("--jobs", "2", "-o", path, NULL);
  g_autofree char *file = NULL;

  g_assert_cmpstr (one, ==, two);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_file_get_contents (path, &file, NULL, NULL));
  g_assert_cmpstr (file, ==, one);
  g_assert_cmpuint (cli_count_entries (dir), ==, 1);
  g_unlink (path);
  g_rmdir (dir);
}

/* A point whose run fails is nan, with a note naming it; the others go on. */
static void
test_sweep_failed_point (void)
{
  g_autofree char *dir = cli_make_temp_dir ();
  g_autofree char *model = cli_write_file (dir, "blowup.cml", SWEEP_BLOWUP_MODEL);
  g_autofree char *out = NULL, *err = NULL;

  /* rk8pd named: its numbers are pinned */
  g_assert_cmpint (cli_run (&out, &err, "sweep", model, "--vary", "a=0:1:2", "--t-end", "1", "--measure", "x,u",
                            "--jobs", "2", "--integrator", "rk8pd", NULL), ==, 0);
  g_autofree char *table = sweep_table (out);
  g_assert_cmpstr (table, ==, "# cmlab sweep: model blowup; vary a\na,x,u\n0,1.9999999999999996,1\n1,nan,nan\n");
  g_assert_nonnull (strstr (err, "note: point 1 (a=1): "));
  g_unlink (model);
  g_rmdir (dir);
}

/* Values no body has together are gaps, not runs: the rigid body's I₁ past I₂ + I₃ (or
 * below I₃ − I₂) breaks its model's requirement, as in the window's side panel. */
static void
test_sweep_impossible_point (void)
{
  g_autofree char *out = NULL, *err = NULL;

  cli_run (&out, &err, "sweep", "rigid-body", "--vary", "I1=0.5:8:6", "--t-end", "1", "--measure", "energy", NULL);
  g_auto (GStrv) lines = sweep_table_lines (out);
  g_assert_cmpuint (g_strv_length (lines), ==, 8);
  /* I₂ = 2, I₃ = 3: I₁ = 0.5 and 6.5, 8 are not possible, 2, 3.5, 5 are */
  const gboolean possible[] = { FALSE, TRUE, TRUE, TRUE, FALSE, FALSE };
  for (guint k = 0; k < 6; k++)
    {
      g_autofree char *note = g_strdup_printf ("note: point %u (", k);
      g_assert_true (g_str_has_suffix (lines[2 + k], ",nan") == !possible[k]);
      g_assert_true ((strstr (err, note) != NULL) == !possible[k]);
    }
  g_assert_nonnull (strstr (err, "not possible"));
}

/* The line of CSV text that starts with PREFIX, or NULL. */
static char *
line_with_prefix (const char *csv, const char *prefix)
{
  g_auto (GStrv) lines = csv_lines (csv);

  for (guint k = 0; lines[k]; k++)
    if (g_str_has_prefix (lines[k], prefix))
      return g_strdup (lines[k]);
  return NULL;
}

/* A sweep names what made it, in comment lines after the first that are the same in every
 * shard: cmlab's version and the model text's SHA-256, the model file, every parameter
 * (--set ones at their values, the varied ones marked), the initial values given
 * (--init), T (--t-end) and the integrator with its tolerances (what auto chose, as
 * simulate's header says it) or its step.  Read with its comment lines skipped, the
 * table is what it was: each row simulate's run with the same options. */
static void
test_sweep_names_its_making (void)
{
  g_autofree char *out = NULL, *err = NULL, *version_out = NULL, *text = NULL;
  g_autofree char *model_path = g_build_filename (g_getenv ("CMLAB_MODELS_DIR"), "rolling-ball.cml", NULL);

  g_assert_cmpint (cli_run (&version_out, NULL, "--version", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (version_out, "cmlab-cli (cmlab) "));
  g_autofree char *version = g_strndup (version_out + strlen ("cmlab-cli (cmlab) "),
                                        strcspn (version_out + strlen ("cmlab-cli (cmlab) "), "\n"));
  g_assert_true (g_file_get_contents (model_path, &text, NULL, NULL));
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
  g_autofree char *made_by = g_strdup_printf ("# made by cmlab %s from the model text with SHA-256 %s", version, sha);

  g_assert_cmpint (cli_run (&out, &err, "sweep", "rolling-ball", "--vary", "Omega=0.5:1.5:3", "--t-end", "2",
                            "--measure", "x", "--set", "k2=0.3", "--init", "v=0.25", "--init", "x=0.5",
                            "--integrator", "dop853", "--rtol", "1e-9", NULL), ==, 0);
  g_autofree char *comments = sweep_comments (out);
  g_autofree char *expected = g_strdup_printf ("%s\n"
                                               "# parameters: m = 1, r = 1, k2 = 0.29999999999999999, Omega (varied)\n"
                                               "# initial values given: x = 0.5, v = 0.25\n"
                                               "# each run: from t = 0 to t = 2\n"
                                               "# integrator: dop853, rtol = 1e-09, atol = 1e-12\n",
                                               made_by);
  g_assert_cmpstr (comments, ==, expected);
  /* the table: the columns, and each row the run simulate makes with those options */
  g_auto (GStrv) lines = sweep_table_lines (out);
  g_assert_cmpuint (g_strv_length (lines), ==, 2 + 3);
  g_assert_cmpstr (lines[0], ==, "# cmlab sweep: model rolling-ball; vary Omega");
  g_assert_cmpstr (lines[1], ==, "Omega,x");
  for (guint k = 2; lines[k]; k++)
    {
      g_auto (GStrv) cells = g_strsplit (lines[k], ",", -1);
      g_autofree char *set = g_strdup_printf ("Omega=%s", cells[0]);
      g_autofree char *sim_out = NULL, *x = NULL;
      g_assert_cmpint (cli_run (&sim_out, NULL, "simulate", "rolling-ball", "--set", "k2=0.3", "--set", set, "--init",
                                "v=0.25", "--init", "x=0.5", "--integrator", "dop853", "--rtol", "1e-9", "--t-end",
                                "2", "--dt-out", "2", NULL), ==, 0);
      x = simulate_last_field (sim_out, "x");
      g_assert_cmpstr (cells[1], ==, x);
    }

  /* auto: the method it chose and why, as simulate's header says it; no model file for a
   * built-in named by its name */
  {
    g_autofree char *auto_out = NULL, *sim_out = NULL;
    g_assert_cmpint (cli_run (&auto_out, NULL, "sweep", "rolling-ball", "--vary", "Omega=0:1:2", "--t-end", "1",
                              "--measure", "x", NULL), ==, 0);
    g_assert_cmpint (cli_run (&sim_out, NULL, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "1", NULL), ==, 0);
    g_autofree char *sweep_line = line_with_prefix (auto_out, "# integrator: ");
    g_autofree char *sim_line = line_with_prefix (sim_out, "# integrator: ");
    g_assert_nonnull (sweep_line);
    g_assert_nonnull (strstr (sweep_line, "(chosen: "));
    g_assert_cmpstr (sweep_line, ==, sim_line);
    g_autofree char *initial = line_with_prefix (auto_out, "# initial values given: ");
    g_assert_cmpstr (initial, ==, "# initial values given: none (the model's initial state)");
    g_autofree char *file_line = line_with_prefix (auto_out, "# model file: ");
    g_assert_null (file_line);
  }
  /* a fixed step; a model file named with its absolute path */
  {
    g_autofree char *dir = cli_make_temp_dir ();
    g_autofree char *model = cli_write_file (dir, "blowup.cml", SWEEP_BLOWUP_MODEL);
    g_autofree char *fixed_out = NULL;
    g_autofree char *base = g_path_get_basename (model);
    g_assert_cmpint (cli_run_argv (NULL, 0, &fixed_out, NULL,
                                   (const char *const[]) { "sweep", model, "--vary", "a=0:0:1", "--t-end", "0.1",
                                                           "--measure", "x", "--integrator", "implicit-midpoint",
                                                           "--step", "0.01", NULL }), ==, 0);
    g_autofree char *integrator = line_with_prefix (fixed_out, "# integrator: ");
    g_assert_cmpstr (integrator, ==, "# integrator: implicit-midpoint, step = 0.01");
    g_autofree char *file_line = line_with_prefix (fixed_out, "# model file: ");
    g_autofree char *real = g_canonicalize_filename (model, NULL);
    g_autofree char *expect_file = g_strconcat ("# model file: ", real, NULL);
    g_assert_cmpstr (file_line, ==, expect_file);
    g_autofree char *params = line_with_prefix (fixed_out, "# parameters: ");
    g_assert_cmpstr (params, ==, "# parameters: a (varied)");
    g_unlink (model);
    g_rmdir (dir);
  }
}

/* Bad arguments exit 2 with a message that names the problem, and write nothing. */
static void
test_sweep_errors (void)
{
  static const struct
  {
    const char *args[8];
    const char *message;
  } cases[] = {
    { { "--vary", "Foo=0:1:3", "--measure", "x" }, "no parameter “Foo”" },
    { { "--vary", "Omega=0:1:3", "--measure", "nope" }, "no quantity “nope”" },
    { { "--vary", "Omega=0:1:0", "--measure", "x" }, "at least 1" },
    { { "--vary", "Omega=0:1", "--measure", "x" }, "P=A:B:N" },
    { { "--vary", "Omega=0:x:3", "--measure", "x" }, "P=A:B:N" },
    { { "--vary", "Omega=0:20:3", "--measure", "x" }, "outside its range" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--shard", "4/3" }, "--shard takes I/N" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--shard", "0/3" }, "--shard takes I/N" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--shard", "2" }, "--shard takes I/N" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--jobs", "0" }, "--jobs" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--at", "2,1" }, "must increase" },
    { { "--vary", "Omega=0:1:3", "--measure", "x", "--at", "9" }, "--at" },
    { { "--vary", "Omega=0:1:3" }, "--measure" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_autofree char *out = NULL, *err = NULL;

      g_ptr_array_add (args, (char *) "sweep");
      g_ptr_array_add (args, (char *) "rolling-ball");
      g_ptr_array_add (args, (char *) "--t-end");
      g_ptr_array_add (args, (char *) "2");
      for (guint k = 0; k < G_N_ELEMENTS (cases[c].args) && cases[c].args[k]; k++)
        g_ptr_array_add (args, (char *) cases[c].args[k]);
      g_ptr_array_add (args, NULL);
      g_assert_cmpint (cli_run_argv (NULL, 0, &out, &err, (const char *const *) args->pdata), ==, 2);
      g_assert_cmpstr (out, ==, "");
      if (strstr (err, cases[c].message) == NULL)
        g_error ("case %u: “%s” not in: %s", c, cases[c].message, err);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/sweep/matches-simulate", test_sweep_matches_simulate);
  g_test_add_func ("/cli/sweep/shards", test_sweep_shards);
  g_test_add_func ("/cli/sweep/names-its-making", test_sweep_names_its_making);
  g_test_add_func ("/cli/sweep/jobs", test_sweep_jobs);
  g_test_add_func ("/cli/sweep/failed-point", test_sweep_failed_point);
  g_test_add_func ("/cli/sweep/impossible-point", test_sweep_impossible_point);
  g_test_add_func ("/cli/sweep/errors", test_sweep_errors);
  return g_test_run ();
}
