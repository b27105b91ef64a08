/* cml-shoot-private.h — what the files of shooting share: its limits, the state of one
 * shooting (the augmented run, the targets, the step budget) and the functions one file
 * calls in another (cml-shoot.c, cml-shoot-conjugate.c).  Nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-shoot.h"
#include "cml-simulation-private.h"

G_BEGIN_DECLS

#define SHOOT_MAX_HALVINGS   12      /* backtracking: the step is cut to at most 2⁻¹² */
#define SHOOT_MIN_DS         1e-3    /* continuation gives up below this step in s … */
#define SHOOT_CONT_FAILS     6       /* … or after this many failed steps in a row */
#define SHOOT_CONJ_TOL       1e-12   /* conjugate times are refined to this × max (1, |t|) */
#define SHOOT_RCOND          1e-13   /* singular values below this × the largest count as 0 … */
#define SHOOT_RCOND_RETRY    1e-7    /* … or below this, when the full step lowers nothing */
#define SHOOT_RUNAWAY        100     /* a trial's run to T: at most this × the guess's steps … */
#define SHOOT_MIN_RUN_STEPS  10000   /* … and never fewer than these */
#define SHOOT_STALL_WINDOW   8       /* a Newton solve stalls when this many iterations … */
#define SHOOT_STALL_FACTOR   0.5     /* … did not bring its residual below this × what it was */
#define SHOOT_RHO_FLOOR      1e-12   /* ρ = D/Π‖rows‖ below this is rounding */
#define SHOOT_RHO_DEGENERATE 1e-6    /* |ρ| never above this, never resolved: D ≡ 0 */
#define SHOOT_FINE_TOL       16      /* the finer run of the conjugate times: tolerances / 16 … */
#define SHOOT_FINE_STEP      2       /* … or the fixed step / 2 */
#define SHOOT_RANK_TOL       1e-8    /* σ below this × σ_max: rank deficiency (rows scaled) */
#define SHOOT_OFF_RANGE      0.05    /* ‖Aᵀ F‖/(‖A‖ ‖F‖) below this: F mostly out of the range */

typedef struct
{
  CmlSimulation *sim;
  CmlSystem     *sys;
  guint          dim, m, n, nr, D;
  double         t0, T;
  double        *z0;      /* the initial state (its momenta replaced by the unknowns) */
  double        *J, *dfdt, *jac_out;
  double        *Z;       /* augmented state: z, then Φ column by column */
  CmlIntegrator *integ;
  CmlIntegrator *fine;    /* the conjugate times' finer run (see the top of the file) */
  guint          k;       /* targets */
  guint         *tidx;    /* their state indices */
  double        *F, *A;   /* k, k×n */
  double         tol;
  double         a_ref;     /* ‖A‖ (Frobenius) at the guess: the scale of the sensitivity */
  guint64        budget;    /* steps of all the runs */
  guint64        used;      /* steps taken so far, both integrators */
  guint64        run_cap;   /* steps of one trial's run to T; 0: none yet */
  gboolean       exhausted; /* the budget is spent */
} Shoot;

typedef enum
{
  CONJ_FOUND,       /* the times (maybe none) where ρ changes sign, resolved */
  CONJ_DEGENERATE,  /* ρ ≡ 0 to rounding along the whole run */
  CONJ_UNRESOLVED,  /* ρ never above its integration error */
} ConjStatus;

/* cml-shoot.c */
void cml_shoot_start_state (Shoot *s, const double *p0, double *Z);
gboolean cml_shoot_advance_capped (Shoot *s, CmlIntegrator *integ, double t, double t1, double *Z,
                                   guint64 cap, GError **error);
char *cml_shoot_names_list (CmlSystem *sys, guint from, guint to, guint from2, guint to2);

/* cml-shoot-conjugate.c */
ConjStatus cml_shoot_conjugate_times (Shoot *s, const double *p0, guint n_grid, const double *grid,
                                      const guint *rows, GArray *times, const int *store,
                                      double *states, GError **error);
gboolean cml_shoot_conjugate_result (Shoot *s, CmlShootResult *res, guint n_samples, guint n_at,
                                     const double *at, double *states, GError **error);

G_END_DECLS
