/* test-cache-cli.c — cmlab-cli with caches turned against their user (cml-cache-dir.c,
 * cml-native.c, cml-atomic-file.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The three caches (native code, derived systems, model titles) live in a directory of
 * the test; their entries are then replaced by what a restored or synced ~/.cache, a
 * mistake or another user could leave there: a memo naming another model's object,
 * symbolic links to files outside, FIFOs, endless or huge files.  Every run must print
 * the numbers of a clean run, in bounded time and memory, and leave the outside files as
 * they were.  And a compiler started by cmlab-cli ends when cmlab-cli is killed.
 */
#define G_LOG_DOMAIN "test-cache-cli"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli-util.h"
#include "cml-native.h"

#define RUN_SECONDS 240                        /* a run still going then has hung */
#define RUN_MEMORY  (G_GUINT64_CONSTANT (4) << 30) /* bytes of address space for a run */
#define RUN_RSS_KB  (1024 * 1024)              /* the most memory a run may have touched */

static const char *const cache_envs[] = { "CMLAB_NATIVE_CACHE", "CMLAB_DERIVED_CACHE", "CMLAB_TITLES_CACHE" };
static const char *const cache_leaves[] = { "native", "derived", "titles" };

/* A new directory ROOT with the three caches in it, set in our environment (which the
 * runs inherit); memo checks off, as for a user. */
static char *
caches_new (void)
{
  char *root = cli_make_temp_dir ();

  for (guint i = 0; i < G_N_ELEMENTS (cache_envs); i++)
    {
      g_autofree char *d = g_build_filename (root, cache_leaves[i], NULL);
      g_setenv (cache_envs[i], d, TRUE);
    }
  g_unsetenv ("CMLAB_NATIVE_MEMO_CHECK");
  return root;
}

static char *
cache_dir (const char *root, guint which)
{
  return g_build_filename (root, cache_leaves[which], NULL);
}

/* Runs in the child: at most RUN_MEMORY of address space (a run that reads an endless
 * file fails there rather than taking the machine's memory). */
static void
limit_memory (gpointer unused)
{
#if !defined(__SANITIZE_ADDRESS__)
  /* (AddressSanitizer reserves terabytes of address space for its shadow: under it the
   * reads' own caps are what the endless files meet) */
  struct rlimit lim = { RUN_MEMORY, RUN_MEMORY };
  setrlimit (RLIMIT_AS, &lim);
#endif
}

/* Runs cmlab-cli with ARGS (NULL-terminated), bounded in time and memory: the exit status,
 * or -1 when it was killed at the time limit or died of a signal. */
static int
run_bounded (char **out, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_ptr_array_add (argv, g_strdup ("timeout"));
  g_ptr_array_add (argv, g_strdup ("-s"));
  g_ptr_array_add (argv, g_strdup ("KILL"));
  g_ptr_array_add (argv, g_strdup_printf ("%d", RUN_SECONDS));
  g_ptr_array_add (argv, g_strdup (cli_path ()));
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  gint64 t0 = g_get_monotonic_time ();
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL,
                               G_SPAWN_SEARCH_PATH | (out ? 0 : G_SPAWN_STDOUT_TO_DEV_NULL), limit_memory, NULL, out,
                               &err, &status, &error));
  g_assert_no_error (error);
  cli_message ("%s %s: wait status 0x%x after %.1f s%s%s", cli_path (), args[0], status,
                  (g_get_monotonic_time () - t0) / 1e6, err && *err ? "; standard error:\n" : "", err ? err : "");
  if (!WIFEXITED (status) || WEXITSTATUS (status) == 128 + SIGKILL || WEXITSTATUS (status) == 128 + SIGABRT)
    return -1;
  return WEXITSTATUS (status);
}

/* A model's numbers (simulate), or its run's status when it is not 0. */
static char *
simulate (const char *model)
{
  const char *args[] = { "simulate", model, "--t-end", "1", "--dt-out", "0.25", NULL };
  char *out = NULL;
  int status = run_bounded (&out, args);
  if (status != 0)
    {
      g_free (out);
      return g_strdup_printf ("exit status %d", status);
    }
  return out;
}

