/* cml-native.c — compiling register programs to native code with the system's C compiler.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The interpreter (cml-program.c) spends about a nanosecond per instruction on dispatch
 * and register traffic, which is several times what the arithmetic costs.  When a C
 * compiler is at hand, a system's hot programs are written out as C, compiled once into a
 * shared object and loaded; the object is kept in a cache keyed by a SHA-256 of the
 * compiler, the flags and the source, so a model costs a compilation (~0.1 s) the first
 * time only.  Reproducibility is kept: the flags forbid every transformation that could
 * change a result (contraction into fused multiply–adds, reassociation, replacing libm
 * calls by other ones), so native code and interpreter agree bit for bit — the tests
 * check it on every built-in model.
 *
 * Everything is atomic: the compiler writes into a private directory of its own (made in
 * the cache as tmp-XXXXXX, locked while it compiles and removed whole afterwards, or by
 * the next build if this run ends first: cml-native-workdir.c; GCC's own temporaries go
 * there too), the object is read back from there, checked and copied
 * into the cache under a temporary name (cml-atomic-file.c:
 * `.NAME.cmlab-tmp-HOST-BOOT-PIDNS-PID-XXXXXX`) renamed into place, so two processes
 * building the same model at once, or one killed half-way, never leave a broken object
 * under the final name; the partial files of a killed build are removed by the next one
 * (on the same host, boot and PID namespace; elsewhere after a week).
 *
 * The cache is code that we load into the process, so it is ours only:
 *   - the directory is created 0700 and opened once (O_DIRECTORY | O_NOFOLLOW); the
 *     descriptor is checked (fstat: a directory, ours, not writable by group or others)
 *     and everything inside is reached from it by openat with O_NOFOLLOW, written through
 *     temporaries renamed with renameat: a directory swapped after the check, or a link,
 *     FIFO or device in the cache, is never followed, read or waited on (cml-cache-dir.c);
 *     one that is a symbolic link, someone else's, or writable by group or others is not
 *     used (the interpreter runs; one line on standard error says why);
 *   - the generated C ends with a stamp, `cmlab_native_stamp`: the SHA-256 of the source
 *     before the stamp;
 *   - beside each object NAME.so, NAME.so.sha256 records the SHA-256 of its bytes, NAME
 *     (the hash of its whole source), the stamp, and the memo keys (their hashes) whose
 *     source was found to be this one — written only after the source was made for the
 *     key and hashed to NAME.  Before an object is loaded, the record must name the object
 *     asked for (by its source's hash; through a memo, the record must list the memo's
 *     key) and the bytes read from the descriptor opened with O_NOFOLLOW must match the
 *     record — before dlopen, which runs an object's constructors; the object is then
 *     loaded from that descriptor (dlopen of /proc/self/fd/N, kept open while the object
 *     is loaded), and its stamp read with dlsym must be the record's.  A planted,
 *     truncated or corrupted object, or the object of another model named by a memo, is
 *     never loaded; objects are still shared by every key whose source they are;
 *   - every read is capped (the cache's size limit for an object, a few kilobytes for a
 *     record or a memo);
 *   - the cache is kept under a size limit ($CMLAB_NATIVE_CACHE_LIMIT bytes, 64 MiB by
 *     default): after a build the least recently used objects (by modification time,
 *     which a cache hit renews) go first, with their sources and digests
 *     (cml-native-cache.c);
 *   - the compiler gets a time limit ($CMLAB_NATIVE_TIMEOUT seconds, 60 by default); at
 *     the limit it is killed with its process group and the interpreter runs; it is
 *     killed too when cmlab dies (PR_SET_PDEATHSIG).
 */
#define G_LOG_DOMAIN "cml-native"

#include "cml-native-private.h"
#include "cml-error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-cache-dir.h"

/* bump when the generated code's calling convention changes */
#define NATIVE_FORMAT "cmlab-native-1"

#define DEFAULT_CACHE_LIMIT  (G_GUINT64_CONSTANT (64) << 20) /* bytes */
#define DEFAULT_TIMEOUT      60                              /* s, for one compile */
#define MAX_COMPILER_MESSAGE 400                             /* bytes kept of its stderr */
#define MAX_KEYS             64                              /* memo keys kept in a record */
#define MAX_RECORD           (65 * (MAX_KEYS + 4))           /* bytes of a .so.sha256 record */
#define MAX_MEMO             128                             /* bytes of a .key memo */
#define STAMP_SYMBOL         "cmlab_native_stamp"

