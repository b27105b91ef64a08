/* cml-integrator-choice.h — the integrator a run gets when its user names none
 * (CML_INTEGRATOR_AUTO): the fastest method that meets the tolerances for the system at
 * hand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rule and the measurements it rests on are in cml-integrator-choice.c; what it is told
 * of a system, in cml-integrator-for-system.c.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"

G_BEGIN_DECLS

/* The tolerance (the smaller of rtol and atol) at and below which the Taylor method is
 * chosen for a system whose right-hand side is polynomial or trigonometric. */
#define CML_INTEGRATOR_CHOICE_TAYLOR_TOL 1e-9

/* Why the Taylor method cannot run a system, as cml_integrator_choose_for_rhs is told it:
 * its free velocities are found by Newton's method; a function of its right-hand side has
 * no Taylor recurrence.  Static English phrases, translated by cml_integrator_choice_reason. */
extern const char cml_integrator_chosen_newton[];
extern const char cml_integrator_chosen_function[];

/* Sets O->kind to the method for a right-hand side of RHS_KIND (what the Taylor method makes
 * of it: "polynomial", "trigonometric", "rational or algebraic"; NULL when it cannot run it,
 * WHY_NOT saying why) at O's tolerances, and O->chosen to why; other options are left
 * alone.  The rule is this file's opening comment.  (For a system:
 * cml_integrator_choose, cml-integrator-for-system.h.) */
void        cml_integrator_choose_for_rhs (CmlIntegratorOptions *o, const char *rhs_kind,
                                           const char *why_not);

/* The same for an ODE given only as a function, whose right-hand side cannot be
 * differentiated: rk8pd (its steps are what the earlier default took). */
void        cml_integrator_choose_for_ode (CmlIntegratorOptions *o);

/* Why auto chose O's method: "tolerance 1e-10, polynomial right-hand side", "the Taylor
 * method cannot run this system: …"; translated when TRANSLATED (for people), else English
 * (for files).  NULL for a method the caller named. */
char       *cml_integrator_choice_reason (const CmlIntegratorOptions *o, gboolean translated);
/* "taylor (chosen: tolerance 1e-10, polynomial right-hand side)" for a method auto chose,
 * the name alone for one the caller named; translated (for people, not files). */
char       *cml_integrator_choice_describe (const CmlIntegratorOptions *o);

G_END_DECLS
