/* cml-explore-cmd.h — `cmlab-cli explore`: the fan of extremals of a vakonomic model from
 * one point, with their end points, first conjugate times and first Maxwell times, as CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_explore_main (int argc, char **argv);
