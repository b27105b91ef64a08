/* cml-dop853.h — the DOP853 integrator: Dormand–Prince 8(5,3) steps taken freely, output
 * at exactly the requested times from the 7th-order dense output.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cml-integrator.c runs it for CML_INTEGRATOR_DOP853 through its method table (in
 * cml-dop853.c); the step itself is cml-dop853-core.h, which a system's native code may
 * take over (cml_integrator_set_dop853_step).
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

/* The generic step, for a CmlDop853StepFunc that falls back to it. */
int        cml_dop853_step_generic (CmlDop853Step *step, const CmlOde *ode);

/* For tests: one step of size H from (T, Z) with no error control, Z replaced by the
 * solution at T + H and, if MID is not NULL, MID by the dense output at T + S H (0 < S < 1).
 * FALSE when the right-hand side fails. */
gboolean   cml_dop853_fixed_step (const CmlOde *ode, double t, double h, double *z, double s,
                                  double *mid);

G_END_DECLS
