/* cml-system-cache.c — the derived-system cache: a system derived once from a model's text
 * is read back the next time the same text is loaded, instead of being derived again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deriving a system (cml_system_new) takes the model's Lagrangian, constraints and
 * algebroid through the symbolic differentiation, solving and compiling of
 * cml-euler-lagrange.c … cml-system-programs.c; for a larger model that is most of what
 * `cmlab-cli simulate` does before its first step (a five-link pendulum: 0.4 of 2.4 ms).
 * Its result depends on the model's text and the code of cmlab that derived it (and the
 * language of the constraint algorithm's steps, sentences for people).  The cache keeps it
 * in a file named by the SHA-256 of these — the text, the build ID the linker gives the
 * running executable (cml-build-id.c; without one nothing is cached) and the translation
 * of one of those sentences — in $CMLAB_DERIVED_CACHE, else $XDG_CACHE_HOME/cmlab/derived.
 *
 * What the file holds is the derivation's whole result:
 *   - every expression it made, in the order it made them (a symbol by its name, any
 *     other node by its kind, number, operands and coefficients).  Re-made in that order
 *     in the model's fresh expression context, every expression gets the id it had, so
 *     the context is the one the derivation left — and what is derived later from it (the
 *     Jacobian on first use, the variational program, a plot's expression) is made as it
 *     would have been, the same numbers bit for bit;
 *   - the system's fields that name those expressions (right-hand side, pivots,
 *     observables, constraint functions, numeric fallback …), the constraint algorithm's
 *     steps and the fallback's numbers;
 *   - the compiled register programs (cml_program_write), so that native code is found in
 *     its own cache by the same C text.
 * The structure equations' check (cml-structure.c) runs again on loading: its warning
 * names the model's file, which the text does not fix.
 *
 * A file is trusted only whole: it starts with the format, the length of what follows
 * and a 64-bit key of it (cml_cache_hash64), and names the build ID and the text's length
 * and key again inside; anything else is ignored and the system derived as before.  Every
 * number read is checked before it is used (an expression's operands made before it, a
 * program's registers within its register file, counts against what the model has), so
 * that no file can make the loader read out of bounds.  A model loaded into a context
 * that already holds more expressions than parsing made (the window's plots) is derived,
 * not read, and not written.  Files are written through the atomic writer
 * (cml-atomic-file.c) only after a derivation that succeeded, and the directory is kept
 * under $CMLAB_DERIVED_CACHE_LIMIT bytes (16 MiB by default), the least recently used
 * files going first.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"
#include "cml-expr-private.h"
#include "cml-atomic-file.h"
#include "cml-build-id.h"
#include "cml-bytes.h"
#include "cml-cache-dir.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAGIC         "cmlab-derived-1\n"
#define CACHE_SUFFIX        ".sys"
#define DEFAULT_CACHE_LIMIT (G_GUINT64_CONSTANT (16) << 20) /* bytes */
#define NO_EXPR             G_MAXUINT32

typedef enum
{
  WRITE,
  READ,
  CLEAR, /* frees what READ filled (a record that turned out bad) */
} Mode;

typedef struct
{
  Mode            mode;
  GByteArray     *out;   /* WRITE */
  CmlBytesReader  r;     /* READ */
  GPtrArray      *by_id; /* READ: the context's expressions by id */
  CmlSystem      *sys;
} Codec;

/* ---- fields ---------------------------------------------------------------------------- */

static void
c_u32 (Codec *c, guint *v)
{
  if (c->mode == WRITE)
    cml_bytes_put_u32 (c->out, *v);
  else if (c->mode == READ)
    *v = cml_bytes_get_u32 (&c->r);
  else
    *v = 0;
}

static void
c_bool (Codec *c, gboolean *v)
{
  guint u = *v != FALSE;

  if (c->mode == CLEAR)
    {
      *v = FALSE;
      return;
    }
  c_u32 (c, &u);
  if (c->mode == READ)
    {
      *v = u != 0;
      c->r.bad = c->r.bad || u > 1;
    }
}

