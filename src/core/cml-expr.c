/* cml-expr.c — expression context, hash-consed canonical nodes, calculus, parser.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every node is built by intern_node(), which looks its structure up in the context's
 * hash table and returns the existing node when there is one; so structurally equal
 * canonical expressions are one pointer.  The constructors bring their result into the
 * canonical form described in cml-expr-private.h before interning it:
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
#define PARSE_MAX_DEPTH  500

typedef struct
{
  CmlExpr *e;
  int      id;
  CmlExpr *result;
  gboolean nonfinite; /* computing RESULT built a node with a non-finite constant */
} DiffMemo;

struct _CmlExprCtx
{
  GHashTable *nodes;      /* CmlExpr* (key = value) */
  GHashTable *sym_index;  /* name -> GINT_TO_POINTER (id + 1) */
  GPtrArray  *sym_names;  /* id -> name (owned) */
  GPtrArray  *sym_nodes;  /* id -> SYM node */
  GHashTable *diff_memo;  /* DiffMemo* (key = value) */

  GSList     *blocks;     /* arena blocks, freed with the context */
  guint8     *arena_ptr;
  gsize       arena_left;
  guint       next_id;
  guint64     n_nonfinite; /* see cml_expr_ctx_n_nonfinite () */
  gsize       arena_bytes; /* see cml_expr_ctx_memory () */

  CmlExpr    *zero;
  CmlExpr    *one;
  CmlExpr    *minus_one;
  CmlExpr    *half;
};

/* ---- arena ---------------------------------------------------------------------------- */

static gpointer
arena_alloc (CmlExprCtx *ctx,
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
static CmlExpr *
intern_node (CmlExprCtx *ctx,
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

  node = arena_alloc (ctx, sizeof *node);
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
      node->args = arena_alloc (ctx, key->n * sizeof (CmlExpr *));
      memcpy (node->args, key->args, key->n * sizeof (CmlExpr *));
    }
  else
    node->args = NULL;
  if (key->coefs != NULL)
    {
      node->coefs = arena_alloc (ctx, key->n * sizeof (double));
      memcpy (node->coefs, key->coefs, key->n * sizeof (double));
    }
  node->id = ctx->next_id++;
  g_hash_table_add (ctx->nodes, node);
  return node;
}

static void
key_init (CmlExpr     *key,
          CmlExprKind  kind)
{
  memset (key, 0, sizeof *key);
  key->kind = kind;
  key->sym = -1;
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

  key_init (&key, CML_EXPR_SYM);
  key.sym = id;
  key.shash = shash_mix (G_GUINT64_CONSTANT (0x5bd1e995), g_str_hash (name));
  g_ptr_array_add (ctx->sym_nodes, intern_node (ctx, &key));
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
  key_init (&key, CML_EXPR_NUM);
  key.value = value;
  return intern_node (ctx, &key);
}

CmlExpr *
cml_expr_sym (CmlExprCtx *ctx,
              int         id)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (id >= 0 && (guint) id < ctx->sym_nodes->len, NULL);

  return g_ptr_array_index (ctx->sym_nodes, id);
}

static inline gboolean
is_num (const CmlExpr *e)
{
  return e->kind == CML_EXPR_NUM;
}

static inline gboolean
is_num_value (const CmlExpr *e,
              double         v)
{
  return e->kind == CML_EXPR_NUM && e->value == v;
}

/* ---- sums ----------------------------------------------------------------------------- */

typedef struct
{
  CmlExpr *t;     /* the monomial */
  double   c;     /* its coefficient */
  double   cmax;  /* largest |contribution| (for the cancellation tolerance) */
  guint    count; /* number of contributions */
} Term;

typedef struct
{
  Term  *v;
  guint  len;
  guint  cap;
  Term   stack[16];
} TermVec;

static void
term_vec_init (TermVec *tv)
{
  tv->v = tv->stack;
  tv->len = 0;
  tv->cap = G_N_ELEMENTS (tv->stack);
}

static void
term_vec_clear (TermVec *tv)
{
  if (tv->v != tv->stack)
    g_free (tv->v);
}

static void
term_vec_push (TermVec *tv,
               CmlExpr *t,
               double   c)
{
  if (tv->len == tv->cap)
    {
      tv->cap *= 2;
      if (tv->v == tv->stack)
        {
          tv->v = g_new (Term, tv->cap);
          memcpy (tv->v, tv->stack, sizeof tv->stack);
        }
      else
        tv->v = g_renew (Term, tv->v, tv->cap);
    }
  tv->v[tv->len].t = t;
  tv->v[tv->len].c = c;
  tv->v[tv->len].cmax = fabs (c);
  tv->v[tv->len].count = 1;
  tv->len++;
}

static int
term_cmp_id (const void *pa,
             const void *pb)
{
  const Term *a = pa, *b = pb;

  return a->t->id < b->t->id ? -1 : a->t->id > b->t->id;
}

/* A MUL's monomial: the same factors with coefficient 1. */
static CmlExpr *
mul_strip_coef (CmlExprCtx *ctx,
                CmlExpr    *m)
{
  CmlExpr key;

  if (m->value == 1.0)
    return m;
  if (m->n == 1)
    return m->args[0];
  key_init (&key, CML_EXPR_MUL);
  key.value = 1.0;
  key.n = m->n;
  key.args = m->args;
  return intern_node (ctx, &key);
}

/* Adds C * T to the flat term list and constant. */
static void
push_term (CmlExprCtx *ctx,
           TermVec    *tv,
           double     *cst,
           double     *cst_max,
           CmlExpr    *t,
           double      c)
{
  if (c == 0.0)
    return;
  switch ((CmlExprKind) t->kind)
    {
    case CML_EXPR_NUM:
      *cst += c * t->value;
      *cst_max = MAX (*cst_max, fabs (c * t->value));
      break;
    case CML_EXPR_ADD:
      if (t->value != 0.0)
        {
          *cst += c * t->value;
          *cst_max = MAX (*cst_max, fabs (c * t->value));
        }
      for (guint i = 0; i < t->n; i++)
        term_vec_push (tv, t->args[i], c * t->coefs[i]);
      break;
    case CML_EXPR_MUL:
      if (t->value != 1.0)
        term_vec_push (tv, mul_strip_coef (ctx, t), c * t->value);
      else
        term_vec_push (tv, t, c);
      break;
    case CML_EXPR_SYM:
    case CML_EXPR_POW:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    default:
      term_vec_push (tv, t, c);
      break;
    }
}

/* Sums that cancel to within rounding (0.1*x + 0.2*x - 0.3*x) become exact zeros. */
static inline double
snap_sum (double sum,
          double max_contribution,
          guint  count)
{
  if (count > 1 && fabs (sum) <= 8 * DBL_EPSILON * max_contribution)
    return 0.0;
  return sum;
}

static CmlExpr *mul_coef (CmlExprCtx *ctx, double c, CmlExpr *e);

/* The canonical sum CST + Σ TV (consumes the vector's content). */
static CmlExpr *
finish_sum (CmlExprCtx *ctx,
            TermVec    *tv,
            double      cst,
            double      cst_max,
            guint       cst_count)
{
  CmlExpr key;
  CmlExpr **args;
  double *coefs;
  guint n = 0;
  CmlExpr *result;

  cst = snap_sum (cst, cst_max, cst_count);

  /* sort by node id and collect like terms */
  if (tv->len > 1)
    qsort (tv->v, tv->len, sizeof (Term), term_cmp_id);
  for (guint i = 0; i < tv->len; i++)
    {
      if (n > 0 && tv->v[n - 1].t == tv->v[i].t)
        {
          Term *acc = &tv->v[n - 1];

          acc->c += tv->v[i].c;
          acc->cmax = MAX (acc->cmax, tv->v[i].cmax);
          acc->count += tv->v[i].count;
        }
      else
        tv->v[n++] = tv->v[i];
    }
  {
    guint m = 0;

    for (guint i = 0; i < n; i++)
      {
        double c = snap_sum (tv->v[i].c, tv->v[i].cmax, tv->v[i].count);

        if (c != 0.0)
          {
            tv->v[m] = tv->v[i];
            tv->v[m].c = c;
            m++;
          }
      }
    n = m;
  }

  if (n == 0)
    return cml_expr_num (ctx, cst);
  if (n == 1 && cst == 0.0)
    return mul_coef (ctx, tv->v[0].c, tv->v[0].t);

  args = g_new (CmlExpr *, n);
  coefs = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      args[i] = tv->v[i].t;
      coefs[i] = tv->v[i].c;
    }
  key_init (&key, CML_EXPR_ADD);
  key.value = cst;
  key.n = n;
  key.args = args;
  key.coefs = coefs;
  result = intern_node (ctx, &key);
  g_free (args);
  g_free (coefs);
  return result;
}