/* The names in DIR ending in SUFFIX. */
static GPtrArray *
entries_ending (const char *dir, const char *suffix)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;
  while (d && (e = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (e, suffix) && e[0] != '.')
      g_ptr_array_add (names, g_strdup (e));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  return names;
}

static gboolean
native_or_skip (void)
{
  if (cml_native_available ())
    return TRUE;
  g_test_skip ("no C compiler: native code cannot be built here");
  return FALSE;
}

/* ---- a memo naming another model's object ---------------------------------------------- */

/* The functions the C source of the object a memo (in DIR) names defines, as one string. */
static char *
memo_functions (const char *dir, const char *memo)
{
  g_autofree char *path = g_build_filename (dir, memo, NULL), *line = NULL, *src = NULL, *c = NULL;
  g_autoptr (GRegex) re = g_regex_new ("^(?:void|int) (cml_\\w+) \\(", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) m = NULL;
  g_autoptr (GString) names = g_string_new (NULL);

  g_assert_true (g_file_get_contents (path, &line, NULL, NULL));
  g_strstrip (line);
  c = g_strconcat (line, ".c", NULL);
  src = g_build_filename (dir, c, NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  for (g_regex_match (re, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL))
    {
      g_autofree char *name = g_match_info_fetch (m, 1);
      g_string_append_printf (names, "%s ", name);
    }
  return g_string_free (g_steal_pointer (&names), FALSE);
}

/* The memos of DIR not in BEFORE. */
static GPtrArray *
new_memos (const char *dir, GPtrArray *before)
{
  GPtrArray *all = entries_ending (dir, ".key");
  for (guint i = all->len; i-- > 0;)
    for (guint j = 0; j < before->len; j++)
      if (g_str_equal (all->pdata[i], before->pdata[j]))
        {
          g_ptr_array_remove_index (all, i);
          break;
        }
  return all;
}

/* Every memo of rolling-ball names heavy-top's object of the same functions, and the other
 * way round, each object with its own valid digest: both models still print their own
 * numbers (before, rolling-ball printed heavy-top's and heavy-top died of SIGSEGV). */
static void
test_memo_of_another_model (void)
{
  if (!native_or_skip ())
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *ndir = cache_dir (root, 0);
  g_autoptr (GPtrArray) none = g_ptr_array_new ();
  g_autofree char *ref_rb = simulate ("rolling-ball");
  g_autoptr (GPtrArray) rb = new_memos (ndir, none);
  g_autofree char *ref_ht = simulate ("heavy-top");
  g_autoptr (GPtrArray) ht = new_memos (ndir, rb);
  guint swapped = 0;

  g_assert_true (g_str_has_prefix (ref_rb, "# cmlab rolling-ball"));
  g_assert_true (g_str_has_prefix (ref_ht, "# cmlab heavy-top"));
  g_assert_cmpuint (rb->len, >, 0);
  g_assert_cmpuint (ht->len, >, 0);
  for (guint i = 0; i < rb->len; i++)
    for (guint j = 0; j < ht->len; j++)
      {
        g_autofree char *fa = memo_functions (ndir, rb->pdata[i]);
        g_autofree char *fb = memo_functions (ndir, ht->pdata[j]);
        if (!g_str_equal (fa, fb))
          continue;
        g_autofree char *pa = g_build_filename (ndir, rb->pdata[i], NULL);
        g_autofree char *pb = g_build_filename (ndir, ht->pdata[j], NULL);
        g_autofree char *ta = NULL, *tb = NULL;
        g_assert_true (g_file_get_contents (pa, &ta, NULL, NULL));
        g_assert_true (g_file_get_contents (pb, &tb, NULL, NULL));
        g_assert_true (g_file_set_contents (pa, tb, -1, NULL));
        g_assert_true (g_file_set_contents (pb, ta, -1, NULL));
        cli_message ("memos %s and %s exchanged (%s)", (char *) rb->pdata[i], (char *) ht->pdata[j], fa);
        swapped++;
        break;
      }
  g_assert_cmpuint (swapped, >, 0);
  for (int round = 0; round < 2; round++)
    {
      g_autofree char *rb2 = simulate ("rolling-ball");
      g_autofree char *ht2 = simulate ("heavy-top");
      g_assert_cmpstr (rb2, ==, ref_rb);
      g_assert_cmpstr (ht2, ==, ref_ht);
    }
  test_tmp_remove (root);
}

/* ---- links, FIFOs and endless files in the caches ------------------------------------ */

/* Fills the three caches: a run of rolling-ball and the list of models. */
static char *
fill_caches (const char *root)
{
  const char *list[] = { "list", NULL };
  char *ref = simulate ("rolling-ball");
  g_autofree char *out = NULL;

  g_assert_true (g_str_has_prefix (ref, "# cmlab rolling-ball"));
  g_assert_cmpint (run_bounded (&out, list), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (cache_leaves); i++)
    {
      g_autofree char *d = cache_dir (root, i);
      g_assert_cmpuint (cli_count_entries (d), >, 0);
    }
  return ref;
}

typedef void (*Replace) (const char *path, gpointer data);

/* Calls REPLACE on every entry of the three caches with one of SUFFIXES; the number. */
static guint
replace_entries (const char *root, const char *const *suffixes, Replace replace, gpointer data)
{
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cache_leaves); i++)
    {
      g_autofree char *d = cache_dir (root, i);
      for (guint k = 0; suffixes[k]; k++)
        {
          g_autoptr (GPtrArray) names = entries_ending (d, suffixes[k]);
          for (guint j = 0; j < names->len; j++)
            {
              /* ".so" also ends ".so.sha256"'s stem: exact suffixes only */
              const char *name = names->pdata[j];
              const char *dot = strchr (name, '.');
              if (dot == NULL || !g_str_equal (dot, suffixes[k]))
                continue;
              g_autofree char *p = g_build_filename (d, name, NULL);
              g_assert_cmpint (g_unlink (p), ==, 0);
              replace (p, data);
              n++;
            }
        }
    }
  return n;
}

