/* cml-expr-parse.c — the parser of expression text: tokens, precedence (sums, products,
 * unary minus, powers, calls), known functions, errors with their column.  The model
 * files' expressions all go through it (tests/fuzz/fuzz-expr.c fuzzes it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"
#include "cml-error.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PARSE_MAX_DEPTH  500

/* ---- parser --------------------------------------------------------------------------- */

typedef enum
{
  TOK_END,
  TOK_NUM,
  TOK_IDENT,
  TOK_OP,
} TokKind;

typedef struct
{
  CmlExprCtx *ctx;
  const char *text;
  const char *pos;        /* after the current token */
  TokKind     tok;
  const char *tok_start;
  gsize       tok_len;
  double      tok_value;
  int         depth;
  gboolean    failed;
  GError    **error;
  int        *error_column;
} Parser;

typedef struct
{
  const char *name;
  CmlFunc     fn;
  int         arity;
} FuncName;

#define FUNC_NAME(ARG, NAME, TEXT, ARITY, VALUE) { TEXT, CML_FN_##NAME, ARITY },
static const FuncName func_names[] = {
  CML_FUNC_LIST (FUNC_NAME, 0)
  /* pow (b, x) is written b^x (the fn is not used) */
  { "pow", CML_FN_ATAN2, 2 },
};
#undef FUNC_NAME

static const FuncName *
find_func (const char *name,
           gsize       len)
{
  for (guint i = 0; i < G_N_ELEMENTS (func_names); i++)
    if (strlen (func_names[i].name) == len && strncmp (func_names[i].name, name, len) == 0)
      return &func_names[i];
  return NULL;
}

static void parser_fail (Parser *p, int code, const char *at, const char *format, ...) G_GNUC_PRINTF (4, 5);

static void
parser_fail (Parser     *p,
             int         code,
             const char *at,
             const char *format,
             ...)
{
  va_list args;
  char *message;

  if (p->failed)
    return;
  p->failed = TRUE;
  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (p->error_column != NULL)
    *p->error_column = (int) (at - p->text) + 1;
  g_set_error_literal (p->error, CML_ERROR, code, message);
  g_free (message);
}

static inline gboolean
is_ident_start (char c)
{
  return g_ascii_isalpha (c) || c == '_';
}

static inline gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Reads the next token; FALSE (with the error set) on a lexical error. */
static gboolean
parser_next (Parser *p)
{
  const char *s = p->pos;

  while (g_ascii_isspace (*s))
    s++;
  p->tok_start = s;

  if (*s == '\0')
    {
      p->tok = TOK_END;
      p->tok_len = 0;
      p->pos = s;
      return TRUE;
    }

  if (g_ascii_isdigit (*s) || (*s == '.' && g_ascii_isdigit (s[1])))
    {
      /* digits [. digits] [e [+-] digits]; anything alphanumeric glued on is an error */
      const char *q = s;
      gboolean ok = TRUE;

      while (g_ascii_isdigit (*q))
        q++;
      if (*q == '.')
        {
          q++;
          while (g_ascii_isdigit (*q))
            q++;
        }
      if (*q == 'e' || *q == 'E')
        {
          q++;
          if (*q == '+' || *q == '-')
            q++;
          if (!g_ascii_isdigit (*q))
            ok = FALSE;
          while (g_ascii_isdigit (*q))
            q++;
        }
      while (is_ident_char (*q) || *q == '.')
        {
          ok = FALSE;
          q++;
        }
      if (ok)
        {
          p->tok_value = g_ascii_strtod (s, NULL);
          ok = isfinite (p->tok_value);
        }
      if (!ok)
        {
          parser_fail (p, CML_ERROR_PARSE, s, _("invalid number '%.*s'"), (int) (q - s), s);
          return FALSE;
        }
      p->tok = TOK_NUM;
      p->tok_len = q - s;
      p->pos = q;
      return TRUE;
    }

  if (is_ident_start (*s))
    {
      const char *q = s;

      while (is_ident_char (*q))
        q++;
      p->tok = TOK_IDENT;
      p->tok_len = q - s;
      p->pos = q;
      return TRUE;
    }

  if (strchr ("+-*/^(),", *s) != NULL)
    {
      p->tok = TOK_OP;
      p->tok_len = 1;
      p->pos = s + 1;
      return TRUE;
    }

  {
    /* show a whole UTF-8 character */
    const char *end = g_utf8_find_next_char (s, NULL);
    int len = end != NULL && g_utf8_validate (s, end - s, NULL) ? (int) (end - s) : 1;

    parser_fail (p, CML_ERROR_PARSE, s, _("unexpected character '%.*s'"), len, s);
  }
  return FALSE;
}

