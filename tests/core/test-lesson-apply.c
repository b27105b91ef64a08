/* test-lesson-apply.c — what the window takes from a lesson step (cml-lesson-apply.h):
 * the step's state as a session, its texts in the user's language, the verdicts on the
 * lesson's answer and on the class's, and the run's reading at the prediction's time,
 * which is cml_lesson_step_outcome's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <locale.h>
#include <stdlib.h>

#include "cml-lesson-apply.h"

static CmlLesson *
turning_table (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "lessons", "turning-table.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  CmlLesson *lesson = cml_lesson_load (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (lesson);
  g_assert_cmpuint (lesson->steps->len, >=, 3);
  return lesson;
}

/* the session is the step's state: its parameters and data, its integrator, its view */
static void
test_session (void)
{
  g_autoptr (CmlLesson) lesson = turning_table ();
  CmlLessonStep *step = lesson->steps->pdata[1];
  g_autoptr (CmlSession) session = NULL;
  double *omega;

  g_hash_table_insert (step->view, g_strdup ("table-frame"), g_strdup ("true"));
  session = cml_lesson_step_session (step);
  g_assert_true (session->model == step->model);
  omega = g_hash_table_lookup (session->params, "Omega");
  g_assert_nonnull (omega);
  g_assert_cmpfloat (*omega, ==, 1);
  g_assert_cmpuint (g_hash_table_size (session->params), ==, g_hash_table_size (step->params));
  g_assert_cmpuint (g_hash_table_size (session->initial), ==, g_hash_table_size (step->initial));
  g_assert_cmpint (session->integrator.kind, ==, step->integrator.kind);
  g_assert_cmpfloat (session->integrator.rtol, ==, step->integrator.rtol);
  g_assert_cmpstr (g_hash_table_lookup (session->view, "table-frame"), ==, "true");
  /* a copy: the step keeps its own */
  *omega = 5;
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (step->params, "Omega"), ==, 1);
}

/* the rules: a number within the tolerance of the run; a choice that is the answer, when
 * the run bears the answer out */
static void
test_verdicts (void)
{
  CmlPrediction number = { .kind = CML_PREDICTION_NUMBER, .value = -2.5, .tolerance = 0.05 };
  CmlPrediction choice = { .kind = CML_PREDICTION_CHOICE, .answer = 2, .check_op = '=', .check_value = -0.75,
                           .check_tolerance = 1.76 };
  CmlPrediction below = { .kind = CML_PREDICTION_CHOICE, .answer = 1, .check_op = '<', .check_value = 2 };
  CmlPrediction none = { .kind = CML_PREDICTION_NONE };

  g_assert_true (cml_prediction_holds (&number, -2.46));
  g_assert_false (cml_prediction_holds (&number, -2.44));
  g_assert_true (cml_prediction_class_right (&number, -2.49, 0, -2.45));
  g_assert_false (cml_prediction_class_right (&number, -2.49, 0, -2.3));
  g_assert_false (cml_prediction_class_right (&number, -2.49, 0, NAN));

  g_assert_true (cml_prediction_holds (&choice, 1.0));
  g_assert_false (cml_prediction_holds (&choice, 1.02));
  g_assert_true (cml_prediction_class_right (&choice, 0.2, 2, NAN));
  g_assert_false (cml_prediction_class_right (&choice, 0.2, 1, NAN));
  /* the run does not bear the answer out: no choice is called right */
  g_assert_false (cml_prediction_class_right (&choice, 5.0, 2, NAN));
  g_assert_true (cml_prediction_holds (&below, 1.9));
  g_assert_false (cml_prediction_holds (&below, 2.0));
  g_assert_false (cml_prediction_holds (&none, 0));
  g_assert_false (cml_prediction_class_right (&none, 0, 1, 0));
}

/* the window's reading (a simulation made first, advanced later) is the core's outcome */
static void
test_reading (void)
{
  g_autoptr (CmlLesson) lesson = turning_table ();

  for (guint k = 0; k < lesson->steps->len; k++)
    {
      CmlLessonStep *step = lesson->steps->pdata[k];
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlSystem) sys = NULL;
      g_autoptr (CmlSimulation) sim = NULL;
      double expected, value;
      gboolean right;

      if (step->prediction.kind == CML_PREDICTION_NONE)
        continue;
      g_assert_true (cml_lesson_step_outcome (step, &expected, &right, &error));
      g_assert_no_error (error);
      sys = cml_system_new (step->model, &error);
      g_assert_no_error (error);
      sim = cml_lesson_step_simulation_on (step, sys, &error);
      g_assert_no_error (error);
      g_assert_true (cml_lesson_prediction_read (&step->prediction, sim, &value, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (value, ==, expected);
      g_assert_true (right == cml_prediction_holds (&step->prediction, value));
    }
}

/* the texts in the user's language: Spanish where the lesson translates them, as written
 * otherwise */
static void
test_texts (void)
{
  g_autoptr (CmlLesson) lesson = turning_table ();
  CmlLessonStep *step = lesson->steps->pdata[1];
  g_auto (GStrv) choices = NULL;

  g_setenv ("LANGUAGE", "es", TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  g_assert_cmpstr (cml_lesson_step_text (step, "caption"), ==, g_hash_table_lookup (step->translations, "caption[es]"));
  g_assert_cmpstr (cml_lesson_title (lesson), ==, g_hash_table_lookup (lesson->translations, "title[es]"));
  choices = cml_lesson_step_choices (step);
  g_assert_cmpuint (g_strv_length (choices), ==, g_strv_length (step->prediction.choices));
  g_assert_true (g_str_has_prefix (choices[0], "Sí"));
  g_unsetenv ("LANGUAGE");
  g_setenv ("LANGUAGE", "en", TRUE);
  g_assert_cmpstr (cml_lesson_step_text (step, "caption"), ==, step->caption);
  g_assert_cmpstr (cml_lesson_step_text (step, "question"), ==, step->prediction.question);
  g_assert_null (cml_lesson_step_text (lesson->steps->pdata[0], "question"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/lesson-apply/session", test_session);
  g_test_add_func ("/core/lesson-apply/verdicts", test_verdicts);
  g_test_add_func ("/core/lesson-apply/reading", test_reading);
  g_test_add_func ("/core/lesson-apply/texts", test_texts);

  return g_test_run ();
}
