/* test-plot-queue.c — the rows waiting for a plot (src/app/cml-plot-queue.c): however far
 * the window falls behind, a queue holds at most CML_PLOT_QUEUE_MAX rows, the newest, in
 * order; it hands them over in slices no larger than CML_PLOT_QUEUE_SLICE; the bound is
 * the plot's own (CML_PLOT_VIEW_KEEP and the eighth between trims), so what the plot
 * finally shows is what it would have shown with every row.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-plot-queue.h"
#include "cml-plot-view-private.h"

#define COLS 7

/* N rows from row FIRST on: t = index, value j = index + j / 10 */
static void
make_rows (guint first, guint n, double *t, double *rows)
{
  for (guint i = 0; i < n; i++)
    {
      t[i] = first + i;
      for (guint j = 0; j < COLS; j++)
        rows[(gsize) i * COLS + j] = first + i + j / 10.0;
    }
}

typedef struct
{
  guint  n_calls;
  guint  largest;
  guint  n;
  double first_t, last_t;
  gboolean in_order;
  gboolean rows_match;
} Seen;

static void
take (const double *t, const double *rows, guint n, guint n_cols, gpointer data)
{
  Seen *s = data;

  g_assert_cmpuint (n_cols, ==, COLS);
  if (s->n == 0)
    s->first_t = t[0];
  for (guint i = 0; i < n; i++)
    {
      if (s->n + i > 0 && t[i] != s->last_t + 1)
        s->in_order = FALSE;
      s->last_t = t[i];
      for (guint j = 0; j < COLS; j++)
        if (rows[(gsize) i * COLS + j] != t[i] + j / 10.0)
          s->rows_match = FALSE;
    }
  s->n += n;
  s->n_calls++;
  s->largest = MAX (s->largest, n);
}

/* The bound is the plot's: its newest samples and the eighth it lets pile up. */
static void
test_bound_is_the_plots (void)
{
  g_assert_cmpuint (CML_PLOT_QUEUE_MAX, ==, CML_PLOT_VIEW_KEEP + CML_PLOT_VIEW_KEEP / 8);
  g_assert_cmpuint (CML_PLOT_QUEUE_SLICE, <=, CML_PLOT_VIEW_KEEP / 8);
}

/* A window that did not take its rows for a long time, read in the window's chunks of
 * 4096: the queue holds the newest CML_PLOT_QUEUE_MAX, in order, and says how many it
 * dropped. */
static void
test_falls_behind (void)
{
  g_autoptr (CmlPlotQueue) q = cml_plot_queue_new ();
  const guint chunk = 4096, total = 3 * 65536 + 123;
  g_autofree double *t = g_new (double, chunk);
  g_autofree double *rows = g_new (double, (gsize) chunk * COLS);
  Seen seen = { 0, 0, 0, 0, 0, TRUE, TRUE };

  for (guint first = 0; first < total; first += chunk)
    {
      guint n = MIN (chunk, total - first);
      make_rows (first, n, t, rows);
      cml_plot_queue_push (q, t, rows, n, COLS);
      g_assert_cmpuint (cml_plot_queue_get_n (q), <=, CML_PLOT_QUEUE_MAX);
    }
  g_assert_cmpuint (cml_plot_queue_get_n (q), ==, CML_PLOT_QUEUE_MAX);
  g_assert_cmpuint (cml_plot_queue_get_n_dropped (q), ==, total - CML_PLOT_QUEUE_MAX);
  g_assert_cmpuint (cml_plot_queue_get_bytes (q), ==, (gsize) CML_PLOT_QUEUE_MAX * (1 + COLS) * sizeof (double));

  cml_plot_queue_flush (q, take, &seen);
  g_assert_cmpuint (seen.n, ==, CML_PLOT_QUEUE_MAX);
  g_assert_cmpfloat (seen.first_t, ==, total - CML_PLOT_QUEUE_MAX);
  g_assert_cmpfloat (seen.last_t, ==, total - 1);
  g_assert_true (seen.in_order);
  g_assert_true (seen.rows_match);
  /* slices a plot's reserved columns take without growing */
  g_assert_cmpuint (seen.largest, <=, CML_PLOT_QUEUE_SLICE);
  g_assert_cmpuint (seen.n_calls, ==, (CML_PLOT_QUEUE_MAX + CML_PLOT_QUEUE_SLICE - 1) / CML_PLOT_QUEUE_SLICE);
  g_assert_cmpuint (cml_plot_queue_get_n (q), ==, 0);
  g_assert_cmpuint (cml_plot_queue_get_bytes (q), ==, 0);
}

/* One read larger than the bound: only its newest rows are kept. */
static void
test_one_large_read (void)
{
  g_autoptr (CmlPlotQueue) q = cml_plot_queue_new ();
  const guint n = CML_PLOT_QUEUE_MAX + 5000, before = 300;
  g_autofree double *t = g_new (double, n);
  g_autofree double *rows = g_new (double, (gsize) n * COLS);
  Seen seen = { 0, 0, 0, 0, 0, TRUE, TRUE };

  make_rows (0, before, t, rows);
  cml_plot_queue_push (q, t, rows, before, COLS);
  make_rows (before, n, t, rows);
  cml_plot_queue_push (q, t, rows, n, COLS);
  g_assert_cmpuint (cml_plot_queue_get_n (q), ==, CML_PLOT_QUEUE_MAX);
  g_assert_cmpuint (cml_plot_queue_get_n_dropped (q), ==, before + 5000);
  cml_plot_queue_flush (q, take, &seen);
  g_assert_cmpfloat (seen.first_t, ==, before + 5000);
  g_assert_cmpfloat (seen.last_t, ==, before + n - 1);
  g_assert_true (seen.in_order && seen.rows_match);
}

/* A window that keeps up: what a frame brings is handed over whole, nothing dropped. */
static void
test_keeps_up (void)
{
  g_autoptr (CmlPlotQueue) q = cml_plot_queue_new ();
  double t[3], rows[3 * COLS];

  for (guint frame = 0; frame < 1000; frame++)
    {
      Seen seen = { 0, 0, 0, 0, 0, TRUE, TRUE };
      make_rows (3 * frame, 3, t, rows);
      cml_plot_queue_push (q, t, rows, 3, COLS);
      cml_plot_queue_flush (q, take, &seen);
      g_assert_cmpuint (seen.n, ==, 3);
      g_assert_cmpuint (seen.n_calls, ==, 1);
      g_assert_cmpfloat (seen.first_t, ==, 3 * frame);
    }
  g_assert_cmpuint (cml_plot_queue_get_n_dropped (q), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plot-queue/bound-is-the-plots", test_bound_is_the_plots);
  g_test_add_func ("/plot-queue/falls-behind", test_falls_behind);
  g_test_add_func ("/plot-queue/one-large-read", test_one_large_read);
  g_test_add_func ("/plot-queue/keeps-up", test_keeps_up);
  return g_test_run ();
}
