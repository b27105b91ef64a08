/* cml-lesson-cmd.c — `cmlab-cli lesson check|show|export LESSON`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * check   loads the lesson, walks every step (its model's system derived, its state set:
 *         the constraints solved, given data they contradict projected and named) and runs
 *         every prediction to its time: the answer must hold (cml_lesson_step_outcome).
 *         Exit 0 when every step runs and every answer holds, 1 otherwise, 2 when the
 *         lesson cannot be read.
 * show    prints the lesson for reading: title, each step's caption and question with its
 *         choices; with --answers also the answers, what to say afterwards, the notes for
 *         the teacher and the hidden parameters' values.  Texts in the language of the
 *         locale where the lesson has them.
 * export  --student -o DIR writes the students' copy into DIR, a new or empty folder: the
 *         lesson without notes, answers, checks, afterwards and hidden values (each hidden
 *         parameter written "?", its step's motion recorded as CSV beside the lesson: the
 *         format is cml-lesson.h's), and the model files beside the lesson that its steps
 *         name.  Before it ends it reads back every byte it wrote: if a hidden value, a
 *         number answer, a note or an afterwards text is anywhere (a caption that names the
 *         hidden value, a model file whose default is it), it removes what it wrote and
 *         says where — a student's copy is never left with an answer in it.  Numbers
 *         written with one or two characters (1, 10, -2) cannot be told from step numbers
 *         and are not looked for; it says so.
 *
 * LESSON is a lesson file, or the name of a shipped lesson (turning-table): looked for in
 * $CMLAB_LESSONS_DIR, then where cmlab installs its lessons.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cml-lesson-cmd.h"

#include <glib/gi18n.h>
#include "cml-cli-common.h"
#include "cml-error.h"
#include "cml-lesson.h"
#include "cml-system.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2
/* a recorded motion: rows at this many equal steps of the step's time */
#define MOTION_STEPS 1000

static const char *lesson_usage =
  N_("Usage: cmlab-cli lesson check LESSON\n"
  "       cmlab-cli lesson show LESSON [--answers]\n"
  "       cmlab-cli lesson export LESSON --student -o DIR\n"
  "       cmlab-cli lesson handout LESSON -o FILE.pdf\n"
  "check runs every step of the lesson and checks every prediction's answer against the\n"
  "motion.  show prints the lesson: each step's caption and question (--answers: also the\n"
  "answers, what to say afterwards, the notes for the teacher and the hidden values).\n"
  "export --student writes the students' copy into DIR, a new or empty folder: the lesson\n"
  "and the model files it needs, without answers, notes or hidden values; a step with a\n"
  "hidden parameter plays its motion, recorded beside the lesson.  LESSON is a lesson file\n"
  "or the name of a shipped lesson (turning-table).  handout writes a printable worksheet: a\n"
  "page for each step with its caption, a figure of how it starts and its question.\n");

static int
lesson_usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

static int
lesson_usage_error (const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  g_autofree char *try_help = cml_cli_try_help ();

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "cmlab-cli lesson: %s\n%s", msg, try_help);
  return EXIT_USAGE;
}

/* ---- finding and reading a lesson ----------------------------------------------------- */

static CmlLesson *
open_lesson (const char *arg)
{
  g_autofree char *path = cml_cli_find_lesson (arg);
  g_autoptr (GError) error = NULL;
  CmlLesson *lesson = cml_lesson_load (path, &error);

  if (lesson == NULL)
    fprintf (stderr, "cmlab-cli lesson: %s\n", error->message);
  return lesson;
}

/* the choices in the language of the locale (a translated list is ';'-separated) */
static char **
translated_choices (const CmlLessonStep *st)
{
  const char *raw = cml_lesson_translated (st->translations, "choices", NULL);
  char **list;

  if (raw == NULL)
    return g_strdupv (st->prediction.choices);
  list = g_strsplit (raw, ";", -1);
  for (guint k = 0; list[k]; k++)
    g_strstrip (list[k]);
  if (g_strv_length (list) != g_strv_length (st->prediction.choices))
    {
      g_strfreev (list);
      return g_strdupv (st->prediction.choices);
    }
  return list;
}

