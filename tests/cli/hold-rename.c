/* hold-rename.c — a library the shard test (test-sweep-shards.sh) preloads into one
 * cmlab-cli to make it the shard that ends long after the others, without a clock: its
 * rename() of a file named $CMLAB_TEST_HOLD_NAME (the last step of writing it, the
 * temporary already complete) first creates the file $CMLAB_TEST_HOLD_DIR/held, then
 * waits until $CMLAB_TEST_HOLD_DIR/go exists (at most 10 minutes, then goes on).  Every
 * other rename passes straight through; without the two variables it changes nothing.
 * The rename itself is made with renameat(), a symbol of its own, so this one is not
 * called again. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOLD_BOUND_POLLS (600 * 100) /* 10 minutes of 10 ms */

int
rename (const char *old_path, const char *new_path)
{
  const char *name = getenv ("CMLAB_TEST_HOLD_NAME");
  const char *dir = getenv ("CMLAB_TEST_HOLD_DIR");
  const char *base = new_path ? strrchr (new_path, '/') : NULL;

  base = base ? base + 1 : new_path;
  if (name && dir && base && strcmp (base, name) == 0)
    {
      char held[4096], go[4096];
      struct timespec tick = { 0, 10 * 1000 * 1000 };
      int fd;

      snprintf (held, sizeof held, "%s/held", dir);
      snprintf (go, sizeof go, "%s/go", dir);
      fd = open (held, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd >= 0)
        close (fd);
      for (int i = 0; i < HOLD_BOUND_POLLS && access (go, F_OK) != 0; i++)
        nanosleep (&tick, NULL);
    }
  return renameat (AT_FDCWD, old_path, AT_FDCWD, new_path);
}
