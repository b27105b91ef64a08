/* cml-taylor.c — the Taylor program of a right-hand side (its nodes in topological order,
 * each with the recurrence of its Taylor coefficients), its interpreter and its C text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For ż = f(t, z) and a node u of the DAG of f, u_[k] = u^(k)(t0)/k! (normalised
 * derivatives).  The state's come from the equation, z_[k] = f_[k−1]/k, the time's are
 * (t0, 1, 0, …), and every node's from its operands' (doc/theory.md, "The Taylor
 * integrator"):
 *
 *   c = a ± b        c_[k] = a_[k] ± b_[k]                      (sums: n-ary, weighted)
 *   c = a b          c_[k] = Σ_{j=0}^{k} a_[j] b_[k−j]
 *   c = a / b        c_[k] = (a_[k] − Σ_{j=1}^{k} b_[j] c_[k−j]) / b_[0]
 *   c = a^α          c_[k] = Σ_{j=0}^{k−1} (α(k−j) − j) a_[k−j] c_[j] / (k a_[0])
 *   c = √a           c_[k] = (a_[k] − Σ_{j=1}^{k−1} c_[j] c_[k−j]) / (2 c_[0])
 *   ċ = σ ȧ q        c_[k] = σ/k Σ_{j=1}^{k} j a_[j] q_[k−j]
 *                    exp (q = c), sin/cos (q = cos/−sin, computed in pairs), sinh/cosh,
 *                    tan (q = 1 + c²), tanh (q = 1 − c²)
 *   d ċ = σ ȧ        c_[k] = (σ k a_[k] − Σ_{j=1}^{k−1} j c_[j] d_[k−j]) / (k d_[0])
 *                    log (d = a), atan (d = 1 + a²), asin/acos (d = √(1 − a²), σ = ±1)
 *   atan2 (y, x)     the same with d = x² + y² and σ ȧ replaced by x ẏ − y ẋ
 *   |a|, sign (a)    sign (a_[0]) a_[k], and (sign (a_[0]), 0, 0, …): smooth away from
 *                    a = 0; |a| at a_[0] = 0 gives a non-finite coefficient
 *
 * A state whose equation is ż = 0 (a conserved momentum carried as a state) is a constant
 * series (z_[0], 0, 0, …), and so is what is made of such series by sums, scalings and
 * products: a product with one, c = a b with b constant, is
 *
 *   c_[k] = 0 + a_[k] b_[0],
 *
 * the number the convolution gives, bit for bit, when the coefficients are finite (its
 * other terms are zeros, and a running sum that starts at +0 and adds zeros stays +0;
 * +0 plus the one product is that product, or +0 for −0, as in the convolution): one
 * multiplication per order instead of k + 1.
 *
 * Integer powers are products (a² by the symmetric square, a^n by squaring), negative
 * ones a division, half-integer ones √a times an integer power; a^b with b varying is
 * exp (b log a).  Parts of f that depend on the parameters only are numbers, computed when
 * the parameters are set; only the nodes that vary along the solution have coefficient
 * arrays.  The program sweeps its operations once per order k = 0 … p − 1, so that every
 * operation finds coefficients 0 … k of its operands.
 *
 * The interpreter and the native code (cml_taylor_emit_c) run the same kernels
 * (cml-taylor-kernels.inc, compiled here and written into the C text) in the same order:
 * their numbers agree bit for bit.
 */
#define G_LOG_DOMAIN "cml-taylor"

#include "cml-taylor.h"
#include "cml-taylor-private.h"
#include "cml-expr-private.h"
#include "cml-error.h"

#include <math.h>
#include <string.h>

#include "cml-taylor-core.h" /* its helpers (cml_tk_start); it includes nothing itself */

#define TK(...) __VA_ARGS__
#include "cml-taylor-kernels.inc"
#undef TK

#define TK(...) #__VA_ARGS__
static const char kernels_text[] =
#include "cml-taylor-kernels.inc"
  ;
#undef TK

const char *
cml_taylor_kernels_text (void)
{
  return kernels_text;
}

/* ---- compiler ------------------------------------------------------------------------- */

