/* cml-py-span.c — a run's span that cannot be covered at all (t_end = 1e300), refused
 * before the run with cmlab.Error naming the estimate: the probe cmlab-cli makes
 * (cml_simulation_span_reachable), which leaves the simulation at its start as if nothing
 * had happened, so the run's numbers are the command line's.  GIL held.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-py-span"

#include "cml-py-private.h"

#include <math.h>

#include "cml-simulation-span.h"

gboolean
cml_py_check_span (CmlSimulation *sim, GHashTable *given, double t_end, const char *fname)
{
  CmlSpanEstimate e;

  if (cml_simulation_span_reachable (sim, given, t_end, &e))
    return TRUE;
  g_autofree char *estimate = isfinite (e.steps) ? g_strdup_printf ("about %.2g", e.steps)
                                                 : g_strdup ("more than 10^308");
  cml_py_raise_printf ("%s: t_end %g is out of reach: the first %d steps of the integrator went from t = %g to "
                       "t = %.6g, so t = %g would take %s steps, more than 10^9 (hours of computing): use a "
                       "shorter t_end", fname, t_end, CML_SPAN_PROBE_STEPS, e.t0, e.t_reached, t_end, estimate);
  return FALSE;
}
