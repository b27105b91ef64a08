/* cml-integrator-for-system.h — the integrator auto chooses for a system (the rule is
 * cml-integrator-choice.h's; what it is told of the system, here).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-integrator-choice.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* When O->kind is CML_INTEGRATOR_AUTO, or O->chosen is set (a method chosen before, perhaps
 * for another system or tolerance), sets O->kind to the method for SYS at O's tolerances and
 * O->chosen to why; other options are left alone.  Cheap after the first call for a system
 * (what the Taylor method makes of SYS is kept with it).  Any thread that may use SYS. */
void        cml_integrator_choose (CmlSystem *sys, CmlIntegratorOptions *o);

/* What the Taylor method makes of SYS's right-hand side: "polynomial", "trigonometric",
 * "rational or algebraic" (cml_taylor_kind_of_rhs ()), or NULL when it cannot run it, with
 * *WHY (may be NULL) the reason, a static English phrase. */
const char *cml_integrator_choice_rhs_kind (CmlSystem *sys, const char **why);

G_END_DECLS
