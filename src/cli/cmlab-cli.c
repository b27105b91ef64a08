/* cmlab-cli.c — the command-line tool: simulate, plot, poincare, sweep, render, info, list.  Works with no display.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exit status: 0 on success, 1 when a run fails (the message names the time and the
 * reason), 2 for usage and model errors.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cml-cli-common.h"

#include <glib/gi18n.h>
#include "cml-error.h"
#include "cml-native.h"
#include "cml-integrator.h"
#include "cml-integrator-for-system.h"
#include "cml-lesson-cmd.h"
#include "cml-list-cmd.h"
#include "cml-model.h"
#include "cml-equations-export.h"
#include "cml-output.h"
#include "cml-poincare-cmd.h"
#include "cml-shoot-cmd.h"
#include "cml-explore-cmd.h"
#include "cml-rhs-cmd.h"
#include "cml-sweep-cmd.h"
#include "cml-system.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define ROW_BYTES_PER_COLUMN 25 /* a number at full precision and its separator, about */

static const char *usage_text =
  N_("Usage:\n"
  "  cmlab-cli simulate MODEL [--set P=V]... [--init S=V]... [--t-start T0] --t-end T [--dt-out H]\n"
  "            [--integrator NAME] [--rtol R] [--atol A] [--step H] [--format csv|json|npy] [-o FILE]\n"
  "            [--reference] [--columns A,B,...]\n"
  "  cmlab-cli render MODEL [--set P=V]... [--init S=V]... --t-end T --fps F --size WxH\n"
  "            [--frame lab|table] [--with-plot COL] [--speed S] [--integrator NAME]\n"
  "            [--rtol R] [--atol A] [--step H] [--no-clock] [--progress lines]\n"
  "            -o FILE.{mp4,webm,gif,%05d.png}\n"
  "  cmlab-cli plot MODEL [--set P=V]... [--init S=V]... --t-end T --y COL[,COL...]\n"
  "            [--x COL] [--size WxH] [--samples N] [--title TEXT] [--dark] [--integrator NAME]\n"
  "            [--rtol R] [--atol A] [--step H] -o FILE.{png,svg,pdf}\n"
  "  cmlab-cli poincare MODEL --section EXPR=VALUE [--direction up|down|both] --columns A,B\n"
  "            --t-end T [--max-step H] [run options as for simulate] [-o FILE]\n"
  "  cmlab-cli sweep MODEL --vary P=A:B:N [--vary Q=C:D:M]... --t-end T --measure NAME[,NAME...]\n"
  "            [--at T1,T2,...] [--shard I/N] [--jobs J] [run options as for simulate] [-o FILE]\n"
  "  cmlab-cli shoot MODEL --t-end T --target NAME=VALUE[,NAME=VALUE...] [--dt-out H]\n"
  "            [--columns A,B,...] [run options as for simulate] [-o FILE]\n"
  "  cmlab-cli explore MODEL --t-end T --covectors N [--from S=V,...] [--level H]\n"
  "            [--times T1,T2,...] [--jobs J] [run options as for simulate] [-o FILE]\n"
  "  cmlab-cli info MODEL [--set P=V]... [--as vakonomic] [--format text|latex|sympy|json]\n"
  "  cmlab-cli rhs MODEL [--set P=V]... --states FILE\n"
  "  cmlab-cli list [models | commands | integrators | parameters MODEL | state MODEL |\n"
  "                  observables MODEL]\n"
  "  cmlab-cli lesson check|show|export LESSON [--answers] [--student -o DIR]\n"
  "  cmlab-cli --version\n"
  "\n"
  "MODEL is a model file (.cml) or a built-in name (see `cmlab-cli list`).  simulate, plot,\n"
  "render and poincare take --session FILE instead (a session saved by the window): its\n"
  "model, parameters, initial state and integrator; --set, --init, --integrator, --rtol,\n"
  "--atol and --step given as well override the session's values.  With --as vakonomic\n"
  "every command runs a nonholonomic model's Lagrangian and constraints read by the\n"
  "vakonomic principle (the constraints solved for its solve-for velocities; the multipliers\n"
  "start at zero unless given with --init).\n"
  "Integrators: auto (the default: the fastest that meets the tolerances for the model, named\n"
  "in the output's header), rk8pd, rkf45, rkck, rk4, msadams, msbdf, implicit-midpoint,\n"
  "variational, variational4, taylor, dop853, rk4-fixed.\n");

