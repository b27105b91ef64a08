/* cml-sweep.h — a parameter sweep: the grid of parameter values and its runs on worker
 * threads, the finished rows handed out in grid order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-integrator.h"
#include "cml-simulation.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* A sweep file (CSV) opens with the line CML_SWEEP_FILE_TAG "NAME; vary P, Q": the model's
 * name and the varied parameters, in grid order; then further "#" lines that say what
 * made the numbers (among them CML_SWEEP_MODEL_FILE_TAG "PATH" when the model came from a
 * file: its absolute path), then the column names. */
#define CML_SWEEP_FILE_TAG "# cmlab sweep: model "
#define CML_SWEEP_MODEL_FILE_TAG "# model file: "

/* One varied parameter: N values from A to B inclusive, evenly spaced (N = 1: A alone). */
typedef struct
{
  char  *name;
  double a, b;
  guint  n;
  int    param; /* index in the model's parameters */
} CmlSweepVary;

/* What a sweep runs.  Every point is a fresh simulation of SYS: the BASE parameters (every
 * parameter of the model, in its order), the point's varied parameters, the integrator
 * IOPT, a reset from GIVEN (initial data by name; may be NULL) and a run to each of the
 * N_AT increasing times AT, where the MEASURE observables are read.  The grid is the
 * product of the VARY ranges, the first varying slowest; the shard keeps the points whose
 * grid index g has g mod SHARD_N = SHARD_I (0-based; SHARD_N = 0 is read as 1). */
typedef struct
{
  CmlSystem                  *sys;
  const double               *base;
  const CmlSweepVary         *vary;
  guint                       n_vary;
  guint64                     shard_i, shard_n;
  const CmlIntegratorOptions *iopt;
  GHashTable                 *given;
  const double               *at;
  guint                       n_at;
  const int                  *measure; /* observable indices */
  guint                       n_measures;
  guint                       jobs;    /* threads; 0: one per processor; at most
                                        * CML_SWEEP_MAX_JOBS */
  guint                      *jobs_run; /* where to say how many threads ran (may be NULL) */
} CmlSweepSpec;

/* The most threads a sweep runs, whatever it is asked for. */
#define CML_SWEEP_MAX_JOBS 256

/* The rows a sweep holds at once (done, waiting for the rows before them to be handed
 * out): CML_SWEEP_WINDOW_PER_JOB per thread, fewer when the rows are wide (at most
 * CML_SWEEP_WINDOW_BYTES of values in all), never fewer than the threads. */
#define CML_SWEEP_WINDOW_PER_JOB 4
#define CML_SWEEP_WINDOW_BYTES   (64u << 20) /* 64 MiB */
guint    cml_sweep_window (guint jobs, guint n_cols);

/* Point K of the shard is done: its grid index G, its index along each varied parameter
 * IDX, its N_MEASURES × N_AT VALUES (measure by measure, each at every time; nan from a
 * failure on) and WHY the run failed (NULL when it did not).  Called on the thread that
 * runs the sweep, for K = 0, 1, … in turn. */
typedef void (*CmlSweepRowFunc) (guint64 k, guint64 g, const guint *idx, const double *values,
              const char *why, gpointer user_data);
/* DONE of TOTAL points handed out; called after each row and at least four times a
 * second while a row is awaited, on the thread that runs the sweep. */
typedef void (*CmlSweepProgressFunc) (guint64 done, guint64 total, gpointer user_data);

/* The I-th of V's N values: A, …, B, evenly spaced; A alone when N = 1. */
double   cml_sweep_vary_value (const CmlSweepVary *v, guint i);
/* The number of points in SPEC's shard. */
guint64  cml_sweep_n_points (const CmlSweepSpec *spec);
/* The grid index of the K-th point of SPEC's shard, and its indices along each varied
 * parameter (IDX: N_VARY entries). */
guint64  cml_sweep_grid_index (const CmlSweepSpec *spec, guint64 k, guint *idx);

/* Runs the sweep on SPEC->jobs threads and hands each point to ROW in grid order as soon
 * as it and every point before it are done; PROGRESS (may be NULL) as it goes.  Its
 * memory does not grow with the grid: a thread runs ahead of the rows handed out by at
 * most the window (cml_sweep_window ()).  When the system gives fewer threads than asked
 * for, it runs on those it got (on the calling thread when it gets none).  CANCEL
 * (may be NULL) is read atomically: once non-zero no new point starts, the points being
 * run finish, and no more rows are handed out.  Returns FALSE when cancelled before
 * every row was handed out.  Blocks until the threads have ended. */
gboolean cml_sweep_run (const CmlSweepSpec *spec, CmlSweepRowFunc row,
                        CmlSweepProgressFunc progress, gpointer user_data, const gint *cancel);

G_END_DECLS
