/* cml-taylor-emit.c — a Taylor program written out as C: one function that sweeps the
 * orders k = 0 … p − 1 with the dimension, the order and every row fixed in the text, and
 * calls the kernels the interpreter calls (cml-taylor-kernels.inc), so that native code and
 * interpreter compute the same numbers bit for bit.
 *
 * Changes of form, not of numbers: the operations of an order are written in rounds —
 * every operation whose operands are ready, then every product whose operands are ready —
 * and the products of a round (up to FUSE_MAX at a time) share one loop over j, each with
 * its own running sum, a vector of two lanes
 *
 *   (o_m, e_m) += (a_m[j], a_m[j+1]) (b_m[k − j], b_m[k − j − 1])   (j = 1, 3, 5, … < k − 1),
 *   s_m = o_m + e_m,  then + a_m[k−1] b_m[1] when k − 1 is odd, + a_m[0] b_m[k], + a_m[k] b_m[0],
 *
 * the sums tk_mul forms, term by term in the same order (the newest coefficients last).
 * Every row is written by one operation, so any order in which each operation comes after
 * those it reads gives the same numbers.  One loop exit per round instead of one per
 * product (a loop whose length changes with k ends in a mispredicted branch) and
 * independent sums side by side make the programs of the heavy top and the rigid body
 * 1.7–1.9 times faster; the two lanes, half the instructions in the loop, 1.1 times more
 * (GCC's and Clang's vector extension: SSE2 or NEON, or two scalar operations where
 * there is none, with the same results).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-taylor"

#include "cml-taylor-private.h"
#include "cml-expr-private.h"
#include "cml-program.h"
#include "cml-taylor-core-text.h"

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

/* At most this many products share a loop (more running sums than registers spill). */
#define FUSE_MAX 8

/* One operation's statement at order k. */
static gboolean
emit_op (const CmlTaylor *tp, const TOp *o, GString *s)
{
  const guint N = tp->N;
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
    case T_DPL:
    case T_DQ:
      if (f0_name (o->fn) == NULL)
        return FALSE;
      g_string_append_printf (s, "S[%u + k] = k == 0 ? %s (S[%u]) : ", D, f0_name (o->fn), A);
      if (o->op == T_DP)
        g_string_append_printf (s, "tk_dp (S + %u, S + %u, ", A, Q);
      else if (o->op == T_DPL)
        g_string_append_printf (s, "tk_dpl (S + %u, S + %u, ", A, Q);
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
  return TRUE;
}

/* Products written out together, in one loop over j of two-lane vectors: lane 1 sums the
 * terms of odd j, lane 0 those of even j (the pair j, j + 1 at a time); the two lanes are
 * added, then the last odd term when k − 1 is odd, then the terms of j = 0 and j = k —
 * tk_mul's sum, term by term. */
static void
emit_products (const CmlTaylor *tp, const TOp *const *prod, guint n, GString *s)
{
  const guint N = tp->N;
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_string_append (s, "      { tk_v2 v0 = { 0.0, 0.0 }");
  for (guint m = 1; m < n; m++)
    g_string_append_printf (s, ", v%u = { 0.0, 0.0 }", m);
  g_string_append (s, ";\n        int j = 1;\n        for (; j + 1 < k; j += 2) {");
  /* each first operand once, its pair (a_{j+1}, a_j) */
  for (guint m = 0; m < n; m++)
    {
      guint A = prod[m]->a * N;
      if (g_hash_table_add (seen, GUINT_TO_POINTER (A + 1)))
        g_string_append_printf (s, " const tk_v2 r%u = { S[%u + j + 1], S[%u + j] };", A, A, A);
    }
  for (guint m = 0; m < n; m++)
    g_string_append_printf (s, " v%u += r%u * (tk_v2) { S[%u + k - j - 1], S[%u + k - j] };", m,
                            prod[m]->a * N, prod[m]->b * N, prod[m]->b * N);
  g_string_append (s, " }\n        double s0 = v0[1] + v0[0]");
  for (guint m = 1; m < n; m++)
    g_string_append_printf (s, ", s%u = v%u[1] + v%u[0]", m, m, m);
  g_string_append (s, ";\n        if (j < k) {");
  for (guint m = 0; m < n; m++)
    g_string_append_printf (s, " s%u += S[%u + j] * S[%u + k - j];", m, prod[m]->a * N, prod[m]->b * N);
  g_string_append (s, " }\n        if (k > 0) {");
  for (guint m = 0; m < n; m++)
    g_string_append_printf (s, " s%u += S[%u] * S[%u + k];", m, prod[m]->a * N, prod[m]->b * N);
  g_string_append (s, " }\n       ");
  for (guint m = 0; m < n; m++)
    g_string_append_printf (s, " s%u += S[%u + k] * S[%u];", m, prod[m]->a * N, prod[m]->b * N);
  g_string_append (s, "\n       ");
  for (guint m = 0; m < n; m++)
    g_string_append_printf (s, " S[%u + k] = s%u;", prod[m]->d * N, m);
  g_string_append (s, " }\n");
}