static const char *simulate_usage =
  N_("Usage: cmlab-cli simulate MODEL --t-end T [--dt-out H] [--t-start T0] [--set P=V]...\n"
  "                  [--init S=V]... [--integrator NAME] [--rtol R] [--atol A] [--step H]\n"
  "                  [--format csv|json|npy] [--columns A,B,...] [--reference] [--session FILE]\n"
  "                  [--as vakonomic] [-o FILE]\n"
  "Runs the model from T0 (default 0) to T and writes a row every H (default: (T - T0)/1000,\n"
  "a thousand rows after the first): CSV with '#' header lines, one JSON document, or NumPy's\n"
  ".npy (-o FILE.npy; the run's metadata in FILE.npy.json).\n"
  "--columns: any observables (cmlab-cli list observables MODEL), e.g. the constraint\n"
  "multipliers lambda_NAME; --reference adds NAME_ref and NAME_err columns from the model's\n"
  "closed forms.  Integrators: cmlab-cli list integrators.\n");

static const char *info_usage =
  N_("Usage: cmlab-cli info MODEL [--set P=V]... [--as vakonomic] [--format text|latex|sympy|json]\n"
  "Describes the model: what it is, its algebroid, Lagrangian and constraints, the equations\n"
  "derived from them, regularity, the conserved quantities derived and checked, parameters,\n"
  "the initial state and the values of its monitors at t = 0.\n"
  "--format latex, sympy or json writes the derived equations for other programs instead: the\n"
  "right-hand side, the constraint forces, the constraints kept and the conserved quantities\n"
  "as LaTeX (amsmath), as a Python script that builds them with SymPy, or as JSON.\n");

static int
usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("cmlab-cli: ", stderr);
  vfprintf (stderr, fmt, ap);
  fputs ("\n", stderr);
  va_end (ap);
  {
    g_autofree char *try_help = cml_cli_try_help ();
    fputs (try_help, stderr);
  }
  return EXIT_USAGE;
}

/* simulate's own options (the run options are cml-cli-common.c's) */
typedef struct
{
  double      dt_out;
  gboolean    has_dt_out;
  double      t_start;      /* --t-start: the initial data hold at T0; backwards when T < T0 */
  gboolean    has_t_start;
  const char *format;
  char       *format_owned;
  gboolean    reference; /* --reference: NAME_ref and NAME_err columns from [reference] */
  char      **columns;   /* --columns A,B,…: any observables instead of the model's [output] columns */
} SimulateOptions;

static gboolean
simulate_option (const char *name, const char *value, gpointer data, GError **error)
{
  SimulateOptions *so = data;

  if (g_str_equal (name, "--reference"))
    so->reference = TRUE;
  else if (g_str_equal (name, "--columns"))
    {
      g_strfreev (so->columns);
      so->columns = g_strsplit (value, ",", -1);
      for (guint k = 0; so->columns[k]; k++)
        if (*g_strstrip (so->columns[k]) == '\0')
          {
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         _("--columns needs names separated by commas, not “%s”"), value);
            return FALSE;
          }
    }
  else if (g_str_equal (name, "--t-start"))
    {
      if (!cml_cli_parse_double (value, &so->t_start) || !isfinite (so->t_start))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--t-start needs a number, not “%s”"), value);
          return FALSE;
        }
      so->has_t_start = TRUE;
    }
  else if (g_str_equal (name, "--dt-out"))
    {
      if (!cml_cli_parse_double (value, &so->dt_out) || !(so->dt_out > 0))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--dt-out needs a number > 0, not “%s”"), value);
          return FALSE;
        }
      so->has_dt_out = TRUE;
    }
  else /* --format */
    {
      g_free (so->format_owned);
      so->format = so->format_owned = g_strdup (value);
    }
  return TRUE;
}

