/* cml-model.c — reading a model file: the line map, names, expressions and the loading
 * of the groups in order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file is a GLib key file.  A first pass over the text records where every group and
 * key stands and what each key holds (and rejects lines that are not a group, a key =
 * value line or a comment); every later error names that line, and the groups read their
 * keys from it.  GKeyFile, which reports no line numbers and was a quarter of the cost of
 * loading a model, reads only a file with something on which it might differ from the
 * line map (a carriage return, other white space than blanks after a group header, a
 * group name it refuses, a key "Encoding"): its messages and values stay GKeyFile's
 * there.  Names are declared in a fixed order — parameters, time, coordinates, momenta,
 * sections, reconstruction variables — before any expression is parsed, so that the
 * parser can reject unknown names.  Each category of expression then may use only some
 * kinds of names (the Lagrangian may not use a momentum, …), which is checked after
 * parsing.
 * The groups themselves are read in cml-model-mechanics.c (what defines the system) and
 * cml-model-presentation.c (how it is shown and checked), their keys through
 * cml-model-keys.c; the loaded model's queries are in cml-model-queries.c.
 */
#define _GNU_SOURCE /* dladdr */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"
#include "cml-read-file.h"

static const char *reserved_names[] = {
  "t", "pi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
  "tanh", "exp", "log", "sqrt", "abs", "pow", "sign", NULL
};

/* ---- errors ------------------------------------------------------------------------- */

G_GNUC_PRINTF (5, 6)
gboolean
cml_model_fail (Loader *ld, int line, int col, int code, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (ld->error && *ld->error)
    return FALSE;
  if (col > 0)
    g_set_error (ld->error, CML_ERROR, code, "%s:%d:%d: %s", ld->path, line, col, msg);
  else
    g_set_error (ld->error, CML_ERROR, code, "%s:%d: %s", ld->path, line, msg);
  return FALSE;
}

/* The line map's key of GROUP and KEY: "group\nkey" (or "group"), in BUF when it fits,
 * else allocated into *HEAP. */
static const char *
pos_key (const char *group, const char *key, char *buf, gsize size, char **heap)
{
  gsize lg = strlen (group), lk;

  if (key == NULL)
    return group;
  lk = strlen (key);
  if (lg + lk + 2 > size)
    return *heap = g_strconcat (group, "\n", key, NULL);
  memcpy (buf, group, lg);
  buf[lg] = '\n';
  memcpy (buf + lg + 1, key, lk + 1);
  return buf;
}

Pos *
cml_model_pos_of (Loader *ld, const char *group, const char *key)
{
  char buf[256];
  g_autofree char *heap = NULL;

  return g_hash_table_lookup (ld->pos, pos_key (group, key, buf, sizeof buf, &heap));
}

int
cml_model_line_of (Loader *ld, const char *group, const char *key)
{
  Pos *p = cml_model_pos_of (ld, group, key);
  if (p == NULL && key)
    p = cml_model_pos_of (ld, group, NULL);
  return p ? p->line : 1;
}

/* ---- first pass: the line map ------------------------------------------------------- */

static void
pos_free (gpointer p)
{
  Pos *pos = p;

  g_free (pos->value);
  if (pos->keys)
    g_ptr_array_unref (pos->keys);
  g_free (pos);
}

/* Whether GKeyFile could read the line from START to END (a group header whose stripped
 * text runs to CLOSE, its ']') otherwise than the line map does: it allows only blanks
 * and tabs after a header's ']', and refuses an empty group name or one with control
 * characters. */
static gboolean
header_unusual (const char *start, const char *close, const char *end)
{
  if (close == start + 1)
    return TRUE;
  for (const char *c = start + 1; c < close; c++)
    if (g_ascii_iscntrl (*c))
      return TRUE;
  for (const char *c = close + 1; c < end; c++)
    if (*c != ' ' && *c != '\t')
      return TRUE;
  return FALSE;
}

/* Records where every group and key stands and what each key holds (the line map), and
 * refuses the lines a model file may not have.  Returns whether the text is good; *UNUSUAL
 * says whether it has anything on which GKeyFile, which read model files before, might
 * differ from the map: a carriage return, a header with other white space after its ']'
 * or a name GKeyFile refuses, or a key "Encoding" (which GKeyFile checks) — such a file
 * is read by GKeyFile, its messages included. */