/* An object loaded from its descriptor, once per process however many use it.  The
 * dynamic loader knows an object by the name it was opened with, /proc/self/fd/N, and
 * would hand out an object still loaded for a later dlopen of the same name: so the
 * descriptor stays open, its number taken, until the object is unloaded. */
typedef struct
{
  char  *hash;   /* the object's name (its source's SHA-256) */
  char  *digest; /* the SHA-256 of its bytes, as loaded */
  void  *module; /* dlopen () handle */
  int    fd;
  guint  refs;
} Loaded;

struct _CmlNative
{
  Loaded  *loaded;
  char    *path;
  gboolean cached;
};

static GMutex loaded_lock;
static GHashTable *loaded_objects; /* hash → Loaded */

/* No -ffast-math, no contraction; the transcendental functions stay calls to libm, as in
 * the interpreter (GCC could otherwise expand pow or fold identities).  sin and cos are
 * the exception: GCC merges sin (a) and cos (a) into one sincos (a) call, which is what
 * makes a time-dependent model as fast as its hand-written version, and glibc's sincos
 * returns bit for bit what sin and cos return (the tests compare native code with the
 * interpreter on every built-in).
 *
 * The object is linked stripped (-s: no static symbol table; the exported functions stay
 * in the dynamic one, which is what dlsym reads) and without the page-aligned
 * code segment (-z noseparate-code): about 6 KB instead of 15, less to hash on every
 * load and to map.
 *
 * No -pipe: it gives the same bytes but was no faster (GCC 12, two sources of 126 and
 * 37 KB, four runs each: 0.55 and 0.45 s of CPU against 0.52 and 0.43 without, wall
 * times lost in the noise of a loaded machine), and the temporary files it spares are
 * written into the compiler's private directory anyway (run_compiler). */
static const char *const compile_flags[] = {
  "-O2", "-fPIC", "-shared", "-w", "-s", "-Wl,-z,noseparate-code",
  "-ffp-contract=off", "-fno-math-errno",
  "-fno-builtin-tan", "-fno-builtin-asin",
  "-fno-builtin-acos", "-fno-builtin-atan", "-fno-builtin-atan2", "-fno-builtin-sinh",
  "-fno-builtin-cosh", "-fno-builtin-tanh", "-fno-builtin-exp", "-fno-builtin-log",
  "-fno-builtin-pow",
};

/* Sources longer than this are compiled at -O1 (given after the flags, it overrides their
 * -O2).  Such a source is a large program written in parts of a thousand instructions
 * (cml-program.c), where -O2 only doubles the compiler's time: the 20-link pendulum's
 * right-hand side (12 000 instructions, 0.5 MB of C) took GCC 12 4.4 s at -O2 and 2.1 s
 * at -O1, and evaluates at the same speed (6.0 and 6.5 µs, against 5.9 µs as one function
 * at -O2 and 11-13 µs at -O0).  The level follows from the source, whose hash names the
 * object; the results are the same bit for bit at every level (no contraction, no
 * reassociation at any). */
#define LARGE_SOURCE_BYTES (128 * 1024)

static const char source_prologue[] =
  "/* generated by cmlab from a model's derived equations; see cml-native.c */\n"
  "double sqrt (double); double sin (double); double cos (double); double tan (double);\n"
  "double asin (double); double acos (double); double atan (double); double atan2 (double, double);\n"
  "double sinh (double); double cosh (double); double tanh (double); double exp (double);\n"
  "double log (double); double pow (double, double); double fabs (double);\n\n";

static char *compiler_path;
static char *compiler_id;

static gpointer
find_compiler (gpointer unused)
{
  const char *env = g_getenv ("CMLAB_NATIVE");
  const char *cc = g_getenv ("CMLAB_CC");
  GStatBuf st;

  if (env != NULL && (g_str_equal (env, "0") || g_ascii_strcasecmp (env, "off") == 0))
    return NULL;
  if (cc != NULL && *cc != '\0')
    compiler_path = g_find_program_in_path (cc);
  else
    {
      compiler_path = g_find_program_in_path ("cc");
      if (compiler_path == NULL)
        compiler_path = g_find_program_in_path ("gcc");
    }
  if (compiler_path == NULL)
    return NULL;
  /* it runs in the compiler's private directory (run_compiler): a relative name would be
   * looked up there */
  if (!g_path_is_absolute (compiler_path))
    {
      char *abs = g_canonicalize_filename (compiler_path, NULL);
      g_free (compiler_path);
      compiler_path = abs;
    }
  /* a new compiler (another file, or the same file updated) gives new cache keys */
  if (g_stat (compiler_path, &st) == 0)
    compiler_id = g_strdup_printf ("%s %lld %lld", compiler_path, (long long) st.st_size,
                                   (long long) st.st_mtime);
  else
    compiler_id = g_strdup (compiler_path);
  return compiler_path;
}