typedef struct
{
  CmlTaylor  *tp;
  CmlExprCtx *ctx;
  GHashTable *memo;     /* CmlExpr* -> encoded value + 1 */
  GHashTable *series;   /* CmlExpr* -> 1 (constant) / 2 (varies along the solution) */
  GHashTable *pairs;    /* (fn, row) -> the row of the partner (sin/cos, sinh/cosh) */
  GHashTable *powi;     /* (row, n) -> row of row^n */
  GHashTable *binops;   /* (op, a, b) -> row of a × b or a / b */
  GHashTable *nums;     /* double bits -> const index + 1 */
  int        *sym_row;  /* symbol id -> row (time, states) or -1 */
  gboolean   *sym_param;
  guint       n_sym;
  GError    **error;
  gboolean    failed;
} Compiler;

/* Values: a row of S (≥ 0) or a constant (−1 − index). */
#define IS_CONST(v) ((v) < 0)
#define CONST_IDX(v) (-1 - (v))
#define CONST_VAL(i) (-1 - (int) (i))

static guint
new_row (Compiler *c)
{
  return c->tp->n_rows++;
}

static TOp *
push_op (Compiler *c, guint8 op, int d, int a, int b, int q, int ci)
{
  TOp o = { op, 0, d, a, b, q, ci, 1.0, 0, 0 };
  g_array_append_val (c->tp->ops, o);
  return &g_array_index (c->tp->ops, TOp, c->tp->ops->len - 1);
}

static int
const_entry (Compiler *c, TConst e)
{
  g_array_append_val (c->tp->consts, e);
  return CONST_VAL (c->tp->consts->len - 1);
}

static int
const_num (Compiler *c, double v)
{
  guint64 bits;
  gpointer found;

  memcpy (&bits, &v, sizeof bits);
  found = g_hash_table_lookup (c->nums, &bits);
  if (found)
    return CONST_VAL (GPOINTER_TO_UINT (found) - 1);
  int r = const_entry (c, (TConst) { TC_NUM, v, NULL, -1, NULL, 0 });
  guint64 *key = g_new (guint64, 1);
  *key = bits;
  g_hash_table_insert (c->nums, key, GUINT_TO_POINTER (CONST_IDX (r) + 1));
  return r;
}

static gboolean
varies (Compiler *c, const CmlExpr *e)
{
  gpointer found = g_hash_table_lookup (c->series, e);
  gboolean v = FALSE;

  if (found)
    return GPOINTER_TO_INT (found) == 2;
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      v = FALSE;
      break;
    case CML_EXPR_SYM:
      v = (guint) e->sym < c->n_sym && c->sym_row[e->sym] >= 0;
      break;
    case CML_EXPR_ADD:
    case CML_EXPR_MUL:
    case CML_EXPR_POW:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
      for (guint i = 0; i < e->n; i++)
        v |= varies (c, e->args[i]);
      break;
    }
  g_hash_table_insert (c->series, (gpointer) e, GINT_TO_POINTER (v ? 2 : 1));
  return v;
}

static gboolean
check_symbols (Compiler *c, const CmlExpr *e, GHashTable *seen)
{
  if (g_hash_table_contains (seen, e))
    return TRUE;
  g_hash_table_add (seen, (gpointer) e);
  if (e->kind == CML_EXPR_SYM)
    {
      if ((guint) e->sym < c->n_sym && (c->sym_row[e->sym] >= 0 || c->sym_param[e->sym]))
        return TRUE;
      g_set_error (c->error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "the Taylor program has no value for the symbol “%s”",
                   cml_expr_ctx_symbol_name (c->ctx, e->sym));
      return FALSE;
    }
  for (guint i = 0; i < e->n; i++)
    if (!check_symbols (c, e->args[i], seen))
      return FALSE;
  return TRUE;
}

static int compile_node (Compiler *c, const CmlExpr *e);

/* A row for V: itself, or a constant row. */
static int
as_row (Compiler *c, int v)
{
  if (!IS_CONST (v))
    return v;
  int d = (int) new_row (c);
  push_op (c, T_CONST, d, -1, -1, -1, CONST_IDX (v));
  return d;
}

/* A × B or A / B (rows); memoised, so that a product that two terms share (I₂ W₂ W₃ and
 * I₃ W₂ W₃) is computed once: the same operation on the same rows, the same numbers. */
static int
op_binary (Compiler *c, guint8 op, int a, int b)
{
  g_assert (a >= 0 && b >= 0 && a < (1 << 29) && b < (1 << 29));
  gint64 key = ((gint64) op << 58) | ((gint64) a << 29) | (gint64) b;
  gpointer found = g_hash_table_lookup (c->binops, &key);
  if (found)
    return GPOINTER_TO_INT (found) - 1;
  int d = (int) new_row (c);
  push_op (c, op, d, a, b, -1, -1);
  gint64 *k = g_new (gint64, 1);
  *k = key;
  g_hash_table_insert (c->binops, k, GINT_TO_POINTER (d + 1));
  return d;
}

