/* cml-program.c — compiles expressions into a flat register program.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Compilation walks the DAG of all outputs depth-first (post-order, so operands come
 * before their users) and gives every node one register, computed by one or a few
 * instructions.  Each value has a tier: constant, slow (depends on parameters and
 * constants only) or fast (depends on time/state).  An instruction goes into the slow
 * code when all its operands are constant or slow, else into the fast code; sums and
 * products are folded as chains with their constant and slow operands first, so their
 * slow part is computed once by cml_program_prepare().
 *
 * Register file: [0, n_fast) fast inputs, [n_fast, n_fast + n_slow) slow inputs, then
 * constants and computed values.  cml_program_prepare() writes the constants and slow
 * inputs and runs the slow code; cml_program_run() copies the fast inputs, runs the
 * fast code and copies the outputs — no allocation, no look-ups.  Both run the
 * interpreter's own form of the code (cml-program-run.c); native code runs the same
 * program written out as C (cml-program-emit-c.c).
 *
 * Powers: x^n for integer |n| <= 64 by squaring and multiplying (x^2 = x*x, x^3 = x^2*x,
 * intermediate powers shared with the rest of the program), x^-n = 1/x^n, x^0.5 = sqrt,
 * x^(k+1/2) = x^k*sqrt(x); other powers through pow().  In a product, factors with
 * negative exponents are collected into one denominator: a*b/(c*d^2).
 */
#define G_LOG_DOMAIN "cml-program"

#include "cml-program-private.h"
#include "cml-expr-private.h"
#include "cml-error.h"
#include "cml-native.h"

#include <math.h>
#include <string.h>

/* ---- compiler ------------------------------------------------------------------------- */

enum
{
  TIER_CONST = 0,
  TIER_SLOW = 1,
  TIER_FAST = 2,
};

typedef struct
{
  guint reg;
  int   tier;
} Val;

#define NO_VAL ((Val) { G_MAXUINT, -1 })

typedef struct
{
  CmlExprCtx *ctx;
  GHashTable *memo;       /* CmlExpr* -> encoded Val */
  GHashTable *consts;     /* double* (bits) -> register + 1 */
  GHashTable *emitted;    /* Instr* (op and operands) -> encoded Val of its result */
  GArray     *const_reg;  /* guint */
  GArray     *const_val;  /* double */
  GArray     *slow_code;  /* Instr */
  GArray     *fast_code;  /* Instr */
  guint       n_regs;
  int        *sym_tier;   /* per symbol id: -1 when not an input */
  guint      *sym_reg;
  GError    **error;
  gboolean    failed;
} Compiler;

static inline gpointer
val_encode (Val v)
{
  return GSIZE_TO_POINTER (((gsize) v.reg << 2 | (gsize) v.tier) + 1);
}

static inline Val
val_decode (gpointer p)
{
  gsize x = GPOINTER_TO_SIZE (p) - 1;
  Val v = { (guint) (x >> 2), (int) (x & 3) };

  return v;
}

static guint
double_bits_hash (gconstpointer p)
{
  guint64 bits;

  memcpy (&bits, p, sizeof bits);
  return (guint) (bits ^ (bits >> 29));
}

static gboolean
double_bits_equal (gconstpointer a,
                   gconstpointer b)
{
  return memcmp (a, b, sizeof (double)) == 0;
}

static Val
const_val (Compiler *c,
           double    value)
{
  gpointer found = g_hash_table_lookup (c->consts, &value);
  Val v = { 0, TIER_CONST };
  double *key;

  if (found != NULL)
    {
      v.reg = GPOINTER_TO_UINT (found) - 1;
      return v;
    }
  v.reg = c->n_regs++;
  key = g_new (double, 1);
  *key = value;
  g_hash_table_insert (c->consts, key, GUINT_TO_POINTER (v.reg + 1));
  g_array_append_val (c->const_reg, v.reg);
  g_array_append_val (c->const_val, value);
  return v;
}

static guint
instr_hash (gconstpointer p)
{
  const Instr *i = p;

  return ((i->op * 31u + i->a) * 31u + i->b) * 31u + i->c;
}

static gboolean
instr_equal (gconstpointer p,
             gconstpointer q)
{
  const Instr *i = p, *j = q;

  return i->op == j->op && i->a == j->a && i->b == j->b && i->c == j->c;
}

/* Emits D = OP (A, B, C) (unused operands: NO_VAL) into the code of its tier — once: the
 * same operation on the same registers, which the folding of sums and products into
 * chains produces for shared prefixes (a + b in a + b + c and a + b + d), is the register
 * already computed. */
