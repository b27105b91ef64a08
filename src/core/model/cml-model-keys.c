/* cml-model-keys.c — a model file's groups and keys as the loader reads them: from the
 * line map where it can, from GKeyFile where the file needs its reading; values
 * unescaped as GKeyFile does, translated keys ("KEY[LOCALE]") told apart, and the keys
 * and groups a model may hold checked, naming the line of the one that is not.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"

/* Whether KEY is a translated key, "BASE[LOCALE]" as GKeyFile reads it: BASE not empty, without
 * [ or ] and not ending in a blank, LOCALE not empty, of letters, digits and - _ . @.  Sets
 * *BASE and *LOCALE (may be NULL) to newly allocated strings. */
gboolean
cml_model_locale_key_split (const char *key, char **base, char **locale)
{
  const char *open = strchr (key, '['), *close;
  gsize len = strlen (key);

  if (open == NULL || open == key || len < 3 || key[len - 1] != ']' || open[-1] == ' ' || open[-1] == '\t')
    return FALSE;
  close = key + len - 1;
  if (close == open + 1 || memchr (key, ']', (gsize) (close - key)) != NULL)
    return FALSE;
  for (const char *c = open + 1; c < close; c++)
    if (!(g_ascii_isalnum (*c) || *c == '-' || *c == '_' || *c == '.' || *c == '@'))
      return FALSE;
  if (base)
    *base = g_strndup (key, open - key);
  if (locale)
    *locale = g_strndup (open + 1, close - open - 1);
  return TRUE;
}

gboolean
cml_model_check_keys (Loader *ld, const char *group, const char *const *known)
{
  g_auto (GStrv) keys = cml_model_kf_keys (ld, group);
  for (int i = 0; keys && keys[i]; i++)
    if (!g_strv_contains (known, keys[i]))
      {
        g_autofree char *list = g_strjoinv (", ", (char **) known);
        return cml_model_fail (ld, cml_model_line_of (ld, group, keys[i]), 0, CML_ERROR_MODEL,
                     _("unknown key “%s” in [%s] (known: %s)"), keys[i], group, list);
      }
  return TRUE;
}

/* The file's groups and keys: from the line map, or from GKeyFile for a file that needs
 * its reading (scan_lines). */
gboolean
cml_model_kf_has_group (Loader *ld, const char *group)
{
  if (ld->kf)
    return g_key_file_has_group (ld->kf, group);
  return cml_model_pos_of (ld, group, NULL) != NULL;
}

gboolean
cml_model_kf_has_key (Loader *ld, const char *group, const char *key)
{
  if (ld->kf)
    return g_key_file_has_key (ld->kf, group, key, NULL);
  return cml_model_pos_of (ld, group, key) != NULL;
}

/* KEY's value in GROUP: the text after '=' and the white space that follows it, to the
 * end of the line; NULL when there is no such key. */
char *
cml_model_kf_value (Loader *ld, const char *group, const char *key)
{
  Pos *p;

  if (ld->kf)
    return g_key_file_get_value (ld->kf, group, key, NULL);
  p = cml_model_pos_of (ld, group, key);
  return p ? g_strdup (p->value) : NULL;
}

/* GROUP's keys in the order of the file, translations ("title[es]") included; NULL when
 * there is no such group. */
static char **
kf_all_keys (Loader *ld, const char *group)
{
  Pos *p;
  char **keys;

  if (ld->kf)
    return g_key_file_get_keys (ld->kf, group, NULL, NULL);
  p = cml_model_pos_of (ld, group, NULL);
  if (p == NULL)
    return NULL;
  keys = g_new (char *, p->keys->len + 1);
  for (guint k = 0; k < p->keys->len; k++)
    keys[k] = g_strdup (p->keys->pdata[k]);
  keys[p->keys->len] = NULL;
  return keys;
}

/* GROUP's keys in the order of the file, without the translations (check_translations()
 * checks those); NULL when there is no such group. */
char **
cml_model_kf_keys (Loader *ld, const char *group)
{
  char **keys = kf_all_keys (ld, group);
  guint n = 0;

  for (guint k = 0; keys && keys[k]; k++)
    if (strchr (keys[k], '[') == NULL)
      keys[n++] = keys[k];
    else
      g_free (keys[k]);
  if (keys)
    keys[n] = NULL;
  return keys;
}

/* The groups in the order of the file. */
char **
cml_model_kf_groups (Loader *ld)
{
  char **groups;

  if (ld->kf)
    return g_key_file_get_groups (ld->kf, NULL);
  groups = g_new (char *, ld->groups->len + 1);
  for (guint k = 0; k < ld->groups->len; k++)
    groups[k] = g_strdup (ld->groups->pdata[k]);
  groups[ld->groups->len] = NULL;
  return groups;
}

/* A key file's text value with its escapes (\s \n \t \r \\) replaced.  Not
 * g_key_file_get_string(): on a value with an unknown escape and a backslash at its end
 * it sets its GError twice (a GLib warning); here a stray backslash is kept as written. */
