/* cml-program-run.c — the interpreter of register programs: cml_program_prepare() and
 * cml_program_run() on the interpreter's own threaded code, in which an operation whose
 * result has one use is merged into its user.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-program"

#include "cml-program-private.h"

#include <math.h>
#include <string.h>

/* The interpreter runs its own form of the code (Code, built once by
 * cml_program_translate()): every instruction carries the address of its operation's body
 * (threaded dispatch: a computed goto at the end of every body, so the branch predictor
 * learns the sequence of operations instead of sharing one indirect jump), and the code
 * ends in OP_END instead of a count.  In the fast code, an operation whose result has no
 * other use is merged into the one that uses it: one dispatch for a*b - c*d instead of
 * three (fuse()), for a*(b - c*d) instead of three, for a chain of weighted products
 * k1*(x1*y1) + k2*(x2*y2) + k3*(x3*y3) instead of six (OP_KPROD_SUM).  A merged
 * operation computes exactly what its parts computed, in the same order, each part rounded
 * as before (no fused multiply-add: the sources are compiled with -ffp-contract=off), so
 * native code, which is written from the unmerged instructions, stays bit for bit the
 * same.
 *
 * OP_LIST (cml-program-private.h) holds the instructions of the compiler, FUSED_LIST the
 * merged operations only the interpreter runs. */
#define FUSED_LIST(X) \
  X (OP_MUL_MUL_L, r[ins->d] = (r[ins->a] * r[ins->b]) * r[ins->c]) \
  X (OP_MUL_MUL_R, r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->c])) \
  X (OP_MUL_SQR_R, r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->b])) \
  X (OP_MUL_ADD_L, r[ins->d] = (r[ins->a] + r[ins->b]) * r[ins->c]) \
  X (OP_MUL_ADD_R, r[ins->d] = r[ins->a] * (r[ins->b] + r[ins->c])) \
  X (OP_MUL_SUB_L, r[ins->d] = (r[ins->a] - r[ins->b]) * r[ins->c]) \
  X (OP_MUL_SUB_R, r[ins->d] = r[ins->a] * (r[ins->b] - r[ins->c])) \
  X (OP_DIV_MUL_L, r[ins->d] = (r[ins->a] * r[ins->b]) / r[ins->c]) \
  X (OP_ADD_MUL_L, r[ins->d] = r[ins->a] * r[ins->b] + r[ins->c]) \
  X (OP_SUB_MUL_L, r[ins->d] = r[ins->a] * r[ins->b] - r[ins->c]) \
  X (OP_SUB_MUL_R, r[ins->d] = r[ins->a] - r[ins->b] * r[ins->c]) \
  X (OP_ADD_MUL_MUL, r[ins->d] = r[ins->a] * r[ins->b] + r[ins->c] * r[ins->e]) \
  X (OP_SUB_MUL_MUL, r[ins->d] = r[ins->a] * r[ins->b] - r[ins->c] * r[ins->e]) \
  X (OP_MULADD_MUL_R, r[ins->d] = r[ins->a] + r[ins->b] * (r[ins->c] * r[ins->e])) \
  X (OP_MUL_MULADD_R, r[ins->d] = r[ins->a] * (r[ins->b] + r[ins->c] * r[ins->e])) \
  X (OP_MUL_SUB_MUL_R_R, r[ins->d] = r[ins->a] * (r[ins->b] - r[ins->c] * r[ins->e])) \
  X (OP_MUL_ADD_MUL_L_R, r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->c] + r[ins->e])) \
  X (OP_MUL_SUB_MUL_L_R, r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->c] - r[ins->e])) \
  X (OP_MUL_ADD_MUL_MUL_R, \
     r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->c] + r[ins->e] * r[ins->f])) \
  X (OP_MUL_SUB_MUL_MUL_R, \
     r[ins->d] = r[ins->a] * (r[ins->b] * r[ins->c] - r[ins->e] * r[ins->f])) \
  X (OP_MUL_MULADD_L, r[ins->d] = (r[ins->a] + r[ins->b] * r[ins->c]) * r[ins->f]) \
  X (OP_MUL_SUB_MUL_R_L, r[ins->d] = (r[ins->a] - r[ins->b] * r[ins->c]) * r[ins->f]) \
  X (OP_MUL_ADD_MUL_L_L, r[ins->d] = (r[ins->a] * r[ins->b] + r[ins->c]) * r[ins->f]) \
  X (OP_MUL_SUB_MUL_L_L, r[ins->d] = (r[ins->a] * r[ins->b] - r[ins->c]) * r[ins->f]) \
  X (OP_MUL_ADD_MUL_MUL_L, \
     r[ins->d] = (r[ins->a] * r[ins->b] + r[ins->c] * r[ins->e]) * r[ins->f]) \
  X (OP_MUL_SUB_MUL_MUL_L, \
     r[ins->d] = (r[ins->a] * r[ins->b] - r[ins->c] * r[ins->e]) * r[ins->f])

