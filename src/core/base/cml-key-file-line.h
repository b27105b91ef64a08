/* cml-key-file-line.h — where a key stands in a key file's text.  GKeyFile keeps no line
 * numbers; an error about a session's or a lesson's key names its line from the text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once
#include <glib.h>

G_BEGIN_DECLS

/* The line (from 1) of KEY in [GROUP] of TEXT — of the [GROUP] line itself when KEY is
 * NULL — or 1 when it is not there.  One pass over the text. */
int cml_key_file_line (const char *text, const char *group, const char *key);

G_END_DECLS
