/* cml-list-cmd.c — `cmlab-cli list [models | commands | integrators | parameters MODEL |
 *                   state MODEL | observables MODEL]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Without an argument (or with `models`): the built-in models with their titles, for
 * people.  The other lists are one name per line and nothing else, for scripts and the
 * shell's completion (data/completion): the built-in models' names (`model-names`: a
 * name may hold spaces or any character but a control character); the commands; the integrators; a model's
 * parameters (what --set takes and --vary varies); its state names (what --init takes:
 * coordinates, velocities, momenta, reconstruction variables); its observables (what
 * --columns, --measure, --x and --y take: those, the monitors, definitions, constraint
 * multipliers and the residual).
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-list-cmd.h"

#include <glib/gi18n.h>

#include <stdio.h>

#include "cml-cli-common.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-model-titles.h"
#include "cml-system.h"

#define EXIT_USAGE 2

const char *const cml_cli_commands[] = {
#ifdef CMLAB_HAVE_RENDER
  "simulate", "plot", "render", "poincare", "sweep", "shoot", "explore", "info", "rhs", "list", "lesson", NULL
#else
  "simulate", "poincare", "sweep", "shoot", "explore", "info", "rhs", "list", "lesson", NULL
#endif
};

static const char *list_usage =
  N_("Usage: cmlab-cli list [models | model-names | commands | integrators | parameters MODEL |\n"
  "                       state MODEL | observables MODEL]\n"
  "Without an argument, the built-in models with their titles.  The other lists print one\n"
  "name per line (for scripts and shell completion): the built-in models' names, the\n"
  "commands, the integrators, and a model's parameters (--set, --vary), state names\n"
  "(--init) or observables (--columns, --measure, --x, --y).\n");

static int
list_usage_error (const char *what)
{
  g_autofree char *try_help = cml_cli_try_help ();
  fprintf (stderr, _("cmlab-cli list: %s\n%s"), what, try_help);
  return EXIT_USAGE;
}

static int
list_models (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_auto (GStrv) titles = cml_model_builtin_titles ((const char *const *) names, NULL);
  for (guint k = 0; names[k]; k++)
    printf ("%-24s %s\n", names[k], titles[k]);
  return 0;
}

/* A model's names: parameters from the file alone, the rest from its derived system. */
static int
list_model_names (const char *what, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  if (model == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (g_str_equal (what, "parameters"))
    {
      for (guint k = 0; k < model->params->len; k++)
        printf ("%s\n", ((CmlParam *) model->params->pdata[k])->name);
      return 0;
    }
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  if (sys == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (g_str_equal (what, "state"))
    {
      /* the state, and for a nonholonomic or free system the velocities in it already */
      for (guint i = 0; i < cml_system_dim (sys); i++)
        printf ("%s\n", cml_system_state_name (sys, i));
      if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
        for (guint a = 0; a < model->n; a++)
          printf ("%s\n", model->fibre[a]);
      return 0;
    }
  for (guint i = 0; i < cml_system_n_observables (sys); i++)
    printf ("%s\n", cml_system_observable_name (sys, i));
  return 0;
}

int
cml_list_main (int argc, char **argv)
{
  if (argc >= 1 && (g_str_equal (argv[0], "--help") || g_str_equal (argv[0], "-h")))
    {
      fputs (_(list_usage), stdout);
      return 0;
    }
  if (argc == 0 || (argc == 1 && g_str_equal (argv[0], "models")))
    return list_models ();
  if (argc == 1 && g_str_equal (argv[0], "model-names"))
    {
      g_auto (GStrv) names = cml_model_list_builtin ();
      for (guint k = 0; names[k]; k++)
        printf ("%s\n", names[k]);
      return 0;
    }
  if (argc == 1 && g_str_equal (argv[0], "commands"))
    {
      for (guint k = 0; cml_cli_commands[k]; k++)
        printf ("%s\n", cml_cli_commands[k]);
      return 0;
    }
  if (argc == 1 && g_str_equal (argv[0], "integrators"))
    {
      for (int k = 0; k < CML_INTEGRATOR_N_KINDS; k++)
        printf ("%s\n", cml_integrator_kind_to_string ((CmlIntegratorKind) k));
      return 0;
    }
  if (g_str_equal (argv[0], "parameters") || g_str_equal (argv[0], "state")
      || g_str_equal (argv[0], "observables"))
    {
      if (argc != 2)
        return list_usage_error (_("which model? e.g. cmlab-cli list parameters rolling-ball"));
      return list_model_names (argv[0], argv[1]);
    }
  g_autofree char *msg = g_strdup_printf (_("unknown list “%s”"), argv[0]);
  return list_usage_error (msg);
}
