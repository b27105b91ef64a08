/* cml-plot-figure.h — a figure that says what it shows: titles from the model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-model.h"
#include "cml-plot.h"

G_BEGIN_DECLS

/* Titles PLOT for a figure dropped into a talk: "TITLE — y₁, y₂ against x" (X NULL:
 * time) for the N_YS quantities YS of MODEL, and below it the parameters at VALUES
 * (model order) with their units ("m = 1 kg, Ω = 1 rad/s"). */
void cml_plot_set_figure_titles (CmlPlot *plot, const CmlModel *model, const char *const *ys, guint n_ys,
                                 const char *x, const double *values);

/* Adds to PLOT's subtitle a line of the initial values the run started from: the N
 * state components NAMES at VALUES with their units ("from x = 1 m, y = 0 m, …"). */
void cml_plot_add_figure_initial (CmlPlot *plot, const CmlModel *model, const char *const *names,
                                  const double *values, guint n);

G_END_DECLS
