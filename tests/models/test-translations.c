/* test-translations.c — a model's texts for people are read in the user's language
 * ("title[es] = …", GLib's localized keys), the untranslated text being the fallback, and
 * every built-in model has Spanish for each of them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-translations"

#include <glib/gstdio.h>
#include <string.h>

#include "cml-expr.h"
#include "cml-model.h"

/* The language variables GLib reads (g_get_language_names ()), saved and restored around
 * each test. */
static const char *const lang_vars[] = { "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", NULL };

typedef struct
{
  char *saved[G_N_ELEMENTS (lang_vars)];
} LangEnv;

static void
lang_save (LangEnv *env)
{
  for (guint k = 0; lang_vars[k]; k++)
    env->saved[k] = g_strdup (g_getenv (lang_vars[k]));
}

static void
lang_restore (LangEnv *env)
{
  for (guint k = 0; lang_vars[k]; k++)
    {
      if (env->saved[k])
        g_setenv (lang_vars[k], env->saved[k], TRUE);
      else
        g_unsetenv (lang_vars[k]);
      g_clear_pointer (&env->saved[k], g_free);
    }
}

/* Only LANGUAGE (when not NULL) and LANG say the language. */
static void
lang_set (const char *language, const char *lang)
{
  g_unsetenv ("LC_ALL");
  g_unsetenv ("LC_MESSAGES");
  if (language)
    g_setenv ("LANGUAGE", language, TRUE);
  else
    g_unsetenv ("LANGUAGE");
  if (lang)
    g_setenv ("LANG", lang, TRUE);
  else
    g_unsetenv ("LANG");
}

static CmlModel *
load (const char *name)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

static const CmlPreset *
find_preset (const CmlModel *model, const char *name)
{
  for (guint k = 0; k < model->presets->len; k++)
    if (g_str_equal (((CmlPreset *) model->presets->pdata[k])->name, name))
      return model->presets->pdata[k];
  g_assert_not_reached ();
}

static const CmlSceneObject *
find_scene (const CmlModel *model, const char *name)
{
  for (guint k = 0; k < model->scene->len; k++)
    if (g_str_equal (((CmlSceneObject *) model->scene->pdata[k])->name, name))
      return model->scene->pdata[k];
  g_assert_not_reached ();
}

/* The rolling ball in Spanish with LANGUAGE=es and with LANG=es_ES.UTF-8, in English with
 * LANGUAGE=en; its name and identifiers stay as they are. */
static void
test_rolling_ball (void)
{
  LangEnv env;

  lang_save (&env);
  for (guint round = 0; round < 2; round++)
    {
      if (round == 0)
        lang_set ("es", "C.UTF-8");
      else
        lang_set (NULL, "es_ES.UTF-8");
      g_autoptr (CmlModel) es = load ("rolling-ball");
      g_assert_cmpstr (es->name, ==, "rolling-ball");
      g_assert_cmpstr (es->title, ==, "Bola que rueda sobre una mesa giratoria");
      g_assert_nonnull (strstr (es->about, "roseta"));
      g_assert_cmpstr (cml_model_find_param (es, "r")->meaning, ==, "radio de la bola");
      g_assert_cmpstr (cml_model_find_param (es, "r")->unit, ==, "m");
      g_assert_cmpfloat (cml_model_find_param (es, "r")->max, ==, 10.0);
      g_assert_true (g_str_has_prefix (cml_model_meaning (es, "x"), "coordenada x del punto de contacto"));
      g_assert_cmpstr (cml_model_unit (es, "u"), ==, "m/s");
      g_assert_cmpstr (find_preset (es, "still-table")->title, ==,
                       "Mesa quieta (Ω = 0): el centro se mueve en línea recta");
      g_assert_cmpstr (find_scene (es, "path")->label, ==, "trayectoria del punto de contacto");
    }

  lang_set ("en", "C.UTF-8");
  g_autoptr (CmlModel) en = load ("rolling-ball");
  g_assert_cmpstr (en->title, ==, "Rolling ball on a rotating table");
  g_assert_cmpstr (cml_model_find_param (en, "r")->meaning, ==, "radius of the ball");
  g_assert_true (g_str_has_prefix (cml_model_meaning (en, "x"), "x coordinate of the contact point"));
  g_assert_cmpstr (find_preset (en, "still-table")->title, ==,
                   "Still table (Ω = 0): the centre moves on a straight line");
  g_assert_cmpstr (find_scene (en, "path")->label, ==, "path of the contact point");

  /* a language the file does not have gives the untranslated texts */
  lang_set ("fr", "C.UTF-8");
  g_autoptr (CmlModel) fr = load ("rolling-ball");
  g_assert_cmpstr (fr->title, ==, en->title);
  lang_restore (&env);
}

