/* cml-expr-print-latex.c — an expression as LaTeX math (amsmath), with named shared parts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The node as it is, as cml-expr-print-code.c writes it, typeset:
 *   sum      "a_1 - 2 a_2 + 3"                 (the constant last)
 *   product  "-\frac{c\, b_1 b_2^{3}}{b_3 b_4^{2}}" (negative numeric exponents below)
 *   power    b^{e}, \sqrt{b}; a base that is not a name, a number or a call in
 *            \left( \right)
 *   function \sin\left(x\right), \left|x\right|, \operatorname{sign}\left(x\right),
 *            \operatorname{atan2}\left(y, x\right)
 * Numbers: integers; a fraction p/q with q <= 12 that rounds to the number as \frac{p}{q};
 * pi as \pi; else the shortest decimal that reads back, 1.5e-10 as 1.5 \cdot 10^{-10}.
 * Products are written by juxtaposition, with "\," between a number and what follows and
 * "\cdot" between two numbers.
 */
#define G_LOG_DOMAIN "cml-expr-print-latex"

#include "cml-expr-print-formats.h"
#include "cml-expr-private.h"

#include <math.h>
#include <string.h>

enum
{
  P_SUM = 1,
  P_PRODUCT = 2,
  P_POWER = 3,
  P_ATOM = 4,
};

typedef struct
{
  const CmlExprNames *names;
  const CmlExpr      *root;
} Tex;

static int tex_expr (const Tex *x, GString *out, const CmlExpr *e, int need);

static const char *const greek[] = {
  "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
  "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
  "omega", "Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi",
  "Omega", "varphi", "vartheta", "varepsilon",
};

/* WORD (LEN bytes) as a symbol: a Greek letter, one letter, or an upright word. */
static void
append_word (GString *s, const char *word, gsize len)
{
  for (guint k = 0; k < G_N_ELEMENTS (greek); k++)
    if (strlen (greek[k]) == len && strncmp (greek[k], word, len) == 0)
      {
        g_string_append_printf (s, "\\%s", greek[k]);
        return;
      }
  if (len == 1)
    {
      g_string_append_len (s, word, (gssize) len);
      return;
    }
  g_string_append (s, "\\mathrm{");
  for (gsize k = 0; k < len; k++)
    {
      if (word[k] == '_')
        g_string_append (s, "\\_");
      else
        g_string_append_c (s, word[k]);
    }
  g_string_append_c (s, '}');
}

char *
cml_expr_latex_name (const char *name)
{
  GString *s = g_string_new (NULL);
  const char *under = strchr (name, '_');
  gsize len = strlen (name), head = len;

  g_return_val_if_fail (name != NULL, NULL);
  if (under && under > name && under[1] != '\0')
    head = (gsize) (under - name);
  else
    while (head > 1 && g_ascii_isdigit (name[head - 1]))
      head--;
  append_word (s, name, head);
  if (head < len)
    {
      const char *sub = name + head + (name[head] == '_' ? 1 : 0);
      g_string_append (s, "_{");
      gboolean digits_only = TRUE;
      for (const char *p = sub; *p; p++)
        digits_only &= g_ascii_isdigit (*p) != 0;
      if (digits_only)
        g_string_append (s, sub);
      else if (strchr (sub, '_') || !g_ascii_isalpha (sub[0]))
        append_word (s, sub, strlen (sub));
      else
        {
          /* lambda_c -> \lambda_{c}, omega_bar -> \omega_{\mathrm{bar}}, q_1 -> q_{1} */
          gsize digits = strlen (sub);
          while (digits > 1 && g_ascii_isdigit (sub[digits - 1]))
            digits--;
          append_word (s, sub, digits);
          g_string_append (s, sub + digits);
        }
      g_string_append_c (s, '}');
    }
  return g_string_free (s, FALSE);
}

