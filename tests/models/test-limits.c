/* test-limits.c — size budgets: hostile models are refused quickly, with FILE:LINE.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The models are generated here (no megabyte files in the repository).  Before the
 * budgets, each did harm: 10⁴ reconstruction variables wrote 2.7 GB of C into the native
 * cache, 10⁴ fibre coordinates aborted on a 28 GB allocation, 20,000 chained definitions
 * ran for minutes, /dev/zero was read up to 2 GB.  Each case runs in a subprocess with a
 * time limit, so a hang fails that case only.  Also here: a byte-order mark is accepted,
 * native code falls back to the interpreter when its C would be too large, and the
 * session loader bounds [view] and refuses a `project` that is not a boolean.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-native.h"
#include "cml-session.h"
#include "cml-system.h"
#include "physics-util.h"
#include "cache-util.h"

/* Each case runs in a subprocess with this bound: it catches a case that hangs or takes
 * minutes (as these inputs once did), not a slow machine — under AddressSanitizer with
 * every processor busy the expression budget's case alone took over 30 s. */
#define CASE_TIMEOUT_USEC (240 * G_USEC_PER_SEC)

static char *tmp_dir;

/* Writes TEXT to a file NAME in the test's directory; the path. */
static char *
write_model (const char *name, const char *text, gssize len)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_assert_true (g_file_set_contents (path, text, len, &error));
  g_assert_no_error (error);
  return path;
}

/* Loads PATH, derives and makes a simulation; one of them must fail with an error that
 * reads "PATH:LINE: …" (LINE > 0, and == LINE if LINE > 0) and contains EXPECT. */
static void
assert_refused (const char *path, const char *expect, int line)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlSimulation) sim = NULL;

  if (model)
    sys = cml_system_new (model, &error);
  if (sys)
    sim = cml_simulation_new (sys, &error);
  g_assert_null (sim);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, path));
  const char *p = error->message + strlen (path);
  g_assert_cmpint (*p, ==, ':');
  int got = (int) g_ascii_strtoll (p + 1, NULL, 10);
  g_assert_cmpint (got, >, 0);
  if (line > 0)
    g_assert_cmpint (got, ==, line);
  if (strstr (error->message, expect) == NULL)
    g_error ("“%s” does not contain “%s”", error->message, expect);
}

/* Runs the test's subprocess part (the same test path) with the time limit. */
static gboolean
in_subprocess (void)
{
  if (g_test_subprocess ())
    return TRUE;
  g_test_trap_subprocess (NULL, CASE_TIMEOUT_USEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return FALSE;
}

#define HEAD "[model]\nname = hostile\ntitle = a hostile model\n\n"
#define SMALL_ALGEBROID "[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n"
#define SMALL_DYNAMICS "[dynamics]\nlagrangian = u^2/2 - x^2/2\n\n"

static void
test_file_too_large (void)
{
  if (!in_subprocess ())
    return;
  GString *s = g_string_new (HEAD SMALL_ALGEBROID SMALL_DYNAMICS);
  while (s->len <= CML_MODEL_MAX_BYTES)
    g_string_append (s, "# a comment line that makes the file longer than the limit .........\n");
  g_autofree char *path = write_model ("large.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "the limit for a model file", 1);
}

static void
test_dev_zero (void)
{
  if (!g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/zero");
      return;
    }
  if (!in_subprocess ())
    return;
  /* refused when opened, not after a megabyte of zeros */
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file ("/dev/zero", &error);
  g_assert_null (model);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "/dev/zero: "));
  g_assert_nonnull (strstr (error->message, "a device, not a file"));
}

