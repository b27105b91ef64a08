/* cml-model-mechanics.c — the groups of a model file that define the system:
 * [model], [parameters], [algebroid] (coordinates, momenta, sections), [anchor],
 * [brackets], [dynamics] with its constraints and solve-for coordinates, [definitions],
 * [reconstruction], [monitors] and [initial], each validated as it is read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <math.h>
#include <string.h>

#include "cml-error.h"

#include <glib/gi18n-lib.h>

gboolean
cml_model_load_model_group (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "name", "title", "description", "about", "citation", "source", "errata",
                                 "time-unit", NULL };

  if (!cml_model_kf_has_group (ld, "model"))
    return cml_model_fail (ld, 1, 0, CML_ERROR_MODEL, _("missing group [model] (with name and title)"));
  if (!cml_model_check_keys (ld, "model", known))
    return FALSE;
  model->name = cml_model_get_string (ld, "model", "name");
  model->title = cml_model_get_locale_string (ld, "model", "title");
  model->title_untranslated = cml_model_get_string (ld, "model", "title");
  model->description = cml_model_get_locale_string (ld, "model", "description");
  model->about = cml_model_get_locale_string (ld, "model", "about");
  model->citation = cml_model_get_string (ld, "model", "citation");
  model->source = cml_model_get_locale_string (ld, "model", "source");
  model->errata = cml_model_get_locale_string (ld, "model", "errata");
  model->time_unit = cml_model_get_string (ld, "model", "time-unit");
  if (model->time_unit == NULL)
    model->time_unit = g_strdup ("s");
  if (model->name == NULL || *model->name == '\0')
    return cml_model_fail (ld, cml_model_line_of (ld, "model", NULL), 0, CML_ERROR_MODEL, _("[model] needs a name"));
  for (const char *c = model->name; *c; c++)
    if (!(g_ascii_isalnum (*c) || *c == '-' || *c == '_'))
      return cml_model_fail (ld, cml_model_line_of (ld, "model", "name"), 0, CML_ERROR_MODEL,
                   _("a model name may contain letters, digits, - and _ only"));
  if (model->title == NULL || *model->title == '\0')
    return cml_model_fail (ld, cml_model_line_of (ld, "model", NULL), 0, CML_ERROR_MODEL, _("[model] needs a title"));
  return TRUE;
}

void
cml_model_param_free (gpointer p)
{
  CmlParam *par = p;
  g_free (par->name);
  g_free (par->choices);
  g_free (par->unit);
  g_free (par->meaning);
  g_free (par);
}

gboolean
cml_model_load_parameters (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "parameters");

  for (int i = 0; keys && keys[i]; i++)
    {
      int line = cml_model_line_of (ld, "parameters", keys[i]);
      g_autofree char *v = cml_model_kf_value (ld, "parameters", keys[i]);
      g_autoptr (GPtrArray) parts = cml_model_split_top (v, '|', NULL);
      CmlParam *par;
      int sym;

      /* what the values must meet together: cml-model-require.c */
      if (g_str_equal (keys[i], "require") || g_str_equal (keys[i], "require-message"))
        continue;
      if (parts->len < 2)
        return cml_model_fail (ld, line, 0, CML_ERROR_PARSE,
                     _("a parameter reads “name = default | min .. max | unit | meaning”"));
      sym = cml_model_declare (ld, keys[i], SYM_PARAM, line);
      if (sym < 0)
        return FALSE;
      par = g_new0 (CmlParam, 1);
      par->name = g_strdup (keys[i]);
      par->sym = sym;
      par->min = -INFINITY;
      par->max = INFINITY;
      g_ptr_array_add (model->params, par);
      if (!cml_model_parse_number (parts->pdata[0], &par->value))
        return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("the default of “%s” is not a number: “%s”"),
                     keys[i], (char *) parts->pdata[0]);
      const char *range = parts->pdata[1];
      if (*range == '{')
        {
          const char *close = strchr (range, '}');
          if (close == NULL || close[1] != '\0')
            return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("a set of values reads {a, b, …}"));
          g_autofree char *inner = g_strndup (range + 1, close - range - 1);
          g_autoptr (GPtrArray) items = cml_model_name_list (inner);
          if (items->len == 0)
            return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("an empty set of values for “%s”"), keys[i]);
          par->choices = g_new (double, items->len);
          par->n_choices = items->len;
          par->min = INFINITY;
          par->max = -INFINITY;
          for (guint k = 0; k < items->len; k++)
            {
              if (!cml_model_parse_number (items->pdata[k], &par->choices[k]))
                return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("“%s” is not a number"),
                             (char *) items->pdata[k]);
              par->min = MIN (par->min, par->choices[k]);
              par->max = MAX (par->max, par->choices[k]);
            }
        }
      else if (*range != '\0')
        {
          const char *dots = strstr (range, "..");
          if (dots == NULL)
            return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("a range reads “min .. max”"));
          g_autofree char *a = g_strndup (range, dots - range);
          if (!cml_model_parse_number (a, &par->min) || !cml_model_parse_number (dots + 2, &par->max))
            return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("the range of “%s” is not two numbers"), keys[i]);
          if (par->min > par->max)
            return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("the range of “%s” has min > max"), keys[i]);
        }
      par->unit = g_strdup (parts->len > 2 ? (char *) parts->pdata[2] : "");
      {
        /* the meaning may itself contain '|': keep the rest of the line */
        GString *meaning = g_string_new (NULL);
        for (guint k = 3; k < parts->len; k++)
          g_string_append_printf (meaning, "%s%s", k > 3 ? " | " : "", (char *) parts->pdata[k]);
        par->meaning = g_string_free (meaning, FALSE);
        /* a translation ("m[es] = masa de la bola") holds the meaning only */
        char *translated = cml_model_get_translation (ld, "parameters", keys[i]);
        if (translated)
          {
            g_free (par->meaning);
            par->meaning = translated;
          }
      }
      {
        g_autoptr (GError) err = NULL;
        if (!cml_model_check_param (model, par, par->value, &err))
          return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("the default: %s"), err->message);
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
  kind = cml_model_sym_kind (ld, id);
  /* a fibre coordinate named e1 or p1 is told by cml_model_declare () in the same line */
  if (kind == SYM_FIBRE)
    return TRUE;
  line = kind == SYM_PARAM ? cml_model_line_of (ld, "parameters", name) : cml_model_line_of (ld, "algebroid", "fibre");
  g_autofree char *nth = ordinal (a);
  return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
               "the name of the %s “%s” is taken by the %s of the %s fibre coordinate “%s” (%s are "
               "named %s1, %s2, … unless [algebroid] %s = … names them): rename the %s, or name the %s",
               cml_model_kind_name (kind), name, what, nth, ld->model->fibre[a], key, key[0] == 's' ? "e" : "p",
               key[0] == 's' ? "e" : "p", key, cml_model_kind_name (kind), key);
}

