/* test-lesson.c — lessons (cml-lesson.h): every shipped lesson loads, every step's
 * prediction is answered by its run as the lesson says; a lesson saved and reopened is the
 * same, number for number; malformed lessons are refused naming the file, line and problem.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-lesson"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cml-error.h"
#include "cml-lesson.h"

static char *
lessons_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "..", "lessons", NULL);
}

/* every file in lessons/: a lesson opens, every step's system is derived and its state set,
 * and each prediction's answer is what the run gives; any other file is a model file that
 * a lesson names (a lesson runs it) */
static void
test_shipped (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) others = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *name;
  guint n_lessons = 0, n_predictions = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = NULL;
      guint n_here = 0;

      if (!g_str_has_suffix (name, ".cmllesson"))
        {
          g_ptr_array_add (others, g_strdup (name));
          continue;
        }
      path = g_build_filename (dir, name, NULL);
      lesson = cml_lesson_load (path, &error);
      g_assert_no_error (error);
      g_assert_false (lesson->student);
      n_lessons++;
      for (guint k = 0; k < lesson->steps->len; k++)
        {
          CmlLessonStep *st = lesson->steps->pdata[k];
          g_autoptr (CmlSimulation) sim = NULL;
          double value;
          gboolean right;

          g_hash_table_add (named, g_strdup (st->model_ref));
          /* the step's own state: its system derived, the data set and solved */
          sim = cml_lesson_step_simulation (st, &error);
          g_assert_no_error (error);
          g_assert_nonnull (sim);
          g_assert_true (cml_simulation_get_time (sim) == 0);
          if (st->prediction.kind == CML_PREDICTION_NONE)
            continue;
          g_assert_false (st->prediction.no_answer);
          g_assert_true (cml_lesson_step_outcome (st, &value, &right, &error));
          g_assert_no_error (error);
          g_test_message ("%s, step %u: %s = %.9g at t = %g: %s", name, k + 1, st->prediction.quantity, value,
                          st->prediction.at, right ? "the answer holds" : "THE ANSWER DOES NOT HOLD");
          g_assert_true (right);
          n_predictions++;
          n_here++;
        }
      /* a lesson asks the class something */
      g_assert_cmpuint (n_here, >=, 1);
    }
  /* the ball on a turning table, nonholonomic against vakonomic, the singular Lagrangian */
  g_assert_cmpuint (n_lessons, >=, 3);
  g_assert_cmpuint (n_predictions, >=, 9);
  for (guint k = 0; k < others->len; k++)
    {
      g_autofree char *path = g_build_filename (dir, others->pdata[k], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = NULL;
      g_test_message ("%s: a model file a lesson runs", (char *) others->pdata[k]);
      g_assert_true (g_str_has_suffix (others->pdata[k], ".cml"));
      g_assert_true (g_hash_table_contains (named, others->pdata[k]));
      model = cml_model_new_from_file (path, &error);
      g_assert_no_error (error);
    }
}

