/* cml-sweep-view.h — the Sweep page: one parameter swept over a range, a measured
 * quantity plotted against it; a click on the curve sets the parameter.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-integrator.h"
#include "cml-runner.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_SWEEP_VIEW (cml_sweep_view_get_type ())
G_DECLARE_FINAL_TYPE (CmlSweepView, cml_sweep_view, CML, SWEEP_VIEW, GtkWidget)

/* What a sweep starts from besides the parameters (the runner's): the integrator (filled
 * into *IOPT) and the initial values (name -> double*, NULL: the model's own). */
typedef GHashTable *(*CmlSweepRunSource) (gpointer user_data, CmlIntegratorOptions *iopt);

GtkWidget *cml_sweep_view_new (void);

/* The system swept (NULL: none) and the runner whose parameters the points start from and
 * whose current value of the swept parameter is marked.  Cancels a running sweep and
 * clears the curve. */
void       cml_sweep_view_set_system (CmlSweepView *self, CmlSystem *sys, CmlRunner *runner);
void       cml_sweep_view_set_run_source (CmlSweepView *self, CmlSweepRunSource source, gpointer user_data);

/* Readies a sweep of parameter NAME with the defaults: its slider's range, 41 points, the
 * first monitor (else the first coordinate) measured at the run's present time (10 when the
 * run is at its start).  FALSE when NAME is not a swept parameter (a set of choices). */
gboolean   cml_sweep_view_prepare (CmlSweepView *self, const char *name);
/* Sets every field (tests and scripts): FALSE with ERROR when one does not apply. */
gboolean   cml_sweep_view_set_sweep (CmlSweepView *self, const char *name, double from, double to, guint n,
                                     const char *measure, double t, GError **error);
/* Runs the sweep the fields describe on worker threads (the points as they come, in
 * order, with a progress bar).  FALSE with ERROR when it cannot start. */
gboolean   cml_sweep_view_start (CmlSweepView *self, GError **error);
/* Stops the running sweep: no new point starts; the curve keeps the points done. */
void       cml_sweep_view_cancel (CmlSweepView *self);
gboolean   cml_sweep_view_is_running (CmlSweepView *self);

/* The swept points so far, N pairs (parameter, measure) in grid order (tests). */
const double *cml_sweep_view_get_points (CmlSweepView *self, guint *n);
/* What a click at parameter value X does: emits ::param-picked with the nearest point's
 * value (a point with a finite measure).  FALSE when there is none. */
gboolean   cml_sweep_view_pick (CmlSweepView *self, double x);
/* The status line (tests). */
const char *cml_sweep_view_get_status (CmlSweepView *self);

void       cml_sweep_view_set_style (CmlSweepView *self, gboolean dark, gboolean high_contrast,
                                     gboolean presentation);

G_END_DECLS