static char *
unescape_value (const char *raw)
{
  char *out = g_malloc (strlen (raw) + 1), *o = out; /* never longer than RAW */
  const char *p = raw, *bs;

  while ((bs = strchr (p, '\\')) != NULL && bs[1] != '\0')
    {
      memcpy (o, p, bs - p);
      o += bs - p;
      switch (bs[1])
        {
        case 's':  *o++ = ' '; break;
        case 'n':  *o++ = '\n'; break;
        case 't':  *o++ = '\t'; break;
        case 'r':  *o++ = '\r'; break;
        case '\\': *o++ = '\\'; break;
        default:   *o++ = '\\'; *o++ = bs[1]; break;
        }
      p = bs + 2;
    }
  strcpy (o, p);
  return out;
}

char *
cml_model_get_string (Loader *ld, const char *group, const char *key)
{
  g_autofree char *raw = cml_model_kf_value (ld, group, key);

  if (raw == NULL)
    return NULL;
  return g_strstrip (unescape_value (raw));
}

/* KEY's translation into the user's language, or NULL: the value of the first of
 * "KEY[LANG]" for LANG in g_get_language_names () (LANGUAGE, then LC_ALL, LC_MESSAGES and
 * LANG: for LANG=es_ES.UTF-8, es_ES.UTF-8, es_ES, es.UTF-8, es, C) that GROUP has — the
 * lookup of g_key_file_get_locale_string(), made on the line map, with the escapes read as
 * cml_model_get_string() reads them. */
char *
cml_model_get_translation (Loader *ld, const char *group, const char *key)
{
  const char *const *langs = g_get_language_names ();

  for (guint i = 0; langs[i]; i++)
    {
      g_autofree char *k = g_strconcat (key, "[", langs[i], "]", NULL);
      if (cml_model_kf_has_key (ld, group, k))
        return cml_model_get_string (ld, group, k);
    }
  return NULL;
}

/* The text of KEY in the user's language (cml_model_get_translation()), else its untranslated value;
 * NULL when GROUP has neither. */
char *
cml_model_get_locale_string (Loader *ld, const char *group, const char *key)
{
  char *t = cml_model_get_translation (ld, group, key);

  return t ? t : cml_model_get_string (ld, group, key);
}

/* Whether KEY of GROUP is a text for people that a model file may translate. */
static gboolean
key_translatable (const char *group, const char *key)
{
  static const char *const model_texts[] = { "title", "description", "about", "source", "errata", NULL };

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

/* Every translated key ("title[es]") translates a text for people that its group gives
 * untranslated, and is not empty. */
gboolean
cml_model_check_translations (Loader *ld)
{
  g_auto (GStrv) groups = cml_model_kf_groups (ld);

  for (int g = 0; groups[g]; g++)
    {
      g_auto (GStrv) keys = kf_all_keys (ld, groups[g]);
      for (int k = 0; keys && keys[k]; k++)
        {
          g_autofree char *base = NULL, *locale = NULL;
          if (!cml_model_locale_key_split (keys[k], &base, &locale))
            {
              if (strchr (keys[k], '[') == NULL)
                continue;
              return cml_model_fail (ld, cml_model_line_of (ld, groups[g], keys[k]), 0, CML_ERROR_PARSE,
                           _("“%s” is not a valid key (no [ or ] in keys, but for a translation: KEY[LANG], as in "
                             "title[es])"), keys[k]);
            }
          int line = cml_model_line_of (ld, groups[g], keys[k]);
          if (!key_translatable (groups[g], base))
            return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                         _("“%s” is not a valid key: only the texts people read are translated ([model] title, "
                           "description, about, source and errata; a parameter's meaning; [meanings]; [labels]; a preset's "
                           "title; a scene object's label)"), keys[k]);
          if (!cml_model_kf_has_key (ld, groups[g], base))
            return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                         _("“%s” translates “%s”, which [%s] does not give (write the untranslated text too)"),
                         keys[k], base, groups[g]);
          g_autofree char *v = cml_model_get_string (ld, groups[g], keys[k]);
          if (*v == '\0')
            return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("the translation “%s” is empty"), keys[k]);
        }
    }
  return TRUE;
}

gboolean
cml_model_check_groups (Loader *ld)
{
  static const char *known[] = {
    "model", "parameters", "definitions", "algebroid", "anchor", "brackets", "dynamics",
    "forces", "constraints", "initial", "reconstruction", "quaternions", "invariants", "monitors", "units", "meanings", "symbols", "labels", "output",
    "reference", NULL
  };
  g_auto (GStrv) groups = cml_model_kf_groups (ld);

  for (int k = 0; groups[k]; k++)
    if (!g_strv_contains (known, groups[k]) && !g_str_has_prefix (groups[k], "preset ")
        && !g_str_has_prefix (groups[k], "scene "))
      return cml_model_fail (ld, cml_model_line_of (ld, groups[k], NULL), 0, CML_ERROR_MODEL,
                   _("unknown group [%s]"), groups[k]);
  return TRUE;
}
