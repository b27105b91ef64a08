/* cml-plot-cmd.c — `cmlab-cli plot MODEL [--set P=V]... [--init S=V]... --t-end T
 *                  --y COL[,COL...] [--x COL] [--size WxH] [--samples N] [--title TEXT]
 *                  [--no-equal-scales] [--dark] -o FILE.{png,svg,pdf}`
 *                  and `cmlab-cli plot SWEEP.csv [--y COL[,COL...]] … -o FILE`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs the model, collects the chosen observables, and draws them with the same plot
 * model and Cairo backend as the window's export, so a figure from the command line
 * looks like one from the window.  The file is written completely or not at all.
 * A sweep file in the model's place is drawn by cml-plot-sweep.c.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-plot-cmd.h"

#include <glib/gi18n.h>

#include <stdio.h>
#include <string.h>

#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-plot-cairo.h"
#include "cml-plot-figure.h"
#include "cml-plot.h"
#include "cml-plot-sweep.h"

static const char *plot_usage =
  N_("Usage: cmlab-cli plot MODEL [--set P=V]... [--init S=V]... --t-end T --y COL[,COL...]\n"
  "                  [--x COL] [--size WxH] [--samples N] [--title TEXT] [--no-equal-scales]\n"
  "                  [--dark] [--integrator NAME] [--rtol R] [--atol A] [--step H]\n"
  "                  -o FILE.{png,svg,pdf}\n"
  "Plots the columns (observables of the model: coordinates, velocities, monitors …) against\n"
  "time, or against --x for a phase portrait.  Default size 1200x700, 4000 samples.\n"
  "The figure is titled with the model and what is plotted, with a line of the parameters\n"
  "below; --title TEXT replaces the title, --title '' leaves both out.  When both axes have\n"
  "one unit (y [m] against x [m]) they get equal scales, so a circle is round;\n"
  "--no-equal-scales lets each axis fill the frame.\n"
  "\n"
  "       cmlab-cli plot SWEEP.csv [--y COL[,COL...]] [--size WxH] [--title TEXT] [--dark]\n"
  "                  -o FILE.{png,svg,pdf}\n"
  "Draws a file cmlab-cli sweep wrote: one varied parameter gives a curve of each measured\n"
  "column (or the --y columns) against it, two a heat map of one measured column (the\n"
  "first, or --y COL) over the grid, with a colour bar.\n");

/* plot's own options (the run options are cml-cli-common.c's) */
typedef struct
{
  char    *ycols, *xcol, *size, *title;
  double   samples;
  gboolean dark, equal_scales;
} PlotOptions;

static gboolean
plot_option (const char *name, const char *value, gpointer data, GError **error)
{
  PlotOptions *po = data;
  char **slot = NULL;

  if (g_str_equal (name, "--dark"))
    po->dark = TRUE;
  else if (g_str_equal (name, "--no-equal-scales"))
    po->equal_scales = FALSE;
  else if (g_str_equal (name, "--samples"))
    {
      if (!cml_cli_parse_double (value, &po->samples) || po->samples < 2 || po->samples > 1e7)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--samples needs a number from 2 to 10^7, not “%s”"), value);
          return FALSE;
        }
    }
  else
    {
      slot = g_str_equal (name, "--y") ? &po->ycols
             : g_str_equal (name, "--x") ? &po->xcol
             : g_str_equal (name, "--size") ? &po->size
                                            : &po->title;
      g_free (*slot);
      *slot = g_strdup (value);
    }
  return TRUE;
}

#define PLOT_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) plot_option, "", arg }
#define PLOT_FLAG(name) \
  { name, 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) plot_option, "", NULL }

static const GOptionEntry plot_entries[] = {
  PLOT_ENTRY ("y", "COL[,COL...]"),
  PLOT_ENTRY ("x", "COL"),
  PLOT_ENTRY ("size", "WxH"),
  PLOT_ENTRY ("samples", "N"),
  PLOT_ENTRY ("title", "TEXT"),
  PLOT_FLAG ("dark"),
  PLOT_FLAG ("no-equal-scales"),
  G_OPTION_ENTRY_NULL
};

static void
plot_options_clear (PlotOptions *po)
{
  g_free (po->ycols);
  g_free (po->xcol);
  g_free (po->size);
  g_free (po->title);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PlotOptions, plot_options_clear)

