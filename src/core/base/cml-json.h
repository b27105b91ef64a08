/* cml-json.h — writing JSON as it is produced: one small streaming writer for every JSON
 * file cmlab writes (simulate's rows, the window's data export, the frame statistics,
 * the benchmark's numbers).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Values go straight to a FILE or a GString: nothing is kept but the stack of open
 * containers.  Strings are escaped (quotes, backslashes, every control character; invalid
 * UTF-8 replaced by U+FFFD); numbers are written in C syntax whatever the locale, with 17
 * significant digits unless told otherwise (enough to read back the same double), and a
 * NaN or an infinity as null.  Each container has a layout, so a file reads well:
 *
 *   CML_JSON_BLOCK   each member on a line of its own, indented two spaces a level
 *   CML_JSON_LINE    on one line, members separated by ", "
 *   CML_JSON_PACKED  on one line, members separated by "," (rows of numbers)
 *
 * Closing the outermost container ends the text with a line break.  KEY is the member's
 * name inside an object and NULL inside an array (or for the outermost value).
 */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  CML_JSON_BLOCK,
  CML_JSON_LINE,
  CML_JSON_PACKED,
} CmlJsonLayout;

#define CML_JSON_MAX_DEPTH 32

typedef struct _CmlJson CmlJson;

/* A writer to FP (not closed by it; write errors are FP's: ferror) or appending to S. */
CmlJson *cml_json_new_file   (FILE *fp);
CmlJson *cml_json_new_string (GString *s);
void     cml_json_free       (CmlJson *j);

/* Significant digits of the numbers written from now on (1 … 17; 17 by default, which
 * reads back as the same double). */
void     cml_json_set_digits (CmlJson *j, int digits);

void     cml_json_begin_object (CmlJson *j, const char *key, CmlJsonLayout layout);
void     cml_json_begin_array  (CmlJson *j, const char *key, CmlJsonLayout layout);
/* Closes the innermost open object or array. */
void     cml_json_end          (CmlJson *j);

void     cml_json_string (CmlJson *j, const char *key, const char *value); /* NULL: null */
void     cml_json_number (CmlJson *j, const char *key, double value);
/* VALUE with a printf FORMAT for one double ("%.3f"), in C syntax; null if not finite. */
void     cml_json_number_format (CmlJson *j, const char *key, const char *format, double value);
void     cml_json_int    (CmlJson *j, const char *key, gint64 value);
void     cml_json_bool   (CmlJson *j, const char *key, gboolean value);
void     cml_json_null   (CmlJson *j, const char *key);

/* TEXT (NULL: "") as a JSON string literal, quotes included. */
void     cml_json_append_string (GString *s, const char *text);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlJson, cml_json_free)

G_END_DECLS
