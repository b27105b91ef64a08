/* test-malformed.c — every file in tests/malformed/ must be rejected with a located error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each tests/malformed/NAME.cml is small and broken in one way.  Its first line is
 * "# expect: SUBSTRING" (part of the error message) and it may carry "# line: N" (the line
 * the error must name).  The test loads the file, derives the system and makes a
 * simulation; one of these must fail, never crash, hang or succeed, and the error must read
 * "FILE:LINE: …" or "FILE:LINE:COL: …".  Each file runs in a subprocess with a time limit,
 * so a crash or a hang fails that file's case only.
 *
 * A positive control (a small valid model that loads and runs) shows that the harness can
 * pass.
 */
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-system.h"
#include "cml-simulation.h"

#define CASE_TIMEOUT_USEC (60 * G_USEC_PER_SEC)

typedef struct
{
  char *path;   /* the model file */
  char *expect; /* substring of the error message */
  int   line;   /* expected line, or 0 */
} Case;

static void
case_free (gpointer data)
{
  Case *c = data;
  g_free (c->path);
  g_free (c->expect);
  g_free (c);
}

/* Reads "# expect:" and "# line:" from the leading comment lines of PATH. */
static Case *
case_new (const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  Case *c = g_new0 (Case, 1);

  c->path = g_strdup (path);
  if (!g_file_get_contents (path, &text, &len, NULL))
    return c;
  /* only the first lines: the rest may be anything (binary, not UTF-8) */
  g_auto (GStrv) lines = g_strsplit (text, "\n", 8);
  for (int i = 0; lines[i] && lines[i][0] == '#'; i++)
    {
      const char *s = lines[i] + 1;
      while (*s == ' ')
        s++;
      if (g_str_has_prefix (s, "expect:"))
        c->expect = g_strstrip (g_strdup (s + strlen ("expect:")));
      else if (g_str_has_prefix (s, "line:"))
        c->line = (int) g_ascii_strtoll (s + strlen ("line:"), NULL, 10);
    }
  return c;
}

/* Runs in the subprocess: load, derive, simulate; checks the error. */
static void
check_malformed (const Case *c)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  const char *stage;

  g_assert_nonnull (c->expect);
  g_assert_cmpstr (c->expect, !=, "");

  stage = "cml_model_new_from_file";
  model = cml_model_new_from_file (c->path, &error);
  if (model != NULL)
    {
      g_assert_no_error (error);
      stage = "cml_system_new";
      sys = cml_system_new (model, &error);
      if (sys != NULL)
        {
          g_assert_no_error (error);
          stage = "cml_simulation_new";
          sim = cml_simulation_new (sys, &error);
          /* the model's own initial data are checked by a reset without given values */
          if (sim != NULL)
            {
              g_assert_no_error (error);
              stage = "cml_simulation_reset";
              if (!cml_simulation_reset (sim, NULL, &error))
                g_clear_pointer (&sim, cml_simulation_free);
            }
        }
    }
  if (sim != NULL)
    {
      g_printerr ("%s: accepted (load, derivation and simulation succeeded); expected an error containing “%s”\n",
                  c->path, c->expect);
      g_assert_null (sim);
    }
  if (error == NULL)
    {
      g_printerr ("%s: %s failed without setting an error\n", c->path, stage);
      g_assert_nonnull (error);
    }
  g_assert_true (error->domain == CML_ERROR);

  const char *msg = error->message;
  g_test_message ("%s: %s", stage, msg);

  /* FILE:LINE: or FILE:LINE:COL: */
  gboolean located = g_str_has_prefix (msg, c->path) && msg[strlen (c->path)] == ':';
  const char *p = located ? msg + strlen (c->path) + 1 : msg;
  const char *digits = p;
  while (g_ascii_isdigit (*p))
    p++;
  located = located && p > digits && *p == ':';
  if (!located)
    {
      g_printerr ("%s: the error from %s does not start with “FILE:LINE:”: %s\n", c->path, stage, msg);
      g_assert_true (located);
    }
  int line = (int) g_ascii_strtoll (digits, NULL, 10);

  if (strstr (msg, c->expect) == NULL)
    {
      g_printerr ("%s: the error from %s does not contain “%s”: %s\n", c->path, stage, c->expect, msg);
      g_assert_nonnull (strstr (msg, c->expect));
    }
  if (c->line > 0 && line != c->line)
    {
      g_printerr ("%s: the error from %s names line %d, expected line %d: %s\n", c->path, stage, line,
                  c->line, msg);
      g_assert_cmpint (line, ==, c->line);
    }
}

