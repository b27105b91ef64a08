/* fuzz-expr.c — libFuzzer harness for the expression parser and what is done with what
 * it parses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the text of one expression.  A fresh context knows the symbols
 * t x y z u v w a b c, plus every identifier in the input except those starting with
 * "unk" (so unknown names are exercised too, and the seeds extracted from the models
 * parse).  Then:
 *
 *   cml_expr_parse; on failure the error must be a CML_ERROR with a code the header
 *   promises (PARSE, UNKNOWN_NAME, ARITY) and the column must lie in the text;
 *   on success: print; print → parse (must parse) → print → parse → print, which must be a
 *   fixed point when it shows integers only, and then read back to the same node (the
 *   invariant tests/core/test-expr.c checks on random expressions); derivatives (first and
 *   second), substitution, monic, expansion (printed and read back when not huge), symbol
 *   collection, a tree-walk evaluation and a compiled program (prepare + run) of the
 *   expression and its derivatives.
 *
 * Numbers that overflow: the parser must refuse them ("1e200*x*1e200" would hold the
 * coefficient inf), so what parses holds finite numbers only and the context's count of
 * non-finite constants (cml_expr_ctx_n_nonfinite) is still 0.  Derivatives and expansions
 * may overflow (d/dx of 1e300*x^9); the text of one is read back only when the count did
 * not change while it was built, and a text that shows "inf" or "nan" although the count
 * did not change is a finding (an overflow the engine did not record).  An expansion may
 * also refuse to grow beyond its bound (CML_ERROR_UNSUPPORTED).
 *
 * With CMLAB_FUZZ_STRICT=1 in the environment it also requires the compiled program and
 * the tree walk to agree (to 1e-6 relative when both are finite and not huge): a
 * disagreement may be rounding, so it is off by default.
 *
 * Built by tools/fuzz; reproduce a finding with `tools/fuzz repro expr FILE`.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-program.h"

#define MAX_DIFF_SYMS 4
#define MAX_PRINTED_EXPANSION 500
#define MAX_REPARSED_TEXT     8192

static const char *const base_symbols[] = { "t", "x", "y", "z", "u", "v", "w", "a", "b", "c" };
static const char *const func_words[] = {
  "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
  "exp", "log", "sqrt", "abs", "sign", "pow", "pi",
};

static gboolean strict;

static G_NORETURN void
finding (const char *format, ...) G_GNUC_PRINTF (1, 2);

static G_NORETURN void
finding (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  fputs ("fuzz-expr: ", stderr);
  vfprintf (stderr, format, args);
  fputc ('\n', stderr);
  va_end (args);
  abort ();
}

static gboolean
is_func_word (const char *s, gsize len)
{
  for (guint i = 0; i < G_N_ELEMENTS (func_words); i++)
    if (strlen (func_words[i]) == len && strncmp (func_words[i], s, len) == 0)
      return TRUE;
  return FALSE;
}

/* Interns every identifier of TEXT (the parser's lexical rule) except function names,
 * pi, and names starting with "unk". */
static void
intern_identifiers (CmlExprCtx *ctx, const char *text)
{
  const char *s = text;

  while (*s)
    {
      if (g_ascii_isdigit (*s) || *s == '.')
        {
          /* a number, with anything alphanumeric glued on (1e5, 2x): not an identifier */
          while (g_ascii_isalnum (*s) || *s == '_' || *s == '.')
            s++;
          continue;
        }
      if (g_ascii_isalpha (*s) || *s == '_')
        {
          const char *start = s;
          while (g_ascii_isalnum (*s) || *s == '_')
            s++;
          gsize len = (gsize) (s - start);
          if (!is_func_word (start, len) && !(len >= 3 && strncmp (start, "unk", 3) == 0))
            {
              g_autofree char *name = g_strndup (start, len);
              cml_expr_ctx_intern (ctx, name);
            }
          continue;
        }
      s++;
    }
}

