/* cml-atomic-file.h — every file cmlab writes: complete or absent, and never in place of
 * something that is not ours to replace.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A regular file (new or existing) is written under a temporary name beside it,
 * `.NAME.cmlab-tmp-HOST-BOOT-PIDNS-PID-XXXXXX` (see below), synced (unless it is a cache's: CML_ATOMIC_FILE_UNSYNCED)
 * and renamed over NAME by
 * cml_atomic_file_commit(); cml_atomic_file_abort() (and free without commit) removes
 * the temporary.  The new file has the mode a plain create gives (0666 less the umask);
 * a replaced file keeps its mode (and, where we may, its owner).
 *
 * What is not a regular file is never replaced:
 *   - a character device or a FIFO (/dev/null, a named pipe) is written directly, with
 *     no temporary file (nothing to undo on a failure);
 *   - a symbolic link is followed: the file it names (through any chain of links) is
 *     written as above and the link stays a link;
 *   - a directory, a block device or a socket is refused ("FILE: is a directory",
 *     "FILE: not a regular file");
 *   - an existing file we may not write (read-only, someone else's) is refused with
 *     "FILE: permission denied" and left as it is — even for root.
 *
 * Temporaries of a process that died without cleaning up (SIGKILL, a power cut) are
 * removed the next time any cmlab process writes into the same directory — only when the
 * name proves its writer gone: written on our host (HOST, the host name), since the same
 * boot (BOOT, the first 8 hex digits of the kernel's boot id) and in our PID namespace
 * (PIDNS, its inode), by a PID that is no longer alive.  A PID of another host, boot or
 * PID namespace (a shard on another node of a cluster, a container) says nothing here:
 * such a temporary, and one of an earlier version (`.NAME.cmlab-tmp-PID-XXXXXX`), is
 * removed only when nothing has written to it for 7 days.  One with a live PID is
 * another writer's, left alone.
 *
 * Errors: CML_ERROR_IO, the message naming the file as given.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef enum
{
  CML_ATOMIC_FILE_DEFAULT  = 0,
  /* another program (ffmpeg, a C compiler) writes the file by its name
   * (cml_atomic_file_get_write_path): no descriptor is kept open */
  CML_ATOMIC_FILE_EXTERNAL = 1 << 0,
  /* a cache's file, which its reader checks whole: not synced to disk before the rename
   * (after a crash it may be empty or absent — recomputed, never trusted) */
  CML_ATOMIC_FILE_UNSYNCED = 1 << 1,
} CmlAtomicFileFlags;

typedef struct _CmlAtomicFile CmlAtomicFile;

/* Prepares writing PATH (see above for what is refused).  Any thread. */
CmlAtomicFile *cml_atomic_file_new            (const char         *path,
                                               CmlAtomicFileFlags  flags,
                                               GError            **error);
/* Where the data goes: a descriptor, or a stdio stream on it (created on first call,
 * owned by FILE; use one or the other).  -1 / NULL for CML_ATOMIC_FILE_EXTERNAL. */
int            cml_atomic_file_get_fd         (CmlAtomicFile      *file);
FILE          *cml_atomic_file_get_stream     (CmlAtomicFile      *file);
/* The name the data is written under meanwhile (the temporary, or the target itself
 * when it is a device or a FIFO), for CML_ATOMIC_FILE_EXTERNAL. */
const char    *cml_atomic_file_get_write_path (CmlAtomicFile      *file);
/* The path as given. */
const char    *cml_atomic_file_get_path       (CmlAtomicFile      *file);
/* Whether the target is written directly (a character device or a FIFO). */
gboolean       cml_atomic_file_is_direct      (CmlAtomicFile      *file);
/* Flushes, syncs, closes and moves the file to its name.  On failure the temporary is
 * removed and the error says why ("writing FILE failed: …"). */
gboolean       cml_atomic_file_commit         (CmlAtomicFile      *file,
                                               GError            **error);
/* Drops the temporary file (nothing can be undone on a device or FIFO). */
void           cml_atomic_file_abort          (CmlAtomicFile      *file);
/* Aborts unless committed. */
void           cml_atomic_file_free           (CmlAtomicFile      *file);

/* DATA (SIZE bytes) to PATH all or nothing, with the rules above. */
gboolean       cml_atomic_file_set_contents   (const char         *path,
                                               const void         *data,
                                               gsize               size,
                                               GError            **error);

/* The same with FLAGS (CML_ATOMIC_FILE_UNSYNCED; not EXTERNAL). */
gboolean       cml_atomic_file_set_contents_full (const char         *path,
                                                  const void         *data,
                                                  gsize               size,
                                                  CmlAtomicFileFlags  flags,
                                                  GError            **error);

/* The same into the directory DIRFD (a cache's, checked by its opener): NAME is reached
 * only through DIRFD — a temporary created there (O_EXCL, mode 0600) and renamed over
 * NAME, which replaces a link or anything else named NAME, never follows it.  Errors name
 * NAME. */
gboolean       cml_atomic_file_set_contents_at (int                 dirfd,
                                                const char         *name,
                                                const void         *data,
                                                gsize               size,
                                                CmlAtomicFileFlags  flags,
                                                GError            **error);
/* A new temporary for NAME in DIRFD (O_EXCL, 0600), its name in *TMP_NAME: a descriptor,
 * or -1 with errno set.  The caller renames it (renameat) or removes it (unlinkat). */
int            cml_atomic_file_create_temporary_at (int          dirfd,
                                                    const char  *name,
                                                    char       **tmp_name);

/* Whether BASENAME is one of our temporaries (of this version or an earlier one); its
 * writer's PID in *PID (may be NULL). */
gboolean       cml_atomic_file_is_temporary   (const char         *basename,
                                               GPid               *pid);
/* Whether the temporary BASENAME was written on this host, since this boot, in this PID
 * namespace: its PID is one of ours. */
gboolean       cml_atomic_file_temporary_is_local (const char     *basename);
/* "HOST-BOOT-PIDNS" as this process writes it in its temporaries' names. */
const char    *cml_atomic_file_origin         (void);
/* Removes, in DIR, our temporaries (owned by us, regular files) whose writer is gone (see
 * above); the number removed.  cml_atomic_file_new() does it once per directory and
 * process. */
guint          cml_atomic_file_clean_stale    (const char         *dir);
guint          cml_atomic_file_clean_stale_at (int                 dirfd);

/* Interruptions while a file is being written.  Between hold and release, SIGINT,
 * SIGTERM and SIGHUP only set a flag (cml_atomic_file_interrupted() returns the signal
 * number), which the writing loop checks: it stops and aborts its file.  The last
 * release puts the previous handlers back and, if a signal came, raises it again, so the
 * process ends as it would have — without a temporary file left behind.  Holds nest. */
void           cml_atomic_file_hold_signals    (void);
void           cml_atomic_file_release_signals (void);
int            cml_atomic_file_interrupted     (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlAtomicFile, cml_atomic_file_free)

G_END_DECLS
