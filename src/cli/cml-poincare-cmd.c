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
 * integrator's own solution), not taken from the nearest sample.
 *
 * The rows are written as they are found (to -o FILE under its temporary name, which is
 * renamed at the end: the file is written completely or not at all; Ctrl-C, SIGTERM or
 * SIGHUP drop it), so memory does not grow with the crossings.  A run stops at
 * --max-crossings N, at most POINCARE_MAX_CROSSINGS (POINCARE_MAX_STDOUT_CROSSINGS to
 * standard output, whose free space cannot be known, as simulate's rows), with the rows
 * found and a message naming the time reached; the section is run in pieces of
 * POINCARE_CHUNK_PIECES between two looks at the count, whose ends are the ends the whole
 * run's pieces have (the same rows, bit for bit).  A span no run reaches is refused
 * before anything runs, as simulate refuses it.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-poincare-cmd.h"

#include <glib/gi18n.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
  "the time unit); two crossings closer than it may be missed.\n"
  "--max-crossings N: stop after N crossings (at most 10^8 to a file, 10^7 to standard\n"
  "output, the default).\n");

#define POINCARE_MAX_CROSSINGS        ((guint64) CML_CLI_MAX_ROWS)
#define POINCARE_MAX_STDOUT_CROSSINGS ((guint64) CML_CLI_MAX_STDOUT_ROWS)
#define POINCARE_CHUNK_PIECES         1000

typedef struct
{
  char   *section;
  char   *direction;
  char   *columns;
  double  max_step;
  guint64 max_crossings; /* 0: the limit */
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
  if (g_str_equal (name, "--max-crossings"))
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, POINCARE_MAX_CROSSINGS, &po->max_crossings, NULL))
        return cml_cli_option_error (error, _("--max-crossings needs a whole number from 1 to 10^8, not “%s”"), value);
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
  POINCARE_ENTRY ("max-crossings", "N"),
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

/* Where the rows go, as the crossings are found. */
typedef struct
{
  FILE    *fp;
  GString *line;
  int      ia, ib;
  guint64  n, max;   /* crossings written; the most to write */
  double   t_last;   /* the time of the last one */
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

  /* past the limit within the last piece of crossings: not written */
  if (rows->n >= rows->max)
    return;
  g_string_truncate (rows->line, 0);
  append_number (rows->line, t);
  g_string_append_c (rows->line, ',');
  append_number (rows->line, obs[rows->ia]);
  g_string_append_c (rows->line, ',');
  append_number (rows->line, obs[rows->ib]);
  g_string_append_c (rows->line, '\n');
  fputs (rows->line->str, rows->fp);
  rows->n++;
  rows->t_last = t;
}

/* Ctrl-C, SIGTERM or SIGHUP while -o FILE is written: the temporary file goes, and the
 * signal then ends the process as it would have. */
