/* cml-model-require.c — which parameter values are physically possible together.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A model's [parameters] may say
 *
 *   require = I1 <= I2 + I3, I2 <= I3 + I1, I3 <= I1 + I2
 *   require-message = each principal moment of inertia is at most the sum of the other two
 *
 * Each condition is  left OP right  with OP one of <=, >=, <, > and both sides expressions
 * in the parameters.  It is kept as  slack >= 0  (strict: slack > 0), slack = right − left
 * for <= and <, left − right for >= and >.  Rounding is forgiven up to 1e-12 (|left| + |right|),
 * so that equality (a flat disc: I3 = I1 + I2) passes however it was computed.  The defaults
 * and every preset must meet the conditions; the window, the command line and sessions
 * refuse a value that does not, with the message.
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <math.h>
#include <string.h>

#include "cml-error.h"

#include <glib/gi18n-lib.h>

#define REQUIRE_ROUNDING 1e-12

void
cml_model_requirement_free (gpointer p)
{
  CmlRequirement *req = p;

  g_free (req->text);
  g_free (req);
}

/* The comparison of COND outside parentheses: its position and length, and its kind. */
static const char *
find_comparison (const char *cond, guint *len, gboolean *less, gboolean *strict)
{
  int depth = 0;

  for (const char *c = cond; *c; c++)
    {
      if (*c == '(')
        depth++;
      else if (*c == ')')
        depth--;
      else if (depth == 0 && (*c == '<' || *c == '>'))
        {
          *less = *c == '<';
          *strict = c[1] != '=';
          *len = *strict ? 1 : 2;
          return c;
        }
    }
  return NULL;
}

/* [parameters] require (after the parameters are declared, before the definitions). */
gboolean
cml_model_load_requirements (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_autofree char *text = NULL;
  g_autoptr (GPtrArray) conds = NULL;
  g_autoptr (GArray) offsets = g_array_new (FALSE, FALSE, sizeof (int));
  int line, col;

  if (cml_model_kf_has_key (ld, "parameters", "require-message") && !cml_model_kf_has_key (ld, "parameters", "require"))
    return cml_model_fail (ld, cml_model_line_of (ld, "parameters", "require-message"), 0, CML_ERROR_MODEL,
                 _("“require-message” explains a “require = …”, which [parameters] does not give"));
  if (!cml_model_kf_has_key (ld, "parameters", "require"))
    return TRUE;
  line = cml_model_line_of (ld, "parameters", "require");
  col = cml_model_pos_of (ld, "parameters", "require") ? cml_model_pos_of (ld, "parameters", "require")->value_col : 0;
  text = cml_model_kf_value (ld, "parameters", "require");
  conds = cml_model_split_top (text, ',', offsets);
  for (guint k = 0; k < conds->len; k++)
    {
      const char *cond = conds->pdata[k];
      int ccol = col > 0 ? col + g_array_index (offsets, int, k) : 0;
      gboolean less, strict;
      guint len;
      const char *op = find_comparison (cond, &len, &less, &strict);
      CmlExpr *left, *right;
      CmlRequirement *req;

      if (*cond == '\0' || op == NULL || find_comparison (op + len, &(guint){ 0 }, &(gboolean){ 0 },
                                                          &(gboolean){ 0 }))
        return cml_model_fail (ld, line, ccol, CML_ERROR_PARSE,
                     /* TRANSLATORS: %s is the condition as the model file writes it */
                     _("a requirement reads “left <= right” (or >=, <, >) in the parameters, conditions "
                       "separated by commas: “%s”"), cond);
      g_autofree char *a = g_strndup (cond, op - cond);
      left = cml_model_parse_at (ld, g_strstrip (a), line, ccol, SYM_PARAM, _("a requirement"));
      if (left == NULL)
        return FALSE;
      g_autofree char *b = g_strdup (op + len);
      right = cml_model_parse_at (ld, g_strstrip (b), line, ccol + (int) (op - cond + len), SYM_PARAM,
                        _("a requirement"));
      if (right == NULL)
        return FALSE;
      req = g_new0 (CmlRequirement, 1);
      req->text = g_strdup (cond);
      req->strict = strict;
      req->slack = less ? cml_expr_sub (ctx, right, left) : cml_expr_sub (ctx, left, right);
      req->scale = cml_expr_add (ctx, cml_expr_func (ctx, CML_FN_ABS, left), cml_expr_func (ctx, CML_FN_ABS, right));
      g_ptr_array_add (model->requirements, req);
    }
  model->require_message = cml_model_get_locale_string (ld, "parameters", "require-message");

  /* the defaults are possible */
  {
    g_autofree double *values = g_new0 (double, MAX (model->params->len, 1));
    g_autoptr (GError) err = NULL;

    for (guint i = 0; i < model->params->len; i++)
      values[i] = ((CmlParam *) model->params->pdata[i])->value;
    if (!cml_model_check_params (model, values, &err))
      return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                   /* TRANSLATORS: %s says why the default values of the parameters are not possible */
                   _("the defaults: %s"), err->message);
  }
  return TRUE;
}

