/* cml-list-cmd.h — `cmlab-cli list`: the built-in models for people; the commands,
 * integrators and a model's names one per line for scripts and shell completion.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

/* The commands of cmlab-cli, NULL-terminated (cmlab-cli.c dispatches them). */
extern const char *const cml_cli_commands[];

int cml_list_main (int argc, char **argv);
