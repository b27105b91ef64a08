/* cml-output.h — writing a run's rows as CSV, JSON or NumPy's .npy, to stdout or atomically to a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A file is written through cml-atomic-file.c: under a temporary name in the same
 * directory, renamed over the requested name only by cml_output_finish(), so a failed,
 * aborted or interrupted run leaves no partial file behind (and a device, a FIFO, a
 * symbolic link or a read-only file is never replaced by it).  While a file is open,
 * SIGINT, SIGTERM and SIGHUP stop the rows: cml_output_row() fails with "interrupted",
 * the caller aborts, and the signal then ends the process as it would have.
 *
 * Numbers are written in C syntax whatever the locale (%.17g, no decimal comma); text
 * fields (a title, units) are escaped: one line in a CSV comment, a valid JSON string
 * (JSON is written by cml-json.c, row by row).
 */
#pragma once

#include <glib.h>
#include <stdio.h>

#include "cml-integrator.h"
#include "cml-reference.h"
#include "cml-system.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

typedef enum
{
  CML_OUTPUT_CSV,
  CML_OUTPUT_JSON,
  CML_OUTPUT_NPY,  /* NumPy's .npy: a structured array, one '<f8' field per column; to a
                    * file only, with the metadata in FILE.json beside it */
} CmlOutputFormat;

gboolean cml_output_format_from_string (const char *name, CmlOutputFormat *format);

typedef struct _CmlOutput CmlOutput;

/* PATH NULL or "-" writes to stdout.  Errors: CML_ERROR_IO. */
CmlOutput *cml_output_new (const char *path, CmlOutputFormat format, GError **error);
/* Writes the header for COLUMNS (names of observables of SIM's system). */
gboolean   cml_output_begin (CmlOutput *out, CmlSimulation *sim, const char *const *columns,
                             GError **error);
/* Adds, after the columns, NAME_ref and NAME_err (the run minus the closed form) for each
 * of REF's references (REF must be started, cml_reference_start, and outlive OUT).
 * Call before cml_output_begin. */
void       cml_output_set_reference (CmlOutput *out, CmlReference *ref);
/* Writes one row: t and the columns at SIM's current state. */
gboolean   cml_output_row (CmlOutput *out, CmlSimulation *sim, GError **error);
/* Writes one row from recorded data: time T and OBS, every observable of the system
 * (cml_system_n_observables values, system order), of which the columns are taken. */
gboolean   cml_output_row_obs (CmlOutput *out, double t, const double *obs, GError **error);
/* Writes "# TEXT" (TEXT escaped onto one line) — CSV only; JSON has no comments. */
gboolean   cml_output_comment (CmlOutput *out, const char *text, GError **error);
/* Completes the file and moves it to its name. */
gboolean   cml_output_finish (CmlOutput *out, GError **error);
/* Drops a partial file. */
void       cml_output_abort (CmlOutput *out);
void       cml_output_free (CmlOutput *out);
/* How many rows a thread of their own wrote (those after the first few thousand). */
guint64    cml_output_n_thread_rows (const CmlOutput *out);

/* The comment lines that say what made a CSV file's numbers, shared by simulate's rows
 * and sweep's.  "# made by cmlab VERSION from the model text with SHA-256 HEX": the
 * program and the exact model text. */
void       cml_output_write_made_by (FILE *fp, const CmlModel *model);
/* "# parameters: P = V, …" with every parameter of MODEL at VALUES (model order), or
 * "none"; those with VARIED[k] (VARIED may be NULL) say "P (varied)" instead of a value. */
void       cml_output_write_parameters (FILE *fp, const CmlModel *model, const double *values,
                                        const gboolean *varied);
/* "# integrator: …": the method with its tolerances or its step, and what auto chose. */
void       cml_output_write_integrator (FILE *fp, const CmlIntegratorOptions *io);
/* V as the rows write it: %.17g in the C locale, or nan, inf, -inf. */
void       cml_output_write_number (FILE *fp, double v);

/* TEXT on one line for a "#" comment of a CSV file: line breaks, tabs and other control
 * characters written as \n, \r, \t, \xHH. */
void       cml_text_append_escaped (GString *s, const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlOutput, cml_output_free)

G_END_DECLS
