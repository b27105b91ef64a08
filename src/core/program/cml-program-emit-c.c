/* cml-program-emit-c.c — a compiled program as C source for native code (cml-native.c),
 * and what the native code needs to know of the program: the inputs it reads, the size of
 * its text, the register of each output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Native code (cml-native.c) must compute bit for bit what the interpreter computes, so
 * every instruction becomes the interpreter's own C statement for it (OP_LIST, as text),
 * its registers replaced: the same operations in the same order, no contraction (the
 * source is compiled with -ffp-contract=off and without -ffast-math), the same libm
 * functions.  Fast registers become local variables; constants
 * become exact hexadecimal literals; slow registers are read from the register file that
 * cml_program_prepare() filled.  Nothing of a model's text reaches the source: only
 * numbers and register indices.
 */
#define G_LOG_DOMAIN "cml-program"

#include "cml-program-private.h"
#include "cml-expr-private.h"
#include "cml-error.h"
#include "cml-native.h"

#include <math.h>
#include <string.h>

/* PREFIX, then V in decimal, then SUFFIX: what "PREFIX%uSUFFIX" prints, without printf (the
 * C text is written at every start, to find the cached object by its digest). */
static void
append_uint (GString *s, const char *prefix, guint v, const char *suffix)
{
  char b[12];
  int n = 0;

  g_string_append (s, prefix);
  do
    b[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0)
    g_string_append_c (s, b[--n]);
  g_string_append (s, suffix);
}

/* V as an exact C hexadecimal literal, as "%a" writes it in the C locale — but never with
 * a decimal comma: "%a" follows LC_NUMERIC, and 0x1,33p-1 is not C.  V is finite. */
void
cml_program_append_c_double (GString *s, double v)
{
  guint64 bits, mant;
  int exp;

  memcpy (&bits, &v, sizeof bits);
  mant = bits & G_GUINT64_CONSTANT (0xfffffffffffff);
  exp = (int) ((bits >> 52) & 0x7ff);
  if (bits >> 63)
    g_string_append_c (s, '-');
  if (exp == 0 && mant == 0)
    {
      g_string_append (s, "0x0p+0");
      return;
    }
  /* normal: 1.mant × 2^(exp − 1023); subnormal: 0.mant × 2^−1022 */
  g_string_append (s, exp == 0 ? "0x0" : "0x1");
  if (mant != 0)
    {
      char digits[13];
      int n = 13;
      for (int i = 12; i >= 0; i--, mant >>= 4)
        digits[i] = "0123456789abcdef"[mant & 0xf];
      while (n > 0 && digits[n - 1] == '0')
        n--;
      g_string_append_c (s, '.');
      g_string_append_len (s, digits, n);
    }
  int e = exp == 0 ? -1022 : exp - 1023;
  append_uint (s, e < 0 ? "p-" : "p+", (guint) ABS (e), "");
}

/* Programs of more fast instructions than this are written out as several functions of at
 * most EMIT_PART_INSTRUCTIONS each, called one after the other; smaller ones as one
 * function.  The C compiler's register allocation grows faster than the function it
 * allocates: the 20-link pendulum's 12 000 instructions took GCC 7 s at -O1 or -O2 as one
 * function and 2 s as thirteen, with the same evaluation speed to a few per cent. */
#define EMIT_SPLIT_ABOVE       2000
#define EMIT_PART_INSTRUCTIONS 1000

/* What writing a program's operands needs: which registers the fast code computes
 * (IS_LOCAL) and, for a program written in parts, the part that computes each (PART_OF)
 * and the part being written (PART).  A register computed in another part is read back
 * from the register file R, where its part stored it. */
typedef struct
{
  const CmlProgram *prog;
  const guint8     *is_local;
  const double     *const_of;
  const guint8     *is_const;
  const guint      *part_of; /* NULL: one function */
  guint             part;
  guint             n_state;
} EmitCtx;

