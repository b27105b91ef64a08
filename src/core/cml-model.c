/* cml-model.c — reading and validating model files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file is a GLib key file.  GKeyFile does not report line numbers, so a first pass
 * over the text records where every group and key stands (and rejects lines that are not
 * a group, a key = value line or a comment); every later error names that line.  Names
 * are declared in a fixed order — parameters, time, coordinates, momenta, sections,
 * reconstruction variables — before any expression is parsed, so that the parser can
 * reject unknown names.  Each category of expression then may use only some kinds of
 * names (the Lagrangian may not use a momentum, …), which is checked after parsing.
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cml-error.h"

/* What kind of thing a symbol of the model's context names. */
typedef enum
{
  SYM_NONE = 0,
  SYM_PARAM = 1 << 0,
  SYM_TIME = 1 << 1,
  SYM_BASE = 1 << 2,
  SYM_FIBRE = 1 << 3,
  SYM_MOMENTUM = 1 << 4,
  SYM_SECTION = 1 << 5,
  SYM_RECON = 1 << 6,
  SYM_DEFINITION = 1 << 7,
  SYM_MONITOR = 1 << 8,
  SYM_INITIAL = 1 << 9, /* [reference]: an observable's value at t = 0, "x_0" */
} SymKind;

typedef struct
{
  int line;
  int value_col; /* 1-based column where the value starts */
} Pos;

typedef struct
{
  const char *path;
  CmlModel   *model;
  GKeyFile   *kf;
  GHashTable *pos;       /* "group\nkey" or "group" -> Pos* */
  GHashTable *kinds;     /* symbol id -> SymKind (GINT_TO_POINTER) */
  GArray     *def_ids;   /* int */
  GPtrArray  *def_exprs; /* CmlExpr* (already expanded) */
  GPtrArray  *def_names; /* char*, owned */
  GArray     *mon_ids;   /* int: monitors, substituted in scene expressions */
  GPtrArray  *mon_exprs; /* CmlExpr* */
  GError    **error;
} Loader;

static const char *reserved_names[] = {
  "t", "pi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
  "tanh", "exp", "log", "sqrt", "abs", "pow", "sign", NULL
};

/* ---- errors ------------------------------------------------------------------------- */

G_GNUC_PRINTF (5, 6)
static gboolean
fail (Loader *ld, int line, int col, int code, const char *fmt, ...)
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

static Pos *
pos_of (Loader *ld, const char *group, const char *key)
{
  g_autofree char *k = key ? g_strdup_printf ("%s\n%s", group, key) : g_strdup (group);
  return g_hash_table_lookup (ld->pos, k);
}

static int
line_of (Loader *ld, const char *group, const char *key)
{
  Pos *p = pos_of (ld, group, key);
  if (p == NULL && key)
    p = pos_of (ld, group, NULL);
  return p ? p->line : 1;
}

/* ---- first pass: the line map ------------------------------------------------------- */

static gboolean
scan_lines (Loader *ld, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *group = NULL;
  guint n_groups = 0, n_keys = 0;

  for (int i = 0; lines[i]; i++)
    {
      const char *raw = lines[i];
      g_autofree char *s = g_strstrip (g_strdup (raw));
      int lineno = i + 1;

      if (*s == '\0' || *s == '#')
        continue;
      if (*s == '[')
        {
          const char *end = strchr (s, ']');
          if (end == NULL || end[1] != '\0' || strchr (s + 1, '[') != NULL)
            return fail (ld, lineno, 0, CML_ERROR_PARSE, "a group header must look like [name]");
          g_free (group);
          group = g_strndup (s + 1, end - s - 1);
          n_keys = 0;
          if (++n_groups > CML_MODEL_MAX_GROUPS)
            return fail (ld, lineno, 0, CML_ERROR_MODEL, "more than %d groups, the limit for a model",
                         CML_MODEL_MAX_GROUPS);
          if (g_hash_table_contains (ld->pos, group))
            return fail (ld, lineno, 0, CML_ERROR_MODEL, "group [%s] appears twice", group);
          Pos *p = g_new0 (Pos, 1);
          p->line = lineno;
          g_hash_table_insert (ld->pos, g_strdup (group), p);
          continue;
        }
      const char *eq = strchr (raw, '=');
      if (eq == NULL)
        return fail (ld, lineno, 0, CML_ERROR_PARSE,
                     "“%s” is not a key = value line, a [group] or a # comment", s);
      if (group == NULL)
        return fail (ld, lineno, 0, CML_ERROR_PARSE, "key before the first [group]");
      if (++n_keys > CML_MODEL_MAX_KEYS)
        return fail (ld, lineno, 0, CML_ERROR_MODEL, "more than %d keys in [%s], the limit for a group",
                     CML_MODEL_MAX_KEYS, group);
      g_autofree char *key = g_strstrip (g_strndup (raw, eq - raw));
      if (*key == '\0')
        return fail (ld, lineno, 0, CML_ERROR_PARSE, "missing key before '='");
      if (strpbrk (key, "[]") != NULL)
        return fail (ld, lineno, 0, CML_ERROR_PARSE, "“%s” is not a valid key (no [ or ] in keys)", key);
      g_autofree char *k = g_strdup_printf ("%s\n%s", group, key);
      if (g_hash_table_contains (ld->pos, k))
        return fail (ld, lineno, 0, CML_ERROR_MODEL, "key “%s” appears twice in [%s]", key, group);
      const char *v = eq + 1;
      while (*v == ' ' || *v == '\t')
        v++;
      Pos *p = g_new0 (Pos, 1);
      p->line = lineno;
      p->value_col = (int) g_utf8_pointer_to_offset (raw, v) + 1;
      g_hash_table_insert (ld->pos, g_steal_pointer (&k), p);
    }
  return TRUE;
}

/* ---- names -------------------------------------------------------------------------- */

static gboolean
is_identifier (const char *s)
{
  if (!(g_ascii_isalpha (*s) || *s == '_'))
    return FALSE;
  for (s++; *s; s++)
    if (!(g_ascii_isalnum (*s) || *s == '_'))
      return FALSE;
  return TRUE;
}

static const char *
kind_name (SymKind k)
{
  switch (k)
    {
    case SYM_PARAM: return "parameter";
    case SYM_TIME: return "time";
    case SYM_BASE: return "base coordinate";
    case SYM_FIBRE: return "fibre coordinate";
    case SYM_MOMENTUM: return "momentum";
    case SYM_SECTION: return "section";
    case SYM_RECON: return "reconstruction variable";
    case SYM_DEFINITION: return "definition";
    case SYM_MONITOR: return "monitor";
    case SYM_INITIAL: return "initial value";
    default: return "name";
    }
}

static SymKind
sym_kind (Loader *ld, int id)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (ld->kinds, GINT_TO_POINTER (id)));
}

/* Declares NAME as a symbol of kind KIND; fails on a bad or duplicate name. */
static int
declare (Loader *ld, const char *name, SymKind kind, int line)
{
  CmlExprCtx *ctx = ld->model->ctx;

  if (!is_identifier (name))
    {
      fail (ld, line, 0, CML_ERROR_MODEL, "“%s” is not a valid name (letters, digits, _)", name);
      return -1;
    }
  if (g_strv_contains (reserved_names, name))
    {
      fail (ld, line, 0, CML_ERROR_MODEL, "“%s” is a reserved name", name);
      return -1;
    }
  int id = cml_expr_ctx_lookup (ctx, name);
  if (id >= 0)
    {
      fail (ld, line, 0, CML_ERROR_MODEL, "“%s” is already declared as a %s", name,
            kind_name (sym_kind (ld, id)));
      return -1;
    }
  id = cml_expr_ctx_intern (ctx, name);
  g_hash_table_insert (ld->kinds, GINT_TO_POINTER (id), GINT_TO_POINTER (kind));
  return id;
}

/* Splits S at top-level occurrences of SEP (not inside parentheses); trims the parts.
 * OFFSETS receives the byte offset of each trimmed part in S. */
static GPtrArray *
split_top (const char *s, char sep, GArray *offsets)
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
static GPtrArray *
name_list (const char *value)
{
  GPtrArray *parts = split_top (value ? value : "", ',', NULL);
  if (parts->len == 1 && *(char *) parts->pdata[0] == '\0')
    g_ptr_array_set_size (parts, 0);
  return parts;
}

/* ---- expressions -------------------------------------------------------------------- */

/* The expressions built so far stay within CML_MODEL_MAX_EXPR_BYTES.  Checked after every
 * substitution: one substitution at most doubles what exists, so memory stays bounded
 * (20,000 chained definitions, each a sum one term longer than the last, once ran for
 * minutes and took gigabytes). */
static gboolean
check_expr_budget (Loader *ld, int line, int col, const char *what)
{
  gsize bytes = cml_expr_ctx_memory (ld->model->ctx);

  if (bytes <= CML_MODEL_MAX_EXPR_BYTES)
    return TRUE;
  return fail (ld, line, col, CML_ERROR_MODEL,
               "%s: with the definitions substituted, the expressions take more than %u MB, the limit "
               "for a model (share subexpressions differently, or use fewer definitions)",
               what, (guint) (CML_MODEL_MAX_EXPR_BYTES / (1024 * 1024)));
}

/* No constant part of E is infinite or NaN (1/0, log(-1)): it would load and fail only when
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
  return fail (ld, line, col, CML_ERROR_MODEL, "%s: the constant “%s” is not finite (%s)", what, text,
               isnan (v) ? "NaN" : v > 0 ? "inf" : "-inf");
}

/* Parses TEXT, found at (LINE, COL) of the file, substitutes the definitions, and checks
 * that every symbol used is of a kind in ALLOWED.  WHAT names the expression in errors. */