gboolean
cml_model_scan_lines (Loader *ld, const char *text, gboolean *unusual)
{
  g_autofree char *group = NULL;
  Pos *group_pos = NULL;
  guint n_groups = 0, n_keys = 0;
  int lineno = 0;

  *unusual = strchr (text, '\r') != NULL;
  for (const char *raw = text, *next; raw != NULL; raw = next)
    {
      const char *nl = strchr (raw, '\n');
      const char *end = nl ? nl : raw + strlen (raw);
      const char *s = raw, *s_end = end;

      next = nl ? nl + 1 : NULL;
      lineno++;
      /* the line without the white space at either end */
      while (s < s_end && g_ascii_isspace (*s))
        s++;
      while (s_end > s && g_ascii_isspace (s_end[-1]))
        s_end--;
      if (s == s_end || *s == '#')
        continue;
      if (*s == '[')
        {
          const char *close = memchr (s, ']', s_end - s);
          if (close == NULL || close + 1 != s_end || memchr (s + 1, '[', s_end - s - 1) != NULL)
            return cml_model_fail (ld, lineno, 0, CML_ERROR_PARSE, _("a group header must look like [name]"));
          g_free (group);
          group = g_strndup (s + 1, close - s - 1);
          n_keys = 0;
          if (++n_groups > CML_MODEL_MAX_GROUPS)
            return cml_model_fail (ld, lineno, 0, CML_ERROR_MODEL, _("more than %d groups, the limit for a model"),
                         CML_MODEL_MAX_GROUPS);
          if (g_hash_table_contains (ld->pos, group))
            return cml_model_fail (ld, lineno, 0, CML_ERROR_MODEL, _("group [%s] appears twice"), group);
          *unusual = *unusual || header_unusual (s, close, end);
          group_pos = g_new0 (Pos, 1);
          group_pos->line = lineno;
          group_pos->keys = g_ptr_array_new_with_free_func (g_free);
          char *name = g_strdup (group);
          g_hash_table_insert (ld->pos, name, group_pos);
          g_ptr_array_add (ld->groups, name);
          continue;
        }
      const char *eq = memchr (raw, '=', end - raw);
      if (eq == NULL)
        {
          g_autofree char *line = g_strndup (s, s_end - s);
          return cml_model_fail (ld, lineno, 0, CML_ERROR_PARSE,
                       _("“%s” is not a key = value line, a [group] or a # comment"), line);
        }
      if (group == NULL)
        return cml_model_fail (ld, lineno, 0, CML_ERROR_PARSE, _("key before the first [group]"));
      if (++n_keys > CML_MODEL_MAX_KEYS)
        return cml_model_fail (ld, lineno, 0, CML_ERROR_MODEL, _("more than %d keys in [%s], the limit for a group"),
                     CML_MODEL_MAX_KEYS, group);
      const char *key_end = eq;
      while (key_end > s && g_ascii_isspace (key_end[-1]))
        key_end--;
      g_autofree char *key = g_strndup (s, key_end > s ? key_end - s : 0);
      if (*key == '\0')
        return cml_model_fail (ld, lineno, 0, CML_ERROR_PARSE, _("missing key before '='"));
      if (strpbrk (key, "[]") != NULL && !cml_model_locale_key_split (key, NULL, NULL))
        return cml_model_fail (ld, lineno, 0, CML_ERROR_PARSE,
                     _("“%s” is not a valid key (no [ or ] in keys, but for a translation: KEY[LANG], as in title[es])"),
                     key);
      g_autofree char *k = g_strconcat (group, "\n", key, NULL);
      if (g_hash_table_contains (ld->pos, k))
        return cml_model_fail (ld, lineno, 0, CML_ERROR_MODEL, _("key “%s” appears twice in [%s]"), key, group);
      *unusual = *unusual || g_str_equal (key, "Encoding");
      const char *v = eq + 1, *value = eq + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      while (value < end && g_ascii_isspace (*value))
        value++;
      Pos *p = g_new0 (Pos, 1);
      p->line = lineno;
      p->value_col = (int) g_utf8_pointer_to_offset (raw, v) + 1;
      p->value = g_strndup (value, end - value);
      g_hash_table_insert (ld->pos, g_steal_pointer (&k), p);
      g_ptr_array_add (group_pos->keys, g_steal_pointer (&key));
    }
  return TRUE;
}

