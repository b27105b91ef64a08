/* cml-variational-vakonomic-group.h — the discrete vakonomic integrators (variational,
 * variational4) of a vakonomic system on T ℝᵐ × so(3) whose so(3) velocities are all
 * constrained: the plate–ball, on the groupoid (ℝᵐ × ℝᵐ) × SO(3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.5.  The same interface as cml-variational.h, which hands these systems
 * to this one.  The state is the vakonomic state (x, p, r): p the discrete momenta of x and
 * the node momentum in so(3)*; the step state carries the last step's Newton unknowns, so a
 * restored run continues bit for bit.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlVakonomicGroupVar CmlVakonomicGroupVar;

/* Whether SYS is a vakonomic system this method takes: no forces; its fibre is m sections
 * with the identity anchor (the base's velocities) and three with no anchor whose brackets
 * are those of so(3), [[e_i, e_j]] = κ ε_ijk e_k with κ constant on the base (the plate–ball's
 * σ), the base's sections having no brackets; its three constraints fix the three so(3)
 * velocities as functions of t, x and the base's velocities; its Lagrangian does not depend
 * on the so(3) velocities.  Otherwise FALSE and, when WHY is not NULL, a translated phrase
 * saying which of these fails. */
gboolean cml_vakonomic_group_var_supports (CmlSystem *sys, const char **why);

CmlVakonomicGroupVar *cml_vakonomic_group_var_new (CmlSystem *sys, const CmlIntegratorOptions *options,
                                                   const double *params, GError **error);
void     cml_vakonomic_group_var_free (CmlVakonomicGroupVar *var);
void     cml_vakonomic_group_var_prepare (CmlSystem *sys);
void     cml_vakonomic_group_var_set_params (CmlVakonomicGroupVar *var, const double *params);
gboolean cml_vakonomic_group_var_advance (CmlVakonomicGroupVar *var, double *t, double t1, double *z,
                                          GError **error);
void     cml_vakonomic_group_var_reset (CmlVakonomicGroupVar *var);
/* The state's momenta (the fibre part of Z) into P (n). */
void     cml_vakonomic_group_var_momentum (CmlVakonomicGroupVar *var, double t, const double *z, double *p);
guint    cml_vakonomic_group_var_step_state_size (const CmlVakonomicGroupVar *var);
void     cml_vakonomic_group_var_save_step_state (const CmlVakonomicGroupVar *var, double t, const double *z,
                                                  double *out);
void     cml_vakonomic_group_var_restore_step_state (CmlVakonomicGroupVar *var, double t, const double *z,
                                                     const double *in);
void     cml_vakonomic_group_var_get_stats (const CmlVakonomicGroupVar *var, CmlIntegratorStats *stats);
guint64  cml_vakonomic_group_var_n_rhs (const CmlVakonomicGroupVar *var);
/* The constraints hold at the steps' midpoints by construction (ξ = h Ψ): 0. */
double   cml_vakonomic_group_var_midpoint_residual (const CmlVakonomicGroupVar *var);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlVakonomicGroupVar, cml_vakonomic_group_var_free)

G_END_DECLS
