/* cml-model-presentation.c — the groups of a model file about showing and checking the
 * system rather than defining it: [units], [meanings], [symbols], [output], [preset …] groups,
 * [scene …] objects and the [reference] values.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-model-private.h"

#include <math.h>
#include <string.h>

#include "cml-error.h"

#include <glib/gi18n-lib.h>

/* A group of NAME = text for the model's names ([units], [meanings], [labels]) into TABLE;
 * the texts in the user's language when LOCALIZED ([meanings], [labels]). */
static gboolean
load_name_texts (Loader *ld, const char *group, GHashTable *table, gboolean localized)
{
  CmlModel *model = ld->model;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, group);

  for (int k = 0; keys && keys[k]; k++)
    {
      int id = cml_expr_ctx_lookup (model->ctx, keys[k]);
      if (id < 0 || !(cml_model_sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR | SYM_DEFINITION | SYM_MULTIPLIER)))
        return cml_model_fail (ld, cml_model_line_of (ld, group, keys[k]), 0, CML_ERROR_UNKNOWN_NAME,
                     _("“%s” is not a coordinate, momentum, reconstruction variable, definition, monitor or constraint multiplier"), keys[k]);
      g_hash_table_insert (table, g_strdup (keys[k]),
                           localized ? cml_model_get_locale_string (ld, group, keys[k]) : cml_model_get_string (ld, group, keys[k]));
    }
  return TRUE;
}

gboolean
cml_model_load_units (Loader *ld)
{
  return load_name_texts (ld, "units", ld->model->units, FALSE);
}

gboolean
cml_model_load_meanings (Loader *ld)
{
  return load_name_texts (ld, "meanings", ld->model->meanings, TRUE);
}

gboolean
cml_model_load_symbols (Loader *ld)
{
  return load_name_texts (ld, "symbols", ld->model->symbols, FALSE);
}

gboolean
cml_model_load_labels (Loader *ld)
{
  return load_name_texts (ld, "labels", ld->model->labels, TRUE);
}

