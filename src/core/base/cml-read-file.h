/* cml-read-file.h — reading a file a person names or cmlab finds (a model, a session, a
 * sweep file, a cache entry): opened once, checked to be a regular file, read to a size
 * limit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Opens PATH for reading and checks the open file (fstat, not the path again): a regular
 * file.  A folder, a pipe (FIFO), a device (/dev/zero, /dev/urandom, a terminal) or a
 * socket is refused with a message in words, and a pipe without a writer never blocks the
 * open (O_NONBLOCK).  The descriptor (blocking again) or -1 with ERROR set (G_FILE_ERROR;
 * the message does not name PATH). */
int      cml_read_file_open   (const char *path, GError **error);

/* Reads the regular file PATH whole (cml_read_file_open) when it has at most MAX_BYTES
 * bytes: *CONTENTS (NUL-terminated, g_free) and *LENGTH.  A larger file is refused before
 * a byte is read, one that grows past the limit while it is read after MAX_BYTES + 1;
 * that refusal is CML_ERROR / CML_ERROR_IO and names WHAT ("a model file"), the limit and
 * the size; other errors are G_FILE_ERROR.  No message names PATH. */
gboolean cml_read_file_capped (const char *path, gsize max_bytes, const char *what, char **contents,
                               gsize *length, GError **error);

G_END_DECLS
