/* test-lesson-cli.c — `cmlab-cli lesson check|show|export`, run as a person runs them: every
 * shipped lesson checks (and a changed answer is caught); show prints the questions and
 * keeps the answers for --answers; the students' copy of every shipped lesson holds none
 * of the answers, hidden values, notes or afterwards texts anywhere in its bytes, opens,
 * and runs; export never writes into a folder that is not empty, and refuses (leaving
 * nothing) a lesson whose caption names its hidden value.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-lesson-cli"

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "cli-util.h"
#include "cml-lesson.h"

static char *
lessons_dir (void)
{
  return g_test_build_filename (G_TEST_DIST, "..", "lessons", NULL);
}

/* the shipped lessons' paths */
static GPtrArray *
shipped (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".cmllesson"))
      g_ptr_array_add (paths, g_build_filename (dir, name, NULL));
  g_assert_cmpuint (paths->len, >=, 3);
  return paths;
}

static guint
count (const char *text, const char *what)
{
  guint n = 0;
  for (const char *p = text; (p = strstr (p, what)) != NULL; p += strlen (what))
    n++;
  return n;
}

/* every shipped lesson: each step walked, each answer holds, exit 0 */
static void
test_check_shipped (void)
{
  g_autoptr (GPtrArray) paths = shipped ();

  for (guint k = 0; k < paths->len; k++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = cml_lesson_load (paths->pdata[k], &error);
      g_assert_no_error (error);
      int status = cli_run (&out, &err, "lesson", "check", (char *) paths->pdata[k], NULL);
      g_test_message ("%s", out);
      g_assert_cmpint (status, ==, 0);
      for (guint s = 0; s < lesson->steps->len; s++)
        {
          g_autofree char *line = g_strdup_printf ("step %u (", s + 1);
          g_assert_nonnull (strstr (out, line));
        }
      g_assert_nonnull (strstr (out, "every answer holds"));
      g_assert_null (strstr (out, "DOES NOT"));
    }
}