static CmlExpr *
expr_of (Codec *c, guint32 id)
{
  if (id == NO_EXPR)
    return NULL;
  if (id >= c->by_id->len)
    {
      c->r.bad = TRUE;
      return NULL;
    }
  return c->by_id->pdata[id];
}

static guint32
id_of (const CmlExpr *e)
{
  return e != NULL ? e->id : NO_EXPR;
}

/* Whether the array *A is there: written as 1 or 0 before it (CLEAR: whether READ made
 * it). */
static gboolean
c_present (Codec *c, gpointer a)
{
  gboolean present = *(gpointer *) a != NULL;

  if (c->mode != CLEAR)
    c_bool (c, &present);
  return present && !(c->mode == READ && c->r.bad);
}

/* An array of N expressions, or NULL (ALLOCATE: READ makes it; else it exists). */
static void
c_exprs (Codec *c, CmlExpr ***a, guint n, gboolean allocate)
{
  if (allocate && !c_present (c, a))
    return;
  if (c->mode == CLEAR)
    {
      if (allocate)
        g_clear_pointer (a, g_free);
      else
        memset (*a, 0, n * sizeof (CmlExpr *));
      return;
    }
  if (c->mode == READ && allocate)
    *a = cml_bytes_have (&c->r, n, sizeof (guint32)) ? g_new0 (CmlExpr *, MAX (n, 1)) : NULL;
  for (guint i = 0; i < n && *a != NULL && !c->r.bad; i++)
    {
      guint32 id = id_of ((*a)[i]);
      c_u32 (c, &id);
      if (c->mode == READ)
        (*a)[i] = expr_of (c, id);
    }
}

/* A GPtrArray of expressions (which exists; ALLOCATE: or NULL, made by READ). */
static void
c_expr_list (Codec *c, GPtrArray **a, gboolean allocate)
{
  guint n;

  if (allocate && !c_present (c, a))
    return;
  if (c->mode == CLEAR)
    {
      if (allocate)
        g_clear_pointer (a, g_ptr_array_unref);
      else
        g_ptr_array_set_size (*a, 0);
      return;
    }
  if (c->mode == READ && allocate)
    *a = g_ptr_array_new ();
  n = (*a)->len;
  c_u32 (c, &n);
  if (c->mode == WRITE)
    {
      for (guint i = 0; i < n; i++)
        cml_bytes_put_u32 (c->out, id_of ((*a)->pdata[i]));
      return;
    }
  if (!cml_bytes_have (&c->r, n, sizeof (guint32)))
    return;
  for (guint i = 0; i < n && !c->r.bad; i++)
    {
      CmlExpr *e = expr_of (c, cml_bytes_get_u32 (&c->r));
      if (e == NULL)
        c->r.bad = TRUE;
      g_ptr_array_add (*a, e);
    }
}

/* An array of N items of SIZE bytes (ints, unsigned or doubles), or NULL. */
static void
c_numbers (Codec *c, gpointer a, guint n, gsize size)
{
  gpointer *p = a;

  if (!c_present (c, a))
    return;
  if (c->mode == WRITE)
    cml_bytes_put (c->out, *p, n * size);
  else if (c->mode == READ)
    *p = cml_bytes_get_array (&c->r, n, size);
  else
    g_clear_pointer (p, g_free);
}

/* Strings: owned by the array (OWNED), or names that live as long as the program
 * (g_intern_string: the matrices the pivots belong to). */
