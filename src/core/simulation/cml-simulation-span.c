/* cml-simulation-span.c — whether a run's span can be covered at all, probed before the run
 * (the extrapolation is in cml-simulation-span.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-simulation-span"

#include "cml-simulation-span.h"

#include <math.h>

#include "cml-integrator.h"

/* Steps the probe takes towards T_END (N of them at most, from the simulation's state at
 * T_START, forwards or backwards): its extrapolated pace, the steps the whole span would
 * take at it — 0 when the probe reaches T_END, INFINITY when it makes no headway; -1 when
 * it fails for another reason.  *T_REACHED: where it stopped. */
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
  /* the way covered, in the direction of T_END */
  double covered = (*t_reached - t_start) * (t_end > t_start ? 1 : -1);
  return covered > 0 ? (n_before + n) * (fabs (t_end - t_start) / covered) : INFINITY;
}

gboolean
cml_simulation_span_reachable (CmlSimulation *sim, GHashTable *given, double t_end, CmlSpanEstimate *estimate)
{
  CmlIntegratorOptions saved = *cml_simulation_get_integrator (sim);
  g_autoptr (GError) error = NULL;
  double t0 = cml_simulation_get_time (sim), t_reached = t0, steps = 0;

  if (estimate)
    *estimate = (CmlSpanEstimate) { t0, t0, 0 };
  if (!(t_end != t0) || !isfinite (t_end))
    return TRUE;
  /* a few steps first: a pace a hundred times short of the limit settles it (the 50-link
   * pendulum on the interpreter spent 0.4 s on a first probe of 200 steps, all of it done
   * again by the run) */
  steps = probe_pace (sim, &saved, t0, t_end, CML_SPAN_FIRST_STEPS, 0, &t_reached);
  if (steps > CML_SPAN_MAX_STEPS / 100)
    steps = probe_pace (sim, &saved, t0, t_end, CML_SPAN_PROBE_STEPS - CML_SPAN_FIRST_STEPS, CML_SPAN_FIRST_STEPS,
                        &t_reached);
  /* back to where the run starts, with the run's own integrator */
  cml_simulation_set_integrator (sim, &saved, NULL);
  if (!cml_simulation_reset_at (sim, t0, given, &error))
    g_debug ("reset after the probe: %s", error->message);
  if (estimate)
    *estimate = (CmlSpanEstimate) { t0, t_reached, steps };
  return !(steps > CML_SPAN_MAX_STEPS);
}
