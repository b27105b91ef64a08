/* cml-expr.c — the expression context and its hash-consed canonical nodes: the
 * constructors, which simplify, and inspection of nodes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every node is built by intern_node(), which looks its structure up in the context's
 * hash table and returns the existing node when there is one; so structurally equal
 * canonical expressions are one pointer.  The constructors bring their result into the
 * canonical form described in cml-expr-private.h before interning it (sums in
 * cml-expr-sum.c, products in cml-expr-product.c, powers and functions here):
 *
 *   sum      flatten nested sums, split "c * monomial", sort terms by node id, add the
 *            coefficients of equal terms, drop zero terms;
 *   product  flatten nested products, split every factor into base^exponent, sort by
 *            base id, add the exponents of equal bases, rebuild each base^exponent with
 *            the power rules, fold numbers into the coefficient;
 *   power    fold numbers (only when the result is finite), x^0 = 1, x^1 = x,
 *            (c*X)^n = c^n X^n for integer n, (b^e)^n = b^(e*n) when that is valid for
 *            every real b (n integer, or e non-integer, or e = -1);
 *   function fold numbers (only when finite), sqrt(x) = x^0.5, odd functions take the
 *            sign out of a "negative-looking" argument, even ones drop it.
 *
 * Numbers are never folded into NaN or ±inf: 1/0 stays the node 0^-1, log(0) stays
 * log(0); evaluating those gives what libm gives (inf, -inf).  Coefficients can still
 * overflow (1e200*x*1e200, or the 55th derivative of x^1e10): the node then holds inf or
 * NaN, the context counts it (cml_expr_ctx_n_nonfinite), and no rule that divides by or
 * compares a coefficient (the primitive form of sum factors) is applied to a non-finite
 * one, so that building always ends.  Callers that must not produce such nodes (the
 * parser, the derivation of the equations) check the count and fail.
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"
#include "cml-error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)

/* ---- arena ---------------------------------------------------------------------------- */

gpointer
cml_expr_arena_alloc (CmlExprCtx *ctx,
             gsize       size)
{
  gpointer p;

  size = (size + 7) & ~(gsize) 7;
  if (size > ctx->arena_left)
    {
      gsize block = MAX (ARENA_BLOCK_SIZE, size);
      guint8 *mem = g_malloc (block);

      ctx->blocks = g_slist_prepend (ctx->blocks, mem);
      ctx->arena_bytes += block;
      ctx->arena_ptr = mem;
      ctx->arena_left = block;
    }
  p = ctx->arena_ptr;
  ctx->arena_ptr += size;
  ctx->arena_left -= size;
  return p;
}

/* ---- hashing -------------------------------------------------------------------------- */

static inline guint
mix (guint h,
     guint v)
{
  h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static inline guint
hash_double (double v)
{
  guint64 bits;

  memcpy (&bits, &v, sizeof bits);
  bits *= G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return (guint) (bits >> 32) ^ (guint) bits;
}

static inline guint64
shash_mix (guint64 h,
           guint64 v)
{
  h ^= v + G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) + (h << 12) + (h >> 4);
  return h * G_GUINT64_CONSTANT (0x100000001b3);
}