static void
emit_operand (GString       *s,
              const EmitCtx *e,
              guint          r)
{
  const CmlProgram *prog = e->prog;

  if (r < prog->n_fast)
    {
      if (r == 0)
        g_string_append (s, "t");
      else if (r <= e->n_state)
        append_uint (s, "z[", r - 1, "]");
      else
        append_uint (s, "aux[", r - 1 - e->n_state, "]");
    }
  else if (e->is_local[r] && (e->part_of == NULL || e->part_of[r] == e->part))
    append_uint (s, "v", r, "");
  else if (e->is_const[r] && isfinite (e->const_of[r]))
    {
      g_string_append_c (s, '(');
      cml_program_append_c_double (s, e->const_of[r]);
      g_string_append_c (s, ')');
    }
  else
    append_uint (s, "R[", r, "]");
}

#define OP_TEXT(OPC, STMT) [OPC] = #STMT,
static const char *const op_text[] = { OP_LIST (OP_TEXT) };
#undef OP_TEXT

/* The statement of instruction INS: the interpreter's own, its registers replaced by C
 * operands. */
static gboolean
emit_statement (GString       *s,
                const EmitCtx *e,
                const Instr   *ins)
{
  const char *p = op_text[ins->op];

  if (!g_str_has_prefix (p, "r[ins->d] = "))
    return FALSE;
  append_uint (s, "  v", ins->d, " = ");
  for (p += strlen ("r[ins->d] = "); *p != '\0';)
    if (g_str_has_prefix (p, "r[ins->") && p[8] == ']')
      {
        emit_operand (s, e, p[7] == 'a' ? ins->a : p[7] == 'b' ? ins->b : ins->c);
        p += strlen ("r[ins->a]");
      }
    else
      g_string_append_c (s, *p++);
  g_string_append (s, ";\n");
  return TRUE;
}

static void
emit_output (GString       *s,
             const EmitCtx *e,
             guint          i,
             guint          n_out0)
{
  if (i < n_out0)
    append_uint (s, "  o0[", i, "] = ");
  else
    append_uint (s, "  o1[", i - n_out0, "] = ");
  emit_operand (s, e, e->prog->out_reg[i]);
  g_string_append (s, ";\n");
}

static const char emit_unused[] = "  (void) t; (void) z; (void) aux; (void) R; (void) o0; (void) o1;\n";

/* The declaration of the locals v<r> the fast code computes in part PART (every part when
 * PART_OF is NULL). */
static void
emit_locals (GString *s, const EmitCtx *e, guint first, guint end)
{
  gboolean any = FALSE;

  for (guint i = first; i < end; i++)
    {
      append_uint (s, any ? ", v" : "  double v", e->prog->fast_code[i].d, "");
      any = TRUE;
    }
  if (any)
    g_string_append (s, ";\n");
}

/* PROG as the function NAME and, before it, its parts NAME_part<k>: part k computes the
 * instructions [k P, (k + 1) P) of the fast code (P = EMIT_PART_INSTRUCTIONS) in locals,
 * stores in R[r] each result r that a later part or NAME reads (where the interpreter
 * keeps it: R is the program's register file, whose fast registers native code does not
 * otherwise use) and writes the outputs it computes.  The prototype of NAME comes first,
 * so that a qualifier written before this text ("static inline ") declares NAME.  The
 * same operations on the same operands: the results are the one function's, bit for
 * bit. */
