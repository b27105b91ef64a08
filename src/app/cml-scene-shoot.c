/* cml-scene-shoot.c — steering a vakonomic run to a point of its 3-D scene: the aim (which
 * scene object's position a clicked point is a target for) and the shooting on a worker
 * thread (cml-shoot.c, doc/theory.md §13: Newton's method on the variational equations
 * for the initial momenta, then the conjugate times along the extremal found).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-shoot"

#include "cml-scene-shoot.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-model.h"

/* ---- the aim ------------------------------------------------------------------------------ */

/* The base coordinate or reconstruction variable expression E is, or NULL. */
static const char *
coordinate_name (CmlModel *model, CmlExpr *e)
{
  int id = cml_expr_symbol_id (e);
  if (id < 0)
    return NULL;
  for (guint i = 0; i < model->m; i++)
    if (model->base_sym[i] == id)
      return model->base[i];
  for (guint i = 0; model->reconstruction && i < model->reconstruction->len; i++)
    {
      const CmlNamedExpr *r = model->reconstruction->pdata[i];
      if (r->sym == id)
        return r->name;
    }
  return NULL;
}

/* Whether E does not move: numbers and parameters only. */
static gboolean
is_fixed (CmlModel *model, CmlExpr *e)
{
  guint n = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree gboolean *deps = g_new0 (gboolean, MAX (n, 1));
  cml_expr_collect_symbols (e, deps);
  for (guint id = 0; id < n; id++)
    {
      if (!deps[id])
        continue;
      gboolean param = FALSE;
      for (guint k = 0; k < model->params->len && !param; k++)
        param = ((CmlParam *) model->params->pdata[k])->sym == (int) id;
      if (!param)
        return FALSE;
    }
  return TRUE;
}

gboolean
cml_scene_aim_find (CmlSystem *sys, CmlSceneAim *aim, char **why)
{
  static const struct
  {
    const char *type, *key;
  } kinds[] = { { "trail", "point" }, { "sphere", "center" }, { "point", "position" }, { "disc", "position" } };

  if (why)
    *why = NULL;
  if (sys == NULL)
    {
      if (why)
        *why = g_strdup (_("No model is running."));
      return FALSE;
    }
  if (cml_system_get_formalism (sys) != CML_FORMALISM_VAKONOMIC)
    {
      if (why)
        *why = g_strdup (_("Only for a vakonomic model (an optimal control problem, whose run is set by its initial "
                         "momenta): this model's motion is fixed by its initial velocities."));
      return FALSE;
    }
  CmlModel *model = cml_system_get_model (sys);
  gboolean found = FALSE;
  for (guint k = 0; model->scene && k < model->scene->len; k++)
    {
      CmlSceneObject *o = model->scene->pdata[k];
      guint t;
      for (t = 0; t < G_N_ELEMENTS (kinds); t++)
        if (g_str_equal (o->type, kinds[t].type))
          break;
      if (t == G_N_ELEMENTS (kinds))
        continue;
      GPtrArray *c = g_hash_table_lookup (o->props, kinds[t].key);
      if (c == NULL || c->len != 3)
        continue;
      CmlSceneAim a = { .object = k, .key = kinds[t].key };
      gboolean ok = TRUE;
      for (guint j = 0; j < 3 && ok; j++)
        {
          a.names[j] = coordinate_name (model, c->pdata[j]);
          if (a.names[j])
            a.n++;
          else
            ok = is_fixed (model, c->pdata[j]);
        }
      if (!ok || a.n == 0)
        continue;
      gboolean trail = t == 0, best_trail = found && g_str_equal (aim->key, "point");
      if (!found || a.n > aim->n || (a.n == aim->n && trail && !best_trail))
        {
          *aim = a;
          found = TRUE;
        }
    }
  if (!found && why)
    *why = g_strdup (_("The scene draws nothing at plain coordinates: steering needs a trail, sphere, point or disc "
                     "whose position is base coordinates or reconstruction variables (e.g. center = x1, x2, r)."));
  return found;
}

/* ---- the shooting, on a worker ------------------------------------------------------------ */

void
cml_scene_shoot_result_free (CmlSceneShootResult *result)
{
  if (result == NULL)
    return;
  cml_shoot_result_free (result->shoot);
  g_strfreev (result->names);
  g_free (result->values);
  g_free (result->conjugate_points);
  if (result->path)
    g_array_unref (result->path);
  g_free (result);
}

typedef struct
{
  CmlSimulation *sim;
  CmlSceneAim    aim;
  double         target[3];
  double         t_end;
  char         **also;
} Job;

static void
job_free (Job *job)
{
  cml_simulation_free (job->sim);
  g_strfreev (job->also);
  g_free (job);
}

