/* cmlab-cli.c — the command-line tool: simulate, info, list.  Works with no display.
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

#include "cml-bench.h"
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-native.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-output.h"
#include "cml-plot-cmd.h"
#include "cml-render-cmd.h"
#include "cml-system.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE 2
#define ROW_BYTES_PER_COLUMN 25 /* a number at full precision and its separator, about */

static const char *usage_text =
  "Usage:\n"
  "  cmlab-cli simulate MODEL [--set P=V]... [--init S=V]... [--t-start T0] --t-end T --dt-out H\n"
  "            [--integrator NAME] [--rtol R] [--atol A] [--step H] [--format csv|json] [-o FILE]\n"
  "  cmlab-cli render MODEL [--set P=V]... [--init S=V]... --t-end T --fps F --size WxH\n"
  "            [--frame lab|table] [--with-plot COL] [--speed S] [--integrator NAME]\n"
  "            [--rtol R] [--atol A] [--progress lines] -o FILE.{mp4,webm,gif,%05d.png}\n"
  "  cmlab-cli plot MODEL [--set P=V]... [--init S=V]... --t-end T --y COL[,COL...]\n"
  "            [--x COL] [--size WxH] [--samples N] [--title TEXT] [--dark] -o FILE.{png,svg,pdf}\n"
  "  cmlab-cli info MODEL [--set P=V]...\n"
  "  cmlab-cli list\n"
  "  cmlab-cli bench [--quick] [--json FILE] [--only NAME]\n"
  "\n"
  "MODEL is a model file (.cml) or a built-in name (see `cmlab-cli list`).\n"
  "Integrators: rk8pd (default), rkf45, rkck, rk4, msadams, msbdf, implicit-midpoint.\n";

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
  fputs (usage_text, stderr);
  return EXIT_USAGE;
}

typedef struct
{
  const char *model;
  GPtrArray  *sets;  /* char* "P=V" */
  GPtrArray  *inits; /* char* "S=V" */
  double      t_end, dt_out;
  gboolean    has_t_end, has_dt_out;
  double      t_start;      /* --t-start: the initial data hold at T0; backwards when T < T0 */
  gboolean    has_t_start;
  const char *integrator;
  double      rtol, atol, step;
  gboolean    has_rtol, has_atol, has_step;
  const char *format;
  const char *output;
} Options;

/* Parses the arguments after the sub-command; returns 0 or an exit status. */
static int
parse_options (int argc, char **argv, Options *o, gboolean simulate)
{
  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];
      const char *val = NULL;
      const char *missing = NULL; /* an option that takes a value, given last without one */
#define TAKE(flag)                                                                                   \
  (g_str_equal (a, flag) ? (i + 1 < argc ? (val = argv[++i], TRUE) : (missing = flag, FALSE))       \
                         : (g_str_has_prefix (a, flag "=") ? (val = a + strlen (flag "="), TRUE) : FALSE))
      if (g_str_equal (a, "--help") || g_str_equal (a, "-h"))
        {
          fputs (usage_text, stdout);
          exit (0);
        }
      else if (TAKE ("--set"))
        g_ptr_array_add (o->sets, (char *) val);
      else if (simulate && TAKE ("--init"))
        g_ptr_array_add (o->inits, (char *) val);
      else if (simulate && TAKE ("--t-end"))
        {
          if (!cml_cli_parse_double (val, &o->t_end) || !isfinite (o->t_end))
            return usage_error ("--t-end needs a number, not “%s”", val);
          o->has_t_end = TRUE;
        }
      else if (simulate && TAKE ("--t-start"))
        {
          if (!cml_cli_parse_double (val, &o->t_start) || !isfinite (o->t_start))
            return usage_error ("--t-start needs a number, not “%s”", val);
          o->has_t_start = TRUE;
        }
      else if (simulate && TAKE ("--dt-out"))
        {
          if (!cml_cli_parse_double (val, &o->dt_out) || !(o->dt_out > 0))
            return usage_error ("--dt-out needs a number > 0, not “%s”", val);
          o->has_dt_out = TRUE;
        }
      else if (simulate && TAKE ("--integrator"))
        o->integrator = val;
      else if (simulate && TAKE ("--rtol"))
        {
          if (!cml_cli_parse_double (val, &o->rtol) || !(o->rtol > 0 && o->rtol < 1))
            return usage_error ("--rtol needs a number between 0 and 1 (e.g. 1e-8), not “%s”", val);
          o->has_rtol = TRUE;
        }
      else if (simulate && TAKE ("--atol"))
        {
          if (!cml_cli_parse_double (val, &o->atol) || !(o->atol > 0))
            return usage_error ("--atol needs a number > 0, not “%s”", val);
          o->has_atol = TRUE;
        }
      else if (simulate && TAKE ("--step"))
        {
          if (!cml_cli_parse_double (val, &o->step) || !(o->step > 0))
            return usage_error ("--step needs a number > 0, not “%s”", val);
          o->has_step = TRUE;
        }
      else if (simulate && TAKE ("--format"))
        o->format = val;
      else if (simulate && (TAKE ("-o") || TAKE ("--output")))
        o->output = val;
      else if (missing != NULL)
        return usage_error ("option %s needs a value", missing);
      else if (a[0] == '-' && a[1] != '\0')
        return usage_error ("unknown option “%s”", a);
      else if (o->model == NULL)
        o->model = a;
      else
        return usage_error ("unexpected argument “%s”", a);