static const char user_model[] =
  "# a user's model with translations\n"
  "[model]\n"
  "name = spring\n"
  "title = Mass on a spring\n"
  "title[es] = Masa en un muelle\n"
  "title[es_AR] = Masa en un resorte\n"
  "about = It swings.\n"
  "about[es] = Oscila.\n"
  "\n"
  "[parameters]\n"
  "k = 1 | 0.1 .. 10 | N/m | stiffness of the spring\n"
  "k[es] = rigidez del muelle\n"
  "m = 1 | 0.1 .. 10 | kg | mass\n"
  "\n"
  "[algebroid]\n"
  "base = x\n"
  "fibre = v\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = m*v^2/2 - k*x^2/2\n"
  "\n"
  "[initial]\n"
  "x = 1\n"
  "\n"
  "[meanings]\n"
  "x = stretch of the spring\n"
  "x[es] = alargamiento del muelle\n"
  "\n"
  "[preset stiff]\n"
  "title = Stiff spring\n"
  "title[es] = Muelle rígido\n"
  "k = 5\n"
  "\n"
  "[scene bob]\n"
  "type = point\n"
  "label = the mass\n"
  "label[es] = la masa\n"
  "position = x, 0, 0\n";

/* The text of user_model with "\r\n" line ends when CRLF (which GKeyFile reads). */
static char *
write_user_model (const char *dir, const char *file, gboolean crlf)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *text = NULL;

  if (crlf)
    {
      g_auto (GStrv) lines = g_strsplit (user_model, "\n", -1);
      text = g_strjoinv ("\r\n", lines);
    }
  else
    text = g_strdup (user_model);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return g_steal_pointer (&path);
}

static void
assert_user_model (const char *path, const char *title, const char *k_meaning, const char *x_meaning,
                   const char *preset, const char *label)
{
  g_autoptr (CmlModel) model = load (path);
  g_assert_cmpstr (model->name, ==, "spring");
  g_assert_cmpstr (model->title, ==, title);
  g_assert_cmpstr (cml_model_find_param (model, "k")->meaning, ==, k_meaning);
  g_assert_cmpstr (cml_model_find_param (model, "m")->meaning, ==, "mass");
  g_assert_cmpstr (cml_model_meaning (model, "x"), ==, x_meaning);
  g_assert_cmpstr (find_preset (model, "stiff")->title, ==, preset);
  g_assert_cmpfloat (*(double *) g_hash_table_lookup (find_preset (model, "stiff")->values, "k"), ==, 5.0);
  g_assert_cmpuint (g_hash_table_size (find_preset (model, "stiff")->values), ==, 1);
  g_assert_cmpstr (find_scene (model, "bob")->label, ==, label);
}

/* A user's model file with title[es] in a temporary directory, read by the line map and
 * (with CRLF line ends) by GKeyFile alike; the most specific language wins. */
