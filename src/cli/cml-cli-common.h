/* cml-cli-common.h — what the sub-commands of cmlab-cli share: parsing NAME=VALUE
 * arguments and numbers, loading a model into a simulation with --set and --init applied.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Problems are printed on standard error ("cmlab-cli: …") and returned as the exit
 * status the command should end with.  Main thread.
 */
#pragma once

#include <glib.h>

#include "cml-system.h"

G_BEGIN_DECLS

#define CML_CLI_EXIT_RUN_FAILED 1  /* a run failed; the message names the time */
#define CML_CLI_EXIT_USAGE      2  /* usage and model errors */

/* "NAME=VALUE" -> a newly allocated, stripped NAME and a finite VALUE; FALSE if ARG is
 * not of that form. */
gboolean cml_cli_split_assignment (const char *arg, char **name, double *value);
/* A whole finite number in the C locale. */
gboolean cml_cli_parse_double (const char *s, double *out);

/* Prints "cmlab-cli: MESSAGE" and then USAGE (if not NULL) on standard error; returns
 * CML_CLI_EXIT_USAGE. */
int      cml_cli_usage_error (const char *usage, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Loads MODEL (a file or a built-in name), derives the system, prints the model's
 * warnings, makes a simulation and applies SETS ("P=V" strings).  Returns 0 with *OUT
 * set, or an exit status after printing why (USAGE follows a malformed --set). */
int      cml_cli_open_simulation (const char *model, GPtrArray *sets, const char *usage,
                                  CmlSimulation **out);

/* Parses INITS ("S=V" strings) into GIVEN (name -> double*, made with g_free for both
 * keys and values).  Returns 0, or an exit status after printing why. */
int      cml_cli_parse_inits (GPtrArray *inits, GHashTable *given, const char *usage);

G_END_DECLS