static inline gboolean
same_double (double a,
             double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

static guint
node_compute_hash (const CmlExpr *e)
{
  guint h = 0x12345u + e->kind * 0x01000193u;

  h = mix (h, e->fn);
  h = mix (h, (guint) e->sym);
  h = mix (h, hash_double (e->value));
  for (guint i = 0; i < e->n; i++)
    {
      h = mix (h, e->args[i]->id);
      if (e->coefs != NULL)
        h = mix (h, hash_double (e->coefs[i]));
    }
  return h;
}

static guint
node_hash (gconstpointer p)
{
  return ((const CmlExpr *) p)->hash;
}

static gboolean
node_equal (gconstpointer pa,
            gconstpointer pb)
{
  const CmlExpr *a = pa, *b = pb;

  if (a->hash != b->hash || a->kind != b->kind || a->fn != b->fn || a->sym != b->sym
      || a->n != b->n || !same_double (a->value, b->value))
    return FALSE;
  for (guint i = 0; i < a->n; i++)
    if (a->args[i] != b->args[i])
      return FALSE;
  if ((a->coefs == NULL) != (b->coefs == NULL))
    return FALSE;
  if (a->coefs != NULL && memcmp (a->coefs, b->coefs, a->n * sizeof (double)) != 0)
    return FALSE;
  return TRUE;
}

static guint
diff_memo_hash (gconstpointer p)
{
  const DiffMemo *m = p;

  return m->e->hash ^ ((guint) m->id * 0x9e3779b1u);
}

static gboolean
diff_memo_equal (gconstpointer pa,
                 gconstpointer pb)
{
  const DiffMemo *a = pa, *b = pb;

  return a->e == b->e && a->id == b->id;
}

/* TRUE if KEY itself holds a numeric constant (value, coefficient) that is ±inf or NaN. */
static gboolean
key_nonfinite (const CmlExpr *key)
{
  if ((key->kind == CML_EXPR_NUM || key->kind == CML_EXPR_ADD || key->kind == CML_EXPR_MUL)
      && !isfinite (key->value))
    return TRUE;
  if (key->coefs != NULL)
    for (guint i = 0; i < key->n; i++)
      if (!isfinite (key->coefs[i]))
        return TRUE;
  return FALSE;
}

/* Returns the node equal to KEY, creating it (copying args and coefs into the arena)
 * when it does not exist yet.  KEY's args/coefs may point to temporary storage. */
CmlExpr *
cml_expr_intern_node (CmlExprCtx *ctx,
             CmlExpr    *key)
{
  CmlExpr *node;

  if (key->kind == CML_EXPR_NUM || key->kind == CML_EXPR_ADD || key->kind == CML_EXPR_MUL)
    if (key->value == 0.0)
      key->value = 0.0; /* no -0.0 */
  /* counted on every request, not only on creation: a caller that compares the count
   * before and after its work learns about an overflowed node that already existed */
  if (key_nonfinite (key))
    ctx->n_nonfinite++;

  key->mask = key->kind == CML_EXPR_SYM ? CML_EXPR_SYM_BIT (key->sym) : 0;
  for (guint i = 0; i < key->n; i++)
    key->mask |= key->args[i]->mask;
  key->hash = node_compute_hash (key);

  node = g_hash_table_lookup (ctx->nodes, key);
  if (node != NULL)
    return node;

  node = cml_expr_arena_alloc (ctx, sizeof *node);
  *node = *key;
  if (key->kind != CML_EXPR_SYM)
    {
      guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325) ^ (key->kind * 131u + key->fn);

      guint64 operands = 0;
      gboolean commutative = key->kind == CML_EXPR_ADD || key->kind == CML_EXPR_MUL;

      /* operands of sums and products are sorted by id: combine them commutatively */
      h = shash_mix (h, hash_double (key->value));
      for (guint i = 0; i < key->n; i++)
        {
          guint64 x = key->args[i]->shash;

          if (key->coefs != NULL)
            x = shash_mix (x, hash_double (key->coefs[i]));
          if (commutative)
            operands += shash_mix (x, 0x2545f491u);
          else
            h = shash_mix (h, x);
        }
      node->shash = shash_mix (h, operands);
    }
  if (key->n > 0)
    {
      node->args = cml_expr_arena_alloc (ctx, key->n * sizeof (CmlExpr *));
      memcpy (node->args, key->args, key->n * sizeof (CmlExpr *));
    }
  else
    node->args = NULL;
  if (key->coefs != NULL)
    {
      node->coefs = cml_expr_arena_alloc (ctx, key->n * sizeof (double));
      memcpy (node->coefs, key->coefs, key->n * sizeof (double));
    }
  node->id = ctx->next_id++;
  g_hash_table_add (ctx->nodes, node);
  return node;
}


/* ---- the derived-system cache (cml-system-cache.c) ------------------------------------ */

