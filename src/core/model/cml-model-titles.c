/* cml-model-titles.c — the titles of the built-in models for `cmlab-cli list`, kept in a
 * cache so that listing does not parse every model file each time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parsing a model file (expressions, definitions, scene) takes some 0.4 ms; listing ten
 * of them was most of what `cmlab-cli list` did.  The cache holds, for each models
 * directory and language, one file: per model its name, its title, and the key of the text it was read
 * from — the length and a 64-bit hash of the bytes (cml_cache_hash64).  Listing reads every model
 * file (a few kilobytes each), hashes it, and takes the title from the cache when the key
 * is the one recorded; anything else (a new or edited model, one that does not load, a
 * name that cml_model_load() would resolve elsewhere) goes through cml_model_load(), so
 * the list shows exactly what loading shows, error messages included.  Only models that
 * loaded are recorded.
 *
 * A cache file is trusted only whole: its first line names the format and cmlab's
 * version, its last line is the SHA-256 of everything before it, and one that does not
 * match (truncated, edited, another version's) is ignored and written anew.  Files are
 * written through the atomic writer (cml-atomic-file.c), so two processes listing at once
 * each leave a complete file.  The directory is created 0700 and used only if it is ours
 * (not a symbolic link, not writable by others); the whole cache is kept under
 * $CMLAB_TITLES_CACHE_LIMIT bytes (1 MiB by default), the least recently used files
 * going first.
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-titles.h"

#include <string.h>

#include "cml-atomic-file.h"
#include "cml-cache-dir.h"
#include "cml-model.h"
#include "cml-read-file.h"

#ifndef CMLAB_VERSION
#define CMLAB_VERSION "unknown"
#endif

#define TITLES_FORMAT        "cmlab-titles 2 " CMLAB_VERSION
#define TITLES_SUFFIX        ".titles"
#define DEFAULT_CACHE_LIMIT  (G_GUINT64_CONSTANT (1) << 20) /* bytes */

typedef struct
{
  guint64 hash;
  gsize   size;
  char   *title;
} Entry;

static void
entry_free (gpointer p)
{
  Entry *e = p;
  g_free (e->title);
  g_free (e);
}

/* The cache file of the models directory DIR (one per directory, cmlab version and user's
 * language: a title is read in that language, "title[es]", so another language's titles are
 * another file). */
static char *
cache_file (const char *cdir, const char *models_dir)
{
  g_autofree char *abs = g_canonicalize_filename (models_dir, NULL);
  g_autofree char *langs = g_strjoinv (":", (char **) g_get_language_names ());
  g_autofree char *key = g_strconcat (TITLES_FORMAT, "\n", abs, "\n", langs, NULL);
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  g_autofree char *base = g_strconcat (hash, TITLES_SUFFIX, NULL);

  return g_build_filename (cdir, base, NULL);
}

/* The entries of the cache file PATH by model name; empty when it is missing or is not
 * whole (its digest line does not match), never partly trusted. */
static GHashTable *
read_cache (const char *path)
{
  GHashTable *entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  g_autofree char *text = NULL;
  gsize len = 0;

  /* a regular file, never more than the cache writes (half its limit); not a link */
  text = cml_cache_read (path, cml_cache_env_number ("CMLAB_TITLES_CACHE_LIMIT", DEFAULT_CACHE_LIMIT) / 2, &len);
  if (text == NULL || len == 0 || text[len - 1] != '\n' || memchr (text, '\0', len) != NULL)
    return entries;
  /* the last line: "sha256 HEX" of everything before it */
  text[len - 1] = '\0';
  char *last = strrchr (text, '\n');
  if (last == NULL || !g_str_has_prefix (last + 1, "sha256 "))
    return entries;
  g_autofree char *digest
    = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, (gsize) (last + 1 - text));
  if (!g_str_equal (last + 1 + strlen ("sha256 "), digest))
    {
      g_debug ("%s does not match its digest: ignored", path);
      return entries;
    }
  *last = '\0';
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  if (lines[0] == NULL || !g_str_equal (lines[0], TITLES_FORMAT))
    return entries;
  for (guint k = 1; lines[k]; k++)
    {
      /* "HASH SIZE NAME\tTITLE", name and title escaped (g_strescape) */
      char *end = NULL;
      guint64 hash = g_ascii_strtoull (lines[k], &end, 16);
      if (end == lines[k] || *end != ' ')
        continue;
      char *size_at = end + 1;
      guint64 size = g_ascii_strtoull (size_at, &end, 10);
      if (end == size_at || *end != ' ')
        continue;
      char *tab = strchr (end + 1, '\t');
      if (tab == NULL)
        continue;
      *tab = '\0';
      Entry *e = g_new0 (Entry, 1);
      e->hash = hash;
      e->size = (gsize) size;
      e->title = g_strcompress (tab + 1);
      g_hash_table_replace (entries, g_strcompress (end + 1), e);
    }
  return entries;
}

