/* cml-model-queries.c — what a loaded model answers: its parameters by name and whether
 * a value is allowed, the units, display names, labels and meanings of its names, the
 * coordinates of the body's position, the line that defined a key, the names of the
 * kinds of constraints.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"

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
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s must be a finite number"), param->name);
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
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s = %g is not allowed (allowed: %s)"), param->name,
                   value, s->str);
      g_string_free (s, TRUE);
      return FALSE;
    }
  if (value < param->min || value > param->max)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s = %g is outside its range [%g, %g]"), param->name,
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

char *
cml_model_display_name (const CmlModel *model, const char *name)
{
  g_return_val_if_fail (model != NULL && name != NULL, NULL);
  /* a word in the user's language first ([labels]), else a symbol ([symbols]) */
  const char *label = g_hash_table_lookup (model->labels, name);
  const char *symbol = g_hash_table_lookup (model->symbols, name);
  if (label)
    return g_strdup (label);
  if (symbol)
    return g_strdup (symbol);
  if (g_str_equal (name, "residual") && cml_expr_ctx_lookup (model->ctx, name) < 0)
    return g_strdup (g_dgettext (GETTEXT_PACKAGE, "constraint residual"));
  return cml_expr_pretty_name (name, FALSE);
}

const char *
cml_model_label (const CmlModel *model, const char *name)
{
  g_return_val_if_fail (model != NULL && name != NULL, NULL);
  return g_hash_table_lookup (model->labels, name);
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

guint
cml_model_position_coords (const CmlModel *model, guint *index, const char **unit)
{
  const char *u0;
  guint n = 0;

  g_return_val_if_fail (model != NULL, 0);

  *unit = NULL;
  if (model->m == 0)
    return 0;
  u0 = cml_model_unit (model, model->base[0]);
  if (u0 == NULL || *u0 == '\0' || g_str_equal (u0, "1") || g_str_equal (u0, "rad"))
    return 0;
  for (guint i = 0; i < model->m; i++)
    if (g_strcmp0 (cml_model_unit (model, model->base[i]), u0) == 0)
      index[n++] = i;
  *unit = u0;
  return n;
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