/* The non-negative number V. */
static int
tex_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char *e;

  if (isnan (v))
    {
      g_string_append (out, "\\mathrm{NaN}");
      return P_ATOM;
    }
  if (isinf (v))
    {
      g_string_append (out, "\\infty");
      return P_ATOM;
    }
  if (v == floor (v) && v < 1e15)
    {
      g_string_append_printf (out, "%.0f", v);
      return P_ATOM;
    }
  if (v == G_PI)
    {
      g_string_append (out, "\\pi");
      return P_ATOM;
    }
  for (int q = 2; q <= 12; q++)
    {
      double p = nearbyint (v * q);
      if (p >= 1 && p < 1e15 && p / q == v)
        {
          g_string_append_printf (out, "\\frac{%.0f}{%d}", p, q);
          return P_ATOM;
        }
    }
  for (int digits = 15; digits <= 17; digits++)
    {
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  e = strchr (buf, 'e');
  if (e == NULL)
    {
      g_string_append (out, buf);
      return P_ATOM;
    }
  *e = '\0';
  g_string_append_printf (out, "%s \\cdot 10^{%d}", buf, atoi (e + 1));
  return P_PRODUCT;
}

static const char *
func_name (CmlFunc fn)
{
  switch (fn)
    {
    case CML_FN_SIN: return "\\sin";
    case CML_FN_COS: return "\\cos";
    case CML_FN_TAN: return "\\tan";
    case CML_FN_ASIN: return "\\arcsin";
    case CML_FN_ACOS: return "\\arccos";
    case CML_FN_ATAN: return "\\arctan";
    case CML_FN_SINH: return "\\sinh";
    case CML_FN_COSH: return "\\cosh";
    case CML_FN_TANH: return "\\tanh";
    case CML_FN_EXP: return "\\exp";
    case CML_FN_LOG: return "\\log";
    case CML_FN_SQRT: return "\\sqrt";
    case CML_FN_ABS: return "\\operatorname{abs}";
    case CML_FN_SIGN: return "\\operatorname{sign}";
    case CML_FN_ATAN2: return "\\operatorname{atan2}";
    }
  return "?";
}

static void
wrap (GString *out, gsize start, int p, int need)
{
  if (p < need)
    {
      g_string_insert (out, (gssize) start, "\\left(");
      g_string_append (out, "\\right)");
    }
}

/* B^E (E > 0 a number, or the expression EXP). */
static int
tex_power (const Tex *x, GString *out, const CmlExpr *b, double e, const CmlExpr *exp)
{
  if (exp == NULL && e == 1)
    return tex_expr (x, out, b, P_POWER);
  if (exp == NULL && e == 0.5)
    {
      g_string_append (out, "\\sqrt{");
      tex_expr (x, out, b, 0);
      g_string_append_c (out, '}');
      return P_ATOM;
    }
  /* a base with a subscript or a call is braced so that the power reads after it */
  g_string_append_c (out, '{');
  tex_expr (x, out, b, P_ATOM);
  g_string_append (out, "}^{");
  if (exp)
    tex_expr (x, out, exp, 0);
  else
    tex_number (out, e);
  g_string_append_c (out, '}');
  return P_POWER;
}

/* The factors of E with positive (DEN FALSE) or negative numeric exponents (DEN TRUE),
 * by juxtaposition; NUMBER_BEFORE: a number was written just before; IN_FRAC: they are
 * the numerator or the denominator of a \frac, where a lone sum needs no parentheses. */
static guint
tex_factors (const Tex *x, GString *out, const CmlExpr *e, gboolean den, gboolean number_before,
             gboolean in_frac)
{
  guint n = 0;
  gboolean single = TRUE;

  for (guint k = 0; k < e->n; k++)
    if (cml_expr_factor_in_denominator (x->names, x->root, e->args[k]) == den)
      n++;
  single = n == 1;
  for (guint k = 0, i = 0; k < e->n; k++)
    {
      double en;
      const CmlExpr *xp, *b = cml_expr_factor_parts (e->args[k], &en, &xp);
      gsize start;
      int p;
      if (cml_expr_factor_in_denominator (x->names, x->root, e->args[k]) != den)
        continue;
      if (i > 0 || number_before)
        g_string_append (out, i == 0 ? "\\," : " ");
      start = out->len;
      /* a sum among other factors is in parentheses; a lone one is not (in \frac) */
      int need = single && !number_before && in_frac ? 0 : P_PRODUCT;
      if (cml_expr_factor_is_named (x->names, x->root, e->args[k]))
        p = tex_expr (x, out, e->args[k], need);
      else if (xp == NULL && fabs (en) == 1)
        p = tex_expr (x, out, b, need);
      else
        p = tex_power (x, out, b, den ? -en : en, xp);
      wrap (out, start, p, need);
      i++;
    }
  return n;
}

