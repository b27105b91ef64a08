/* cml-sweep-cmd.c — `cmlab-cli sweep MODEL --vary P=A:B:N [--vary Q=C:D:M]...
 *                   --t-end T --measure NAME[,NAME...] [--at T1,T2,...] [--shard I/N]
 *                   [--jobs J] [run options] [-o FILE]`
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A parameter sweep: the grid is the Cartesian product of the --vary ranges (N points
 * from A to B inclusive; N = 1 is A alone), in grid order — the first --vary varies
 * slowest, the last fastest, so grid index k = ((i_P · M) + i_Q) · … .  Every point is
 * one fresh simulation of the same (immutable, shared) system: the run options' values,
 * the point's parameters, a reset from the initial data (--init) and a run to each time
 * of --at (default: T alone), where the --measure observables are read.  J threads
 * (--jobs, default one per processor) take the points in turn; each owns its
 * simulation, and the rows are written in grid order as soon as the next one is done.
 * A point whose run fails gets nan from the failure on, and a note on standard error.
 *
 * The output opens with one comment line, "# cmlab sweep: model NAME; vary P, Q", that
 * `cmlab-cli plot` reads, then comment lines that say what made the numbers (cmlab's
 * version and the model text's SHA-256, the model file, the parameters, the initial
 * values given, T and the integrator: write_provenance ()), then the column names.
 *
 * --shard I/N keeps the points whose grid index k has k mod N = I − 1, with the same
 * header lines: the rows of the N shards, merged in grid order, are the unsharded
 * file's.  The runs themselves are cml-sweep.c's.
 *
 * Bounds: the rows are written as they come (the sweep holds a window of them, never the
 * grid); a run writes at most SWEEP_MAX_COLUMNS measured columns a row and
 * SWEEP_MAX_VALUES numbers in all (points × measured columns; more is split into shards);
 * --jobs is at most CML_SWEEP_MAX_JOBS, and the sweep runs on the threads the system
 * gives.  Ctrl-C, SIGTERM or SIGHUP during -o FILE drop the file's temporary.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-sweep-cmd.h"

#include <glib/gi18n.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-output.h"
#include "cml-sweep.h"

static const char *sweep_usage =
  N_("Usage: cmlab-cli sweep MODEL --vary P=A:B:N [--vary Q=C:D:M]... --t-end T\n"
  "                  --measure NAME[,NAME...] [--at T1,T2,...] [--shard I/N] [--jobs J]\n"
  "                  [--set P=V]... [--init S=V]... [--integrator NAME] [--rtol R] [--atol A]\n"
  "                  [--step H] [--session FILE] [-o FILE]\n"
  "Runs the model at every point of the grid of parameter values (the product of the\n"
  "--vary ranges: N values from A to B inclusive, N = 1 is A alone) and writes one CSV row\n"
  "per point, in grid order (the last --vary varies fastest), after a line\n"
  "“# cmlab sweep: model NAME; vary P, Q”, '#' lines saying what made the numbers (cmlab's\n"
  "version, the model, the parameters, --init, T, the integrator) and the header: the\n"
  "parameters, then each --measure quantity at each --at time (default: at T alone; the\n"
  "columns are NAME@T1, …).\n"
  "--shard I/N: only the points whose grid index k has k mod N = I − 1 (same header lines).\n"
  "--jobs J: J runs at a time (default: one per processor).\n");

#define SWEEP_MAX_POINTS  ((guint64) CML_CLI_MAX_ROWS)
#define SWEEP_MAX_COLUMNS 100000u                   /* 10⁵ measured columns a row */
#define SWEEP_MAX_VALUES  ((guint64) 1000000000)    /* 10⁹ numbers (points × columns) a run */

typedef struct
{
  GPtrArray *varies;   /* "P=A:B:N" strings */
  char      *measures; /* "NAME,NAME" */
  char      *at;       /* "T1,T2" */
  char      *shard;    /* "I/N" */
  guint      jobs;     /* 0: one per processor */
} SweepOptions;

