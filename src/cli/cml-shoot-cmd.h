/* cml-shoot-cmd.h — `cmlab-cli shoot`: the initial momenta of a vakonomic extremal that
 * reaches given targets at a given time, the run from them as CSV, and its conjugate times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_shoot_main (int argc, char **argv);
