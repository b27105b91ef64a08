/* cml-style.h — light, dark or as the desktop says: the style every window is drawn in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * All functions: UI thread, after adw_init ().
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The person's choice, as the menu, the settings and the window's state name it:
 * "follow" (the desktop's light or dark, the default), "light" or "dark". */
const char *cml_style_get_choice (void);
/* Applies CHOICE to every window; FALSE (and nothing changed) for an unknown one. */
gboolean    cml_style_set_choice (const char *choice);

/* Applies the choice SETTINGS remember (nothing without settings). */
void        cml_style_restore (GSettings *settings);
/* Remembers the choice in force now in SETTINGS (may be NULL). */
void        cml_style_remember (GSettings *settings);

/* Whether windows are dark now (the choice, or the desktop's when it is followed). */
gboolean    cml_style_is_dark (void);
/* Whether the desktop asks for high contrast (cmlab's drawings then use black and white
 * and thicker lines). */
gboolean    cml_style_is_high_contrast (void);

G_END_DECLS
