/* cml-bracket.h — the vakonomic (linear Poisson) and nonholonomic brackets of functions on
 * a system's states (doc/theory.md §6).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-simulation.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* The linear Poisson bracket of E* (= the vakonomic bracket on W1: Iglesias, Marrero,
 * Martín de Diego and Sosa 2008, Cor. 5.9; doc/theory.md §6):
 *   {F,G} = ρ^i_A (F_x^i G_p_A − F_p_A G_x^i) − C^C_AB p_C F_p_A G_p_B
 * for F, G functions of (t, x, p): symbolic, in the model's context. */
CmlExpr *cml_system_poisson_bracket (CmlSystem *sys, CmlExpr *f, CmlExpr *g);

/* The nonholonomic bracket {f, g}_nh of two functions of (t, x, y) at the simulation's
 * current state (which must lie on the constraint set):
 *   {f,g}_nh = − df_Eᵀ B (Bᵀ O B)⁻¹ Bᵀ dg_E,  df_E = (ρᵀ ∂f/∂x ; ∂f/∂y),
 * with O the Cartan 2-section's matrix and B a basis of T^νM.  Nonholonomic systems only. */
gboolean cml_simulation_nonholonomic_bracket (CmlSimulation *sim, CmlExpr *f, CmlExpr *g,
                                              double *value, GError **error);

G_END_DECLS