/* Σ coefs[i] * terms[i] (coefs may be NULL: all 1). */
static CmlExpr *
sum_list (CmlExprCtx     *ctx,
          CmlExpr *const *terms,
          const double   *coefs,
          guint           n)
{
  TermVec tv;
  double cst = 0.0, cst_max = 0.0;
  guint cst_count = 0;
  CmlExpr *result;

  /* fast path: a single operand */
  if (n == 1 && (coefs == NULL || coefs[0] == 1.0))
    return terms[0];

  term_vec_init (&tv);
  for (guint i = 0; i < n; i++)
    {
      CmlExpr *t = terms[i];

      if (t->kind == CML_EXPR_NUM || (t->kind == CML_EXPR_ADD && t->value != 0.0))
        cst_count++;
      push_term (ctx, &tv, &cst, &cst_max, t, coefs != NULL ? coefs[i] : 1.0);
    }
  result = finish_sum (ctx, &tv, cst, cst_max, cst_count);
  term_vec_clear (&tv);
  return result;
}

CmlExpr *
cml_expr_sum (CmlExprCtx     *ctx,
              CmlExpr *const *terms,
              guint           n)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (n == 0 || terms != NULL, NULL);

  if (n == 0)
    return ctx->zero;
  return sum_list (ctx, terms, NULL, n);
}

CmlExpr *
cml_expr_add (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  CmlExpr *t[2] = { a, b };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  if (is_num_value (b, 0.0))
    return a;
  if (is_num_value (a, 0.0))
    return b;
  if (is_num (a) && is_num (b))
    return cml_expr_num (ctx, a->value + b->value);
  return sum_list (ctx, t, NULL, 2);
}

CmlExpr *
cml_expr_sub (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  CmlExpr *t[2] = { a, b };
  const double c[2] = { 1.0, -1.0 };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  if (a == b)
    return ctx->zero;
  if (is_num_value (b, 0.0))
    return a;
  return sum_list (ctx, t, c, 2);
}

/* ---- products ------------------------------------------------------------------------- */

static gboolean is_negative_looking (const CmlExpr *e);
static CmlExpr *pow_node (CmlExprCtx *ctx, CmlExpr *base, CmlExpr *exp);

/* The lead term of the sum E: the one with the least structural hash, a choice that does
 * not depend on the order in which nodes were created. */
static guint
sum_lead (const CmlExpr *e)
{
  guint lead = 0;

  for (guint i = 1; i < e->n; i++)
    if (e->args[i]->shash < e->args[lead]->shash)
      lead = i;
  return lead;
}

/* The sum E divided by C term by term (so that a coefficient equal to C becomes 1). */
static CmlExpr *
sum_divide (CmlExprCtx *ctx,
            CmlExpr    *e,
            double      c)
{
  TermVec tv;
  CmlExpr *result;

  term_vec_init (&tv);
  for (guint i = 0; i < e->n; i++)
    term_vec_push (&tv, e->args[i], e->coefs[i] / c);
  result = finish_sum (ctx, &tv, e->value / c, 0.0, 0);
  term_vec_clear (&tv);
  return result;
}

/* Whether the sum E can be divided by its lead coefficient (made primitive) exactly as a
 * value: the lead is finite and not 1, and no quotient overflows or underflows to 0 (a
 * lead of 1e-300 beside a coefficient of 1e10 would give inf; the reverse, 0, a lost term).
 * A sum that cannot stays as it is, everywhere. */
static gboolean
sum_normalisable (const CmlExpr *e)
{
  double lead = e->coefs[sum_lead (e)];

  if (lead == 1.0 || !isfinite (lead) || lead == 0.0)
    return FALSE;
  for (guint i = 0; i < e->n; i++)
    {
      double q = e->coefs[i] / lead;
      if (!isfinite (q) || (q == 0.0 && e->coefs[i] != 0.0))
        return FALSE;
    }
  {
    double q = e->value / lead;
    if (!isfinite (q) || (q == 0.0 && e->value != 0.0))
      return FALSE;
  }
  return TRUE;
}

/* -E; a sum is negated term by term. */
static CmlExpr *
negate (CmlExprCtx *ctx,
        CmlExpr    *e)
{
  static const double minus_one = -1.0;

  if (e->kind == CML_EXPR_ADD)
    return sum_list (ctx, &e, &minus_one, 1);
  return mul_coef (ctx, -1.0, e);
}

/* V, or the simple fraction p/q (q <= 12) that V is within a few ulps of: keeps exponent
 * arithmetic such as 1/3 - 1 on the fractions people write. */
static double
snap_fraction (double v)
{
  for (int q = 1; q <= 12; q++)
    {
      double p = nearbyint (v * q);
      double r = p / q;

      if (fabs (v - r) <= 4 * DBL_EPSILON * fabs (r))
        return r;
    }
  return v;
}

typedef struct
{
  CmlExpr *base;
  CmlExpr *exp;
} Factor;

typedef struct
{
  Factor *v;
  guint   len;
  guint   cap;
  Factor  stack[16];
} FactorVec;

static void
factor_vec_init (FactorVec *fv)
{
  fv->v = fv->stack;
  fv->len = 0;
  fv->cap = G_N_ELEMENTS (fv->stack);
}

static void
factor_vec_clear (FactorVec *fv)
{
  if (fv->v != fv->stack)
    g_free (fv->v);
}

static void
factor_vec_push (FactorVec *fv,
                 CmlExpr   *base,
                 CmlExpr   *exp)
{
  if (fv->len == fv->cap)
    {
      fv->cap *= 2;
      if (fv->v == fv->stack)
        {
          fv->v = g_new (Factor, fv->cap);
          memcpy (fv->v, fv->stack, sizeof fv->stack);
        }
      else
        fv->v = g_renew (Factor, fv->v, fv->cap);
    }
  fv->v[fv->len].base = base;
  fv->v[fv->len].exp = exp;
  fv->len++;
}

static int
factor_cmp_base_id (const void *pa,
                    const void *pb)
{
  const Factor *a = pa, *b = pb;

  return a->base->id < b->base->id ? -1 : a->base->id > b->base->id;
}

static void
push_factor (CmlExprCtx *ctx,
             FactorVec  *fv,
             double     *coef,
             CmlExpr    *f)
{
  switch ((CmlExprKind) f->kind)
    {
    case CML_EXPR_NUM:
      *coef *= f->value;
      break;
    case CML_EXPR_MUL:
      *coef *= f->value;
      for (guint i = 0; i < f->n; i++)
        {
          CmlExpr *g = f->args[i];

          if (g->kind == CML_EXPR_POW)
            factor_vec_push (fv, g->args[0], g->args[1]);
          else
            factor_vec_push (fv, g, ctx->one);
        }
      break;
    case CML_EXPR_POW:
      factor_vec_push (fv, f->args[0], f->args[1]);
      break;
    case CML_EXPR_ADD:
      /* (c*X)*Y = c*(X*Y): sums that are factors are primitive (lead coefficient 1);
       * not when the division cannot be done (sum_normalisable): a lead that overflowed
       * (X/inf is not X/c for any c, and X/NaN stays NaN, so normalising again and again
       * would never end), or quotients that overflow or vanish */
      if (sum_normalisable (f))
        {
          double lead = f->coefs[sum_lead (f)];

          *coef *= lead;
          f = sum_divide (ctx, f, lead);
        }
      factor_vec_push (fv, f, ctx->one);
      break;
    case CML_EXPR_SYM:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    default:
      factor_vec_push (fv, f, ctx->one);
      break;
    }
}

