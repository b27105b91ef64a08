/* cml-program-private.h — the layout of a register program, shared by its compiler
 * (cml-program.c) and its interpreter (cml-program-run.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-program.h"

G_BEGIN_DECLS

/* the arithmetic, then one instruction per built-in function (cml-expr-functions.h),
 * atan2 last */
#define OP_FROM_FUNC_ENUM(ARG, NAME, TEXT, ARITY, VALUE) OP_##NAME,
typedef enum
{
  OP_NEG,
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_MULADD,  /* d = a + b*c */
  OP_SQR,
  OP_RECIP,
  OP_POW,
  CML_FUNC_LIST (OP_FROM_FUNC_ENUM, 0)
} Op;

typedef struct
{
  guint32 op;
  guint32 d, a, b, c;
} Instr;

typedef struct _Code Code;

struct _CmlProgram
{
  guint   n_regs;
  guint   n_outputs;
  guint   n_slow;
  guint   n_fast;
  guint  *slow_reg;
  guint  *out_reg;
  guint   n_consts;
  guint  *const_reg;
  double *const_val;
  Instr  *slow_code;
  guint   n_slow_code;
  Instr  *fast_code;
  guint   n_fast_code;
  /* the interpreter's form of the code (cml_program_translate()) */
  Code   *slow_run;
  Code   *fast_run;
  guint   n_fast_run;
};

/* The instructions of the compiler, each with the interpreter's statement for it (which
 * cml_program_emit_c also writes out as the C of native code). */
#define OP_FROM_FUNC(X, NAME, TEXT, ARITY, VALUE) X (OP_##NAME, r[ins->d] = VALUE)
#define OP_LIST(X) \
  X (OP_NEG, r[ins->d] = -r[ins->a]) \
  X (OP_ADD, r[ins->d] = r[ins->a] + r[ins->b]) \
  X (OP_SUB, r[ins->d] = r[ins->a] - r[ins->b]) \
  X (OP_MUL, r[ins->d] = r[ins->a] * r[ins->b]) \
  X (OP_DIV, r[ins->d] = r[ins->a] / r[ins->b]) \
  X (OP_MULADD, r[ins->d] = r[ins->a] + r[ins->b] * r[ins->c]) \
  X (OP_SQR, r[ins->d] = r[ins->a] * r[ins->a]) \
  X (OP_RECIP, r[ins->d] = 1.0 / r[ins->a]) \
  X (OP_POW, r[ins->d] = pow (r[ins->a], r[ins->b])) \
  CML_FUNC_LIST (OP_FROM_FUNC, X)

/* The interpreter's form of CODE (cml-program-run.c). */
Code *cml_program_translate (const Instr *code, guint n, gboolean fuse_ops, guint n_regs,
                             const guint *out_reg, guint n_out, guint *n_code);

G_END_DECLS
