/* cml-equations-export.h — the derived equations of a system for other programs: LaTeX,
 * a SymPy script, JSON (`cmlab-cli info MODEL --format latex|sympy|json`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-system.h"

G_BEGIN_DECLS

typedef enum
{
  CML_EQUATIONS_LATEX, /* amsmath align* blocks, to \input into a document */
  CML_EQUATIONS_SYMPY, /* a Python script that builds the expressions with SymPy */
  CML_EQUATIONS_JSON,  /* names, units, values, expressions in cmlab's syntax */
} CmlEquationsFormat;

/* "latex", "sympy" or "json"; FALSE for another name. */
gboolean cml_equations_format_from_string (const char *name, CmlEquationsFormat *format);

/* The equations of motion of SYS (the right-hand side in the state's order), and where the
 * system has them the constraint multipliers, the constraint functions kept by projection,
 * the conserved quantities and the constraint algorithm's steps, in FORMAT; PARAMS are the
 * parameters' values written with them (model order; NULL: the model's).  Parts shared
 * between the expressions are named once (c_1, c_2, …) and used by name.  The layout of
 * each format is described in doc/export.md. */
char *cml_system_export_equations (CmlSystem *sys, const double *params, CmlEquationsFormat format);

G_END_DECLS
