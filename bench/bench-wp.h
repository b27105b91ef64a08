/* bench-wp.h — the work–precision diagrams of every integrator on every built-in, and the
 * interpreter's cost inside a whole integration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "cml-json.h"
#include "cml-simulation.h"
#include "cml-system.h"
#include "reference-rhs.h"

/* One built-in opened for a work–precision run: its simulation at the default initial
 * data, the span integrated (10 periods of the closed form's period where the benchmark
 * has one, else 10 s) and the "period" that fixed steps are fractions of (a tenth of it). */
typedef struct
{
  char          *model;
  char          *title;
  CmlSystem     *sys;
  CmlSimulation *sim;
  double         span, period;
  gboolean       closed_form;   /* the error is against the closed form, else a reference run */
  double        *ref_state;     /* the reference run's state at the end (no closed form) */
  double         ref_spread;    /* how far two reference runs differ: the error's floor */
  double        *obs;
  /* for the closed form */
  const CmlRefSystem *ref;
  CmlRefParams   params;
  double         z0[CML_REF_MAX_DIM];
} BenchWpModel;

gboolean bench_wp_model_open (BenchWpModel *m, const char *model, GError **error);
void     bench_wp_model_close (BenchWpModel *m);
/* The error of the simulation's state at the end of the span: the largest deviation from
 * the closed form (over the components it gives), else from the reference run (over the
 * state). */
double   bench_wp_model_error (BenchWpModel *m);

/* `--only work-precision-figures`: the diagrams (bench-wp.c).  With a --csv directory,
 * DIR/work-precision-MODEL.csv and, with the render library, .png and .svg; Martinet also
 * as whole cmlab-cli processes (CLI), work-precision-martinet-process.*.  Nothing when ONLY
 * names neither the figure nor (with other figures) a built-in. */
void bench_wp_figures (const char *cli, CmlJson *json, gboolean quick, const char *const *only);
void bench_wp_set_csv_dir (const char *dir);
/* Whether NAME is a built-in model (of the models directory). */
gboolean bench_wp_is_builtin (const char *name);

/* `--only interpreter`: every built-in with rk8pd at rtol = atol = 1e-10 over the same
 * span, native code against the interpreter (bench-interp.c). */
void bench_interp (CmlJson *json, gboolean quick, const char *const *only);
