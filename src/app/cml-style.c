/* cml-style.c — light, dark or as the desktop says: the person's choice of style for every
 * window, remembered between runs in the window's settings (key "style"), and what the
 * style is now.
 *
 * libadwaita's style manager does the work: with "follow" it reads the desktop's
 * color-scheme (the settings portal, else GNOME's settings) and high contrast, follows
 * their changes, and restyles every widget; "light" and "dark" force one.  cmlab's own
 * drawings (the 3-D view and the plots) ask cml_style_is_dark () and
 * cml_style_is_high_contrast () and are told of changes by the window, which listens to
 * the style manager.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-style"

#include "cml-style.h"

#include <adwaita.h>

#define STYLE_KEY "style"

static const struct
{
  const char     *choice;
  AdwColorScheme  scheme;
} choices[] = {
  /* ADW_COLOR_SCHEME_DEFAULT: the desktop's preference, light when it states none */
  { "follow", ADW_COLOR_SCHEME_DEFAULT },
  { "light", ADW_COLOR_SCHEME_FORCE_LIGHT },
  { "dark", ADW_COLOR_SCHEME_FORCE_DARK },
};

const char *
cml_style_get_choice (void)
{
  AdwColorScheme scheme = adw_style_manager_get_color_scheme (adw_style_manager_get_default ());

  for (guint i = 0; i < G_N_ELEMENTS (choices); i++)
    if (choices[i].scheme == scheme)
      return choices[i].choice;
  /* PREFER_LIGHT or PREFER_DARK (set by nobody here): the desktop decides */
  return "follow";
}

gboolean
cml_style_set_choice (const char *choice)
{
  g_return_val_if_fail (choice != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (choices); i++)
    if (g_str_equal (choice, choices[i].choice))
      {
        adw_style_manager_set_color_scheme (adw_style_manager_get_default (), choices[i].scheme);
        return TRUE;
      }
  return FALSE;
}

void
cml_style_restore (GSettings *settings)
{
  g_autofree char *choice = NULL;

  if (settings == NULL)
    return;
  choice = g_settings_get_string (settings, STYLE_KEY);
  if (!cml_style_set_choice (choice))
    g_debug ("unknown style “%s” remembered: the desktop's is followed", choice);
}

void
cml_style_remember (GSettings *settings)
{
  if (settings)
    g_settings_set_string (settings, STYLE_KEY, cml_style_get_choice ());
}

gboolean
cml_style_is_dark (void)
{
  return adw_style_manager_get_dark (adw_style_manager_get_default ());
}

gboolean
cml_style_is_high_contrast (void)
{
  return adw_style_manager_get_high_contrast (adw_style_manager_get_default ());
}