static gboolean
sweep_option (const char *name, const char *value, gpointer data, GError **error)
{
  SweepOptions *so = data;
  char **slot;

  if (g_str_equal (name, "--vary"))
    {
      g_ptr_array_add (so->varies, g_strdup (value));
      return TRUE;
    }
  if (g_str_equal (name, "--jobs"))
    {
      guint64 j;
      if (!g_ascii_string_to_unsigned (value, 10, 1, CML_SWEEP_MAX_JOBS, &j, NULL))
        return cml_cli_option_error (error, _("--jobs needs a whole number from 1 to %u, not “%s”"),
                                     CML_SWEEP_MAX_JOBS, value);
      so->jobs = (guint) j;
      return TRUE;
    }
  slot = g_str_equal (name, "--measure") ? &so->measures : g_str_equal (name, "--at") ? &so->at : &so->shard;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

#define SWEEP_ENTRY(name, arg) \
  { name, 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) sweep_option, "", arg }

static const GOptionEntry sweep_entries[] = {
  SWEEP_ENTRY ("vary", "P=A:B:N"),
  SWEEP_ENTRY ("measure", "NAME[,NAME...]"),
  SWEEP_ENTRY ("at", "T1,T2,..."),
  SWEEP_ENTRY ("shard", "I/N"),
  SWEEP_ENTRY ("jobs", "J"),
  G_OPTION_ENTRY_NULL
};

static void
sweep_options_clear (SweepOptions *so)
{
  g_clear_pointer (&so->varies, g_ptr_array_unref);
  g_free (so->measures);
  g_free (so->at);
  g_free (so->shard);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SweepOptions, sweep_options_clear)

/* "P=A:B:N" -> V (its param index is set later).  FALSE with a message in *WHY. */
static gboolean
parse_vary (const char *arg, CmlSweepVary *v, char **why)
{
  g_auto (GStrv) parts = NULL;
  const char *eq = strchr (arg, '=');
  guint64 n;

  if (eq == NULL || eq == arg)
    goto bad;
  parts = g_strsplit (eq + 1, ":", -1);
  if (g_strv_length (parts) != 3)
    goto bad;
  g_strstrip (parts[0]);
  g_strstrip (parts[1]);
  g_strstrip (parts[2]);
  if (!cml_cli_parse_double (parts[0], &v->a) || !cml_cli_parse_double (parts[1], &v->b))
    goto bad;
  if (!g_ascii_string_to_unsigned (parts[2], 10, 0, G_MAXUINT32, &n, NULL))
    goto bad;
  if (n == 0)
    {
      *why = g_strdup_printf (_("--vary %s: the number of points N must be at least 1"), arg);
      return FALSE;
    }
  v->n = (guint) n;
  v->name = g_strstrip (g_strndup (arg, eq - arg));
  if (*v->name == '\0')
    goto bad;
  return TRUE;

bad:
  g_clear_pointer (&v->name, g_free);
  *why = g_strdup_printf (_("--vary takes P=A:B:N (parameter P from A to B in N points, e.g. Omega=0:2:21), "
                          "not “%s”"),
                          arg);
  return FALSE;
}