#define OP_ENUM(OPC, STMT) OPC,
enum
{
  OP_FUSED_BEFORE = OP_ATAN2,  /* numbered after the compiler's instructions */
  FUSED_LIST (OP_ENUM)
  /* d = ((k1*(x1*y1) + k2*(x2*y2)) + k3*(x3*y3)) + …: a chain of MUL_MUL_R and
   * MULADD_MUL_R (a weighted sum of products), its A terms in the B slots after it */
  OP_KPROD_SUM,
  OP_END,
  N_CODE_OPS
};
#undef OP_ENUM

G_STATIC_ASSERT (OP_MUL_MUL_L == OP_ATAN2 + 1);

/* One instruction of the interpreter: the address of its body (threaded dispatch) or,
 * without GNU C, its operation, then the register it writes and up to five it reads. */
struct _Code
{
  union
  {
    struct
    {
      union
      {
        const void *label;
        guintptr    op;
      };
      guint32 d, a, b, c, e, f;
    };
    guint32 w[8];  /* the operands of a long operation, in the slots after its first */
  };
};

G_STATIC_ASSERT (sizeof (Code) == 8 * sizeof (guint32));

/* The operand words of a long operation at INS: those of the slots after it, read as one
 * array (the slots are contiguous). */
#define CODE_WORDS(INS) ((const guint32 *) (const void *) ((INS) + 1))

/* Runs an OP_KPROD_SUM at INS and moves INS past its operands: the same operations in the
 * same order as the chain it replaces. */
#define KPROD_SUM_BODY \
  do \
    { \
      const guint32 *w = CODE_WORDS (ins); \
      double acc = r[w[0]] * (r[w[1]] * r[w[2]]); \
      for (guint32 i = 1; i < ins->a; i++) \
        acc = acc + r[w[3 * i]] * (r[w[3 * i + 1]] * r[w[3 * i + 2]]); \
      r[ins->d] = acc; \
      ins += 1 + ins->b; \
    } \
  while (0)

#if defined(__GNUC__)

/* Runs CODE (ending in OP_END) on the register file R.  Called with LABELS != NULL, only
 * gives the table of the operations' bodies, by operation. */
