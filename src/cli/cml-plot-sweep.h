/* cml-plot-sweep.h — `cmlab-cli plot SWEEP.csv`: the figure of a sweep file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

/* Whether ARG names a sweep file to plot rather than a model: a file ending in .csv, or
 * one that opens with the line `cmlab-cli sweep` writes first. */
gboolean cml_plot_sweep_is_file (const char *arg);

/* Draws the sweep file PATH to OUTPUT (PNG, SVG or PDF) at WIDTH × HEIGHT: one varied
 * parameter gives curves (YCOLS, or every measured column, against the parameter), two
 * a heat map (YCOLS names the one column; the first by default).  TITLE NULL: the model's
 * title and what is plotted; "" none.  Returns the exit status (0, or 2 with a message on
 * standard error). */
int      cml_plot_sweep_draw (const char *path, const char *ycols, const char *title, int width, int height,
                              gboolean dark, const char *output);
