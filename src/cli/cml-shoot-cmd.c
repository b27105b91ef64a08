/* cml-shoot-cmd.c — `cmlab-cli shoot MODEL --t-end T --target NAME=VALUE[,NAME=VALUE...]
 *                   [--dt-out H] [--columns A,B,...] [--max-iterations N] [run options]
 *                   [-o FILE]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shooting (cml-shoot.c, doc/theory.md §13): from the initial state the run options give
 * (the base coordinates and reconstruction variables held, the momenta a first guess),
 * the initial momenta whose extremal has the target values at T.  The solved run is
 * written as simulate writes it (cml-output.c: the same '#' lines, header and rows at
 * t = 0, H, 2H, … and at T; its first row is the initial state found), followed by '#'
 * lines with the residual of the rows written (from the last row's values, not the Newton
 * iterate's), the Newton iterations, the momenta found and the conjugate times.  Nothing is written when no solution is found (exit 1, the reason on standard
 * error).
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-shoot-cmd.h"

#include <glib/gi18n.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-output.h"
#include "cml-shoot.h"

static const char *shoot_usage =
  N_("Usage: cmlab-cli shoot MODEL --t-end T --target NAME=VALUE[,NAME=VALUE...] [--dt-out H]\n"
  "                  [--columns A,B,...] [--max-iterations N] [--set P=V]... [--init S=V]...\n"
  "                  [--integrator NAME] [--rtol R] [--atol A] [--step H] [--session FILE] [-o FILE]\n"
  "For a vakonomic model: finds the initial momenta whose extremal reaches the targets (base\n"
  "coordinates and reconstruction variables) at T, from the initial state given (--init: the\n"
  "base point held, the momenta a first guess), by Newton's method on the variational\n"
  "equations, with continuation in the target when Newton alone fails.  Writes the run from\n"
  "the momenta found as simulate does (rows every H, default T/100, and at T), then '#'\n"
  "lines with the residual, the iterations, the momenta and the conjugate times in (0, T].\n"
  "--target can be given more than once.  --max-iterations N: at most N Newton iterations\n"
  "in all (default 200); the shooting also stops when Newton's method and the continuation\n"
  "stall, saying how far it got.  Exit 1, and no output, when no solution is found.\n");

typedef struct
{
  GPtrArray *targets;  /* "NAME=VALUE" strings */
  double     dt_out;
  gboolean   has_dt_out;
  char     **columns;
  guint64    max_iterations; /* 0: the default */
} ShootOptions;

static gboolean
shoot_option (const char *name, const char *value, gpointer data, GError **error)
{
  ShootOptions *so = data;

  if (g_str_equal (name, "--target"))
    {
      g_auto (GStrv) parts = g_strsplit (value, ",", -1);
      for (guint k = 0; parts[k]; k++)
        {
          g_autofree char *nm = NULL;
          double v;
          if (!cml_cli_split_assignment (parts[k], &nm, &v))
            return cml_cli_option_error (error, _("--target needs NAME=VALUE[,NAME=VALUE...], not “%s”"), value);
          g_ptr_array_add (so->targets, g_strdup (g_strstrip (parts[k])));
        }
      return TRUE;
    }
  if (g_str_equal (name, "--dt-out"))
    {
      if (!cml_cli_parse_double (value, &so->dt_out) || !(so->dt_out > 0))
        return cml_cli_option_error (error, _("--dt-out needs a number > 0, not “%s”"), value);
      so->has_dt_out = TRUE;
      return TRUE;
    }
  if (g_str_equal (name, "--max-iterations"))
    {
      if (!g_ascii_string_to_unsigned (value, 10, 1, 1000000, &so->max_iterations, NULL))
        return cml_cli_option_error (error, _("--max-iterations needs a whole number from 1 to 10^6, not “%s”"),
                                     value);
      return TRUE;
    }
  /* --columns */
  g_strfreev (so->columns);
  so->columns = g_strsplit (value, ",", -1);
  for (guint k = 0; so->columns[k]; k++)
    if (*g_strstrip (so->columns[k]) == '\0')
      return cml_cli_option_error (error, _("--columns needs names separated by commas, not “%s”"), value);
  return TRUE;
}

