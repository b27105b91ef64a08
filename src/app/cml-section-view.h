/* cml-section-view.h — a Poincaré section built by clicking: orbits started from points
 * of the section plot, their crossings accumulated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-runner.h"
#include "cml-system.h"

G_BEGIN_DECLS

#define CML_TYPE_SECTION_VIEW (cml_section_view_get_type ())
G_DECLARE_FINAL_TYPE (CmlSectionView, cml_section_view, CML, SECTION_VIEW, GtkWidget)

GtkWidget *cml_section_view_new (void);

/* The system whose sections are built (NULL: none), and the runner whose current state
 * and parameters a new orbit starts from.  Clears the orbits; chooses a default section
 * (the second coordinate = 0, crossed upwards) and axes (the first coordinate and its
 * velocity). */
void       cml_section_view_set_system (CmlSectionView *self, CmlSystem *sys, CmlRunner *runner);

/* Sets the section ("EXPR = VALUE"), the direction ("up", "down" or "both") and the two
 * quantities plotted; clears the orbits.  FALSE with ERROR when the section does not read. */
gboolean   cml_section_view_set_section (CmlSectionView *self, const char *section, const char *direction,
                                         const char *x, const char *y, GError **error);

/* Starts an orbit from the point (X, Y) of the section plot, as a click there does: the
 * run's current state with the two plotted quantities set to X and Y, the section's own
 * quantity (when the section is "name = value") set to its value, the conserved
 * quantities of the coordinates alone kept at the run's values, and, where the model
 * has an energy monitor, one velocity chosen so that the energy is the run's now and the
 * start crosses the section in its direction.  The start is the orbit's first crossing
 * (marked); the orbit runs for the orbit time in a worker thread; its crossings are
 * added when it ends.  FALSE with ERROR in plain words (nothing started) when no such
 * start exists. */
gboolean   cml_section_view_start_orbit (CmlSectionView *self, double x, double y, GError **error);

/* Dark background, and large type for a projector (as the other plots). */
void       cml_section_view_set_style (CmlSectionView *self, gboolean dark, gboolean high_contrast,
                                     gboolean presentation);

/* Orbits still running (tests). */
guint      cml_section_view_get_n_running (CmlSectionView *self);
/* The crossings of orbit K so far: N pairs (x, y); NULL past the last orbit (tests). */
const double *cml_section_view_get_crossings (CmlSectionView *self, guint k, guint *n);
/* The energy the last orbit started with, and the level it was put on (NAN without an
 * energy monitor) (tests). */
void       cml_section_view_get_last_energy (CmlSectionView *self, double *started, double *level);

/* Where orbit K started (the point clicked, marked in the plot); FALSE past the last
 * orbit (tests). */
gboolean   cml_section_view_get_start (CmlSectionView *self, guint k, double *x, double *y);
/* The value of observable NAME at the last orbit's start (NAN: none) (tests). */
double     cml_section_view_get_last_start_value (CmlSectionView *self, const char *name);
/* The plot's ranges: x from X[0] to X[1], y from Y[0] to Y[1] (tests). */
void       cml_section_view_get_ranges (CmlSectionView *self, double x[2], double y[2]);
/* How many times the axes were fitted to the region clicks can start from (each fit
 * tries some 150 starts): done where the page is shown, not before. */
guint      cml_section_view_get_n_fits (CmlSectionView *self);

/* Where the plot shows the data point (X, Y), in RELATIVE's coordinates; FALSE outside
 * the plot area (tests driving the window from outside). */
gboolean   cml_section_view_point_at (CmlSectionView *self, double x, double y, GtkWidget *relative,
                                      double *wx, double *wy);
/* The status line under the plot (tests). */
const char *cml_section_view_get_status (CmlSectionView *self);
/* Orbits started (tests). */
guint      cml_section_view_get_n_orbits (CmlSectionView *self);

G_END_DECLS