static CmlExpr *
parse_at (Loader *ld, const char *text, int line, int col, guint allowed, const char *what)
{
  CmlExprCtx *ctx = ld->model->ctx;
  g_autoptr (GError) err = NULL;
  int ecol = 0;
  CmlExpr *e;

  if (text == NULL || *text == '\0')
    {
      fail (ld, line, col, CML_ERROR_PARSE, "%s: empty expression", what);
      return NULL;
    }
  e = cml_expr_parse (ctx, text, &ecol, &err);
  if (e == NULL)
    {
      fail (ld, line, col > 0 ? col + MAX (ecol, 1) - 1 : 0, err->code, "%s: %s", what, err->message);
      return NULL;
    }
  /* names that are not allowed here */
  guint ns = cml_expr_ctx_n_symbols (ctx);
  g_autofree gboolean *deps = g_new0 (gboolean, ns);
  cml_expr_collect_symbols (e, deps);
  for (guint id = 0; id < ns; id++)
    if (deps[id] && sym_kind (ld, id) != SYM_DEFINITION && !(sym_kind (ld, id) & allowed))
      {
        fail (ld, line, col, CML_ERROR_MODEL, "%s may not use the %s “%s”", what,
              kind_name (sym_kind (ld, id)), cml_expr_ctx_symbol_name (ctx, id));
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
          fail (ld, line, col, CML_ERROR_MODEL,
                "%s: with the definitions substituted, a numeric constant is not finite (the numbers overflow)",
                what);
          return NULL;
        }
      if (!check_expr_budget (ld, line, col, what))
        return NULL;
      /* a definition may bring in names that are not allowed here */
      memset (deps, 0, ns * sizeof (gboolean));
      cml_expr_collect_symbols (e, deps);
      for (guint id = 0; id < ns; id++)
        if (deps[id] && !(sym_kind (ld, id) & allowed))
          {
            fail (ld, line, col, CML_ERROR_MODEL, "%s may not use the %s “%s” (through a definition)",
                  what, kind_name (sym_kind (ld, id)), cml_expr_ctx_symbol_name (ctx, id));
            return NULL;
          }
    }
  if (!check_constants_finite (ld, e, line, col, what))
    return NULL;
  return e;
}

static CmlExpr *
parse_key (Loader *ld, const char *group, const char *key, guint allowed, const char *what)
{
  g_autofree char *v = g_key_file_get_value (ld->kf, group, key, NULL);
  Pos *p = pos_of (ld, group, key);
  return parse_at (ld, g_strstrip (v), p ? p->line : 1, p ? p->value_col : 0, allowed, what);
}

static gboolean
parse_number (const char *s, double *out)
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
static gboolean
eval_constant (Loader *ld, const char *group, const char *key, const char *text, double *out)
{
  Pos *p = pos_of (ld, group, key);
  int line = p ? p->line : 1, col = p ? p->value_col : 0;
  CmlModel *model = ld->model;
  g_autofree char *what = g_strdup_printf ("the value of “%s”", key);

  if (parse_number (text, out))
    return TRUE;
  CmlExpr *e = parse_at (ld, text, line, col, SYM_PARAM, what);
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
    return fail (ld, line, col, CML_ERROR_MODEL, "%s is not a finite number", what);
  return TRUE;
}

/* ---- groups ------------------------------------------------------------------------- */

static gboolean
check_keys (Loader *ld, const char *group, const char *const *known)
{
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, group, NULL, NULL);
  for (int i = 0; keys && keys[i]; i++)
    if (!g_strv_contains (known, keys[i]))
      {
        g_autofree char *list = g_strjoinv (", ", (char **) known);
        return fail (ld, line_of (ld, group, keys[i]), 0, CML_ERROR_MODEL,
                     "unknown key “%s” in [%s] (known: %s)", keys[i], group, list);
      }
  return TRUE;
}

/* A key file's text value with its escapes (\s \n \t \r \\) replaced.  Not
 * g_key_file_get_string(): on a value with an unknown escape and a backslash at its end
 * it sets its GError twice (a GLib warning); here a stray backslash is kept as written. */
static char *
unescape_value (const char *raw)
{
  GString *s = g_string_sized_new (strlen (raw));

  for (const char *p = raw; *p; p++)
    {
      if (*p != '\\' || p[1] == '\0')
        {
          g_string_append_c (s, *p);
          continue;
        }
      switch (*++p)
        {
        case 's':  g_string_append_c (s, ' '); break;
        case 'n':  g_string_append_c (s, '\n'); break;
        case 't':  g_string_append_c (s, '\t'); break;
        case 'r':  g_string_append_c (s, '\r'); break;
        case '\\': g_string_append_c (s, '\\'); break;
        default:   g_string_append_c (s, '\\'); g_string_append_c (s, *p); break;
        }
    }
  return g_string_free (s, FALSE);
}

static char *
get_string (Loader *ld, const char *group, const char *key)
{
  g_autofree char *raw = g_key_file_get_value (ld->kf, group, key, NULL);

  if (raw == NULL)
    return NULL;
  return g_strstrip (unescape_value (raw));
}

static gboolean
load_model_group (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "name", "title", "description", "about", "citation", "source", "errata",
                                 "time-unit", NULL };

  if (!g_key_file_has_group (ld->kf, "model"))
    return fail (ld, 1, 0, CML_ERROR_MODEL, "missing group [model] (with name and title)");
  if (!check_keys (ld, "model", known))
    return FALSE;
  model->name = get_string (ld, "model", "name");
  model->title = get_string (ld, "model", "title");
  model->description = get_string (ld, "model", "description");
  model->about = get_string (ld, "model", "about");
  model->citation = get_string (ld, "model", "citation");
  model->source = get_string (ld, "model", "source");
  model->errata = get_string (ld, "model", "errata");
  model->time_unit = get_string (ld, "model", "time-unit");
  if (model->time_unit == NULL)
    model->time_unit = g_strdup ("s");
  if (model->name == NULL || *model->name == '\0')
    return fail (ld, line_of (ld, "model", NULL), 0, CML_ERROR_MODEL, "[model] needs a name");
  for (const char *c = model->name; *c; c++)
    if (!(g_ascii_isalnum (*c) || *c == '-' || *c == '_'))
      return fail (ld, line_of (ld, "model", "name"), 0, CML_ERROR_MODEL,
                   "a model name may contain letters, digits, - and _ only");
  if (model->title == NULL || *model->title == '\0')
    return fail (ld, line_of (ld, "model", NULL), 0, CML_ERROR_MODEL, "[model] needs a title");
  return TRUE;
}

static void
param_free (gpointer p)
{
  CmlParam *par = p;
  g_free (par->name);
  g_free (par->choices);
  g_free (par->unit);
  g_free (par->meaning);
  g_free (par);
}

static gboolean
load_parameters (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "parameters", NULL, NULL);

  for (int i = 0; keys && keys[i]; i++)
    {
      int line = line_of (ld, "parameters", keys[i]);
      g_autofree char *v = g_key_file_get_value (ld->kf, "parameters", keys[i], NULL);
      g_autoptr (GPtrArray) parts = split_top (v, '|', NULL);
      CmlParam *par;
      int sym;

      if (parts->len < 2)
        return fail (ld, line, 0, CML_ERROR_PARSE,
                     "a parameter reads “name = default | min .. max | unit | meaning”");
      sym = declare (ld, keys[i], SYM_PARAM, line);
      if (sym < 0)
        return FALSE;
      par = g_new0 (CmlParam, 1);
      par->name = g_strdup (keys[i]);
      par->sym = sym;
      par->min = -INFINITY;
      par->max = INFINITY;
      g_ptr_array_add (model->params, par);
      if (!parse_number (parts->pdata[0], &par->value))
        return fail (ld, line, 0, CML_ERROR_PARSE, "the default of “%s” is not a number: “%s”",
                     keys[i], (char *) parts->pdata[0]);
      const char *range = parts->pdata[1];
      if (*range == '{')
        {
          const char *close = strchr (range, '}');
          if (close == NULL || close[1] != '\0')
            return fail (ld, line, 0, CML_ERROR_PARSE, "a set of values reads {a, b, …}");
          g_autofree char *inner = g_strndup (range + 1, close - range - 1);
          g_autoptr (GPtrArray) items = name_list (inner);
          if (items->len == 0)
            return fail (ld, line, 0, CML_ERROR_PARSE, "an empty set of values for “%s”", keys[i]);
          par->choices = g_new (double, items->len);
          par->n_choices = items->len;
          par->min = INFINITY;
          par->max = -INFINITY;
          for (guint k = 0; k < items->len; k++)
            {
              if (!parse_number (items->pdata[k], &par->choices[k]))
                return fail (ld, line, 0, CML_ERROR_PARSE, "“%s” is not a number",
                             (char *) items->pdata[k]);
              par->min = MIN (par->min, par->choices[k]);
              par->max = MAX (par->max, par->choices[k]);
            }
        }
      else if (*range != '\0')
        {
          const char *dots = strstr (range, "..");
          if (dots == NULL)
            return fail (ld, line, 0, CML_ERROR_PARSE, "a range reads “min .. max”");
          g_autofree char *a = g_strndup (range, dots - range);
          if (!parse_number (a, &par->min) || !parse_number (dots + 2, &par->max))
            return fail (ld, line, 0, CML_ERROR_PARSE, "the range of “%s” is not two numbers", keys[i]);
          if (par->min > par->max)
            return fail (ld, line, 0, CML_ERROR_MODEL, "the range of “%s” has min > max", keys[i]);
        }
      par->unit = g_strdup (parts->len > 2 ? (char *) parts->pdata[2] : "");
      {
        /* the meaning may itself contain '|': keep the rest of the line */
        GString *meaning = g_string_new (NULL);
        for (guint k = 3; k < parts->len; k++)
          g_string_append_printf (meaning, "%s%s", k > 3 ? " | " : "", (char *) parts->pdata[k]);
        par->meaning = g_string_free (meaning, FALSE);
      }
      {
        g_autoptr (GError) err = NULL;
        if (!cml_model_check_param (model, par, par->value, &err))
          return fail (ld, line, 0, CML_ERROR_MODEL, "the default: %s", err->message);
      }
    }
  return TRUE;
}