static void
test_many_parameters (void)
{
  if (!in_subprocess ())
    return;
  /* unused parameters: 10⁵ ran for minutes (as many as fit in the size limit here) */
  GString *s = g_string_new (HEAD "[parameters]\n");
  for (int k = 0; k < 40000; k++)
    g_string_append_printf (s, "a%d = 1 | 0 .. 2\n", k);
  g_string_append (s, SMALL_ALGEBROID SMALL_DYNAMICS);
  g_autofree char *path = write_model ("parameters.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "keys in [parameters], the limit", 5 + CML_MODEL_MAX_KEYS + 1);
}

static void
test_many_reconstruction (void)
{
  if (!in_subprocess ())
    return;
  /* 10⁴ reconstruction variables, a 300 KB file: the Jacobian's C was 2.7 GB */
  GString *s = g_string_new (HEAD SMALL_ALGEBROID SMALL_DYNAMICS "[reconstruction]\n");
  for (int k = 0; k < 10000; k++)
    g_string_append_printf (s, "r%d = u*x + r%d\n", k, k > 0 ? k - 1 : 0);
  g_autofree char *path = write_model ("reconstruction.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "keys in [reconstruction], the limit", 0);
}

static void
test_reconstruction_dimension (void)
{
  if (!in_subprocess ())
    return;
  GString *s = g_string_new (HEAD SMALL_ALGEBROID SMALL_DYNAMICS "[reconstruction]\n");
  int first = 16; /* the line of r0 */
  for (int k = 0; k <= CML_MODEL_MAX_RECONSTRUCTION; k++)
    g_string_append_printf (s, "r%d = u*x\n", k);
  g_autofree char *path = write_model ("reconstruction-201.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "reconstruction variables, more than 200, the limit", first + CML_MODEL_MAX_RECONSTRUCTION);
}

/* A model with N fibre coordinates over M base coordinates. */
static char *
wide_model (const char *name, int m, int n)
{
  GString *s = g_string_new (HEAD "[algebroid]\nbase = ");
  for (int i = 0; i < m; i++)
    g_string_append_printf (s, "%sx%d", i ? ", " : "", i);
  g_string_append (s, "\nfibre = ");
  for (int a = 0; a < n; a++)
    g_string_append_printf (s, "%su%d", a ? ", " : "", a);
  g_string_append (s, "\n\n[anchor]\ne1 = x0: 1\n\n[dynamics]\nlagrangian = (");
  for (int a = 0; a < n; a++)
    g_string_append_printf (s, "%su%d^2", a ? " + " : "", a);
  g_string_append (s, ")/2\n");
  char *path = write_model (name, s->str, s->len);
  g_string_free (s, TRUE);
  return path;
}

static void
test_fibre_dimension (void)
{
  if (!in_subprocess ())
    return;
  /* 10⁴ fibre coordinates aborted on a failed 28 GB allocation */
  g_autofree char *path = wide_model ("fibre.cml", 1, 10000);
  assert_refused (path, "10000 fibre coordinates, more than 64, the limit", 7);
}

static void
test_base_dimension (void)
{
  if (!in_subprocess ())
    return;
  g_autofree char *path = wide_model ("base.cml", CML_MODEL_MAX_BASE + 1, 1);
  assert_refused (path, "201 base coordinates, more than 200, the limit", 6);
}

static void
test_chained_definitions (void)
{
  if (!in_subprocess ())
    return;
  /* 20,000 definitions, each one term longer than the last: minutes and gigabytes */
  GString *s = g_string_new (HEAD "[definitions]\nd0 = x\n");
  for (int k = 1; k < 20000; k++)
    g_string_append_printf (s, "d%d = d%d + sin(%d*u)\n", k, k - 1, k);
  g_string_append (s, SMALL_ALGEBROID "[dynamics]\nlagrangian = u^2/2 + d19999\n");
  g_autofree char *path = write_model ("definitions.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "keys in [definitions], the limit", 5 + CML_MODEL_MAX_KEYS + 1);
}

static void
test_definitions_expression_budget (void)
{
  if (!in_subprocess ())
    return;
  /* within the key limit, each definition 40 terms longer than the last: the expressions
   * would take gigabytes */
  GString *s = g_string_new (HEAD "[definitions]\nd0 = x\n");
  for (int k = 1; k < CML_MODEL_MAX_KEYS; k++)
    {
      g_string_append_printf (s, "d%d = d%d", k, k - 1);
      for (int j = 0; j < 40; j++)
        g_string_append_printf (s, " + sin(%d*u + %d)", k, j);
      g_string_append_c (s, '\n');
    }
  g_string_append_printf (s, SMALL_ALGEBROID "[dynamics]\nlagrangian = u^2/2 + d%d\n", CML_MODEL_MAX_KEYS - 1);
  g_autofree char *path = write_model ("budget.cml", s->str, s->len);
  g_string_free (s, TRUE);
  assert_refused (path, "with the definitions substituted, the expressions take more than 64 MB", 0);
}

/* A model whose Jacobian has about 10⁵ entries: its C would be several megabytes (the
 * compiler then ran for minutes).  It loads; its right-hand side is native code, and its
 * Jacobian, derived when first asked for, runs in the interpreter. */
static void
test_native_too_large (void)
{
  if (!in_subprocess ())
    return;
  GString *s = g_string_new (HEAD "[algebroid]\nbase = ");
  for (int i = 0; i < CML_MODEL_MAX_BASE; i++)
    g_string_append_printf (s, "%sx%d", i ? ", " : "", i);
  g_string_append (s, "\nfibre = u0, u1, u2, u3, u4, u5, u6, u7\n\n[anchor]\n");
  for (int a = 0; a < 8; a++)
    g_string_append_printf (s, "e%d = x%d: 1\n", a + 1, a);
  g_string_append (s, "\n[dynamics]\nlagrangian = (u0^2 + u1^2 + u2^2 + u3^2 + u4^2 + u5^2 + u6^2 + u7^2)/2\n"
                      "\n[reconstruction]\n");
  for (int k = 0; k < 120; k++)
    g_string_append_printf (s, "r%d = u%d*x%d\n", k, k % 8, k);
  g_autofree char *path = write_model ("native.cml", s->str, s->len);
  g_string_free (s, TRUE);

  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  const char *why = cml_system_jacobian_status (sys);
  g_assert_nonnull (why);
  g_test_message ("the Jacobian's native status: %s", why);
  if (cml_native_available ())
    {
      g_assert_null (cml_system_native_status (sys));
      g_assert_nonnull (strstr (why, "MB of C, more than 4 MB"));
    }
  else
    g_assert_nonnull (cml_system_native_status (sys));
}

/* A potential whose equations are finite but whose Jacobian is not computable in double
 * precision (x^1e200: its second derivative's coefficient overflows).  It loads and runs
 * with the explicit methods and the implicit midpoint rule (which does without a
 * Jacobian); msbdf, which needs one, is refused at the Lagrangian's line, saying why. */
static void
test_jacobian_overflow (void)
{
  static const char text[] = HEAD SMALL_ALGEBROID "[dynamics]\nlagrangian = u^2/2 - x^1e200\n\n"
                             "[initial]\nx = 0.5\nu = 0.25\n";
  g_autofree char *path = write_model ("jacobian-overflow.cml", text, -1);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlIntegratorOptions o = cml_integrator_options_default ();

  /* x^1e200 and its derivative vanish at x = 0.5: the ball moves at u = 0.25 */
  g_assert_true (cml_simulation_advance (sim, 1.0, &error));
  g_assert_cmpfloat_with_epsilon (cml_simulation_get_state (sim)[0], 0.75, 1e-12);
  const char *why = cml_system_jacobian_status (sys);
  g_assert_nonnull (why);
  g_assert_nonnull (strstr (why, "not finite"));
  o.kind = CML_INTEGRATOR_MSBDF;
  g_assert_false (cml_simulation_set_integrator (sim, &o, &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "jacobian-overflow.cml:13: msbdf needs the exact Jacobian"));
  g_assert_nonnull (strstr (error->message, "not finite"));
  g_clear_error (&error);
  o.kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_true (cml_simulation_advance (sim, 2.0, &error));
  g_assert_no_error (error);
}

/* A system whose equations are too large to differentiate exactly — the 50-link pendulum of
 * the scaling benchmark — says so instead of deriving its Jacobian (174 s and 1.5 GB for a
 * stiffness hint, before the bound); the explicit methods run without it, msbdf is refused
 * with the reason. */
static void
test_jacobian_too_large (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "bench", "models", "pendulum",
                                                 "pendulum-50.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) sim = sim_from_model (model);
  CmlIntegratorOptions o = cml_integrator_options_default ();
  const char *why = cml_system_jacobian_status (cml_simulation_get_system (sim));

  g_assert_nonnull (why);
  g_test_message ("%s", why);
  g_assert_nonnull (strstr (why, "too large to differentiate exactly"));
  o.kind = CML_INTEGRATOR_MSBDF;
  g_assert_false (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_nonnull (strstr (error->message, "msbdf needs the exact Jacobian"));
  g_clear_error (&error);
  o.kind = CML_INTEGRATOR_RK8PD;
  o.stats = NULL;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_true (cml_simulation_advance (sim, 0.01, &error));
  g_assert_no_error (error);
}

/* The estimate is at least what cml_program_emit_c writes, and not far above. */
static void
test_estimate_c_size (void)
{
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  int ids[3] = { cml_expr_ctx_intern (ctx, "t"), cml_expr_ctx_intern (ctx, "x"), cml_expr_ctx_intern (ctx, "y") };
  int k = cml_expr_ctx_intern (ctx, "k");
  CmlExpr *out[200];
  g_autoptr (GError) error = NULL;

  for (int i = 0; i < 200; i++)
    {
      g_autofree char *text = g_strdup_printf ("sin(%d*x + y)^3/(k + %d.123456789*t) + exp(-y*x^%d)", i, i, i % 7);
      out[i] = cml_expr_parse (ctx, text, NULL, &error);
      g_assert_no_error (error);
    }
  CmlProgram *prog = cml_program_compile (ctx, out, 200, &k, 1, ids, 3, &error);
  g_assert_no_error (error);
  g_autoptr (GString) s = g_string_new (NULL);
  g_assert_true (cml_program_emit_c (prog, "cml_rhs", 2, 100, s));
  gsize estimate = cml_program_estimate_c_size (prog, "cml_rhs");
  g_test_message ("emitted %" G_GSIZE_FORMAT " bytes, estimated %" G_GSIZE_FORMAT, s->len, estimate);
  g_assert_cmpuint (estimate, >=, s->len);
  g_assert_cmpuint (estimate, <=, 4 * s->len);
  cml_program_free (prog);
}

/* A UTF-8 byte-order mark at the start (some editors write one) is skipped: it once gave
 * an error quoting an invisible character. */
static void
test_byte_order_mark (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = write_model ("bom.cml", "\xef\xbb\xbf" HEAD SMALL_ALGEBROID SMALL_DYNAMICS, -1);
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (model->name, ==, "hostile");

  /* and errors still name the right line and column */
  g_autofree char *bad = write_model ("bom-bad.cml", "\xef\xbb\xbf" HEAD SMALL_ALGEBROID "[dynamics]\nlagrangian = u^2/2 + $\n", -1);
  g_autoptr (GError) error2 = NULL;
  g_autoptr (CmlModel) m2 = cml_model_new_from_file (bad, &error2);
  g_assert_null (m2);
  g_autofree char *where = g_strdup_printf ("%s:13:22:", bad);
  g_test_message ("%s", error2->message);
  g_assert_true (g_str_has_prefix (error2->message, where));
}

/* ---- sessions ------------------------------------------------------------------------- */

static char *
write_session (const char *name, const char *integrator_extra, const char *view)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *data = NULL;

  g_key_file_set_string (kf, "session", "format", CML_SESSION_FORMAT);
  g_key_file_set_string (kf, "session", "model", HEAD SMALL_ALGEBROID SMALL_DYNAMICS);
  g_key_file_set_string (kf, "integrator", "kind", "rk8pd");
  data = g_key_file_to_data (kf, NULL, NULL);
  /* appended by hand: GKeyFile would write them its own way */
  g_autoptr (GString) s = g_string_new (data);
  if (integrator_extra)
    {
      char *at = strstr (s->str, "[integrator]\n");
      g_string_insert (s, at - s->str + strlen ("[integrator]\n"), integrator_extra);
    }
  if (view)
    g_string_append_printf (s, "\n[view]\n%s", view);
  return write_model (name, s->str, s->len);
}

static void
test_session_project_not_boolean (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = write_session ("project.cmls", "project = maybe\n", NULL);
  g_autoptr (CmlSession) s = cml_session_load (path, &error);

  /* "maybe" silently turned projection off */
  g_assert_null (s);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  int line = 1;
  for (const char *c = text; c < strstr (text, "project = maybe"); c++)
    line += *c == '\n';
  g_autofree char *where = g_strdup_printf ("%s:%d:", path, line);
  g_assert_true (g_str_has_prefix (error->message, where));
  g_assert_nonnull (strstr (error->message, "project must be true or false, not “maybe”"));

  g_autoptr (GError) error2 = NULL;
  g_autofree char *ok_path = write_session ("project-ok.cmls", "project = false\n", NULL);
  g_autoptr (CmlSession) ok = cml_session_load (ok_path, &error2);
  g_assert_no_error (error2);
  g_assert_false (ok->integrator.project);
}

static void
test_session_view_bounded (void)
{
  if (!in_subprocess ())
    return;
  /* 10⁵ plots, as entries */
  GString *v = g_string_new (NULL);
  for (int k = 0; k < 100000; k++)
    g_string_append_printf (v, "plot%d-y = x\n", k);
  g_autofree char *path = write_session ("view.cmls", NULL, v->str);
  g_string_free (v, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSession) s = cml_session_load (path, &error);
  g_assert_null (s);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "[view] has 100000 entries, more than 64"));

  /* 10⁵ plots, as one list */
  GString *list = g_string_new ("time-plot-y = x");
  for (int k = 0; k < 100000; k++)
    g_string_append (list, ",x");
  g_string_append_c (list, '\n');
  g_autofree char *path2 = write_session ("view-list.cmls", NULL, list->str);
  g_string_free (list, TRUE);
  g_autoptr (GError) error2 = NULL;
  g_autoptr (CmlSession) s2 = cml_session_load (path2, &error2);
  g_assert_null (s2);
  g_test_message ("%s", error2->message);
  g_assert_nonnull (strstr (error2->message, "[view] time-plot-y is longer than 4096 bytes"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("cmlab-test-limits-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/models/limits/file-too-large", test_file_too_large);
  g_test_add_func ("/models/limits/dev-zero", test_dev_zero);
  g_test_add_func ("/models/limits/many-parameters", test_many_parameters);
  g_test_add_func ("/models/limits/many-reconstruction-variables", test_many_reconstruction);
  g_test_add_func ("/models/limits/reconstruction-dimension", test_reconstruction_dimension);
  g_test_add_func ("/models/limits/fibre-dimension", test_fibre_dimension);
  g_test_add_func ("/models/limits/base-dimension", test_base_dimension);
  g_test_add_func ("/models/limits/chained-definitions", test_chained_definitions);
  g_test_add_func ("/models/limits/definitions-expression-budget", test_definitions_expression_budget);
  g_test_add_func ("/models/limits/native-too-large", test_native_too_large);
  g_test_add_func ("/models/limits/jacobian-overflow", test_jacobian_overflow);
  g_test_add_func ("/models/limits/jacobian-too-large", test_jacobian_too_large);
  g_test_add_func ("/models/limits/estimate-c-size", test_estimate_c_size);
  g_test_add_func ("/models/limits/byte-order-mark", test_byte_order_mark);
  g_test_add_func ("/models/limits/session-project-not-boolean", test_session_project_not_boolean);
  g_test_add_func ("/models/limits/session-view-bounded", test_session_view_bounded);

  int status = g_test_run ();
  cache_dir_remove (tmp_dir);
  g_free (tmp_dir);
  return status;
}
