/* cml-expr-print.c — infix text of an expression: the printer, plain (parses back) and,
 * with the pieces of cml-expr-pretty.c, typeset for reading.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Conventions (deterministic; the text parses back to the same node):
 *   - operands are shown in a readable order independent of the order of creation:
 *     symbols by name, then functions, powers, sums; in a sum, higher powers of the
 *     same base first and the constant last; a sum that would start with a minus sign
 *     starts with its first positive term instead ("1 - cos(q)", "y - x");
 *   - a product is "[-][coefficient*]numerator factors[/denominator]" where factors
 *     with negative numeric exponents go to the denominator: "-(a + b)/c", "x/(y*z^2)";
 *   - numbers: integers without a decimal point, pi as "pi"; other numbers as a very
 *     short decimal ("0.5*m*v^2", "x^1.5"), else as a fraction p/q with q <= 12 that
 *     reads back exactly ("x/3", "2*x/3", "x^(1/3)"), else as a decimal of up to 8
 *     characters that reads back exactly ("9.81"), else as a fraction with q <= 1000,
 *     else with %.15g (with every digit, %.17g, inside a product whose reading could
 *     choose another lead for a sum factor and overflow: see product_may_overflow);
 *   - x^0.5 is "sqrt(x)", x^-1 is "1/x".
 *
 * A shared subexpression is printed at every use, so the text of a DAG can be
 * exponentially longer than the DAG; cml_expr_to_string_max () stops after a given length
 * (the derived equations of a small model once printed 4 MB per line).
 *
 * The text of numbers is made in cml-expr-print-number.c, the order of operands in
 * cml-expr-print-order.c.
 */
#define G_LOG_DOMAIN "cml-expr-print"

#include "cml-expr-print-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* ---- printing ------------------------------------------------------------------------- */

void cml_expr_print_expr (Printer *pr, CmlExpr *e, int need);

#define FUNC_TEXT(ARG, NAME, TEXT, ARITY, VALUE) [CML_FN_##NAME] = TEXT,
static const char *const func_text[] = { CML_FUNC_LIST (FUNC_TEXT, 0) };
#undef FUNC_TEXT

const char *
cml_expr_func_name (CmlFunc fn)
{
  return (guint) fn < G_N_ELEMENTS (func_text) ? func_text[fn] : "?";
}

/* The usual names in print: arcsin for asin, ln for the natural logarithm. */
static const char *
pretty_func_name (CmlFunc fn)
{
  switch (fn)
    {
    case CML_FN_ASIN: return "arcsin";
    case CML_FN_ACOS: return "arccos";
    case CML_FN_ATAN: return "arctan";
    case CML_FN_LOG: return "ln";
    case CML_FN_SIN:
    case CML_FN_COS:
    case CML_FN_TAN:
    case CML_FN_SINH:
    case CML_FN_COSH:
    case CML_FN_TANH:
    case CML_FN_EXP:
    case CML_FN_SQRT:
    case CML_FN_ABS:
    case CML_FN_SIGN:
    case CML_FN_ATAN2:
    default: return cml_expr_func_name (fn);
    }
}

static void
append_number_pr (Printer       *pr,
                  const NumText *nt)
{
  if (pr->pretty && g_str_equal (nt->text, "pi") && !nt->rational)
    g_string_append (pr->s, "π");
  else if (pr->pretty && g_str_equal (nt->text, "inf") && !nt->rational)
    g_string_append (pr->s, "∞");
  else
    cml_expr_append_number_text (pr->s, nt);
}