/* Whether REQ holds at VALS (one value per symbol of the model's context). */
static gboolean
requirement_met (const CmlRequirement *req, const double *vals)
{
  double slack = cml_expr_eval (req->slack, vals);
  double scale = cml_expr_eval (req->scale, vals);

  return isfinite (slack) && (req->strict ? slack > 0 : slack >= -REQUIRE_ROUNDING * scale);
}

const CmlRequirement *
cml_model_unmet_requirement (const CmlModel *model, const double *values)
{
  g_autofree double *vals = NULL;

  g_return_val_if_fail (model != NULL, NULL);

  if (model->requirements == NULL || model->requirements->len == 0)
    return NULL;
  vals = g_new0 (double, cml_expr_ctx_n_symbols (model->ctx));
  for (guint i = 0; i < model->params->len; i++)
    vals[((CmlParam *) model->params->pdata[i])->sym] = values[i];
  for (guint k = 0; k < model->requirements->len; k++)
    if (!requirement_met (model->requirements->pdata[k], vals))
      return model->requirements->pdata[k];
  return NULL;
}

gboolean
cml_model_check_params (const CmlModel *model, const double *values, GError **error)
{
  const CmlRequirement *req;

  g_return_val_if_fail (model != NULL && (values != NULL || model->params->len == 0), FALSE);

  for (guint i = 0; i < model->params->len; i++)
    if (!cml_model_check_param (model, model->params->pdata[i], values[i], error))
      return FALSE;
  req = cml_model_unmet_requirement (model, values);
  if (req)
    {
      g_autoptr (GString) now = g_string_new (NULL);
      guint ns = cml_expr_ctx_n_symbols (model->ctx);
      g_autofree gboolean *deps = g_new0 (gboolean, ns);

      /* the values the condition uses, as they are now */
      cml_expr_collect_symbols (req->slack, deps);
      for (guint i = 0; i < model->params->len; i++)
        if (deps[((CmlParam *) model->params->pdata[i])->sym])
          g_string_append_printf (now, "%s%s = %g", now->len ? ", " : "",
                                  ((CmlParam *) model->params->pdata[i])->name, values[i]);
      if (model->require_message)
        /* TRANSLATORS: the model's explanation, the condition (as in the model file) and
         * the values it uses now, e.g. “I1 = 1, I2 = 0.2, I3 = 0.3” */
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("not possible: %s (%s fails with %s)"),
                     model->require_message, req->text, now->str);
      else
        /* TRANSLATORS: the condition (as in the model file), e.g. “I1 <= I2 + I3”, and
         * the values it uses now, e.g. “I1 = 1, I2 = 0.2, I3 = 0.3” */
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("not possible: the model needs %s (here %s)"),
                     req->text, now->str);
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_model_check_param_with (const CmlModel *model, const double *values, guint index, double value,
                            GError **error)
{
  g_autofree double *vals = g_new0 (double, MAX (model->params->len, 1));

  g_return_val_if_fail (index < model->params->len, FALSE);

  memcpy (vals, values, model->params->len * sizeof (double));
  vals[index] = value;
  return cml_model_check_params (model, vals, error);
}
