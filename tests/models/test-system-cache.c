/* test-system-cache.c — the derived-system cache (cml-system-cache.c): a system read back
 * from it is the system its model derives, and no cache file can do harm.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every built-in, every test model and the benchmark's models: derived once into an
 * empty cache, then read back — the same expression context (as many expressions and
 * symbols, before and after the Jacobian is derived on first use), the same description,
 * the same programs instruction for instruction, and the same trajectories bit for bit
 * with an explicit, an implicit and the Taylor method.  A damaged, truncated or foreign
 * file is ignored and the system derived; a file whose checksum was made to match after
 * random changes (what a bug could write) never crashes the loader.  A model whose context
 * already holds more than parsing made is derived and not written; a derivation that fails
 * writes nothing; the directory must be ours, and the cache keeps under its limit.
 */
#define G_LOG_DOMAIN "test-system-cache"

#include "cache-util.h"
#include "cml-atomic-file.h"
#include "cml-build-id.h"
#include "cml-cache-dir.h"
#include "cml-simulation.h"
#include "cml-expr-private.h"
#include "cml-system-private.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC_LEN 16 /* "cmlab-derived-1\n" */

/* Under AddressSanitizer (tools/run-tests' third build, unoptimised) a derivation costs
 * some 30 times more: the tests that change entries by the thousand take a fifth of the
 * changes there, the plain builds all of them. */
#if defined(__SANITIZE_ADDRESS__)
#define THINNING 5
#else
#define THINNING 1
#endif

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The cache files of DIR (paths), sorted. */
static GPtrArray *
entries (const char *dir)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;
  while (d && (e = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (e, ".sys"))
      g_ptr_array_add (a, g_build_filename (dir, e, NULL));
  g_ptr_array_sort (a, by_name);
  return a;
}

static guint
n_entries (const char *dir)
{
  g_autoptr (GPtrArray) a = entries (dir);
  return a->len;
}

/* Every model the tests know: built-ins, tests/models/data, bench/models. */
static GPtrArray *
all_models (void)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) builtin = cml_model_list_builtin ();
  for (char **m = builtin; *m; m++)
    g_ptr_array_add (a, g_strdup (*m));
  const char *dirs[] = { g_test_get_filename (G_TEST_DIST, "models", "data", NULL),
                         g_test_get_filename (G_TEST_DIST, "..", "bench", "models", NULL) };
  for (guint k = 0; k < G_N_ELEMENTS (dirs); k++)
    {
      g_autoptr (GDir) d = g_dir_open (dirs[k], 0, NULL);
      g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
      const char *e;
      g_assert_nonnull (d);
      while ((e = g_dir_read_name (d)) != NULL)
        if (g_str_has_suffix (e, ".cml"))
          g_ptr_array_add (files, g_build_filename (dirs[k], e, NULL));
      g_ptr_array_sort (files, by_name);
      for (guint i = 0; i < files->len; i++)
        g_ptr_array_add (a, g_strdup (files->pdata[i]));
    }
  return a;
}

/* The system of NAME freshly loaded, or NULL with ERROR. */
static CmlSystem *
load (const char *name, GError **error)
{
  g_autoptr (CmlModel) model = cml_model_load (name, error);
  return model ? cml_system_new (model, error) : NULL;
}

/* The system of NAME derived without the cache (its directory set to one that cannot be
 * used: a file). */
static CmlSystem *
load_uncached (const char *name)
{
  g_autofree char *dir = g_strdup (g_getenv ("CMLAB_DERIVED_CACHE"));
  g_autoptr (GError) error = NULL;
  g_setenv ("CMLAB_DERIVED_CACHE", "/dev/null", TRUE);
  CmlSystem *sys = load (name, &error);
  g_assert_no_error (error);
  g_assert_false (cml_system_was_cached (sys));
  g_setenv ("CMLAB_DERIVED_CACHE", dir, TRUE);
  return sys;
}