static int
node_prec (const CmlExpr *e)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      {
        NumText nt;

        if (e->value < 0.0)
          return PREC_SUM;
        cml_expr_number_text (e->value, FALSE, &nt);
        return nt.rational && nt.exact_div && nt.q != 1 ? PREC_PRODUCT : PREC_ATOM;
      }
    case CML_EXPR_SYM:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
      return PREC_ATOM;
    case CML_EXPR_POW:
      if (e->args[1]->kind == CML_EXPR_NUM)
        {
          if (e->args[1]->value == 0.5)
            return PREC_ATOM;
          if (e->args[1]->value < 0.0)
            return PREC_PRODUCT;
        }
      return PREC_POWER;
    case CML_EXPR_MUL:
      return e->value < 0.0 ? PREC_SUM : PREC_PRODUCT;
    case CML_EXPR_ADD:
    default:
      return PREC_SUM;
    }
}

/* base^exp with a positive (or symbolic) exponent. */
static void
print_factor (Printer *pr,
              CmlExpr *base,
              CmlExpr *exp)
{
  if (exp == NULL || cml_expr_is_one (exp))
    {
      cml_expr_print_expr (pr, base, PREC_POWER);
      return;
    }
  if (exp->kind == CML_EXPR_NUM && exp->value == 0.5)
    {
      if (pr->pretty && (base->kind == CML_EXPR_SYM || (base->kind == CML_EXPR_NUM && base->value >= 0.0)))
        {
          g_string_append (pr->s, "√");
          cml_expr_print_expr (pr, base, PREC_ATOM);
          return;
        }
      g_string_append (pr->s, pr->pretty ? "√(" : "sqrt(");
      cml_expr_print_expr (pr, base, 0);
      g_string_append_c (pr->s, ')');
      return;
    }
  cml_expr_print_expr (pr, base, PREC_ATOM);
  pr->negate_sum = FALSE;
  pr->sum_scale = 1.0;
  if (pr->pretty && exp->kind == CML_EXPR_NUM && cml_expr_double_is_int (exp->value))
    {
      cml_expr_append_superscript_int (pr->s, (gint64) exp->value);
      return;
    }
  g_string_append_c (pr->s, '^');
  if (exp->kind == CML_EXPR_NUM && exp->value > 0.0)
    {
      NumText nt;

      cml_expr_number_text (exp->value, pr->exact > 0, &nt);
      if (nt.rational && nt.exact_div && nt.q != 1)
        {
          g_string_append_c (pr->s, '(');
          cml_expr_append_number_text (pr->s, &nt);
          g_string_append_c (pr->s, ')');
        }
      else
        cml_expr_append_number_text (pr->s, &nt);
    }
  else
    cml_expr_print_expr (pr, exp, PREC_ATOM);
}

/* TRUE if the sum E reads better negated: more negative terms than positive ones, or as
 * many and its first term in print order is negative ("b - a" is shown as "-(a - b)").
 * The rule is symmetric (exactly one of S and -S prefers negation), so what is shown
 * does not depend on which sign the canonical form picked. */
static gboolean
sum_prefers_negation (Printer *pr,
                      CmlExpr *e)
{
  guint lead = 0;
  int balance = e->value > 0.0 ? 1 : e->value < 0.0 ? -1 : 0;

  for (guint i = 0; i < e->n; i++)
    {
      balance += e->coefs[i] > 0.0 ? 1 : -1;
      if (i > 0 && cml_expr_term_cmp (pr, e->args[i], e->args[lead]) < 0)
        lead = i;
    }
  if (balance != 0)
    return balance < 0;
  return e->coefs[lead] < 0.0;
}

/* A sum raised to an odd integer power (or 1): its sign can move to the coefficient. */
static gboolean
factor_can_negate (const PFactor *f)
{
  double ev = 1.0;

  if (f->base->kind != CML_EXPR_ADD)
    return FALSE;
  if (f->exp != NULL && !cml_expr_is_number (f->exp, &ev))
    return FALSE;
  return cml_expr_double_is_int (ev) && fmod (ev, 2.0) != 0.0;
}

static void
print_factor_maybe_negated (Printer  *pr,
                            CmlExpr  *base,
                            CmlExpr  *exp,
                            gboolean  negate,
                            double    scale)
{
  pr->negate_sum = negate;
  pr->sum_scale = scale;
  print_factor (pr, base, exp);
  pr->negate_sum = FALSE;
  pr->sum_scale = 1.0;
}

