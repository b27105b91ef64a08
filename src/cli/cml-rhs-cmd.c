/* cml-rhs-cmd.c — `cmlab-cli rhs`: the right-hand side of the equations of motion, ż =
 * f(t, z), evaluated by cmlab at given times and states, for checking the equations
 * exported (`info --format sympy`) or another program's against cmlab's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads lines "t z_1 … z_n" (numbers separated by spaces, tabs or commas; blank lines and
 * lines starting with '#' are skipped) from --states FILE (or "-": standard input) and
 * writes one line per state, "f_1,…,f_n" with %.17g: the same evaluation the integrators
 * make (cml_simulation_eval_rhs_at), with the model's parameters or --set's; with
 * --with-free-velocities, then the free velocities Newton's method solved for.  A state at
 * which the right-hand side cannot be evaluated (a matrix that must be inverted is
 * singular there) gets a line of nan and a message on standard error, and the exit status
 * is then 1.
 */
#define G_LOG_DOMAIN "cml-rhs-cmd"

#include "cml-rhs-cmd.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-output.h"
#include "cml-read-file.h"
#include "cml-system.h"

#define EXIT_EVAL_FAILED 1
#define EXIT_USAGE 2
/* the largest file of states read (a hundred thousand states of a 20-dimensional system
 * is about 50 MB) */
#define MAX_STATES_BYTES ((gsize) 1 << 30)

static const char *rhs_usage =
  N_("Usage: cmlab-cli rhs MODEL [--set P=V]... --states FILE [--with-free-velocities]\n"
  "Evaluates the right-hand side of the equations of motion, the time derivative of every\n"
  "state variable, at the times and states of FILE (\"-\": standard input): one per line,\n"
  "t then the state in the order of `cmlab-cli list state MODEL`, separated by spaces or\n"
  "commas ('#' lines skipped).  Writes one line per state: the derivatives, separated by\n"
  "commas, with every digit (%.17g); with --with-free-velocities, then the velocities that\n"
  "Newton's method solved for (a vakonomic system whose W1 relations are nonlinear in them).\n");

typedef struct
{
  char    *states;
  gboolean with_free; /* --with-free-velocities */
} RhsOptions;

static gboolean
rhs_option (const char *name, const char *value, gpointer data, GError **error)
{
  RhsOptions *o = data;

  (void) error;
  if (g_str_equal (name, "--with-free-velocities"))
    o->with_free = TRUE;
  else
    {
      g_free (o->states);
      o->states = g_strdup (value);
    }
  return TRUE;
}

static const GOptionEntry rhs_entries[] = {
  { "states", 0, G_OPTION_FLAG_FILENAME, G_OPTION_ARG_CALLBACK, (gpointer) rhs_option, "", "FILE" },
  { "with-free-velocities", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) rhs_option, "", NULL },
  G_OPTION_ENTRY_NULL
};

/* The whole text of PATH ("-": standard input), or NULL after printing why. */
static char *
read_states (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  gsize len = 0;

  if (g_str_equal (path, "-"))
    {
      GString *s = g_string_new (NULL);
      char buf[65536];
      size_t n;
      while ((n = fread (buf, 1, sizeof buf, stdin)) > 0)
        {
          g_string_append_len (s, buf, (gssize) n);
          if (s->len > MAX_STATES_BYTES)
            {
              fprintf (stderr, _("cmlab-cli: the states on standard input are longer than %s\n"), "1 GiB");
              g_string_free (s, TRUE);
              return NULL;
            }
        }
      return g_string_free (s, FALSE);
    }
  if (!cml_read_file_capped (path, MAX_STATES_BYTES, _("a file of states"), &text, &len, &error))
    {
      fprintf (stderr, "cmlab-cli: %s: %s\n", path, error->message);
      return NULL;
    }
  return text;
}

int
cml_rhs_main (int argc, char **argv)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  RhsOptions o = { NULL };
  g_autofree char *model_name = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autofree char *text = NULL;
  int status;

  cml_cli_run_options_init (&ro);
  status = cml_cli_parse_args (argc, argv, rhs_entries, &o, &ro, CML_CLI_RUN_OPTIONS_SET_ONLY, rhs_usage, &model_name);
  if (status != CML_CLI_CONTINUE)
    {
      g_free (o.states);
      return status;
    }
  if (o.states == NULL)
    return cml_cli_usage_error (rhs_usage, _("rhs needs --states FILE (\"-\" for standard input)"));
  if ((status = cml_cli_open_simulation (model_name, ro.sets, rhs_usage, &sim)) != 0)
    {
      g_free (o.states);
      return status;
    }
  text = read_states (o.states);
  if (text == NULL)
    {
      g_free (o.states);
      return EXIT_USAGE;
    }

  CmlSystem *sys = cml_simulation_get_system (sim);
  guint n = cml_system_dim (sys), failed = 0;
  guint na = o.with_free ? cml_system_n_free_velocities (sys) : 0;
  g_autofree double *aux = g_new (double, na + 1);
  g_autofree double *z = g_new (double, n + 1);
  g_autofree double *f = g_new (double, n + 1);
  g_autofree double *values = g_new (double, n + 2);
  char *line = text, *next;
  guint line_no = 0;

  for (; line != NULL; line = next)
    {
      guint k = 0;
      char *p;
      gboolean bad = FALSE;

      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      line_no++;
      p = g_strstrip (line);
      if (*p == '\0' || *p == '#')
        continue;
      /* t and the state */
      while (*p != '\0' && !bad)
        {
          char *end;
          double v = g_ascii_strtod (p, &end);
          if (end == p || k == n + 1)
            bad = TRUE;
          else
            values[k++] = v;
          p = end;
          while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r')
            p++;
        }
      if (bad || k != n + 1)
        {
          fprintf (stderr, _("cmlab-cli: %s:%u: expected %u numbers (t and the %u state variables), not “%s”\n"),
                   o.states, line_no, n + 1, n, line);
          g_free (o.states);
          return EXIT_USAGE;
        }
      memcpy (z, values + 1, n * sizeof (double));
      g_autoptr (GError) error = NULL;
      if (!cml_simulation_eval_rhs_at (sim, values[0], z, f, &error))
        {
          fprintf (stderr, "cmlab-cli: %s:%u: %s\n", o.states, line_no, error->message);
          for (guint i = 0; i < n; i++)
            f[i] = NAN;
          for (guint a = 0; a < na; a++)
            aux[a] = NAN;
          failed++;
        }
      else if (na > 0)
        cml_simulation_get_free_velocities (sim, aux);
      for (guint i = 0; i < n; i++)
        {
          if (i)
            fputc (',', stdout);
          cml_output_write_number (stdout, f[i]);
        }
      for (guint a = 0; a < na; a++)
        {
          fputc (',', stdout);
          cml_output_write_number (stdout, aux[a]);
        }
      fputc ('\n', stdout);
    }
  g_free (o.states);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, _("cmlab-cli: writing the output failed\n"));
      return EXIT_USAGE;
    }
  return failed ? EXIT_EVAL_FAILED : 0;
}
