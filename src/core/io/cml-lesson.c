/* cml-lesson.c — reading, checking and writing lessons (the format: cml-lesson.h), and
 * running a step to the time its prediction is answered at.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-lesson"

#include "cml-lesson.h"
#include "cml-key-file-line.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "cml-read-file.h"
#include "cml-simulation.h"
#include "cml-system.h"

/* ---- freeing ---------------------------------------------------------------------- */

static void
step_free (CmlLessonStep *st)
{
  if (st == NULL)
    return;
  g_free (st->caption);
  g_free (st->notes);
  g_free (st->model_ref);
  g_clear_pointer (&st->model, cml_model_unref);
  g_clear_pointer (&st->params, g_hash_table_unref);
  g_clear_pointer (&st->initial, g_hash_table_unref);
  g_clear_pointer (&st->view, g_hash_table_unref);
  g_clear_pointer (&st->translations, g_hash_table_unref);
  g_strfreev (st->hidden);
  cml_prediction_clear (&st->prediction);
  g_strfreev (st->unknown);
  g_free (st->motion_ref);
  g_clear_pointer (&st->motion, cml_lesson_motion_free);
  g_free (st);
}

void
cml_lesson_step_free (CmlLessonStep *step)
{
  step_free (step);
}

CmlLesson *
cml_lesson_new (const char *title)
{
  CmlLesson *lesson = g_new0 (CmlLesson, 1);

  lesson->title = g_strdup (title);
  lesson->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) step_free);
  return lesson;
}

