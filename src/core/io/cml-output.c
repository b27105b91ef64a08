/* cml-output.c — a run's rows as CSV or JSON (through cml-json.c) with all-or-nothing
 * files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A long run's rows are written by a thread of their own: after the first ASYNC_AFTER rows
 * (a short run never starts it), cml_output_row_obs() copies each row's time and
 * observables into a block of ROWS_PER_BLOCK rows, and a full block goes to the writer,
 * which formats and writes its rows in order while the integration goes on — on a second
 * core, formatting the numbers and the kernel's writes no longer wait for the steps, nor
 * the steps for them.  N_BLOCKS blocks go round between the two (a ring, under a pthread
 * mutex, which ThreadSanitizer understands: tools/run-tsan runs the tests of this file), so
 * the memory held stays bounded and a slow disk holds the integration back.  The file is the same byte for byte.
 * A write that fails is reported by the next row (or by cml_output_finish()); a comment, the
 * end of the rows or an abort first waits for the writer to be done.
 */
#define G_LOG_DOMAIN "cml-output"

#include "cml-output.h"
#include "cml-integrator-choice.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "cml-json.h"
#include "cml-npy.h"
#include "cml-number-text.h"

#define ASYNC_AFTER    4096 /* rows written directly before the writer thread starts */
#define ROWS_PER_BLOCK 1024
#define N_BLOCKS       3

/* ROWS_PER_BLOCK rows of 1 + n_obs doubles: the time, then the observables. */
typedef struct
{
  guint   n;
  double *data;
} Block;

/* A unit as people read it in a header: a dimensionless quantity (unit "1") is "-", not
 * "1", which reads as a number; a unit the model does not give is "" (no label: nothing
 * says it is dimensionless). */
static const char *
shown_unit (const char *unit)
{
  return unit == NULL || *unit == '\0' ? "" : g_str_equal (unit, "1") ? "-" : unit;
}

/* ", NAME [UNIT]" in the header's units line, or ", NAME" when the unit is not given. */
static void
units_entry (CmlOutput *out, const char *name, const char *unit);

struct _CmlOutput
{
  CmlOutputFormat format;
  FILE   *fp;
  char   *path;     /* final name, or NULL for stdout */
  CmlAtomicFile *file; /* the file being written (cml-atomic-file.c), or NULL for stdout */
  CmlJson *json;     /* the JSON writer on FP (JSON only) */
  /* .npy: the header (written again with the number of rows at the end), the fields'
   * names, a row of doubles, and the run's metadata for the sidecar FILE.json, completed
   * at the end */
  GString *npy_header;
  GPtrArray *npy_names;
  double  *npy_row;
  GString *meta_text;
  CmlJson *meta;
  gboolean holds_signals;
  int    *cols;     /* observable indices */
  guint   n_cols;
  double *obs;
  CmlReference *ref;   /* closed forms written as NAME_ref, NAME_err, or NULL (not owned) */
  double *ref_values, *ref_errors;
  char   *line;     /* a CSV row, formatted here and written at once */
  gsize   line_size;
  guint64 n_rows;
  gboolean done;
  guint   n_obs;    /* observables a row has */
  /* the writer thread (see above): it owns FP, JSON and the reference's buffers while it
   * runs */
  gboolean        writing;  /* the thread runs */
  gboolean        no_thread; /* none could be started: the rows are written directly */
  pthread_t       writer;
  pthread_mutex_t lock;
  pthread_cond_t  filled;   /* a block to write, or the end (wakes the writer) */
  pthread_cond_t  written;  /* a block free again (wakes the caller) */
  Block           blocks[N_BLOCKS];
  guint           fill;     /* the block being filled (the caller's) */
  guint           next;     /* the next block to write (the writer's) */
  guint           n_full;   /* blocks handed over and not yet written (under LOCK) */
  gboolean        end;      /* no more blocks will come (under LOCK) */
  gint            failed;   /* the writer's stream failed (atomic) */
  gint            discard;  /* the rows are aborted: the writer drops what comes (atomic) */
  guint64         n_thread_rows; /* rows given to the writer */
};

static void writer_stop (CmlOutput *out);