/* "first", "second", … for the fibre coordinate A (from 0). */
static char *
ordinal (guint a)
{
  static const char *const words[] = { "first", "second", "third", "fourth", "fifth",
                                       "sixth", "seventh", "eighth", "ninth", "tenth" };
  return a < G_N_ELEMENTS (words) ? g_strdup (words[a]) : g_strdup_printf ("%u-th", a + 1);
}

/* NAME, the implied WHAT (section e1, momentum p1) of fibre coordinate A, is not taken by
 * something declared before (a parameter p1): says so at that thing's line, and how to
 * get out of it. */
static gboolean
implied_name_free (Loader *ld, const char *name, const char *what, const char *key, guint a)
{
  int id = cml_expr_ctx_lookup (ld->model->ctx, name);
  SymKind kind;
  int line;

  if (id < 0)
    return TRUE;
  kind = sym_kind (ld, id);
  /* a fibre coordinate named e1 or p1 is told by declare () in the same line */
  if (kind == SYM_FIBRE)
    return TRUE;
  line = kind == SYM_PARAM ? line_of (ld, "parameters", name) : line_of (ld, "algebroid", "fibre");
  g_autofree char *nth = ordinal (a);
  return fail (ld, line, 0, CML_ERROR_MODEL,
               "the name of the %s “%s” is taken by the %s of the %s fibre coordinate “%s” (%s are "
               "named %s1, %s2, … unless [algebroid] %s = … names them): rename the %s, or name the %s",
               kind_name (kind), name, what, nth, ld->model->fibre[a], key, key[0] == 's' ? "e" : "p",
               key[0] == 's' ? "e" : "p", key, kind_name (kind), key);
}

/* The names of [algebroid]: base, fibre, sections, momenta. */
static gboolean
load_algebroid_names (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "base", "fibre", "sections", "momenta", NULL };
  g_autofree char *base = NULL, *fibre = NULL, *sections = NULL, *momenta = NULL;

  if (!g_key_file_has_group (ld->kf, "algebroid"))
    return fail (ld, 1, 0, CML_ERROR_MODEL, "missing group [algebroid] (base and fibre coordinates)");
  if (!check_keys (ld, "algebroid", known))
    return FALSE;
  fibre = get_string (ld, "algebroid", "fibre");
  if (fibre == NULL)
    return fail (ld, line_of (ld, "algebroid", NULL), 0, CML_ERROR_MODEL,
                 "[algebroid] needs “fibre”, the fibre coordinates");
  base = get_string (ld, "algebroid", "base");
  sections = get_string (ld, "algebroid", "sections");
  momenta = get_string (ld, "algebroid", "momenta");

  g_autoptr (GPtrArray) b = name_list (base);
  g_autoptr (GPtrArray) f = name_list (fibre);
  if (f->len == 0)
    return fail (ld, line_of (ld, "algebroid", "fibre"), 0, CML_ERROR_MODEL,
                 "there must be at least one fibre coordinate");
  if (b->len > CML_MODEL_MAX_BASE)
    return fail (ld, line_of (ld, "algebroid", "base"), 0, CML_ERROR_MODEL,
                 "%u base coordinates, more than %d, the limit for a model", b->len, CML_MODEL_MAX_BASE);
  if (f->len > CML_MODEL_MAX_FIBRE)
    return fail (ld, line_of (ld, "algebroid", "fibre"), 0, CML_ERROR_MODEL,
                 "%u fibre coordinates, more than %d, the limit for a model", f->len, CML_MODEL_MAX_FIBRE);
  model->m = b->len;
  model->n = f->len;
  model->base = g_new0 (char *, model->m + 1);
  model->base_sym = g_new0 (int, model->m + 1);
  model->fibre = g_new0 (char *, model->n + 1);
  model->fibre_sym = g_new0 (int, model->n + 1);
  model->sections = g_new0 (char *, model->n + 1);
  model->momenta = g_new0 (char *, model->n + 1);
  model->momenta_sym = g_new0 (int, model->n + 1);
  for (guint i = 0; i < model->m; i++)
    {
      model->base[i] = g_strdup (b->pdata[i]);
      if ((model->base_sym[i] = declare (ld, model->base[i], SYM_BASE, line_of (ld, "algebroid", "base"))) < 0)
        return FALSE;
    }
  for (guint a = 0; a < model->n; a++)
    {
      model->fibre[a] = g_strdup (f->pdata[a]);
      if ((model->fibre_sym[a] = declare (ld, model->fibre[a], SYM_FIBRE, line_of (ld, "algebroid", "fibre"))) < 0)
        return FALSE;
    }
  g_autoptr (GPtrArray) s = name_list (sections);
  g_autoptr (GPtrArray) p = name_list (momenta);
  if (sections && s->len != model->n)
    return fail (ld, line_of (ld, "algebroid", "sections"), 0, CML_ERROR_MODEL,
                 "%u sections for %u fibre coordinates", s->len, model->n);
  if (momenta && p->len != model->n)
    return fail (ld, line_of (ld, "algebroid", "momenta"), 0, CML_ERROR_MODEL,
                 "%u momenta for %u fibre coordinates", p->len, model->n);
  for (guint a = 0; a < model->n; a++)
    {
      model->sections[a] = sections ? g_strdup (s->pdata[a]) : g_strdup_printf ("e%u", a + 1);
      model->momenta[a] = momenta ? g_strdup (p->pdata[a]) : g_strdup_printf ("p%u", a + 1);
      if ((!sections && !implied_name_free (ld, model->sections[a], "section", "sections", a))
          || (!momenta && !implied_name_free (ld, model->momenta[a], "momentum", "momenta", a)))
        return FALSE;
      if (declare (ld, model->sections[a], SYM_SECTION, line_of (ld, "algebroid", sections ? "sections" : "fibre")) < 0)
        return FALSE;
      if ((model->momenta_sym[a] = declare (ld, model->momenta[a], SYM_MOMENTUM,
                                            line_of (ld, "algebroid", momenta ? "momenta" : "fibre"))) < 0)
        return FALSE;
    }
  return TRUE;
}

static int
section_index (CmlModel *model, const char *name)
{
  for (guint a = 0; a < model->n; a++)
    if (g_str_equal (model->sections[a], name))
      return a;
  return -1;
}

static gboolean
load_anchor (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "anchor", NULL, NULL);

  model->anchor = g_new (CmlExpr *, MAX (model->m * model->n, 1));
  for (guint k = 0; k < model->m * model->n; k++)
    model->anchor[k] = cml_expr_num (ctx, 0);

  for (int k = 0; keys && keys[k]; k++)
    {
      Pos *p = pos_of (ld, "anchor", keys[k]);
      int A = section_index (model, keys[k]);
      if (A < 0)
        {
          g_autofree char *list = g_strjoinv (", ", model->sections);
          return fail (ld, p->line, 0, CML_ERROR_UNKNOWN_NAME, "“%s” is not a section (sections: %s)",
                       keys[k], list);
        }
      g_autofree char *v = g_key_file_get_value (ld->kf, "anchor", keys[k], NULL);
      g_autoptr (GArray) offs = g_array_new (FALSE, FALSE, sizeof (int));
      g_autoptr (GPtrArray) items = split_top (v, ';', offs);
      for (guint j = 0; j < items->len; j++)
        {
          const char *item = items->pdata[j];
          const char *colon = strchr (item, ':');
          if (*item == '\0')
            continue;
          if (colon == NULL)
            return fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_PARSE,
                         "an anchor component reads “coordinate: expression”");
          g_autofree char *cname = g_strstrip (g_strndup (item, colon - item));
          int i = -1;
          for (guint b = 0; b < model->m; b++)
            if (g_str_equal (model->base[b], cname))
              i = b;
          if (i < 0)
            return fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_UNKNOWN_NAME,
                         "“%s” is not a base coordinate", cname);
          if (!cml_expr_is_zero (model->anchor[i * model->n + A]))
            return fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_MODEL,
                         "the component along “%s” is given twice", cname);
          const char *ex = colon + 1;
          while (*ex == ' ')
            ex++;
          int col = p->value_col + g_array_index (offs, int, j) + (int) (ex - item);
          CmlExpr *e = parse_at (ld, ex, p->line, col, SYM_PARAM | SYM_BASE, "an anchor component");
          if (e == NULL)
            return FALSE;
          model->anchor[i * model->n + A] = e;
        }
    }
  return TRUE;
}