/* A link to a new file outside the caches ("mine", in the directory DATA). */
static void
link_outside (const char *path, gpointer data)
{
  static guint k;
  g_autofree char *name = g_strdup_printf ("victim-%u.txt", k++);
  g_autofree char *victim = g_build_filename (data, name, NULL);
  g_assert_true (g_file_set_contents (victim, "mine\n", -1, NULL));
  g_assert_cmpint (symlink (victim, path), ==, 0);
}

static void
make_fifo (const char *path, gpointer data)
{
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
}

static void
link_dev_zero (const char *path, gpointer data)
{
  g_assert_cmpint (symlink ("/dev/zero", path), ==, 0);
}

/* A sparse file of a tebibyte. */
static void
make_huge (const char *path, gpointer data)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 40), ==, 0);
  close (fd);
}

static const char *const every_entry[] = { ".c", ".so", ".so.sha256", ".key", ".sys", ".titles", NULL };
/* what a run writes: the objects gone, their sources, digests and memos links */
static const char *const written_entries[] = { ".c", ".so.sha256", ".key", ".sys", ".titles", NULL };

/* Cache entries that are links to files outside (a source, a digest, a memo, a derived
 * system, the titles), their objects gone so that they are all written again: the
 * outside files are not modified (before, each was replaced by the cache's text). */
