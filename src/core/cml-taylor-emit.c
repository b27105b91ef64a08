/* cml-taylor-emit.c — a Taylor program written out as C: one function that sweeps the
 * orders k = 0 … p − 1 with the dimension, the order and every row fixed in the text, and
 * calls the kernels the interpreter calls (cml-taylor-kernels.inc), in the same order, so
 * that native code and interpreter compute the same numbers bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-taylor"

#include "cml-taylor-private.h"
#include "cml-expr-private.h"
#include "cml-program.h"

#include <math.h>
#include <string.h>

/* V as an exact C hexadecimal literal in parentheses, as the programs' C text writes it. */
static void
append_hex (GString *s, double v)
{
  g_string_append_c (s, '(');
  cml_program_append_c_double (s, v);
  g_string_append_c (s, ')');
}

/* The libm function of a T_DP or T_DQ operation's value at order 0: the model language's
 * name of its function, which is libm's; NULL for none. */
static const char *
f0_name (guint8 fn)
{
  const char *name = cml_expr_func_name ((CmlFunc) fn);
  return g_str_equal (name, "?") ? NULL : name;
}

gboolean
cml_taylor_emit_c (const CmlTaylor *tp, const char *name, GString *s)
{
  const guint N = tp->N, P = tp->order;
  const TOp *ops = (const TOp *) tp->ops->data;

  g_string_append_printf (s, "/* cmlab Taylor program, generator version %d: dimension %u, order %u */\n",
                          CML_TAYLOR_GENERATOR_VERSION, tp->dim, P);
  g_string_append (s, taylor_kernels_text ());
  g_string_append_printf (s, "\nvoid %s (double *restrict S, const double *restrict C)\n{\n"
                             "  for (int k = 0; k < %u; k++)\n    {\n      if (k > 0)\n        {\n",
                          name, P);
  for (guint i = 0; i < tp->dim; i++)
    g_string_append_printf (s, "          S[%u + k] = S[%u + k - 1] / k;\n", (1 + i) * N, tp->f_row[i] * N);
  g_string_append (s, "        }\n");
  for (guint j = 0; j < tp->ops->len; j++)
    {
      const TOp *o = &ops[j];
      guint D = o->d * N, A = o->a >= 0 ? o->a * N : 0, B = o->b >= 0 ? o->b * N : 0;
      guint Q = o->q >= 0 ? o->q * N : 0;

      g_string_append (s, "      ");
      switch (o->op)
        {
        case T_CONST:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? C[%d] : 0.0;\n", D, o->c);
          break;
        case T_LIN:
          {
            const TTerm *t = &g_array_index (tp->terms, TTerm, o->first);
            g_string_append_printf (s, "{ double s = k == 0 ? C[%d] : 0.0;", o->c);
            for (guint i = 0; i < o->n; i++)
              {
                if (t[i].src < 0)
                  {
                    g_string_append (s, " if (k == 0) s += ");
                    append_hex (s, t[i].w);
                    g_string_append_printf (s, " * C[%d];", -1 - t[i].src);
                  }
                else
                  {
                    g_string_append (s, " s += ");
                    append_hex (s, t[i].w);
                    g_string_append_printf (s, " * S[%u + k];", (guint) t[i].src * N);
                  }
              }
            g_string_append_printf (s, " S[%u + k] = s; }\n", D);
            break;
          }
        case T_SCALE:
          g_string_append_printf (s, "S[%u + k] = C[%d] * S[%u + k];\n", D, o->c, A);
          break;
        case T_MUL:
          g_string_append_printf (s, "S[%u + k] = tk_mul (S + %u, S + %u, k);\n", D, A, B);
          break;
        case T_SQR:
          g_string_append_printf (s, "S[%u + k] = tk_sqr (S + %u, k);\n", D, A);
          break;
        case T_MULC:
          g_string_append_printf (s, "S[%u + k] = 0.0 + S[%u + k] * S[%u];\n", D, A, B);
          break;
        case T_DIV:
          g_string_append_printf (s, "S[%u + k] = tk_div (S + %u, S[%u + k], S + %u, k);\n", D, D, A, B);
          break;
        case T_DIVC:
          g_string_append_printf (s, "S[%u + k] = tk_div (S + %u, k == 0 ? C[%d] : 0.0, S + %u, k);\n", D, D, o->c, B);
          break;
        case T_SQRT:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? sqrt (S[%u]) : tk_sqrt (S + %u, S + %u, k);\n", D, A, D, A);
          break;
        case T_POWR:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? pow (S[%u], C[%d]) : tk_powr (S + %u, S + %u, C[%d], k);\n",
                                  D, A, o->c, D, A, o->c);
          break;
        case T_DP:
        case T_DQ:
          if (f0_name (o->fn) == NULL)
            return FALSE;
          g_string_append_printf (s, "S[%u + k] = k == 0 ? %s (S[%u]) : ", D, f0_name (o->fn), A);
          if (o->op == T_DP)
            g_string_append_printf (s, "tk_dp (S + %u, S + %u, ", A, Q);
          else
            g_string_append_printf (s, "tk_dq (S + %u, S + %u, S + %u, ", D, A, Q);
          append_hex (s, o->sg);
          g_string_append (s, ", k);\n");
          break;
        case T_ATAN2:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? atan2 (S[%u], S[%u]) : tk_atan2 (S + %u, S + %u, S + %u, S + %u, k);\n",
                                  D, A, B, D, A, B, Q);
          break;
        case T_ABS:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? fabs (S[%u]) : tk_abs_factor (S[%u]) * S[%u + k];\n", D, A, A, A);
          break;
        case T_SIGN:
          g_string_append_printf (s, "S[%u + k] = k == 0 ? tk_sign (S[%u]) : 0.0;\n", D, A);
          break;
        default:
          return FALSE;
        }
    }
  g_string_append (s, "    }\n");
  for (guint i = 0; i < tp->dim; i++)
    g_string_append_printf (s, "  S[%u] = S[%u] / %u;\n", (1 + i) * N + P, tp->f_row[i] * N + P - 1, P);
  g_string_append (s, "}\n\n");
  return TRUE;
}

void
cml_taylor_set_native (CmlTaylor *tp, CmlNative *native, const char *name)
{
  g_clear_pointer (&tp->native, cml_native_free);
  tp->native_fn = NULL;
  if (native == NULL)
    return;
  tp->native = native;
  tp->native_fn = (TaylorNativeFunc) (void (*) (void)) cml_native_lookup (native, name);
}