/* The names of [algebroid]: base, fibre, sections, momenta. */
gboolean
cml_model_load_algebroid_names (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "base", "fibre", "sections", "momenta", NULL };
  g_autofree char *base = NULL, *fibre = NULL, *sections = NULL, *momenta = NULL;

  if (!cml_model_kf_has_group (ld, "algebroid"))
    return cml_model_fail (ld, 1, 0, CML_ERROR_MODEL, _("missing group [algebroid] (base and fibre coordinates)"));
  if (!cml_model_check_keys (ld, "algebroid", known))
    return FALSE;
  fibre = cml_model_get_string (ld, "algebroid", "fibre");
  if (fibre == NULL)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", NULL), 0, CML_ERROR_MODEL,
                 _("[algebroid] needs “fibre”, the fibre coordinates"));
  base = cml_model_get_string (ld, "algebroid", "base");
  sections = cml_model_get_string (ld, "algebroid", "sections");
  momenta = cml_model_get_string (ld, "algebroid", "momenta");

  g_autoptr (GPtrArray) b = cml_model_name_list (base);
  g_autoptr (GPtrArray) f = cml_model_name_list (fibre);
  if (f->len == 0)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", "fibre"), 0, CML_ERROR_MODEL,
                 _("there must be at least one fibre coordinate"));
  if (b->len > CML_MODEL_MAX_BASE)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", "base"), 0, CML_ERROR_MODEL,
                 _("%u base coordinates, more than %d, the limit for a model"), b->len, CML_MODEL_MAX_BASE);
  if (f->len > CML_MODEL_MAX_FIBRE)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", "fibre"), 0, CML_ERROR_MODEL,
                 _("%u fibre coordinates, more than %d, the limit for a model"), f->len, CML_MODEL_MAX_FIBRE);
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
      if ((model->base_sym[i] = cml_model_declare (ld, model->base[i], SYM_BASE, cml_model_line_of (ld, "algebroid", "base"))) < 0)
        return FALSE;
    }
  for (guint a = 0; a < model->n; a++)
    {
      model->fibre[a] = g_strdup (f->pdata[a]);
      if ((model->fibre_sym[a] = cml_model_declare (ld, model->fibre[a], SYM_FIBRE, cml_model_line_of (ld, "algebroid", "fibre"))) < 0)
        return FALSE;
    }
  g_autoptr (GPtrArray) s = cml_model_name_list (sections);
  g_autoptr (GPtrArray) p = cml_model_name_list (momenta);
  if (sections && s->len != model->n)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", "sections"), 0, CML_ERROR_MODEL,
                 _("%u sections for %u fibre coordinates"), s->len, model->n);
  if (momenta && p->len != model->n)
    return cml_model_fail (ld, cml_model_line_of (ld, "algebroid", "momenta"), 0, CML_ERROR_MODEL,
                 _("%u momenta for %u fibre coordinates"), p->len, model->n);
  for (guint a = 0; a < model->n; a++)
    {
      model->sections[a] = sections ? g_strdup (s->pdata[a]) : g_strdup_printf ("e%u", a + 1);
      model->momenta[a] = momenta ? g_strdup (p->pdata[a]) : g_strdup_printf ("p%u", a + 1);
      if ((!sections && !implied_name_free (ld, model->sections[a], "section", "sections", a))
          || (!momenta && !implied_name_free (ld, model->momenta[a], "momentum", "momenta", a)))
        return FALSE;
      if (cml_model_declare (ld, model->sections[a], SYM_SECTION, cml_model_line_of (ld, "algebroid", sections ? "sections" : "fibre")) < 0)
        return FALSE;
      if ((model->momenta_sym[a] = cml_model_declare (ld, model->momenta[a], SYM_MOMENTUM,
                                            cml_model_line_of (ld, "algebroid", momenta ? "momenta" : "fibre"))) < 0)
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

gboolean
cml_model_load_anchor (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "anchor");

  model->anchor = g_new (CmlExpr *, MAX (model->m * model->n, 1));
  for (guint k = 0; k < model->m * model->n; k++)
    model->anchor[k] = cml_expr_num (ctx, 0);

  for (int k = 0; keys && keys[k]; k++)
    {
      Pos *p = cml_model_pos_of (ld, "anchor", keys[k]);
      int A = section_index (model, keys[k]);
      if (A < 0)
        {
          g_autofree char *list = g_strjoinv (", ", model->sections);
          return cml_model_fail (ld, p->line, 0, CML_ERROR_UNKNOWN_NAME, _("“%s” is not a section (sections: %s)"),
                       keys[k], list);
        }
      g_autofree char *v = cml_model_kf_value (ld, "anchor", keys[k]);
      g_autoptr (GArray) offs = g_array_new (FALSE, FALSE, sizeof (int));
      g_autoptr (GPtrArray) items = cml_model_split_top (v, ';', offs);
      for (guint j = 0; j < items->len; j++)
        {
          const char *item = items->pdata[j];
          const char *colon = strchr (item, ':');
          if (*item == '\0')
            continue;
          if (colon == NULL)
            return cml_model_fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_PARSE,
                         _("an anchor component reads “coordinate: expression”"));
          g_autofree char *cname = g_strstrip (g_strndup (item, colon - item));
          int i = -1;
          for (guint b = 0; b < model->m; b++)
            if (g_str_equal (model->base[b], cname))
              i = b;
          if (i < 0)
            return cml_model_fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_UNKNOWN_NAME,
                         _("“%s” is not a base coordinate"), cname);
          if (!cml_expr_is_zero (model->anchor[i * model->n + A]))
            return cml_model_fail (ld, p->line, p->value_col + g_array_index (offs, int, j), CML_ERROR_MODEL,
                         _("the component along “%s” is given twice"), cname);
          const char *ex = colon + 1;
          while (*ex == ' ')
            ex++;
          int col = p->value_col + g_array_index (offs, int, j) + (int) (ex - item);
          CmlExpr *e = cml_model_parse_at (ld, ex, p->line, col, SYM_PARAM | SYM_BASE, _("an anchor component"));
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

gboolean
cml_model_load_brackets (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  guint n = model->n;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "brackets");
  g_autofree gboolean *given = g_new0 (gboolean, n * n);
  g_autofree int *sec_sym = g_new (int, n);

  model->bracket = g_new (CmlExpr *, n * n * n);
  for (guint k = 0; k < n * n * n; k++)
    model->bracket[k] = cml_expr_num (ctx, 0);
  for (guint a = 0; a < n; a++)
    sec_sym[a] = cml_expr_ctx_lookup (ctx, model->sections[a]);

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "brackets", keys[k]);
      g_autoptr (GPtrArray) pair = cml_model_name_list (keys[k]);
      if (pair->len != 2)
        return cml_model_fail (ld, line, 0, CML_ERROR_PARSE, _("a bracket reads “eA, eB = combination of sections”"));
      int A = section_index (model, pair->pdata[0]);
      int B = section_index (model, pair->pdata[1]);
      if (A < 0 || B < 0)
        return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME, _("“%s” is not a section"),
                     (char *) pair->pdata[A < 0 ? 0 : 1]);
      CmlExpr *e = cml_model_parse_key (ld, "brackets", keys[k], SYM_PARAM | SYM_BASE | SYM_SECTION, _("a bracket"));
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
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                     _("a bracket must be a linear combination of sections with coefficients that do not involve sections"));
      if (A == B)
        {
          for (guint C = 0; C < n; C++)
            if (!cml_expr_is_zero (coef[C]))
              return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                           _("[[%s, %s]] must be 0: brackets are antisymmetric"), model->sections[A], model->sections[A]);
          continue;
        }
      if (given[B * n + A])
        {
          /* both orders given: they must be opposite */
          for (guint C = 0; C < n; C++)
            if (!vanishes (ctx, cml_expr_add (ctx, coef[C], model->bracket[(B * n + A) * n + C]), 2,
                           (CmlExpr *[]) { coef[C], model->bracket[(B * n + A) * n + C] }))
              return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                           _("[[%s, %s]] is not minus [[%s, %s]]: brackets must be antisymmetric"),
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

void
cml_model_named_expr_free (gpointer p)
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
  g_autofree char *solve = cml_model_get_string (ld, "dynamics", "solve-for");
  g_autoptr (GPtrArray) sf = cml_model_name_list (solve);
  int line = cml_model_line_of (ld, "dynamics", "solve-for");
  gboolean nonholonomic = model->kind == CML_CONSTRAINTS_NONHOLONOMIC;

  if (solve == NULL)
    return TRUE;
  if (sf->len == 0)
    return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("solve-for is empty"));
  if (nonholonomic && sf->len != model->constraints->len)
    return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                 _("solve-for names %u coordinates for %u constraints"), sf->len, model->constraints->len);
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
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                     _("“%s” is a base coordinate: nonholonomic constraints determine fibre coordinates"), nm);
      else
        return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME, nonholonomic ? "“%s” is not a fibre coordinate"
                                                                         : "“%s” is not a base or fibre coordinate",
                     nm);
      for (guint j = 0; j < k; j++)
        if (model->solve_for[j] == model->solve_for[k])
          return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("“%s” appears twice in solve-for"), nm);
    }
  return TRUE;
}

