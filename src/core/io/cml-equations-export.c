/* cml-equations-export.c — the derived equations of a system assembled for other programs:
 * LaTeX, a SymPy script, JSON (the printers: cml-expr-print-latex.c, cml-expr-print-code.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What is exported (the roots): the right-hand side ż = f(t, z; parameters) in the state's
 * order; for nonholonomic constraints the multipliers λ of W ẏ = R + Φ_yᵀ λ (the constraint
 * forces, named lambda_<constraint>); the constraint functions h(t, z) = 0 that the states
 * are kept on; the conserved quantities the model declares, as functions of the state; the
 * constraint algorithm's steps (text for people); and, when the W1 relations are nonlinear
 * in them, the free velocities that Newton's method solves for at every evaluation (the
 * right-hand side then depends on them as well).
 *
 * Shared parts: a node used by two or more nodes (or roots) and made of at least
 * SHARED_MIN_NODES distinct nodes is written once as "c_k = …" (post-order: a definition
 * uses only earlier ones) and by its name everywhere else, so the text grows with the
 * number of distinct nodes, not with the number of paths through them.
 */
#define G_LOG_DOMAIN "cml-equations-export"

#include "cml-equations-export.h"
#include "cml-expr-print-formats.h"
#include "cml-expr-private.h"
#include "cml-system-private.h"
#include "cml-json.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#define SHARED_MIN_NODES 6

gboolean
cml_equations_format_from_string (const char *name, CmlEquationsFormat *format)
{
  if (g_strcmp0 (name, "latex") == 0)
    *format = CML_EQUATIONS_LATEX;
  else if (g_strcmp0 (name, "sympy") == 0)
    *format = CML_EQUATIONS_SYMPY;
  else if (g_strcmp0 (name, "json") == 0)
    *format = CML_EQUATIONS_JSON;
  else
    return FALSE;
  return TRUE;
}

typedef struct
{
  const char *name; /* what it is called (a state name, lambda_c, energy) */
  CmlExpr    *expr;
} Root;

typedef struct
{
  CmlSystem  *sys;
  CmlModel   *md;
  GArray     *rhs, *multipliers, *constraints, *conserved, *w1; /* Root */
  GPtrArray  *owned;       /* char*: names made here */
  GHashTable *uses;        /* CmlExpr* -> number of nodes and roots that use it */
  GPtrArray  *shared;      /* CmlExpr*: the named parts, in dependency order */
  GHashTable *shared_index; /* CmlExpr* -> index + 1 in SHARED */
  gboolean   *occurs;      /* symbol id -> occurs in a root */
  guint       n_syms;
  const double *params;
} Export;

/* At least SHARED_MIN_NODES distinct nodes in E (counting stops there). */
static gboolean
big_enough (CmlExpr *e)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();

  g_ptr_array_add (stack, e);
  while (stack->len > 0 && g_hash_table_size (seen) < SHARED_MIN_NODES)
    {
      CmlExpr *x = g_ptr_array_steal_index (stack, stack->len - 1);
      if (!g_hash_table_add (seen, x))
        continue;
      for (guint k = 0; k < x->n && (x->kind != CML_EXPR_NUM && x->kind != CML_EXPR_SYM); k++)
        g_ptr_array_add (stack, x->args[k]);
    }
  return g_hash_table_size (seen) >= SHARED_MIN_NODES;
}

static guint
n_args (const CmlExpr *e)
{
  return e->kind == CML_EXPR_NUM || e->kind == CML_EXPR_SYM ? 0 : e->n;
}

/* Counts the uses of every node below E (each node's children counted once per node). */
static void
count_uses (Export *x, CmlExpr *e)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  guint u = GPOINTER_TO_UINT (g_hash_table_lookup (x->uses, e));

  g_hash_table_insert (x->uses, e, GUINT_TO_POINTER (u + 1));
  if (u > 0)
    return;
  g_ptr_array_add (stack, e);
  while (stack->len > 0)
    {
      CmlExpr *p = g_ptr_array_steal_index (stack, stack->len - 1);
      if (p->kind == CML_EXPR_SYM && (guint) p->sym < x->n_syms)
        x->occurs[p->sym] = TRUE;
      for (guint k = 0; k < n_args (p); k++)
        {
          CmlExpr *c = p->args[k];
          guint cu = GPOINTER_TO_UINT (g_hash_table_lookup (x->uses, c));
          g_hash_table_insert (x->uses, c, GUINT_TO_POINTER (cu + 1));
          if (cu == 0)
            g_ptr_array_add (stack, c);
        }
    }
}

