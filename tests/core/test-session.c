/* test-session.c — sessions: round trip, bit-for-bit replay, bad files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"
#include "cml-session.h"

static char *tmpdir;

static CmlSimulation *
make_ball (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  return sim;
}

/* Runs SIM to t = 5 in 50 output steps, keeping every state. */
static double *
trajectory (CmlSimulation *sim)
{
  guint dim = cml_system_dim (cml_simulation_get_system (sim));
  double *out = g_new (double, 51 * dim);
  g_autoptr (GError) error = NULL;
  memcpy (out, cml_simulation_get_state (sim), dim * sizeof (double));
  for (guint k = 1; k <= 50; k++)
    {
      g_assert_true (cml_simulation_advance (sim, 0.1 * k, &error));
      g_assert_no_error (error);
      memcpy (out + k * dim, cml_simulation_get_state (sim), dim * sizeof (double));
    }
  return out;
}

static void
test_replay (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = make_ball ();
  CmlSystem *sys = cml_simulation_get_system (sim);
  guint dim = cml_system_dim (sys);
  CmlIntegratorOptions opt = cml_integrator_options_default ();
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  double vy = 0.8;

  opt.kind = CML_INTEGRATOR_RKF45;
  opt.rtol = 1e-9;
  g_assert_true (cml_simulation_set_integrator (sim, &opt, &error));
  g_assert_true (cml_simulation_set_param (sim, "Omega", -0.7, &error));
  g_assert_true (cml_simulation_set_param (sim, "k2", 0.6, &error));
  g_hash_table_insert (given, g_strdup ("v"), g_memdup2 (&vy, sizeof vy));
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *a = trajectory (sim);

  g_autoptr (GHashTable) view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (view, g_strdup ("camera"), g_strdup ("0.5 0.3 9"));
  g_autoptr (CmlSession) s = cml_session_new (sim, z0, view);
  g_autofree char *path = g_build_filename (tmpdir, "ball.cmlsession", NULL);
  g_assert_true (cml_session_save (s, path, &error));
  g_assert_no_error (error);

  g_autoptr (CmlSession) r = cml_session_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (r->model->name, ==, "rolling-ball");
  g_assert_cmpint (r->integrator.kind, ==, CML_INTEGRATOR_RKF45);
  g_assert_cmpfloat (r->integrator.rtol, ==, 1e-9);
  g_assert_cmpstr (g_hash_table_lookup (r->view, "camera"), ==, "0.5 0.3 9");
  g_autoptr (CmlSystem) sys2 = NULL;
  g_autoptr (CmlSimulation) sim2 = cml_session_make_simulation (r, &sys2, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (cml_simulation_get_param (sim2, "Omega"), ==, -0.7);
  g_autofree double *b = trajectory (sim2);
  /* the same integrator from the same data: the same bits */
  g_assert_cmpint (memcmp (a, b, 51 * dim * sizeof (double)), ==, 0);
}

static void
test_embedded (void)
{
  /* the session works without the model file: it carries the text */
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *mpath = g_build_filename (g_getenv ("CMLAB_MODELS_DIR"), "martinet.cml", NULL);
  g_assert_true (g_file_get_contents (mpath, &text, NULL, &error));
  g_autofree char *copy = g_build_filename (tmpdir, "copy.cml", NULL);
  g_assert_true (g_file_set_contents (copy, text, -1, &error));
  g_autoptr (CmlModel) model = cml_model_new_from_file (copy, &error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSession) s = cml_session_new (sim, cml_simulation_get_state (sim), NULL);
  g_autofree char *path = g_build_filename (tmpdir, "m.cmlsession", NULL);
  g_assert_true (cml_session_save (s, path, &error));
  g_assert_cmpint (g_unlink (copy), ==, 0);
  g_autoptr (CmlSession) r = cml_session_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim2 = cml_session_make_simulation (r, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_advance (sim2, 1, &error));
}

typedef struct
{
  const char *name;
  const char *text;
  const char *expect;
} BadCase;

static void
test_bad_file (gconstpointer data)
{
  const BadCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, c->name, NULL);
  if (c->text)
    g_assert_true (g_file_set_contents (path, c->text, -1, NULL));
  g_autoptr (CmlSession) s = cml_session_load (path, &error);
  g_assert_null (s);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, path));
  if (strstr (error->message, c->expect) == NULL)
    g_error ("“%s” does not contain “%s”", error->message, c->expect);
}