gboolean
cml_model_load_dynamics (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "lagrangian", "constraints", "solve-for", NULL };
  g_autofree char *kind = NULL;

  if (!cml_model_kf_has_group (ld, "dynamics"))
    return cml_model_fail (ld, 1, 0, CML_ERROR_MODEL, _("missing group [dynamics] (with the lagrangian)"));
  if (!cml_model_check_keys (ld, "dynamics", known))
    return FALSE;
  if (!cml_model_kf_has_key (ld, "dynamics", "lagrangian"))
    return cml_model_fail (ld, cml_model_line_of (ld, "dynamics", NULL), 0, CML_ERROR_MODEL, _("[dynamics] needs a lagrangian"));
  model->lagrangian_line = cml_model_line_of (ld, "dynamics", "lagrangian");
  model->lagrangian = cml_model_parse_key (ld, "dynamics", "lagrangian",
                                 SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE, _("the Lagrangian"));
  if (model->lagrangian == NULL)
    return FALSE;

  kind = cml_model_get_string (ld, "dynamics", "constraints");
  if (kind == NULL || g_str_equal (kind, "none"))
    model->kind = CML_CONSTRAINTS_NONE;
  else if (g_str_equal (kind, "nonholonomic"))
    model->kind = CML_CONSTRAINTS_NONHOLONOMIC;
  else if (g_str_equal (kind, "vakonomic"))
    model->kind = CML_CONSTRAINTS_VAKONOMIC;
  else
    return cml_model_fail (ld, cml_model_line_of (ld, "dynamics", "constraints"), 0, CML_ERROR_MODEL,
                 _("constraints must be none, nonholonomic or vakonomic, not “%s”"), kind);

  gboolean has_group = cml_model_kf_has_group (ld, "constraints");
  model->constraints_line = has_group ? cml_model_line_of (ld, "constraints", NULL) : cml_model_line_of (ld, "dynamics", "constraints");
  if (model->kind == CML_CONSTRAINTS_NONE && has_group)
    return cml_model_fail (ld, cml_model_line_of (ld, "constraints", NULL), 0, CML_ERROR_MODEL,
                 _("[constraints] is given but [dynamics] says constraints = none"));
  if (model->kind != CML_CONSTRAINTS_NONE && !has_group)
    return cml_model_fail (ld, cml_model_line_of (ld, "dynamics", "constraints"), 0, CML_ERROR_MODEL,
                 _("%s constraints need a [constraints] group"), kind);

  g_auto (GStrv) keys = has_group ? cml_model_kf_keys (ld, "constraints") : NULL;
  if (has_group && (keys == NULL || keys[0] == NULL))
    return cml_model_fail (ld, cml_model_line_of (ld, "constraints", NULL), 0, CML_ERROR_MODEL, _("[constraints] is empty"));

  if (model->kind == CML_CONSTRAINTS_NONHOLONOMIC)
    {
      for (int k = 0; keys[k]; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (keys[k]);
          ne->sym = -1;
          ne->line = cml_model_line_of (ld, "constraints", keys[k]);
          g_ptr_array_add (model->constraints, ne);
          if (!cml_model_is_identifier (keys[k]))
            return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL, _("“%s” is not a valid constraint name"), keys[k]);
          ne->expr = cml_model_parse_key (ld, "constraints", keys[k], SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE,
                                _("a constraint"));
          if (ne->expr == NULL)
            return FALSE;
          gboolean has_fibre = FALSE;
          for (guint a = 0; a < model->n; a++)
            has_fibre |= cml_expr_depends_on (ne->expr, model->fibre_sym[a]);
          if (!has_fibre)
            return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL,
                         _("the constraint “%s” does not involve any fibre coordinate (a holonomic constraint: "
                           "write the system on the constrained configuration space instead)"), keys[k]);
        }
      if (model->constraints->len >= model->n)
        return cml_model_fail (ld, model->constraints_line, 0, CML_ERROR_MODEL,
                     _("%u constraints on %u fibre coordinates leave no motion"), model->constraints->len, model->n);
      if (!load_solve_for (ld))
        return FALSE;
    }
  else if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
    {
      if (cml_model_kf_has_key (ld, "dynamics", "solve-for"))
        return cml_model_fail (ld, cml_model_line_of (ld, "dynamics", "solve-for"), 0, CML_ERROR_MODEL,
                     _("solve-for is for nonholonomic constraints and singular Lagrangians; the velocities of a "
                       "vakonomic system follow from its momenta (its constraints are graphs y = Psi)"));
      /* first the constrained names, so that Psi may not use them */
      for (int k = 0; keys[k]; k++)
        {
          int a = fibre_index (model, keys[k]);
          if (a < 0)
            return cml_model_fail (ld, cml_model_line_of (ld, "constraints", keys[k]), 0, CML_ERROR_UNKNOWN_NAME,
                         _("vakonomic constraints are graphs “fibre coordinate = expression”; “%s” is not a fibre coordinate"),
                         keys[k]);
        }
      if (g_strv_length (keys) >= model->n)
        return cml_model_fail (ld, model->constraints_line, 0, CML_ERROR_MODEL,
                     _("every fibre coordinate is constrained: nothing left to optimise"));
      for (int k = 0; keys[k]; k++)
        {
          CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
          ne->name = g_strdup (keys[k]);
          ne->sym = model->fibre_sym[fibre_index (model, keys[k])];
          ne->line = cml_model_line_of (ld, "constraints", keys[k]);
          g_ptr_array_add (model->constraints, ne);
          ne->expr = cml_model_parse_key (ld, "constraints", keys[k], SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE,
                                _("a vakonomic constraint"));
          if (ne->expr == NULL)
            return FALSE;
          for (int j = 0; keys[j]; j++)
            {
              int b = fibre_index (model, keys[j]);
              if (cml_expr_depends_on (ne->expr, model->fibre_sym[b]))
                return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL,
                             _("Psi for “%s” may not use the constrained coordinate “%s”"), keys[k], keys[j]);
            }
        }
    }
  else if (!load_solve_for (ld))
    return FALSE;
  return TRUE;
}