/* ---- names -------------------------------------------------------------------------- */

gboolean
cml_model_is_identifier (const char *s)
{
  if (!(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (s++; *s; s++)
    if (!(g_ascii_isalnum (*s) || *s == '_'))
      return FALSE;
  return TRUE;
}

const char *
cml_model_kind_name (SymKind k)
{
  /* the kind of a name, as the messages on a model file call it */
  switch (k)
    {
    case SYM_PARAM: return C_("kind of name", "parameter");
    case SYM_TIME: return C_("kind of name", "time");
    case SYM_BASE: return C_("kind of name", "base coordinate");
    case SYM_FIBRE: return C_("kind of name", "fibre coordinate");
    case SYM_MOMENTUM: return C_("kind of name", "momentum");
    case SYM_SECTION: return C_("kind of name", "section");
    case SYM_RECON: return C_("kind of name", "reconstruction variable");
    case SYM_DEFINITION: return C_("kind of name", "definition");
    case SYM_MONITOR: return C_("kind of name", "monitor");
    case SYM_INITIAL: return C_("kind of name", "initial value");
    case SYM_MULTIPLIER: return C_("kind of name", "constraint multiplier");
    case SYM_NONE: break;
    }
  return C_("kind of name", "name");
}

SymKind
cml_model_sym_kind (Loader *ld, int id)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (ld->kinds, GINT_TO_POINTER (id)));
}

/* Declares NAME as a symbol of kind KIND; fails on a bad or duplicate name. */
int
cml_model_declare (Loader *ld, const char *name, SymKind kind, int line)
{
  CmlExprCtx *ctx = ld->model->ctx;

  if (!cml_model_is_identifier (name))
    {
      cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("“%s” is not a valid name (letters, digits, _)"), name);
      return -1;
    }
  if (g_strv_contains (reserved_names, name))
    {
      cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("“%s” is a reserved name"), name);
      return -1;
    }
  int id = cml_expr_ctx_lookup (ctx, name);
  if (id >= 0)
    {
      cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
            /* TRANSLATORS: a name and the kind of name it already is (e.g. “parameter”) */
            _("“%s” is already declared as a %s"), name,
            cml_model_kind_name (cml_model_sym_kind (ld, id)));
      return -1;
    }
  id = cml_expr_ctx_intern (ctx, name);
  g_hash_table_insert (ld->kinds, GINT_TO_POINTER (id), GINT_TO_POINTER (kind));
  return id;
}

/* Splits S at top-level occurrences of SEP (not inside parentheses); trims the parts.
 * OFFSETS receives the byte offset of each trimmed part in S. */
GPtrArray *
cml_model_split_top (const char *s, char sep, GArray *offsets)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  int depth = 0;
  const char *start = s;

  for (const char *c = s;; c++)
    {
      if (*c == '(')
        depth++;
      else if (*c == ')')
        depth--;
      if (*c == '\0' || (*c == sep && depth == 0))
        {
          const char *a = start, *b = c;
          while (a < b && g_ascii_isspace (*a))
            a++;
          while (b > a && g_ascii_isspace (b[-1]))
            b--;
          g_ptr_array_add (parts, g_strndup (a, b - a));
          if (offsets)
            {
              int off = (int) (a - s);
              g_array_append_val (offsets, off);
            }
          if (*c == '\0')
            break;
          start = c + 1;
        }
    }
  return parts;
}

/* Comma-separated list of names; an empty value gives an empty list. */
GPtrArray *
cml_model_name_list (const char *value)
{
  GPtrArray *parts = cml_model_split_top (value ? value : "", ',', NULL);
  if (parts->len == 1 && *(char *) parts->pdata[0] == '\0')
    g_ptr_array_set_size (parts, 0);
  return parts;
}

/* ---- expressions -------------------------------------------------------------------- */