/* The factor G > 0 that the sum E, the only sum factor of a product with coefficient
 * COEF, shows outside: sums that are factors are stored primitive (cml-expr-private.h),
 * with the coefficient of a lead term chosen by hash equal to 1, which may not be the
 * nicest: 2*x*(0.5*a + b) is shown as x*(a + 2*b).  G makes every coefficient an
 * integer; it is used only when the text reads back to the same node.  Else 1. */
static gboolean
content_works (const CmlExpr *e,
               guint          hash_lead,
               double         coef,
               double         g)
{
  double r_hash_lead;

  if (!isfinite (g) || g == 0.0)
    return FALSE;
  r_hash_lead = nearbyint (e->coefs[hash_lead] / g);
  if (r_hash_lead == 0.0 || (coef * g) * r_hash_lead != coef)
    return FALSE;
  for (guint i = 0; i <= e->n; i++)
    {
      double c = i < e->n ? e->coefs[i] : e->value;
      double r = nearbyint (c / g);

      if (fabs (r) > 1e15 || r * g != c || r / r_hash_lead != c)
        return FALSE;
    }
  return TRUE;
}

static double
sum_content (Printer *pr,
             CmlExpr *e,
             double   coef)
{
  guint lead = 0, hash_lead = 0;

  for (guint i = 1; i < e->n; i++)
    {
      if (cml_expr_term_cmp (pr, e->args[i], e->args[lead]) < 0)
        lead = i;
      if (e->args[i]->shash < e->args[hash_lead]->shash)
        hash_lead = i;
    }
  /* the first coefficient in print order divided by 1, 2, ... 12: the first that makes
   * all coefficients integers (1 if they are already) */
  for (int k = 1; k <= 12; k++)
    {
      double g = fabs (e->coefs[lead]) / k;

      if (content_works (e, hash_lead, coef, g))
        return g;
    }
  return 1.0;
}

/* Whether BASE^N (N > 0, the counterpart below the bar of BASE^-N) overflows or
 * underflows when it is built: its coefficient to the N, or an exponent times N, is not a
 * finite nonzero number.  The node BASE^-N exists because it did not fold that way; its
 * text "1/BASE^N" would not read back (the parser refuses the overflow), so it keeps its
 * exponent above the bar: "(1.8e-307*x^1.1e+307)^(-70)". */
static gboolean
power_overflows (const CmlExpr *base,
                 double         n)
{
  double v;

  if (base->kind == CML_EXPR_MUL)
    {
      double c = pow (fabs (base->value), n);

      if (!isfinite (c) || c == 0.0)
        return TRUE;
      for (guint i = 0; i < base->n; i++)
        if (power_overflows (base->args[i], n))
          return TRUE;
      return FALSE;
    }
  if (base->kind == CML_EXPR_POW && cml_expr_is_number (base->args[1], &v))
    return !isfinite (v * n) || (v != 0.0 && v * n == 0.0);
  return FALSE;
}

/* Whether COEF * Π F could overflow or vanish when its text is read back: a sum factor
 * (to an integer power N, or 1) is made primitive by the reader, divided by its lead
 * coefficient K, which moves K^N into the coefficient.  Which term leads depends on the
 * exact bits of the numbers inside, and the 15 digits of a rounded number are not all of
 * them: the reading may choose another lead than the node that was printed, one whose
 * power overflows with COEF ("-1.1e308/(x - 0.5*y*(0.318309886183791*z + w)^u)^8", where
 * the reading divides by -0.5: 1.1e308*256).  Then the numbers are written to every
 * digit, so the text reads back to the very node. */