static void
check_interrupted (CmlAtomicFile *file)
{
  if (file == NULL || cml_atomic_file_interrupted () == 0)
    return;
  fprintf (stderr, _("cmlab-cli: interrupted (%s); %s not written\n"), g_strsignal (cml_atomic_file_interrupted ()),
           cml_atomic_file_get_path (file));
  cml_atomic_file_abort (file);
  cml_atomic_file_release_signals ();
  _exit (CML_CLI_EXIT_USAGE);
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
  g_autoptr (CmlAtomicFile) file = NULL;
  g_autoptr (GString) head = g_string_new (NULL);
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
  if ((status = cml_cli_start_simulation (model_name, ro.sets, ro.inits, given, &iopt, NULL,
                                          ro.t_end, poincare_usage, &sim)) != 0)
    return status;

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

  rows.line = g_string_new (NULL);
  rows.ia = cml_system_observable_index (sys, cols[0]);
  rows.ib = cml_system_observable_index (sys, cols[1]);
  {
    guint64 limit = g_str_equal (output, "-") ? POINCARE_MAX_STDOUT_CROSSINGS : POINCARE_MAX_CROSSINGS;
    rows.max = po.max_crossings ? MIN (po.max_crossings, limit) : limit;
  }
  g_string_append_printf (head, "# cmlab poincare: %s (%s)\n# section: %s, crossed %s\n# ", model->name,
                          model->title_untranslated, po.section,
                          direction == CML_SECTION_UP ? "upwards" : direction == CML_SECTION_DOWN ? "downwards"
                                                                                                  : "both ways");
  {
    g_autofree char *integrator = cml_integrator_options_describe (cml_simulation_get_integrator (sim)); /* what auto chose */

    g_string_append_printf (head, "integrator: %s; run to t = ", integrator);
    append_number (head, ro.t_end);
    g_string_append (head, "\n");
  }
  g_string_append_printf (head, "t,%s,%s\n", cols[0], cols[1]);

  rows.fp = stdout;
  if (!g_str_equal (output, "-"))
    {
      file = cml_atomic_file_new (output, CML_ATOMIC_FILE_DEFAULT, &error);
      if (file == NULL)
        {
          fprintf (stderr, "cmlab-cli: %s\n", error->message);
          g_string_free (rows.line, TRUE);
          return CML_CLI_EXIT_USAGE;
        }
      rows.fp = cml_atomic_file_get_stream (file);
      cml_atomic_file_hold_signals ();
    }
  fputs (head->str, rows.fp);

  /* the run, a chunk of pieces at a time, until T or the limit */
  gboolean ok = TRUE;
  double t = cml_simulation_get_time (sim);
  while (ok && t < ro.t_end && rows.n < rows.max)
    {
      /* the end of the chunk: where the whole run's pieces would end, as cml_section_run
       * steps them */
      double t1 = t;
      for (guint k = 0; k < POINCARE_CHUNK_PIECES && t1 < ro.t_end; k++)
        t1 = MIN (t1 + max_step, ro.t_end);
      ok = cml_section_run (section, sim, t1, max_step, on_crossing, &rows, &error);
      t = cml_simulation_get_time (sim);
      check_interrupted (file);
    }
  g_string_free (rows.line, TRUE);
  if (!ok)
    {
      fprintf (stderr, _("cmlab-cli: run failed: %s\n"), error->message);
      return CML_CLI_EXIT_RUN_FAILED;
    }
  if (file)
    {
      gboolean committed = cml_atomic_file_commit (file, &error);

      cml_atomic_file_release_signals ();
      if (!committed)
        {
          fprintf (stderr, "cmlab-cli: %s\n", error->message);
          return CML_CLI_EXIT_USAGE;
        }
    }
  else if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, _("cmlab-cli: writing the output failed\n"));
      return CML_CLI_EXIT_USAGE;
    }
  fprintf (stderr, ngettext ("cmlab-cli: %u crossing of %s\n", "cmlab-cli: %u crossings of %s\n", rows.n),
           (guint) rows.n, po.section);
  if (rows.n >= rows.max && t < ro.t_end)
    {
      if (po.max_crossings && po.max_crossings <= rows.max)
        {
          fprintf (stderr, _("cmlab-cli: stopped at the %llu crossings asked for (--max-crossings), at t = %.17g "
                             "of %g\n"), (unsigned long long) rows.n, rows.t_last, ro.t_end);
          return 0;
        }
      if (file)
        fprintf (stderr, _("cmlab-cli: stopped at %llu crossings, the most poincare writes to a file, at t = %.17g "
                           "of %g: the rows found are written; use a shorter --t-end\n"),
                 (unsigned long long) rows.n, rows.t_last, ro.t_end);
      else
        fprintf (stderr, _("cmlab-cli: stopped at %llu crossings, the most poincare writes to standard output, at "
                           "t = %.17g of %g: the rows found are written; use a shorter --t-end, or -o FILE (up to "
                           "10^8)\n"),
                 (unsigned long long) rows.n, rows.t_last, ro.t_end);
      return CML_CLI_EXIT_RUN_FAILED;
    }
  return 0;
}