/* Numbers as simulate writes them: 17 significant digits in the C locale. */
static void
append_number (GString *s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isfinite (v))
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
  else
    g_string_append (s, isnan (v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* The sweep's progress on a terminal, as simulate's: after the first second, at most
 * four times a second. */
typedef struct
{
  gboolean tty, shown;
  gint64   start, last;
} Progress;

static void
progress_update (Progress *p, guint64 done, guint64 total)
{
  gint64 now = g_get_monotonic_time ();
  double f = total ? (double) done / (double) total : 1.0, elapsed = (now - p->start) / 1e6;

  if (!p->tty || now - p->start < G_USEC_PER_SEC || now - p->last < G_USEC_PER_SEC / 4)
    return;
  p->last = now;
  fputs ("\r\033[K", stderr);
  fprintf (stderr, _("sweeping: point %llu of %llu (%.0f%%)"), (unsigned long long) done, (unsigned long long) total,
           100 * f);
  if (f > 0)
    fprintf (stderr, _(", %.0f s left"), ceil (elapsed / f * (1 - f)));
  fflush (stderr);
  p->shown = TRUE;
}

static void
progress_done (Progress *p)
{
  if (p->shown)
    fputs ("\r\033[K", stderr);
  p->shown = FALSE;
}

/* Where the rows go, as the sweep hands them out. */
typedef struct
{
  FILE          *fp;
  CmlAtomicFile *file; /* -o FILE, or NULL for standard output */
  GString       *line;
  const GArray  *vary; /* CmlSweepVary */
  guint          n_cols;
  Progress       progress;
  guint64        n_failed;
  int            write_errno; /* the first failed write's (ENOSPC on a full disk), or 0 */
} SweepOutput;

/* Ctrl-C, SIGTERM or SIGHUP while -o FILE is written: the temporary file goes, and the
 * signal then ends the process as it would have (the runs under way with it). */
static void
check_interrupted (SweepOutput *out)
{
  if (out->file == NULL || cml_atomic_file_interrupted () == 0)
    return;
  progress_done (&out->progress);
  fprintf (stderr, _("cmlab-cli: interrupted (%s); %s not written\n"), g_strsignal (cml_atomic_file_interrupted ()),
           cml_atomic_file_get_path (out->file));
  cml_atomic_file_abort (out->file);
  cml_atomic_file_release_signals ();
  /* a signal whose handler was to ignore it: the sweep stops all the same */
  _exit (CML_CLI_EXIT_USAGE);
}

static void
write_row (guint64 k, guint64 g, const guint *idx, const double *values, const char *why, gpointer data)
{
  SweepOutput *out = data;
  const GArray *vary = out->vary;
  GString *line = out->line;

  check_interrupted (out);
  g_string_truncate (line, 0);
  for (guint j = 0; j < vary->len; j++)
    {
      if (j)
        g_string_append_c (line, ',');
      append_number (line, cml_sweep_vary_value (&g_array_index (vary, CmlSweepVary, j), idx[j]));
    }
  for (guint c = 0; c < out->n_cols; c++)
    {
      g_string_append_c (line, ',');
      append_number (line, values[c]);
    }
  g_string_append_c (line, '\n');
  if (why)
    {
      g_autoptr (GString) point = g_string_new (NULL);
      for (guint j = 0; j < vary->len; j++)
        {
          g_string_append_printf (point, "%s%s=", j ? ", " : "", g_array_index (vary, CmlSweepVary, j).name);
          append_number (point, cml_sweep_vary_value (&g_array_index (vary, CmlSweepVary, j), idx[j]));
        }
      progress_done (&out->progress);
      fprintf (stderr, _("note: point %llu (%s): %s\n"), (unsigned long long) g, point->str, why);
      out->n_failed++;
    }
  fputs (line->str, out->fp);
  if (fflush (out->fp) != 0 && out->write_errno == 0)
    out->write_errno = errno;
}

static void
show_progress (guint64 done, guint64 total, gpointer data)
{
  check_interrupted (data);
  progress_update (&((SweepOutput *) data)->progress, done, total);
}

/* "T1,T2" (times >= 0, increasing, at most T) -> AT, and the names of the header. */
static int
parse_at (const char *text, double t_end, GArray *at, GPtrArray *labels)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (guint k = 0; parts[k]; k++)
    {
      double t;
      g_strstrip (parts[k]);
      if (!cml_cli_parse_double (parts[k], &t) || t < 0 || t > t_end)
        return cml_cli_usage_error (sweep_usage, _("--at takes times from 0 to --t-end %g, separated by commas, "
                                    "not “%s”"), t_end, parts[k]);
      if (at->len && t <= g_array_index (at, double, at->len - 1))
        return cml_cli_usage_error (sweep_usage, _("--at: the times must increase (%s)"), text);
      g_array_append_val (at, t);
      g_ptr_array_add (labels, g_strdup (parts[k]));
    }
  if (at->len == 0)
    return cml_cli_usage_error (sweep_usage, _("--at needs at least one time"));
  return 0;
}

/* "I/N" with 1 <= I <= N -> 0-based I, N. */
static gboolean
parse_shard (const char *text, guint64 *i, guint64 *n)
{
  g_auto (GStrv) parts = g_strsplit (text, "/", -1);

  if (g_strv_length (parts) != 2)
    return FALSE;
  g_strstrip (parts[0]);
  g_strstrip (parts[1]);
  if (!g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT32, n, NULL)
      || !g_ascii_string_to_unsigned (parts[0], 10, 1, *n, i, NULL))
    return FALSE;
  (*i)--;
  return TRUE;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The comment lines after the first that say what made the numbers, the same in every
 * shard (so the shards' header lines stay alike): cmlab and the model text, the model
 * file (MODEL_ARG when it names one: `plot` reads the units there), the parameters
 * (--set; the varied ones marked), the initial values given (--init), the span (--t-end)
 * and the integrator — the one auto chose, with its tolerances or its step. */
static void
write_provenance (FILE *fp, CmlSimulation *sim, const GArray *vary, GHashTable *given, const char *model_arg,
                  double t_end)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  g_autofree double *values = g_new (double, model->params->len + 1);
  g_autofree gboolean *varied = g_new0 (gboolean, model->params->len + 1);

  cml_output_write_made_by (fp, model);
  if (model_arg && g_file_test (model_arg, G_FILE_TEST_IS_REGULAR))
    {
      /* one line a reader takes as it is: a name with a line break or another control
       * character is left out */
      g_autofree char *path = g_canonicalize_filename (model_arg, NULL);
      gboolean plain = g_utf8_validate (path, -1, NULL);
      for (const char *c = path; plain && *c; c++)
        plain = !g_ascii_iscntrl (*c);
      if (plain)
        fprintf (fp, "%s%s\n", CML_SWEEP_MODEL_FILE_TAG, path);
    }
  for (guint p = 0; p < model->params->len; p++)
    values[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);
  for (guint j = 0; j < vary->len; j++)
    varied[g_array_index (vary, CmlSweepVary, j).param] = TRUE;
  cml_output_write_parameters (fp, model, values, varied);

  /* the initial values given, in the order of the state, then any other names (a
   * vakonomic reading's multipliers) in the order of the alphabet */
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint i = 0; i < cml_system_dim (sys); i++)
    if (g_hash_table_contains (given, cml_system_state_name (sys, i)))
      g_ptr_array_add (names, (gpointer) cml_system_state_name (sys, i));
  {
    g_autoptr (GPtrArray) rest = g_ptr_array_new ();
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init (&it, given);
    while (g_hash_table_iter_next (&it, &key, NULL))
      if (!g_ptr_array_find_with_equal_func (names, key, g_str_equal, NULL))
        g_ptr_array_add (rest, key);
    g_ptr_array_sort (rest, compare_names);
    g_ptr_array_extend_and_steal (names, g_steal_pointer (&rest));
  }
  fputs ("# initial values given:", fp);
  for (guint k = 0; k < names->len; k++)
    {
      fprintf (fp, "%s %s = ", k ? "," : "", (const char *) names->pdata[k]);
      cml_output_write_number (fp, *(const double *) g_hash_table_lookup (given, names->pdata[k]));
    }
  fputs (names->len ? "\n" : " none (the model's initial state)\n", fp);

  fputs ("# each run: from t = 0 to t = ", fp);
  cml_output_write_number (fp, t_end);
  fputs ("\n", fp);
  cml_output_write_integrator (fp, cml_simulation_get_integrator (sim));
}