static void
execute (const Code          *code,
         double *restrict     r,
         const void *const  **labels)
{
#define LABEL_ADDRESS(OPC, STMT) [OPC] = &&label_##OPC,
  static const void *const table[N_CODE_OPS] = {
    OP_LIST (LABEL_ADDRESS)
    FUSED_LIST (LABEL_ADDRESS)
    [OP_KPROD_SUM] = &&label_OP_KPROD_SUM,
    [OP_END] = &&label_OP_END,
  };
#undef LABEL_ADDRESS
  const Code *ins = code;

  if (G_UNLIKELY (labels != NULL))
    {
      *labels = table;
      return;
    }
  goto *ins->label;

/* (the empty asm, different in every body, keeps GCC from merging the bodies' identical
 * ends, which would share one indirect jump between several operations) */
#define OP_BODY(OPC, STMT) \
  label_##OPC: \
    STMT; \
    ins++; \
    __asm__ volatile ("# " #OPC); \
    goto *ins->label;
  OP_LIST (OP_BODY)
  FUSED_LIST (OP_BODY)
#undef OP_BODY
label_OP_KPROD_SUM:
  KPROD_SUM_BODY;
  __asm__ volatile ("# OP_KPROD_SUM");
  goto *ins->label;
label_OP_END:
  return;
}

static guintptr
code_op_word (guint op)
{
  const void *const *table = NULL;

  execute (NULL, NULL, &table);
  return (guintptr) table[op];
}

#define CODE_SET_OP(CODE, OP) ((CODE)->label = (const void *) code_op_word (OP))
#define code_op_word_of(CODE) ((guintptr) (CODE)->label)

#else

static void
execute (const Code          *code,
         double *restrict     r,
         const void *const  **labels)
{
  (void) labels;
  for (const Code *ins = code;; ins++)
    {
      switch (ins->op)
        {
#define OP_CASE(OPC, STMT) case OPC: STMT; break;
          OP_LIST (OP_CASE)
          FUSED_LIST (OP_CASE)
#undef OP_CASE
        case OP_KPROD_SUM:
          KPROD_SUM_BODY;
          ins--;  /* the loop's ins++ */
          break;
        case OP_END:
          return;
        default:
          g_assert_not_reached ();
        }
    }
}

#define CODE_SET_OP(CODE, OP) ((CODE)->op = (OP))
#define code_op_word(OP) ((guintptr) (OP))
#define code_op_word_of(CODE) ((CODE)->op)

#endif

/* Registers that operation OP reads: 1 to 3, in order a, b, c. */
static guint
op_arity (guint32 op)
{
  switch (op)
    {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_POW: case OP_ATAN2:
      return 2;
    case OP_MULADD:
      return 3;
    default:
      return 1;
    }
}

/* Merges into instruction X the producers of its operands P[0..2] (NULL: an operand
 * that is not the single use of a value computed just for it) where a merged operation
 * exists; marks the merged producers in USED.  Returns the interpreter's instruction, its
 * operation in *OP (the label is set later). */
static Code
fuse (const Instr  *x,
      const Instr  *p[3],
      gboolean      used[3],
      guint32      *op_out)
{
  Code k = { .d = x->d, .a = x->a, .b = x->b, .c = x->c, .e = G_MAXUINT32, .f = G_MAXUINT32 };
  guint32 op = x->op;
  guint32 pa = p[0] ? p[0]->op : G_MAXUINT32;
  guint32 pb = p[1] ? p[1]->op : G_MAXUINT32;
  guint32 pc = p[2] ? p[2]->op : G_MAXUINT32;

#define TAKE(I) (used[I] = TRUE)
  switch (x->op)
    {
    case OP_MUL:
      if (pa == OP_MUL)
        op = OP_MUL_MUL_L, k.a = p[0]->a, k.b = p[0]->b, k.c = x->b, TAKE (0);
      else if (pb == OP_MUL)
        op = OP_MUL_MUL_R, k.b = p[1]->a, k.c = p[1]->b, TAKE (1);
      else if (pb == OP_SQR)
        op = OP_MUL_SQR_R, k.b = p[1]->a, TAKE (1);
      else if (pb == OP_SUB || pb == OP_ADD)
        op = pb == OP_SUB ? OP_MUL_SUB_R : OP_MUL_ADD_R, k.b = p[1]->a, k.c = p[1]->b, TAKE (1);
      else if (pa == OP_SUB || pa == OP_ADD)
        op = pa == OP_SUB ? OP_MUL_SUB_L : OP_MUL_ADD_L, k.a = p[0]->a, k.b = p[0]->b, k.c = x->b,
        TAKE (0);
      break;
    case OP_DIV:
      if (pa == OP_MUL)
        op = OP_DIV_MUL_L, k.a = p[0]->a, k.b = p[0]->b, k.c = x->b, TAKE (0);
      break;
    case OP_ADD:
    case OP_SUB:
      if (pa == OP_MUL && pb == OP_MUL)
        op = x->op == OP_ADD ? OP_ADD_MUL_MUL : OP_SUB_MUL_MUL, k.a = p[0]->a, k.b = p[0]->b,
        k.c = p[1]->a, k.e = p[1]->b, TAKE (0), TAKE (1);
      else if (pb == OP_MUL)
        op = x->op == OP_ADD ? OP_MULADD : OP_SUB_MUL_R, k.b = p[1]->a, k.c = p[1]->b, TAKE (1);
      else if (pa == OP_MUL)
        op = x->op == OP_ADD ? OP_ADD_MUL_L : OP_SUB_MUL_L, k.a = p[0]->a, k.b = p[0]->b,
        k.c = x->b, TAKE (0);
      break;
    case OP_MULADD:
      if (pc == OP_MUL)
        op = OP_MULADD_MUL_R, k.c = p[2]->a, k.e = p[2]->b, TAKE (2);
      break;
    default:
      break;
    }
#undef TAKE
  *op_out = op;
  return k;
}

/* The operation a*(…) (LEFT: (…)*b) where … is an operation OP of the sum of two terms
 * (OP_MUL: none). */
static guint32
merge_outer_mul (guint32  op,
                 gboolean left)
{
  switch (op)
    {
    case OP_MULADD: return left ? OP_MUL_MULADD_L : OP_MUL_MULADD_R;
    case OP_SUB_MUL_R: return left ? OP_MUL_SUB_MUL_R_L : OP_MUL_SUB_MUL_R_R;
    case OP_ADD_MUL_L: return left ? OP_MUL_ADD_MUL_L_L : OP_MUL_ADD_MUL_L_R;
    case OP_SUB_MUL_L: return left ? OP_MUL_SUB_MUL_L_L : OP_MUL_SUB_MUL_L_R;
    case OP_ADD_MUL_MUL: return left ? OP_MUL_ADD_MUL_MUL_L : OP_MUL_ADD_MUL_MUL_R;
    case OP_SUB_MUL_MUL: return left ? OP_MUL_SUB_MUL_MUL_L : OP_MUL_SUB_MUL_MUL_R;
    default: return OP_MUL;
    }
}

/* Appends instruction K with operation OP to OUT; an OP_KPROD_SUM takes its N terms
 * (TERMS, three registers each) into the slots after it. */
static void
append_code (GArray        *out,
             Code           k,
             guint32        op,
             const guint32 *terms,
             guint          n)
{
  CODE_SET_OP (&k, op);
  if (op == OP_KPROD_SUM)
    {
      guint n_slots = (3 * n + 7) / 8;

      k.a = n;
      k.b = n_slots;
      g_array_append_val (out, k);
      for (guint s = 0; s < n_slots; s++)
        {
          Code w;

          memset (&w, 0xff, sizeof w);
          for (guint j = 0; j < 8 && 8 * s + j < 3 * n; j++)
            w.w[j] = terms[8 * s + j];
          g_array_append_val (out, w);
        }
    }
  else
    g_array_append_val (out, k);
}

/* The interpreter's form of CODE (N instructions), ending in OP_END.  With FUSE, an
 * instruction whose result is read once, by a later instruction of CODE, and is not one
 * of the N_OUT registers OUT_REG, may be merged into that instruction, and chains of
 * weighted products into one OP_KPROD_SUM.  The number of operations run into N_CODE. */
Code *
cml_program_translate (const Instr *code,
                       guint        n,
                       gboolean     fuse_ops,
                       guint        n_regs,
                       const guint *out_reg,
                       guint        n_out,
                       guint       *n_code)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Code), n + 1);
  Code end;
  guint m = 0;

  if (fuse_ops && n > 0)
    {
      g_autofree guint *uses = g_new0 (guint, n_regs);
      g_autofree guint *def = g_new (guint, n_regs);
      g_autofree gboolean *merged = g_new0 (gboolean, n);  /* merged into its user */
      g_autofree gboolean *fused = g_new0 (gboolean, n);   /* has merged a producer */
      g_autofree Code *k = g_new (Code, n);
      g_autofree guint32 *ops = g_new (guint32, n);
      g_autofree GArray **terms = g_new0 (GArray *, n);    /* of an OP_KPROD_SUM */

      for (guint r = 0; r < n_regs; r++)
        def[r] = G_MAXUINT;
      for (guint i = 0; i < n_out; i++)
        uses[out_reg[i]] += 2;
      for (guint i = 0; i < n; i++)
        {
          const guint32 *opnd = &code[i].a;

          def[code[i].d] = i;
          for (guint j = 0; j < op_arity (code[i].op); j++)
            uses[opnd[j]]++;
        }
      for (guint i = 0; i < n; i++)
        {
          const guint32 *opnd = &code[i].a;
          const Instr *p[3] = { NULL, NULL, NULL };
          gboolean used[3] = { FALSE, FALSE, FALSE };
          guint q;

          for (guint j = 0; j < op_arity (code[i].op); j++)
            {
              q = def[opnd[j]];
              if (q < i && uses[opnd[j]] == 1 && !fused[q])
                p[j] = &code[q];
            }
          k[i] = fuse (&code[i], p, used, &ops[i]);
          for (guint j = 0; j < 3; j++)
            if (used[j])
              {
                merged[def[opnd[j]]] = TRUE;
                fused[i] = TRUE;
              }

          /* a*(…) or (…)*b where … is a merged operation of the sum of two terms, read
           * only here (the right operand first, as for the other merges) */
          for (guint side = 0; side < 2 && ops[i] == OP_MUL; side++)
            {
              guint32 x = side == 0 ? k[i].b : k[i].a;
              guint32 outer;

              q = def[x];
              if (q >= i || uses[x] != 1 || merged[q]
                  || (outer = merge_outer_mul (ops[q], side == 1)) == OP_MUL)
                continue;
              if (side == 0)
                k[i].b = k[q].a, k[i].c = k[q].b, k[i].e = k[q].c, k[i].f = k[q].e;
              else
                k[i].f = k[i].b, k[i].a = k[q].a, k[i].b = k[q].b, k[i].c = k[q].c, k[i].e = k[q].e;
              ops[i] = outer;
              merged[q] = TRUE;
              fused[i] = TRUE;
            }

          /* acc + k*(x*y) whose acc is k*(x*y) or such a chain, read only here */
          q = def[k[i].a];
          if (ops[i] == OP_MULADD_MUL_R && q < i && uses[k[i].a] == 1 && !merged[q]
              && (ops[q] == OP_MUL_MUL_R || ops[q] == OP_KPROD_SUM))
            {
              guint32 t[3] = { k[i].b, k[i].c, k[i].e };

              if (terms[q] == NULL)
                {
                  guint32 t0[3] = { k[q].a, k[q].b, k[q].c };

                  terms[q] = g_array_new (FALSE, FALSE, sizeof (guint32));
                  g_array_append_vals (terms[q], t0, 3);
                }
              terms[i] = terms[q];
              terms[q] = NULL;
              g_array_append_vals (terms[i], t, 3);
              merged[q] = TRUE;
              fused[i] = TRUE;
              ops[i] = OP_KPROD_SUM;
            }
        }
      for (guint i = 0; i < n; i++)
        if (!merged[i])
          {
            append_code (out, k[i], ops[i], terms[i] ? (guint32 *) terms[i]->data : NULL,
                         terms[i] ? terms[i]->len / 3 : 0);
            m++;
          }
      for (guint i = 0; i < n; i++)
        if (terms[i] != NULL)
          g_array_unref (terms[i]);
    }
  else
    for (guint i = 0; i < n; i++)
      {
        Code k = { .d = code[i].d, .a = code[i].a, .b = code[i].b, .c = code[i].c,
                   .e = G_MAXUINT32, .f = G_MAXUINT32 };

        append_code (out, k, code[i].op, NULL, 0);
        m++;
      }
  memset (&end, 0, sizeof end);
  CODE_SET_OP (&end, OP_END);
  g_array_append_val (out, end);
  *n_code = m;
  return (Code *) g_array_free (out, FALSE);
}