/* The expressions built so far stay within CML_MODEL_MAX_EXPR_BYTES.  Checked after every
 * substitution: one substitution at most doubles what exists, so memory stays bounded
 * (20,000 chained definitions, each a sum one term longer than the last, once ran for
 * minutes and took gigabytes). */
gboolean
cml_model_check_expr_budget (Loader *ld, int line, int col, const char *what)
{
  gsize bytes = cml_expr_ctx_memory (ld->model->ctx);

  if (bytes <= CML_MODEL_MAX_EXPR_BYTES)
    return TRUE;
  return cml_model_fail (ld, line, col, CML_ERROR_MODEL,
               _("%s: with the definitions substituted, the expressions take more than %u MB, the limit "
                 "for a model (share subexpressions differently, or use fewer definitions)"),
               what, (guint) (CML_MODEL_MAX_EXPR_BYTES / (1024 * 1024)));
}

/* No constant part of E is infinite or NaN (1/0, log(-1)): it would load and cml_model_fail only when
 * evaluated, at t = 0, with no line to look at. */
static gboolean
check_constants_finite (Loader *ld, CmlExpr *e, int line, int col, const char *what)
{
  CmlExpr *bad = cml_expr_find_nonfinite_constant (e);
  double none = 0.0;

  if (bad == NULL)
    return TRUE;
  g_autofree char *text = cml_expr_to_string_max (ld->model->ctx, bad, 80);
  double v = cml_expr_eval (bad, &none);
  return cml_model_fail (ld, line, col, CML_ERROR_MODEL, _("%s: the constant “%s” is not finite (%s)"), what, text,
               isnan (v) ? "NaN" : v > 0 ? "inf" : "-inf");
}

/* Parses TEXT, found at (LINE, COL) of the file, substitutes the definitions, and checks
 * that every symbol used is of a kind in ALLOWED.  WHAT names the expression in errors. */
CmlExpr *
cml_model_parse_at (Loader *ld, const char *text, int line, int col, guint allowed,
                    const char *what)
{
  CmlExprCtx *ctx = ld->model->ctx;
  g_autoptr (GError) err = NULL;
  int ecol = 0;
  CmlExpr *e;

  if (text == NULL || *text == '\0')
    {
      cml_model_fail (ld, line, col, CML_ERROR_PARSE, _("%s: empty expression"), what);
      return NULL;
    }
  e = cml_expr_parse (ctx, text, &ecol, &err);
  if (e == NULL)
    {
      cml_model_fail (ld, line, col > 0 ? col + MAX (ecol, 1) - 1 : 0, err->code, "%s: %s", what, err->message);
      return NULL;
    }
  /* names that are not allowed here */
  guint ns = cml_expr_ctx_n_symbols (ctx);
  g_autofree gboolean *deps = g_new0 (gboolean, ns);
  cml_expr_collect_symbols (e, deps);
  for (guint id = 0; id < ns; id++)
    if (deps[id] && cml_model_sym_kind (ld, id) != SYM_DEFINITION && !(cml_model_sym_kind (ld, id) & allowed))
      {
        cml_model_fail (ld, line, col, CML_ERROR_MODEL,
              /* TRANSLATORS: what is read (e.g. “a requirement”), the kind of name (e.g.
               * “parameter”) and the name */
              _("%s may not use the %s “%s”"), what,
              cml_model_kind_name (cml_model_sym_kind (ld, id)), cml_expr_ctx_symbol_name (ctx, id));
        return NULL;
      }
  if (ld->def_ids->len)
    {
      guint64 n_nonfinite = cml_expr_ctx_n_nonfinite (ctx);
      e = cml_expr_subs (ctx, e, ld->def_ids->len, (int *) ld->def_ids->data,
                         (CmlExpr **) ld->def_exprs->pdata);
      /* the parser refuses numbers that overflow; they can still arise here
       * (2e200*d with d = 1e200*x) */
      if (cml_expr_ctx_n_nonfinite (ctx) != n_nonfinite)
        {
          cml_model_fail (ld, line, col, CML_ERROR_MODEL,
                _("%s: with the definitions substituted, a numeric constant is not finite (the numbers overflow)"),
                what);
          return NULL;
        }
      if (!cml_model_check_expr_budget (ld, line, col, what))
        return NULL;
      /* a definition may bring in names that are not allowed here */
      memset (deps, 0, ns * sizeof (gboolean));
      cml_expr_collect_symbols (e, deps);
      for (guint id = 0; id < ns; id++)
        if (deps[id] && !(cml_model_sym_kind (ld, id) & allowed))
          {
            cml_model_fail (ld, line, col, CML_ERROR_MODEL, _("%s may not use the %s “%s” (through a definition)"),
                  what, cml_model_kind_name (cml_model_sym_kind (ld, id)), cml_expr_ctx_symbol_name (ctx, id));
            return NULL;
          }
    }
  if (!check_constants_finite (ld, e, line, col, what))
    return NULL;
  return e;
}

