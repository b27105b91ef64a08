/* cml-resident.c — making a block of memory resident now.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stores the window sizes at load (the runner's record, the plots' columns) are made
 * resident at once, so that their bound is reached when a model loads and a soak sees the
 * memory flat from the first minute.  Writing to every page does it with one page fault
 * per page; on a virtual machine each fault is an exit to the hypervisor, and the record
 * and the plots of a 50-link pendulum (about 400 MB) took seconds of the window's time
 * that way.  madvise (MADV_POPULATE_WRITE) (Linux 5.14) faults the whole range in one
 * system call, about twenty times faster there, and leaves the contents as they are (so
 * it may run beside a thread that writes to the block).  Where the kernel lacks it, the
 * pages are written (read and written back, which keeps their contents too, but only on
 * the thread that owns the block).
 */
#define G_LOG_DOMAIN "cml-resident"

#include "cml-resident.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static gsize
page_size (void)
{
  long page = sysconf (_SC_PAGESIZE);

  return page > 0 && (page & (page - 1)) == 0 ? (gsize) page : 4096;
}

gboolean
cml_populate (void *p, gsize bytes)
{
#ifdef MADV_POPULATE_WRITE
  gsize page = page_size ();
  uintptr_t start, end;

  if (p == NULL)
    return TRUE;
  start = ((uintptr_t) p + page - 1) & ~(uintptr_t) (page - 1);
  end = ((uintptr_t) p + bytes) & ~(uintptr_t) (page - 1);
  return end <= start || madvise ((void *) start, end - start, MADV_POPULATE_WRITE) == 0;
#else
  return FALSE;
#endif
}

void
cml_make_resident (void *p, gsize bytes)
{
  volatile char *c = p;
  gsize page = page_size ();

  if (p == NULL || bytes == 0)
    return;
  /* the whole pages by one call, the partial pages at the block's ends by hand */
  if (cml_populate (p, bytes))
    {
      c[0] = c[0];
      c[bytes - 1] = c[bytes - 1];
      return;
    }
  for (gsize i = 0; i < bytes; i += page)
    c[i] = c[i];
  c[bytes - 1] = c[bytes - 1];
}