/* The named parts below E in post-order (children first). */
static void
collect_shared (Export *x, CmlExpr *e, GHashTable *done)
{
  /* an explicit stack of (node, next child) to keep deep expressions off the C stack */
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (gpointer) * 2);

  if (!g_hash_table_add (done, e))
    return;
  {
    gpointer frame[2] = { e, GUINT_TO_POINTER (0) };
    g_array_append_vals (stack, frame, 1);
  }
  while (stack->len > 0)
    {
      gpointer *top = &g_array_index (stack, gpointer, 2 * (stack->len - 1));
      CmlExpr *p = top[0];
      guint k = GPOINTER_TO_UINT (top[1]);
      if (k < n_args (p))
        {
          top[1] = GUINT_TO_POINTER (k + 1);
          if (g_hash_table_add (done, p->args[k]))
            {
              gpointer frame[2] = { p->args[k], GUINT_TO_POINTER (0) };
              g_array_append_vals (stack, frame, 1);
            }
          continue;
        }
      g_array_set_size (stack, stack->len - 1);
      if (n_args (p) > 0 && GPOINTER_TO_UINT (g_hash_table_lookup (x->uses, p)) >= 2 && big_enough (p))
        {
          g_ptr_array_add (x->shared, p);
          g_hash_table_insert (x->shared_index, p, GUINT_TO_POINTER (x->shared->len));
        }
    }
}

static void
add_root (Export *x, GArray *to, const char *name, CmlExpr *e)
{
  Root r = { name, e };
  g_array_append_val (to, r);
}

static void
export_init (Export *x, CmlSystem *sys, const double *params)
{
  CmlModel *md = sys->model;
  GArray *all[5];

  memset (x, 0, sizeof *x);
  x->sys = sys;
  x->md = md;
  x->params = params;
  x->owned = g_ptr_array_new_with_free_func (g_free);
  x->n_syms = cml_expr_ctx_n_symbols (sys->ctx);
  x->occurs = g_new0 (gboolean, x->n_syms + 1);
  x->uses = g_hash_table_new (NULL, NULL);
  x->shared = g_ptr_array_new ();
  x->shared_index = g_hash_table_new (NULL, NULL);
  all[0] = x->rhs = g_array_new (FALSE, FALSE, sizeof (Root));
  all[1] = x->multipliers = g_array_new (FALSE, FALSE, sizeof (Root));
  all[2] = x->constraints = g_array_new (FALSE, FALSE, sizeof (Root));
  all[3] = x->conserved = g_array_new (FALSE, FALSE, sizeof (Root));
  all[4] = x->w1 = g_array_new (FALSE, FALSE, sizeof (Root));

  for (guint i = 0; i < sys->dim; i++)
    add_root (x, x->rhs, sys->state_names[i], sys->derived.rhs[i]);
  if (sys->formalism == CML_FORMALISM_NONHOLONOMIC)
    for (guint a = 0; a < sys->derived.n_lambda && a < md->constraints->len; a++)
      {
        char *name = g_strdup_printf ("lambda_%s", ((CmlNamedExpr *) md->constraints->pdata[a])->name);
        g_ptr_array_add (x->owned, name);
        add_root (x, x->multipliers, name, sys->derived.lambda[a]);
      }
  {
    guint k_c = sys->derived.h->len - md->invariants->len;
    for (guint a = 0; a < sys->derived.h->len; a++)
      add_root (x, x->constraints, a < k_c ? NULL : ((CmlNamedExpr *) md->invariants->pdata[a - k_c])->name,
                sys->derived.h->pdata[a]);
  }
  /* the W1 relations F_a = 0 that fix the free velocities */
  for (guint a = 0; a < sys->derived.na; a++)
    add_root (x, x->w1, NULL, sys->derived.newton[a]);
  for (guint k = 0; k < md->monitors->len; k++)
    {
      CmlNamedExpr *ne = md->monitors->pdata[k];
      int i = cml_system_observable_index (sys, ne->name);
      if (ne->conserved && i >= 0)
        add_root (x, x->conserved, ne->name, sys->obs->pdata[i]);
    }

  /* the uses of every node, then the shared parts in dependency order */
  for (guint g = 0; g < G_N_ELEMENTS (all); g++)
    for (guint k = 0; k < all[g]->len; k++)
      count_uses (x, g_array_index (all[g], Root, k).expr);
  {
    g_autoptr (GHashTable) done = g_hash_table_new (NULL, NULL);
    for (guint g = 0; g < G_N_ELEMENTS (all); g++)
      for (guint k = 0; k < all[g]->len; k++)
        collect_shared (x, g_array_index (all[g], Root, k).expr, done);
  }
}