CmlExpr *
cml_model_parse_key (Loader *ld, const char *group, const char *key, guint allowed,
                     const char *what)
{
  g_autofree char *v = cml_model_kf_value (ld, group, key);
  Pos *p = cml_model_pos_of (ld, group, key);
  return cml_model_parse_at (ld, g_strstrip (v), p ? p->line : 1, p ? p->value_col : 0, allowed, what);
}

gboolean
cml_model_parse_number (const char *s, double *out)
{
  char *end = NULL;
  g_autofree char *t = g_strstrip (g_strdup (s));

  if (*t == '\0')
    return FALSE;
  errno = 0;
  *out = g_ascii_strtod (t, &end);
  return end && *end == '\0' && errno == 0 && isfinite (*out);
}

/* A constant expression (numbers, pi, parameters at their defaults). */
gboolean
cml_model_eval_constant (Loader *ld, const char *group, const char *key, const char *text,
                         double *out)
{
  Pos *p = cml_model_pos_of (ld, group, key);
  int line = p ? p->line : 1, col = p ? p->value_col : 0;
  CmlModel *model = ld->model;
  g_autofree char *what = g_strconcat ("the value of “", key, "”", NULL);

  if (cml_model_parse_number (text, out))
    return TRUE;
  CmlExpr *e = cml_model_parse_at (ld, text, line, col, SYM_PARAM, what);
  if (e == NULL)
    return FALSE;
  g_autofree double *vals = g_new0 (double, cml_expr_ctx_n_symbols (model->ctx));
  for (guint i = 0; i < model->params->len; i++)
    {
      CmlParam *par = model->params->pdata[i];
      vals[par->sym] = par->value;
    }
  *out = cml_expr_eval (e, vals);
  if (!isfinite (*out))
    return cml_model_fail (ld, line, col, CML_ERROR_MODEL, _("%s is not a finite number"), what);
  return TRUE;
}

/* ---- public ------------------------------------------------------------------------- */

static CmlModel *
model_alloc (void)
{
  CmlModel *model = g_new0 (CmlModel, 1);
  model->ref_count = 1;
  model->ctx = cml_expr_ctx_new ();
  model->params = g_ptr_array_new_with_free_func (cml_model_param_free);
  model->constraints = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->reconstruction = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->monitors = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->quaternions = g_array_new (FALSE, FALSE, sizeof (guint));
  model->base_quaternions = g_array_new (FALSE, FALSE, sizeof (guint));
  model->invariants = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->initial = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->units = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->meanings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->symbols = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->presets = g_ptr_array_new_with_free_func (cml_model_preset_free);
  model->requirements = g_ptr_array_new_with_free_func (cml_model_requirement_free);
  model->scene = g_ptr_array_new_with_free_func (cml_model_scene_object_free);
  model->warnings = g_ptr_array_new_with_free_func (g_free);
  model->references = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->initial_syms = g_array_new (FALSE, FALSE, sizeof (CmlInitialSym));
  return model;
}