int
cml_plot_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_auto (PlotOptions) po = { .samples = 4000, .equal_scales = TRUE };
  g_autofree char *model = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlCliProgress progress;
  int width, height, status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, plot_entries, &po, &ro, CML_CLI_RUN_OPTIONS_ALL, plot_usage, &model);
  if (status != CML_CLI_CONTINUE)
    return status;

  const char *ycols = po.ycols, *xcol = po.xcol, *size = po.size ? po.size : "1200x700", *output = ro.output;
  const char *title = po.title;
  double t_end = ro.t_end, samples = po.samples;
  gboolean dark = po.dark, equal_scales = po.equal_scales;

  if (cml_plot_sweep_is_file (model))
    {
      g_autofree char *why = NULL;
      if (ro.has_t_end || ro.sets->len || ro.inits->len || xcol || ro.session_path)
        return cml_cli_usage_error (plot_usage, _("a sweep file is plotted as it is: no --t-end, --set, --init, --x "
                                    "or --session"));
      if (output == NULL)
        return cml_cli_usage_error (plot_usage, _("plot needs -o FILE"));
      if (sscanf (size, "%dx%d", &width, &height) != 2 || width < 50 || height < 50 || width > 10000
          || height > 10000)
        return cml_cli_usage_error (plot_usage, _("--size reads WxH with each from 50 to 10000, not “%s”"), size);
      if (!g_str_has_suffix (output, ".png") && !g_str_has_suffix (output, ".svg")
          && !g_str_has_suffix (output, ".pdf"))
        return cml_cli_usage_error (plot_usage, _("the output must end in .png, .svg or .pdf, not “%s”"), output);
      if (!cml_cli_check_output_path ("-o", output, &why))
        return cml_cli_usage_error (plot_usage, "%s", why);
      return cml_plot_sweep_draw (model, ycols, title, width, height, dark, output);
    }

  if (!ro.has_t_end || ycols == NULL || output == NULL)
    return cml_cli_usage_error (plot_usage, _("plot needs --t-end T, --y COL and -o FILE"));
  if (sscanf (size, "%dx%d", &width, &height) != 2 || width < 50 || height < 50 || width > 10000 || height > 10000)
    return cml_cli_usage_error (plot_usage, _("--size reads WxH with each from 50 to 10000, not “%s”"), size);
  if (!g_str_has_suffix (output, ".png") && !g_str_has_suffix (output, ".svg") && !g_str_has_suffix (output, ".pdf"))
    return cml_cli_usage_error (plot_usage, _("the output must end in .png, .svg or .pdf, not “%s”"), output);
  if ((status = cml_cli_run_options_integrator (&ro, &iopt, plot_usage)) != 0)
    return status;
  {
    /* before anything is simulated: where the figure goes */
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", output, &why))
      return cml_cli_usage_error (plot_usage, "%s", why);
  }

  if ((status = cml_cli_start_simulation (model, ro.sets, ro.inits, given, &iopt, &progress, t_end,
                                          plot_usage, &sim)) != 0)
    return status;

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  g_auto (GStrv) names = g_strsplit (ycols, ",", -1);
  guint ny = g_strv_length (names);
  if (ny > CML_CLI_MAX_SERIES)
    return cml_cli_usage_error (NULL, _("--y names %u quantities; a plot draws at most %u: make several plots"), ny,
                                CML_CLI_MAX_SERIES);
  g_autofree int *yidx = g_new (int, MAX (ny, 1));
  int xidx = -1;
  for (guint k = 0; k < ny; k++)
    {
      g_strstrip (names[k]);
      if ((yidx[k] = cml_system_observable_index (sys, names[k])) < 0)
        return cml_cli_usage_error (NULL, _("%s has no quantity “%s”"), md->name, names[k]);
    }
  if (xcol && (xidx = cml_system_observable_index (sys, xcol)) < 0)
    return cml_cli_usage_error (NULL, _("%s has no quantity “%s”"), md->name, xcol);

  /* the figure: the same plot model as the window's */
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (GPtrArray) series = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_series_unref);
  cml_plot_set_against_time (plot, xidx < 0);
  cml_plot_set_equal_scales (plot, equal_scales);
  if (title == NULL)
    {
      /* "Rolling ball on a rotating table — y against x", and the run's parameters: a
       * figure that says what it shows when it is dropped into a talk */
      g_autofree double *values = g_new (double, MAX (md->params->len, 1));
      for (guint k = 0; k < md->params->len; k++)
        values[k] = cml_simulation_get_param (sim, ((const CmlParam *) g_ptr_array_index (md->params, k))->name);
      cml_plot_set_figure_titles (plot, md, (const char *const *) names, g_strv_length (names), xcol, values);
      /* and the state it starts from: the simulation is still at t = 0 */
      guint dim = cml_system_dim (sys);
      g_autofree const char **state_names = g_new (const char *, MAX (dim, 1));
      for (guint i = 0; i < dim; i++)
        state_names[i] = cml_system_state_name (sys, i);
      cml_plot_add_figure_initial (plot, md, state_names, cml_simulation_get_state (sim), dim);
    }
  else
    cml_plot_set_title (plot, title); /* '' : neither title nor parameters */
  cml_plot_set_show_all (plot, TRUE);
  if (xidx < 0)
    cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", md->time_unit);
  else
    cml_plot_axis_set_label (cml_plot_get_x_axis (plot), xcol, cml_model_unit (md, xcol));
  {
    /* one series: its name and unit label the axis; several: the legend names them */
    const char *unit0 = cml_model_unit (md, names[0]);
    gboolean same_unit = TRUE;
    for (guint k = 1; k < ny; k++)
      same_unit &= g_str_equal (cml_model_unit (md, names[k]), unit0);
    g_autofree char *joined = g_strjoinv (", ", names);
    cml_plot_axis_set_label (cml_plot_get_y_axis (plot), ny == 1 ? names[0] : joined, same_unit ? unit0 : "");
  }
  /* columns: the sample times, the x quantity (the times again against time) and each
   * y quantity; a phase portrait's series keep their times apart from x, so the plot
   * knows when each point was drawn */
  g_autoptr (CmlPlotColumn) t_column = cml_plot_column_new ();
  g_autoptr (CmlPlotColumn) x_column = xidx < 0 ? cml_plot_column_ref (t_column) : cml_plot_column_new ();
  g_autoptr (GPtrArray) y_columns = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_column_unref);
  for (guint k = 0; k < ny; k++)
    {
      CmlPlotColumn *y_column = cml_plot_column_new ();
      CmlPlotSeries *s = cml_plot_series_new_for_columns (names[k], cml_model_unit (md, names[k]),
                                                          t_column, x_column, y_column);
      g_ptr_array_add (y_columns, y_column);
      g_ptr_array_add (series, s);
      cml_plot_add_series (plot, s);
    }

  /* run, sampling every observable at equal steps */
  guint n_obs = cml_system_n_observables (sys);
  g_autofree double *obs = g_new (double, n_obs);
  guint n = (guint) samples;
  gint64 t_run = g_get_monotonic_time ();
  for (guint k = 0; k <= n; k++)
    {
      double tk = k == n ? t_end : t_end * k / n;
      if (k > 0 && !cml_simulation_advance (sim, tk, &error))
        {
          cml_cli_progress_done (&progress);
          fprintf (stderr, _("cmlab-cli: run failed: %s\n"), error->message);
          cml_cli_progress_failed (&progress, error->message);
          return CML_CLI_EXIT_RUN_FAILED;
        }
      if (k > 0)
        cml_cli_progress_update (&progress, tk, t_end);
      cml_simulation_observe (sim, obs);
      cml_plot_column_append (t_column, &tk, 1, 1);
      if (xidx >= 0)
        cml_plot_column_append (x_column, &obs[xidx], 1, 1);
      for (guint j = 0; j < ny; j++)
        cml_plot_column_append (y_columns->pdata[j], &obs[yidx[j]], 1, 1);
    }

  cml_cli_progress_done (&progress);

  CmlPlotStyle style;
  gint64 t_draw = g_get_monotonic_time ();
  /* text and lines sized for the figure (a slide at 1600x900 gets twice the 800x450 type) */
  cml_plot_style_init_for_figure (&style, dark, width, height);
  if (!cml_plot_export_with_style (plot, output, width, height, &style, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  gint64 t_done = g_get_monotonic_time ();
  /* the two phases' times: the benchmark (bench/) reads the drawing time */
  fprintf (stderr, _("cmlab-cli: wrote %s (%dx%d, %u samples of %s; run %.3f s, drawing and writing %.3f s)\n"),
           output, width, height, n + 1, ycols, (t_draw - t_run) * 1e-6, (t_done - t_draw) * 1e-6);
  return 0;
}
