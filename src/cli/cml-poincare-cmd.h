/* cml-poincare-cmd.h — `cmlab-cli poincare`: the crossings of a Poincaré section, as CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_poincare_main (int argc, char **argv);
