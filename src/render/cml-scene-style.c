/* cml-scene-style.c — how the scene looks: the style (light or dark, high contrast,
 * presentation, multisampling), the background, the colours objects are named by, and
 * how far out anything is drawn.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-private.h"

#include <math.h>
#include <string.h>

/* ---- style and colours --------------------------------------------------------------- */

CmlSceneStyle
cml_scene_style_default (void)
{
  return (CmlSceneStyle) {
    .dark = FALSE,
    .presentation = FALSE,
    .table_frame = FALSE,
    .scale = 1.0,
    .samples = 4,
  };
}

void
cml_scene_style_get_background (const CmlSceneStyle *style, float rgba[4])
{
  /* dark: a blue-black that keeps saturated colours readable on a projector;
   * light: a warm white that is not glaring */
  static const float dark[4] = { 0.106f, 0.114f, 0.133f, 1.f };
  static const float light[4] = { 0.965f, 0.961f, 0.953f, 1.f };
  /* high contrast: black or white */
  static const float black[4] = { 0.f, 0.f, 0.f, 1.f };
  static const float white[4] = { 1.f, 1.f, 1.f, 1.f };
  gboolean hc = style && style->high_contrast;

  if (style && style->dark)
    memcpy (rgba, hc ? black : dark, sizeof dark);
  else
    memcpy (rgba, hc ? white : light, sizeof dark);
}

void
cml_scene_hex_to_rgb (guint32 hex, float rgb[3])
{
  rgb[0] = ((hex >> 16) & 0xff) / 255.f;
  rgb[1] = ((hex >> 8) & 0xff) / 255.f;
  rgb[2] = (hex & 0xff) / 255.f;
}

/* Named colours (the GNOME palette's strong tones); NULL or unknown: DEFAULT_HEX. */
void
cml_scene_parse_color (const char *name, guint32 default_hex, float rgb[3])
{
  static const struct
  {
    const char *name;
    guint32     hex;
  } named[] = {
    { "red", 0xe01b24 }, { "blue", 0x1c71d8 }, { "orange", 0xf57900 },
    { "green", 0x26a269 }, { "grey", 0x9a9996 }, { "gray", 0x9a9996 },
    { "purple", 0x813d9c }, { "yellow", 0xe5a50a }, { "black", 0x241f31 },
    { "white", 0xf6f5f4 }, { "brown", 0x865e3c },
  };

  cml_scene_hex_to_rgb (default_hex, rgb);
  if (name == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    if (g_ascii_strcasecmp (name, named[i].name) == 0)
      {
        cml_scene_hex_to_rgb (named[i].hex, rgb);
        return;
      }
  if (name[0] == '#' && strlen (name) == 7)
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (name + 1, &end, 16);
      if (end && *end == '\0')
        cml_scene_hex_to_rgb ((guint32) v, rgb);
    }
}

void
cml_scene_mix3 (const float a[3], const float b[3], float t, float out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = a[i] + (b[i] - a[i]) * t;
}

gboolean
cml_scene_values_drawable (const double *v, guint n)
{
  g_return_val_if_fail (v != NULL || n == 0, FALSE);

  for (guint i = 0; i < n; i++)
    if (!(fabs (v[i]) <= CML_SCENE_FAR))
      return FALSE;
  return TRUE;
}
