/* render-util.h — what the render tests share: dropping the text caches at the end of a
 * test program, so that a leak checker sees only our own memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <cairo.h>
#include <glib.h>
#include <pango/pangocairo.h>

/* Pango's font map let go of, and cairo's static caches emptied (cairo_debug_reset_static_data)
 * once nothing holds the font map any more.  Pango starts fontconfig on a worker, whose task
 * holds the font map until its completion has run on the main context: on a busy machine
 * it may come after the last test, and cairo's reset then found font faces still alive and
 * aborted ("cairo-hash.c: live_entries == 0").  So the pending completions run first, and
 * a font map still held (by whatever) leaves cairo's caches as they are — the fonts are the
 * libraries' memory, which tests/lsan.supp names. */
static inline void
render_test_drop_font_caches (void)
{
  PangoFontMap *map = pango_cairo_font_map_get_default ();

  g_object_add_weak_pointer (G_OBJECT (map), (gpointer *) &map);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  pango_cairo_font_map_set_default (NULL);
  if (map == NULL)
    cairo_debug_reset_static_data ();
  else
    g_object_remove_weak_pointer (G_OBJECT (map), (gpointer *) &map);
}
