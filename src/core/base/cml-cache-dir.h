/* cml-cache-dir.h — a private cache directory: where it is, whether it is ours alone, how
 * it is kept under a size limit, and the 64-bit key of a text.  Shared by the caches of
 * model titles (cml-model-titles.c), derived systems (cml-system-cache.c) and native code
 * (cml-native.c).
 *
 * The directory is opened once (O_DIRECTORY | O_NOFOLLOW) and checked on that descriptor
 * (fstat: a directory, ours, not writable by group or others); everything inside is
 * reached from the descriptor by openat (O_NOFOLLOW), so swapping the directory or an entry
 * for a link after the check changes nothing we read or write.  An entry is read only when
 * it is a regular file, and never more than a cap: a symbolic link, a FIFO, a device or a
 * file larger than the cap is as good as absent.  Writes go through a temporary created in
 * the directory and renamed over the name (cml_atomic_file_set_contents_at): a link in
 * the cache is replaced, never followed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* The cache directory: $ENV when it is set and not empty, else
 * $XDG_CACHE_HOME/cmlab/LEAF.  Nothing is created. */
char       *cml_cache_dir_path     (const char *env, const char *leaf);

/* Makes DIR (0700) if needed and checks that it is ours only: a directory, not a symbolic
 * link, owned by us, not writable by group or others.  NULL when it is; otherwise why not,
 * in words (*CANNOT_CREATE set when DIR could not be made). */
const char *cml_cache_dir_unusable (const char *dir, gboolean *cannot_create);

/* Opens DIR (made 0700 if needed, with its parents) as a directory descriptor checked as
 * above: the descriptor, or -1 with *WHY set (in words; *CANNOT_CREATE when DIR could not
 * be made). */
int         cml_cache_dir_open_fd  (const char *dir, const char **why, gboolean *cannot_create);

/* The regular file NAME of the directory DIRFD opened for reading (no link followed, no
 * wait on a FIFO) when it holds at most CAP bytes; its status in *ST (may be NULL).  -1
 * otherwise, with errno set (ELOOP: a link, EFBIG: over the cap, EINVAL: not a regular
 * file). */
int         cml_cache_open_file    (int dirfd, const char *name, guint64 cap, struct stat *st);

/* The bytes of the descriptor FD (from its start), NUL-terminated, when there are at most
 * CAP; NULL otherwise.  *LEN (may be NULL) gets their number. */
char       *cml_cache_read_fd      (int fd, gsize cap, gsize *len);

/* cml_cache_open_file () and cml_cache_read_fd (): NAME's bytes, or NULL. */
char       *cml_cache_read_at      (int dirfd, const char *name, gsize cap, gsize *len);

/* The same for the file PATH of a cache directory (its directory opened and checked as
 * above each time): NULL when the directory is not ours only or the file is not there,
 * not regular or over CAP bytes. */
char       *cml_cache_read         (const char *path, gsize cap, gsize *len);

/* Writes DATA (SIZE bytes) as the file PATH of a cache directory (opened and checked as
 * above), unsynced (CML_ATOMIC_FILE_UNSYNCED): a temporary in the directory renamed over
 * the name, which replaces a link there rather than following it. */
gboolean    cml_cache_write        (const char *path, const void *data, gsize size, GError **error);

/* DIR (cml_cache_dir_path) when cml_cache_dir_unusable() finds nothing against it, else
 * NULL (the reason goes to the debug log). */
char       *cml_cache_dir_open     (const char *env, const char *leaf);

/* A positive whole number from the environment variable ENV (a size limit in bytes, a
 * time limit in seconds), else DEF. */
guint64     cml_cache_env_number   (const char *env, guint64 def);

/* Removes the least recently used files of DIR whose names end in SUFFIX (by modification
 * time, which a cache hit renews) until everything in DIR fits LIMIT bytes; the file KEEP
 * (a path, or NULL) stays, and so do the temporary files of writes under way.  Only
 * regular files count and go. */
void        cml_cache_dir_trim     (const char *dir, const char *suffix, guint64 limit, const char *keep);
/* The same in the directory DIRFD, KEEP a name in it (or NULL). */
void        cml_cache_dir_trim_at  (int dirfd, const char *suffix, guint64 limit, const char *keep);

/* Marks the file PATH as used now (its modification time): the last to be trimmed.  A
 * symbolic link is not followed. */
void        cml_cache_touch        (const char *path);
void        cml_cache_touch_at     (int dirfd, const char *name);

/* A 64-bit key of LEN bytes, not a defence (the directory is ours alone): FNV-1a taken
 * eight bytes at a time.  Two texts of the same length that differ in one word always
 * differ in their keys. */
guint64     cml_cache_hash64       (const void *data, gsize len);

G_END_DECLS