/* Whether E, a difference of the N_PARTS expressions PARTS (E = PARTS[0] - PARTS[1] - …),
 * vanishes identically: structurally, or else at a few pseudo-random points (never by
 * expanding, which can blow up: (x + y + z + a + b)^64 has 814385 terms).  At a point E
 * must be 0 to 1e-9 relative to the largest part there, so that neither rounding in
 * large terms (1e12*x*e3 written two ways) counts as a difference nor a small genuine
 * difference (1e-12*e3^2 in a bracket) passes as none. */
static gboolean
vanishes (CmlExprCtx *ctx, CmlExpr *e, guint n_parts, CmlExpr *const *parts)
{
  guint ns;
  g_autofree double *v = NULL;
  g_autoptr (GRand) rand = NULL;

  if (cml_expr_is_zero (e))
    return TRUE;
  ns = cml_expr_ctx_n_symbols (ctx);
  v = g_new (double, MAX (ns, 1));
  rand = g_rand_new_with_seed (4242);
  for (int k = 0; k < 4; k++)
    {
      double scale = 0;
      for (guint i = 0; i < ns; i++)
        v[i] = g_rand_double_range (rand, 0.3, 1.3);
      for (guint j = 0; j < n_parts; j++)
        scale = MAX (scale, fabs (cml_expr_eval (parts[j], v)));
      double val = cml_expr_eval (e, v);
      /* (a part that is not finite makes SCALE inf or NaN: then E does not vanish) */
      if (!(isfinite (scale) && fabs (val) <= 1e-9 * scale))
        return FALSE;
    }
  return TRUE;
}

static gboolean
load_brackets (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  guint n = model->n;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "brackets", NULL, NULL);
  g_autofree gboolean *given = g_new0 (gboolean, n * n);
  g_autofree int *sec_sym = g_new (int, n);

  model->bracket = g_new (CmlExpr *, n * n * n);
  for (guint k = 0; k < n * n * n; k++)
    model->bracket[k] = cml_expr_num (ctx, 0);
  for (guint a = 0; a < n; a++)
    sec_sym[a] = cml_expr_ctx_lookup (ctx, model->sections[a]);

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, "brackets", keys[k]);
      g_autoptr (GPtrArray) pair = name_list (keys[k]);
      if (pair->len != 2)
        return fail (ld, line, 0, CML_ERROR_PARSE, "a bracket reads “eA, eB = combination of sections”");
      int A = section_index (model, pair->pdata[0]);
      int B = section_index (model, pair->pdata[1]);
      if (A < 0 || B < 0)
        return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME, "“%s” is not a section",
                     (char *) pair->pdata[A < 0 ? 0 : 1]);
      CmlExpr *e = parse_key (ld, "brackets", keys[k], SYM_PARAM | SYM_BASE | SYM_SECTION, "a bracket");
      if (e == NULL)
        return FALSE;
      /* coefficients C^C_AB = ∂e/∂e_C, and e must be linear in the sections:
       * e − Σ_C C^C_AB e_C vanishes, compared with e and the terms C^C_AB e_C */
      CmlExpr **coef = g_newa (CmlExpr *, n);
      CmlExpr **parts = g_newa (CmlExpr *, n + 1);
      CmlExpr *rest = e;
      parts[0] = e;
      for (guint C = 0; C < n; C++)
        {
          coef[C] = cml_expr_diff (ctx, e, sec_sym[C]);
          parts[C + 1] = cml_expr_mul (ctx, coef[C], cml_expr_sym (ctx, sec_sym[C]));
          rest = cml_expr_sub (ctx, rest, parts[C + 1]);
        }
      gboolean linear = vanishes (ctx, rest, n + 1, parts);
      for (guint C = 0; C < n && linear; C++)
        for (guint D = 0; D < n; D++)
          if (cml_expr_depends_on (coef[C], sec_sym[D]))
            linear = FALSE;
      if (!linear)
        return fail (ld, line, 0, CML_ERROR_MODEL,
                     "a bracket must be a linear combination of sections with coefficients that do not involve sections");
      if (A == B)
        {
          for (guint C = 0; C < n; C++)
            if (!cml_expr_is_zero (coef[C]))
              return fail (ld, line, 0, CML_ERROR_MODEL,
                           "[[%s, %s]] must be 0: brackets are antisymmetric", model->sections[A], model->sections[A]);
          continue;
        }
      if (given[B * n + A])
        {
          /* both orders given: they must be opposite */
          for (guint C = 0; C < n; C++)
            if (!vanishes (ctx, cml_expr_add (ctx, coef[C], model->bracket[(B * n + A) * n + C]), 2,
                           (CmlExpr *[]) { coef[C], model->bracket[(B * n + A) * n + C] }))
              return fail (ld, line, 0, CML_ERROR_MODEL,
                           "[[%s, %s]] is not minus [[%s, %s]]: brackets must be antisymmetric",
                           model->sections[A], model->sections[B], model->sections[B], model->sections[A]);
          continue;
        }
      given[A * n + B] = TRUE;
      for (guint C = 0; C < n; C++)
        {
          model->bracket[(A * n + B) * n + C] = coef[C];
          model->bracket[(B * n + A) * n + C] = cml_expr_neg (ctx, coef[C]);
        }
    }
  return TRUE;
}

static void
named_expr_free (gpointer p)
{
  CmlNamedExpr *ne = p;
  g_free (ne->name);
  g_free (ne);
}

static int
fibre_index (CmlModel *model, const char *name)
{
  for (guint a = 0; a < model->n; a++)
    if (g_str_equal (model->fibre[a], name))
      return a;
  return -1;
}

/* [dynamics] solve-for: the coordinates the constraints determine from the others (used
 * for initial data).  Nonholonomic constraints determine fibre coordinates, one per
 * constraint; the constraint set of a singular Lagrangian may also fix base coordinates,
 * and how many constraints it has is known only once the constraint algorithm has run
 * (cml_system_new checks the count and that the constraints can be solved for them). */
static gboolean
load_solve_for (Loader *ld)
{
  CmlModel *model = ld->model;
  g_autofree char *solve = get_string (ld, "dynamics", "solve-for");
  g_autoptr (GPtrArray) sf = name_list (solve);
  int line = line_of (ld, "dynamics", "solve-for");
  gboolean nonholonomic = model->kind == CML_CONSTRAINTS_NONHOLONOMIC;

  if (solve == NULL)
    return TRUE;
  if (sf->len == 0)
    return fail (ld, line, 0, CML_ERROR_MODEL, "solve-for is empty");
  if (nonholonomic && sf->len != model->constraints->len)
    return fail (ld, line, 0, CML_ERROR_MODEL,
                 "solve-for names %u coordinates for %u constraints", sf->len, model->constraints->len);
  model->n_solve_for = sf->len;
  model->solve_for = g_new0 (int, sf->len + 1);
  for (guint k = 0; k < sf->len; k++)
    {
      const char *nm = sf->pdata[k];
      int A = fibre_index (model, nm), i = -1;
      for (guint j = 0; j < model->m; j++)
        if (g_str_equal (model->base[j], nm))
          i = j;
      if (A >= 0)
        model->solve_for[k] = model->m + A;
      else if (i >= 0 && !nonholonomic)
        model->solve_for[k] = i;
      else if (i >= 0)
        return fail (ld, line, 0, CML_ERROR_MODEL,
                     "“%s” is a base coordinate: nonholonomic constraints determine fibre coordinates", nm);
      else
        return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME, nonholonomic ? "“%s” is not a fibre coordinate"
                                                                         : "“%s” is not a base or fibre coordinate",
                     nm);
      for (guint j = 0; j < k; j++)
        if (model->solve_for[j] == model->solve_for[k])
          return fail (ld, line, 0, CML_ERROR_MODEL, "“%s” appears twice in solve-for", nm);
    }
  return TRUE;
}