/* the value STEP runs a parameter with: the step's, else the model's */
static double
param_value (const CmlLessonStep *st, const char *name)
{
  const double *v = g_hash_table_lookup (st->params, name);
  const CmlParam *p = cml_model_find_param (st->model, name);
  return v ? *v : p ? p->value : NAN;
}

static const char *
param_unit (const CmlLessonStep *st, const char *name)
{
  const CmlParam *p = cml_model_find_param (st->model, name);
  return p && p->unit && !g_str_equal (p->unit, "1") ? p->unit : "";
}

/* ---- check ---------------------------------------------------------------------------- */

static int
lesson_check (const CmlLesson *lesson)
{
  guint n_pred = 0, n_wrong = 0, n_failed = 0;

  printf ("%s\n", cml_lesson_translated (lesson->translations, "title", lesson->title));
  for (guint k = 0; k < lesson->steps->len; k++)
    {
      const CmlLessonStep *st = lesson->steps->pdata[k];
      const CmlPrediction *pr = &st->prediction;
      g_autoptr (GError) error = NULL;

      /* the state: the system derived, the data set and the constraints solved */
      if (st->motion)
        printf (_("step %u (%s): plays its recorded motion (%s)\n"), k + 1, st->model->name, st->motion_ref);
      else
        {
          g_autoptr (CmlSimulation) sim = cml_lesson_step_simulation (st, &error);
          if (sim == NULL)
            {
              printf (_("step %u (%s): DOES NOT RUN: %s\n"), k + 1, st->model->name, error->message);
              n_failed++;
              continue;
            }
          printf (_("step %u (%s): the state is ready\n"), k + 1, st->model->name);
          const GPtrArray *report = cml_simulation_get_projection_report (sim);
          for (guint r = 0; r < report->len; r++)
            printf (_("    note: %s\n"), (char *) report->pdata[r]);
          /* a time no run reaches (at = 1e300) is refused, not run for ever */
          g_autofree char *why = NULL;
          if (pr->kind != CML_PREDICTION_NONE && !cml_cli_check_span (sim, st->initial, pr->at, &why))
            {
              printf (_("    the prediction cannot be checked: %s\n"), why);
              n_failed++;
              continue;
            }
        }
      if (pr->kind == CML_PREDICTION_NONE)
        continue;
      n_pred++;
      double value;
      gboolean right;
      if (!cml_lesson_step_outcome (st, &value, &right, &error))
        {
          printf (_("    the prediction cannot be checked: %s\n"), error->message);
          n_failed++;
          continue;
        }
      if (pr->no_answer)
        printf (_("    %s = %.9g at t = %.9g (this copy has no answer to check)\n"), pr->quantity, value, pr->at);
      else if (pr->kind == CML_PREDICTION_NUMBER)
        printf (_("    %s = %.9g at t = %.9g, the answer %.9g ± %.9g: %s\n"), pr->quantity, value, pr->at, pr->value,
                pr->tolerance, right ? _("it holds") : _("IT DOES NOT HOLD"));
      else
        {
          g_autofree char *check = pr->check_op == '='
                                     ? g_strdup_printf ("= %.9g ± %.9g", pr->check_value, pr->check_tolerance)
                                     : g_strdup_printf ("%c %.9g", pr->check_op, pr->check_value);
          printf (_("    %s = %.9g at t = %.9g, the answer (choice %u) asks %s: %s\n"), pr->quantity, value, pr->at,
                  pr->answer, check, right ? _("it holds") : _("IT DOES NOT HOLD"));
        }
      if (!right && !pr->no_answer)
        n_wrong++;
    }
  if (n_failed == 0 && lesson->student)
    printf (_("%u steps, %u predictions: every step runs (a student's copy: no answers to check)\n"),
            lesson->steps->len, n_pred);
  else if (n_wrong == 0 && n_failed == 0)
    printf (_("%u steps, %u predictions: every step runs and every answer holds\n"), lesson->steps->len, n_pred);
  else
    printf (_("%u steps, %u predictions: %u answers do not hold, %u steps do not run\n"), lesson->steps->len, n_pred,
            n_wrong, n_failed);
  return n_wrong == 0 && n_failed == 0 ? 0 : EXIT_FAILED;
}

