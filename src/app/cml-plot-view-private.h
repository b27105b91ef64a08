/* cml-plot-view-private.h — the plot view's fields and what its files share: cml-plot-view.c
 * (the widget), -selectors.c (the header), -data.c (the run's samples), -gl.c (drawing and
 * zoom), -export.c, -layout.c, -compare.c (a second run drawn beside the first), -pick.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-plot-gl.h"
#include "cml-plot-view.h"
#include "cml-reference.h"

G_BEGIN_DECLS

/* The samples a live plot keeps of a run, and of the other run beside it: the newest
 * CML_PLOT_VIEW_KEEP (the runner's record: 65 536 samples, 9 min at 1/120 s), and at
 * most an eighth more between two trims, so a lecture-long run takes bounded memory. */
#define CML_PLOT_VIEW_KEEP 65536u

/* Drops the oldest samples of T and of every column in OTHERS alike when T holds more
 * than KEEP + KEEP / 8, leaving KEEP; returns how many were dropped (cml-plot-view.c). */
guint cml_plot_columns_keep_last (CmlPlotColumn *t, GPtrArray *others, guint keep);

struct _CmlPlotView
{
  GtkWidget       parent_instance;

  /* template children */
  GtkWidget      *selectors;     /* the header's groups: the quantities plotted, */
  GtkWidget      *x_selector;    /* what against, */
  GtkWidget      *controls;      /* the time window and the plot menu (export_button) */
  GtkMenuButton  *y_button;
  GtkWidget      *monitors_button;
  GtkWidget      *residual_button;
  GtkWidget      *error_button;  /* "Error against the closed form": every NAME_err */
  GtkBox         *y_list;
  GtkDropDown    *x_dropdown;
  GtkStringList  *x_model;
  GtkToggleButton *window_button;
  GtkToggleButton *all_button;
  GtkGLArea      *area;
  GtkMenuButton  *export_button;
  GtkCheckButton *equal_check; /* the menu's "Equal Scales" (insensitive where it cannot apply) */
  double          pointer_x, pointer_y; /* the pointer over the plot area (widget px) */
  GtkFileChooserNative *chooser; /* the export dialog while it is open */
  char           *export_format; /* "png", "svg" or "pdf" of the open dialog */

  CmlSystem      *system;
  CmlPlot        *plot;
  CmlPlotColumn  *t_column;
  GPtrArray      *columns;       /* CmlPlotColumn*, one per observable */
  CmlPlotView    *data_owner;    /* weak: the view whose columns this one shows, or NULL */
  CmlReference   *reference;     /* the model's closed forms ([reference]), or NULL */
  GPtrArray      *ref_columns;   /* CmlPlotColumn*, two per reference: NAME_ref, NAME_err
                                  * (shared with the owner like the columns) */
  GArray         *ref_scratch;   /* double: the reference columns of the samples pushed */
  gboolean        ref_started;   /* the closed forms know the run's start */
  gboolean        show_reference;/* closed forms drawn dashed beside their quantities */
  GPtrArray      *checks;        /* GtkCheckButton*, one per observable (y_list) */
  char           *x_name;        /* NULL: time */
  GPtrArray      *y_names;       /* char* */
  gboolean        syncing;       /* the selectors are being set from code */

  CmlPlotGl      *renderer;
  gboolean        renderer_failed;
  gboolean        presentation, dark;
  gboolean        high_contrast;  /* the desktop asks for it: black and white, thicker lines */
  double          text_scale;    /* presentation type and lines: this times their size (≥ 1) */
  guint           n_frames;

  /* a second run drawn beside this one, for comparison (cml-plot-view-compare.c) */
  CmlSystem      *ghost_system;  /* NULL: none */
  char           *ghost_label;   /* what tells it apart in the legend ("vakonomic") */
  CmlPlotColumn  *ghost_t;
  GPtrArray      *ghost_columns; /* CmlPlotColumn*, two per observable of ghost_system: the
                                  * values, then (after all of them) the drift */
  gboolean        show_difference; /* against time: this run minus the other, per quantity */
  CmlPlotColumn  *diff_t;        /* the times of this run's samples where both are known */
  GPtrArray      *diff_columns;  /* CmlPlotColumn*, one per observable: this − the other */
  guint           diff_done;     /* samples of this run whose difference is computed */
  /* comparing integrators: each run's drift from its start, log₁₀ |Q(t) − Q(0)|, per
   * quantity (this run's at its sample times; the other run's in ghost_columns, after its
   * values) */
  gboolean        show_drift;
  char           *drift_label;   /* what this run is in the legend ("variational (h = 0.01)") */
  CmlPlotColumn  *drift_t;
  GPtrArray      *drift_columns; /* CmlPlotColumn*, one per observable */
  GArray         *drift_base;    /* double: this run's first sample, one per observable */
  GArray         *ghost_drift_base; /* double: the other run's first sample */
  guint           drift_done;    /* samples of this run whose drift is computed */
};

