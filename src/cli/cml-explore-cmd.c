/* cml-explore-cmd.c — `cmlab-cli explore MODEL --t-end T --covectors N [--from S=V,...]
 *                     [--level H] [--times T1,T2,...] [--samples S] [--jobs J] [run options]
 *                     [-o FILE]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fan of extremals of a vakonomic model from one point (cml-explore.c,
 * doc/theory.md §18): one CSV row per initial covector — its number, every momentum, the
 * point (base coordinates and reconstruction variables) at each --times time as NAME@TIME
 * and at T as NAME, its first conjugate time and its first Maxwell time (empty when none
 * before T) and the extremal it meets there.  The '#' lines before the header say what
 * made the numbers, as simulate's do; the file is written atomically (cml-atomic-file.c).
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-explore-cmd.h"

#include <glib/gi18n.h>

#include <math.h>
#include <stdio.h>

#include "cml-atomic-file.h"
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-explore.h"
#include "cml-output.h"

#define EXPLORE_MAX_COVECTORS 1000000 /* 10⁶ extremals */
#define EXPLORE_MAX_TIMES     1000    /* wavefront times */
#define EXPLORE_MAX_BYTES     2e9     /* the states kept of all the extremals: 2 GB */

static const char *explore_usage =
  N_("Usage: cmlab-cli explore MODEL --t-end T --covectors N [--from S=V[,S=V...]] [--level H]\n"
  "                    [--times T1,T2,...] [--samples S] [--jobs J] [--set P=V]...\n"
  "                    [--integrator NAME] [--rtol R] [--atol A] [--session FILE] [-o FILE]\n"
  "For a vakonomic model: the fan of N extremals from one point — the model's initial point,\n"
  "or the values --from gives (base coordinates, reconstruction variables and the momenta\n"
  "the constraints hold, such as a multiplier).  The momenta of the free velocities are\n"
  "spread evenly over a circle (two of them) or a sphere (three), each scaled so that the\n"
  "Hamiltonian equals H (default 0.5: unit speed).  One CSV row per extremal: its initial\n"
  "momenta, its point at each of the --times (NAME@TIME) and at T, its first conjugate time\n"
  "and the first time it meets another extremal of the fan (a Maxwell point, with the\n"
  "number of that extremal); empty when there is none before T.\n"
  "--samples S: each extremal is read at S equal steps of (0, T] (default 200), where the\n"
  "sign of the conjugate-point determinant is taken and the fan compared for meetings.\n"
  "--jobs J: the extremals run on J threads (default: one per processor).\n");

typedef struct
{
  guint64  covectors;
  double   level;
  gboolean has_level;
  GArray  *times;   /* double */
  guint64  jobs;
  guint64  samples;  /* 0: the default */
  GPtrArray *from;  /* "S=V" strings */
} ExploreOptions;

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static gboolean
explore_option (const char *name, const char *value, gpointer data, GError **error)
{
  ExploreOptions *eo = data;

  if (g_str_equal (name, "--covectors"))
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, EXPLORE_MAX_COVECTORS, &eo->covectors, NULL))
        return cml_cli_option_error (error, _("--covectors needs a whole number of extremals from 1 to %u, not “%s”"),
                                     EXPLORE_MAX_COVECTORS, value);
      return TRUE;
    }
  if (g_str_equal (name, "--level"))
    {
      if (!cml_cli_parse_double (value, &eo->level) || !(eo->level > 0))
        return cml_cli_option_error (error, _("--level needs a value of the Hamiltonian > 0, not “%s”"), value);
      eo->has_level = TRUE;
      return TRUE;
    }
  if (g_str_equal (name, "--jobs"))
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, 256, &eo->jobs, NULL))
        return cml_cli_option_error (error, _("--jobs needs a whole number of threads from 1 to 256, not “%s”"),
                                     value);
      return TRUE;
    }
  if (g_str_equal (name, "--samples"))
    {
      if (!g_ascii_string_to_unsigned (value, 10, 2, 100000, &eo->samples, NULL))
        return cml_cli_option_error (error, _("--samples needs a whole number from 2 to 10^5, not “%s”"), value);
      return TRUE;
    }
  if (g_str_equal (name, "--times"))
    {
      g_auto (GStrv) parts = g_strsplit (value, ",", -1);
      g_array_set_size (eo->times, 0);
      for (guint k = 0; parts[k]; k++)
        {
          double t;
          if (!cml_cli_parse_double (g_strstrip (parts[k]), &t) || !(t > 0) || k >= EXPLORE_MAX_TIMES)
            return cml_cli_option_error (error, _("--times needs at most %u times > 0 separated by commas, not “%s”"),
                                         EXPLORE_MAX_TIMES, value);
          g_array_append_val (eo->times, t);
        }
      g_array_sort (eo->times, compare_doubles);
      return TRUE;
    }
  /* --from */
  g_auto (GStrv) parts = g_strsplit (value, ",", -1);
  for (guint k = 0; parts[k]; k++)
    {
      g_autofree char *nm = NULL;
      double v;
      if (!cml_cli_split_assignment (parts[k], &nm, &v))
        return cml_cli_option_error (error, _("--from needs NAME=VALUE[,NAME=VALUE...], not “%s”"), value);
      g_ptr_array_add (eo->from, g_strdup (g_strstrip (parts[k])));
    }
  return TRUE;
}

