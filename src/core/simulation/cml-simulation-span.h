/* cml-simulation-span.h — whether a run's span can be covered at all, probed before the run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run to t = 1e300 is no error of the integrator: each of its steps is fine, it would only
 * take longer than anyone waits.  A probe of at most CML_SPAN_PROBE_STEPS integrator steps
 * towards T_END (its first hundredth, CML_SPAN_FIRST_STEPS, settles it when its pace is a
 * hundred times short of the limit — every ordinary run, whose first rows then come
 * without waiting for a longer probe: the run starts again from t0 after it) is
 * extrapolated to the whole span, forwards or backwards:
 *
 *   steps ≈ n · |T_END − t0| / |t_reached − t0|
 *
 * More than CML_SPAN_MAX_STEPS steps — a span no run reaches in a day: t = 1e308 with steps
 * of 0.01 — is out of reach.  A probe that fails for another reason says nothing (the run
 * itself will).
 */
#pragma once

#include <glib.h>

#include "cml-simulation.h"

G_BEGIN_DECLS

#define CML_SPAN_PROBE_STEPS 2000
#define CML_SPAN_FIRST_STEPS (CML_SPAN_PROBE_STEPS / 100)
#define CML_SPAN_MAX_STEPS   1000000000.0 /* 10⁹ */

typedef struct
{
  double t0;        /* where the probe (and the run) starts */
  double t_reached; /* where the probe stopped */
  double steps;     /* the extrapolated steps of the whole span (INFINITY: no headway) */
} CmlSpanEstimate;

/* FALSE when SIM cannot cover the span from its time to T_END in CML_SPAN_MAX_STEPS steps,
 * with the figures in *ESTIMATE (may be NULL).  SIM is then put back with its own integrator
 * and reset at its start with GIVEN (may be NULL), to run as if nothing had happened (bit for
 * bit). */
gboolean cml_simulation_span_reachable (CmlSimulation *sim, GHashTable *given, double t_end,
                                        CmlSpanEstimate *estimate);

G_END_DECLS