/* COEF * Π IN (any nodes). */
static CmlExpr *
mul_list (CmlExprCtx     *ctx,
          double          coef,
          CmlExpr *const *in,
          guint           n_in)
{
  FactorVec fv;
  CmlExpr **out;
  guint n_out = 0, n = 0;
  gboolean redo = FALSE;
  CmlExpr *result;
  CmlExpr key;

  factor_vec_init (&fv);
  for (guint i = 0; i < n_in; i++)
    push_factor (ctx, &fv, &coef, in[i]);
  if (coef == 0.0)
    {
      factor_vec_clear (&fv);
      return ctx->zero;
    }

  /* sort by base and add the exponents of equal bases */
  if (fv.len > 1)
    qsort (fv.v, fv.len, sizeof (Factor), factor_cmp_base_id);
  for (guint i = 0; i < fv.len;)
    {
      guint j = i + 1;

      while (j < fv.len && fv.v[j].base == fv.v[i].base)
        j++;
      if (j - i == 1)
        fv.v[n++] = fv.v[i];
      else
        {
          CmlExpr **exps = g_new (CmlExpr *, j - i);
          gboolean numeric = TRUE;
          double sum = 0.0;

          for (guint k = i; k < j; k++)
            {
              exps[k - i] = fv.v[k].exp;
              numeric = numeric && is_num (fv.v[k].exp);
              sum += fv.v[k].exp->value;
            }
          fv.v[n].base = fv.v[i].base;
          if (numeric)
            fv.v[n].exp = cml_expr_num (ctx, snap_fraction (sum));
          else
            fv.v[n].exp = sum_list (ctx, exps, NULL, j - i);
          n++;
          g_free (exps);
        }
      i = j;
    }

  /* rebuild every base^exponent; numbers go into the coefficient */
  out = g_new (CmlExpr *, n + 1);
  for (guint i = 0; i < n; i++)
    {
      CmlExpr *r;

      if (is_num_value (fv.v[i].exp, 0.0))
        continue;
      r = fv.v[i].exp == ctx->one ? fv.v[i].base : pow_node (ctx, fv.v[i].base, fv.v[i].exp);
      if (r->kind == CML_EXPR_NUM)
        {
          coef *= r->value;
          continue;
        }
      /* a factor that needs bringing into form again (push_factor leaves a sum whose lead
       * coefficient is not finite as it is: no redo for those) */
      if (r->kind == CML_EXPR_MUL || cml_expr_factor_base (r) != fv.v[i].base
          || (r->kind == CML_EXPR_ADD && sum_normalisable (r)))
        redo = TRUE;
      out[n_out++] = r;
    }
  factor_vec_clear (&fv);

  if (redo)
    {
      result = mul_list (ctx, coef, out, n_out);
      g_free (out);
      return result;
    }

  if (coef == 0.0)
    result = ctx->zero;
  else if (n_out == 0)
    result = cml_expr_num (ctx, coef);
  else if (n_out == 1 && coef == 1.0)
    result = out[0];
  else if (n_out == 1 && out[0]->kind == CML_EXPR_ADD)
    {
      /* c * (a + b) -> c*a + c*b */
      result = sum_list (ctx, out, &coef, 1);
    }
  else
    {
      key_init (&key, CML_EXPR_MUL);
      key.value = coef;
      key.n = n_out;
      key.args = out;
      result = intern_node (ctx, &key);
    }
  g_free (out);
  return result;
}

/* C * E. */
static CmlExpr *
mul_coef (CmlExprCtx *ctx,
          double      c,
          CmlExpr    *e)
{
  if (c == 1.0)
    return e;
  if (c == 0.0)
    return ctx->zero;
  if (e->kind == CML_EXPR_NUM)
    return cml_expr_num (ctx, c * e->value);
  if (e->kind == CML_EXPR_ADD)
    return sum_list (ctx, &e, &c, 1); /* c * (a + b) -> c*a + c*b */
  return mul_list (ctx, c, &e, 1);
}

CmlExpr *
cml_expr_mul (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  CmlExpr *f[2] = { a, b };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  if (is_num (a))
    return mul_coef (ctx, a->value, b);
  if (is_num (b))
    return mul_coef (ctx, b->value, a);
  return mul_list (ctx, 1.0, f, 2);
}

CmlExpr *
cml_expr_neg (CmlExprCtx *ctx,
              CmlExpr    *a)
{
  g_return_val_if_fail (ctx != NULL && a != NULL, NULL);

  return mul_coef (ctx, -1.0, a);
}

CmlExpr *
cml_expr_div (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  /* p/q of numbers is one correctly rounded division */
  if (is_num (a) && is_num (b) && b->value != 0.0 && isfinite (a->value / b->value))
    return cml_expr_num (ctx, a->value / b->value);
  return cml_expr_mul (ctx, a, pow_node (ctx, b, ctx->minus_one));
}

/* ---- powers --------------------------------------------------------------------------- */

/* BASE^EXP for numbers, or FALSE when the result would not be finite (or not real). */
static gboolean
fold_pow (double  base,
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

  key_init (&key, CML_EXPR_POW);
  key.n = 2;
  key.args = args;
  return intern_node (ctx, &key);
}

static CmlExpr *
pow_node (CmlExprCtx *ctx,
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
            if (fold_pow (base->value, ev, &r))
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

              if (!fold_pow (base->value, ev, &c))
                return pow_raw (ctx, base, exp);
              fs = g_new (CmlExpr *, base->n);
              for (guint i = 0; i < base->n; i++)
                fs[i] = pow_node (ctx, base->args[i], exp);
              result = mul_list (ctx, c, fs, base->n);
              g_free (fs);
              return result;
            }
          if (base->value > 0.0 && base->value != 1.0)
            {
              /* (c * X)^p = c^p * X^p for c > 0 */
              double c;

              if (fold_pow (base->value, ev, &c))
                return mul_coef (ctx, c, pow_node (ctx, mul_strip_coef (ctx, base), exp));
            }
          return pow_raw (ctx, base, exp);

        case CML_EXPR_POW:
          {
            CmlExpr *e0 = base->args[1];

            /* (b^e0)^n = b^(e0*n) when valid for every real b */
            if (integer
                || (is_num (e0) && (!cml_expr_double_is_int (e0->value) || e0->value == -1.0)))
              return pow_node (ctx, base->args[0],
                               is_num (e0) ? cml_expr_num (ctx, snap_fraction (e0->value * ev))
                                           : cml_expr_mul (ctx, e0, exp));
            return pow_raw (ctx, base, exp);
          }

        case CML_EXPR_ADD:
          /* (c*X)^n = c^n * X^n: sums raised to integer powers are primitive */
          if (integer)
            {
              double lead = base->coefs[sum_lead (base)], cn;

              if (sum_normalisable (base) && fold_pow (lead, ev, &cn))
                return mul_coef (ctx, cn, pow_raw (ctx, sum_divide (ctx, base, lead), exp));
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
  if (is_num_value (base, 1.0))
    return ctx->one;
  if (base->kind == CML_EXPR_POW)
    {
      CmlExpr *e0 = base->args[1];

      if (is_num (e0) && (!cml_expr_double_is_int (e0->value) || e0->value == -1.0))
        return pow_node (ctx, base->args[0], cml_expr_mul (ctx, e0, exp));
    }
  return pow_raw (ctx, base, exp);
}

CmlExpr *
cml_expr_pow (CmlExprCtx *ctx,
              CmlExpr    *base,
              CmlExpr    *exponent)
{
  g_return_val_if_fail (ctx != NULL && base != NULL && exponent != NULL, NULL);

  return pow_node (ctx, base, exponent);
}

