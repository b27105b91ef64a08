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
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "../test-tmp.h"

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

/* ---- temporaries only their writer removes ------------------------------------------- */

/* A PID that is not alive here: a child that has exited and been reaped. */
static GPid
dead_pid (void)
{
  const char *argv[] = { "/bin/true", NULL };
  GPid pid;
  int status;
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_cmpint (kill (pid, 0), ==, -1);
  return pid;
}

/* A temporary of ours is `.NAME.cmlab-tmp-HOST-BOOT-PIDNS-PID-XXXXXX`: its writer's PID is
 * read back, and it is local only with our host, boot and PID namespace. */
static void
test_origin_names (void)
{
  const char *origin = cml_atomic_file_origin ();
  g_auto (GStrv) parts = g_strsplit (origin, "-", -1);
  GPid pid = 0;

  g_test_message ("our origin: %s", origin);
  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  g_assert_cmpuint (strlen (parts[1]), ==, 8);
  g_assert_cmpuint (strspn (parts[2], "0123456789"), ==, strlen (parts[2]));

  g_autofree char *ours = g_strdup_printf (".out.csv.cmlab-tmp-%s-4321-aB3dE6", origin);
  g_assert_true (cml_atomic_file_is_temporary (ours, &pid));
  g_assert_cmpint (pid, ==, 4321);
  g_assert_true (cml_atomic_file_temporary_is_local (ours));

  /* another host, boot or PID namespace; an earlier version's name: not local */
  g_autofree char *host = g_strdup_printf (".out.csv.cmlab-tmp-node17.cluster-%s-%s-4321-aB3dE6", parts[1], parts[2]);
  g_autofree char *boot = g_strdup_printf (".out.csv.cmlab-tmp-%s-%s-%s-4321-aB3dE6", parts[0],
                                           g_str_equal (parts[1], "0badcafe") ? "0badcaff" : "0badcafe", parts[2]);
  g_autofree char *ns = g_strdup_printf (".out.csv.cmlab-tmp-%s-%s-1%s-4321-aB3dE6", parts[0], parts[1], parts[2]);
  const char *const others[] = { host, boot, ns, ".out.csv.cmlab-tmp-4321-aB3dE6" };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      pid = 0;
      g_assert_true (cml_atomic_file_is_temporary (others[i], &pid));
      g_assert_cmpint (pid, ==, 4321);
      g_assert_false (cml_atomic_file_temporary_is_local (others[i]));
    }
  /* not ours: a malformed origin */
  g_assert_false (cml_atomic_file_is_temporary (".o.cmlab-tmp-h-0123456x-5-4321-aB3dE6", NULL)); /* boot */
  g_assert_false (cml_atomic_file_is_temporary (".o.cmlab-tmp-h-01234567-x5-4321-aB3dE6", NULL)); /* namespace */
  g_assert_false (cml_atomic_file_is_temporary (".o.cmlab-tmp-h$(x)-01234567-5-4321-aB3dE6", NULL)); /* host */
  g_assert_false (cml_atomic_file_is_temporary (".o.cmlab-tmp--01234567-5-4321-aB3dE6", NULL));     /* no host */
  g_assert_false (cml_atomic_file_is_temporary (".o.cmlab-tmp-h-01234567-5-0-aB3dE6", NULL));       /* PID 0 */

  /* what a write makes is such a name, local */
  {
    g_autoptr (GError) error = NULL;
    g_autofree char *path = g_build_filename (tmpdir, "local.txt", NULL);
    g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, CML_ATOMIC_FILE_DEFAULT, &error);
    g_assert_no_error (error);
    g_autofree char *base = g_path_get_basename (cml_atomic_file_get_write_path (f));
    g_assert_true (cml_atomic_file_is_temporary (base, &pid));
    g_assert_cmpint (pid, ==, getpid ());
    g_assert_true (cml_atomic_file_temporary_is_local (base));
  }
  g_assert_cmpuint (count_entries (tmpdir), ==, 0);
}

/* The cleaner removes a temporary of a dead PID only when the PID is one of ours (same
 * host, boot and PID namespace); any other only after a week without a write. */