static void
test_links_outside (void)
{
  if (!native_or_skip ())
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *ref = fill_caches (root);
  g_autofree char *outside = g_build_filename (root, "outside", NULL);
  g_assert_cmpint (g_mkdir (outside, 0700), ==, 0);
  {
    /* the objects go: the next run compiles, and writes every file beside them */
    g_autofree char *ndir = cache_dir (root, 0);
    g_autoptr (GPtrArray) so = entries_ending (ndir, ".so");
    for (guint i = 0; i < so->len; i++)
      {
        g_autofree char *p = g_build_filename (ndir, so->pdata[i], NULL);
        g_assert_cmpint (g_unlink (p), ==, 0);
      }
  }
  guint n = replace_entries (root, written_entries, link_outside, outside);
  cli_message ("%u entries made links", n);
  g_assert_cmpuint (n, >=, 7);

  g_autofree char *again = simulate ("rolling-ball");
  g_assert_cmpstr (again, ==, ref);
  const char *list[] = { "list", NULL };
  g_assert_cmpint (run_bounded (NULL, list), ==, 0);

  g_autoptr (GDir) d = g_dir_open (outside, 0, NULL);
  const char *e;
  guint victims = 0;
  while ((e = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (outside, e, NULL), *text = NULL;
      GStatBuf st;
      g_assert_cmpint (g_lstat (p, &st), ==, 0);
      g_assert_true (S_ISREG (st.st_mode));
      g_assert_true (g_file_get_contents (p, &text, NULL, NULL));
      if (!g_str_equal (text, "mine\n"))
        g_error ("%s, outside the caches, was written through a link in a cache (%zu bytes now)", p, strlen (text));
      victims++;
    }
  g_assert_cmpuint (victims, ==, n);
  /* and a third run finds its caches again */
  g_autofree char *third = simulate ("rolling-ball");
  g_assert_cmpstr (third, ==, ref);
  test_tmp_remove (root);
}

/* Every cache entry a FIFO: runs neither hang nor fail (before, every run waited for a
 * writer that never came). */
static void
test_fifos (void)
{
  if (!native_or_skip ())
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *ref = fill_caches (root);
  g_assert_cmpuint (replace_entries (root, every_entry, make_fifo, NULL), >=, 8);
  g_autofree char *again = simulate ("rolling-ball");
  g_assert_cmpstr (again, ==, ref);
  const char *list[] = { "list", NULL };
  g_assert_cmpint (run_bounded (NULL, list), ==, 0);
  test_tmp_remove (root);
}

/* The most memory any run so far has touched (and the compilers it waited for), in KiB. */
static long
runs_max_rss (void)
{
  struct rusage ru;
  g_assert_cmpint (getrusage (RUSAGE_CHILDREN, &ru), ==, 0);
  return ru.ru_maxrss;
}

/* Every cache entry endless (a link to /dev/zero) or huge (a sparse tebibyte): read only
 * up to a cap, runs end with the right numbers and touch less than a gibibyte (before, a
 * run read /dev/zero until its memory ran out, here the 4 GiB it was given). */
static void
test_endless (void)
{
  if (!native_or_skip ())
    return;
  for (int kind = 0; kind < 2; kind++)
    {
      g_autofree char *root = caches_new ();
      g_autofree char *ref = fill_caches (root);
      g_assert_cmpuint (replace_entries (root, every_entry, kind == 0 ? link_dev_zero : make_huge, NULL), >=, 8);
      g_autofree char *again = simulate ("rolling-ball");
      g_assert_cmpstr (again, ==, ref);
      const char *list[] = { "list", NULL };
      g_assert_cmpint (run_bounded (NULL, list), ==, 0);
      cli_message ("the most memory a run touched: %ld KiB", runs_max_rss ());
      g_assert_cmpint (runs_max_rss (), <, RUN_RSS_KB);
      test_tmp_remove (root);
    }
}

/* ---- the compiler ends with cmlab-cli -------------------------------------------------- */

/* cmlab-cli started with ENV (its CMLAB_CC a script that writes its PID to PIDFILE), then
 * killed with SIGKILL once that compiler runs (the state "compiler started", bounded: two
 * minutes).  The test becomes the subreaper of what it leaves; the compiler's PID. */
static GPid
kill_cmlab_during_compile (char **env, const char *pidfile)
{
  g_autoptr (GError) error = NULL;
  const char *argv[] = { cli_path (), "simulate", "rolling-ball", "--t-end", "1", NULL };
  GPid pid, cc = 0;
  int status;

  /* orphans come to us: the compiler, once cmlab-cli is gone, is reaped here */
  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
  g_assert_true (g_spawn_async (NULL, (char **) argv, env,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  for (int i = 0; i < 12000 && cc == 0; i++)
    {
      g_autofree char *s = NULL;
      if (g_file_get_contents (pidfile, &s, NULL, NULL))
        cc = (GPid) g_ascii_strtoll (s, NULL, 10);
      else
        g_usleep (10000);
    }
  g_assert_cmpint (cc, >, 0);
  g_assert_cmpint (kill (cc, 0), ==, 0);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return cc;
}

/* Whether the compiler CC is gone, reaping what ends meanwhile (bounded: 60 s; killed
 * after that); the test is no longer a subreaper. */
static gboolean
compiler_gone (GPid cc)
{
  gboolean gone = FALSE;
  int status;

  for (int i = 0; i < 6000 && !gone; i++)
    {
      while (waitpid (-1, &status, WNOHANG) > 0)
        ;
      gone = kill (cc, 0) != 0 && errno == ESRCH;
      if (!gone)
        g_usleep (10000);
    }
  if (!gone)
    kill (cc, SIGKILL);
  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 0), ==, 0);
  return gone;
}

/* cmlab-cli killed (SIGKILL: nothing of it runs after) during a cold compile: the compiler
 * it started does not keep running.  The compiler here stands for one busy with a large
 * model: it says its PID and waits forever. */
static void
test_compiler_dies_with_cmlab (void)
{
  if (!native_or_skip ())
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *script = g_build_filename (root, "busy-cc", NULL);
  g_autofree char *pidfile = g_build_filename (root, "cc.pid", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\necho $$ > '%s.part' && mv '%s.part' '%s'\nexec sleep 3600\n",
                                           pidfile, pidfile, pidfile);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "CMLAB_CC", script, TRUE);
  GPid cc;

  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  cc = kill_cmlab_during_compile (env, pidfile);
  g_assert_true (compiler_gone (cc));
  test_tmp_remove (root);
}

