/* cml-video-clock.c — the simulated time on an exported animation's frames.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A video without a clock cannot be read against the plots or a lecture's words ("at
 * t = 12 s the ball turns back"), so every frame carries the simulated time on a card in
 * the scene's colours.  The number of decimals is chosen so that the reading changes from
 * one frame to the next: d = ⌈−log₁₀ Δt⌉ − 1 for the simulated time Δt between frames,
 * at least 1 and at most 3 (1/30 s a frame: "12.3"; slow motion at 1/300 s: "12.34").
 * The card is as wide as the widest time of the video, so it does not change size as the
 * digits change.
 */
#define G_LOG_DOMAIN "cml-video"

#include "cml-video-clock.h"

#include <math.h>
#include <pango/pangocairo.h>

#define FONT_720 20.0  /* px at 720 rows: readable on a projector */

void
cml_video_clock_init (CmlVideoClock *clock, double t_end, double frame_dt, const char *unit, int height,
                      const CmlSceneStyle *style)
{
  g_return_if_fail (clock != NULL && style != NULL);

  clock->unit = unit && *unit && !g_str_equal (unit, "1") ? g_strdup (unit) : NULL;
  clock->decimals = frame_dt > 0 ? CLAMP ((int) ceil (-log10 (frame_dt) - 1e-9) - 1, 1, 3) : 1;
  clock->font = FONT_720 * CLAMP (height / 720.0, 0.5, 4.0);
  clock->dark = style->dark;
  cml_scene_style_get_background (style, clock->background);

  /* the widest reading: every digit an 8, as many as the end time has */
  g_autofree char *widest_number = g_strdup_printf ("%.*f", clock->decimals, fabs (t_end));
  for (char *p = widest_number; *p; p++)
    if (g_ascii_isdigit (*p))
      *p = '8';
  g_autofree char *widest = NULL;
  if (clock->unit)
    widest = g_strdup_printf ("t = %s %s", widest_number, clock->unit);
  else
    widest = g_strdup_printf ("t = %s", widest_number);

  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t *cr = cairo_create (s);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  pango_font_description_set_absolute_size (font, clock->font * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, widest, -1);
  PangoRectangle logical;
  pango_layout_get_pixel_extents (layout, NULL, &logical);
  clock->width = ceil (logical.width + 1.6 * clock->font);
  clock->height = ceil (logical.height + 0.8 * clock->font);
  pango_font_description_free (font);
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
}

void
cml_video_clock_clear (CmlVideoClock *clock)
{
  g_return_if_fail (clock != NULL);
  g_clear_pointer (&clock->unit, g_free);
}

char *
cml_video_clock_text (const CmlVideoClock *clock, double t)
{
  g_return_val_if_fail (clock != NULL, NULL);

  /* −0.0 reads 0.0 */
  double shown = fabs (t) < 0.5 * pow (10, -clock->decimals) ? 0.0 : t;
  if (clock->unit)
    return g_strdup_printf ("t = %.*f %s", clock->decimals, shown, clock->unit);
  return g_strdup_printf ("t = %.*f", clock->decimals, shown);
}

void
cml_video_clock_draw (const CmlVideoClock *clock, cairo_t *cr, double t)
{
  g_return_if_fail (clock != NULL && cr != NULL);

  double W = clock->width, H = clock->height, rr = 0.6 * clock->font;
  const float *bg = clock->background;
  double ink = clock->dark ? 0.93 : 0.14;

  cairo_save (cr);
  /* the card the legend sits on */
  cml_scene_draw_card (cr, W, H, rr, bg, (const double[3]) { ink, ink, ink }, clock->font);

  /* the time, right-aligned so that the unit stays put as the digits change */
  g_autofree char *text = cml_video_clock_text (clock, t);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  pango_font_description_set_absolute_size (font, clock->font * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  PangoRectangle logical;
  pango_layout_get_pixel_extents (layout, NULL, &logical);
  cairo_move_to (cr, W - 0.8 * clock->font - logical.width, 0.4 * clock->font);
  cairo_set_source_rgb (cr, ink, ink, ink);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_free (font);
  g_object_unref (layout);
  cairo_restore (cr);
}