static gboolean
load_dynamics (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "lagrangian", "constraints", "solve-for", NULL };
  g_autofree char *kind = NULL;

  if (!g_key_file_has_group (ld->kf, "dynamics"))
    return fail (ld, 1, 0, CML_ERROR_MODEL, "missing group [dynamics] (with the lagrangian)");
  if (!check_keys (ld, "dynamics", known))
    return FALSE;
  if (!g_key_file_has_key (ld->kf, "dynamics", "lagrangian", NULL))
    return fail (ld, line_of (ld, "dynamics", NULL), 0, CML_ERROR_MODEL, "[dynamics] needs a lagrangian");
  model->lagrangian_line = line_of (ld, "dynamics", "lagrangian");
  model->lagrangian = parse_key (ld, "dynamics", "lagrangian",
                                 SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE, "the Lagrangian");
  if (model->lagrangian == NULL)
    return FALSE;

  kind = get_string (ld, "dynamics", "constraints");
  if (kind == NULL || g_str_equal (kind, "none"))
    model->kind = CML_CONSTRAINTS_NONE;
  else if (g_str_equal (kind, "nonholonomic"))
    model->kind = CML_CONSTRAINTS_NONHOLONOMIC;
  else if (g_str_equal (kind, "vakonomic"))
    model->kind = CML_CONSTRAINTS_VAKONOMIC;
  else
    return fail (ld, line_of (ld, "dynamics", "constraints"), 0, CML_ERROR_MODEL,
                 "constraints must be none, nonholonomic or vakonomic, not “%s”", kind);

  gboolean has_group = g_key_file_has_group (ld->kf, "constraints");
  model->constraints_line = has_group ? line_of (ld, "constraints", NULL) : line_of (ld, "dynamics", "constraints");
  if (model->kind == CML_CONSTRAINTS_NONE && has_group)
    return fail (ld, line_of (ld, "constraints", NULL), 0, CML_ERROR_MODEL,
                 "[constraints] is given but [dynamics] says constraints = none");
  if (model->kind != CML_CONSTRAINTS_NONE && !has_group)
    return fail (ld, line_of (ld, "dynamics", "constraints"), 0, CML_ERROR_MODEL,
                 "%s constraints need a [constraints] group", kind);

  g_auto (GStrv) keys = has_group ? g_key_file_get_keys (ld->kf, "constraints", NULL, NULL) : NULL;
  if (has_group && (keys == NULL || keys[0] == NULL))
    return fail (ld, line_of (ld, "constraints", NULL), 0, CML_ERROR_MODEL, "[constraints] is empty");

  if (model->kind == CML_CONSTRAINTS_NONHOLONOMIC)
    {
      for (int k = 0; keys[k]; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (keys[k]);
          ne->sym = -1;
          ne->line = line_of (ld, "constraints", keys[k]);
          g_ptr_array_add (model->constraints, ne);
          if (!is_identifier (keys[k]))
            return fail (ld, ne->line, 0, CML_ERROR_MODEL, "“%s” is not a valid constraint name", keys[k]);
          ne->expr = parse_key (ld, "constraints", keys[k], SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE,
                                "a constraint");
          if (ne->expr == NULL)
            return FALSE;
          gboolean has_fibre = FALSE;
          for (guint a = 0; a < model->n; a++)
            has_fibre |= cml_expr_depends_on (ne->expr, model->fibre_sym[a]);
          if (!has_fibre)
            return fail (ld, ne->line, 0, CML_ERROR_MODEL,
                         "the constraint “%s” does not involve any fibre coordinate (a holonomic constraint: "
                         "write the system on the constrained configuration space instead)", keys[k]);
        }
      if (model->constraints->len >= model->n)
        return fail (ld, model->constraints_line, 0, CML_ERROR_MODEL,
                     "%u constraints on %u fibre coordinates leave no motion", model->constraints->len, model->n);
      if (!load_solve_for (ld))
        return FALSE;
    }
  else if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
    {
      if (g_key_file_has_key (ld->kf, "dynamics", "solve-for", NULL))
        return fail (ld, line_of (ld, "dynamics", "solve-for"), 0, CML_ERROR_MODEL,
                     "solve-for is for nonholonomic constraints and singular Lagrangians; the velocities of a "
                     "vakonomic system follow from its momenta (its constraints are graphs y = Psi)");
      /* first the constrained names, so that Psi may not use them */
      for (int k = 0; keys[k]; k++)
        {
          int a = fibre_index (model, keys[k]);
          if (a < 0)
            return fail (ld, line_of (ld, "constraints", keys[k]), 0, CML_ERROR_UNKNOWN_NAME,
                         "vakonomic constraints are graphs “fibre coordinate = expression”; “%s” is not a fibre coordinate",
                         keys[k]);
        }
      if (g_strv_length (keys) >= model->n)
        return fail (ld, model->constraints_line, 0, CML_ERROR_MODEL,
                     "every fibre coordinate is constrained: nothing left to optimise");
      for (int k = 0; keys[k]; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (keys[k]);
          ne->sym = model->fibre_sym[fibre_index (model, keys[k])];
          ne->line = line_of (ld, "constraints", keys[k]);
          g_ptr_array_add (model->constraints, ne);
          ne->expr = parse_key (ld, "constraints", keys[k], SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE,
                                "a vakonomic constraint");
          if (ne->expr == NULL)
            return FALSE;
          for (int j = 0; keys[j]; j++)
            {
              int b = fibre_index (model, keys[j]);
              if (cml_expr_depends_on (ne->expr, model->fibre_sym[b]))
                return fail (ld, ne->line, 0, CML_ERROR_MODEL,
                             "Psi for “%s” may not use the constrained coordinate “%s”", keys[k], keys[j]);
            }
        }
    }
  else if (!load_solve_for (ld))
    return FALSE;
  return TRUE;
}

static gboolean
load_definitions (Loader *ld)
{
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "definitions", NULL, NULL);

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, "definitions", keys[k]);
      g_autofree char *what = g_strdup_printf ("the definition of “%s”", keys[k]);
      CmlExpr *e = parse_key (ld, "definitions", keys[k],
                              SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_RECON, what);
      if (e == NULL)
        return FALSE;
      int id = declare (ld, keys[k], SYM_DEFINITION, line);
      if (id < 0)
        return FALSE;
      g_array_append_val (ld->def_ids, id);
      g_ptr_array_add (ld->def_exprs, e);
      g_ptr_array_add (ld->def_names, g_strdup (keys[k]));
    }
  return TRUE;
}

static gboolean
declare_reconstruction (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "reconstruction", NULL, NULL);

  if (keys && g_strv_length (keys) > CML_MODEL_MAX_RECONSTRUCTION)
    return fail (ld, line_of (ld, "reconstruction", keys[CML_MODEL_MAX_RECONSTRUCTION]), 0, CML_ERROR_MODEL,
                 "%u reconstruction variables, more than %d, the limit for a model", g_strv_length (keys),
                 CML_MODEL_MAX_RECONSTRUCTION);
  for (int k = 0; keys && keys[k]; k++)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      ne->name = g_strdup (keys[k]);
      ne->line = line_of (ld, "reconstruction", keys[k]);
      g_ptr_array_add (model->reconstruction, ne);
      if ((ne->sym = declare (ld, keys[k], SYM_RECON, ne->line)) < 0)
        return FALSE;
    }
  return TRUE;
}

static gboolean
load_reconstruction (Loader *ld)
{
  CmlModel *model = ld->model;
  for (guint k = 0; k < model->reconstruction->len; k++)
    {
      CmlNamedExpr *ne = model->reconstruction->pdata[k];
      g_autofree char *what = g_strdup_printf ("the rate of “%s”", ne->name);
      ne->expr = parse_key (ld, "reconstruction", ne->name,
                            SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON, what);
      if (ne->expr == NULL)
        return FALSE;
    }

  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "quaternions", NULL, NULL);
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, "quaternions", keys[k]);
      g_autofree char *v = g_key_file_get_value (ld->kf, "quaternions", keys[k], NULL);
      g_autoptr (GPtrArray) names = name_list (v);
      if (names->len != 4)
        return fail (ld, line, 0, CML_ERROR_MODEL, "a quaternion has 4 components, not %u", names->len);
      for (guint j = 0; j < 4; j++)
        {
          guint idx = G_MAXUINT;
          for (guint r = 0; r < model->reconstruction->len; r++)
            if (g_str_equal (((CmlNamedExpr *) model->reconstruction->pdata[r])->name, names->pdata[j]))
              idx = r;
          if (idx == G_MAXUINT)
            return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                         "“%s” is not a reconstruction variable", (char *) names->pdata[j]);
          for (guint q = 0; q < model->quaternions->len; q++)
            if (g_array_index (model->quaternions, guint, q) == idx)
              return fail (ld, line, 0, CML_ERROR_MODEL,
                           "“%s” is already a component of a quaternion", (char *) names->pdata[j]);
          g_array_append_val (model->quaternions, idx);
        }
    }
  return TRUE;
}

static gboolean
load_monitors (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "monitors", NULL, NULL);
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) exprs = g_ptr_array_new ();

  for (int k = 0; keys && keys[k]; k++)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      g_autofree char *what = g_strdup_printf ("the monitor “%s”", keys[k]);
      ne->name = g_strdup (keys[k]);
      ne->line = line_of (ld, "monitors", keys[k]);
      g_ptr_array_add (model->monitors, ne);
      {
        /* "expression" or "expression | conserved" */
        g_autofree char *v = g_key_file_get_value (ld->kf, "monitors", keys[k], NULL);
        g_autoptr (GPtrArray) parts = split_top (v, '|', NULL);
        Pos *p = pos_of (ld, "monitors", keys[k]);
        if (parts->len > 2)
          return fail (ld, ne->line, 0, CML_ERROR_MODEL,
                       "a monitor is “name = expression” or “name = expression | conserved”");
        if (parts->len == 2)
          {
            if (!g_str_equal (g_strstrip ((char *) parts->pdata[1]), "conserved"))
              return fail (ld, ne->line, 0, CML_ERROR_MODEL,
                           "after the monitor's expression only “| conserved” may follow, not “| %s”",
                           (char *) parts->pdata[1]);
            ne->conserved = TRUE;
          }
        ne->expr = parse_at (ld, g_strstrip ((char *) parts->pdata[0]), p ? p->line : 1, p ? p->value_col : 0,
                             SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR,
                             what);
      }
      if (ne->expr == NULL)
        return FALSE;
      /* earlier monitors are substituted, like definitions */
      if (ids->len)
        {
          ne->expr = cml_expr_subs (ctx, ne->expr, ids->len, (int *) ids->data, (CmlExpr **) exprs->pdata);
          if (!check_expr_budget (ld, ne->line, 0, what))
            return FALSE;
        }
      if ((ne->sym = declare (ld, keys[k], SYM_MONITOR, ne->line)) < 0)
        return FALSE;
      g_array_append_val (ids, ne->sym);
      g_ptr_array_add (exprs, ne->expr);
      g_array_append_val (ld->mon_ids, ne->sym);
      g_ptr_array_add (ld->mon_exprs, ne->expr);
    }
  return TRUE;
}

