/* cml-geometry-view-private.h — what the Geometry page's files share: the page's fields, a
 * fan of extremals on worker threads (cml-geometry-fan.c) and its drawing
 * (cml-geometry-draw.c).  Every function: the window's (main) thread, but the worker's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-explore.h"
#include "cml-geometry-view.h"
#include "cml-plot-area.h"
#include "cml-plot.h"
#include "cml-reference.h"
#include "cml-se2-maxwell.h"
#include "cml-simulation.h"

G_BEGIN_DECLS

/* The wavefronts drawn besides the one at T: at T/4, T/2 and 3T/4 (from the start, t = 0) */
#define CML_GEOMETRY_N_EARLIER 3

/* A fan of extremals: what it starts from, what has come while it runs, what it gave. */
typedef struct
{
  gint               ref_count;
  gint               cancel;     /* atomic: set by Cancel */
  CmlSimulation     *sim;        /* at the start point; the worker's while it runs */
  CmlExploreOptions  opt;
  double             times[CML_GEOMETRY_N_EARLIER]; /* opt.times */
  double            *start;      /* n_coords: the start point */
  double            *covectors;  /* opt.covectors */
  GMutex             lock;       /* guards DONE and the ended points */
  guint              done;
  double            *ended;      /* n × n_coords: the points at T of the extremals ended, else NaN */
  guint              n_coords;
  guint              n_ended;    /* how many are in ENDED */
  guint              n_taken;    /* … and how many have asked to be (a test holds those past HOLD_AFTER) */
  guint              hold_after; /* G_MAXUINT, or (tests) CMLAB_TEST_GEOMETRY_HOLD_AFTER */
  gint64             started;
  /* the worker's results */
  CmlExploreResult  *res;
  double            *conj_pts;   /* n × n_coords: the point at the first conjugate time (≤ T), or NaN */
  double            *max_pts;    /* … at the Maxwell time */
  /* SE(2) (recognised by its structure, cml-se2-maxwell.h): Sachkov's closed form */
  gboolean           se2;
  CmlSe2Frame        se2_frame;
  double            *sachkov_t;   /* n: the first Maxwell time 2K(k)/s after the start (≤ T), or NaN */
  double            *sachkov_pts; /* n × n_coords: the point at that time, or NaN */
  /* the paths drawn over the 3-D scene: every STRIDE-th extremal at CML_GEOMETRY_PATH_SAMPLES
   * equal steps of [t0, T] (both ends), NaN past a failed run */
  double            *paths;      /* n_paths × CML_GEOMETRY_PATH_SAMPLES × n_coords */
  guint              n_paths;
  double             t0;
} Job;

Job     *cml_geometry_job_ref (Job *job);
void     cml_geometry_job_unref (Job *job);
/* The worker (a GTask's thread function, JOB its task data): the fan, then the points at the
 * conjugate and Maxwell times; TRUE, or the error (CML_ERROR_CANCELLED when cancelled). */
void     cml_geometry_fan_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable);

struct _CmlGeometryView
{
  GtkWidget            parent_instance;

  GtkWidget           *controls, *placeholder;
  GtkDropDown         *x_drop, *y_drop;
  GtkStringList       *names;
  GtkSpinButton       *n_covectors, *time;
  GtkWidget           *run, *cancel;
  GtkProgressBar      *progress;
  GtkLabel            *status;
  CmlPlotArea         *area;

  CmlSystem           *sys;
  CmlReference        *reference;  /* the model's closed forms, or NULL */
  CmlRunner           *runner;
  CmlGeometryRunSource source;
  gpointer             source_data;

  CmlPlot             *plot;       /* the area's */
  Job                 *job;        /* the running fan, or NULL */
  Job                 *shown;      /* the fan drawn, or NULL (its simulation now this thread's) */
  GArray              *points;     /* the wavefront drawn at T: (x, y) pairs in covector order */
  GArray              *fronts;     /* every wavefront drawn, the one at T last: N_FRONTS × N pairs */
  guint                n_fronts;
  double               times[CML_GEOMETRY_N_EARLIER]; /* the options' wavefront times */
  double               closed[3];  /* the largest differences from the closed forms drawn: the
                                    * wavefront, conjugate, Maxwell points (NaN: none drawn) */
  double               sachkov[2]; /* SE(2): the largest difference of the first Maxwell times
                                    * from Sachkov's, and of the Maxwell points from the points at
                                    * Sachkov's times (NaN: not drawn) */
  gboolean             partial;    /* POINTS are the running fan's ended extremals (NaN: not yet) */
  guint                n_drawn;    /* … how many of them */
  guint                timer;
};

/* The position of NAME in LIST, or GTK_INVALID_LIST_POSITION. */
/* The fan drawn (self->shown) on the axes the drop-downs choose. */
void     cml_geometry_view_draw_fan (CmlGeometryView *self);
/* The running fan's endpoints that have come. */
void     cml_geometry_view_draw_ended (CmlGeometryView *self);

G_END_DECLS
