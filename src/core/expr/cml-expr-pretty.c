/* cml-expr-pretty.c — the readable text of an expression (cml_expr_print_pretty: for
 * people, not parsed back): its typeset pieces, and fractions collected before printing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It follows the order and layout of the plain text (cml-expr-print.c), typeset:
 *   - names: a Greek letter's name is the letter (Omega -> Ω, kappa -> κ, theta -> θ),
 *     trailing digits are subscripts (k2 -> k₂, Omega0 -> Ω₀); other names as written;
 *   - a time derivative (left sides of equations) is a combining dot above a one-letter
 *     name (u̇, ẇ₁), "d(name)/dt" for a longer name;
 *   - integer powers are superscripts (r², x⁻¹), other powers "x^(1/3)"; √x, √(a + b);
 *     |x| for abs, ln for log, arcsin/arccos/arctan;
 *   - minus is U+2212; a product is juxtaposed when each neighbour is a number, one
 *     letter with its sub- and superscripts, or a parenthesis ("2x", "k₂Ωv",
 *     "m(u² + v²)"), a space goes before a function ("x sin(θ)"), a middle dot
 *     elsewhere ("energy·x", "√x·y", "2·3");
 *   - numbers: a fraction p/q with q <= 12 rather than a decimal, its denominator
 *     below the bar ("m(u² + v²)/2", "y/4"); π;
 *   - fractions are collected (every sum over a common denominator, a quotient of
 *     quotients as one: −Ωv/(m(r²/(k₂m) + 1/m)) -> −Ωk₂v/(k₂ + r²)) when the
 *     expression is of moderate size and the collected text is not longer.
 */
#define G_LOG_DOMAIN "cml-expr-print"

#include "cml-expr-print-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- pretty pieces ---------------------------------------------------------------------- */

void
cml_expr_append_minus (Printer *pr)
{
  g_string_append (pr->s, pr->pretty ? MINUS : "-");
}

/* TRUE if the text at S starts with a minus sign (ASCII or U+2212); *LEN is its length. */
gboolean
cml_expr_starts_with_minus (const char *s,
                   gsize      *len)
{
  if (s[0] == '-')
    {
      *len = 1;
      return TRUE;
    }
  if (g_str_has_prefix (s, MINUS))
    {
      *len = strlen (MINUS);
      return TRUE;
    }
  return FALSE;
}

static const char *const greek[][2] = {
  { "alpha", "α" }, { "beta", "β" }, { "gamma", "γ" }, { "delta", "δ" }, { "epsilon", "ε" },
  { "zeta", "ζ" }, { "eta", "η" }, { "theta", "θ" }, { "iota", "ι" }, { "kappa", "κ" },
  { "lambda", "λ" }, { "mu", "μ" }, { "nu", "ν" }, { "xi", "ξ" }, { "rho", "ρ" },
  { "sigma", "σ" }, { "tau", "τ" }, { "upsilon", "υ" }, { "phi", "φ" }, { "chi", "χ" },
  { "psi", "ψ" }, { "omega", "ω" }, { "Gamma", "Γ" }, { "Delta", "Δ" }, { "Theta", "Θ" },
  { "Lambda", "Λ" }, { "Xi", "Ξ" }, { "Pi", "Π" }, { "Sigma", "Σ" }, { "Upsilon", "Υ" },
  { "Phi", "Φ" }, { "Psi", "Ψ" }, { "Omega", "Ω" },
};

static const char *const sub_digit[] = { "₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉" };
static const char *const sup_digit[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };

/* NAME as it is shown: a Greek letter's name as the letter, trailing digits as
 * subscripts ("Omega0" -> "Ω₀", "k2" -> "k₂"), with a combining dot above its first
 * letter for DOT ("u" -> "u̇", "w1" -> "ẇ₁"); a name of several letters gets "d(…)/dt"
 * instead, as a dot above one of its letters would read as a different name. */
