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