CmlExpr *
cml_expr_powi (CmlExprCtx *ctx,
               CmlExpr    *base,
               int         exponent)
{
  g_return_val_if_fail (ctx != NULL && base != NULL, NULL);

  return pow_node (ctx, base, cml_expr_num (ctx, exponent));
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
      return e->coefs[sum_lead (e)] < 0.0;
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

  switch (fn)
    {
    case CML_FN_SIN: r = sin (a); break;
    case CML_FN_COS: r = cos (a); break;
    case CML_FN_TAN: r = tan (a); break;
    case CML_FN_ASIN: r = asin (a); break;
    case CML_FN_ACOS: r = acos (a); break;
    case CML_FN_ATAN: r = atan (a); break;
    case CML_FN_SINH: r = sinh (a); break;
    case CML_FN_COSH: r = cosh (a); break;
    case CML_FN_TANH: r = tanh (a); break;
    case CML_FN_EXP: r = exp (a); break;
    case CML_FN_LOG: r = log (a); break;
    case CML_FN_SQRT: r = sqrt (a); break;
    case CML_FN_ABS: r = fabs (a); break;
    case CML_FN_SIGN: r = a > 0.0 ? 1.0 : a < 0.0 ? -1.0 : 0.0; break;
    case CML_FN_ATAN2:
    default:
      return FALSE;
    }
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

  key_init (&key, CML_EXPR_FUNC);
  key.fn = fn;
  key.n = 1;
  key.args = &arg;
  return intern_node (ctx, &key);
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
    return pow_node (ctx, arg, ctx->half);
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
        return mul_coef (ctx, -1.0, cml_expr_func (ctx, fn, negate (ctx, arg)));
      if (fn == CML_FN_SIGN && arg->kind == CML_EXPR_FUNC && arg->fn == CML_FN_SIGN)
        return arg;
      break;

    /* even functions: f(-a) = f(a) */
    case CML_FN_COS:
    case CML_FN_COSH:
    case CML_FN_ABS:
      if (is_negative_looking (arg))
        return cml_expr_func (ctx, fn, negate (ctx, arg));
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
      double r = atan2 (a->value, b->value);

      if (isfinite (r))
        return cml_expr_num (ctx, r);
    }
  key_init (&key, CML_EXPR_FUNC2);
  key.fn = fn;
  key.n = 2;
  key.args = args;
  return intern_node (ctx, &key);
}

/* ---- inspection ----------------------------------------------------------------------- */

CmlExprKind
cml_expr_kind (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, CML_EXPR_NUM);

  return (CmlExprKind) e->kind;
}

gboolean
cml_expr_is_zero (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, FALSE);

  return e->kind == CML_EXPR_NUM && e->value == 0.0;
}

gboolean
cml_expr_is_one (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, FALSE);

  return e->kind == CML_EXPR_NUM && e->value == 1.0;
}

gboolean
cml_expr_is_number (const CmlExpr *e,
                    double        *value)
{
  g_return_val_if_fail (e != NULL, FALSE);

  if (e->kind != CML_EXPR_NUM)
    return FALSE;
  if (value != NULL)
    *value = e->value;
  return TRUE;
}

int
cml_expr_symbol_id (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, -1);

  return e->kind == CML_EXPR_SYM ? e->sym : -1;
}

/* Depth-first visit of every distinct node below E (E included). */
typedef gboolean (*VisitFunc) (const CmlExpr *e, gpointer data); /* FALSE: skip children */

static void
visit_nodes (const CmlExpr *e,
             VisitFunc      func,
             gpointer       data)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, (gpointer) e);
  while (stack->len > 0)
    {
      const CmlExpr *x = g_ptr_array_steal_index_fast (stack, stack->len - 1);

      if (!g_hash_table_add (seen, (gpointer) x))
        continue;
      if (!func (x, data))
        continue;
      for (guint i = 0; i < x->n; i++)
        if (!g_hash_table_contains (seen, x->args[i]))
          g_ptr_array_add (stack, x->args[i]);
    }
  g_ptr_array_unref (stack);
  g_hash_table_unref (seen);
}

typedef struct
{
  int      id;
  guint64  bit;
  gboolean found;
} DependsData;

static gboolean
depends_visit (const CmlExpr *e,
               gpointer       data)
{
  DependsData *d = data;

  if (d->found || (e->mask & d->bit) == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM && e->sym == d->id)
    d->found = TRUE;
  return !d->found;
}

gboolean
cml_expr_depends_on (const CmlExpr *e,
                     int            id)
{
  DependsData d = { id, CML_EXPR_SYM_BIT (id), FALSE };

  g_return_val_if_fail (e != NULL, FALSE);

  if (id < 0 || (e->mask & d.bit) == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM)
    return e->sym == id;
  visit_nodes (e, depends_visit, &d);
  return d.found;
}

static gboolean
collect_visit (const CmlExpr *e,
               gpointer       data)
{
  gboolean *deps = data;

  if (e->mask == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM)
    deps[e->sym] = TRUE;
  return TRUE;
}

void
cml_expr_collect_symbols (const CmlExpr *e,
                          gboolean      *deps)
{
  g_return_if_fail (e != NULL);
  g_return_if_fail (deps != NULL);

  visit_nodes (e, collect_visit, deps);
}

static gboolean
count_visit (const CmlExpr *e,
             gpointer       data)
{
  (*(guint *) data)++;
  return TRUE;
}

guint
cml_expr_n_nodes (const CmlExpr *e)
{
  guint count = 0;

  g_return_val_if_fail (e != NULL, 0);

  visit_nodes (e, count_visit, &count);
  return count;
}

static gboolean
nonfinite_visit (const CmlExpr *e,
                 gpointer       data)
{
  const CmlExpr **found = data;
  double none = 0.0;

  if (*found != NULL)
    return FALSE;
  if (e->mask != 0)
    return TRUE;
  /* a constant part: evaluated whole, its parts not looked at */
  if (!isfinite (e->kind == CML_EXPR_NUM ? e->value : cml_expr_eval (e, &none)))
    *found = e;
  return FALSE;
}

CmlExpr *
cml_expr_find_nonfinite_constant (const CmlExpr *e)
{
  const CmlExpr *found = NULL;

  g_return_val_if_fail (e != NULL, NULL);

  visit_nodes (e, nonfinite_visit, &found);
  return (CmlExpr *) found;
}

/* ---- differentiation ------------------------------------------------------------------ */

/* d f(a) / da for a one-argument function. */
static CmlExpr *
func_derivative (CmlExprCtx *ctx,
                 CmlFunc     fn,
                 CmlExpr    *a)
{
  CmlExpr *one_minus_a2;

  switch (fn)
    {
    case CML_FN_SIN:
      return cml_expr_func (ctx, CML_FN_COS, a);
    case CML_FN_COS:
      return cml_expr_neg (ctx, cml_expr_func (ctx, CML_FN_SIN, a));
    case CML_FN_TAN: /* 1/cos^2 */
      return cml_expr_powi (ctx, cml_expr_func (ctx, CML_FN_COS, a), -2);
    case CML_FN_ASIN: /* 1/sqrt(1 - a^2) */
      one_minus_a2 = cml_expr_sub (ctx, ctx->one, cml_expr_powi (ctx, a, 2));
      return cml_expr_pow (ctx, one_minus_a2, cml_expr_num (ctx, -0.5));
    case CML_FN_ACOS:
      one_minus_a2 = cml_expr_sub (ctx, ctx->one, cml_expr_powi (ctx, a, 2));
      return cml_expr_neg (ctx, cml_expr_pow (ctx, one_minus_a2, cml_expr_num (ctx, -0.5)));
    case CML_FN_ATAN: /* 1/(1 + a^2) */
      return cml_expr_powi (ctx, cml_expr_add (ctx, ctx->one, cml_expr_powi (ctx, a, 2)), -1);
    case CML_FN_SINH:
      return cml_expr_func (ctx, CML_FN_COSH, a);
    case CML_FN_COSH:
      return cml_expr_func (ctx, CML_FN_SINH, a);
    case CML_FN_TANH: /* 1 - tanh^2 */
      return cml_expr_sub (ctx, ctx->one, cml_expr_powi (ctx, cml_expr_func (ctx, CML_FN_TANH, a), 2));
    case CML_FN_EXP:
      return cml_expr_func (ctx, CML_FN_EXP, a);
    case CML_FN_LOG:
      return cml_expr_powi (ctx, a, -1);
    case CML_FN_SQRT:
      return cml_expr_mul (ctx, ctx->half, cml_expr_pow (ctx, a, cml_expr_num (ctx, -0.5)));
    case CML_FN_ABS:
      return cml_expr_func (ctx, CML_FN_SIGN, a);
    case CML_FN_SIGN:
      return ctx->zero;
    case CML_FN_ATAN2:
    default:
      g_assert_not_reached ();
    }
  return NULL;
}