gboolean
cml_output_format_from_string (const char *name, CmlOutputFormat *format)
{
  if (g_strcmp0 (name, "csv") == 0)
    *format = CML_OUTPUT_CSV;
  else if (g_strcmp0 (name, "json") == 0)
    *format = CML_OUTPUT_JSON;
  else if (g_strcmp0 (name, "npy") == 0)
    *format = CML_OUTPUT_NPY;
  else
    return FALSE;
  return TRUE;
}

CmlOutput *
cml_output_new (const char *path, CmlOutputFormat format, GError **error)
{
  g_autoptr (CmlOutput) out = g_new0 (CmlOutput, 1);
  out->format = format;
  if (format == CML_OUTPUT_NPY && (path == NULL || g_str_equal (path, "-")))
    {
      /* the header, with the number of rows, is written again at the end */
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("a .npy file is written to a file (-o FILE.npy), not to standard output"));
      return NULL;
    }
  if (path == NULL || g_str_equal (path, "-"))
    {
      out->fp = stdout;
      return g_steal_pointer (&out);
    }
  out->path = g_strdup (path);
  out->file = cml_atomic_file_new (path, CML_ATOMIC_FILE_DEFAULT, error);
  if (out->file == NULL)
    return NULL;
  if (format == CML_OUTPUT_NPY && cml_atomic_file_is_direct (out->file))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("%s: a .npy file needs a regular file (its header is completed at the end), not a device or a pipe"),
                   path);
      return NULL;
    }
  out->fp = cml_atomic_file_get_stream (out->file);
  if (out->fp == NULL)
    {
      int e = errno;
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return NULL;
    }
  /* Ctrl-C or SIGTERM stops the rows (cml_output_row says so) and the file is dropped */
  cml_atomic_file_hold_signals ();
  out->holds_signals = TRUE;
  return g_steal_pointer (&out);
}

/* FALSE, with the error, when a signal stopped the rows of a file. */
static gboolean
check_signal (CmlOutput *out, GError **error)
{
  int sig = out->holds_signals ? cml_atomic_file_interrupted () : 0;
  if (sig != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "interrupted (%s); %s not written", g_strsignal (sig), out->path);
      return FALSE;
    }
  return TRUE;
}

/* FALSE, with the error, when a signal stopped the rows or the stream failed. */
static gboolean
check_stream (CmlOutput *out, GError **error)
{
  if (!check_signal (out, error))
    return FALSE;
  if (ferror (out->fp))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s",
                   out->path ? out->path : "standard output", g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

void
cml_text_append_escaped (GString *s, const char *text)
{
  for (const char *p = text ? text : ""; *p; p++)
    {
      guchar c = (guchar) *p;
      if (c == '\n')
        g_string_append (s, "\\n");
      else if (c == '\r')
        g_string_append (s, "\\r");
      else if (c == '\t')
        g_string_append (s, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (s, "\\x%02x", c);
      else
        g_string_append_c (s, (char) c);
    }
}

/* A text field in a "#" comment line: one line, whatever it holds. */
static void
comment_text (FILE *fp, const char *text)
{
  g_autoptr (GString) s = g_string_new (NULL);
  cml_text_append_escaped (s, text);
  fputs (s->str, fp);
}

static void
units_entry (CmlOutput *out, const char *name, const char *unit)
{
  /* NAME NULL: the time, first */
  fprintf (out->fp, "%s%s", name ? ", " : " ", name ? name : "t");
  if (*unit == '\0')
    return;
  fputs (" [", out->fp);
  comment_text (out->fp, unit);
  fputs ("]", out->fp);
}

/* Numbers for machines: %.17g, C syntax whatever the locale (no decimal comma); the
 * characters come from cml-number-text.c, which writes what printf would, faster. */
static int
number_text (char *buf, double v)
{
  if (isfinite (v))
    return cml_number_text_g17 (buf, v);
  const char *s = isnan (v) ? "nan" : v > 0 ? "inf" : "-inf";
  int n = (int) strlen (s);
  memcpy (buf, s, (size_t) n + 1);
  return n;
}

static void
number (FILE *fp, double v)
{
  char buf[CML_NUMBER_TEXT_SIZE];
  fwrite (buf, 1, (size_t) number_text (buf, v), fp);
}

void
cml_output_write_made_by (FILE *fp, const CmlModel *model)
{
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, model->text, -1);

  fprintf (fp, "# made by cmlab %s from the model text with SHA-256 %s\n", CMLAB_VERSION, sha);
}

void
cml_output_write_parameters (FILE *fp, const CmlModel *model, const double *values,
                             const gboolean *varied)
{
  fputs ("# parameters:", fp);
  for (guint k = 0; k < model->params->len; k++)
    {
      CmlParam *p = model->params->pdata[k];
      fprintf (fp, "%s %s", k ? "," : "", p->name);
      if (varied && varied[k])
        fputs (" (varied)", fp);
      else
        {
          fputs (" = ", fp);
          number (fp, values[k]);
        }
    }
  fputs (model->params->len ? "\n" : " none\n", fp);
}

void
cml_output_write_integrator (FILE *fp, const CmlIntegratorOptions *io)
{
  /* the fixed-step rule has a step, not tolerances; what auto chose, and why */
  g_autofree char *integrator = cml_integrator_options_describe (io);

  fprintf (fp, "# integrator: %s\n", integrator);
}

void
cml_output_write_number (FILE *fp, double v)
{
  number (fp, v);
}

void
cml_output_set_reference (CmlOutput *out, CmlReference *ref)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (out->n_rows == 0);
  out->ref = ref;
  g_clear_pointer (&out->ref_values, g_free);
  g_clear_pointer (&out->ref_errors, g_free);
  if (ref)
    {
      out->ref_values = g_new0 (double, cml_reference_get_n (ref) + 1);
      out->ref_errors = g_new0 (double, cml_reference_get_n (ref) + 1);
    }
}

