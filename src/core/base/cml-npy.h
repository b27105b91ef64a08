/* cml-npy.h — the header of NumPy's .npy format for a table of doubles with named columns.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The header of a .npy file that holds N_ROWS rows of N_NAMES little-endian doubles, a
 * one-dimensional array of a structured dtype with one '<f8' field per name (NAMES[k],
 * ASCII without control characters), into OUT (replacing its contents).  Its length does
 * not depend on N_ROWS (the shape is padded to 20 digits), so a writer can write it with
 * 0 rows first and again over itself at the end.  Format 1.0 when the header fits in
 * 65535 bytes, else 2.0.  The data follow at OUT->len, a multiple of 64. */
void     cml_npy_header (const char *const *names, guint n_names, guint64 n_rows, GString *out);

/* Whether NAMES can be the fields of a structured dtype: non-empty, distinct, printable
 * ASCII.  FALSE with the first that cannot in *BAD (may be NULL). */
gboolean cml_npy_names_ok (const char *const *names, guint n_names, const char **bad);

G_END_DECLS
