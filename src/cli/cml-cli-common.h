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

#include "cml-integrator.h"
#include "cml-session.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_CLI_EXIT_RUN_FAILED 1  /* a run failed; the message names the time */
#define CML_CLI_EXIT_USAGE      2  /* usage and model errors */
#define CML_CLI_CONTINUE        (-1) /* cml_cli_parse_args: the arguments are good, go on */

/* The run options that simulate, plot and render share, as one GOptionGroup:
 *   --session FILE  --set P=V  --init S=V  --t-end T  --integrator NAME  --rtol R  --atol A
 *   --step H  -o FILE (--output FILE)
 * Each value is checked as it is parsed (in the order given, with a message that names
 * the option); what depends on two of them (--step only with a fixed-step method, --rtol
 * and --atol only with an adaptive one) by cml_cli_run_options_integrator ().
 *
 * --session FILE (a session saved by the window, cml-session.h) is the run: its embedded
 * model — the command then takes no MODEL — every parameter, the initial state and the
 * integrator with its tolerances and step.  Options given as well override the session's,
 * as they override a model's defaults: --set and --init one value each, --integrator the
 * method (the session's tolerances or step stay), --rtol, --atol, --step theirs.  The
 * session is read by cml_cli_parse_args (), and cml_cli_open_simulation (),
 * cml_cli_parse_inits () and cml_cli_run_options_integrator () take their part of it: a
 * command runs it with no code of its own. */
typedef struct
{
  GPtrArray        *sets;           /* "P=V" strings (--set), in the order given */
  GPtrArray        *inits;          /* "S=V" strings (--init) */
  gboolean          t_end_zero_ok;  /* set by the command before parsing: simulate takes 0 */
  gboolean          t_end_signed_ok;/* … and any finite time (it checks the sign with --t-start) */
  double            t_end;          /* --t-end, in the model's time unit */
  gboolean          has_t_end;
  CmlIntegratorKind kind;           /* --integrator */
  gboolean          has_integrator;
  double            rtol;           /* --rtol, in (0, 1), dimensionless */
  double            atol;           /* --atol, > 0, in the units of the state */
  double            step;           /* --step, > 0, in time units */
  gboolean          has_rtol, has_atol, has_step;
  char             *output;         /* -o, --output ("-": standard output); NULL if not given */
  char             *session_path;   /* --session FILE, or NULL */
  CmlSession       *session;        /* … as read by cml_cli_parse_args () */
  gboolean          help;           /* --help, -h */
} CmlCliRunOptions;

void cml_cli_init_i18n (void);

void cml_cli_run_options_init  (CmlCliRunOptions *ro);
void cml_cli_run_options_clear (CmlCliRunOptions *ro);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CmlCliRunOptions, cml_cli_run_options_clear)

/* Which of the run options a command takes. */
typedef enum
{
  CML_CLI_RUN_OPTIONS_ALL,      /* simulate, plot, render */
  CML_CLI_RUN_OPTIONS_SET_ONLY, /* info: --set */
} CmlCliRunOptionsKind;

/* Parses ARGV (the ARGC arguments after the command's name) with GOptionContext: the
 * command's own ENTRIES (NULL-terminated; their callbacks get DATA) and the run options
 * (WHICH of them) into RO.  The one argument that is not an option is the model, in
 * *MODEL (free it).  Returns CML_CLI_CONTINUE, or an exit status after printing why (0
 * after printing USAGE on standard output for --help).  A value-taking option given
 * last without its value says "option -o needs a value"; "-o=FILE" is taken as -o FILE. */
int  cml_cli_parse_args (int argc, char **argv, const GOptionEntry *entries, gpointer data,
                         CmlCliRunOptions *ro, CmlCliRunOptionsKind which, const char *usage,
                         char **model);

/* Applies --integrator, --rtol, --atol and --step to *IOPT (to the session's integrator
 * with --session): a fixed-step method (implicit midpoint) takes --step and no
 * tolerances, an adaptive one tolerances and no --step.  Returns 0, or an exit status
 * after printing why (with USAGE). */