void
cml_expr_append_pretty_name (GString    *s,
                    const char *name,
                    gboolean    dot)
{
  gsize len = strlen (name), head = len;
  g_autofree char *stem = NULL;
  const char *shown;
  gboolean one_letter;

  while (head > 0 && g_ascii_isdigit (name[head - 1]))
    head--;
  if (head == 0)
    head = len;
  stem = g_strndup (name, head);
  shown = stem;
  for (guint k = 0; k < G_N_ELEMENTS (greek); k++)
    if (g_str_equal (stem, greek[k][0]))
      shown = greek[k][1];
  one_letter = g_utf8_strlen (shown, -1) == 1;
  if (dot && !one_letter)
    g_string_append (s, "d(");
  g_string_append (s, shown);
  if (dot && one_letter)
    g_string_append (s, "\u0307");
  for (gsize i = head; i < len; i++)
    g_string_append (s, sub_digit[name[i] - '0']);
  if (dot && !one_letter)
    g_string_append (s, ")/dt");
}

void
cml_expr_append_superscript_int (GString *s,
                        gint64   v)
{
  char digits[24];

  if (v < 0)
    g_string_append (s, "⁻");
  g_snprintf (digits, sizeof digits, "%" G_GINT64_FORMAT, v < 0 ? -v : v);
  for (const char *d = digits; *d; d++)
    g_string_append (s, sup_digit[*d - '0']);
}

/* What a factor's text looks like, to choose what goes between two factors. */
typedef enum
{
  PIECE_NUMBER, /* "2", "0.5" */
  PIECE_SHORT,  /* one letter with sub- or superscripts: "x", "k₂", "Ω²" */
  PIECE_GROUP,  /* "(a + b)", "(a + b)²", "|x|" */
  PIECE_ROOT,   /* "√x" */
  PIECE_FUNC,   /* "sin(θ)" */
  PIECE_LONG,   /* a name of several letters: "energy", "vx₁" */
} PieceKind;

static gboolean
is_modifier (gunichar c)
{
  return g_unichar_ismark (c) || (c >= 0x2070 && c <= 0x209f) || c == 0xb2 || c == 0xb3 || c == 0xb9;
}

static PieceKind
piece_kind (const char *s)
{
  gunichar c = g_utf8_get_char (s);
  guint letters = 0;
  const char *p = s;

  if (c == '(' || c == '|')
    return PIECE_GROUP;
  if (c == 0x221a)
    return PIECE_ROOT;
  if (g_ascii_isdigit (c) || c == '.')
    return PIECE_NUMBER;
  while (*p && (g_unichar_isalpha (g_utf8_get_char (p)) || *p == '_'))
    {
      letters++;
      p = g_utf8_next_char (p);
    }
  if (*p == '(' && letters > 1)
    return PIECE_FUNC;
  while (*p && is_modifier (g_utf8_get_char (p)))
    p = g_utf8_next_char (p);
  return letters == 1 && *p == '\0' ? PIECE_SHORT : PIECE_LONG;
}

/* Between two factors: nothing ("2x", "k₂Ω", "m(u² + v²)"), a space before a function
 * ("x sin(θ)"), else a middle dot ("2·3", "energy·x", "√x·y"). */
static const char *
product_separator (const char *left,
                   const char *right)
{
  PieceKind l = piece_kind (left), r = piece_kind (right);

  if (r == PIECE_NUMBER || l == PIECE_LONG || r == PIECE_LONG || l == PIECE_ROOT || l == PIECE_FUNC)
    return DOT;
  if (r == PIECE_FUNC)
    return l == PIECE_NUMBER ? "" : " ";
  return "";
}

/* Appends the separator between the factor text starting at PREV and the one starting at
 * AT (pretty: see product_separator; else "*"). */
void
cml_expr_join_factors (Printer *pr,
              gsize    prev,
              gsize    at)
{
  if (!pr->pretty)
    {
      g_string_insert_c (pr->s, at, '*');
      return;
    }
  if (pr->over)
    return;
  {
    g_autofree char *left = g_strndup (pr->s->str + prev, at - prev);

    g_string_insert (pr->s, at, product_separator (left, pr->s->str + at));
  }
}

/* ---- readable text ------------------------------------------------------------------ */

static CmlExpr *together (CmlExprCtx *ctx, CmlExpr *e, GHashTable *memo);