static const GOptionEntry simulate_entries[] = {
  { "columns", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) simulate_option, "", "A,B,..." },
  { "dt-out", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) simulate_option, "", "H" },
  { "format", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) simulate_option, "", "csv|json|npy" },
  { "reference", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) simulate_option, "", NULL },
  { "t-start", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) simulate_option, "", "T0" },
  G_OPTION_ENTRY_NULL
};

/* simulate once its arguments are parsed */
static int
run_simulate (const CmlCliRunOptions *ro, const SimulateOptions *so, const char *model_name)
{
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlOutputFormat format;
  CmlCliProgress progress;
  const char *output = ro->output;
  int status;

  if (!ro->has_t_end)
    return usage_error (_("simulate needs --t-end T"));
  if (!so->has_t_start && ro->t_end < 0)
    return usage_error (_("--t-end needs a number >= 0 (or --t-start T0 > T to run backwards), not %g"), ro->t_end);
  /* from T0 (0 unless --t-start) to T, backwards when T < T0 */
  const double t0 = so->has_t_start ? so->t_start : 0.0, span = fabs (ro->t_end - t0);
  const double dir = ro->t_end < t0 ? -1.0 : 1.0;
  /* without --dt-out: a thousand rows after the first */
  const double dt_out = so->has_dt_out ? so->dt_out : span > 0 ? span / 1000 : 1.0;
  if (!cml_output_format_from_string (so->format, &format))
    return usage_error (_("--format must be csv, json or npy, not “%s”"), so->format);
  /* -o FILE.npy without --format: NumPy's binary format */
  if (so->format_owned == NULL && output && g_str_has_suffix (output, ".npy"))
    format = CML_OUTPUT_NPY;
  if ((status = cml_cli_run_options_integrator (ro, &iopt, usage_text)) != 0)
    return status;
  /* before anything is simulated: where the output goes, and whether it fits (a row is at
   * least t and one column at full precision, "-1.2345678901234567e-100,") */
  double n_rows_d = floor (span / dt_out * (1 + 1e-12)) + 2;
  guint64 n_rows_max = n_rows_d > 1e18 ? G_MAXUINT64 : (guint64) n_rows_d;
  {
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", output, &why))
      return usage_error ("%s", why);
    if (!cml_cli_check_rows (output, n_rows_max, 2 * ROW_BYTES_PER_COLUMN, &why))
      return usage_error (_("--t-end %g and --dt-out %g ask for %s"), ro->t_end, dt_out, why);
  }

  if ((status = cml_cli_parse_inits (ro->inits, given, usage_text)) != 0)
    return status;

  if ((status = cml_cli_open_simulation (model_name, ro->sets, usage_text, &sim)) != 0)
    return status;
  cml_cli_progress_init (&progress, "simulating", &iopt);
  if (!cml_simulation_set_integrator (sim, &iopt, &error))
    return cml_cli_integrator_error (usage_text, error);
  cml_cli_progress_set_kind (&progress, cml_simulation_get_integrator (sim)->kind); /* what auto chose */
  /* the initial data hold at T0: a constraint that depends on t is solved there */
  if (!cml_simulation_reset_at (sim, t0, given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  {
    /* a span the integrator cannot cover (--t-end 1e308, forwards or backwards), probed
     * from T0; the probe puts the simulation back at its start */
    g_autofree char *why = NULL;
    if (t0 != 0.0)
      cml_simulation_set_state (sim, t0, cml_simulation_get_state (sim));
    if (!cml_cli_check_span (sim, given, ro->t_end, &why))
      {
        fprintf (stderr, "cmlab-cli: %s\n", why);
        return EXIT_USAGE;
      }
  }
  if (t0 != 0.0)
    cml_simulation_set_state (sim, t0, cml_simulation_get_state (sim));
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    fprintf (stderr, _("note: %s\n"), (char *) report->pdata[k]);

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  /* the columns: --columns, or the model's [output] columns */
  const char *const *columns = (const char *const *) (so->columns ? so->columns : model->columns);
  {
    /* now with the columns */
    g_autofree char *why = NULL;
    if (!cml_cli_check_rows (output, n_rows_max, (1 + g_strv_length ((char **) columns)) * ROW_BYTES_PER_COLUMN, &why))
      {
        fprintf (stderr, _("cmlab-cli: --t-end %g and --dt-out %g ask for %s\n"), ro->t_end, dt_out, why);
        return EXIT_USAGE;
      }
  }
  /* --reference: the closed forms of [reference], from the state just set */
  g_autoptr (CmlReference) reference = NULL;
  if (so->reference)
    {
      reference = cml_reference_new (sys, &error);
      if (reference == NULL)
        {
          if (error)
            fprintf (stderr, "cmlab-cli: %s\n", error->message);
          else
            fprintf (stderr, _("cmlab-cli: --reference: %s has no [reference] group (no closed form to compare with)\n"),
                     model->name);
          return EXIT_USAGE;
        }
      if (!cml_reference_check_start (reference, t0, &error))
        {
          fprintf (stderr, "cmlab-cli: --reference: %s\n", error->message);
          return EXIT_USAGE;
        }
      cml_reference_start_from_simulation (reference, sim);
    }
  g_autoptr (CmlOutput) out = cml_output_new (output, format, &error);
  if (out == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  cml_output_set_reference (out, reference);
  if (!cml_output_begin (out, sim, columns, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }

  /* rows at t = T0, T0 ± H, T0 ± 2H, … and a last one at T */
  double t_end = ro->t_end;
  guint64 n_rows = (guint64) floor (span / dt_out * (1 + 1e-12));
  gboolean ok = cml_output_row (out, sim, &error);
  for (guint64 k = 1; ok && k <= n_rows; k++)
    {
      double tk = t0 + dir * (double) k * dt_out;
      if (dir * (tk - t_end) > 0)
        tk = t_end;
      ok = cml_simulation_advance (sim, tk, &error) && cml_output_row (out, sim, &error);
      cml_cli_progress_update (&progress, fabs (tk - t0), span);
    }
  if (ok && cml_simulation_get_time (sim) != t_end)
    ok = cml_simulation_advance (sim, t_end, &error) && cml_output_row (out, sim, &error);
  cml_cli_progress_done (&progress);
  if (!ok)
    {
      /* a file that cannot be written (a full disk) is not a failing run */
      gboolean io = error->domain == CML_ERROR && error->code == CML_ERROR_IO;
      fprintf (stderr, "cmlab-cli: %s%s\n", io ? "" : _("run failed: "), error->message);
      if (!io)
        cml_cli_progress_failed (&progress, error->message);
      cml_output_abort (out);
      return io ? EXIT_USAGE : EXIT_RUN_FAILED;
    }
  if (!cml_output_finish (out, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  return 0;
}

static int
cmd_simulate (int argc, char **argv)
{
  SimulateOptions so = { .format = "csv" };
  CmlCliRunOptions ro;
  g_autofree char *model_name = NULL;
  int status;

  cml_cli_run_options_init (&ro);
  ro.t_end_zero_ok = TRUE;
  ro.t_end_signed_ok = TRUE;
  status = cml_cli_parse_args (argc, argv, simulate_entries, &so, &ro, CML_CLI_RUN_OPTIONS_ALL, simulate_usage,
                               &model_name);
  if (status == CML_CLI_CONTINUE)
    status = run_simulate (&ro, &so, model_name);
  cml_cli_run_options_clear (&ro);
  g_free (so.format_owned);
  g_strfreev (so.columns);
  return status;
}

/* info --format: text (the account for people), or the equations for other programs */
static gboolean
info_option (const char *name, const char *value, gpointer data, GError **error)
{
  char **format = data;

  (void) name;
  if (!g_str_equal (value, "text"))
    {
      CmlEquationsFormat f;
      if (!cml_equations_format_from_string (value, &f))
        return cml_cli_option_error (error, _("--format must be text, latex, sympy or json, not “%s”"), value);
    }
  g_free (*format);
  *format = g_strdup (value);
  return TRUE;
}

static const GOptionEntry info_entries[] = {
  { "format", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) info_option, "", "text|latex|sympy|json" },
  G_OPTION_ENTRY_NULL
};

static int
cmd_info (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_autofree char *model_name = NULL;
  g_autofree char *format = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  CmlEquationsFormat eq_format;
  int status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, info_entries, &format, &ro, CML_CLI_RUN_OPTIONS_SET_ONLY, info_usage,
                               &model_name);
  if (status != CML_CLI_CONTINUE)
    return status;
  if ((status = cml_cli_open_simulation (model_name, ro.sets, usage_text, &sim)) != 0)
    return status;
  if (format && cml_equations_format_from_string (format, &eq_format))
    {
      /* the derived equations for other programs, with the parameters' values --set gave */
      CmlSystem *sys = cml_simulation_get_system (sim);
      CmlModel *model = cml_system_get_model (sys);
      g_autofree double *params = g_new (double, model->params->len + 1);
      for (guint k = 0; k < model->params->len; k++)
        params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
      g_autofree char *text = cml_system_export_equations (sys, params, eq_format);
      fputs (text, stdout);
      return fflush (stdout) == 0 && !ferror (stdout) ? 0 : EXIT_USAGE;
    }
  {
    g_autoptr (GError) error = NULL;
    if (ro.sets->len && !cml_simulation_reset (sim, NULL, &error))
      {
        fprintf (stderr, "cmlab-cli: %s\n", error->message);
        return EXIT_USAGE;
      }
  }

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  /* the inspector judges at the values --set gave */
  g_autofree double *params = g_new (double, model->params->len + 1);
  for (guint k = 0; k < model->params->len; k++)
    params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
  g_autofree char *text = cml_system_describe_readable_at (sys, params);
  fputs (text, stdout);

  printf (_("\nParameters:\n"));
  if (model->params->len == 0)
    printf (_("    (none)\n"));
  for (guint k = 0; k < model->params->len; k++)
    {
      CmlParam *p = model->params->pdata[k];
      /* the name as --set takes it; a dimensionless one has no unit to show */
      const char *unit = p->unit && !g_str_equal (p->unit, "1") ? p->unit : "";
      printf ("    %-8s = %-10.6g %-10s %s\n", p->name, cml_simulation_get_param (sim, p->name), unit,
              p->meaning ? p->meaning : "");
    }

  printf (_("\nInitial state:\n"));
  const double *z = cml_simulation_get_state (sim);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    printf ("    %-8s = %.17g\n", cml_system_state_name (sys, i), z[i]);
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    printf (_("    note: %s\n"), (char *) report->pdata[k]);

  {
    const char *why = cml_system_native_status (sys);
    if (why == NULL)
      printf (_("\nEvaluation: native code (compiled with %s)\n"), cml_native_compiler ());
    else
      printf (_("\nEvaluation: interpreter (no native code: %s)\n"), why);
  }

  {
    /* what a run that names no integrator gets at the default tolerances */
    CmlIntegratorOptions o = cml_integrator_options_default ();
    cml_integrator_choose (sys, &o);
    g_autofree char *what = cml_integrator_choice_describe (&o);
    printf (_("Integrator unless one is named: %s\n"), what);
  }

  {
    guint n_obs = cml_system_n_observables (sys);
    g_autofree double *obs = g_new (double, n_obs);
    cml_simulation_observe (sim, obs);
    printf (_("\nAt t = 0:\n"));
    for (guint k = 0; k < model->monitors->len; k++)
      {
        const char *nm = ((CmlNamedExpr *) model->monitors->pdata[k])->name;
        int i = cml_system_observable_index (sys, nm);
        const char *unit = cml_model_unit (model, nm);
        printf ("    %-8s = %.17g %s\n", nm, obs[i], g_str_equal (unit, "1") ? "" : unit);
      }
    int r = cml_system_observable_index (sys, "residual");
    if (r >= 0)
      printf (_("    constraint residual = %.3g\n"), obs[r]);
  }
  printf (_("\nColumns written by simulate: t"));
  for (guint k = 0; model->columns[k]; k++)
    printf (",%s", model->columns[k]);
  printf ("\n");
  return 0;
}

#ifdef CMLAB_HAVE_RENDER
/* plot and render: cmlab-cli-render (cmlab-cli-render.c), which links the render library,
 * replaces this process with the same arguments — so simulate and the other commands
 * never load Cairo, Pango, epoxy or EGL.  It is looked for beside this program (the build
 * tree) and then in the libexec directory cmlab was installed to. */
static int
exec_render (char **argv)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *self_dir = self ? g_path_get_dirname (self) : NULL;
  g_autofree char *beside = self_dir ? g_build_filename (self_dir, "cmlab-cli-render", NULL) : NULL;
  const char *const candidates[] = { beside, CMLAB_LIBEXECDIR "/cmlab-cli-render" };
  int err = ENOENT;

  fflush (NULL);
  for (guint k = 0; k < G_N_ELEMENTS (candidates); k++)
    {
      if (candidates[k] == NULL || !g_file_test (candidates[k], G_FILE_TEST_IS_REGULAR))
        continue;
      execv (candidates[k], argv);
      err = errno;
    }
  /* TRANSLATORS: the first %s is "draw plots" or "film videos"; the last three name where the program was looked for */
  fprintf (stderr, _("cmlab-cli: cannot %s: the program that draws, cmlab-cli-render, does not run (%s; looked in %s%s%s)\n"),
           g_str_equal (argv[1], "plot")     ? _("draw plots")
           : g_str_equal (argv[1], "lesson") ? _("draw the handout")
                                             : _("film videos"),
           g_strerror (err), self_dir ? self_dir : "",
           self_dir ? _(" and ") : "", CMLAB_LIBEXECDIR);
  return EXIT_USAGE;
}
#endif

int
main (int argc, char **argv)
{
  /* setlocale, bindtextdomain, bind_textdomain_codeset, textdomain */
  cml_cli_init_i18n ();
  gsl_set_error_handler_off ();
  /* GLib's default writer puts debug and info messages on standard output, where they
   * would mix with the CSV: every message goes to standard error */
  g_log_writer_default_set_use_stderr (TRUE);

  if (argc < 2)
    return usage_error (_("which command? simulate, info or list"));
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "help"))
    {
      fputs (_(usage_text), stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "--version"))
    {
      /* as GNU programs say it: the program, the package and its version, the licence */
      printf ("cmlab-cli (cmlab) %s\n", CMLAB_VERSION);
      printf ("%s\n", _("License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n"
                        "This is free software: you are free to change and redistribute it.\n"
                        "There is NO WARRANTY, to the extent permitted by law."));
      return 0;
    }
  for (guint k = 0; cml_cli_commands[k]; k++)
    if (g_str_equal (argv[1], cml_cli_commands[k]))
      cml_cli_set_command (cml_cli_commands[k]);
  if (g_str_equal (argv[1], "simulate"))
    return cmd_simulate (argc - 2, argv + 2);
#ifdef CMLAB_HAVE_RENDER
  if (g_str_equal (argv[1], "plot") || g_str_equal (argv[1], "render"))
    return exec_render (argv);
  /* the worksheet is drawn with Cairo and Pango too */
  if (g_str_equal (argv[1], "lesson") && argc >= 3 && g_str_equal (argv[2], "handout"))
    return exec_render (argv);
#else
  if (g_str_equal (argv[1], "plot") || g_str_equal (argv[1], "render"))
    {
      fprintf (stderr,
               _("cmlab-cli: this cmlab-cli was built without the render library (meson -Drender=disabled), "
               "so it cannot %s; simulate writes the numbers (CSV or JSON) for any plotting program, or "
               "build cmlab-cli with the render library on a machine with Cairo, Pango and epoxy\n"),
               g_str_equal (argv[1], "plot") ? _("draw plots") : _("film videos"));
      return EXIT_USAGE;
    }
#endif
  if (g_str_equal (argv[1], "poincare"))
    return cml_poincare_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "sweep"))
    return cml_sweep_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "shoot"))
    return cml_shoot_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "explore"))
    return cml_explore_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "info"))
    return cmd_info (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "rhs"))
    return cml_rhs_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "list"))
    return cml_list_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "lesson"))
    return cml_lesson_main (argc - 2, argv + 2);
  return usage_error (_("unknown command “%s”"), argv[1]);
}
