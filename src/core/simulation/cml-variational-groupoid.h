/* cml-variational-groupoid.h — the discrete Lagrange–d'Alembert integrators (variational,
 * variational4) on the Lie groupoid of a product algebroid T M₁ × ℝᵏ × (so(3) ⋉ M₂): the
 * rolling balls (T ℝ² × so(3)) and the heavy top (the action algebroid so(3) ⋉ ℝ³).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.2.  The same interface as cml-variational.h, which hands the systems
 * that are neither on T Q nor on the Lie algebra so(3) to this one.  The state shown is
 * (x, y, r); the momenta p = the node momenta of the discrete Lagrangian are carried from
 * step to step (the step state: a flag and the n momenta).
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlGroupoidVar CmlGroupoidVar;

/* Whether SYS's algebroid is a product T M₁ × ℝᵏ × (so(3) ⋉ M₂) this method takes (a
 * regular Lagrangian, unconstrained or nonholonomic): every section either has a constant
 * anchor along one base coordinate (or none) and no brackets, or belongs to one so(3) of
 * constant brackets whose anchor is linear in the other base coordinates (a linear action
 * of SO(3)).  Otherwise FALSE and, when WHY is not NULL, a translated phrase naming the
 * kind of algebroid (or Lagrangian) that is not taken, for the caller's message. */
gboolean cml_groupoid_var_supports (CmlSystem *sys, const char **why);

CmlGroupoidVar *cml_groupoid_var_new (CmlSystem *sys, const CmlIntegratorOptions *options,
                                      const double *params, GError **error);
void     cml_groupoid_var_free (CmlGroupoidVar *var);
void     cml_groupoid_var_prepare (CmlSystem *sys);
void     cml_groupoid_var_set_params (CmlGroupoidVar *var, const double *params);
gboolean cml_groupoid_var_advance (CmlGroupoidVar *var, double *t, double t1, double *z,
                                   GError **error);
void     cml_groupoid_var_reset (CmlGroupoidVar *var);
void     cml_groupoid_var_momentum (CmlGroupoidVar *var, double t, const double *z, double *p);
guint    cml_groupoid_var_step_state_size (const CmlGroupoidVar *var);
void     cml_groupoid_var_save_step_state (const CmlGroupoidVar *var, double t, const double *z,
                                           double *out);
void     cml_groupoid_var_restore_step_state (CmlGroupoidVar *var, double t, const double *z,
                                              const double *in);
void     cml_groupoid_var_get_stats (const CmlGroupoidVar *var, CmlIntegratorStats *stats);
guint64  cml_groupoid_var_n_rhs (const CmlGroupoidVar *var);
double   cml_groupoid_var_midpoint_residual (const CmlGroupoidVar *var);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlGroupoidVar, cml_groupoid_var_free)

G_END_DECLS