static CmlExpr *
diff_uncached (CmlExprCtx *ctx,
               CmlExpr    *e,
               int         id)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      return ctx->zero;

    case CML_EXPR_SYM:
      return e->sym == id ? ctx->one : ctx->zero;

    case CML_EXPR_ADD:
      {
        CmlExpr **d = g_new (CmlExpr *, e->n);
        CmlExpr *result;

        for (guint i = 0; i < e->n; i++)
          d[i] = cml_expr_diff (ctx, e->args[i], id);
        result = sum_list (ctx, d, e->coefs, e->n);
        g_free (d);
        return result;
      }

    case CML_EXPR_MUL:
      {
        /* product rule: Σ_i c * (d f_i) * Π_{j≠i} f_j */
        CmlExpr **terms = g_new (CmlExpr *, e->n);
        CmlExpr **fs = g_new (CmlExpr *, e->n);
        guint n_terms = 0;
        CmlExpr *result;

        for (guint i = 0; i < e->n; i++)
          {
            CmlExpr *d = cml_expr_diff (ctx, e->args[i], id);

            if (cml_expr_is_zero (d))
              continue;
            for (guint j = 0; j < e->n; j++)
              fs[j] = j == i ? d : e->args[j];
            terms[n_terms++] = mul_list (ctx, e->value, fs, e->n);
          }
        result = n_terms == 0 ? ctx->zero : sum_list (ctx, terms, NULL, n_terms);
        g_free (terms);
        g_free (fs);
        return result;
      }

    case CML_EXPR_POW:
      {
        CmlExpr *b = e->args[0], *x = e->args[1];
        CmlExpr *db = cml_expr_diff (ctx, b, id);
        CmlExpr *dx = cml_expr_diff (ctx, x, id);

        if (cml_expr_is_zero (dx))
          {
            /* d b^x = x * b^(x-1) * db */
            CmlExpr *xm1 = is_num (x) ? cml_expr_num (ctx, snap_fraction (x->value - 1.0))
                                      : cml_expr_sub (ctx, x, ctx->one);
            CmlExpr *fs[3] = { x, pow_node (ctx, b, xm1), db };

            return mul_list (ctx, 1.0, fs, 3);
          }
        else
          {
            /* d b^x = b^x * (dx * log b + x * db / b) */
            CmlExpr *log_b = cml_expr_func (ctx, CML_FN_LOG, b);
            CmlExpr *inner = cml_expr_mul (ctx, dx, log_b);

            if (!cml_expr_is_zero (db))
              inner = cml_expr_add (ctx, inner,
                                    cml_expr_mul (ctx, x, cml_expr_div (ctx, db, b)));
            return cml_expr_mul (ctx, e, inner);
          }
      }

    case CML_EXPR_FUNC:
      {
        CmlExpr *da = cml_expr_diff (ctx, e->args[0], id);

        if (cml_expr_is_zero (da))
          return ctx->zero;
        return cml_expr_mul (ctx, func_derivative (ctx, (CmlFunc) e->fn, e->args[0]), da);
      }

    case CML_EXPR_FUNC2:
      {
        /* atan2 (y, x): (x dy - y dx) / (x^2 + y^2) */
        CmlExpr *y = e->args[0], *x = e->args[1];
        CmlExpr *dy = cml_expr_diff (ctx, y, id);
        CmlExpr *dx = cml_expr_diff (ctx, x, id);
        CmlExpr *num = cml_expr_sub (ctx, cml_expr_mul (ctx, x, dy), cml_expr_mul (ctx, y, dx));
        CmlExpr *den = cml_expr_add (ctx, cml_expr_powi (ctx, x, 2), cml_expr_powi (ctx, y, 2));

        return cml_expr_div (ctx, num, den);
      }

    default:
      g_assert_not_reached ();
    }
  return NULL;
}

CmlExpr *
cml_expr_diff (CmlExprCtx *ctx,
               CmlExpr    *e,
               int         id)
{
  DiffMemo key = { e, id, NULL, FALSE };
  DiffMemo *memo;
  CmlExpr *result;
  guint64 n_nonfinite;

  g_return_val_if_fail (ctx != NULL && e != NULL, NULL);

  if (id < 0 || (e->mask & CML_EXPR_SYM_BIT (id)) == 0)
    return ctx->zero;
  if (e->kind == CML_EXPR_SYM)
    return e->sym == id ? ctx->one : ctx->zero;

  memo = g_hash_table_lookup (ctx->diff_memo, &key);
  if (memo != NULL)
    {
      /* the memo bypasses the constructors: count again what they counted then */
      if (memo->nonfinite)
        ctx->n_nonfinite++;
      return memo->result;
    }

  n_nonfinite = ctx->n_nonfinite;
  result = diff_uncached (ctx, e, id);

  memo = arena_alloc (ctx, sizeof *memo);
  memo->e = e;
  memo->id = id;
  memo->result = result;
  memo->nonfinite = ctx->n_nonfinite != n_nonfinite;
  g_hash_table_add (ctx->diff_memo, memo);
  return result;
}

/* ---- rebuilding: substitution and expansion ------------------------------------------- */

/* E with every child replaced by MAP (child), through the canonicalising constructors. */
typedef CmlExpr *(*MapFunc) (CmlExprCtx *ctx, CmlExpr *e, gpointer data);

static CmlExpr *
rebuild (CmlExprCtx *ctx,
         CmlExpr    *e,
         MapFunc     map,
         gpointer    data)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
    case CML_EXPR_SYM:
      return e;

    case CML_EXPR_ADD:
      {
        CmlExpr **t = g_new (CmlExpr *, e->n + 1);
        double *c = g_new (double, e->n + 1);
        CmlExpr *result;

        for (guint i = 0; i < e->n; i++)
          {
            t[i] = map (ctx, e->args[i], data);
            c[i] = e->coefs[i];
          }
        t[e->n] = cml_expr_num (ctx, e->value);
        c[e->n] = 1.0;
        result = sum_list (ctx, t, c, e->n + 1);
        g_free (t);
        g_free (c);
        return result;
      }

    case CML_EXPR_MUL:
      {
        CmlExpr **f = g_new (CmlExpr *, e->n);
        CmlExpr *result;

        for (guint i = 0; i < e->n; i++)
          f[i] = map (ctx, e->args[i], data);
        result = mul_list (ctx, e->value, f, e->n);
        g_free (f);
        return result;
      }

    case CML_EXPR_POW:
      return pow_node (ctx, map (ctx, e->args[0], data), map (ctx, e->args[1], data));

    case CML_EXPR_FUNC:
      return cml_expr_func (ctx, (CmlFunc) e->fn, map (ctx, e->args[0], data));

    case CML_EXPR_FUNC2:
      return cml_expr_func2 (ctx, (CmlFunc) e->fn, map (ctx, e->args[0], data),
                             map (ctx, e->args[1], data));

    default:
      g_assert_not_reached ();
    }
  return NULL;
}

typedef struct
{
  GHashTable     *memo;
  guint64         mask;
  guint           n;
  const int      *ids;
  CmlExpr *const *repl;
} SubsData;

static CmlExpr *
subs_map (CmlExprCtx *ctx,
          CmlExpr    *e,
          gpointer    data)
{
  SubsData *sd = data;
  CmlExpr *result;

  if ((e->mask & sd->mask) == 0)
    return e;
  if (e->kind == CML_EXPR_SYM)
    {
      for (guint k = 0; k < sd->n; k++)
        if (sd->ids[k] == e->sym)
          return sd->repl[k];
      return e;
    }
  result = g_hash_table_lookup (sd->memo, e);
  if (result != NULL)
    return result;
  result = rebuild (ctx, e, subs_map, sd);
  g_hash_table_insert (sd->memo, e, result);
  return result;
}