static void
test_clean_rule (void)
{
  const char *origin = cml_atomic_file_origin ();
  g_auto (GStrv) parts = g_strsplit (origin, "-", -1);
  g_autofree char *dir = g_build_filename (tmpdir, "clean", NULL);
  GPid dead = dead_pid ();
  struct timespec old[2] = { { time (NULL) - 8 * 24 * 3600, 0 }, { time (NULL) - 8 * 24 * 3600, 0 } };

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_autofree char *ours_dead = g_strdup_printf (".a.cmlab-tmp-%s-%d-aaaaaa", origin, (int) dead);
  g_autofree char *ours_live = g_strdup_printf (".a.cmlab-tmp-%s-%d-bbbbbb", origin, (int) getppid ());
  g_autofree char *ns_dead = g_strdup_printf (".a.cmlab-tmp-%s-%s-1%s-%d-cccccc", parts[0], parts[1], parts[2], (int) dead);
  g_autofree char *host_dead = g_strdup_printf (".a.cmlab-tmp-elsewhere-%s-%s-%d-dddddd", parts[1], parts[2], (int) dead);
  g_autofree char *old_style = g_strdup_printf (".a.cmlab-tmp-%d-eeeeee", (int) dead);
  g_autofree char *ns_week = g_strdup_printf (".b.cmlab-tmp-%s-%s-1%s-%d-ffffff", parts[0], parts[1], parts[2], (int) dead);
  g_autofree char *old_week = g_strdup_printf (".b.cmlab-tmp-%d-gggggg", (int) dead);
  const char *const kept[] = { ours_live, ns_dead, host_dead, old_style };
  const char *const gone[] = { ours_dead, ns_week, old_week };

  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autofree char *p = g_build_filename (dir, kept[i], NULL);
      g_assert_true (g_file_set_contents (p, "partial", -1, NULL));
    }
  for (guint i = 0; i < G_N_ELEMENTS (gone); i++)
    {
      g_autofree char *p = g_build_filename (dir, gone[i], NULL);
      g_assert_true (g_file_set_contents (p, "partial", -1, NULL));
      if (i > 0)
        g_assert_cmpint (utimensat (AT_FDCWD, p, old, 0), ==, 0);
    }
  g_assert_cmpuint (cml_atomic_file_clean_stale (dir), ==, G_N_ELEMENTS (gone));
  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autofree char *p = g_build_filename (dir, kept[i], NULL);
      g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
      g_unlink (p);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* This test's own executable, to run as a writer elsewhere. */
static char *self_exe;

/* The writer (run as `test-atomic-file --writer PATH`): starts writing PATH, says the
 * temporary's name on standard output, and commits when its standard input ends. */
