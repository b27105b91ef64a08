/* bench-csv.c — reading what the benchmark's child processes write (bench-csv.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "bench-csv.h"

#include "cml-error.h"

GHashTable *
bench_csv_last_row (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL, header = NULL, cells = NULL;
  const char *last = NULL;

  if (!g_file_get_contents (path, &text, NULL, error))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      char *l = g_strstrip (lines[i]);
      if (*l == '\0' || *l == '#')
        continue;
      if (header == NULL)
        header = g_strsplit (l, ",", -1);
      else
        last = l;
    }
  if (header == NULL || last == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: no rows", path);
      return NULL;
    }
  cells = g_strsplit (last, ",", -1);
  if (g_strv_length (cells) != g_strv_length (header))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: the last row does not match the header", path);
      return NULL;
    }
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; header[i]; i++)
    {
      double v = g_ascii_strtod (cells[i], NULL);
      g_hash_table_insert (values, g_strdup (g_strstrip (header[i])), g_memdup2 (&v, sizeof v));
    }
  return values;
}

GHashTable *
bench_parse_pairs (const char *text)
{
  GHashTable *values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) kv = g_strsplit (g_strstrip (lines[i]), " ", 2);
      if (kv[0] && kv[1])
        {
          double v = g_ascii_strtod (kv[1], NULL);
          g_hash_table_insert (values, g_strdup (kv[0]), g_memdup2 (&v, sizeof v));
        }
    }
  return values;
}
