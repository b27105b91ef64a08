/* cml-plot-column.c — a column of samples: a growing array of doubles with a
 * min/max pyramid, so that the minimum and maximum over any index range cost O(log N).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"
#include "cml-resident.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== columns ========================================================================== */

static guint64
new_stamp (void)
{
  /* columns may be made and cleared on any thread */
  static guint64 last = 0;
  static GMutex lock;
  g_mutex_lock (&lock);
  guint64 stamp = ++last;
  g_mutex_unlock (&lock);
  return stamp;
}

CmlPlotColumn *
cml_plot_column_new (void)
{
  CmlPlotColumn *column = g_new0 (CmlPlotColumn, 1);
  column->ref_count = 1;
  column->stamp = new_stamp ();
  return column;
}

CmlPlotColumn *
cml_plot_column_ref (CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, NULL);
  g_atomic_int_inc (&column->ref_count);
  return column;
}

void
cml_plot_column_unref (CmlPlotColumn *column)
{
  if (column == NULL || !g_atomic_int_dec_and_test (&column->ref_count))
    return;
  g_free (column->data);
  for (guint k = 0; k < MAX_LEVELS; k++)
    g_free (column->level[k]);
  g_free (column);
}

static void
column_grow (CmlPlotColumn *column, guint n_new)
{
  if (n_new <= column->cap)
    return;
  guint cap = MAX (column->cap, 1024u);
  while (cap < n_new)
    cap = cap > G_MAXUINT / 2 ? G_MAXUINT : cap * 2;
  column->data = g_renew (double, column->data, cap);
  column->cap = cap;
}

/* Level K's blocks for N samples; a level is worth having while the level below has
 * more than one block. */
static guint
level_blocks (guint n, guint k)
{
  return (guint) (((guint64) n + block_size (k) - 1) / block_size (k));
}

static gboolean
level_wanted (guint n, guint k)
{
  return k == 0 || level_blocks (n, k - 1) > 1;
}

/* Room for N_BLOCKS blocks (a minimum and a maximum each) in level K of the pyramid. */
static void
level_grow (CmlPlotColumn *column, guint k, guint n_blocks)
{
  if (n_blocks > column->level_cap[k])
    {
      guint cap = MAX (column->level_cap[k], 64u);
      while (cap < n_blocks)
        cap *= 2;
      column->level[k] = g_renew (double, column->level[k], 2 * (gsize) cap);
      column->level_cap[k] = cap;
    }
}

/* Room for N samples at once, and in the pyramid's levels as column_update_pyramid ()
 * sizes them for N samples; calls FUNC on each block of that room. */
static void
column_make_room (CmlPlotColumn *column, guint n, void (*func) (void *p, gsize bytes, gpointer data),
                  gpointer data)
{
  column_grow (column, n);
  func (column->data, (gsize) column->cap * sizeof (double), data);
  for (guint k = 0; k < MAX_LEVELS && level_wanted (n, k); k++)
    {
      level_grow (column, k, level_blocks (n, k));
      func (column->level[k], 2 * (gsize) column->level_cap[k] * sizeof (double), data);
    }
}

static void
make_resident_now (void *p, gsize bytes, gpointer unused)
{
  cml_make_resident (p, bytes);
}

/* Makes room for N samples at once and makes that memory resident, so that a column that
 * will hold N samples takes its memory now rather than creeping up as it fills. */
void
cml_plot_column_reserve (CmlPlotColumn *column, guint n)
{
  g_return_if_fail (column != NULL);

  column_make_room (column, n, make_resident_now, NULL);
}

/* ---- the same, on a thread of its own --------------------------------------------------- */

typedef struct
{
  GPtrArray *columns; /* CmlPlotColumn*, a reference each: their room stays while held */
  GArray    *blocks;  /* Block */
} ResidentJob;

typedef struct
{
  void  *p;
  gsize  bytes;
} Block;

static void
add_block (void *p, gsize bytes, gpointer data)
{
  Block b = { p, bytes };

  g_array_append_val ((GArray *) data, b);
}

static gpointer
resident_thread (gpointer data)
{
  ResidentJob *job = data;

  /* populated without a write (cml_populate): the caller may append to the columns
   * meanwhile; a kernel without it leaves them to fill as samples come */
  for (guint i = 0; i < job->blocks->len; i++)
    {
      Block *b = &g_array_index (job->blocks, Block, i);

      if (!cml_populate (b->p, b->bytes))
        break;
    }
  g_array_unref (job->blocks);
  g_ptr_array_unref (job->columns);
  g_free (job);
  return NULL;
}

/* As cml_plot_column_reserve () for each of COLUMNS (CmlPlotColumn*), but their memory is
 * made resident by a thread of its own: the caller (the window, showing a model of a
 * hundred observables, 140 MB of columns) does not wait for it.  The columns must not
 * grow past N samples meanwhile (a reference to each is held until it is done). */
void
cml_plot_columns_reserve_in_background (GPtrArray *columns, guint n)
{
  ResidentJob *job;
  GThread *thread;

  g_return_if_fail (columns != NULL);

  job = g_new0 (ResidentJob, 1);
  job->columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  job->blocks = g_array_new (FALSE, FALSE, sizeof (Block));
  for (guint i = 0; i < columns->len; i++)
    {
      CmlPlotColumn *column = g_ptr_array_index (columns, i);

      column_make_room (column, n, add_block, job->blocks);
      g_ptr_array_add (job->columns, cml_plot_column_ref (column));
    }
  thread = g_thread_try_new ("cml-plot-resident", resident_thread, job, NULL);
  if (thread == NULL)
    resident_thread (job); /* no thread to be had: populated here */
  else
    g_thread_unref (thread);
}