/* ---- the compiler's temporary files ----------------------------------------------------- */

/* The real C compiler, for a wrapper to run. */
static const char *
real_cc (void)
{
  static char *cc;
  if (cc == NULL)
    cc = g_find_program_in_path ("cc");
  if (cc == NULL)
    cc = g_find_program_in_path ("gcc");
  return cc;
}

/* The names in DIR that are not a cache entry of the native-code cache (HASH.so,
 * HASH.so.sha256, HASH.c, HASH.key), as one string; the objects' number in *N_OBJECTS. */
static char *
not_cache_entries (const char *dir, guint *n_objects)
{
  g_autoptr (GRegex) re = g_regex_new ("^[0-9a-f]{64}\\.(so|so\\.sha256|c|key)$", 0, 0, NULL);
  g_autoptr (GString) other = g_string_new (NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *e;

  *n_objects = 0;
  g_assert_nonnull (d);
  while ((e = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, e, NULL);
      if (!g_regex_match (re, e, 0, NULL) || !g_file_test (p, G_FILE_TEST_IS_REGULAR))
        g_string_append_printf (other, "%s ", e);
      else if (g_str_has_suffix (e, ".so"))
        (*n_objects)++;
    }
  return g_string_free (g_steal_pointer (&other), FALSE);
}

/* Sets the environment variable NAME to VALUE: its old value (or NULL), for restore_env. */
static char *
set_env (const char *name, const char *value)
{
  char *old = g_strdup (g_getenv (name));
  g_setenv (name, value, TRUE);
  return old;
}

/* Gives NAME back its value OLD (unset when NULL), and frees OLD. */
static void
restore_env (const char *name, char *old)
{
  if (old)
    g_setenv (name, old, TRUE);
  else
    g_unsetenv (name);
  g_free (old);
}

/* A compile that ends leaves nothing but the cache's entries: the compiler's directory is
 * removed whole, with what else the compiler left in it (a compiler that leaves a
 * temporary of its own in $TMPDIR, as GCC does when killed), and $TMPDIR — an empty
 * directory here — stays empty (before, the temporary stayed there, and the directory in
 * /tmp kept any file but the two it knew). */
static void
test_compile_leaves_nothing (void)
{
  if (!native_or_skip () || real_cc () == NULL)
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *tmpdir = g_build_filename (root, "tmp", NULL);
  g_autofree char *script = g_build_filename (root, "leaving-cc", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\n: > \"${TMPDIR:-/tmp}/ccLeft01.s\"\nexec '%s' \"$@\"\n",
                                           real_cc ());
  g_autofree char *native = cache_dir (root, 0), *out = NULL, *other = NULL;
  char *old_cc, *old_tmp;
  guint n_objects = 0;

  g_assert_cmpint (g_mkdir (tmpdir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  old_cc = set_env ("CMLAB_CC", script);
  old_tmp = set_env ("TMPDIR", tmpdir);
  out = simulate ("rolling-ball");
  restore_env ("CMLAB_CC", old_cc);
  restore_env ("TMPDIR", old_tmp);
  g_assert_null (strstr (out, "exit status"));
  other = not_cache_entries (native, &n_objects);
  g_assert_cmpstr (other, ==, "");
  g_assert_cmpuint (n_objects, >, 0);
  g_assert_cmpuint (cli_count_entries (tmpdir), ==, 0);
  test_tmp_remove (root);
}

/* cmlab-cli killed (SIGKILL) while its compiler runs: the compiler's directory, with the
 * temporaries the compiler wrote, stays behind in the cache, and the next build in that
 * cache removes it; $TMPDIR gets nothing.  The compiler here writes a temporary as GCC
 * would, says it has started, then waits on a FIFO until the test lets it go. */
static void
test_killed_compile_cleaned_by_next (void)
{
  if (!native_or_skip () || real_cc () == NULL)
    return;
  g_autofree char *root = caches_new ();
  g_autofree char *tmpdir = g_build_filename (root, "tmp", NULL);
  g_autofree char *script = g_build_filename (root, "waiting-cc", NULL);
  g_autofree char *started = g_build_filename (root, "started", NULL);
  g_autofree char *fifo = g_build_filename (root, "go", NULL);
  g_autofree char *text = g_strdup_printf ("#!/bin/sh\n"
                                           ": > \"${TMPDIR:-/tmp}/ccKill01.s\"\n"
                                           "echo $$ > '%s.part' && mv '%s.part' '%s'\n"
                                           "read go < '%s'\n"
                                           "exec '%s' \"$@\"\n",
                                           started, started, started, fifo, real_cc ());
  g_autofree char *native = cache_dir (root, 0), *out = NULL, *left = NULL;
  char *old_tmp;
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "CMLAB_CC", script, TRUE);
  GPid cc;

  env = g_environ_setenv (env, "TMPDIR", tmpdir, TRUE);
  g_assert_cmpint (g_mkdir (tmpdir, 0700), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (script, text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  cc = kill_cmlab_during_compile (env, started);
  /* the compiler let go (if it still waits), then the state "compiler gone" */
  {
    int w = open (fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (w >= 0)
      {
        g_assert_cmpint (write (w, "go\n", 3), ==, 3);
        close (w);
      }
  }
  g_assert_true (compiler_gone (cc));

  /* what the killed run left: its compiler's directory in the cache, the temporary in it */
  {
    g_autoptr (GDir) d = g_dir_open (native, 0, NULL);
    const char *e;
    g_assert_nonnull (d);
    while ((e = g_dir_read_name (d)) != NULL)
      if (g_str_has_prefix (e, "tmp-"))
        {
          g_assert_null (left);
          left = g_build_filename (native, e, NULL);
        }
  }
  g_assert_nonnull (left);
  g_autofree char *temporary = g_build_filename (left, "ccKill01.s", NULL);
  g_assert_true (g_file_test (temporary, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (cli_count_entries (tmpdir), ==, 0);

  /* the next build, with the real compiler, removes it */
  old_tmp = set_env ("TMPDIR", tmpdir);
  out = simulate ("rolling-ball");
  restore_env ("TMPDIR", old_tmp);
  g_assert_null (strstr (out, "exit status"));
  g_assert_false (g_file_test (left, G_FILE_TEST_EXISTS));
  guint n_objects = 0;
  g_autofree char *other = not_cache_entries (native, &n_objects);
  g_assert_cmpstr (other, ==, "");
  g_assert_cmpuint (n_objects, >, 0);
  g_assert_cmpuint (cli_count_entries (tmpdir), ==, 0);
  test_tmp_remove (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* what the caches hold after a run: each run compiles what it needs before it goes on */
  g_setenv ("CMLAB_NATIVE", "wait", TRUE);
  g_test_add_func ("/cache-cli/memo-of-another-model", test_memo_of_another_model);
  g_test_add_func ("/cache-cli/links-outside", test_links_outside);
  g_test_add_func ("/cache-cli/fifos", test_fifos);
  g_test_add_func ("/cache-cli/endless", test_endless);
  g_test_add_func ("/cache-cli/compiler-dies-with-cmlab", test_compiler_dies_with_cmlab);
  g_test_add_func ("/cache-cli/compile-leaves-nothing", test_compile_leaves_nothing);
  g_test_add_func ("/cache-cli/killed-compile-cleaned-by-next", test_killed_compile_cleaned_by_next);
  return g_test_run ();
}
