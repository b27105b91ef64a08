/* cml-json.c — the streaming JSON writer: values written as they come, escaped strings,
 * locale-independent numbers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Why not json-glib: its generator writes a JsonNode tree that must be built in memory
 * first, and a run's output is 10⁸ rows at most (cml-cli-common.h) — gigabytes of nodes
 * for what is written here row by row, with constant memory.  Writing JSON needs only
 * the escaping, the numbers and a stack of open containers; the core takes no further
 * library for that (it links GLib, GSL and libm only).
 */
#define G_LOG_DOMAIN "cml-json"

#include "cml-json.h"

#include <math.h>
#include <string.h>

typedef struct
{
  CmlJsonLayout layout;
  gboolean      empty;   /* no member written yet */
  char          close;   /* '}' or ']' */
} Level;

struct _CmlJson
{
  FILE    *fp;           /* the sink: a file … */
  GString *s;            /* … or a string */
  int      digits;
  int      depth;        /* open containers */
  Level    level[CML_JSON_MAX_DEPTH];
};

CmlJson *
cml_json_new_file (FILE *fp)
{
  CmlJson *j = g_new0 (CmlJson, 1);

  j->fp = fp;
  j->digits = 17;
  return j;
}

CmlJson *
cml_json_new_string (GString *s)
{
  CmlJson *j = g_new0 (CmlJson, 1);

  j->s = s;
  j->digits = 17;
  return j;
}

void
cml_json_free (CmlJson *j)
{
  g_free (j);
}

void
cml_json_set_digits (CmlJson *j, int digits)
{
  j->digits = CLAMP (digits, 1, 17);
}

static void
put (CmlJson *j, const char *text)
{
  if (j->fp)
    fputs (text, j->fp);
  else
    g_string_append (j->s, text);
}

static void
put_c (CmlJson *j, char c)
{
  if (j->fp)
    fputc (c, j->fp);
  else
    g_string_append_c (j->s, c);
}

void
cml_json_append_string (GString *s, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);

  g_string_append_c (s, '"');
  for (const char *p = valid; *p; p++)
    {
      guchar c = (guchar) *p;
      switch (c)
        {
        case '"':  g_string_append (s, "\\\""); break;
        case '\\': g_string_append (s, "\\\\"); break;
        case '\n': g_string_append (s, "\\n"); break;
        case '\r': g_string_append (s, "\\r"); break;
        case '\t': g_string_append (s, "\\t"); break;
        case '\b': g_string_append (s, "\\b"); break;
        case '\f': g_string_append (s, "\\f"); break;
        default:
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (s, "\\u%04x", c);
          else
            g_string_append_c (s, (char) c);
        }
    }
  g_string_append_c (s, '"');
}

static void
put_string (CmlJson *j, const char *text)
{
  if (j->s)
    cml_json_append_string (j->s, text);
  else
    {
      g_autoptr (GString) s = g_string_new (NULL);

      cml_json_append_string (s, text);
      fputs (s->str, j->fp);
    }
}

static void
indent (CmlJson *j, int depth)
{
  put_c (j, '\n');
  for (int i = 0; i < depth; i++)
    put (j, "  ");
}

/* What comes before a value: the separator its container's layout asks for, and its key. */
static void
member (CmlJson *j, const char *key)
{
  if (j->depth > 0)
    {
      Level *l = &j->level[j->depth - 1];

      if (!l->empty)
        put (j, l->layout == CML_JSON_LINE ? ", " : ",");
      if (l->layout == CML_JSON_BLOCK)
        indent (j, j->depth);
      l->empty = FALSE;
      g_warn_if_fail ((key != NULL) == (l->close == '}'));
    }
  if (key)
    {
      put_string (j, key);
      put (j, ": ");
    }
}

static void
begin (CmlJson *j, const char *key, CmlJsonLayout layout, char open, char close)
{
  g_return_if_fail (j->depth < CML_JSON_MAX_DEPTH);

  member (j, key);
  put_c (j, open);
  j->level[j->depth++] = (Level) { .layout = layout, .empty = TRUE, .close = close };
}

void
cml_json_begin_object (CmlJson *j, const char *key, CmlJsonLayout layout)
{
  begin (j, key, layout, '{', '}');
}

void
cml_json_begin_array (CmlJson *j, const char *key, CmlJsonLayout layout)
{
  begin (j, key, layout, '[', ']');
}

void
cml_json_end (CmlJson *j)
{
  Level *l;

  g_return_if_fail (j->depth > 0);

  l = &j->level[--j->depth];
  if (l->layout == CML_JSON_BLOCK && !l->empty)
    indent (j, j->depth);
  put_c (j, l->close);
  if (j->depth == 0)
    put_c (j, '\n');
}

void
cml_json_string (CmlJson *j, const char *key, const char *value)
{
  member (j, key);
  if (value)
    put_string (j, value);
  else
    put (j, "null");
}

void
cml_json_number_format (CmlJson *j, const char *key, const char *format, double value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  member (j, key);
  if (isfinite (value))
    put (j, g_ascii_formatd (buf, sizeof buf, format, value));
  else
    put (j, "null");
}

void
cml_json_number (CmlJson *j, const char *key, double value)
{
  static const char *const formats[] = { NULL, "%.1g", "%.2g", "%.3g", "%.4g", "%.5g", "%.6g", "%.7g", "%.8g",
                                         "%.9g", "%.10g", "%.11g", "%.12g", "%.13g", "%.14g", "%.15g", "%.16g",
                                         "%.17g" };

  cml_json_number_format (j, key, formats[j->digits], value);
}

void
cml_json_int (CmlJson *j, const char *key, gint64 value)
{
  char buf[24];

  member (j, key);
  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value);
  put (j, buf);
}

void
cml_json_bool (CmlJson *j, const char *key, gboolean value)
{
  member (j, key);
  put (j, value ? "true" : "false");
}

void
cml_json_null (CmlJson *j, const char *key)
{
  member (j, key);
  put (j, "null");
}