static inline gboolean
tok_is (const Parser *p,
        char          op)
{
  return p->tok == TOK_OP && *p->tok_start == op;
}

/* Reports the current token as unexpected. */
static void
parser_unexpected (Parser *p)
{
  if (p->tok == TOK_END)
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, _("unexpected end of expression"));
  else
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, _("unexpected '%.*s'"), (int) p->tok_len,
                 p->tok_start);
}

/* Expects ')' closing a group. */
static gboolean
parser_close (Parser *p)
{
  if (tok_is (p, ')'))
    return parser_next (p);
  if (p->tok == TOK_END)
    parser_fail (p, CML_ERROR_PARSE, p->tok_start, _("missing ')'"));
  else
    parser_unexpected (p);
  return FALSE;
}

/* Fails at AT, with the message WHAT, unless the context's count of non-finite constants
 * is still N_NONFINITE: building the expression that starts at AT made a number overflow
 * ("1e200*x*1e200" would hold the coefficient inf, which means nothing and prints as text
 * that does not parse). */
static gboolean
parser_check_finite (Parser     *p,
                     guint64     n_nonfinite,
                     const char *at,
                     const char *what)
{
  if (p->ctx->n_nonfinite == n_nonfinite)
    return TRUE;
  parser_fail (p, CML_ERROR_PARSE, at, "%s", what);
  return FALSE;
}

static CmlExpr *parse_sum (Parser *p);
static CmlExpr *parse_unary (Parser *p);

static CmlExpr *
parse_call (Parser         *p,
            const FuncName *f,
            const char     *name_start)
{
  CmlExpr *args[8];
  int n_args = 0;

  if (!parser_next (p))
    return NULL;
  if (!tok_is (p, '('))
    {
      parser_fail (p, CML_ERROR_PARSE, p->tok_start, _("missing '(' after '%s'"), f->name);
      return NULL;
    }
  if (!parser_next (p))
    return NULL;
  if (!tok_is (p, ')'))
    {
      for (;;)
        {
          CmlExpr *a = parse_sum (p);

          if (a == NULL)
            return NULL;
          if (n_args < (int) G_N_ELEMENTS (args))
            args[n_args] = a;
          n_args++;
          if (!tok_is (p, ','))
            break;
          if (!parser_next (p))
            return NULL;
        }
    }
  if (!parser_close (p))
    return NULL;

  if (n_args != f->arity)
    {
      /* TRANSLATORS: a function (sin, pow…), how many arguments it takes, how many it was given */
      parser_fail (p, CML_ERROR_ARITY, name_start,
                   ngettext ("%s takes %d argument, got %d", "%s takes %d arguments, got %d", f->arity), f->name,
                   f->arity, n_args);
      return NULL;
    }
  if (strcmp (f->name, "pow") == 0)
    {
      guint64 n_nonfinite = p->ctx->n_nonfinite;
      CmlExpr *e = cml_expr_pow (p->ctx, args[0], args[1]);

      if (!parser_check_finite (p, n_nonfinite, name_start,
                                _("the numbers of this power overflow: a constant is not finite")))
        return NULL;
      return e;
    }
  if (f->arity == 2)
    return cml_expr_func2 (p->ctx, f->fn, args[0], args[1]);
  return cml_expr_func (p->ctx, f->fn, args[0]);
}