static void
assert_same_program (const CmlProgram *a, const CmlProgram *b)
{
  g_assert_true ((a == NULL) == (b == NULL));
  if (a == NULL)
    return;
  g_assert_cmpuint (cml_program_n_registers (a), ==, cml_program_n_registers (b));
  g_autofree char *da = cml_program_describe (a);
  g_autofree char *db = cml_program_describe (b);
  g_assert_cmpstr (da, ==, db);
  /* the slow part and the constants: the same results from the same parameters */
  guint n = cml_program_n_registers (a);
  g_autofree double *ra = g_new0 (double, n + 1), *rb = g_new0 (double, n + 1);
  g_autofree double *slow = g_new0 (double, 64);
  for (guint k = 0; k < 64; k++)
    slow[k] = 0.5 + 0.25 * k;
  cml_program_prepare (a, slow, ra);
  cml_program_prepare (b, slow, rb);
  g_assert_cmpmem (ra, n * sizeof (double), rb, n * sizeof (double));
}

/* A few outputs of KIND from the model's initial state: the states, observables and scene
 * values.  MAX_STEPS: the step budget of each advance (0: the default) — a changed entry
 * can make a system that needs millions of steps. */
static GByteArray *
trajectory (CmlSystem *sys, CmlIntegratorKind kind, guint max_steps)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  GByteArray *out = g_byte_array_new ();
  guint dim = cml_system_dim (sys), n_obs = cml_system_n_observables (sys);
  guint n_scene = cml_system_n_scene_values (sys);
  g_autofree double *obs = g_new0 (double, n_obs + 1), *scene = g_new0 (double, n_scene + 1);

  if (sim == NULL)
    {
      g_byte_array_append (out, (const guint8 *) error->message, strlen (error->message));
      return out;
    }
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  if (max_steps > 0)
    o.max_steps = max_steps;
  if (!cml_simulation_set_integrator (sim, &o, &error))
    {
      g_byte_array_append (out, (const guint8 *) error->message, strlen (error->message));
      return out;
    }
  for (guint i = 1; i <= 4; i++)
    {
      if (!cml_simulation_advance (sim, 0.125 * i, &error))
        {
          g_byte_array_append (out, (const guint8 *) error->message, strlen (error->message));
          break;
        }
      g_byte_array_append (out, (const guint8 *) cml_simulation_get_state (sim), dim * sizeof (double));
      cml_simulation_observe (sim, obs);
      g_byte_array_append (out, (const guint8 *) obs, n_obs * sizeof (double));
      cml_simulation_eval_scene (sim, scene);
      g_byte_array_append (out, (const guint8 *) scene, n_scene * sizeof (double));
    }
  return out;
}

static void
assert_same_system (CmlSystem *a, CmlSystem *b)
{
  CmlExprCtx *ca = cml_system_get_model (a)->ctx, *cb = cml_system_get_model (b)->ctx;

  g_assert_cmpuint (cml_expr_ctx_n_nodes (ca), ==, cml_expr_ctx_n_nodes (cb));
  g_assert_cmpuint (cml_expr_ctx_n_symbols (ca), ==, cml_expr_ctx_n_symbols (cb));
  g_assert_cmpint (a->formalism, ==, b->formalism);
  g_assert_cmpuint (a->n_fast, ==, b->n_fast);
  g_assert_cmpmem (a->fast_sym, a->n_fast * sizeof (int), b->fast_sym, b->n_fast * sizeof (int));
  g_assert_cmpuint (a->n_fast_pivots, ==, b->n_fast_pivots);
  g_assert_cmpuint (a->n_slow_pivots, ==, b->n_slow_pivots);
  g_assert_cmpuint (a->n_scene, ==, b->n_scene);
  /* every scene property at the same place among the scene program's outputs */
  {
    CmlModel *md = cml_system_get_model (a);
    g_assert_cmpuint (g_hash_table_size (a->scene_offsets), ==, g_hash_table_size (b->scene_offsets));
    for (guint k = 0; k < md->scene->len; k++)
      {
        CmlSceneObject *so = md->scene->pdata[k];
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init (&it, so->props);
        while (g_hash_table_iter_next (&it, &key, NULL))
          g_assert_cmpint (cml_system_scene_offset (a, k, key), ==, cml_system_scene_offset (b, k, key));
      }
  }
  g_assert_true (a->lie == b->lie && a->derived.gauge == b->derived.gauge);
  for (guint i = 0; i < a->dim; i++)
    g_assert_true (a->derived.rhs[i]->id == b->derived.rhs[i]->id);
  g_autofree char *da = cml_system_describe (a);
  g_autofree char *db = cml_system_describe (b);
  g_assert_cmpstr (da, ==, db);
  assert_same_program (a->rhs_prog, b->rhs_prog);
  assert_same_program (a->obs_prog, b->obs_prog);
  assert_same_program (a->proj_prog, b->proj_prog);
  assert_same_program (a->reg_prog, b->reg_prog);
  assert_same_program (a->newton_prog, b->newton_prog);
  assert_same_program (a->fb_prog, b->fb_prog);
  assert_same_program (a->fb2_prog, b->fb2_prog);
  assert_same_program (a->scene_prog, b->scene_prog);

  static const CmlIntegratorKind kinds[] = { CML_INTEGRATOR_RK8PD, CML_INTEGRATOR_MSBDF, CML_INTEGRATOR_TAYLOR };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autoptr (GByteArray) ta = trajectory (a, kinds[k], 0);
      g_autoptr (GByteArray) tb = trajectory (b, kinds[k], 0);
      g_assert_cmpmem (ta->data, ta->len, tb->data, tb->len);
    }
  /* what was derived on first use (the Jacobian, the Taylor program) made the same
   * expressions in both contexts */
  g_assert_cmpuint (cml_expr_ctx_n_nodes (ca), ==, cml_expr_ctx_n_nodes (cb));
}

