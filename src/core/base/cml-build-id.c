/* cml-build-id.c — which build of cmlab is running (cml-build-id.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The linker writes a note NT_GNU_BUILD_ID ("GNU") into the object it links: a digest of
 * the object's contents (Debian's GCC and Clang ask for it by default).  The loaded object
 * that contains this function is found among the program headers that the dynamic loader
 * lists (dl_iterate_phdr), and its PT_NOTE segments are read in memory: no file is opened.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#define G_LOG_DOMAIN "cml-build-id"

#include "cml-build-id.h"

#include <elf.h>
#include <link.h>
#include <string.h>

typedef struct
{
  ElfW (Addr) at;  /* an address inside the object sought */
  char       *hex; /* its build ID */
} Search;

/* The build ID in the notes of one PT_NOTE segment (SIZE bytes at NOTES), or NULL. */
static char *
note_build_id (const guchar *notes, gsize size)
{
  gsize off = 0;

  while (off + sizeof (ElfW (Nhdr)) <= size)
    {
      ElfW (Nhdr) nh;
      memcpy (&nh, notes + off, sizeof nh);
      gsize name_at = off + sizeof nh, desc_at = name_at + ((nh.n_namesz + 3) & ~(gsize) 3);
      gsize next = desc_at + ((nh.n_descsz + 3) & ~(gsize) 3);
      if (next > size || desc_at > size)
        return NULL;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp (notes + name_at, "GNU", 4) == 0
          && nh.n_descsz > 0)
        {
          GString *hex = g_string_sized_new (2 * nh.n_descsz);
          for (guint i = 0; i < nh.n_descsz; i++)
            g_string_append_printf (hex, "%02x", notes[desc_at + i]);
          return g_string_free (hex, FALSE);
        }
      off = next;
    }
  return NULL;
}

static int
find_object (struct dl_phdr_info *info, size_t size, void *data)
{
  Search *s = data;
  gboolean inside = FALSE;

  for (int i = 0; i < info->dlpi_phnum && !inside; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      ElfW (Addr) start = info->dlpi_addr + ph->p_vaddr;
      inside = ph->p_type == PT_LOAD && s->at >= start && s->at - start < ph->p_memsz;
    }
  if (!inside)
    return 0;
  for (int i = 0; i < info->dlpi_phnum && s->hex == NULL; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_NOTE)
        s->hex = note_build_id ((const guchar *) (info->dlpi_addr + ph->p_vaddr), ph->p_memsz);
    }
  return 1;
}

const char *
cml_build_id (void)
{
  static gsize done = 0;
  static char *id = NULL;

  if (g_once_init_enter (&done))
    {
      Search s = { (ElfW (Addr)) (gpointer) cml_build_id, NULL };
      dl_iterate_phdr (find_object, &s);
      id = s.hex;
      if (id == NULL)
        g_debug ("this build of cmlab has no build ID: what it derives is not cached");
      g_once_init_leave (&done, 1);
    }
  return id;
}