static Val
emit (Compiler *c,
      Op        op,
      Val       a,
      Val       b,
      Val       x)
{
  Instr ins = { op, 0, a.reg, b.reg, x.reg };
  gpointer found = g_hash_table_lookup (c->emitted, &ins);
  Val d;

  if (found != NULL)
    return val_decode (found);
  d.tier = MAX (TIER_SLOW, MAX (a.tier, MAX (b.tier, x.tier)));
  d.reg = c->n_regs++;
  ins.d = d.reg;
  g_array_append_val (d.tier == TIER_FAST ? c->fast_code : c->slow_code, ins);
  g_hash_table_insert (c->emitted, g_memdup2 (&ins, sizeof ins), val_encode (d));
  return d;
}

static inline Val
emit1 (Compiler *c,
       Op        op,
       Val       a)
{
  return emit (c, op, a, NO_VAL, NO_VAL);
}

static inline Val
emit2 (Compiler *c,
       Op        op,
       Val       a,
       Val       b)
{
  return emit (c, op, a, b, NO_VAL);
}

static Val compile_node (Compiler *c, CmlExpr *e);

static int
val_tier_cmp (const void *pa,
              const void *pb)
{
  const Val *a = pa, *b = pb;

  if (a->tier != b->tier)
    return a->tier - b->tier;
  return a->reg < b->reg ? -1 : a->reg > b->reg;
}

/* Π V (N >= 1), constant and slow operands first. */
static Val
emit_product (Compiler *c,
              Val      *v,
              guint     n)
{
  Val acc;

  qsort (v, n, sizeof (Val), val_tier_cmp);
  acc = v[0];
  for (guint i = 1; i < n; i++)
    acc = v[i].reg == acc.reg ? emit1 (c, OP_SQR, acc) : emit2 (c, OP_MUL, acc, v[i]);
  return acc;
}

static Val
compile_pow (Compiler *c,
             CmlExpr  *e)
{
  CmlExprCtx *ctx = c->ctx;
  CmlExpr *base = e->args[0], *exp = e->args[1];
  Val b, v;
  double ev;

  if (!cml_expr_is_number (exp, &ev))
    {
      b = compile_node (c, base);
      v = compile_node (c, exp);
      return emit2 (c, OP_POW, b, v);
    }

  if (ev < 0.0 && (cml_expr_double_is_int (2.0 * ev) && ev >= -64.0))
    {
      /* x^-n = 1/x^n */
      v = compile_node (c, cml_expr_pow (ctx, base, cml_expr_num (ctx, -ev)));
      return emit1 (c, OP_RECIP, v);
    }
  if (ev == 0.5)
    return emit1 (c, OP_SQRT, compile_node (c, base));
  if (ev == 1.0)
    return compile_node (c, base);
  if (cml_expr_double_is_int (ev) && ev >= 2.0 && ev <= 64.0)
    {
      int n = (int) ev;

      /* x^2k = (x^k)^2, x^(2k+1) = x^2k * x */
      if (n % 2 == 0)
        return emit1 (c, OP_SQR, compile_node (c, cml_expr_powi (ctx, base, n / 2)));
      return emit2 (c, OP_MUL, compile_node (c, cml_expr_powi (ctx, base, n - 1)),
                    compile_node (c, base));
    }
  if (cml_expr_double_is_int (2.0 * ev) && ev >= 1.5 && ev <= 64.0)
    {
      /* x^(k+1/2) = x^k * sqrt(x) */
      Val k = compile_node (c, cml_expr_powi (ctx, base, (int) floor (ev)));
      Val s = compile_node (c, cml_expr_pow (ctx, base, cml_expr_num (ctx, 0.5)));

      return emit2 (c, OP_MUL, k, s);
    }
  b = compile_node (c, base);
  return emit2 (c, OP_POW, b, const_val (c, ev));
}

/* COEF * Π factors.  Factors with negative numeric exponents form the denominator.  The
 * slow part, slow numerator / slow denominator, is computed once in prepare; the fast
 * code then multiplies by the fast numerator and divides by the fast denominator. */