#define EXPLORE_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) explore_option, "", arg }

static const GOptionEntry explore_entries[] = {
  EXPLORE_ENTRY ("covectors", "N"),
  EXPLORE_ENTRY ("level", "H"),
  EXPLORE_ENTRY ("times", "T1,T2,..."),
  EXPLORE_ENTRY ("jobs", "J"),
  EXPLORE_ENTRY ("samples", "N"),
  EXPLORE_ENTRY ("from", "S=V[,S=V...]"),
  G_OPTION_ENTRY_NULL
};

static void
explore_options_clear (ExploreOptions *eo)
{
  g_clear_pointer (&eo->times, g_array_unref);
  g_clear_pointer (&eo->from, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ExploreOptions, explore_options_clear)

/* A time as a column label writes it: the shortest text that reads back as it. */
static char *
time_label (double t)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];
  for (int digits = 1; digits <= 17; digits++)
    {
      g_snprintf (fmt, sizeof fmt, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, fmt, t);
      if (g_ascii_strtod (buf, NULL) == t)
        break;
    }
  return g_strdup (buf);
}

static void
write_number_or_empty (FILE *fp, double v)
{
  fputc (',', fp);
  if (!isnan (v))
    cml_output_write_number (fp, v);
}

/* The '#' lines and the header, then one row per extremal. */
static void
write_fan (FILE *fp, CmlSimulation *sim, const CmlExploreResult *res, double level, double t_end)
{
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (sim));
  g_autofree double *params = g_new (double, model->params->len + 1);
  const double *z = cml_simulation_get_state (sim);
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autoptr (GString) s = g_string_new (NULL);

  g_string_append_printf (s, "# cmlab %s: ", model->name);
  cml_text_append_escaped (s, model->title_untranslated ? model->title_untranslated : model->title);
  fprintf (fp, "%s\n", s->str);
  cml_output_write_made_by (fp, model);
  for (guint p = 0; p < model->params->len; p++)
    params[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);
  cml_output_write_parameters (fp, model, params, NULL);
  fputs ("# start point (t = ", fp);
  cml_output_write_number (fp, cml_simulation_get_time (sim));
  fputs ("):", fp);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    {
      fprintf (fp, "%s %s = ", i ? "," : "", cml_system_state_name (sys, i));
      cml_output_write_number (fp, z[i]);
    }
  fprintf (fp, "\n# fan: %u covectors, the momenta of the free velocities spread over a %s, scaled to H = ", res->n,
           res->n_free == 2 ? "circle (angle 2π i/N)" : "sphere (Fibonacci lattice)");
  cml_output_write_number (fp, level);
  fputs ("; the other momenta as at the start; T = ", fp);
  cml_output_write_number (fp, t_end);
  fputs ("\n", fp);
  cml_output_write_integrator (fp, cml_simulation_get_integrator (sim));
  if (res->conjugate_rows && !res->conjugate_note)
    fprintf (fp, "# t_conjugate: the first zero of det ∂(%s)/∂p(0) in (0, T]\n", res->conjugate_rows);
  else if (res->conjugate_note)
    fprintf (fp, "# t_conjugate: %s\n", res->conjugate_note);
  fputs ("# t_maxwell: the first time the extremal meets another of the fan (number in maxwell_with)\n", fp);

  /* the header */
  fputs ("covector", fp);
  for (guint A = 0; A < res->n_momenta; A++)
    fprintf (fp, ",%s", res->momentum_names[A]);
  for (guint k = 0; k < res->n_times; k++)
    {
      g_autofree char *label = time_label (res->times[k]);
      for (guint c = 0; c < res->n_coords; c++)
        fprintf (fp, ",%s@%s", res->coord_names[c], label);
    }
  for (guint c = 0; c < res->n_coords; c++)
    fprintf (fp, ",%s", res->coord_names[c]);
  fputs (",t_conjugate,t_maxwell,maxwell_with\n", fp);

  for (guint i = 0; i < res->n; i++)
    {
      fprintf (fp, "%u", i);
      for (guint A = 0; A < res->n_momenta; A++)
        write_number_or_empty (fp, res->covectors[(gsize) i * res->n_momenta + A]);
      for (guint k = 0; k <= res->n_times; k++)
        for (guint c = 0; c < res->n_coords; c++)
          write_number_or_empty (fp, res->points[((gsize) i * (res->n_times + 1) + k) * res->n_coords + c]);
      write_number_or_empty (fp, res->conjugate[i]);
      write_number_or_empty (fp, res->maxwell[i]);
      fputc (',', fp);
      if (res->partner[i] != G_MAXUINT)
        fprintf (fp, "%u", res->partner[i]);
      fputc ('\n', fp);
    }
  for (guint i = 0; i < res->n; i++)
    if (res->why[i])
      {
        g_string_assign (s, "");
        cml_text_append_escaped (s, res->why[i]);
        fprintf (fp, "# covector %u: the run failed: %s\n", i, s->str);
      }
}