static gboolean
product_may_overflow (double         coef,
                      const PFactor *f,
                      guint          n)
{
  double hi, lo;

  if (coef == 0.0 || !isfinite (coef))
    return FALSE;
  hi = lo = log (fabs (coef));
  for (guint i = 0; i < n; i++)
    {
      const CmlExpr *b = f[i].base;
      double e = 1.0, fhi = 0.0, flo = 0.0;

      if (b->kind != CML_EXPR_ADD)
        continue;
      if (f[i].exp != NULL)
        {
          if (f[i].exp->kind != CML_EXPR_NUM || !cml_expr_double_is_int (f[i].exp->value))
            continue;
          e = f[i].exp->value;
        }
      for (guint k = 0; k < b->n; k++)
        {
          double l = e * log (fabs (b->coefs[k]));

          if (!isfinite (l))
            continue;
          fhi = MAX (fhi, l);
          flo = MIN (flo, l);
        }
      hi += fhi;
      lo += flo;
    }
  /* with a margin for the rounding of the other numbers */
  return hi > log (DBL_MAX) - 1.0 || lo < log (DBL_MIN) + 1.0;
}

/* COEF * Π F, as "[-][c*]num[/den]". */
static void
print_product_text (Printer *pr,
                    double   coef,
                    PFactor *f,
                    guint    n)
{
  GString *s = pr->s;
  NumText nt;
  guint n_num = 0, n_den = 0;
  gboolean first, split;
  gsize prev;
  gboolean *negate = g_newa (gboolean, n + 1);
  gboolean *in_den = g_newa (gboolean, n + 1);
  double *scale = g_newa (double, n + 1);
  guint n_sums = 0, n_num_base = 0;

  /* a lone sum factor shows its coefficients as integers if it can (see sum_content) */
  for (guint i = 0; i < n; i++)
    {
      scale[i] = 1.0;
      if (f[i].exp == NULL && f[i].base->kind == CML_EXPR_ADD)
        n_sums++;
    }
  if (n_sums == 1 && n > 1)
    for (guint i = 0; i < n; i++)
      if (f[i].exp == NULL && f[i].base->kind == CML_EXPR_ADD)
        {
          scale[i] = sum_content (pr, f[i].base, coef);
          coef *= scale[i];
        }

  /* show every sum factor with its first term positive; the signs go to the front */
  for (guint i = 0; i < n; i++)
    {
      negate[i] = factor_can_negate (&f[i]) && sum_prefers_negation (pr, f[i].base);
      if (negate[i])
        coef = -coef;
    }

  if (coef < 0.0)
    {
      cml_expr_append_minus (pr);
      coef = -coef;
    }
  cml_expr_number_text_pr (pr, coef, &nt);

  /* factors with a negative numeric exponent go to the denominator, except most powers
   * of a number: such a factor exists only because it does not fold (0^-1 is inf), but
   * its counterpart in the denominator does (0^2 is 0), and so does its product with any
   * other factor (7*0): "x/(7*0)" would read back as x/0, losing the 7.  A number raised
   * to -1 is safe alone below the bar ("x/0" is x*0^-1); the others stay above it with
   * their exponent ("x*0^(-2)/7", "x*0^(-1)/7"). */
  split = nt.rational && nt.q != 1 && (nt.exact_split || pr->pretty);
  for (guint i = 0; i < n; i++)
    {
      in_den[i] = f[i].exp != NULL && f[i].exp->kind == CML_EXPR_NUM && f[i].exp->value < 0.0
                  && !power_overflows (f[i].base, -f[i].exp->value);
      if (in_den[i] && f[i].base->kind == CML_EXPR_NUM)
        n_num_base++;
    }
  for (guint i = 0; i < n; i++)
    if (in_den[i] && f[i].base->kind == CML_EXPR_NUM)
      {
        gboolean alone = n_num_base == 1 && !split;

        for (guint j = 0; j < n && alone; j++)
          if (j != i && in_den[j])
            alone = FALSE;
        if (!alone || f[i].exp->value != -1.0)
          in_den[i] = FALSE;
      }
  for (guint i = 0; i < n; i++)
    {
      if (in_den[i])
        n_den++;
      else
        n_num++;
    }
  if (split)
    n_den++;

  /* numerator */
  first = TRUE;
  prev = s->len;
  if (!nt.rational || (nt.q != 1 && !split))
    {
      /* "0.123*x", "2/7*x" */
      append_number_pr (pr, &nt);
      first = FALSE;
    }
  else if (nt.p != 1 || n_num == 0)
    {
      cml_expr_append_int (s, nt.p);
      first = FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      gsize at = s->len;

      if (in_den[i])
        continue;
      print_factor_maybe_negated (pr, f[i].base, f[i].exp, negate[i], scale[i]);
      if (!first)
        cml_expr_join_factors (pr, prev, at);
      prev = at;
      first = FALSE;
    }
  if (first)
    g_string_append_c (s, '1');

  /* denominator */
  if (n_den == 0)
    return;
  g_string_append_c (s, '/');
  if (split && !pr->pretty)
    {
      /* "/(q*(a + b)*c)" would read back with q inside the sum: write "/q/((a + b)*c)" */
      gboolean sum_below = FALSE;

      for (guint i = 0; i < n; i++)
        if (f[i].base->kind == CML_EXPR_ADD && in_den[i])
          sum_below = TRUE;
      if (sum_below)
        {
          cml_expr_append_int (s, nt.q);
          g_string_append_c (s, '/');
          split = FALSE;
          n_den--;
        }
    }
  if (n_den > 1)
    g_string_append_c (s, '(');
  first = TRUE;
  prev = s->len;
  if (split)
    {
      cml_expr_append_int (s, nt.q);
      first = FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      double ev;
      gsize at = s->len;

      if (!in_den[i])
        continue;
      ev = f[i].exp->value;
      if (ev == -1.0)
        print_factor_maybe_negated (pr, f[i].base, NULL, negate[i], 1.0);
      else
        {
          CmlExpr neg_exp = *f[i].exp;

          neg_exp.value = -ev;
          print_factor_maybe_negated (pr, f[i].base, &neg_exp, negate[i], 1.0);
        }
      if (!first)
        cml_expr_join_factors (pr, prev, at);
      prev = at;
      first = FALSE;
    }
  if (n_den > 1)
    g_string_append_c (s, ')');
}