static Val
compile_mul (Compiler *c,
             CmlExpr  *e)
{
  Val *num = g_new (Val, e->n + 1);
  Val *den = g_new (Val, e->n);
  guint n_num = 0, n_den = 0, n_slow_num = 0, n_slow_den = 0;
  Val acc = NO_VAL, result = NO_VAL;
  gboolean have = FALSE;

  for (guint i = 0; i < e->n && !c->failed; i++)
    {
      CmlExpr *f = e->args[i];
      double ev;

      if (f->kind == CML_EXPR_POW && cml_expr_is_number (f->args[1], &ev) && ev < 0.0)
        den[n_den++] = compile_node (c, cml_expr_pow (c->ctx, f->args[0],
                                                      cml_expr_num (c->ctx, -ev)));
      else
        num[n_num++] = compile_node (c, f);
    }
  if (c->failed)
    goto out;
  if (e->value != 1.0)
    num[n_num++] = const_val (c, e->value);

  /* constant and slow operands first */
  qsort (num, n_num, sizeof (Val), val_tier_cmp);
  qsort (den, n_den, sizeof (Val), val_tier_cmp);
  while (n_slow_num < n_num && num[n_slow_num].tier != TIER_FAST)
    n_slow_num++;
  while (n_slow_den < n_den && den[n_slow_den].tier != TIER_FAST)
    n_slow_den++;

  if (n_slow_num > 0)
    {
      acc = emit_product (c, num, n_slow_num);
      have = TRUE;
    }
  if (n_slow_den > 0)
    {
      Val d = emit_product (c, den, n_slow_den);

      acc = have ? emit2 (c, OP_DIV, acc, d) : emit1 (c, OP_RECIP, d);
      have = TRUE;
    }
  for (guint i = n_slow_num; i < n_num; i++)
    {
      if (!have)
        acc = num[i];
      else
        acc = num[i].reg == acc.reg ? emit1 (c, OP_SQR, acc) : emit2 (c, OP_MUL, acc, num[i]);
      have = TRUE;
    }
  if (n_den > n_slow_den)
    {
      Val d = emit_product (c, den + n_slow_den, n_den - n_slow_den);

      acc = have ? emit2 (c, OP_DIV, acc, d) : emit1 (c, OP_RECIP, d);
    }
  result = acc;

out:
  g_free (num);
  g_free (den);
  return result;
}

typedef struct
{
  Val    v;
  double coef;
} WTerm;

static int
wterm_cmp (const void *pa,
           const void *pb)
{
  const WTerm *a = pa, *b = pb;

  if (a->v.tier != b->v.tier)
    return a->v.tier - b->v.tier;
  if ((a->coef == 1.0) != (b->coef == 1.0))
    return a->coef == 1.0 ? -1 : 1;
  return a->v.reg < b->v.reg ? -1 : a->v.reg > b->v.reg;
}

/* Adds K * V to the accumulator ACC (which may be empty). */
static Val
accumulate (Compiler *c,
            Val       acc,
            gboolean  have,
            double    k,
            Val       v)
{
  if (!have)
    {
      if (k == 1.0)
        return v;
      if (k == -1.0)
        return emit1 (c, OP_NEG, v);
      return emit2 (c, OP_MUL, const_val (c, k), v);
    }
  if (k == 1.0)
    return emit2 (c, OP_ADD, acc, v);
  if (k == -1.0)
    return emit2 (c, OP_SUB, acc, v);
  return emit (c, OP_MULADD, acc, const_val (c, k), v);
}

/* CONST + Σ coef_i * term_i.  The constant and slow terms are summed in prepare; the fast
 * terms are added in up to four interleaved chains so that the additions of a long sum
 * do not all wait for one another. */
static Val
compile_add (Compiler *c,
             CmlExpr  *e)
{
  WTerm *t = g_new (WTerm, e->n);
  Val acc[4] = { NO_VAL, NO_VAL, NO_VAL, NO_VAL };
  gboolean have[4] = { FALSE, FALSE, FALSE, FALSE };
  guint n_slow = 0, n_fast, n_chains;

  for (guint i = 0; i < e->n && !c->failed; i++)
    {
      t[i].v = compile_node (c, e->args[i]);
      t[i].coef = e->coefs[i];
    }
  if (c->failed)
    {
      g_free (t);
      return NO_VAL;
    }

  /* constant and slow terms, then fast terms (those with coefficient 1 first) */
  qsort (t, e->n, sizeof (WTerm), wterm_cmp);
  if (e->value != 0.0)
    {
      acc[0] = const_val (c, e->value);
      have[0] = TRUE;
    }
  while (n_slow < e->n && t[n_slow].v.tier != TIER_FAST)
    {
      acc[0] = accumulate (c, acc[0], have[0], t[n_slow].coef, t[n_slow].v);
      have[0] = TRUE;
      n_slow++;
    }

  n_fast = e->n - n_slow;
  n_chains = n_fast < 4 ? 1 : n_fast < 12 ? 2 : 4;
  for (guint i = 0; i < n_fast; i++)
    {
      guint j = i % n_chains;
      const WTerm *x = &t[n_slow + i];

      acc[j] = accumulate (c, acc[j], have[j], x->coef, x->v);
      have[j] = TRUE;
    }
  if (n_chains == 4)
    {
      acc[0] = emit2 (c, OP_ADD, acc[0], acc[2]);
      acc[1] = emit2 (c, OP_ADD, acc[1], acc[3]);
    }
  if (n_chains >= 2)
    acc[0] = emit2 (c, OP_ADD, acc[0], acc[1]);
  g_free (t);
  return acc[0];
}