GPtrArray *
cml_expr_ctx_nodes_by_id (CmlExprCtx *ctx)
{
  GPtrArray *by_id = g_ptr_array_sized_new (ctx->next_id);
  GHashTableIter it;
  gpointer node;

  g_ptr_array_set_size (by_id, ctx->next_id);
  g_hash_table_iter_init (&it, ctx->nodes);
  while (g_hash_table_iter_next (&it, &node, NULL))
    by_id->pdata[((CmlExpr *) node)->id] = node;
  return by_id;
}

CmlExpr *
cml_expr_restore (CmlExprCtx *ctx, guint kind, guint fn, double value, guint n, CmlExpr **args,
                  const double *coefs)
{
  CmlExpr key;
  gboolean ok;

  /* (the numbers as read: checked before they become a kind and a function) */
  if (kind == CML_EXPR_NUM)
    ok = n == 0 && coefs == NULL;
  else if (kind == CML_EXPR_ADD)
    ok = n >= 1 && coefs != NULL;
  else if (kind == CML_EXPR_MUL)
    ok = n >= 1 && coefs == NULL && value != 0.0;
  else if (kind == CML_EXPR_POW)
    ok = n == 2 && coefs == NULL;
  else if (kind == CML_EXPR_FUNC)
    ok = n == 1 && coefs == NULL && fn < CML_FN_ATAN2;
  else if (kind == CML_EXPR_FUNC2)
    ok = n == 2 && coefs == NULL && fn == CML_FN_ATAN2;
  else
    ok = FALSE;
  if (!ok)
    return NULL;
  cml_expr_key_init (&key, (CmlExprKind) kind);
  key.fn = kind == CML_EXPR_FUNC || kind == CML_EXPR_FUNC2 ? fn : 0;
  key.value = kind == CML_EXPR_NUM || kind == CML_EXPR_ADD || kind == CML_EXPR_MUL ? value : 0.0;
  key.n = n;
  key.args = args;
  key.coefs = (double *) coefs;
  return cml_expr_intern_node (ctx, &key);
}

/* ---- context and symbols -------------------------------------------------------------- */

CmlExprCtx *
cml_expr_ctx_new (void)
{
  CmlExprCtx *ctx = g_new0 (CmlExprCtx, 1);

  ctx->nodes = g_hash_table_new (node_hash, node_equal);
  ctx->sym_index = g_hash_table_new (g_str_hash, g_str_equal);
  ctx->sym_names = g_ptr_array_new_with_free_func (g_free);
  ctx->sym_nodes = g_ptr_array_new ();
  ctx->diff_memo = g_hash_table_new (diff_memo_hash, diff_memo_equal);

  ctx->zero = cml_expr_num (ctx, 0.0);
  ctx->one = cml_expr_num (ctx, 1.0);
  ctx->minus_one = cml_expr_num (ctx, -1.0);
  ctx->half = cml_expr_num (ctx, 0.5);
  return ctx;
}

void
cml_expr_ctx_free (CmlExprCtx *ctx)
{
  if (ctx == NULL)
    return;
  g_hash_table_unref (ctx->nodes);
  g_hash_table_unref (ctx->sym_index);
  g_ptr_array_unref (ctx->sym_names);
  g_ptr_array_unref (ctx->sym_nodes);
  g_hash_table_unref (ctx->diff_memo);
  g_slist_free_full (ctx->blocks, g_free);
  g_free (ctx);
}

int
cml_expr_ctx_intern (CmlExprCtx *ctx,
                     const char *name)
{
  gpointer found;
  char *copy;
  CmlExpr key;
  int id;

  g_return_val_if_fail (ctx != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  found = g_hash_table_lookup (ctx->sym_index, name);
  if (found != NULL)
    return GPOINTER_TO_INT (found) - 1;

  id = (int) ctx->sym_names->len;
  copy = g_strdup (name);
  g_ptr_array_add (ctx->sym_names, copy);
  g_hash_table_insert (ctx->sym_index, copy, GINT_TO_POINTER (id + 1));

  cml_expr_key_init (&key, CML_EXPR_SYM);
  key.sym = id;
  key.shash = shash_mix (G_GUINT64_CONSTANT (0x5bd1e995), g_str_hash (name));
  g_ptr_array_add (ctx->sym_nodes, cml_expr_intern_node (ctx, &key));
  return id;
}

int
cml_expr_ctx_lookup (const CmlExprCtx *ctx,
                     const char       *name)
{
  gpointer found;

  g_return_val_if_fail (ctx != NULL, -1);
  g_return_val_if_fail (name != NULL, -1);

  found = g_hash_table_lookup (ctx->sym_index, name);
  return found != NULL ? GPOINTER_TO_INT (found) - 1 : -1;
}

const char *
cml_expr_ctx_symbol_name (const CmlExprCtx *ctx,
                          int               id)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (id >= 0 && (guint) id < ctx->sym_names->len, NULL);

  return g_ptr_array_index (ctx->sym_names, id);
}

