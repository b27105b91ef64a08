/* cml-gl-probe.h — the tests' pixel probe of the GtkGLArea views.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scene view and the plot view both let the tests ask "is anything drawn?": draw now,
 * off-screen, and count the pixels that are not the background.  Only the drawing is the
 * view's own; the steps around it are here, so that both views answer alike: realize the
 * area (which makes the view's renderer), tell "no GL here" (a test skips) from "our
 * renderer failed" (a test fails), count.  UI thread only.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  CML_GL_PROBE_NO_GL,  /* no GL context could be made */
  CML_GL_PROBE_FAILED, /* a context, but the view's renderer failed or could not draw */
  CML_GL_PROBE_DRAWN,  /* the image is filled in */
} CmlGlProbeStatus;

/* What the view drew. */
typedef struct
{
  int     width, height; /* device pixels */
  guint8 *rgba;          /* WIDTH × HEIGHT × 4 bytes from g_malloc; the probe frees it */
  float   background[4]; /* the view's clear colour (0 … 1; alpha not looked at) */
} CmlGlProbeImage;

/* Draws VIEW now, off-screen, into IMAGE (zeroed; RGBA may be set even when the status is
 * not DRAWN).  Called with the area realized; makes its context current itself. */
typedef CmlGlProbeStatus (*CmlGlProbeDrawFunc) (gpointer view, CmlGlProbeImage *image);

/* Realizes AREA if it is in a window and not realized yet, has DRAW draw VIEW and stores in
 * *FRACTION the fraction of pixels that differ from the background by more than 8 (of 255)
 * in red, green or blue.  FALSE (*FRACTION untouched) when AREA is in no window or no GL
 * context could be made; TRUE with *FRACTION 0 when the view's renderer failed. */
gboolean cml_gl_probe_pixels (GtkGLArea         *area,
                              CmlGlProbeDrawFunc draw,
                              gpointer           view,
                              double            *fraction);

G_END_DECLS