static void
export_clear (Export *x)
{
  g_array_unref (x->rhs);
  g_array_unref (x->multipliers);
  g_array_unref (x->constraints);
  g_array_unref (x->conserved);
  g_array_unref (x->w1);
  g_ptr_array_unref (x->owned);
  g_hash_table_unref (x->uses);
  g_ptr_array_unref (x->shared);
  g_hash_table_unref (x->shared_index);
  g_free (x->occurs);
}

/* The prefix of the shared parts' names: "c_", or with more c's while a symbol of the
 * model starts with it and a digit. */
static char *
shared_prefix (Export *x)
{
  GString *p = g_string_new ("c_");

  for (;;)
    {
      gboolean clash = FALSE;
      for (guint id = 0; id < x->n_syms && !clash; id++)
        {
          const char *nm = cml_expr_ctx_symbol_name (x->sys->ctx, (int) id);
          clash = g_str_has_prefix (nm, p->str) && g_ascii_isdigit (nm[p->len]);
        }
      if (!clash)
        return g_string_free (p, FALSE);
      g_string_prepend_c (p, 'c');
    }
}

/* How each symbol and each shared part is written: NAMES (sym_text, shared) filled, the
 * strings owned by X. */
static void
make_names (Export *x, CmlExprNames *names, const char *sym_fmt_kind)
{
  const char **text = g_new0 (const char *, x->n_syms + 1);
  g_autofree char *prefix = shared_prefix (x);
  gboolean latex = g_str_equal (sym_fmt_kind, "latex"), python = g_str_equal (sym_fmt_kind, "python");
  static const char *const reserved[] = {
    /* Python's keywords, and the names the script defines */
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "sp", "state", "parameters", "shared", "rhs", "multipliers", "constraints",
    "conserved", "free_velocities", "free_velocity_equations", "expand", "time",
  };
  g_autoptr (GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);

  if (python)
    for (guint k = 0; k < G_N_ELEMENTS (reserved); k++)
      g_hash_table_add (taken, (gpointer) reserved[k]);
  for (guint id = 0; id < x->n_syms; id++)
    {
      const char *nm = cml_expr_ctx_symbol_name (x->sys->ctx, (int) id);
      char *t;
      if (latex)
        t = cml_expr_latex_name (nm);
      else if (python)
        /* a keyword or one of the script's names: with a trailing underscore */
        t = g_hash_table_contains (taken, nm) ? g_strconcat (nm, "_", NULL) : g_strdup (nm);
      else
        t = g_strdup (nm);
      g_ptr_array_add (x->owned, t);
      text[id] = t;
    }
  if (python)
    {
      /* the renamed ones must not meet another symbol's name */
      for (guint id = 0; id < x->n_syms; id++)
        {
          const char *nm = cml_expr_ctx_symbol_name (x->sys->ctx, (int) id);
          if (g_str_equal (nm, text[id]))
            g_hash_table_add (taken, (gpointer) text[id]);
        }
      for (guint id = 0; id < x->n_syms; id++)
        {
          const char *nm = cml_expr_ctx_symbol_name (x->sys->ctx, (int) id);
          if (g_str_equal (nm, text[id]))
            continue;
          GString *s = g_string_new (text[id]);
          while (g_hash_table_contains (taken, s->str))
            g_string_append_c (s, '_');
          char *t = g_string_free (s, FALSE);
          g_ptr_array_add (x->owned, t);
          text[id] = t;
          g_hash_table_add (taken, t);
        }
    }
  names->sym_text = text;
  g_ptr_array_add (x->owned, text);
  names->shared = g_hash_table_new (NULL, NULL);
  for (guint k = 0; k < x->shared->len; k++)
    {
      char *t = latex ? g_strdup_printf ("\\mathsf{c}_{%u}", k + 1) : g_strdup_printf ("%s%u", prefix, k + 1);
      g_ptr_array_add (x->owned, t);
      g_hash_table_insert (names->shared, x->shared->pdata[k], t);
    }
}