/* Names that may be given initial values: coordinates, momenta, reconstruction. */
static gboolean
is_state_name (Loader *ld, const char *name)
{
  int id = cml_expr_ctx_lookup (ld->model->ctx, name);
  return id >= 0 && (sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON));
}

static gboolean
load_initial (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "initial", NULL, NULL);

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, "initial", keys[k]);
      g_autofree char *v = g_key_file_get_value (ld->kf, "initial", keys[k], NULL);
      double val;
      if (!is_state_name (ld, keys[k]))
        return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     "“%s” is not a coordinate, momentum or reconstruction variable", keys[k]);
      if (model->kind != CML_CONSTRAINTS_VAKONOMIC
          && sym_kind (ld, cml_expr_ctx_lookup (model->ctx, keys[k])) == SYM_MOMENTUM)
        return fail (ld, line, 0, CML_ERROR_MODEL,
                     "“%s” is a momentum: only vakonomic systems take momenta as initial data (give the velocity)",
                     keys[k]);
      if (!eval_constant (ld, "initial", keys[k], g_strstrip (v), &val))
        return FALSE;
      g_hash_table_insert (model->initial, g_strdup (keys[k]), g_memdup2 (&val, sizeof val));
    }
  return TRUE;
}

static gboolean
load_units (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "units", NULL, NULL);

  for (int k = 0; keys && keys[k]; k++)
    {
      int id = cml_expr_ctx_lookup (model->ctx, keys[k]);
      if (id < 0 || !(sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR | SYM_DEFINITION)))
        return fail (ld, line_of (ld, "units", keys[k]), 0, CML_ERROR_UNKNOWN_NAME,
                     "“%s” is not a coordinate, momentum, reconstruction variable, definition or monitor", keys[k]);
      g_hash_table_insert (model->units, g_strdup (keys[k]), get_string (ld, "units", keys[k]));
    }
  return TRUE;
}

static gboolean
load_meanings (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, "meanings", NULL, NULL);

  for (int k = 0; keys && keys[k]; k++)
    {
      int id = cml_expr_ctx_lookup (model->ctx, keys[k]);
      if (id < 0 || !(sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR | SYM_DEFINITION)))
        return fail (ld, line_of (ld, "meanings", keys[k]), 0, CML_ERROR_UNKNOWN_NAME,
                     "“%s” is not a coordinate, momentum, reconstruction variable, definition or monitor", keys[k]);
      g_hash_table_insert (model->meanings, g_strdup (keys[k]), get_string (ld, "meanings", keys[k]));
    }
  return TRUE;
}

static gboolean
load_output (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "columns", NULL };
  GPtrArray *cols;

  if (!check_keys (ld, "output", known))
    return FALSE;
  if (g_key_file_has_key (ld->kf, "output", "columns", NULL))
    {
      g_autofree char *v = get_string (ld, "output", "columns");
      g_autoptr (GPtrArray) names = name_list (v);
      cols = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; k < names->len; k++)
        {
          int id = cml_expr_ctx_lookup (model->ctx, names->pdata[k]);
          /* "residual", the norm of the constraint functions, exists when there are constraints */
          if (id < 0 && g_str_equal (names->pdata[k], "residual") && model->kind != CML_CONSTRAINTS_NONE)
            {
              g_ptr_array_add (cols, g_strdup (names->pdata[k]));
              continue;
            }
          if (id < 0 || !(sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR | SYM_DEFINITION)))
            {
              g_ptr_array_free (cols, TRUE);
              return fail (ld, line_of (ld, "output", "columns"), 0, CML_ERROR_UNKNOWN_NAME,
                           "the column “%s” is not a coordinate, momentum, reconstruction variable, definition or monitor",
                           (char *) names->pdata[k]);
            }
          g_ptr_array_add (cols, g_strdup (names->pdata[k]));
        }
      g_ptr_array_set_free_func (cols, NULL);
      g_ptr_array_add (cols, NULL);
      model->columns = (char **) g_ptr_array_free (cols, FALSE);
      return TRUE;
    }
  /* default: the state and the monitors */
  cols = g_ptr_array_new ();
  for (guint i = 0; i < model->m; i++)
    g_ptr_array_add (cols, g_strdup (model->base[i]));
  for (guint a = 0; a < model->n; a++)
    g_ptr_array_add (cols, g_strdup (model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta[a] : model->fibre[a]));
  for (guint k = 0; k < model->reconstruction->len; k++)
    g_ptr_array_add (cols, g_strdup (((CmlNamedExpr *) model->reconstruction->pdata[k])->name));
  for (guint k = 0; k < model->monitors->len; k++)
    g_ptr_array_add (cols, g_strdup (((CmlNamedExpr *) model->monitors->pdata[k])->name));
  g_ptr_array_add (cols, NULL);
  model->columns = (char **) g_ptr_array_free (cols, FALSE);
  return TRUE;
}

static void
preset_free (gpointer p)
{
  CmlPreset *pr = p;
  g_free (pr->name);
  g_free (pr->title);
  g_hash_table_unref (pr->values);
  g_free (pr);
}

static gboolean
load_preset (Loader *ld, const char *group)
{
  CmlModel *model = ld->model;
  CmlPreset *pr = g_new0 (CmlPreset, 1);
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, group, NULL, NULL);

  pr->name = g_strstrip (g_strdup (group + strlen ("preset ")));
  pr->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_ptr_array_add (model->presets, pr);
  if (*pr->name == '\0')
    return fail (ld, line_of (ld, group, NULL), 0, CML_ERROR_MODEL, "a preset needs a name: [preset NAME]");
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, group, keys[k]);
      if (g_str_equal (keys[k], "title"))
        {
          pr->title = get_string (ld, group, keys[k]);
          continue;
        }
      const CmlParam *par = cml_model_find_param (model, keys[k]);
      if (par == NULL && !is_state_name (ld, keys[k]))
        return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     "“%s” is not a parameter or an initial datum", keys[k]);
      g_autofree char *v = g_key_file_get_value (ld->kf, group, keys[k], NULL);
      double val;
      if (!eval_constant (ld, group, keys[k], g_strstrip (v), &val))
        return FALSE;
      if (par)
        {
          g_autoptr (GError) err = NULL;
          if (!cml_model_check_param (model, par, val, &err))
            return fail (ld, line, 0, CML_ERROR_MODEL, "%s", err->message);
        }
      g_hash_table_insert (pr->values, g_strdup (keys[k]), g_memdup2 (&val, sizeof val));
    }
  if (pr->title == NULL)
    pr->title = g_strdup (pr->name);
  return TRUE;
}

typedef struct
{
  const char *type;
  const char *keys[6];   /* key names */
  int         arity[6];  /* number of components */
  gboolean    required[6];
} SceneType;

static const SceneType scene_types[] = {
  { "sphere", { "center", "radius", "attitude" }, { 3, 1, 4 }, { TRUE, TRUE, FALSE } },
  { "turntable", { "radius", "angle", "center" }, { 1, 1, 3 }, { TRUE, TRUE, FALSE } },
  { "plane", { "size", "center" }, { 1, 3 }, { TRUE, FALSE } },
  { "point", { "position", "radius" }, { 3, 1 }, { TRUE, FALSE } },
  { "trail", { "point", "frame-angle", "length" }, { 3, 1, 1 }, { TRUE, FALSE, FALSE } },
  { "disc", { "position", "normal", "radius", "every" }, { 3, 3, 1, 1 }, { TRUE, TRUE, TRUE, FALSE } },
  { "arrow", { "from", "vector" }, { 3, 3 }, { TRUE, TRUE } },
};

/* The colours the scene renderer knows by name (src/render/cml-scene-renderer.c). */
static const char *const scene_colors[] = {
  "red", "blue", "orange", "green", "grey", "gray", "purple", "yellow", "black", "white", "brown", NULL
};

static gboolean
color_known (const char *name)
{
  for (guint i = 0; scene_colors[i]; i++)
    if (g_ascii_strcasecmp (name, scene_colors[i]) == 0)
      return TRUE;
  if (name[0] != '#' || strlen (name) != 7)
    return FALSE;
  for (guint i = 1; i < 7; i++)
    if (!g_ascii_isxdigit (name[i]))
      return FALSE;
  return TRUE;
}

static void
scene_object_free (gpointer p)
{
  CmlSceneObject *so = p;
  g_free (so->name);
  g_free (so->type);
  g_free (so->color);
  g_free (so->label);
  g_hash_table_unref (so->props);
  g_free (so);
}