guint
cml_expr_ctx_n_nodes (const CmlExprCtx *ctx)
{
  g_return_val_if_fail (ctx != NULL, 0);

  return ctx->next_id;
}

guint
cml_expr_ctx_n_symbols (const CmlExprCtx *ctx)
{
  g_return_val_if_fail (ctx != NULL, 0);

  return ctx->sym_names->len;
}

guint64
cml_expr_ctx_n_nonfinite (const CmlExprCtx *ctx)
{
  g_return_val_if_fail (ctx != NULL, 0);

  return ctx->n_nonfinite;
}

gsize
cml_expr_ctx_memory (const CmlExprCtx *ctx)
{
  g_return_val_if_fail (ctx != NULL, 0);

  /* the arena, and the hash table's slot for each node */
  return ctx->arena_bytes + g_hash_table_size (ctx->nodes) * 2 * sizeof (gpointer);
}

/* ---- numbers and symbols -------------------------------------------------------------- */

CmlExpr *
cml_expr_num (CmlExprCtx *ctx,
              double      value)
{
  CmlExpr key;

  g_return_val_if_fail (ctx != NULL, NULL);

  if (value == 0.0 && ctx->zero != NULL)
    return ctx->zero;
  if (value == 1.0 && ctx->one != NULL)
    return ctx->one;
  cml_expr_key_init (&key, CML_EXPR_NUM);
  key.value = value;
  return cml_expr_intern_node (ctx, &key);
}

CmlExpr *
cml_expr_sym (CmlExprCtx *ctx,
              int         id)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (id >= 0 && (guint) id < ctx->sym_nodes->len, NULL);

  return g_ptr_array_index (ctx->sym_nodes, id);
}


static gboolean is_negative_looking (const CmlExpr *e);

/* ---- powers --------------------------------------------------------------------------- */

/* BASE^EXP for numbers, or FALSE when the result would not be finite (or not real). */
gboolean
cml_expr_fold_pow (double  base,
          double  exp,
          double *result)
{
  double r;

  if (exp == -1.0)
    r = 1.0 / base;
  else if (exp == 0.5)
    r = sqrt (base);
  else if (exp == 2.0)
    r = base * base;
  else
    r = pow (base, exp);
  if (!isfinite (r))
    return FALSE;
  *result = r;
  return TRUE;
}

static CmlExpr *
pow_raw (CmlExprCtx *ctx,
         CmlExpr    *base,
         CmlExpr    *exp)
{
  CmlExpr key;
  CmlExpr *args[2] = { base, exp };

  cml_expr_key_init (&key, CML_EXPR_POW);
  key.n = 2;
  key.args = args;
  return cml_expr_intern_node (ctx, &key);
}