/* ---- show ----------------------------------------------------------------------------- */

static int
lesson_show (const CmlLesson *lesson, gboolean answers)
{
  const char *desc = lesson->description ? cml_lesson_translated (lesson->translations, "description", lesson->description) : NULL;

  printf ("%s\n", cml_lesson_translated (lesson->translations, "title", lesson->title));
  if (desc)
    printf ("%s\n", desc);
  if (lesson->student)
    printf (_("(a student's copy: it holds no answers)\n"));
  for (guint k = 0; k < lesson->steps->len; k++)
    {
      const CmlLessonStep *st = lesson->steps->pdata[k];
      const CmlPrediction *pr = &st->prediction;

      printf (_("\nStep %u of %u\n"), k + 1, lesson->steps->len);
      printf ("  %s\n", cml_lesson_translated (st->translations, "caption", st->caption));
      for (guint h = 0; st->hidden[h]; h++)
        {
          gboolean unknown = st->unknown && g_strv_contains ((const char *const *) st->unknown, st->hidden[h]);
          if (answers && !unknown)
            printf (_("  Hidden from the students: %s = %.9g %s\n"), st->hidden[h], param_value (st, st->hidden[h]),
                    param_unit (st, st->hidden[h]));
          else
            printf (_("  Hidden from the students: %s = ?\n"), st->hidden[h]);
        }
      if (pr->kind != CML_PREDICTION_NONE)
        {
          printf (_("  Question: %s\n"), cml_lesson_translated (st->translations, "question", pr->question));
          if (pr->kind == CML_PREDICTION_CHOICE)
            {
              g_auto (GStrv) choices = translated_choices (st);
              for (guint c = 0; choices[c]; c++)
                printf ("    %u. %s\n", c + 1, choices[c]);
            }
          else if (pr->unit)
            printf (_("    (a number, in %s)\n"), cml_lesson_translated (st->translations, "unit", pr->unit));
          else
            printf (_("    (a number)\n"));
          if (answers && !pr->no_answer)
            {
              if (pr->kind == CML_PREDICTION_CHOICE)
                printf (_("  Answer: %u (checked by %s at t = %.9g)\n"), pr->answer, pr->quantity, pr->at);
              else
                printf (_("  Answer: %.9g ± %.9g %s (checked by %s at t = %.9g)\n"), pr->value, pr->tolerance,
                        pr->unit ? pr->unit : "", pr->quantity, pr->at);
              if (pr->afterwards)
                printf (_("  Afterwards: %s\n"), cml_lesson_translated (st->translations, "afterwards", pr->afterwards));
            }
        }
      if (answers && st->notes)
        printf (_("  Notes for the teacher: %s\n"), cml_lesson_translated (st->translations, "notes", st->notes));
    }
  return 0;
}

/* ---- export: the secrets and looking for them ----------------------------------------- */

static void
add_text (GPtrArray *texts, const char *t)
{
  if (t && *t)
    g_ptr_array_add (texts, g_strdup (t));
}

static void
add_translations (GPtrArray *texts, GHashTable *translations, const char *key)
{
  GHashTableIter it;
  gpointer k, v;

  if (translations == NULL)
    return;
  g_hash_table_iter_init (&it, translations);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (g_str_has_prefix (k, key) && ((char *) k)[strlen (key)] == '[')
      add_text (texts, v);
}

/* Each way V is written that reads back as V: %.17g and the shorter %.Ng, with '.' and ','. */
static GPtrArray *
number_forms (double v)
{
  GPtrArray *forms = g_ptr_array_new_with_free_func (g_free);

  for (int n = 1; n <= 17; n++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      char fmt[8];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", n);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if ((n < 17 && g_ascii_strtod (buf, NULL) != v) || g_ptr_array_find_with_equal_func (forms, buf, g_str_equal, NULL))
        continue;
      g_ptr_array_add (forms, g_strdup (buf));
      if (strchr (buf, '.'))
        {
          char *comma = g_strdup (buf);
          *strchr (comma, '.') = ',';
          g_ptr_array_add (forms, comma);
        }
    }
  return forms;
}

/* the secrets: numbers (hidden values, number answers) and texts (notes, afterwards);
 * *N_SHORT numbers of at most two characters are left out */