const char *
cml_native_compiler (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, find_compiler, NULL);
}

gboolean
cml_native_available (void)
{
  return cml_native_compiler () != NULL;
}

/* Says once per process, on standard error, why native code is off. */
static void
warn_once (const char *message)
{
  static gsize warned = 0;

  if (g_once_init_enter (&warned))
    {
      g_printerr ("cmlab: %s; the interpreter runs instead\n", message);
      g_once_init_leave (&warned, 1);
    }
}

/* Opens the cache directory DIR once (made 0700 if needed) and checks it on its
 * descriptor (cml_cache_dir_open_fd): the descriptor, or -1. */
static int
open_cache_dir (const char *dir, GError **error)
{
  gboolean cannot_create;
  const char *why;
  int fd = cml_cache_dir_open_fd (dir, &why, &cannot_create);

  if (fd >= 0)
    return fd;
  if (cannot_create)
    g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot create the native-code cache %s: %s", dir, why);
  else
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "the native-code cache %s is not used: %s", dir, why);
      warn_once ((*error)->message);
    }
  return -1;
}

/* The SHA-256 of the bytes of FD (at most CAP), as hex, or NULL. */
static char *
fd_digest (int fd, guint64 cap)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 buf[16384];
  guint64 total = 0;
  off_t at = 0;

  for (;;)
    {
      ssize_t n = pread (fd, buf, sizeof buf, at);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      total += (guint64) n;
      if (total > cap)
        return NULL;
      g_checksum_update (sum, buf, n);
      at += n;
    }
  return g_strdup (g_checksum_get_string (sum));
}

/* Why open_object () failed, in the dynamic loader's words. */
static const char *
load_error (void)
{
  const char *why = dlerror ();
  return why ? why : "unknown dl-error";
}

/* What the compiler's process needs between fork and exec. */
typedef struct
{
  pid_t parent;  /* the PID that forks */
  int   workdir; /* the private directory's descriptor (cml-native-workdir.c) */
} ChildSetup;

/* Runs in the compiler's process between fork and exec: a process group of its own, so
 * that at the time limit its children (cc1, as, ld) are killed with it; and killed when
 * the thread that started it ends — cmlab killed, even by SIGKILL, does not leave it
 * running (the signal reaches the compiler driver; what it started ends with its current
 * step).  If the parent ended before the death signal was asked for, the compiler does
 * not start.  Its working directory is the private directory, from the descriptor that
 * was checked (no path is looked up again). */
static void
compiler_child_setup (gpointer data)
{
  const ChildSetup *setup = data;

  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (getppid () != setup->parent || fchdir (setup->workdir) != 0)
    _exit (127);
}

/* Runs the compiler in the private directory WORKDIR (a descriptor) on its source.c
 * (SRC_LEN bytes) into its object.so, for at most TIMEOUT seconds; its messages (the first
 * lines) become the error.
 *
 * The compiler works on names relative to that directory, and TMPDIR=. sends GCC's own
 * temporaries (the assembly, the object before linking) into it as well, where they are
 * removed with it even when the compiler was killed and could not remove them. */