/* [forces]: generalized forces that are not in the Lagrangian, one key per section
 * ("e1 = -c*w1 + A*cos(omega*t)", the component F_A along that section) and a Rayleigh
 * dissipation function ("dissipation = c/2*(u^2 + v^2)") whose forces are −∂D/∂y^A,
 * differentiated exactly.  The equations become W ẏ = R + F (+ Φ_yᵀ λ), doc/theory.md
 * §2 and §3.  A vakonomic system is a variational problem (its motions make an action
 * stationary under the constraints), where a force outside the action has no meaning. */
gboolean
cml_model_load_forces (Loader *ld)
{
  CmlModel *model = ld->model;
  const guint allowed = SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE;

  if (!cml_model_kf_has_group (ld, "forces"))
    return TRUE;
  model->forces_line = cml_model_line_of (ld, "forces", NULL);
  if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
    return cml_model_fail (ld, model->forces_line, 0, CML_ERROR_MODEL,
                 _("[forces] cannot be used with vakonomic constraints: a vakonomic motion makes an action "
                   "stationary, and a force that is not in the Lagrangian is not part of any action (give the "
                   "forces with constraints = nonholonomic or none)"));

  g_auto (GStrv) keys = cml_model_kf_keys (ld, "forces");
  if (keys == NULL || keys[0] == NULL)
    return cml_model_fail (ld, model->forces_line, 0, CML_ERROR_MODEL,
                 _("[forces] is empty (give a force along a section, e.g. “%s = -c*%s”, or dissipation = …)"),
                 model->sections[0], model->fibre[0]);
  model->forces = g_new (CmlExpr *, model->n);
  for (guint A = 0; A < model->n; A++)
    model->forces[A] = cml_expr_num (model->ctx, 0);
  for (int k = 0; keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "forces", keys[k]);
      if (g_str_equal (keys[k], "dissipation"))
        {
          model->dissipation = cml_model_parse_key (ld, "forces", keys[k], allowed, _("the dissipation function"));
          if (model->dissipation == NULL)
            return FALSE;
          gboolean has_fibre = FALSE;
          for (guint A = 0; A < model->n; A++)
            {
              CmlExpr *dD = cml_expr_diff (model->ctx, model->dissipation, model->fibre_sym[A]);
              has_fibre |= !cml_expr_is_zero (dD);
              model->forces[A] = cml_expr_sub (model->ctx, model->forces[A], dD);
            }
          if (!has_fibre)
            {
              g_autofree char *list = g_strjoinv (", ", model->fibre);
              return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                           _("the dissipation function does not depend on the velocities (%s), so it gives no "
                             "force: its forces are −∂D/∂y"),
                           list);
            }
          continue;
        }
      int A = section_index (model, keys[k]);
      if (A < 0)
        {
          g_autofree char *list = g_strjoinv (", ", model->sections);
          return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                       _("“%s” in [forces] is neither a section (%s) nor dissipation"), keys[k], list);
        }
      g_autofree char *what = g_strdup_printf (_("the force along “%s”"), keys[k]);
      CmlExpr *f = cml_model_parse_key (ld, "forces", keys[k], allowed, what);
      if (f == NULL)
        return FALSE;
      model->forces[A] = cml_expr_add (model->ctx, model->forces[A], f);
      model->forces_given = TRUE;
    }
  return TRUE;
}

