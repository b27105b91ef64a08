/* cml-taylor-private.h — the layout of a Taylor program, shared by its compiler and
 * interpreter (cml-taylor.c), its C text (cml-taylor-emit.c) and its steps
 * (cml-taylor-step.c).  Not for use outside src/core.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * S holds one row of N = p + 1 coefficients per series: row 0 is time, rows 1 … dim the
 * state, then one row per operation's result.  C holds the numbers (constants and what
 * depends on the parameters only), computed by cml_taylor_prepare ().
 */
#pragma once

#include "cml-taylor.h"

G_BEGIN_DECLS

typedef enum
{
  T_CONST,  /* d = (C[c], 0, 0, …) */
  T_LIN,    /* d = C[c] + Σ w_i src_i (constant sources count at order 0 only) */
  T_SCALE,  /* d = C[c] a */
  T_MUL,    /* d = a b */
  T_SQR,    /* d = a² */
  T_DIV,    /* d = a / b */
  T_DIVC,   /* d = C[c] / b */
  T_SQRT,   /* d = √a */
  T_POWR,   /* d = a^C[c] */
  T_DP,     /* ḋ = sg ȧ q, d_[0] = fn (a_[0]) */
  T_DQ,     /* q ḋ = sg ȧ, d_[0] = fn (a_[0]) */
  T_ATAN2,  /* d = atan2 (a, b), q = a² + b² */
  T_ABS,    /* d = |a| */
  T_SIGN,   /* d = sign (a) */
  T_MULC,   /* d = a b with b constant along the solution: d_[k] = 0 + a_[k] b_[0] */
  T_DPL,    /* T_DP with a linear in time (a_[k] = 0 from k = 2 on): ḋ_[k−1] = sg a_[1] q_[k−1] */
} TOpKind;

typedef struct
{
  guint8 op;     /* TOpKind */
  guint8 fn;     /* CmlFunc of T_DP / T_DQ */
  int    d, a, b, q;  /* rows; -1 when unused */
  int    c;      /* index into C; -1 when unused */
  double sg;     /* ±1 */
  guint  first, n;    /* T_LIN: its terms */
} TOp;

typedef struct
{
  double w;
  int    src;    /* a row, or -1 - (index into C) */
} TTerm;

typedef enum
{
  TC_NUM,      /* value */
  TC_EVAL,     /* e at the parameters */
  TC_PRODUCT,  /* value × Π C[factors] */
  TC_LOG,      /* log C[arg] */
} TConstKind;

typedef struct
{
  int            kind;
  double         value;
  const CmlExpr *e;
  int            arg;
  int           *factors;
  guint          n_factors;
} TConst;

typedef void (*TaylorNativeFunc) (double *S, const double *C);
struct CmlTaylorStep;
typedef int (*TaylorNativeStep) (double *S, const double *C, struct CmlTaylorStep *s);
typedef int (*TaylorNativeStepProjected) (double *S, const double *C, struct CmlTaylorStep *s,
                                          struct CmlProjectFused *pj);

struct _CmlTaylor
{
  guint   dim, order, N;
  guint   n_rows;
  GArray *ops;      /* TOp */
  GArray *terms;    /* TTerm */
  GArray *consts;   /* TConst */
  int    *f_row;    /* dim: the row of f_i */
  guint   n_sym, n_params;
  int    *param_ids;
  const double *params;
  double *values;   /* n_sym: the parameters at their symbol ids, for TC_EVAL */
  double *S, *C;
  double *inv;      /* N: inv[k] = 1/k, so that z_[k] = f_[k−1] inv[k] (a multiplication,
                     * not a division, on the path from one order to the next) */

  CmlNative       *native;
  TaylorNativeFunc native_fn;
  TaylorNativeStep native_step;     /* the whole step (cml-taylor-core.h) around native_fn */
  TaylorNativeStepProjected native_step_projected; /* the same, then its end projected, or NULL */
  struct CmlProjectFused *pj;       /* native_step_projected's projection (NULL: not fused) */
  guint64          n_native_steps;  /* the steps it took */

  /* stepping (cml-taylor-step.c): the step [t_a, t_b] under way, its coefficients X
   * (dim × N: the state rows of S, valid until the next jet), its start z_a and its
   * (projected) end z_b; the output last returned */
  double   step_factor;  /* e^(−2) e^(−0.7/(p−1)), the step's fraction of ρ */
  gboolean have_step;
  double   t_a, t_b, h;
  double  *z_a, *z_b, *X;
  gboolean have_out;
  double   t_out;
  double  *z_out;
};

const char *cml_taylor_kernels_text (void);
void        cml_taylor_prepare (CmlTaylor *tp);
/* The program, once S holds rows 0 … dim at order 0: native code or the interpreter. */
void        cml_taylor_run (CmlTaylor *tp);

G_END_DECLS