static void
lesson_secrets (const CmlLesson *lesson, GArray *numbers, GPtrArray *texts, GPtrArray *short_numbers)
{
  for (guint k = 0; k < lesson->steps->len; k++)
    {
      const CmlLessonStep *st = lesson->steps->pdata[k];
      double vals[64];
      guint n = 0;

      for (guint h = 0; st->hidden[h] && n < G_N_ELEMENTS (vals) - 1; h++)
        if (!(st->unknown && g_strv_contains ((const char *const *) st->unknown, st->hidden[h])))
          vals[n++] = param_value (st, st->hidden[h]);
      if (st->prediction.kind == CML_PREDICTION_NUMBER && !st->prediction.no_answer)
        vals[n++] = st->prediction.value;
      for (guint j = 0; j < n; j++)
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_ascii_formatd (buf, sizeof buf, "%.17g", vals[j]);
          g_ascii_formatd (buf, sizeof buf, "%.15g", g_ascii_strtod (buf, NULL));
          if (strlen (buf) <= 2)
            g_ptr_array_add (short_numbers, g_strdup (buf));
          else
            g_array_append_val (numbers, vals[j]);
        }
      add_text (texts, st->notes);
      add_translations (texts, st->translations, "notes");
      add_text (texts, st->prediction.afterwards);
      add_translations (texts, st->translations, "afterwards");
    }
}

static gboolean
is_digit_at (const char *data, gsize len, gssize i)
{
  return i >= 0 && (gsize) i < len && g_ascii_isdigit (data[i]);
}

/* the offset of the first secret in DATA, or -1; *WHAT the secret */
static gssize
find_secret (const char *data, gsize len, GArray *numbers, GPtrArray *texts, char **what)
{
  for (guint k = 0; k < texts->len; k++)
    {
      const char *t = texts->pdata[k];
      const char *hit = g_strstr_len (data, (gssize) len, t);
      if (hit)
        {
          *what = g_strdup (t);
          return hit - data;
        }
    }
  for (guint k = 0; k < numbers->len; k++)
    {
      g_autoptr (GPtrArray) forms = number_forms (g_array_index (numbers, double, k));
      for (guint f = 0; f < forms->len; f++)
        {
          const char *form = forms->pdata[f];
          gsize fl = strlen (form);
          for (const char *p = data; (p = g_strstr_len (p, (gssize) (len - (gsize) (p - data)), form)) != NULL; p++)
            {
              gssize i = p - data, j = i + (gssize) fl;
              /* a whole number: no digit or decimal point runs on either side */
              gboolean before = is_digit_at (data, len, i - 1)
                                || ((i >= 1 && (data[i - 1] == '.' || data[i - 1] == ','))
                                    && is_digit_at (data, len, i - 2));
              gboolean after = is_digit_at (data, len, j)
                               || ((gsize) j < len && (data[j] == '.' || (data[j] == ',' && strchr (form, ',')))
                                   && is_digit_at (data, len, j + 1))
                               || ((gsize) j < len && (data[j] == 'e' || data[j] == 'E'));
              if (!before && !after)
                {
                  *what = g_strdup (form);
                  return i;
                }
            }
        }
    }
  return -1;
}

/* ---- export: writing ------------------------------------------------------------------ */

typedef struct
{
  char      *dir;
  gboolean   made_dir;
  GPtrArray *written; /* paths */
} Export;

static void
export_undo (Export *ex)
{
  for (guint k = ex->written->len; k-- > 0;)
    g_remove (ex->written->pdata[k]);
  if (ex->made_dir)
    g_rmdir (ex->dir);
}

static gboolean
export_write (Export *ex, const char *name, const char *data, gsize len, GError **error)
{
  g_autofree char *path = g_build_filename (ex->dir, name, NULL);

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, _("two files of the copy would be %s"), path);
      return FALSE;
    }
  if (!g_file_set_contents (path, data, (gssize) len, error))
    return FALSE;
  g_ptr_array_add (ex->written, g_steal_pointer (&path));
  return TRUE;
}

/* STEP's motion as CSV (cml-lesson.h): every observable from 0 to its time, with a row at
 * its prediction's time */
