/* cml-cli-common.c — argument parsing and model loading shared by cmlab-cli's commands:
 * the run options (one GOptionGroup, a saved session among them), checks made before
 * anything runs (the output, the rows, the span), and progress with a word on stiffness.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-cli-common"

#include "cml-cli-common.h"

#include "cml-simulation-span.h"
#include "cml-error.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-as-vakonomic.h"
#include "cml-session.h"

/* The environment variable NAME, NULL when unset or empty (as setlocale () reads it). */
static const char *
locale_variable (const char *name)
{
  const char *v = getenv (name);
  return v != NULL && *v != '\0' ? v : NULL;
}

/* setlocale (LC_ALL, ""), loading only the categories the command-line programs use: the
 * characters (LC_CTYPE), the numbers in messages (LC_NUMERIC) and the messages
 * (LC_MESSAGES) — each category is a file of its own to find, open and map, and the
 * other nine would cost three times as much again.  It is the same whenever the other categories
 * name the locale LC_CTYPE names (the usual LANG=… or LC_ALL=…); otherwise the whole of
 * setlocale (LC_ALL, "") runs, so that a locale that does not load in one category leaves
 * every category in C, as it always did. */
static void
set_locale_from_environment (void)
{
  static const int used[] = { LC_CTYPE, LC_NUMERIC, LC_MESSAGES };
  static const char *const unused[] = {
    "LC_COLLATE", "LC_TIME", "LC_MONETARY", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
    "LC_MEASUREMENT", "LC_IDENTIFICATION",
  };
  const char *lang = locale_variable ("LANG");
  const char *ctype = locale_variable ("LC_CTYPE");

  /* LC_ALL, when set, names the locale of every category; else a category's own variable,
   * else LANG */
  if (locale_variable ("LC_ALL") == NULL)
    for (guint k = 0; k < G_N_ELEMENTS (unused); k++)
      {
        const char *v = locale_variable (unused[k]);
        if (g_strcmp0 (v ? v : lang, ctype ? ctype : lang) != 0)
          {
            setlocale (LC_ALL, "");
            return;
          }
      }
  for (guint k = 0; k < G_N_ELEMENTS (used); k++)
    if (setlocale (used[k], "") == NULL)
      {
        /* as setlocale (LC_ALL, "") fails: nothing changed */
        for (guint j = 0; j < k; j++)
          setlocale (used[j], "C");
        return;
      }
}

/* The locale and the translations: installed in LOCALEDIR, or the build tree's po/ for a
 * program run from the build tree (build.ninja two levels above it).  Numbers in files
 * never follow the locale (cml-output.h); messages for people do. */
