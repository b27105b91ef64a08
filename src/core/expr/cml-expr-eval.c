/* cml-expr-eval.c — numerical evaluation of an expression tree at values of its symbols
 * (libm's results for every function; shared subexpressions memoised on large trees).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"

#include <math.h>
#include <string.h>

/* ---- evaluation ----------------------------------------------------------------------- */

static inline double
eval_func (CmlFunc fn,
           double  a)
{
  return fn == CML_FN_ATAN2 ? NAN : cml_func_value (fn, a, 0);
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
      r = cml_func_value (CML_FN_ATAN2, eval_rec (e->args[0], d), eval_rec (e->args[1], d));
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