/* a wrong answer is found wrong: the outcome is judged, not assumed */
static void
test_wrong_answer (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autofree char *path = g_build_filename (dir, "turning-table.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlLesson) lesson = cml_lesson_load (path, &error);
  double value;
  gboolean right;

  g_assert_no_error (error);
  CmlLessonStep *st = lesson->steps->pdata[2];
  g_assert_cmpint (st->prediction.kind, ==, CML_PREDICTION_NUMBER);
  st->prediction.value = -2.4;
  g_assert_true (cml_lesson_step_outcome (st, &value, &right, &error));
  g_assert_false (right);
  st = lesson->steps->pdata[1];
  st->prediction.check_op = '>';
  st->prediction.check_value = 5;
  g_assert_true (cml_lesson_step_outcome (st, &value, &right, &error));
  g_assert_false (right);
}

/* saved and reopened: the same steps, numbers bit for bit, translations kept */
static void
test_round_trip (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autofree char *path = g_build_filename (dir, "turning-table.cmllesson", NULL);
  g_autofree char *tmpdir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (tmpdir, "copy.cmllesson", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlLesson) a = cml_lesson_load (path, &error);
  g_assert_no_error (error);

  /* a value no decimal writes short */
  double third = 1.0 / 3.0;
  CmlLessonStep *s0 = a->steps->pdata[0];
  g_hash_table_insert (s0->initial, g_strdup ("v"), g_memdup2 (&third, sizeof third));
  g_assert_true (cml_lesson_save (a, copy, &error));
  g_autoptr (CmlLesson) b = cml_lesson_load (copy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->steps->len, ==, b->steps->len);
  g_assert_cmpstr (a->title, ==, b->title);
  g_assert_cmpstr (g_hash_table_lookup (b->translations, "title[es]"), ==,
                   g_hash_table_lookup (a->translations, "title[es]"));
  for (guint k = 0; k < a->steps->len; k++)
    {
      CmlLessonStep *x = a->steps->pdata[k], *y = b->steps->pdata[k];
      GHashTableIter it;
      gpointer key, v;
      g_assert_cmpstr (x->caption, ==, y->caption);
      g_assert_cmpstr (g_hash_table_lookup (x->translations, "caption[es]"), ==,
                       g_hash_table_lookup (y->translations, "caption[es]"));
      g_assert_cmpuint (g_hash_table_size (x->params), ==, g_hash_table_size (y->params));
      g_assert_cmpuint (g_hash_table_size (x->initial), ==, g_hash_table_size (y->initial));
      g_hash_table_iter_init (&it, x->params);
      while (g_hash_table_iter_next (&it, &key, &v))
        g_assert_true (memcmp (v, g_hash_table_lookup (y->params, key), sizeof (double)) == 0);
      g_hash_table_iter_init (&it, x->initial);
      while (g_hash_table_iter_next (&it, &key, &v))
        g_assert_true (memcmp (v, g_hash_table_lookup (y->initial, key), sizeof (double)) == 0);
      g_assert_cmpint (x->prediction.kind, ==, y->prediction.kind);
      g_assert_true (memcmp (&x->prediction.at, &y->prediction.at, sizeof (double)) == 0);
      g_assert_true (memcmp (&x->prediction.value, &y->prediction.value, sizeof (double)) == 0);
      g_assert_cmpint (x->prediction.answer, ==, y->prediction.answer);
      g_assert_cmpint (x->prediction.check_op, ==, y->prediction.check_op);
    }
  g_remove (copy);
  g_rmdir (tmpdir);
}

/* malformed lessons: the file, the line and what is wrong */
static void
test_malformed (void)
{
  static const struct
  {
    const char *text;
    int line;
    const char *want;
  } cases[] = {
    { "[lesson]\ntitle = t\n\n[step 1]\ncaption = c\nmodel = rolling-ball\n", 1, "format" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n", 1, "at least one step" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = nowhere-model\n", 6, "nowhere-model" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nparam.Omega = 99\n", 7,
      "Omega" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nparam.nope = 1\n", 7,
      "not a parameter" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\ninit.zz = 1\n", 7,
      "not an initial datum" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\ncolour = red\n", 7,
      "unknown key" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nquestion = q\n"
      "choices = a;b\nanswer = 3\nquantity = x\nat = 1\ncheck = < 1\n",
      9, "from 1 to 2" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nquestion = q\n"
      "choices = a;b\nanswer = 1\nquantity = x\nat = 1\ncheck = about 1\n",
      12, "check" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nquestion = q\n"
      "answer = 1\nquantity = speed\nat = 1\n",
      9, "not a quantity" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nanswer = 1\n", 7,
      "without a question" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[slide 1]\n", 4, "unknown group" },
    /* a student's copy: "?" for a hidden parameter only, and then its recorded motion */
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = capri-kobayashi\nparam.m2 = ?\n", 7,
      "only a hidden parameter" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = capri-kobayashi\nhidden = m2\n"
      "param.m2 = ?\n",
      4, "recorded motion" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\ncopy = teacher\n[step 1]\ncaption = c\nmodel = rolling-ball\n", 4,
      "copy = student" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = capri-kobayashi\nhidden = m2\n"
      "param.m2 = ?\nmotion = bad.csv\n",
      9, "must increase" },
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\ncopy = student\n[step 1]\ncaption = c\nmodel = capri-kobayashi\n"
      "hidden = m2\nparam.m2 = ?\nmotion = m.csv\nquestion = q\nchoices = a;b\nquantity = rho\nat = 0.5\n",
      10, "has no rho" },
    /* only a student's copy leaves the answer out */
    { "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\nmodel = rolling-ball\nquestion = q\n"
      "choices = a;b\nquantity = x\nat = 1\n",
      1, "answer" },
  };
  g_autofree char *tmpdir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "bad.cmllesson", NULL);
  g_autofree char *motion = g_build_filename (tmpdir, "m.csv", NULL);
  g_autofree char *bad_motion = g_build_filename (tmpdir, "bad.csv", NULL);

  g_assert_true (g_file_set_contents (motion, "# recorded\nt,pr,energy\n0,1.5,1\n1,2.5,1\n", -1, NULL));
  g_assert_true (g_file_set_contents (bad_motion, "t,pr\n1,1\n0,2\n", -1, NULL));
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *want_prefix = g_strdup_printf ("%s:%d: ", path, cases[k].line);
      g_assert_true (g_file_set_contents (path, cases[k].text, -1, NULL));
      g_autoptr (CmlLesson) lesson = cml_lesson_load (path, &error);
      g_assert_null (lesson);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, want_prefix));
      g_assert_nonnull (strstr (error->message, cases[k].want));
    }
  g_remove (path);
  g_remove (motion);
  g_remove (bad_motion);
  g_rmdir (tmpdir);
}