/* an answer changed in a copy: check says which and exits 1 */
static void
test_check_wrong (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autofree char *src = g_build_filename (dir, "singular-lagrangian.cmllesson", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  g_autofree char *copy = g_build_filename (tmp, "wrong.cmllesson", NULL);
  g_autofree char *text = NULL, *out = NULL;
  char *p;

  g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
  p = strstr (text, "answer = 0.866\n");
  g_assert_nonnull (p);
  memcpy (p, "answer = 0.906\n", strlen ("answer = 0.906\n"));
  g_assert_true (g_file_set_contents (copy, text, -1, NULL));
  g_assert_cmpint (cli_run (&out, NULL, "lesson", "check", copy, NULL), ==, 1);
  g_test_message ("%s", out);
  g_assert_cmpuint (count (out, "IT DOES NOT HOLD"), ==, 1);
  g_assert_nonnull (strstr (out, "1 answers do not hold"));
  g_remove (copy);
  g_rmdir (tmp);
}

/* show: captions and questions; the answers, afterwards, notes and hidden values only with --answers */
static void
test_show (void)
{
  g_autoptr (GPtrArray) paths = shipped ();

  for (guint k = 0; k < paths->len; k++)
    {
      g_autofree char *out = NULL, *with = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = cml_lesson_load (paths->pdata[k], &error);
      g_assert_no_error (error);
      g_assert_cmpint (cli_run (&out, NULL, "lesson", "show", (char *) paths->pdata[k], NULL), ==, 0);
      g_assert_cmpint (cli_run (&with, NULL, "lesson", "show", (char *) paths->pdata[k], "--answers", NULL), ==, 0);
      g_assert_nonnull (strstr (out, lesson->title));
      g_assert_null (strstr (out, "Answer:"));
      for (guint s = 0; s < lesson->steps->len; s++)
        {
          CmlLessonStep *st = lesson->steps->pdata[s];
          g_assert_nonnull (strstr (out, st->caption));
          if (st->notes)
            {
              g_assert_null (strstr (out, st->notes));
              g_assert_nonnull (strstr (with, st->notes));
            }
          if (st->prediction.kind == CML_PREDICTION_NONE)
            continue;
          g_assert_nonnull (strstr (out, st->prediction.question));
          for (guint c = 0; st->prediction.choices && st->prediction.choices[c]; c++)
            g_assert_nonnull (strstr (out, st->prediction.choices[c]));
          if (st->prediction.afterwards)
            {
              g_assert_null (strstr (out, st->prediction.afterwards));
              g_assert_nonnull (strstr (with, st->prediction.afterwards));
            }
        }
      g_assert_cmpuint (count (with, "Answer:"), >=, 1);
    }
}

/* ---- the students' copy ---------------------------------------------------------------- */

/* V as a person could write it back: %.17g and every shorter %.Ng that reads back as V,
 * with a decimal point or a decimal comma */
static GPtrArray *
forms_of (double v)
{
  GPtrArray *forms = g_ptr_array_new_with_free_func (g_free);
  for (int n = 1; n <= 17; n++)
    {
      char buf[64];
      g_autofree char *fmt = g_strdup_printf ("%%.%dg", n);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if (n < 17 && g_ascii_strtod (buf, NULL) != v)
        continue;
      g_ptr_array_add (forms, g_strdup (buf));
      g_ptr_array_add (forms, g_strdelimit (g_strdup (buf), ".", ','));
    }
  return forms;
}

/* FORM in DATA as a whole number: no digit touches it on either side, nor a decimal point
 * or comma that continues a number */
static gboolean
has_number (const char *data, gsize len, const char *form)
{
  gsize fl = strlen (form);
  for (gsize i = 0; i + fl <= len; i++)
    {
      if (memcmp (data + i, form, fl) != 0)
        continue;
      gboolean before = i > 0 && (g_ascii_isdigit (data[i - 1])
                                  || ((data[i - 1] == '.' || data[i - 1] == ',') && i > 1 && g_ascii_isdigit (data[i - 2])));
      gboolean after = i + fl < len && (g_ascii_isdigit (data[i + fl]) || data[i + fl] == 'e' || data[i + fl] == 'E'
                                        || (data[i + fl] == '.' && i + fl + 1 < len && g_ascii_isdigit (data[i + fl + 1])));
      if (!before && !after)
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_text (const char *data, gsize len, const char *text)
{
  return g_strstr_len (data, (gssize) len, text) != NULL;
}

/* the teacher's secrets of LESSON: numbers (hidden values, number answers) and texts */
static void
secrets_of (const CmlLesson *lesson, GArray *numbers, GPtrArray *texts)
{
  for (guint s = 0; s < lesson->steps->len; s++)
    {
      CmlLessonStep *st = lesson->steps->pdata[s];
      GHashTableIter it;
      gpointer key, val;
      for (guint h = 0; st->hidden[h]; h++)
        {
          double *v = g_hash_table_lookup (st->params, st->hidden[h]);
          double x = v ? *v : cml_model_find_param (st->model, st->hidden[h])->value;
          g_array_append_val (numbers, x);
        }
      if (st->prediction.kind == CML_PREDICTION_NUMBER)
        g_array_append_val (numbers, st->prediction.value);
      if (st->notes)
        g_ptr_array_add (texts, st->notes);
      if (st->prediction.afterwards)
        g_ptr_array_add (texts, st->prediction.afterwards);
      g_hash_table_iter_init (&it, st->translations);
      while (g_hash_table_iter_next (&it, &key, &val))
        if (g_str_has_prefix (key, "notes[") || g_str_has_prefix (key, "afterwards["))
          g_ptr_array_add (texts, val);
    }
}

/* every byte of every file of the copy: none of the secrets */
static void
assert_no_secret (const char *dir, GArray *numbers, GPtrArray *texts)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n_files = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *data = NULL;
      gsize len;
      g_assert_true (g_file_get_contents (path, &data, &len, NULL));
      n_files++;
      for (guint k = 0; k < numbers->len; k++)
        {
          g_autoptr (GPtrArray) forms = forms_of (g_array_index (numbers, double, k));
          for (guint f = 0; f < forms->len; f++)
            {
              if (has_number (data, len, forms->pdata[f]))
                g_error ("%s holds the secret number %s", path, (char *) forms->pdata[f]);
            }
        }
      for (guint k = 0; k < texts->len; k++)
        if (has_text (data, len, texts->pdata[k]))
          g_error ("%s holds the secret text “%s”", path, (char *) texts->pdata[k]);
      /* no key that only the teacher's lesson has */
      if (g_str_has_suffix (name, ".cmllesson"))
        {
          g_auto (GStrv) lines = g_strsplit (data, "\n", -1);
          for (guint l = 0; lines[l]; l++)
            for (const char *const *key = (const char *const[]) { "answer", "tolerance", "check", "afterwards", "notes", NULL };
                 *key; key++)
              g_assert_false (g_str_has_prefix (lines[l], *key)
                              && (lines[l][strlen (*key)] == '=' || lines[l][strlen (*key)] == ' '
                                  || lines[l][strlen (*key)] == '['));
        }
    }
  g_assert_cmpuint (n_files, >=, 1);
}

static void
test_export_shipped (void)
{
  g_autoptr (GPtrArray) paths = shipped ();
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  guint n_hidden = 0, n_numbers = 0;

  for (guint k = 0; k < paths->len; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = cml_lesson_load (paths->pdata[k], &error);
      g_autoptr (GArray) numbers = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GPtrArray) texts = g_ptr_array_new ();
      g_autofree char *base = g_path_get_basename (paths->pdata[k]);
      g_autofree char *dir = g_build_filename (tmp, base, NULL);
      g_autofree char *copy_path = g_build_filename (dir, base, NULL);
      g_autofree char *out = NULL, *err = NULL, *teacher = NULL, *check = NULL;
      gsize teacher_len;

      g_assert_no_error (error);
      secrets_of (lesson, numbers, texts);
      n_numbers += numbers->len;
      /* the grep finds them where they are: in the teacher's lesson */
      g_assert_true (g_file_get_contents (paths->pdata[k], &teacher, &teacher_len, NULL));
      for (guint t = 0; t < texts->len; t++)
        g_assert_true (has_text (teacher, teacher_len, texts->pdata[t]));
      for (guint s = 0; s < lesson->steps->len; s++)
        {
          CmlLessonStep *st = lesson->steps->pdata[s];
          for (guint h = 0; st->hidden[h]; h++)
            {
              char buf[64];
              g_ascii_formatd (buf, sizeof buf, "%.15g", *(double *) g_hash_table_lookup (st->params, st->hidden[h]));
              g_assert_true (has_number (teacher, teacher_len, buf));
              n_hidden++;
            }
        }

      g_assert_cmpint (cli_run (&out, &err, "lesson", "export", (char *) paths->pdata[k], "--student", "-o", dir, NULL), ==,
                       0);
      g_test_message ("%s%s", out, err);
      assert_no_secret (dir, numbers, texts);

      /* the copy opens, walks and plays every step */
      g_autoptr (CmlLesson) copy = cml_lesson_load (copy_path, &error);
      g_assert_no_error (error);
      g_assert_true (copy->student);
      g_assert_cmpuint (copy->steps->len, ==, lesson->steps->len);
      for (guint s = 0; s < copy->steps->len; s++)
        {
          CmlLessonStep *st = copy->steps->pdata[s], *orig = lesson->steps->pdata[s];
          g_assert_cmpstr (st->caption, ==, orig->caption);
          g_assert_null (st->notes);
          g_assert_cmpint (st->prediction.kind, ==, orig->prediction.kind);
          g_assert_cmpstr (st->prediction.question, ==, orig->prediction.question);
          g_assert_true (st->prediction.kind == CML_PREDICTION_NONE || st->prediction.no_answer);
          g_assert_null (st->prediction.afterwards);
          g_assert_cmpuint (g_strv_length (st->unknown), ==, g_strv_length (orig->hidden));
          g_assert_true (orig->hidden[0] == NULL || st->motion != NULL);
          if (st->prediction.kind != CML_PREDICTION_NONE)
            {
              /* the outcome in the copy is the teacher's */
              double a, b;
              gboolean right;
              g_assert_true (cml_lesson_step_outcome (st, &a, &right, &error));
              g_assert_no_error (error);
              g_assert_true (cml_lesson_step_outcome (orig, &b, &right, &error));
              g_assert_no_error (error);
              g_assert_cmpfloat_with_epsilon (a, b, 1e-9 * (1 + fabs (b)));
            }
        }
      g_assert_cmpint (cli_run (&check, NULL, "lesson", "check", copy_path, NULL), ==, 0);
      test_tmp_remove (dir);
    }
  /* the shipped lessons hide a value and ask for numbers */
  g_assert_cmpuint (n_hidden, >=, 1);
  g_assert_cmpuint (n_numbers, >=, 3);
  g_rmdir (tmp);
}

