/* cml-scene-view-private.h — what the files of the 3-D view share: its instance (one
 * widget, CmlSceneView, written in five files by concept: cml-scene-view.c the GL area,
 * the instance and the public API; -legend.c the legend card; -pointer.c dragging bodies
 * and arrows, the camera under the pointer; -steer.c steering to a target; -faint.c what
 * is drawn faint over the run: a second run, the closed form).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-camera.h"
#include "cml-reference.h"
#include "cml-scene-fan.h"
#include "cml-scene-renderer.h"
#include "cml-scene-steer.h"
#include "cml-scene-view.h"

G_BEGIN_DECLS

#define PENDING_MAX   30000  /* rows kept while there is no renderer */
#define LEGEND_MARGIN 8      /* logical pixels between the legend and the view's edges */
#define LEGEND_MAX_SHARE 0.25 /* of the view's height: a short view's legend gets smaller type … */
#define LEGEND_MAX_SHARE_TALL 0.35 /* (in presentation mode, of a view this tall or taller — a
                                    * large screen, where the hall needs the legend to read the
                                    * arrows and colours, and the body keeps room above it) */
#define LEGEND_TALL_VIEW 700  /* logical pixels */
#define LEGEND_MIN_FONT 13.0  /* … down to this size (logical pixels), still read from a hall, … */
#define LEGEND_MIN_SHARE_PRESENTING 0.025 /* … in presentation mode 2.5 % of the window's height; … */
                              /* … else it is folded into a button */
#define GHOST_REACH   2.0    /* a second run is framed within this many half-sizes of the
                              * first run's box from its centre */

struct _CmlSceneView
{
  GtkWidget parent_instance;

  /* template children (the overlay is bound so that dispose_template unparents it) */
  GtkOverlay      *overlay;
  GtkGLArea       *area;
  GtkToggleButton *table_frame_button;
  GtkWidget       *corner_buttons;  /* the buttons over the view's top-right corner */
  GtkToggleButton *steer_button;
  GtkDrawingArea  *legend;
  double           legend_w, legend_h;  /* logical pixels; 0 when there is no legend */
  int              legend_room;         /* the view's width the legend was laid out for */
  int              legend_room_h;       /* … and its height */
  gboolean         legend_folded;       /* too tall for the view even in smaller type: a button shows it */
  GtkWidget       *legend_button;
  guint            legend_relayout;     /* idle source: lay the legend out for a new width */

  CmlSceneRenderer *renderer;        /* realized only */
  gboolean          renderer_failed; /* shaders failed in a working context: a bug */
  CmlSystem        *sys;
  CmlFrame         *frame;
  CmlCamera         camera;
  CmlSceneStyle     style;
  double            drag_x, drag_y;  /* offsets already applied in this drag */
  gint64            last_fit_time;   /* monotonic time of the last framing, µs (0: none) */
  int               fit_width, fit_height; /* the view's size (device pixels) at the last framing */
  double           *last_good;       /* the last finite values drawn (see current_values) */
  guint             n_last_good;

  /* trails: fed by push_samples, else by the frames */
  gboolean          samples_pushed;
  double            last_frame_t;
  guint             last_generation;
  /* rows waiting for a renderer: scene values only, n_scene per row, and their times */
  GArray           *pending_t;
  GArray           *pending_rows;

  /* a second run, drawn translucent over this one (comparing two runs) */
  CmlSystem        *ghost_sys;
  CmlSceneRenderer *ghost_renderer;  /* realized only */
  CmlFrame         *ghost_frame;
  GtkWidget        *ghost_legend;    /* "Faint: the vakonomic run" */
  double            ghost_last_t;    /* the newest time of its trail */
  char             *ghost_label;

  /* the model's closed form drawn faint (when the plots show it): its own renderer, fed
   * with the scene the closed-form values of the observables make */
  gboolean          show_reference;
  CmlReference     *reference;
  CmlSceneRenderer *ref_renderer;   /* realized only */
  double            ref_last_t;
  double           *ref_now;        /* the closed form's scene at the newest frame */

  /* dragging a body to where the run should start: the base coordinates its centre's
   * x and y are, and the height it moves at */
  gboolean          body_drag;
  double            text_scale;      /* the legend's size in presentation mode (1: as designed) */
  gboolean          arrow_drag;      /* the tip of a velocity arrow, not a body */
  char             *drag_names[2];
  double            drag_z;
  double            drag_from[2];    /* an arrow's foot: the velocity is tip − foot */

  /* steering to a target (cml-scene-shoot.h): a click while aiming emits ::steer-target;
   * the target and the conjugate points are marked over the scene, a card says what
   * they are or that the shooting runs (cml-scene-steer.h) */
  gboolean          aim_click;       /* this press may be a click that aims */
  CmlSceneSteer    *steer;
  CmlSceneFan      *fan;             /* the Geometry page's fan over the scene (cml-scene-fan.h) */
};

enum
{
  CML_SCENE_VIEW_DRAG_INITIAL,
  CML_SCENE_VIEW_STEER_TARGET,
  CML_SCENE_VIEW_N_SIGNALS
};

extern guint cml_scene_view_signals[CML_SCENE_VIEW_N_SIGNALS];

/* cml-scene-view.c: the values drawn and the renderers */
gboolean          cml_scene_view_uses_observables (CmlSceneView *self);
guint             cml_scene_view_n_scene (CmlSceneView *self);
const double     *cml_scene_view_current_values (CmlSceneView *self);
CmlSceneRenderer *cml_scene_view_renderer_for (CmlSystem *sys);
void              cml_scene_view_update_faint_note (CmlSceneView *self);

/* cml-scene-view-legend.c */
void   cml_scene_view_legend_class_init (GtkWidgetClass *widget_class);
void   cml_scene_view_legend_init (CmlSceneView *self);
void   cml_scene_view_update_legend (CmlSceneView *self);
CmlSceneStyle cml_scene_view_legend_style (CmlSceneView *self);
double cml_scene_view_legend_scale (CmlSceneView *self, int width, int height, gboolean *folded);

/* cml-scene-view-pointer.c */
void    cml_scene_view_pointer_class_init (GtkWidgetClass *widget_class);
void    cml_scene_view_pointer_init (CmlSceneView *self);
double *cml_scene_view_symbol_values (CmlSystem *sys, CmlFrame *f, const double *obs, double t);

/* cml-scene-view-steer.c */
void     cml_scene_view_steer_class_init (GtkWidgetClass *widget_class);
gboolean cml_scene_view_steering (CmlSceneView *self);
void     cml_scene_view_update_steer_button (CmlSceneView *self);

/* cml-scene-view-faint.c */
void cml_scene_view_reference_feed (CmlSceneView *self, const double *t, const double *rows, guint n,
                                    guint n_cols, guint n_obs);
void cml_scene_view_reference_now (CmlSceneView *self, CmlFrame *frame);

G_END_DECLS
