/* cml-plot-view.h — the live plot widget: series selectors and a GtkGLArea.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * CmlPlotView shows a CmlPlot (src/render/cml-plot.h) drawn with OpenGL
 * (cml-plot-gl.h).  A header chooses the y series (any set of observables:
 * energy and the model's monitors, the constraint residual, any variable), the
 * x variable ("time" or any observable: a phase portrait) and whether the whole
 * run or only a sliding time window is shown; its menu toggles equal scales and
 * exports the plot.  The header is one row where it fits and two in a narrow column.
 *
 * The view keeps every observable's history for the whole run (one column per
 * observable, all sharing one time column), so changing the selection shows the
 * full history of the newly chosen variables at once.
 *
 * All functions: UI thread only.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-plot.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_PLOT_VIEW (cml_plot_view_get_type ())
G_DECLARE_FINAL_TYPE (CmlPlotView, cml_plot_view, CML, PLOT_VIEW, GtkWidget)

GtkWidget *cml_plot_view_new (void);

/* Sets the system whose observables are plotted (NULL allowed: an empty plot).
 * Fills the selectors, clears the data and selects the default series: the
 * model's monitors (energy and invariants) against time, or the first
 * coordinate when the model has no monitors. */
void       cml_plot_view_set_system (CmlPlotView *self, CmlSystem *sys);

/* Selects what is plotted: X is an observable name or NULL (or "time") for time
 * (an observable gives a phase portrait); YS is a NULL-terminated list of
 * observable names.  Unknown names are ignored with a warning. */
void       cml_plot_view_set_series (CmlPlotView *self, const char *x, const char *const *ys);

/* Appends N samples.  T[k] is the time of row k (increasing; a time before the
 * last one starts the plot over, as a new run); row k's observables are
 * ROWS[k*n_cols .. k*n_cols + n_obs) (the runner's history rows carry scene
 * values after them, which are ignored).  N_OBS must equal the system's
 * number of observables (else the samples are dropped with a warning). */
void       cml_plot_view_push_samples (CmlPlotView *self, const double *t, const double *rows,
                                       guint n, guint n_cols, guint n_obs);

/* Drops all samples (a reset: the plot starts over); keeps the selection. */
void       cml_plot_view_clear (CmlPlotView *self);
void       cml_plot_view_share_data (CmlPlotView *self, CmlPlotView *owner);

/* Presentation mode: large fonts and thick lines, for a projector. */
void       cml_plot_view_set_presentation (CmlPlotView *self, gboolean on);
void       cml_plot_view_set_dark (CmlPlotView *self, gboolean dark);
/* Dark or light, and high contrast (black and white, thicker lines) or not. */
void       cml_plot_view_set_style (CmlPlotView *self, gboolean dark, gboolean high_contrast);
/* In presentation mode type and lines are SCALE times their size (≥ 1: the window makes
 * them grow with its height); the tick labels' font size as drawn, in logical pixels. */
void       cml_plot_view_set_text_scale (CmlPlotView *self, double scale);
double     cml_plot_view_get_font (CmlPlotView *self);

/* The plot model (owned by the view), e.g. for cml_plot_export(). */
CmlPlot   *cml_plot_view_get_plot (CmlPlotView *self);

/* Style the view draws with (presentation and dark applied), e.g. for export. */
void       cml_plot_view_get_style (CmlPlotView *self, CmlPlotStyle *style);

/* Writes the plot to PATH (PNG, SVG or PDF by the extension; atomically) as a figure:
 * titled with the model and what is plotted, with the run's parameters in a line below
 * (from the window's runner when the view is in a CmlWindow, else the defaults), type and
 * lines sized for the figure (cml_plot_style_init_for_figure).  PNG at 1600×900 px for
 * slides, dark if the view is; SVG/PDF at 800×450 pt, light, for papers.  Errors:
 * CML_ERROR_USAGE (unknown extension), CML_ERROR_IO.  The header's menu ("plot.export",
 * "png"/"svg"/"pdf") asks for a file name and calls this. */
gboolean   cml_plot_view_export (CmlPlotView *self, const char *path, GError **error);

/* Equal scales for a phase portrait whose axes have one unit (default on; see
 * cml_plot_set_equal_scales).  Also the property "equal-scales" and the menu's check
 * item "plot.equal-scales". */
void       cml_plot_view_set_equal_scales (CmlPlotView *self, gboolean equal_scales);
gboolean   cml_plot_view_get_equal_scales (CmlPlotView *self);

/* Closed forms (the model's [reference] group): each quantity that has one gets a dashed
 * curve of its colour, "NAME (closed form)" in the legend (in a phase portrait, when both
 * axes have one); the quantity chooser's "Error against the closed form" plots NAME_err,
 * the run minus the closed form, for every one.  The closed forms start from the run's
 * first sample (t = 0) with the parameters of that moment.  Shown by default; also the
 * property "show-reference" and the menu's check item "plot.show-reference" (enabled only
 * for a model with closed forms). */
