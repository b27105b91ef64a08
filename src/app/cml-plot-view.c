/* cml-plot-view.c — stub, being filled in. */
#define G_LOG_DOMAIN "cml-plot-view"

#include "cml-plot-view.h"

struct _CmlPlotView
{
  GtkWidget parent_instance;
};

G_DEFINE_FINAL_TYPE (CmlPlotView, cml_plot_view, GTK_TYPE_WIDGET)

static void
cml_plot_view_class_init (CmlPlotViewClass *klass)
{
}

static void
cml_plot_view_init (CmlPlotView *self)
{
}

GtkWidget *
cml_plot_view_new (void)
{
  return g_object_new (CML_TYPE_PLOT_VIEW, NULL);
}

void cml_plot_view_set_system (CmlPlotView *self, CmlSystem *sys) { }
void cml_plot_view_set_series (CmlPlotView *self, const char *x, const char *const *ys) { }
void cml_plot_view_push_samples (CmlPlotView *self, const double *t, const double *rows,
                                 guint n, guint n_cols, guint n_obs) { }
void cml_plot_view_clear (CmlPlotView *self) { }
void cml_plot_view_set_presentation (CmlPlotView *self, gboolean on) { }
void cml_plot_view_set_dark (CmlPlotView *self, gboolean dark) { }
CmlPlot *cml_plot_view_get_plot (CmlPlotView *self) { return NULL; }
void cml_plot_view_get_style (CmlPlotView *self, CmlPlotStyle *style) { }
gboolean cml_plot_view_probe_pixels (CmlPlotView *self, double *fraction) { if (fraction) *fraction = 0; return FALSE; }