static void
c_strings (Codec *c, GPtrArray *a, gboolean owned)
{
  guint n = a->len;

  if (c->mode == CLEAR)
    {
      g_ptr_array_set_size (a, 0);
      return;
    }
  c_u32 (c, &n);
  for (guint i = 0; i < n && !c->r.bad; i++)
    {
      gboolean none;
      if (c->mode == WRITE)
        {
          cml_bytes_put_str (c->out, a->pdata[i]);
          continue;
        }
      char *s = cml_bytes_get_str (&c->r, &none);
      if (s == NULL)
        {
          c->r.bad = TRUE;
          break;
        }
      g_ptr_array_add (a, owned ? s : (gpointer) g_intern_string (s));
      if (!owned)
        g_free (s);
    }
}

static void
c_name (Codec *c, const char **s)
{
  gboolean none;

  if (c->mode == WRITE)
    cml_bytes_put_str (c->out, *s);
  else if (c->mode == READ)
    {
      char *v = cml_bytes_get_str (&c->r, &none);
      *s = v ? g_intern_string (v) : NULL;
      g_free (v);
    }
  else
    *s = NULL;
}

/* A program with N_FAST fast inputs and N_OUT outputs, or NULL. */
static void
c_program (Codec *c, CmlProgram **prog, guint n_fast, guint n_out)
{
  if (!c_present (c, prog))
    return;
  if (c->mode == WRITE)
    cml_program_write (*prog, c->out);
  else if (c->mode == READ)
    *prog = cml_program_read (&c->r, n_fast, c->sys->n_params, n_out);
  else
    g_clear_pointer (prog, cml_program_free);
}

