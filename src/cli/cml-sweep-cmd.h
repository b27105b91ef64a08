/* cml-sweep-cmd.h — `cmlab-cli sweep`: a model's observables over a grid of parameter
 * values, one run per point, on every core, as CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_sweep_main (int argc, char **argv);