void
cml_lesson_free (CmlLesson *lesson)
{
  if (lesson == NULL)
    return;
  g_free (lesson->title);
  g_free (lesson->description);
  g_clear_pointer (&lesson->translations, g_hash_table_unref);
  g_clear_pointer (&lesson->steps, g_ptr_array_unref);
  g_free (lesson->path);
  g_free (lesson);
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct
{
  const char *path;     /* for messages */
  const char *text;     /* the file's text, for line numbers */
  GKeyFile   *kf;
  char       *dir;      /* the lesson's folder: models named by a relative path are there */
  gboolean    student;  /* a student's copy: questions may come without answers */
} Reader;

static gboolean G_GNUC_PRINTF (5, 6)
fail (const Reader *rd, GError **error, const char *group, const char *key, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: %s", rd->path, cml_key_file_line (rd->text, group, key), msg);
  return FALSE;
}

static gboolean
read_number (const Reader *rd, const char *group, const char *key, double *out, GError **error)
{
  g_autofree char *v = g_key_file_get_value (rd->kf, group, key, NULL);
  char *end = NULL;

  *out = v ? g_ascii_strtod (g_strstrip (v), &end) : NAN;
  if (v == NULL || end == v || *end != '\0' || !isfinite (*out))
    return fail (rd, error, group, key, _("%s is not a number: “%s”"), key, v ? v : "");
  return TRUE;
}

/* The model a step names: a file beside the lesson when one is there, else a built-in. */
static CmlModel *
load_step_model (const Reader *rd, const char *group, const char *ref, GError **error)
{
  g_autofree char *beside = g_path_is_absolute (ref) ? g_strdup (ref) : g_build_filename (rd->dir, ref, NULL);
  g_autoptr (GError) err = NULL;
  CmlModel *model;

  if (g_file_test (beside, G_FILE_TEST_IS_REGULAR))
    model = cml_model_new_from_file (beside, &err);
  else
    model = cml_model_load (ref, &err);
  if (model == NULL)
    fail (rd, error, group, "model", _("the model “%s”: %s"), ref, err->message);
  return model;
}

void
cml_prediction_clear (CmlPrediction *pr)
{
  g_free (pr->question);
  g_strfreev (pr->choices);
  g_free (pr->unit);
  g_free (pr->quantity);
  g_free (pr->afterwards);
  memset (pr, 0, sizeof *pr);
}

void
cml_prediction_copy (CmlPrediction *to, const CmlPrediction *from)
{
  *to = *from;
  to->question = g_strdup (from->question);
  to->choices = g_strdupv (from->choices);
  to->unit = g_strdup (from->unit);
  to->quantity = g_strdup (from->quantity);
  to->afterwards = g_strdup (from->afterwards);
}

char *
cml_prediction_format_check (const CmlPrediction *pr)
{
  char v[G_ASCII_DTOSTR_BUF_SIZE], t[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (v, sizeof v, "%.17g", pr->check_value);
  g_ascii_formatd (t, sizeof t, "%.17g", pr->check_tolerance);
  return pr->check_op == '=' ? g_strdup_printf ("= %s ± %s", v, t) : g_strdup_printf ("%c %s", pr->check_op, v);
}

/* "< 2", "> 0.5", "= 3 ± 0.1" (or "= 3 +- 0.1") */
gboolean
cml_prediction_parse_check (const char *text, char *op, double *value, double *tol)
{
  const char *p = text;
  char *end;

  while (g_ascii_isspace (*p))
    p++;
  if (*p != '<' && *p != '>' && *p != '=')
    return FALSE;
  *op = *p++;
  *value = g_ascii_strtod (p, &end);
  if (end == p || !isfinite (*value))
    return FALSE;
  *tol = 0;
  p = end;
  while (g_ascii_isspace (*p))
    p++;
  if (*op == '=')
    {
      if (g_str_has_prefix (p, "±"))
        p += strlen ("±");
      else if (g_str_has_prefix (p, "+-"))
        p += 2;
      else
        return FALSE;
      *tol = g_ascii_strtod (p, &end);
      if (end == p || !(*tol >= 0) || !isfinite (*tol))
        return FALSE;
      p = end;
      while (g_ascii_isspace (*p))
        p++;
    }
  return *p == '\0';
}

static gboolean
read_prediction (const Reader *rd, const char *group, CmlLessonStep *st, CmlSystem *sys,
                 GError **error)
{
  CmlPrediction *pr = &st->prediction;
  GKeyFile *kf = rd->kf;
  static const char *const keys[] = { "choices", "unit", "answer", "tolerance", "quantity", "at", "check", "afterwards", NULL };

  if (!g_key_file_has_key (kf, group, "question", NULL))
    {
      for (guint k = 0; keys[k]; k++)
        if (g_key_file_has_key (kf, group, keys[k], NULL))
          return fail (rd, error, group, keys[k], _("%s without a question"), keys[k]);
      return TRUE;
    }
  pr->question = g_key_file_get_string (kf, group, "question", NULL);
  pr->afterwards = g_key_file_get_string (kf, group, "afterwards", NULL);
  pr->quantity = g_key_file_get_string (kf, group, "quantity", NULL);
  if (pr->quantity == NULL || !g_key_file_has_key (kf, group, "at", NULL))
    return fail (rd, error, group, "question",
                 _("a question needs the quantity that answers it and the time it is read at "
                   "(quantity = NAME, at = T)"));
  g_strstrip (pr->quantity);
  if (!read_number (rd, group, "at", &pr->at, error))
    return FALSE;
  if (pr->at < 0)
    return fail (rd, error, group, "at", _("at must be a time from the start (≥ 0)"));
  if (cml_system_observable_index (sys, pr->quantity) < 0)
    return fail (rd, error, group, "quantity", _("“%s” is not a quantity of the model “%s”"), pr->quantity,
                 st->model->name);
  /* a student's copy leaves the answer out (and what only judges it) */
  pr->no_answer = rd->student && !g_key_file_has_key (kf, group, "answer", NULL);
  if (g_key_file_has_key (kf, group, "choices", NULL))
    {
      g_autofree char *check = g_key_file_get_string (kf, group, "check", NULL);
      double a;
      pr->kind = CML_PREDICTION_CHOICE;
      pr->choices = g_key_file_get_string_list (kf, group, "choices", NULL, NULL);
      for (guint k = 0; pr->choices && pr->choices[k]; k++)
        g_strstrip (pr->choices[k]);
      if (pr->choices == NULL || g_strv_length (pr->choices) < 2)
        return fail (rd, error, group, "choices", _("a choice question needs at least two choices, separated by ‘;’"));
      if (pr->no_answer)
        return TRUE;
      if (!read_number (rd, group, "answer", &a, error))
        return FALSE;
      if (a != floor (a) || a < 1 || a > g_strv_length (pr->choices))
        return fail (rd, error, group, "answer", _("the answer is the number of the right choice, from 1 to %u"),
                     g_strv_length (pr->choices));
      pr->answer = (guint) a;
      if (check == NULL || !cml_prediction_parse_check (check, &pr->check_op, &pr->check_value, &pr->check_tolerance))
        return fail (rd, error, group, check ? "check" : "question",
                     _("a choice question needs the check its answer makes of the quantity: "
                       "“check = < V”, “> V” or “= V ± TOL”"));
      return TRUE;
    }
  pr->kind = CML_PREDICTION_NUMBER;
  pr->unit = g_key_file_get_string (kf, group, "unit", NULL);
  if (pr->no_answer)
    return TRUE;
  if (!read_number (rd, group, "answer", &pr->value, error))
    return FALSE;
  pr->tolerance = 0;
  if (g_key_file_has_key (kf, group, "tolerance", NULL) && !read_number (rd, group, "tolerance", &pr->tolerance, error))
    return FALSE;
  if (pr->tolerance < 0)
    return fail (rd, error, group, "tolerance", _("the tolerance is how far from the answer is right (≥ 0)"));
  return TRUE;
}

static gboolean
read_step (const Reader *rd, const char *group, CmlLessonStep *st, GError **error)
{
  GKeyFile *kf = rd->kf;
  g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  g_autofree char *kind = NULL;

  st->params = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  st->initial = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  st->view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  st->translations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  st->integrator = cml_integrator_options_default ();
  st->caption = g_key_file_get_string (kf, group, "caption", NULL);
  st->notes = g_key_file_get_string (kf, group, "notes", NULL);
  st->model_ref = g_key_file_get_string (kf, group, "model", NULL);
  if (st->caption == NULL)
    return fail (rd, error, group, NULL, _("a step needs a caption for the class (caption = …)"));
  if (st->model_ref == NULL)
    return fail (rd, error, group, NULL, _("a step needs a model (model = a built-in's name or a file beside the lesson)"));
  g_strstrip (st->model_ref);
  if ((st->model = load_step_model (rd, group, st->model_ref, error)) == NULL)
    return FALSE;

  st->hidden = g_key_file_get_string_list (kf, group, "hidden", NULL, NULL);
  if (st->hidden == NULL)
    st->hidden = g_new0 (char *, 1);
  for (guint k = 0; st->hidden[k]; k++)
    if (cml_model_find_param (st->model, g_strstrip (st->hidden[k])) == NULL)
      return fail (rd, error, group, "hidden", _("“%s” is not a parameter of the model “%s”"), st->hidden[k],
                   st->model->name);

  g_autoptr (GPtrArray) unknown = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; keys && keys[k]; k++)
    {
      const char *key = keys[k];
      if (strchr (key, '['))
        {
          g_hash_table_insert (st->translations, g_strdup (key), g_key_file_get_value (kf, group, key, NULL));
          continue;
        }
      if (g_str_has_prefix (key, "param."))
        {
          const CmlParam *p = cml_model_find_param (st->model, key + strlen ("param."));
          double v;
          g_autoptr (GError) err = NULL;
          if (p == NULL)
            return fail (rd, error, group, key, _("“%s” is not a parameter of the model “%s”"), key + strlen ("param."),
                         st->model->name);
          g_autofree char *raw = g_key_file_get_value (kf, group, key, NULL);
          if (raw && g_str_equal (g_strstrip (raw), "?"))
            {
              /* a value left out of a student's copy */
              if (!g_strv_contains ((const char *const *) st->hidden, p->name))
                return fail (rd, error, group, key, _("only a hidden parameter may be written “?” (add it to hidden = …)"));
              g_ptr_array_add (unknown, g_strdup (p->name));
              continue;
            }
          if (!read_number (rd, group, key, &v, error))
            return FALSE;
          if (!cml_model_check_param (st->model, p, v, &err))
            return fail (rd, error, group, key, "%s", err->message);
          g_hash_table_insert (st->params, g_strdup (p->name), g_memdup2 (&v, sizeof v));
        }
      else if (g_str_has_prefix (key, "init."))
        {
          double v;
          if (!read_number (rd, group, key, &v, error))
            return FALSE;
          g_hash_table_insert (st->initial, g_strdup (key + strlen ("init.")), g_memdup2 (&v, sizeof v));
        }
      else if (g_str_has_prefix (key, "view."))
        g_hash_table_insert (st->view, g_strdup (key + strlen ("view.")), g_key_file_get_value (kf, group, key, NULL));
      else if (!g_strv_contains ((const char *const[]) { "caption", "notes", "model", "integrator", "rtol", "atol", "step",
                                                         "t-end", "hidden", "question", "choices", "unit", "answer",
                                                         "tolerance", "quantity", "at", "check", "afterwards", "motion", NULL },
                                 key))
        return fail (rd, error, group, key, _("unknown key “%s”"), key);
    }

  /* the whole state is the model's: its parameters and initial data */
  g_autoptr (CmlSystem) sys = NULL;
  {
    g_autoptr (GError) err = NULL;
    sys = cml_system_new (st->model, &err);
    g_autofree double *values = g_new (double, MAX (st->model->params->len, 1));
    if (sys == NULL)
      return fail (rd, error, group, "model", "%s", err->message);
    for (guint k = 0; k < st->model->params->len; k++)
      {
        CmlParam *p = st->model->params->pdata[k];
        double *v = g_hash_table_lookup (st->params, p->name);
        values[k] = v ? *v : p->value;
      }
    if (!cml_model_check_params (st->model, values, &err))
      return fail (rd, error, group, NULL, "%s", err->message);
    GHashTableIter it;
    gpointer name;
    g_hash_table_iter_init (&it, st->initial);
    while (g_hash_table_iter_next (&it, &name, NULL))
      {
        gboolean known = FALSE;
        for (guint i = 0; i < cml_system_dim (sys) && !known; i++)
          known = g_str_equal (cml_system_state_name (sys, i), name);
        for (guint A = 0; A < st->model->n && !known; A++)
          known = g_str_equal (st->model->fibre[A], name) || g_str_equal (st->model->momenta[A], name);
        if (!known)
          {
            g_autofree char *key = g_strconcat ("init.", (char *) name, NULL);
            return fail (rd, error, group, key, _("“%s” is not an initial datum of the model “%s”"), (char *) name,
                         st->model->name);
          }
      }
  }

  if ((kind = g_key_file_get_string (kf, group, "integrator", NULL)) != NULL
      && !cml_integrator_kind_from_string (g_strstrip (kind), &st->integrator.kind))
    return fail (rd, error, group, "integrator", _("unknown integrator “%s”"), kind);
  if (g_key_file_has_key (kf, group, "rtol", NULL) && !read_number (rd, group, "rtol", &st->integrator.rtol, error))
    return FALSE;
  if (g_key_file_has_key (kf, group, "atol", NULL) && !read_number (rd, group, "atol", &st->integrator.atol, error))
    return FALSE;
  if (g_key_file_has_key (kf, group, "step", NULL) && !read_number (rd, group, "step", &st->integrator.h_fixed, error))
    return FALSE;
  if (!(st->integrator.rtol > 0 && st->integrator.atol > 0 && st->integrator.h_fixed > 0))
    return fail (rd, error, group, "integrator", _("the tolerances and the step must be positive"));
  if (g_key_file_has_key (kf, group, "t-end", NULL)
      && (!read_number (rd, group, "t-end", &st->t_end, error) || !(st->t_end > 0)))
    return error && *error ? FALSE : fail (rd, error, group, "t-end", _("t-end must be a positive time"));

  g_ptr_array_add (unknown, NULL);
  st->unknown = (char **) g_ptr_array_free (g_steal_pointer (&unknown), FALSE);
  st->motion_ref = g_key_file_get_string (kf, group, "motion", NULL);
  if (st->motion_ref)
    {
      g_autofree char *path = NULL;
      g_autoptr (GError) err = NULL;
      g_strstrip (st->motion_ref);
      path = g_path_is_absolute (st->motion_ref) ? g_strdup (st->motion_ref)
                                                 : g_build_filename (rd->dir, st->motion_ref, NULL);
      if ((st->motion = cml_lesson_motion_load (path, &err)) == NULL)
        return fail (rd, error, group, "motion", _("the recorded motion: %s"), err->message);
    }
  else if (st->unknown[0])
    return fail (rd, error, group, NULL,
                 _("a step whose parameter is written “?” needs its recorded motion (motion = FILE.csv)"));
  if (!read_prediction (rd, group, st, sys, error))
    return FALSE;
  if (st->motion && st->prediction.kind != CML_PREDICTION_NONE)
    {
      double v;
      if (!cml_lesson_motion_value (st->motion, st->prediction.quantity, st->prediction.at, &v))
        return fail (rd, error, group, "motion", _("the recorded motion has no %s at t = %g"), st->prediction.quantity,
                     st->prediction.at);
    }
  return TRUE;
}

/* The number of "[step N]", or 0 when GROUP is not a step's. */
static guint
step_number (const char *group)
{
  char *end;
  guint64 n;

  if (!g_str_has_prefix (group, "step "))
    return 0;
  n = g_ascii_strtoull (group + strlen ("step "), &end, 10);
  return *end == '\0' && n > 0 && n <= G_MAXUINT ? (guint) n : 0;
}

static gint
compare_groups (gconstpointer a, gconstpointer b)
{
  guint na = step_number (*(const char *const *) a), nb = step_number (*(const char *const *) b);
  return na < nb ? -1 : na > nb;
}

CmlLesson *
cml_lesson_load (const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) err = NULL;
  g_autoptr (CmlLesson) lesson = g_new0 (CmlLesson, 1);
  g_autofree char *contents = NULL, *format = NULL, *dir = NULL;
  g_auto (GStrv) groups = NULL;
  g_autoptr (GPtrArray) step_groups = g_ptr_array_new ();
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  if (!cml_read_file_capped (path, CML_LESSON_MAX_BYTES, _("a lesson file"), &contents, &len, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, _("%s: not a readable lesson: %s"), path, err->message);
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, contents, len, G_KEY_FILE_KEEP_TRANSLATIONS, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s: not a readable lesson: %s"), path, err->message);
      return NULL;
    }
  dir = g_path_get_dirname (path);
  Reader rd = { path, contents, kf, dir, FALSE };

  format = g_key_file_get_string (kf, "lesson", "format", NULL);
  if (format == NULL || !g_str_equal (g_strstrip (format), CML_LESSON_FORMAT))
    {
      fail (&rd, error, "lesson", format ? "format" : NULL, _("not a lesson of this version (format = %s expected)"),
            CML_LESSON_FORMAT);
      return NULL;
    }
  lesson->path = g_strdup (path);
  lesson->title = g_key_file_get_string (kf, "lesson", "title", NULL);
  lesson->description = g_key_file_get_string (kf, "lesson", "description", NULL);
  {
    g_autofree char *copy = g_key_file_get_string (kf, "lesson", "copy", NULL);
    if (copy && !g_str_equal (g_strstrip (copy), "student"))
      {
        fail (&rd, error, "lesson", "copy", _("copy = student is the only kind of copy, not “%s”"), copy);
        return NULL;
      }
    lesson->student = rd.student = copy != NULL;
  }
  lesson->translations = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (lesson->title == NULL)
    {
      fail (&rd, error, "lesson", NULL, _("a lesson needs a title (title = …)"));
      return NULL;
    }
  {
    g_auto (GStrv) keys = g_key_file_get_keys (kf, "lesson", NULL, NULL);
    for (guint k = 0; keys && keys[k]; k++)
      if (strchr (keys[k], '['))
        g_hash_table_insert (lesson->translations, g_strdup (keys[k]), g_key_file_get_value (kf, "lesson", keys[k], NULL));
      else if (!g_strv_contains ((const char *const[]) { "format", "title", "description", "copy", NULL }, keys[k]))
        {
          fail (&rd, error, "lesson", keys[k], _("unknown key “%s”"), keys[k]);
          return NULL;
        }
  }

  groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g]; g++)
    {
      if (g_str_equal (groups[g], "lesson"))
        continue;
      if (step_number (groups[g]) == 0)
        {
          fail (&rd, error, groups[g], NULL, _("unknown group [%s] (steps are [step 1], [step 2], …)"), groups[g]);
          return NULL;
        }
      g_ptr_array_add (step_groups, groups[g]);
    }
  if (step_groups->len == 0)
    {
      fail (&rd, error, "lesson", NULL, _("a lesson needs at least one step ([step 1])"));
      return NULL;
    }
  if (step_groups->len > CML_LESSON_MAX_STEPS)
    {
      fail (&rd, error, "lesson", NULL, _("%u steps: a lesson has at most %d"), step_groups->len, CML_LESSON_MAX_STEPS);
      return NULL;
    }
  g_ptr_array_sort (step_groups, compare_groups);
  lesson->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) step_free);
  for (guint k = 0; k < step_groups->len; k++)
    {
      CmlLessonStep *st = g_new0 (CmlLessonStep, 1);
      g_ptr_array_add (lesson->steps, st);
      if (!read_step (&rd, step_groups->pdata[k], st, error))
        return NULL;
    }
  return g_steal_pointer (&lesson);
}

