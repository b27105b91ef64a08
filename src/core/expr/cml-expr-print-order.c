/* cml-expr-print-order.c — the order in which the printer shows operands, independent of
 * the order of creation: symbols by name, then functions, powers, sums; in a sum, higher
 * powers of the same base first and the constant last; a product's factors split into
 * base and exponent and sorted the same way (the conventions at the top of
 * cml-expr-print.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr-print"

#include "cml-expr-print-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
kind_rank (const CmlExpr *e)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_SYM: return 0;
    case CML_EXPR_FUNC: return 1;
    case CML_EXPR_FUNC2: return 2;
    case CML_EXPR_POW: return 3;
    case CML_EXPR_MUL: return 4;
    case CML_EXPR_ADD: return 5;
    case CML_EXPR_NUM:
    default: return 6;
    }
}

static int
double_cmp (double a,
            double b)
{
  return a < b ? -1 : a > b;
}

static int
base_cmp (Printer *pr,
          CmlExpr *a,
          CmlExpr *b)
{
  int c;

  if (a == b)
    return 0;
  c = kind_rank (a) - kind_rank (b);
  if (c != 0)
    return c;

  switch ((CmlExprKind) a->kind)
    {
    case CML_EXPR_SYM:
      c = strcmp (cml_expr_ctx_symbol_name (pr->ctx, a->sym),
                  cml_expr_ctx_symbol_name (pr->ctx, b->sym));
      break;
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
      c = (int) a->fn - (int) b->fn;
      for (guint i = 0; c == 0 && i < a->n; i++)
        c = cml_expr_term_cmp (pr, a->args[i], b->args[i]);
      break;
    case CML_EXPR_POW:
    case CML_EXPR_MUL:
      c = cml_expr_term_cmp (pr, a, b);
      break;
    case CML_EXPR_ADD:
      for (guint i = 0; c == 0 && i < MIN (a->n, b->n); i++)
        {
          c = cml_expr_term_cmp (pr, a->args[i], b->args[i]);
          if (c == 0)
            c = double_cmp (fabs (b->coefs[i]), fabs (a->coefs[i]));
        }
      if (c == 0)
        c = (int) a->n - (int) b->n;
      if (c == 0)
        c = double_cmp (a->value, b->value);
      break;
    case CML_EXPR_NUM:
    default:
      c = double_cmp (a->value, b->value);
      break;
    }
  if (c == 0)
    c = a->id < b->id ? -1 : a->id > b->id;
  return c;
}

/* Higher numeric exponents first, then symbolic ones. */
static int
exp_cmp (Printer *pr,
         CmlExpr *a,
         CmlExpr *b)
{
  double va = 1.0, vb = 1.0;
  gboolean na = a == NULL || cml_expr_is_number (a, &va);
  gboolean nb = b == NULL || cml_expr_is_number (b, &vb);

  if (na && nb)
    return double_cmp (vb, va);
  if (na != nb)
    return na ? -1 : 1;
  return cml_expr_term_cmp (pr, a, b);
}

static int
pfactor_cmp (Printer       *pr,
             const PFactor *a,
             const PFactor *b)
{
  int c = base_cmp (pr, a->base, b->base);

  return c != 0 ? c : exp_cmp (pr, a->exp, b->exp);
}

static gint
pfactor_cmp_data (gconstpointer a,
                  gconstpointer b,
                  gpointer      pr)
{
  return pfactor_cmp (pr, a, b);
}

static void
pfactor_sort (Printer *pr,
              PFactor *f,
              guint    n)
{
  /* a merge sort (stable; the order is total anyway): products can be long */
  if (n > 1)
    g_qsort_with_data (f, (gint) n, sizeof (PFactor), pfactor_cmp_data, pr);
}

void
cml_expr_pfactor_split (CmlExpr *f,
               PFactor *out)
{
  if (f->kind == CML_EXPR_POW)
    {
      out->base = f->args[0];
      out->exp = f->args[1];
    }
  else
    {
      out->base = f;
      out->exp = NULL;
    }
}

/* The factors of the monomial E (a product's coefficient is not included). */
PFactor *
cml_expr_get_factors (Printer *pr,
             CmlExpr *e,
             guint   *n)
{
  PFactor *f;

  if (e->kind == CML_EXPR_MUL)
    {
      f = g_new (PFactor, e->n);
      for (guint i = 0; i < e->n; i++)
        cml_expr_pfactor_split (e->args[i], &f[i]);
      *n = e->n;
    }
  else
    {
      f = g_new (PFactor, 1);
      cml_expr_pfactor_split (e, &f[0]);
      *n = 1;
    }
  pfactor_sort (pr, f, *n);
  return f;
}

int
cml_expr_term_cmp (Printer *pr,
          CmlExpr *a,
          CmlExpr *b)
{
  PFactor *fa, *fb;
  guint na, nb;
  int c = 0;

  if (a == b)
    return 0;
  if (a->kind == CML_EXPR_NUM || b->kind == CML_EXPR_NUM)
    return base_cmp (pr, a, b);

  fa = cml_expr_get_factors (pr, a, &na);
  fb = cml_expr_get_factors (pr, b, &nb);
  for (guint i = 0; c == 0 && i < MIN (na, nb); i++)
    c = pfactor_cmp (pr, &fa[i], &fb[i]);
  if (c == 0)
    c = (int) na - (int) nb;
  if (c == 0 && a->kind == CML_EXPR_MUL && b->kind == CML_EXPR_MUL)
    c = double_cmp (fabs (a->value), fabs (b->value));
  if (c == 0)
    c = a->id < b->id ? -1 : a->id > b->id;
  g_free (fa);
  g_free (fb);
  return c;
}