static int
op_sqr (Compiler *c, int a)
{
  gint64 key = ((gint64) a << 8) | 2;
  gpointer found = g_hash_table_lookup (c->powi, &key);
  if (found)
    return GPOINTER_TO_INT (found) - 1;
  int d = (int) new_row (c);
  push_op (c, T_SQR, d, a, -1, -1, -1);
  gint64 *k = g_new (gint64, 1);
  *k = key;
  g_hash_table_insert (c->powi, k, GINT_TO_POINTER (d + 1));
  return d;
}

/* 1 + σ a (a row), a new row. */
static int
op_one_plus (Compiler *c, int a, double sigma)
{
  int d = (int) new_row (c);
  TOp *o = push_op (c, T_LIN, d, -1, -1, -1, CONST_IDX (const_num (c, 1.0)));
  o->first = c->tp->terms->len;
  o->n = 1;
  TTerm t = { sigma, a };
  g_array_append_val (c->tp->terms, t);
  return d;
}

/* ROW^n, n ≥ 1, by squaring; memoised. */
static int
op_powi (Compiler *c, int row, int n)
{
  if (n == 1)
    return row;
  if (n == 2)
    return op_sqr (c, row);
  gint64 key = ((gint64) row << 8) | n;
  gpointer found = g_hash_table_lookup (c->powi, &key);
  if (found)
    return GPOINTER_TO_INT (found) - 1;
  int d = n % 2 == 0 ? op_sqr (c, op_powi (c, row, n / 2)) : op_binary (c, T_MUL, op_powi (c, row, n - 1), row);
  gint64 *k = g_new (gint64, 1);
  *k = key;
  g_hash_table_insert (c->powi, k, GINT_TO_POINTER (d + 1));
  return d;
}

/* ROW^x for a number x (ROW varies). */
static int
op_pow_num (Compiler *c, int row, double x)
{
  if (x < 0 && cml_expr_double_is_int (2 * x) && x > -128)
    {
      int d = (int) new_row (c);
      push_op (c, T_DIVC, d, -1, op_pow_num (c, row, -x), -1, CONST_IDX (const_num (c, 1.0)));
      return d;
    }
  if (x > 0 && cml_expr_double_is_int (x) && x <= 128)
    return op_powi (c, row, (int) x);
  if (x > 0 && cml_expr_double_is_int (2 * x) && x <= 128)
    {
      int s = (int) new_row (c);
      push_op (c, T_SQRT, s, row, -1, -1, -1);
      int m = (int) floor (x);
      return m == 0 ? s : op_binary (c, T_MUL, op_powi (c, row, m), s);
    }
  int d = (int) new_row (c);
  push_op (c, T_POWR, d, row, -1, -1, CONST_IDX (const_num (c, x)));
  return d;
}

static int
compile_mul (Compiler *c, const CmlExpr *e)
{
  g_autoptr (GArray) cf = g_array_new (FALSE, FALSE, sizeof (int));
  int num = -1, den = -1;

  for (guint i = 0; i < e->n; i++)
    {
      const CmlExpr *f = e->args[i];
      double x;
      int v;

      if (!varies (c, f))
        {
          v = compile_node (c, f);
          g_array_append_val (cf, v);
          continue;
        }
      if (f->kind == CML_EXPR_POW && cml_expr_is_number (f->args[1], &x) && x < 0)
        {
          v = op_pow_num (c, compile_node (c, f->args[0]), -x);
          den = den < 0 ? v : op_binary (c, T_MUL, den, v);
          continue;
        }
      v = compile_node (c, f);
      num = num < 0 ? v : op_binary (c, T_MUL, num, v);
    }
  /* the numeric coefficient: e->value times the constant factors */
  int coef;
  if (cf->len == 0)
    coef = const_num (c, e->value);
  else
    {
      TConst k = { TC_PRODUCT, e->value, NULL, -1, g_new (int, cf->len), cf->len };
      for (guint i = 0; i < cf->len; i++)
        k.factors[i] = CONST_IDX (g_array_index (cf, int, i));
      coef = const_entry (c, k);
    }
  gboolean unit = cf->len == 0 && e->value == 1.0;
  if (num < 0)
    {
      int d = (int) new_row (c);
      push_op (c, T_DIVC, d, -1, den, -1, CONST_IDX (coef));
      return d;
    }
  int r = den < 0 ? num : op_binary (c, T_DIV, num, den);
  if (unit)
    return r;
  int d = (int) new_row (c);
  push_op (c, T_SCALE, d, r, -1, -1, CONST_IDX (coef));
  return d;
}