static gboolean
run_compiler (int workdir, gsize src_len, guint timeout, GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GString) msgs = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) envp = g_environ_setenv (g_get_environ (), "TMPDIR", ".", TRUE);
  ChildSetup setup = { getpid (), workdir };
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout * G_USEC_PER_SEC;
  gboolean timed_out = FALSE;
  GPid pid;
  int err_fd = -1, status = 0;

  g_ptr_array_add (argv, (char *) compiler_path);
  for (guint i = 0; i < G_N_ELEMENTS (compile_flags); i++)
    g_ptr_array_add (argv, (char *) compile_flags[i]);
  if (src_len > LARGE_SOURCE_BYTES)
    g_ptr_array_add (argv, "-O1");
  g_ptr_array_add (argv, "-o");
  g_ptr_array_add (argv, "object.so");
  g_ptr_array_add (argv, "source.c");
  g_ptr_array_add (argv, "-lm");
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_async_with_pipes (NULL, (char **) argv->pdata, envp,
                                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                 compiler_child_setup, &setup, &pid, NULL, NULL,
                                 &err_fd, &local))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot run the C compiler %s: %s",
                   compiler_path, local->message);
      return FALSE;
    }

  /* its messages until it closes them (it and its children), or the time is up */
  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time ();
      struct pollfd pfd = { err_fd, POLLIN, 0 };
      char buf[4096];
      ssize_t n;

      if (left <= 0)
        {
          timed_out = TRUE;
          break;
        }
      if (poll (&pfd, 1, (int) MIN (left / 1000 + 1, 1000)) < 0 && errno != EINTR)
        break;
      if (pfd.revents == 0)
        continue;
      n = read (err_fd, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
        break;
      if (n > 0 && msgs->len < 16 * MAX_COMPILER_MESSAGE)
        g_string_append_len (msgs, buf, n);
    }
  close (err_fd);
  /* then its exit, within the same limit */
  while (!timed_out)
    {
      pid_t r = waitpid (pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR))
        break;
      if (g_get_monotonic_time () >= deadline)
        timed_out = TRUE;
      else
        g_usleep (5000);
    }
  if (timed_out)
    {
      kill (-pid, SIGKILL);
      kill (pid, SIGKILL);
      while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    }
  g_spawn_close_pid (pid);

  if (timed_out)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO,
                   "the C compiler %s did not finish within the time limit of %u s (CMLAB_NATIVE_TIMEOUT)",
                   compiler_path, timeout);
      return FALSE;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    {
      if (msgs->len > MAX_COMPILER_MESSAGE)
        {
          g_string_truncate (msgs, MAX_COMPILER_MESSAGE - 3);
          g_string_append (msgs, "...");
        }
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "the C compiler %s failed: %s", compiler_path,
                   msgs->len ? g_strstrip (msgs->str) : "no message");
      return FALSE;
    }
  return TRUE;
}

/* The SHA-256 (hex) naming an object: the format, the compiler, its flags and TEXT, with
 * PURPOSE before TEXT ("" for C source, "memo" for a memo's key). */
static char *
native_hash (const char *purpose, const char *text)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (sum, (const guchar *) NATIVE_FORMAT, -1);
  g_checksum_update (sum, (const guchar *) compiler_id, strlen (compiler_id) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (compile_flags); i++)
    g_checksum_update (sum, (const guchar *) compile_flags[i], strlen (compile_flags[i]) + 1);
  if (*purpose != '\0')
    g_checksum_update (sum, (const guchar *) purpose, strlen (purpose) + 1);
  g_checksum_update (sum, (const guchar *) text, -1);
  return g_strdup (g_checksum_get_string (sum));
}

/* What an object is, as its record (NAME.so.sha256) and its stamp say. */
typedef struct
{
  char  *hash;   /* NAME: the SHA-256 naming it (native_hash of its whole source) */
  char  *body;   /* the SHA-256 of its source before the stamp: the stamp's text */
  char  *digest; /* the SHA-256 of the object's bytes (the record only) */
  char **keys;   /* the memo keys (their hashes) its source was made for (the record only) */
} Identity;

static void
identity_clear (Identity *id)
{
  g_clear_pointer (&id->hash, g_free);
  g_clear_pointer (&id->body, g_free);
  g_clear_pointer (&id->digest, g_free);
  g_clear_pointer (&id->keys, g_strfreev);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Identity, identity_clear)

/* The record of the object HASH in DFD, "DIGEST HASH BODY KEY…\n"; FALSE when it is not
 * there, not a regular file, too long or not such a line. */
static gboolean
read_record (int dfd, const char *hash, Identity *id)
{
  g_autofree char *base = g_strconcat (hash, ".so.sha256", NULL);
  g_autofree char *text = cml_cache_read_at (dfd, base, MAX_RECORD, NULL);
  g_auto (GStrv) f = NULL;
  guint n;

  if (text == NULL || !g_str_has_suffix (text, "\n"))
    return FALSE;
  text[strlen (text) - 1] = '\0';
  f = g_strsplit (text, " ", -1);
  n = g_strv_length (f);
  if (n < 3)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!cml_native_is_hash (f[i]))
      return FALSE;
  id->digest = g_strdup (f[0]);
  id->hash = g_strdup (f[1]);
  id->body = g_strdup (f[2]);
  id->keys = g_new0 (char *, n - 2);
  for (guint i = 3; i < n; i++)
    id->keys[i - 3] = g_strdup (f[i]);
  return TRUE;
}