static void
vary_clear (gpointer data)
{
  g_free (((CmlSweepVary *) data)->name);
}

int
cml_sweep_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_auto (SweepOptions) so = { .varies = g_ptr_array_new_with_free_func (g_free) };
  g_autofree char *model_name = NULL;
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) vary = g_array_new (FALSE, TRUE, sizeof (CmlSweepVary));
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) at_labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) measure = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (CmlAtomicFile) file = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree double *base = NULL;
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  guint64 shard_i = 0, shard_n = 1, n_grid = 1, n_points;
  guint jobs_run = 0, jobs_asked;
  const char *output;
  int status;

  g_array_set_clear_func (vary, vary_clear);
  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, sweep_entries, &so, &ro, CML_CLI_RUN_OPTIONS_ALL, sweep_usage,
                               &model_name);
  if (status != CML_CLI_CONTINUE)
    return status;
  output = ro.output ? ro.output : "-";

  if (so.varies->len == 0 || so.measures == NULL || !ro.has_t_end)
    return cml_cli_usage_error (sweep_usage, _("sweep needs --vary P=A:B:N, --measure NAME and --t-end T"));
  for (guint k = 0; k < so.varies->len; k++)
    {
      CmlSweepVary v = { 0 };
      g_autofree char *why = NULL;

      if (!parse_vary (so.varies->pdata[k], &v, &why))
        return cml_cli_usage_error (sweep_usage, "%s", why);
      for (guint j = 0; j < vary->len; j++)
        if (g_str_equal (g_array_index (vary, CmlSweepVary, j).name, v.name))
          {
            g_free (v.name);
            return cml_cli_usage_error (sweep_usage, _("--vary names %s twice"), g_array_index (vary, CmlSweepVary, j).name);
          }
      g_array_append_val (vary, v);
      if (n_grid > SWEEP_MAX_POINTS / v.n)
        return cml_cli_usage_error (sweep_usage, _("the grid has more than %llu points"),
                                    (unsigned long long) SWEEP_MAX_POINTS);
      n_grid *= v.n;
    }
  if (so.shard && !parse_shard (so.shard, &shard_i, &shard_n))
    return cml_cli_usage_error (sweep_usage, _("--shard takes I/N with 1 <= I <= N (e.g. 3/8), not “%s”"), so.shard);
  if (so.at)
    {
      if ((status = parse_at (so.at, ro.t_end, at, at_labels)) != 0)
        return status;
    }
  else
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_array_append_val (at, ro.t_end);
      g_ptr_array_add (at_labels, g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", ro.t_end)));
    }
  n_points = n_grid > shard_i ? (n_grid - shard_i - 1) / shard_n + 1 : 0;
  names = g_strsplit (so.measures, ",", -1);
  {
    /* what one run writes: its rows are streamed, but a row is held whole, and a run of
     * hours is better split into shards that fail alone */
    guint64 n_cols = (guint64) g_strv_length (names) * at->len;

    if (n_cols > SWEEP_MAX_COLUMNS)
      return cml_cli_usage_error (sweep_usage, _("%u quantities at %u times make %llu columns a row, more than %u, "
                                  "the most a sweep writes: measure fewer quantities or at fewer times (--at)"),
                                  g_strv_length (names), at->len, (unsigned long long) n_cols, SWEEP_MAX_COLUMNS);
    if (n_cols * n_points > SWEEP_MAX_VALUES)
      {
        guint64 parts = (n_cols * n_points + SWEEP_MAX_VALUES - 1) / SWEEP_MAX_VALUES * shard_n;
        return cml_cli_usage_error (sweep_usage, _("%llu points × %llu columns are %llu numbers, more than 10^9, the "
                                    "most one sweep writes: split it into %llu shards or more, --shard 1/%llu to "
                                    "--shard %llu/%llu, each run on its own (on as many machines), and merge their "
                                    "rows in grid order"),
                                    (unsigned long long) n_points, (unsigned long long) n_cols,
                                    (unsigned long long) (n_cols * n_points), (unsigned long long) parts,
                                    (unsigned long long) parts, (unsigned long long) parts,
                                    (unsigned long long) parts);
      }
  }
  if ((status = cml_cli_run_options_integrator (&ro, &iopt, sweep_usage)) != 0)
    return status;
  {
    g_autofree char *why = NULL;

    if (!cml_cli_check_output_path ("-o", output, &why))
      return cml_cli_usage_error (sweep_usage, "%s", why);
  }
  if ((status = cml_cli_parse_inits (ro.inits, given, sweep_usage)) != 0)
    return status;
  if ((status = cml_cli_open_simulation (model_name, ro.sets, sweep_usage, &sim)) != 0)
    return status;

  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);

  /* the names, and every value of the grid within its parameter's range */
  for (guint j = 0; j < vary->len; j++)
    {
      CmlSweepVary *v = &g_array_index (vary, CmlSweepVary, j);

      v->param = cml_model_param_index (model, v->name);
      if (v->param < 0)
        return cml_cli_usage_error (NULL, _("%s has no parameter “%s” for --vary"), model->name, v->name);
      /* a range's values lie between its ends; a list of allowed values is checked one by one */
      const CmlParam *par = model->params->pdata[v->param];
      for (guint i = 0; i < v->n; i = par->choices || i + 1 >= v->n - 1 ? i + 1 : v->n - 1)
        if (!cml_model_check_param (model, par, cml_sweep_vary_value (v, i), &error))
          return cml_cli_usage_error (NULL, _("--vary %s: %s"), v->name, error->message);
    }
  for (guint k = 0; names[k]; k++)
    {
      int i;
      g_strstrip (names[k]);
      if ((i = cml_system_observable_index (sys, names[k])) < 0)
        return cml_cli_usage_error (NULL, _("%s has no quantity “%s” for --measure"), model->name, names[k]);
      g_array_append_val (measure, i);
    }
  if (measure->len == 0)
    return cml_cli_usage_error (sweep_usage, _("--measure needs at least one quantity"));

  /* the run options with the model's own values: --init names, the initial data, the
   * span (before any thread starts) */
  if (!cml_simulation_set_integrator (sim, &iopt, &error))
    return cml_cli_integrator_error (sweep_usage, error);
  if (!cml_simulation_reset (sim, given, &error))
    {
      if (error->domain == CML_ERROR && (error->code == CML_ERROR_USAGE || error->code == CML_ERROR_UNKNOWN_NAME))
        return cml_cli_usage_error (NULL, "%s", error->message);
      g_clear_error (&error);
    }
  else
    {
      g_autofree char *why = NULL;
      const GPtrArray *report = cml_simulation_get_projection_report (sim);

      if (!cml_cli_check_span (sim, given, ro.t_end, &why))
        return cml_cli_usage_error (NULL, "%s", why);
      for (guint k = 0; k < report->len; k++)
        fprintf (stderr, _("note: %s\n"), (char *) report->pdata[k]);
    }
  base = g_new (double, model->params->len + 1);
  for (guint p = 0; p < model->params->len; p++)
    base[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);

  /* the header: a comment line saying what was swept, then the columns */
  g_autoptr (GString) first = g_string_new (NULL);
  g_string_append_printf (first, "%s%s; vary ", CML_SWEEP_FILE_TAG, model->name);
  for (guint j = 0; j < vary->len; j++)
    g_string_append_printf (first, "%s%s", j ? ", " : "", g_array_index (vary, CmlSweepVary, j).name);
  g_string_append_c (first, '\n');
  g_autoptr (GString) line = g_string_new (NULL);
  for (guint j = 0; j < vary->len; j++)
    g_string_append_printf (line, "%s%s", j ? "," : "", g_array_index (vary, CmlSweepVary, j).name);
  for (guint m = 0; m < measure->len; m++)
    for (guint a = 0; a < at->len; a++)
      {
        g_string_append_printf (line, ",%s", names[m]);
        if (so.at)
          g_string_append_printf (line, "@%s", (char *) at_labels->pdata[a]);
      }
  g_string_append_c (line, '\n');

  FILE *fp = stdout;
  if (!g_str_equal (output, "-"))
    {
      file = cml_atomic_file_new (output, CML_ATOMIC_FILE_DEFAULT, &error);
      if (file == NULL)
        return cml_cli_usage_error (NULL, "%s", error->message);
      fp = cml_atomic_file_get_stream (file);
      cml_atomic_file_hold_signals ();
    }
  fputs (first->str, fp);
  write_provenance (fp, sim, vary, given, ro.session ? NULL : model_name, ro.t_end);
  fputs (line->str, fp);
  fflush (fp);

  /* the runs, and the rows in grid order */
  jobs_asked = MIN (so.jobs ? so.jobs : g_get_num_processors (), CML_SWEEP_MAX_JOBS);
  CmlSweepSpec spec = {
    .sys = sys, .base = base,
    .vary = (const CmlSweepVary *) vary->data, .n_vary = vary->len,
    .shard_i = shard_i, .shard_n = shard_n,
    .iopt = &iopt, .given = given,
    .at = (const double *) at->data, .n_at = at->len,
    .measure = (const int *) measure->data, .n_measures = measure->len,
    .jobs = so.jobs, .jobs_run = &jobs_run,
  };
  SweepOutput out = {
    .fp = fp, .file = file, .line = line, .vary = vary, .n_cols = measure->len * at->len,
    .progress = { .tty = isatty (STDERR_FILENO), .start = g_get_monotonic_time () },
  };
  cml_sweep_run (&spec, write_row, show_progress, &out, NULL);
  progress_done (&out.progress);
  check_interrupted (&out);

  if (file)
    {
      gboolean committed = cml_atomic_file_commit (file, &error);

      cml_atomic_file_release_signals ();
      if (!committed)
        {
          /* the failed write's own reason: the stream's error flag alone says EIO */
          if (out.write_errno)
            fprintf (stderr, _("cmlab-cli: writing %s failed: %s\n"), output, g_strerror (out.write_errno));
          else
            fprintf (stderr, "cmlab-cli: %s\n", error->message);
          return CML_CLI_EXIT_USAGE;
        }
    }
  if (jobs_run < MIN (jobs_asked, MAX (n_points, 1)))
    fprintf (stderr, _("note: the system gave %u threads of the %u asked for (--jobs): the sweep ran on %u\n"),
             jobs_run, jobs_asked, jobs_run);
  if (ferror (stdout))
    {
      fprintf (stderr, _("cmlab-cli: writing the output failed\n"));
      return CML_CLI_EXIT_USAGE;
    }
  if (out.n_failed)
    fprintf (stderr, _("cmlab-cli: %llu of %llu points failed (nan)\n"), (unsigned long long) out.n_failed,
             (unsigned long long) n_points);
  return 0;
}