CmlExpr *
cml_expr_subs (CmlExprCtx     *ctx,
               CmlExpr        *e,
               guint           n,
               const int      *ids,
               CmlExpr *const *repl)
{
  SubsData sd = { NULL, 0, n, ids, repl };
  CmlExpr *result;

  g_return_val_if_fail (ctx != NULL && e != NULL, NULL);
  g_return_val_if_fail (n == 0 || (ids != NULL && repl != NULL), NULL);

  for (guint k = 0; k < n; k++)
    sd.mask |= CML_EXPR_SYM_BIT (ids[k]);
  if ((e->mask & sd.mask) == 0)
    return e;
  sd.memo = g_hash_table_new (NULL, NULL);
  result = subs_map (ctx, e, &sd);
  g_hash_table_unref (sd.memo);
  return result;
}

typedef struct
{
  GHashTable *memo;   /* node -> its expansion */
  guint64     budget; /* products of terms that may still be formed */
  gboolean    over;   /* the budget ran out: the expansion is abandoned */
} ExpandData;

/* The product of two expanded expressions, multiplied out; A when the budget runs out. */
static CmlExpr *
expand_mul2 (CmlExprCtx *ctx,
             ExpandData *xd,
             CmlExpr    *a,
             CmlExpr    *b)
{
  CmlExpr **terms;
  guint64 na, nb;
  guint n = 0;
  CmlExpr *result;

  if (xd->over)
    return a;
  if (a->kind != CML_EXPR_ADD && b->kind != CML_EXPR_ADD)
    return cml_expr_mul (ctx, a, b);

  /* each sum as (const, terms); a non-sum as one term */
  na = a->kind == CML_EXPR_ADD ? a->n + 1 : 1;
  nb = b->kind == CML_EXPR_ADD ? b->n + 1 : 1;
  if (na * nb > xd->budget)
    {
      xd->over = TRUE;
      return a;
    }
  xd->budget -= na * nb;
  terms = g_new (CmlExpr *, na * nb);
  for (guint i = 0; i < na; i++)
    {
      CmlExpr *ta;

      if (a->kind != CML_EXPR_ADD)
        ta = a;
      else if (i < a->n)
        ta = mul_coef (ctx, a->coefs[i], a->args[i]);
      else
        ta = cml_expr_num (ctx, a->value);
      for (guint j = 0; j < nb; j++)
        {
          CmlExpr *tb;

          if (b->kind != CML_EXPR_ADD)
            tb = b;
          else if (j < b->n)
            tb = mul_coef (ctx, b->coefs[j], b->args[j]);
          else
            tb = cml_expr_num (ctx, b->value);
          terms[n++] = cml_expr_mul (ctx, ta, tb);
        }
    }
  result = sum_list (ctx, terms, NULL, n);
  g_free (terms);
  return result;
}

static CmlExpr *
expand_map (CmlExprCtx *ctx,
            CmlExpr    *e,
            gpointer    data)
{
  ExpandData *xd = data;
  CmlExpr *result;

  if (e->kind == CML_EXPR_NUM || e->kind == CML_EXPR_SYM || xd->over)
    return e;
  result = g_hash_table_lookup (xd->memo, e);
  if (result != NULL)
    return result;

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_POW:
      {
        CmlExpr *b = expand_map (ctx, e->args[0], xd);
        CmlExpr *x = expand_map (ctx, e->args[1], xd);

        if (b->kind == CML_EXPR_ADD && is_num (x) && x->value >= 2.0 && x->value <= 64.0
            && cml_expr_double_is_int (x->value))
          {
            int n = (int) x->value;

            result = b;
            for (int k = 1; k < n; k++)
              result = expand_mul2 (ctx, xd, result, b);
          }
        else
          result = pow_node (ctx, b, x);
      }
      break;

    case CML_EXPR_MUL:
      result = cml_expr_num (ctx, e->value);
      for (guint i = 0; i < e->n; i++)
        result = expand_mul2 (ctx, xd, result, expand_map (ctx, e->args[i], xd));
      break;

    case CML_EXPR_ADD:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    case CML_EXPR_NUM:
    case CML_EXPR_SYM:
    default:
      result = rebuild (ctx, e, expand_map, xd);
      break;
    }
  if (xd->over)
    return e; /* not memoised: a partial result */
  g_hash_table_insert (xd->memo, e, result);
  return result;
}

CmlExpr *
cml_expr_expand (CmlExprCtx *ctx,
                 CmlExpr    *e,
                 GError    **error)
{
  ExpandData xd = { NULL, CML_EXPR_EXPAND_MAX_TERMS, FALSE };
  CmlExpr *result;

  g_return_val_if_fail (ctx != NULL && e != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  xd.memo = g_hash_table_new (NULL, NULL);
  result = expand_map (ctx, e, &xd);
  g_hash_table_unref (xd.memo);
  if (xd.over)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "multiplying out would form more than %u products of terms",
                   (guint) CML_EXPR_EXPAND_MAX_TERMS);
      return NULL;
    }
  return result;
}

/* ---- evaluation ----------------------------------------------------------------------- */

static inline double
eval_func (CmlFunc fn,
           double  a)
{
  switch (fn)
    {
    case CML_FN_SIN: return sin (a);
    case CML_FN_COS: return cos (a);
    case CML_FN_TAN: return tan (a);
    case CML_FN_ASIN: return asin (a);
    case CML_FN_ACOS: return acos (a);
    case CML_FN_ATAN: return atan (a);
    case CML_FN_SINH: return sinh (a);
    case CML_FN_COSH: return cosh (a);
    case CML_FN_TANH: return tanh (a);
    case CML_FN_EXP: return exp (a);
    case CML_FN_LOG: return log (a);
    case CML_FN_SQRT: return sqrt (a);
    case CML_FN_ABS: return fabs (a);
    case CML_FN_SIGN: return a > 0.0 ? 1.0 : a < 0.0 ? -1.0 : 0.0;
    case CML_FN_ATAN2:
    default:
      return NAN;
    }
}

static inline double
eval_pow (double b,
          double x)
{
  if (x == 0.5)
    return sqrt (b);
  if (x == -1.0)
    return 1.0 / b;
  if (x == 2.0)
    return b * b;
  return pow (b, x);
}

typedef struct
{
  const double *values;
  GHashTable   *memo;    /* NULL: plain tree walk */
  guint64       budget;  /* tree walk: visits left */
  gboolean      over;    /* the tree walk ran out of budget */
} EvalData;

static double
eval_rec (const CmlExpr *e,
          EvalData      *d)
{
  double r;
  double *cached;

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      return e->value;
    case CML_EXPR_SYM:
      return d->values[e->sym];
    case CML_EXPR_ADD:
    case CML_EXPR_MUL:
    case CML_EXPR_POW:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    default:
      break;
    }

  if (d->memo != NULL)
    {
      cached = g_hash_table_lookup (d->memo, e);
      if (cached != NULL)
        return *cached;
    }
  else
    {
      if (d->budget == 0)
        {
          d->over = TRUE;
          return 0.0;
        }
      d->budget--;
    }

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_ADD:
      r = e->value;
      for (guint i = 0; i < e->n; i++)
        r += e->coefs[i] * eval_rec (e->args[i], d);
      break;
    case CML_EXPR_MUL:
      r = e->value;
      for (guint i = 0; i < e->n; i++)
        r *= eval_rec (e->args[i], d);
      break;
    case CML_EXPR_POW:
      r = eval_pow (eval_rec (e->args[0], d), eval_rec (e->args[1], d));
      break;
    case CML_EXPR_FUNC:
      r = eval_func ((CmlFunc) e->fn, eval_rec (e->args[0], d));
      break;
    case CML_EXPR_FUNC2:
      r = atan2 (eval_rec (e->args[0], d), eval_rec (e->args[1], d));
      break;
    case CML_EXPR_NUM:
    case CML_EXPR_SYM:
    default:
      g_assert_not_reached ();
    }

  if (d->memo != NULL)
    {
      cached = g_new (double, 1);
      *cached = r;
      g_hash_table_insert (d->memo, (gpointer) e, cached);
    }
  return r;
}

