/* cml-render-cmd-private.h — what the files of `cmlab-cli render` share: the options,
 * the state of one render (the run, the scene, the plot and the cards laid over the
 * frames) and what is drawn over and beside the scene (cml-render-overlay.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>

#include "cml-camera.h"
#include "cml-cli-common.h"
#include "cml-offscreen.h"
#include "cml-plot.h"
#include "cml-scene-renderer.h"
#include "cml-video-clock.h"
#include "cml-video.h"

G_BEGIN_DECLS

typedef struct
{
  CmlCliRunOptions run;        /* --set, --init, --t-end, --integrator, --rtol, --atol, --step, -o */
  char       *model;
  double      t_end, fps, speed;
  int         width, height;
  gboolean    table_frame;
  char       *plot_column;
  const char *output;
  gboolean    progress_lines;  /* --progress lines: machine-readable progress on stdout */
  gboolean    no_clock;        /* --no-clock: no simulated time on the frames */
} CmlRenderOptions;

/* One render: the run, the layout of a frame, the scene, its cards and the plot. */
typedef struct
{
  CmlRenderOptions  *o;
  CmlVideoTarget  out;
  CmlVideo       *video;
  CmlSimulation  *sim;
  CmlSystem      *sys;
  GHashTable     *given;       /* --init */
  guint           n_scene, n_obs;
  double         *scene, *obs;
  /* what the scene renderer reads: the scene values, or the observables for a model
   * without a scene (cml_scene_values_are_observables) */
  guint           n_values;
  double         *values;
  int             plot_index;  /* observable plotted, or -1 */

  guint           n_frames;
  guint           substeps;    /* samples from one frame to the next */
  double          frame_dt;    /* simulated time between frames */

  /* layout: the scene at (scene_x, scene_y), SCENE_W × SCENE_H; the plot likewise */
  int             scene_x, scene_y, scene_w, scene_h;
  int             plot_x, plot_y, plot_w, plot_h;

  CmlOffscreen     *off;
  CmlSceneRenderer *renderer;
  CmlSceneStyle     style;
  CmlCamera         camera;
  /* the scene's legend, drawn once (premultiplied ARGB32), laid over every frame */
  cairo_surface_t  *legend;
  int               legend_x, legend_y;
  /* the clock: the simulated time on every frame (none with --no-clock) */
  gboolean          has_clock;
  CmlVideoClock     clock;
  cairo_surface_t  *clock_surface;
  int               clock_x, clock_y;

  CmlPlot          *plot;
  CmlPlotSeries    *series;
  CmlPlotStyle      plot_style;
  cairo_surface_t  *plot_surface;
  double            y_min, y_max;  /* of the plotted quantity over the run */

  /* --progress lines */
  gint64            t_start;       /* µs, monotonic: when the command began */
  gint64            last_report;   /* µs, monotonic: the last line printed */
  guint             prep_done, prep_total;  /* simulated frames before drawing */
  CmlCliProgress    sim_progress;  /* the pre-run's, on a terminal */
} CmlRender;

/* The simulated time frame K shows: k·S/F. */
double cml_render_frame_time (const CmlRender *R, guint k);

/* ---- over and beside the scene (cml-render-overlay.c) --------------------------------- */

/* The legend's card, drawn once: it names what the video shows and does not change. */
void cml_render_make_legend (CmlRender *R);
/* Lays the legend over the RGBA frame FRAME. */
void cml_render_draw_legend (CmlRender *R, guint8 *frame);
/* The clock's card, in the scene's top-left corner (the legend has the bottom-left),
 * if it fits there. */
void cml_render_make_clock (CmlRender *R);
/* Lays the clock reading the time of frame K over the RGBA frame FRAME. */
void cml_render_draw_clock (CmlRender *R, guint k, guint8 *frame);
/* The camera: the window's default three-quarter view, fitted as the window fits it to
 * everything the whole run shows (the pre-run's bounds: bodies, trails, the table at its
 * final size), with the legend's corner kept free. */
void cml_render_frame_scene (CmlRender *R);
/* The plot of the chosen observable against time over [0, T], its y range fixed to
 * what the whole run reaches, so nothing jumps while the curve grows. */
void cml_render_setup_plot (CmlRender *R);
/* Draws the plot as it stands into its rectangle of the RGBA frame FRAME. */
void cml_render_draw_plot (CmlRender *R, guint8 *frame);

G_END_DECLS
