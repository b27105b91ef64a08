/* cml-expr-inspect.c — questions about an expression without building anything: its
 * kind, number or symbol, which symbols it depends on, its size in nodes, a constant in
 * it that is not finite.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-expr"

#include "cml-expr-private.h"

#include <math.h>

/* ---- inspection ----------------------------------------------------------------------- */

CmlExprKind
cml_expr_kind (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, CML_EXPR_NUM);

  return (CmlExprKind) e->kind;
}

gboolean
cml_expr_is_zero (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, FALSE);

  return e->kind == CML_EXPR_NUM && e->value == 0.0;
}

gboolean
cml_expr_is_one (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, FALSE);

  return e->kind == CML_EXPR_NUM && e->value == 1.0;
}

gboolean
cml_expr_is_number (const CmlExpr *e,
                    double        *value)
{
  g_return_val_if_fail (e != NULL, FALSE);

  if (e->kind != CML_EXPR_NUM)
    return FALSE;
  if (value != NULL)
    *value = e->value;
  return TRUE;
}

int
cml_expr_symbol_id (const CmlExpr *e)
{
  g_return_val_if_fail (e != NULL, -1);

  return e->kind == CML_EXPR_SYM ? e->sym : -1;
}

/* Depth-first visit of every distinct node below E (E included). */
typedef gboolean (*VisitFunc) (const CmlExpr *e, gpointer data); /* FALSE: skip children */

static void
visit_nodes (const CmlExpr *e,
             VisitFunc      func,
             gpointer       data)
{
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, (gpointer) e);
  while (stack->len > 0)
    {
      const CmlExpr *x = g_ptr_array_steal_index_fast (stack, stack->len - 1);

      if (!g_hash_table_add (seen, (gpointer) x))
        continue;
      if (!func (x, data))
        continue;
      for (guint i = 0; i < x->n; i++)
        if (!g_hash_table_contains (seen, x->args[i]))
          g_ptr_array_add (stack, x->args[i]);
    }
  g_ptr_array_unref (stack);
  g_hash_table_unref (seen);
}

typedef struct
{
  int      id;
  guint64  bit;
  gboolean found;
} DependsData;

static gboolean
depends_visit (const CmlExpr *e,
               gpointer       data)
{
  DependsData *d = data;

  if (d->found || (e->mask & d->bit) == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM && e->sym == d->id)
    d->found = TRUE;
  return !d->found;
}

gboolean
cml_expr_depends_on (const CmlExpr *e,
                     int            id)
{
  DependsData d = { id, CML_EXPR_SYM_BIT (id), FALSE };

  g_return_val_if_fail (e != NULL, FALSE);

  if (id < 0 || (e->mask & d.bit) == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM)
    return e->sym == id;
  visit_nodes (e, depends_visit, &d);
  return d.found;
}

static gboolean
collect_visit (const CmlExpr *e,
               gpointer       data)
{
  gboolean *deps = data;

  if (e->mask == 0)
    return FALSE;
  if (e->kind == CML_EXPR_SYM)
    deps[e->sym] = TRUE;
  return TRUE;
}

void
cml_expr_collect_symbols (const CmlExpr *e,
                          gboolean      *deps)
{
  g_return_if_fail (e != NULL);
  g_return_if_fail (deps != NULL);

  visit_nodes (e, collect_visit, deps);
}

static gboolean
count_visit (const CmlExpr *e,
             gpointer       data)
{
  (*(guint *) data)++;
  return TRUE;
}

guint
cml_expr_n_nodes (const CmlExpr *e)
{
  guint count = 0;

  g_return_val_if_fail (e != NULL, 0);

  visit_nodes (e, count_visit, &count);
  return count;
}

static gboolean
nonfinite_visit (const CmlExpr *e,
                 gpointer       data)
{
  const CmlExpr **found = data;
  double none = 0.0;

  if (*found != NULL)
    return FALSE;
  if (e->mask != 0)
    return TRUE;
  /* a constant part: evaluated whole, its parts not looked at */
  if (!isfinite (e->kind == CML_EXPR_NUM ? e->value : cml_expr_eval (e, &none)))
    *found = e;
  return FALSE;
}

CmlExpr *
cml_expr_find_nonfinite_constant (const CmlExpr *e)
{
  const CmlExpr *found = NULL;

  g_return_val_if_fail (e != NULL, NULL);

  visit_nodes (e, nonfinite_visit, &found);
  return (CmlExpr *) found;
}