/* sin/cos, sinh/cosh of row A: both rows, made together. */
static int
op_pair (Compiler *c, CmlFunc fn, int a)
{
  gboolean trig = fn == CML_FN_SIN || fn == CML_FN_COS;
  gint64 key = ((gint64) a << 8) | (trig ? 1 : 2);
  gpointer found = g_hash_table_lookup (c->pairs, &key);
  int s, co;

  if (found)
    {
      s = GPOINTER_TO_INT (found) - 1;
      co = s + 1;
    }
  else
    {
      s = (int) new_row (c);
      co = (int) new_row (c);
      TOp *o = push_op (c, T_DP, s, a, -1, co, -1);
      o->fn = trig ? CML_FN_SIN : CML_FN_SINH;
      o = push_op (c, T_DP, co, a, -1, s, -1);
      o->fn = trig ? CML_FN_COS : CML_FN_COSH;
      o->sg = trig ? -1.0 : 1.0;
      gint64 *k = g_new (gint64, 1);
      *k = key;
      g_hash_table_insert (c->pairs, k, GINT_TO_POINTER (s + 1));
    }
  return fn == CML_FN_SIN || fn == CML_FN_SINH ? s : co;
}

static int
compile_func (Compiler *c, CmlFunc fn, int a)
{
  int d, q;
  TOp *o;

  switch (fn)
    {
    case CML_FN_SIN:
    case CML_FN_COS:
    case CML_FN_SINH:
    case CML_FN_COSH:
      return op_pair (c, fn, a);
    case CML_FN_EXP:
      d = (int) new_row (c);
      o = push_op (c, T_DP, d, a, -1, d, -1);
      o->fn = fn;
      return d;
    case CML_FN_TAN:
    case CML_FN_TANH:
      d = (int) new_row (c);
      q = (int) new_row (c);
      o = push_op (c, T_DP, d, a, -1, q, -1);
      o->fn = fn;
      {
        int s2 = op_sqr (c, d);
        TOp *l = push_op (c, T_LIN, q, -1, -1, -1, CONST_IDX (const_num (c, 1.0)));
        l->first = c->tp->terms->len;
        l->n = 1;
        TTerm t = { fn == CML_FN_TAN ? 1.0 : -1.0, s2 };
        g_array_append_val (c->tp->terms, t);
      }
      return d;
    case CML_FN_LOG:
      d = (int) new_row (c);
      o = push_op (c, T_DQ, d, a, -1, a, -1);
      o->fn = fn;
      return d;
    case CML_FN_ATAN:
      q = op_one_plus (c, op_sqr (c, a), 1.0);
      d = (int) new_row (c);
      o = push_op (c, T_DQ, d, a, -1, q, -1);
      o->fn = fn;
      return d;
    case CML_FN_ASIN:
    case CML_FN_ACOS:
      {
        int u = op_one_plus (c, op_sqr (c, a), -1.0);
        q = (int) new_row (c);
        push_op (c, T_SQRT, q, u, -1, -1, -1);
        d = (int) new_row (c);
        o = push_op (c, T_DQ, d, a, -1, q, -1);
        o->fn = fn;
        o->sg = fn == CML_FN_ASIN ? 1.0 : -1.0;
        return d;
      }
    case CML_FN_SQRT:
      d = (int) new_row (c);
      push_op (c, T_SQRT, d, a, -1, -1, -1);
      return d;
    case CML_FN_ABS:
      d = (int) new_row (c);
      push_op (c, T_ABS, d, a, -1, -1, -1);
      return d;
    case CML_FN_SIGN:
      d = (int) new_row (c);
      push_op (c, T_SIGN, d, a, -1, -1, -1);
      return d;
    case CML_FN_ATAN2:
    default:
      g_set_error (c->error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "the Taylor method has no recurrence for the function %s",
                   fn == CML_FN_ATAN2 ? "atan2 of one argument" : "of this kind");
      c->failed = TRUE;
      return 0;
    }
}