static void
print_product (Printer *pr,
               double   coef,
               PFactor *f,
               guint    n)
{
  gboolean exact = !pr->pretty && product_may_overflow (coef, f, n);

  pr->exact += exact;
  print_product_text (pr, coef, f, n);
  pr->exact -= exact;
}

typedef struct
{
  CmlExpr *t; /* NULL: the constant */
  double   c;
} PTerm;

static gint
pterm_cmp_data (gconstpointer a,
                gconstpointer b,
                gpointer      pr)
{
  return cml_expr_term_cmp (pr, ((const PTerm *) a)->t, ((const PTerm *) b)->t);
}

static void
print_sum (Printer *pr,
           CmlExpr *e)
{
  PTerm *items = g_new (PTerm, e->n + 1);
  guint n = 0;
  double sign = (pr->negate_sum ? -1.0 : 1.0) / pr->sum_scale;

  pr->negate_sum = FALSE;
  pr->sum_scale = 1.0;
  for (guint i = 0; i < e->n; i++)
    {
      items[n].t = e->args[i];
      items[n].c = sign * e->coefs[i];
      n++;
    }
  /* in print order; a merge sort, as sums can be long (thousands of terms) */
  if (n > 1)
    g_qsort_with_data (items, (gint) n, sizeof (PTerm), pterm_cmp_data, pr);
  if (e->value != 0.0)
    {
      items[n].t = NULL;
      items[n].c = sign * e->value;
      n++;
    }

  /* start with a positive term if there is one */
  if (items[0].c < 0.0)
    for (guint i = 1; i < n; i++)
      if (items[i].c > 0.0)
        {
          PTerm x = items[i];

          memmove (&items[1], &items[0], i * sizeof (PTerm));
          items[0] = x;
          break;
        }

  for (guint i = 0; i < n && !pr->over; i++)
    {
      double c = items[i].c;
      gsize at = pr->s->len, mlen;
      gboolean neg = c < 0.0;

      /* the term first: its product may itself begin with a minus (a sum factor printed
       * with its sign turned), which then joins the connector's sign */
      if (items[i].t == NULL)
        {
          NumText nt;

          cml_expr_number_text_pr (pr, fabs (c), &nt);
          append_number_pr (pr, &nt);
        }
      else
        {
          guint nf;
          PFactor *f = cml_expr_get_factors (pr, items[i].t, &nf);

          print_product (pr, fabs (c), f, nf);
          g_free (f);
        }
      if (at < pr->s->len && cml_expr_starts_with_minus (pr->s->str + at, &mlen))
        {
          g_string_erase (pr->s, at, mlen);
          neg = !neg;
        }
      if (pr->pretty)
        g_string_insert (pr->s, at, i == 0 ? (neg ? MINUS : "") : (neg ? " " MINUS " " : " + "));
      else
        g_string_insert (pr->s, at, i == 0 ? (neg ? "-" : "") : (neg ? " - " : " + "));
    }
  g_free (items);
}

