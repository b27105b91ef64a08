/* cml-dir-stream.h — a directory read through a descriptor of its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <dirent.h>

/* A stream of the entries of the open directory DIRFD, read through a new descriptor of
 * the same directory (reading it moves no offset that DIRFD shares; DIRFD stays open and
 * the caller's).  NULL (errno set) when it cannot be opened.  Close with closedir(). */
DIR *cml_dir_stream_at (int dirfd);
