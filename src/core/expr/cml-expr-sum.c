/* cml-expr-sum.c — the canonical sum: the constructors of sums, the terms they are made
 * of, and what products ask of a sum factor (cml-expr.c interns the result).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The canonical form (cml-expr-private.h):
 *
 *   sum      flatten nested sums, split "c * monomial", sort terms by node id, add the
 *            coefficients of equal terms, drop zero terms;
 *
 * A sum's lead term, by which products bring a sum factor to its primitive form, is the
 * one with the least structural hash (a choice that does not depend on the order in which
 * nodes were created).  Coefficients that cancel to within rounding (0.1*x + 0.2*x −
 * 0.3*x) become exact zeros.
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
CmlExpr *
cml_expr_mul_strip_coef (CmlExprCtx *ctx,
                CmlExpr    *m)
{
  CmlExpr key;

  if (m->value == 1.0)
    return m;
  if (m->n == 1)
    return m->args[0];
  cml_expr_key_init (&key, CML_EXPR_MUL);
  key.value = 1.0;
  key.n = m->n;
  key.args = m->args;
  return cml_expr_intern_node (ctx, &key);
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
        term_vec_push (tv, cml_expr_mul_strip_coef (ctx, t), c * t->value);
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
    return cml_expr_mul_coef (ctx, tv->v[0].c, tv->v[0].t);

  args = g_new (CmlExpr *, n);
  coefs = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      args[i] = tv->v[i].t;
      coefs[i] = tv->v[i].c;
    }
  cml_expr_key_init (&key, CML_EXPR_ADD);
  key.value = cst;
  key.n = n;
  key.args = args;
  key.coefs = coefs;
  result = cml_expr_intern_node (ctx, &key);
  g_free (args);
  g_free (coefs);
  return result;
}

/* Σ coefs[i] * terms[i] (coefs may be NULL: all 1). */
CmlExpr *
cml_expr_sum_list (CmlExprCtx     *ctx,
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
  return cml_expr_sum_list (ctx, terms, NULL, n);
}

CmlExpr *
cml_expr_add (CmlExprCtx *ctx,
              CmlExpr    *a,
              CmlExpr    *b)
{
  CmlExpr *t[2] = { a, b };

  g_return_val_if_fail (ctx != NULL && a != NULL && b != NULL, NULL);

  if (cml_expr_is_num_value (b, 0.0))
    return a;
  if (cml_expr_is_num_value (a, 0.0))
    return b;
  if (is_num (a) && is_num (b))
    return cml_expr_num (ctx, a->value + b->value);
  return cml_expr_sum_list (ctx, t, NULL, 2);
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
  if (cml_expr_is_num_value (b, 0.0))
    return a;
  return cml_expr_sum_list (ctx, t, c, 2);
}

/* The lead term of the sum E: the one with the least structural hash, a choice that does
 * not depend on the order in which nodes were created. */
guint
cml_expr_sum_lead (const CmlExpr *e)
{
  guint lead = 0;

  for (guint i = 1; i < e->n; i++)
    if (e->args[i]->shash < e->args[lead]->shash)
      lead = i;
  return lead;
}

/* The sum E divided by C term by term (so that a coefficient equal to C becomes 1). */
CmlExpr *
cml_expr_sum_divide (CmlExprCtx *ctx,
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
gboolean
cml_expr_sum_normalisable (const CmlExpr *e)
{
  double lead = e->coefs[cml_expr_sum_lead (e)];

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

/* Whether C times every coefficient of the sum E, and its constant, is finite and does
 * not vanish where the coefficient did not: only then is c*(a + b) carried into the sum
 * as c*a + c*b.  Otherwise (7*(x − 3.2e307*y), whose 7*3.2e307 overflows) the product
 * stays as written, so that what it prints reads back. */
gboolean
cml_expr_sum_scalable (const CmlExpr *e, double c)
{
  for (guint i = 0; i < e->n; i++)
    {
      double q = c * e->coefs[i];
      if (!isfinite (q) || (q == 0.0 && e->coefs[i] != 0.0))
        return FALSE;
    }
  double q = c * e->value;
  return isfinite (q) && !(q == 0.0 && e->value != 0.0);
}