static int
run_writer (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlAtomicFile) f = cml_atomic_file_new (path, CML_ATOMIC_FILE_DEFAULT, &error);
  char buf[64];

  if (f == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  fputs ("shard 1 of 2\n", cml_atomic_file_get_stream (f));
  fflush (cml_atomic_file_get_stream (f));
  printf ("%s\n", cml_atomic_file_get_write_path (f));
  fflush (stdout);
  while (fgets (buf, sizeof buf, stdin) != NULL)
    ;
  if (!cml_atomic_file_commit (f, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  return 0;
}

/* A shard written by a process in another PID namespace (a container, another node of a
 * cluster: its PID means nothing here, and is dead here) is not removed by a concurrent
 * writer into the same folder; it is complete when its writer commits.  Before, the
 * cleaner took the PID for one of ours, found it dead and removed the shard's temporary:
 * "writing shared/part-1.csv failed: No such file or directory". */
static void
test_other_pid_namespace (void)
{
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  g_autofree char *dir = g_build_filename (tmpdir, "shared", NULL);
  g_autofree char *part1 = g_build_filename (dir, "part-1.csv", NULL);
  g_autofree char *part2 = g_build_filename (dir, "part-2.csv", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  int status = 0;

  if (geteuid () != 0)
    {
      g_test_skip ("a PID namespace of its own needs root (unshare --pid)");
      return;
    }
  if (unshare == NULL)
    {
      g_test_skip ("no unshare(1) here");
      return;
    }
  {
    const char *probe[] = { unshare, "--pid", "--fork", "--mount-proc", "true", NULL };
    if (!g_spawn_sync (NULL, (char **) probe, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
                       NULL)
        || !g_spawn_check_wait_status (status, NULL))
      {
        g_test_skip ("unshare --pid --fork --mount-proc does not work here (a container without the right)");
        return;
      }
  }
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  /* the writer gets, in its namespace, a PID that is dead in ours (a node's PIDs are
   * anything here): the namespace's next PID is set before it starts */
  g_autofree char *last = g_strdup_printf ("%d", (int) dead_pid () - 1);
  const char *argv[] = { unshare, "--pid", "--fork", "--mount-proc", "sh", "-c",
                         "echo \"$1\" > /proc/sys/kernel/ns_last_pid 2>/dev/null; \"$2\" --writer \"$3\"; exit $?",
                         "sh", last, self_exe, part1, NULL };
  GPid pid;
  int in_fd, out_fd;
  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
                                           &in_fd, &out_fd, NULL, &error));
  g_assert_no_error (error);

  /* the writer's temporary, as it names it (bounded: 120 s) */
  GString *line = g_string_new (NULL);
  {
    gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
    while (!strchr (line->str, '\n') && g_get_monotonic_time () < deadline)
      {
        struct pollfd pfd = { out_fd, POLLIN, 0 };
        char c[256];
        if (poll (&pfd, 1, 1000) <= 0)
          continue;
        ssize_t n = read (out_fd, c, sizeof c);
        if (n <= 0)
          break;
        g_string_append_len (line, c, n);
      }
  }
  g_assert_nonnull (strchr (line->str, '\n'));
  g_strstrip (line->str);
  g_autofree char *tmp = g_build_filename (dir, line->str + strlen (line->str) - strlen (strrchr (line->str, '/') + 1), NULL);
  g_string_free (line, TRUE);
  g_autofree char *tmp_base = g_path_get_basename (tmp);
  GPid writer = 0;
  g_assert_true (cml_atomic_file_is_temporary (tmp_base, &writer));
  g_test_message ("the writer's temporary: %s (its PID %d is %s here)", tmp_base, (int) writer,
                  kill (writer, 0) == 0 ? "alive" : "dead");
  g_assert_true (g_file_test (tmp, G_FILE_TEST_IS_REGULAR));

  /* another writer, here, into the same folder */
  g_assert_true (cml_atomic_file_set_contents (part2, "shard 2 of 2\n", strlen ("shard 2 of 2\n"), &error));
  g_assert_no_error (error);
  cml_atomic_file_clean_stale (dir);
  g_assert_true (g_file_test (tmp, G_FILE_TEST_IS_REGULAR));

  /* the first shard's writer finishes */
  close (in_fd);
  close (out_fd);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_true (g_file_get_contents (part1, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "shard 1 of 2\n");
  g_assert_cmpuint (count_entries (dir), ==, 2);
  g_unlink (part1);
  g_unlink (part2);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--writer"))
    return run_writer (argv[2]);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_test_init (&argc, &argv, NULL);
  /* (not in /core/atomic-file/signals' subprocess, which ends by a signal and needs none) */
  if (!g_test_subprocess ())
    tmpdir = test_tmp_dir_new ("cmlab-atomic-XXXXXX");
  g_test_add_func ("/core/atomic-file/temporary-names", test_temporary_names);
  g_test_add_func ("/core/atomic-file/long-name", test_long_name);
  g_test_add_func ("/core/atomic-file/abort-and-commit", test_abort_and_commit);
  g_test_add_func ("/core/atomic-file/external-keeps-mode", test_external_keeps_mode);
  g_test_add_func ("/core/atomic-file/signals", test_signals);
  g_test_add_func ("/core/atomic-file/origin-names", test_origin_names);
  g_test_add_func ("/core/atomic-file/clean-rule", test_clean_rule);
  g_test_add_func ("/core/atomic-file/other-pid-namespace", test_other_pid_namespace);
  int status = g_test_run ();
  if (tmpdir != NULL)
    test_tmp_remove (tmpdir);
  g_free (tmpdir);
  return status;
}