CmlExpr *
cml_expr_pow_node (CmlExprCtx *ctx,
          CmlExpr    *base,
          CmlExpr    *exp)
{
  if (is_num (exp))
    {
      double ev = exp->value;
      gboolean integer = cml_expr_double_is_int (ev);

      if (ev == 0.0)
        return ctx->one;
      if (ev == 1.0)
        return base;

      switch ((CmlExprKind) base->kind)
        {
        case CML_EXPR_NUM:
          {
            double r;

            if (base->value == 1.0)
              return ctx->one;
            if (cml_expr_fold_pow (base->value, ev, &r))
              return cml_expr_num (ctx, r);
            return pow_raw (ctx, base, exp);
          }

        case CML_EXPR_MUL:
          if (integer)
            {
              /* (c * Π f)^n = c^n * Π f^n */
              double c;
              CmlExpr **fs;
              CmlExpr *result;

              if (!cml_expr_fold_pow (base->value, ev, &c))
                return pow_raw (ctx, base, exp);
              fs = g_new (CmlExpr *, base->n);
              for (guint i = 0; i < base->n; i++)
                fs[i] = cml_expr_pow_node (ctx, base->args[i], exp);
              result = cml_expr_mul_list (ctx, c, fs, base->n);
              g_free (fs);
              return result;
            }
          if (base->value > 0.0 && base->value != 1.0)
            {
              /* (c * X)^p = c^p * X^p for c > 0 */
              double c;

              if (cml_expr_fold_pow (base->value, ev, &c))
                return cml_expr_mul_coef (ctx, c, cml_expr_pow_node (ctx, cml_expr_mul_strip_coef (ctx, base), exp));
            }
          return pow_raw (ctx, base, exp);

        case CML_EXPR_POW:
          {
            CmlExpr *e0 = base->args[1];

            /* (b^e0)^n = b^(e0*n) when valid for every real b */
            if (integer
                || (is_num (e0) && (!cml_expr_double_is_int (e0->value) || e0->value == -1.0)))
              return cml_expr_pow_node (ctx, base->args[0],
                               is_num (e0) ? cml_expr_num (ctx, cml_expr_snap_fraction (e0->value * ev))
                                           : cml_expr_mul (ctx, e0, exp));
            return pow_raw (ctx, base, exp);
          }

        case CML_EXPR_ADD:
          /* (c*X)^n = c^n * X^n: sums raised to integer powers are primitive */
          if (integer)
            {
              double lead = base->coefs[cml_expr_sum_lead (base)], cn;

              if (cml_expr_sum_normalisable (base) && cml_expr_fold_pow (lead, ev, &cn))
                return cml_expr_mul_coef (ctx, cn, pow_raw (ctx, cml_expr_sum_divide (ctx, base, lead), exp));
            }
          return pow_raw (ctx, base, exp);

        case CML_EXPR_SYM:
        case CML_EXPR_FUNC:
        case CML_EXPR_FUNC2:
        default:
          return pow_raw (ctx, base, exp);
        }
    }

  /* symbolic exponent */
  if (cml_expr_is_num_value (base, 1.0))
    return ctx->one;
  if (base->kind == CML_EXPR_POW)
    {
      CmlExpr *e0 = base->args[1];

      if (is_num (e0) && (!cml_expr_double_is_int (e0->value) || e0->value == -1.0))
        return cml_expr_pow_node (ctx, base->args[0], cml_expr_mul (ctx, e0, exp));
    }
  return pow_raw (ctx, base, exp);
}

CmlExpr *
cml_expr_pow (CmlExprCtx *ctx,
              CmlExpr    *base,
              CmlExpr    *exponent)
{
  g_return_val_if_fail (ctx != NULL && base != NULL && exponent != NULL, NULL);

  return cml_expr_pow_node (ctx, base, exponent);
}

CmlExpr *
cml_expr_powi (CmlExprCtx *ctx,
               CmlExpr    *base,
               int         exponent)
{
  g_return_val_if_fail (ctx != NULL && base != NULL, NULL);

  return cml_expr_pow_node (ctx, base, cml_expr_num (ctx, exponent));
}

/* ---- functions ------------------------------------------------------------------------ */

/* TRUE if -E is the preferred one of ±E: a product with a negative coefficient, a sum
 * whose leading term (see below) has a negative coefficient, a negative number.  Exactly
 * one of E and -E is negative-looking (unless E is 0). */
static gboolean
is_negative_looking (const CmlExpr *e)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      return e->value < 0.0;
    case CML_EXPR_MUL:
      return e->value < 0.0;
    case CML_EXPR_ADD:
      return e->coefs[cml_expr_sum_lead (e)] < 0.0;
    case CML_EXPR_SYM:
    case CML_EXPR_POW:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    default:
      return FALSE;
    }
}