/* Every model: derived, then read back, the same system; a second model with the same
 * text reads the same entry; every kind of system is among them. */
static void
test_same_system (void)
{
  g_autofree char *dir = cache_dir_new ("CMLAB_DERIVED_CACHE");
  g_autoptr (GPtrArray) models = all_models ();
  guint seen[CML_FORMALISM_SINGULAR + 1] = { 0 }, newton = 0, varying = 0, constant = 0, vak_fb = 0, cached = 0;

  for (guint i = 0; i < models->len; i++)
    {
      const char *name = models->pdata[i];
      g_autoptr (GError) e1 = NULL, e2 = NULL;
      g_test_message ("%s", name);
      guint before = n_entries (dir);
      g_autoptr (CmlSystem) fresh = load (name, &e1);
      if (fresh == NULL)
        {
          /* a derivation that fails writes nothing, and fails again the same way */
          g_assert_cmpuint (n_entries (dir), ==, before);
          g_autoptr (CmlSystem) again = load (name, &e2);
          g_assert_null (again);
          g_assert_cmpstr (e1->message, ==, e2->message);
          continue;
        }
      g_assert_false (cml_system_was_cached (fresh));
      g_assert_cmpuint (n_entries (dir), ==, before + 1);
      g_autoptr (CmlSystem) read = load (name, &e2);
      g_assert_no_error (e2);
      g_assert_true (cml_system_was_cached (read));
      g_assert_cmpstr (fresh->cache_key, ==, read->cache_key);
      assert_same_system (fresh, read);
      cached++;
      seen[fresh->formalism]++;
      newton += fresh->derived.na > 0;
      varying += fresh->derived.fb_sing && fresh->derived.fb_sing_varying;
      constant += fresh->derived.fb_sing && !fresh->derived.fb_sing_varying;
      vak_fb += fresh->derived.fb2 != NULL;
    }
  g_test_message ("%u systems read back", cached);
  for (guint f = 0; f <= CML_FORMALISM_SINGULAR; f++)
    g_assert_cmpuint (seen[f], >, 0);
  g_assert_cmpuint (newton, >, 0);
  g_assert_cmpuint (varying, >, 0);
  g_assert_cmpuint (constant, >, 0);
  g_assert_cmpuint (vak_fb, >, 0);
  cache_dir_remove (dir);
}