static void
test_unwritable (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = make_ball ();
  g_autoptr (CmlSession) s = cml_session_new (sim, cml_simulation_get_state (sim), NULL);
  g_assert_false (cml_session_save (s, "/nonexistent-dir/x.cmlsession", &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_IO);
  g_assert_false (g_file_test ("/nonexistent-dir/x.cmlsession", G_FILE_TEST_EXISTS));
}

/* Saving never replaces what is not ours: a read-only session file is refused and kept;
 * through a symbolic link the file it names is written and the link stays; a new file has
 * the mode of any new file (0666 less the umask), a replaced one keeps its mode. */
static void
test_save_targets (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = make_ball ();
  g_autoptr (CmlSession) s = cml_session_new (sim, cml_simulation_get_state (sim), NULL);
  g_autofree char *ro = g_build_filename (tmpdir, "ro.cmlsession", NULL);
  g_autofree char *real = g_build_filename (tmpdir, "real.cmlsession", NULL);
  g_autofree char *link = g_build_filename (tmpdir, "link.cmlsession", NULL);
  g_autofree char *fresh = g_build_filename (tmpdir, "fresh.cmlsession", NULL);
  g_autofree char *text = NULL;
  GStatBuf st;

  g_assert_true (g_file_set_contents (ro, "keep", -1, NULL));
  g_assert_cmpint (g_chmod (ro, 0444), ==, 0);
  g_assert_false (cml_session_save (s, ro, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "permission denied"));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (ro, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "keep");
  g_clear_pointer (&text, g_free);

  g_assert_true (g_file_set_contents (real, "old", -1, NULL));
  g_assert_cmpint (g_chmod (real, 0640), ==, 0);
  g_assert_cmpint (symlink ("real.cmlsession", link), ==, 0);
  g_assert_true (cml_session_save (s, link, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  g_assert_cmpint (g_stat (real, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0640);
  g_autoptr (CmlSession) back = cml_session_load (real, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);

  mode_t mask = umask (022);
  gboolean ok = cml_session_save (s, fresh, &error);
  umask (mask);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpint (g_stat (fresh, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
}

#define MODEL_OK "[model]\\nname = one\\ntitle = one\\n[parameters]\\na = 1 | 0 .. 2 | 1 | a\\n[algebroid]\\nbase = x\\nfibre = u\\n[anchor]\\ne1 = x: 1\\n[dynamics]\\nlagrangian = u^2/2 - a*x^2/2\\n"

static const BadCase bad_cases[] = {
  { "missing.cmlsession", NULL, "not a readable session file" },
  { "garbage.cmlsession", "this is not a key file\n", "not a readable session file" },
  { "format.cmlsession", "[session]\nformat = something else\n", "not a cmlab session" },
  { "nomodel.cmlsession", "[session]\nformat = cmlab-session 1\n", "no embedded model" },
  { "badmodel.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = [model]\\nname = x\\n\n",
    "embedded model:" },
  { "integrator.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = " MODEL_OK "\n[integrator]\nkind = euler\n",
    "unknown integrator" },
  { "tol.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = " MODEL_OK "\n[integrator]\nrtol = -1\n",
    "must be > 0" },
  { "param.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = " MODEL_OK "\n[parameters]\nb = 1\n",
    "no parameter" },
  { "range.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = " MODEL_OK "\n[parameters]\na = 7\n",
    "outside its range" },
  { "nan.cmlsession", "[session]\nformat = cmlab-session 1\nmodel = " MODEL_OK "\n[initial]\nx = nan\n",
    "not a number" },
};

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gsl_set_error_handler_off ();
  tmpdir = g_dir_make_tmp ("cmlab-session-XXXXXX", NULL);
  g_test_add_func ("/core/session/replay-bit-for-bit", test_replay);
  g_test_add_func ("/core/session/embedded-model", test_embedded);
  g_test_add_func ("/core/session/unwritable", test_unwritable);
  g_test_add_func ("/core/session/save-targets", test_save_targets);
  for (guint k = 0; k < G_N_ELEMENTS (bad_cases); k++)
    {
      g_autofree char *p = g_strdup_printf ("/core/session/bad/%s", bad_cases[k].name);
      g_test_add_data_func (p, &bad_cases[k], test_bad_file);
    }
  int status = g_test_run ();
  g_autoptr (GDir) d = g_dir_open (tmpdir, 0, NULL);
  const char *f;
  while (d && (f = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (tmpdir, f, NULL);
      g_unlink (p);
    }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