int
cml_explore_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_auto (ExploreOptions) eo = { .level = 0.5, .times = g_array_new (FALSE, FALSE, sizeof (double)),
                                 .from = g_ptr_array_new_with_free_func (g_free) };
  g_autofree char *model_name = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlAtomicFile) file = NULL;
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  int status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, explore_entries, &eo, &ro, CML_CLI_RUN_OPTIONS_ALL, explore_usage,
                               &model_name);
  if (status != CML_CLI_CONTINUE)
    return status;
  if (!ro.has_t_end || eo.covectors == 0)
    return cml_cli_usage_error (explore_usage, _("explore needs --t-end T and --covectors N"));
  if (!(ro.t_end > 0))
    return cml_cli_usage_error (explore_usage, _("--t-end needs a number > 0, not %g"), ro.t_end);
  for (guint k = 0; k < eo.times->len; k++)
    {
      double t = g_array_index (eo.times, double, k);
      if (!(t < ro.t_end) || (k > 0 && t == g_array_index (eo.times, double, k - 1)))
        return cml_cli_usage_error (explore_usage, _("--times needs different times before T = %g, not %g"),
                                    ro.t_end, t);
    }
  if ((status = cml_cli_run_options_integrator (&ro, &iopt, explore_usage)) != 0)
    return status;
  {
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", ro.output, &why))
      return cml_cli_usage_error (explore_usage, "%s", why);
  }
  /* --from is the start point: given values, as --init gives them */
  for (guint k = 0; k < eo.from->len; k++)
    g_ptr_array_add (ro.inits, g_strdup (eo.from->pdata[k]));
  if ((status = cml_cli_start_simulation (model_name, ro.sets, ro.inits, given, &iopt, NULL,
                                          ro.t_end, explore_usage, &sim)) != 0)
    return status;
  {
    /* every extremal's states at every sample are kept for the Maxwell points */
    double samples = eo.samples ? (double) eo.samples : cml_explore_options_default ().n_samples;
    double bytes = (double) eo.covectors * (samples + eo.times->len + 1)
                   * cml_system_dim (cml_simulation_get_system (sim)) * sizeof (double);
    if (bytes > EXPLORE_MAX_BYTES)
      return cml_cli_usage_error (explore_usage,
                                  _("%llu covectors read at %.0f times each would hold %.1f GB of states, more "
                                    "than the %.0f GB allowed: ask for fewer --covectors or --samples"),
                                  (unsigned long long) eo.covectors, samples + eo.times->len + 1, bytes / 1e9,
                                  EXPLORE_MAX_BYTES / 1e9);
  }
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    fprintf (stderr, _("note: %s\n"), (char *) report->pdata[k]);

  CmlExploreOptions opt = cml_explore_options_default ();
  opt.n_covectors = (guint) eo.covectors;
  opt.t_end = ro.t_end;
  opt.level = eo.level;
  opt.n_times = eo.times->len;
  opt.times = (const double *) eo.times->data;
  opt.jobs = (guint) eo.jobs;
  if (eo.samples)
    opt.n_samples = opt.maxwell_samples = (guint) eo.samples;
  g_autoptr (CmlExploreResult) res = cml_explore (sim, &opt, &error);
  if (res == NULL)
    {
      gboolean usage = error->domain == CML_ERROR && error->code == CML_ERROR_USAGE;
      fprintf (stderr, "cmlab-cli: %s%s\n", usage ? "" : _("explore failed: "), error->message);
      return usage ? CML_CLI_EXIT_USAGE : CML_CLI_EXIT_RUN_FAILED;
    }

  FILE *fp = stdout;
  if (ro.output && !g_str_equal (ro.output, "-"))
    {
      file = cml_atomic_file_new (ro.output, CML_ATOMIC_FILE_DEFAULT, &error);
      if (file == NULL)
        return cml_cli_usage_error (NULL, "%s", error->message);
      fp = cml_atomic_file_get_stream (file);
    }
  write_fan (fp, sim, res, eo.level, ro.t_end);
  if (file && !cml_atomic_file_commit (file, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, _("cmlab-cli: writing the output failed\n"));
      return CML_CLI_EXIT_USAGE;
    }
  guint failed = 0;
  for (guint i = 0; i < res->n; i++)
    failed += res->why[i] != NULL;
  if (failed)
    {
      fprintf (stderr, _("cmlab-cli: the runs of %u of the %u extremals failed (the reasons are in the output)\n"),
               failed, res->n);
      return CML_CLI_EXIT_RUN_FAILED;
    }
  return 0;
}
