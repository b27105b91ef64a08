/* cml-se2-maxwell.h — the sub-Riemannian problem on SE(2), recognised by its structure, and
 * its first Maxwell time in closed form (Sachkov: t = 2K(k) at unit speed, doc/theory.md §18.3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-model.h"

G_BEGIN_DECLS

/* The frame of an SE(2) model: the fibre (and momentum) indices of the translation e1, the
 * rotation e2 and the lateral e3 (the constrained one). */
typedef struct
{
  guint translation, rotation, lateral;
} CmlSe2Frame;

/* Whether MODEL is the sub-Riemannian problem on SE(2) in an orthonormal frame, by its
 * structure rather than its name: three base coordinates and three sections; vakonomic, the
 * one constraint holding a section e3 at 0; the Lagrangian (y1² + y2²)/2 of the other two,
 * e1 and e2; the brackets constant, [e1, e2] = σ e3, [e2, e3] = σ e1, [e1, e3] = 0
 * (σ = ±1: the Lie algebra se(2) of the motions of the plane, e2 its rotation); the anchor
 * of rank 3 at BASE (the base coordinates' values: the frame moves the point every way, as
 * a group's left-invariant frame does).  Then FRAME (may be NULL) gets the three indices.
 * Builds expressions (derivatives of the Lagrangian) in MODEL's context: on the thread that
 * builds the model's expressions. */
gboolean cml_se2_recognise (CmlModel *model, const double *base, CmlSe2Frame *frame);

/* The first Maxwell time after the start of the extremal whose frame momenta are H1 (along
 * e1), H2 (e2) and H3 (e3): on the level H = (h1² + h2²)/2 = s²/2 the pendulum's energy is
 * E = (2 h3² + h1² − h2²)/s², and for E ∈ (−1, 1) (Sachkov's class C1: the pendulum
 * oscillates) the extremal and its mirror (h1, −h2, h3) meet at t = 2K(k)/s,
 * k = √((E + 1)/2) (K the complete elliptic integral of the first kind of modulus k).
 * NAN for another class (E ≥ 1, E ≤ −1, s = 0). */
double   cml_se2_maxwell_time (double h1, double h2, double h3);

G_END_DECLS