static void
test_user_model (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cmlab-translations-XXXXXX", NULL);
  LangEnv env;

  g_assert_nonnull (dir);
  lang_save (&env);
  for (guint crlf = 0; crlf < 2; crlf++)
    {
      g_autofree char *path = write_user_model (dir, crlf ? "spring-crlf.cml" : "spring.cml", crlf);

      lang_set ("es", "C.UTF-8");
      assert_user_model (path, "Masa en un muelle", "rigidez del muelle", "alargamiento del muelle",
                         "Muelle rígido", "la masa");
      lang_set (NULL, "es_ES.UTF-8");
      assert_user_model (path, "Masa en un muelle", "rigidez del muelle", "alargamiento del muelle",
                         "Muelle rígido", "la masa");
      lang_set (NULL, "es_AR.UTF-8");
      assert_user_model (path, "Masa en un resorte", "rigidez del muelle", "alargamiento del muelle",
                         "Muelle rígido", "la masa");
      lang_set ("en", "C.UTF-8");
      assert_user_model (path, "Mass on a spring", "stiffness of the spring", "stretch of the spring",
                         "Stiff spring", "the mass");
      lang_set (NULL, "C");
      assert_user_model (path, "Mass on a spring", "stiffness of the spring", "stretch of the spring",
                         "Stiff spring", "the mass");
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  lang_restore (&env);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Whether KEY of GROUP is a text for people (what a model file may translate; doc/model-format.md). */
static gboolean
is_text_key (const char *group, const char *key)
{
  static const char *const model_texts[] = { "title", "description", "about", "source", "errata", NULL };

  if (strchr (key, '[') != NULL)
    return FALSE;
  if (g_str_equal (group, "model"))
    return g_strv_contains (model_texts, key);
  if (g_str_equal (group, "parameters") || g_str_equal (group, "meanings") || g_str_equal (group, "labels"))
    return TRUE;
  if (g_str_has_prefix (group, "preset "))
    return g_str_equal (key, "title");
  if (g_str_has_prefix (group, "scene "))
    return g_str_equal (key, "label");
  return FALSE;
}

/* Every built-in model gives KEY[es] for each text for people it gives in English, and a
 * Spanish that is not the English copied; read with GKeyFile, independently of cmlab's
 * reader, and then loaded in Spanish: every text read differs from the English one. */
/* The presets' titles are read in the window's list: names typeset as the panel shows them
 * (k², Ω, σ, x₁), never as typed in a file (k2 = 2 r^2/5, Omega, sigma, sqrt(2), x1), in
 * English and in Spanish. */
static void
test_preset_titles_typeset (void)
{
  static const char *const ascii[] = { "^", "*", "sqrt", "Omega", "sigma", "rho", "theta", " nu ", "(nu ",
                                       "k2", "x1", "I1", "I2", "I3", "W3", NULL };
  g_auto (GStrv) names = cml_model_list_builtin ();
  static const char *const languages[] = { "en", "es" };
  LangEnv env;
  guint n = 0;

  lang_save (&env);
  for (guint l = 0; l < G_N_ELEMENTS (languages); l++)
    {
      lang_set (languages[l], l ? "es_ES.UTF-8" : "C.UTF-8");
      for (guint k = 0; names[k]; k++)
        {
          g_autoptr (CmlModel) model = load (names[k]);

          for (guint i = 0; i < model->presets->len; i++)
            {
              const CmlPreset *pr = model->presets->pdata[i];

              for (guint a = 0; ascii[a]; a++)
                if (strstr (pr->title, ascii[a]))
                  g_error ("%s, preset %s (%s): “%s” writes “%s” as in a file", names[k], pr->name, languages[l],
                           pr->title, ascii[a]);
              n++;
            }
        }
    }
  lang_restore (&env);
  g_assert_cmpuint (n, >=, 20);
}

static void
test_builtin_complete (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  LangEnv env;
  guint n_texts = 0;

  g_assert_cmpuint (g_strv_length (names), >=, 10);
  lang_save (&env);
  for (guint k = 0; names[k]; k++)
    {
      g_autofree char *file = g_strconcat (names[k], ".cml", NULL);
      g_autofree char *path = g_build_filename (cml_model_builtin_dir (), file, NULL);
      g_autoptr (GKeyFile) kf = g_key_file_new ();
      g_autoptr (GError) error = NULL;

      g_assert_true (g_key_file_load_from_file (kf, path, G_KEY_FILE_KEEP_TRANSLATIONS, &error));
      g_assert_no_error (error);
      g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
      for (guint g = 0; groups[g]; g++)
        {
          g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
          for (guint j = 0; keys[j]; j++)
            {
              if (!is_text_key (groups[g], keys[j]))
                continue;
              g_autofree char *english = g_key_file_get_value (kf, groups[g], keys[j], NULL);
              if (g_str_equal (groups[g], "parameters"))
                {
                  /* the meaning is the fourth field */
                  g_auto (GStrv) fields = g_strsplit (english, "|", 4);
                  g_free (english);
                  english = g_strstrip (g_strdup (g_strv_length (fields) == 4 ? fields[3] : ""));
                }
              if (*english == '\0')
                continue;
              g_autofree char *es_key = g_strconcat (keys[j], "[es]", NULL);
              g_autofree char *spanish = g_key_file_get_value (kf, groups[g], es_key, NULL);
              if (spanish == NULL)
                g_error ("%s: [%s] gives “%s = %s” with no Spanish (%s = …)", path, groups[g], keys[j], english,
                         es_key);
              if (strlen (english) > 12 && g_str_equal (english, spanish))
                g_error ("%s: [%s] %s: the Spanish is the English: %s", path, groups[g], es_key, spanish);
              n_texts++;
            }
        }

      /* and as cmlab reads it */
      lang_set ("en", "C.UTF-8");
      g_autoptr (CmlModel) en = load (names[k]);
      lang_set ("es", "C.UTF-8");
      g_autoptr (CmlModel) es = load (names[k]);
      g_assert_cmpstr (es->name, ==, en->name);
      g_assert_cmpstr (es->title, !=, en->title);
      g_assert_cmpstr (es->citation, ==, en->citation);
      for (guint p = 0; p < en->params->len; p++)
        {
          const CmlParam *pe = en->params->pdata[p], *ps = es->params->pdata[p];
          g_assert_cmpstr (pe->name, ==, ps->name);
          g_assert_cmpstr (pe->unit, ==, ps->unit);
          if (*pe->meaning)
            g_assert_cmpstr (ps->meaning, !=, pe->meaning);
        }
      for (guint p = 0; p < en->presets->len; p++)
        g_assert_cmpstr (((CmlPreset *) es->presets->pdata[p])->title, !=,
                         ((CmlPreset *) en->presets->pdata[p])->title);
      for (guint p = 0; p < en->scene->len; p++)
        {
          const char *le = ((CmlSceneObject *) en->scene->pdata[p])->label;
          const char *ls = ((CmlSceneObject *) es->scene->pdata[p])->label;
          if (le)
            g_assert_cmpstr (ls, !=, le);
        }
    }
  lang_restore (&env);
  /* the ten built-in models have some three hundred texts */
  g_assert_cmpuint (n_texts, >, 250);
}

/* Whether NAME is a word rather than a symbol ("energy", "table_speed"; not "x1", "Cx",
 * "theta", which the plots typeset as θ): a name a plot would show in English. */
static gboolean
is_word (const char *name)
{
  g_autofree char *pretty = cml_expr_pretty_name (name, FALSE);

  if (strlen (name) < 4 || !g_str_equal (pretty, name))
    return FALSE;
  for (const char *c = name; *c; c++)
    if (!g_ascii_islower (*c) && *c != '_')
      return FALSE;
  return TRUE;
}

/* The plots name a series by the model's label in the user's language ([labels]): every
 * monitor of a built-in model whose name is a word has one in Spanish that is not the
 * English name (but "casimir", a name in both), and the English is the name or a label
 * of its own; the rolling ball's energy is "energía". */
static void
test_builtin_labels (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  LangEnv env;
  guint n_words = 0;

  lang_save (&env);
  for (guint k = 0; names[k]; k++)
    {
      lang_set ("es", "C.UTF-8");
      g_autoptr (CmlModel) es = load (names[k]);
      for (guint m = 0; m < es->monitors->len; m++)
        {
          const char *name = ((CmlNamedExpr *) es->monitors->pdata[m])->name;
          if (!is_word (name))
            continue;
          const char *label = cml_model_label (es, name);
          /* a symbol ([symbols] casimir = |Γ|²) is the same in every language */
          if (label == NULL && g_hash_table_contains (es->symbols, name))
            {
              n_words++;
              continue;
            }
          if (label == NULL)
            g_error ("%s: the monitor “%s” has no label ([labels] %s = …, %s[es] = …) nor symbol "
                     "([symbols]): the plots show its English name", names[k], name, name, name);
          if (g_str_equal (label, name))
            g_error ("%s: the Spanish label of “%s” is its English name", names[k], name);
          n_words++;
        }
    }
  g_assert_cmpuint (n_words, >=, 10);

  lang_set ("es", "C.UTF-8");
  g_autoptr (CmlModel) es = load ("rolling-ball");
  g_assert_cmpstr (cml_model_label (es, "energy"), ==, "energía");
  g_assert_null (cml_model_label (es, "Cx"));
  lang_set ("en", "C.UTF-8");
  g_autoptr (CmlModel) en = load ("rolling-ball");
  g_assert_cmpstr (cml_model_label (en, "energy"), ==, "energy");
  lang_restore (&env);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/translations/rolling-ball", test_rolling_ball);
  g_test_add_func ("/translations/user-model", test_user_model);
  g_test_add_func ("/translations/builtin-complete", test_builtin_complete);
  g_test_add_func ("/translations/builtin-labels", test_builtin_labels);
  g_test_add_func ("/translations/preset-titles-typeset", test_preset_titles_typeset);
  return g_test_run ();
}