static gboolean
fold_func (CmlFunc fn,
           double  a,
           double *result)
{
  double r;

  if (fn == CML_FN_ATAN2)
    return FALSE;
  r = cml_func_value (fn, a, 0);
  if (!isfinite (r))
    return FALSE;
  *result = r;
  return TRUE;
}

static CmlExpr *
func_raw (CmlExprCtx *ctx,
          CmlFunc     fn,
          CmlExpr    *arg)
{
  CmlExpr key;

  cml_expr_key_init (&key, CML_EXPR_FUNC);
  key.fn = fn;
  key.n = 1;
  key.args = &arg;
  return cml_expr_intern_node (ctx, &key);
}

CmlExpr *
cml_expr_func (CmlExprCtx *ctx,
               CmlFunc     fn,
               CmlExpr    *arg)
{
  double r;

  g_return_val_if_fail (ctx != NULL && arg != NULL, NULL);
  g_return_val_if_fail (fn != CML_FN_ATAN2, NULL);

  if (fn == CML_FN_SQRT)
    return cml_expr_pow_node (ctx, arg, ctx->half);
  if (is_num (arg) && fold_func (fn, arg->value, &r))
    return cml_expr_num (ctx, r);

  switch (fn)
    {
    /* odd functions: f(-a) = -f(a) */
    case CML_FN_SIN:
    case CML_FN_TAN:
    case CML_FN_ASIN:
    case CML_FN_ATAN:
    case CML_FN_SINH:
    case CML_FN_TANH:
    case CML_FN_SIGN:
      if (is_negative_looking (arg))
        return cml_expr_mul_coef (ctx, -1.0, cml_expr_func (ctx, fn, cml_expr_negate (ctx, arg)));
      if (fn == CML_FN_SIGN && arg->kind == CML_EXPR_FUNC && arg->fn == CML_FN_SIGN)
        return arg;
      break;

    /* even functions: f(-a) = f(a) */
    case CML_FN_COS:
    case CML_FN_COSH:
    case CML_FN_ABS:
      if (is_negative_looking (arg))
        return cml_expr_func (ctx, fn, cml_expr_negate (ctx, arg));
      if (fn == CML_FN_ABS && arg->kind == CML_EXPR_FUNC && arg->fn == CML_FN_ABS)
        return arg;
      break;

    case CML_FN_LOG:
      if (arg->kind == CML_EXPR_FUNC && arg->fn == CML_FN_EXP)
        return arg->args[0];
      break;

    case CML_FN_ACOS:
    case CML_FN_EXP:
    case CML_FN_SQRT:
    case CML_FN_ATAN2:
    default:
      break;
    }
  return func_raw (ctx, fn, arg);
}

CmlExpr *
cml_expr_func2 (CmlExprCtx *ctx,
                CmlFunc     fn,
                CmlExpr    *a,
                CmlExpr    *b)
{
  CmlExpr key;
  CmlExpr *args[2] = { a, b };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);
  g_return_val_if_fail (fn == CML_FN_ATAN2, NULL);

  if (is_num (a) && is_num (b))
    {
      double r = cml_func_value (CML_FN_ATAN2, a->value, b->value);

      if (isfinite (r))
        return cml_expr_num (ctx, r);
    }
  cml_expr_key_init (&key, CML_EXPR_FUNC2);
  key.fn = fn;
  key.n = 2;
  key.args = args;
  return cml_expr_intern_node (ctx, &key);
}

CmlExpr *
cml_expr_monic (CmlExprCtx *ctx, CmlExpr *e, double *factor)
{
  double c = 1;

  g_return_val_if_fail (e != NULL, NULL);
  if (e->kind == CML_EXPR_MUL)
    c = e->value;
  else if (e->kind == CML_EXPR_ADD && e->value == 0 && e->n > 0)
    c = e->coefs[0];
  if (factor)
    *factor = c;
  if (c == 1 || c == 0 || !isfinite (c))
    {
      if (factor)
        *factor = 1;
      return e;
    }
  return cml_expr_mul (ctx, cml_expr_num (ctx, 1 / c), e);
}