/* Recomputes the pyramid blocks that contain samples [n_old, n). */
static void
column_update_pyramid (CmlPlotColumn *column, guint n_old)
{
  guint n = column->n;

  for (guint k = 0; k < MAX_LEVELS; k++)
    {
      guint bs = block_size (k);
      guint n_blocks = level_blocks (n, k);

      if (!level_wanted (n, k))
        break;

      level_grow (column, k, n_blocks);

      double *lv = column->level[k];
      for (guint j = n_old / bs; j < n_blocks; j++)
        {
          double lo = INFINITY, hi = -INFINITY;
          if (k == 0)
            {
              guint end = MIN ((j + 1) * bs, n);
              for (guint i = j * bs; i < end; i++)
                {
                  double v = column->data[i];
                  if (isfinite (v))
                    {
                      lo = MIN (lo, v);
                      hi = MAX (hi, v);
                    }
                }
            }
          else
            {
              const double *below = column->level[k - 1];
              guint n_below = (guint) (((guint64) n + (bs >> 1) - 1) / (bs >> 1));
              for (guint c = 2 * j; c < MIN (2 * j + 2, n_below); c++)
                {
                  lo = MIN (lo, below[2 * c]);
                  hi = MAX (hi, below[2 * c + 1]);
                }
            }
          lv[2 * j] = lo;
          lv[2 * j + 1] = hi;
        }
      column->n_levels = k + 1;
    }
}

void
cml_plot_column_append (CmlPlotColumn *column, const double *values, guint n, guint stride)
{
  g_return_if_fail (column != NULL);
  g_return_if_fail (n == 0 || values != NULL);

  if (n == 0)
    return;
  if (stride == 0)
    stride = 1;

  guint n_old = column->n;
  column_grow (column, n_old + n);
  if (stride == 1)
    memcpy (column->data + n_old, values, n * sizeof (double));
  else
    for (guint k = 0; k < n; k++)
      column->data[n_old + k] = values[(gsize) k * stride];
  column->n = n_old + n;
  column_update_pyramid (column, n_old);
}

void
cml_plot_column_clear (CmlPlotColumn *column)
{
  g_return_if_fail (column != NULL);
  column->n = 0;
  column->n_levels = 0;
  column->stamp = new_stamp ();
}

/* Drops the N oldest samples (all when N ≥ the count): the rest move to the front and
 * the pyramid is built again, O(count).  A dropped front shifts every index, so the
 * column gets a new stamp and caches built on it start over. */
void
cml_plot_column_drop_front (CmlPlotColumn *column, guint n)
{
  g_return_if_fail (column != NULL);

  if (n == 0)
    return;
  if (n >= column->n)
    {
      cml_plot_column_clear (column);
      return;
    }
  memmove (column->data, column->data + n, (column->n - n) * sizeof (double));
  column->n -= n;
  column->n_levels = 0;
  column_update_pyramid (column, 0);
  column->stamp = new_stamp ();
}

guint
cml_plot_column_get_n (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, 0);
  return column->n;
}

guint64
cml_plot_column_get_n_reads (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, 0);
  return column->n_reads;
}

const double *
cml_plot_column_get_data (const CmlPlotColumn *column)
{
  g_return_val_if_fail (column != NULL, NULL);
  return column->data;
}

/* Finds, for a block starting at I, the highest level whose block starting there lies
 * inside [i, i1); -1 if not even a level-0 block fits (or I is not aligned). */
static inline int
column_best_level (const CmlPlotColumn *column, guint i, guint i1)
{
  int best = -1;
  for (guint k = 0; k < column->n_levels; k++)
    {
      guint bs = block_size (k);
      if ((i & (bs - 1)) != 0 || (guint64) i + bs > i1)
        break;
      best = (int) k;
    }
  return best;
}

gboolean
cml_plot_column_range (const CmlPlotColumn *column, guint i0, guint i1, double *min,
                       double *max)
{
  g_return_val_if_fail (column != NULL, FALSE);

  i1 = MIN (i1, column->n);
  double lo = INFINITY, hi = -INFINITY;

  /* Greedy cover of [i0, i1) by the largest aligned blocks: at most two blocks per
   * level plus fewer than 2·16 single samples at the ends. */
  for (guint i = i0; i < i1;)
    {
      int k = column_best_level (column, i, i1);
      COUNT_READS (column, 1);
      if (k < 0)
        {
          double v = column->data[i];
          if (isfinite (v))
            {
              lo = MIN (lo, v);
              hi = MAX (hi, v);
            }
          i++;
        }
      else
        {
          guint bs = block_size ((guint) k);
          const double *lv = column->level[k];
          lo = MIN (lo, lv[2 * (i / bs)]);
          hi = MAX (hi, lv[2 * (i / bs) + 1]);
          i += bs;
        }
    }

  if (lo > hi)
    return FALSE;
  if (min)
    *min = lo;
  if (max)
    *max = hi;
  return TRUE;
}

guint
cml_plot_column_lower_bound (const CmlPlotColumn *column, double x)
{
  g_return_val_if_fail (column != NULL, 0);

  guint lo = 0, hi = column->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      COUNT_READS (column, 1);
      if (column->data[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first index whose value is > X. */
guint
cml_plot_column_upper_bound (const CmlPlotColumn *column, double x)
{
  guint lo = 0, hi = column->n;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      COUNT_READS (column, 1);
      if (column->data[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}
