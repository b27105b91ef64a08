/* cml-rhs-cmd.h — `cmlab-cli rhs`: the right-hand side of the equations of motion at given
 * times and states.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

int cml_rhs_main (int argc, char **argv);