/* B^K with an integer K spread over the factors of a product: (a b⁻¹)⁻¹ = a⁻¹ b. */
static CmlExpr *
pow_spread (CmlExprCtx *ctx,
            CmlExpr    *b,
            CmlExpr    *k)
{
  double kv;
  CmlExpr *r;

  if (b->kind != CML_EXPR_MUL || !cml_expr_is_number (k, &kv) || !cml_expr_double_is_int (kv))
    return cml_expr_pow (ctx, b, k);
  r = cml_expr_pow (ctx, cml_expr_num (ctx, b->value), k);
  for (guint i = 0; i < b->n; i++)
    {
      PFactor f;

      cml_expr_pfactor_split (b->args[i], &f);
      r = cml_expr_mul (ctx, r, cml_expr_pow (ctx, f.base, f.exp ? cml_expr_mul (ctx, f.exp, k) : k));
    }
  return r;
}

/* A sum over a common denominator: Σ nᵢ/dᵢ = (Σ nᵢ D/dᵢ)/D with D the product of every
 * base that some term divides by, to the highest power it is divided by. */
static CmlExpr *
together_sum (CmlExprCtx *ctx,
              CmlExpr    *e,
              GHashTable *memo)
{
  g_autofree CmlExpr **terms = g_new (CmlExpr *, e->n + 1);
  g_autoptr (GPtrArray) den_base = g_ptr_array_new ();
  g_autoptr (GArray) den_exp = g_array_new (FALSE, FALSE, sizeof (double));
  CmlExpr *num, *d;
  guint n = 0;

  for (guint i = 0; i < e->n; i++)
    terms[n++] = cml_expr_mul (ctx, cml_expr_num (ctx, e->coefs[i]), together (ctx, e->args[i], memo));
  if (e->value != 0.0)
    terms[n++] = cml_expr_num (ctx, e->value);

  for (guint i = 0; i < n; i++)
    {
      CmlExpr *t = terms[i];
      guint nf = t->kind == CML_EXPR_MUL ? t->n : 1;

      for (guint j = 0; j < nf; j++)
        {
          PFactor f;
          double ev;
          guint k;

          cml_expr_pfactor_split (t->kind == CML_EXPR_MUL ? t->args[j] : t, &f);
          if (f.exp == NULL || !cml_expr_is_number (f.exp, &ev) || ev >= 0.0)
            continue;
          for (k = 0; k < den_base->len; k++)
            if (den_base->pdata[k] == f.base)
              break;
          if (k == den_base->len)
            {
              g_ptr_array_add (den_base, f.base);
              g_array_append_val (den_exp, ev);
            }
          else
            g_array_index (den_exp, double, k) = MIN (g_array_index (den_exp, double, k), ev);
        }
    }
  if (den_base->len == 0)
    return cml_expr_sum (ctx, terms, n);

  d = cml_expr_num (ctx, 1.0);
  for (guint k = 0; k < den_base->len; k++)
    d = cml_expr_mul (ctx, d, cml_expr_pow (ctx, den_base->pdata[k],
                                            cml_expr_num (ctx, -g_array_index (den_exp, double, k))));
  for (guint i = 0; i < n; i++)
    terms[i] = cml_expr_mul (ctx, terms[i], d);
  num = cml_expr_sum (ctx, terms, n);
  return cml_expr_mul (ctx, num, pow_spread (ctx, d, cml_expr_num (ctx, -1.0)));
}

/* E with its fractions collected: every sum over a common denominator, a quotient of
 * quotients as one quotient.  The same value (only exact rewriting). */
