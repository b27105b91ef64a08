/* cml-video-clock.h — the simulated time written on every frame of an exported
 * animation: "t = 12.3 s" on a small card in a corner of the scene.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "cml-scene-renderer.h"

G_BEGIN_DECLS

/* How the clock reads and looks for one video. */
typedef struct
{
  char   *unit;      /* the model's time unit ("s"), or NULL for none */
  int     decimals;  /* digits after the point: enough to change from frame to frame */
  double  font;      /* font size, pixels */
  double  width, height;  /* the card, pixels: fits the widest time of the video */
  gboolean dark;     /* light text on a dark card */
  float   background[4];  /* the scene's, straight RGBA */
} CmlVideoClock;

/* A clock for times 0 … T_END shown every FRAME_DT (simulated time units between frames),
 * in a frame HEIGHT pixels high, in the colours of STYLE; UNIT may be NULL or "1" (none). */
void  cml_video_clock_init (CmlVideoClock *clock, double t_end, double frame_dt, const char *unit,
                            int height, const CmlSceneStyle *style);
void  cml_video_clock_clear (CmlVideoClock *clock);
/* "t = 12.3 s" for time T. */
char *cml_video_clock_text (const CmlVideoClock *clock, double t);
/* Draws the card with time T with its top-left corner at the origin of CR. */
void  cml_video_clock_draw (const CmlVideoClock *clock, cairo_t *cr, double t);

G_END_DECLS
