/* cml-dir-stream.c — a directory read through a descriptor of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The caches keep their directory open (every name is then resolved against a directory
 * that was checked once, openat and friends); listing it with fdopendir on that descriptor
 * would move its offset and hand it to the stream, so a listing opens "." again.
 */
#include "cml-dir-stream.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

DIR *
cml_dir_stream_at (int dirfd)
{
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;

  if (fd < 0)
    return NULL;
  d = fdopendir (fd);
  if (d == NULL)
    {
      int saved = errno;
      close (fd);
      errno = saved;
    }
  return d;
}