/* The single entry of DIR, read whole. */
static GBytes *
read_entry (const char *dir, char **path_out)
{
  g_autoptr (GPtrArray) a = entries (dir);
  g_autoptr (GError) error = NULL;
  char *data = NULL;
  gsize len = 0;

  g_assert_cmpuint (a->len, ==, 1);
  g_assert_true (g_file_get_contents (a->pdata[0], &data, &len, &error));
  *path_out = g_strdup (a->pdata[0]);
  return g_bytes_new_take (data, len);
}

/* NAME derived into a new cache ($CMLAB_DERIVED_CACHE, *DIR): the entry it wrote (at
 * *PATH), read whole. */
static GBytes *
derived_entry (const char *name, char **dir, char **path)
{
  g_autoptr (GError) error = NULL;
  *dir = cache_dir_new ("CMLAB_DERIVED_CACHE");
  g_autoptr (CmlSystem) fresh = load (name, &error);
  g_assert_no_error (error);
  return read_entry (*dir, path);
}

/* DATA written as the entry PATH, its header's checksum made to match (RESEAL). */
static void
write_entry (const char *path, const guint8 *data, gsize len, gboolean reseal)
{
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *copy = g_memdup2 (data, len);

  if (reseal && len >= MAGIC_LEN + 16)
    {
      guint64 plen = len - MAGIC_LEN - 16, sum = cml_cache_hash64 (copy + MAGIC_LEN + 16, plen);
      memcpy (copy + MAGIC_LEN, &plen, 8);
      memcpy (copy + MAGIC_LEN + 8, &sum, 8);
    }
  g_assert_true (cml_atomic_file_set_contents_full (path, copy, len, CML_ATOMIC_FILE_UNSYNCED, &error));
}

/* Damaged files are ignored: the system is derived as without a cache, and the entry is
 * written anew. */
static void
test_damaged (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) good = derived_entry (name, &dir, &path);
  gsize len;
  const guint8 *bytes = g_bytes_get_data (good, &len);
  struct
  {
    const char *what;
    gsize       at, len;
    int         flip; /* -1: none */
    gboolean    reseal;
  } cases[] = {
    { "truncated", 0, len / 2, -1, FALSE },
    { "truncated, checksum matched", 0, len / 2, -1, TRUE },
    { "empty", 0, 0, -1, FALSE },
    { "a byte changed", len / 2, len, 0x20, FALSE },
    { "another format", 3, len, 0x01, FALSE },
    { "another build", MAGIC_LEN + 16 + 6, len, 0x01, TRUE },
    { "the end marker", len - 1, len, 0x01, TRUE },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree guint8 *copy = g_memdup2 (bytes, len);
      g_test_message ("%s: %s", name, cases[k].what);
      if (cases[k].flip >= 0)
        copy[cases[k].at] ^= (guint8) cases[k].flip;
      write_entry (path, copy, cases[k].len, cases[k].reseal);
      g_autoptr (CmlSystem) sys = load (name, &error);
      g_assert_no_error (error);
      g_assert_false (cml_system_was_cached (sys));
      g_autoptr (CmlSystem) reference = load_uncached (name);
      assert_same_system (reference, sys);
      /* written anew: read back the next time */
      g_autoptr (CmlSystem) again = load (name, &error);
      g_assert_true (cml_system_was_cached (again));
    }
  cache_dir_remove (dir);
}

/* Random changes (300, THINNING times fewer under AddressSanitizer) with the checksum made
 * to match: the loader reads a system or derives one, and never reads out of bounds (the
 * tests run under MALLOC_CHECK_, and under the sanitizers in tools/run-tests' third
 * build); what it reads runs. */