static gboolean
load_scene_object (Loader *ld, const char *group)
{
  CmlModel *model = ld->model;
  CmlSceneObject *so = g_new0 (CmlSceneObject, 1);
  const SceneType *st = NULL;
  g_auto (GStrv) keys = g_key_file_get_keys (ld->kf, group, NULL, NULL);
  int gline = line_of (ld, group, NULL);

  so->name = g_strstrip (g_strdup (group + strlen ("scene ")));
  so->props = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  g_ptr_array_add (model->scene, so);
  so->type = get_string (ld, group, "type");
  if (so->type == NULL)
    return fail (ld, gline, 0, CML_ERROR_MODEL, "[%s] needs a type", group);
  for (guint k = 0; k < G_N_ELEMENTS (scene_types); k++)
    if (g_str_equal (scene_types[k].type, so->type))
      st = &scene_types[k];
  if (st == NULL)
    return fail (ld, line_of (ld, group, "type"), 0, CML_ERROR_MODEL,
                 "unknown scene object type “%s” (sphere, turntable, plane, point, trail, disc, arrow)", so->type);
  so->color = get_string (ld, group, "color");
  so->label = get_string (ld, group, "label");
  if (so->color && !color_known (so->color))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) scene_colors);
      return fail (ld, line_of (ld, group, "color"), 0, CML_ERROR_MODEL,
                   "unknown colour “%s” (%s, or #RRGGBB)", so->color, list);
    }

  for (int k = 0; keys && keys[k]; k++)
    {
      int j, line = line_of (ld, group, keys[k]);
      if (g_str_equal (keys[k], "type") || g_str_equal (keys[k], "color") || g_str_equal (keys[k], "label"))
        continue;
      for (j = 0; j < 6 && st->keys[j]; j++)
        if (g_str_equal (st->keys[j], keys[k]))
          break;
      if (j == 6 || st->keys[j] == NULL)
        return fail (ld, line, 0, CML_ERROR_MODEL, "a %s has no property “%s”", st->type, keys[k]);
      Pos *p = pos_of (ld, group, keys[k]);
      g_autofree char *v = g_key_file_get_value (ld->kf, group, keys[k], NULL);
      g_autoptr (GArray) offs = g_array_new (FALSE, FALSE, sizeof (int));
      g_autoptr (GPtrArray) parts = split_top (g_strstrip (v), ',', offs);
      if ((int) parts->len != st->arity[j])
        return fail (ld, line, 0, CML_ERROR_MODEL, "“%s” of a %s has %d components, not %u",
                     keys[k], st->type, st->arity[j], parts->len);
      GPtrArray *exprs = g_ptr_array_new ();
      g_hash_table_insert (so->props, g_strdup (keys[k]), exprs);
      for (guint c = 0; c < parts->len; c++)
        {
          g_autofree char *what = g_strdup_printf ("“%s” of the scene object “%s”", keys[k], so->name);
          CmlExpr *e = parse_at (ld, parts->pdata[c], line, p->value_col + g_array_index (offs, int, c),
                                 SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR,
                                 what);
          if (e == NULL)
            return FALSE;
          /* monitors are substituted, like definitions */
          if (ld->mon_ids->len)
            {
              e = cml_expr_subs (model->ctx, e, ld->mon_ids->len, (int *) ld->mon_ids->data,
                                 (CmlExpr **) ld->mon_exprs->pdata);
              if (!check_expr_budget (ld, line, 0, what))
                return FALSE;
            }
          g_ptr_array_add (exprs, e);
        }
    }
  for (int j = 0; j < 6 && st->keys[j]; j++)
    if (st->required[j] && !g_hash_table_contains (so->props, st->keys[j]))
      return fail (ld, gline, 0, CML_ERROR_MODEL, "a %s needs “%s”", st->type, st->keys[j]);
  return TRUE;
}

/* [reference]: "name = closed form", NAME an observable (a coordinate, velocity, momentum,
 * reconstruction variable or monitor), the expression in t, the parameters and the values
 * at t = 0 of the observables, written NAME_0 ("x_0").  Declared last, so that no other
 * group can use a NAME_0.  cml-reference.c compiles and evaluates them. */
static gboolean
load_reference (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  const SymKind observable = SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR;
  g_auto (GStrv) keys = NULL;

  if (!g_key_file_has_group (ld->kf, "reference"))
    return TRUE;

  /* the initial values: one NAME_0 per observable, unless the model already uses that
   * name for something else (then the closed forms cannot tell them apart) */
  guint ns = cml_expr_ctx_n_symbols (ctx);
  for (guint id = 0; id < ns; id++)
    {
      if (!(sym_kind (ld, (int) id) & observable))
        continue;
      g_autofree char *zero = g_strdup_printf ("%s_0", cml_expr_ctx_symbol_name (ctx, (int) id));
      if (cml_expr_ctx_lookup (ctx, zero) >= 0)
        return fail (ld, line_of (ld, "reference", NULL), 0, CML_ERROR_MODEL,
                     "[reference] writes the value of “%s” at t = 0 as “%s”, but the model has a %s of that "
                     "name: rename it", cml_expr_ctx_symbol_name (ctx, (int) id), zero,
                     kind_name (sym_kind (ld, cml_expr_ctx_lookup (ctx, zero))));
      CmlInitialSym is = { .sym = (int) id };
      is.zero_sym = cml_expr_ctx_intern (ctx, zero);
      g_hash_table_insert (ld->kinds, GINT_TO_POINTER (is.zero_sym), GINT_TO_POINTER (SYM_INITIAL));
      g_array_append_val (model->initial_syms, is);
    }

  keys = g_key_file_get_keys (ld->kf, "reference", NULL, NULL);
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = line_of (ld, "reference", keys[k]);
      int id = cml_expr_ctx_lookup (ctx, keys[k]);
      g_autofree char *what = g_strdup_printf ("the closed form of “%s”", keys[k]);

      if (id < 0)
        return fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     "[reference]: unknown name “%s” (a closed form is given for a coordinate, velocity, "
                     "momentum, reconstruction variable or monitor)", keys[k]);
      if (!(sym_kind (ld, id) & observable))
        return fail (ld, line, 0, CML_ERROR_MODEL,
                     "[reference]: “%s” is a %s, not an observable (a closed form is given for a coordinate, "
                     "velocity, momentum, reconstruction variable or monitor)", keys[k],
                     kind_name (sym_kind (ld, id)));

      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      ne->name = g_strdup (keys[k]);
      ne->sym = id;
      ne->line = line;
      g_ptr_array_add (model->references, ne);
      ne->expr = parse_key (ld, "reference", keys[k], SYM_PARAM | SYM_TIME | SYM_INITIAL, what);
      if (ne->expr == NULL)
        {
          /* a closed form depends on the state only through the start: say how to write it */
          GError *e = ld->error ? *ld->error : NULL;
          if (e && strstr (e->message, " may not use the ") && !strstr (e->message, "initial value"))
            {
              char *msg = g_strdup_printf ("%s (a closed form depends on t, the parameters and the values at "
                                           "t = 0, written NAME_0)", e->message);
              g_free (e->message);
              e->message = msg;
            }
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_groups (Loader *ld)
{
  static const char *known[] = {
    "model", "parameters", "definitions", "algebroid", "anchor", "brackets", "dynamics",
    "constraints", "initial", "reconstruction", "quaternions", "monitors", "units", "meanings", "output",
    "reference", NULL
  };
  g_auto (GStrv) groups = g_key_file_get_groups (ld->kf, NULL);

  for (int k = 0; groups[k]; k++)
    if (!g_strv_contains (known, groups[k]) && !g_str_has_prefix (groups[k], "preset ")
        && !g_str_has_prefix (groups[k], "scene "))
      return fail (ld, line_of (ld, groups[k], NULL), 0, CML_ERROR_MODEL,
                   "unknown group [%s]", groups[k]);
  return TRUE;
}

/* ---- public ------------------------------------------------------------------------- */

static CmlModel *
model_alloc (void)
{
  CmlModel *model = g_new0 (CmlModel, 1);
  model->ref_count = 1;
  model->ctx = cml_expr_ctx_new ();
  model->params = g_ptr_array_new_with_free_func (param_free);
  model->constraints = g_ptr_array_new_with_free_func (named_expr_free);
  model->reconstruction = g_ptr_array_new_with_free_func (named_expr_free);
  model->monitors = g_ptr_array_new_with_free_func (named_expr_free);
  model->quaternions = g_array_new (FALSE, FALSE, sizeof (guint));
  model->initial = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->units = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->meanings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  model->presets = g_ptr_array_new_with_free_func (preset_free);
  model->scene = g_ptr_array_new_with_free_func (scene_object_free);
  model->warnings = g_ptr_array_new_with_free_func (g_free);
  model->references = g_ptr_array_new_with_free_func (named_expr_free);
  model->initial_syms = g_array_new (FALSE, FALSE, sizeof (CmlInitialSym));
  return model;
}

CmlModel *
cml_model_new_from_data (const char *text, const char *display_name, GError **error)
{
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) kerr = NULL;
  Loader ld = { 0 };
  gboolean ok;

  g_return_val_if_fail (text != NULL, NULL);
  /* a UTF-8 byte-order mark (some editors write one) is not part of the text */
  if (g_str_has_prefix (text, "\xef\xbb\xbf"))
    text += 3;
  if (strnlen (text, CML_MODEL_MAX_BYTES + 1) > CML_MODEL_MAX_BYTES)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   "%s:1: more than %d bytes, the limit for a model file", display_name ? display_name : "<model>",
                   CML_MODEL_MAX_BYTES);
      return NULL;
    }
  model = model_alloc ();
  model->path = g_strdup (display_name ? display_name : "<model>");
  model->text = g_strdup (text);

  ld.path = model->path;
  ld.model = model;
  ld.kf = kf;
  ld.pos = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
      ok = fail (&ld, line, 0, CML_ERROR_PARSE, "the file is not UTF-8 text");
    }
  else
    ok = scan_lines (&ld, text);
  if (ok && !g_key_file_load_from_data (kf, text, -1, G_KEY_FILE_NONE, &kerr))
    ok = fail (&ld, 1, 0, CML_ERROR_PARSE, "%s", kerr->message);

  if (ok)
    {
      model->t_sym = cml_expr_ctx_intern (model->ctx, "t");
      g_hash_table_insert (ld.kinds, GINT_TO_POINTER (model->t_sym), GINT_TO_POINTER (SYM_TIME));
    }
  ok = ok && check_groups (&ld) && load_model_group (&ld) && load_parameters (&ld) && load_algebroid_names (&ld)
       && declare_reconstruction (&ld) && load_definitions (&ld) && load_anchor (&ld) && load_brackets (&ld)
       && load_dynamics (&ld) && load_reconstruction (&ld) && load_monitors (&ld) && load_initial (&ld)
       && load_units (&ld) && load_meanings (&ld) && load_output (&ld);
  if (ok)
    {
      g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
      for (int k = 0; ok && groups[k]; k++)
        {
          if (g_str_has_prefix (groups[k], "preset "))
            ok = load_preset (&ld, groups[k]);
          else if (g_str_has_prefix (groups[k], "scene "))
            ok = load_scene_object (&ld, groups[k]);
        }
    }
  /* last: the "NAME_0" names it declares exist for the closed forms only */
  ok = ok && load_reference (&ld);
  if (ok)
    {
      /* Remember definitions as named quantities (columns, plots). */
      for (guint k = 0; k < ld.def_names->len; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (ld.def_names->pdata[k]);
          ne->sym = g_array_index (ld.def_ids, int, k);
          ne->expr = ld.def_exprs->pdata[k];
          ne->line = line_of (&ld, "definitions", ne->name);
          if (model->definitions == NULL)
            model->definitions = g_ptr_array_new_with_free_func (named_expr_free);
          g_ptr_array_add (model->definitions, ne);
        }
    }

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
    model->definitions = g_ptr_array_new_with_free_func (named_expr_free);
  return g_steal_pointer (&model);
}

