/* cml-plot-cmd.h — `cmlab-cli plot`: a figure of a run, as PNG, SVG or PDF.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_plot_main (int argc, char **argv);