static int
by_text (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The scene program's layout: the offset of every scene property among its outputs, as
 * the derivation laid them out (cml_sys_scene_layout, in the order GLib's hash tables give) — kept,
 * not laid out again, so that the program read back and its offsets always agree. */
static void
c_scene (Codec *c)
{
  CmlSystem *s = c->sys;
  CmlModel *md = s->model;
  guint n = s->scene_offsets ? g_hash_table_size (s->scene_offsets) : 0, n_props = 0;

  if (c->mode == CLEAR)
    {
      g_clear_pointer (&s->scene_offsets, g_hash_table_unref);
      s->n_scene = 0;
      return;
    }
  c_u32 (c, &n);
  if (c->mode == WRITE)
    {
      g_autofree gpointer *keys = g_hash_table_get_keys_as_array (s->scene_offsets, NULL);
      qsort (keys, n, sizeof (gpointer), by_text);
      for (guint i = 0; i < n; i++)
        {
          cml_bytes_put_str (c->out, keys[i]);
          cml_bytes_put_u32 (c->out, GPOINTER_TO_UINT (g_hash_table_lookup (s->scene_offsets, keys[i])));
        }
      cml_bytes_put_u32 (c->out, s->n_scene);
      return;
    }
  s->scene_offsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n && !c->r.bad; i++)
    {
      gboolean none;
      char *key = cml_bytes_get_str (&c->r, &none);
      guint off = cml_bytes_get_u32 (&c->r);
      if (key == NULL || off == 0 || g_hash_table_contains (s->scene_offsets, key))
        {
          g_free (key);
          c->r.bad = TRUE;
          break;
        }
      g_hash_table_insert (s->scene_offsets, key, GUINT_TO_POINTER (off));
    }
  s->n_scene = cml_bytes_get_u32 (&c->r);
  /* every property of the model's scene, its values within the outputs */
  for (guint k = 0; k < md->scene->len && !c->r.bad; k++)
    {
      CmlSceneObject *so = md->scene->pdata[k];
      GHashTableIter it;
      gpointer key, val;
      g_hash_table_iter_init (&it, so->props);
      while (g_hash_table_iter_next (&it, &key, &val))
        {
          g_autofree char *name = g_strdup_printf ("%u\n%s", k, (char *) key);
          guint off = GPOINTER_TO_UINT (g_hash_table_lookup (s->scene_offsets, name));
          if (off == 0 || (guint64) off - 1 + ((GPtrArray *) val)->len > s->n_scene)
            c->r.bad = TRUE;
          n_props++;
        }
    }
  if (n_props != n)
    c->r.bad = TRUE;
}

/* ---- the system ------------------------------------------------------------------------ */

/* Every field the derivation fills, in one order for writing, reading and clearing.
 * Before the programs, what their sizes follow from: the fast inputs (READ sets them up as
 * the derivation does, cml_sys_set_fast_inputs) and the scene's layout (c_scene). */
static void
c_system (Codec *c)
{
  CmlSystem *s = c->sys;
  CmlDerivation *d = &s->derived;
  guint formalism = s->formalism;
  guint n = s->n;

  c_u32 (c, &formalism);
  /* checked before it becomes a formalism */
  if (c->mode == READ && formalism > CML_FORMALISM_SINGULAR)
    c->r.bad = TRUE;
  else
    s->formalism = (CmlFormalism) formalism;
  c_u32 (c, &d->na);
  if (c->mode == READ && d->na > 4096)
    c->r.bad = TRUE;
  c_numbers (c, &d->aux_sym, d->na, sizeof (int));
  c_exprs (c, &d->rhs, s->dim, FALSE);
  c_expr_list (c, &d->pivots, FALSE);
  c_strings (c, d->pivot_names, FALSE);
  c_name (c, &d->reg_name);
  c_u32 (c, &d->reg_rows);
  if (c->mode == READ && d->reg_rows > 4096)
    c->r.bad = TRUE;
  c_exprs (c, &d->reg, d->reg_rows * d->reg_rows, TRUE);
  c_exprs (c, &d->newton, d->na + d->na * d->na, TRUE);
  c_expr_list (c, &d->h, FALSE);
  c_u32 (c, &d->movable_from);
  c_u32 (c, &d->movable_to);
  c_u32 (c, &d->n_lambda);
  c_exprs (c, &d->lambda, d->n_lambda, TRUE);
  c_strings (c, s->obs_names, TRUE);
  c_expr_list (c, &s->obs, FALSE);
  c_u32 (c, &d->n_subs);
  c_numbers (c, &d->subs_ids, d->n_subs, sizeof (int));
  c_exprs (c, &d->subs_repl, d->n_subs, TRUE);
  c_expr_list (c, &d->fb, FALSE);
  c_u32 (c, &d->fb_s);
  c_u32 (c, &d->fb_vak_nf);
  c_numbers (c, &d->fb_aux_sym, d->fb_vak_nf, sizeof (int));
  c_exprs (c, &d->fb_yhat, n, TRUE);
  c_expr_list (c, &d->fb2, TRUE);
  c_bool (c, &d->fb_sing);
  c_bool (c, &d->fb_sing_varying);
  c_u32 (c, &d->fb_r);
  c_u32 (c, &d->fb_k);
  c_u32 (c, &d->fb_q);
  if (c->mode == READ && (d->fb_r > n || d->fb_k > n || d->fb_q > n))
    c->r.bad = TRUE;
  c_numbers (c, &d->fb_Kc, n * d->fb_r, sizeof (double));
  c_numbers (c, &d->fb_K, n * d->fb_k, sizeof (double));
  c_numbers (c, &d->fb_P, d->fb_r, sizeof (guint));
  c_numbers (c, &d->fb_Q, d->fb_r, sizeof (guint));
  c_numbers (c, &d->fb_F, d->fb_k, sizeof (guint));
  c_numbers (c, &d->fb_cols, d->fb_q, sizeof (guint));
  c_strings (c, d->steps, TRUE);
  c_bool (c, &d->gauge);
}

/* The programs, once the fields above are read (their inputs and outputs follow from
 * them). */
static void
c_programs (Codec *c)
{
  CmlSystem *s = c->sys;
  CmlDerivation *d = &s->derived;
  guint h = d->h->len;

  c_program (c, &s->rhs_prog, s->n_fast, s->dim + d->pivots->len);
  c_program (c, &s->obs_prog, s->n_fast, s->obs->len);
  c_program (c, &s->proj_prog, s->n_fast, h + h * s->dim);
  c_program (c, &s->reg_prog, s->n_fast, d->reg_rows * d->reg_rows);
  c_program (c, &s->newton_prog, s->n_fast, d->na + d->na * d->na);
  c_program (c, &s->fb_prog, s->n_fast, d->fb->len);
  c_program (c, &s->fb2_prog, s->n_fast + d->fb_vak_nf, d->fb2 ? d->fb2->len : 0);
  c_program (c, &s->scene_prog, s->n_fast, MAX (s->n_scene, 1));
}

/* Whether none of the N expressions of A (or A NULL) is missing. */
static gboolean
all_set (CmlExpr *const *a, guint n)
{
  for (guint i = 0; a != NULL && i < n; i++)
    if (a[i] == NULL)
      return FALSE;
  return TRUE;
}

/* Whether what READ filled fits together: the programs every system has, names for every
 * pivot and observable, symbols and indices within the model's. */
static gboolean
consistent (CmlSystem *s)
{
  const CmlDerivation *d = &s->derived;
  guint n_syms = cml_expr_ctx_n_symbols (s->ctx), n = s->n;

  if (s->rhs_prog == NULL || s->obs_prog == NULL || s->scene_prog == NULL
      || d->pivot_names->len != d->pivots->len || s->obs_names->len != s->obs->len
      || (d->h->len > 0) != (s->proj_prog != NULL) || (d->reg_rows > 0) != (s->reg_prog != NULL)
      || (d->na > 0) != (s->newton_prog != NULL && d->aux_sym != NULL && d->newton != NULL)
      || (d->fb->len > 0) != (s->fb_prog != NULL) || (d->fb2 != NULL) != (s->fb2_prog != NULL)
      || (d->n_subs > 0 && (d->subs_ids == NULL || d->subs_repl == NULL))
      || (d->fb_vak_nf > 0 && d->fb_aux_sym == NULL) || d->movable_from > d->movable_to
      || d->movable_to > s->dim
      /* the scene's values are copied from its program's outputs (cml_simulation_eval_scene) */
      || s->n_scene > cml_program_n_outputs (s->scene_prog)
      /* the fallback's work arrays are sized by its constraints (cml_simulation_new) */
      || d->fb_s > n)
    return FALSE;
  /* the numeric fallback's layout (cml-simulation.c, rhs_fallback) */
  if (d->fb->len > 0)
    {
      guint nf = d->fb_vak_nf, q = d->fb_q, ns = d->fb_s;
      if (d->fb_sing ? d->fb->len != n * n + n + q * (1 + n) || d->fb_cols == NULL
                         || (d->fb_sing_varying ? !d->fb_P || !d->fb_Q || !d->fb_F : !d->fb_Kc || !d->fb_K)
          : nf > 0 ? nf > n || d->fb->len != nf * nf + nf || d->fb2 == NULL || d->fb_yhat == NULL
          : ns > n || d->fb->len != n * n + n + ns * n + ns)
        return FALSE;
    }
  if (!all_set (d->rhs, s->dim) || !all_set (d->reg, d->reg_rows * d->reg_rows)
      || !all_set (d->newton, d->na + d->na * d->na) || !all_set (d->lambda, d->n_lambda)
      || !all_set (d->subs_repl, d->n_subs) || !all_set (d->fb_yhat, n)
      || (d->reg_rows > 0 && d->reg == NULL)
      || (d->n_lambda > 0 && d->lambda == NULL))
    return FALSE;
  for (guint a = 0; a < d->na; a++)
    if (d->aux_sym[a] < 0 || (guint) d->aux_sym[a] >= n_syms)
      return FALSE;
  for (guint a = 0; a < d->fb_vak_nf; a++)
    if (d->fb_aux_sym[a] < 0 || (guint) d->fb_aux_sym[a] >= n_syms)
      return FALSE;
  for (guint k = 0; k < d->n_subs; k++)
    if (d->subs_ids[k] < 0 || (guint) d->subs_ids[k] >= n_syms || d->subs_repl[k] == NULL)
      return FALSE;
  for (guint a = 0; d->fb_cols && a < d->fb_q; a++)
    if (d->fb_cols[a] >= n)
      return FALSE;
  for (guint a = 0; a < d->fb_r; a++)
    if ((d->fb_P && d->fb_P[a] >= n) || (d->fb_Q && d->fb_Q[a] >= n))
      return FALSE;
  for (guint a = 0; d->fb_F && a < d->fb_k; a++)
    if (d->fb_F[a] >= n)
      return FALSE;
  return TRUE;
}

/* ---- the file -------------------------------------------------------------------------- */

/* The cache file of MD's text for this build, or NULL (no build ID, no usable directory). */
static char *
cache_path (const CmlModel *md, char **dir_out, char **key_out)
{
  const char *bid = cml_build_id ();
  g_autofree char *dir = NULL;
  g_autoptr (GChecksum) sum = NULL;

  if (bid == NULL || (dir = cml_cache_dir_open ("CMLAB_DERIVED_CACHE", "derived")) == NULL)
    return NULL;
  sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *) CACHE_MAGIC, -1);
  g_checksum_update (sum, (const guchar *) bid, strlen (bid) + 1);
  g_checksum_update (sum, (const guchar *) md->text, -1);
  /* the steps of the constraint algorithm are sentences in the user's language: a system
   * derived in one language is not read back in another */
  g_checksum_update (sum, (const guchar *) _("rank W = %u of %u: the Lagrangian is singular"), -1);
  g_autofree char *base = g_strconcat (g_checksum_get_string (sum), CACHE_SUFFIX, NULL);
  char *path = g_build_filename (dir, base, NULL);
  if (dir_out)
    *dir_out = g_steal_pointer (&dir);
  if (key_out)
    *key_out = g_strdup (g_checksum_get_string (sum));
  return path;
}