static int
compile_node (Compiler *c, const CmlExpr *e)
{
  gpointer found = g_hash_table_lookup (c->memo, e);
  int v = 0;

  if (found)
    return GPOINTER_TO_INT (found) > 0 ? GPOINTER_TO_INT (found) - 1 : GPOINTER_TO_INT (found);
  if (c->failed)
    return 0;

  if (e->kind == CML_EXPR_NUM)
    v = const_num (c, e->value);
  else if (e->kind == CML_EXPR_SYM && varies (c, e))
    v = c->sym_row[e->sym];
  else if (!varies (c, e))
    v = const_entry (c, (TConst) { TC_EVAL, 0, e, -1, NULL, 0 });
  else
    switch ((CmlExprKind) e->kind)
      {
      case CML_EXPR_ADD:
        {
          TTerm *terms = g_new (TTerm, e->n);
          for (guint i = 0; i < e->n; i++)
            terms[i] = (TTerm) { e->coefs[i], compile_node (c, e->args[i]) };
          v = (int) new_row (c);
          TOp *o = push_op (c, T_LIN, v, -1, -1, -1, CONST_IDX (const_num (c, e->value)));
          o->first = c->tp->terms->len;
          o->n = e->n;
          g_array_append_vals (c->tp->terms, terms, e->n);
          g_free (terms);
          break;
        }
      case CML_EXPR_MUL:
        v = compile_mul (c, e);
        break;
      case CML_EXPR_POW:
        {
          const CmlExpr *b = e->args[0], *x = e->args[1];
          double xv;
          if (cml_expr_is_number (x, &xv))
            v = op_pow_num (c, compile_node (c, b), xv);
          else if (!varies (c, x))
            {
              v = (int) new_row (c);
              push_op (c, T_POWR, v, compile_node (c, b), -1, -1, CONST_IDX (compile_node (c, x)));
            }
          else
            {
              /* b^x = exp (x log b) */
              int xr = compile_node (c, x), m;
              if (varies (c, b))
                m = op_binary (c, T_MUL, compile_func (c, CML_FN_LOG, compile_node (c, b)), xr);
              else
                {
                  int lb = const_entry (c, (TConst) { TC_LOG, 0, NULL, CONST_IDX (compile_node (c, b)), NULL, 0 });
                  m = (int) new_row (c);
                  push_op (c, T_SCALE, m, xr, -1, -1, CONST_IDX (lb));
                }
              v = compile_func (c, CML_FN_EXP, m);
            }
          break;
        }
      case CML_EXPR_FUNC:
        v = compile_func (c, (CmlFunc) e->fn, compile_node (c, e->args[0]));
        break;
      case CML_EXPR_FUNC2:
        {
          int y = as_row (c, compile_node (c, e->args[0]));
          int x = as_row (c, compile_node (c, e->args[1]));
          TTerm t1 = { 1.0, op_sqr (c, x) }, t2 = { 1.0, op_sqr (c, y) };
          int d2 = (int) new_row (c);
          TOp *l = push_op (c, T_LIN, d2, -1, -1, -1, CONST_IDX (const_num (c, 0.0)));
          l->first = c->tp->terms->len;
          l->n = 2;
          g_array_append_val (c->tp->terms, t1);
          g_array_append_val (c->tp->terms, t2);
          v = (int) new_row (c);
          push_op (c, T_ATAN2, v, y, x, d2, -1);
          break;
        }
      case CML_EXPR_NUM:
      case CML_EXPR_SYM:
      default:
        g_assert_not_reached ();
      }

  g_hash_table_insert (c->memo, (gpointer) e, GINT_TO_POINTER (v >= 0 ? v + 1 : v));
  return v;
}

static void
tconst_clear (gpointer p)
{
  TConst *k = p;
  g_free (k->factors);
}

/* Marks the rows that are constant series (coefficients 0 from order 1 on: the states
 * with ż = 0 and what sums, scalings and products make of them) and turns the products
 * with such a row into T_MULC; marks the rows linear in time (0 from order 2 on: time, the
 * states whose ż is constant, and their sums and scalings) and turns sin, cos and exp of
 * such a row into T_DPL. */
