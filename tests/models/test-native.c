/* test-native.c — native code (cml-native.c) against the interpreter.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Native code is an acceleration only: for every model in models/ it must give the same
 * right-hand side, bit for bit, as the interpreter at many states, and the same
 * trajectories with an explicit, an implicit (Jacobian) and the structure-preserving
 * integrator, with projection; the Jacobian is derived only when first asked for.  Also: the object cache is used the second time and an
 * object that does not load is rebuilt; a broken or absent compiler leaves the
 * interpreter running, with the reason.
 */
#define G_LOG_DOMAIN "test-native"

#include "physics-util.h"
#include "cache-util.h"
#include "cml-atomic-file.h"
#include "cml-native.h"
#include "cml-native-step.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static guint
cli_count (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name (d))
    n++;
  return n;
}

static const char *
require_native (void)
{
  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler: native code cannot be built here");
      return NULL;
    }
  return "ok";
}

/* Two simulations of MODEL, one native, one interpreted, at the same state. */
static void
open_pair (const char *name, CmlSimulation **native, CmlSimulation **interp)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  const char *why = cml_system_native_status (sys);
  if (why != NULL)
    g_error ("%s: no native code: %s", name, why);
  *native = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  *interp = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_is_native (*native));
  g_assert_false (cml_simulation_set_native (*interp, FALSE));
  g_assert_false (cml_simulation_is_native (*interp));
}

static gboolean
same_bits (const double *a, const double *b, guint n, guint *where)
{
  for (guint i = 0; i < n; i++)
    if (memcmp (&a[i], &b[i], sizeof (double)) != 0)
      {
        *where = i;
        return FALSE;
      }
  return TRUE;
}

/* A random time in [0, 20] and, into Z, a state around Z0: each component scaled by a
 * factor within SPREAD of 1 and moved by up to SPREAD. */
static double
random_state (GRand *rand, const double *z0, guint dim, double spread, double *z)
{
  double t = g_rand_double_range (rand, 0, 20);

  for (guint i = 0; i < dim; i++)
    z[i] = z0[i] * g_rand_double_range (rand, 1 - spread, 1 + spread) + g_rand_double_range (rand, -spread, spread);
  return t;
}

static void
test_rhs_bits (gconstpointer data)
{
  const char *name = data;
  CmlSimulation *a, *b;
  g_autoptr (GRand) rand = g_rand_new_with_seed (1729);
  guint checked = 0;

  if (!require_native ())
    return;
  open_pair (name, &a, &b);
  guint dim = cml_system_dim (cml_simulation_get_system (a));
  const double *z0 = cml_simulation_get_state (a);
  g_autofree double *z = g_new (double, dim);
  g_autofree double *da = g_new (double, dim);
  g_autofree double *db = g_new (double, dim);

  for (guint k = 0; k < 512; k++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      /* around the initial state, where the right-hand side is defined */
      double t = random_state (rand, z0, dim, 0.5, z);
      guint where = 0;
      gboolean oka, okb;

      oka = cml_simulation_eval_rhs_at (a, t, z, da, &ea);
      okb = cml_simulation_eval_rhs_at (b, t, z, db, &eb);
      g_assert_cmpint (oka, ==, okb);
      if (!oka)
        {
          g_assert_cmpstr (ea->message, ==, eb->message);
          continue;
        }
      if (!same_bits (da, db, dim, &where))
        g_error ("%s: d%s/dt at t = %.17g differs: native %a, interpreter %a", name,
                 cml_system_state_name (cml_simulation_get_system (a), where), t, da[where], db[where]);
      checked++;
    }
  g_assert_cmpuint (checked, >=, 256);
  cml_simulation_free (a);
  cml_simulation_free (b);
}

static void
test_trajectory_bits (gconstpointer data)
{
  const char *name = data;
  static const CmlIntegratorKind kinds[] = {
    CML_INTEGRATOR_RK8PD, CML_INTEGRATOR_MSBDF, CML_INTEGRATOR_IMPLICIT_MIDPOINT,
  };
  guint ran = 0;

  if (!require_native ())
    return;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      CmlSimulation *a, *b;
      CmlIntegratorOptions o = cml_integrator_options_default ();
      g_autoptr (GError) error = NULL;
      guint where = 0;

      open_pair (name, &a, &b);
      o.kind = kinds[k];
      o.rtol = o.atol = 1e-9;
      o.h_fixed = 1e-3;
      if (!cml_simulation_set_integrator (a, &o, &error))
        {
          /* msbdf needs an exact Jacobian, which Newton-solved systems do not have */
          g_test_message ("%s: %s: %s", name, cml_integrator_kind_to_string (kinds[k]), error->message);
          cml_simulation_free (a);
          cml_simulation_free (b);
          continue;
        }
      g_assert_true (cml_simulation_set_integrator (b, &o, &error));
      g_assert_no_error (error);
      if (kinds[k] != CML_INTEGRATOR_RK8PD)
        {
          /* the Jacobian the implicit methods take: native code in a, the interpreter in b */
          const char *why = cml_system_jacobian_status (cml_simulation_get_system (a));
          if (why != NULL)
            g_error ("%s: the Jacobian has no native code: %s", name, why);
        }
      g_assert_true (cml_simulation_reset (a, NULL, &error));
      g_assert_true (cml_simulation_reset (b, NULL, &error));
      gboolean oka = cml_simulation_advance (a, 1.0, NULL);
      gboolean okb = cml_simulation_advance (b, 1.0, NULL);
      g_assert_cmpint (oka, ==, okb);
      guint dim = cml_system_dim (cml_simulation_get_system (a));
      g_assert_cmpfloat (cml_simulation_get_time (a), ==, cml_simulation_get_time (b));
      g_assert_cmpuint (cml_simulation_n_rhs (a), ==, cml_simulation_n_rhs (b));
      if (!same_bits (cml_simulation_get_state (a), cml_simulation_get_state (b), dim, &where))
        g_error ("%s with %s: %s differs after t = 1: native %a, interpreter %a", name,
                 cml_integrator_kind_to_string (kinds[k]),
                 cml_system_state_name (cml_simulation_get_system (a), where),
                 cml_simulation_get_state (a)[where], cml_simulation_get_state (b)[where]);
      g_assert_cmpfloat (cml_simulation_residual (a), ==, cml_simulation_residual (b));
      ran++;
      cml_simulation_free (a);
      cml_simulation_free (b);
    }
  g_assert_cmpuint (ran, >=, 2);
}

/* The observables (state, monitors, closed forms' inputs): native code gives the
 * interpreter's numbers bit for bit at states around the initial one. */