/* cml-plot-view.c */
CmlPlotColumn *cml_plot_view_column_of (CmlPlotView *self, const char *name);
void           cml_plot_view_rebuild (CmlPlotView *self);
void           cml_plot_view_queue_render (CmlPlotView *self);

/* cml-plot-view-compare.c: the other run's series for quantity NAME (UNIT; SHOWN: how it
 * is named to people) in palette colour COLOUR, against X_NAME (NULL: time), added to the
 * plot; and the difference */
void     cml_plot_view_compare_init (CmlPlotView *self);
void     cml_plot_view_compare_finalize (CmlPlotView *self);
void     cml_plot_view_compare_add_series (CmlPlotView *self, const char *name, const char *shown,
                                           const char *unit, guint colour);
gboolean cml_plot_view_compare_add_difference (CmlPlotView *self, const char *name,
                                               const char *shown, const char *unit, guint colour);
void     cml_plot_view_compare_clear_difference (CmlPlotView *self);
/* fresh difference columns for this run's observables (none without a comparison) */
void     cml_plot_view_compare_reset (CmlPlotView *self);
void     cml_plot_view_compare_update_difference (CmlPlotView *self);
/* the two runs' drift of quantity NAME (its log₁₀ |Q − Q(0)|) added to the plot, when the
 * drift is shown and the other run has NAME */
gboolean cml_plot_view_compare_add_drift (CmlPlotView *self, const char *name, const char *shown,
                                          guint colour);

/* cml-plot-view-pick.c: a click in a phase portrait chooses where a run starts */
void     cml_plot_view_pick_class_init (GObjectClass *object_class);
void     cml_plot_view_pick_init (CmlPlotView *self);

/* cml-plot-view.c: names, units and style of what the view shows; the plot's series */
CmlModel    *cml_plot_view_model (CmlPlotView *self);
const char  *cml_plot_view_unit_of (CmlPlotView *self, const char *name);
const char  *cml_plot_view_time_unit (CmlPlotView *self);
char        *cml_plot_view_display_name (CmlPlotView *self, const char *name);
char        *cml_plot_view_display_name_with_unit (CmlPlotView *self, const char *name);
gboolean     cml_plot_view_same_unit (const char *a, const char *b);
GPtrArray   *cml_plot_view_monitor_names (CmlPlotView *self);
void         cml_plot_view_style (CmlPlotView *self, CmlPlotStyle *style);
void         cml_plot_view_rebuild_series (CmlPlotView *self);

/* cml-plot-view-selectors.c: the header's selectors and their template callbacks */
void         cml_plot_view_sync_equal_scales (CmlPlotView *self);
void         cml_plot_view_on_equal_check_toggled (CmlPlotView *self);
void         cml_plot_view_sync_selectors (CmlPlotView *self);
void         cml_plot_view_set_y_names (CmlPlotView *self, GPtrArray *names);
void         cml_plot_view_on_monitors_clicked (CmlPlotView *self);
void         cml_plot_view_on_residual_clicked (CmlPlotView *self);
void         cml_plot_view_on_error_clicked (CmlPlotView *self);
void         cml_plot_view_on_x_selected (CmlPlotView *self);
void         cml_plot_view_on_show_all_toggled (CmlPlotView *self);
void         cml_plot_view_fill_selectors (CmlPlotView *self);

/* cml-plot-view-gl.c: the GL area's callbacks, zoom */
void         cml_plot_view_on_area_realize (CmlPlotView *self);
void         cml_plot_view_on_area_unrealize (CmlPlotView *self);
gboolean     cml_plot_view_on_area_render (CmlPlotView *self, GdkGLContext *context);
void         cml_plot_view_sync_zoom (CmlPlotView *self);
void         cml_plot_view_on_pointer_motion (GtkEventControllerMotion *motion, double x, double y,
                                              CmlPlotView *self);
gboolean     cml_plot_view_on_scroll (GtkEventControllerScroll *scroll, double dx, double dy,
                                      CmlPlotView *self);
void         cml_plot_view_on_double_click (GtkGestureClick *click, int n_press, double x, double y,
                                            CmlPlotView *self);
void         cml_plot_view_reset_zoom_action (GtkWidget *widget, const char *action_name,
                                              GVariant *param);

/* cml-plot-view-export.c: the "plot.export" action */
void         cml_plot_view_close_chooser (CmlPlotView *self);
void         cml_plot_view_export_action (GtkWidget *widget, const char *action_name,
                                          GVariant *param);

/* cml-plot-view-layout.c: the widget's custom layout */
GtkSizeRequestMode cml_plot_view_layout_request_mode (GtkWidget *widget);
void         cml_plot_view_layout_measure (GtkWidget *widget, GtkOrientation orientation,
                                           int for_size, int *minimum, int *natural,
                                           int *minimum_baseline, int *natural_baseline);
void         cml_plot_view_layout_allocate (GtkWidget *widget, int width, int height, int baseline);

/* cml-plot-view-data.c: the run's parameters now (the window's newest frame, else the model's) */
void         cml_plot_view_current_parameters (CmlPlotView *self, CmlModel *model, double *values);

G_END_DECLS