static void
test_mutations (gconstpointer data)
{
  const char *name = data;
  g_autofree char *dir = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) good = derived_entry (name, &dir, &path);
  gsize len;
  const guint8 *bytes = g_bytes_get_data (good, &len);
  guint n_read = 0, n_derived = 0;

  for (guint k = 0; k < 300 / THINNING; k++)
    {
      g_autofree guint8 *copy = g_memdup2 (bytes, len);
      guint n = 1 + g_test_rand_int_range (0, 3);
      for (guint j = 0; j < n; j++)
        {
          gsize at = MAGIC_LEN + 16 + g_test_rand_int_range (0, (gint32) (len - MAGIC_LEN - 16));
          copy[at] = g_test_rand_bit () ? (guint8) g_test_rand_int_range (0, 256) : copy[at] ^ 0x80;
        }
      write_entry (path, copy, len, TRUE);
      g_autoptr (CmlSystem) sys = load (name, &error);
      g_assert_no_error (error);
      if (cml_system_was_cached (sys))
        n_read++;
      else
        n_derived++;
      g_autoptr (GByteArray) t = trajectory (sys, CML_INTEGRATOR_RK8PD, 2000);
      g_autofree char *text = cml_system_describe (sys);
      g_assert_nonnull (text);
    }
  g_test_message ("%s: %u changed files read, %u refused", name, n_read, n_derived);
  g_assert_cmpuint (n_derived, >, 0);
  cache_dir_remove (dir);
}

/* Every byte of the entry in turn (for the larger entries every 31st, starting at a
 * different byte on each run; THINNING times fewer under AddressSanitizer), one more than it was (a count one larger, a flag set, an
 * index moved), the checksum made to match: nothing crashes, and a changed entry that is
 * read runs. */
static void
test_every_byte (gconstpointer data)
{
  const char *name = data;
  const gsize stride = (strstr (name, "martinet") || strstr (name, "nonlinear-vakonomic") ? 1 : 31) * THINNING;

  /* interpreted, in a process of its own: each changed system that is read would
   * otherwise compile its own native code */
  if (!g_test_subprocess ())
    {
      g_setenv ("CMLAB_NATIVE", "0", TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_unsetenv ("CMLAB_NATIVE");
      g_test_trap_assert_passed ();
      return;
    }
  g_autofree char *dir = NULL, *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) good = derived_entry (name, &dir, &path);
  gsize len;
  const guint8 *bytes = g_bytes_get_data (good, &len);
  guint n_read = 0;

  for (gsize at = MAGIC_LEN + 16 + (stride > 1 ? g_test_rand_int_range (0, stride) : 0); at < len; at += stride)
    {
      g_autofree guint8 *copy = g_memdup2 (bytes, len);
      copy[at]++;
      write_entry (path, copy, len, TRUE);
      g_autoptr (CmlSystem) sys = load (name, &error);
      g_assert_no_error (error);
      if (cml_system_was_cached (sys))
        {
          n_read++;
          g_autoptr (GByteArray) t = trajectory (sys, CML_INTEGRATOR_RK8PD, 2000);
        }
    }
  g_test_message ("%s: %u changed files read, of %" G_GSIZE_FORMAT " bytes every %" G_GSIZE_FORMAT, name, n_read,
                  len - MAGIC_LEN - 16, stride);
  cache_dir_remove (dir);
}

/* A model whose context holds more than parsing made is derived, not read, and its
 * system not written (the entry of the fresh model stays as it was). */
static void
test_not_fresh (void)
{
  g_autofree char *dir = cache_dir_new ("CMLAB_DERIVED_CACHE");
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) first = load ("heavy-top", &error);
  g_assert_no_error (error);
  g_autoptr (GBytes) before = read_entry (dir, &path);

  g_autoptr (CmlModel) model = cml_model_load ("heavy-top", &error);
  g_assert_no_error (error);
  guint parsed = cml_expr_ctx_n_nodes (model->ctx);
  /* what a plot of the window makes */
  g_assert_nonnull (cml_expr_parse (model->ctx, "t^7 + 3*t", NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cml_expr_ctx_n_nodes (model->ctx), >, parsed);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_false (cml_system_was_cached (sys));
  g_assert_null (sys->cache_key);
  g_autofree char *path2 = NULL;
  g_autoptr (GBytes) after = read_entry (dir, &path2);
  g_assert_true (g_bytes_equal (before, after));
  cache_dir_remove (dir);
}

/* A directory others may write to is not used: nothing written, nothing read. */
static void
test_private (void)
{
  g_autofree char *dir = cache_dir_new ("CMLAB_DERIVED_CACHE");
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_chmod (dir, 0777), ==, 0);
  g_autoptr (CmlSystem) a = load ("martinet", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_entries (dir), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0700), ==, 0);
  g_autoptr (CmlSystem) b = load ("martinet", &error);
  g_assert_false (cml_system_was_cached (b));
  g_assert_cmpuint (n_entries (dir), ==, 1);
  cache_dir_remove (dir);
}