gboolean
cml_model_load_definitions (Loader *ld)
{
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "definitions");

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "definitions", keys[k]);
      g_autofree char *what = g_strdup_printf (_("the definition of “%s”"), keys[k]);
      CmlExpr *e = cml_model_parse_key (ld, "definitions", keys[k],
                              SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_RECON, what);
      if (e == NULL)
        return FALSE;
      int id = cml_model_declare (ld, keys[k], SYM_DEFINITION, line);
      if (id < 0)
        return FALSE;
      g_array_append_val (ld->def_ids, id);
      g_ptr_array_add (ld->def_exprs, e);
      g_ptr_array_add (ld->def_names, g_strdup (keys[k]));
    }
  return TRUE;
}

gboolean
cml_model_declare_reconstruction (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "reconstruction");

  if (keys && g_strv_length (keys) > CML_MODEL_MAX_RECONSTRUCTION)
    return cml_model_fail (ld, cml_model_line_of (ld, "reconstruction", keys[CML_MODEL_MAX_RECONSTRUCTION]), 0, CML_ERROR_MODEL,
                 _("%u reconstruction variables, more than %d, the limit for a model"), g_strv_length (keys),
                 CML_MODEL_MAX_RECONSTRUCTION);
  for (int k = 0; keys && keys[k]; k++)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      ne->name = g_strdup (keys[k]);
      ne->line = cml_model_line_of (ld, "reconstruction", keys[k]);
      g_ptr_array_add (model->reconstruction, ne);
      if ((ne->sym = cml_model_declare (ld, keys[k], SYM_RECON, ne->line)) < 0)
        return FALSE;
    }
  return TRUE;
}