/* ---- writing ----------------------------------------------------------------------- */

static void
set_number (GKeyFile *kf, const char *group, const char *key, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_key_file_set_value (kf, group, key, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

static void
set_numbers (GKeyFile *kf, const char *group, const char *prefix, GHashTable *t)
{
  g_autoptr (GList) keys = g_hash_table_get_keys (t);
  keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
  for (GList *l = keys; l; l = l->next)
    {
      g_autofree char *key = g_strconcat (prefix, (char *) l->data, NULL);
      set_number (kf, group, key, *(double *) g_hash_table_lookup (t, l->data));
    }
}

static void
set_translations (GKeyFile *kf, const char *group, GHashTable *t)
{
  g_autoptr (GList) keys = g_hash_table_get_keys (t);
  keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
  for (GList *l = keys; l; l = l->next)
    g_key_file_set_value (kf, group, l->data, g_hash_table_lookup (t, l->data));
}

gboolean
cml_lesson_save (const CmlLesson *lesson, const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) err = NULL;
  g_autofree char *data = NULL;
  gsize len;

  g_return_val_if_fail (lesson != NULL && path != NULL, FALSE);
  g_key_file_set_string (kf, "lesson", "format", CML_LESSON_FORMAT);
  g_key_file_set_string (kf, "lesson", "title", lesson->title);
  if (lesson->description)
    g_key_file_set_string (kf, "lesson", "description", lesson->description);
  if (lesson->student)
    g_key_file_set_string (kf, "lesson", "copy", "student");
  if (lesson->translations)
    set_translations (kf, "lesson", lesson->translations);
  for (guint k = 0; k < lesson->steps->len; k++)
    {
      const CmlLessonStep *st = lesson->steps->pdata[k];
      const CmlPrediction *pr = &st->prediction;
      g_autofree char *group = g_strdup_printf ("step %u", k + 1);
      CmlIntegratorOptions dflt = cml_integrator_options_default ();

      g_key_file_set_string (kf, group, "caption", st->caption);
      if (st->notes)
        g_key_file_set_string (kf, group, "notes", st->notes);
      g_key_file_set_string (kf, group, "model", st->model_ref);
      set_numbers (kf, group, "param.", st->params);
      for (guint u = 0; st->unknown && st->unknown[u]; u++)
        {
          g_autofree char *key = g_strconcat ("param.", st->unknown[u], NULL);
          g_key_file_set_value (kf, group, key, "?");
        }
      set_numbers (kf, group, "init.", st->initial);
      if (st->integrator.kind != dflt.kind)
        g_key_file_set_string (kf, group, "integrator", cml_integrator_kind_to_string (st->integrator.kind));
      if (st->integrator.rtol != dflt.rtol)
        set_number (kf, group, "rtol", st->integrator.rtol);
      if (st->integrator.atol != dflt.atol)
        set_number (kf, group, "atol", st->integrator.atol);
      if (st->integrator.h_fixed != dflt.h_fixed)
        set_number (kf, group, "step", st->integrator.h_fixed);
      if (st->t_end > 0)
        set_number (kf, group, "t-end", st->t_end);
      {
        g_autoptr (GList) keys = g_hash_table_get_keys (st->view);
        keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
        for (GList *l = keys; l; l = l->next)
          {
            g_autofree char *key = g_strconcat ("view.", (char *) l->data, NULL);
            g_key_file_set_value (kf, group, key, g_hash_table_lookup (st->view, l->data));
          }
      }
      if (st->hidden && st->hidden[0])
        g_key_file_set_string_list (kf, group, "hidden", (const char *const *) st->hidden, g_strv_length (st->hidden));
      if (st->motion_ref)
        g_key_file_set_string (kf, group, "motion", st->motion_ref);
      if (pr->kind != CML_PREDICTION_NONE)
        {
          g_key_file_set_string (kf, group, "question", pr->question);
          g_key_file_set_string (kf, group, "quantity", pr->quantity);
          set_number (kf, group, "at", pr->at);
          if (pr->kind == CML_PREDICTION_CHOICE && pr->no_answer)
            g_key_file_set_string_list (kf, group, "choices", (const char *const *) pr->choices,
                                        g_strv_length (pr->choices));
          else if (pr->kind == CML_PREDICTION_NUMBER && pr->no_answer)
            {
              if (pr->unit)
                g_key_file_set_string (kf, group, "unit", pr->unit);
            }
          else if (pr->kind == CML_PREDICTION_CHOICE)
            {
              g_autofree char *check = cml_prediction_format_check (pr);
              g_key_file_set_string_list (kf, group, "choices", (const char *const *) pr->choices,
                                          g_strv_length (pr->choices));
              g_key_file_set_integer (kf, group, "answer", (int) pr->answer);
              g_key_file_set_string (kf, group, "check", check);
            }
          else
            {
              set_number (kf, group, "answer", pr->value);
              set_number (kf, group, "tolerance", pr->tolerance);
              if (pr->unit)
                g_key_file_set_string (kf, group, "unit", pr->unit);
            }
          if (pr->afterwards)
            g_key_file_set_string (kf, group, "afterwards", pr->afterwards);
        }
      if (st->translations)
        set_translations (kf, group, st->translations);
    }
  data = g_key_file_to_data (kf, &len, NULL);
  if (!cml_atomic_file_set_contents (path, data, len, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, _("cannot save the lesson: %s"), err->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- a step's run and its outcome ----------------------------------------------------- */

CmlSimulation *
cml_lesson_step_simulation (const CmlLessonStep *step, GError **error)
{
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  GHashTableIter it;
  gpointer name, v;

  if (step->unknown && step->unknown[0])
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the value of %s is hidden in this copy: the step plays its recorded motion"), step->unknown[0]);
      return NULL;
    }
  if ((sys = cml_system_new (step->model, error)) == NULL || (sim = cml_simulation_new (sys, error)) == NULL)
    return NULL;
  g_hash_table_iter_init (&it, step->params);
  while (g_hash_table_iter_next (&it, &name, &v))
    if (!cml_simulation_set_param (sim, name, *(double *) v, error))
      return NULL;
  if (!cml_simulation_set_integrator (sim, &step->integrator, error) || !cml_simulation_reset (sim, step->initial, error))
    return NULL;
  return g_steal_pointer (&sim);
}

gboolean
cml_lesson_step_outcome (const CmlLessonStep *step, double *value, gboolean *right, GError **error)
{
  const CmlPrediction *pr = &step->prediction;
  g_autoptr (CmlSimulation) sim = NULL;

  if (pr->kind == CML_PREDICTION_NONE)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the step has no prediction"));
      return FALSE;
    }
  if (step->motion)
    {
      if (!cml_lesson_motion_value (step->motion, pr->quantity, pr->at, value))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the recorded motion has no %s at t = %g"), pr->quantity, pr->at);
          return FALSE;
        }
    }
  else
    {
      CmlSystem *sys;
      if ((sim = cml_lesson_step_simulation (step, error)) == NULL || !cml_simulation_advance (sim, pr->at, error))
        return FALSE;
      sys = cml_simulation_get_system (sim);
      g_autofree double *obs = g_new (double, cml_system_n_observables (sys));
      cml_simulation_observe (sim, obs);
      *value = obs[cml_system_observable_index (sys, pr->quantity)];
    }
  if (pr->no_answer)
    *right = FALSE;
  else if (pr->kind == CML_PREDICTION_NUMBER)
    *right = fabs (*value - pr->value) <= pr->tolerance;
  else
    *right = pr->check_op == '<'   ? *value < pr->check_value
             : pr->check_op == '>' ? *value > pr->check_value
                                   : fabs (*value - pr->check_value) <= pr->check_tolerance;
  return TRUE;
}

/* ---- a recorded motion ------------------------------------------------------------- */

void
cml_lesson_motion_free (CmlLessonMotion *motion)
{
  if (motion == NULL)
    return;
  g_strfreev (motion->names);
  g_free (motion->values);
  g_free (motion);
}

CmlLessonMotion *
cml_lesson_motion_load (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) err = NULL;
  g_autoptr (CmlLessonMotion) m = g_new0 (CmlLessonMotion, 1);
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (double));
  gsize len = 0;
  int line = 0;

  if (!cml_read_file_capped (path, CML_LESSON_MAX_MOTION_BYTES, _("a recorded motion"), &contents, &len, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, _("%s: not readable: %s"), path, err->message);
      return NULL;
    }
  for (char *p = contents, *nl; p && *p; p = nl ? nl + 1 : NULL)
    {
      line++;
      nl = strchr (p, '\n');
      if (nl)
        *nl = '\0';
      g_strstrip (p);
      if (*p == '\0' || *p == '#')
        continue;
      g_auto (GStrv) fields = g_strsplit (p, ",", -1);
      guint n = g_strv_length (fields);
      if (m->names == NULL)
        {
          for (guint k = 0; k < n; k++)
            g_strstrip (fields[k]);
          if (n < 2 || !g_str_equal (fields[0], "t"))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s:%d: the first line of names must start with t"), path, line);
              return NULL;
            }
          m->n_cols = n;
          m->names = g_steal_pointer (&fields);
          continue;
        }
      if (n != m->n_cols)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s:%d: %u numbers where there are %u names"), path, line, n,
                       m->n_cols);
          return NULL;
        }
      for (guint k = 0; k < n; k++)
        {
          char *end;
          double v = g_ascii_strtod (g_strstrip (fields[k]), &end);
          if (end == fields[k] || *end != '\0' || !isfinite (v))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s:%d: not a number: “%s”"), path, line, fields[k]);
              return NULL;
            }
          if (k == 0 && m->n_rows > 0 && !(v > g_array_index (values, double, (m->n_rows - 1) * m->n_cols)))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s:%d: the times must increase"), path, line);
              return NULL;
            }
          g_array_append_val (values, v);
        }
      m->n_rows++;
    }
  if (m->n_rows < 2)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s: a recorded motion needs a line of names and two rows at least"),
                   path);
      return NULL;
    }
  m->values = (double *) g_array_free (g_steal_pointer (&values), FALSE);
  return g_steal_pointer (&m);
}

