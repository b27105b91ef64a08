/* cml-npy.c — the header of NumPy's .npy format (format versions 1.0 and 2.0) for a table
 * of doubles with named columns.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout (numpy.lib.format, "NEP 1"):
 *   "\x93NUMPY"  major  minor  HEADER_LEN         HEADER                  data
 *    6 bytes     1      1      2 (1.0) or 4 (2.0)  HEADER_LEN bytes
 *                              bytes, little-endian
 * HEADER is a Python literal dict, padded with spaces and ended by '\n' so that the data
 * start at a multiple of 64 bytes:
 *   {'descr': [('t', '<f8'), ('x', '<f8')], 'fortran_order': False, 'shape': (N,), }
 * Rows are then N records of the fields in order, each a little-endian IEEE double.
 */
#define G_LOG_DOMAIN "cml-npy"

#include "cml-npy.h"

#include <string.h>

#define NPY_ALIGN 64

gboolean
cml_npy_names_ok (const char *const *names, guint n_names, const char **bad)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint k = 0; k < n_names; k++)
    {
      gboolean ok = names[k][0] != '\0' && g_hash_table_add (seen, (gpointer) names[k]);
      for (const char *p = names[k]; ok && *p; p++)
        ok = *p >= 0x20 && *p < 0x7f;
      if (!ok)
        {
          if (bad)
            *bad = names[k];
          return FALSE;
        }
    }
  return TRUE;
}

void
cml_npy_header (const char *const *names, guint n_names, guint64 n_rows, GString *out)
{
  g_autoptr (GString) dict = g_string_new ("{'descr': [");
  gsize prefix, total;
  gboolean v2;

  for (guint k = 0; k < n_names; k++)
    {
      /* a Python string literal: quotes and backslashes escaped */
      g_string_append (dict, k ? ", ('" : "('");
      for (const char *p = names[k]; *p; p++)
        {
          if (*p == '\'' || *p == '\\')
            g_string_append_c (dict, '\\');
          g_string_append_c (dict, *p);
        }
      g_string_append (dict, "', '<f8')");
    }
  g_string_append_printf (dict, "], 'fortran_order': False, 'shape': (%20" G_GUINT64_FORMAT ",), }", n_rows);

  /* the magic, the version and the length, then the dict padded to the alignment */
  v2 = dict->len + 1 + 10 > G_MAXUINT16;
  prefix = v2 ? 12 : 10;
  total = (prefix + dict->len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  while (dict->len + 1 < total - prefix)
    g_string_append_c (dict, ' ');
  g_string_append_c (dict, '\n');

  g_string_truncate (out, 0);
  g_string_append_len (out, "\x93NUMPY", 6);
  g_string_append_c (out, v2 ? 2 : 1);
  g_string_append_c (out, 0);
  {
    guint32 len = (guint32) dict->len;
    g_string_append_c (out, (char) (len & 0xff));
    g_string_append_c (out, (char) ((len >> 8) & 0xff));
    if (v2)
      {
        g_string_append_c (out, (char) ((len >> 16) & 0xff));
        g_string_append_c (out, (char) ((len >> 24) & 0xff));
      }
  }
  g_string_append_len (out, dict->str, (gssize) dict->len);
  g_assert (out->len % NPY_ALIGN == 0);
}