static CmlExpr *
parse_primary (Parser *p)
{
  CmlExpr *e;

  switch (p->tok)
    {
    case TOK_NUM:
      e = cml_expr_num (p->ctx, p->tok_value);
      return parser_next (p) ? e : NULL;

    case TOK_IDENT:
      {
        const char *start = p->tok_start;
        gsize len = p->tok_len;
        const FuncName *f = find_func (start, len);
        char *name;
        int id;

        if (f != NULL)
          return parse_call (p, f, start);
        if (len == 2 && strncmp (start, "pi", 2) == 0)
          {
            e = cml_expr_num (p->ctx, G_PI);
            return parser_next (p) ? e : NULL;
          }
        name = g_strndup (start, len);
        id = cml_expr_ctx_lookup (p->ctx, name);
        if (id < 0)
          {
            parser_fail (p, CML_ERROR_UNKNOWN_NAME, start, _("unknown name '%s'"), name);
            g_free (name);
            return NULL;
          }
        g_free (name);
        e = cml_expr_sym (p->ctx, id);
        return parser_next (p) ? e : NULL;
      }

    case TOK_OP:
      if (tok_is (p, '('))
        {
          if (!parser_next (p))
            return NULL;
          e = parse_sum (p);
          if (e == NULL || !parser_close (p))
            return NULL;
          return e;
        }
      parser_unexpected (p);
      return NULL;

    case TOK_END:
    default:
      parser_unexpected (p);
      return NULL;
    }
}

/* power := primary ['^' unary]   (right-associative, the exponent may be signed) */
static CmlExpr *
parse_power (Parser *p)
{
  const char *start = p->tok_start;
  CmlExpr *base, *exponent;
  guint64 n_nonfinite;

  base = parse_primary (p);
  if (base == NULL)
    return NULL;
  if (!tok_is (p, '^'))
    return base;
  if (!parser_next (p))
    return NULL;
  exponent = parse_unary (p);
  if (exponent == NULL)
    return NULL;
  n_nonfinite = p->ctx->n_nonfinite;
  base = cml_expr_pow (p->ctx, base, exponent);
  if (!parser_check_finite (p, n_nonfinite, start,
                            _("the numbers of this power overflow: a constant is not finite")))
    return NULL;
  return base;
}

/* unary := ('-' | '+') unary | power */
static CmlExpr *
parse_unary (Parser *p)
{
  CmlExpr *e;

  if (++p->depth > PARSE_MAX_DEPTH)
    {
      parser_fail (p, CML_ERROR_PARSE, p->tok_start, _("expression nested too deeply"));
      return NULL;
    }
  if (tok_is (p, '-') || tok_is (p, '+'))
    {
      gboolean minus = tok_is (p, '-');

      if (!parser_next (p))
        return NULL;
      e = parse_unary (p);
      if (e != NULL && minus)
        e = cml_expr_neg (p->ctx, e);
    }
  else
    e = parse_power (p);
  p->depth--;
  return e;
}

/* product := unary (('*' | '/') unary)*
 *
 * The factors are collected and multiplied once: multiplying one by one copies the
 * product so far at every step, quadratic in its length.  Numbers are folded as they
 * come, exactly as the pairwise constructors would: "2/3" (all numbers so far) is one
 * correctly rounded division as in cml_expr_div, "2*x/3" is 2*(1/3). */