#define FUNC_OP_CASE(ARG, NAME, TEXT, ARITY, VALUE) \
  case CML_FN_##NAME: return OP_##NAME;

static Op
func_op (CmlFunc fn)
{
  switch (fn)
    {
      CML_FUNC_LIST (FUNC_OP_CASE, 0)
    default: g_assert_not_reached ();
    }
  return OP_NEG;
}
#undef FUNC_OP_CASE

static Val
compile_node (Compiler *c,
              CmlExpr  *e)
{
  gpointer found;
  Val v;

  if (c->failed)
    return NO_VAL;
  found = g_hash_table_lookup (c->memo, e);
  if (found != NULL)
    return val_decode (found);

  switch ((CmlExprKind) e->kind)
    {
    case CML_EXPR_NUM:
      v = const_val (c, e->value);
      break;

    case CML_EXPR_SYM:
      if (c->sym_tier[e->sym] < 0)
        {
          g_set_error (c->error, CML_ERROR, CML_ERROR_UNKNOWN_NAME,
                       "symbol '%s' is not an input of the program",
                       cml_expr_ctx_symbol_name (c->ctx, e->sym));
          c->failed = TRUE;
          return NO_VAL;
        }
      v.reg = c->sym_reg[e->sym];
      v.tier = c->sym_tier[e->sym];
      break;

    case CML_EXPR_ADD:
      v = compile_add (c, e);
      break;

    case CML_EXPR_MUL:
      v = compile_mul (c, e);
      break;

    case CML_EXPR_POW:
      v = compile_pow (c, e);
      break;

    case CML_EXPR_FUNC:
      v = compile_node (c, e->args[0]);
      if (!c->failed)
        v = emit1 (c, func_op ((CmlFunc) e->fn), v);
      break;

    case CML_EXPR_FUNC2:
      {
        Val a = compile_node (c, e->args[0]);
        Val b = compile_node (c, e->args[1]);

        v = c->failed ? NO_VAL : emit2 (c, OP_ATAN2, a, b);
      }
      break;

    default:
      g_assert_not_reached ();
    }

  if (c->failed)
    return NO_VAL;
  g_hash_table_insert (c->memo, e, val_encode (v));
  return v;
}