double
cml_expr_eval (const CmlExpr *e,
               const double  *values)
{
  EvalData d = { values, NULL, 100000, FALSE };
  double r;

  g_return_val_if_fail (e != NULL, NAN);

  /* a tree walk, unless the DAG shares so much that the tree is large */
  r = eval_rec (e, &d);
  if (!d.over)
    return r;
  d.memo = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  r = eval_rec (e, &d);
  g_hash_table_unref (d.memo);
  return r;
}

/* ---- parser --------------------------------------------------------------------------- */

typedef enum
{
  TOK_END,
  TOK_NUM,
  TOK_IDENT,
  TOK_OP,
} TokKind;

typedef struct
{
  CmlExprCtx *ctx;
  const char *text;
  const char *pos;        /* after the current token */
  TokKind     tok;
  const char *tok_start;
  gsize       tok_len;
  double      tok_value;
  int         depth;
  gboolean    failed;
  GError    **error;
  int        *error_column;
} Parser;

typedef struct
{
  const char *name;
  CmlFunc     fn;
  int         arity;
} FuncName;

static const FuncName func_names[] = {
  { "sin", CML_FN_SIN, 1 },     { "cos", CML_FN_COS, 1 },     { "tan", CML_FN_TAN, 1 },
  { "asin", CML_FN_ASIN, 1 },   { "acos", CML_FN_ACOS, 1 },   { "atan", CML_FN_ATAN, 1 },
  { "atan2", CML_FN_ATAN2, 2 }, { "sinh", CML_FN_SINH, 1 },   { "cosh", CML_FN_COSH, 1 },
  { "tanh", CML_FN_TANH, 1 },   { "exp", CML_FN_EXP, 1 },     { "log", CML_FN_LOG, 1 },
  { "sqrt", CML_FN_SQRT, 1 },   { "abs", CML_FN_ABS, 1 },     { "sign", CML_FN_SIGN, 1 },
  { "pow", CML_FN_ATAN2, 2 },
};

static const FuncName *
find_func (const char *name,
           gsize       len)
{
  for (guint i = 0; i < G_N_ELEMENTS (func_names); i++)
    if (strlen (func_names[i].name) == len && strncmp (func_names[i].name, name, len) == 0)
      return &func_names[i];
  return NULL;
}

static void parser_fail (Parser *p, int code, const char *at, const char *format, ...) G_GNUC_PRINTF (4, 5);

static void
parser_fail (Parser     *p,
             int         code,
             const char *at,
             const char *format,
             ...)
{
  va_list args;
  char *message;

  if (p->failed)
    return;
  p->failed = TRUE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (p->error_column != NULL)
    *p->error_column = (int) (at - p->text) + 1;
  g_set_error_literal (p->error, CML_ERROR, code, message);
  g_free (message);
}

static inline gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static inline gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Reads the next token; FALSE (with the error set) on a lexical error. */
static gboolean
parser_next (Parser *p)
{
  const char *s = p->pos;

  while (g_ascii_isspace (*s))
    s++;
  p->tok_start = s;

  if (*s == '\0')
    {
      p->tok = TOK_END;
      p->tok_len = 0;
      p->pos = s;
      return TRUE;
    }

  if (g_ascii_isdigit (*s) || (*s == '.' && g_ascii_isdigit (s[1])))
    {
      /* digits [. digits] [e [+-] digits]; anything alphanumeric glued on is an error */
      const char *q = s;
      gboolean ok = TRUE;

      while (g_ascii_isdigit (*q))
        q++;
      if (*q == '.')
        {
          q++;
          while (g_ascii_isdigit (*q))
            q++;
        }
      if (*q == 'e' || *q == 'E')
        {
          q++;
          if (*q == '+' || *q == '-')
            q++;
          if (!g_ascii_isdigit (*q))
            ok = FALSE;
          while (g_ascii_isdigit (*q))
            q++;
        }
      while (is_ident_char (*q) || *q == '.')
        {
          ok = FALSE;
          q++;
        }
      if (ok)
        {
          p->tok_value = g_ascii_strtod (s, NULL);
          ok = isfinite (p->tok_value);
        }
      if (!ok)
        {
          parser_fail (p, CML_ERROR_PARSE, s, "invalid number '%.*s'", (int) (q - s), s);
          return FALSE;
        }
      p->tok = TOK_NUM;
      p->tok_len = q - s;
      p->pos = q;
      return TRUE;
    }

  if (is_ident_start (*s))
    {
      const char *q = s;

      while (is_ident_char (*q))
        q++;
      p->tok = TOK_IDENT;
      p->tok_len = q - s;
      p->pos = q;
      return TRUE;
    }

  if (strchr ("+-*/^(),", *s) != NULL)
    {
      p->tok = TOK_OP;
      p->tok_len = 1;
      p->pos = s + 1;
      return TRUE;
    }

  {
    /* show a whole UTF-8 character */
    const char *end = g_utf8_find_next_char (s, NULL);
    int len = end != NULL && g_utf8_validate (s, end - s, NULL) ? (int) (end - s) : 1;

    parser_fail (p, CML_ERROR_PARSE, s, "unexpected character '%.*s'", len, s);
  }
  return FALSE;
}

static inline gboolean
tok_is (const Parser *p,
        char          op)
{
  return p->tok == TOK_OP && *p->tok_start == op;
}

/* Reports the current token as unexpected. */
static void
parser_unexpected (Parser *p)
{
  if (p->tok == TOK_END)
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, "unexpected end of expression");
  else
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, "unexpected '%.*s'", (int) p->tok_len,
                 p->tok_start);
}

/* Expects ')' closing a group. */
static gboolean
parser_close (Parser *p)
{
  if (tok_is (p, ')'))
    return parser_next (p);
  if (p->tok == TOK_END)
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, "missing ')'");
  else
    parser_unexpected (p);
  return FALSE;
}

/* Fails at AT unless the context's count of non-finite constants is still N_NONFINITE:
 * building the WHAT that starts at AT made a number overflow ("1e200*x*1e200" would hold
 * the coefficient inf, which means nothing and prints as text that does not parse). */
static gboolean
parser_check_finite (Parser     *p,
                     guint64     n_nonfinite,
                     const char *at,
                     const char *what)
{
  if (p->ctx->n_nonfinite == n_nonfinite)
    return TRUE;
  parser_fail (p, CML_ERROR_PARSE, at, "the numbers of this %s overflow: a constant is not finite",
               what);
  return FALSE;
}

static CmlExpr *parse_sum (Parser *p);
static CmlExpr *parse_unary (Parser *p);

static CmlExpr *
parse_call (Parser         *p,
            const FuncName *f,
            const char     *name_start)
{
  CmlExpr *args[8];
  int n_args = 0;

  if (!parser_next (p))
    return NULL;
  if (!tok_is (p, '('))
    {
      parser_fail (p, CML_ERROR_PARSE, p->tok_start, "missing '(' after '%s'", f->name);
      return NULL;
    }
  if (!parser_next (p))
    return NULL;
  if (!tok_is (p, ')'))
    {
      for (;;)
        {
          CmlExpr *a = parse_sum (p);

          if (a == NULL)
            return NULL;
          if (n_args < (int) G_N_ELEMENTS (args))
            args[n_args] = a;
          n_args++;
          if (!tok_is (p, ','))
            break;
          if (!parser_next (p))
            return NULL;
        }
    }
  if (!parser_close (p))
    return NULL;

  if (n_args != f->arity)
    {
      parser_fail (p, CML_ERROR_ARITY, name_start, "%s takes %d argument%s, got %d", f->name,
                   f->arity, f->arity == 1 ? "" : "s", n_args);
      return NULL;
    }
  if (strcmp (f->name, "pow") == 0)
    {
      guint64 n_nonfinite = p->ctx->n_nonfinite;
      CmlExpr *e = cml_expr_pow (p->ctx, args[0], args[1]);

      if (!parser_check_finite (p, n_nonfinite, name_start, "power"))
        return NULL;
      return e;
    }
  if (f->arity == 2)
    return cml_expr_func2 (p->ctx, f->fn, args[0], args[1]);
  return cml_expr_func (p->ctx, f->fn, args[0]);
}