static CmlExpr *
parse_product (Parser *p)
{
  const char *start = p->tok_start;
  guint64 n_nonfinite = p->ctx->n_nonfinite;
  CmlExpr *e = parse_unary (p);
  GPtrArray *factors;
  double coef = 1.0;
  gboolean numeric; /* every factor so far is a number (folded into COEF) */

  if (e == NULL || !(tok_is (p, '*') || tok_is (p, '/')))
    return e;

  factors = g_ptr_array_new ();
  numeric = is_num (e);
  if (numeric)
    coef = e->value;
  else
    g_ptr_array_add (factors, e);
  while (tok_is (p, '*') || tok_is (p, '/'))
    {
      gboolean div = tok_is (p, '/');
      CmlExpr *rhs;
      double r;

      if (!parser_next (p) || (rhs = parse_unary (p)) == NULL)
        {
          g_ptr_array_unref (factors);
          return NULL;
        }
      if (!is_num (rhs))
        {
          g_ptr_array_add (factors, div ? cml_expr_pow_node (p->ctx, rhs, p->ctx->minus_one) : rhs);
          numeric = FALSE;
        }
      else if (!div)
        coef *= rhs->value;
      else if (numeric && rhs->value != 0.0 && isfinite (coef / rhs->value))
        coef /= rhs->value;
      else if (cml_expr_fold_pow (rhs->value, -1.0, &r))
        coef *= r;
      else
        {
          /* x/0 stays the factor 0^-1 */
          g_ptr_array_add (factors, cml_expr_pow_node (p->ctx, rhs, p->ctx->minus_one));
          numeric = FALSE;
        }
    }
  if (!isfinite (coef))
    e = cml_expr_num (p->ctx, coef); /* counted: reported below */
  else if (factors->len == 0)
    e = cml_expr_num (p->ctx, coef);
  else if (factors->len == 1)
    e = cml_expr_mul_coef (p->ctx, coef, factors->pdata[0]);
  else
    e = cml_expr_mul_list (p->ctx, coef, (CmlExpr **) factors->pdata, factors->len);
  g_ptr_array_unref (factors);
  if (!parser_check_finite (p, n_nonfinite, start,
                            _("the numbers of this product overflow: a constant is not finite")))
    return NULL;
  return e;
}

/* sum := product (('+' | '-') product)*
 *
 * The terms are collected and added once (adding one by one copies the sum so far at
 * every step: a sum of 16,000 terms took 2.85 GB). */
static CmlExpr *
parse_sum (Parser *p)
{
  const char *start = p->tok_start;
  guint64 n_nonfinite = p->ctx->n_nonfinite;
  CmlExpr *e = parse_product (p);
  GPtrArray *terms;
  GArray *coefs;
  double one = 1.0;

  if (e == NULL || !(tok_is (p, '+') || tok_is (p, '-')))
    return e;

  terms = g_ptr_array_new ();
  coefs = g_array_new (FALSE, FALSE, sizeof (double));
  g_ptr_array_add (terms, e);
  g_array_append_val (coefs, one);
  while (tok_is (p, '+') || tok_is (p, '-'))
    {
      double c = tok_is (p, '-') ? -1.0 : 1.0;
      CmlExpr *rhs;

      if (!parser_next (p) || (rhs = parse_product (p)) == NULL)
        {
          g_ptr_array_unref (terms);
          g_array_unref (coefs);
          return NULL;
        }
      g_ptr_array_add (terms, rhs);
      g_array_append_val (coefs, c);
    }
  e = cml_expr_sum_list (p->ctx, (CmlExpr **) terms->pdata, (double *) coefs->data, terms->len);
  g_ptr_array_unref (terms);
  g_array_unref (coefs);
  if (!parser_check_finite (p, n_nonfinite, start,
                            _("the numbers of this sum overflow: a constant is not finite")))
    return NULL;
  return e;
}

CmlExpr *
cml_expr_parse (CmlExprCtx *ctx,
                const char *text,
                int        *error_column,
                GError    **error)
{
  Parser p = { 0 };
  CmlExpr *e;

  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  p.ctx = ctx;
  p.text = text;
  p.pos = text;
  p.error = error;
  p.error_column = error_column;
  if (error_column != NULL)
    *error_column = 0;

  if (!parser_next (&p))
    return NULL;
  if (p.tok == TOK_END)
    {
      parser_fail (&p, CML_ERROR_PARSE, text, _("empty expression"));
      return NULL;
    }
  e = parse_sum (&p);
  if (e == NULL)
    return NULL;
  if (p.tok != TOK_END)
    {
      parser_unexpected (&p);
      return NULL;
    }
  return e;
}