/* Writes the record of ID into DFD. */
static gboolean
write_record (int dfd, const Identity *id, GError **error)
{
  g_autofree char *base = g_strconcat (id->hash, ".so.sha256", NULL);
  g_autoptr (GString) s = g_string_new (NULL);
  guint n = id->keys ? g_strv_length (id->keys) : 0;

  g_string_printf (s, "%s %s %s", id->digest, id->hash, id->body);
  /* the most recent keys, as many as fit */
  for (guint i = n > MAX_KEYS ? n - MAX_KEYS : 0; i < n; i++)
    g_string_append_printf (s, " %s", id->keys[i]);
  g_string_append_c (s, '\n');
  return cml_atomic_file_set_contents_at (dfd, base, s->str, s->len, CML_ATOMIC_FILE_UNSYNCED, error);
}

/* Adds the memo key KEY to the record of the object HASH in DFD (its source, just made
 * for KEY, is the object's): a memo of KEY may then name it. */
static void
record_add_key (int dfd, const char *hash, const char *key)
{
  g_auto (Identity) rec = { 0 };
  g_autoptr (GError) error = NULL;
  guint n;

  if (!read_record (dfd, hash, &rec) || !g_str_equal (rec.hash, hash) || g_strv_contains ((const char *const *) rec.keys, key))
    return;
  n = g_strv_length (rec.keys);
  rec.keys = g_renew (char *, rec.keys, n + 2);
  rec.keys[n] = g_strdup (key);
  rec.keys[n + 1] = NULL;
  if (!write_record (dfd, &rec, &error))
    g_debug ("%s", error->message);
}

static CmlNative *
native_new (Loaded *loaded, char *path, gboolean cached)
{
  CmlNative *native = g_new0 (CmlNative, 1);

  native->loaded = loaded;
  native->path = path;
  native->cached = cached;
  return native;
}

/* The object HASH with the bytes DIGEST if this process has it loaded already: one more
 * reference to it, or NULL.  Under loaded_lock. */
static Loaded *
find_loaded (const char *hash, const char *digest)
{
  Loaded *l = loaded_objects ? g_hash_table_lookup (loaded_objects, hash) : NULL;

  if (l == NULL || !g_str_equal (l->digest, digest))
    return NULL;
  l->refs++;
  return l;
}

/* The cached object HASH of DFD (whose path is DIR), loaded if its record names it, its
 * source is BODY (when not NULL) and was made for the memo key KEY (when not NULL), and its
 * bytes are those we built; NULL when it is not there, or is another (an object that does
 * not match its own record is removed, to be built again).  *HAS_KEY (may be NULL): whether
 * the record lists ADD_KEY (may be NULL). */