#define SHOOT_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) shoot_option, "", arg }

static const GOptionEntry shoot_entries[] = {
  SHOOT_ENTRY ("target", "NAME=VALUE[,NAME=VALUE...]"),
  SHOOT_ENTRY ("dt-out", "H"),
  SHOOT_ENTRY ("columns", "A,B,..."),
  SHOOT_ENTRY ("max-iterations", "N"),
  G_OPTION_ENTRY_NULL
};

static void
shoot_options_clear (ShootOptions *so)
{
  g_clear_pointer (&so->targets, g_ptr_array_unref);
  g_strfreev (so->columns);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ShootOptions, shoot_options_clear)

/* ‖z_targets − targets‖₂ at SIM's present state: the residual of the rows written. */
static double
written_residual (CmlSimulation *sim, guint n, const char *const *names, const double *values)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  const double *z = cml_simulation_get_state (sim);
  double r2 = 0;
  for (guint k = 0; k < n; k++)
    for (guint i = 0; i < cml_system_dim (sys); i++)
      if (g_str_equal (cml_system_state_name (sys, i), names[k]))
        r2 += (z[i] - values[k]) * (z[i] - values[k]);
  return sqrt (r2);
}

/* The '#' lines after the rows: what was solved and what was found; RESIDUAL is that of
 * the rows written. */
static gboolean
write_report (CmlOutput *out, const CmlShootResult *res, double residual, GPtrArray *targets, double t_end,
              GError **error)
{
  g_autoptr (GString) s = g_string_new ("shoot: targets at T = ");
  g_string_append_printf (s, "%.17g:", t_end);
  for (guint k = 0; k < targets->len; k++)
    g_string_append_printf (s, "%s %s", k ? "," : "", (const char *) targets->pdata[k]);
  if (!cml_output_comment (out, s->str, error))
    return FALSE;
  g_string_printf (s, "shoot: residual %.3g after %u Newton iterations%s", residual, res->iterations,
                   res->at_rest ? " (the targets are the start point: the extremal at rest)"
                   : res->continuation_used ? "" : " (damped Newton, no continuation)");
  if (res->continuation_used)
    g_string_append_printf (s, " (continuation in the target, %u steps)", res->continuation_steps);
  if (!cml_output_comment (out, s->str, error))
    return FALSE;
  g_string_assign (s, "shoot: momenta found:");
  for (guint j = 0; j < res->n_momenta; j++)
    g_string_append_printf (s, "%s %s = %.17g", j ? "," : "", res->momentum_names[j], res->momenta[j]);
  if (!cml_output_comment (out, s->str, error))
    return FALSE;
  /* the times, or (conjugate_note) why none are listed */
  if (res->conjugate_rows && !res->conjugate_note)
    {
      g_string_printf (s, "shoot: conjugate times in (0, T] (det ∂(%s)/∂p(0) = 0):", res->conjugate_rows);
      for (guint j = 0; j < res->conjugate_times->len; j++)
        g_string_append_printf (s, "%s %.17g", j ? "," : "", g_array_index (res->conjugate_times, double, j));
      if (res->conjugate_times->len == 0)
        g_string_append (s, " none");
      if (!cml_output_comment (out, s->str, error))
        return FALSE;
    }
  if (res->conjugate_note)
    {
      g_string_printf (s, "shoot: %s", res->conjugate_note);
      if (!cml_output_comment (out, s->str, error))
        return FALSE;
    }
  return TRUE;
}

