/* cml-bytes.h — binary records of the derived-system cache (cml-system-cache.c): numbers,
 * strings and arrays appended to a GByteArray in this machine's byte order, and read back
 * with every read checked against the end of the data.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A reader that runs past the end, or meets a length larger than what is left, stops: it
 * is marked bad, every later read returns zeros, and the caller drops the whole record.
 */
#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

typedef struct
{
  const guint8 *p, *end;
  gboolean      bad;
} CmlBytesReader;

static inline void
cml_bytes_put (GByteArray *out, const void *data, gsize len)
{
  g_byte_array_append (out, data, (guint) len);
}

static inline void
cml_bytes_put_u32 (GByteArray *out, guint32 v)
{
  cml_bytes_put (out, &v, sizeof v);
}

static inline void
cml_bytes_put_f64 (GByteArray *out, double v)
{
  cml_bytes_put (out, &v, sizeof v);
}

/* A string as its length and bytes; NULL as the length G_MAXUINT32. */
static inline void
cml_bytes_put_str (GByteArray *out, const char *s)
{
  if (s == NULL)
    {
      cml_bytes_put_u32 (out, G_MAXUINT32);
      return;
    }
  gsize len = strlen (s);
  cml_bytes_put_u32 (out, (guint32) len);
  cml_bytes_put (out, s, len);
}

/* Whether N items of SIZE bytes are left; marks the reader bad when not. */
static inline gboolean
cml_bytes_have (CmlBytesReader *r, gsize n, gsize size)
{
  if (!r->bad && (size == 0 || n <= (gsize) (r->end - r->p) / size))
    return TRUE;
  r->bad = TRUE;
  return FALSE;
}

static inline void
cml_bytes_get (CmlBytesReader *r, void *data, gsize len)
{
  if (!cml_bytes_have (r, len, 1))
    {
      memset (data, 0, len);
      return;
    }
  memcpy (data, r->p, len);
  r->p += len;
}

static inline guint32
cml_bytes_get_u32 (CmlBytesReader *r)
{
  guint32 v;
  cml_bytes_get (r, &v, sizeof v);
  return v;
}

static inline double
cml_bytes_get_f64 (CmlBytesReader *r)
{
  double v;
  cml_bytes_get (r, &v, sizeof v);
  return v;
}

/* A string (newly allocated), or NULL for the one written as NULL or a bad reader; *NONE
 * tells which NULL it was. */
static inline char *
cml_bytes_get_str (CmlBytesReader *r, gboolean *none)
{
  guint32 len = cml_bytes_get_u32 (r);

  *none = !r->bad && len == G_MAXUINT32;
  if (*none || !cml_bytes_have (r, len, 1) || memchr (r->p, '\0', len) != NULL)
    {
      r->bad = r->bad || !*none;
      return NULL;
    }
  char *s = g_strndup ((const char *) r->p, len);
  r->p += len;
  return s;
}

/* N items of SIZE bytes, newly allocated (at least one item's room), or NULL when bad. */
static inline gpointer
cml_bytes_get_array (CmlBytesReader *r, gsize n, gsize size)
{
  if (!cml_bytes_have (r, n, size))
    return NULL;
  gpointer a = g_malloc0 (MAX (n, 1) * size);
  memcpy (a, r->p, n * size);
  r->p += n * size;
  return a;
}

G_END_DECLS
