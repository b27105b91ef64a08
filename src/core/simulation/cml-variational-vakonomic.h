/* cml-variational-vakonomic.h — the discrete vakonomic integrators (variational,
 * variational4) of a vakonomic system whose algebroid is T Q in a frame: Martinet (Q = ℝ³
 * through its reconstruction variables), Heisenberg.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.3.  The same interface as cml-variational.h, which hands the vakonomic
 * systems to this one.  The state shown is the vakonomic state (x, p, r), p the discrete
 * momenta in the frame; the step state carries the discrete momenta on Q and the last
 * step's unknowns, so a restored run continues bit for bit.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct _CmlVakonomicVar CmlVakonomicVar;

/* Whether SYS is a vakonomic system this method takes: no forces; its constraints set s
 * fibre coordinates to zero (y^α = 0); the base and the reconstruction variables, N of
 * them, are coordinates q of a configuration space Q with N = n (the fibre's dimension);
 * the free sections' anchor and reconstruction rates, linear in the free velocities,
 * give n − s independent vector fields E_f on Q; each constrained section is a coordinate
 * direction ∂/∂q (its anchor and rate, or, for one constraint, none given); and the brackets
 * of these vector fields are the model's brackets.  Otherwise FALSE and, when WHY is not
 * NULL, a translated phrase saying which of these fails. */
gboolean cml_vakonomic_var_supports (CmlSystem *sys, const char **why);

CmlVakonomicVar *cml_vakonomic_var_new (CmlSystem *sys, const CmlIntegratorOptions *options,
                                        const double *params, GError **error);
void     cml_vakonomic_var_free (CmlVakonomicVar *var);
void     cml_vakonomic_var_prepare (CmlSystem *sys);
void     cml_vakonomic_var_set_params (CmlVakonomicVar *var, const double *params);
gboolean cml_vakonomic_var_advance (CmlVakonomicVar *var, double *t, double t1, double *z,
                                    GError **error);
void     cml_vakonomic_var_reset (CmlVakonomicVar *var);
/* The state's momenta (the fibre part of Z) into P (n). */
void     cml_vakonomic_var_momentum (CmlVakonomicVar *var, double t, const double *z, double *p);
guint    cml_vakonomic_var_step_state_size (const CmlVakonomicVar *var);
void     cml_vakonomic_var_save_step_state (const CmlVakonomicVar *var, double t, const double *z,
                                            double *out);
void     cml_vakonomic_var_restore_step_state (CmlVakonomicVar *var, double t, const double *z,
                                               const double *in);
void     cml_vakonomic_var_get_stats (const CmlVakonomicVar *var, CmlIntegratorStats *stats);
guint64  cml_vakonomic_var_n_rhs (const CmlVakonomicVar *var);
/* The largest |Φ_d|/h = |φ| at the midpoints of the steps of the last advance (). */
double   cml_vakonomic_var_midpoint_residual (const CmlVakonomicVar *var);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlVakonomicVar, cml_vakonomic_var_free)

G_END_DECLS
