/* cml-as-vakonomic.c — the same Lagrangian and constraints read by the other principle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A nonholonomic model gives a Lagrangian L(t, x, y) and constraints φ^i(t, x, y) = 0
 * that are linear or affine in the velocities,
 *
 *     φ^i = A^i_α(t, x) y^α + a^i(t, x, y^a),
 *
 * where y^α are the model's `solve-for` coordinates (one per constraint) and y^a the
 * others.  When the k×k matrix A = ∂φ/∂y^α is invertible the constraint set is the graph
 *
 *     y^α = Ψ^α(t, x, y^a) = −(A⁻¹ a)^α,
 *
 * which is how a vakonomic model states its constraints (doc/theory.md, the vakonomic
 * formalism).  The vakonomic model made here is the model file itself with
 * `constraints = vakonomic`, the graph in place of the functions φ, and everything that
 * only holds for the nonholonomic motion left out: the closed forms of `[reference]`,
 * the `| conserved` flags of monitors (and their meanings), what uses the multipliers
 * lambda_<constraint> (monitors, scene objects), the initial values of the y^α (which the
 * graph determines).  Its initial multipliers — the momenta p_α of the
 * constrained directions — are zero unless given; the free velocities are the file's.
 *
 * A is solved symbolically (cml-symsolve.c) with pivots chosen at a sample point made of
 * the parameters' defaults and the initial data; the result is printed and read back,
 * so the vakonomic model is an ordinary model text (sessions embed it as any other).
 */
#define G_LOG_DOMAIN "cml-model"

#include "cml-as-vakonomic.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-symsolve.h"

/* TRUE when E depends on some fibre coordinate of MODEL. */
static gboolean
depends_on_fibre (const CmlModel *model, const CmlExpr *e)
{
  for (guint A = 0; A < model->n; A++)
    if (cml_expr_depends_on (e, model->fibre_sym[A]))
      return TRUE;
  return FALSE;
}

/* A point to choose pivots at: parameters at their defaults, coordinates at their initial
 * values where given and at distinct, unremarkable values elsewhere (so that a
 * coefficient such as x does not vanish there by accident). */
static double *
sample_point (const CmlModel *model)
{
  guint n_sym = cml_expr_ctx_n_symbols (model->ctx);
  double *sample = g_new0 (double, n_sym);
  for (guint s = 0; s < n_sym; s++)
    sample[s] = 0.3 + 0.0731 * (double) (s % 17);
  for (guint k = 0; k < model->params->len; k++)
    {
      const CmlParam *p = g_ptr_array_index (model->params, k);
      sample[p->sym] = p->value;
    }
  for (guint i = 0; i < model->m; i++)
    {
      const double *v = g_hash_table_lookup (model->initial, model->base[i]);
      if (v != NULL && *v != 0)
        sample[model->base_sym[i]] = *v;
    }
  return sample;
}

/* Solves the constraints of the nonholonomic MODEL for its solve-for coordinates:
 * PSI[j] is Ψ^{α_j}, ALPHA[j] the fibre index α_j. */
static gboolean
solve_graph (const CmlModel *model, guint *alpha, CmlExpr **psi, GError **error)
{
  CmlExprCtx *ctx = model->ctx;
  guint k = model->constraints->len;

  for (guint j = 0; j < k; j++)
    alpha[j] = (guint) model->solve_for[j] - model->m;

  g_autofree CmlExpr **A = g_new0 (CmlExpr *, k * k);
  g_autofree CmlExpr **b = g_new0 (CmlExpr *, k);
  g_autofree int *ids = g_new (int, k);
  g_autofree CmlExpr **zeros = g_new (CmlExpr *, k);
  for (guint j = 0; j < k; j++)
    {
      ids[j] = model->fibre_sym[alpha[j]];
      zeros[j] = cml_expr_num (ctx, 0);
    }

  for (guint i = 0; i < k; i++)
    {
      const CmlNamedExpr *phi = g_ptr_array_index (model->constraints, i);
      for (guint B = 0; B < model->n; B++)
        {
          CmlExpr *d = cml_expr_diff (ctx, phi->expr, model->fibre_sym[B]);
          if (depends_on_fibre (model, d))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                           _("%s:%d: the constraint “%s” is not linear in the velocities (it depends "
                             "on %s through a nonlinear term), so it cannot be read as a graph "
                             "%s = Ψ(t, x, y) for the vakonomic principle"),
                           model->path, phi->line, phi->name, model->fibre[B],
                           model->fibre[alpha[MIN (i, k - 1)]]);
              return FALSE;
            }
        }
      for (guint j = 0; j < k; j++)
        A[i * k + j] = cml_expr_diff (ctx, phi->expr, ids[j]);
      b[i] = cml_expr_neg (ctx, cml_expr_subs (ctx, phi->expr, k, ids, zeros));
    }

  g_autofree double *sample = sample_point (model);
  guint rank = 0;
  if (!cml_symsolve (ctx, k, A, 1, b, sample, psi, NULL, &rank))
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (guint j = 0; j < k; j++)
        g_string_append_printf (names, "%s%s", j ? ", " : "", model->fibre[alpha[j]]);
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   _("%s:%d: the constraints cannot be solved for %s (the solve-for coordinates): "
                     "their matrix has rank %u, not %u, at the initial point"),
                   model->path, model->constraints_line, names->str, rank, k);
      return FALSE;
    }
  return TRUE;
}

