/* cml-as-vakonomic.h — a nonholonomic model read by the vakonomic principle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-model.h"

G_BEGIN_DECLS

/* The text of the vakonomic model with MODEL's Lagrangian and constraints: MODEL must be
 * nonholonomic, with constraints linear or affine in the velocities and a `solve-for`
 * list (the graph y^α = Ψ^α is solved for those coordinates).  Errors name MODEL's file
 * and the constraint's line. */
char     *cml_model_vakonomic_text (const CmlModel *model, GError **error);

/* The same, loaded: a new model named "NAME-vakonomic". */
CmlModel *cml_model_new_as_vakonomic (const CmlModel *model, GError **error);

G_END_DECLS