/* The cache keeps under $CMLAB_DERIVED_CACHE_LIMIT, the least recently used going first. */
static void
test_limit (void)
{
  g_autofree char *dir = cache_dir_new ("CMLAB_DERIVED_CACHE");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) models = all_models ();
  guint64 total = 0, limit = 60000;
  GStatBuf st;

  g_setenv ("CMLAB_DERIVED_CACHE_LIMIT", "60000", TRUE);
  for (guint i = 0; i < models->len; i++)
    {
      g_autoptr (CmlSystem) sys = load (models->pdata[i], NULL);
    }
  g_autoptr (GPtrArray) left = entries (dir);
  for (guint i = 0; i < left->len; i++)
    {
      g_assert_cmpint (g_stat (left->pdata[i], &st), ==, 0);
      total += st.st_size;
    }
  g_assert_cmpuint (left->len, >, 0);
  g_assert_cmpuint (left->len, <, models->len);
  g_assert_cmpuint (total, <=, limit);
  /* the last one derived is among those kept */
  g_autoptr (CmlSystem) last = load (models->pdata[models->len - 1], &error);
  g_assert_no_error (error);
  g_assert_true (cml_system_was_cached (last));
  g_unsetenv ("CMLAB_DERIVED_CACHE_LIMIT");
  cache_dir_remove (dir);
}

/* The build ID is the one the linker wrote (readelf reads it from the file). */
static void
test_build_id (void)
{
  g_autofree char *out = NULL;
  g_autofree char *readelf = g_find_program_in_path ("readelf");
  const char *id = cml_build_id ();

  if (readelf == NULL)
    {
      g_test_skip ("no readelf");
      return;
    }
  g_autofree char *exe = g_strdup_printf ("/proc/%d/exe", (int) getpid ());
  const char *argv[] = { readelf, "-n", exe, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               NULL, NULL));
  const char *at = strstr (out, "Build ID: ");
  g_assert_nonnull (at);
  g_assert_nonnull (id);
  g_assert_cmpuint (strlen (id), >=, 16);
  g_assert_true (g_str_has_prefix (at + strlen ("Build ID: "), id));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/system-cache/same-system", test_same_system);
  g_test_add_data_func ("/system-cache/damaged/heavy-top", "heavy-top", test_damaged);
  g_test_add_data_func ("/system-cache/damaged/capri-kobayashi", "capri-kobayashi", test_damaged);
  g_test_add_data_func ("/system-cache/mutations/martinet", "martinet", test_mutations);
  g_test_add_data_func ("/system-cache/mutations/plate-ball", "plate-ball", test_mutations);
  /* one model of each kind of fields: vakonomic, nonlinear vakonomic (Newton's method),
   * vakonomic with the numeric fallback (fb2), singular with a constant and with a varying
   * kernel, nonholonomic with projection */
  g_test_add_data_func ("/system-cache/every-byte/martinet", "martinet", test_every_byte);
  {
    static char *files[4];
    const char *names[] = { "nonlinear-vakonomic", "rolling-ball-vakonomic", "kernel-pivot", "varying-kernel" };
    for (guint k = 0; k < G_N_ELEMENTS (names); k++)
      {
        g_autofree char *base = g_strconcat (names[k], ".cml", NULL);
        g_autofree char *test = g_strconcat ("/system-cache/every-byte/", names[k], NULL);
        files[k] = g_test_build_filename (G_TEST_DIST, "models", "data", base, NULL);
        g_test_add_data_func (test, files[k], test_every_byte);
      }
  }
  g_test_add_data_func ("/system-cache/every-byte/plate-ball", "plate-ball", test_every_byte);
  g_test_add_func ("/system-cache/not-fresh", test_not_fresh);
  g_test_add_func ("/system-cache/private", test_private);
  g_test_add_func ("/system-cache/limit", test_limit);
  g_test_add_func ("/system-cache/build-id", test_build_id);
  return g_test_run ();
}
