/* cml-derivation.h — what a formalism derived from a model, as a plain value: the
 * right-hand side of the state's first components and what a run checks it with (the
 * pivots of its symbolic solves, the regularity matrix, the matrices of the numeric
 * fallback, the constraints kept by projection, the multipliers).  A formalism takes the
 * model and what it needs of the others and returns one (cml-euler-lagrange.c,
 * cml-lagrange-dalembert.c, cml-vakonomic.c, cml-constraint-algorithm.c); cml_system_new
 * keeps it in the system it builds (its member derived, completed there: see
 * cml-system-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not installed.
 */
#pragma once

#include <glib.h>

#include "cml-expr.h"

G_BEGIN_DECLS

typedef struct
{
  guint       n_rhs;       /* the state's components it gives rates for: the first n_rhs */
  CmlExpr   **rhs;         /* n_rhs */
  GPtrArray  *pivots;      /* CmlExpr*: must be nonzero */
  GPtrArray  *pivot_names; /* const char* (static): the matrix each pivot belongs to */
  const char *reg_name;    /* name of the regularity matrix (static), or NULL */
  CmlExpr   **reg;         /* reg_rows² entries, or NULL */
  guint       reg_rows;
  /* the numeric fallback of the symbolic solve, for states where a pivot is small against
   * the others of its matrix: W (n²), R (n), and for nonholonomic constraints Φ_y (s·n)
   * and φ_t + Φ_x ẋ (s), solved by LU of the evaluated matrices */
  GPtrArray  *fb;          /* CmlExpr*, or empty */
  guint       fb_s;        /* the number of constraints in it */
  /* nonholonomic: the multipliers λ of W ẏ = R + Φ_yᵀ λ (n_lambda), or NULL */
  CmlExpr   **lambda;
  guint       n_lambda;
  GPtrArray  *h;           /* CmlExpr*: constraint functions kept by projection */
  guint       movable_from, movable_to; /* the state's components the projection moves */
  /* nonlinear vakonomic: the free velocities aux_sym (na) are fast inputs found by
   * Newton's method on newton: na values of F, then na² of ∂F/∂aux; else 0, NULL */
  guint       na;
  int        *aux_sym;
  CmlExpr   **newton;
  /* what user expressions see in place of the symbols subs_ids (n_subs): subs_repl */
  guint       n_subs;
  int        *subs_ids;
  CmlExpr   **subs_repl;
  /* vakonomic systems whose W1 relations are linear in the free velocities: fb holds R_ab
   * (nf²) and F at zero free velocities (nf); fb2 the rates of x and p with the free
   * velocities fb_aux_sym as inputs, fb_yhat (n) the velocities in terms of them */
  guint       fb_vak_nf;
  int        *fb_aux_sym;
  CmlExpr   **fb_yhat;
  GPtrArray  *fb2;         /* CmlExpr*, or NULL */
  /* singular Lagrangians (the constraint algorithm): fb holds W (n²), R (n), then for each
   * of the fb_q equations that fix a kernel acceleration, d/dt g = c + g_y ẏ, its c =
   * g_t + g_x ẋ (1) and g_y (n).  ẏ = ẏ_part + K v: for a constant kernel ẏ_part = Kc u
   * with (Kcᵀ W Kc) u = Kcᵀ R (fb_Kc n×r, fb_K n×k numbers); for a kernel that depends on
   * the point, W_PQ ẏ_Q = R_P and K_j = e_{F_j} − e_Q W_PQ⁻¹ W_{P,F_j} (fb_P, fb_Q: r rows and
   * columns of W, fb_F: the k others).  Equation a fixes κ_{fb_cols[a]}; the others are 0. */
  gboolean    fb_sing;
  gboolean    fb_sing_varying;
  guint       fb_r, fb_k, fb_q;
  double     *fb_Kc, *fb_K;
  guint      *fb_P, *fb_Q, *fb_F, *fb_cols;
  GPtrArray  *steps;       /* char*: the constraint algorithm's steps, for people */
  gboolean    gauge;       /* kernel accelerations that no equation fixes */
} CmlDerivation;

/* An empty derivation that gives rates for the first N_RHS components of the state. */
CmlDerivation *cml_derivation_new (guint n_rhs);
void cml_derivation_free (CmlDerivation *d);
/* The same for a derivation held in place (the system's): D made empty, D's arrays freed. */
void cml_derivation_init (CmlDerivation *d, guint n_rhs);
void cml_derivation_clear (CmlDerivation *d);
/* Records PIVOT, which must not vanish, as belonging to the matrix MATRIX (static). */
void cml_derivation_add_pivot (CmlDerivation *d, CmlExpr *pivot, const char *matrix);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlDerivation, cml_derivation_free)

G_END_DECLS
