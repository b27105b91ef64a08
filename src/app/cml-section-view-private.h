/* cml-section-view-private.h — what the Section page's files share: the page's fields,
 * and the start of an orbit made from a click (cml-section-start.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-plot-area.h"
#include "cml-plot.h"
#include "cml-section-view.h"
#include "cml-section.h"

G_BEGIN_DECLS

struct _CmlSectionView
{
  GtkWidget       parent_instance;

  GtkEntry       *section_entry;
  GtkDropDown    *direction;
  GtkDropDown    *x_drop, *y_drop;
  GtkStringList  *names;
  GtkSpinButton  *orbit_time;
  GtkLabel       *status;
  CmlPlotArea    *area;

  CmlSystem      *sys;
  CmlRunner      *runner;
  char           *section_text;
  CmlPlot        *plot;       /* the area's */
  GPtrArray      *orbits;     /* CmlPlotSeries*, one per orbit */
  GArray         *starts;     /* double pairs: where each orbit started (the point clicked) */
  GArray         *last_start; /* the observables at the last orbit's start (tests) */
  gboolean        fitted;     /* the axes hold the region a click can start from */
  guint           n_fits;     /* how many times the axes were fitted (for tests) */
  guint           n_running;
  GCancellable   *cancel;     /* the orbits of the current settings */
  double          last_started, last_level;
  gboolean        syncing;
};

/* What an orbit starts from, as a click would make it: SIM at its start. */
typedef struct
{
  CmlSimulation *sim;
  double         level;    /* the energy level (NAN: no energy monitor) */
  double         started;  /* the energy at the start */
  CmlSection    *section;
} CmlSectionStart;

void     cml_section_start_clear (CmlSectionStart *s);
/* Makes the start of an orbit through the point (X, Y) of the section plot (see
 * cml_section_view_start_orbit), into OUT; FALSE with the reason in plain words when no
 * motion of the run's energy crosses the section there in its direction. */
gboolean cml_section_start_make (CmlSectionView *self, double x, double y, CmlSectionStart *out,
                                 GError **error);
/* Sets the plot's axes to the region where clicks start (the quantities XN and YN). */
void     cml_section_start_ranges (CmlSectionView *self, const char *xn, const char *yn);

G_END_DECLS