void
cml_program_prepare (const CmlProgram *prog,
                     const double     *slow,
                     double           *regs)
{
  g_return_if_fail (prog != NULL);
  g_return_if_fail (regs != NULL);
  g_return_if_fail (prog->n_slow == 0 || slow != NULL);

  for (guint i = 0; i < prog->n_consts; i++)
    regs[prog->const_reg[i]] = prog->const_val[i];
  for (guint k = 0; k < prog->n_slow; k++)
    regs[prog->slow_reg[k]] = slow[k];
  execute (prog->slow_run, regs, NULL);
}

void
cml_program_run (const CmlProgram *prog,
                 const double     *fast,
                 double           *regs,
                 double           *out)
{
  const guint *restrict out_reg = prog->out_reg;
  guint n_fast = prog->n_fast, n_outputs = prog->n_outputs;

  /* element by element, not memcpy(): the inputs were just written one by one, and the
   * wide loads of memcpy() would wait for those stores to retire instead of taking their
   * values from the store buffer */
  for (guint k = 0; k < n_fast; k++)
    regs[k] = fast[k];
  execute (prog->fast_run, regs, NULL);
  for (guint i = 0; i < n_outputs; i++)
    out[i] = regs[out_reg[i]];
}

void
cml_program_run_unmerged (const CmlProgram *prog,
                          const double     *fast,
                          double           *regs,
                          double           *out)
{
  guint n;
  g_autofree Code *code = NULL;

  g_return_if_fail (prog != NULL);

  code = cml_program_translate (prog->fast_code, prog->n_fast_code, FALSE, prog->n_regs, NULL, 0,
                                &n);
  if (prog->n_fast > 0)
    memcpy (regs, fast, prog->n_fast * sizeof (double));
  execute (code, regs, NULL);
  for (guint i = 0; i < prog->n_outputs; i++)
    out[i] = regs[prog->out_reg[i]];
}

