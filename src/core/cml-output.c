/* cml-output.c — CSV and JSON writers with all-or-nothing files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-output"

#include "cml-output.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"

/* A unit as people read it in a header: a dimensionless quantity (unit "1", or none
 * given) is "-", not "1", which reads as a number. */
static const char *
shown_unit (const char *unit)
{
  return unit == NULL || *unit == '\0' || g_str_equal (unit, "1") ? "-" : unit;
}

struct _CmlOutput
{
  CmlOutputFormat format;
  FILE   *fp;
  char   *path;     /* final name, or NULL for stdout */
  char   *tmp_path; /* where it is written meanwhile */
  int    *cols;     /* observable indices */
  guint   n_cols;
  double *obs;
  guint64 n_rows;
  gboolean done;
};

gboolean
cml_output_format_from_string (const char *name, CmlOutputFormat *format)
{
  if (g_strcmp0 (name, "csv") == 0)
    *format = CML_OUTPUT_CSV;
  else if (g_strcmp0 (name, "json") == 0)
    *format = CML_OUTPUT_JSON;
  else
    return FALSE;
  return TRUE;
}

CmlOutput *
cml_output_new (const char *path, CmlOutputFormat format, GError **error)
{
  g_autoptr (CmlOutput) out = g_new0 (CmlOutput, 1);
  out->format = format;
  if (path == NULL || g_str_equal (path, "-"))
    {
      out->fp = stdout;
      return g_steal_pointer (&out);
    }
  out->path = g_strdup (path);
  out->tmp_path = g_strdup_printf ("%s.XXXXXX", path);
  int fd = g_mkstemp (out->tmp_path);
  if (fd < 0)
    {
      int e = errno;
      g_clear_pointer (&out->tmp_path, g_free);
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return NULL;
    }
  /* mkstemp makes the file private (0600); give it the mode a plain create would have:
   * the replaced file's, else 0666 less the umask */
  {
    struct stat st;
    mode_t mode;
    if (g_stat (path, &st) == 0)
      mode = st.st_mode & 07777;
    else
      {
        mode_t mask = umask (0);
        umask (mask);
        mode = 0666 & ~mask;
      }
    if (fchmod (fd, mode) != 0)
      g_debug ("cannot set the mode of %s: %s", out->tmp_path, g_strerror (errno));
  }
  out->fp = fdopen (fd, "w");
  if (out->fp == NULL)
    {
      int e = errno;
      close (fd);
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return NULL;
    }
  return g_steal_pointer (&out);
}

static gboolean
check_stream (CmlOutput *out, GError **error)
{
  if (ferror (out->fp))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s",
                   out->path ? out->path : "standard output", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

static void
json_string (FILE *fp, const char *s)
{
  fputc ('"', fp);
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        fprintf (fp, "\\%c", *s);
      else if ((unsigned char) *s < 0x20)
        fprintf (fp, "\\u%04x", *s);
      else
        fputc (*s, fp);
    }
  fputc ('"', fp);
}

static void
number (FILE *fp, CmlOutputFormat format, double v)
{
  if (isfinite (v))
    fprintf (fp, "%.17g", v);
  else
    fputs (format == CML_OUTPUT_JSON ? "null" : (isnan (v) ? "nan" : v > 0 ? "inf" : "-inf"), fp);
}