/* The key of an entry for the memos of native code (cml_native_build_keyed): the file's
 * name and the key of its contents — so that an entry that holds other programs than the
 * ones this text derives (written by a bug, or by hand) never finds their objects. */
static char *
entry_key (const char *name, guint64 sum)
{
  return g_strdup_printf ("%s %016" G_GINT64_MODIFIER "x", name, sum);
}

/* What names the entry inside it: the build ID, and the text's length and key. */
static void
put_identity (GByteArray *out, const CmlModel *md)
{
  guint64 len = strlen (md->text), key = cml_cache_hash64 (md->text, len);

  cml_bytes_put_str (out, cml_build_id ());
  cml_bytes_put (out, &len, sizeof len);
  cml_bytes_put (out, &key, sizeof key);
}

void
cml_sys_cache_save (CmlSystem *sys, guint nodes0, guint syms0)
{
  CmlModel *md = sys->model;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GByteArray) out = NULL;
  g_autoptr (GPtrArray) by_id = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *key = NULL;
  guint64 limit, len, sum;
  Codec c = { WRITE, NULL, { NULL, NULL, FALSE }, NULL, sys };

  if (nodes0 != md->parsed_nodes || (path = cache_path (md, &dir, &key)) == NULL)
    return;
  out = g_byte_array_new ();
  /* the header's length and key, filled in at the end */
  cml_bytes_put (out, CACHE_MAGIC, strlen (CACHE_MAGIC));
  cml_bytes_put (out, &(guint64) { 0 }, sizeof (guint64));
  cml_bytes_put (out, &(guint64) { 0 }, sizeof (guint64));
  const gsize head = out->len;
  put_identity (out, md);
  cml_bytes_put_u32 (out, nodes0);
  cml_bytes_put_u32 (out, syms0);

  /* the expressions made since the model was loaded, in the order they were made */
  by_id = cml_expr_ctx_nodes_by_id (sys->ctx);
  cml_bytes_put_u32 (out, by_id->len - nodes0);
  for (guint id = nodes0; id < by_id->len; id++)
    {
      const CmlExpr *e = by_id->pdata[id];
      cml_bytes_put_u32 (out, e->kind);
      if (e->kind == CML_EXPR_SYM)
        {
          cml_bytes_put_str (out, cml_expr_ctx_symbol_name (sys->ctx, e->sym));
          continue;
        }
      cml_bytes_put_u32 (out, e->fn);
      cml_bytes_put_f64 (out, e->value);
      cml_bytes_put_u32 (out, e->n);
      for (guint i = 0; i < e->n; i++)
        cml_bytes_put_u32 (out, e->args[i]->id);
      cml_bytes_put_u32 (out, e->coefs != NULL);
      if (e->coefs != NULL)
        cml_bytes_put (out, e->coefs, e->n * sizeof (double));
    }
  c.out = out;
  c_system (&c);
  c_scene (&c);
  c_programs (&c);
  cml_bytes_put (out, CACHE_MAGIC, strlen (CACHE_MAGIC));

  limit = cml_cache_env_number ("CMLAB_DERIVED_CACHE_LIMIT", DEFAULT_CACHE_LIMIT);
  if (out->len > limit / 2)
    return; /* more than the cache may hold: derived each time */
  len = out->len - head;
  sum = cml_cache_hash64 (out->data + head, len);
  memcpy (out->data + strlen (CACHE_MAGIC), &len, sizeof len);
  memcpy (out->data + strlen (CACHE_MAGIC) + sizeof len, &sum, sizeof sum);
  if (!cml_cache_write (path, out->data, out->len, &error))
    {
      g_debug ("the derived system of %s is not cached: %s", md->path, error->message);
      return;
    }
  cml_cache_dir_trim (dir, CACHE_SUFFIX, limit, path);
  sys->cache_key = entry_key (key, sum);
}