/* TRUE if the numbers in S are integers (as tests/core/test-expr.c: no '.', no division
 * by a number, no exponent; 'e' also excludes exp, which is only conservative). */
static gboolean
only_integers (const char *s)
{
  for (; *s != '\0'; s++)
    if (*s == '.' || (*s == '/' && g_ascii_isdigit (s[1])) || *s == 'e' || *s == 'E')
      return FALSE;
  return TRUE;
}

/* TRUE if S shows a number "inf" or "nan" (not part of a longer name). */
static gboolean
has_nonfinite_number (const char *s)
{
  for (const char *p = s; *p; p++)
    if ((g_str_has_prefix (p, "inf") || g_str_has_prefix (p, "nan"))
        && (p == s || !(g_ascii_isalnum (p[-1]) || p[-1] == '_'))
        && !(g_ascii_isalnum (p[3]) || p[3] == '_'))
      return TRUE;
  return FALSE;
}

/* Checks TEXT, built while the context's count of non-finite constants went from N0 to
 * its current value: TRUE if it should read back (the count did not change). */
static gboolean
finite_text (CmlExprCtx *ctx, guint64 n0, const char *text, const char *what, const char *input)
{
  if (cml_expr_ctx_n_nonfinite (ctx) != n0)
    return FALSE;
  /* (the input may have made "inf" or "nan" a symbol) */
  if (has_nonfinite_number (text) && cml_expr_ctx_lookup (ctx, "inf") < 0
      && cml_expr_ctx_lookup (ctx, "nan") < 0)
    finding ("%s of \"%s\" shows a non-finite number, but the context counted none: \"%s\"", what,
             input, text);
  return TRUE;
}

static CmlExpr *
must_parse (CmlExprCtx *ctx, const char *text, const char *what)
{
  g_autoptr (GError) error = NULL;
  int col = 0;
  CmlExpr *e;

  e = cml_expr_parse (ctx, text, &col, &error);
  if (e == NULL)
    finding ("%s \"%s\" does not parse: %s (column %d)", what, text,
             error ? error->message : "(no error)", col);
  return e;
}

static void
check_close (const char *what, const char *text, double tree, double prog)
{
  if (!strict)
    return;
  if (isnan (tree) && isnan (prog))
    return;
  if (!isfinite (tree) || !isfinite (prog) || fabs (tree) > 1e100 || fabs (prog) > 1e100)
    return;
  if (fabs (tree - prog) > 1e-6 * (1.0 + fmax (fabs (tree), fabs (prog))))
    finding ("%s of \"%s\": tree walk %.17g, compiled program %.17g", what, text, tree, prog);
}