static char *
record_motion (const CmlLesson *lesson, const CmlLessonStep *st, guint number, GError **error)
{
  g_autoptr (CmlSimulation) sim = cml_lesson_step_simulation (st, error);
  const CmlPrediction *pr = &st->prediction;
  CmlSystem *sys;
  guint n_obs;
  double t_end;
  GString *csv;

  if (sim == NULL)
    return NULL;
  sys = cml_simulation_get_system (sim);
  n_obs = cml_system_n_observables (sys);
  t_end = st->t_end > 0 ? st->t_end : pr->kind != CML_PREDICTION_NONE && pr->at > 0 ? pr->at : 10;
  if (pr->kind != CML_PREDICTION_NONE && pr->at > t_end)
    t_end = pr->at;
  {
    /* a time no run reaches is refused, not run for ever */
    g_autofree char *why = NULL;
    if (!cml_cli_check_span (sim, st->initial, t_end, &why))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s", why);
        return NULL;
      }
  }
  g_autofree double *obs = g_new (double, n_obs);
  /* the times: equal steps, and the prediction's time where it falls between two */
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint k = 0; k <= MOTION_STEPS; k++)
    {
      double t = k == MOTION_STEPS ? t_end : t_end * k / MOTION_STEPS;
      double prev = k ? g_array_index (times, double, times->len - 1) : -1;
      if (pr->kind != CML_PREDICTION_NONE && pr->at > prev && pr->at < t)
        g_array_append_val (times, pr->at);
      g_array_append_val (times, t);
    }
  csv = g_string_new (NULL);
  g_string_append_printf (csv, "# cmlab lesson “%s”, step %u: its motion, recorded (%s, every quantity, t = 0 … %g)\n",
                          lesson->title, number, st->model->name, t_end);
  g_string_append (csv, "t");
  for (guint i = 0; i < n_obs; i++)
    g_string_append_printf (csv, ",%s", cml_system_observable_name (sys, i));
  g_string_append_c (csv, '\n');
  for (guint k = 0; k < times->len; k++)
    {
      double t = g_array_index (times, double, k);
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      if (!cml_simulation_advance (sim, t, error))
        {
          g_string_free (csv, TRUE);
          return NULL;
        }
      cml_simulation_observe (sim, obs);
      g_string_append (csv, g_ascii_formatd (buf, sizeof buf, "%.17g", t));
      for (guint i = 0; i < n_obs; i++)
        {
          g_string_append_c (csv, ',');
          g_string_append (csv, g_ascii_formatd (buf, sizeof buf, "%.17g", obs[i]));
        }
      g_string_append_c (csv, '\n');
    }
  return g_string_free (csv, FALSE);
}

static void
strip_translations (GHashTable *translations, const char *const *keep)
{
  GHashTableIter it;
  gpointer k;

  if (translations == NULL)
    return;
  g_hash_table_iter_init (&it, translations);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      g_autofree char *base = g_strndup (k, strcspn (k, "["));
      if (!g_strv_contains (keep, base))
        g_hash_table_iter_remove (&it);
    }
}

/* the model file a step names, when it is a file beside the lesson (as the loader finds it) */
static char *
model_file_beside (const CmlLesson *lesson, const CmlLessonStep *st)
{
  g_autofree char *dir = g_path_get_dirname (lesson->path);
  g_autofree char *path = g_path_is_absolute (st->model_ref) ? g_strdup (st->model_ref)
                                                               : g_build_filename (dir, st->model_ref, NULL);
  return g_file_test (path, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&path) : NULL;
}

