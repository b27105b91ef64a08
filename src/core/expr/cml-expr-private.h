/* cml-expr-private.h — node layout and the small functions shared by the expression
 * engine's files (cml-expr.c and its inspection, calculus, evaluation and parser, the
 * printers, cml-program.c).  Not for use outside src/core.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Node layout by kind (all nodes are canonical, see cml-expr.h):
 *   NUM    value
 *   SYM    sym
 *   ADD    value + Σ coefs[i] * args[i]        n ≥ 1 terms (n ≥ 2 when value == 0);
 *          terms are not NUM, not ADD, not a MUL with coefficient ≠ 1; sorted by id
 *   MUL    value * Π args[i]                    n ≥ 1 factors, value ≠ 0 (n ≥ 2 when
 *          value == 1); a factor is a POW (base^exponent) or a base (exponent 1);
 *          bases are unique, not MUL, sorted by base id.  Sums as factors: a lone sum
 *          never carries a coefficient (2*(a + b) is 2*a + 2*b); a sum that is a factor
 *          of a product or raised to an integer power is primitive: the coefficient of
 *          its lead term (least shash) is 1 (2*x*(a - b) stays, x*(2*a - 2*b) becomes
 *          2*x*(a - b), (2*a + 2*b)^2 becomes 4*(a + b)^2)
 *   POW    args[0] ^ args[1]; sqrt(x) is x^0.5
 *   FUNC   fn (args[0])
 *   FUNC2  fn (args[0], args[1])
 */
#pragma once

#include "cml-expr.h"

#include <string.h>

G_BEGIN_DECLS

struct _CmlExpr
{
  guint8    kind;   /* CmlExprKind */
  guint8    fn;     /* CmlFunc of FUNC / FUNC2 */
  guint16   pad_;
  guint     n;      /* number of args (terms, factors, operands) */
  int       sym;    /* SYM: symbol id; -1 otherwise */
  guint     hash;   /* structural hash (of kind, fn, sym, value, args' ids, coefs) */
  guint     id;     /* creation order in the context: the canonical operand order */
  guint64   mask;   /* bit (id % 64) set for every symbol id occurring in the node */
  guint64   shash;  /* structural hash from symbol names, independent of creation order */
  double    value;  /* NUM: value; ADD: constant; MUL: coefficient */
  CmlExpr **args;
  double   *coefs;  /* ADD: coefficient of each term; NULL otherwise */
};

#define CML_EXPR_SYM_BIT(id) (G_GUINT64_CONSTANT (1) << ((guint) (id) & 63))

/* The exponent of a MUL factor / POW node and its base: (b, e) for b^e, (f, 1) else. */
static inline CmlExpr *
cml_expr_factor_base (CmlExpr *f)
{
  return f->kind == CML_EXPR_POW ? f->args[0] : f;
}

/* TRUE if V is an integer that fits comfortably in an int. */
static inline gboolean
cml_expr_double_is_int (double v)
{
  /* range first: casting a double outside gint64's range is undefined */
  return v > -1e9 && v < 1e9 && v == (double) (gint64) v;
}

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

static inline gboolean
is_num (const CmlExpr *e)
{
  return e->kind == CML_EXPR_NUM;
}

/* The constructors' pieces the calculus and the parser build with (cml-expr.c,
 * cml-expr-sum.c, cml-expr-product.c). */
gpointer cml_expr_arena_alloc (CmlExprCtx *ctx, gsize size);
CmlExpr *cml_expr_sum_list (CmlExprCtx *ctx, CmlExpr *const *terms, const double *coefs, guint n);
double   cml_expr_snap_fraction (double v);
CmlExpr *cml_expr_mul_list (CmlExprCtx *ctx, double coef, CmlExpr *const *in, guint n_in);
CmlExpr *cml_expr_mul_coef (CmlExprCtx *ctx, double c, CmlExpr *e);
gboolean cml_expr_fold_pow (double base, double exp, double *result);
CmlExpr *cml_expr_pow_node (CmlExprCtx *ctx, CmlExpr *base, CmlExpr *exp);
/* For the derived-system cache (cml-system-cache.c): the nodes of CTX by id (pdata[id],
 * every id below the next one), and the node made of these parts as the constructors make
 * it when it is new — the parts taken as canonical, not simplified (an existing equal node
 * is returned as it is); NULL when they do not make a node of kind KIND. */
GPtrArray *cml_expr_ctx_nodes_by_id (CmlExprCtx *ctx);
CmlExpr   *cml_expr_restore (CmlExprCtx *ctx, guint kind, guint fn, double value, guint n,
                             CmlExpr **args, const double *coefs);
/* The name of FN in the model language ("?" for none), which is also libm's for the
 * functions libm has. */
const char *cml_expr_func_name (CmlFunc fn);

/* What the constructors share (cml-expr.c, cml-expr-sum.c, cml-expr-product.c): a key for
 * the context's table, the interning of a canonical node, the sum pieces products use,
 * negation. */
static inline void
cml_expr_key_init (CmlExpr *key, CmlExprKind kind)
{
  memset (key, 0, sizeof *key);
  key->kind = kind;
  key->sym = -1;
}

static inline gboolean
cml_expr_is_num_value (const CmlExpr *e, double v)
{
  return e->kind == CML_EXPR_NUM && e->value == v;
}

CmlExpr *cml_expr_intern_node (CmlExprCtx *ctx, CmlExpr *key);
CmlExpr *cml_expr_mul_strip_coef (CmlExprCtx *ctx, CmlExpr *m);
guint    cml_expr_sum_lead (const CmlExpr *e);
CmlExpr *cml_expr_sum_divide (CmlExprCtx *ctx, CmlExpr *e, double c);
gboolean cml_expr_sum_normalisable (const CmlExpr *e);
gboolean cml_expr_sum_scalable (const CmlExpr *e, double c);
CmlExpr *cml_expr_negate (CmlExprCtx *ctx, CmlExpr *e);

G_END_DECLS
