/* cml-geometry-view.h — the Geometry page: for a vakonomic model, the fan of extremals from
 * the run's start point, its wavefront growing (at T/4, T/2, 3T/4 and T), its conjugate and
 * Maxwell points; a click on a wavefront starts the run on that extremal.  Every function: the window's
 * (main) thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-explore.h"
#include "cml-integrator.h"
#include "cml-runner.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* The paths of the fan the 3-D scene draws: at most this many, of this many points each */
#define CML_GEOMETRY_MAX_PATHS    100
#define CML_GEOMETRY_PATH_SAMPLES 65

#define CML_TYPE_GEOMETRY_VIEW (cml_geometry_view_get_type ())
G_DECLARE_FINAL_TYPE (CmlGeometryView, cml_geometry_view, CML, GEOMETRY_VIEW, GtkWidget)

/* What a fan starts from besides the parameters (the runner's): the integrator (filled into
 * *IOPT) and the initial values (name -> double*, NULL: the model's own). */
typedef GHashTable *(*CmlGeometryRunSource) (gpointer user_data, CmlIntegratorOptions *iopt);

GtkWidget *cml_geometry_view_new (void);

/* The system (NULL: none) and the runner whose parameters the fan uses.  Cancels a running
 * fan and clears the drawing; for a system that is not vakonomic the page is a placeholder
 * saying what it is for. */
void       cml_geometry_view_set_system (CmlGeometryView *self, CmlSystem *sys, CmlRunner *runner);
void       cml_geometry_view_set_run_source (CmlGeometryView *self, CmlGeometryRunSource source,
                                             gpointer user_data);
/* Whether the page applies (a vakonomic system whose fan can be drawn). */
gboolean   cml_geometry_view_is_available (CmlGeometryView *self);

/* Sets every field (tests and scripts): N extremals to time T, the axes X and Y (point
 * coordinates).  FALSE with ERROR when one does not apply. */
gboolean   cml_geometry_view_set_fan (CmlGeometryView *self, guint n, double t, const char *x, const char *y,
                                      GError **error);
/* The options the page's fields give (N, T; the rest cml_explore's defaults). */
CmlExploreOptions cml_geometry_view_get_options (CmlGeometryView *self);
/* Runs the fan the fields describe on worker threads, with a progress bar.  FALSE with
 * ERROR when it cannot start. */
gboolean   cml_geometry_view_start (CmlGeometryView *self, GError **error);
/* Stops the running fan: no new extremal starts, nothing is drawn. */
void       cml_geometry_view_cancel (CmlGeometryView *self);
gboolean   cml_geometry_view_is_running (CmlGeometryView *self);

/* The fan drawn (NULL: none yet; tests). */
const CmlExploreResult *cml_geometry_view_get_result (CmlGeometryView *self);
/* The wavefront's points drawn at T, N pairs (x, y) in the order of the covectors (tests); while
 * a fan runs, those of its extremals that have ended (NaN for the others). */
const double *cml_geometry_view_get_points (CmlGeometryView *self, guint *n);
/* Every wavefront drawn, at the fan's times (cml_geometry_view_get_result ()->times: T/4,
 * T/2, 3T/4) and the one at T last: *N_FRONTS × N pairs (x, y), front after front, each
 * in the order of the covectors (tests); none while a fan runs. */
const double *cml_geometry_view_get_fronts (CmlGeometryView *self, guint *n, guint *n_fronts);
/* The plot's ranges, as it draws them next (tests). */
void          cml_geometry_view_get_ranges (CmlGeometryView *self, double *x0, double *x1, double *y0,
                                            double *y1);
/* What a click at the data point (X, Y) does: the nearest point of any wavefront drawn, on
 * the plot's scales, emits ::extremal-picked with its extremal.  FALSE when there is none, or
 * while the points drawn are those of a running fan. */
gboolean   cml_geometry_view_pick (CmlGeometryView *self, double x, double y);
/* The initial values that start the run on extremal I of the fan drawn, as the parameter
 * panel names them (name -> double*; a new table), or NULL. */
GHashTable *cml_geometry_view_initial_values (CmlGeometryView *self, guint i);
/* The largest difference of the wavefronts drawn from their closed forms (the model's
 * [reference] of both axes), and into *CONJUGATE and *MAXWELL (may be NULL) those of the
 * conjugate and Maxwell points at the times found; NaN where none is drawn (tests). */
double      cml_geometry_view_get_closed_form_difference (CmlGeometryView *self, double *conjugate,
                                                          double *maxwell);
/* The paths of the fan drawn, for the 3-D scene: *N_PATHS of its extremals (every
 * ⌈N/100⌉-th) at CML_GEOMETRY_PATH_SAMPLES (65) equal steps of [*T0, *T_END], each point
 * the coordinates of cml_geometry_view_get_result ()->coord_names; NULL when no fan is
 * drawn.  ::fan-changed says when they change. */
const double *cml_geometry_view_get_paths (CmlGeometryView *self, guint *n_paths, double *t0, double *t_end);
/* SE(2) (recognised by its structure): the largest difference of the first Maxwell times
 * found from Sachkov's closed form 2K(k), and into *POINTS (may be NULL) that of the Maxwell
 * points drawn from the points at Sachkov's times (on the axes drawn); NaN when the model is
 * not SE(2) or no Maxwell point is drawn (tests). */
double      cml_geometry_view_get_sachkov_difference (CmlGeometryView *self, double *points);
/* The status line (tests). */
const char *cml_geometry_view_get_status (CmlGeometryView *self);

void       cml_geometry_view_set_style (CmlGeometryView *self, gboolean dark, gboolean high_contrast,
                                        gboolean presentation);

G_END_DECLS