/* E by name when it is a shared part, else written out. */
static void
print_ref (const CmlExprNames *names, CmlExpr *e, int format, GString *out)
{
  const char *name = g_hash_table_lookup (names->shared, e);

  if (name)
    g_string_append (out, name);
  else if (format == CML_EQUATIONS_LATEX)
    cml_expr_print_latex (e, names, out);
  else
    cml_expr_print_code (e, format == CML_EQUATIONS_SYMPY ? CML_CODE_SYMPY : CML_CODE_CMLAB, names, out);
}

static double
param_value (Export *x, guint k)
{
  return x->params ? x->params[k] : ((CmlParam *) x->md->params->pdata[k])->value;
}

static const char *
unit_of (Export *x, const char *name)
{
  const char *u = cml_model_unit (x->md, name);
  return u ? u : "";
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void
json_expr (CmlJson *j, const char *key, const CmlExprNames *names, CmlExpr *e)
{
  g_autoptr (GString) s = g_string_new (NULL);
  print_ref (names, e, CML_EQUATIONS_JSON, s);
  cml_json_string (j, key, s->str);
}

static void
json_named_roots (CmlJson *j, const char *key, GArray *roots, const CmlExprNames *names, Export *x,
                  gboolean units)
{
  cml_json_begin_array (j, key, CML_JSON_BLOCK);
  for (guint k = 0; k < roots->len; k++)
    {
      Root *r = &g_array_index (roots, Root, k);
      cml_json_begin_object (j, NULL, CML_JSON_LINE);
      cml_json_string (j, "name", r->name);
      if (units)
        cml_json_string (j, "unit", unit_of (x, r->name));
      json_expr (j, "expr", names, r->expr);
      cml_json_end (j);
    }
  cml_json_end (j);
}

static char *
export_json (Export *x)
{
  CmlSystem *sys = x->sys;
  CmlModel *md = x->md;
  CmlExprNames names = { 0 };
  GString *s = g_string_new (NULL);
  g_autoptr (CmlJson) j = cml_json_new_string (s);
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, md->text, -1);
  g_autofree char *program = g_strdup_printf ("cmlab %s", CMLAB_VERSION);

  make_names (x, &names, "plain");
  cml_json_begin_object (j, NULL, CML_JSON_BLOCK);
  cml_json_string (j, "model", md->name);
  cml_json_string (j, "title", md->title_untranslated);
  cml_json_string (j, "program", program);
  cml_json_string (j, "model_sha256", sha);
  cml_json_string (j, "formalism", cml_formalism_to_string (sys->formalism));
  cml_json_string (j, "syntax", "cmlab");
  cml_json_begin_object (j, "time", CML_JSON_LINE);
  cml_json_string (j, "name", "t");
  cml_json_string (j, "unit", md->time_unit ? md->time_unit : "");
  cml_json_end (j);
  cml_json_begin_array (j, "state", CML_JSON_BLOCK);
  for (guint i = 0; i < sys->dim; i++)
    {
      cml_json_begin_object (j, NULL, CML_JSON_LINE);
      cml_json_string (j, "name", sys->state_names[i]);
      cml_json_string (j, "unit", unit_of (x, sys->state_names[i]));
      cml_json_end (j);
    }
  cml_json_end (j);
  cml_json_begin_array (j, "parameters", CML_JSON_BLOCK);
  for (guint k = 0; k < md->params->len; k++)
    {
      CmlParam *p = md->params->pdata[k];
      cml_json_begin_object (j, NULL, CML_JSON_LINE);
      cml_json_string (j, "name", p->name);
      cml_json_number (j, "value", param_value (x, k));
      cml_json_string (j, "unit", p->unit ? p->unit : "");
      cml_json_end (j);
    }
  cml_json_end (j);
  if (sys->derived.na > 0)
    {
      cml_json_begin_array (j, "free_velocities", CML_JSON_LINE);
      for (guint a = 0; a < sys->derived.na; a++)
        cml_json_string (j, NULL, cml_expr_ctx_symbol_name (sys->ctx, sys->derived.aux_sym[a]));
      cml_json_end (j);
    }

  cml_json_begin_array (j, "shared", CML_JSON_BLOCK);
  for (guint k = 0; k < x->shared->len; k++)
    {
      g_autoptr (GString) e = g_string_new (NULL);
      cml_expr_print_code (x->shared->pdata[k], CML_CODE_CMLAB, &names, e);
      cml_json_begin_object (j, NULL, CML_JSON_LINE);
      cml_json_string (j, "name", g_hash_table_lookup (names.shared, x->shared->pdata[k]));
      cml_json_string (j, "expr", e->str);
      cml_json_end (j);
    }
  cml_json_end (j);
  cml_json_begin_array (j, "rhs", CML_JSON_BLOCK);
  for (guint k = 0; k < x->rhs->len; k++)
    json_expr (j, NULL, &names, g_array_index (x->rhs, Root, k).expr);
  cml_json_end (j);
  json_named_roots (j, "multipliers", x->multipliers, &names, x, FALSE);
  cml_json_begin_array (j, "constraints", CML_JSON_BLOCK);
  for (guint k = 0; k < x->constraints->len; k++)
    json_expr (j, NULL, &names, g_array_index (x->constraints, Root, k).expr);
  cml_json_end (j);
  json_named_roots (j, "conserved", x->conserved, &names, x, TRUE);
  if (sys->derived.na > 0)
    {
      cml_json_begin_array (j, "free_velocity_equations", CML_JSON_BLOCK);
      for (guint k = 0; k < x->w1->len; k++)
        json_expr (j, NULL, &names, g_array_index (x->w1, Root, k).expr);
      cml_json_end (j);
    }
  cml_json_begin_array (j, "algorithm_steps", CML_JSON_BLOCK);
  for (guint k = 0; k < sys->derived.steps->len; k++)
    cml_json_string (j, NULL, sys->derived.steps->pdata[k]);
  cml_json_end (j);
  cml_json_end (j);
  g_hash_table_unref (names.shared);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}