CmlModel *
cml_model_new_from_data (const char *text, const char *display_name, GError **error)
{
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (GKeyFile) kf = NULL;
  g_autoptr (GError) kerr = NULL;
  Loader ld = { 0 };
  gboolean ok, unusual = FALSE;

  g_return_val_if_fail (text != NULL, NULL);
  /* a UTF-8 byte-order mark (some editors write one) is not part of the text */
  if (g_str_has_prefix (text, "\xef\xbb\xbf"))
    text += 3;
  if (strnlen (text, CML_MODEL_MAX_BYTES + 1) > CML_MODEL_MAX_BYTES)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   _("%s:1: more than %d bytes, the limit for a model file"), display_name ? display_name : "<model>",
                   CML_MODEL_MAX_BYTES);
      return NULL;
    }
  model = model_alloc ();
  model->path = g_strdup (display_name ? display_name : "<model>");
  model->text = g_strdup (text);

  ld.path = model->path;
  ld.model = model;
  ld.groups = g_ptr_array_new ();
  ld.pos = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, pos_free);
  ld.kinds = g_hash_table_new (g_direct_hash, g_direct_equal);
  ld.def_ids = g_array_new (FALSE, FALSE, sizeof (int));
  ld.def_exprs = g_ptr_array_new ();
  ld.def_names = g_ptr_array_new_with_free_func (g_free);
  ld.mon_ids = g_array_new (FALSE, FALSE, sizeof (int));
  ld.mon_exprs = g_ptr_array_new ();
  ld.error = error;

  const char *bad = NULL;
  if (!g_utf8_validate (text, -1, &bad))
    {
      int line = 1;
      for (const char *c = text; c < bad; c++)
        line += *c == '\n';
      ok = cml_model_fail (&ld, line, 0, CML_ERROR_PARSE, _("the file is not UTF-8 text"));
    }
  else
    ok = cml_model_scan_lines (&ld, text, &unusual);
  /* the line map holds the file's groups and keys; a file with something on which
   * GKeyFile might read otherwise is read by GKeyFile, as all files were before */
  if (ok && unusual)
    {
      ld.kf = kf = g_key_file_new ();
      /* every translation kept, so that it is checked whatever the user's language */
      if (!g_key_file_load_from_data (kf, text, -1, G_KEY_FILE_KEEP_TRANSLATIONS, &kerr))
        ok = cml_model_fail (&ld, 1, 0, CML_ERROR_PARSE, "%s", kerr->message);
    }

  if (ok)
    {
      model->t_sym = cml_expr_ctx_intern (model->ctx, "t");
      g_hash_table_insert (ld.kinds, GINT_TO_POINTER (model->t_sym), GINT_TO_POINTER (SYM_TIME));
    }
  ok = ok && cml_model_check_groups (&ld) && cml_model_check_translations (&ld) && cml_model_load_model_group (&ld) && cml_model_load_parameters (&ld) && cml_model_load_requirements (&ld) && cml_model_load_algebroid_names (&ld)
       && cml_model_declare_reconstruction (&ld) && cml_model_load_definitions (&ld) && cml_model_load_anchor (&ld) && cml_model_load_brackets (&ld)
       && cml_model_load_dynamics (&ld) && cml_model_load_forces (&ld) && cml_model_declare_multipliers (&ld) && cml_model_load_reconstruction (&ld) && cml_model_load_invariants (&ld) && cml_model_load_monitors (&ld) && cml_model_load_initial (&ld)
       && cml_model_load_units (&ld) && cml_model_load_meanings (&ld) && cml_model_load_symbols (&ld) && cml_model_load_labels (&ld) && cml_model_load_output (&ld);
  if (ok)
    {
      g_auto (GStrv) groups = cml_model_kf_groups (&ld);
      for (int k = 0; ok && groups[k]; k++)
        {
          if (g_str_has_prefix (groups[k], "preset "))
            ok = cml_model_load_preset (&ld, groups[k]);
          else if (g_str_has_prefix (groups[k], "scene "))
            ok = cml_model_load_scene_object (&ld, groups[k]);
        }
    }
  /* last: the "NAME_0" names it declares exist for the closed forms only */
  ok = ok && cml_model_load_reference (&ld);
  if (ok)
    {
      /* Remember definitions as named quantities (columns, plots). */
      for (guint k = 0; k < ld.def_names->len; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (ld.def_names->pdata[k]);
          ne->sym = g_array_index (ld.def_ids, int, k);
          ne->expr = ld.def_exprs->pdata[k];
          ne->line = cml_model_line_of (&ld, "definitions", ne->name);
          if (model->definitions == NULL)
            model->definitions = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
          g_ptr_array_add (model->definitions, ne);
        }
    }

  g_ptr_array_unref (ld.groups);
  g_hash_table_unref (ld.pos);
  g_hash_table_unref (ld.kinds);
  g_array_unref (ld.def_ids);
  g_ptr_array_unref (ld.def_exprs);
  g_ptr_array_unref (ld.def_names);
  g_array_unref (ld.mon_ids);
  g_ptr_array_unref (ld.mon_exprs);
  if (!ok)
    return NULL;
  if (model->definitions == NULL)
    model->definitions = g_ptr_array_new_with_free_func (cml_model_named_expr_free);
  model->parsed_nodes = cml_expr_ctx_n_nodes (model->ctx);
  return g_steal_pointer (&model);
}