gboolean
cml_model_load_output (Loader *ld)
{
  CmlModel *model = ld->model;
  static const char *known[] = { "columns", NULL };
  GPtrArray *cols;

  if (!cml_model_check_keys (ld, "output", known))
    return FALSE;
  if (cml_model_kf_has_key (ld, "output", "columns"))
    {
      g_autofree char *v = cml_model_get_string (ld, "output", "columns");
      g_autoptr (GPtrArray) names = cml_model_name_list (v);
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
          if (id < 0 || !(cml_model_sym_kind (ld, id) & (SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR | SYM_DEFINITION | SYM_MULTIPLIER)))
            {
              g_ptr_array_free (cols, TRUE);
              return cml_model_fail (ld, cml_model_line_of (ld, "output", "columns"), 0, CML_ERROR_UNKNOWN_NAME,
                           _("the column “%s” is not a coordinate, momentum, reconstruction variable, definition, monitor or constraint multiplier"),
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

void
cml_model_preset_free (gpointer p)
{
  CmlPreset *pr = p;
  g_free (pr->name);
  g_free (pr->title);
  g_hash_table_unref (pr->values);
  g_free (pr);
}

gboolean
cml_model_load_preset (Loader *ld, const char *group)
{
  CmlModel *model = ld->model;
  CmlPreset *pr = g_new0 (CmlPreset, 1);
  g_auto (GStrv) keys = cml_model_kf_keys (ld, group);

  pr->name = g_strstrip (g_strdup (group + strlen ("preset ")));
  pr->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_ptr_array_add (model->presets, pr);
  if (*pr->name == '\0')
    return cml_model_fail (ld, cml_model_line_of (ld, group, NULL), 0, CML_ERROR_MODEL, _("a preset needs a name: [preset NAME]"));
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, group, keys[k]);
      if (g_str_equal (keys[k], "title"))
        {
          pr->title = cml_model_get_locale_string (ld, group, keys[k]);
          continue;
        }
      const CmlParam *par = cml_model_find_param (model, keys[k]);
      if (par == NULL && !cml_model_is_state_name (ld, keys[k]))
        return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     _("“%s” is not a parameter or an initial datum"), keys[k]);
      g_autofree char *v = cml_model_kf_value (ld, group, keys[k]);
      double val;
      if (!cml_model_eval_constant (ld, group, keys[k], g_strstrip (v), &val))
        return FALSE;
      if (par)
        {
          g_autoptr (GError) err = NULL;
          if (!cml_model_check_param (model, par, val, &err))
            return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, "%s", err->message);
        }
      g_hash_table_insert (pr->values, g_strdup (keys[k]), g_memdup2 (&val, sizeof val));
    }
  if (pr->title == NULL)
    pr->title = g_strdup (pr->name);
  /* the preset's parameters, with the defaults for the others, are possible together */
  if (model->requirements->len)
    {
      g_autofree double *values = g_new0 (double, MAX (model->params->len, 1));
      g_autoptr (GError) err = NULL;

      for (guint i = 0; i < model->params->len; i++)
        {
          const CmlParam *par = model->params->pdata[i];
          const double *v = g_hash_table_lookup (pr->values, par->name);

          values[i] = v ? *v : par->value;
        }
      if (!cml_model_check_params (model, values, &err))
        return cml_model_fail (ld, cml_model_line_of (ld, group, NULL), 0, CML_ERROR_MODEL, _("the preset's parameters: %s"), err->message);
    }
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

void
cml_model_scene_object_free (gpointer p)
{
  CmlSceneObject *so = p;
  g_free (so->name);
  g_free (so->type);
  g_free (so->color);
  g_free (so->label);
  g_hash_table_unref (so->props);
  g_free (so);
}

gboolean
cml_model_load_scene_object (Loader *ld, const char *group)
{
  CmlModel *model = ld->model;
  CmlSceneObject *so = g_new0 (CmlSceneObject, 1);
  const SceneType *st = NULL;
  g_auto (GStrv) keys = cml_model_kf_keys (ld, group);
  int gline = cml_model_line_of (ld, group, NULL);

  so->name = g_strstrip (g_strdup (group + strlen ("scene ")));
  so->props = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  g_ptr_array_add (model->scene, so);
  so->type = cml_model_get_string (ld, group, "type");
  if (so->type == NULL)
    return cml_model_fail (ld, gline, 0, CML_ERROR_MODEL, _("[%s] needs a type"), group);
  for (guint k = 0; k < G_N_ELEMENTS (scene_types); k++)
    if (g_str_equal (scene_types[k].type, so->type))
      st = &scene_types[k];
  if (st == NULL)
    return cml_model_fail (ld, cml_model_line_of (ld, group, "type"), 0, CML_ERROR_MODEL,
                 _("unknown scene object type “%s” (sphere, turntable, plane, point, trail, disc, arrow)"), so->type);
  so->color = cml_model_get_string (ld, group, "color");
  so->label = cml_model_get_locale_string (ld, group, "label");
  if (so->color && !color_known (so->color))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) scene_colors);
      return cml_model_fail (ld, cml_model_line_of (ld, group, "color"), 0, CML_ERROR_MODEL,
                   _("unknown colour “%s” (%s, or #RRGGBB)"), so->color, list);
    }

  for (int k = 0; keys && keys[k]; k++)
    {
      int j, line = cml_model_line_of (ld, group, keys[k]);
      if (g_str_equal (keys[k], "type") || g_str_equal (keys[k], "color") || g_str_equal (keys[k], "label"))
        continue;
      for (j = 0; j < 6 && st->keys[j]; j++)
        if (g_str_equal (st->keys[j], keys[k]))
          break;
      if (j == 6 || st->keys[j] == NULL)
        /* TRANSLATORS: a scene object type as the model file writes it (sphere, disc…) and a key */
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("a %s has no property “%s”"), st->type, keys[k]);
      Pos *p = cml_model_pos_of (ld, group, keys[k]);
      g_autofree char *v = cml_model_kf_value (ld, group, keys[k]);
      g_autoptr (GArray) offs = g_array_new (FALSE, FALSE, sizeof (int));
      g_autoptr (GPtrArray) parts = cml_model_split_top (g_strstrip (v), ',', offs);
      if ((int) parts->len != st->arity[j])
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL, _("“%s” of a %s has %d components, not %u"),
                     keys[k], st->type, st->arity[j], parts->len);
      GPtrArray *exprs = g_ptr_array_new ();
      g_hash_table_insert (so->props, g_strdup (keys[k]), exprs);
      g_autofree char *what = g_strdup_printf (_("“%s” of the scene object “%s”"), keys[k], so->name);
      for (guint c = 0; c < parts->len; c++)
        {
          CmlExpr *e = cml_model_parse_at (ld, parts->pdata[c], line, p->value_col + g_array_index (offs, int, c),
                                 SYM_PARAM | SYM_TIME | SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR
                                   | SYM_MULTIPLIER,
                                 what);
          if (e == NULL)
            return FALSE;
          /* monitors are substituted, like definitions */
          if (ld->mon_ids->len)
            {
              e = cml_expr_subs (model->ctx, e, ld->mon_ids->len, (int *) ld->mon_ids->data,
                                 (CmlExpr **) ld->mon_exprs->pdata);
              if (!cml_model_check_expr_budget (ld, line, 0, what))
                return FALSE;
            }
          g_ptr_array_add (exprs, e);
        }
    }
  for (int j = 0; j < 6 && st->keys[j]; j++)
    if (st->required[j] && !g_hash_table_contains (so->props, st->keys[j]))
      return cml_model_fail (ld, gline, 0, CML_ERROR_MODEL, _("a %s needs “%s”"), st->type, st->keys[j]);
  return TRUE;
}

