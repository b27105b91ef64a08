/* cml-key-file-line.c — where a key stands in a key file's text (see cml-key-file-line.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cml-key-file-line.h"

#include <string.h>

int
cml_key_file_line (const char *text, const char *group, const char *key)
{
  gboolean in_group = FALSE;
  int line = 1;

  for (const char *p = text; p && *p; line++)
    {
      const char *nl = strchr (p, '\n');
      g_autofree char *l = g_strstrip (nl ? g_strndup (p, (gsize) (nl - p)) : g_strdup (p));
      if (*l == '[')
        {
          in_group = g_str_has_prefix (l + 1, group) && l[1 + strlen (group)] == ']';
          if (in_group && key == NULL)
            return line;
        }
      else if (in_group && key)
        {
          const char *eq = strchr (l, '=');
          g_autofree char *k = eq ? g_strstrip (g_strndup (l, (gsize) (eq - l))) : NULL;
          if (k && g_str_equal (k, key))
            return line;
        }
      if (!nl)
        break;
      p = nl + 1;
    }
  return 1;
}