int  cml_cli_run_options_integrator (const CmlCliRunOptions *ro, CmlIntegratorOptions *iopt,
                                     const char *usage);

/* For an option's callback: sets a G_OPTION_ERROR_BAD_VALUE with the message and returns
 * FALSE. */
gboolean cml_cli_option_error (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* "NAME=VALUE" -> a newly allocated, stripped NAME and a finite VALUE; FALSE if ARG is
 * not of that form. */
gboolean cml_cli_split_assignment (const char *arg, char **name, double *value);
/* A whole finite number in the C locale. */
gboolean cml_cli_parse_double (const char *s, double *out);

/* The command being run ("simulate", "sweep", …; NULL before one is known), which the
 * pointer to its help names.  Set once by main(), before any other call. */
void     cml_cli_set_command (const char *command);
/* The line that follows a usage error: "Try “cmlab-cli COMMAND --help”." with its line
 * break (translated; the command left out when none is known). */
char    *cml_cli_try_help (void);

/* Prints "cmlab-cli: MESSAGE" on standard error and, when USAGE is not NULL (the command
 * line itself is wrong), the line of cml_cli_try_help () — the whole usage text is for
 * --help alone; returns CML_CLI_EXIT_USAGE. */
int      cml_cli_usage_error (const char *usage, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* An integrator the simulation refused (ERROR): with the pointer to --help (USAGE not
 * NULL) when the options themselves are wrong (CML_ERROR_USAGE), the message alone when
 * the model cannot take that integrator; returns CML_CLI_EXIT_USAGE. */
int      cml_cli_integrator_error (const char *usage, const GError *error);

/* Loads MODEL (a file or a built-in name; with --session, the session's model and
 * parameters instead), derives the system, prints the model's warnings, makes a
 * simulation and applies SETS ("P=V" strings).  Returns 0 with *OUT set, or an exit
 * status after printing why (USAGE follows a malformed --set). */
int      cml_cli_open_simulation (const char *model, GPtrArray *sets, const char *usage,
                                  CmlSimulation **out);

/* Parses INITS ("S=V" strings) into GIVEN (name -> double*, made with g_free for both
 * keys and values), over the session's initial state with --session.  Returns 0, or an
 * exit status after printing why. */
int      cml_cli_parse_inits (GPtrArray *inits, GHashTable *given, const char *usage);

/* Whether PATH can take the output of option OPTION ("-o"), checked before anything is
 * simulated: not empty, not a directory, in a directory that exists and is writable
 * ("-" is standard output).  FALSE with a message in *WHY (free it). */
gboolean cml_cli_check_output_path (const char *option, const char *path, char **why);

/* Output rows: at most CML_CLI_MAX_ROWS in any case, CML_CLI_MAX_STDOUT_ROWS to standard
 * output or to a pipe or a device named by -o (whose free space cannot be known); a file
 * must fit the free space of its file system.  ROW_BYTES is an estimate of one row.  FALSE with a message in *WHY that
 * suggests a larger --dt-out. */
#define CML_CLI_MAX_ROWS        100000000 /* 10⁸ */
#define CML_CLI_MAX_STDOUT_ROWS 10000000  /* 10⁷ */
/* A plot draws at most CML_CLI_MAX_SERIES series (--y names, a sweep file's curves); a
 * sweep file is read with at most CML_CLI_MAX_SWEEP_COLUMNS columns.  More is refused
 * with a message, before anything is drawn or read further. */
#define CML_CLI_MAX_SERIES        64
#define CML_CLI_MAX_SWEEP_COLUMNS 4096
gboolean cml_cli_check_rows (const char *path, guint64 n_rows, gsize row_bytes, char **why);

/* Whether the run from the simulation's state to T_END (after or before its time: a
 * backwards run is probed backwards) can be taken, as cml_simulation_span_reachable ()
 * probes it.  A run that would take more than CML_SPAN_MAX_STEPS steps — a span no run
 * reaches in a day: t = 1e308 with steps of 0.01 — is refused: FALSE with a message in *WHY (free it) that names the
 * estimate and suggests a shorter --t-end.  A probe that fails for another reason says
 * nothing (the run itself will).  The simulation is then reset with GIVEN (--init), to be
 * run from its start as if nothing had happened (bit for bit). */
gboolean cml_cli_check_span (CmlSimulation *sim, GHashTable *given, double t_end, char **why);

/* Progress of a long run on standard error — only when it is a terminal, after the first
 * second, at most four times a second — and, on any standard error, one note when an
 * explicit method looks held by stiffness (its stats: most of its steps rejected, or its
 * step at its stability limit) or advances slowly: a stiff system wants msbdf.  Main
 * thread. */
typedef struct
{
  const char        *what;        /* "simulating", "plotting" */
  gint64             start;       /* monotonic µs */
  gint64             last;        /* last line shown, µs */
  gboolean           tty;         /* standard error is a terminal */
  gboolean           shown;       /* a progress line is on the terminal */
  gboolean           noted;       /* the stiffness note was given */
  gboolean           explicit_rk; /* the integrator is an explicit Runge–Kutta method */
  const char        *integrator;  /* its name */
  CmlIntegratorStats stats;       /* the integrator's, kept up to date by it */
} CmlCliProgress;

/* Starts P for a run with the integrator options IOPT, and attaches P's stats block to
 * them (IOPT->stats): set them on the simulation afterwards, and keep P as long. */
void cml_cli_progress_init   (CmlCliProgress *p, const char *what, CmlIntegratorOptions *iopt);
/* The method that runs, once the simulation has it (auto has chosen): its name and whether
 * the stiffness note applies follow it. */
void cml_cli_progress_set_kind (CmlCliProgress *p, CmlIntegratorKind kind);
void cml_cli_progress_update (CmlCliProgress *p, double t, double t_end);
void cml_cli_progress_done   (CmlCliProgress *p);
/* After a failed run: the note about msbdf when an explicit method's step size collapsed. */
void cml_cli_progress_failed (CmlCliProgress *p, const char *message);

/* The logic of the above, for the tests.  The line to show at monotonic time NOW (µs) at
 * simulated time T of T_END, or NULL: only on a terminal, after the first second, at
 * most four times a second (a line shown moves p->last). */
char    *cml_cli_progress_line   (CmlCliProgress *p, double t, double t_end, gint64 now);
/* Whether STATS show an explicit method held by stiffness: after at least 1000 steps,
 * most tries rejected, or the step at the method's stability limit in most estimates. */
gboolean cml_cli_looks_stiff     (const CmlIntegratorStats *stats);
/* The note, or NULL when it is not due (given once; explicit methods only). */
char    *cml_cli_progress_note   (CmlCliProgress *p, double t, gint64 now, double done);

/* The start every command that runs a simulation from its initial data shares: parses
 * INITS ("S=V") into GIVEN, opens MODEL with SETS (cml_cli_open_simulation ()), sets the
 * integrator IOPT (with PROGRESS, when not NULL, started for it and told the method auto
 * chose), resets the simulation with GIVEN and checks that the span to T_END can be taken
 * (cml_cli_check_span ()).  Returns 0 with *SIM ready at its start, or an exit status
 * after printing why, the errors of the steps above unchanged (*SIM, when set, is the
 * caller's to free). */
int      cml_cli_start_simulation (const char *model, GPtrArray *sets, GPtrArray *inits,
                                   GHashTable *given, CmlIntegratorOptions *iopt,
                                   CmlCliProgress *progress, double t_end, const char *usage,
                                   CmlSimulation **sim);

/* The lesson file ARG names: ARG itself when it is a file or a path, else the shipped
 * lesson ARG.cmllesson in $CMLAB_LESSONS_DIR or where cmlab installs its lessons (ARG
 * itself when there is none, for the error to name). */
char *cml_cli_find_lesson (const char *arg);

G_END_DECLS