char *
cml_program_describe (const CmlProgram *prog)
{
  static const char *const names[N_CODE_OPS] = {
#define OP_NAME(OPC, STMT) [OPC] = #OPC,
    OP_LIST (OP_NAME)
    FUSED_LIST (OP_NAME)
#undef OP_NAME
    [OP_KPROD_SUM] = "OP_KPROD_SUM",
    [OP_END] = "OP_END",
  };
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (prog != NULL, NULL);

  for (const Code *ins = prog->fast_run;; ins++)
    {
      guint op = 0;

      while (op < OP_END && code_op_word (op) != code_op_word_of (ins))
        op++;
      if (op == OP_END)
        break;
      g_string_append_printf (s, "%s r%u =", names[op] + strlen ("OP_"), ins->d);
      if (op == OP_KPROD_SUM)
        {
          for (guint j = 0; j < 3 * ins->a; j++)
            g_string_append_printf (s, " r%u", CODE_WORDS (ins)[j]);
          ins += ins->b;
        }
      else
        for (const guint32 *r = &ins->a; r <= &ins->f; r++)
          if (*r != G_MAXUINT32)
            g_string_append_printf (s, " r%u", *r);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

guint
cml_program_n_dispatches (const CmlProgram *prog)
{
  g_return_val_if_fail (prog != NULL, 0);

  return prog->n_fast_run;
}