/* The aimed object's position at SIM's state. */
static void
aimed_position (CmlSimulation *sim, const CmlSceneAim *aim, double *scene, double out[3])
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  int off = cml_system_scene_offset (sys, aim->object, aim->key);
  cml_simulation_eval_scene (sim, scene);
  for (int j = 0; j < 3; j++)
    out[j] = off >= 0 ? scene[off + j] : NAN;
}

static void
shoot_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Job *job = data;
  CmlSimulation *sim = job->sim;
  CmlSystem *sys = cml_simulation_get_system (sim);
  GError *error = NULL;
  const char *names[3];
  double values[3];
  guint n = 0;

  for (guint j = 0; j < 3; j++)
    if (job->aim.names[j])
      {
        names[n] = job->aim.names[j];
        values[n++] = job->target[j];
      }
  CmlShootResult *shoot = cml_shoot (sim, job->t_end, n, names, values, NULL, &error);
  if (shoot == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_autoptr (CmlSceneShootResult) res = g_new0 (CmlSceneShootResult, 1);
  res->shoot = shoot;

  /* the values to restart from: the momenta, and the ALSO names at the start found */
  g_autoptr (GPtrArray) nm = g_ptr_array_new ();
  g_autoptr (GArray) val = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *obs = g_new (double, MAX (cml_system_n_observables (sys), 1));
  cml_simulation_observe (sim, obs);
  for (guint a = 0; a < shoot->n_momenta; a++)
    {
      g_ptr_array_add (nm, g_strdup (shoot->momentum_names[a]));
      g_array_append_val (val, shoot->momenta[a]);
    }
  for (guint k = 0; job->also && job->also[k]; k++)
    {
      int i = cml_system_observable_index (sys, job->also[k]);
      if (i < 0 || g_strv_contains ((const char *const *) shoot->momentum_names, job->also[k]))
        continue;
      g_ptr_array_add (nm, g_strdup (job->also[k]));
      g_array_append_val (val, obs[i]);
    }
  res->n_values = nm->len;
  g_ptr_array_add (nm, NULL);
  res->names = (char **) g_ptr_array_free (g_steal_pointer (&nm), FALSE);
  res->values = (double *) (gpointer) g_array_free (g_steal_pointer (&val), FALSE);

  /* where the aimed object is at each conjugate time, along the path (evenly in time:
   * the planned path the view previews), and at T */
  g_autofree double *scene = g_new (double, MAX (cml_system_n_scene_values (sys), 1));
  GArray *times = shoot->conjugate_times;
  double t0 = cml_simulation_get_time (sim), p[3];
  res->conjugate_points = g_new (double, 3 * MAX (times->len, 1));
  res->path = g_array_new (FALSE, FALSE, sizeof (double));
  aimed_position (sim, &job->aim, scene, p);
  g_array_append_vals (res->path, p, 3);
  guint next = 0;
  for (guint k = 1; k <= CML_SCENE_SHOOT_PATH_POINTS && !g_cancellable_is_cancelled (cancel); k++)
    {
      double tk = k == CML_SCENE_SHOOT_PATH_POINTS ? job->t_end
                                                   : t0 + (job->t_end - t0) * k / CML_SCENE_SHOOT_PATH_POINTS;
      for (; next < times->len && g_array_index (times, double, next) <= tk; next++)
        {
          if (!cml_simulation_advance (sim, g_array_index (times, double, next), &error))
            {
              g_task_return_error (task, error);
              return;
            }
          aimed_position (sim, &job->aim, scene, res->conjugate_points + 3 * next);
        }
      if (!cml_simulation_advance (sim, tk, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      aimed_position (sim, &job->aim, scene, p);
      g_array_append_vals (res->path, p, 3);
    }
  memcpy (res->end, p, sizeof res->end);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&res), (GDestroyNotify) cml_scene_shoot_result_free);
}

void
cml_scene_shoot_async (CmlSimulation *sim, const CmlSceneAim *aim, const double target[3], double t_end,
                       const char *const *also, GCancellable *cancel, GAsyncReadyCallback callback, gpointer data)
{
  Job *job = g_new0 (Job, 1);
  job->sim = sim;
  job->aim = *aim;
  memcpy (job->target, target, sizeof job->target);
  job->t_end = t_end;
  job->also = g_strdupv ((char **) also);

  /* shooting takes the exact Jacobian, derived from the model's expressions on first use:
   * here on the window's thread, which goes on using them, not in the shooting thread */
  (void) cml_system_jacobian_status (cml_simulation_get_system (sim));
  GTask *task = g_task_new (NULL, cancel, callback, data);
  g_task_set_source_tag (task, cml_scene_shoot_async);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, shoot_thread);
  g_object_unref (task);
}

CmlSceneShootResult *
cml_scene_shoot_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  /* cancelled meanwhile: G_IO_ERROR_CANCELLED (the task checks its cancellable), what it
   * found is no longer wanted */
  return g_task_propagate_pointer (G_TASK (result), error);
}
