/* cml-expr-functions.h — the built-in functions of model expressions, in one table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CML_FUNC_LIST (X, ARG) calls X (ARG, NAME, TEXT, ARITY, VALUE) for each function:
 * CML_FN_NAME names it (cml-expr.h), TEXT is how model files and printed expressions write
 * it, ARITY its number of arguments, and VALUE its value as the interpreter's C operand text,
 * r[ins->a] (and r[ins->b]) standing for the arguments.  The same VALUE is what the
 * interpreter runs (OP_LIST, cml-program-private.h), what native code compiles (the program
 * emitter writes that statement out) and what the tree evaluator and the constant folder
 * compute (cml_func_value below) — so that every path computes the same bits.  The
 * derivatives (cml-expr-calculus.c) and the Taylor recurrences (cml-taylor.c) are
 * mathematics of each function: they switch over CmlFunc without a default, so that a
 * function added here without them is a compiler warning.
 *
 * The order is that of CmlFunc; atan2, the one function of two arguments, is last.
 */
#pragma once

#include <math.h>

#define CML_FUNC_LIST(X, ARG) \
  X (ARG, SIN, "sin", 1, sin (r[ins->a])) \
  X (ARG, COS, "cos", 1, cos (r[ins->a])) \
  X (ARG, TAN, "tan", 1, tan (r[ins->a])) \
  X (ARG, ASIN, "asin", 1, asin (r[ins->a])) \
  X (ARG, ACOS, "acos", 1, acos (r[ins->a])) \
  X (ARG, ATAN, "atan", 1, atan (r[ins->a])) \
  X (ARG, SINH, "sinh", 1, sinh (r[ins->a])) \
  X (ARG, COSH, "cosh", 1, cosh (r[ins->a])) \
  X (ARG, TANH, "tanh", 1, tanh (r[ins->a])) \
  X (ARG, EXP, "exp", 1, exp (r[ins->a])) \
  X (ARG, LOG, "log", 1, log (r[ins->a])) \
  X (ARG, SQRT, "sqrt", 1, sqrt (r[ins->a])) \
  X (ARG, ABS, "abs", 1, fabs (r[ins->a])) \
  X (ARG, SIGN, "sign", 1, r[ins->a] > 0.0 ? 1.0 : r[ins->a] < 0.0 ? -1.0 : 0.0) \
  X (ARG, ATAN2, "atan2", 2, atan2 (r[ins->a], r[ins->b]))

#define CML_FUNC_ENUM(ARG, NAME, TEXT, ARITY, VALUE) CML_FN_##NAME,

/* CML_FN_ATAN2 is the function of two arguments, atan2 (y, x); CML_FN_SIGN is the
 * derivative of abs, sign (0) = 0 */
typedef enum
{
  CML_FUNC_LIST (CML_FUNC_ENUM, 0)
} CmlFunc;

#undef CML_FUNC_ENUM

/* The value of the function FN (a CmlFunc) at A (and B, for a function of two arguments):
 * VALUE, with the arguments in the places it reads them from. */
#define CML_FUNC_CASE(ARG, NAME, TEXT, ARITY, VALUE) \
  case CML_FN_##NAME: return VALUE;

static inline double
cml_func_value (CmlFunc fn, double a, double b)
{
  const double r[2] = { a, b };
  const struct
  {
    unsigned a, b;
  } args = { 0, 1 }, *ins = &args;

  switch (fn)
    {
      CML_FUNC_LIST (CML_FUNC_CASE, 0)
    default:
      return NAN;
    }
}

#undef CML_FUNC_CASE
