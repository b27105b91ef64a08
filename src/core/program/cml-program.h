/* cml-program.h — expressions compiled into flat register programs, the fast way to
 * evaluate them many times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * (The C emission of a program's fast code is declared in cml-native.h.)
 */
#pragma once

#include <glib.h>

#include "cml-bytes.h"
#include "cml-expr.h"

G_BEGIN_DECLS

typedef struct _CmlProgram CmlProgram;

/* Compiles OUTPUTS into a flat register program.  Inputs come in two tiers: SLOW symbols
 * (parameters: change rarely) and FAST symbols (time and state: change every call).
 * Every instruction that depends on slow inputs only is run by cml_program_prepare();
 * cml_program_run() executes only the rest.  Shared subexpressions are computed once.
 * A symbol that occurs in an output but is in neither list is an error
 * (CML_ERROR_UNKNOWN_NAME, naming the symbol). */
CmlProgram *cml_program_compile (CmlExprCtx      *ctx,
                                 CmlExpr *const  *outputs,
                                 guint            n_outputs,
                                 const int       *slow_ids,
                                 guint            n_slow,
                                 const int       *fast_ids,
                                 guint            n_fast,
                                 GError         **error);
void  cml_program_free (CmlProgram *prog);
/* Size of the register file (doubles) the caller allocates for prepare/run. */
guint cml_program_n_registers (const CmlProgram *prog);
guint cml_program_n_outputs (const CmlProgram *prog);
/* Number of instructions of the fast code, each one operation of native code (a cost
 * measure; the interpreter runs fewer, cml_program_n_dispatches). */
guint cml_program_n_fast_instructions (const CmlProgram *prog);
/* Number of operations the interpreter dispatches in cml_program_run: at most
 * cml_program_n_fast_instructions(), less where it merges an instruction into the one
 * that uses its result. */
guint cml_program_n_dispatches (const CmlProgram *prog);
/* The interpreter's fast code as text, one operation a line: its name, the register it
 * writes and those it reads ("MUL_MUL_L r26 = r13 r5 r6").  For tests and debugging. */
char *cml_program_describe (const CmlProgram *prog);
/* As cml_program_run(), but runs the compiler's instructions one by one, none merged into
 * another: the reference the merged operations must match bit for bit.  Allocates; for
 * tests. */
void  cml_program_run_unmerged (const CmlProgram *prog, const double *fast, double *regs,
                                double *out);
/* At least the number of bytes cml_program_emit_c() writes for PROG as the function NAME
 * (and not much more), without writing it: native code is requested only for programs
 * whose C stays within CML_PROGRAM_MAX_C_BYTES; larger ones run in the interpreter. */
gsize cml_program_estimate_c_size (const CmlProgram *prog, const char *name);
/* Which of the fast inputs (0: t, 1 … n_state: the state, then aux) the program reads,
 * into READ (n_fast entries, 1 or 0): an instruction's operand or an output. */
void  cml_program_inputs_read (const CmlProgram *prog, guint8 *read);
/* Appends the finite V as an exact C hexadecimal literal (what "%a" writes in the C
 * locale), as the generated C text writes its numbers. */
void  cml_program_append_c_double (GString *s, double v);
guint cml_program_n_fast_inputs (const CmlProgram *prog);
#define CML_PROGRAM_MAX_C_BYTES (4 * 1024 * 1024)
/* Fills the slow part of REGS from SLOW (n_slow values, in compile order).
 * Call once after the parameters change.  No allocation. */
void  cml_program_prepare (const CmlProgram *prog, const double *slow, double *regs);
/* Evaluates all outputs into OUT from FAST (n_fast values) and the prepared REGS.
 * No allocation, no name look-ups; REGS must not be shared between threads. */
void  cml_program_run (const CmlProgram *prog, const double *fast, double *regs, double *out);

/* The program as a binary record (cml-bytes.h), for the derived-system cache. */
void  cml_program_write (const CmlProgram *prog, GByteArray *out);
/* The program that cml_program_write() wrote, checked before it is used: every register
 * an input, a constant or written once by an instruction, every register read within the
 * register file, every operation one the interpreter knows, N_FAST and N_SLOW inputs and
 * N_OUTPUTS outputs.  NULL, and R marked bad, when the record is not such a program. */
CmlProgram *cml_program_read (CmlBytesReader *r, guint n_fast, guint n_slow, guint n_outputs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlProgram, cml_program_free)

G_END_DECLS