/* Removes the "| conserved" flags of the monitors in KF; DROPPED receives their names. */
static void
drop_conserved_flags (GKeyFile *kf, GPtrArray *dropped)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "monitors", NULL, NULL);
  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      g_autofree char *value = g_key_file_get_value (kf, "monitors", keys[k], NULL);
      char *bar = value != NULL ? strrchr (value, '|') : NULL;
      if (bar == NULL)
        continue;
      *bar = '\0';
      g_strchomp (value);
      g_key_file_set_value (kf, "monitors", keys[k], value);
      g_ptr_array_add (dropped, g_strdup (keys[k]));
    }
}

/* TRUE when E uses one of the multiplier symbols flagged in IS_MULT. */
static gboolean
uses_multiplier (const CmlModel *model, const CmlExpr *e, const gboolean *is_mult)
{
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree gboolean *deps = g_new0 (gboolean, ns);
  cml_expr_collect_symbols (e, deps);
  for (guint id = 0; id < ns; id++)
    if (deps[id] && is_mult[id])
      return TRUE;
  return FALSE;
}

/* Removes KEY of GROUP from KF with its translations (KEY[LANG]). */
static void
remove_texts (GKeyFile *kf, const char *group, const char *key)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  gsize len = strlen (key);

  for (guint j = 0; keys && keys[j]; j++)
    if (strncmp (keys[j], key, len) == 0 && (keys[j][len] == '\0' || keys[j][len] == '['))
      g_key_file_remove_key (kf, group, keys[j], NULL);
}

/* Removes from KF what uses the nonholonomic multipliers lambda_<constraint>, which the
 * vakonomic reading does not have (its multipliers are costates, mu_<coordinate>): the
 * monitors and scene objects that use them, and their names in [units], [meanings] and
 * [output]. */
static void
drop_multiplier_uses (const CmlModel *model, GKeyFile *kf)
{
  if (model->multiplier_sym == NULL)
    return;
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree gboolean *is_mult = g_new0 (gboolean, ns);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint a = 0; a < model->constraints->len; a++)
    if (model->multiplier_sym[a] >= 0)
      {
        is_mult[model->multiplier_sym[a]] = TRUE;
        g_ptr_array_add (names, g_strdup (cml_expr_ctx_symbol_name (model->ctx, model->multiplier_sym[a])));
      }
  for (guint k = 0; k < model->monitors->len; k++)
    {
      CmlNamedExpr *ne = model->monitors->pdata[k];
      if (uses_multiplier (model, ne->expr, is_mult))
        {
          g_key_file_remove_key (kf, "monitors", ne->name, NULL);
          g_ptr_array_add (names, g_strdup (ne->name));
        }
    }
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *so = model->scene->pdata[k];
      GHashTableIter it;
      gpointer key, val;
      gboolean uses = FALSE;
      g_hash_table_iter_init (&it, so->props);
      while (!uses && g_hash_table_iter_next (&it, &key, &val))
        for (guint c = 0; c < ((GPtrArray *) val)->len; c++)
          uses |= uses_multiplier (model, ((GPtrArray *) val)->pdata[c], is_mult);
      if (uses)
        {
          g_autofree char *group = g_strdup_printf ("scene %s", so->name);
          g_key_file_remove_group (kf, group, NULL);
        }
    }
  for (guint k = 0; k < names->len; k++)
    {
      g_key_file_remove_key (kf, "units", names->pdata[k], NULL);
      remove_texts (kf, "meanings", names->pdata[k]);
      remove_texts (kf, "labels", names->pdata[k]);
      g_key_file_remove_key (kf, "symbols", names->pdata[k], NULL);
    }
  g_autofree char *columns = g_key_file_get_value (kf, "output", "columns", NULL);
  if (columns != NULL)
    {
      g_auto (GStrv) cols = g_strsplit (columns, ",", -1);
      g_autoptr (GString) kept = g_string_new (NULL);
      for (guint c = 0; cols[c] != NULL; c++)
        {
          g_strstrip (cols[c]);
          gboolean dropped = FALSE;
          for (guint k = 0; k < names->len; k++)
            dropped |= g_str_equal (cols[c], names->pdata[k]);
          if (!dropped && cols[c][0] != '\0')
            g_string_append_printf (kept, "%s%s", kept->len ? ", " : "", cols[c]);
        }
      g_key_file_set_value (kf, "output", "columns", kept->str);
    }
}

