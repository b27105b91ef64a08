/* cml-gl-probe.c — the tests' pixel probe of the GtkGLArea views.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-gl-probe"

#include "cml-gl-probe.h"

#include <math.h>
#include <stdlib.h>

/* How far (of 255) a channel may stray from the background before the pixel counts as
 * drawn: a few levels are rounding in the read-back, not drawing. */
#define BACKGROUND_TOLERANCE 8

static double
differing_fraction (const CmlGlProbeImage *image)
{
  gsize n = (gsize) image->width * image->height;
  int bg[3];
  guint differ = 0;

  for (int k = 0; k < 3; k++)
    bg[k] = (int) lroundf (image->background[k] * 255);
  for (gsize i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      if (abs ((int) image->rgba[4 * i + k] - bg[k]) > BACKGROUND_TOLERANCE)
        {
          differ++;
          break;
        }
  return (double) differ / ((double) image->width * image->height);
}

gboolean
cml_gl_probe_pixels (GtkGLArea *area, CmlGlProbeDrawFunc draw, gpointer view, double *fraction)
{
  g_return_val_if_fail (GTK_IS_GL_AREA (area), FALSE);
  g_return_val_if_fail (draw != NULL, FALSE);
  g_return_val_if_fail (fraction != NULL, FALSE);

  /* realizing is what makes the view's renderer; an area in no window cannot be */
  GtkWidget *widget = GTK_WIDGET (area);
  if (!gtk_widget_get_realized (widget))
    {
      if (gtk_widget_get_root (widget) == NULL)
        return FALSE;
      gtk_widget_realize (widget);
    }

  CmlGlProbeImage image = { 0 };
  CmlGlProbeStatus status = draw (view, &image);
  g_autofree guint8 *rgba = image.rgba;
  switch (status)
    {
    case CML_GL_PROBE_NO_GL:
      return FALSE;
    case CML_GL_PROBE_FAILED:
      *fraction = 0; /* a context, but our renderer failed: that must fail the test */
      return TRUE;
    case CML_GL_PROBE_DRAWN:
    default:
      break;
    }
  *fraction = differing_fraction (&image);
  return TRUE;
}