static CmlExpr *
together (CmlExprCtx *ctx,
          CmlExpr    *e,
          GHashTable *memo)
{
  CmlExpr *r;

  if (e->kind == CML_EXPR_NUM || e->kind == CML_EXPR_SYM)
    return e;
  r = g_hash_table_lookup (memo, e);
  if (r != NULL)
    return r;

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_ADD:
      r = together_sum (ctx, e, memo);
      break;
    case CML_EXPR_MUL:
      r = cml_expr_num (ctx, e->value);
      for (guint i = 0; i < e->n; i++)
        r = cml_expr_mul (ctx, r, together (ctx, e->args[i], memo));
      break;
    case CML_EXPR_POW:
      r = pow_spread (ctx, together (ctx, e->args[0], memo), together (ctx, e->args[1], memo));
      break;
    case CML_EXPR_FUNC:
      r = cml_expr_func (ctx, (CmlFunc) e->fn, together (ctx, e->args[0], memo));
      break;
    case CML_EXPR_FUNC2:
      r = cml_expr_func2 (ctx, (CmlFunc) e->fn, together (ctx, e->args[0], memo),
                          together (ctx, e->args[1], memo));
      break;
    case CML_EXPR_NUM:
    case CML_EXPR_SYM:
    default:
      r = e;
      break;
    }
  g_hash_table_insert (memo, e, r);
  return r;
}

/* E rebuilt in the context DST (symbols by name): the fractions are collected there, so
 * that printing only reads the expression's own context, which other threads may be
 * using. */
static CmlExpr *
copy_into (CmlExprCtx       *dst,
           const CmlExprCtx *src,
           CmlExpr          *e,
           GHashTable       *memo)
{
  CmlExpr *r = g_hash_table_lookup (memo, e);

  if (r != NULL)
    return r;
  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      r = cml_expr_num (dst, e->value);
      break;
    case CML_EXPR_SYM:
      r = cml_expr_sym (dst, cml_expr_ctx_intern (dst, cml_expr_ctx_symbol_name (src, e->sym)));
      break;
    case CML_EXPR_ADD:
      r = cml_expr_num (dst, e->value);
      for (guint i = 0; i < e->n; i++)
        r = cml_expr_add (dst, r, cml_expr_mul (dst, cml_expr_num (dst, e->coefs[i]),
                                                copy_into (dst, src, e->args[i], memo)));
      break;
    case CML_EXPR_MUL:
      r = cml_expr_num (dst, e->value);
      for (guint i = 0; i < e->n; i++)
        r = cml_expr_mul (dst, r, copy_into (dst, src, e->args[i], memo));
      break;
    case CML_EXPR_POW:
      r = cml_expr_pow (dst, copy_into (dst, src, e->args[0], memo), copy_into (dst, src, e->args[1], memo));
      break;
    case CML_EXPR_FUNC:
      r = cml_expr_func (dst, (CmlFunc) e->fn, copy_into (dst, src, e->args[0], memo));
      break;
    case CML_EXPR_FUNC2:
    default:
      r = cml_expr_func2 (dst, (CmlFunc) e->fn, copy_into (dst, src, e->args[0], memo),
                          copy_into (dst, src, e->args[1], memo));
      break;
    }
  g_hash_table_insert (memo, e, r);
  return r;
}

/* Expressions larger than this are printed as they are: collecting the fractions of a
 * long derived expression can multiply its size. */
#define TOGETHER_MAX_NODES 400

static char *
print_pretty_node (const CmlExprCtx *ctx,
                   CmlExpr          *e,
                   gsize             max_chars)
{
  Printer pr = { 0 };

  pr.ctx = ctx;
  pr.s = g_string_new (NULL);
  pr.sum_scale = 1.0;
  pr.max_len = max_chars;
  pr.pretty = TRUE;
  cml_expr_print_expr (&pr, e, 0);
  if (!pr.over && pr.s->len <= max_chars)
    return g_string_free (pr.s, FALSE);
  g_string_free (pr.s, TRUE);
  /* the cut and its estimate are the ASCII printer's (same lengths, within the symbols) */
  return NULL;
}

