/* cml-section.h — Poincaré sections: where a run crosses a surface g(state) = 0.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A section is an equation in the state, "EXPR = VALUE" (g = EXPR − VALUE), over the
 * model's coordinates, velocities, momenta, reconstruction variables, monitors,
 * parameters and t, and a direction of crossing: up (g goes from negative to positive),
 * down, or both.  A run is integrated in short pieces; where g changes sign over a
 * piece, the crossing time is located by Brent's method on g(z(τ)), each z(τ) integrated
 * afresh from the piece's start with the run's own integrator — so a crossing is as
 * accurate as the integrator (not the nearest sample), and the run itself goes on from
 * the piece's end as if nothing had been looked at.
 */
#pragma once

#include <glib.h>

#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

typedef enum
{
  CML_SECTION_UP   = 1, /* g goes from < 0 to > 0 */
  CML_SECTION_DOWN = 2, /* from > 0 to < 0 */
  CML_SECTION_BOTH = 3,
} CmlSectionDirection;

typedef struct _CmlSection CmlSection;

/* TEXT is "EXPR=VALUE" or "EXPR" (= 0), read in SYS's model.  Errors (CML_ERROR_PARSE,
 * CML_ERROR_UNKNOWN_NAME, CML_ERROR_USAGE) say what is wrong in TEXT.  Not while a
 * worker thread derives or changes SYS's expressions. */
CmlSection *cml_section_new (CmlSystem *sys, const char *text, CmlSectionDirection direction,
                             GError **error);
void        cml_section_free (CmlSection *section);

/* g at SIM's current state. */
double      cml_section_value (CmlSection *section, CmlSimulation *sim);

/* dg/dt at SIM's current state: the rate at which the run crosses the section there
 * (> 0 upwards, < 0 downwards), as the central difference of g along the flow,
 * (g(z + h ż) − g(z − h ż)) / 2h with h a millionth of the time the state takes to move
 * by its own size; SIM's state is left as it was.  NAN where the right-hand side cannot
 * be evaluated. */
double      cml_section_rate (CmlSection *section, CmlSimulation *sim);

/* Called at each crossing with its time and every observable there (cml_system_n_observables
 * values, cml_system_observable_index names them). */
typedef void (*CmlCrossingFunc) (double t, const double *obs, gpointer data);

/* Integrates SIM from its time to T_END in pieces of at most MAX_STEP (> 0), calling FUNC
 * at every crossing in the section's direction, in time order.  SIM ends at T_END (or,
 * on failure, at its last good state with the run's error). */
gboolean    cml_section_run (CmlSection *section, CmlSimulation *sim, double t_end, double max_step,
                             CmlCrossingFunc func, gpointer data, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlSection, cml_section_free)

G_END_DECLS
