/* cml-dop853.h — the DOP853 integrator: Dormand–Prince 8(5,3) steps taken freely, output
 * at exactly the requested times from the 7th-order dense output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cml-integrator.c runs it for CML_INTEGRATOR_DOP853; the step itself is cml-dop853-core.h,
 * which a system's native code may take over (cml_dop853_set_step_func).
 */
#pragma once

#include <glib.h>

#include "cml-dop853-core.h"
#include "cml-integrator.h"

G_BEGIN_DECLS

typedef struct _CmlDop853 CmlDop853;

/* One accepted step (cml-dop853-core.h's contract): 0 done, 1 the right-hand side failed,
 * 2 the step size underflowed; -1 when the function cannot take it (the generic step runs). */
typedef int (*CmlDop853StepFunc) (CmlDop853Step *step, void *data);

CmlDop853 *cml_dop853_new  (const CmlOde *ode, const CmlIntegratorOptions *options);
void       cml_dop853_free (CmlDop853 *dop);

/* Lets FUNC take the steps (NULL: the generic step, the right-hand side through ODE). */
void       cml_dop853_set_step_func (CmlDop853 *dop, CmlDop853StepFunc func, void *data);
/* How many steps FUNC took (the others were the generic step's). */
guint64    cml_dop853_n_func_steps  (const CmlDop853 *dop);

/* cml_integrator_advance ()'s contract. */
gboolean   cml_dop853_advance (CmlDop853 *dop, double *t, double t1, double *z, GError **error);
void       cml_dop853_reset   (CmlDop853 *dop);
void       cml_dop853_get_stats (const CmlDop853 *dop, CmlIntegratorStats *stats);

/* Everything the next steps depend on besides the caller's (t, z): the integrator's own
 * state ahead of the output, its last step's dense output and the controller's memory. */
guint      cml_dop853_step_state_size    (const CmlDop853 *dop);
void       cml_dop853_save_step_state    (const CmlDop853 *dop, const double *z, double *out);
void       cml_dop853_restore_step_state (CmlDop853 *dop, const double *z, const double *in);

/* The generic step, for a CmlDop853StepFunc that falls back to it. */
int        cml_dop853_step_generic (CmlDop853Step *step, const CmlOde *ode);

/* For tests: one step of size H from (T, Z) with no error control, Z replaced by the
 * solution at T + H and, if MID is not NULL, MID by the dense output at T + S H (0 < S < 1).
 * FALSE when the right-hand side fails. */
gboolean   cml_dop853_fixed_step (const CmlOde *ode, double t, double h, double *z, double s,
                                  double *mid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlDop853, cml_dop853_free)

G_END_DECLS
