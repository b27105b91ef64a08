/* cml-timeline.h — the timeline in the window's status line: a scrubber over the recorded
 * run, "Reverse", and the distance to where the run started.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The widget only shows frames and reports what the user does: "seek" (double t) when the
 * scrubber is moved by hand, and the "reversed" property when the Reverse button is
 * toggled.  Frames set both back (a reset runs forward again), without emitting "seek".
 *
 * All functions: UI thread only.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-runner.h"

G_BEGIN_DECLS

#define CML_TYPE_TIMELINE (cml_timeline_get_type ())
G_DECLARE_FINAL_TYPE (CmlTimeline, cml_timeline, CML, TIMELINE, GtkWidget)

GtkWidget *cml_timeline_new (void);

/* Shows FRAME: its time on the scrubber over the recorded span, the span, the distance to
 * the start (in the model's unit when the coordinates share one), the direction. */
void       cml_timeline_update (CmlTimeline *self, CmlFrame *frame);

gboolean   cml_timeline_get_reversed (CmlTimeline *self);
/* As if the user toggled the button ("reversed" is notified when it changes). */
void       cml_timeline_set_reversed (CmlTimeline *self, gboolean reversed);
void       cml_timeline_set_compact (CmlTimeline *self, gboolean compact);

/* The texts shown (tests). */
const char *cml_timeline_get_distance_text (CmlTimeline *self);
GtkRange   *cml_timeline_get_scale (CmlTimeline *self);
/* The runner's number (seq) of the frame shown last: a test waits until the timeline shows
 * the frame the runner published. */
guint64     cml_timeline_get_shown_seq (CmlTimeline *self);

G_END_DECLS
