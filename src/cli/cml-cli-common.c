/* cml-cli-common.c — argument parsing and model loading shared by cmlab-cli's commands.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-cli-common"

#include "cml-cli-common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <sys/statvfs.h>
#include <unistd.h>

#include "cml-integrator.h"
#include "cml-model.h"

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

int
cml_cli_usage_error (const char *usage, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("cmlab-cli: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputs ("\n", stderr);
  va_end (ap);
  if (usage)
    fputs (usage, stderr);
  return CML_CLI_EXIT_USAGE;
}

int
cml_cli_open_simulation (const char *model_name, GPtrArray *sets, const char *usage,
                         CmlSimulation **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (model_name, &error);
  if (model == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  if (sys == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  for (guint k = 0; k < model->warnings->len; k++)
    fprintf (stderr, "warning: %s\n", (char *) model->warnings->pdata[k]);
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  if (sim == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  for (guint k = 0; sets && k < sets->len; k++)
    {
      g_autofree char *name = NULL;
      double v;
      if (!cml_cli_split_assignment (sets->pdata[k], &name, &v))
        return cml_cli_usage_error (usage, "--set takes NAME=NUMBER, not “%s”",
                                    (char *) sets->pdata[k]);
      if (!cml_simulation_set_param (sim, name, v, &error))
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
  for (guint k = 0; inits && k < inits->len; k++)
    {
      char *name = NULL;
      double v;
      if (!cml_cli_split_assignment (inits->pdata[k], &name, &v))
        return cml_cli_usage_error (usage, "--init takes NAME=NUMBER, not “%s”",
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
      *why = g_strdup_printf ("%s needs a file name, not an empty one", option);
      return FALSE;
    }
  if (g_str_has_suffix (path, "/") || g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf ("%s “%s” is a directory: give a file name (e.g. %s%sout.csv)", option, path, path,
                              g_str_has_suffix (path, "/") ? "" : "/");
      return FALSE;
    }
  dir = g_path_get_dirname (path);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      *why = g_strdup_printf ("%s “%s”: there is no directory “%s”", option, path, dir);
      return FALSE;
    }
  if (access (dir, W_OK) != 0)
    {
      *why = g_strdup_printf ("%s “%s”: cannot write in the directory “%s”: %s", option, path, dir,
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

  if (n_rows > CML_CLI_MAX_ROWS)
    {
      *why = g_strdup_printf ("%" G_GUINT64_FORMAT " rows (about %.3g GB), more than 10^8, the limit: use a "
                              "larger --dt-out", n_rows, bytes / 1e9);
      return FALSE;
    }
  if (to_stdout && n_rows > CML_CLI_MAX_STDOUT_ROWS)
    {
      *why = g_strdup_printf ("%" G_GUINT64_FORMAT " rows (about %.3g GB) to standard output, more than 10^7, "
                              "the limit there (its free space cannot be known): use a larger --dt-out, or -o FILE",
                              n_rows, bytes / 1e9);
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
              *why = g_strdup_printf ("%" G_GUINT64_FORMAT " rows need about %.3g GB, and the file system of “%s” has "
                                      "%.3g GB free: use a larger --dt-out", n_rows, bytes / 1e9, dir, avail / 1e9);
              return FALSE;
            }
        }
    }
  return TRUE;
}

#define PROGRESS_FIRST_USEC  G_USEC_PER_SEC       /* nothing shown for a run shorter */
#define PROGRESS_EVERY_USEC  (G_USEC_PER_SEC / 4)
#define SLOW_NOTE_USEC       (5 * G_USEC_PER_SEC) /* the stiffness note after this long … */
#define SLOW_NOTE_FRACTION   0.01                 /* … with less than this much done */

void
cml_cli_progress_init (CmlCliProgress *p, const char *what, int integrator_kind)
{
  CmlIntegratorKind kind = (CmlIntegratorKind) integrator_kind;

  memset (p, 0, sizeof *p);
  p->what = what;
  p->start = p->last = g_get_monotonic_time ();
  p->tty = isatty (STDERR_FILENO);
  p->integrator = cml_integrator_kind_to_string (kind);
  p->explicit_rk = kind == CML_INTEGRATOR_RK8PD || kind == CML_INTEGRATOR_RKF45 || kind == CML_INTEGRATOR_RKCK
                   || kind == CML_INTEGRATOR_RK4;
}

static void
progress_note (CmlCliProgress *p, const char *why)
{
  if (p->noted || !p->explicit_rk)
    return;
  p->noted = TRUE;
  if (p->shown)
    fputs ("\n", stderr);
  p->shown = FALSE;
  fprintf (stderr, "cmlab-cli: note: %s with %s; if the system is stiff, --integrator msbdf may be much faster\n",
           why, p->integrator);
}

void
cml_cli_progress_update (CmlCliProgress *p, double t, double t_end)
{
  gint64 now = g_get_monotonic_time ();
  double done = t_end > 0 ? CLAMP (t / t_end, 0.0, 1.0) : 1.0;
  double elapsed = (now - p->start) / 1e6;

  if (now - p->start > SLOW_NOTE_USEC && done < SLOW_NOTE_FRACTION)
    progress_note (p, "slow progress");
  if (!p->tty || now - p->start < PROGRESS_FIRST_USEC || now - p->last < PROGRESS_EVERY_USEC)
    return;
  p->last = now;
  if (done > 0)
    fprintf (stderr, "\r\033[K%s: t = %.6g of %.6g (%.0f%%), %.0f s left", p->what, t, t_end, 100 * done,
             ceil (elapsed / done * (1 - done)));
  else
    fprintf (stderr, "\r\033[K%s: t = %.6g of %.6g", p->what, t, t_end);
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
  if (message && strstr (message, "step size"))
    progress_note (p, "the step size collapsed");
}