#undef TAKE
      if (val == NULL && (g_str_has_prefix (a, "--") && i == argc - 1 && !o->model))
        return usage_error ("“%s” needs a value", a);
    }
  if (o->model == NULL)
    return usage_error ("which model? Give a model file or a built-in name");
  return 0;
}

/* Loads the model, derives the system, applies --set; returns 0 or an exit status. */
static int
open_simulation (Options *o, CmlSimulation **out)
{
  return cml_cli_open_simulation (o->model, o->sets, usage_text, out);
}

static int
cmd_simulate (int argc, char **argv)
{
  Options o = { .sets = g_ptr_array_new (), .inits = g_ptr_array_new (), .format = "csv" };
  g_autoptr (GPtrArray) sets = o.sets;
  g_autoptr (GPtrArray) inits = o.inits;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlOutputFormat format;
  int status;

  if ((status = parse_options (argc, argv, &o, TRUE)) != 0)
    return status;
  if (!o.has_t_end || !o.has_dt_out)
    return usage_error ("simulate needs --t-end T and --dt-out H");
  if (!o.has_t_start && o.t_end < 0)
    return usage_error ("--t-end needs a number >= 0 (or --t-start T0 > T to run backwards), not %g", o.t_end);
  /* from T0 (0 unless --t-start) to T, backwards when T < T0 */
  const double t0 = o.has_t_start ? o.t_start : 0.0, span = fabs (o.t_end - t0);
  const double dir = o.t_end < t0 ? -1.0 : 1.0;
  if (!cml_output_format_from_string (o.format, &format))
    return usage_error ("--format must be csv or json, not “%s”", o.format);
  if (o.integrator && !cml_integrator_kind_from_string (o.integrator, &iopt.kind))
    return usage_error ("unknown integrator “%s”", o.integrator);
  if (o.has_rtol)
    iopt.rtol = o.rtol;
  if (o.has_atol)
    iopt.atol = o.atol;
  /* a fixed-step method has a step and no tolerances; an adaptive one the other way round */
  if (o.has_step && !cml_integrator_kind_is_fixed_step (iopt.kind))
    return usage_error ("--step sets the step of a fixed-step integrator (implicit-midpoint); %s chooses its "
                        "own steps from --rtol and --atol", cml_integrator_kind_to_string (iopt.kind));
  if ((o.has_rtol || o.has_atol) && cml_integrator_kind_is_fixed_step (iopt.kind))
    return usage_error ("%s takes fixed steps (--step H, default %g): --rtol and --atol do not apply",
                        cml_integrator_kind_to_string (iopt.kind), iopt.h_fixed);
  if (o.has_step)
    iopt.h_fixed = o.step;
  /* before anything is simulated: where the output goes, and whether it fits (a row is at
   * least t and one column at full precision, "-1.2345678901234567e-100,") */
  double n_rows_d = floor (span / o.dt_out * (1 + 1e-12)) + 2;
  guint64 n_rows_max = n_rows_d > 1e18 ? G_MAXUINT64 : (guint64) n_rows_d;
  {
    g_autofree char *why = NULL;
    if (!cml_cli_check_output_path ("-o", o.output, &why))
      return usage_error ("%s", why);
    if (!cml_cli_check_rows (o.output, n_rows_max, 2 * ROW_BYTES_PER_COLUMN, &why))
      return usage_error ("--t-end %g and --dt-out %g ask for %s", o.t_end, o.dt_out, why);
  }

  if ((status = cml_cli_parse_inits (inits, given, usage_text)) != 0)
    return status;

  if ((status = open_simulation (&o, &sim)) != 0)
    return status;
  if (!cml_simulation_set_integrator (sim, &iopt, &error))
    return usage_error ("%s", error->message);
  if (!cml_simulation_reset (sim, given, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (t0 != 0.0)
    cml_simulation_set_state (sim, t0, cml_simulation_get_state (sim));
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    fprintf (stderr, "note: %s\n", (char *) report->pdata[k]);

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  {
    /* now with the model's columns */
    g_autofree char *why = NULL;
    if (!cml_cli_check_rows (o.output, n_rows_max, (1 + g_strv_length (model->columns)) * ROW_BYTES_PER_COLUMN, &why))
      {
        fprintf (stderr, "cmlab-cli: --t-end %g and --dt-out %g ask for %s\n", o.t_end, o.dt_out, why);
        return EXIT_USAGE;
      }
  }
  g_autoptr (CmlOutput) out = cml_output_new (o.output, format, &error);
  if (out == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }
  if (!cml_output_begin (out, sim, (const char *const *) model->columns, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return EXIT_USAGE;
    }

  /* rows at t = T0, T0 ± H, T0 ± 2H, … and a last one at T */
  guint64 n_rows = (guint64) floor (span / o.dt_out * (1 + 1e-12));
  CmlCliProgress progress;
  cml_cli_progress_init (&progress, "simulating", cml_simulation_get_integrator (sim)->kind);
  gboolean ok = cml_output_row (out, sim, &error);
  for (guint64 k = 1; ok && k <= n_rows; k++)
    {
      double tk = t0 + dir * (double) k * o.dt_out;
      if (dir * (tk - o.t_end) > 0)
        tk = o.t_end;
      ok = cml_simulation_advance (sim, tk, &error) && cml_output_row (out, sim, &error);
      cml_cli_progress_update (&progress, fabs (tk - t0), span);
    }
  if (ok && cml_simulation_get_time (sim) != o.t_end)
    ok = cml_simulation_advance (sim, o.t_end, &error) && cml_output_row (out, sim, &error);
  cml_cli_progress_done (&progress);
  if (!ok)
    {
      /* a file that cannot be written (a full disk) is not a failing run */
      gboolean io = error->domain == CML_ERROR && error->code == CML_ERROR_IO;
      fprintf (stderr, "cmlab-cli: %s%s\n", io ? "" : "run failed: ", error->message);
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
cmd_info (int argc, char **argv)
{
  Options o = { .sets = g_ptr_array_new (), .inits = g_ptr_array_new () };
  g_autoptr (GPtrArray) sets = o.sets;
  g_autoptr (GPtrArray) inits = o.inits;
  g_autoptr (CmlSimulation) sim = NULL;
  int status;

  if ((status = parse_options (argc, argv, &o, FALSE)) != 0)
    return status;
  if ((status = open_simulation (&o, &sim)) != 0)
    return status;
  {
    g_autoptr (GError) error = NULL;
    if (o.sets->len && !cml_simulation_reset (sim, NULL, &error))
      {
        fprintf (stderr, "cmlab-cli: %s\n", error->message);
        return EXIT_USAGE;
      }
  }

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  g_autofree char *text = cml_system_describe_readable (sys);
  fputs (text, stdout);

  printf ("\nParameters:\n");
  if (model->params->len == 0)
    printf ("    (none)\n");
  for (guint k = 0; k < model->params->len; k++)
    {
      CmlParam *p = model->params->pdata[k];
      /* the name as --set takes it; a dimensionless one has no unit to show */
      const char *unit = p->unit && !g_str_equal (p->unit, "1") ? p->unit : "";
      printf ("    %-8s = %-10.6g %-10s %s\n", p->name, cml_simulation_get_param (sim, p->name), unit,
              p->meaning ? p->meaning : "");
    }

  printf ("\nInitial state:\n");
  const double *z = cml_simulation_get_state (sim);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    printf ("    %-8s = %.17g\n", cml_system_state_name (sys, i), z[i]);
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    printf ("    note: %s\n", (char *) report->pdata[k]);

  {
    const char *why = cml_system_native_status (sys);
    if (why == NULL)
      printf ("\nEvaluation: native code (compiled with %s)\n", cml_native_compiler ());
    else
      printf ("\nEvaluation: interpreter (no native code: %s)\n", why);
  }

  {
    guint n_obs = cml_system_n_observables (sys);
    g_autofree double *obs = g_new (double, n_obs);
    cml_simulation_observe (sim, obs);
    printf ("\nAt t = 0:\n");
    for (guint k = 0; k < model->monitors->len; k++)
      {
        const char *nm = ((CmlNamedExpr *) model->monitors->pdata[k])->name;
        int i = cml_system_observable_index (sys, nm);
        const char *unit = cml_model_unit (model, nm);
        printf ("    %-8s = %.17g %s\n", nm, obs[i], g_str_equal (unit, "1") ? "" : unit);
      }
    int r = cml_system_observable_index (sys, "residual");
    if (r >= 0)
      printf ("    constraint residual = %.3g\n", obs[r]);
  }
  printf ("\nColumns written by simulate: t");
  for (guint k = 0; model->columns[k]; k++)
    printf (",%s", model->columns[k]);
  printf ("\n");
  return 0;
}

static int
cmd_list (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  for (guint k = 0; names[k]; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (names[k], &error);
      printf ("%-24s %s\n", names[k], model ? model->title : error->message);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  gsl_set_error_handler_off ();
  /* GLib's default writer puts debug and info messages on standard output, where they
   * would mix with the CSV: every message goes to standard error */
  g_log_writer_default_set_use_stderr (TRUE);

  if (argc < 2)
    return usage_error ("which command? simulate, info or list");
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "help"))
    {
      fputs (usage_text, stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "simulate"))
    return cmd_simulate (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "plot"))
    return cml_plot_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "render"))
    return cml_render_main (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "info"))
    return cmd_info (argc - 2, argv + 2);
  if (g_str_equal (argv[1], "list"))
    return cmd_list ();
  if (g_str_equal (argv[1], "bench"))
    return cml_bench_main (argc - 2, argv + 2);
  return usage_error ("unknown command “%s”", argv[1]);
}