/* Reads PATH, at most CML_MODEL_MAX_BYTES: a larger file, or a device that never ends
 * (/dev/zero), is refused after reading one byte more than the limit, not read whole. */
static gboolean
read_bounded (const char *path, char **text, gsize *len, GError **error)
{
  g_autofree char *buf = NULL;
  gsize got = 0;
  GStatBuf st;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int e = errno;
      g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (e), g_strerror (e));
      return FALSE;
    }
  if (fstat (fd, &st) == 0 && S_ISDIR (st.st_mode))
    {
      close (fd);
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "a directory, not a model file");
      return FALSE;
    }
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > CML_MODEL_MAX_BYTES)
    {
      close (fd);
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL, "1: %.1f MB, more than %d bytes, the limit for a model file",
                   st.st_size / 1e6, CML_MODEL_MAX_BYTES);
      return FALSE;
    }
  buf = g_malloc (CML_MODEL_MAX_BYTES + 2);
  while (got < CML_MODEL_MAX_BYTES + 1)
    {
      ssize_t n = read (fd, buf + got, CML_MODEL_MAX_BYTES + 1 - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int e = errno;
          close (fd);
          g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (e), g_strerror (e));
          return FALSE;
        }
      if (n == 0)
        break;
      got += n;
    }
  close (fd);
  if (got > CML_MODEL_MAX_BYTES)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   "1: more than %d bytes (not a regular file that ends: a device or a pipe?), the limit for a model file",
                   CML_MODEL_MAX_BYTES);
      return FALSE;
    }
  buf[got] = '\0';
  *len = got;
  *text = g_realloc (g_steal_pointer (&buf), got + 1);
  return TRUE;
}

CmlModel *
cml_model_new_from_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) err = NULL;
  gsize len = 0;
  const char *nul;

  g_return_val_if_fail (path != NULL, NULL);
  if (!read_bounded (path, &text, &len, &err))
    {
      /* a size limit names line 1 ("FILE:1: …"), a system error does not */
      g_set_error (error, CML_ERROR, err->domain == CML_ERROR ? err->code : CML_ERROR_IO,
                   err->domain == CML_ERROR ? "%s:%s" : "%s: %s", path, err->message);
      return NULL;
    }
  if ((nul = memchr (text, 0, len)) != NULL)
    {
      int line = 1;
      for (const char *c = text; c < nul; c++)
        line += *c == '\n';
      g_set_error (error, CML_ERROR, CML_ERROR_PARSE, "%s:%d: the file contains a NUL byte: not a text file",
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
#ifdef CMLAB_MODELS_SOURCE_DIR
      if (dir == NULL && g_file_test (CMLAB_MODELS_SOURCE_DIR, G_FILE_TEST_IS_DIR))
        dir = g_strdup (CMLAB_MODELS_SOURCE_DIR);
#endif
      if (dir == NULL)
        dir = g_strdup ("models");
    }
  return dir;
}

char **
cml_model_list_builtin (void)
{
  g_autoptr (GDir) d = g_dir_open (cml_model_builtin_dir (), 0, NULL);
  GPtrArray *names = g_ptr_array_new ();
  const char *f;

  while (d && (f = g_dir_read_name (d)))
    if (g_str_has_suffix (f, ".cml"))
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
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_auto (GStrv) names = cml_model_list_builtin ();
      g_autofree char *list = g_strjoinv (", ", names);
      g_set_error (error, CML_ERROR, CML_ERROR_IO,
                   "“%s” is neither a model file nor a built-in model (built-in: %s)", path_or_name, list);
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
  g_free (model->description);
  g_free (model->source);
  g_free (model->about);
  g_free (model->citation);
  g_free (model->errata);
  g_free (model->time_unit);
  g_ptr_array_unref (model->params);
  g_strfreev (model->base);
  g_free (model->base_sym);
  g_strfreev (model->fibre);
  g_free (model->fibre_sym);
  g_strfreev (model->sections);
  g_strfreev (model->momenta);
  g_free (model->momenta_sym);
  g_free (model->anchor);
  g_free (model->bracket);
  g_ptr_array_unref (model->constraints);
  g_free (model->solve_for);
  g_ptr_array_unref (model->reconstruction);
  g_array_unref (model->quaternions);
  g_ptr_array_unref (model->monitors);
  if (model->definitions)
    g_ptr_array_unref (model->definitions);
  g_hash_table_unref (model->initial);
  g_hash_table_unref (model->units);
  g_hash_table_unref (model->meanings);
  g_strfreev (model->columns);
  g_ptr_array_unref (model->presets);
  g_ptr_array_unref (model->scene);
  g_ptr_array_unref (model->warnings);
  g_ptr_array_unref (model->references);
  g_array_unref (model->initial_syms);
  cml_expr_ctx_free (model->ctx);
  g_free (model);
}

const CmlParam *
cml_model_find_param (const CmlModel *model, const char *name)
{
  int i = cml_model_param_index (model, name);
  return i < 0 ? NULL : model->params->pdata[i];
}

int
cml_model_param_index (const CmlModel *model, const char *name)
{
  for (guint i = 0; i < model->params->len; i++)
    if (g_str_equal (((CmlParam *) model->params->pdata[i])->name, name))
      return i;
  return -1;
}

gboolean
cml_model_check_param (const CmlModel *model, const CmlParam *param, double value, GError **error)
{
  if (!isfinite (value))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s must be a finite number", param->name);
      return FALSE;
    }
  if (param->choices)
    {
      for (guint k = 0; k < param->n_choices; k++)
        if (param->choices[k] == value)
          return TRUE;
      GString *s = g_string_new (NULL);
      for (guint k = 0; k < param->n_choices; k++)
        g_string_append_printf (s, "%s%g", k ? ", " : "", param->choices[k]);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s = %g is not allowed (allowed: %s)", param->name,
                   value, s->str);
      g_string_free (s, TRUE);
      return FALSE;
    }
  if (value < param->min || value > param->max)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s = %g is outside its range [%g, %g]", param->name,
                   value, param->min, param->max);
      return FALSE;
    }
  return TRUE;
}

const char *
cml_model_unit (const CmlModel *model, const char *name)
{
  const char *u = g_hash_table_lookup (model->units, name);
  if (u)
    return u;
  const CmlParam *par = cml_model_find_param (model, name);
  if (par)
    return par->unit;
  if (g_str_equal (name, "t"))
    return model->time_unit;
  return "";
}

const char *
cml_model_meaning (const CmlModel *model, const char *name)
{
  const CmlParam *par;

  g_return_val_if_fail (model != NULL && name != NULL, NULL);
  const char *m = g_hash_table_lookup (model->meanings, name);
  if (m)
    return m;
  if ((par = cml_model_find_param (model, name)) != NULL)
    return par->meaning;
  if (g_str_equal (name, "t"))
    return "time";
  return NULL;
}

int
cml_model_line (const CmlModel *model, const char *group, const char *key)
{
  /* recomputed on demand from the text: rarely needed */
  g_auto (GStrv) lines = g_strsplit (model->text, "\n", -1);
  gboolean in_group = FALSE;
  for (int i = 0; lines[i]; i++)
    {
      g_autofree char *s = g_strstrip (g_strdup (lines[i]));
      if (*s == '[')
        {
          g_autofree char *g = g_strdup_printf ("[%s]", group);
          in_group = g_str_equal (s, g);
          if (in_group && key == NULL)
            return i + 1;
          continue;
        }
      if (in_group && key)
        {
          const char *eq = strchr (s, '=');
          if (eq)
            {
              g_autofree char *k = g_strstrip (g_strndup (s, eq - s));
              if (g_str_equal (k, key))
                return i + 1;
            }
        }
    }
  return 0;
}

const char *
cml_constraint_kind_to_string (CmlConstraintKind kind)
{
  switch (kind)
    {
    case CML_CONSTRAINTS_NONE: return "none";
    case CML_CONSTRAINTS_NONHOLONOMIC: return "nonholonomic";
    case CML_CONSTRAINTS_VAKONOMIC: return "vakonomic";
    default: return "?";
    }
}