/* The reference columns' names: NAME_ref, NAME_err for reference I / 2. */
static char *
ref_column_name (CmlOutput *out, guint i)
{
  return g_strdup_printf ("%s_%s", cml_reference_get_name (out->ref, i / 2), i % 2 ? "err" : "ref");
}

static guint
n_ref_columns (CmlOutput *out)
{
  return out->ref ? 2 * cml_reference_get_n (out->ref) : 0;
}

/* A JSON row: an array of the numbers, one line. */
static void
json_row (CmlOutput *out, double t, const double *obs)
{
  cml_json_begin_array (out->json, NULL, CML_JSON_PACKED);
  cml_json_number (out->json, NULL, t);
  for (guint k = 0; k < out->n_cols; k++)
    cml_json_number (out->json, NULL, obs[out->cols[k]]);
  if (out->ref)
    {
      cml_reference_compare (out->ref, t, obs, out->ref_values, out->ref_errors);
      for (guint i = 0; i < cml_reference_get_n (out->ref); i++)
        {
          cml_json_number (out->json, NULL, out->ref_values[i]);
          cml_json_number (out->json, NULL, out->ref_errors[i]);
        }
    }
  cml_json_end (out->json);
}

/* What made the rows, as members of the JSON object J: the model, its parameters, title and
 * initial state, the program, the model text's hash, the integrator, the columns and their
 * units (a JSON document's header, and a .npy file's sidecar). */
