/* cml-resident.h — making a block of memory resident now, so that a store sized at load
 * takes its memory at once instead of creeping up as it fills.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes the whole pages within the BYTES at P resident in one system call, without
 * touching what they hold (so another thread may be writing to them); FALSE when the
 * kernel cannot (before Linux 5.14).  Any thread; the work is the calling thread's. */
gboolean cml_populate (void *p, gsize bytes);

/* Makes every page of the BYTES at P resident: cml_populate (), else a write to each
 * page (of the value it holds).  The thread that owns the block. */
void     cml_make_resident (void *p, gsize bytes);

G_END_DECLS