/* a folder that is not empty is never written into; nor is a file */
static void
test_export_not_empty (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autofree char *src = g_build_filename (dir, "turning-table.cmllesson", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  g_autofree char *mine = g_build_filename (tmp, "mine.txt", NULL);
  g_autofree char *err = NULL, *err2 = NULL, *kept = NULL;

  g_assert_true (g_file_set_contents (mine, "keep me", -1, NULL));
  g_assert_cmpint (cli_run (NULL, &err, "lesson", "export", src, "--student", "-o", tmp, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "not empty"));
  g_assert_true (g_file_get_contents (mine, &kept, NULL, NULL));
  g_assert_cmpstr (kept, ==, "keep me");
  {
    g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
    g_assert_cmpstr (g_dir_read_name (d), ==, "mine.txt");
    g_assert_null (g_dir_read_name (d));
  }
  g_assert_cmpint (cli_run (NULL, &err2, "lesson", "export", src, "--student", "-o", mine, NULL), ==, 2);
  g_assert_nonnull (strstr (err2, "not a folder"));
  g_remove (mine);
  g_rmdir (tmp);
}

/* a caption that names the hidden value: refused, nothing left behind */
static void
test_export_leak (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmp, "leak.cmllesson", NULL);
  g_autofree char *dir = g_build_filename (tmp, "copy", NULL);
  g_autofree char *err = NULL;

  g_assert_true (g_file_set_contents (path,
                                      "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\n"
                                      "caption = Particle 2 weighs 1.35 kg.\nmodel = capri-kobayashi\nparam.m2 = 1.35\n"
                                      "hidden = m2\nt-end = 1\n",
                                      -1, NULL));
  g_assert_cmpint (cli_run (NULL, &err, "lesson", "export", path, "--student", "-o", dir, NULL), ==, 1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "1.35"));
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_remove (path);
  g_rmdir (tmp);
}