gboolean
cml_output_begin (CmlOutput *out, CmlSimulation *sim, const char *const *columns, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  guint n = g_strv_length ((char **) columns);

  out->cols = g_new (int, MAX (n, 1));
  out->n_cols = n;
  out->obs = g_new (double, cml_system_n_observables (sys));
  for (guint k = 0; k < n; k++)
    if ((out->cols[k] = cml_system_observable_index (sys, columns[k])) < 0)
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s has no quantity “%s”", model->name, columns[k]);
        return FALSE;
      }
  if (out->format == CML_OUTPUT_CSV)
    {
      /* what produced the data, as comment lines before the header */
      const double *z = cml_simulation_get_state (sim);
      const CmlIntegratorOptions *io = cml_simulation_get_integrator (sim);
      fprintf (out->fp, "# cmlab %s: %s\n", model->name, model->title);
      fputs ("# parameters:", out->fp);
      for (guint k = 0; k < model->params->len; k++)
        {
          CmlParam *p = model->params->pdata[k];
          fprintf (out->fp, "%s %s = %.17g", k ? "," : "", p->name, cml_simulation_get_param (sim, p->name));
        }
      fprintf (out->fp, "%s\n# initial state (t = %.17g):", model->params->len ? "" : " none",
               cml_simulation_get_time (sim));
      for (guint i = 0; i < cml_system_dim (sys); i++)
        fprintf (out->fp, "%s %s = %.17g", i ? "," : "", cml_system_state_name (sys, i), z[i]);
      fprintf (out->fp, "\n# integrator: %s, rtol = %g, atol = %g\n# units: t [%s]",
               cml_integrator_kind_to_string (io->kind), io->rtol, io->atol, shown_unit (model->time_unit));
      for (guint k = 0; k < n; k++)
        fprintf (out->fp, ", %s [%s]", columns[k], shown_unit (cml_model_unit (model, columns[k])));
      fputs ("\n", out->fp);
      fputs ("t", out->fp);
      for (guint k = 0; k < n; k++)
        fprintf (out->fp, ",%s", columns[k]);
      fputs ("\n", out->fp);
    }
  else
    {
      fputs ("{\n  \"model\": ", out->fp);
      json_string (out->fp, model->name);
      fputs (",\n  \"parameters\": {", out->fp);
      for (guint k = 0; k < model->params->len; k++)
        {
          CmlParam *p = model->params->pdata[k];
          fputs (k ? ", " : "", out->fp);
          json_string (out->fp, p->name);
          fputs (": ", out->fp);
          number (out->fp, out->format, cml_simulation_get_param (sim, p->name));
        }
      fputs ("},\n  \"title\": ", out->fp);
      json_string (out->fp, model->title);
      fputs (",\n  \"initial\": {", out->fp);
      {
        const double *z = cml_simulation_get_state (sim);
        for (guint i = 0; i < cml_system_dim (sys); i++)
          {
            fputs (i ? ", " : "", out->fp);
            json_string (out->fp, cml_system_state_name (sys, i));
            fputs (": ", out->fp);
            number (out->fp, out->format, z[i]);
          }
      }
      fputs ("},\n  \"integrator\": ", out->fp);
      json_string (out->fp, cml_integrator_kind_to_string (cml_simulation_get_integrator (sim)->kind));
      fputs (",\n  \"columns\": [\"t\"", out->fp);
      for (guint k = 0; k < n; k++)
        {
          fputs (", ", out->fp);
          json_string (out->fp, columns[k]);
        }
      fputs ("],\n  \"units\": [", out->fp);
      json_string (out->fp, shown_unit (model->time_unit));
      for (guint k = 0; k < n; k++)
        {
          fputs (", ", out->fp);
          json_string (out->fp, shown_unit (cml_model_unit (model, columns[k])));
        }
      fputs ("],\n  \"rows\": [", out->fp);
    }
  return check_stream (out, error);
}

gboolean
cml_output_row (CmlOutput *out, CmlSimulation *sim, GError **error)
{
  FILE *fp = out->fp;
  cml_simulation_observe (sim, out->obs);
  if (out->format == CML_OUTPUT_JSON)
    fputs (out->n_rows ? ",\n    [" : "\n    [", fp);
  number (fp, out->format, cml_simulation_get_time (sim));
  for (guint k = 0; k < out->n_cols; k++)
    {
      fputc (',', fp);
      number (fp, out->format, out->obs[out->cols[k]]);
    }
  fputs (out->format == CML_OUTPUT_JSON ? "]" : "\n", fp);
  out->n_rows++;
  return check_stream (out, error);
}

gboolean
cml_output_row_obs (CmlOutput *out, double t, const double *obs, GError **error)
{
  FILE *fp = out->fp;
  if (out->format == CML_OUTPUT_JSON)
    fputs (out->n_rows ? ",\n    [" : "\n    [", fp);
  number (fp, out->format, t);
  for (guint k = 0; k < out->n_cols; k++)
    {
      fputc (',', fp);
      number (fp, out->format, obs[out->cols[k]]);
    }
  fputs (out->format == CML_OUTPUT_JSON ? "]" : "\n", fp);
  out->n_rows++;
  return check_stream (out, error);
}

gboolean
cml_output_finish (CmlOutput *out, GError **error)
{
  if (out->format == CML_OUTPUT_JSON)
    fputs ("\n  ]\n}\n", out->fp);
  if (fflush (out->fp) != 0 || !check_stream (out, error))
    {
      if (error && !*error)
        g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s",
                     out->path ? out->path : "standard output", g_strerror (errno));
      cml_output_abort (out);
      return FALSE;
    }
  if (out->path)
    {
      if (fsync (fileno (out->fp)) != 0 || fclose (out->fp) != 0)
        {
          int e = errno;
          out->fp = NULL;
          g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s", out->path, g_strerror (e));
          cml_output_abort (out);
          return FALSE;
        }
      out->fp = NULL;
      if (g_rename (out->tmp_path, out->path) != 0)
        {
          int e = errno;
          g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot move the output to %s: %s", out->path, g_strerror (e));
          cml_output_abort (out);
          return FALSE;
        }
      g_clear_pointer (&out->tmp_path, g_free);
    }
  out->done = TRUE;
  return TRUE;
}

void
cml_output_abort (CmlOutput *out)
{
  if (out->path && out->fp)
    {
      fclose (out->fp);
      out->fp = NULL;
    }
  if (out->tmp_path)
    {
      g_unlink (out->tmp_path);
      g_clear_pointer (&out->tmp_path, g_free);
    }
  out->done = TRUE;
}

void
cml_output_free (CmlOutput *out)
{
  if (out == NULL)
    return;
  if (!out->done)
    cml_output_abort (out);
  if (out->fp && out->fp != stdout)
    fclose (out->fp);
  else if (out->fp == stdout)
    fflush (stdout);
  g_free (out->path);
  g_free (out->tmp_path);
  g_free (out->cols);
  g_free (out->obs);
  g_free (out);
}
