/* test-output.c — a run's rows as CSV and JSON (cml-output.c), short and long.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Past its first few thousand rows a run's rows are written by a thread of their own, in
 * blocks: every row must still arrive once, in order, with its numbers exactly (read back
 * with strtod, which gives the double that %.17g wrote); a comment between rows stays
 * where it was given; an aborted run leaves no file; a stream that fails is reported.
 */
#define G_LOG_DOMAIN "test-output"

#include "cml-error.h"
#include "cml-model.h"
#include "cml-output.h"
#include "cml-simulation.h"
#include "cml-system.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  CmlModel      *model;
  CmlSystem     *sys;
  CmlSimulation *sim;
  guint          n_obs;
  char          *dir;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  f->model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  f->sys = cml_system_new (f->model, &error);
  g_assert_no_error (error);
  f->sim = cml_simulation_new (f->sys, &error);
  g_assert_no_error (error);
  f->n_obs = cml_system_n_observables (f->sys);
  f->dir = g_dir_make_tmp ("cmlab-test-output-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (f->dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  cml_simulation_free (f->sim);
  cml_system_unref (f->sys);
  cml_model_unref (f->model);
}

/* Observable J of row I: distinct in every row and column, not short in decimal. */
static double
value (guint64 i, guint j)
{
  return (double) i * 1000.0 + j + 1.0 / 3.0;
}

/* The columns of the test: the first three observables. */
static const char *const *
columns (Fixture *f)
{
  static const char *names[4];
  for (guint j = 0; j < 3; j++)
    names[j] = cml_system_observable_name (f->sys, j);
  names[3] = NULL;
  return names;
}

/* Writes N rows (a comment after row AT_COMMENT when it is not 0) into PATH. */
static void
write_rows (Fixture *f, const char *path, CmlOutputFormat format, guint64 n, guint64 at_comment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlOutput) out = cml_output_new (path, format, &error);
  g_autofree double *obs = g_new (double, f->n_obs);

  g_assert_no_error (error);
  g_assert_true (cml_output_begin (out, f->sim, columns (f), &error));
  for (guint64 i = 0; i < n; i++)
    {
      for (guint j = 0; j < f->n_obs; j++)
        obs[j] = value (i, j);
      g_assert_true (cml_output_row_obs (out, (double) i / 8, obs, &error));
      g_assert_no_error (error);
      if (at_comment && i + 1 == at_comment)
        g_assert_true (cml_output_comment (out, "between the rows", &error));
    }
  /* the rows past the first 4096 went to the writer thread */
  g_assert_cmpuint (cml_output_n_thread_rows (out), ==, n > 4096 ? n - 4096 : 0);
  g_assert_true (cml_output_finish (out, &error));
  g_assert_no_error (error);
}

/* Reads PATH's CSV rows back: every one present, in order, its numbers exact. */
static void
check_csv (const char *path, guint64 n, guint64 at_comment)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 row = 0;
  gboolean header = FALSE, comment = FALSE;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  lines = g_strsplit (text, "\n", -1);
  for (guint l = 0; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      const char *s = lines[l];
      if (s[0] == '#')
        {
          if (g_str_equal (s, "# between the rows"))
            {
              g_assert_cmpuint (row, ==, at_comment);
              comment = TRUE;
            }
          continue;
        }
      if (!header)
        {
          header = TRUE; /* the column names */
          continue;
        }
      char *end;
      double t = g_ascii_strtod (s, &end);
      g_assert_cmpfloat (t, ==, (double) row / 8);
      for (guint j = 0; j < 3; j++)
        {
          g_assert_cmpint (*end, ==, ',');
          double v = g_ascii_strtod (end + 1, &end);
          if (v != value (row, j))
            g_error ("row %" G_GUINT64_FORMAT ", column %u: %.17g, not %.17g", row, j, v, value (row, j));
        }
      g_assert_cmpint (*end, ==, '\0');
      row++;
    }
  g_assert_cmpuint (row, ==, n);
  g_assert_true (comment == (at_comment != 0));
}