/* Re-makes the expressions of the record in R in SYS's context, appending them to BY_ID;
 * FALSE (R bad) when one is not what the derivation made. */
static gboolean
read_expressions (CmlSystem *sys, CmlBytesReader *r, GPtrArray *by_id)
{
  guint n_records = cml_bytes_get_u32 (r);

  if (!cml_bytes_have (r, n_records, 2 * sizeof (guint32)))
    return FALSE;
  for (guint k = 0; k < n_records && !r->bad; k++)
    {
      guint kind = cml_bytes_get_u32 (r);
      CmlExpr *e = NULL;

      if (kind == CML_EXPR_SYM)
        {
          gboolean none;
          g_autofree char *name = cml_bytes_get_str (r, &none);
          /* a symbol the derivation made: new in the context */
          if (name != NULL && cml_expr_ctx_lookup (sys->ctx, name) < 0)
            e = cml_expr_sym (sys->ctx, cml_expr_ctx_intern (sys->ctx, name));
        }
      else
        {
          guint fn = cml_bytes_get_u32 (r);
          double value = cml_bytes_get_f64 (r);
          guint n = cml_bytes_get_u32 (r);
          if (!cml_bytes_have (r, n, sizeof (guint32)))
            break;
          g_autofree CmlExpr **args = g_new (CmlExpr *, MAX (n, 1));
          g_autofree double *coefs = NULL;
          gboolean ok = TRUE;
          for (guint i = 0; i < n; i++)
            {
              guint id = cml_bytes_get_u32 (r);
              ok = ok && id < by_id->len;
              args[i] = ok ? by_id->pdata[id] : NULL;
            }
          if (cml_bytes_get_u32 (r) != 0)
            coefs = cml_bytes_get_array (r, n, sizeof (double));
          if (ok && !r->bad)
            e = cml_expr_restore (sys->ctx, kind, fn, value, n, args, coefs);
        }
      /* new, with the id it had */
      if (e == NULL || e->id != by_id->len)
        r->bad = TRUE;
      else
        g_ptr_array_add (by_id, e);
    }
  return !r->bad;
}