void       cml_plot_view_set_show_reference (CmlPlotView *self, gboolean show);
gboolean   cml_plot_view_get_show_reference (CmlPlotView *self);
gboolean   cml_plot_view_has_reference (CmlPlotView *self);

/* The data the view holds (shared with the owner's when share_data was called):
 * the system, the time column and one column per observable (INDEX in the system's
 * observable order; NULL past the end).  Owned by the view. */
CmlSystem     *cml_plot_view_get_system (CmlPlotView *self);
CmlPlotColumn *cml_plot_view_get_time_column (CmlPlotView *self);
CmlPlotColumn *cml_plot_view_get_column (CmlPlotView *self, guint index);

/* The selection (for sessions): X NULL for time; Y names as a new strv. */
const char *cml_plot_view_get_x_name (CmlPlotView *self);
char      **cml_plot_view_dup_y_names (CmlPlotView *self);
gboolean    cml_plot_view_get_show_all (CmlPlotView *self);
void        cml_plot_view_set_show_all (CmlPlotView *self, gboolean show_all);

/* What the plot shows now: whether a curve has data in the plotted range (FALSE: the
 * plot says "No data yet" or "No series selected"), and how many samples it keeps. */
gboolean   cml_plot_view_shows_data (CmlPlotView *self);
guint      cml_plot_view_get_n_samples (CmlPlotView *self);

/* For tests: renders the plot now (off-screen, at the widget's size or 640×360
 * if it has none) and stores in *FRACTION the fraction of pixels that differ
 * from the background.  Returns FALSE when no GL context can be made. */
gboolean   cml_plot_view_probe_pixels (CmlPlotView *self, double *fraction);

/* Comparing two runs: a second run (SYS, NULL for none) drawn faint under this one in
 * the same colours, its legend entries named "x (LABEL)".  Its samples come with
 * push_ghost_samples (rows as for push_samples, of SYS's observables); a time before
 * its last one starts it over.  The views do not share the other run's data. */
void       cml_plot_view_set_ghost (CmlPlotView *self, CmlSystem *sys, const char *label);
void       cml_plot_view_push_ghost_samples (CmlPlotView *self, const double *t, const double *rows,
                                             guint n, guint n_cols);
void       cml_plot_view_clear_ghost (CmlPlotView *self);
/* A line on the plot about the other run, in plain words (why its curves end where they
 * do: it stopped, or it is behind); NULL or "" for none.  Shown under the plot's title. */
void       cml_plot_view_set_ghost_note (CmlPlotView *self, const char *note);
const char *cml_plot_view_get_ghost_note (CmlPlotView *self);
/* Against time, while comparing: each quantity as this run minus the other ("Δx"),
 * at this run's sample times (the other run interpolated linearly). */
void       cml_plot_view_set_show_difference (CmlPlotView *self, gboolean show);
gboolean   cml_plot_view_get_show_difference (CmlPlotView *self);
/* Against time, while comparing integrators: each quantity as the two runs' drift from
 * their first samples, log₁₀ |Q(t) − Q(0)| (floored at the rounding of Q(0)), this run's
 * named LABEL in the legend and the other's dashed under it: a drift kept to rounding and
 * one of 10⁻³ both read on one axis.  The difference, when asked for, comes first. */
void       cml_plot_view_set_show_drift (CmlPlotView *self, gboolean show, const char *label);
gboolean   cml_plot_view_get_show_drift (CmlPlotView *self);
/* Phase portraits as a place to start from: when both axes are quantities a run starts
 * from, a click or drag in the plot area emits ::pick-initial (x name, x, y name, y,
 * done).  cml_plot_view_pick does what a click at widget point (WX, WY) does (FALSE:
 * nothing there to pick). */
gboolean   cml_plot_view_can_pick (CmlPlotView *self);
gboolean   cml_plot_view_pick (CmlPlotView *self, double wx, double wy);
/* Zoom: the mouse wheel over the plot area zooms around the pointer (against time the time
 * axis holds a fixed interval, y scales to it; a phase portrait zooms both axes); a double
 * click or the menu's "Reset Zoom" ("plot.reset-zoom") goes back to following the run.
 * cml_plot_view_zoom_at does what STEPS wheel steps at widget point (WX, WY) do (negative:
 * in; FALSE when the point is outside the plot area or nothing is drawn yet). */
gboolean   cml_plot_view_zoom_at (CmlPlotView *self, double wx, double wy, double steps);
void       cml_plot_view_reset_zoom (CmlPlotView *self);
gboolean   cml_plot_view_get_zoomed (CmlPlotView *self);
/* TRUE once a frame was drawn (its plot area known). */
gboolean   cml_plot_view_has_frame (CmlPlotView *self);
/* The number of samples of the other run held (tests). */
guint      cml_plot_view_get_n_ghost_samples (CmlPlotView *self);

G_END_DECLS