CmlModel *
cml_model_new_from_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) err = NULL;
  gsize len = 0;
  const char *nul;

  g_return_val_if_fail (path != NULL, NULL);
  /* at most CML_MODEL_MAX_BYTES of a regular file: a FIFO, /dev/zero or a larger file is
   * refused before it is read */
  if (!cml_read_file_capped (path, CML_MODEL_MAX_BYTES, _("a model file"), &text, &len, &err))
    {
      /* a size limit names line 1 ("FILE:1: …"), a system error does not */
      gboolean too_large = g_error_matches (err, CML_ERROR, CML_ERROR_IO);
      g_set_error (error, CML_ERROR, too_large ? CML_ERROR_MODEL : CML_ERROR_IO, too_large ? "%s:1: %s" : "%s: %s",
                   path, err->message);
      return NULL;
    }
  if ((nul = memchr (text, 0, len)) != NULL)
    {
      int line = 1;
      for (const char *c = text; c < nul; c++)
        line += *c == '\n';
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, _("%s:%d: the file contains a NUL byte: not a text file"),
                   path, line);
      return NULL;
    }
  return cml_model_new_from_data (text, path, error);
}

const char *
cml_model_builtin_dir (void)
{
  static char *dir = NULL;
  const char *env = g_getenv ("CMLAB_MODELS_DIR");

  if (env && *env)
    return env;
  if (dir == NULL)
    {
#ifdef CMLAB_MODELS_INSTALL_DIR
      if (g_file_test (CMLAB_MODELS_INSTALL_DIR, G_FILE_TEST_IS_DIR))
        dir = g_strdup (CMLAB_MODELS_INSTALL_DIR);
#endif
      /* a program run from its build tree (BUILD/src/cli/cmlab-cli, BUILD/bench/cmlab-bench),
       * or the object this code is linked into (the Python module BUILD/src/python/cmlab….so,
       * in a python3 from elsewhere): BUILD/models links to the source's models (meson.build) */
      g_autofree char *self = dir == NULL ? g_file_read_link ("/proc/self/exe", NULL) : NULL;
      g_autofree char *object = NULL;
      Dl_info info;
      if (dir == NULL && dladdr ((gpointer) cml_model_builtin_dir, &info) != 0 && info.dli_fname && *info.dli_fname)
        object = g_canonicalize_filename (info.dli_fname, NULL);
      const char *homes[] = { self, object };
      for (guint h = 0; h < G_N_ELEMENTS (homes) && dir == NULL; h++)
        {
          g_autofree char *up = homes[h] ? g_path_get_dirname (homes[h]) : NULL;
          for (guint level = 0; up != NULL && dir == NULL && level < 2; level++)
            {
              char *parent = g_path_get_dirname (up);
              g_autofree char *marker = g_build_filename (parent, "meson-private", NULL);
              g_autofree char *models = g_build_filename (parent, "models", NULL);
              g_free (up);
              up = parent;
              if (g_file_test (marker, G_FILE_TEST_IS_DIR) && g_file_test (models, G_FILE_TEST_IS_DIR))
                dir = g_steal_pointer (&models);
            }
        }
      if (dir == NULL)
        dir = g_strdup ("models");
    }
  return dir;
}

/* Whether the file name F's first LEN bytes make a name to list: not empty, UTF-8, and
 * without a control character (a newline would split it in a list of one name a line,
 * an escape sequence would write on the terminal that shows it). */
