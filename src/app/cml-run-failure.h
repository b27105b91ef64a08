/* cml-run-failure.h — why a run stopped, in words for a student.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The integrator reports failures for a developer ("step size underflow at t = 0.38
 * (step 1e-16 < h_min 1e-14)").  The status line says the same in plain words, short
 * enough for one line, with an explanation and what to try one click away; the
 * technical message stays available beneath it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *summary;      /* one line: "Stopped at t = 0.38 s: the motion grows without bound" */
  char *explanation;  /* two or three sentences: what happened and what to try */
} CmlRunFailure;

/* Explains MESSAGE (a runner's failure message); TIME_UNIT is the model's ("s").
 * Free with cml_run_failure_free. */
CmlRunFailure *cml_run_failure_explain (const char *message, const char *time_unit);
void           cml_run_failure_free (CmlRunFailure *failure);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlRunFailure, cml_run_failure_free)

G_END_DECLS
