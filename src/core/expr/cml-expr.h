/* cml-expr.h — symbolic expressions: parse, simplify, differentiate, print (compiled
 * into register programs by cml-program.h, which this header includes).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every expression lives in a CmlExprCtx, which owns all of its nodes and its symbol
 * table; freeing the context frees them all.  Nodes are immutable and hash-consed: two
 * expressions that are equal in canonical form are the same pointer, so equality is `==`
 * and common subexpressions are shared automatically.
 *
 * Canonical form (what the constructors return, always simplified):
 *   - numbers are folded (2*3 -> 6, sin(0) -> 0, x^0 -> 1, x^1 -> x, 0*x -> 0, x+0 -> x);
 *   - sums are n-ary with one numeric constant and terms carrying numeric coefficients,
 *     like terms collected (a - a -> 0, 2*x + 3*x -> 5*x), operands in a fixed order;
 *   - products are n-ary with one numeric coefficient and factors with exponents, like
 *     bases collected (x*x -> x^2, x^2/x -> x, a*b - b*a -> 0), operands in a fixed order;
 *   - a - b is a + (-1)*b, a / b is a * b^-1.
 * No expansion of products of sums is done automatically (cml_expr_expand does it).
 *
 * Thread safety: a context and its nodes may be read (evaluated, printed) from any thread
 * once built; building new nodes needs exclusive access to the context.
 */
#pragma once

#include <glib.h>

#include "cml-expr-functions.h"

G_BEGIN_DECLS

typedef struct _CmlExprCtx CmlExprCtx;
typedef struct _CmlExpr    CmlExpr;

typedef enum
{
  CML_EXPR_NUM,   /* a double constant */
  CML_EXPR_SYM,   /* a symbol, by id */
  CML_EXPR_ADD,   /* n-ary sum */
  CML_EXPR_MUL,   /* n-ary product */
  CML_EXPR_POW,   /* base ^ exponent (when not folded into a product) */
  CML_EXPR_FUNC,  /* a one-argument function */
  CML_EXPR_FUNC2, /* a two-argument function (atan2) */
} CmlExprKind;

/* CmlFunc, the built-in functions: cml-expr-functions.h */

/* ---- context and symbols ------------------------------------------------------------ */

CmlExprCtx *cml_expr_ctx_new (void);
void        cml_expr_ctx_free (CmlExprCtx *ctx);

/* Returns the id (0, 1, 2, …) of the symbol NAME, creating it if it does not exist.
 * Ids are dense and stable for the life of the context. */
int         cml_expr_ctx_intern (CmlExprCtx *ctx, const char *name);
/* Returns the id of NAME or -1. */
int         cml_expr_ctx_lookup (const CmlExprCtx *ctx, const char *name);
const char *cml_expr_ctx_symbol_name (const CmlExprCtx *ctx, int id);
guint       cml_expr_ctx_n_symbols (const CmlExprCtx *ctx);
/* The number of expressions made in CTX so far (every distinct one once). */
guint       cml_expr_ctx_n_nodes (const CmlExprCtx *ctx);
/* How many times a constructor of CTX has returned a node holding a numeric constant that
 * is not finite (±inf, NaN): coefficients that overflowed, as in 1e200*x*1e200 or high
 * derivatives of x^1e100.  Such nodes are valid but their numbers are meaningless; compare
 * the count before and after building something to know whether that happened (the
 * parser and the derivation of the equations of motion do, and fail). */
guint64     cml_expr_ctx_n_nonfinite (const CmlExprCtx *ctx);
/* Bytes of memory the context's nodes take so far (it only grows): a size budget for the
 * expressions built in it, checked by callers between steps (the model loader). */
gsize       cml_expr_ctx_memory (const CmlExprCtx *ctx);

/* ---- parsing ------------------------------------------------------------------------ */

