/* cml-plot-view-layout.c — the live plot's layout: the header's groups flowing into
 * rows above the plot area.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view-private.h"

/* The header is three groups: the quantities, "against x", and the controls.  They flow
 * into rows (one row when all fit at their natural widths), the controls flush right on
 * the last row; so in the narrow right column of a 1280-pixel projector (about 380 px,
 * large type) nothing is pushed out of the view or cut.  The plot takes the rest. */

#define N_GROUPS 3

typedef struct
{
  int x[N_GROUPS], y[N_GROUPS], w[N_GROUPS], h[N_GROUPS];
  int height;                    /* of the whole header */
} HeaderFlow;

static void
header_flow (CmlPlotView *self, int width, HeaderFlow *flow)
{
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  int min[N_GROUPS], nat[N_GROUPS];
  int row_start = 0, x = 0, y = 0, row_h = 0;

  for (int i = 0; i < N_GROUPS; i++)
    gtk_widget_measure (groups[i], GTK_ORIENTATION_HORIZONTAL, -1, &min[i], &nat[i], NULL, NULL);
  for (int i = 0; i < N_GROUPS; i++)
    {
      /* a new row when this group does not fit beside the ones before */
      if (i > row_start && width >= 0 && x + nat[i] > width)
        {
          y += row_h;
          x = 0;
          row_h = 0;
          row_start = i;
        }
      flow->w[i] = width < 0 ? nat[i] : MAX (min[i], MIN (nat[i], width - x));
      gtk_widget_measure (groups[i], GTK_ORIENTATION_VERTICAL, flow->w[i], &flow->h[i], NULL, NULL,
                          NULL);
      flow->x[i] = x;
      flow->y[i] = y;
      x += flow->w[i];
      row_h = MAX (row_h, flow->h[i]);
    }
  /* the controls flush right */
  if (width >= 0)
    flow->x[N_GROUPS - 1] = MAX (width - flow->w[N_GROUPS - 1], flow->x[N_GROUPS - 1]);
  flow->height = y + row_h;
  /* a row's groups share its height */
  for (int i = 0; i < N_GROUPS; i++)
    for (int j = 0; j < N_GROUPS; j++)
      if (flow->y[j] == flow->y[i])
        flow->h[i] = MAX (flow->h[i], flow->h[j]);
}

GtkSizeRequestMode
cml_plot_view_layout_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

void
cml_plot_view_layout_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                              int *minimum, int *natural, int *minimum_baseline,
                              int *natural_baseline)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  int area_min, area_nat;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* narrowest: the widest group on a row of its own */
      gtk_widget_measure (GTK_WIDGET (self->area), orientation, -1, &area_min, &area_nat, NULL,
                          NULL);
      *minimum = area_min;
      *natural = 0;
      for (int i = 0; i < N_GROUPS; i++)
        {
          int min, nat;
          gtk_widget_measure (groups[i], orientation, -1, &min, &nat, NULL, NULL);
          *minimum = MAX (*minimum, min);
          *natural += nat;
        }
      *natural = MAX (*natural, area_nat);
    }
  else
    {
      HeaderFlow flow;
      int width = for_size;
      if (width < 0)
        gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
      header_flow (self, width, &flow);
      gtk_widget_measure (GTK_WIDGET (self->area), orientation, width, &area_min, &area_nat, NULL,
                          NULL);
      *minimum = flow.height + area_min;
      *natural = flow.height + area_nat;
    }
}

void
cml_plot_view_layout_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  CmlPlotView *self = CML_PLOT_VIEW (widget);
  GtkWidget *groups[N_GROUPS] = { self->selectors, self->x_selector, self->controls };
  HeaderFlow flow;

  header_flow (self, width, &flow);
  for (int i = 0; i < N_GROUPS; i++)
    gtk_widget_size_allocate (groups[i],
                              &(GtkAllocation) { flow.x[i], flow.y[i], flow.w[i], flow.h[i] }, -1);
  gtk_widget_size_allocate (
      GTK_WIDGET (self->area),
      &(GtkAllocation) { 0, flow.height, width, MAX (height - flow.height, 0) }, -1);
}