static gboolean
emit_c_parts (const CmlProgram *prog,
              const char       *name,
              guint             n_out0,
              EmitCtx          *e,
              GString          *s)
{
  guint n_parts = (prog->n_fast_code + EMIT_PART_INSTRUCTIONS - 1) / EMIT_PART_INSTRUCTIONS;
  g_autofree guint *part_of = g_new0 (guint, prog->n_regs + 1);
  g_autofree guint8 *stored = g_new0 (guint8, prog->n_regs + 1);
  g_autofree guint *out_part = g_new (guint, prog->n_outputs + 1);

  for (guint i = 0; i < prog->n_fast_code; i++)
    part_of[prog->fast_code[i].d] = i / EMIT_PART_INSTRUCTIONS;
  /* a result read by a later part is stored */
  for (guint i = 0; i < prog->n_fast_code; i++)
    {
      const Instr *ins = &prog->fast_code[i];
      const char *p = op_text[ins->op];
      guint part = i / EMIT_PART_INSTRUCTIONS;
      guint opnd[3] = { ins->a, ins->b, ins->c };
      for (guint k = 0; k < 3; k++)
        {
          char field[] = { 'r', '[', 'i', 'n', 's', '-', '>', (char) ('a' + k), ']', '\0' };
          guint r = opnd[k];
          if (strstr (p, field) && r < prog->n_regs && e->is_local[r] && part_of[r] != part)
            stored[r] = 1;
        }
    }
  /* an output is written by the part that computes it, else by NAME */
  for (guint i = 0; i < prog->n_outputs; i++)
    {
      guint r = prog->out_reg[i];
      out_part[i] = r < prog->n_regs && e->is_local[r] ? part_of[r] : n_parts;
    }
  e->part_of = part_of;

  g_string_append_printf (s,
                          "void %s (double t, const double *restrict z, const double *restrict aux,\n"
                          "         const double *restrict R, double *restrict o0, double *restrict o1);\n\n",
                          name);
  for (guint k = 0; k < n_parts; k++)
    {
      guint first = k * EMIT_PART_INSTRUCTIONS;
      guint end = MIN (first + EMIT_PART_INSTRUCTIONS, prog->n_fast_code);

      e->part = k;
      g_string_append (s, "static __attribute__ ((noinline)) void\n");
      g_string_append (s, name);
      append_uint (s, "_part", k, " (double t, const double *restrict z, const double *restrict aux,\n");
      g_string_append (s, "  double *restrict R, double *restrict o0, double *restrict o1)\n{\n");
      g_string_append (s, emit_unused);
      emit_locals (s, e, first, end);
      for (guint i = first; i < end; i++)
        {
          const Instr *ins = &prog->fast_code[i];
          if (!emit_statement (s, e, ins))
            return FALSE;
          if (stored[ins->d])
            {
              append_uint (s, "  R[", ins->d, "] = ");
              append_uint (s, "v", ins->d, ";\n");
            }
        }
      for (guint i = 0; i < prog->n_outputs; i++)
        if (out_part[i] == k)
          emit_output (s, e, i, n_out0);
      g_string_append (s, "}\n\n");
    }

  e->part = n_parts;
  g_string_append_printf (s,
                          "void %s (double t, const double *restrict z, const double *restrict aux,\n"
                          "         const double *restrict R, double *restrict o0, double *restrict o1)\n"
                          "{\n",
                          name);
  g_string_append (s, emit_unused);
  for (guint k = 0; k < n_parts; k++)
    {
      g_string_append (s, "  ");
      g_string_append (s, name);
      append_uint (s, "_part", k, " (t, z, aux, (double *) R, o0, o1);\n");
    }
  for (guint i = 0; i < prog->n_outputs; i++)
    if (out_part[i] == n_parts)
      emit_output (s, e, i, n_out0);
  g_string_append (s, "}\n\n");
  return TRUE;
}

gboolean
cml_program_emit_c (const CmlProgram *prog,
                    const char       *name,
                    guint             n_state,
                    guint             n_out0,
                    GString          *s)
{
  g_autofree guint8 *is_local = NULL;
  g_autofree guint8 *is_const = NULL;
  g_autofree double *const_of = NULL;
  guint n_locals = 0;

  g_return_val_if_fail (prog != NULL && name != NULL && s != NULL, FALSE);
  g_return_val_if_fail (n_out0 <= prog->n_outputs, FALSE);

  is_local = g_new0 (guint8, prog->n_regs + 1);
  is_const = g_new0 (guint8, prog->n_regs + 1);
  const_of = g_new0 (double, prog->n_regs + 1);
  for (guint i = 0; i < prog->n_fast_code; i++)
    {
      guint d = prog->fast_code[i].d;
      if (d < prog->n_fast || d >= prog->n_regs)
        return FALSE; /* never emitted by the compiler: an input is never written */
      if (!is_local[d])
        n_locals++;
      is_local[d] = 1;
    }
  for (guint i = 0; i < prog->n_consts; i++)
    {
      is_const[prog->const_reg[i]] = 1;
      const_of[prog->const_reg[i]] = prog->const_val[i];
    }

  EmitCtx e = { prog, is_local, const_of, is_const, NULL, 0, n_state };
  if (prog->n_fast_code > EMIT_SPLIT_ABOVE)
    return emit_c_parts (prog, name, n_out0, &e, s);

  g_string_append_printf (s,
                          "void %s (double t, const double *restrict z, const double *restrict aux,\n"
                          "         const double *restrict R, double *restrict o0, double *restrict o1)\n"
                          "{\n",
                          name);
  /* silence unused-parameter noise in programs that do not read them */
  g_string_append (s, "  (void) t; (void) z; (void) aux; (void) R; (void) o1;\n");
  if (n_locals)
    {
      guint k = 0;
      g_string_append (s, "  double");
      for (guint r = 0; r < prog->n_regs; r++)
        if (is_local[r])
          append_uint (s, k++ ? ", v" : " v", r, "");
      g_string_append (s, ";\n");
    }

  for (guint i = 0; i < prog->n_fast_code; i++)
    if (!emit_statement (s, &e, &prog->fast_code[i]))
      return FALSE;
  for (guint i = 0; i < prog->n_outputs; i++)
    emit_output (s, &e, i, n_out0);
  g_string_append (s, "}\n\n");
  return TRUE;
}