static void
json_metadata (CmlOutput *out, CmlJson *j, CmlSimulation *sim, const char *const *columns, guint n)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  const double *z = cml_simulation_get_state (sim);

  cml_json_string (j, "model", model->name);
  cml_json_begin_object (j, "parameters", CML_JSON_LINE);
  for (guint k = 0; k < model->params->len; k++)
    {
      CmlParam *p = model->params->pdata[k];
      cml_json_number (j, p->name, cml_simulation_get_param (sim, p->name));
    }
  cml_json_end (j);
  cml_json_string (j, "title", model->title_untranslated);
  cml_json_begin_object (j, "initial", CML_JSON_LINE);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    cml_json_number (j, cml_system_state_name (sys, i), z[i]);
  cml_json_end (j);
  {
    const CmlIntegratorOptions *io = cml_simulation_get_integrator (sim);
    g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, model->text, -1);
    g_autofree char *program = g_strdup_printf ("cmlab %s", CMLAB_VERSION);

    cml_json_string (j, "program", program);
    cml_json_string (j, "model_sha256", sha);
    cml_json_number (j, "t_start", cml_simulation_get_time (sim));
    cml_json_string (j, "integrator", cml_integrator_kind_to_string (io->kind));
    /* the fixed-step rule has a step, not tolerances */
    if (cml_integrator_kind_is_fixed_step (io->kind))
      cml_json_number (j, "step", io->h_fixed);
    else
      {
        cml_json_number (j, "rtol", io->rtol);
        cml_json_number (j, "atol", io->atol);
      }
    /* a method auto chose: why (the key is absent when the method was named) */
    g_autofree char *why = cml_integrator_choice_reason (io, FALSE);
    if (why != NULL)
      cml_json_string (j, "integrator_chosen", why);
  }
  cml_json_begin_array (j, "columns", CML_JSON_LINE);
  cml_json_string (j, NULL, "t");
  for (guint k = 0; k < n; k++)
    cml_json_string (j, NULL, columns[k]);
  for (guint k = 0; k < n_ref_columns (out); k++)
    {
      g_autofree char *name = ref_column_name (out, k);
      cml_json_string (j, NULL, name);
    }
  cml_json_end (j);
  cml_json_begin_array (j, "units", CML_JSON_LINE);
  cml_json_string (j, NULL, shown_unit (model->time_unit));
  for (guint k = 0; k < n; k++)
    cml_json_string (j, NULL, shown_unit (cml_model_unit (model, columns[k])));
  for (guint k = 0; k < n_ref_columns (out); k++)
    cml_json_string (j, NULL, shown_unit (cml_model_unit (model, cml_reference_get_name (out->ref, k / 2))));
  cml_json_end (j);
}

gboolean
cml_output_begin (CmlOutput *out, CmlSimulation *sim, const char *const *columns, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  guint n = g_strv_length ((char **) columns);

  out->cols = g_new (int, MAX (n, 1));
  out->n_cols = n;
  out->n_obs = cml_system_n_observables (sys);
  out->obs = g_new (double, out->n_obs);
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
      g_autofree double *params = g_new (double, model->params->len + 1);
      for (guint k = 0; k < model->params->len; k++)
        params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
      fprintf (out->fp, "# cmlab %s: ", model->name);
      comment_text (out->fp, model->title_untranslated);
      fputs ("\n", out->fp);
      cml_output_write_made_by (out->fp, model);
      cml_output_write_parameters (out->fp, model, params, NULL);
      fputs ("# initial state (t = ", out->fp);
      number (out->fp, cml_simulation_get_time (sim));
      fputs ("):", out->fp);
      for (guint i = 0; i < cml_system_dim (sys); i++)
        {
          fprintf (out->fp, "%s %s = ", i ? "," : "", cml_system_state_name (sys, i));
          number (out->fp, z[i]);
        }
      fputs ("\n", out->fp);
      cml_output_write_integrator (out->fp, io);
      fputs ("# units:", out->fp);
      units_entry (out, NULL, shown_unit (model->time_unit));
      for (guint k = 0; k < n; k++)
        units_entry (out, columns[k], shown_unit (cml_model_unit (model, columns[k])));
      for (guint k = 0; k < n_ref_columns (out); k++)
        {
          g_autofree char *name = ref_column_name (out, k);
          units_entry (out, name, shown_unit (cml_model_unit (model, cml_reference_get_name (out->ref, k / 2))));
        }
      fputs ("\n", out->fp);
      fputs ("t", out->fp);
      for (guint k = 0; k < n; k++)
        fprintf (out->fp, ",%s", columns[k]);
      for (guint k = 0; k < n_ref_columns (out); k++)
        {
          g_autofree char *name = ref_column_name (out, k);
          fprintf (out->fp, ",%s", name);
        }
      fputs ("\n", out->fp);
    }
  else if (out->format == CML_OUTPUT_JSON)
    {
      CmlJson *j = out->json = cml_json_new_file (out->fp);

      cml_json_begin_object (j, NULL, CML_JSON_BLOCK);
      json_metadata (out, j, sim, columns, n);
      /* the rows follow as they are computed, one line each */
      cml_json_begin_array (j, "rows", CML_JSON_BLOCK);
    }
  else
    {
      /* .npy: one '<f8' field per column, the CSV header's names; the header is written
       * now for 0 rows and again at the end; the metadata go to FILE.json then */
      const char *bad = NULL;
      out->npy_names = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (out->npy_names, g_strdup ("t"));
      for (guint k = 0; k < n; k++)
        g_ptr_array_add (out->npy_names, g_strdup (columns[k]));
      for (guint k = 0; k < n_ref_columns (out); k++)
        g_ptr_array_add (out->npy_names, ref_column_name (out, k));
      if (!cml_npy_names_ok ((const char *const *) out->npy_names->pdata, out->npy_names->len, &bad))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("a .npy file names its columns once each: “%s” is given twice (or is not a plain name)"), bad);
          return FALSE;
        }
      out->npy_row = g_new (double, out->npy_names->len);
      out->npy_header = g_string_new (NULL);
      cml_npy_header ((const char *const *) out->npy_names->pdata, out->npy_names->len, 0, out->npy_header);
      fwrite (out->npy_header->str, 1, out->npy_header->len, out->fp);
      out->meta_text = g_string_new (NULL);
      out->meta = cml_json_new_string (out->meta_text);
      cml_json_begin_object (out->meta, NULL, CML_JSON_BLOCK);
      json_metadata (out, out->meta, sim, columns, n);
    }
  return check_stream (out, error);
}