static void
test_observables_bits (gconstpointer data)
{
  const char *name = data;
  CmlSimulation *a, *b;
  g_autoptr (GRand) rand = g_rand_new_with_seed (6174);

  if (!require_native ())
    return;
  open_pair (name, &a, &b);
  CmlSystem *sys = cml_simulation_get_system (a);
  guint dim = cml_system_dim (sys), n_obs = cml_system_n_observables (sys);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (a), dim * sizeof (double));
  g_autofree double *z = g_new (double, dim);
  g_autofree double *oa = g_new (double, n_obs);
  g_autofree double *ob = g_new (double, n_obs);

  g_assert_cmpuint (n_obs, >, dim);
  for (guint k = 0; k < 256; k++)
    {
      double t = random_state (rand, z0, dim, 0.5, z);
      guint where = 0;

      cml_simulation_set_state (a, t, z);
      cml_simulation_set_state (b, t, z);
      cml_simulation_observe (a, oa);
      cml_simulation_observe (b, ob);
      if (!same_bits (oa, ob, n_obs, &where))
        g_error ("%s: observable %s at t = %.17g differs: native %a, interpreter %a", name,
                 cml_system_observable_name (sys, where), t, oa[where], ob[where]);
    }
  cml_simulation_free (a);
  cml_simulation_free (b);
}

/* The projection onto the constraint set and unit quaternions: native code (the text of
 * cml-project-core.h around the compiled constraint functions, with the sizes as
 * constants) moves every state to the same numbers as the library's text around the
 * interpreter, or fails with the same reason — at states off the constraint set, and at
 * one that is not finite. */
static void
test_projection_bits (gconstpointer data)
{
  const char *name = data;
  CmlSimulation *a, *b;
  g_autoptr (GRand) rand = g_rand_new_with_seed (4104);
  guint moved = 0;

  if (!require_native ())
    return;
  open_pair (name, &a, &b);
  CmlSystem *sys = cml_simulation_get_system (a);
  const CmlModel *md = cml_system_get_model (sys);
  /* quaternions or nonholonomic constraints are projected (and the constraints the
   * constraint algorithm finds; a vakonomic system's are solved for its velocities) */
  gboolean projects = md->quaternions->len >= 4 || md->kind == CML_CONSTRAINTS_NONHOLONOMIC;
  guint dim = cml_system_dim (sys);
  const double *z0 = cml_simulation_get_state (a);
  g_autofree double *za = g_new (double, dim);
  g_autofree double *zb = g_new (double, dim);
  /* (both projected their initial state natively when they were made) */
  guint64 before = cml_simulation_n_native_projections (a), before_b = cml_simulation_n_native_projections (b);

  for (guint k = 0; k < 257; k++)
    {
      g_autoptr (GError) ea = NULL;
      g_autoptr (GError) eb = NULL;
      double t = random_state (rand, z0, dim, 0.1, za);
      guint where = 0;

      if (k == 256)
        za[dim - 1] = NAN; /* the last: not finite */
      memcpy (zb, za, dim * sizeof (double));
      gboolean oka = cml_simulation_project (a, t, za, &ea);
      gboolean okb = cml_simulation_project (b, t, zb, &eb);
      g_assert_cmpint (oka, ==, okb);
      if (!oka)
        g_assert_cmpstr (ea->message, ==, eb->message);
      if (!same_bits (za, zb, dim, &where))
        g_error ("%s: %s projected at t = %.17g differs: native %a, interpreter %a", name,
                 cml_system_state_name (sys, where), t, za[where], zb[where]);
      if (oka)
        moved++;
    }
  /* native code made the projections of the one, the library's text those of the other */
  guint64 n_native = cml_simulation_n_native_projections (a) - before;
  g_assert_true (n_native == 257 || (n_native == 0 && !projects));
  projects = n_native > 0;
  g_assert_cmpuint (cml_simulation_n_native_projections (b), ==, before_b);
  if (projects)
    g_assert_cmpuint (moved, >=, 128);
  cml_simulation_free (a);
  cml_simulation_free (b);
}

/* The pivots of the symbolic solve: those that depend on parameters only are checked when
 * the parameters change, the others at every call — either way a zero one stops the run,
 * natively and interpreted alike. */
static void
test_pivots (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (cml_model_builtin_dir (), "rigid-body.cml", NULL);
  g_autofree char *text = NULL;

  if (!require_native ())
    return;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  /* let I2 reach 0, which its declared range forbids */
  char *line = strstr (text, "\nI2 = 2 | 0.1 .. 10 |");
  g_assert_nonnull (line);
  memcpy (line + strlen ("\nI2 = 2 | "), "-10", 3);
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "rigid-body-I2.cml", &error);
  g_assert_no_error (error);

  for (int native = 0; native < 2; native++)
    {
      g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
      g_assert_no_error (error);
      CmlSimulation *sim = cml_simulation_new (sys, &error);
      g_assert_no_error (error);
      double dz[16];
      cml_simulation_set_native (sim, native);
      g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_true (cml_simulation_set_param (sim, "I2", 0.0, &error));
      g_assert_no_error (error);
      g_assert_false (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
      g_assert_nonnull (strstr (error->message, "is singular"));
      g_clear_error (&error);
      g_assert_false (cml_simulation_advance (sim, 1.0, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
      /* a valid value again: the run goes on */
      g_assert_true (cml_simulation_set_param (sim, "I2", 2.0, &error));
      g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_no_error (error);
      cml_simulation_free (sim);
    }

  /* a state-dependent pivot: m2 ρ² of Capri–Kobayashi at ρ = 0 */
  {
    CmlSimulation *a, *b;
    open_pair ("capri-kobayashi", &a, &b);
    CmlSystem *sys = cml_simulation_get_system (a);
    guint dim = cml_system_dim (sys);
    g_autofree double *z = g_memdup2 (cml_simulation_get_state (a), dim * sizeof (double));
    g_autofree double *dz = g_new (double, dim);
    for (guint i = 0; i < dim; i++)
      if (g_str_equal (cml_system_state_name (sys, i), "rho"))
        z[i] = 0;
    for (int k = 0; k < 2; k++)
      {
        g_assert_false (cml_simulation_eval_rhs_at (k ? a : b, 0.0, z, dz, &error));
        g_assert_nonnull (strstr (error->message, "is singular"));
        g_clear_error (&error);
      }
    cml_simulation_free (a);
    cml_simulation_free (b);
  }
}

/* The cache: a second system of the same model loads the object built for the first; an
 * object that does not load is replaced. */
static void
test_cache (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");

  g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
  g_assert_no_error (error);

  g_autoptr (CmlNative) first = NULL;
  g_autoptr (GString) src = g_string_new ("void f (double t, const double *z, const double *aux,"
                                          " const double *R, double *o0, double *o1)"
                                          " { o0[0] = z[0] * 1.2345; }\n");
  first = cml_native_build (src->str, &error);
  g_assert_no_error (error);
  g_assert_false (cml_native_was_cached (first));
  g_autofree char *path = g_strdup (cml_native_path (first));
  g_assert_true (g_str_has_prefix (path, dir));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  {
    CmlNativeFunc f = cml_native_lookup (first, "f");
    double z = 2, out = 0;
    g_assert_nonnull (f);
    f (0, &z, NULL, NULL, &out, NULL);
    g_assert_cmpfloat (out, ==, 2 * 1.2345);
    g_assert_null (cml_native_lookup (first, "no_such_function"));
  }
  g_clear_pointer (&first, cml_native_free);

  g_autoptr (CmlNative) second = cml_native_build (src->str, &error);
  g_assert_no_error (error);
  g_assert_true (cml_native_was_cached (second));
  g_clear_pointer (&second, cml_native_free);

  /* a damaged object (a truncated write, a disk error) is rebuilt, not trusted */
  g_assert_true (g_file_set_contents (path, "not an object", -1, &error));
  g_autoptr (CmlNative) third = cml_native_build (src->str, &error);
  g_assert_no_error (error);
  g_assert_false (cml_native_was_cached (third));
  g_assert_nonnull (cml_native_lookup (third, "f"));
  g_clear_pointer (&third, cml_native_free);

  /* a whole model through the (new) cache */
  {
    g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
    g_assert_no_error (error);
    g_assert_null (cml_system_native_status (sys));
  }

  /* no temporary files left behind */
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, &error);
    const char *e;
    guint n = 0;
    g_assert_no_error (error);
    while ((e = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (dir, e, NULL);
        g_assert_true (g_str_has_suffix (e, ".so") || g_str_has_suffix (e, ".c")
                       || g_str_has_suffix (e, ".so.sha256") || g_str_has_suffix (e, ".key"));
        g_unlink (p);
        n++;
      }
    /* two objects, each with its source and digest, and the system's memo (its text is
     * in the derived-system cache) */
    g_assert_cmpuint (n, ==, 7);
  }
  cache_dir_remove (dir);
}

/* ---- the cache is ours only ------------------------------------------------------------ */

/* A function F returning z[0] × FACTOR, as a source for cml_native_build. */
static char *
source_times (const char *factor)
{
  return g_strdup_printf ("void f (double t, const double *z, const double *aux, const double *R,"
                          " double *o0, double *o1) { o0[0] = z[0] * %s; }\n", factor);
}

static double
run_f (CmlNative *native)
{
  CmlNativeFunc f = cml_native_lookup (native, "f");
  double z = 2, out = 0;
  g_assert_nonnull (f);
  f (0, &z, NULL, NULL, &out, NULL);
  return out;
}

static guint64
dir_bytes (const char *dir, guint *n_objects)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;
  guint64 total = 0;
  *n_objects = 0;
  while (d && (e = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, e, NULL);
      GStatBuf st;
      g_assert_cmpint (g_lstat (p, &st), ==, 0);
      total += st.st_size;
      *n_objects += g_str_has_suffix (e, ".so");
    }
  return total;
}