static void
print_body (Printer *pr,
            CmlExpr *e)
{
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      {
        NumText nt;

        if (e->value < 0.0)
          cml_expr_append_minus (pr);
        cml_expr_number_text_pr (pr, fabs (e->value), &nt);
        append_number_pr (pr, &nt);
      }
      break;

    case CML_EXPR_SYM:
      if (pr->pretty)
        cml_expr_append_pretty_name (pr->s, cml_expr_ctx_symbol_name (pr->ctx, e->sym), FALSE);
      else
        g_string_append (pr->s, cml_expr_ctx_symbol_name (pr->ctx, e->sym));
      break;

    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
      if (pr->pretty && e->fn == CML_FN_ABS)
        {
          g_string_append_c (pr->s, '|');
          cml_expr_print_expr (pr, e->args[0], 0);
          g_string_append_c (pr->s, '|');
          break;
        }
      g_string_append (pr->s, pr->pretty ? pretty_func_name ((CmlFunc) e->fn) : cml_expr_func_name ((CmlFunc) e->fn));
      g_string_append_c (pr->s, '(');
      for (guint i = 0; i < e->n; i++)
        {
          if (i > 0)
            g_string_append (pr->s, ", ");
          cml_expr_print_expr (pr, e->args[i], 0);
        }
      g_string_append_c (pr->s, ')');
      break;

    case CML_EXPR_POW:
      {
        PFactor f;

        cml_expr_pfactor_split (e, &f);
        print_product (pr, 1.0, &f, 1);
      }
      break;

    case CML_EXPR_MUL:
      {
        guint n;
        PFactor *f = cml_expr_get_factors (pr, e, &n);

        print_product (pr, e->value, f, n);
        g_free (f);
      }
      break;

    case CML_EXPR_ADD:
      print_sum (pr, e);
      break;

    default:
      g_assert_not_reached ();
    }
}

void
cml_expr_print_expr (Printer *pr,
            CmlExpr *e,
            int      need)
{
  if (pr->s->len > pr->max_len)
    pr->over = TRUE;
  if (pr->over)
    return;
  if (node_prec (e) < need)
    {
      g_string_append_c (pr->s, '(');
      print_body (pr, e);
      g_string_append_c (pr->s, ')');
    }
  else
    print_body (pr, e);
}

/* ---- an estimate of the length ---------------------------------------------------- */

static double
number_length (double v)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (text, sizeof text, "%.15g", fabs (v));
  return (double) strlen (text) + (v < 0.0);
}

/* About how long the text of E is: every node at every use, with its operators and
 * numbers but not all of its parentheses (memoised per node; a double, as the length of
 * a DAG's text can exceed any integer). */
