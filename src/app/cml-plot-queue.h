/* cml-plot-queue.h — history rows waiting for a plot, with a bound.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Rows (a time and N_COLS values each) held for a plot until its turn to take them.  A
 * queue never holds more than CML_PLOT_QUEUE_MAX rows: a plot keeps only a run's newest
 * samples (CML_PLOT_VIEW_KEEP), so when the window falls behind (a busy machine, a run at
 * ×100) the oldest waiting rows, which the plot would drop anyway, are dropped here.  It
 * hands its rows over in slices of at most CML_PLOT_QUEUE_SLICE, so that a plot's columns
 * never grow past the room they reserved; after a long wait its memory is given back. */
typedef struct _CmlPlotQueue CmlPlotQueue;

#define CML_PLOT_QUEUE_MAX   (65536u + 65536u / 8)
#define CML_PLOT_QUEUE_SLICE (65536u / 8)

typedef void (*CmlPlotQueueFunc) (const double *t, const double *rows, guint n, guint n_cols, gpointer data);

CmlPlotQueue *cml_plot_queue_new (void);
void          cml_plot_queue_free (CmlPlotQueue *q);
void          cml_plot_queue_clear (CmlPlotQueue *q);
void          cml_plot_queue_push (CmlPlotQueue *q, const double *t, const double *rows, guint n, guint n_cols);
guint         cml_plot_queue_get_n (const CmlPlotQueue *q);
guint         cml_plot_queue_get_n_dropped (const CmlPlotQueue *q);
gsize         cml_plot_queue_get_bytes (const CmlPlotQueue *q);
void          cml_plot_queue_flush (CmlPlotQueue *q, CmlPlotQueueFunc func, gpointer data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlPlotQueue, cml_plot_queue_free)

G_END_DECLS