int
cml_shoot_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_auto (ShootOptions) so = { .targets = g_ptr_array_new_with_free_func (g_free) };
  g_autofree char *model_name = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  int status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, shoot_entries, &so, &ro, CML_CLI_RUN_OPTIONS_ALL, shoot_usage,
                               &model_name);
  if (status != CML_CLI_CONTINUE)
    return status;
  if (!ro.has_t_end || so.targets->len == 0)
    return cml_cli_usage_error (shoot_usage, _("shoot needs --t-end T and --target NAME=VALUE"));
  if (!(ro.t_end > 0))
    return cml_cli_usage_error (shoot_usage, _("--t-end needs a number > 0, not %g"), ro.t_end);
  double dt_out = so.has_dt_out ? so.dt_out : ro.t_end / 100;
  if ((status = cml_cli_run_options_integrator (&ro, &iopt, shoot_usage)) != 0)
    return status;
  {
    g_autofree char *why = NULL;
    double n_rows = floor (ro.t_end / dt_out * (1 + 1e-12)) + 2;
    if (!cml_cli_check_output_path ("-o", ro.output, &why))
      return cml_cli_usage_error (shoot_usage, "%s", why);
    if (!cml_cli_check_rows (ro.output, n_rows > 1e18 ? G_MAXUINT64 : (guint64) n_rows, 50, &why))
      return cml_cli_usage_error (shoot_usage, _("--t-end %g and --dt-out %g ask for %s"), ro.t_end, dt_out, why);
  }
  guint nt = so.targets->len;
  g_autofree const char **names = g_new0 (const char *, nt + 1);
  g_autofree double *values = g_new (double, nt);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < nt; k++)
    {
      char *nm = NULL;
      cml_cli_split_assignment (so.targets->pdata[k], &nm, &values[k]);
      g_ptr_array_add (owned, nm);
      names[k] = nm;
    }

  if ((status = cml_cli_start_simulation (model_name, ro.sets, ro.inits, given, &iopt, NULL,
                                          ro.t_end, shoot_usage, &sim)) != 0)
    return status;
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    fprintf (stderr, _("note: %s\n"), (char *) report->pdata[k]);

  CmlShootOptions sopt = cml_shoot_options_default ();
  if (so.max_iterations)
    sopt.max_iterations = (guint) so.max_iterations;
  g_autoptr (CmlShootResult) res = cml_shoot (sim, ro.t_end, nt, names, values, &sopt, &error);
  if (res == NULL)
    {
      gboolean usage = error->domain == CML_ERROR && error->code == CML_ERROR_USAGE;
      fprintf (stderr, "cmlab-cli: %s%s\n", usage ? "" : _("shooting failed: "), error->message);
      return usage ? CML_CLI_EXIT_USAGE : CML_CLI_EXIT_RUN_FAILED;
    }

  /* the run from the momenta found, as simulate writes it */
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (sim));
  const char *const *columns = (const char *const *) (so.columns ? so.columns : model->columns);
  g_autoptr (CmlOutput) out = cml_output_new (ro.output, CML_OUTPUT_CSV, &error);
  if (out == NULL)
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  if (!cml_output_begin (out, sim, columns, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      cml_output_abort (out);
      return CML_CLI_EXIT_USAGE;
    }
  double t_end = ro.t_end;
  guint64 n_rows = (guint64) floor (t_end / dt_out * (1 + 1e-12));
  gboolean ok = cml_output_row (out, sim, &error);
  for (guint64 k = 1; ok && k <= n_rows; k++)
    {
      double tk = MIN ((double) k * dt_out, t_end);
      ok = cml_simulation_advance (sim, tk, &error) && cml_output_row (out, sim, &error);
    }
  if (ok && cml_simulation_get_time (sim) != t_end)
    ok = cml_simulation_advance (sim, t_end, &error) && cml_output_row (out, sim, &error);
  if (ok)
    ok = write_report (out, res, written_residual (sim, nt, names, values), so.targets, t_end, &error);
  if (!ok)
    {
      gboolean io = error->domain == CML_ERROR && error->code == CML_ERROR_IO;
      fprintf (stderr, "cmlab-cli: %s%s\n", io ? "" : _("run failed: "), error->message);
      cml_output_abort (out);
      return io ? CML_CLI_EXIT_USAGE : CML_CLI_EXIT_RUN_FAILED;
    }
  if (!cml_output_finish (out, &error))
    {
      fprintf (stderr, "cmlab-cli: %s\n", error->message);
      return CML_CLI_EXIT_USAGE;
    }
  return 0;
}