/* Parses TEXT: numbers (1, 2.5, 1e-3), identifiers, + - * / ^ (right-associative, binds
 * tighter than unary minus: -x^2 = -(x^2)), unary minus and plus, parentheses, calls of
 * sin cos tan asin acos atan atan2 sinh cosh tanh exp log sqrt abs pow, and the constant
 * pi.  An identifier must already be a symbol of CTX (cml_expr_ctx_intern), otherwise
 * CML_ERROR_UNKNOWN_NAME.  Errors: CML_ERROR_PARSE, CML_ERROR_UNKNOWN_NAME,
 * CML_ERROR_ARITY; the message says what is wrong and *error_column (1-based, may be
 * NULL) tells where.  The returned expression is simplified. */
CmlExpr *cml_expr_parse (CmlExprCtx *ctx,
                         const char *text,
                         int        *error_column,
                         GError    **error);

/* ---- construction (all results are simplified and hash-consed) --------------------- */

CmlExpr *cml_expr_num (CmlExprCtx *ctx, double value);
CmlExpr *cml_expr_sym (CmlExprCtx *ctx, int id);
CmlExpr *cml_expr_add (CmlExprCtx *ctx, CmlExpr *a, CmlExpr *b);
CmlExpr *cml_expr_sub (CmlExprCtx *ctx, CmlExpr *a, CmlExpr *b);
CmlExpr *cml_expr_mul (CmlExprCtx *ctx, CmlExpr *a, CmlExpr *b);
CmlExpr *cml_expr_div (CmlExprCtx *ctx, CmlExpr *a, CmlExpr *b);
CmlExpr *cml_expr_neg (CmlExprCtx *ctx, CmlExpr *a);
CmlExpr *cml_expr_pow (CmlExprCtx *ctx, CmlExpr *base, CmlExpr *exponent);
CmlExpr *cml_expr_powi (CmlExprCtx *ctx, CmlExpr *base, int exponent);
CmlExpr *cml_expr_func (CmlExprCtx *ctx, CmlFunc fn, CmlExpr *arg);
CmlExpr *cml_expr_func2 (CmlExprCtx *ctx, CmlFunc fn, CmlExpr *a, CmlExpr *b);
/* Sum of N terms; N may be 0 (gives 0). */
CmlExpr *cml_expr_sum (CmlExprCtx *ctx, CmlExpr *const *terms, guint n);
/* E divided by its overall numeric factor (the MUL coefficient, or for a sum without a
 * constant the coefficient of its first term), so that E = *factor * result; for printing
 * equations "= 0" in their simplest form.  *FACTOR may be NULL. */
CmlExpr *cml_expr_monic (CmlExprCtx *ctx, CmlExpr *e, double *factor);
/* Multiplies out products of sums and integer powers of sums (for reduction checks).
 * The result can be exponentially larger than E ((a + b + c + d + e)^64 has 814385
 * terms), so the work is bounded: when multiplying out would form more than
 * CML_EXPR_EXPAND_MAX_TERMS products of terms in all, it stops and returns NULL with
 * CML_ERROR_UNSUPPORTED.  (A product of terms with many factors costs tens of µs: the
 * bound keeps an expansion under about a second; (a + b)^64 forms about 6,000.) */
#define CML_EXPR_EXPAND_MAX_TERMS 20000
CmlExpr *cml_expr_expand (CmlExprCtx *ctx, CmlExpr *e, GError **error);
/* TRUE when E is zero as it stands or once multiplied out; an expansion past the bound
 * above counts as not zero (the caller's "not shown to vanish"). */
gboolean cml_expr_is_zero_expanded (CmlExprCtx *ctx, CmlExpr *e);

/* ---- inspection --------------------------------------------------------------------- */

CmlExprKind cml_expr_kind (const CmlExpr *e);
gboolean    cml_expr_is_zero (const CmlExpr *e);
gboolean    cml_expr_is_one (const CmlExpr *e);
/* TRUE if E is a number; stores it in *value (may be NULL). */
gboolean    cml_expr_is_number (const CmlExpr *e, double *value);
/* The symbol id of a CML_EXPR_SYM node, -1 otherwise. */
int         cml_expr_symbol_id (const CmlExpr *e);
/* TRUE if symbol ID occurs in E. */
gboolean    cml_expr_depends_on (const CmlExpr *e, int id);
/* Sets bit `id` in DEPS (an array of cml_expr_ctx_n_symbols() booleans) for every
 * symbol occurring in E. */