gboolean
cml_model_load_reconstruction (Loader *ld)
{
  CmlModel *model = ld->model;
  for (guint k = 0; k < model->reconstruction->len; k++)
    {
      CmlNamedExpr *ne = model->reconstruction->pdata[k];
      g_autofree char *what = g_strdup_printf (_("the rate of “%s”"), ne->name);
      ne->expr = cml_model_parse_key (ld, "reconstruction", ne->name,
                            SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON, what);
      if (ne->expr == NULL)
        return FALSE;
    }

  g_auto (GStrv) keys = cml_model_kf_keys (ld, "quaternions");
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "quaternions", keys[k]);
      g_autofree char *v = cml_model_kf_value (ld, "quaternions", keys[k]);
      g_autoptr (GPtrArray) names = cml_model_name_list (v);
      if (names->len != 4)
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("a quaternion has 4 components, not %u"), names->len);
      /* the four components are reconstruction variables, or base coordinates */
      guint idx[4], n_recon = 0;
      for (guint j = 0; j < 4; j++)
        {
          idx[j] = G_MAXUINT;
          for (guint r = 0; r < model->reconstruction->len; r++)
            if (g_str_equal (((CmlNamedExpr *) model->reconstruction->pdata[r])->name, names->pdata[j]))
              idx[j] = r, n_recon++;
          for (guint i = 0; i < model->m && idx[j] == G_MAXUINT; i++)
            if (g_str_equal (model->base[i], names->pdata[j]))
              idx[j] = model->reconstruction->len + i;
          if (idx[j] == G_MAXUINT)
            return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                         _("“%s” is neither a base coordinate nor a reconstruction variable"),
                         (char *) names->pdata[j]);
          for (guint q = 0; q < j; q++)
            if (idx[q] == idx[j])
              return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("“%s” is named twice"), (char *) names->pdata[j]);
        }
      if (n_recon != 0 && n_recon != 4)
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                     _("a quaternion's components are all base coordinates or all reconstruction variables"));
      for (guint j = 0; j < 4; j++)
        {
          GArray *into = n_recon ? model->quaternions : model->base_quaternions;
          guint at = n_recon ? idx[j] : idx[j] - model->reconstruction->len;
          for (guint q = 0; q < into->len; q++)
            if (g_array_index (into, guint, q) == at)
              return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                           _("“%s” is already a component of a quaternion"), (char *) names->pdata[j]);
          g_array_append_val (into, at);
        }
    }
  return TRUE;
}

