/* cml-variational-singular.h — the variational integrators (variational, variational4) of
 * a singular Lagrangian on its final constraint submanifold, when the constraint algorithm
 * finds that submanifold by holding coordinates and their velocities at values (both
 * Capri–Kobayashi models: particle 1 held at the origin, at rest).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.4.  The same interface as cml-variational.h, which hands the singular
 * systems to this one.  The state shown is (x, y, r) as for the other integrators, the held
 * components exactly at their values; the step state is the carried momenta (as on T Q).
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlSingularVar CmlSingularVar;

/* Whether SYS is a singular system this method takes: no forces; every section's anchor is
 * a coordinate direction ∂/∂x^i (a different one for each) or zero, every base coordinate
 * is reached, and all brackets vanish (T Q, or T Q × ℝᵏ with the zero-anchor sections as
 * velocities of cyclic coordinates: the reduced Capri–Kobayashi's Atiyah algebroid); every
 * constraint of the final constraint set holds one base coordinate or one velocity at a
 * number (linear in it), and a coordinate is held exactly when the velocity along its
 * section is held at zero.  Otherwise FALSE and, when WHY is not NULL, a translated phrase
 * saying which of these fails. */
gboolean cml_singular_var_supports (CmlSystem *sys, const char **why);

CmlSingularVar *cml_singular_var_new (CmlSystem *sys, const CmlIntegratorOptions *options,
                                      const double *params, GError **error);
void     cml_singular_var_free (CmlSingularVar *var);
void     cml_singular_var_prepare (CmlSystem *sys);
void     cml_singular_var_set_params (CmlSingularVar *var, const double *params);
gboolean cml_singular_var_advance (CmlSingularVar *var, double *t, double t1, double *z,
                                   GError **error);
void     cml_singular_var_reset (CmlSingularVar *var);
void     cml_singular_var_momentum (CmlSingularVar *var, double t, const double *z, double *p);
guint    cml_singular_var_step_state_size (const CmlSingularVar *var);
void     cml_singular_var_save_step_state (const CmlSingularVar *var, double t, const double *z,
                                           double *out);
void     cml_singular_var_restore_step_state (CmlSingularVar *var, double t, const double *z,
                                              const double *in);
void     cml_singular_var_get_stats (const CmlSingularVar *var, CmlIntegratorStats *stats);
guint64  cml_singular_var_n_rhs (const CmlSingularVar *var);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSingularVar, cml_singular_var_free)

G_END_DECLS
