/* cml-session.c — saving and reopening sessions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Format (a GLib key file):
 *
 *   [session]
 *   format = cmlab-session 1
 *   model = <the model file's text, escaped by GKeyFile>
 *   model-name = rolling-ball              (for people; the embedded text is what counts)
 *   [integrator]
 *   kind = rk8pd
 *   rtol = 1e-10   atol = 1e-12   h-fixed = 0.001   project = true
 *   [parameters]
 *   m = 1  …                               (every parameter, %.17g)
 *   [initial]
 *   x = 1  …                               (every state component at t = 0, %.17g)
 *   [view]
 *   key = value  …                         (window settings; free-form strings)
 */
#define G_LOG_DOMAIN "cml-session"

#include "cml-session.h"
#include "cml-key-file-line.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-atomic-file.h"
#include "cml-error.h"
#include "cml-read-file.h"

static GHashTable *
new_double_table (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
put_double (GHashTable *t, const char *name, double v)
{
  g_hash_table_insert (t, g_strdup (name), g_memdup2 (&v, sizeof v));
}

CmlSession *
cml_session_new (CmlSimulation *sim, const double *initial_state, GHashTable *view)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlSession *s = g_new0 (CmlSession, 1);

  s->model = cml_model_ref (cml_system_get_model (sys));
  s->system = cml_system_ref (sys);
  s->params = new_double_table ();
  s->initial = new_double_table ();
  s->view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  s->integrator = *cml_simulation_get_integrator (sim);
  for (guint k = 0; k < s->model->params->len; k++)
    {
      CmlParam *p = s->model->params->pdata[k];
      put_double (s->params, p->name, cml_simulation_get_param (sim, p->name));
    }
  for (guint i = 0; i < cml_system_dim (sys); i++)
    put_double (s->initial, cml_system_state_name (sys, i), initial_state[i]);
  if (view)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, view);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (s->view, g_strdup (k), g_strdup (v));
    }
  return s;
}

void
cml_session_free (CmlSession *s)
{
  if (s == NULL)
    return;
  g_clear_pointer (&s->model, cml_model_unref);
  g_clear_pointer (&s->system, cml_system_unref);
  g_clear_pointer (&s->params, g_hash_table_unref);
  g_clear_pointer (&s->initial, g_hash_table_unref);
  g_clear_pointer (&s->view, g_hash_table_unref);
  g_free (s->path);
  g_free (s);
}

static void
set_double (GKeyFile *kf, const char *group, const char *key, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_key_file_set_value (kf, group, key, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

gboolean
cml_session_save (CmlSession *s, const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) err = NULL;
  g_autofree char *data = NULL;
  gsize len;

  g_return_val_if_fail (s != NULL && path != NULL, FALSE);
  g_key_file_set_string (kf, "session", "format", CML_SESSION_FORMAT);
  g_key_file_set_string (kf, "session", "model-name", s->model->name);
  g_key_file_set_string (kf, "session", "model", s->model->text);

  /* a method auto chose is saved as auto: loaded, it chooses again */
  g_key_file_set_string (kf, "integrator", "kind",
                         cml_integrator_kind_to_string (s->integrator.chosen ? CML_INTEGRATOR_AUTO : s->integrator.kind));
  set_double (kf, "integrator", "rtol", s->integrator.rtol);
  set_double (kf, "integrator", "atol", s->integrator.atol);
  set_double (kf, "integrator", "h-fixed", s->integrator.h_fixed);
  g_key_file_set_boolean (kf, "integrator", "project", s->integrator.project);

  /* parameters and state in model order, so the file reads like the model */
  for (guint k = 0; k < s->model->params->len; k++)
    {
      CmlParam *p = s->model->params->pdata[k];
      double *v = g_hash_table_lookup (s->params, p->name);
      set_double (kf, "parameters", p->name, v ? *v : p->value);
    }
  {
    g_autoptr (GList) keys = g_hash_table_get_keys (s->initial);
    keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
    for (GList *l = keys; l; l = l->next)
      set_double (kf, "initial", l->data, *(double *) g_hash_table_lookup (s->initial, l->data));
  }
  {
    g_autoptr (GList) keys = g_hash_table_get_keys (s->view);
    keys = g_list_sort (keys, (GCompareFunc) g_strcmp0);
    for (GList *l = keys; l; l = l->next)
      g_key_file_set_string (kf, "view", l->data, g_hash_table_lookup (s->view, l->data));
  }
  data = g_key_file_to_data (kf, &len, NULL);
  /* all or nothing, never in place of a device, a link or a read-only file */
  if (!cml_atomic_file_set_contents (path, data, len, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot save the session: %s", err->message);
      return FALSE;
    }
  return TRUE;
}

/* The next line of *CURSOR (stripped, a new string), advancing it; NULL at the end.  One
 * pass over the text, however long (g_strsplit's search for the separator starts over
 * at every piece, which a sanitizer's string checks make quadratic). */
static char *
next_line (const char **cursor)
{
  const char *s = *cursor;
  if (s == NULL)
    return NULL;
  const char *nl = strchr (s, '\n');
  *cursor = nl ? nl + 1 : NULL;
  return g_strstrip (nl ? g_strndup (s, (gsize) (nl - s)) : g_strdup (s));
}

/* The first line of the session's TEXT that GKeyFile cannot read (neither blank, a
 * comment, a [group] nor KEY = VALUE inside a group), 0 if none is found. */
static int
malformed_line (const char *text)
{
  gboolean in_group = FALSE;

  const char *cursor = text;
  char *line;
  for (int i = 0; (line = next_line (&cursor)) != NULL; i++)
    {
      g_autofree char *l = line;
      if (*l == '\0' || *l == '#')
        continue;
      if (*l == '[')
        {
          if (!g_str_has_suffix (l, "]"))
            return i + 1;
          in_group = TRUE;
        }
      else if (!in_group || strchr (l, '=') == NULL || *l == '=')
        return i + 1;
    }
  return 0;
}

static gboolean
get_double (GKeyFile *kf, const char *path, const char *contents, const char *group,
            const char *key, double *out, GError **error)
{
  g_autofree char *v = g_key_file_get_value (kf, group, key, NULL);
  char *end = NULL;
  if (v == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: [%s] %s is missing", path,
                   cml_key_file_line (contents, group, key), group, key);
      return FALSE;
    }
  *out = g_ascii_strtod (v, &end);
  if (end == v || *end != '\0' || !isfinite (*out))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: [%s] %s is not a number: “%s”", path,
                   cml_key_file_line (contents, group, key), group, key, v);
      return FALSE;
    }
  return TRUE;
}