/* a time no run reaches: refused at once, by check and by export (which leaves nothing) */
static void
test_far_time (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (tmp, "far.cmllesson", NULL);
  g_autofree char *dir = g_build_filename (tmp, "copy", NULL);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_true (g_file_set_contents (path,
                                      "[lesson]\nformat = cmlab-lesson 1\ntitle = t\n[step 1]\ncaption = c\n"
                                      "model = rolling-ball\nhidden = Omega\nt-end = 1e300\nquestion = q\nunit = m\n"
                                      "answer = 1\nquantity = x\nat = 1e300\n",
                                      -1, NULL));
  g_assert_cmpint (cli_run_timed (120, &out, NULL, "lesson", "check", path, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "out of reach"));
  g_assert_cmpint (cli_run_timed (120, NULL, &err, "lesson", "export", path, "--student", "-o", dir, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "out of reach"));
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  g_remove (path);
  g_rmdir (tmp);
}

static void
test_usage (void)
{
  g_autofree char *dir = lessons_dir ();
  g_autofree char *src = g_build_filename (dir, "turning-table.cmllesson", NULL);
  g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;

  g_assert_cmpint (cli_run (NULL, &e1, "lesson", NULL), ==, 2);
  g_assert_cmpint (cli_run (NULL, &e2, "lesson", "teach", src, NULL), ==, 2);
  g_assert_cmpint (cli_run (NULL, &e3, "lesson", "export", src, "-o", "/nonexistent-cmlab-dir", NULL), ==, 2);
  g_assert_nonnull (strstr (e3, "--student"));
  g_assert_cmpint (cli_run (NULL, &e4, "lesson", "check", "/nonexistent/x.cmllesson", NULL), ==, 2);
  g_assert_nonnull (strstr (e4, "/nonexistent/x.cmllesson"));
}

