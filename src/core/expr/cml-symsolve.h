/* cml-symsolve.h — linear systems with symbolic entries, and small numeric solves.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-expr.h"

G_BEGIN_DECLS

/* Solves A X = B symbolically by Gaussian elimination.  A is n×n, B is n×k (row-major);
 * X receives n×k expressions, PIVOTS (may be NULL) the n pivots, which must be nonzero
 * wherever the solution is used: the caller checks them at run time.  Pivots are chosen
 * by their size at the sample point SAMPLE (values indexed by symbol id) so that an entry
 * that vanishes identically, but that the simplifier cannot prove zero, is never a pivot.
 * Returns FALSE when A is singular at SAMPLE; *RANK (may be NULL) is then the rank found. */
gboolean cml_symsolve (CmlExprCtx      *ctx,
                       guint            n,
                       CmlExpr *const  *A,
                       guint            k,
                       CmlExpr *const  *B,
                       const double    *sample,
                       CmlExpr        **X,
                       CmlExpr        **pivots,
                       guint           *rank);

/* Solves the n×n system A x = b in place (b becomes x) by Gaussian elimination with
 * partial pivoting; A is destroyed.  No allocation.  Returns FALSE if A is singular
 * (a pivot below TINY times the largest entry). */
gboolean cml_small_solve (guint n, double *A, double *b, double tiny);

G_END_DECLS