/* ---- SymPy ------------------------------------------------------------------------------ */

/* TEXT as "# " comment lines. */
static void
append_comment (GString *s, const char *mark, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint k = 0; lines[k]; k++)
    g_string_append_printf (s, "%s %s\n", mark, lines[k]);
}

/* A Python string literal of TEXT (repr-like, single quotes). */
static void
append_py_string (GString *s, const char *text)
{
  g_string_append_c (s, '\'');
  for (const char *p = text; *p; p++)
    {
      if (*p == '\\' || *p == '\'')
        g_string_append_c (s, '\\');
      if (*p == '\n')
        g_string_append (s, "\\n");
      else
        g_string_append_c (s, *p);
    }
  g_string_append_c (s, '\'');
}

static void
py_symbol (GString *s, Export *x, const CmlExprNames *names, int id, const char *unit)
{
  g_string_append_printf (s, "%s = sp.Symbol(", names->sym_text[id]);
  append_py_string (s, cml_expr_ctx_symbol_name (x->sys->ctx, id));
  g_string_append (s, ", real=True)");
  if (unit && *unit)
    g_string_append_printf (s, "  # [%s]", unit);
  g_string_append_c (s, '\n');
}

static void
py_named_roots (GString *s, const char *var, GArray *roots, const CmlExprNames *names)
{
  g_string_append_printf (s, "%s = {\n", var);
  for (guint k = 0; k < roots->len; k++)
    {
      Root *r = &g_array_index (roots, Root, k);
      g_string_append (s, "    ");
      append_py_string (s, r->name);
      g_string_append (s, ": ");
      print_ref (names, r->expr, CML_EQUATIONS_SYMPY, s);
      g_string_append (s, ",\n");
    }
  g_string_append (s, "}\n");
}

