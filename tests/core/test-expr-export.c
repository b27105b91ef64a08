/* test-expr-export.c — the printers of the exported equations (cml-expr-print-code.c,
 * cml-expr-print-latex.c): cmlab's syntax, which the JSON export writes, parses back to
 * the very node, with every number the same double — also when a shared part is written
 * by its name and the name is then replaced by its definition; the LaTeX has balanced
 * braces and \left/\right pairs; symbols are typeset as documented.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "cml-expr-print-formats.h"

static const char *const symbol_names[] = { "x", "y", "z", "a", "b", "c", "m", "u", "v", "t",
                                            "q", "q1", "q2", "theta_2", "_k", "c_1" };

static const char *const texts[] = {
  "x", "-x", "2", "-2.5", "0", "1/3", "pi", "x + 1/3", "x*y - z", "m/2*(u^2 + v^2)",
  "-(a + b)/c", "sin(t)^2", "1/x", "a/(b*c)", "x^-2.5", "sqrt(x) + 1/sqrt(y)",
  "x^(1/3)", "2*x/3", "2/(7*x)", "5/7*x", "x/7*5/y", "(a - b)^3", "(b - a)^3",
  "exp(-x^2/2)/sqrt(x + 2)", "atan2(y - 1, x + 1)", "abs(x - y)*sign(y - x)",
  "log(1 + x^2)", "tan(x)*cosh(y)*sinh(z)*tanh(t)", "asin(x/2) + acos(y/3) + atan(z)",
  "x^y^z", "(x^y)^z", "2^x*3^y", "(-x)^0.5", "(x*y)^0.5", "(x + y)^-0.5",
  "1/(1 - cos(q))", "m*9.81*y + 0.5*m*(u^2 + v^2)", "1e-12*x + 1e30*y",
  "0.1*x + 0.7*y", "x^a*y^-b", "sin(q1 - q2)*cos(q1)^3/(1 + sin(q2)^2)",
  "(a + b)*(c + x)/(y + z)^2", "-1/(x*y)", "3*x^2*y - 2*x*y^2 + 1",
  "theta_2*_k^2", "exp(x)^2", "sqrt(sqrt(x))", "x^0.25*y^0.75", "(1/3)^x",
  "-exp(-t)*sin(3*t + 1)", "atan2(-y, -x)", "1.5^x", "sqrt(x^2 + y^2)*m",
  "0.1*x^2 - 1/(3*(a + b)^2) + 2.5e-300", "-(x + 1)^-1", "1/(x + y)^2 - 3/(x*(a + 1))",
};

static CmlExprCtx *
new_ctx (const char ***sym_text)
{
  CmlExprCtx *ctx = cml_expr_ctx_new ();

  for (guint i = 0; i < G_N_ELEMENTS (symbol_names); i++)
    cml_expr_ctx_intern (ctx, symbol_names[i]);
  *sym_text = g_new0 (const char *, G_N_ELEMENTS (symbol_names));
  for (guint i = 0; i < G_N_ELEMENTS (symbol_names); i++)
    (*sym_text)[i] = symbol_names[i];
  return ctx;
}

static CmlExpr *
P (CmlExprCtx *ctx, const char *text)
{
  g_autoptr (GError) error = NULL;
  CmlExpr *e = cml_expr_parse (ctx, text, NULL, &error);

  if (error)
    g_error ("\"%s\" does not parse: %s", text, error->message);
  return e;
}

static void
test_code_roundtrip (void)
{
  g_autofree const char **sym_text = NULL;
  g_autoptr (CmlExprCtx) ctx = new_ctx (&sym_text);
  g_autoptr (GHashTable) none = g_hash_table_new (NULL, NULL);
  CmlExprNames names = { none, sym_text };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      CmlExpr *e = P (ctx, texts[i]);
      g_autoptr (GString) s = g_string_new (NULL);

      cml_expr_print_code (e, CML_CODE_CMLAB, &names, s);
      if (P (ctx, s->str) != e)
        g_error ("\"%s\" is written \"%s\", which parses to another node", texts[i], s->str);
    }
}

/* Every part of E with an operand, named c_1 in turn: the text with the name, the name
 * replaced by the part, is E again. */
