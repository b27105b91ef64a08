/* cml-frame-stats.c — frame intervals measured from the frame clock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-frame-stats"

#include "cml-frame-stats.h"

#include "cml-atomic-file.h"
#include "cml-json.h"

#include <math.h>
#include <stdlib.h>

struct _CmlFrameStats
{
  GArray *times; /* gint64 µs, as the frame clock gave them */
  guint   keep;  /* the newest this many are kept; 0: all */
};

CmlFrameStats *
cml_frame_stats_new (void)
{
  CmlFrameStats *stats = g_new0 (CmlFrameStats, 1);

  stats->times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 4096);
  return stats;
}

CmlFrameStats *
cml_frame_stats_new_recent (guint keep)
{
  CmlFrameStats *stats = g_new0 (CmlFrameStats, 1);

  g_return_val_if_fail (keep >= 2, NULL);
  stats->times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), keep);
  stats->keep = keep;
  return stats;
}

void
cml_frame_stats_free (CmlFrameStats *stats)
{
  if (stats == NULL)
    return;
  g_array_unref (stats->times);
  g_free (stats);
}

void
cml_frame_stats_add_frame (CmlFrameStats *stats, gint64 frame_time_us)
{
  g_return_if_fail (stats != NULL);

  /* the tick callback can run twice for one frame clock cycle (never in practice, but a
   * zero interval would only flatter the median) */
  if (stats->times->len > 0
      && g_array_index (stats->times, gint64, stats->times->len - 1) == frame_time_us)
    return;
  if (stats->keep > 0 && stats->times->len >= stats->keep)
    g_array_remove_index (stats->times, 0); /* (a few hundred bytes moved) */
  g_array_append_val (stats->times, frame_time_us);
}

guint
cml_frame_stats_get_n_frames (const CmlFrameStats *stats)
{
  return stats->times->len;
}

double
cml_frame_stats_get_wall_time (const CmlFrameStats *stats)
{
  guint n = stats->times->len;

  if (n < 2)
    return 0.0;
  return 1e-6 * (double) (g_array_index (stats->times, gint64, n - 1)
                          - g_array_index (stats->times, gint64, 0));
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

double
cml_frame_stats_get_interval_quantile (const CmlFrameStats *stats, double q)
{
  guint n = stats->times->len;
  g_autofree double *iv = NULL;
  double pos;
  guint lo;

  if (n < 2)
    return 0.0;
  iv = g_new (double, n - 1);
  for (guint i = 1; i < n; i++)
    iv[i - 1] = 1e-3 * (double) (g_array_index (stats->times, gint64, i)
                                 - g_array_index (stats->times, gint64, i - 1));
  qsort (iv, n - 1, sizeof (double), compare_doubles);

  /* linear interpolation between closest ranks */
  pos = CLAMP (q, 0.0, 1.0) * (double) (n - 2);
  lo = (guint) floor (pos);
  if (lo + 1 >= n - 1)
    return iv[n - 2];
  return iv[lo] + (pos - lo) * (iv[lo + 1] - iv[lo]);
}

char *
cml_frame_stats_to_json (const CmlFrameStats *stats, const char *model, double sim_time)
{
  GString *s = g_string_new (NULL);
  g_autoptr (CmlJson) j = cml_json_new_string (s);

  cml_json_begin_object (j, NULL, CML_JSON_LINE);
  cml_json_int (j, "frames", cml_frame_stats_get_n_frames (stats));
  cml_json_number_format (j, "median_interval_ms", "%.3f", cml_frame_stats_get_interval_quantile (stats, 0.5));
  cml_json_number_format (j, "p95_interval_ms", "%.3f", cml_frame_stats_get_interval_quantile (stats, 0.95));
  cml_json_number_format (j, "sim_time", "%.6g", isfinite (sim_time) ? sim_time : 0.0);
  cml_json_number_format (j, "wall_time", "%.6g", cml_frame_stats_get_wall_time (stats));
  cml_json_string (j, "model", model ? model : "");
  cml_json_end (j);
  return g_string_free (s, FALSE);
}

gboolean
cml_frame_stats_write (const CmlFrameStats *stats, const char *path, const char *model,
                       double sim_time, GError **error)
{
  g_autofree char *json = NULL;

  g_return_val_if_fail (stats != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  json = cml_frame_stats_to_json (stats, model, sim_time);
  /* all or nothing, and never over what is not a regular file of the user's */
  return cml_atomic_file_set_contents (path, json, strlen (json), error);
}