/* a student's copy: questions without answers, a hidden parameter written "?", its step's
 * motion recorded beside it; read, saved and read again the same */
static void
test_student_copy (void)
{
  g_autofree char *tmpdir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "s.cmllesson", NULL);
  g_autofree char *copy = g_build_filename (tmpdir, "copy.cmllesson", NULL);
  g_autofree char *motion = g_build_filename (tmpdir, "step-1.csv", NULL);
  g_autoptr (GError) error = NULL;
  double value;
  gboolean right = TRUE;

  g_assert_true (g_file_set_contents (motion, "# recorded\nt,pr,rho\n0,1.5,1\n1,2.5,0.5\n2,2.5,0.25\n", -1, NULL));
  g_assert_true (g_file_set_contents (path,
                                      "[lesson]\nformat = cmlab-lesson 1\ntitle = t\ncopy = student\n"
                                      "[step 1]\ncaption = c\nmodel = capri-kobayashi\nhidden = m2\nparam.m2 = ?\n"
                                      "motion = step-1.csv\nquestion = q\nchoices = a;b\nquantity = pr\nat = 0.5\n"
                                      "[step 2]\ncaption = d\nmodel = capri-kobayashi\nquestion = how far?\nunit = m\n"
                                      "quantity = rho\nat = 1\n",
                                      -1, NULL));
  for (int pass = 0; pass < 2; pass++)
    {
      g_autoptr (CmlLesson) lesson = cml_lesson_load (pass ? copy : path, &error);
      g_assert_no_error (error);
      g_assert_true (lesson->student);
      CmlLessonStep *st = lesson->steps->pdata[0], *st2 = lesson->steps->pdata[1];
      g_assert_cmpuint (g_strv_length (st->unknown), ==, 1);
      g_assert_cmpstr (st->unknown[0], ==, "m2");
      g_assert_false (g_hash_table_contains (st->params, "m2"));
      g_assert_cmpstr (st->motion_ref, ==, "step-1.csv");
      g_assert_nonnull (st->motion);
      g_assert_cmpuint (st->motion->n_rows, ==, 3);
      g_assert_cmpint (st->prediction.kind, ==, CML_PREDICTION_CHOICE);
      g_assert_true (st->prediction.no_answer);
      /* the outcome read from the motion, between its rows; no answer to judge */
      g_assert_true (cml_lesson_step_outcome (st, &value, &right, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (value, ==, 2.0);
      g_assert_false (right);
      /* the step cannot run without the hidden value */
      g_assert_null (cml_lesson_step_simulation (st, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "m2"));
      g_clear_error (&error);
      /* a number question without its answer: runs */
      g_assert_cmpint (st2->prediction.kind, ==, CML_PREDICTION_NUMBER);
      g_assert_true (st2->prediction.no_answer);
      g_assert_cmpstr (st2->prediction.unit, ==, "m");
      g_assert_true (cml_lesson_step_outcome (st2, &value, &right, &error));
      g_assert_no_error (error);
      g_assert_false (right);
      if (pass == 0)
        {
          g_assert_true (cml_lesson_save (lesson, copy, &error));
          g_assert_no_error (error);
        }
    }
  /* the value at a row's own time, and outside the rows none */
  {
    g_autoptr (CmlLessonMotion) m = cml_lesson_motion_load (motion, &error);
    g_assert_no_error (error);
    g_assert_true (cml_lesson_motion_value (m, "rho", 1, &value));
    g_assert_cmpfloat (value, ==, 0.5);
    g_assert_true (cml_lesson_motion_value (m, "rho", 2, &value));
    g_assert_cmpfloat (value, ==, 0.25);
    g_assert_false (cml_lesson_motion_value (m, "rho", 2.5, &value));
    g_assert_false (cml_lesson_motion_value (m, "x", 1, &value));
  }
  {
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (copy, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "param.m2=?"));
    g_assert_null (strstr (text, "answer"));
  }
  g_remove (copy);
  g_remove (path);
  g_remove (motion);
  g_rmdir (tmpdir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lesson/shipped", test_shipped);
  g_test_add_func ("/lesson/wrong-answer", test_wrong_answer);
  g_test_add_func ("/lesson/round-trip", test_round_trip);
  g_test_add_func ("/lesson/malformed", test_malformed);
  g_test_add_func ("/lesson/student-copy", test_student_copy);
  return g_test_run ();
}
