/* cml-plot-queue.c — history rows waiting for a plot, with a bound.
 *
 * The window reads the runner's new rows every frame and gives them to the two plots in
 * turn.  A queue keeps at most CML_PLOT_QUEUE_MAX rows, newest kept: a plot's columns hold
 * only the newest CML_PLOT_VIEW_KEEP samples (plus an eighth between trims), so rows older
 * than that would be dropped by the plot as soon as it got them.  Without the bound, a
 * window that fell behind while a run played at ×100 on a busy machine queued two of the
 * runner's records (130 000 rows of ~60 values) per plot, and its arrays kept that size:
 * 270 MB held for the rest of the lecture.  Rows are handed over in slices of at most
 * CML_PLOT_QUEUE_SLICE, so the plot trims between slices; a queue that held more than a
 * slice gives its memory back once emptied.
 *
 * Memory: at most (1 + N_COLS) × CML_PLOT_QUEUE_MAX doubles while the window lags, and
 * what one frame's rows need otherwise.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-plot-queue.h"

#include <string.h>

struct _CmlPlotQueue
{
  GArray *t;      /* double */
  GArray *rows;   /* double, n_cols per row */
  guint   n_cols;
  guint   n_dropped;
  guint   high;   /* the most rows held since the queue was last emptied */
};

CmlPlotQueue *
cml_plot_queue_new (void)
{
  CmlPlotQueue *q = g_new0 (CmlPlotQueue, 1);

  q->t = g_array_new (FALSE, FALSE, sizeof (double));
  q->rows = g_array_new (FALSE, FALSE, sizeof (double));
  return q;
}

void
cml_plot_queue_free (CmlPlotQueue *q)
{
  if (q == NULL)
    return;
  g_array_unref (q->t);
  g_array_unref (q->rows);
  g_free (q);
}

/* Empties Q; after a long wait, its arrays are made anew (their room given back). */
void
cml_plot_queue_clear (CmlPlotQueue *q)
{
  g_return_if_fail (q != NULL);
  if (q->high > CML_PLOT_QUEUE_SLICE)
    {
      g_array_unref (q->t);
      g_array_unref (q->rows);
      q->t = g_array_new (FALSE, FALSE, sizeof (double));
      q->rows = g_array_new (FALSE, FALSE, sizeof (double));
    }
  g_array_set_size (q->t, 0);
  g_array_set_size (q->rows, 0);
  q->high = 0;
}

void
cml_plot_queue_push (CmlPlotQueue *q, const double *t, const double *rows, guint n, guint n_cols)
{
  g_return_if_fail (q != NULL);
  g_return_if_fail (n == 0 || (t != NULL && rows != NULL));

  if (n == 0)
    return;
  if (q->t->len > 0 && n_cols != q->n_cols)
    {
      g_warning ("plot queue: rows of %u values after rows of %u; the older dropped", n_cols, q->n_cols);
      cml_plot_queue_clear (q);
    }
  q->n_cols = n_cols;
  /* of more rows than the bound, only the newest are worth copying */
  if (n >= CML_PLOT_QUEUE_MAX)
    {
      q->n_dropped += q->t->len + (n - CML_PLOT_QUEUE_MAX);
      g_array_set_size (q->t, 0);
      g_array_set_size (q->rows, 0);
      t += n - CML_PLOT_QUEUE_MAX;
      rows += (gsize) (n - CML_PLOT_QUEUE_MAX) * n_cols;
      n = CML_PLOT_QUEUE_MAX;
    }
  else if (q->t->len + n > CML_PLOT_QUEUE_MAX)
    {
      guint drop = q->t->len + n - CML_PLOT_QUEUE_MAX;
      g_array_remove_range (q->t, 0, drop);
      g_array_remove_range (q->rows, 0, drop * n_cols);
      q->n_dropped += drop;
    }
  g_array_append_vals (q->t, t, n);
  g_array_append_vals (q->rows, rows, (gsize) n * n_cols);
  q->high = MAX (q->high, q->t->len);
}

guint
cml_plot_queue_get_n (const CmlPlotQueue *q)
{
  g_return_val_if_fail (q != NULL, 0);
  return q->t->len;
}

/* How many rows the bound has dropped since Q was made. */
guint
cml_plot_queue_get_n_dropped (const CmlPlotQueue *q)
{
  g_return_val_if_fail (q != NULL, 0);
  return q->n_dropped;
}

/* The bytes Q's rows take now (at least; an array's room may be larger). */
gsize
cml_plot_queue_get_bytes (const CmlPlotQueue *q)
{
  g_return_val_if_fail (q != NULL, 0);
  return ((gsize) q->t->len + q->rows->len) * sizeof (double);
}

/* Hands Q's rows to FUNC, oldest first, in slices of at most CML_PLOT_QUEUE_SLICE, and
 * empties Q. */
void
cml_plot_queue_flush (CmlPlotQueue *q, CmlPlotQueueFunc func, gpointer data)
{
  g_return_if_fail (q != NULL && func != NULL);

  const double *t = (const double *) (gconstpointer) q->t->data;
  const double *rows = (const double *) (gconstpointer) q->rows->data;
  for (guint done = 0; done < q->t->len;)
    {
      guint n = MIN (q->t->len - done, CML_PLOT_QUEUE_SLICE);
      func (t + done, rows + (gsize) done * q->n_cols, n, q->n_cols, data);
      done += n;
    }
  cml_plot_queue_clear (q);
}
