/* cml-py-span.c — whether a run's span can be covered at all, probed before the run, as
 * `cmlab-cli` probes it (src/cli/cml-cli-common.c, cml_cli_check_span).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A run to t = 1e300 is no error of the integrator: each of its steps is fine, it would
 * only take longer than anyone waits.  A probe of at most PROBE_STEPS integrator steps
 * towards T (its first tenth settles it when its pace is a hundred times short of the
 * limit) is extrapolated to the whole span; more than MAX_RUN_STEPS steps (a span no run
 * reaches in a day) is refused with cmlab.Error naming the estimate.  The simulation is
 * then put back with its own integrator and reset with the initial values, to run from its
 * start as if nothing had happened — the same sequence as cmlab-cli's, so the run's
 * numbers are its numbers.  GIL held.
 */
#define G_LOG_DOMAIN "cml-py-span"

#include "cml-py-private.h"

#include <math.h>

#define PROBE_STEPS   2000          /* CML_CLI_PROBE_STEPS */
#define MAX_RUN_STEPS 1000000000.0  /* CML_CLI_MAX_RUN_STEPS: 10⁹ */

/* Steps the probe takes towards T_END (N of them at most, from T_START): its extrapolated
 * pace — 0 when it reaches T_END, INFINITY when it makes no headway, -1 when it fails for
 * another reason.  *T_REACHED: where it stopped. */
static double
probe_pace (CmlSimulation *sim, const CmlIntegratorOptions *saved, double t_start, double t_end, guint n,
            guint n_before, double *t_reached)
{
  CmlIntegratorOptions probe = *saved;
  g_autoptr (GError) error = NULL;

  probe.max_steps = n;
  probe.stats = NULL;
  if (!cml_simulation_set_integrator (sim, &probe, NULL))
    return -1;
  if (cml_simulation_advance (sim, t_end, &error))
    return 0;
  if (!cml_integrator_error_is_budget (error))
    return -1;
  *t_reached = cml_simulation_get_time (sim);
  double covered = (*t_reached - t_start) * (t_end > t_start ? 1 : -1);
  return covered > 0 ? (n_before + n) * (fabs (t_end - t_start) / covered) : INFINITY;
}

gboolean
cml_py_check_span (CmlSimulation *sim, GHashTable *given, double t_end, const char *fname)
{
  CmlIntegratorOptions saved = *cml_simulation_get_integrator (sim);
  g_autoptr (GError) error = NULL;
  double t0 = cml_simulation_get_time (sim), t_reached = t0;

  if (!(t_end != t0) || !isfinite (t_end))
    return TRUE;
  double steps = probe_pace (sim, &saved, t0, t_end, PROBE_STEPS / 10, 0, &t_reached);
  if (steps > MAX_RUN_STEPS / 100)
    steps = probe_pace (sim, &saved, t0, t_end, PROBE_STEPS - PROBE_STEPS / 10, PROBE_STEPS / 10, &t_reached);
  gboolean refuse = steps > MAX_RUN_STEPS;
  /* back to where the run starts, with the run's own integrator */
  cml_simulation_set_integrator (sim, &saved, NULL);
  if (!cml_simulation_reset_at (sim, t0, given, &error))
    g_debug ("reset after the probe: %s", error->message);
  if (refuse)
    {
      g_autofree char *estimate = isfinite (steps) ? g_strdup_printf ("about %.2g", steps)
                                                   : g_strdup ("more than 10^308");
      cml_py_raise_printf ("%s: t_end %g is out of reach: the first %d steps of the integrator went from t = %g to "
                           "t = %.6g, so t = %g would take %s steps, more than 10^9 (hours of computing): use a "
                           "shorter t_end", fname, t_end, PROBE_STEPS, t0, t_reached, t_end, estimate);
      return FALSE;
    }
  return TRUE;
}