/* [invariants]: functions of the base coordinates (and the parameters) that every motion
 * keeps at zero, "unit = q0^2 + q1^2 + q2^2 + q3^2 - 1" — a unit quaternion or a unit
 * vector among the coordinates, or any first integral of the configuration alone.  A base
 * quaternion of [quaternions] adds its own, |q|² − 1.  The system checks that the anchor
 * keeps each (ρ(e_A) g = 0 for every section) and projects the states onto g = 0 with the
 * constraints (cml-invariants.c). */
gboolean
cml_model_load_invariants (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "invariants");

  model->invariants_line = cml_model_kf_has_group (ld, "invariants") ? cml_model_line_of (ld, "invariants", NULL) : 0;
  for (int k = 0; keys && keys[k]; k++)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      g_autofree char *what = g_strdup_printf (_("the invariant “%s”"), keys[k]);
      gboolean on_base = FALSE;

      ne->name = g_strdup (keys[k]);
      ne->sym = -1;
      ne->line = cml_model_line_of (ld, "invariants", keys[k]);
      g_ptr_array_add (model->invariants, ne);
      ne->expr = cml_model_parse_key (ld, "invariants", keys[k], SYM_PARAM | SYM_BASE, what);
      if (ne->expr == NULL)
        return FALSE;
      for (guint i = 0; i < model->m; i++)
        on_base |= cml_expr_depends_on (ne->expr, model->base_sym[i]);
      if (!on_base)
        return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL,
                     _("the invariant “%s” does not depend on the base coordinates: it is a condition on "
                       "the parameters, not on the configuration"),
                     keys[k]);
    }
  for (guint q = 0; q + 3 < model->base_quaternions->len; q += 4)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      guint *ix = &g_array_index (model->base_quaternions, guint, q);
      CmlExpr *e = cml_expr_num (ctx, -1);

      for (guint j = 0; j < 4; j++)
        e = cml_expr_add (ctx, e, cml_expr_powi (ctx, cml_expr_sym (ctx, model->base_sym[ix[j]]), 2));
      ne->name = g_strdup_printf ("|(%s, %s, %s, %s)|", model->base[ix[0]], model->base[ix[1]], model->base[ix[2]],
                                  model->base[ix[3]]);
      ne->sym = -1;
      ne->line = cml_model_line_of (ld, "quaternions", NULL);
      ne->expr = e;
      g_ptr_array_add (model->invariants, ne);
    }
  return TRUE;
}