static double
estimate_length (const CmlExprCtx *ctx,
                 const CmlExpr    *e,
                 GHashTable       *memo)
{
  double *cached, len = 0.0;

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      return number_length (e->value);
    case CML_EXPR_SYM:
      return (double) strlen (cml_expr_ctx_symbol_name (ctx, e->sym));
    case CML_EXPR_ADD:
    case CML_EXPR_MUL:
    case CML_EXPR_POW:
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2:
    default:
      break;
    }
  cached = g_hash_table_lookup (memo, e);
  if (cached != NULL)
    return *cached;

  for (guint i = 0; i < e->n; i++)
    len += estimate_length (ctx, e->args[i], memo);
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_ADD: /* " + c*term" */
      for (guint i = 0; i < e->n; i++)
        len += 3.0 + (fabs (e->coefs[i]) != 1.0 ? number_length (e->coefs[i]) + 1.0 : 0.0);
      if (e->value != 0.0)
        len += 3.0 + number_length (e->value);
      break;
    case CML_EXPR_MUL: /* "c*f*g", parentheses around sums */
      len += e->n - 1 + (fabs (e->value) != 1.0 ? number_length (e->value) + 1.0 : 0.0);
      for (guint i = 0; i < e->n; i++)
        if (cml_expr_factor_base (e->args[i])->kind == CML_EXPR_ADD)
          len += 2.0;
      break;
    case CML_EXPR_POW: /* "(b)^e" */
      len += 1.0 + (e->args[0]->kind == CML_EXPR_ADD ? 2.0 : 0.0);
      break;
    case CML_EXPR_FUNC:
    case CML_EXPR_FUNC2: /* "sin(a)", "atan2(a, b)" */
      len += strlen (cml_expr_func_name ((CmlFunc) e->fn)) + 2.0 + 2.0 * (e->n - 1);
      break;
    case CML_EXPR_NUM:
    case CML_EXPR_SYM:
    default:
      break;
    }
  cached = g_new (double, 1);
  *cached = len;
  g_hash_table_insert (memo, (gpointer) e, cached);
  return len;
}

/* ---- entry points --------------------------------------------------------------------- */

char *
cml_expr_to_string (const CmlExprCtx *ctx,
                    const CmlExpr    *e)
{
  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);

  return cml_expr_to_string_max (ctx, e, G_MAXSIZE);
}

/* TEXT (of E, printed until it passed MAX_CHARS) cut at MAX_CHARS, never inside a
 * character, with how much is missing: the rest was never printed, so its length is
 * estimated.  Frees TEXT's GString and returns its characters. */
char *
cml_expr_cut_text (const CmlExprCtx *ctx, const CmlExpr *e, GString *text, gsize max_chars)
{
  gsize cut = MIN (max_chars, text->len);
  GHashTable *memo = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  double more;

  while (cut > 0 && (text->str[cut] & 0xc0) == 0x80)
    cut--;
  more = estimate_length (ctx, (CmlExpr *) e, memo) - (double) cut;
  g_hash_table_unref (memo);
  more = MAX (more, (double) (text->len - cut));
  g_string_truncate (text, cut);
  g_string_append_printf (text, "… (about %.0f more characters)", more);
  return g_string_free (text, FALSE);
}

char *
cml_expr_to_string_max (const CmlExprCtx *ctx,
                        const CmlExpr    *e,
                        gsize             max_chars)
{
  Printer pr = { 0 };

  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);

  pr.ctx = ctx;
  pr.s = g_string_new (NULL);
  pr.negate_sum = FALSE;
  pr.sum_scale = 1.0;
  pr.max_len = max_chars;
  pr.over = FALSE;
  pr.pretty = FALSE;
  cml_expr_print_expr (&pr, (CmlExpr *) e, 0);
  if (!pr.over && pr.s->len <= max_chars)
    return g_string_free (pr.s, FALSE);

  return cml_expr_cut_text (ctx, e, pr.s, max_chars);
}