static void
use_constant_series (CmlTaylor *tp)
{
  g_autofree gboolean *flat = g_new0 (gboolean, tp->n_rows);
  g_autofree gboolean *linear = g_new0 (gboolean, tp->n_rows);
  TOp *ops = (TOp *) tp->ops->data;
  const TConst *consts = (const TConst *) tp->consts->data;
  GHashTable *f_op = g_hash_table_new (NULL, NULL);

  for (guint j = 0; j < tp->ops->len; j++)
    g_hash_table_insert (f_op, GINT_TO_POINTER (ops[j].d), &ops[j]);
  for (guint i = 0; i < tp->dim; i++)
    {
      const TOp *o = g_hash_table_lookup (f_op, GINT_TO_POINTER (tp->f_row[i]));
      if (o != NULL && o->op == T_CONST && o->c >= 0 && consts[o->c].kind == TC_NUM
          && consts[o->c].value == 0.0)
        flat[1 + i] = TRUE;
      if (o != NULL && o->op == T_CONST)
        linear[1 + i] = TRUE;
    }
  g_hash_table_unref (f_op);
  linear[0] = TRUE; /* time: t, 1, 0, 0, … */

  for (guint j = 0; j < tp->ops->len; j++)
    {
      TOp *o = &ops[j];
      switch (o->op)
        {
        case T_CONST:
          flat[o->d] = linear[o->d] = TRUE;
          break;
        case T_SCALE:
          flat[o->d] = flat[o->a];
          linear[o->d] = linear[o->a];
          break;
        case T_SQR:
          flat[o->d] = linear[o->d] = flat[o->a];
          break;
        case T_LIN:
          {
            const TTerm *t = &g_array_index (tp->terms, TTerm, o->first);
            gboolean all = TRUE, lin = TRUE;
            for (guint i = 0; i < o->n; i++)
              {
                all = all && (IS_CONST (t[i].src) || flat[t[i].src]);
                lin = lin && (IS_CONST (t[i].src) || linear[t[i].src]);
              }
            flat[o->d] = all;
            linear[o->d] = lin;
            break;
          }
        case T_DP:
          if (linear[o->a])
            o->op = T_DPL;
          break;
        case T_MUL:
          if (flat[o->a] && !flat[o->b])
            {
              int a = o->a;
              o->a = o->b;
              o->b = a;
            }
          if (flat[o->b])
            {
              o->op = T_MULC;
              flat[o->d] = flat[o->a];
              linear[o->d] = linear[o->a];
            }
          break;
        default:
          break;
        }
    }
}

CmlTaylor *
cml_taylor_compile (CmlExprCtx      *ctx,
                    CmlExpr *const  *rhs,
                    guint            dim,
                    int              t_id,
                    const int       *state_ids,
                    const int       *param_ids,
                    guint            n_params,
                    guint            order,
                    GError         **error)
{
  g_autoptr (CmlTaylor) tp = NULL;
  g_autoptr (GHashTable) seen = NULL;
  Compiler c = { 0 };

  g_return_val_if_fail (ctx != NULL && rhs != NULL && dim > 0, NULL);
  g_return_val_if_fail (order >= 1 && order <= CML_TAYLOR_MAX_ORDER, NULL);

  tp = g_new0 (CmlTaylor, 1);
  tp->dim = dim;
  tp->order = order;
  tp->N = order + 1;
  tp->n_params = n_params;
  tp->ops = g_array_new (FALSE, FALSE, sizeof (TOp));
  tp->terms = g_array_new (FALSE, FALSE, sizeof (TTerm));
  tp->consts = g_array_new (FALSE, FALSE, sizeof (TConst));
  g_array_set_clear_func (tp->consts, tconst_clear);
  tp->n_sym = cml_expr_ctx_n_symbols (ctx);
  tp->param_ids = g_new (int, MAX (n_params, 1));
  if (n_params)
    memcpy (tp->param_ids, param_ids, n_params * sizeof (int));
  tp->n_rows = 1 + dim;

  c.tp = tp;
  c.ctx = ctx;
  c.error = error;
  c.n_sym = tp->n_sym;
  c.sym_row = g_new (int, MAX (c.n_sym, 1));
  c.sym_param = g_new0 (gboolean, MAX (c.n_sym, 1));
  for (guint i = 0; i < c.n_sym; i++)
    c.sym_row[i] = -1;
  if (t_id >= 0)
    c.sym_row[t_id] = 0;
  for (guint i = 0; i < dim; i++)
    c.sym_row[state_ids[i]] = (int) (1 + i);
  for (guint i = 0; i < n_params; i++)
    c.sym_param[param_ids[i]] = TRUE;
  c.memo = g_hash_table_new (NULL, NULL);
  c.series = g_hash_table_new (NULL, NULL);
  c.pairs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c.powi = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c.binops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  c.nums = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  seen = g_hash_table_new (NULL, NULL);

  gboolean ok = TRUE;
  for (guint i = 0; i < dim && ok; i++)
    ok = check_symbols (&c, rhs[i], seen);
  tp->f_row = g_new (int, dim);
  for (guint i = 0; i < dim && ok && !c.failed; i++)
    tp->f_row[i] = as_row (&c, compile_node (&c, rhs[i]));
  ok = ok && !c.failed;
  if (ok)
    use_constant_series (tp);

  g_free (c.sym_row);
  g_free (c.sym_param);
  g_hash_table_unref (c.memo);
  g_hash_table_unref (c.series);
  g_hash_table_unref (c.pairs);
  g_hash_table_unref (c.powi);
  g_hash_table_unref (c.binops);
  g_hash_table_unref (c.nums);
  if (!ok)
    return NULL;

  tp->S = g_new0 (double, (gsize) tp->n_rows * tp->N);
  tp->C = g_new0 (double, MAX (tp->consts->len, 1));
  tp->values = g_new0 (double, MAX (tp->n_sym, 1));
  tp->z_a = g_new0 (double, dim);
  tp->z_b = g_new0 (double, dim);
  tp->z_out = g_new0 (double, dim);
  tp->X = tp->S + tp->N; /* the state rows, where the program leaves them */
  tp->inv = g_new0 (double, tp->N);
  for (guint k = 1; k < tp->N; k++)
    tp->inv[k] = 1.0 / k;
  tp->step_factor = exp (-2.0 - 0.7 / (order - 1.0));
  cml_taylor_prepare (tp);
  return g_steal_pointer (&tp);
}

