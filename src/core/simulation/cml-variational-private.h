/* cml-variational-private.h — what the two variational integrators share: the layout of
 * their compiled derivatives, the state every variational integrator carries (the program,
 * its registers, the carried momenta, the Newton system, the counters), and the pieces of
 * the method that do not depend on the algebroid (cml-variational-program.c,
 * cml-variational-newton.c, cml-variational-advance.c, cml-variational-cayley.c,
 * cml-variational-lie.c).  Used by
 * cml-variational.c (T Q and so(3)), cml-variational-groupoid.c (the products),
 * cml-variational-singular.c, and by the two vakonomic families for their fixed-step loop
 * (cml_var_fixed_steps) only; nowhere else.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.  The program is evaluated at (t, x, y, r): m base coordinates x
 * (m = n on T Q, 0 on a Lie algebra), n fibre coordinates y, s constraints, nr
 * reconstruction variables r.
 */
#pragma once

#include <glib.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#include "cml-integrator.h"
#include "cml-program.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* the most Newton iterations of one solve */
#define CML_VAR_NEWTON_MAX_IT 30
/* a correction at or below this share of the state's size ends the iteration (quadratic
 * convergence: the next would be at rounding) */
#define CML_VAR_TOL 1e-10

/* Offsets of the compiled program's outputs at (t, x, y, r): L_v (n), L_x (m), φ (s), Φ_v
 * (s n), Φ_x (s m), then the second derivatives Lvv[A n + B], Lvq[A m + i] = ∂²L/∂y^A∂x^i,
 * Lqq[i m + j], Pvq[(a n + A) m + i], Pvv[(a n + A) n + B]; F the reconstruction rates,
 * Fr[k nr + l] = ∂F_k/∂r_l; with [forces] (nq = n, else 0) Q the generalized forces,
 * Qv[A n + B] = ∂Q_A/∂y^B, Qq[A m + i] = ∂Q_A/∂x^i. */
typedef struct
{
  guint m, n, s, nr, nq;
  guint Lv, Lq, phi, Pv, Pq, Lvv, Lvq, Lqq, Pvq, Pvv, F, Fr, Q, Qv, Qq, total;
} CmlVarLayout;

/* The state of one variational integrator that does not depend on the algebroid. */
typedef struct
{
  CmlSystem   *sys;
  CmlProgram  *prog;           /* owned by the system */
  CmlVarLayout L;
  CmlIntegratorOptions options;
  guint        dim;            /* of the state: m + n + nr */
  double      *regs, *fast, *out;
  double       cost_per_eval;  /* right-hand-side equivalents of one evaluation */

  /* the carried momenta, valid for the state z_last at t_last */
  double      *p, *z_last;
  double       t_last;
  gboolean     p_valid;

  /* work: the Newton system (k = n + s unknowns; rhs also holds m and nr numbers), the
   * multipliers of the velocity at a node, the last good state and its momenta */
  double      *rhs, *vnu, *pp, *z_good;
  gsl_matrix  *J;
  gsl_permutation *perm;
  /* the reconstruction's implicit midpoint rule: increment, midpoint, Newton matrix */
  double      *dr, *rm;
  gsl_matrix  *Jr;
  gsl_permutation *permr;

  double       cost;
  guint64      n_steps;
  double       midpoint_residual;
} CmlVarCore;

/* One step of the method (one or three discrete steps) of size H from (T0, Z), in place,
 * advancing core->p with it; FALSE with an error (Z and the momenta are then restored by
 * the caller). */
typedef gboolean (*CmlVarMethodStep) (gpointer self, double t0, double h, double *z,
                                      GError **error);

/* What the fixed-step loop keeps for a family that carries a warm start of its own (the
 * vakonomic ones): the state before the step under way, the state the last good step ended
 * at and its time, whether the family's warm start belongs to that state (cleared when a
 * step fails), the steps taken. */
typedef struct
{
  double  *z_good, *z_last;
  double   t_last;
  gboolean warm;
  guint64  n_steps;
} CmlVarRecord;

/* What a family of variational integrators hands the fixed-step loop (cml_var_fixed_steps):
 * its one step of the method; START (or NULL) once before the first step at (T, Z); SAVE
 * (or NULL) before each step, to keep what a failed step must give back besides the state;
 * RESTORE (or NULL) after a failed step (the state is already back); DONE (or NULL) after a
 * good step ending at (T, Z); STATS the counters into the options' stats. */
typedef struct
{
  CmlVarMethodStep step;
  void (*start) (gpointer self, double t, const double *z);
  void (*save) (gpointer self);
  void (*restore) (gpointer self);
  void (*done) (gpointer self, double t, const double *z);
  void (*stats) (gpointer self, CmlIntegratorStats *stats);
} CmlVarStepper;

/* cml-variational-program.c */
void        cml_var_layout_init (CmlVarLayout *L, guint m, guint n, guint s, guint nr, guint nq);
CmlProgram *cml_var_program_ensure (CmlSystem *sys, guint nr, CmlProgram **slot, GError **error);

/* cml-variational-advance.c */
void     cml_var_core_init (CmlVarCore *core, CmlSystem *sys, CmlProgram *prog,
                            const CmlIntegratorOptions *options, guint nr);
void     cml_var_core_clear (CmlVarCore *core);
void     cml_var_core_set_params (CmlVarCore *core, const double *params);
guint    cml_var_substeps (const CmlVarCore *core, double h, double *hs);
void     cml_var_ensure_momentum (CmlVarCore *core, double t, const double *z);
void     cml_var_momentum (CmlVarCore *core, double t, const double *z, double *p);
gboolean cml_var_fixed_steps (const CmlVarStepper *f, gpointer self, CmlVarRecord *rec,
                              const CmlIntegratorOptions *o, guint dim, double *z_good, double *t, double t1, double *z,
                              GError **error);
gboolean cml_var_advance (CmlVarCore *core, double *t, double t1, double *z, CmlVarMethodStep step,
                          gpointer self, GError **error);
guint    cml_var_step_state_size (const CmlVarCore *core);
void     cml_var_save_step_state (const CmlVarCore *core, double t, const double *z, double *out);
void     cml_var_restore_step_state (CmlVarCore *core, double t, const double *z, const double *in);
guint64  cml_var_n_rhs (const CmlVarCore *core);
void     cml_var_get_stats (const CmlVarCore *core, CmlIntegratorStats *stats);

/* cml-variational-newton.c */
gboolean cml_var_eval (CmlVarCore *core, double t, const double *x, const double *y,
                       const double *r);
gboolean cml_var_solve (CmlVarCore *core, double *b);
double   cml_var_newton_update (guint n, guint s, const double *b, double *y, double *nu,
                                double ymax, double pmax);
gboolean cml_var_velocity_at (CmlVarCore *core, double t, const double *x, const double *r,
                              const double *p, double *v, GError **error);
gboolean cml_var_reconstruct (CmlVarCore *core, double t0, double tm, double h, const double *x,
                              const double *y, gboolean predict, double *r, GError **error);

/* cml-variational-cayley.c */
gboolean cml_var_jacobi_holds (const double *C, guint n, double scale);
gboolean cml_var_negative_definite3 (const double *K3);
void     cml_var_node_momentum (guint n, const double *C, const double *K, const gboolean *cay,
                                double h, const double *xi, const double *mu, double sign,
                                double *out);

/* cml-variational-lie.c */
gsize    cml_var_exp_work_size (guint n);
gboolean cml_var_exp_node_momentum (guint n, const double *C, double h, const double *xi, const double *mu,
                                    const double *W, double sign, double *out, double *dM, double *work);

G_END_DECLS