static CmlNative *
load_cached (int dfd, const char *dir, const char *hash, const char *body, const char *key,
             gboolean cached, const char *add_key, gboolean *has_key)
{
  g_autofree char *base = g_strconcat (hash, ".so", NULL);
  g_autofree char *record = g_strconcat (hash, ".so.sha256", NULL);
  g_autofree char *actual = NULL, *proc = NULL;
  g_auto (Identity) rec = { 0 };
  guint64 cap = cml_cache_env_number ("CMLAB_NATIVE_CACHE_LIMIT", DEFAULT_CACHE_LIMIT);
  const char *found;
  void *module;
  int fd;

  if (!read_record (dfd, hash, &rec))
    {
      g_debug ("%s/%s: no valid record", dir, record);
      return NULL;
    }
  /* the record must name this object, made from this source, for this memo key (a memo
   * naming another model's object finds a record that does not list its key) */
  if (!g_str_equal (rec.hash, hash) || (body != NULL && !g_str_equal (rec.body, body))
      || (key != NULL && !g_strv_contains ((const char *const *) rec.keys, key)))
    {
      g_debug ("%s/%s was not made for this (memo key %s)", dir, base, key ? key : "none");
      return NULL;
    }
  if (has_key)
    *has_key = add_key != NULL && g_strv_contains ((const char *const *) rec.keys, add_key);
  fd = cml_cache_open_file (dfd, base, cap, NULL);
  if (fd < 0)
    {
      if (errno != ENOENT)
        {
          g_debug ("%s/%s is not a regular file of at most %" G_GUINT64_FORMAT " bytes: building it again", dir,
                   base, cap);
          unlinkat (dfd, base, 0);
        }
      return NULL;
    }
  /* its bytes as read from the descriptor it is loaded from, before anything of it runs
   * (dlopen runs an object's constructors) */
  actual = fd_digest (fd, cap);
  if (actual == NULL || !g_str_equal (actual, rec.digest))
    {
      g_debug ("%s/%s does not match its digest: building it again", dir, base);
      close (fd);
      unlinkat (dfd, base, 0);
      unlinkat (dfd, record, 0);
      return NULL;
    }
  g_mutex_lock (&loaded_lock);
  Loaded *l = find_loaded (hash, rec.digest);
  if (l != NULL)
    {
      g_mutex_unlock (&loaded_lock);
      close (fd);
      if (cached)
        cml_cache_touch_at (dfd, base);
      return native_new (l, g_build_filename (dir, base, NULL), cached);
    }
  proc = g_strdup_printf ("/proc/self/fd/%d", fd);
  module = dlopen (proc, RTLD_LOCAL | RTLD_LAZY);
  if (module == NULL)
    {
      g_mutex_unlock (&loaded_lock);
      g_debug ("%s/%s does not load (%s): building it again", dir, base, load_error ());
      close (fd);
      unlinkat (dfd, base, 0);
      unlinkat (dfd, record, 0);
      return NULL;
    }
  /* and it says itself what it was built from */
  found = dlsym (module, STAMP_SYMBOL);
  if (found == NULL || strncmp (found, rec.body, HASH_LEN + 1) != 0)
    {
      g_mutex_unlock (&loaded_lock);
      g_debug ("%s/%s carries another stamp than its record's: building it again", dir, base);
      dlclose (module);
      close (fd);
      unlinkat (dfd, base, 0);
      unlinkat (dfd, record, 0);
      return NULL;
    }
  l = g_new0 (Loaded, 1);
  l->hash = g_strdup (hash);
  l->digest = g_strdup (rec.digest);
  l->module = module;
  l->fd = fd;
  l->refs = 1;
  if (loaded_objects == NULL)
    loaded_objects = g_hash_table_new (g_str_hash, g_str_equal);
  /* (an object of this name with other bytes stays loaded for its users, unlisted) */
  g_hash_table_replace (loaded_objects, l->hash, l);
  g_mutex_unlock (&loaded_lock);
  if (cached)
    cml_cache_touch_at (dfd, base); /* used now: the last to be evicted */
  return native_new (l, g_build_filename (dir, base, NULL), cached);
}

/* Compiles FULL in a private directory of our own and puts the object into the cache DFD
 * as HASH.so, with its record ID.  The directory is made in the cache, locked while the
 * compile runs and removed whole afterwards; before, the directories of runs that ended
 * during their compile are removed (cml-native-workdir.c). */
static gboolean
compile_into_cache (int dfd, const char *dir, const char *full, Identity *id, guint64 limit,
                    GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *base = g_strconcat (id->hash, ".so", NULL);
  CmlNativeWorkdir wd;
  gsize len = 0;
  gboolean ok = FALSE;
  int fd;

  cml_native_workdir_sweep (dfd);
  if (!cml_native_workdir_make (dfd, &wd, error))
    return FALSE;
  if (!cml_atomic_file_set_contents_at (wd.fd, "source.c", full, strlen (full), CML_ATOMIC_FILE_UNSYNCED, &local))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write the C source: %s", local->message);
      goto done;
    }
  if (!run_compiler (wd.fd, strlen (full), (guint) MIN (cml_cache_env_number ("CMLAB_NATIVE_TIMEOUT", DEFAULT_TIMEOUT), 86400),
                     error))
    goto done;
  /* what the compiler wrote, read as a regular file of at most the cache's size */
  fd = openat (wd.fd, "object.so", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0)
    {
      struct stat st;
      if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && (guint64) st.st_size <= limit)
        bytes = cml_cache_read_fd (fd, limit, &len);
      close (fd);
    }
  if (bytes == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot read the compiled object of %s/%s.c", dir, id->hash);
      goto done;
    }
  id->digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, len);
  /* the object, then its record: a record never describes an object not yet in place */
  if (!cml_atomic_file_set_contents_at (dfd, base, bytes, len, CML_ATOMIC_FILE_UNSYNCED, error))
    goto done;
  if (!write_record (dfd, id, error))
    {
      unlinkat (dfd, base, 0);
      goto done;
    }
  ok = TRUE;
done:
  cml_native_workdir_remove (dfd, &wd);
  return ok;
}

/* cml_native_build () into the cache DFD (at DIR), the source made for the memo key KEY
 * (its hash, or NULL); the object's hash in *HASH_OUT.  Unless COMPILE, only what the cache
 * holds: NULL without an error when the object is not there. */