void
cml_taylor_free (CmlTaylor *tp)
{
  if (tp == NULL)
    return;
  g_array_unref (tp->ops);
  g_array_unref (tp->terms);
  g_array_unref (tp->consts);
  g_free (tp->param_ids);
  g_free (tp->f_row);
  g_free (tp->S);
  g_free (tp->C);
  g_free (tp->values);
  g_free (tp->z_a);
  g_free (tp->z_b);
  g_free (tp->z_out);
  g_free (tp->inv);
  g_clear_pointer (&tp->native, cml_native_free);
  g_free (tp);
}

guint cml_taylor_order (const CmlTaylor *tp) { return tp->order; }
guint cml_taylor_dim (const CmlTaylor *tp) { return tp->dim; }
guint cml_taylor_n_series (const CmlTaylor *tp) { return tp->n_rows; }
gboolean cml_taylor_is_native (const CmlTaylor *tp) { return tp->native_fn != NULL; }
guint64 cml_taylor_n_native_steps (const CmlTaylor *tp) { return tp->n_native_steps; }

const char *
cml_taylor_kind_of_rhs (const CmlTaylor *tp)
{
  gboolean trig = FALSE;

  for (guint j = 0; j < tp->ops->len; j++)
    switch (g_array_index (tp->ops, TOp, j).op)
      {
      case T_DIV:
      case T_DIVC:
      case T_SQRT:
      case T_POWR:
      case T_DQ:
      case T_ATAN2:
      case T_ABS:
      case T_SIGN:
        return "rational or algebraic";
      case T_DP:
      case T_DPL:
        trig = TRUE;
        break;
      default:
        break;
      }
  return trig ? "trigonometric" : "polynomial";
}

guint
cml_taylor_order_for_tolerance (double rtol, double atol)
{
  double eps = rtol > 0 && atol > 0 ? MIN (rtol, atol) : MAX (rtol, atol);
  if (!(eps > 0) || !isfinite (eps))
    eps = 1e-16;
  double p = ceil (-0.5 * log (eps) + 1.0);
  return (guint) CLAMP (p, 2.0, (double) CML_TAYLOR_MAX_ORDER);
}

/* ---- running the program -------------------------------------------------------------- */

/* The parameters' values into the constant table. */
void
cml_taylor_prepare (CmlTaylor *tp)
{
  if (tp->params)
    for (guint i = 0; i < tp->n_params; i++)
      tp->values[tp->param_ids[i]] = tp->params[i];
  for (guint i = 0; i < tp->consts->len; i++)
    {
      const TConst *k = &g_array_index (tp->consts, TConst, i);
      double v = 0;
      switch (k->kind)
        {
        case TC_NUM:
          v = k->value;
          break;
        case TC_EVAL:
          v = cml_expr_eval (k->e, tp->values);
          break;
        case TC_PRODUCT:
          v = k->value;
          for (guint j = 0; j < k->n_factors; j++)
            v *= tp->C[k->factors[j]];
          break;
        case TC_LOG:
          v = log (tp->C[k->arg]);
          break;
        default:
          g_assert_not_reached ();
        }
      tp->C[i] = v;
    }
}