static CmlExpr *
parse_primary (Parser *p)
{
  CmlExpr *e;

  switch (p->tok)
    {
    case TOK_NUM:
      e = cml_expr_num (p->ctx, p->tok_value);
      return parser_next (p) ? e : NULL;

    case TOK_IDENT:
      {
        const char *start = p->tok_start;
        gsize len = p->tok_len;
        const FuncName *f = find_func (start, len);
        char *name;
        int id;

        if (f != NULL)
          return parse_call (p, f, start);
        if (len == 2 && strncmp (start, "pi", 2) == 0)
          {
            e = cml_expr_num (p->ctx, G_PI);
            return parser_next (p) ? e : NULL;
          }
        name = g_strndup (start, len);
        id = cml_expr_ctx_lookup (p->ctx, name);
        if (id < 0)
          {
            parser_fail (p, CML_ERROR_UNKNOWN_NAME, start, "unknown name '%s'", name);
            g_free (name);
            return NULL;
          }
        g_free (name);
        e = cml_expr_sym (p->ctx, id);
        return parser_next (p) ? e : NULL;
      }

    case TOK_OP:
      if (tok_is (p, '('))
        {
          if (!parser_next (p))
            return NULL;
          e = parse_sum (p);
          if (e == NULL || !parser_close (p))
            return NULL;
          return e;
        }
      parser_unexpected (p);
      return NULL;

    case TOK_END:
    default:
      parser_unexpected (p);
      return NULL;
    }
}

/* power := primary ['^' unary]   (right-associative, the exponent may be signed) */
static CmlExpr *
parse_power (Parser *p)
{
  const char *start = p->tok_start;
  CmlExpr *base, *exponent;
  guint64 n_nonfinite;

  base = parse_primary (p);
  if (base == NULL)
    return NULL;
  if (!tok_is (p, '^'))
    return base;
  if (!parser_next (p))
    return NULL;
  exponent = parse_unary (p);
  if (exponent == NULL)
    return NULL;
  n_nonfinite = p->ctx->n_nonfinite;
  base = cml_expr_pow (p->ctx, base, exponent);
  if (!parser_check_finite (p, n_nonfinite, start, "power"))
    return NULL;
  return base;
}

/* unary := ('-' | '+') unary | power */
static CmlExpr *
parse_unary (Parser *p)
{
  CmlExpr *e;

  if (++p->depth > PARSE_MAX_DEPTH)
    {
      parser_fail (p, CML_ERROR_PARSE, p->tok_start, "expression nested too deeply");
      return NULL;
    }
  if (tok_is (p, '-') || tok_is (p, '+'))
    {
      gboolean minus = tok_is (p, '-');

      if (!parser_next (p))
        return NULL;
      e = parse_unary (p);
      if (e != NULL && minus)
        e = cml_expr_neg (p->ctx, e);
    }
  else
    e = parse_power (p);
  p->depth--;
  return e;
}

/* product := unary (('*' | '/') unary)*
 *
 * The factors are collected and multiplied once: multiplying one by one copies the
 * product so far at every step, quadratic in its length.  Numbers are folded as they
 * come, exactly as the pairwise constructors would: "2/3" (all numbers so far) is one
 * correctly rounded division as in cml_expr_div, "2*x/3" is 2*(1/3). */
static CmlExpr *
parse_product (Parser *p)
{
  const char *start = p->tok_start;
  guint64 n_nonfinite = p->ctx->n_nonfinite;
  CmlExpr *e = parse_unary (p);
  GPtrArray *factors;
  double coef = 1.0;
  gboolean numeric; /* every factor so far is a number (folded into COEF) */

  if (e == NULL || !(tok_is (p, '*') || tok_is (p, '/')))
    return e;

  factors = g_ptr_array_new ();
  numeric = is_num (e);
  if (numeric)
    coef = e->value;
  else
    g_ptr_array_add (factors, e);
  while (tok_is (p, '*') || tok_is (p, '/'))
    {
      gboolean div = tok_is (p, '/');
      CmlExpr *rhs;
      double r;

      if (!parser_next (p) || (rhs = parse_unary (p)) == NULL)
        {
          g_ptr_array_unref (factors);
          return NULL;
        }
      if (!is_num (rhs))
        {
          g_ptr_array_add (factors, div ? pow_node (p->ctx, rhs, p->ctx->minus_one) : rhs);
          numeric = FALSE;
        }
      else if (!div)
        coef *= rhs->value;
      else if (numeric && rhs->value != 0.0 && isfinite (coef / rhs->value))
        coef /= rhs->value;
      else if (fold_pow (rhs->value, -1.0, &r))
        coef *= r;
      else
        {
          /* x/0 stays the factor 0^-1 */
          g_ptr_array_add (factors, pow_node (p->ctx, rhs, p->ctx->minus_one));
          numeric = FALSE;
        }
    }
  if (!isfinite (coef))
    e = cml_expr_num (p->ctx, coef); /* counted: reported below */
  else if (factors->len == 0)
    e = cml_expr_num (p->ctx, coef);
  else if (factors->len == 1)
    e = mul_coef (p->ctx, coef, factors->pdata[0]);
  else
    e = mul_list (p->ctx, coef, (CmlExpr **) factors->pdata, factors->len);
  g_ptr_array_unref (factors);
  if (!parser_check_finite (p, n_nonfinite, start, "product"))
    return NULL;
  return e;
}

/* sum := product (('+' | '-') product)*
 *
 * The terms are collected and added once (adding one by one copies the sum so far at
 * every step: a sum of 16,000 terms took 2.85 GB). */
static CmlExpr *
parse_sum (Parser *p)
{
  const char *start = p->tok_start;
  guint64 n_nonfinite = p->ctx->n_nonfinite;
  CmlExpr *e = parse_product (p);
  GPtrArray *terms;
  GArray *coefs;
  double one = 1.0;

  if (e == NULL || !(tok_is (p, '+') || tok_is (p, '-')))
    return e;

  terms = g_ptr_array_new ();
  coefs = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (terms, e);
  g_array_append_val (coefs, one);
  while (tok_is (p, '+') || tok_is (p, '-'))
    {
      double c = tok_is (p, '-') ? -1.0 : 1.0;
      CmlExpr *rhs;

      if (!parser_next (p) || (rhs = parse_product (p)) == NULL)
        {
          g_ptr_array_unref (terms);
          g_array_unref (coefs);
          return NULL;
        }
      g_ptr_array_add (terms, rhs);
      g_array_append_val (coefs, c);
    }
  e = sum_list (p->ctx, (CmlExpr **) terms->pdata, (double *) coefs->data, terms->len);
  g_ptr_array_unref (terms);
  g_array_unref (coefs);
  if (!parser_check_finite (p, n_nonfinite, start, "sum"))
    return NULL;
  return e;
}

CmlExpr *
cml_expr_parse (CmlExprCtx *ctx,
                const char *text,
                int        *error_column,
                GError    **error)
{
  Parser p = { 0 };
  CmlExpr *e;

  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  p.ctx = ctx;
  p.text = text;
  p.pos = text;
  p.error = error;
  p.error_column = error_column;
  if (error_column != NULL)
    *error_column = 0;

  if (!parser_next (&p))
    return NULL;
  if (p.tok == TOK_END)
    {
      parser_fail (&p, CML_ERROR_PARSE, text, "empty expression");
      return NULL;
    }
  e = parse_sum (&p);
  if (e == NULL)
    return NULL;
  if (p.tok != TOK_END)
    {
      parser_unexpected (&p);
      return NULL;
    }
  return e;
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