static int
lesson_export (CmlLesson *lesson, const char *dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) numbers = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) short_numbers = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free); /* name -> source */
  g_autofree char *lesson_name = g_path_get_basename (lesson->path);
  Export ex = { (char *) dir, FALSE, written };
  static const char *const keep_step[] = { "caption", "question", "choices", "unit", NULL };
  static const char *const keep_lesson[] = { "title", "description", NULL };

  if (lesson->student)
    {
      fprintf (stderr, _("cmlab-cli lesson: %s is already a student's copy\n"), lesson->path);
      return EXIT_USAGE;
    }
  /* never over what is there */
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      if (d == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
        {
          fprintf (stderr, _("cmlab-cli lesson: %s is not a folder: the students' copy goes into a new or empty folder\n"),
                   dir);
          return EXIT_USAGE;
        }
      if (g_dir_read_name (d) != NULL)
        {
          fprintf (stderr,
                   _("cmlab-cli lesson: %s is not empty: the students' copy goes into a new or empty folder, "
                     "never over files that are there\n"),
                   dir);
          return EXIT_USAGE;
        }
    }
  else if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      fprintf (stderr, _("cmlab-cli lesson: cannot make the folder %s: %s\n"), dir, g_strerror (errno));
      return EXIT_USAGE;
    }
  else
    ex.made_dir = TRUE;

  lesson_secrets (lesson, numbers, texts, short_numbers);

  /* the motions of the steps with hidden parameters, while the lesson still has their values */
  for (guint k = 0; k < lesson->steps->len && error == NULL; k++)
    {
      CmlLessonStep *st = lesson->steps->pdata[k];
      if (st->hidden[0] == NULL)
        continue;
      g_autofree char *csv = record_motion (lesson, st, k + 1, &error);
      g_autofree char *name = g_strdup_printf ("step-%u.csv", k + 1);
      if (csv == NULL)
        {
          g_prefix_error (&error, _("step %u: its motion cannot be recorded: "), k + 1);
          break;
        }
      if (!export_write (&ex, name, csv, strlen (csv), &error))
        break;
      g_free (st->motion_ref);
      st->motion_ref = g_steal_pointer (&name);
      /* the hidden values become "?" */
      g_autoptr (GPtrArray) unknown = g_ptr_array_new ();
      for (guint h = 0; st->hidden[h]; h++)
        {
          g_hash_table_remove (st->params, st->hidden[h]);
          g_ptr_array_add (unknown, g_strdup (st->hidden[h]));
        }
      g_ptr_array_add (unknown, NULL);
      g_strfreev (st->unknown);
      st->unknown = (char **) g_ptr_array_free (g_steal_pointer (&unknown), FALSE);
    }

  /* the model files beside the lesson, each once */
  for (guint k = 0; k < lesson->steps->len && error == NULL; k++)
    {
      CmlLessonStep *st = lesson->steps->pdata[k];
      g_autofree char *src = model_file_beside (lesson, st);
      g_autofree char *name = NULL, *data = NULL;
      gsize len;
      const char *had;
      if (src == NULL)
        continue;
      name = g_path_get_basename (src);
      if ((had = g_hash_table_lookup (models, name)) == NULL)
        {
          if (!g_file_get_contents (src, &data, &len, &error) || !export_write (&ex, name, data, len, &error))
            break;
          g_hash_table_insert (models, g_strdup (name), g_strdup (src));
        }
      else if (!g_str_equal (had, src))
        {
          g_set_error (&error, CML_ERROR, CML_ERROR_IO, _("two model files of the lesson are called %s (%s and %s)"), name,
                       had, src);
          break;
        }
      g_free (st->model_ref);
      st->model_ref = g_steal_pointer (&name);
    }

  /* the lesson itself, without what only the teacher sees */
  if (error == NULL)
    {
      g_autofree char *path = g_build_filename (dir, lesson_name, NULL);
      lesson->student = TRUE;
      strip_translations (lesson->translations, keep_lesson);
      for (guint k = 0; k < lesson->steps->len; k++)
        {
          CmlLessonStep *st = lesson->steps->pdata[k];
          g_clear_pointer (&st->notes, g_free);
          g_clear_pointer (&st->prediction.afterwards, g_free);
          st->prediction.no_answer = TRUE;
          strip_translations (st->translations, keep_step);
        }
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        g_set_error (&error, CML_ERROR, CML_ERROR_IO, _("two files of the copy would be %s"), path);
      else if (cml_lesson_save (lesson, path, &error))
        g_ptr_array_add (written, g_steal_pointer (&path));
    }

  /* every byte written, read back: no secret anywhere, and the copy opens */
  for (guint k = 0; k < written->len && error == NULL; k++)
    {
      g_autofree char *data = NULL, *what = NULL;
      gsize len;
      gssize at;
      if (!g_file_get_contents (written->pdata[k], &data, &len, &error))
        break;
      if ((at = find_secret (data, len, numbers, texts, &what)) >= 0)
        {
          guint line = 1;
          for (gssize i = 0; i < at; i++)
            line += data[i] == '\n';
          g_set_error (&error, CML_ERROR, CML_ERROR_IO,
                       _("%s, line %u, would show students “%s”, a hidden value, an answer or a note; "
                         "nothing was written (change that line in the lesson or its model file)"),
                       (char *) written->pdata[k], line, what);
        }
    }
  if (error == NULL)
    {
      g_autofree char *path = g_build_filename (dir, lesson_name, NULL);
      g_autoptr (CmlLesson) copy = cml_lesson_load (path, &error);
      if (copy == NULL)
        g_prefix_error (&error, _("the students' copy does not open: "));
    }
  if (error)
    {
      export_undo (&ex);
      fprintf (stderr, "cmlab-cli lesson: %s\n", error->message);
      return EXIT_FAILED;
    }
  for (guint k = 0; k < written->len; k++)
    printf (_("wrote %s\n"), (char *) written->pdata[k]);
  for (guint k = 0; k < short_numbers->len; k++)
    printf (_("note: %s, a hidden value or an answer, is too short to tell from other numbers: it was not looked "
              "for in the files written\n"),
            (char *) short_numbers->pdata[k]);
  return 0;
}