char *
cml_model_vakonomic_text (const CmlModel *model, GError **error)
{
  g_return_val_if_fail (model != NULL, NULL);

  if (model->kind != CML_CONSTRAINTS_NONHOLONOMIC)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   model->kind == CML_CONSTRAINTS_VAKONOMIC
                     ? _("%s: only a nonholonomic model can be read by the vakonomic principle; "
                         "this one is vakonomic already")
                     : _("%s: only a nonholonomic model can be read by the vakonomic principle; "
                         "this one has no constraints"),
                   model->path);
      return NULL;
    }
  if (model->forces)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   _("%s:%d: a model with [forces] cannot be read by the vakonomic principle: a vakonomic "
                     "motion makes an action stationary, and a force that is not in the Lagrangian is not part "
                     "of any action"),
                   model->path, model->forces_line);
      return NULL;
    }
  if (model->n_solve_for != model->constraints->len)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                   _("%s: to be read by the vakonomic principle the model must say which velocities "
                     "the constraints determine: add “solve-for = …” (one fibre coordinate per "
                     "constraint) to [dynamics]"),
                   model->path);
      return NULL;
    }
  for (guint j = 0; j < model->n_solve_for; j++)
    if (model->solve_for[j] < (int) model->m)
      {
        g_set_error (error, CML_ERROR, CML_ERROR_MODEL,
                     _("%s: solve-for names the base coordinate %s; the vakonomic graph needs "
                       "fibre coordinates"),
                     model->path, model->base[model->solve_for[j]]);
        return NULL;
      }

  /* Work on a private copy: the expressions made here go into its context, not into
   * the one a running simulation of MODEL may be reading. */
  g_autoptr (CmlModel) copy = cml_model_new_from_data (model->text, model->path, error);
  if (copy == NULL)
    return NULL;
  guint k = copy->constraints->len;
  g_autofree guint *alpha = g_new (guint, k);
  g_autofree CmlExpr **psi = g_new0 (CmlExpr *, k);
  if (!solve_graph (copy, alpha, psi, error))
    return NULL;

  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_data (kf, copy->text, (gsize) -1,
                                  G_KEY_FILE_KEEP_COMMENTS | G_KEY_FILE_KEEP_TRANSLATIONS, error))
    return NULL;

  /* [model]: say what this is */
  g_autofree char *name = g_strdup_printf ("%s-vakonomic", copy->name);
  g_autofree char *title = g_strdup_printf (_("%s (vakonomic)"), copy->title);
  g_key_file_set_value (kf, "model", "name", name);
  g_key_file_set_value (kf, "model", "title", title);
  g_autoptr (GString) about = g_string_new (NULL);
  /* these texts are written in the user's language (copy->title is), as the untranslated
   * keys of the file made here */
  g_string_append_printf (about,
                          _("The Lagrangian and the constraints of “%s”, read by the vakonomic "
                            "(variational) principle: the motion makes the action stationary among "
                            "the curves that satisfy the constraints, instead of obeying "
                            "d'Alembert's principle. The constrained velocities follow the graph "),
                          copy->title);
  for (guint j = 0; j < k; j++)
    {
      g_autofree char *rhs = cml_expr_print_pretty (copy->ctx, psi[j], 200);
      g_autofree char *lhs = cml_expr_pretty_name (copy->fibre[alpha[j]], FALSE);
      /* TRANSLATORS: " and " joins the last two items of a list: "a, b and c" */
      g_string_append_printf (about, "%s%s = %s", j == 0 ? "" : (j + 1 == k ? _(" and ") : ", "),
                              lhs, rhs);
    }
  g_string_append (about, _("; the multipliers "));
  for (guint j = 0; j < k; j++)
    {
      g_autofree char *p = cml_expr_pretty_name (copy->momenta[alpha[j]], FALSE);
      g_string_append_printf (about, "%s%s", j == 0 ? "" : (j + 1 == k ? _(" and ") : ", "), p);
    }
  g_string_append (about, _(" start at zero unless given."));
  g_key_file_set_value (kf, "model", "about", about->str);
  g_autofree char *description = g_strdup_printf (
    _("The vakonomic reading of “%s”: the same algebroid, Lagrangian and constraints, with the "
      "constraints written as a graph over the free velocities and the motion given by the "
      "vakonomic (variational) principle instead of the Lagrange–d'Alembert one."), copy->title);
  g_key_file_set_value (kf, "model", "description", description);
  /* the original's translations of these texts would hide the new ones */
  {
    g_auto (GStrv) keys = g_key_file_get_keys (kf, "model", NULL, NULL);
    for (guint j = 0; keys && keys[j]; j++)
      if (g_str_has_prefix (keys[j], "title[") || g_str_has_prefix (keys[j], "about[")
          || g_str_has_prefix (keys[j], "description["))
        g_key_file_remove_key (kf, "model", keys[j], NULL);
  }

  /* [dynamics] and [constraints]: the graph instead of the functions */
  g_key_file_set_value (kf, "dynamics", "constraints", "vakonomic");
  g_key_file_remove_key (kf, "dynamics", "solve-for", NULL);
  g_key_file_remove_group (kf, "constraints", NULL);
  for (guint j = 0; j < k; j++)
    {
      g_autofree char *rhs = cml_expr_to_string (copy->ctx, psi[j]);
      g_key_file_set_value (kf, "constraints", copy->fibre[alpha[j]], rhs);
    }

  /* what holds only for the nonholonomic motion */
  g_key_file_remove_group (kf, "reference", NULL);
  drop_multiplier_uses (copy, kf);
  g_autoptr (GPtrArray) dropped = g_ptr_array_new_with_free_func (g_free);
  drop_conserved_flags (kf, dropped);
  for (guint d = 0; d < dropped->len; d++)
    g_key_file_remove_key (kf, "meanings", g_ptr_array_index (dropped, d), NULL);
  for (guint j = 0; j < k; j++)
    g_key_file_remove_key (kf, "initial", copy->fibre[alpha[j]], NULL);
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  for (guint g = 0; groups[g] != NULL; g++)
    if (g_str_has_prefix (groups[g], "preset"))
      for (guint j = 0; j < k; j++)
        g_key_file_remove_key (kf, groups[g], copy->fibre[alpha[j]], NULL);
  /* the translations of the texts removed above ("I[es]" without "I") go with them */
  for (guint g = 0; groups[g] != NULL; g++)
    {
      g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
      for (guint j = 0; keys && keys[j]; j++)
        {
          const char *open = strchr (keys[j], '[');
          if (open == NULL)
            continue;
          g_autofree char *base = g_strndup (keys[j], open - keys[j]);
          if (!g_key_file_has_key (kf, groups[g], base, NULL))
            g_key_file_remove_key (kf, groups[g], keys[j], NULL);
        }
    }

  return g_key_file_to_data (kf, NULL, NULL);
}

CmlModel *
cml_model_new_as_vakonomic (const CmlModel *model, GError **error)
{
  g_autofree char *text = cml_model_vakonomic_text (model, error);
  if (text == NULL)
    return NULL;
  g_autofree char *display = g_strdup_printf ("%s (read as vakonomic)", model->path);
  return cml_model_new_from_data (text, display, error);
}