/* An object planted under the name of another source's object is never loaded: its
 * digest does not match, it is rebuilt. */
static void
test_planted_object (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *src_a = source_times ("3.0"), *src_b = source_times ("5.0");
  g_autofree char *path_a = NULL, *bytes_b = NULL;
  gsize len_b = 0;

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  {
    g_autoptr (CmlNative) a = cml_native_build (src_a, &error);
    g_assert_no_error (error);
    path_a = g_strdup (cml_native_path (a));
    g_autoptr (CmlNative) b = cml_native_build (src_b, &error);
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (cml_native_path (b), &bytes_b, &len_b, &error));
  }
  for (int round = 0; round < 2; round++)
    {
      /* round 0: the planted object beside A's digest; round 1: without any digest */
      if (round == 1)
        {
          g_autofree char *digest = g_strconcat (path_a, ".sha256", NULL);
          g_unlink (digest);
        }
      g_assert_true (g_file_set_contents (path_a, bytes_b, len_b, &error));
      g_autoptr (CmlNative) again = cml_native_build (src_a, &error);
      g_assert_no_error (error);
      g_assert_false (cml_native_was_cached (again));
      g_assert_cmpfloat (run_f (again), ==, 6.0);
    }
  /* and the rebuilt one is found the next time */
  {
    g_autoptr (CmlNative) a = cml_native_build (src_a, &error);
    g_assert_no_error (error);
    g_assert_true (cml_native_was_cached (a));
    g_assert_cmpfloat (run_f (a), ==, 6.0);
  }
  cache_dir_remove (dir);
}

/* A cache directory others may write to, a symbolic link, or someone else's: not used
 * (the interpreter runs), with one line on standard error. */