/* Short (written directly) and long runs (by the writer thread, with a last block that is
 * not full), with a comment in the middle of the long one. */
static void
test_csv_rows (Fixture *f, gconstpointer data)
{
  static const guint64 counts[] = { 1, 4096, 4097, 30000, 30001 };

  for (guint k = 0; k < G_N_ELEMENTS (counts); k++)
    {
      g_autofree char *path = g_build_filename (f->dir, "rows.csv", NULL);
      write_rows (f, path, CML_OUTPUT_CSV, counts[k], 0);
      check_csv (path, counts[k], 0);
    }
  g_autofree char *path = g_build_filename (f->dir, "comment.csv", NULL);
  write_rows (f, path, CML_OUTPUT_CSV, 20000, 12345);
  check_csv (path, 20000, 12345);
}

/* JSON: the rows array has every row, one a line, in order, its numbers exact. */
static void
test_json_rows (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "rows.json", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 n = 25000, row = 0;
  gboolean in_rows = FALSE;

  write_rows (f, path, CML_OUTPUT_JSON, n, 0);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      const char *s = g_strchug (lines[l]);
      if (g_str_has_prefix (s, "\"rows\": ["))
        {
          in_rows = TRUE;
          continue;
        }
      if (!in_rows || s[0] != '[')
        continue;
      char *end;
      double t = g_ascii_strtod (s + 1, &end);
      g_assert_cmpfloat (t, ==, (double) row / 8);
      for (guint j = 0; j < 3; j++)
        {
          g_assert_cmpint (*end, ==, ',');
          g_assert_cmpfloat (g_ascii_strtod (end + 1, &end), ==, value (row, j));
        }
      g_assert_cmpint (*end, ==, ']');
      row++;
    }
  g_assert_true (in_rows);
  g_assert_cmpuint (row, ==, n);
}

/* An aborted long run leaves no file behind, and nothing over the file already there. */
static void
test_abort (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->dir, "kept.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree double *obs = g_new0 (double, f->n_obs);
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (path, "older\n", -1, NULL));
  {
    g_autoptr (CmlOutput) out = cml_output_new (path, CML_OUTPUT_CSV, &error);
    g_assert_no_error (error);
    g_assert_true (cml_output_begin (out, f->sim, columns (f), &error));
    for (guint i = 0; i < 50000; i++)
      g_assert_true (cml_output_row_obs (out, i, obs, &error));
    cml_output_abort (out);
  }
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "older\n");
  {
    g_autoptr (GDir) d = g_dir_open (f->dir, 0, NULL);
    guint n = 0;
    while (d && g_dir_read_name (d))
      n++;
    g_assert_cmpuint (n, ==, 1); /* no temporary left */
  }
}

/* A stream that cannot be written (a full device): the rows or the end say so, whether
 * the failure comes while rows are written directly or by the writer thread. */
static void
test_full_device (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *obs = g_new0 (double, f->n_obs);
  gboolean ok = TRUE;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full here");
      return;
    }
  g_autoptr (CmlOutput) out = cml_output_new ("/dev/full", CML_OUTPUT_CSV, &error);
  g_assert_no_error (error);
  g_assert_true (cml_output_begin (out, f->sim, columns (f), &error) || error != NULL);
  g_clear_error (&error);
  for (guint i = 0; ok && i < 200000; i++)
    ok = cml_output_row_obs (out, i, obs, &error);
  if (ok)
    ok = cml_output_finish (out, &error);
  g_assert_false (ok);
  g_assert_error (error, CML_ERROR, CML_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/dev/full"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/output/csv-rows", Fixture, NULL, fixture_set_up, test_csv_rows, fixture_tear_down);
  g_test_add ("/output/json-rows", Fixture, NULL, fixture_set_up, test_json_rows, fixture_tear_down);
  g_test_add ("/output/abort", Fixture, NULL, fixture_set_up, test_abort, fixture_tear_down);
  g_test_add ("/output/full-device", Fixture, NULL, fixture_set_up, test_full_device, fixture_tear_down);
  return g_test_run ();
}
