/* cml-variational.h — the discrete Lagrange–d'Alembert integrators (variational,
 * variational4) of a Lagrangian on T Q or on the Lie algebra so(3), unconstrained or with
 * nonholonomic constraints.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not an ODE stepper: the step map is derived from the model's Lagrangian and constraints
 * (doc/theory.md §14).  It carries the momenta p = ∂L_d/∂q₁ between steps (the step state);
 * the state it shows is (q, v), v the velocity of p made consistent with the constraints
 * (on so(3): (y, r), the velocity and the reconstruction variables, the momenta M).
 * One integrator is used by one thread at a time.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlVariational CmlVariational;

/* Whether SYS is in the class the variational integrators take: a Lagrangian on T Q (the
 * standard Lie algebroid: identity anchor, no brackets, no reconstruction variables) or on
 * a Lie algebra (no base, brackets that are numbers and satisfy the Jacobi identity;
 * reconstruction variables allowed: so(3) in any basis by the Cayley map, any other by the
 * exponential map, doc/theory.md §14.6), or on a product of these in which so(3)
 * turns the rest of the base (the heavy top, the rolling balls: cml-variational-groupoid.c
 * does their steps, doc/theory.md §14.2), regular, unconstrained or with nonholonomic
 * constraints; or a vakonomic system on T Q in a frame (cml-variational-vakonomic.c,
 * §14.3) or on T ℝᵐ × so(3) with its so(3) velocities constrained (the plate–ball:
 * cml-variational-vakonomic-group.c, §14.5); or a singular Lagrangian whose final constraint set holds coordinates and
 * velocities at numbers (cml-variational-singular.c, §14.4).  FALSE with CML_ERROR_USAGE
 * and a message saying why and which systems are supported. */
gboolean cml_variational_supports (CmlSystem *sys, GError **error);

/* OPTIONS->kind is CML_INTEGRATOR_VARIATIONAL or CML_INTEGRATOR_VARIATIONAL4, h_fixed the
 * step.  The derivatives of L and φ are compiled once per system (on first use).  PARAMS
 * (the system's parameters, in order) are copied; change them with set_params (). */
CmlVariational *cml_variational_new (CmlSystem *sys, const CmlIntegratorOptions *options,
                                     const double *params, GError **error);
void            cml_variational_free (CmlVariational *var);
void            cml_variational_set_params (CmlVariational *var, const double *params);

/* Advances Z = (q, v) from *T to exactly T1 (backwards when T1 < *T) by equal steps no
 * longer than h_fixed.  On failure (Newton's method not converging, a non-finite state,
 * the step budget spent) FALSE with CML_ERROR_NUMERIC naming the time and the reason; *T
 * and Z then hold the last good state. */
gboolean cml_variational_advance (CmlVariational *var, double *t, double t1, double *z,
                                  GError **error);

/* Forgets the carried momenta: the next advance () starts from p = ∂L/∂v at Z. */
void     cml_variational_reset (CmlVariational *var);

/* The momenta carried with the state Z at time T (the last step's p₁ when Z is what it
 * returned, else ∂L/∂v at Z) into P (n). */
void     cml_variational_momentum (CmlVariational *var, double t, const double *z, double *p);

/* The step state: a flag and the carried momenta (1 + n doubles); see cml-integrator.h. */
guint    cml_variational_step_state_size (const CmlVariational *var);
void     cml_variational_save_step_state (const CmlVariational *var, double t, const double *z,
                                          double *out);
void     cml_variational_restore_step_state (CmlVariational *var, double t, const double *z,
                                             const double *in);

/* Steps and right-hand-side-equivalent evaluations since creation (each evaluation of the
 * compiled derivatives counts as its instructions over those of the system's right-hand
 * side), into STATS (n_rejected, h_rho and the stiffness counters are 0). */
void     cml_variational_get_stats (const CmlVariational *var, CmlIntegratorStats *stats);
guint64  cml_variational_n_rhs (const CmlVariational *var);

/* The largest |φ| at the midpoints of the steps of the last advance (), the constraints'
 * residual the discrete equations impose (0 without constraints). */
double   cml_variational_midpoint_residual (const CmlVariational *var);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlVariational, cml_variational_free)

G_END_DECLS