void
cml_program_inputs_read (const CmlProgram *prog, guint8 *read)
{
  g_return_if_fail (prog != NULL && read != NULL);

  memset (read, 0, prog->n_fast);
  for (guint i = 0; i < prog->n_fast_code; i++)
    {
      const Instr *ins = &prog->fast_code[i];
      const char *p = op_text[ins->op];
      /* the operands the instruction's statement uses */
      if (strstr (p, "r[ins->a]") && ins->a < prog->n_fast)
        read[ins->a] = 1;
      if (strstr (p, "r[ins->b]") && ins->b < prog->n_fast)
        read[ins->b] = 1;
      if (strstr (p, "r[ins->c]") && ins->c < prog->n_fast)
        read[ins->c] = 1;
    }
  for (guint i = 0; i < prog->n_outputs; i++)
    if (prog->out_reg[i] < prog->n_fast)
      read[prog->out_reg[i]] = 1;
}

guint
cml_program_n_fast_inputs (const CmlProgram *prog)
{
  return prog->n_fast;
}

/* Each part of cml_program_emit_c's text at its longest: an operand is at most
 * "(-0x1.fffffffffffffp+1023)" (26 bytes) where the interpreter's statement has
 * "r[ins->a]" (9), a statement adds "  v4294967295 = ;\n", a local " v4294967295,", an
 * output "  o0[4294967295] = OPERAND;\n". */
#define EMIT_OPERAND_MAX 26
#define EMIT_HEADER_MAX  400

gsize
cml_program_estimate_c_size (const CmlProgram *prog,
                             const char       *name)
{
  gsize size;

  g_return_val_if_fail (prog != NULL && name != NULL, 0);

  size = EMIT_HEADER_MAX + strlen (name);
  for (guint i = 0; i < prog->n_fast_code; i++)
    size += strlen (op_text[prog->fast_code[i].op]) + 3 * (EMIT_OPERAND_MAX - 9) + 18 + 13;
  size += (gsize) prog->n_outputs * (19 + EMIT_OPERAND_MAX + 2);
  if (prog->n_fast_code > EMIT_SPLIT_ABOVE)
    {
      /* in parts: the prototype; each part's head, its call, its locals' "  double" line;
       * a result's store "  R[4294967295] = v4294967295;\n" */
      gsize n_parts = (prog->n_fast_code + EMIT_PART_INSTRUCTIONS - 1) / EMIT_PART_INSTRUCTIONS;
      size += EMIT_HEADER_MAX + strlen (name);
      size += n_parts * (EMIT_HEADER_MAX + 2 * strlen (name) + 100);
      size += (gsize) prog->n_fast_code * 31;
    }
  return size;
}

guint
cml_program_output_register (const CmlProgram *prog,
                             guint             i,
                             gboolean         *fast)
{
  guint r;

  g_return_val_if_fail (prog != NULL && i < prog->n_outputs, 0);

  r = prog->out_reg[i];
  *fast = r < prog->n_fast;
  for (guint k = 0; k < prog->n_fast_code && !*fast; k++)
    *fast = prog->fast_code[k].d == r;
  return r;
}