static void
test_unsafe_cache (void)
{
  if (!require_native ())
    return;
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *base = g_dir_make_tmp ("cmlab-native-XXXXXX", NULL);
      g_autofree char *open_dir = g_build_filename (base, "open", NULL);
      g_autofree char *link = g_build_filename (base, "link", NULL);
      g_autofree char *mine = g_build_filename (base, "mine", NULL);
      g_autofree char *src = source_times ("7.0");

      g_assert_cmpint (g_mkdir (open_dir, 0700), ==, 0);
      g_assert_cmpint (g_chmod (open_dir, 0777), ==, 0);
      g_setenv ("CMLAB_NATIVE_CACHE", open_dir, TRUE);
      g_assert_null (cml_native_build (src, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, open_dir));
      g_clear_error (&error);
      g_assert_cmpuint (cli_count (open_dir), ==, 0);

      /* a whole model runs interpreted, with the reason */
      {
        g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
        g_assert_no_error (error);
        g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
        g_assert_no_error (error);
        g_assert_nonnull (cml_system_native_status (sys));
        CmlSimulation *sim = cml_simulation_new (sys, &error);
        g_assert_false (cml_simulation_is_native (sim));
        g_assert_true (cml_simulation_advance (sim, 0.5, &error));
        cml_simulation_free (sim);
      }

      g_assert_cmpint (g_chmod (open_dir, 0770), ==, 0);
      g_assert_null (cml_native_build (src, &error));
      g_clear_error (&error);

      g_assert_cmpint (g_mkdir (mine, 0700), ==, 0);
      g_assert_cmpint (symlink (mine, link), ==, 0);
      g_setenv ("CMLAB_NATIVE_CACHE", link, TRUE);
      g_assert_null (cml_native_build (src, &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
      g_assert_cmpuint (cli_count (mine), ==, 0);

      if (geteuid () == 0)
        {
          g_assert_cmpint (chown (mine, 65534, 65534), ==, 0);
          g_setenv ("CMLAB_NATIVE_CACHE", mine, TRUE);
          g_assert_null (cml_native_build (src, &error));
          g_assert_nonnull (error);
          g_clear_error (&error);
        }

      /* a new cache is made private */
      {
        g_autofree char *fresh = g_build_filename (base, "new", "native", NULL);
        GStatBuf st;
        g_setenv ("CMLAB_NATIVE_CACHE", fresh, TRUE);
        g_autoptr (CmlNative) ok = cml_native_build (src, &error);
        g_assert_no_error (error);
        g_assert_cmpint (g_stat (fresh, &st), ==, 0);
        g_assert_cmpint (st.st_mode & 0777, ==, 0700);
        g_assert_cmpfloat (run_f (ok), ==, 14.0);
        cache_dir_remove (fresh);
        g_autofree char *parent = g_path_get_dirname (fresh);
        g_rmdir (parent);
      }
      g_rmdir (open_dir);
      g_unlink (link);
      g_rmdir (mine);
      g_rmdir (base);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  /* one line, once */
  g_test_trap_assert_stderr ("*native-code cache*interpreter*");
  g_test_trap_assert_stderr_unmatched ("*\n*\n*");
}

/* ---- the memo: an object found by what fixes its source ------------------------------- */

static guint n_sources;

/* A source for cml_native_build_keyed: the text DATA, counted. */
static gboolean
counted_source (gpointer data, GString *s)
{
  n_sources++;
  g_string_append (s, data);
  return TRUE;
}

/* The memo files of DIR: the one there is. */
static char *
memo_file (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;
  char *found = NULL;
  while (d && (e = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (e, ".key"))
      {
        g_assert_null (found);
        found = g_build_filename (dir, e, NULL);
      }
  g_assert_nonnull (found);
  return found;
}

/* The second build of one key writes no source: the memo names the object, the same one
 * cml_native_build finds for the source; a damaged
 * object is built again from the source; with $CMLAB_NATIVE_MEMO_CHECK=1 a memo whose
 * object was built for the key from another source than the key's now is refused
 * loudly. */
static void
test_memo (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *src = source_times ("3.0"), *other = source_times ("5.0");
  g_autofree char *check = g_strdup (g_getenv ("CMLAB_NATIVE_MEMO_CHECK"));

  if (!require_native ())
    return;
  if (g_test_subprocess ())
    {
      /* the key said to fix the source, but another source comes with it */
      g_autoptr (CmlNative) a = cml_native_build_keyed ("a key", counted_source, src, &error);
      g_setenv ("CMLAB_NATIVE_MEMO_CHECK", "1", TRUE);
      g_autoptr (CmlNative) c = cml_native_build_keyed ("a key", counted_source, other, &error);
      return;
    }
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  g_unsetenv ("CMLAB_NATIVE_MEMO_CHECK");
  n_sources = 0;
  g_autoptr (CmlNative) a = cml_native_build_keyed ("a key", counted_source, src, &error);
  g_assert_no_error (error);
  g_assert_false (cml_native_was_cached (a));
  g_assert_cmpuint (n_sources, ==, 1);
  g_assert_cmpfloat (run_f (a), ==, 6.0);

  g_autoptr (CmlNative) b = cml_native_build_keyed ("a key", counted_source, src, &error);
  g_assert_no_error (error);
  g_assert_true (cml_native_was_cached (b));
  g_assert_cmpuint (n_sources, ==, 1);
  g_assert_cmpstr (cml_native_path (b), ==, cml_native_path (a));
  /* the object of the source, whatever key led to it */
  g_autoptr (CmlNative) c = cml_native_build (src, &error);
  g_assert_cmpstr (cml_native_path (c), ==, cml_native_path (a));

  /* no key: the source is written */
  g_autoptr (CmlNative) d = cml_native_build_keyed (NULL, counted_source, src, &error);
  g_assert_cmpuint (n_sources, ==, 2);
  g_assert_cmpstr (cml_native_path (d), ==, cml_native_path (a));

  /* the object the memo names is damaged: built again from the source */
  g_assert_true (g_file_set_contents (cml_native_path (a), "not an object", -1, &error));
  g_autoptr (CmlNative) e = cml_native_build_keyed ("a key", counted_source, src, &error);
  g_assert_no_error (error);
  g_assert_false (cml_native_was_cached (e));
  g_assert_cmpuint (n_sources, ==, 3);
  g_assert_cmpfloat (run_f (e), ==, 6.0);
  g_clear_pointer (&a, cml_native_free);
  g_clear_pointer (&b, cml_native_free);
  g_clear_pointer (&c, cml_native_free);
  g_clear_pointer (&d, cml_native_free);
  g_clear_pointer (&e, cml_native_free);
  cache_dir_remove (dir);
  if (check)
    g_setenv ("CMLAB_NATIVE_MEMO_CHECK", check, TRUE);

  g_autofree char *dir2 = cache_dir_new ("CMLAB_NATIVE_CACHE");
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*memo*names*but its source is*");
  cache_dir_remove (dir2);
}

/* A memo that names the object of another key — another model's, with its own valid
 * digest (a cache restored from elsewhere, a memo written by hand) — is not trusted, with
 * or without $CMLAB_NATIVE_MEMO_CHECK: the object is built for this key and gives this
 * source's numbers, and the memo is written again. */
static void
test_memo_of_another_object (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *src = source_times ("3.0"), *other = source_times ("5.0");
  g_autofree char *check = g_strdup (g_getenv ("CMLAB_NATIVE_MEMO_CHECK"));

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  g_unsetenv ("CMLAB_NATIVE_MEMO_CHECK");
  n_sources = 0;
  g_autoptr (CmlNative) a = cml_native_build_keyed ("model a", counted_source, src, &error);
  g_assert_no_error (error);
  g_autofree char *memo = memo_file (dir);
  g_autoptr (CmlNative) b = cml_native_build_keyed ("model b", counted_source, other, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (run_f (b), ==, 10.0);
  g_assert_cmpuint (n_sources, ==, 2);
  g_autofree char *base_b = g_path_get_basename (cml_native_path (b));
  g_autofree char *line = g_strdup_printf ("%.64s\n", base_b);
  g_clear_pointer (&a, cml_native_free);
  g_clear_pointer (&b, cml_native_free);

  /* A's memo names B's object, whose digest is B's own and right */
  g_assert_true (g_file_set_contents (memo, line, -1, &error));
  for (int round = 0; round < 2; round++)
    {
      g_autoptr (CmlNative) again = cml_native_build_keyed ("model a", counted_source, src, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (run_f (again), ==, 6.0);
      /* round 0 wrote the source again (and found A's object by it) and the memo anew;
       * round 1 found A's object through the memo */
      g_assert_cmpuint (n_sources, ==, 3);
      g_autofree char *now = NULL;
      g_assert_true (g_file_get_contents (memo, &now, NULL, NULL));
      g_assert_cmpstr (now, !=, line);
    }
  /* B is untouched */
  {
    g_autoptr (CmlNative) bb = cml_native_build_keyed ("model b", counted_source, other, &error);
    g_assert_no_error (error);
    g_assert_true (cml_native_was_cached (bb));
    g_assert_cmpfloat (run_f (bb), ==, 10.0);
  }
  cache_dir_remove (dir);
  if (check)
    g_setenv ("CMLAB_NATIVE_MEMO_CHECK", check, TRUE);
}

/* Two users of one object, the first gone, then another object: each runs its own code.
 * (The loader knows an object by the name it was opened with, /proc/self/fd/N: a number
 * given back while the object is still loaded for its other user would have named it
 * again for the next object.) */
static void
test_object_shared (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *src_a = source_times ("3.0"), *src_b = source_times ("5.0");

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  CmlNative *a1 = cml_native_build (src_a, &error);
  g_assert_no_error (error);
  g_autoptr (CmlNative) a2 = cml_native_build (src_a, &error);
  g_assert_no_error (error);
  g_assert_true (cml_native_was_cached (a2));
  cml_native_free (a1);
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (CmlNative) b = cml_native_build (src_b, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (run_f (b), ==, 10.0);
      g_assert_cmpfloat (run_f (a2), ==, 6.0);
    }
  g_clear_pointer (&a2, cml_native_free);
  cache_dir_remove (dir);
}

/* ---- the cache directory exchanged under a running build -------------------------------- */

static volatile gint swapping;

/* Exchanges the two directories of DATA (a NULL-terminated pair) until told to stop. */
static gpointer
swap_dirs (gpointer data)
{
  char **pair = data;
  guint64 n = 0;
  while (g_atomic_int_get (&swapping))
    if (syscall (SYS_renameat2, AT_FDCWD, pair[0], AT_FDCWD, pair[1], 2 /* RENAME_EXCHANGE */) == 0)
      n++;
  return GSIZE_TO_POINTER ((gsize) n);
}

/* Whether the directory DIR is the cache's own (0700), not the one planted (0777). */
static gboolean
is_private (const char *dir)
{
  GStatBuf st;
  return g_lstat (dir, &st) == 0 && (st.st_mode & 0777) == 0700;
}

/* The cache directory is exchanged, again and again while objects are loaded from it, with
 * a directory holding an object with a constructor, planted under the name of the right
 * object with a matching digest and stamp (what another member of a group could do where
 * the cache's parent is a group folder, with renameat2 (RENAME_EXCHANGE)).  The cache is
 * checked on the descriptor everything is then reached from: the planted object never
 * runs, whichever directory a build happens to open.  (Bounded: a fixed number of
 * builds; whether the race is hit does not decide the result.) */
static void
test_exchanged_cache (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *base = NULL, *cache = NULL, *evil = NULL, *marker = NULL, *src = source_times ("3.0");
  g_autofree char *record_text = NULL, *evil_c = NULL, *evil_so = NULL;
  g_autofree char *hash = NULL;

  if (!require_native ())
    return;
  base = cache_dir_new ("CMLAB_NATIVE_CACHE");
  cache = g_build_filename (base, "cache", NULL);
  evil = g_build_filename (base, "planted", NULL);
  marker = g_build_filename (base, "constructor-ran", NULL);
  g_setenv ("CMLAB_NATIVE_CACHE", cache, TRUE);
  {
    g_autoptr (CmlNative) a = cml_native_build (src, &error);
    g_assert_no_error (error);
    g_autofree char *name = g_path_get_basename (cml_native_path (a));
    hash = g_strndup (name, 64);
  }
  /* the planted object: the right name, its own digest, the real record's other fields
   * and the real stamp, and a constructor */
  {
    g_autofree char *rec = g_strdup_printf ("%s/%s.so.sha256", cache, hash);
    g_assert_true (g_file_get_contents (rec, &record_text, NULL, NULL));
  }
  g_strstrip (record_text);
  const char *fields = strchr (record_text, ' ');
  g_autofree char *stamp_value = NULL;
  {
    g_autoptr (CmlNative) a = cml_native_build (src, &error);
    gpointer stamp = (gpointer) cml_native_lookup (a, "cmlab_native_stamp");
    stamp_value = g_strdup (stamp ? (const char *) stamp : "");
  }
  g_assert_cmpint (g_mkdir (evil, 0700), ==, 0);
  evil_c = g_build_filename (base, "planted.c", NULL);
  evil_so = g_strdup_printf ("%s/%s.so", evil, hash);
  g_autofree char *code = g_strdup_printf (
    "int open (const char *, int, ...); int close (int);\n"
    "__attribute__ ((constructor)) static void planted (void)\n"
    "{ int fd = open (\"%s\", 0101, 0600); if (fd >= 0) close (fd); }\n"
    "void f (double t, const double *z, const double *aux, const double *R, double *o0, double *o1)"
    " { o0[0] = -1; }\n"
    "const char cmlab_native_stamp[] = \"%s\";\n", marker, stamp_value);
  g_assert_true (g_file_set_contents (evil_c, code, -1, NULL));
  {
    const char *argv[] = { cml_native_compiler (), "-shared", "-fPIC", "-o", evil_so, evil_c, NULL };
    int status;
    g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL));
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_autofree char *bytes = NULL;
    gsize len;
    g_assert_true (g_file_get_contents (evil_so, &bytes, &len, NULL));
    g_autofree char *digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, len);
    g_autofree char *line = g_strdup_printf ("%s%s\n", digest, fields ? fields : "");
    g_autofree char *rec = g_strdup_printf ("%s/%s.so.sha256", evil, hash);
    g_assert_true (g_file_set_contents (rec, line, -1, NULL));
  }
  /* the planted directory is writable by others: refused if it is checked */
  g_assert_cmpint (g_chmod (evil, 0777), ==, 0);

  char *pair[] = { cache, evil, NULL };
  guint loaded = 0, refused = 0;
  g_atomic_int_set (&swapping, 1);
  GThread *t = g_thread_new ("swap", swap_dirs, pair);
  for (int k = 0; k < 2000; k++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (CmlNative) n = cml_native_build (src, &e);
      if (n != NULL)
        {
          g_assert_cmpfloat (run_f (n), ==, 6.0);
          loaded++;
        }
      else
        refused++;
    }
  g_atomic_int_set (&swapping, 0);
  guint64 swaps = GPOINTER_TO_SIZE (g_thread_join (t));
  g_test_message ("%" G_GUINT64_FORMAT " exchanges; %u builds loaded the cache's object, %u found the planted "
                  "directory and refused it", swaps, loaded, refused);
  if (!is_private (cache))
    g_assert_cmpint (syscall (SYS_renameat2, AT_FDCWD, cache, AT_FDCWD, evil, 2 /* RENAME_EXCHANGE */), ==, 0);
  g_assert_true (is_private (cache));
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  cache_dir_remove (base);
}

/* The cache is kept under its size limit, the least recently used objects going first. */
static void
test_eviction (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  guint64 group;
  guint n;

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  {
    g_autofree char *src = source_times ("1.5");
    g_autoptr (CmlNative) first = cml_native_build (src, &error);
    g_assert_no_error (error);
    group = dir_bytes (dir, &n);
    g_assert_cmpuint (n, ==, 1);
  }
  /* room for two objects and a half */
  g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, group * 5 / 2);
  g_setenv ("CMLAB_NATIVE_CACHE_LIMIT", limit, TRUE);
  g_autofree char *keep_path = NULL;
  for (int k = 2; k <= 6; k++)
    {
      g_autofree char *factor = g_strdup_printf ("%d.5", k);
      g_autofree char *src = source_times (factor);
      g_autoptr (CmlNative) native = cml_native_build (src, &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (run_f (native), ==, 2 * (k + 0.5));
      guint64 bytes = dir_bytes (dir, &n);
      g_test_message ("after %d builds: %u objects, %" G_GUINT64_FORMAT " bytes (limit %s)", k, n, bytes, limit);
      g_assert_cmpuint (bytes, <=, group * 5 / 2);
      g_assert_true (g_file_test (cml_native_path (native), G_FILE_TEST_EXISTS));
      if (k == 5)
        keep_path = g_strdup (cml_native_path (native));
      if (k == 5)
        {
          /* using the object of k = 4 again makes it the most recent */
          g_autofree char *src4 = source_times ("4.5");
          g_usleep (20000);
          g_autoptr (CmlNative) again = cml_native_build (src4, &error);
          g_assert_no_error (error);
          g_assert_true (cml_native_was_cached (again));
          g_free (keep_path);
          keep_path = g_strdup (cml_native_path (again));
        }
      g_usleep (20000);
    }
  /* the last and the one used again stayed */
  g_assert_true (g_file_test (keep_path, G_FILE_TEST_EXISTS));
  g_unsetenv ("CMLAB_NATIVE_CACHE_LIMIT");
  cache_dir_remove (dir);
}

/* Partial files of killed compiles (our temporaries whose process is gone, on this host
 * and in this PID namespace, and the old-style NAME.so.XXXXXX of earlier versions) are
 * removed by the next build. */
static void
test_partial_files (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *src = source_times ("9.0");
  const char *argv[] = { "/bin/true", NULL };
  GPid pid;
  int status;

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  const char *hash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  const char *origin = cml_atomic_file_origin ();
  g_autofree char *t1 = g_strdup_printf ("%s/.%s.so.cmlab-tmp-%s-%d-aB3dE6", dir, hash, origin, (int) pid);
  g_autofree char *t2 = g_strdup_printf ("%s/.%s.c.cmlab-tmp-%s-%d-aB3dE7", dir, hash, origin, (int) pid);
  g_autofree char *old = g_strdup_printf ("%s/%s.so.Xy12Zw", dir, hash);
  g_autofree char *live = g_strdup_printf ("%s/.%s.so.cmlab-tmp-%s-%d-aB3dE8", dir, hash, origin, (int) getpid ());
  /* a dead PID of another PID namespace (a container, a node sharing the cache) is no
   * evidence: its temporary stays */
  g_autofree char *foreign = g_strdup_printf ("%s/.%s.so.cmlab-tmp-elsewhere-01234567-1-%d-aB3dE9", dir, hash, (int) pid);
  g_assert_true (g_file_set_contents (t1, "", 0, NULL));
  g_assert_true (g_file_set_contents (t2, "int x;", -1, NULL));
  g_assert_true (g_file_set_contents (old, "", 0, NULL));
  g_assert_true (g_file_set_contents (live, "", 0, NULL));
  g_assert_true (g_file_set_contents (foreign, "", 0, NULL));
  {
    /* the old-style one is two hours old: no compile takes that long */
    struct timespec times[2] = { { time (NULL) - 7200, 0 }, { time (NULL) - 7200, 0 } };
    g_assert_cmpint (utimensat (AT_FDCWD, old, times, 0), ==, 0);
  }
  g_autoptr (CmlNative) native = cml_native_build (src, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (t1, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (t2, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (foreign, G_FILE_TEST_EXISTS));
  cache_dir_remove (dir);
}

/* ---- the compiler's private directories in the cache (cml-native-workdir.c) ------------ */

/* Makes the directory NAME in DIR with MODE and, if LOCK, an empty lock file in it: the
 * directory's path. */
static char *
workdir_new (const char *dir, const char *name, int mode, gboolean lock)
{
  char *path = g_build_filename (dir, name, NULL);
  g_assert_cmpint (mkdir (path, mode), ==, 0);
  g_assert_cmpint (chmod (path, mode), ==, 0); /* whatever the umask */
  if (lock)
    {
      g_autofree char *l = g_build_filename (path, "lock", NULL);
      g_assert_true (g_file_set_contents (l, "", 0, NULL));
    }
  return path;
}

/* Before a compile, the directories of runs that ended during theirs (their lock free) are
 * removed whole — a compiler's temporaries, a subdirectory, a link (not what it points to)
 * — and so is one that never got its lock (empty), once it is a minute old; a directory whose lock
 * is held (a compile under way, here the test's) stays, and so does anything that is not
 * exactly a directory of ours of that form.  The build's own directory is gone after it. */
static void
test_workdir_sweep (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *outside = NULL, *src = source_times ("13.0");

  if (!require_native ())
    return;
  dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
  outside = g_dir_make_tmp ("cmlab-outside-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *kept = g_build_filename (outside, "kept", NULL);
  g_autofree char *kept_lock = g_build_filename (outside, "lock", NULL);
  g_assert_true (g_file_set_contents (kept, "not cmlab's", -1, NULL));
  g_assert_true (g_file_set_contents (kept_lock, "", 0, NULL));

  /* left by a run killed during its compile: its lock is free */
  g_autofree char *dead = workdir_new (dir, "tmp-Dead01", 0700, TRUE);
  {
    g_autofree char *s = g_build_filename (dead, "ccAbCdEf.s", NULL);
    g_autofree char *sub = g_build_filename (dead, "sub", NULL);
    g_autofree char *subf = g_build_filename (sub, "x.o", NULL);
    g_autofree char *link = g_build_filename (dead, "link", NULL);
    g_assert_true (g_file_set_contents (s, "\t.text\n", -1, NULL));
    g_assert_cmpint (mkdir (sub, 0700), ==, 0);
    g_assert_true (g_file_set_contents (subf, "", 0, NULL));
    g_assert_cmpint (symlink (kept, link), ==, 0);
  }
  /* a compile under way: the test holds its lock */
  g_autofree char *live = workdir_new (dir, "tmp-Live01", 0700, TRUE);
  g_autofree char *live_lock = g_build_filename (live, "lock", NULL);
  g_autofree char *live_src = g_build_filename (live, "source.c", NULL);
  g_assert_true (g_file_set_contents (live_src, "int x;", -1, NULL));
  int held = open (live_lock, O_RDWR | O_CLOEXEC);
  g_assert_cmpint (held, >=, 0);
  g_assert_cmpint (flock (held, LOCK_EX | LOCK_NB), ==, 0);
  /* no lock file: one being made (new) stays, an empty one two hours old goes, one with
   * something in it was not made by cmlab (nothing is written before the lock): it stays */
  g_autofree char *young = workdir_new (dir, "tmp-Young1", 0700, FALSE);
  g_autofree char *old = workdir_new (dir, "tmp-OldNo1", 0700, FALSE);
  g_autofree char *full = workdir_new (dir, "tmp-OldFul", 0700, FALSE);
  g_autofree char *full_file = g_build_filename (full, "data", NULL);
  g_assert_true (g_file_set_contents (full_file, "", 0, NULL));
  {
    struct timespec times[2] = { { time (NULL) - 7200, 0 }, { time (NULL) - 7200, 0 } };
    g_assert_cmpint (utimensat (AT_FDCWD, old, times, 0), ==, 0);
    g_assert_cmpint (utimensat (AT_FDCWD, full, times, 0), ==, 0);
  }
  /* not ours to touch: another name, open to others, a link to a directory, a file */
  g_autofree char *other_name = workdir_new (dir, "tmp-Dead012", 0700, TRUE);
  g_autofree char *open_mode = workdir_new (dir, "tmp-Open01", 0755, TRUE);
  g_autofree char *linked = g_build_filename (dir, "tmp-Link01", NULL);
  g_assert_cmpint (symlink (outside, linked), ==, 0);
  g_autofree char *file = g_build_filename (dir, "tmp-File01", NULL);
  g_assert_true (g_file_set_contents (file, "", 0, NULL));

  g_autoptr (CmlNative) native = cml_native_build (src, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (run_f (native), ==, 26.0);

  g_assert_false (g_file_test (dead, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (old, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live_src, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (live_lock, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (young, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (full_file, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (other_name, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (open_mode, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (linked, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (kept_lock, G_FILE_TEST_IS_REGULAR));
  /* and nothing else of that form: the build's own directory is gone */
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    const char *e;
    guint n = 0;
    while ((e = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (e, "tmp-"))
        n++;
    g_assert_cmpuint (n, ==, 7);
  }

  /* the compile over (the lock released), the next build takes it */
  close (held);
  g_autofree char *src2 = source_times ("17.0");
  g_autoptr (CmlNative) native2 = cml_native_build (src2, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (young, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
  cache_dir_remove (dir);
  test_tmp_remove (outside);
}

/* A compiler that does not finish is stopped at the time limit; the interpreter runs. */
static void
test_compiler_time_limit (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
      g_autofree char *bin = g_dir_make_tmp ("cmlab-slow-cc-XXXXXX", NULL);
      g_autofree char *script = g_build_filename (bin, "slow-cc", NULL);
      g_autofree char *src = source_times ("11.0");
      /* a compiler that writes part of its output, then hangs (with a child of its own);
       * set before the compiler is looked for, once per process */
      g_assert_true (g_file_set_contents (script, "#!/bin/sh\n"
                                                  "while [ $# -gt 0 ]; do\n"
                                                  "  if [ \"$1\" = -o ]; then echo partial > \"$2\"; fi\n"
                                                  "  shift\n"
                                                  "done\n"
                                                  "sleep 60 &\n"
                                                  "exec sleep 60\n", -1, NULL));
      g_assert_cmpint (g_chmod (script, 0755), ==, 0);
      g_setenv ("CMLAB_CC", script, TRUE);
      g_setenv ("CMLAB_NATIVE_TIMEOUT", "1", TRUE);
      g_assert_true (cml_native_available ());
      gint64 t0 = g_get_monotonic_time ();
      g_assert_null (cml_native_build (src, &error));
      double took = (g_get_monotonic_time () - t0) / 1e6;
      g_assert_nonnull (error);
      g_test_message ("%.2f s: %s", took, error->message);
      /* killed at its time limit, not waited for: the compiler would have slept 60 s */
      g_assert_cmpfloat (took, <, 60);
      g_assert_nonnull (strstr (error->message, "time limit"));
      /* no partial object: only the complete C source may stay */
      {
        g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
        const char *e;
        while ((e = g_dir_read_name (d)) != NULL)
          if (!g_str_has_suffix (e, ".c"))
            g_error ("left in the cache: %s", e);
      }
      cache_dir_remove (dir);
      g_unlink (script);
      g_rmdir (bin);
      return;
    }
  if (!require_native ())
    return;
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Constants of every kind (not powers of two, tiny, huge, subnormal, negative) reach the
 * generated C exactly: native code and interpreter agree bit for bit. */
static void
test_constants (void)
{
  static const char text[] =
    "[model]\nname = constants\ntitle = constants\n"
    "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
    "[dynamics]\nlagrangian = 0.6*u^2/2 - 1.3*x^2/2 - 0.1*x^3 + 3.7e-5*x*u + 1e-310*x + 1.7976931348623157e308*x*1e-300 - 0.3333333333333333*x^4\n"
    "[initial]\nx = 0.7\nu = -0.2\n";
  g_autoptr (GError) error = NULL;

  if (!require_native ())
    return;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "constants.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_null (cml_system_native_status (sys));
  CmlSimulation *a = cml_simulation_new (sys, &error);
  CmlSimulation *b = cml_simulation_new (sys, &error);
  g_assert_true (cml_simulation_is_native (a));
  cml_simulation_set_native (b, FALSE);
  guint dim = cml_system_dim (sys);
  double za[8], zb[8];
  g_assert_true (cml_simulation_eval_rhs (a, za, &error));
  g_assert_true (cml_simulation_eval_rhs (b, zb, &error));
  g_assert_cmpint (memcmp (za, zb, dim * sizeof (double)), ==, 0);
  g_assert_true (cml_simulation_advance (a, 2.0, &error));
  g_assert_true (cml_simulation_advance (b, 2.0, &error));
  g_assert_cmpint (memcmp (cml_simulation_get_state (a), cml_simulation_get_state (b), dim * sizeof (double)), ==, 0);
  cml_simulation_free (a);
  cml_simulation_free (b);
}

/* A program of thousands of instructions is written out as several functions (the C
 * compiler's time grows faster than one function's size), the values one part computes
 * and a later part reads kept in the register file between them; native code still
 * gives the interpreter's outputs bit for bit, and the size estimate still bounds the
 * text. */
static void
test_large_program_in_parts (void)
{
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  int ids[3] = { cml_expr_ctx_intern (ctx, "t"), cml_expr_ctx_intern (ctx, "x"), cml_expr_ctx_intern (ctx, "y") };
  int k = cml_expr_ctx_intern (ctx, "k");
  enum { N_OUT = 40, N_OUT0 = 30 };
  CmlExpr *out[N_OUT];
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (4242);

  if (!require_native ())
    return;
  /* every output reads terms shared with the others (sin(j y), x y), so later parts read
   * what earlier ones computed */
  for (guint i = 0; i < N_OUT; i++)
    {
      g_autoptr (GString) text = g_string_new ("0");
      for (guint j = 1; j <= 20; j++)
        g_string_append_printf (text, " + sin(%u*y)*cos(%u*x + k*x*y + %u.5*t)/(%u + x^2)", j, i + 1, j, i + 1);
      out[i] = cml_expr_parse (ctx, text->str, NULL, &error);
      g_assert_no_error (error);
    }
  g_autoptr (CmlProgram) prog = cml_program_compile (ctx, out, N_OUT, &k, 1, ids, 3, &error);
  g_assert_no_error (error);
  g_test_message ("%u fast instructions", cml_program_n_fast_instructions (prog));
  g_assert_cmpuint (cml_program_n_fast_instructions (prog), >, 3000);

  g_autoptr (GString) src = g_string_new (NULL);
  g_assert_true (cml_program_emit_c (prog, "big", 2, N_OUT0, src));
  g_assert_nonnull (strstr (src->str, "big_part0 ("));
  g_assert_nonnull (strstr (src->str, "big_part2 ("));
  g_assert_cmpuint (cml_program_estimate_c_size (prog, "big"), >=, src->len);
  g_autoptr (CmlNative) native = cml_native_build (src->str, &error);
  g_assert_no_error (error);
  CmlNativeFunc f = cml_native_lookup (native, "big");
  g_assert_nonnull (f);

  guint n_regs = cml_program_n_registers (prog);
  g_autofree double *ra = g_new0 (double, n_regs);
  g_autofree double *rb = g_new0 (double, n_regs);
  double kv = 0.37, a[N_OUT], b[N_OUT];
  cml_program_prepare (prog, &kv, ra);
  cml_program_prepare (prog, &kv, rb);
  for (guint n = 0; n < 200; n++)
    {
      double fast[3] = { g_rand_double_range (rand, 0, 10), g_rand_double_range (rand, -3, 3),
                         g_rand_double_range (rand, -3, 3) };
      guint where = 0;
      cml_program_run (prog, fast, ra, a);
      f (fast[0], fast + 1, NULL, rb, b, b + N_OUT0);
      if (!same_bits (a, b, N_OUT, &where))
        g_error ("output %u at t = %a, x = %a, y = %a: native %a, interpreter %a", where, fast[0], fast[1],
                 fast[2], b[where], a[where]);
    }
}

/* Observables too large for native code (a thousand monitors, about 5 MB of C) stay with
 * the interpreter, and the right-hand side is still native code; the observables come out
 * the same either way. */
static void
test_many_observables (void)
{
  g_autoptr (GString) text = g_string_new ("[model]\nname = many-monitors\ntitle = many monitors\n"
                                           "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
                                           "[dynamics]\nlagrangian = u^2/2 - x^2/2\n"
                                           "[initial]\nx = 1\nu = 0\n[monitors]\n");
  g_autoptr (GError) error = NULL;

  if (!require_native ())
    return;
  for (guint k = 1; k <= 1000; k++)
    {
      g_string_append_printf (text, "m%u = 0", k);
      for (guint j = 1; j <= 8; j++)
        g_string_append_printf (text, " + sin(%u*x + %u)*cos(%u*u - %u)", j, k, j, k);
      g_string_append_c (text, '\n');
    }
  g_autoptr (CmlModel) model = cml_model_new_from_data (text->str, "many-monitors.cml", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_null (cml_system_native_status (sys));
  CmlSimulation *a = cml_simulation_new (sys, &error);
  CmlSimulation *b = cml_simulation_new (sys, &error);
  g_assert_true (cml_simulation_is_native (a));
  cml_simulation_set_native (b, FALSE);
  guint n_obs = cml_system_n_observables (sys);
  g_assert_cmpuint (n_obs, >, 1000);
  g_autofree double *oa = g_new (double, n_obs), *ob = g_new (double, n_obs);
  g_assert_true (cml_simulation_advance (a, 1.0, &error));
  g_assert_true (cml_simulation_advance (b, 1.0, &error));
  cml_simulation_observe (a, oa);
  cml_simulation_observe (b, ob);
  g_assert_cmpint (memcmp (oa, ob, n_obs * sizeof (double)), ==, 0);
  cml_simulation_free (a);
  cml_simulation_free (b);
}

/* CMLAB_CC names a compiler that fails: the interpreter runs, with the reason. */
static void
test_broken_compiler (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *dir = cache_dir_new ("CMLAB_NATIVE_CACHE");
      g_setenv ("CMLAB_CC", "false", TRUE);
      g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
      g_assert_no_error (error);
      g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
      g_assert_no_error (error);
      const char *why = cml_system_native_status (sys);
      g_assert_nonnull (why);
      g_assert_nonnull (strstr (why, "failed"));
      CmlSimulation *sim = cml_simulation_new (sys, &error);
      g_assert_no_error (error);
      g_assert_false (cml_simulation_is_native (sim));
      g_assert_true (cml_simulation_advance (sim, 1.0, &error));
      g_assert_no_error (error);
      cml_simulation_free (sim);
      /* (the source stays, as after any failed compile) */
      cache_dir_remove (dir);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* CMLAB_NATIVE=0 turns native code off. */
static void
test_switched_off (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_setenv ("CMLAB_NATIVE", "0", TRUE);
      g_assert_false (cml_native_available ());
      g_autoptr (CmlModel) model = cml_model_load ("martinet", &error);
      g_assert_no_error (error);
      g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
      g_assert_no_error (error);
      g_assert_nonnull (cml_system_native_status (sys));
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* The exact Jacobian is derived when a method first asks for it, once per system: a run
 * with rk8pd adds nothing to the model's expressions, the first implicit integrator does,
 * a second simulation of the system nothing more — and a simulation made after it runs
 * the same numbers. */
static void
test_jacobian_on_first_use (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load ("rolling-ball", &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSimulation) a = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  CmlIntegratorOptions o = cml_integrator_options_default ();
  gsize before = cml_expr_ctx_memory (model->ctx);

  g_assert_true (cml_simulation_advance (a, 2.0, &error));
  g_assert_cmpuint (cml_expr_ctx_memory (model->ctx), ==, before);
  o.kind = CML_INTEGRATOR_MSBDF;
  g_assert_true (cml_simulation_set_integrator (a, &o, &error));
  gsize derived = cml_expr_ctx_memory (model->ctx);
  g_assert_cmpuint (derived, >, before);

  g_autoptr (CmlSimulation) b = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_true (cml_simulation_set_integrator (b, &o, &error));
  g_assert_cmpuint (cml_expr_ctx_memory (model->ctx), ==, derived);
  g_assert_true (cml_simulation_reset (a, NULL, &error));
  g_assert_true (cml_simulation_advance (a, 1.0, &error));
  g_assert_true (cml_simulation_advance (b, 1.0, &error));
  guint where = 0;
  if (!same_bits (cml_simulation_get_state (a), cml_simulation_get_state (b), cml_system_dim (sys), &where))
    g_error ("msbdf: %s differs between the simulation that derived the Jacobian and the next",
             cml_system_state_name (sys, where));
  g_assert_cmpuint (cml_simulation_n_rhs (a), ==, cml_simulation_n_rhs (b));
}

int
main (int argc, char **argv)
{
  char **names;

  g_test_init (&argc, &argv, NULL);
  /* native code itself, built before each run goes on: no background build of one case
   * may land in the cache (or the environment) another case sets up
   * (test-native-switch and test-tiered test the builds in the background) */
  g_setenv ("CMLAB_NATIVE", "wait", TRUE);
  names = cml_model_list_builtin ();
  g_assert_cmpuint (g_strv_length (names), >=, 10);
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *name = names[i];
      g_autofree char *p1 = g_strdup_printf ("/native/rhs-bits/%s", name);
      g_autofree char *p2 = g_strdup_printf ("/native/trajectory-bits/%s", name);
      g_autofree char *p3 = g_strdup_printf ("/native/projection-bits/%s", name);
      g_autofree char *p4 = g_strdup_printf ("/native/observables-bits/%s", name);
      g_test_add_data_func (p1, name, test_rhs_bits);
      g_test_add_data_func (p2, name, test_trajectory_bits);
      g_test_add_data_func (p3, name, test_projection_bits);
      g_test_add_data_func (p4, name, test_observables_bits);
    }
  g_test_add_func ("/native/jacobian-on-first-use", test_jacobian_on_first_use);
  g_test_add_func ("/native/cache", test_cache);
  g_test_add_func ("/native/pivots", test_pivots);
  g_test_add_func ("/native/broken-compiler", test_broken_compiler);
  g_test_add_func ("/native/switched-off", test_switched_off);
  g_test_add_func ("/native/constants", test_constants);
  g_test_add_func ("/native/many-observables", test_many_observables);
  g_test_add_func ("/native/large-program-in-parts", test_large_program_in_parts);
  g_test_add_func ("/native/planted-object", test_planted_object);
  g_test_add_func ("/native/unsafe-cache", test_unsafe_cache);
  g_test_add_func ("/native/eviction", test_eviction);
  g_test_add_func ("/native/memo", test_memo);
  g_test_add_func ("/native/memo-of-another-object", test_memo_of_another_object);
  g_test_add_func ("/native/object-shared", test_object_shared);
  g_test_add_func ("/native/exchanged-cache", test_exchanged_cache);
  g_test_add_func ("/native/partial-files", test_partial_files);
  g_test_add_func ("/native/workdir-sweep", test_workdir_sweep);
  g_test_add_func ("/native/compiler-time-limit", test_compiler_time_limit);
  int status = g_test_run ();
  g_strfreev (names);
  return status;
}
