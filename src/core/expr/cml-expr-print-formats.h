/* cml-expr-print-formats.h — expressions written for other programs: as code (SymPy's
 * Python, or cmlab's own expression language) and as LaTeX, with named shared
 * subexpressions (what the exported equations are made of: cml-equations-export.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Derived equations share subexpressions, and a text that writes a shared part at every
 * use can grow exponentially; these printers write a node listed in NAMES->shared by its
 * name instead (the caller writes "name = definition" once, in dependency order).  The
 * root itself is always written out, so a definition prints with the same call.
 */
#pragma once

#include <glib.h>

#include "cml-expr.h"

G_BEGIN_DECLS

typedef enum
{
  CML_CODE_SYMPY, /* Python with SymPy imported as sp: sp.sin (x)**2, sp.Rational (1, 3) */
  CML_CODE_CMLAB, /* the model files' language: sin(x)^2, 1/3, 9.81 (parses back) */
} CmlCodeSyntax;

typedef struct
{
  GHashTable        *shared;   /* const CmlExpr* -> const char*: written by that name */
  const char *const *sym_text; /* symbol id -> how a symbol is written */
} CmlExprNames;

/* E as code in SYNTAX, appended to OUT.  Numbers read back as the same doubles. */
void  cml_expr_print_code (const CmlExpr *e, CmlCodeSyntax syntax, const CmlExprNames *names,
                           GString *out);
/* E as LaTeX math (amsmath), appended to OUT: \frac, \sqrt, \sin\left(q\right),
 * \left|x\right|; symbols as NAMES->sym_text has them (see cml_expr_latex_name). */
void  cml_expr_print_latex (const CmlExpr *e, const CmlExprNames *names, GString *out);
/* A model's symbol NAME in LaTeX: Greek letters for their names (Omega -> \Omega), the
 * trailing digits or the part after the first underscore a subscript (k2 -> k_{2},
 * lambda_c -> \lambda_{c}), a longer word upright (energy -> \mathrm{energy}). */
char *cml_expr_latex_name (const char *name);

/* ---- what both printers decide alike about a factor F of a product ROOT is part of ---- */

/* F's base, and its exponent: a number (*E_NUM, with *EXP NULL) or an expression (*EXP). */
const CmlExpr *cml_expr_factor_parts (const CmlExpr *f, double *e_num, const CmlExpr **exp);
/* Whether F is written by its name in NAMES (never ROOT, the expression being defined). */
gboolean       cml_expr_factor_is_named (const CmlExprNames *names, const CmlExpr *root,
                                         const CmlExpr *f);
/* Whether F goes to the denominator: a numeric exponent < 0, and not written by name. */
gboolean       cml_expr_factor_in_denominator (const CmlExprNames *names, const CmlExpr *root,
                                               const CmlExpr *f);

G_END_DECLS
