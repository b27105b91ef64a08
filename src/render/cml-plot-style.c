/* cml-plot-style.c — how a plot looks: the colours (light and dark), fonts,
 * line widths and spacings the backends share, for the screen, a projector or a figure.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-plot"

#include "cml-plot-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==== style ============================================================================ */

static CmlPlotRgba
rgb_hex (guint32 hex, float alpha)
{
  return (CmlPlotRgba) { ((hex >> 16) & 0xff) / 255.f, ((hex >> 8) & 0xff) / 255.f,
                         (hex & 0xff) / 255.f, alpha };
}

void
cml_plot_style_init (CmlPlotStyle *style, gboolean dark, gboolean presentation)
{
  /* Okabe–Ito based: tells apart for colour-blind viewers and survives a projector. */
  static const guint32 light_palette[CML_PLOT_PALETTE_SIZE] = {
    0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0xe69f00, 0x56b4e9, 0x8c564b, 0x555555,
  };
  static const guint32 dark_palette[CML_PLOT_PALETTE_SIZE] = {
    0x56b4e9, 0xf0a020, 0x2fd39a, 0xf27dba, 0xf0e442, 0x7f9cff, 0xff7f50, 0xcccccc,
  };

  g_return_if_fail (style != NULL);

  memset (style, 0, sizeof *style);
  style->background = rgb_hex (dark ? 0x1d1d21 : 0xffffff, 1.f);
  style->foreground = rgb_hex (dark ? 0xececec : 0x1e1e1e, 1.f);
  style->grid = rgb_hex (dark ? 0x3b3b42 : 0xe3e3e6, 1.f);
  for (guint i = 0; i < CML_PLOT_PALETTE_SIZE; i++)
    style->palette[i] = rgb_hex (dark ? dark_palette[i] : light_palette[i], 1.f);
  style->font_family = "Cantarell, DejaVu Sans, Sans";
  style->scale = 1.0;
  if (presentation)
    {
      style->font_size = 22;
      style->title_size = 25;
      style->line_width = 4;
      style->axis_width = 2;
      style->grid_width = 1.5;
      style->tick_length = 8;
      style->padding = 14;
      style->min_tick_spacing = 40;
      style->dash_on = 10;
      style->dash_off = 10;
      style->dash_width = 9;
    }
  else
    {
      style->font_size = 13;
      style->title_size = 14;
      style->line_width = 2;
      style->axis_width = 1;
      style->grid_width = 1;
      style->tick_length = 5;
      style->padding = 8;
      style->min_tick_spacing = 24;
      style->dash_on = 6;
      style->dash_off = 6;
      style->dash_width = 4.5;
    }
}

void
cml_plot_style_init_contrast (CmlPlotStyle *style, gboolean dark, gboolean high_contrast,
                              gboolean presentation)
{
  /* the palettes' hues, darker on white and lighter on black: each at least 4.5 : 1
   * against its background (WCAG's contrast for text) */
  static const guint32 light_palette[CML_PLOT_PALETTE_SIZE] = {
    0x005a9c, 0xa63c00, 0x00704f, 0x9c3d73, 0x8a5c00, 0x1f5fbf, 0x6b3f2e, 0x000000,
  };
  static const guint32 dark_palette[CML_PLOT_PALETTE_SIZE] = {
    0x7cc8ff, 0xffb347, 0x4cf0b0, 0xff9ad0, 0xfff176, 0xa8b8ff, 0xffa07a, 0xffffff,
  };

  cml_plot_style_init (style, dark, presentation);
  if (!high_contrast)
    return;
  style->background = rgb_hex (dark ? 0x000000 : 0xffffff, 1.f);
  style->foreground = rgb_hex (dark ? 0xffffff : 0x000000, 1.f);
  style->grid = rgb_hex (dark ? 0x808080 : 0x8c8c8c, 1.f);
  for (guint i = 0; i < CML_PLOT_PALETTE_SIZE; i++)
    style->palette[i] = rgb_hex (dark ? dark_palette[i] : light_palette[i], 1.f);
  style->line_width *= 1.5;
  style->axis_width *= 1.5;
  style->dash_width *= 1.5;
}

void
cml_plot_style_init_for_figure (CmlPlotStyle *style, gboolean dark, double width, double height)
{
  g_return_if_fail (style != NULL);

  /* the normal style is made for about 800 × 450: keep its proportions at any size, so
   * a 1600 × 900 slide reads like the 800 × 450 figure enlarged, not like a screenshot */
  cml_plot_style_init (style, dark, FALSE);
  style->scale = MAX (1.0, MIN (width / 800.0, height / 450.0));
}