static CmlNative *
build_source (int dfd, const char *dir, const char *source, const char *key, gboolean compile,
              char **hash_out, GError **error)
{
  g_autofree char *body = NULL, *full = NULL;
  g_auto (Identity) id = { 0 };
  CmlNative *native;
  gboolean has_key = FALSE;
  guint64 limit;

  body = g_strconcat (source_prologue, source, NULL);
  id.body = g_compute_checksum_for_string (G_CHECKSUM_SHA256, body, -1);
  full = g_strdup_printf ("%s\n/* what this object was built from (cml-native.c) */\n"
                          "const char " STAMP_SYMBOL "[] = \"%s\";\n", body, id.body);
  id.hash = native_hash ("", full);
  limit = cml_cache_env_number ("CMLAB_NATIVE_CACHE_LIMIT", DEFAULT_CACHE_LIMIT);

  /* in the cache: loaded only if it is what we would build and its bytes are those we built */
  if ((native = load_cached (dfd, dir, id.hash, id.body, NULL, TRUE, key, &has_key)) != NULL)
    {
      /* this source is the object's: a memo of KEY may name it from now on */
      if (key != NULL && !has_key)
        record_add_key (dfd, id.hash, key);
      if (hash_out)
        *hash_out = g_strdup (id.hash);
      return native;
    }
  if (!compile)
    return NULL;

  if (strlen (full) > limit / 2)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "the generated C (%" G_GSIZE_FORMAT " bytes) is too large for the native-code cache",
                   strlen (full));
      return NULL;
    }
  /* the source stays beside the object: it shows what was compiled */
  {
    g_autofree char *cbase = g_strconcat (id.hash, ".c", NULL);
    if (!cml_atomic_file_set_contents_at (dfd, cbase, full, strlen (full), CML_ATOMIC_FILE_UNSYNCED, error))
      return NULL;
  }
  id.keys = g_new0 (char *, 2);
  id.keys[0] = g_strdup (key);
  if (!compile_into_cache (dfd, dir, full, &id, limit, error))
    return NULL;
  cml_native_trim_cache (dfd, limit, id.hash);
  native = load_cached (dfd, dir, id.hash, id.body, NULL, FALSE, NULL, NULL);
  if (native == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot load %s/%s.so: %s", dir, id.hash,
                   "it does not load, or changed since it was built");
      return NULL;
    }
  if (hash_out)
    *hash_out = g_strdup (id.hash);
  return native;
}

static gboolean
check_available (GError **error)
{
  if (cml_native_available ())
    return TRUE;
  g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED, "no C compiler found (set CMLAB_CC, or install gcc)");
  return FALSE;
}

/* cml_native_build (), or unless COMPILE only what the cache holds. */
static CmlNative *
build_unkeyed (const char *source, gboolean compile, GError **error)
{
  g_autofree char *dir = NULL;
  CmlNative *native;
  int dfd;

  g_return_val_if_fail (source != NULL, NULL);

  if (!check_available (error))
    return NULL;
  dir = cml_cache_dir_path ("CMLAB_NATIVE_CACHE", "native");
  if ((dfd = open_cache_dir (dir, error)) < 0)
    return NULL;
  native = build_source (dfd, dir, source, NULL, compile, NULL, error);
  close (dfd);
  return native;
}

CmlNative *
cml_native_build (const char *source, GError **error)
{
  return build_unkeyed (source, TRUE, error);
}

CmlNative *
cml_native_find (const char *source, GError **error)
{
  return build_unkeyed (source, FALSE, error);
}

/* Whether a memo's object must be checked against its source as well
 * ($CMLAB_NATIVE_MEMO_CHECK=1, which the tests set): the source is written and hashed
 * anyway, and a memo that names another object than the source's is a bug in what KEY
 * was said to fix.  (That the object was built for KEY is checked always.) */
static gboolean
memo_check (void)
{
  const char *v = g_getenv ("CMLAB_NATIVE_MEMO_CHECK");
  return v != NULL && g_str_equal (v, "1");
}

/* cml_native_build_keyed (), or unless COMPILE only what the cache holds, the source
 * written (when it had to be) left in *SOURCE_OUT. */