gboolean
cml_output_row (CmlOutput *out, CmlSimulation *sim, GError **error)
{
  cml_simulation_observe (sim, out->obs);
  return cml_output_row_obs (out, cml_simulation_get_time (sim), out->obs, error);
}

gboolean
cml_output_comment (CmlOutput *out, const char *text, GError **error)
{
  writer_stop (out);
  if (out->format != CML_OUTPUT_CSV)
    return TRUE;
  fputs ("# ", out->fp);
  comment_text (out->fp, text);
  fputc ('\n', out->fp);
  return check_stream (out, error);
}

/* A CSV row: its numbers formatted into OUT's line, written with one call. */
static void
csv_row (CmlOutput *out, double t, const double *obs)
{
  guint n_ref = out->ref ? cml_reference_get_n (out->ref) : 0;
  gsize need = (1 + out->n_cols + 2 * (gsize) n_ref) * (CML_NUMBER_TEXT_SIZE + 1) + 1;
  char *p;

  if (need > out->line_size)
    {
      g_free (out->line);
      out->line = g_malloc (need);
      out->line_size = need;
    }
  p = out->line;
  p += number_text (p, t);
  for (guint k = 0; k < out->n_cols; k++)
    {
      *p++ = ',';
      p += number_text (p, obs[out->cols[k]]);
    }
  if (out->ref)
    {
      cml_reference_compare (out->ref, t, obs, out->ref_values, out->ref_errors);
      for (guint i = 0; i < n_ref; i++)
        {
          *p++ = ',';
          p += number_text (p, out->ref_values[i]);
          *p++ = ',';
          p += number_text (p, out->ref_errors[i]);
        }
    }
  *p++ = '\n';
  fwrite (out->line, 1, (gsize) (p - out->line), out->fp);
}

/* A .npy row: the doubles themselves, little-endian, in the fields' order. */
static void
npy_row (CmlOutput *out, double t, const double *obs)
{
  guint k = 0;

  out->npy_row[k++] = t;
  for (guint c = 0; c < out->n_cols; c++)
    out->npy_row[k++] = obs[out->cols[c]];
  if (out->ref)
    {
      cml_reference_compare (out->ref, t, obs, out->ref_values, out->ref_errors);
      for (guint i = 0; i < cml_reference_get_n (out->ref); i++)
        {
          out->npy_row[k++] = out->ref_values[i];
          out->npy_row[k++] = out->ref_errors[i];
        }
    }
#if G_BYTE_ORDER == G_BIG_ENDIAN
  for (guint i = 0; i < k; i++)
    {
      guint64 b;
      memcpy (&b, &out->npy_row[i], sizeof b);
      b = GUINT64_SWAP_LE_BE (b);
      memcpy (&out->npy_row[i], &b, sizeof b);
    }
#endif
  fwrite (out->npy_row, sizeof (double), k, out->fp);
}

