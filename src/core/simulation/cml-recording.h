/* cml-recording.h — a recorded motion played by a simulation instead of integrating.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recording is a table of rows (t, then named columns: a model's observables, as
 * `cmlab-cli simulate` writes them; a lesson's recorded motion, cml-lesson.h).  A
 * simulation given one (cml_simulation_set_recording) does not integrate: advancing to t
 * takes its state from the rows at t, and its observables are the rows' values at t, so a
 * runner, its frames, its history and its timeline play the recording as they play a run
 * — without the parameter values the motion was made with (a student's copy of a lesson
 * leaves a hidden one out).  What is not recorded is computed from the recorded state
 * with the simulation's own parameters: the observables missing from the rows, and the
 * scene (whose expressions should not use a parameter the recording was made to hide).
 *
 * Between rows each column is the cubic Hermite interpolant
 *
 *   y(t) = h00(s) y_i + h10(s) h d_i + h01(s) y_{i+1} + h11(s) h d_{i+1},
 *   s = (t − t_i)/h,  h = t_{i+1} − t_i,
 *   h00 = 2s³ − 3s² + 1,  h10 = s³ − 2s² + s,  h01 = −2s³ + 3s²,  h11 = s³ − s²,
 *
 * whose slopes d_i are those of the parabola through rows i − 1, i, i + 1,
 *
 *   d_i = (h_{i−1} m_i + h_i m_{i−1}) / (h_{i−1} + h_i),   m_i = (y_{i+1} − y_i)/h_i,
 *
 * one-sided at the ends (d_0 = ((2h_0 + h_1) m_0 − h_0 m_1)/(h_0 + h_1), and alike at the
 * last row; m_0 alone with two rows): it passes through every row, is continuous with its
 * first derivative, and is third-order accurate in the row spacing (rows' derivatives are
 * not in a recording, and the model's equations would need the hidden parameters).
 */
#pragma once

#include <glib.h>

#include "cml-simulation.h"

G_BEGIN_DECLS

typedef struct _CmlRecording CmlRecording;

/* A recording of N_ROWS rows of N_COLS values (row-major) named NAMES (N_COLS of them,
 * one of which is "t"), copied.  Errors (CML_ERROR_USAGE): no column t, fewer than two
 * rows, a value that is not finite, times that do not increase. */
CmlRecording *cml_recording_new (const char *const *names, guint n_cols, guint n_rows, const double *values,
                                 GError **error);
/* Immutable once made: any thread may use and ref it. */
CmlRecording *cml_recording_ref (CmlRecording *rec);
void          cml_recording_unref (CmlRecording *rec);
/* Its first and last times. */
double        cml_recording_start (const CmlRecording *rec);
double        cml_recording_end (const CmlRecording *rec);
/* The column named NAME (not t), or -1. */
int           cml_recording_column (const CmlRecording *rec, const char *name);
/* Column COL at time T (clamped to the rows' span), interpolated as above. */
double        cml_recording_value (const CmlRecording *rec, guint col, double t);

/* SIM plays REC from now on (NULL: integrates again, from the state it has): its state
 * becomes the recording's at its start, advancing takes the recorded state, observing the
 * recorded values, a reset goes back to the recording's start.  Fails, changing nothing,
 * when a state variable of SIM's system has no column (CML_ERROR_USAGE, naming it). */
gboolean      cml_simulation_set_recording (CmlSimulation *sim, CmlRecording *rec, GError **error);
/* Whether SIM plays a recording, and the last time it can reach (+∞ for a run that
 * integrates). */
gboolean      cml_simulation_is_recorded (const CmlSimulation *sim);
double        cml_simulation_get_end (const CmlSimulation *sim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlRecording, cml_recording_unref)

G_END_DECLS