void
cml_cli_init_i18n (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
  g_autofree char *ninja = dir ? g_build_filename (dir, "..", "..", "build.ninja", NULL) : NULL;
  g_autofree char *build_po = dir ? g_build_filename (dir, "..", "..", "po", NULL) : NULL;

  set_locale_from_environment ();
  /* LANGUAGE names the languages of messages, as for every GNU program — but gettext
   * ignores it under the locale named "C" (LANG unset: a bare container, a cron job, ssh
   * without the client's locale): messages then follow LANGUAGE in C.UTF-8, which is C for
   * everything else */
  {
    const char *language = g_getenv ("LANGUAGE");
    const char *messages = setlocale (LC_MESSAGES, NULL);
    if (language && *language && messages && (strcmp (messages, "C") == 0 || strcmp (messages, "POSIX") == 0))
      {
        setlocale (LC_MESSAGES, "C.UTF-8");
        /* and the characters written, in UTF-8 as the catalogues give them */
        const char *ctype = setlocale (LC_CTYPE, NULL);
        if (ctype && (strcmp (ctype, "C") == 0 || strcmp (ctype, "POSIX") == 0))
          setlocale (LC_CTYPE, "C.UTF-8");
      }
  }
  bindtextdomain (GETTEXT_PACKAGE, ninja && g_file_test (ninja, G_FILE_TEST_IS_REGULAR) ? build_po : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

/* The session of --session, as cml_cli_parse_args () read it (it belongs to the run
 * options), for the calls that take its parts (the model and parameters, the initial
 * state) without the run options: a process runs one command.  NULL without --session. */
static CmlSession *run_session;
/* --as vakonomic: the model read by the vakonomic principle (likewise for the whole run) */
static gboolean run_as_vakonomic;

gboolean
cml_cli_split_assignment (const char *arg, char **name, double *value)
{
  const char *eq = strchr (arg, '=');
  char *end = NULL;
  if (eq == NULL || eq == arg)
    return FALSE;
  *name = g_strstrip (g_strndup (arg, eq - arg));
  errno = 0;
  *value = g_ascii_strtod (eq + 1, &end);
  if (end == eq + 1 || *end != '\0' || errno != 0 || !isfinite (*value))
    {
      g_clear_pointer (name, g_free);
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_cli_parse_double (const char *s, double *out)
{
  char *end = NULL;
  errno = 0;
  *out = g_ascii_strtod (s, &end);
  return s && end != s && *end == '\0' && errno == 0 && isfinite (*out);
}

/* the command being run, for the pointer to its help */
static const char *cli_command;

void
cml_cli_set_command (const char *command)
{
  cli_command = command;
}

char *
cml_cli_try_help (void)
{
  /* TRANSLATORS: %s is a command, e.g. "sweep"; the quoted text is typed as it is */
  return cli_command ? g_strdup_printf (_("Try “cmlab-cli %s --help”.\n"), cli_command)
                     : g_strdup (_("Try “cmlab-cli --help”.\n"));
}

int
cml_cli_usage_error (const char *usage, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("cmlab-cli: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputs ("\n", stderr);
  va_end (ap);
  /* the message and where to read more: the usage text itself would bury the message */
  if (usage)
    {
      g_autofree char *try_help = cml_cli_try_help ();
      fputs (try_help, stderr);
    }
  return CML_CLI_EXIT_USAGE;
}

int
cml_cli_integrator_error (const char *usage, const GError *error)
{
  gboolean usage_wrong = error->domain == CML_ERROR && error->code == CML_ERROR_USAGE;
  return cml_cli_usage_error (usage_wrong ? usage : NULL, "%s", error->message);
}

int
cml_cli_open_simulation (const char *model_name, GPtrArray *sets, const char *usage,
                         CmlSimulation **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = run_session ? cml_model_ref (run_session->model) : cml_model_load (model_name, &error);
  if (model == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  if (run_as_vakonomic)
    {
      CmlModel *vakonomic = cml_model_new_as_vakonomic (model, &error);
      if (vakonomic == NULL)
        {
          fprintf (stderr, _("cmlab-cli: --as vakonomic: %s\n"), error->message);
          return CML_CLI_EXIT_USAGE;
        }
      cml_model_unref (model);
      model = vakonomic;
    }
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  if (sys == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  const GPtrArray *warnings = cml_system_get_warnings (sys);
  for (guint k = 0; k < warnings->len; k++)
    fprintf (stderr, _("warning: %s\n"), (char *) warnings->pdata[k]);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  if (sim == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  /* the session's parameters, in the model's order, then --set over them */
  for (guint k = 0; run_session && k < model->params->len; k++)
    {
      const char *name = ((CmlParam *) model->params->pdata[k])->name;
      const double *v = g_hash_table_lookup (run_session->params, name);
      if (v && !cml_simulation_set_param (sim, name, *v, &error))
        {
          fprintf (stderr, "cmlab-cli: %s: %s\n", run_session->path, error->message);
          return CML_CLI_EXIT_USAGE;
        }
    }
  for (guint k = 0; sets && k < sets->len; k++)
    {
      g_autofree char *name = NULL;
      double v;
      if (!cml_cli_split_assignment (sets->pdata[k], &name, &v))
        return cml_cli_usage_error (usage, _("--set takes NAME=NUMBER, not “%s”"),
                                    (char *) sets->pdata[k]);
      if (!cml_simulation_set_param (sim, name, v, &error))
        {
          fprintf (stderr, "cmlab-cli: %s\n", error->message);
          return CML_CLI_EXIT_USAGE;
        }
    }
  /* the values together are possible (each was checked alone above: --set I1=6 --set I3=4
   * passes through I1 = 6 with I3 = 3 on its way) */
  {
    g_autofree double *values = g_new0 (double, MAX (model->params->len, 1));

    for (guint k = 0; k < model->params->len; k++)
      values[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
    if (!cml_model_check_params (model, values, &error))
      {
        fprintf (stderr, "cmlab-cli: %s\n", error->message);
        return CML_CLI_EXIT_USAGE;
      }
  }
  *out = g_steal_pointer (&sim);
  return 0;
}

int
cml_cli_parse_inits (GPtrArray *inits, GHashTable *given, const char *usage)
{
  if (run_session)
    {
      /* the session's initial state, then --init over it */
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, run_session->initial);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (given, g_strdup (k), g_memdup2 (v, sizeof (double)));
    }
  for (guint k = 0; inits && k < inits->len; k++)
    {
      char *name = NULL;
      double v;
      if (!cml_cli_split_assignment (inits->pdata[k], &name, &v))
        return cml_cli_usage_error (usage, _("--init takes NAME=NUMBER, not “%s”"),
                                    (char *) inits->pdata[k]);
      g_hash_table_insert (given, name, g_memdup2 (&v, sizeof v));
    }
  return 0;
}

gboolean
cml_cli_check_output_path (const char *option, const char *path, char **why)
{
  g_autofree char *dir = NULL;

  if (path == NULL || g_str_equal (path, "-"))
    return TRUE;
  if (*path == '\0')
    {
      *why = g_strdup_printf (_("%s needs a file name, not an empty one"), option);
      return FALSE;
    }
  if (g_str_has_suffix (path, "/") || g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf (_("%s “%s” is a directory: give a file name (e.g. %s%sout.csv)"), option, path, path,
                              g_str_has_suffix (path, "/") ? "" : "/");
      return FALSE;
    }
  dir = g_path_get_dirname (path);
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf (_("%s “%s”: cannot write there: “%s” is not a directory"), option, path, dir);
      return FALSE;
    }
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf (_("%s “%s”: there is no directory “%s”"), option, path, dir);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      *why = g_strdup_printf (_("%s “%s”: cannot write in the directory “%s”: %s"), option, path, dir,
                              g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_cli_check_rows (const char *path, guint64 n_rows, gsize row_bytes, char **why)
{
  gboolean to_stdout = path == NULL || g_str_equal (path, "-");
  double bytes = (double) n_rows * row_bytes;
  struct stat st;

  /* a pipe, a terminal or a device that exists is written to as it is (cml-atomic-file.c):
   * its free space cannot be known either, as standard output's */
  if (!to_stdout && stat (path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      if (n_rows > CML_CLI_MAX_STDOUT_ROWS)
        {
          *why = g_strdup_printf (_("%llu rows (about %.3g GB) to “%s”, not a file but a pipe or a device, more "
                                  "than 10^7, the limit there (its free space cannot be known): use a larger "
                                  "--dt-out, or -o FILE"), (unsigned long long) n_rows, bytes / 1e9, path);
          return FALSE;
        }
      return TRUE;
    }

  if (n_rows > CML_CLI_MAX_ROWS)
    {
      *why = g_strdup_printf (_("%llu rows (about %.3g GB), more than 10^8, the limit: use a "
                              "larger --dt-out"), (unsigned long long) n_rows, bytes / 1e9);
      return FALSE;
    }
  if (to_stdout && n_rows > CML_CLI_MAX_STDOUT_ROWS)
    {
      *why = g_strdup_printf (_("%llu rows (about %.3g GB) to standard output, more than 10^7, "
                              "the limit there (its free space cannot be known): use a larger --dt-out, or -o FILE"),
                              (unsigned long long) n_rows, bytes / 1e9);
      return FALSE;
    }
  if (!to_stdout)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      struct statvfs fs;
      if (statvfs (dir, &fs) == 0)
        {
          double avail = (double) fs.f_bavail * fs.f_frsize;
          if (bytes > avail)
            {
              *why = g_strdup_printf (_("%llu rows need about %.3g GB, and the file system of “%s” has "
                                      "%.3g GB free: use a larger --dt-out"), (unsigned long long) n_rows, bytes / 1e9, dir, avail / 1e9);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* ---- the run options ------------------------------------------------------------------ */

void
cml_cli_run_options_init (CmlCliRunOptions *ro)
{
  memset (ro, 0, sizeof *ro);
  ro->sets = g_ptr_array_new_with_free_func (g_free);
  ro->inits = g_ptr_array_new_with_free_func (g_free);
}

void
cml_cli_run_options_clear (CmlCliRunOptions *ro)
{
  g_clear_pointer (&ro->sets, g_ptr_array_unref);
  g_clear_pointer (&ro->inits, g_ptr_array_unref);
  g_clear_pointer (&ro->output, g_free);
  g_clear_pointer (&ro->session_path, g_free);
  if (run_session == ro->session)
    run_session = NULL;
  run_as_vakonomic = FALSE;
  g_clear_pointer (&ro->session, cml_session_free);
}

gboolean
cml_cli_option_error (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  if (error != NULL)
    *error = g_error_new_valist (G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, fmt, ap);
  va_end (ap);
  return FALSE;
}

/* One run option, checked as it is parsed.  NAME is "--t-end", or "-o" as given. */
static gboolean
run_option (const char *name, const char *value, gpointer data, GError **error)
{
  CmlCliRunOptions *ro = data;
  double v;

  if (g_str_equal (name, "--help") || g_str_equal (name, "-h"))
    ro->help = TRUE;
  else if (g_str_equal (name, "--session"))
    {
      if (ro->session_path)
        return cml_cli_option_error (error, _("--session is given twice (“%s”, “%s”): one session is one run"),
                                     ro->session_path, value);
      ro->session_path = g_strdup (value);
    }
  else if (g_str_equal (name, "--as"))
    {
      if (!g_str_equal (value, "vakonomic"))
        return cml_cli_option_error (error, _("--as takes vakonomic (the nonholonomic model's Lagrangian and "
                                            "constraints read by the vakonomic principle), not “%s”"), value);
      run_as_vakonomic = TRUE;
    }
  else if (g_str_equal (name, "--set"))
    g_ptr_array_add (ro->sets, g_strdup (value));
  else if (g_str_equal (name, "--init"))
    g_ptr_array_add (ro->inits, g_strdup (value));
  else if (g_str_equal (name, "--t-end"))
    {
      if (!cml_cli_parse_double (value, &v) || (!ro->t_end_signed_ok && v < 0)
          || (!ro->t_end_zero_ok && !(v > 0)))
        return cml_cli_option_error (error, _("--t-end needs a number %s, not “%s”"), ro->t_end_zero_ok ? ">= 0" : "> 0",
                                 value);
      ro->t_end = v;
      ro->has_t_end = TRUE;
    }
  else if (g_str_equal (name, "--integrator"))
    {
      if (!cml_integrator_kind_from_string (value, &ro->kind))
        return cml_cli_option_error (error, _("unknown integrator “%s”"), value);
      ro->has_integrator = TRUE;
    }
  else if (g_str_equal (name, "--rtol"))
    {
      if (!cml_cli_parse_double (value, &v) || !(v > 0 && v < 1))
        return cml_cli_option_error (error, _("--rtol needs a number between 0 and 1 (e.g. 1e-8), not “%s”"), value);
      ro->rtol = v;
      ro->has_rtol = TRUE;
    }
  else if (g_str_equal (name, "--atol"))
    {
      if (!cml_cli_parse_double (value, &v) || !(v > 0))
        return cml_cli_option_error (error, _("--atol needs a number > 0, not “%s”"), value);
      ro->atol = v;
      ro->has_atol = TRUE;
    }
  else if (g_str_equal (name, "--step"))
    {
      if (!cml_cli_parse_double (value, &v) || !(v > 0))
        return cml_cli_option_error (error, _("--step needs a number > 0, not “%s”"), value);
      ro->step = v;
      ro->has_step = TRUE;
    }
  else /* -o, --output */
    {
      g_free (ro->output);
      ro->output = g_strdup (value);
    }
  return TRUE;
}

/* Values are taken as they are, bytes and all (G_OPTION_FLAG_FILENAME): no conversion
 * from the locale's encoding that could fail or change a file name. */
#define RUN_ENTRY(long_name, short_name, arg) \
  { long_name, short_name, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) run_option, "", arg }
#define HELP_ENTRY \
  { "help", 'h', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) run_option, "", NULL }

static const GOptionEntry run_entries[] = {
  RUN_ENTRY ("session", 0, "FILE"),
  RUN_ENTRY ("as", 0, "vakonomic"),
  RUN_ENTRY ("set", 0, "P=V"),
  RUN_ENTRY ("init", 0, "S=V"),
  RUN_ENTRY ("t-end", 0, "T"),
  RUN_ENTRY ("integrator", 0, "NAME"),
  RUN_ENTRY ("rtol", 0, "R"),
  RUN_ENTRY ("atol", 0, "A"),
  RUN_ENTRY ("step", 0, "H"),
  RUN_ENTRY ("output", 'o', "FILE"),
  HELP_ENTRY,
  G_OPTION_ENTRY_NULL
};

static const GOptionEntry set_entries[] = {
  RUN_ENTRY ("as", 0, "vakonomic"),
  RUN_ENTRY ("set", 0, "P=V"),
  HELP_ENTRY,
  G_OPTION_ENTRY_NULL
};

/* Whether ARG names an option of ENTRIES that takes a value ("--t-end", "-o"). */
static gboolean
takes_value (const char *arg, const GOptionEntry *entries)
{
  for (const GOptionEntry *e = entries; e && e->long_name; e++)
    {
      gboolean valued = e->arg != G_OPTION_ARG_NONE && !(e->flags & (G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_OPTIONAL_ARG));
      if (!valued)
        continue;
      if (g_str_has_prefix (arg, "--") && g_str_equal (arg + 2, e->long_name))
        return TRUE;
      if (e->short_name && arg[0] == '-' && arg[1] == e->short_name && arg[2] == '\0')
        return TRUE;
    }
  return FALSE;
}

/* Whether the file OUTPUT (-o) is not the file the run reads, INPUT (a session when
 * SESSION, else a model file or a built-in name, resolved as cml_model_load does): the
 * same file by any name (the same device and inode), which the output would replace.
 * FALSE after printing why. */
static gboolean
output_is_not_input (const char *output, const char *input, gboolean session, const char *usage)
{
  struct stat out_st, in_st;

  if (output == NULL || input == NULL || g_str_equal (output, "-") || stat (output, &out_st) != 0)
    return TRUE;
  g_autofree char *file = g_strconcat (input, ".cml", NULL);
  g_autofree char *builtin = g_build_filename (cml_model_builtin_dir (), file, NULL);
  const char *candidates[] = { input, session ? NULL : builtin };
  for (guint k = 0; k < G_N_ELEMENTS (candidates); k++)
    if (candidates[k] && stat (candidates[k], &in_st) == 0 && in_st.st_dev == out_st.st_dev
        && in_st.st_ino == out_st.st_ino && S_ISREG (in_st.st_mode))
      {
        if (session)
          cml_cli_usage_error (usage, _("-o %s is the session file %s: the output would replace it; give another "
                               "name"), output, candidates[k]);
        else
          cml_cli_usage_error (usage, _("-o %s is the model file %s: the output would replace it; give another "
                               "name"), output, candidates[k]);
        return FALSE;
      }
  return TRUE;
}

int
cml_cli_parse_args (int argc, char **argv, const GOptionEntry *entries, gpointer data, CmlCliRunOptions *ro,
                    CmlCliRunOptionsKind which, const char *usage, char **model)
{
  const GOptionEntry *ro_entries = which == CML_CLI_RUN_OPTIONS_ALL ? run_entries : set_entries;
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_new0 (char *, argc + 2);
  GOptionGroup *main_group, *run_group;

  *model = NULL;
  /* an option given last without its value (GLib would say "Missing argument") */
  if (argc > 0 && (takes_value (argv[argc - 1], entries) || takes_value (argv[argc - 1], ro_entries)))
    return cml_cli_usage_error (usage, _("option %s needs a value"), argv[argc - 1]);

  /* GLib's argument vector starts with the program; its short options take no "=", which
   * -o has always taken */
  args[0] = g_strdup ("cmlab-cli");
  for (int i = 0; i < argc; i++)
    args[i + 1] = g_str_has_prefix (argv[i], "-o=") ? g_strconcat ("--output=", argv[i] + 3, NULL)
                                                   : g_strdup (argv[i]);

  main_group = g_option_group_new ("command", "", "", data, NULL);
  if (entries)
    g_option_group_add_entries (main_group, entries);
  g_option_context_set_main_group (context, main_group);
  run_group = g_option_group_new ("run", "", "", ro, NULL);
  g_option_group_add_entries (run_group, ro_entries);
  g_option_context_add_group (context, run_group);
  /* our own --help (the command's usage), and unknown options named by us below */
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_ignore_unknown_options (context, TRUE);

  gboolean parsed = g_option_context_parse_strv (context, &args, &error);
  if (ro->help)
    {
      fputs (_(usage), stdout);
      return 0;
    }
  if (!parsed)
    return cml_cli_usage_error (usage, "%s", error->message);

  /* what is left: the model, and anything GLib did not know */
  gboolean options_end = FALSE;
  for (guint i = 1; args[i]; i++)
    {
      const char *a = args[i];
      if (!options_end && g_str_equal (a, "--"))
        options_end = TRUE;
      else if (!options_end && a[0] == '-' && a[1] != '\0')
        {
          g_clear_pointer (model, g_free);
          return cml_cli_usage_error (usage, _("unknown option “%s”"), a);
        }
      else if (*model == NULL)
        *model = g_strdup (a);
      else
        {
          g_clear_pointer (model, g_free);
          return cml_cli_usage_error (usage, _("unexpected argument “%s”"), a);
        }
    }
  if (!output_is_not_input (ro->output, ro->session_path ? ro->session_path : *model,
                            ro->session_path != NULL, usage))
    {
      g_clear_pointer (model, g_free);
      return CML_CLI_EXIT_USAGE;
    }
  if (ro->session_path)
    {
      g_autoptr (GError) serr = NULL;
      if (*model != NULL)
        {
          int status = cml_cli_usage_error (usage, _("--session %s gives the model: no model “%s” besides it"),
                                            ro->session_path, *model);
          g_clear_pointer (model, g_free);
          return status;
        }
      ro->session = cml_session_load (ro->session_path, &serr);
      if (ro->session == NULL)
        {
          /* "FILE:LINE: …", as a model's errors */
          fprintf (stderr, "cmlab-cli: %s\n", serr->message);
          return CML_CLI_EXIT_USAGE;
        }
      run_session = ro->session;
      *model = g_strdup (ro->session_path);
      return CML_CLI_CONTINUE;
    }
  if (*model == NULL)
    return cml_cli_usage_error (usage, _("which model? Give a model file or a built-in name (or --session FILE)"));
  return CML_CLI_CONTINUE;
}

int
cml_cli_run_options_integrator (const CmlCliRunOptions *ro, CmlIntegratorOptions *iopt, const char *usage)
{
  if (ro->session)
    {
      /* the session's integrator, tolerances, step and projection; the options over them */
      CmlIntegratorStats *stats = iopt->stats;
      *iopt = ro->session->integrator;
      iopt->stats = stats;
    }
  if (ro->has_integrator)
    iopt->kind = ro->kind;
  /* a fixed-step method has a step and no tolerances; an adaptive one the other way round */
  if (ro->has_step && !cml_integrator_kind_is_fixed_step (iopt->kind))
    return cml_cli_usage_error (usage, _("--step sets the step of a fixed-step integrator (implicit-midpoint, variational, variational4); %s "
                                "chooses its own steps from --rtol and --atol"),
                                cml_integrator_kind_to_string (iopt->kind));
  if ((ro->has_rtol || ro->has_atol) && cml_integrator_kind_is_fixed_step (iopt->kind))
    return cml_cli_usage_error (usage, _("%s takes fixed steps (--step H, default %g): --rtol and --atol do not apply"),
                                cml_integrator_kind_to_string (iopt->kind), iopt->h_fixed);
  if (ro->has_rtol)
    iopt->rtol = ro->rtol;
  if (ro->has_atol)
    iopt->atol = ro->atol;
  if (ro->has_step)
    iopt->h_fixed = ro->step;
  return 0;
}

/* ---- the span ---------------------------------------------------------------------------- */

gboolean
cml_cli_check_span (CmlSimulation *sim, GHashTable *given, double t_end, char **why)
{
  CmlSpanEstimate e;

  /* forwards or backwards (simulate --t-start T0 with T < T0) alike */
  if (cml_simulation_span_reachable (sim, given, t_end, &e))
    return TRUE;
  g_autofree char *estimate = isfinite (e.steps) ? g_strdup_printf (_("about %.2g"), e.steps)
                                                 : g_strdup (_("more than 10^308"));
  *why = g_strdup_printf (_("--t-end %g is out of reach: the first %d steps of the integrator went from t = %g "
                          "to t = %.6g, so t = %g would take %s steps, more than 10^9 (hours of "
                          "computing): use a shorter --t-end"),
                          t_end, CML_SPAN_PROBE_STEPS, e.t0, e.t_reached, t_end, estimate);
  return FALSE;
}

int
cml_cli_start_simulation (const char *model, GPtrArray *sets, GPtrArray *inits, GHashTable *given,
                          CmlIntegratorOptions *iopt, CmlCliProgress *progress, double t_end,
                          const char *usage, CmlSimulation **sim)
{
  g_autoptr (GError) error = NULL;
  int status;

  if ((status = cml_cli_parse_inits (inits, given, usage)) != 0)
    return status;
  if ((status = cml_cli_open_simulation (model, sets, usage, sim)) != 0)
    return status;
  if (progress)
    cml_cli_progress_init (progress, "simulating", iopt);
  if (!cml_simulation_set_integrator (*sim, iopt, &error))
    return cml_cli_integrator_error (usage, error);
  if (progress)
    /* what auto chose */
    cml_cli_progress_set_kind (progress, cml_simulation_get_integrator (*sim)->kind);
  if (!cml_simulation_reset (*sim, given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  /* a span the integrator cannot cover (--t-end 1e300), as simulate refuses it */
  g_autofree char *why = NULL;
  if (!cml_cli_check_span (*sim, given, t_end, &why))
    {
      fprintf (stderr, "cmlab-cli: %s\n", why);
      return CML_CLI_EXIT_USAGE;
    }
  return 0;
}

/* ---- progress ---------------------------------------------------------------------------- */

#define PROGRESS_FIRST_USEC  G_USEC_PER_SEC       /* nothing shown for a run shorter */
#define PROGRESS_EVERY_USEC  (G_USEC_PER_SEC / 4)
#define SLOW_NOTE_USEC       (5 * G_USEC_PER_SEC) /* the slow-progress note after this long … */
#define SLOW_NOTE_FRACTION   0.01                 /* … with less than this much done */
#define STIFF_MIN_STEPS      1000                 /* no word on stiffness for a shorter run */
#define STIFF_MIN_CHECKS     8                    /* estimates of h ρ before one is trusted */

/* Monotonic µs for the progress line, read at every row: the kernel's coarse clock where
 * there is one (a few ns, to within 4 ms; the precise clock was 2 % of a large export). */
static gint64
progress_now (void)
{
#ifdef CLOCK_MONOTONIC_COARSE
  struct timespec ts;

  if (clock_gettime (CLOCK_MONOTONIC_COARSE, &ts) == 0)
    return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
#endif
  return g_get_monotonic_time ();
}

void
cml_cli_progress_init (CmlCliProgress *p, const char *what, CmlIntegratorOptions *iopt)
{
  memset (p, 0, sizeof *p);
  p->what = what;
  p->start = p->last = progress_now ();
  p->tty = isatty (STDERR_FILENO);
  cml_cli_progress_set_kind (p, iopt->kind);
  iopt->stats = &p->stats;
}

void
cml_cli_progress_set_kind (CmlCliProgress *p, CmlIntegratorKind kind)
{
  p->integrator = cml_integrator_kind_to_string (kind);
  p->explicit_rk = kind == CML_INTEGRATOR_RK8PD || kind == CML_INTEGRATOR_RKF45 || kind == CML_INTEGRATOR_RKCK
                   || kind == CML_INTEGRATOR_RK4;
}

gboolean
cml_cli_looks_stiff (const CmlIntegratorStats *s)
{
  if (s->n_steps < STIFF_MIN_STEPS)
    return FALSE;
  /* most of its tries rejected */
  if (s->n_rejected > s->n_steps)
    return TRUE;
  /* the step held at the method's stability limit, not by accuracy */
  return s->n_stiff_checks >= STIFF_MIN_CHECKS && 2 * s->n_stiff > s->n_stiff_checks;
}

char *
cml_cli_progress_note (CmlCliProgress *p, double t, gint64 now, double done)
{
  if (p->noted || !p->explicit_rk)
    return NULL;
  if (cml_cli_looks_stiff (&p->stats))
    {
      p->noted = TRUE;
      return g_strdup_printf (_("the system looks stiff here: try --integrator msbdf (at t = %.6g %s takes steps of "
                              "%.3g, held by its stability limit, not by the accuracy asked for; %llu "
                              "of %llu tries rejected)"),
                              t, p->integrator, p->stats.h, (unsigned long long) p->stats.n_rejected,
                              (unsigned long long) (p->stats.n_steps + p->stats.n_rejected));
    }
  if (now - p->start > SLOW_NOTE_USEC && done < SLOW_NOTE_FRACTION)
    {
      p->noted = TRUE;
      return g_strdup_printf (_("slow progress with %s; if the system is stiff, --integrator msbdf may be much faster"),
                              p->integrator);
    }
  return NULL;
}

char *
cml_cli_progress_line (CmlCliProgress *p, double t, double t_end, gint64 now)
{
  double done = t_end > 0 ? CLAMP (t / t_end, 0.0, 1.0) : 1.0;
  double elapsed = (now - p->start) / 1e6;

  if (!p->tty || now - p->start < PROGRESS_FIRST_USEC || now - p->last < PROGRESS_EVERY_USEC)
    return NULL;
  p->last = now;
  if (done > 0)
    /* TRANSLATORS: progress on the terminal: the command, the time reached, the end time, the percentage, the
     * seconds left */
    return g_strdup_printf (_("%s: t = %.6g of %.6g (%.0f%%), %.0f s left"), p->what, t, t_end, 100 * done,
                            ceil (elapsed / done * (1 - done)));
  return g_strdup_printf (_("%s: t = %.6g of %.6g"), p->what, t, t_end);
}

static void
print_note (CmlCliProgress *p, const char *note)
{
  if (p->shown)
    fputs ("\n", stderr);
  p->shown = FALSE;
  fprintf (stderr, _("cmlab-cli: note: %s\n"), note);
}

void
cml_cli_progress_update (CmlCliProgress *p, double t, double t_end)
{
  gint64 now = progress_now ();
  double done = t_end > 0 ? CLAMP (t / t_end, 0.0, 1.0) : 1.0;
  g_autofree char *note = cml_cli_progress_note (p, t, now, done);
  g_autofree char *line = NULL;

  if (note)
    print_note (p, note);
  if ((line = cml_cli_progress_line (p, t, t_end, now)) == NULL)
    return;
  fprintf (stderr, "\r\033[K%s", line);
  fflush (stderr);
  p->shown = TRUE;
}

void
cml_cli_progress_done (CmlCliProgress *p)
{
  if (p->shown)
    fputs ("\r\033[K", stderr);
  p->shown = FALSE;
}

void
cml_cli_progress_failed (CmlCliProgress *p, const char *message)
{
  cml_cli_progress_done (p);
  if (p->noted || !p->explicit_rk)
    return;
  if (message && strstr (message, "step size"))
    {
      p->noted = TRUE;
      print_note (p, _("the system looks stiff here: try --integrator msbdf (the step size of the explicit method "
                     "collapsed)"));
    }
}

#ifndef CMLAB_LESSONS_INSTALL_DIR
/* (src/cli/meson.build gives the installed one; a test that builds this file alone has none) */
#define CMLAB_LESSONS_INSTALL_DIR NULL
#endif

char *
cml_cli_find_lesson (const char *arg)
{
  const char *env = g_getenv ("CMLAB_LESSONS_DIR");
  const char *const dirs[] = { env, CMLAB_LESSONS_INSTALL_DIR };

  if (g_file_test (arg, G_FILE_TEST_EXISTS) || strchr (arg, G_DIR_SEPARATOR) || g_str_has_suffix (arg, ".cmllesson"))
    return g_strdup (arg);
  for (guint k = 0; k < G_N_ELEMENTS (dirs); k++)
    {
      g_autofree char *file = g_strconcat (arg, ".cmllesson", NULL);
      g_autofree char *path = dirs[k] && *dirs[k] ? g_build_filename (dirs[k], file, NULL) : NULL;
      if (path && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  return g_strdup (arg);
}