/* One row written, in the caller's thread or the writer's. */
static void
write_row (CmlOutput *out, double t, const double *obs)
{
  if (out->json)
    json_row (out, t, obs);
  else if (out->npy_row)
    npy_row (out, t, obs);
  else
    csv_row (out, t, obs);
}

static void *
writer_main (void *data)
{
  CmlOutput *out = data;

  for (;;)
    {
      pthread_mutex_lock (&out->lock);
      while (out->n_full == 0 && !out->end)
        pthread_cond_wait (&out->filled, &out->lock);
      if (out->n_full == 0)
        {
          pthread_mutex_unlock (&out->lock);
          return NULL; /* the end, every block written */
        }
      pthread_mutex_unlock (&out->lock);

      Block *b = &out->blocks[out->next];
      for (guint i = 0; i < b->n && !g_atomic_int_get (&out->discard); i++)
        {
          const double *row = b->data + (gsize) i * (1 + out->n_obs);
          write_row (out, row[0], row + 1);
        }
      if (ferror (out->fp))
        g_atomic_int_set (&out->failed, 1);
      b->n = 0;
      out->next = (out->next + 1) % N_BLOCKS;

      pthread_mutex_lock (&out->lock);
      out->n_full--;
      pthread_cond_signal (&out->written);
      pthread_mutex_unlock (&out->lock);
    }
}

/* The hand-off's lock, conditions and blocks, when no writer runs. */
static void
writer_release (CmlOutput *out)
{
  pthread_mutex_destroy (&out->lock);
  pthread_cond_destroy (&out->filled);
  pthread_cond_destroy (&out->written);
  for (guint i = 0; i < N_BLOCKS; i++)
    g_clear_pointer (&out->blocks[i].data, g_free);
}

static void
writer_start (CmlOutput *out)
{
  for (guint i = 0; i < N_BLOCKS; i++)
    {
      out->blocks[i].n = 0;
      out->blocks[i].data = g_new (double, (gsize) ROWS_PER_BLOCK * (1 + out->n_obs));
    }
  out->fill = out->next = out->n_full = 0;
  out->end = FALSE;
  pthread_mutex_init (&out->lock, NULL);
  pthread_cond_init (&out->filled, NULL);
  pthread_cond_init (&out->written, NULL);
  if (pthread_create (&out->writer, NULL, writer_main, out) != 0)
    {
      /* no thread: the rows go on being written directly */
      out->no_thread = TRUE;
      writer_release (out);
      return;
    }
  out->writing = TRUE;
}

/* The block being filled to the writer; then waits for a free one to fill. */
static void
writer_hand_over (CmlOutput *out)
{
  pthread_mutex_lock (&out->lock);
  out->n_full++;
  pthread_cond_signal (&out->filled);
  while (out->n_full == N_BLOCKS)
    pthread_cond_wait (&out->written, &out->lock); /* the writer is behind */
  pthread_mutex_unlock (&out->lock);
  out->fill = (out->fill + 1) % N_BLOCKS;
}

/* Hands the rows of the block being filled to the writer, waits for it to write everything
 * and ends it: FP is the caller's again.  Nothing when there is no writer. */
static void
writer_stop (CmlOutput *out)
{
  if (!out->writing)
    return;
  pthread_mutex_lock (&out->lock);
  if (out->blocks[out->fill].n > 0)
    {
      out->n_full++;
      out->fill = (out->fill + 1) % N_BLOCKS;
    }
  out->end = TRUE;
  pthread_cond_signal (&out->filled);
  pthread_mutex_unlock (&out->lock);
  pthread_join (out->writer, NULL);
  out->writing = FALSE;
  writer_release (out);
}

/* The row into the block being filled; a full block to the writer. */
static void
writer_add (CmlOutput *out, double t, const double *obs)
{
  Block *b = &out->blocks[out->fill];
  double *row = b->data + (gsize) b->n * (1 + out->n_obs);

  row[0] = t;
  memcpy (row + 1, obs, out->n_obs * sizeof (double));
  if (++b->n == ROWS_PER_BLOCK)
    writer_hand_over (out);
}