char *
cml_expr_print_pretty (const CmlExprCtx *ctx,
                       const CmlExpr    *e_,
                       gsize             max_chars)
{
  CmlExpr *e = (CmlExpr *) e_;
  char *plain, *collected = NULL;

  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (e != NULL, NULL);

  plain = print_pretty_node (ctx, e, max_chars);
  if (plain == NULL)
    {
      /* too long: cut like cml_expr_to_string_max, at a character boundary */
      Printer pr = { 0 };

      pr.ctx = ctx;
      pr.s = g_string_new (NULL);
      pr.sum_scale = 1.0;
      pr.max_len = max_chars;
      pr.pretty = TRUE;
      cml_expr_print_expr (&pr, e, 0);
      return cml_expr_cut_text (ctx, e, pr.s, max_chars);
    }

  if (cml_expr_n_nodes (e) <= TOGETHER_MAX_NODES)
    {
      g_autoptr (CmlExprCtx) scratch = cml_expr_ctx_new ();
      GHashTable *memo = g_hash_table_new (NULL, NULL);
      CmlExpr *copy = copy_into (scratch, ctx, e, memo);
      CmlExpr *t;

      g_hash_table_remove_all (memo);
      t = together (scratch, copy, memo);
      g_hash_table_unref (memo);
      if (t != copy)
        collected = print_pretty_node (scratch, t, max_chars);
    }
  /* the collected form unless it is longer ("1/x + 1/y" stays) */
  if (collected != NULL && g_utf8_strlen (collected, -1) <= g_utf8_strlen (plain, -1))
    {
      g_free (plain);
      return collected;
    }
  g_free (collected);
  return plain;
}

/* E with its fractions collected (together), with a memo of its own. */
static CmlExpr *
together_fresh (CmlExprCtx *ctx, CmlExpr *e)
{
  GHashTable *memo = g_hash_table_new (NULL, NULL);
  CmlExpr *r = together (ctx, e, memo);

  g_hash_table_unref (memo);
  return r;
}

/* E written with the named quantities NAMES[k] = DEFS[k] where that makes it shorter:
 * E = d·(E/d) exactly, so when the quotient E/d simplifies to fewer nodes than E, the
 * text is "name·(E/d)" — the rolling ball's u̇ = −Ωk₂v/(k₂ + r²) reads u̇ = −κΩv with
 * κ = k₂/(k₂ + r²).  Done in a scratch context: CTX is only read. */
char *
cml_expr_print_pretty_named (const CmlExprCtx *ctx,
                             const CmlExpr    *e_,
                             gsize             max_chars,
                             guint             n,
                             const char *const *names,
                             CmlExpr *const   *defs)
{
  CmlExpr *e = (CmlExpr *) e_;
  g_autoptr (CmlExprCtx) scratch = NULL;
  GHashTable *memo;
  CmlExpr *best, *copy;
  guint best_nodes;
  gboolean named = FALSE;
  char *text;

  g_return_val_if_fail (ctx != NULL && e != NULL, NULL);

  if (n == 0 || cml_expr_n_nodes (e) > TOGETHER_MAX_NODES)
    return cml_expr_print_pretty (ctx, e, max_chars);
  scratch = cml_expr_ctx_new ();
  memo = g_hash_table_new (NULL, NULL);
  copy = copy_into (scratch, ctx, e, memo);
  /* over one denominator, as the text shows it: −Ωv/(1 + r²/k₂) is −Ωk₂v/(k₂ + r²) */
  copy = together_fresh (scratch, copy);
  best = copy;
  best_nodes = cml_expr_n_nodes (copy);
  for (guint k = 0; k < n; k++)
    {
      CmlExpr *d, *q;

      /* a named quantity that is a number or a single name says nothing new */
      if (defs[k] == NULL || cml_expr_n_nodes (defs[k]) < 3)
        continue;
      d = copy_into (scratch, ctx, defs[k], memo);
      d = together_fresh (scratch, d);
      q = cml_expr_div (scratch, best, d);
      if (q != NULL && cml_expr_n_nodes (q) + 3 < best_nodes)
        {
          CmlExpr *sym = cml_expr_sym (scratch, cml_expr_ctx_intern (scratch, names[k]));

          best = cml_expr_mul (scratch, sym, q);
          best_nodes = cml_expr_n_nodes (best);
          named = TRUE;
        }
    }
  g_hash_table_unref (memo);
  if (!named)
    return cml_expr_print_pretty (ctx, e, max_chars);
  text = cml_expr_print_pretty (scratch, best, max_chars);
  return text;
}

char *
cml_expr_pretty_name (const char *name,
                      gboolean    dot)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (name != NULL, NULL);
  cml_expr_append_pretty_name (s, name, dot);
  return g_string_free (s, FALSE);
}