CmlSession *
cml_session_load (const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) err = NULL;
  g_autoptr (CmlSession) s = g_new0 (CmlSession, 1);
  g_autofree char *format = NULL, *text = NULL, *kind = NULL;
  g_autofree char *display = NULL, *contents = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  /* read once, a regular file of at most CML_SESSION_MAX_BYTES (a FIFO, /dev/zero or a
   * file of megabytes is refused before GKeyFile sees it); errors name lines of this text */
  if (!cml_read_file_capped (path, CML_SESSION_MAX_BYTES, _("a session file"), &contents, &len, &err))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, _("%s: not a readable session file: %s"), path, err->message);
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, contents, len, G_KEY_FILE_NONE, &err))
    {
      /* the line it fails at */
      int line = err->domain == G_FILE_ERROR ? 0 : malformed_line (contents);
      g_autofree char *where = line > 0 ? g_strdup_printf ("%s:%d", path, line) : g_strdup (path);

      g_set_error (error, CML_ERROR, err->domain == G_FILE_ERROR ? CML_ERROR_IO : CML_ERROR_PARSE,
                   "%s: not a readable session file: %s", where, err->message);
      return NULL;
    }
  format = g_key_file_get_string (kf, "session", "format", NULL);
  if (g_strcmp0 (format, CML_SESSION_FORMAT) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: not a cmlab session (expected format = %s)", path,
                   cml_key_file_line (contents, "session", "format"), CML_SESSION_FORMAT);
      return NULL;
    }
  text = g_key_file_get_string (kf, "session", "model", NULL);
  if (text == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: the session has no embedded model", path,
                   cml_key_file_line (contents, "session", "model"));
      return NULL;
    }
  /* the model's errors name its own lines, after the line of the session that holds it */
  display = g_strdup_printf ("%s:%d: embedded model", path, cml_key_file_line (contents, "session", "model"));
  s->model = cml_model_new_from_data (text, display, error);
  if (s->model == NULL)
    return NULL;
  s->path = g_strdup (path);
  s->params = new_double_table ();
  s->initial = new_double_table ();
  s->view = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  /* integrator */
  s->integrator = cml_integrator_options_default ();
  kind = g_key_file_get_string (kf, "integrator", "kind", NULL);
  if (kind && !cml_integrator_kind_from_string (kind, &s->integrator.kind))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: unknown integrator “%s”", path,
                   cml_key_file_line (contents, "integrator", "kind"), kind);
      return NULL;
    }
  if ((g_key_file_has_key (kf, "integrator", "rtol", NULL)
       && !get_double (kf, path, contents, "integrator", "rtol", &s->integrator.rtol, error))
      || (g_key_file_has_key (kf, "integrator", "atol", NULL)
          && !get_double (kf, path, contents, "integrator", "atol", &s->integrator.atol, error))
      || (g_key_file_has_key (kf, "integrator", "h-fixed", NULL)
          && !get_double (kf, path, contents, "integrator", "h-fixed", &s->integrator.h_fixed, error)))
    return NULL;
  if (!(s->integrator.rtol > 0 && s->integrator.atol > 0 && s->integrator.h_fixed > 0))
    {
      const char *bad = !(s->integrator.rtol > 0) ? "rtol" : !(s->integrator.atol > 0) ? "atol" : "h-fixed";

      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: integrator tolerances and step must be > 0", path,
                   cml_key_file_line (contents, "integrator", bad));
      return NULL;
    }
  /* as --rtol: a relative tolerance of 1 or more asks for no accuracy at all */
  if (!(s->integrator.rtol < 1))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE,
                   _("%s:%d: [integrator] rtol must be between 0 and 1 (e.g. 1e-8), not %g"), path,
                   cml_key_file_line (contents, "integrator", "rtol"), s->integrator.rtol);
      return NULL;
    }
  if (g_key_file_has_key (kf, "integrator", "project", NULL))
    {
      /* "maybe" is not false: a value that is not a boolean is an error, not "off" */
      g_autofree char *v = g_strstrip (g_key_file_get_value (kf, "integrator", "project", NULL));
      if (g_str_equal (v, "true") || g_str_equal (v, "false"))
        s->integrator.project = g_str_equal (v, "true");
      else
        {
          g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: [integrator] project must be true or false, not “%s”",
                       path, cml_key_file_line (contents, "integrator", "project"), v);
          return NULL;
        }
    }

  /* parameters: known and in range */
  g_auto (GStrv) pkeys = g_key_file_get_keys (kf, "parameters", NULL, NULL);
  for (guint k = 0; pkeys && pkeys[k]; k++)
    {
      const CmlParam *p = cml_model_find_param (s->model, pkeys[k]);
      double v;
      g_autoptr (GError) perr = NULL;
      if (p == NULL)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_MODEL, "%s:%d: the model has no parameter “%s”", path,
                       cml_key_file_line (contents, "parameters", pkeys[k]), pkeys[k]);
          return NULL;
        }
      if (!get_double (kf, path, contents, "parameters", pkeys[k], &v, error))
        return NULL;
      if (!cml_model_check_param (s->model, p, v, &perr))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_MODEL, "%s:%d: %s", path, cml_key_file_line (contents, "parameters", pkeys[k]),
                       perr->message);
          return NULL;
        }
      put_double (s->params, pkeys[k], v);
    }
  /* initial data: names are checked against the state when the simulation is made */
  g_auto (GStrv) ikeys = g_key_file_get_keys (kf, "initial", NULL, NULL);
  for (guint k = 0; ikeys && ikeys[k]; k++)
    {
      double v;
      if (!get_double (kf, path, contents, "initial", ikeys[k], &v, error))
        return NULL;
      put_double (s->initial, ikeys[k], v);
    }
  gsize n_view = 0;
  g_auto (GStrv) vkeys = g_key_file_get_keys (kf, "view", &n_view, NULL);
  if (n_view > CML_SESSION_MAX_VIEW_KEYS)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: [view] has %" G_GSIZE_FORMAT " entries, more than %d",
                   path, cml_key_file_line (contents, "view", vkeys[CML_SESSION_MAX_VIEW_KEYS]), n_view,
                   CML_SESSION_MAX_VIEW_KEYS);
      return NULL;
    }
  for (guint k = 0; vkeys && vkeys[k]; k++)
    {
      g_autofree char *v = g_key_file_get_string (kf, "view", vkeys[k], NULL);
      if (v != NULL && strlen (v) > CML_SESSION_MAX_VIEW_VALUE)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: [view] %s is longer than %d bytes", path,
                       cml_key_file_line (contents, "view", vkeys[k]), vkeys[k], CML_SESSION_MAX_VIEW_VALUE);
          return NULL;
        }
      g_hash_table_insert (s->view, g_strdup (vkeys[k]), g_steal_pointer (&v));
    }
  return g_steal_pointer (&s);
}

CmlSimulation *
cml_session_make_simulation (CmlSession *s, CmlSystem **sys_out, GError **error)
{
  g_autoptr (CmlSystem) sys = cml_system_new (s->model, error);
  g_autoptr (CmlSimulation) sim = NULL;
  GHashTableIter it;
  gpointer k, v;

  if (sys == NULL)
    return NULL;
  sim = cml_simulation_new (sys, error);
  if (sim == NULL)
    return NULL;
  g_hash_table_iter_init (&it, s->params);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (!cml_simulation_set_param (sim, k, *(double *) v, error))
      return NULL;
  if (!cml_simulation_set_integrator (sim, &s->integrator, error))
    return NULL;
  if (!cml_simulation_reset (sim, s->initial, error))
    return NULL;
  if (sys_out)
    *sys_out = cml_system_ref (sys);
  return g_steal_pointer (&sim);
}
