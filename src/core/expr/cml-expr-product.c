/* cml-expr-product.c — the canonical product: the constructors of products, quotients
 * and negations and the factors they are made of (cml-expr.c interns the result).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The canonical form (cml-expr-private.h):
 *
 *   product  flatten nested products, split every factor into base^exponent, sort by
 *            base id, add the exponents of equal bases, rebuild each base^exponent with
 *            the power rules, fold numbers into the coefficient;
 *
 * A sum factor is brought to its primitive form (divided by the coefficient of its lead
 * term, the one with the least structural hash: a choice that does not depend on the
 * order in which nodes were created) only where that division is exact as a value.
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"
#include "cml-error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* -E; a sum is negated term by term. */
CmlExpr *
cml_expr_negate (CmlExprCtx *ctx,
        CmlExpr    *e)
{
  static const double minus_one = -1.0;

  if (e->kind == CML_EXPR_ADD)
    return cml_expr_sum_list (ctx, &e, &minus_one, 1);
  return cml_expr_mul_coef (ctx, -1.0, e);
}

/* V, or the simple fraction p/q (q <= 12) that V is within a few ulps of: keeps exponent
 * arithmetic such as 1/3 - 1 on the fractions people write. */
double
cml_expr_snap_fraction (double v)
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
             CmlExpr    *f,
             gboolean    keep_sums)
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
      if (!keep_sums && cml_expr_sum_normalisable (f))
        {
          double lead = f->coefs[cml_expr_sum_lead (f)];

          *coef *= lead;
          f = cml_expr_sum_divide (ctx, f, lead);
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
CmlExpr *
cml_expr_mul_list (CmlExprCtx     *ctx,
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
  const double coef0 = coef;
  gboolean keep_sums = FALSE;

  factor_vec_init (&fv);
  for (guint i = 0; i < n_in; i++)
    push_factor (ctx, &fv, &coef, in[i], FALSE);
  if (!isfinite (coef) && isfinite (coef0))
    {
      /* the leads of the sums, taken into the coefficient, made it overflow (7*(x −
       * 3.2e307*y), its sum led by y): the sums stay as they are.  A product whose own
       * numbers overflow (1e200*x*1e200) still does, and is refused where it is read. */
      factor_vec_clear (&fv);
      factor_vec_init (&fv);
      coef = coef0;
      keep_sums = TRUE;
      for (guint i = 0; i < n_in; i++)
        push_factor (ctx, &fv, &coef, in[i], TRUE);
    }
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
            fv.v[n].exp = cml_expr_num (ctx, cml_expr_snap_fraction (sum));
          else
            fv.v[n].exp = cml_expr_sum_list (ctx, exps, NULL, j - i);
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

      if (cml_expr_is_num_value (fv.v[i].exp, 0.0))
        continue;
      r = fv.v[i].exp == ctx->one ? fv.v[i].base : cml_expr_pow_node (ctx, fv.v[i].base, fv.v[i].exp);
      if (r->kind == CML_EXPR_NUM)
        {
          coef *= r->value;
          continue;
        }
      /* a factor that needs bringing into form again (push_factor leaves a sum whose lead
       * coefficient is not finite as it is: no redo for those) */
      if (r->kind == CML_EXPR_MUL || cml_expr_factor_base (r) != fv.v[i].base
          || (r->kind == CML_EXPR_ADD && !keep_sums && cml_expr_sum_normalisable (r)))
        redo = TRUE;
      out[n_out++] = r;
    }
  factor_vec_clear (&fv);

  if (redo)
    {
      result = cml_expr_mul_list (ctx, coef, out, n_out);
      g_free (out);
      return result;
    }

  if (coef == 0.0)
    result = ctx->zero;
  else if (n_out == 0)
    result = cml_expr_num (ctx, coef);
  else if (n_out == 1 && coef == 1.0)
    result = out[0];
  else if (n_out == 1 && out[0]->kind == CML_EXPR_ADD && cml_expr_sum_scalable (out[0], coef))
    {
      /* c * (a + b) -> c*a + c*b */
      result = cml_expr_sum_list (ctx, out, &coef, 1);
    }
  else
    {
      cml_expr_key_init (&key, CML_EXPR_MUL);
      key.value = coef;
      key.n = n_out;
      key.args = out;
      result = cml_expr_intern_node (ctx, &key);
    }
  g_free (out);
  return result;
}

/* C * E. */
CmlExpr *
cml_expr_mul_coef (CmlExprCtx *ctx,
          double      c,
          CmlExpr    *e)
{
  if (c == 1.0)
    return e;
  if (c == 0.0)
    return ctx->zero;
  if (e->kind == CML_EXPR_NUM)
    return cml_expr_num (ctx, c * e->value);
  if (e->kind == CML_EXPR_ADD && cml_expr_sum_scalable (e, c))
    return cml_expr_sum_list (ctx, &e, &c, 1); /* c * (a + b) -> c*a + c*b */
  return cml_expr_mul_list (ctx, c, &e, 1);
}

CmlExpr *
cml_expr_mul (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  CmlExpr *f[2] = { a, b };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  if (is_num (a))
    return cml_expr_mul_coef (ctx, a->value, b);
  if (is_num (b))
    return cml_expr_mul_coef (ctx, b->value, a);
  return cml_expr_mul_list (ctx, 1.0, f, 2);
}

CmlExpr *
cml_expr_neg (CmlExprCtx *ctx,
              CmlExpr    *a)
{
  g_return_val_if_fail (ctx != NULL && a != NULL, NULL);

  return cml_expr_mul_coef (ctx, -1.0, a);
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
  return cml_expr_mul (ctx, a, cml_expr_pow_node (ctx, b, ctx->minus_one));
}
