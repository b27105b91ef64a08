/* test-atomic-file.c — the one way cmlab writes files (cml-atomic-file.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The command-line tests (tests/cli/test-cli.c) run the rules through `simulate -o`:
 * FIFOs, devices, symbolic links, read-only files, directories, interruptions, stale
 * temporaries.  Here: the parts a command does not show on its own.
 */
#define G_LOG_DOMAIN "test-atomic-file"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"

static char *tmpdir;

static guint
count_entries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name (d))
    n++;
  return n;
}

static void
test_temporary_names (void)
{
  GPid pid = 0;

  g_assert_true (cml_atomic_file_is_temporary (".out.csv.cmlab-tmp-123-aB3dE6", &pid));
  g_assert_cmpint (pid, ==, 123);
  /* a name that itself contains the mark: the last one counts */
  g_assert_true (cml_atomic_file_is_temporary (".a.cmlab-tmp-1-x.cmlab-tmp-77-zzzzzz", &pid));
  g_assert_cmpint (pid, ==, 77);
  g_assert_false (cml_atomic_file_is_temporary ("out.csv.cmlab-tmp-123-aB3dE6", NULL));  /* not hidden */
  g_assert_false (cml_atomic_file_is_temporary (".out.csv.cmlab-tmp-x-aB3dE6", NULL));   /* no PID */
  g_assert_false (cml_atomic_file_is_temporary (".out.csv.cmlab-tmp-123-aB3d", NULL));   /* short */
  g_assert_false (cml_atomic_file_is_temporary (".out.csv.cmlab-tmp-0-aB3dE6", NULL));   /* PID 0 */
  g_assert_false (cml_atomic_file_is_temporary (".out.csv.cmlab-tmp-99999999999-aB3dE6", NULL));
  g_assert_false (cml_atomic_file_is_temporary (".out.csv", NULL));
}

/* A name near the longest a file name may be still gets a temporary beside it. */
static void
test_long_name (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) base = g_string_new (NULL);
  while (base->len < 240)
    g_string_append (base, "é");  /* two bytes: the cut must fall between characters */
  g_string_append (base, ".csv");
  g_autofree char *path = g_build_filename (tmpdir, base->str, NULL);

  g_assert_true (cml_atomic_file_set_contents (path, "x\n", 2, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (count_entries (tmpdir), ==, 1);
  g_unlink (path);
}

/* Abort (and free without commit) leaves nothing; commit gives the file its name. */
static void
test_abort_and_commit (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "data.txt", NULL);

  {
    g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, CML_ATOMIC_FILE_DEFAULT, &error);
    g_assert_no_error (error);
    FILE *fp = cml_atomic_file_get_stream (f);
    g_assert_nonnull (fp);
    fputs ("half", fp);
    g_assert_false (cml_atomic_file_is_direct (f));
    /* dropped here */
  }
  g_assert_cmpuint (count_entries (tmpdir), ==, 0);
  {
    g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, CML_ATOMIC_FILE_DEFAULT, &error);
    g_autofree char *text = NULL;
    fputs ("whole\n", cml_atomic_file_get_stream (f));
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    g_assert_true (cml_atomic_file_commit (f, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_assert_cmpstr (text, ==, "whole\n");
  }
  g_assert_cmpuint (count_entries (tmpdir), ==, 1);
  g_unlink (path);
}

/* Another program writing by name (a linker makes a new file): the replaced file's mode
 * is kept all the same. */
static void
test_external_keeps_mode (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (tmpdir, "video.bin", NULL);
  GStatBuf st;

  g_assert_true (g_file_set_contents (path, "old", -1, NULL));
  g_assert_cmpint (g_chmod (path, 0604), ==, 0);
  g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, CML_ATOMIC_FILE_EXTERNAL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cml_atomic_file_get_fd (f), ==, -1);
  const char *w = cml_atomic_file_get_write_path (f);
  g_assert_nonnull (w);
  g_assert_cmpint (g_unlink (w), ==, 0);  /* as a linker does */
  g_assert_true (g_file_set_contents (w, "new", -1, NULL));
  g_assert_true (cml_atomic_file_commit (f, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0604);
  g_assert_cmpuint (count_entries (tmpdir), ==, 1);
  g_unlink (path);
}

/* Between hold and release a signal only sets the flag; the release delivers it, so the
 * process ends by it as it would have. */
static void
test_signals (void)
{
  if (g_test_subprocess ())
    {
      cml_atomic_file_hold_signals ();
      cml_atomic_file_hold_signals ();  /* nested */
      g_assert_cmpint (cml_atomic_file_interrupted (), ==, 0);
      raise (SIGTERM);
      g_assert_cmpint (cml_atomic_file_interrupted (), ==, SIGTERM);
      cml_atomic_file_release_signals ();
      printf ("still here after the inner release\n");
      fflush (stdout);
      cml_atomic_file_release_signals ();
      printf ("not reached\n");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout ("still here after the inner release\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("cmlab-atomic-XXXXXX", NULL);
  g_test_add_func ("/core/atomic-file/temporary-names", test_temporary_names);
  g_test_add_func ("/core/atomic-file/long-name", test_long_name);
  g_test_add_func ("/core/atomic-file/abort-and-commit", test_abort_and_commit);
  g_test_add_func ("/core/atomic-file/external-keeps-mode", test_external_keeps_mode);
  g_test_add_func ("/core/atomic-file/signals", test_signals);
  int status = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
}