/* Writes the entries (model name → Entry) as the cache file PATH. */
static void
write_cache (const char *cdir, const char *path, const char *const *names, GHashTable *entries)
{
  g_autoptr (GString) s = g_string_new (TITLES_FORMAT "\n");
  g_autoptr (GError) error = NULL;
  guint64 limit = cml_cache_env_number ("CMLAB_TITLES_CACHE_LIMIT", DEFAULT_CACHE_LIMIT);

  for (guint k = 0; names[k]; k++)
    {
      Entry *e = g_hash_table_lookup (entries, names[k]);
      if (e == NULL)
        continue;
      g_autofree char *name = g_strescape (names[k], NULL);
      g_autofree char *title = g_strescape (e->title, NULL);
      g_string_append_printf (s, "%016" G_GINT64_MODIFIER "x %" G_GSIZE_FORMAT " %s\t%s\n", e->hash, e->size, name,
                              title);
    }
  g_autofree char *digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) s->str, s->len);
  g_string_append_printf (s, "sha256 %s\n", digest);
  if (s->len > limit / 2)
    return; /* more than the cache may hold: the titles are parsed each time */
  if (!cml_cache_write (path, s->str, s->len, &error))
    {
      g_debug ("%s", error->message);
      return;
    }
  cml_cache_dir_trim (cdir, TITLES_SUFFIX, limit, path);
}

char **
cml_model_builtin_titles (const char *const *names, guint *n_cached)
{
  const char *models_dir = cml_model_builtin_dir ();
  g_autofree char *cdir = cml_cache_dir_open ("CMLAB_TITLES_CACHE", "titles");
  g_autofree char *path = cdir ? cache_file (cdir, models_dir) : NULL;
  g_autoptr (GHashTable) entries = path ? read_cache (path) : NULL;
  g_autoptr (GHashTable) fresh = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, entry_free);
  guint n = g_strv_length ((char **) names), hits = 0, recorded = 0;
  char **titles = g_new0 (char *, n + 1);

  for (guint k = 0; k < n; k++)
    {
      const char *name = names[k];
      g_autofree char *file = g_strconcat (name, ".cml", NULL);
      g_autofree char *model_path = g_build_filename (models_dir, file, NULL);
      g_autofree char *text = NULL;
      gsize len = 0;
      gboolean keyed = FALSE;
      guint64 hash = 0;

      /* as cml_model_load (NAME) resolves it: a built-in only when NAME is not a path */
      if (path && !strchr (name, '/') && !g_str_has_suffix (name, ".cml")
          && !g_file_test (name, G_FILE_TEST_IS_REGULAR)
          && cml_read_file_capped (model_path, CML_MODEL_MAX_BYTES, "", &text, &len, NULL))
        {
          keyed = TRUE;
          hash = cml_cache_hash64 (text, len);
          Entry *e = g_hash_table_lookup (entries, name);
          if (e && e->hash == hash && e->size == len)
            {
              titles[k] = g_strdup (e->title);
              hits++;
            }
        }
      if (titles[k] == NULL)
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (CmlModel) model = cml_model_load (name, &error);
          titles[k] = g_strdup (model ? model->title : error->message);
          if (model == NULL || !keyed)
            continue;
        }
      Entry *e = g_new0 (Entry, 1);
      e->hash = hash;
      e->size = len;
      e->title = g_strdup (titles[k]);
      g_hash_table_replace (fresh, (gpointer) name, e);
      recorded++;
    }
  if (path)
    {
      if (hits == recorded && hits == g_hash_table_size (entries))
        {
          /* nothing new: used now, the last to be evicted */
          cml_cache_touch (path);
        }
      else
        write_cache (cdir, path, names, fresh);
    }
  if (n_cached)
    *n_cached = hits;
  return titles;
}