/* [reference]: "name = closed form", NAME an observable (a coordinate, velocity, momentum,
 * reconstruction variable or monitor), the expression in t, the parameters and the values
 * at t = 0 of the observables, written NAME_0 ("x_0").  Declared last, so that no other
 * group can use a NAME_0.  cml-reference.c compiles and evaluates them. */
gboolean
cml_model_load_reference (Loader *ld)
{
  CmlModel *model = ld->model;
  CmlExprCtx *ctx = model->ctx;
  const SymKind observable = SYM_BASE | SYM_FIBRE | SYM_MOMENTUM | SYM_RECON | SYM_MONITOR;
  g_auto (GStrv) keys = NULL;

  if (!cml_model_kf_has_group (ld, "reference"))
    return TRUE;

  /* the initial values: one NAME_0 per observable, unless the model already uses that
   * name for something else (then the closed forms cannot tell them apart) */
  guint ns = cml_expr_ctx_n_symbols (ctx);
  for (guint id = 0; id < ns; id++)
    {
      if (!(cml_model_sym_kind (ld, (int) id) & observable))
        continue;
      g_autofree char *zero = g_strconcat (cml_expr_ctx_symbol_name (ctx, (int) id), "_0", NULL);
      if (cml_expr_ctx_lookup (ctx, zero) >= 0)
        return cml_model_fail (ld, cml_model_line_of (ld, "reference", NULL), 0, CML_ERROR_MODEL,
                     /* TRANSLATORS: a name, the name of its value at t = 0 and the kind of
                      * name the model already has under it (e.g. “parameter”) */
                     _("[reference] writes the value of “%s” at t = 0 as “%s”, but the model has a %s of that "
                       "name: rename it"), cml_expr_ctx_symbol_name (ctx, (int) id), zero,
                     cml_model_kind_name (cml_model_sym_kind (ld, cml_expr_ctx_lookup (ctx, zero))));
      CmlInitialSym is = { .sym = (int) id };
      is.zero_sym = cml_expr_ctx_intern (ctx, zero);
      g_hash_table_insert (ld->kinds, GINT_TO_POINTER (is.zero_sym), GINT_TO_POINTER (SYM_INITIAL));
      g_array_append_val (model->initial_syms, is);
    }

  keys = cml_model_kf_keys (ld, "reference");
  for (int k = 0; keys && keys[k]; k++)
    {
      int line = cml_model_line_of (ld, "reference", keys[k]);
      int id = cml_expr_ctx_lookup (ctx, keys[k]);
      g_autofree char *what = g_strdup_printf (_("the closed form of “%s”"), keys[k]);

      if (id < 0)
        return cml_model_fail (ld, line, 0, CML_ERROR_UNKNOWN_NAME,
                     _("[reference]: unknown name “%s” (a closed form is given for a coordinate, velocity, "
                       "momentum, reconstruction variable or monitor)"), keys[k]);
      if (!(cml_model_sym_kind (ld, id) & observable))
        return cml_model_fail (ld, line, 0, CML_ERROR_MODEL,
                     _("[reference]: “%s” is a %s, not an observable (a closed form is given for a coordinate, "
                       "velocity, momentum, reconstruction variable or monitor)"), keys[k],
                     cml_model_kind_name (cml_model_sym_kind (ld, id)));

      CmlNamedExpr *ne = g_new0 (CmlNamedExpr, 1);
      ne->name = g_strdup (keys[k]);
      ne->sym = id;
      ne->line = line;
      g_ptr_array_add (model->references, ne);
      ne->expr = cml_model_parse_key (ld, "reference", keys[k], SYM_PARAM | SYM_TIME | SYM_INITIAL, what);
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
