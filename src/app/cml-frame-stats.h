/* cml-frame-stats.h — frame intervals measured from the frame clock.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's tick callback adds the frame clock's time of every frame it sees; at the
 * end the statistics are written as JSON for benchmarks:
 *   {"frames", "median_interval_ms", "p95_interval_ms", "sim_time", "wall_time", "model"}
 * Plain data; one thread (the UI thread).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CmlFrameStats CmlFrameStats;

CmlFrameStats *cml_frame_stats_new (void);
/* Statistics of the newest KEEP frames only (KEEP >= 2): what the window shows now. */
CmlFrameStats *cml_frame_stats_new_recent (guint keep);
void           cml_frame_stats_free (CmlFrameStats *stats);

/* FRAME_TIME_US: gdk_frame_clock_get_frame_time () of one frame (microseconds). */
void           cml_frame_stats_add_frame (CmlFrameStats *stats, gint64 frame_time_us);
guint          cml_frame_stats_get_n_frames (const CmlFrameStats *stats);
/* Wall seconds from the first frame to the last. */
double         cml_frame_stats_get_wall_time (const CmlFrameStats *stats);
/* The Q-quantile (0 … 1) of the intervals between consecutive frames, in ms (0 if
 * there are fewer than two frames). */
double         cml_frame_stats_get_interval_quantile (const CmlFrameStats *stats, double q);

/* The JSON text (a single object, newline-terminated). */
char          *cml_frame_stats_to_json (const CmlFrameStats *stats, const char *model,
                                        double sim_time);
/* Writes the JSON to PATH atomically (a temporary file renamed over PATH). */
gboolean       cml_frame_stats_write (const CmlFrameStats *stats, const char *path,
                                      const char *model, double sim_time, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlFrameStats, cml_frame_stats_free)

G_END_DECLS