static void
exercise (CmlExprCtx *ctx, CmlExpr *e, const char *input)
{
  guint n_syms = cml_expr_ctx_n_symbols (ctx);
  g_autofree gboolean *deps = g_new0 (gboolean, n_syms + 1);
  g_autofree double *values = g_new (double, n_syms + 1);
  g_autofree int *slow_ids = g_new (int, n_syms + 1);
  g_autofree int *fast_ids = g_new (int, n_syms + 1);
  g_autofree double *slow = g_new (double, n_syms + 1);
  g_autofree double *fast = g_new (double, n_syms + 1);
  CmlExpr *outputs[2 + MAX_DIFF_SYMS + 1];
  guint n_out = 0, n_slow = 0, n_fast = 0, n_diff = 0;
  int first_dep = -1;

  /* printing and reading back: what parsed holds no overflowed number */
  if (cml_expr_ctx_n_nonfinite (ctx) != 0)
    finding ("\"%s\" parsed, but the context counted %" G_GUINT64_FORMAT " non-finite constants", input,
             cml_expr_ctx_n_nonfinite (ctx));
  g_autofree char *s1 = cml_expr_to_string (ctx, e);
  (void) finite_text (ctx, 0, s1, "the printed text", input);
  CmlExpr *e2 = must_parse (ctx, s1, "the printed text");
  g_autofree char *s2 = cml_expr_to_string (ctx, e2);
  CmlExpr *e3 = must_parse (ctx, s2, "the printed text (second round)");
  g_autofree char *s3 = cml_expr_to_string (ctx, e3);

  /* with rounded numbers a round trip may renormalise (a power of a sum with a lead
   * coefficient 10 gains 10^35 in the coefficient, which rounds): only integer text must
   * be a fixed point */
  if (only_integers (s2) && strcmp (s2, s3) != 0)
    finding ("printing is not a fixed point: \"%s\" -> \"%s\" -> \"%s\" -> \"%s\"", input, s1, s2, s3);
  /* as tests/core/test-expr.c: E2 holds the numbers as printed (1/0.1^3 = 999.99…98 prints
   * as "1000"), so it is E2's text, when it shows integers only, that must read back to E2 */
  if (only_integers (s2) && e3 != e2)
    finding ("\"%s\" prints as \"%s\", read back and printed as \"%s\" (integers only), which parses "
             "to another node, printed \"%s\"", input, s1, s2, s3);

  (void) cml_expr_n_nodes (e);
  (void) cml_expr_kind (e);
  (void) cml_expr_is_number (e, NULL);
  cml_expr_collect_symbols (e, deps);

  outputs[n_out++] = e;
  for (guint id = 0; id < n_syms; id++)
    {
      if (deps[id] != cml_expr_depends_on (e, (int) id))
        finding ("collect_symbols and depends_on disagree on symbol %u of \"%s\"", id, input);
      if (!deps[id] || n_diff >= MAX_DIFF_SYMS)
        continue;
      guint64 n0 = cml_expr_ctx_n_nonfinite (ctx);
      CmlExpr *d = cml_expr_diff (ctx, e, (int) id);
      g_autofree char *ds = cml_expr_to_string (ctx, d);
      if (finite_text (ctx, n0, ds, "the derivative", input))
        (void) must_parse (ctx, ds, "the printed derivative");
      outputs[n_out++] = d;
      n_diff++;
      if (first_dep < 0)
        first_dep = (int) id;
    }
  if (first_dep >= 0)
    {
      /* a second derivative, a substitution of the first symbol by (x + 1)*y, monic */
      CmlExpr *d2 = cml_expr_diff (ctx, outputs[1], first_dep);
      int ids[1] = { first_dep };
      CmlExpr *repl[1] = {
        cml_expr_mul (ctx, cml_expr_add (ctx, cml_expr_sym (ctx, cml_expr_ctx_lookup (ctx, "x")),
                                          cml_expr_num (ctx, 1)),
                      cml_expr_sym (ctx, cml_expr_ctx_lookup (ctx, "y"))),
      };
      CmlExpr *sub = cml_expr_subs (ctx, e, 1, ids, repl);
      g_free (cml_expr_to_string (ctx, sub));
      outputs[n_out++] = d2;
    }
  {
    double factor = 0;
    CmlExpr *m = cml_expr_monic (ctx, e, &factor);
    g_free (cml_expr_to_string (ctx, m));
  }
  {
    /* (a + b + c + d)^20 has 1771 terms: a sum that size takes long to print, so only
     * small expansions make the round trip; every expansion is built (or refused) */
    g_autoptr (GError) xerr = NULL;
    guint64 n0 = cml_expr_ctx_n_nonfinite (ctx);
    CmlExpr *x = cml_expr_expand (ctx, e, &xerr);
    if (x == NULL)
      {
        if (xerr == NULL || !g_error_matches (xerr, CML_ERROR, CML_ERROR_UNSUPPORTED))
          finding ("the expansion of \"%s\" failed without the bound's error: %s", input,
                   xerr ? xerr->message : "(no error)");
      }
    else if (cml_expr_n_nodes (x) <= MAX_PRINTED_EXPANSION)
      {
        /* shared nodes print once per use: the text can be far longer than the DAG */
        g_autofree char *xs = cml_expr_to_string (ctx, x);
        if (finite_text (ctx, n0, xs, "the expansion", input) && strlen (xs) <= MAX_REPARSED_TEXT)
          (void) must_parse (ctx, xs, "the printed expansion");
      }
  }

  /* evaluation: the tree walk and the compiled program on the same point */
  n_syms = cml_expr_ctx_n_symbols (ctx); /* unchanged: nothing above interns */
  for (guint id = 0; id < n_syms; id++)
    {
      values[id] = 0.3 + 0.37 * (double) (id % 7) - 0.05 * (double) id;
      if (id % 3 == 0)
        {
          slow_ids[n_slow] = (int) id;
          slow[n_slow++] = values[id];
        }
      else
        {
          fast_ids[n_fast] = (int) id;
          fast[n_fast++] = values[id];
        }
    }
  double tree[G_N_ELEMENTS (outputs)];
  for (guint k = 0; k < n_out; k++)
    tree[k] = cml_expr_eval (outputs[k], values);

  g_autoptr (GError) error = NULL;
  g_autoptr (CmlProgram) prog = cml_program_compile (ctx, outputs, n_out, slow_ids, n_slow, fast_ids,
                                                     n_fast, &error);
  if (prog == NULL)
    finding ("\"%s\" does not compile: %s", input, error ? error->message : "(no error)");
  if (cml_program_n_outputs (prog) != n_out)
    finding ("the program of \"%s\" has %u outputs, not %u", input, cml_program_n_outputs (prog), n_out);
  (void) cml_program_n_fast_instructions (prog);
  g_autofree double *regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  double out[G_N_ELEMENTS (outputs)];
  cml_program_prepare (prog, slow, regs);
  cml_program_run (prog, fast, regs, out);
  for (guint k = 0; k < n_out; k++)
    check_close (k == 0 ? "the value" : "a derivative", input, tree[k], out[k]);

  /* a program with no slow inputs: every symbol fast */
  {
    g_autoptr (CmlProgram) p2 = cml_program_compile (ctx, outputs, 1, NULL, 0, fast_ids, n_fast, NULL);
    /* symbols in the slow list are missing here: an error is the right answer then */
    if (p2 != NULL)
      {
        g_autofree double *r2 = g_new0 (double, cml_program_n_registers (p2) + 1);
        double o2;
        cml_program_prepare (p2, NULL, r2);
        cml_program_run (p2, fast, r2, &o2);
      }
  }
}

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const char *s = g_getenv ("CMLAB_FUZZ_STRICT");

  strict = s != NULL && g_str_equal (s, "1");
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  int col = -12345;
  CmlExpr *e;

  if (memchr (data, 0, size) != NULL)
    return -1;
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';

  for (guint i = 0; i < G_N_ELEMENTS (base_symbols); i++)
    cml_expr_ctx_intern (ctx, base_symbols[i]);
  intern_identifiers (ctx, text);

  e = cml_expr_parse (ctx, text, &col, &error);
  if (e == NULL)
    {
      if (error == NULL)
        finding ("parse of \"%s\" failed without an error", text);
      if (error->domain != CML_ERROR
          || (error->code != CML_ERROR_PARSE && error->code != CML_ERROR_UNKNOWN_NAME
              && error->code != CML_ERROR_ARITY))
        finding ("parse of \"%s\": unexpected error %s/%d: %s", text, g_quark_to_string (error->domain),
                 error->code, error->message);
      if (col < 1 || (gsize) col > size + 1)
        finding ("parse of \"%s\": error column %d outside 1..%zu: %s", text, col, size + 1,
                 error->message);
      return 0;
    }
  if (error != NULL)
    finding ("parse of \"%s\" succeeded but set an error: %s", text, error->message);
  exercise (ctx, e, text);
  return 0;
}