static char *
export_sympy (Export *x)
{
  CmlSystem *sys = x->sys;
  CmlModel *md = x->md;
  CmlExprNames names = { 0 };
  GString *s = g_string_new (NULL);
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, md->text, -1);
  g_autofree gboolean *declared = g_new0 (gboolean, x->n_syms + 1);

  make_names (x, &names, "python");
  g_string_append_printf (s, "# %s — %s\n", md->name, md->title);
  {
    g_autofree char *made = g_strdup_printf (_("The equations of motion derived by cmlab %s, as SymPy expressions, "
                                               "from the model text with SHA-256 %s."),
                                             CMLAB_VERSION, sha);
    append_comment (s, "#", made);
  }
  g_string_append_printf (s, "# %s\n", _(cml_formalism_to_string (sys->formalism)));
  append_comment (s, "#", _("rhs[i] is the time derivative of state[i]; parameters holds the values used; "
                            "expand(e) writes out the shared parts c_k of e."));
  g_string_append (s, "import sympy as sp\n\n");

  py_symbol (s, x, &names, md->t_sym, md->time_unit);
  declared[md->t_sym] = TRUE;
  g_string_append_printf (s, "time = %s\n\n# %s\n", names.sym_text[md->t_sym], _("the state"));
  for (guint i = 0; i < sys->dim; i++)
    {
      py_symbol (s, x, &names, sys->state_sym[i], unit_of (x, sys->state_names[i]));
      declared[sys->state_sym[i]] = TRUE;
    }
  g_string_append (s, "state = [");
  for (guint i = 0; i < sys->dim; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", names.sym_text[sys->state_sym[i]]);
  g_string_append_printf (s, "]\n\n# %s\n", _("the parameters and their values"));
  for (guint k = 0; k < md->params->len; k++)
    {
      CmlParam *p = md->params->pdata[k];
      py_symbol (s, x, &names, p->sym, p->unit);
      declared[p->sym] = TRUE;
    }
  g_string_append (s, "parameters = {");
  for (guint k = 0; k < md->params->len; k++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      CmlParam *p = md->params->pdata[k];
      g_ascii_formatd (buf, sizeof buf, "%.17g", param_value (x, k));
      g_string_append_printf (s, "%s%s: %s", k ? ", " : "", names.sym_text[p->sym], buf);
    }
  g_string_append (s, "}\n");
  /* the free velocities Newton's method solves for, then any other symbol used */
  {
    if (sys->derived.na > 0)
      g_string_append_printf (s, "\n# %s\n", _("solved from the W1 relations by Newton's method at every step"));
    for (guint a = 0; a < sys->derived.na; a++)
      if (!declared[sys->derived.aux_sym[a]])
        {
          py_symbol (s, x, &names, sys->derived.aux_sym[a], NULL);
          declared[sys->derived.aux_sym[a]] = TRUE;
        }
    for (guint id = 0; id < x->n_syms; id++)
      if (x->occurs[id] && !declared[id])
        {
          py_symbol (s, x, &names, (int) id, NULL);
          declared[id] = TRUE;
        }
    g_string_append (s, "free_velocities = [");
    for (guint a = 0; a < sys->derived.na; a++)
      g_string_append_printf (s, "%s%s", a ? ", " : "", names.sym_text[sys->derived.aux_sym[a]]);
    g_string_append (s, "]\n");
  }

  g_string_append_printf (s, "\n# %s\nshared = []\n", _("parts shared by the expressions below, each used by name"));
  for (guint k = 0; k < x->shared->len; k++)
    {
      const char *nm = g_hash_table_lookup (names.shared, x->shared->pdata[k]);
      g_string_append_printf (s, "%s = sp.Symbol('%s', real=True)\nshared.append((%s, ", nm, nm, nm);
      cml_expr_print_code (x->shared->pdata[k], CML_CODE_SYMPY, &names, s);
      g_string_append (s, "))\n");
    }

  g_string_append_printf (s, "\n# %s\nrhs = [\n", _("the equations of motion: d/dt of each state variable"));
  for (guint k = 0; k < x->rhs->len; k++)
    {
      Root *r = &g_array_index (x->rhs, Root, k);
      g_string_append_printf (s, "    # d(%s)/dt\n    ", r->name);
      print_ref (&names, r->expr, CML_EQUATIONS_SYMPY, s);
      g_string_append (s, ",\n");
    }
  g_string_append (s, "]\n");
  g_string_append_printf (s, "\n# %s\n", _("the constraint forces: the multipliers of the constraints"));
  py_named_roots (s, "multipliers", x->multipliers, &names);
  g_string_append_printf (s, "\n# %s\nconstraints = [\n", _("the constraints the motion keeps: each is 0"));
  for (guint k = 0; k < x->constraints->len; k++)
    {
      g_string_append (s, "    ");
      print_ref (&names, g_array_index (x->constraints, Root, k).expr, CML_EQUATIONS_SYMPY, s);
      g_string_append (s, ",\n");
    }
  g_string_append (s, "]\n");
  g_string_append_printf (s, "\n# %s\n", _("the conserved quantities"));
  py_named_roots (s, "conserved", x->conserved, &names);
  g_string_append_printf (s, "\n# %s\nfree_velocity_equations = [\n",
                          _("the W1 relations that fix the free velocities: each is 0"));
  for (guint k = 0; k < x->w1->len; k++)
    {
      g_string_append (s, "    ");
      print_ref (&names, g_array_index (x->w1, Root, k).expr, CML_EQUATIONS_SYMPY, s);
      g_string_append (s, ",\n");
    }
  g_string_append (s, "]\n");
  if (sys->derived.steps->len)
    {
      g_string_append_printf (s, "\n# %s\n", _("The steps of the constraint algorithm:"));
      for (guint k = 0; k < sys->derived.steps->len; k++)
        {
          g_autofree char *step = g_strdup_printf ("%u. %s", k + 1, (char *) sys->derived.steps->pdata[k]);
          append_comment (s, "#", step);
        }
    }
  g_string_append (s, "\n\ndef expand(e):\n"
                      "    \"\"\"e with the shared parts c_k written out.\"\"\"\n"
                      "    for name, value in reversed(shared):\n"
                      "        e = e.xreplace({name: value})\n"
                      "    return e\n");
  g_hash_table_unref (names.shared);
  return g_string_free (s, FALSE);
}