/* ---- the command ---------------------------------------------------------------------- */

int
cml_lesson_main (int argc, char **argv)
{
  gboolean answers = FALSE, student = FALSE, help = FALSE;
  g_autofree char *output = NULL;
  g_auto (GStrv) rest = NULL;
  const GOptionEntry entries[] = {
    { "answers", 0, 0, G_OPTION_ARG_NONE, &answers, "", NULL },
    { "student", 0, 0, G_OPTION_ARG_NONE, &student, "", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "", "DIR" },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, "", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char **args = g_new0 (char *, argc + 2);

  args[0] = (char *) "cmlab-cli lesson";
  for (int k = 0; k < argc; k++)
    args[k + 1] = argv[k];
  int n_args = argc + 1;
  char **pargs = args;
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &n_args, &pargs, &error))
    return lesson_usage_error ("%s", error->message);
  if (help)
    {
      fputs (_(lesson_usage), stdout);
      return 0;
    }
  if (rest == NULL || rest[0] == NULL)
    return lesson_usage_error (_("which? check, show, export or handout, and the lesson"));
  const char *what = rest[0];
  if (g_str_equal (what, "handout"))
    {
      /* cmlab-cli runs cmlab-cli-render for it; this is a cmlab-cli without the render library */
      fprintf (stderr, _("cmlab-cli lesson: this cmlab-cli was built without the render library, so it cannot draw "
                         "the handout\n"));
      return EXIT_USAGE;
    }
  if (!g_strv_contains ((const char *const[]) { "check", "show", "export", NULL }, what))
    return lesson_usage_error (_("unknown lesson command “%s” (check, show, export or handout)"), what);
  if (rest[1] == NULL)
    return lesson_usage_error (_("lesson %s needs the lesson (a .cmllesson file or a shipped lesson's name)"), what);
  if (rest[2] != NULL)
    return lesson_usage_error (_("one lesson at a time, not also “%s”"), rest[2]);
  if (answers && !g_str_equal (what, "show"))
    return lesson_usage_error (_("--answers is for lesson show"));
  if ((student || output) && !g_str_equal (what, "export"))
    return lesson_usage_error (_("--student and -o are for lesson export"));
  if (g_str_equal (what, "export") && !student)
    return lesson_usage_error (_("lesson export makes the students' copy: give --student"));
  if (g_str_equal (what, "export") && (output == NULL || *output == '\0'))
    return lesson_usage_error (_("lesson export needs -o DIR, a new or empty folder"));

  g_autoptr (CmlLesson) lesson = open_lesson (rest[1]);
  if (lesson == NULL)
    return EXIT_USAGE;
  if (g_str_equal (what, "check"))
    return lesson_check (lesson);
  if (g_str_equal (what, "show"))
    return lesson_show (lesson, answers);
  return lesson_export (lesson, output);
}