gboolean
cml_lesson_motion_value (const CmlLessonMotion *m, const char *name, double t, double *value)
{
  guint col = 0, lo = 0, hi;

  while (col < m->n_cols && !g_str_equal (m->names[col], name))
    col++;
  if (col == m->n_cols || !(t >= m->values[0]) || !(t <= m->values[(m->n_rows - 1) * m->n_cols]))
    return FALSE;
  /* the last row at or before T */
  hi = m->n_rows - 1;
  while (lo + 1 < hi)
    {
      guint mid = (lo + hi) / 2;
      if (m->values[mid * m->n_cols] <= t)
        lo = mid;
      else
        hi = mid;
    }
  if (m->values[hi * m->n_cols] <= t)
    lo = hi;
  const double t0 = m->values[lo * m->n_cols], v0 = m->values[lo * m->n_cols + col];
  if (t == t0 || lo == m->n_rows - 1)
    *value = v0;
  else
    {
      const double t1 = m->values[(lo + 1) * m->n_cols], v1 = m->values[(lo + 1) * m->n_cols + col];
      *value = v0 + (v1 - v0) * (t - t0) / (t1 - t0);
    }
  return TRUE;
}

const char *
cml_lesson_translated (GHashTable *translations, const char *key, const char *text)
{
  const char *const *langs = g_get_language_names ();

  for (guint k = 0; translations && langs[k]; k++)
    {
      g_autofree char *tk = g_strdup_printf ("%s[%s]", key, langs[k]);
      const char *t = g_hash_table_lookup (translations, tk);
      if (t)
        return t;
    }
  return text;
}