#ifdef CMLAB_HAVE_RENDER
/* collapses every run of white space to one space */
static char *
squeeze (const char *text)
{
  GString *out = g_string_new (NULL);
  for (const char *p = text; *p; p++)
    if (g_ascii_isspace (*p))
      {
        if (out->len && out->str[out->len - 1] != ' ')
          g_string_append_c (out, ' ');
      }
    else
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* the worksheet: a PDF with a page for each step, its question on it, no answer */
static void
test_handout (void)
{
  g_autoptr (GPtrArray) paths = shipped ();
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-lesson-cli-XXXXXX", NULL);
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");

  if (pdftotext == NULL)
    g_test_message ("pdftotext is not installed: the pages are counted in the PDF itself, the questions not read");
  for (guint k = 0; k < paths->len; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlLesson) lesson = cml_lesson_load (paths->pdata[k], &error);
      g_autofree char *pdf = g_build_filename (tmp, "handout.pdf", NULL);
      g_autofree char *out = NULL, *err = NULL, *data = NULL;
      gsize len;

      g_assert_no_error (error);
      g_assert_cmpint (cli_run (&out, &err, "lesson", "handout", (char *) paths->pdata[k], "-o", pdf, NULL), ==, 0);
      g_assert_true (g_file_get_contents (pdf, &data, &len, NULL));
      g_assert_true (len > 4 && memcmp (data, "%PDF", 4) == 0);
      {
        /* page objects: "/Type /Page" not followed by 's' */
        guint pages = 0;
        const char *key = "/Type /Page";
        for (gsize i = 0; i + strlen (key) < len; i++)
          pages += memcmp (data + i, key, strlen (key)) == 0 && data[i + strlen (key)] != 's';
        g_assert_cmpuint (pages, ==, lesson->steps->len);
      }
      if (pdftotext)
        {
          g_autofree char *text = NULL;
          const char *argv[] = { pdftotext, "-enc", "UTF-8", pdf, "-", NULL };
          int status;
          g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &text, NULL,
                                       &status, NULL));
          g_assert_true (g_spawn_check_wait_status (status, NULL));
          g_auto (GStrv) pages = g_strsplit (text, "\f", -1);
          /* a form feed after each page */
          g_assert_cmpuint (g_strv_length (pages), ==, lesson->steps->len + 1);
          for (guint s = 0; s < lesson->steps->len; s++)
            {
              CmlLessonStep *st = lesson->steps->pdata[s];
              g_autofree char *page = squeeze (pages[s]);
              g_autofree char *head = g_strdup_printf ("step %u of %u", s + 1, lesson->steps->len);
              g_autofree char *caption = squeeze (st->caption);
              /* the caption's opening words (pdftotext spaces out combining accents, as q̇) */
              gsize n = 0;
              while (caption[n] && n < 30 && !(caption[n] & 0x80))
                n++;
              caption[n] = '\0';
              g_assert_cmpuint (n, >=, 3);
              g_assert_nonnull (strstr (page, head));
              g_assert_nonnull (strstr (page, caption));
              if (st->prediction.kind != CML_PREDICTION_NONE)
                {
                  g_autofree char *question = squeeze (st->prediction.question);
                  g_assert_nonnull (strstr (page, question));
                  for (guint c = 0; st->prediction.choices && st->prediction.choices[c]; c++)
                    {
                      g_autofree char *choice = squeeze (st->prediction.choices[c]);
                      g_assert_nonnull (strstr (page, choice));
                    }
                }
              if (st->notes)
                g_assert_null (strstr (text, st->notes));
              if (st->prediction.afterwards)
                {
                  g_autofree char *after = squeeze (st->prediction.afterwards);
                  g_autofree char *all = squeeze (text);
                  g_assert_null (strstr (all, after));
                }
            }
        }
      g_remove (pdf);
    }
  g_rmdir (tmp);
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lesson-cli/check-shipped", test_check_shipped);
  g_test_add_func ("/lesson-cli/check-wrong", test_check_wrong);
  g_test_add_func ("/lesson-cli/show", test_show);
  g_test_add_func ("/lesson-cli/export-shipped", test_export_shipped);
  g_test_add_func ("/lesson-cli/export-not-empty", test_export_not_empty);
  g_test_add_func ("/lesson-cli/export-leak", test_export_leak);
  g_test_add_func ("/lesson-cli/usage", test_usage);
  g_test_add_func ("/lesson-cli/far-time", test_far_time);
#ifdef CMLAB_HAVE_RENDER
  g_test_add_func ("/lesson-cli/handout", test_handout);
#endif
  return g_test_run ();
}