gboolean
cml_sys_cache_load (CmlSystem *sys)
{
  CmlModel *md = sys->model;
  g_autofree char *path = NULL, *data = NULL, *bid = NULL, *key = NULL;
  gsize len = 0, m = strlen (CACHE_MAGIC);
  guint64 plen, sum, tlen, tkey;
  gboolean none;
  Codec c = { READ, NULL, { NULL, NULL, FALSE }, NULL, sys };

  /* a regular file, never more than the cache writes (half its limit); not a link */
  if (cml_expr_ctx_n_nodes (sys->ctx) != md->parsed_nodes || (path = cache_path (md, NULL, &key)) == NULL
      || (data = cml_cache_read (path, cml_cache_env_number ("CMLAB_DERIVED_CACHE_LIMIT", DEFAULT_CACHE_LIMIT) / 2,
                                 &len)) == NULL)
    return FALSE;
  if (len < m + 2 * sizeof (guint64) || memcmp (data, CACHE_MAGIC, m) != 0)
    return FALSE;
  memcpy (&plen, data + m, sizeof plen);
  memcpy (&sum, data + m + sizeof plen, sizeof sum);
  c.r.p = (const guint8 *) data + m + 2 * sizeof (guint64);
  c.r.end = (const guint8 *) data + len;
  if (plen != (guint64) (c.r.end - c.r.p) || sum != cml_cache_hash64 (c.r.p, plen))
    {
      g_debug ("%s is not whole: deriving %s", path, md->path);
      return FALSE;
    }
  bid = cml_bytes_get_str (&c.r, &none);
  cml_bytes_get (&c.r, &tlen, sizeof tlen);
  cml_bytes_get (&c.r, &tkey, sizeof tkey);
  if (c.r.bad || g_strcmp0 (bid, cml_build_id ()) != 0 || tlen != strlen (md->text)
      || tkey != cml_cache_hash64 (md->text, tlen) || cml_bytes_get_u32 (&c.r) != md->parsed_nodes
      || cml_bytes_get_u32 (&c.r) != cml_expr_ctx_n_symbols (sys->ctx))
    return FALSE;

  c.by_id = cml_expr_ctx_nodes_by_id (sys->ctx);
  if (read_expressions (sys, &c.r, c.by_id))
    {
      c_system (&c);
      /* the free velocities are fast inputs: there must be as many as said */
      if (sys->derived.na > 0 && sys->derived.aux_sym == NULL)
        c.r.bad = TRUE;
      if (!c.r.bad)
        {
          cml_sys_set_fast_inputs (sys);
          c_scene (&c);
          c_programs (&c);
        }
      if (!c.r.bad && (!cml_bytes_have (&c.r, m, 1) || memcmp (c.r.p, CACHE_MAGIC, m) != 0 || c.r.p + m != c.r.end))
        c.r.bad = TRUE;
      if (!c.r.bad && !consistent (sys))
        c.r.bad = TRUE;
    }
  g_ptr_array_unref (c.by_id);
  if (c.r.bad)
    {
      /* back to what cml_system_new had before: the system is derived */
      g_debug ("%s does not describe a system of %s: deriving it", path, md->path);
      c.mode = CLEAR;
      c_system (&c);
      c_scene (&c);
      c_programs (&c);
      g_clear_pointer (&sys->fast_sym, g_free);
      sys->n_fast = 0;
      return FALSE;
    }
  cml_sys_classify_pivots (sys);
  cml_cache_touch (path);
  sys->cache_key = entry_key (key, sum);
  sys->from_cache = TRUE;
  return TRUE;
}
