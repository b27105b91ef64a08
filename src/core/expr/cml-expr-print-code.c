/* cml-expr-print-code.c — an expression as code for another program: SymPy's Python, or
 * cmlab's own expression language (the syntax of model files), with named shared parts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The text is the node as it is, term by term and factor by factor (no rearranging, so
 * that it evaluates to what cmlab evaluates, up to rounding):
 *   sum      value + Σ c_i a_i   ->  "a_1 - 2*a_2 + 3"   (the constant last)
 *   product  c Π b_j^e_j         ->  "-c*b_1*b_2**3/(b_3*b_4**2)"  (negative numeric
 *                                    exponents in the denominator; "^" in cmlab's syntax)
 *   power    b^0.5 -> sqrt(b), b^e -> b**e, b^-e alone -> 1/b**e
 *   function sp.sin(x), sp.Abs(x), sp.sign(x), sp.atan2(y, x) | sin(x), abs(x), …
 * Numbers read back as the same double: integers as they are, in SymPy a fraction p/q
 * with q <= 12 that rounds to the number as sp.Rational(p, q), else the shortest decimal
 * that reads back (%.15g, %.16g or %.17g), in SymPy as sp.Rational('9.81') (the exact
 * decimal, which rounds to the double); pi as sp.pi / pi.  Integers in SymPy text stay
 * Python integers where they multiply a SymPy object; a number alone is made a SymPy one.
 */
#define G_LOG_DOMAIN "cml-expr-print-code"

#include "cml-expr-print-formats.h"
#include "cml-expr-private.h"

#include <math.h>
#include <string.h>

enum
{
  P_SUM = 1,     /* a + b, and anything that starts with a minus sign */
  P_PRODUCT = 2, /* a*b, a/b */
  P_POWER = 3,   /* a**b */
  P_ATOM = 4,    /* names, numbers, calls, parenthesised */
};

typedef struct
{
  CmlCodeSyntax       syntax;
  const CmlExprNames *names;
  const CmlExpr      *root;
} Code;

static void code_expr (const Code *c, GString *out, const CmlExpr *e, int need);

/* The shortest of %.15g, %.16g, %.17g that reads back as V (finite), into BUF. */
static void
shortest_decimal (char *buf, gsize size, double v)
{
  for (int digits = 15; digits <= 17; digits++)
    {
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, size, fmt, v);
      if (g_ascii_strtod (buf, NULL) == v)
        return;
    }
}

/* The non-negative number V; returns its precedence. */
static int
code_number (const Code *c, GString *out, double v, gboolean alone)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  gboolean sympy = c->syntax == CML_CODE_SYMPY;

  if (isnan (v))
    {
      g_string_append (out, sympy ? "sp.nan" : "nan");
      return P_ATOM;
    }
  if (isinf (v))
    {
      g_string_append (out, sympy ? "sp.oo" : "inf");
      return P_ATOM;
    }
  if (v == floor (v) && v < 1e15)
    {
      g_string_append_printf (out, sympy && alone ? "sp.Integer(%.0f)" : "%.0f", v);
      return P_ATOM;
    }
  if (v == G_PI)
    {
      g_string_append (out, sympy ? "sp.pi" : "pi");
      return P_ATOM;
    }
  if (sympy)
    for (int q = 2; q <= 12; q++)
      {
        double p = nearbyint (v * q);
        if (p >= 1 && p < 1e15 && p / q == v)
          {
            g_string_append_printf (out, "sp.Rational(%.0f, %d)", p, q);
            return P_ATOM;
          }
      }
  shortest_decimal (buf, sizeof buf, v);
  if (sympy)
    g_string_append_printf (out, "sp.Rational('%s')", buf);
  else
    g_string_append (out, buf);
  return P_ATOM;
}

