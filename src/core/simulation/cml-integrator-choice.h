/* cml-integrator-choice.h — the integrator a run gets when its user names none
 * (CML_INTEGRATOR_AUTO): the fastest method that meets the tolerances for the system at
 * hand.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rule and the measurements it rests on are in cml-integrator-choice.c.
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"

G_BEGIN_DECLS

/* The tolerance (the smaller of rtol and atol) at and below which the Taylor method is
 * chosen for a system whose right-hand side is polynomial or trigonometric. */
#define CML_INTEGRATOR_CHOICE_TAYLOR_TOL 1e-9

struct _CmlSystem;

/* When O->kind is CML_INTEGRATOR_AUTO, or O->chosen is set (a method chosen before, perhaps
 * for another system or tolerance), sets O->kind to the method for SYS at O's tolerances and
 * O->chosen to why; other options are left alone.  Cheap after the first call for a system
 * (what the Taylor method makes of SYS is kept with it).  Any thread that may use SYS. */
void        cml_integrator_choose (struct _CmlSystem *sys, CmlIntegratorOptions *o);

/* The same for an ODE given only as a function, whose right-hand side cannot be
 * differentiated: rk8pd (its steps are what the earlier default took). */
void        cml_integrator_choose_for_ode (CmlIntegratorOptions *o);

/* What the Taylor method makes of SYS's right-hand side: "polynomial", "trigonometric",
 * "rational or algebraic" (cml_taylor_kind_of_rhs ()), or NULL when it cannot run it, with
 * *WHY (may be NULL) the reason, a static English phrase. */
const char *cml_integrator_choice_rhs_kind (struct _CmlSystem *sys, const char **why);

/* Why auto chose O's method: "tolerance 1e-10, polynomial right-hand side", "the Taylor
 * method cannot run this system: …"; translated when TRANSLATED (for people), else English
 * (for files).  NULL for a method the caller named. */
char       *cml_integrator_choice_reason (const CmlIntegratorOptions *o, gboolean translated);
/* "taylor (chosen: tolerance 1e-10, polynomial right-hand side)" for a method auto chose,
 * the name alone for one the caller named; translated (for people, not files). */
char       *cml_integrator_choice_describe (const CmlIntegratorOptions *o);

G_END_DECLS