void        cml_expr_collect_symbols (const CmlExpr *e, gboolean *deps);
/* Number of distinct nodes reachable from E (a size measure for tests). */
guint       cml_expr_n_nodes (const CmlExpr *e);
/* A part of E without symbols (a constant: 1/0, log(-1), exp(1000)) whose value is not
 * finite, or NULL.  The largest such part is returned (in atan(1/0) it is not atan(1/0),
 * which is finite, but 1/0 is not looked into: only maximal constant parts are evaluated). */
CmlExpr    *cml_expr_find_nonfinite_constant (const CmlExpr *e);

/* ---- calculus and substitution ------------------------------------------------------ */

/* Exact partial derivative of E with respect to symbol ID, simplified.  Results are
 * memoised in the context, so repeated and higher derivatives are cheap. */
CmlExpr *cml_expr_diff (CmlExprCtx *ctx, CmlExpr *e, int id);
/* Replaces each symbol IDS[k] by REPL[k] simultaneously. */
CmlExpr *cml_expr_subs (CmlExprCtx *ctx, CmlExpr *e, guint n, const int *ids, CmlExpr *const *repl);

/* ---- evaluation and printing -------------------------------------------------------- */

/* Evaluates E with VALUES[id] for each symbol (an array of cml_expr_ctx_n_symbols()
 * doubles).  A tree walk: for load-time checks, not for the right-hand side. */
double cml_expr_eval (const CmlExpr *e, const double *values);

/* Readable infix text with the fewest parentheses that keep the meaning, differences
 * and quotients shown as such: "m/2*(u^2 + v^2) - x*y", "-(a + b)/c", "sin(t)^2".
 * Numbers are printed with %.15g (integers without a decimal point). */
char *cml_expr_to_string (const CmlExprCtx *ctx, const CmlExpr *e);
/* The same text, but at most MAX_CHARS characters of it: a longer one is cut there and
 * ends with "… (about N more characters)", N estimated.  Shared subexpressions print at
 * every use, so the text of a small expression can be huge (2^depth); this costs about
 * MAX_CHARS plus the number of distinct nodes, whatever the full length. */
char *cml_expr_to_string_max (const CmlExprCtx *ctx, const CmlExpr *e, gsize max_chars);

/* Text for people to read (not to parse back), the same expression typeset with Unicode:
 * Greek letters for their names (Omega -> Ω), trailing digits of a name as subscripts
 * (k2 -> k₂), small integer powers as superscripts (r²), products by juxtaposition or a
 * middle dot (k₂Ω v, energy·x), U+2212 for minus, √ and |x|, and the fractions of an
 * expression of moderate size collected over common denominators
 * (-Omega*v/(m*(r^2/(k2*m) + 1/m)) -> −Ωk₂v/(k₂ + r²)), in a context of its own: CTX
 * is only read, like cml_expr_to_string.  At most MAX_CHARS bytes, cut like
 * cml_expr_to_string_max.  The conventions are listed in cml-expr-pretty.c. */
char *cml_expr_print_pretty (const CmlExprCtx *ctx, const CmlExpr *e, gsize max_chars);
/* A symbol NAME as cml_expr_print_pretty shows it ("Omega0" -> "Ω₀"); with DOT its time
 * derivative ("u" -> "u̇", "w1" -> "ẇ₁", "energy" -> "d(energy)/dt"). */
char *cml_expr_pretty_name (const char *name, gboolean dot);
/* As cml_expr_print_pretty, with the named quantities NAMES[k] = DEFS[k] (expressions of
 * CTX; the model's definitions, e.g. kappa = k2/(k2 + r^2)) factored out where that makes
 * the text shorter: "−κΩv" rather than "−Ωk₂v/(k₂ + r²)".  Exact: E = d·(E/d). */
char *cml_expr_print_pretty_named (const CmlExprCtx *ctx, const CmlExpr *e, gsize max_chars,
                                   guint n, const char *const *names, CmlExpr *const *defs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlExprCtx, cml_expr_ctx_free)

G_END_DECLS