void
cml_taylor_set_params (CmlTaylor *tp, const double *params)
{
  tp->params = params;
  cml_taylor_prepare (tp);
  tp->have_step = FALSE;
}

static inline double
f0 (guint8 fn, double a)
{
  return fn == CML_FN_ATAN2 ? NAN : cml_func_value (fn, a, 0);
}

static void
run_op (const CmlTaylor *tp, const TOp *o, int k)
{
  const guint N = tp->N;
  double *S = tp->S;
  const double *C = tp->C;
  double *D = S + (gsize) o->d * N;
  const double *A = o->a >= 0 ? S + (gsize) o->a * N : NULL;
  const double *B = o->b >= 0 ? S + (gsize) o->b * N : NULL;
  const double *Q = o->q >= 0 ? S + (gsize) o->q * N : NULL;

  switch (o->op)
    {
    case T_CONST:
      D[k] = k == 0 ? C[o->c] : 0.0;
      break;
    case T_LIN:
      {
        double s = k == 0 ? C[o->c] : 0.0;
        const TTerm *t = &g_array_index (tp->terms, TTerm, o->first);
        for (guint i = 0; i < o->n; i++)
          {
            if (IS_CONST (t[i].src))
              {
                if (k == 0)
                  s += t[i].w * C[CONST_IDX (t[i].src)];
              }
            else
              s += t[i].w * S[(gsize) t[i].src * N + k];
          }
        D[k] = s;
        break;
      }
    case T_SCALE:
      D[k] = C[o->c] * A[k];
      break;
    case T_MUL:
      D[k] = tk_mul (A, B, k);
      break;
    case T_MULC:
      D[k] = 0.0 + A[k] * B[0];
      break;
    case T_SQR:
      D[k] = tk_sqr (A, k);
      break;
    case T_DIV:
      D[k] = tk_div (D, A[k], B, k);
      break;
    case T_DIVC:
      D[k] = tk_div (D, k == 0 ? C[o->c] : 0.0, B, k);
      break;
    case T_SQRT:
      D[k] = k == 0 ? sqrt (A[0]) : tk_sqrt (D, A, k);
      break;
    case T_POWR:
      D[k] = k == 0 ? pow (A[0], C[o->c]) : tk_powr (D, A, C[o->c], k);
      break;
    case T_DP:
      D[k] = k == 0 ? f0 (o->fn, A[0]) : tk_dp (A, Q, o->sg, k);
      break;
    case T_DPL:
      D[k] = k == 0 ? f0 (o->fn, A[0]) : tk_dpl (A, Q, o->sg, k);
      break;
    case T_DQ:
      D[k] = k == 0 ? f0 (o->fn, A[0]) : tk_dq (D, A, Q, o->sg, k);
      break;
    case T_ATAN2:
      D[k] = k == 0 ? atan2 (A[0], B[0]) : tk_atan2 (D, A, B, Q, k);
      break;
    case T_ABS:
      D[k] = k == 0 ? fabs (A[0]) : tk_abs_factor (A[0]) * A[k];
      break;
    case T_SIGN:
      D[k] = k == 0 ? tk_sign (A[0]) : 0.0;
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
interpret (CmlTaylor *tp)
{
  const int P = (int) tp->order, N = (int) tp->N;
  double *S = tp->S;
  const TOp *ops = (const TOp *) tp->ops->data;
  const guint n_ops = tp->ops->len;

  for (int k = 0; k < P; k++)
    {
      if (k > 0)
        for (guint i = 0; i < tp->dim; i++)
          S[(1 + i) * N + k] = S[tp->f_row[i] * N + k - 1] * tp->inv[k];
      for (guint j = 0; j < n_ops; j++)
        run_op (tp, &ops[j], k);
    }
  for (guint i = 0; i < tp->dim; i++)
    S[(1 + i) * N + P] = S[tp->f_row[i] * N + P - 1] * tp->inv[P];
}

void
cml_taylor_run (CmlTaylor *tp)
{
  if (tp->native_fn)
    tp->native_fn (tp->S, tp->C);
  else
    interpret (tp);
}

void
cml_taylor_jet (CmlTaylor *tp, double t, const double *z, double *coefs)
{
  const guint N = tp->N;
  double *S = tp->S;

  cml_tk_start (S, (int) tp->dim, (int) N, t, z);
  cml_taylor_run (tp);
  if (coefs != tp->X)
    memcpy (coefs, tp->X, (gsize) tp->dim * N * sizeof (double));
}