static int
tex_product (const Tex *x, GString *out, const CmlExpr *e)
{
  double coef = fabs (e->value);
  guint n_den = 0;

  for (guint k = 0; k < e->n; k++)
    if (cml_expr_factor_in_denominator (x->names, x->root, e->args[k]))
      n_den++;
  if (e->value < 0)
    g_string_append_c (out, '-');
  if (n_den > 0)
    g_string_append (out, "\\frac{");
  gboolean number = coef != 1 || n_den == e->n;
  if (number)
    tex_number (out, coef);
  tex_factors (x, out, e, FALSE, number, n_den > 0);
  if (n_den > 0)
    {
      g_string_append (out, "}{");
      tex_factors (x, out, e, TRUE, FALSE, TRUE);
      g_string_append_c (out, '}');
    }
  return e->value < 0 ? P_SUM : n_den > 0 ? P_ATOM : P_PRODUCT;
}

static int
tex_sum (const Tex *x, GString *out, const CmlExpr *e)
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
          gsize start = out->len;
          int p = tex_number (out, fabs (a));
          wrap (out, start, p, P_PRODUCT);
          g_string_append (out, "\\,");
        }
      tex_expr (x, out, e->args[k], P_PRODUCT);
    }
  if (e->value != 0)
    {
      g_string_append (out, e->value < 0 ? " - " : " + ");
      tex_number (out, fabs (e->value));
    }
  return P_SUM;
}

static int
tex_expr (const Tex *x, GString *out, const CmlExpr *e, int need)
{
  gsize start = out->len;
  int p = P_ATOM;

  if (e != x->root && x->names->shared)
    {
      const char *name = g_hash_table_lookup (x->names->shared, e);
      if (name)
        {
          g_string_append (out, name);
          return P_ATOM;
        }
    }
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      if (e->value < 0)
        {
          g_string_append_c (out, '-');
          tex_number (out, -e->value);
          p = P_SUM;
        }
      else
        p = tex_number (out, e->value);
      break;
    case CML_EXPR_SYM:
      g_string_append (out, x->names->sym_text[e->sym]);
      break;
    case CML_EXPR_ADD:
      p = tex_sum (x, out, e);
      break;
    case CML_EXPR_MUL:
      p = tex_product (x, out, e);
      break;
    case CML_EXPR_POW:
      {
        double en;
        if (cml_expr_is_number (e->args[1], &en) && en < 0)
          {
            g_string_append (out, "\\frac{1}{");
            if (en == -1)
              tex_expr (x, out, e->args[0], 0);
            else
              tex_power (x, out, e->args[0], -en, NULL);
            g_string_append_c (out, '}');
          }
        else if (cml_expr_is_number (e->args[1], &en))
          p = tex_power (x, out, e->args[0], en, NULL);
        else
          p = tex_power (x, out, e->args[0], 0, e->args[1]);
      }
      break;
    case CML_EXPR_FUNC:
      if (e->fn == CML_FN_SQRT)
        {
          g_string_append (out, "\\sqrt{");
          tex_expr (x, out, e->args[0], 0);
          g_string_append_c (out, '}');
        }
      else if (e->fn == CML_FN_ABS)
        {
          g_string_append (out, "\\left|");
          tex_expr (x, out, e->args[0], 0);
          g_string_append (out, "\\right|");
        }
      else
        {
          g_string_append_printf (out, "%s\\left(", func_name (e->fn));
          tex_expr (x, out, e->args[0], 0);
          g_string_append (out, "\\right)");
        }
      break;
    case CML_EXPR_FUNC2:
      g_string_append_printf (out, "%s\\left(", func_name (e->fn));
      tex_expr (x, out, e->args[0], 0);
      g_string_append (out, ", ");
      tex_expr (x, out, e->args[1], 0);
      g_string_append (out, "\\right)");
      break;
    }
  wrap (out, start, p, need);
  return MAX (p, need);
}

void
cml_expr_print_latex (const CmlExpr *e, const CmlExprNames *names, GString *out)
{
  Tex x = { names, e };

  g_return_if_fail (e != NULL && names != NULL && out != NULL);
  tex_expr (&x, out, e, 0);
}
