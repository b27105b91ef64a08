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

/* every shipped lesson: loads, and each prediction's answer is what the run gives */
static void
test_shipped (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n_lessons = 0, n_predictions = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = NULL;

      if (!g_str_has_suffix (name, ".cmllesson"))
        continue;
      path = g_build_filename (dir, name, NULL);
      lesson = cml_lesson_load (path, &error);
      g_assert_no_error (error);
      n_lessons++;
      for (guint k = 0; k < lesson->steps->len; k++)
        {
          CmlLessonStep *st = lesson->steps->pdata[k];
          double value;
          gboolean right;
          if (st->prediction.kind == CML_PREDICTION_NONE)
            continue;
          g_assert_true (cml_lesson_step_outcome (st, &value, &right, &error));
          g_assert_no_error (error);
          g_test_message ("%s, step %u: %s = %.9g at t = %g: %s", name, k + 1, st->prediction.quantity, value,
                          st->prediction.at, right ? "the answer holds" : "THE ANSWER DOES NOT HOLD");
          g_assert_true (right);
          n_predictions++;
        }
    }
  g_assert_cmpuint (n_lessons, >=, 1);
  g_assert_cmpuint (n_predictions, >=, 2);
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
  };
  g_autofree char *tmpdir = g_dir_make_tmp ("cmlab-lesson-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmpdir, "bad.cmllesson", NULL);

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
  return g_test_run ();
}