static CmlNative *
build_keyed (const char *key, CmlNativeSource source, gpointer data, gboolean compile,
             GString **source_out, GError **error)
{
  g_autoptr (GString) src = NULL;
  g_autofree char *dir = NULL, *memo = NULL, *line = NULL, *hash = NULL, *mhash = NULL;
  CmlNative *native = NULL;
  int dfd;

  if (!check_available (error))
    return NULL;
  dir = cml_cache_dir_path ("CMLAB_NATIVE_CACHE", "native");
  if ((dfd = open_cache_dir (dir, error)) < 0)
    return NULL;
  if (key != NULL)
    {
      mhash = native_hash ("memo", key);
      memo = g_strconcat (mhash, ".key", NULL);
      line = cml_cache_read_at (dfd, memo, MAX_MEMO, NULL);
      if (line != NULL && g_str_has_suffix (line, "\n"))
        {
          line[strlen (line) - 1] = '\0';
          if (cml_native_is_hash (line))
            {
              /* the memo's object, if its record lists this key */
              native = load_cached (dfd, dir, line, NULL, mhash, TRUE, NULL, NULL);
            }
        }
    }
  if (native != NULL && !memo_check ())
    {
      cml_cache_touch_at (dfd, memo);
      close (dfd);
      return native;
    }
  if (source == NULL)
    {
      /* the memo alone (cml_native_find_memo) */
      close (dfd);
      return native;
    }
  src = g_string_new (NULL);
  if (!source (data, src))
    {
      g_clear_pointer (&native, cml_native_free);
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED, "the program could not be written out as C");
      close (dfd);
      return NULL;
    }
  if (native != NULL)
    {
      /* $CMLAB_NATIVE_MEMO_CHECK: the object the source would make */
      g_autoptr (CmlNative) check = build_source (dfd, dir, src->str, mhash, TRUE, &hash, error);
      if (check != NULL && g_str_equal (hash, line))
        {
          close (dfd);
          return native;
        }
      g_critical ("the native-code memo %s/%s names %s, but its source is %s", dir, memo, line, hash ? hash : "?");
      g_clear_pointer (&native, cml_native_free);
      g_clear_pointer (&hash, g_free);
    }
  native = build_source (dfd, dir, src->str, mhash, compile, &hash, error);
  if (native != NULL && memo != NULL)
    {
      g_autoptr (GError) merr = NULL;
      g_autofree char *text = g_strconcat (hash, "\n", NULL);
      if (!cml_atomic_file_set_contents_at (dfd, memo, text, strlen (text), CML_ATOMIC_FILE_UNSYNCED, &merr))
        g_debug ("%s", merr->message);
    }
  close (dfd);
  if (native == NULL && source_out != NULL)
    *source_out = g_steal_pointer (&src);
  return native;
}

CmlNative *
cml_native_build_keyed (const char *key, CmlNativeSource source, gpointer data, GError **error)
{
  return build_keyed (key, source, data, TRUE, NULL, error);
}

CmlNative *
cml_native_find_keyed (const char *key, CmlNativeSource source, gpointer data, GString **source_out,
                       GError **error)
{
  return build_keyed (key, source, data, FALSE, source_out, error);
}

CmlNative *
cml_native_find_memo (const char *key, GError **error)
{
  g_return_val_if_fail (key != NULL, NULL);
  if (memo_check ())
    return NULL; /* (the memo is checked against the source where the source is written) */
  return build_keyed (key, NULL, NULL, FALSE, NULL, error);
}

CmlNative *
cml_native_dup (const CmlNative *native)
{
  g_mutex_lock (&loaded_lock);
  native->loaded->refs++;
  g_mutex_unlock (&loaded_lock);
  return native_new (native->loaded, g_strdup (native->path), native->cached);
}

CmlNativeFunc
cml_native_lookup (CmlNative *native, const char *name)
{
  gpointer fn = NULL;

  g_return_val_if_fail (native != NULL && name != NULL, NULL);

  fn = dlsym (native->loaded->module, name);
  return fn ? (CmlNativeFunc) fn : NULL;
}

gboolean
cml_native_was_cached (const CmlNative *native)
{
  return native->cached;
}

const char *
cml_native_path (const CmlNative *native)
{
  return native->path;
}

void
cml_native_free (CmlNative *native)
{
  if (native == NULL)
    return;
  Loaded *l = native->loaded;
  g_mutex_lock (&loaded_lock);
  if (--l->refs == 0)
    {
      if (loaded_objects && g_hash_table_lookup (loaded_objects, l->hash) == l)
        g_hash_table_remove (loaded_objects, l->hash);
      dlclose (l->module);
      /* only now: while the object is loaded its /proc/self/fd/N name is not given to
       * another */
      close (l->fd);
      g_free (l->hash);
      g_free (l->digest);
      g_free (l);
    }
  g_mutex_unlock (&loaded_lock);
  g_free (native->path);
  g_free (native);
}