static void
test_code_shared (void)
{
  g_autofree const char **sym_text = NULL;
  g_autoptr (CmlExprCtx) ctx = new_ctx (&sym_text);
  int c1 = cml_expr_ctx_lookup (ctx, "c_1");

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      CmlExpr *e = P (ctx, texts[i]);
      /* each of the other texts that is a part of E, named: written by its name */
      g_autoptr (GHashTable) shared = g_hash_table_new (NULL, NULL);
      CmlExprNames names = { shared, sym_text };
      for (guint j = 0; j < G_N_ELEMENTS (texts); j++)
        {
          CmlExpr *part = P (ctx, texts[j]);
          g_autoptr (GString) s = g_string_new (NULL);
          CmlExpr *repl[1] = { part };
          int ids[1] = { c1 };

          if (part == e || cml_expr_symbol_id (part) >= 0 || cml_expr_is_number (part, NULL))
            continue;
          g_hash_table_remove_all (shared);
          g_hash_table_insert (shared, part, (gpointer) "c_1");
          cml_expr_print_code (e, CML_CODE_CMLAB, &names, s);
          if (cml_expr_subs (ctx, P (ctx, s->str), 1, ids, repl) != e)
            g_error ("\"%s\" with \"%s\" named c_1 is written \"%s\", which is another expression", texts[i],
                     texts[j], s->str);
        }
    }
}

static void
test_latex_balanced (void)
{
  g_autofree const char **sym_text = NULL;
  g_autoptr (CmlExprCtx) ctx = new_ctx (&sym_text);
  g_autoptr (GHashTable) none = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) tex_names = g_ptr_array_new_with_free_func (g_free);
  CmlExprNames names = { none, NULL };

  for (guint i = 0; i < G_N_ELEMENTS (symbol_names); i++)
    g_ptr_array_add (tex_names, cml_expr_latex_name (symbol_names[i]));
  names.sym_text = (const char *const *) tex_names->pdata;
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GString) s = g_string_new (NULL);
      int depth = 0;
      const char *p;
      guint left = 0, right = 0;

      cml_expr_print_latex (P (ctx, texts[i]), &names, s);
      for (p = s->str; *p; p++)
        {
          if (*p == '\\' && (p[1] == '{' || p[1] == '}'))
            p++;
          else if (*p == '{')
            depth++;
          else if (*p == '}')
            g_assert_cmpint (--depth, >=, 0);
        }
      g_assert_cmpint (depth, ==, 0);
      for (p = s->str; (p = strstr (p, "\\left")) != NULL; p++)
        left++;
      for (p = s->str; (p = strstr (p, "\\right")) != NULL; p++)
        right++;
      g_assert_cmpuint (left, ==, right);
    }
}

static void
test_latex_names (void)
{
  static const char *const cases[][2] = {
    { "x", "x" }, { "Omega", "\\Omega" }, { "k2", "k_{2}" }, { "lambda_roll", "\\lambda_{\\mathrm{roll}}" },
    { "q_1", "q_{1}" }, { "energy", "\\mathrm{energy}" }, { "w12", "w_{12}" }, { "theta_2", "\\theta_{2}" },
    { "roll_x_y", "\\mathrm{roll}_{\\mathrm{x\\_y}}" }, { "_k", "\\mathrm{\\_k}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *t = cml_expr_latex_name (cases[i][0]);
      g_assert_cmpstr (t, ==, cases[i][1]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/expr-export/code-roundtrip", test_code_roundtrip);
  g_test_add_func ("/core/expr-export/code-shared", test_code_shared);
  g_test_add_func ("/core/expr-export/latex-balanced", test_latex_balanced);
  g_test_add_func ("/core/expr-export/latex-names", test_latex_names);
  return g_test_run ();
}
