/* cml-poincare-cmd.c — `cmlab-cli poincare MODEL --section EXPR=VALUE
 *                      [--direction up|down|both] --columns A,B --t-end T [-o FILE]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the model (with the run options every command shares: --set, --init, the
 * integrator and its tolerances) and writes, for each crossing of the section in the
 * direction asked for, the crossing time and the two columns there: a header "t,A,B" after
 * '#' lines naming the model, the section and the run, then one row per crossing at full
 * precision.  The crossings are located by cml-section (Brent's method on the
 * integrator's own solution), not taken from the nearest sample.  The file is written
 * completely or not at all.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-poincare-cmd.h"

#include <glib/gi18n.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cml-atomic-file.h"
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-section.h"

static const char *poincare_usage =
  N_("Usage: cmlab-cli poincare MODEL --section EXPR=VALUE [--direction up|down|both]\n"
  "                  --columns A,B --t-end T [--max-step H] [--set P=V]... [--init S=V]...\n"
  "                  [--integrator NAME] [--rtol R] [--atol A] [--step H] [-o FILE]\n"
  "Writes where the run crosses the section EXPR = VALUE (an equation in the model's\n"
  "coordinates, velocities, momenta, monitors and parameters, e.g. y=0 or energy=0.5), going\n"
  "up (EXPR − VALUE from negative to positive, the default), down or both ways: a row\n"
  "t,A,B per crossing, located to the integrator's accuracy (not the nearest sample).\n"
  "--max-step H: the longest piece searched for a crossing (default T/10000, at most 0.01 of\n"
  "the time unit); two crossings closer than it may be missed.\n");

typedef struct
{
  char  *section;
  char  *direction;
  char  *columns;
  double max_step;
} PoincareOptions;

static gboolean
poincare_option (const char *name, const char *value, gpointer data, GError **error)
{
  PoincareOptions *po = data;
  char **slot;

  if (g_str_equal (name, "--max-step"))
    {
      if (!cml_cli_parse_double (value, &po->max_step) || !(po->max_step > 0))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--max-step needs a number > 0, not “%s”"),
                       value);
          return FALSE;
        }
      return TRUE;
    }
  slot = g_str_equal (name, "--section") ? &po->section : g_str_equal (name, "--direction") ? &po->direction
                                                                                              : &po->columns;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

#define POINCARE_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) poincare_option, "", arg }

static const GOptionEntry poincare_entries[] = {
  POINCARE_ENTRY ("section", "EXPR=VALUE"),
  POINCARE_ENTRY ("direction", "up|down|both"),
  POINCARE_ENTRY ("columns", "A,B"),
  POINCARE_ENTRY ("max-step", "H"),
  G_OPTION_ENTRY_NULL
};

static void
poincare_options_clear (PoincareOptions *po)
{
  g_free (po->section);
  g_free (po->direction);
  g_free (po->columns);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PoincareOptions, poincare_options_clear)

typedef struct
{
  GString *out;
  int      ia, ib;
  guint    n;
} Rows;

static void
append_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

static void
on_crossing (double t, const double *obs, gpointer data)
{
  Rows *rows = data;

  append_number (rows->out, t);
  g_string_append_c (rows->out, ',');
  append_number (rows->out, obs[rows->ia]);
  g_string_append_c (rows->out, ',');
  append_number (rows->out, obs[rows->ib]);
  g_string_append_c (rows->out, '\n');
  rows->n++;
}

int
cml_poincare_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_auto (PoincareOptions) po = { 0 };
  g_autofree char *model_name = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (CmlSection) section = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) cols = NULL;
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlSectionDirection direction = CML_SECTION_UP;
  const char *output;
  Rows rows = { 0 };
  double max_step;
  int status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, poincare_entries, &po, &ro, CML_CLI_RUN_OPTIONS_ALL, poincare_usage,
                               &model_name);
  if (status != CML_CLI_CONTINUE)
    return status;
  output = ro.output ? ro.output : "-";

  if (po.section == NULL || po.columns == NULL || !ro.has_t_end)
    return cml_cli_usage_error (poincare_usage, _("poincare needs --section EXPR=VALUE, --columns A,B and --t-end T"));
  if (po.direction == NULL || g_str_equal (po.direction, "up"))
    direction = CML_SECTION_UP;
  else if (g_str_equal (po.direction, "down"))
    direction = CML_SECTION_DOWN;
  else if (g_str_equal (po.direction, "both"))
    direction = CML_SECTION_BOTH;
  else
    return cml_cli_usage_error (poincare_usage, _("--direction is up, down or both, not “%s”"), po.direction);
  cols = g_strsplit (po.columns, ",", -1);
  if (g_strv_length (cols) != 2)
    return cml_cli_usage_error (poincare_usage, _("--columns names two quantities, A,B (e.g. x,u), not “%s”"),
                                po.columns);
  max_step = po.max_step > 0 ? po.max_step : MIN (ro.t_end / 10000, 0.01);
  if (ro.t_end / max_step > 1e9)
    return cml_cli_usage_error (poincare_usage, _("--t-end %g in pieces of %g is more than 10^9 pieces: use a larger "
                                "--max-step or a shorter --t-end"), ro.t_end, max_step);
  if ((status = cml_cli_run_options_integrator (&ro, &iopt, poincare_usage)) != 0)
    return status;
  {
    g_autofree char *why = NULL;

    if (!cml_cli_check_output_path ("-o", output, &why))
      return cml_cli_usage_error (poincare_usage, "%s", why);
  }
  if ((status = cml_cli_parse_inits (ro.inits, given, poincare_usage)) != 0)
    return status;
  if ((status = cml_cli_open_simulation (model_name, ro.sets, poincare_usage, &sim)) != 0)
    return status;
  if (!cml_simulation_set_integrator (sim, &iopt, &error))
    return cml_cli_usage_error (NULL, "%s", error->message);
  if (!cml_simulation_reset (sim, given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  section = cml_section_new (sys, po.section, direction, &error);
  if (section == NULL)
    return cml_cli_usage_error (NULL, "%s", error->message);
  for (guint k = 0; k < 2; k++)
    {
      g_strstrip (cols[k]);
      if (cml_system_observable_index (sys, cols[k]) < 0)
        return cml_cli_usage_error (NULL, _("%s has no quantity “%s” for --columns"), model->name, cols[k]);
    }

  rows.out = g_string_new (NULL);
  rows.ia = cml_system_observable_index (sys, cols[0]);
  rows.ib = cml_system_observable_index (sys, cols[1]);
  g_string_append_printf (rows.out, "# cmlab poincare: %s (%s)\n# section: %s, crossed %s\n# ", model->name,
                          model->title_untranslated, po.section,
                          direction == CML_SECTION_UP ? "upwards" : direction == CML_SECTION_DOWN ? "downwards"
                                                                                                  : "both ways");
  {
    g_autofree char *integrator = cml_integrator_options_describe (&iopt);

    g_string_append_printf (rows.out, "integrator: %s; run to t = ", integrator);
    append_number (rows.out, ro.t_end);
    g_string_append (rows.out, "\n");
  }
  g_string_append_printf (rows.out, "t,%s,%s\n", cols[0], cols[1]);

  if (!cml_section_run (section, sim, ro.t_end, max_step, on_crossing, &rows, &error))
    {
      fprintf (stderr, _("cmlab-cli: run failed: %s\n"), error->message);
      g_string_free (rows.out, TRUE);
      return CML_CLI_EXIT_RUN_FAILED;
    }
  if (g_str_equal (output, "-"))
    fputs (rows.out->str, stdout);
  else if (!cml_atomic_file_set_contents (output, rows.out->str, rows.out->len, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      g_string_free (rows.out, TRUE);
      return CML_CLI_EXIT_USAGE;
    }
  g_string_free (rows.out, TRUE);
  fprintf (stderr, ngettext ("cmlab-cli: %u crossing of %s\n", "cmlab-cli: %u crossings of %s\n", rows.n), rows.n, po.section);
  return 0;
}