/* ---- LaTeX ------------------------------------------------------------------------------ */

/* An align* block of LHS &= EXPR lines (nothing when there are none). */
static void
tex_block (GString *s, const char *heading, GArray *roots, const CmlExprNames *names, Export *x,
           gboolean dot, gboolean zero)
{
  if (roots->len == 0)
    return;
  append_comment (s, "%", heading);
  g_string_append (s, "\\begin{align*}\n");
  for (guint k = 0; k < roots->len; k++)
    {
      Root *r = &g_array_index (roots, Root, k);
      g_autofree char *nm = r->name ? cml_expr_latex_name (r->name) : NULL;
      g_string_append (s, "  ");
      if (zero)
        g_string_append (s, "0");
      else if (dot)
        {
          /* the dot over the letter, before its subscript: \dot{w}_{1} */
          const char *sub = strstr (nm, "_{");
          gsize head = sub ? (gsize) (sub - nm) : strlen (nm);
          g_string_append_printf (s, "\\dot{%.*s}%s", (int) head, nm, nm + head);
        }
      else
        g_string_append (s, nm);
      g_string_append (s, " &= ");
      print_ref (names, r->expr, CML_EQUATIONS_LATEX, s);
      g_string_append (s, k + 1 < roots->len ? " \\\\\n" : "\n");
    }
  g_string_append (s, "\\end{align*}\n");
  (void) x;
}