CmlProgram *
cml_program_compile (CmlExprCtx      *ctx,
                     CmlExpr *const  *outputs,
                     guint            n_outputs,
                     const int       *slow_ids,
                     guint            n_slow,
                     const int       *fast_ids,
                     guint            n_fast,
                     GError         **error)
{
  Compiler c = { 0 };
  CmlProgram *prog;
  guint n_syms, n_run;

  g_return_val_if_fail (ctx != NULL, NULL);
  g_return_val_if_fail (n_outputs == 0 || outputs != NULL, NULL);
  g_return_val_if_fail (n_slow == 0 || slow_ids != NULL, NULL);
  g_return_val_if_fail (n_fast == 0 || fast_ids != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  n_syms = cml_expr_ctx_n_symbols (ctx);
  c.ctx = ctx;
  c.error = error;
  c.memo = g_hash_table_new (NULL, NULL);
  c.emitted = g_hash_table_new_full (instr_hash, instr_equal, g_free, NULL);
  c.consts = g_hash_table_new_full (double_bits_hash, double_bits_equal, g_free, NULL);
  c.const_reg = g_array_new (FALSE, FALSE, sizeof (guint));
  c.const_val = g_array_new (FALSE, FALSE, sizeof (double));
  c.slow_code = g_array_new (FALSE, FALSE, sizeof (Instr));
  c.fast_code = g_array_new (FALSE, FALSE, sizeof (Instr));
  c.sym_tier = g_new (int, n_syms + 1);
  c.sym_reg = g_new0 (guint, n_syms + 1);
  for (guint i = 0; i < n_syms; i++)
    c.sym_tier[i] = -1;

  prog = g_new0 (CmlProgram, 1);
  prog->n_outputs = n_outputs;
  prog->n_slow = n_slow;
  prog->n_fast = n_fast;
  prog->slow_reg = g_new (guint, n_slow + 1);
  prog->out_reg = g_new (guint, n_outputs + 1);

  /* inputs: fast ones win when a symbol is listed twice */
  c.n_regs = n_fast + n_slow;
  for (guint k = 0; k < n_fast; k++)
    {
      int id = fast_ids[k];

      if (id >= 0 && (guint) id < n_syms && c.sym_tier[id] < 0)
        {
          c.sym_tier[id] = TIER_FAST;
          c.sym_reg[id] = k;
        }
    }
  for (guint k = 0; k < n_slow; k++)
    {
      int id = slow_ids[k];

      prog->slow_reg[k] = n_fast + k;
      if (id >= 0 && (guint) id < n_syms && c.sym_tier[id] < 0)
        {
          c.sym_tier[id] = TIER_SLOW;
          c.sym_reg[id] = n_fast + k;
        }
    }

  for (guint i = 0; i < n_outputs && !c.failed; i++)
    prog->out_reg[i] = compile_node (&c, outputs[i]).reg;

  prog->n_regs = c.n_regs;
  prog->n_consts = c.const_reg->len;
  prog->const_reg = (guint *) g_array_free (c.const_reg, FALSE);
  prog->const_val = (double *) g_array_free (c.const_val, FALSE);
  prog->n_slow_code = c.slow_code->len;
  prog->slow_code = (Instr *) g_array_free (c.slow_code, FALSE);
  prog->n_fast_code = c.fast_code->len;
  prog->fast_code = (Instr *) g_array_free (c.fast_code, FALSE);

  g_hash_table_unref (c.memo);
  g_hash_table_unref (c.emitted);
  g_hash_table_unref (c.consts);
  g_free (c.sym_tier);
  g_free (c.sym_reg);

  if (c.failed)
    {
      cml_program_free (prog);
      return NULL;
    }
  prog->slow_run = cml_program_translate (prog->slow_code, prog->n_slow_code, FALSE, prog->n_regs,
                                          NULL, 0, &n_run);
  prog->fast_run = cml_program_translate (prog->fast_code, prog->n_fast_code, TRUE, prog->n_regs,
                                          prog->out_reg, prog->n_outputs, &prog->n_fast_run);
  return prog;
}

void
cml_program_free (CmlProgram *prog)
{
  if (prog == NULL)
    return;
  g_free (prog->slow_reg);
  g_free (prog->out_reg);
  g_free (prog->const_reg);
  g_free (prog->const_val);
  g_free (prog->slow_code);
  g_free (prog->fast_code);
  g_free (prog->slow_run);
  g_free (prog->fast_run);
  g_free (prog);
}

/* ---- the program as a binary record (the derived-system cache) ----------------------- */

void
cml_program_write (const CmlProgram *prog, GByteArray *out)
{
  cml_bytes_put_u32 (out, prog->n_regs);
  cml_bytes_put_u32 (out, prog->n_outputs);
  cml_bytes_put_u32 (out, prog->n_slow);
  cml_bytes_put_u32 (out, prog->n_fast);
  cml_bytes_put_u32 (out, prog->n_consts);
  cml_bytes_put_u32 (out, prog->n_slow_code);
  cml_bytes_put_u32 (out, prog->n_fast_code);
  cml_bytes_put (out, prog->slow_reg, prog->n_slow * sizeof (guint));
  cml_bytes_put (out, prog->out_reg, prog->n_outputs * sizeof (guint));
  cml_bytes_put (out, prog->const_reg, prog->n_consts * sizeof (guint));
  cml_bytes_put (out, prog->const_val, prog->n_consts * sizeof (double));
  cml_bytes_put (out, prog->slow_code, prog->n_slow_code * sizeof (Instr));
  cml_bytes_put (out, prog->fast_code, prog->n_fast_code * sizeof (Instr));
}

/* Whether CODE (N instructions) writes registers of its own, each once (WRITTEN marks
 * them), and reads registers that exist. */
static gboolean
code_valid (const Instr *code, guint n, guint n_inputs, guint n_regs, guint8 *written)
{
  for (guint i = 0; i < n; i++)
    {
      const Instr *ins = &code[i];
      guint arity = ins->op == OP_MULADD ? 3 : (ins->op == OP_ADD || ins->op == OP_SUB || ins->op == OP_MUL
                                                || ins->op == OP_DIV || ins->op == OP_POW || ins->op == OP_ATAN2)
                                                 ? 2
                                                 : 1;
      const guint32 opnd[3] = { ins->a, ins->b, ins->c };

      if (ins->op > OP_ATAN2 || ins->d < n_inputs || ins->d >= n_regs || written[ins->d])
        return FALSE;
      written[ins->d] = 1;
      for (guint j = 0; j < arity; j++)
        if (opnd[j] >= n_regs)
          return FALSE;
    }
  return TRUE;
}

CmlProgram *
cml_program_read (CmlBytesReader *r, guint n_fast, guint n_slow, guint n_outputs)
{
  g_autoptr (CmlProgram) prog = g_new0 (CmlProgram, 1);
  g_autofree guint8 *written = NULL;
  guint n_run;

  prog->n_regs = cml_bytes_get_u32 (r);
  prog->n_outputs = cml_bytes_get_u32 (r);
  prog->n_slow = cml_bytes_get_u32 (r);
  prog->n_fast = cml_bytes_get_u32 (r);
  prog->n_consts = cml_bytes_get_u32 (r);
  prog->n_slow_code = cml_bytes_get_u32 (r);
  prog->n_fast_code = cml_bytes_get_u32 (r);
  /* every register is an input, a constant or an instruction's result (cml_program_compile) */
  if (r->bad || prog->n_fast != n_fast || prog->n_slow != n_slow || prog->n_outputs != n_outputs
      || (guint64) prog->n_regs
           != (guint64) n_fast + n_slow + prog->n_consts + prog->n_slow_code + prog->n_fast_code)
    {
      r->bad = TRUE;
      return NULL;
    }
  prog->slow_reg = cml_bytes_get_array (r, prog->n_slow, sizeof (guint));
  prog->out_reg = cml_bytes_get_array (r, prog->n_outputs, sizeof (guint));
  prog->const_reg = cml_bytes_get_array (r, prog->n_consts, sizeof (guint));
  prog->const_val = cml_bytes_get_array (r, prog->n_consts, sizeof (double));
  prog->slow_code = cml_bytes_get_array (r, prog->n_slow_code, sizeof (Instr));
  prog->fast_code = cml_bytes_get_array (r, prog->n_fast_code, sizeof (Instr));
  if (r->bad)
    return NULL;

  written = g_new0 (guint8, MAX (prog->n_regs, 1));
  for (guint k = 0; k < n_slow; k++)
    if (prog->slow_reg[k] != n_fast + k)
      r->bad = TRUE;
  for (guint k = 0; k < prog->n_consts && !r->bad; k++)
    {
      guint reg = prog->const_reg[k];
      if (reg < n_fast + n_slow || reg >= prog->n_regs || written[reg])
        r->bad = TRUE;
      else
        written[reg] = 1;
    }
  if (r->bad || !code_valid (prog->slow_code, prog->n_slow_code, n_fast + n_slow, prog->n_regs, written)
      || !code_valid (prog->fast_code, prog->n_fast_code, n_fast + n_slow, prog->n_regs, written))
    {
      r->bad = TRUE;
      return NULL;
    }
  for (guint i = 0; i < prog->n_outputs; i++)
    if (prog->out_reg[i] >= prog->n_regs)
      {
        r->bad = TRUE;
        return NULL;
      }
  prog->slow_run = cml_program_translate (prog->slow_code, prog->n_slow_code, FALSE, prog->n_regs, NULL, 0, &n_run);
  prog->fast_run = cml_program_translate (prog->fast_code, prog->n_fast_code, TRUE, prog->n_regs, prog->out_reg,
                                          prog->n_outputs, &prog->n_fast_run);
  return g_steal_pointer (&prog);
}

guint
cml_program_n_registers (const CmlProgram *prog)
{
  g_return_val_if_fail (prog != NULL, 0);

  return prog->n_regs;
}

guint
cml_program_n_outputs (const CmlProgram *prog)
{
  g_return_val_if_fail (prog != NULL, 0);

  return prog->n_outputs;
}

guint
cml_program_n_fast_instructions (const CmlProgram *prog)
{
  g_return_val_if_fail (prog != NULL, 0);

  return prog->n_fast_code;
}