static const char *
func_name (CmlCodeSyntax syntax, CmlFunc fn)
{
  gboolean sympy = syntax == CML_CODE_SYMPY;

  /* every function, no default: one added to the table is a warning here */
  switch (fn)
    {
    case CML_FN_SIN: return sympy ? "sp.sin" : "sin";
    case CML_FN_COS: return sympy ? "sp.cos" : "cos";
    case CML_FN_TAN: return sympy ? "sp.tan" : "tan";
    case CML_FN_ASIN: return sympy ? "sp.asin" : "asin";
    case CML_FN_ACOS: return sympy ? "sp.acos" : "acos";
    case CML_FN_ATAN: return sympy ? "sp.atan" : "atan";
    case CML_FN_SINH: return sympy ? "sp.sinh" : "sinh";
    case CML_FN_COSH: return sympy ? "sp.cosh" : "cosh";
    case CML_FN_TANH: return sympy ? "sp.tanh" : "tanh";
    case CML_FN_EXP: return sympy ? "sp.exp" : "exp";
    case CML_FN_LOG: return sympy ? "sp.log" : "log";
    case CML_FN_SQRT: return sympy ? "sp.sqrt" : "sqrt";
    case CML_FN_ABS: return sympy ? "sp.Abs" : "abs";
    case CML_FN_SIGN: return sympy ? "sp.sign" : "sign";
    case CML_FN_ATAN2: return sympy ? "sp.atan2" : "atan2";
    }
  return "?";
}

static const char *
power_op (const Code *c)
{
  return c->syntax == CML_CODE_SYMPY ? "**" : "^";
}

/* "(" TEXT ")" when the precedence P of TEXT (from START in OUT) is below NEED. */
static void
wrap (GString *out, gsize start, int p, int need)
{
  if (p < need)
    {
      g_string_insert_c (out, (gssize) start, '(');
      g_string_append_c (out, ')');
    }
}

/* B^E for a positive exponent E (a number, or NULL: the expression EXP); returns the
 * precedence. */
static int
code_power (const Code *c, GString *out, const CmlExpr *b, double e, const CmlExpr *exp)
{
  if (exp == NULL && e == 1)
    {
      gsize start = out->len;
      code_expr (c, out, b, P_POWER);
      return out->len > start ? P_POWER : P_ATOM;
    }
  if (exp == NULL && e == 0.5)
    {
      g_string_append_printf (out, "%s(", func_name (c->syntax, CML_FN_SQRT));
      code_expr (c, out, b, 0);
      g_string_append_c (out, ')');
      return P_ATOM;
    }
  code_expr (c, out, b, P_ATOM);
  g_string_append (out, power_op (c));
  if (exp)
    code_expr (c, out, exp, P_ATOM);
  else
    {
      gsize start = out->len;
      int p = code_number (c, out, e, FALSE);
      wrap (out, start, p, P_ATOM);
    }
  return P_POWER;
}

const CmlExpr *
cml_expr_factor_parts (const CmlExpr *f, double *e_num, const CmlExpr **exp)
{
  *exp = NULL;
  *e_num = 1;
  if (f->kind != CML_EXPR_POW)
    return f;
  if (!cml_expr_is_number (f->args[1], e_num))
    *exp = f->args[1];
  return f->args[0];
}

gboolean
cml_expr_factor_is_named (const CmlExprNames *names, const CmlExpr *root, const CmlExpr *f)
{
  return names->shared && f != root && g_hash_table_contains (names->shared, f);
}

gboolean
cml_expr_factor_in_denominator (const CmlExprNames *names, const CmlExpr *root, const CmlExpr *f)
{
  double en;
  const CmlExpr *x;

  cml_expr_factor_parts (f, &en, &x);
  return x == NULL && en < 0 && !cml_expr_factor_is_named (names, root, f);
}

