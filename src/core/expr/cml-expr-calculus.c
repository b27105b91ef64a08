/* cml-expr-calculus.c — calculus on expressions: symbolic differentiation (memoised per
 * context), substitution and expansion of products of sums, all through the
 * canonicalising constructors of cml-expr.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"
#include "cml-error.h"

#include <math.h>
#include <string.h>

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
        result = cml_expr_sum_list (ctx, d, e->coefs, e->n);
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
            terms[n_terms++] = cml_expr_mul_list (ctx, e->value, fs, e->n);
          }
        result = n_terms == 0 ? ctx->zero : cml_expr_sum_list (ctx, terms, NULL, n_terms);
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
            CmlExpr *xm1 = is_num (x) ? cml_expr_num (ctx, cml_expr_snap_fraction (x->value - 1.0))
                                      : cml_expr_sub (ctx, x, ctx->one);
            CmlExpr *fs[3] = { x, cml_expr_pow_node (ctx, b, xm1), db };

            return cml_expr_mul_list (ctx, 1.0, fs, 3);
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

  memo = cml_expr_arena_alloc (ctx, sizeof *memo);
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
        result = cml_expr_sum_list (ctx, t, c, e->n + 1);
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
        result = cml_expr_mul_list (ctx, e->value, f, e->n);
        g_free (f);
        return result;
      }

    case CML_EXPR_POW:
      return cml_expr_pow_node (ctx, map (ctx, e->args[0], data), map (ctx, e->args[1], data));

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
        ta = cml_expr_mul_coef (ctx, a->coefs[i], a->args[i]);
      else
        ta = cml_expr_num (ctx, a->value);
      for (guint j = 0; j < nb; j++)
        {
          CmlExpr *tb;

          if (b->kind != CML_EXPR_ADD)
            tb = b;
          else if (j < b->n)
            tb = cml_expr_mul_coef (ctx, b->coefs[j], b->args[j]);
          else
            tb = cml_expr_num (ctx, b->value);
          terms[n++] = cml_expr_mul (ctx, ta, tb);
        }
    }
  result = cml_expr_sum_list (ctx, terms, NULL, n);
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
          result = cml_expr_pow_node (ctx, b, x);
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

gboolean
cml_expr_is_zero_expanded (CmlExprCtx *ctx, CmlExpr *e)
{
  g_autoptr (GError) error = NULL;
  CmlExpr *x;

  if (cml_expr_is_zero (e))
    return TRUE;
  x = cml_expr_expand (ctx, e, &error);
  return x != NULL && cml_expr_is_zero (x);
}