/* Whether every operation before J in the program whose row J reads is written already:
 * then J's statement may come now (an operation reads the rows of later ones — sin and
 * cos of the same argument read each other — only at orders below k). */
static gboolean
ready (const CmlTaylor *tp, const int *writer, const gboolean *done, guint j)
{
  const TOp *o = &g_array_index (tp->ops, TOp, j);
  int rows[3] = { o->a, o->b, o->q };

  for (guint r = 0; r < 3; r++)
    if (rows[r] >= 0 && writer[rows[r]] >= 0 && (guint) writer[rows[r]] < j && !done[writer[rows[r]]])
      return FALSE;
  if (o->op == T_LIN)
    {
      const TTerm *t = &g_array_index (tp->terms, TTerm, o->first);
      for (guint i = 0; i < o->n; i++)
        if (t[i].src >= 0 && writer[t[i].src] >= 0 && (guint) writer[t[i].src] < j && !done[writer[t[i].src]])
          return FALSE;
    }
  return TRUE;
}

gboolean
cml_taylor_emit_c (const CmlTaylor *tp, const char *name, GString *s)
{
  const guint N = tp->N, P = tp->order, n_ops = tp->ops->len;
  const TOp *ops = (const TOp *) tp->ops->data;
  g_autofree int *writer = g_new (int, tp->n_rows);
  g_autofree gboolean *done = g_new0 (gboolean, MAX (n_ops, 1));
  g_autofree const TOp **prod = g_new (const TOp *, MAX (n_ops, 1));

  g_string_append_printf (s, "/* cmlab Taylor program, generator version %d: dimension %u, order %u */\n",
                          CML_TAYLOR_GENERATOR_VERSION, tp->dim, P);
  g_string_append (s, "typedef double tk_v2 __attribute__ ((vector_size (16)));\n");
  g_string_append (s, cml_taylor_kernels_text ());
  g_string_append_printf (s, "\nstatic const double tk_inv[%u] = { 0.0", N);
  for (guint k = 1; k < N; k++)
    {
      g_string_append (s, ", ");
      cml_program_append_c_double (s, tp->inv[k]);
    }
  g_string_append_printf (s, " };\nstatic inline __attribute__ ((always_inline)) void\n"
                             "%s_order (double *restrict S, const double *restrict C, const int k)\n"
                             "    {\n      if (k > 0)\n        {\n",
                          name);
  for (guint i = 0; i < tp->dim; i++)
    g_string_append_printf (s, "          S[%u + k] = S[%u + k - 1] * tk_inv[k];\n", (1 + i) * N, tp->f_row[i] * N);
  g_string_append (s, "        }\n");

  /* each round: every other operation that can come, then the products that can */
  for (guint r = 0; r < tp->n_rows; r++)
    writer[r] = -1;
  for (guint j = 0; j < n_ops; j++)
    writer[ops[j].d] = (int) j;
  for (guint n_done = 0; n_done < n_ops;)
    {
      gboolean more = TRUE;
      while (more)
        {
          more = FALSE;
          for (guint j = 0; j < n_ops; j++)
            if (!done[j] && ops[j].op != T_MUL && ready (tp, writer, done, j))
              {
                if (!emit_op (tp, &ops[j], s))
                  return FALSE;
                done[j] = more = TRUE;
                n_done++;
              }
        }
      guint n_prod = 0;
      for (guint j = 0; j < n_ops; j++)
        if (!done[j] && ops[j].op == T_MUL && ready (tp, writer, done, j))
          prod[n_prod++] = &ops[j];
      for (guint m = 0; m < n_prod; m += FUSE_MAX)
        emit_products (tp, prod + m, MIN (FUSE_MAX, n_prod - m), s);
      for (guint m = 0; m < n_prod; m++)
        done[prod[m] - ops] = TRUE;
      n_done += n_prod;
      if (n_prod == 0 && n_done < n_ops)
        return FALSE; /* not reached: the program's own order is one that works */
    }
  /* order 0 apart when it calls libm, so that sin and cos of one argument, no longer behind
   * k == 0 each, become one sincos call (glibc's gives the bits sin and cos give); without
   * such calls the one loop is the faster (the rigid body 3 %) */
  gboolean peel = FALSE;
  for (guint j = 0; j < n_ops; j++)
    peel = peel || ops[j].op == T_DP || ops[j].op == T_DPL || ops[j].op == T_DQ;
  g_string_append_printf (s, "    }\n\nvoid %s (double *restrict S, const double *restrict C)\n{\n", name);
  if (peel)
    g_string_append_printf (s, "  %s_order (S, C, 0);\n", name);
  g_string_append_printf (s, "  for (int k = %d; k < %u; k++)\n    %s_order (S, C, k);\n", peel ? 1 : 0, P, name);
  for (guint i = 0; i < tp->dim; i++)
    g_string_append_printf (s, "  S[%u] = S[%u] * tk_inv[%u];\n", (1 + i) * N + P, tp->f_row[i] * N + P - 1, P);
  g_string_append (s, "}\n\n");

  /* the whole step around it, with the dimension and the order constants */
  g_string_append_printf (s,
                          "#define TK_STEP_FN %s_step_inline\n#define TK_JET(S, C) %s ((S), (C))\n"
                          "#define TK_EXTRA_PARAMS\n",
                          name, name);
  g_string_append (s, cml_taylor_core_text);
  g_string_append_printf (s,
                          "\nint %s_step (double *S, const double *C, CmlTaylorStep *s);\n"
                          "int\n%s_step (double *S, const double *C, CmlTaylorStep *s)\n{\n"
                          "  return %s_step_inline (S, C, s, %u, %u);\n}\n",
                          name, name, name, tp->dim, N);
  return TRUE;
}

void
cml_taylor_set_native (CmlTaylor *tp, CmlNative *native, const char *name)
{
  g_clear_pointer (&tp->native, cml_native_free);
  tp->native_fn = NULL;
  tp->native_step = NULL;
  tp->native_step_projected = NULL;
  if (native == NULL)
    return;
  tp->native = native;
  tp->native_fn = (TaylorNativeFunc) (void (*) (void)) cml_native_lookup (native, name);
  g_autofree char *step = g_strconcat (name, "_step", NULL);
  g_autofree char *projected = g_strconcat (name, "_step_projected", NULL);
  tp->native_step = tp->native_fn ? (TaylorNativeStep) (void (*) (void)) cml_native_lookup (native, step) : NULL;
  if (tp->native_step)
    tp->native_step_projected =
      (TaylorNativeStepProjected) (void (*) (void)) cml_native_lookup (native, projected);
}

void
cml_taylor_set_fused_projection (CmlTaylor *tp, struct CmlProjectFused *pj)
{
  tp->pj = pj;
}