static void
test_malformed (gconstpointer data)
{
  const Case *c = data;

  if (g_test_subprocess ())
    {
      check_malformed (c);
      return;
    }
  g_test_trap_subprocess (NULL, CASE_TIMEOUT_USEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* ---- the positive control -------------------------------------------------------------- */

/* A rolling ball on a turntable in the style of the built-in models, but small. */
static const char valid_model[] =
  "[model]\n"
  "name = control\n"
  "title = positive control\n"
  "\n"
  "[parameters]\n"
  "m = 1 | 0.01 .. 100 | kg | mass\n"
  "r = 1 | 0.05 .. 10 | m | radius\n"
  "k2 = 0.4 | 0.001 .. 100 | m^2 | gyration\n"
  "Omega = 1 | -10 .. 10 | rad/s | table\n"
  "\n"
  "[definitions]\n"
  "kappa = k2/(k2 + r^2)\n"
  "\n"
  "[algebroid]\n"
  "base = x, y\n"
  "fibre = u, v, w1, w2, w3\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = y: 1\n"
  "\n"
  "[brackets]\n"
  "e4, e3 = e5\n"
  "e5, e4 = e3\n"
  "e3, e5 = e4\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = m/2*(u^2 + v^2) + m*k2/2*(w1^2 + w2^2 + w3^2)\n"
  "constraints = nonholonomic\n"
  "solve-for = w1, w2\n"
  "\n"
  "[constraints]\n"
  "phi1 = u - r*w2 + Omega*y\n"
  "phi2 = v + r*w1 - Omega*x\n"
  "\n"
  "[initial]\n"
  "x = 1\n"
  "v = 0.5\n"
  "w3 = 0.3\n"
  "\n"
  "[reconstruction]\n"
  "alpha = Omega\n"
  "\n"
  "[monitors]\n"
  "energy = m/2*(u^2 + v^2) + m*k2/2*(w1^2 + w2^2 + w3^2)\n"
  "I = energy - m*kappa*Omega^2*(x^2 + y^2)/2\n"
  "\n"
  "[scene ball]\n"
  "type = sphere\n"
  "center = x, y, r\n"
  "radius = r\n"
  "\n"
  "[preset fast]\n"
  "title = a faster table\n"
  "Omega = 2\n";

static void
test_positive_control (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlSimulation) sim = NULL;

  model = cml_model_new_from_data (valid_model, "control.cml", &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sys);
  sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sim);
  g_assert_true (cml_simulation_advance (sim, 1.0, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (cml_simulation_get_time (sim), 1.0, 1e-12);
  /* the state stays finite and on the constraints */
  for (guint i = 0; i < cml_system_dim (sys); i++)
    g_assert_true (isfinite (cml_simulation_get_state (sim)[i]));
  g_assert_cmpfloat (cml_simulation_residual (sim), <, 1e-6);
}

/* Text that is not a model at all, given as data (an empty string has no "# expect:"). */
static void
test_empty_text (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data ("", "empty.cml", &error);

  g_assert_null (model);
  g_assert_error (error, CML_ERROR, CML_ERROR_MODEL);
  g_assert_true (g_str_has_prefix (error->message, "empty.cml:1: "));
  g_assert_nonnull (strstr (error->message, "missing group [model]"));
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) cases = g_ptr_array_new_with_free_func (case_free);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;

  g_test_init (&argc, &argv, NULL);
  /* what is checked here is the error and where it points, which the interpreter gives
   * bit for bit as native code does; compiling a broken model's derived equations to
   * native code first (seconds of the C compiler for the larger fuzz findings) would
   * only make the time limit a measure of the machine's load */
  g_setenv ("CMLAB_NATIVE", "0", TRUE);
  /* in the parent, a failing file fails its own case only (the children keep fatal asserts) */
  if (!g_test_subprocess ())
    g_test_set_nonfatal_assertions ();

  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "malformed", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  const char *f;
  while ((f = g_dir_read_name (d)))
    if (g_str_has_suffix (f, ".cml"))
      g_ptr_array_add (names, g_strdup (f));
  g_ptr_array_sort (names, compare_strings);
  g_assert_cmpuint (names->len, >=, 40);

  for (guint k = 0; k < names->len; k++)
    {
      const char *file = names->pdata[k];
      g_autofree char *base = g_strndup (file, strlen (file) - strlen (".cml"));
      g_autofree char *path = g_build_filename (dir, file, NULL);
      g_autofree char *test_path = g_strdup_printf ("/models/malformed/%s", base);
      Case *c = case_new (path);
      g_ptr_array_add (cases, c);
      g_test_add_data_func (test_path, c, test_malformed);
    }
  g_test_add_func ("/models/malformed-control/valid-model", test_positive_control);
  g_test_add_func ("/models/malformed-control/empty-text", test_empty_text);

  return g_test_run ();
}