static int
code_product (const Code *c, GString *out, const CmlExpr *e)
{
  double coef = e->value;
  guint n_num = 0, n_den = 0;
  gboolean any = FALSE;

  for (guint k = 0; k < e->n; k++)
    {
      if (cml_expr_factor_in_denominator (c->names, c->root, e->args[k]))
        n_den++;
      else
        n_num++;
    }
  if (coef < 0)
    g_string_append_c (out, '-');
  /* the numerator: the coefficient, then the factors with positive exponents */
  if (fabs (coef) != 1 || n_num == 0)
    {
      code_number (c, out, fabs (coef), FALSE);
      any = TRUE;
    }
  for (guint k = 0; k < e->n; k++)
    {
      double en;
      const CmlExpr *x, *b = cml_expr_factor_parts (e->args[k], &en, &x);
      if (cml_expr_factor_in_denominator (c->names, c->root, e->args[k]))
        continue;
      if (any)
        g_string_append_c (out, '*');
      if (cml_expr_factor_is_named (c->names, c->root, e->args[k]))
        code_expr (c, out, e->args[k], P_PRODUCT);
      else
        {
          gsize start = out->len;
          int p = code_power (c, out, b, en, x);
          wrap (out, start, p, P_PRODUCT);
        }
      any = TRUE;
    }
  /* the denominator */
  if (n_den > 0)
    {
      gsize start;
      g_string_append_c (out, '/');
      start = out->len;
      any = FALSE;
      for (guint k = 0; k < e->n; k++)
        {
          double en;
          const CmlExpr *x, *b = cml_expr_factor_parts (e->args[k], &en, &x);
          gsize fstart = out->len;
          int p;
          if (!cml_expr_factor_in_denominator (c->names, c->root, e->args[k]))
            continue;
          if (any)
            g_string_append_c (out, '*');
          fstart = out->len;
          p = code_power (c, out, b, -en, NULL);
          wrap (out, fstart, p, n_den > 1 ? P_PRODUCT : P_POWER);
          any = TRUE;
        }
      if (n_den > 1)
        wrap (out, start, P_PRODUCT, P_ATOM);
    }
  return coef < 0 ? P_SUM : P_PRODUCT;
}

static int
code_sum (const Code *c, GString *out, const CmlExpr *e)
{
  for (guint k = 0; k < e->n; k++)
    {
      double a = e->coefs[k];
      gboolean neg = a < 0;

      if (k == 0)
        g_string_append (out, neg ? "-" : "");
      else
        g_string_append (out, neg ? " - " : " + ");
      if (fabs (a) != 1)
        {
          code_number (c, out, fabs (a), FALSE);
          g_string_append_c (out, '*');
        }
      code_expr (c, out, e->args[k], P_PRODUCT);
    }
  if (e->value != 0)
    {
      g_string_append (out, e->value < 0 ? " - " : " + ");
      code_number (c, out, fabs (e->value), FALSE);
    }
  return P_SUM;
}

static void
code_expr (const Code *c, GString *out, const CmlExpr *e, int need)
{
  gsize start = out->len;
  int p = P_ATOM;

  if (e != c->root && c->names->shared)
    {
      const char *name = g_hash_table_lookup (c->names->shared, e);
      if (name)
        {
          g_string_append (out, name);
          return;
        }
    }
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      if (e->value < 0 || (e->value == 0 && signbit (e->value)))
        {
          g_string_append_c (out, '-');
          code_number (c, out, -e->value, e == c->root);
          p = P_SUM;
        }
      else
        p = code_number (c, out, e->value, e == c->root);
      break;
    case CML_EXPR_SYM:
      g_string_append (out, c->names->sym_text[e->sym]);
      break;
    case CML_EXPR_ADD:
      p = code_sum (c, out, e);
      break;
    case CML_EXPR_MUL:
      p = code_product (c, out, e);
      break;
    case CML_EXPR_POW:
      {
        double en;
        if (cml_expr_is_number (e->args[1], &en) && en < 0)
          {
            /* b^-e alone: 1/b^e */
            g_string_append (out, "1/");
            gsize fstart = out->len;
            int fp = code_power (c, out, e->args[0], -en, NULL);
            wrap (out, fstart, fp, P_POWER);
            p = P_PRODUCT;
          }
        else if (cml_expr_is_number (e->args[1], &en))
          p = code_power (c, out, e->args[0], en, NULL);
        else
          p = code_power (c, out, e->args[0], 0, e->args[1]);
      }
      break;
    case CML_EXPR_FUNC:
      g_string_append_printf (out, "%s(", func_name (c->syntax, e->fn));
      code_expr (c, out, e->args[0], 0);
      g_string_append_c (out, ')');
      break;
    case CML_EXPR_FUNC2:
      g_string_append_printf (out, "%s(", func_name (c->syntax, e->fn));
      code_expr (c, out, e->args[0], 0);
      g_string_append (out, ", ");
      code_expr (c, out, e->args[1], 0);
      g_string_append_c (out, ')');
      break;
    }
  wrap (out, start, p, need);
}

void
cml_expr_print_code (const CmlExpr *e, CmlCodeSyntax syntax, const CmlExprNames *names,
                     GString *out)
{
  Code c = { syntax, names, e };

  g_return_if_fail (e != NULL && names != NULL && out != NULL);
  code_expr (&c, out, e, 0);
}