static gboolean
name_is_listable (const char *f, gsize len)
{
  if (len == 0 || !g_utf8_validate (f, (gssize) len, NULL))
    return FALSE;
  for (const char *c = f; c < f + len; c = g_utf8_next_char (c))
    if (g_unichar_iscntrl (g_utf8_get_char (c)))
      return FALSE;
  return TRUE;
}

char **
cml_model_list_builtin (void)
{
  g_autoptr (GDir) d = g_dir_open (cml_model_builtin_dir (), 0, NULL);
  GPtrArray *names = g_ptr_array_new ();
  const char *f;

  while (d && (f = g_dir_read_name (d)))
    if (g_str_has_suffix (f, ".cml") && name_is_listable (f, strlen (f) - 4))
      g_ptr_array_add (names, g_strndup (f, strlen (f) - 4));
  g_ptr_array_add (names, NULL);
  char **v = (char **) g_ptr_array_free (names, FALSE);
  guint len = g_strv_length (v);
  for (guint i = 1; i < len; i++)
    for (guint j = i; j > 0 && strcmp (v[j - 1], v[j]) > 0; j--)
      {
        char *tmp = v[j];
        v[j] = v[j - 1];
        v[j - 1] = tmp;
      }
  return v;
}

CmlModel *
cml_model_load (const char *path_or_name, GError **error)
{
  g_return_val_if_fail (path_or_name != NULL, NULL);
  if (g_file_test (path_or_name, G_FILE_TEST_IS_REGULAR) || strchr (path_or_name, '/')
      || g_str_has_suffix (path_or_name, ".cml"))
    return cml_model_new_from_file (path_or_name, error);

  g_autofree char *file = g_strconcat (path_or_name, ".cml", NULL);
  g_autofree char *path = g_build_filename (cml_model_builtin_dir (), file, NULL);
  /* one that is there but is not a regular file (a FIFO) is refused by the reader, in words */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_auto (GStrv) names = cml_model_list_builtin ();
      g_autofree char *list = g_strjoinv (", ", names);
      g_set_error (error, CML_ERROR, CML_ERROR_IO,
                   _("“%s” is neither a model file nor a built-in model (built-in: %s)"), path_or_name, list);
      return NULL;
    }
  return cml_model_new_from_file (path, error);
}

CmlModel *
cml_model_ref (CmlModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);
  g_atomic_int_inc (&model->ref_count);
  return model;
}

void
cml_model_unref (CmlModel *model)
{
  if (model == NULL || !g_atomic_int_dec_and_test (&model->ref_count))
    return;
  g_free (model->path);
  g_free (model->text);
  g_free (model->name);
  g_free (model->title);
  g_free (model->title_untranslated);
  g_free (model->description);
  g_free (model->source);
  g_free (model->about);
  g_free (model->citation);
  g_free (model->errata);
  g_free (model->time_unit);
  g_ptr_array_unref (model->params);
  g_ptr_array_unref (model->requirements);
  g_free (model->require_message);
  g_strfreev (model->base);
  g_free (model->base_sym);
  g_strfreev (model->fibre);
  g_free (model->fibre_sym);
  g_strfreev (model->sections);
  g_strfreev (model->momenta);
  g_free (model->momenta_sym);
  g_free (model->multiplier_sym);
  g_free (model->anchor);
  g_free (model->bracket);
  g_ptr_array_unref (model->constraints);
  g_free (model->solve_for);
  g_free (model->forces);
  g_ptr_array_unref (model->reconstruction);
  g_array_unref (model->quaternions);
  g_array_unref (model->base_quaternions);
  g_ptr_array_unref (model->invariants);
  g_ptr_array_unref (model->monitors);
  if (model->definitions)
    g_ptr_array_unref (model->definitions);
  g_hash_table_unref (model->initial);
  g_hash_table_unref (model->units);
  g_hash_table_unref (model->meanings);
  g_hash_table_unref (model->symbols);
  g_hash_table_unref (model->labels);
  g_strfreev (model->columns);
  g_ptr_array_unref (model->presets);
  g_ptr_array_unref (model->scene);
  g_ptr_array_unref (model->warnings);
  g_ptr_array_unref (model->references);
  g_array_unref (model->initial_syms);
  cml_expr_ctx_free (model->ctx);
  g_free (model);
}