gboolean
cml_model_load_monitors (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "monitors");
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) exprs = g_ptr_array_new ();

  for (int k = 0; keys && keys[k]; k++)
    {
      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      g_autofree char *what = g_strdup_printf (_("the monitor “%s”"), keys[k]);
      ne->name = g_strdup (keys[k]);
      ne->line = cml_model_line_of (ld, "monitors", keys[k]);
      g_ptr_array_add (model->monitors, ne);
      {
        /* "expression" or "expression | conserved" */
        g_autofree char *v = cml_model_kf_value (ld, "monitors", keys[k]);
        g_autoptr (GPtrArray) parts = cml_model_split_top (v, '|', NULL);
        Pos *p = cml_model_pos_of (ld, "monitors", keys[k]);
        if (parts->len > 2)
          return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL,
                       _("a monitor is “name = expression” or “name = expression | conserved”"));
        if (parts->len == 2)
          {
            if (!g_str_equal (g_strstrip ((char *) parts->pdata[1]), "conserved"))
              return cml_model_fail (ld, ne->line, 0, CML_ERROR_MODEL,
                           _("after the monitor's expression only “| conserved” may follow, not “| %s”"),
                           (char *) parts->pdata[1]);
            ne->conserved = TRUE;
          }
        ne->expr = cml_model_parse_at (ld, g_strstrip ((char *) parts->pdata[0]), p ? p->line : 1, p ? p->value_col : 0,
                             SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR
                               | SYM_MULTIPLIER,
                             what);
      }
      if (ne->expr == NULL)
        return FALSE;
      /* earlier monitors are substituted, like definitions */
      if (ids->len)
        {
          ne->expr = cml_expr_subs (ctx, ne->expr, ids->len, (int *) ids->data, (CmlExpr **) exprs->pdata);
          if (!cml_model_check_expr_budget (ld, ne->line, 0, what))
            return FALSE;
        }
      if ((ne->sym = cml_model_declare (ld, keys[k], SYM_MONITOR, ne->line)) < 0)
        return FALSE;
      g_array_append_val (ids, ne->sym);
      g_ptr_array_add (exprs, ne->expr);
      g_array_append_val (ld->mon_ids, ne->sym);
      g_ptr_array_add (ld->mon_exprs, ne->expr);
    }
  return TRUE;
}

/* The constraints' multipliers as names that monitors and the presentation groups may use
 * ([monitors], [scene], [units], [meanings], [output]): "lambda_<name>" for a nonholonomic constraint (λ of
 * W ẏ = R + Φ_yᵀ λ, so that Φ_yᵀ λ is the reaction force), "mu_<name>" for a vakonomic one
 * (μ = −p_α, the multiplier of the variational problem).  A name the model already uses
 * stays what the model made it.  The system gives them their values (cml-system.c). */
gboolean
cml_model_declare_multipliers (Loader *ld)
{
  CmlModel *model = ld->model;
  gboolean vak = model->kind == CML_CONSTRAINTS_VAKONOMIC;

  if (model->kind == CML_CONSTRAINTS_NONE || model->constraints == NULL || model->constraints->len == 0)
    return TRUE;
  model->multiplier_sym = g_new (int, model->constraints->len);
  for (guint a = 0; a < model->constraints->len; a++)
    {
      CmlNamedExpr *ne = model->constraints->pdata[a];
      g_autofree char *name = g_strconcat (vak ? "mu_" : "lambda_", ne->name, NULL);
      model->multiplier_sym[a] = -1;
      if (cml_expr_ctx_lookup (model->ctx, name) >= 0 || !cml_model_is_identifier (name)
          || cml_model_kf_has_key (ld, "monitors", name))
        continue;
      model->multiplier_sym[a] = cml_expr_ctx_intern (model->ctx, name);
      g_hash_table_insert (ld->kinds, GINT_TO_POINTER (model->multiplier_sym[a]), GINT_TO_POINTER (SYM_MULTIPLIER));
      g_hash_table_insert (model->meanings, g_strdup (name),
                           vak ? g_strdup_printf ("multiplier of the constraint on %s in the variational problem "
                                                  "(μ = −%s, a costate): not a force the constraint exerts",
                                                  ne->name, model->momenta[fibre_index (model, ne->name)])
                               : g_strdup_printf ("multiplier λ of the constraint %s (W ẏ = R + Φ_yᵀ λ): "
                                                  "Φ_yᵀ λ is the reaction force the constraint exerts",
                                                  ne->name));
    }
  return TRUE;
}

/* Names that may be given initial values: coordinates, momenta, reconstruction. */
gboolean
cml_model_is_state_name (Loader *ld, const char *name)
{
  int id = cml_expr_ctx_lookup (ld->model->ctx, name);
  return id >= 0 && (cml_model_sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON));
}

gboolean
cml_model_load_initial (Loader *ld)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, "initial");

  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "initial", keys[k]);
      g_autofree char *v = cml_model_kf_value (ld, "initial", keys[k]);
      double val;
      if (!cml_model_is_state_name (ld, keys[k]))
        return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     _("“%s” is not a coordinate, momentum or reconstruction variable"), keys[k]);
      if (model->kind != CML_CONSTRAINTS_VAKONOMIC
          && cml_model_sym_kind (ld, cml_expr_ctx_lookup (model->ctx, keys[k])) == SYM_MOMENTUM)
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                     _("“%s” is a momentum: only vakonomic systems take momenta as initial data (give the velocity)"),
                     keys[k]);
      if (!cml_model_eval_constant (ld, "initial", keys[k], g_strstrip (v), &val))
        return FALSE;
      g_hash_table_insert (model->initial, g_strdup (keys[k]), g_memdup2 (&val, sizeof val));
    }
  return TRUE;
}