gboolean
cml_output_row_obs (CmlOutput *out, double t, const double *obs, GError **error)
{
  if (!out->writing && !out->no_thread && out->n_rows >= ASYNC_AFTER && out->n_obs > 0)
    writer_start (out);
  if (!out->writing)
    {
      write_row (out, t, obs);
      out->n_rows++;
      return check_stream (out, error);
    }
  if (g_atomic_int_get (&out->failed))
    {
      /* the stream is the caller's again, and check_stream () reads its error */
      writer_stop (out);
      return check_stream (out, error);
    }
  writer_add (out, t, obs);
  out->n_rows++;
  out->n_thread_rows++;
  return check_signal (out, error);
}

/* Puts the signal handlers back (a signal that came meanwhile ends the process now,
 * after the file was dropped or completed). */
static void
release_signals (CmlOutput *out)
{
  if (out->holds_signals)
    {
      out->holds_signals = FALSE;
      cml_atomic_file_release_signals ();
    }
}

/* A .npy file's end: its header again with the number of rows, and the metadata in the
 * sidecar FILE.json (written before the file is moved to its name). */
static gboolean
npy_finish (CmlOutput *out, GError **error)
{
  g_autofree char *sidecar = g_strconcat (out->path, ".json", NULL);

  cml_npy_header ((const char *const *) out->npy_names->pdata, out->npy_names->len, out->n_rows, out->npy_header);
  if (fseek (out->fp, 0, SEEK_SET) != 0 || fwrite (out->npy_header->str, 1, out->npy_header->len, out->fp)
      != out->npy_header->len || fflush (out->fp) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s", out->path, g_strerror (errno));
      return FALSE;
    }
  cml_json_int (out->meta, "rows", (gint64) out->n_rows);
  cml_json_end (out->meta);
  g_string_append_c (out->meta_text, '\n');
  return cml_atomic_file_set_contents (sidecar, out->meta_text->str, out->meta_text->len, error);
}

gboolean
cml_output_finish (CmlOutput *out, GError **error)
{
  writer_stop (out);
  if (out->json)
    {
      cml_json_end (out->json); /* the rows */
      cml_json_end (out->json);
    }
  if (!check_stream (out, error) || fflush (out->fp) != 0)
    {
      if (error && !*error)
        g_set_error (error, CML_ERROR, CML_ERROR_IO, "writing %s failed: %s",
                     out->path ? out->path : "standard output", g_strerror (errno));
      cml_output_abort (out);
      return FALSE;
    }
  if (out->npy_header && !npy_finish (out, error))
    {
      cml_output_abort (out);
      return FALSE;
    }
  if (out->file)
    {
      out->fp = NULL; /* the file's own stream, closed by the commit */
      if (!cml_atomic_file_commit (out->file, error))
        {
          cml_output_abort (out);
          return FALSE;
        }
      g_clear_pointer (&out->file, cml_atomic_file_free);
    }
  out->done = TRUE;
  release_signals (out);
  return TRUE;
}

void
cml_output_abort (CmlOutput *out)
{
  g_atomic_int_set (&out->discard, 1);
  writer_stop (out);
  if (out->file)
    {
      out->fp = NULL;
      cml_atomic_file_abort (out->file);
      g_clear_pointer (&out->file, cml_atomic_file_free);
    }
  out->done = TRUE;
  release_signals (out);
}

guint64
cml_output_n_thread_rows (const CmlOutput *out)
{
  return out->n_thread_rows;
}

void
cml_output_free (CmlOutput *out)
{
  if (out == NULL)
    return;
  if (!out->done)
    cml_output_abort (out);
  if (out->fp == stdout)
    fflush (stdout);
  g_clear_pointer (&out->json, cml_json_free);
  g_clear_pointer (&out->meta, cml_json_free);
  if (out->meta_text)
    g_string_free (out->meta_text, TRUE);
  if (out->npy_header)
    g_string_free (out->npy_header, TRUE);
  g_clear_pointer (&out->npy_names, g_ptr_array_unref);
  g_free (out->npy_row);
  g_free (out->path);
  g_free (out->cols);
  g_free (out->obs);
  g_free (out->ref_values);
  g_free (out->ref_errors);
  g_free (out->line);
  g_free (out);
}
