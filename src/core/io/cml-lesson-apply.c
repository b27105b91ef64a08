/* cml-lesson-apply.c — one lesson step as the window opens it: a session made from the
 * step, the step's texts in the user's language, and the verdict on a class's answer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The verdicts (V the quantity read at the prediction's time "at"):
 *
 *   the lesson's answer holds   number:  |V − answer| ≤ tolerance
 *                               choice:  V < c, V > c or |V − c| ≤ tol  (check = …)
 *   the class is right          number:  |class's number − V| ≤ tolerance
 *                               choice:  class's choice = answer, and the answer holds
 */
#define G_LOG_DOMAIN "cml-lesson"

#include "cml-lesson-apply.h"

#include <glib/gi18n-lib.h>

#include <math.h>

#include "cml-error.h"

static GHashTable *
copy_values (GHashTable *from)
{
  GHashTable *to = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, from);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_hash_table_insert (to, g_strdup (k), g_memdup2 (v, sizeof (double)));
  return to;
}

CmlSession *
cml_lesson_step_session (const CmlLessonStep *step)
{
  CmlSession *s;
  GHashTableIter it;
  gpointer k, v;

  g_return_val_if_fail (step != NULL && step->model != NULL, NULL);

  s = g_new0 (CmlSession, 1);
  s->model = cml_model_ref (step->model);
  s->params = copy_values (step->params);
  s->initial = copy_values (step->initial);
  s->integrator = step->integrator;
  s->view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_iter_init (&it, step->view);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_hash_table_insert (s->view, g_strdup (k), g_strdup (v));
  return s;
}

/* How a lesson names MODEL so that it reads back the same model: a built-in's name, or
 * the file it came from; NULL when neither holds its text. */
static char *
model_ref (CmlModel *model)
{
  g_autoptr (CmlModel) builtin = NULL;
  g_autofree char *text = NULL;

  if (model->name && (builtin = cml_model_load (model->name, NULL)) != NULL
      && g_strcmp0 (builtin->text, model->text) == 0)
    return g_strdup (model->name);
  if (model->path && g_file_get_contents (model->path, &text, NULL, NULL) && g_strcmp0 (text, model->text) == 0)
    return g_canonicalize_filename (model->path, NULL);
  return NULL;
}

CmlLessonStep *
cml_lesson_step_new_from_session (const CmlSession *session, const char *caption, GError **error)
{
  CmlLessonStep *st;
  GHashTableIter it;
  gpointer k, v;
  char *ref;

  g_return_val_if_fail (session != NULL && session->model != NULL, NULL);

  if ((ref = model_ref (session->model)) == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the model “%s” is neither a built-in model nor a saved file: save it as a model file first"),
                   session->model->name ? session->model->name : "");
      return NULL;
    }
  st = g_new0 (CmlLessonStep, 1);
  st->caption = g_strdup (caption ? caption : "");
  st->model_ref = ref;
  st->model = cml_model_ref (session->model);
  st->params = copy_values (session->params);
  st->initial = copy_values (session->initial);
  st->integrator = session->integrator;
  st->view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (session->view)
    {
      g_hash_table_iter_init (&it, session->view);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (st->view, g_strdup (k), g_strdup (v));
    }
  st->hidden = g_new0 (char *, 1);
  st->unknown = g_new0 (char *, 1);
  return st;
}

CmlSimulation *
cml_lesson_step_simulation_on (const CmlLessonStep *step, CmlSystem *sys, GError **error)
{
  g_autoptr (CmlSimulation) sim = NULL;
  GHashTableIter it;
  gpointer k, v;

  g_return_val_if_fail (step != NULL && sys != NULL, NULL);

  if (step->unknown && step->unknown[0])
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the value of %s is hidden in this copy: the step plays its recorded motion"), step->unknown[0]);
      return NULL;
    }
  if ((sim = cml_simulation_new (sys, error)) == NULL)
    return NULL;
  g_hash_table_iter_init (&it, step->params);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (!cml_simulation_set_param (sim, k, *(double *) v, error))
      return NULL;
  if (!cml_simulation_set_integrator (sim, &step->integrator, error) || !cml_simulation_reset (sim, step->initial, error))
    return NULL;
  return g_steal_pointer (&sim);
}

gboolean
cml_lesson_prediction_read (const CmlPrediction *pr, CmlSimulation *sim, double *value,
                            GError **error)
{
  CmlSystem *sys;
  g_autofree double *obs = NULL;
  int k;

  g_return_val_if_fail (pr != NULL && sim != NULL && value != NULL, FALSE);

  sys = cml_simulation_get_system (sim);
  k = pr->quantity ? cml_system_observable_index (sys, pr->quantity) : -1;
  if (pr->kind == CML_PREDICTION_NONE || k < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the step has no prediction"));
      return FALSE;
    }
  if (!cml_simulation_advance (sim, pr->at, error))
    return FALSE;
  obs = g_new (double, MAX (cml_system_n_observables (sys), 1));
  cml_simulation_observe (sim, obs);
  *value = obs[k];
  return TRUE;
}

const char *
cml_lesson_step_text (const CmlLessonStep *step, const char *key)
{
  const char *t;

  g_return_val_if_fail (step != NULL && key != NULL, NULL);

  if (g_str_equal (key, "caption"))
    t = step->caption;
  else if (g_str_equal (key, "notes"))
    t = step->notes;
  else if (g_str_equal (key, "question"))
    t = step->prediction.question;
  else if (g_str_equal (key, "afterwards"))
    t = step->prediction.afterwards;
  else if (g_str_equal (key, "unit"))
    t = step->prediction.unit;
  else
    return NULL;
  return t ? cml_lesson_translated (step->translations, key, t) : NULL;
}

char **
cml_lesson_step_choices (const CmlLessonStep *step)
{
  const char *t;
  char **choices;

  g_return_val_if_fail (step != NULL, NULL);

  t = cml_lesson_translated (step->translations, "choices", NULL);
  /* a translation with as many choices as the original, else the original */
  if (t && step->prediction.choices)
    {
      choices = g_strsplit (t, ";", -1);
      for (guint k = 0; choices[k]; k++)
        g_strstrip (choices[k]);
      if (g_strv_length (choices) == g_strv_length (step->prediction.choices))
        return choices;
      g_strfreev (choices);
    }
  return g_strdupv (step->prediction.choices);
}

const char *
cml_lesson_title (const CmlLesson *lesson)
{
  g_return_val_if_fail (lesson != NULL, NULL);

  return cml_lesson_translated (lesson->translations, "title", lesson->title);
}

gboolean
cml_prediction_holds (const CmlPrediction *pr, double value)
{
  g_return_val_if_fail (pr != NULL, FALSE);

  if (pr->kind == CML_PREDICTION_NUMBER)
    return fabs (value - pr->value) <= pr->tolerance;
  if (pr->kind != CML_PREDICTION_CHOICE)
    return FALSE;
  return pr->check_op == '<'   ? value < pr->check_value
         : pr->check_op == '>' ? value > pr->check_value
                               : fabs (value - pr->check_value) <= pr->check_tolerance;
}

gboolean
cml_prediction_class_right (const CmlPrediction *pr, double value, guint choice, double number)
{
  g_return_val_if_fail (pr != NULL, FALSE);

  if (pr->kind == CML_PREDICTION_NUMBER)
    return isfinite (number) && fabs (number - value) <= pr->tolerance;
  return pr->kind == CML_PREDICTION_CHOICE && choice == pr->answer && cml_prediction_holds (pr, value);
}
