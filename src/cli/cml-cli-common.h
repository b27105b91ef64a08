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

/* Whether PATH can take the output of option OPTION ("-o"), checked before anything is
 * simulated: not empty, not a directory, in a directory that exists and is writable
 * ("-" is standard output).  FALSE with a message in *WHY (free it). */
gboolean cml_cli_check_output_path (const char *option, const char *path, char **why);

/* Output rows: at most CML_CLI_MAX_ROWS in any case, CML_CLI_MAX_STDOUT_ROWS to standard
 * output (whose free space cannot be known); a file must fit the free space of its file
 * system.  ROW_BYTES is an estimate of one row.  FALSE with a message in *WHY that
 * suggests a larger --dt-out. */
#define CML_CLI_MAX_ROWS        100000000 /* 10⁸ */
#define CML_CLI_MAX_STDOUT_ROWS 10000000  /* 10⁷ */
gboolean cml_cli_check_rows (const char *path, guint64 n_rows, gsize row_bytes, char **why);

/* Progress of a long run on standard error — only when it is a terminal, after the first
 * second, at most four times a second — and, on any standard error, one note when an
 * explicit method advances slowly: a stiff system wants msbdf.  Main thread. */
typedef struct
{
  const char *what;        /* "simulating", "plotting" */
  gint64      start;       /* monotonic µs */
  gint64      last;        /* last line shown, µs */
  gboolean    tty;         /* standard error is a terminal */
  gboolean    shown;       /* a progress line is on the terminal */
  gboolean    noted;       /* the stiffness note was given */
  gboolean    explicit_rk; /* the integrator is an explicit Runge–Kutta method */
  const char *integrator;  /* its name */
} CmlCliProgress;

void cml_cli_progress_init   (CmlCliProgress *p, const char *what, int integrator_kind);
void cml_cli_progress_update (CmlCliProgress *p, double t, double t_end);
void cml_cli_progress_done   (CmlCliProgress *p);
/* After a failed run: the note about msbdf when an explicit method's step size collapsed. */
void cml_cli_progress_failed (CmlCliProgress *p, const char *message);

G_END_DECLS