static char *
export_latex (Export *x)
{
  CmlSystem *sys = x->sys;
  CmlModel *md = x->md;
  CmlExprNames names = { 0 };
  GString *s = g_string_new (NULL);
  g_autofree char *sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, md->text, -1);

  make_names (x, &names, "latex");
  g_string_append_printf (s, "%% %s — %s\n", md->name, md->title);
  {
    g_autofree char *made = g_strdup_printf (_("The equations of motion derived by cmlab %s, from the model text with "
                                               "SHA-256 %s.  Needs \\usepackage{amsmath}."),
                                             CMLAB_VERSION, sha);
    append_comment (s, "%", made);
  }
  g_string_append_printf (s, "%% %s\n", _(cml_formalism_to_string (sys->formalism)));
  g_string_append (s, "% state:");
  for (guint i = 0; i < sys->dim; i++)
    {
      const char *u = unit_of (x, sys->state_names[i]);
      g_string_append_printf (s, "%s %s%s%s%s", i ? "," : "", sys->state_names[i], *u ? " [" : "", u, *u ? "]" : "");
    }
  g_string_append (s, "\n% parameters:");
  for (guint k = 0; k < md->params->len; k++)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      CmlParam *p = md->params->pdata[k];
      g_ascii_formatd (buf, sizeof buf, "%.17g", param_value (x, k));
      g_string_append_printf (s, "%s %s = %s%s%s", k ? "," : "", p->name, buf, p->unit ? " " : "", p->unit ? p->unit : "");
    }
  g_string_append (s, md->params->len ? "\n" : " none\n");
  if (sys->derived.na > 0)
    {
      g_string_append_printf (s, "%% %s:", _("solved from the W1 relations by Newton's method at every step"));
      for (guint a = 0; a < sys->derived.na; a++)
        g_string_append_printf (s, " %s", cml_expr_ctx_symbol_name (sys->ctx, sys->derived.aux_sym[a]));
      g_string_append_c (s, '\n');
    }
  tex_block (s, _("The equations of motion (a dot is d/dt):"), x->rhs, &names, x, TRUE, FALSE);
  if (x->shared->len)
    {
      append_comment (s, "%", _("where the parts shared by the expressions are:"));
      g_string_append (s, "\\begin{align*}\n");
      for (guint k = 0; k < x->shared->len; k++)
        {
          g_string_append_printf (s, "  %s &= ", (char *) g_hash_table_lookup (names.shared, x->shared->pdata[k]));
          cml_expr_print_latex (x->shared->pdata[k], &names, s);
          g_string_append (s, k + 1 < x->shared->len ? " \\\\\n" : "\n");
        }
      g_string_append (s, "\\end{align*}\n");
    }
  tex_block (s, _("The constraint forces (the multipliers of the constraints):"), x->multipliers, &names, x, FALSE,
             FALSE);
  tex_block (s, _("The constraints the motion keeps:"), x->constraints, &names, x, FALSE, TRUE);
  tex_block (s, _("The conserved quantities:"), x->conserved, &names, x, FALSE, FALSE);
  tex_block (s, _("The W1 relations that fix the free velocities:"), x->w1, &names, x, FALSE, TRUE);
  if (sys->derived.steps->len)
    {
      append_comment (s, "%", _("The steps of the constraint algorithm:"));
      for (guint k = 0; k < sys->derived.steps->len; k++)
        {
          g_autofree char *step = g_strdup_printf ("%u. %s", k + 1, (char *) sys->derived.steps->pdata[k]);
          append_comment (s, "%", step);
        }
    }
  g_hash_table_unref (names.shared);
  return g_string_free (s, FALSE);
}

char *
cml_system_export_equations (CmlSystem *sys, const double *params, CmlEquationsFormat format)
{
  Export x;
  char *text = NULL;

  g_return_val_if_fail (sys != NULL, NULL);
  export_init (&x, sys, params);
  switch (format)
    {
    case CML_EQUATIONS_LATEX:
      text = export_latex (&x);
      break;
    case CML_EQUATIONS_SYMPY:
      text = export_sympy (&x);
      break;
    case CML_EQUATIONS_JSON:
      text = export_json (&x);
      break;
    }
  export_clear (&x);
  return text;
}
