/* cml-scene-view-faint.c — what the 3-D view draws faint over the run: a second run
 * (comparing two runs, its own renderer and trail) and the model's closed form (its own
 * renderer, fed with the scene the closed-form values of the observables make).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

/* ---- a second run ------------------------------------------------------------------------ */

void
cml_scene_view_set_ghost (CmlSceneView *self, CmlSystem *sys, const char *label)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->ghost_sys, cml_system_unref);
  self->ghost_sys = sys;
  g_clear_pointer (&self->ghost_frame, cml_frame_unref);
  self->ghost_last_t = -INFINITY;
  if (gtk_widget_get_realized (GTK_WIDGET (self->area)) && self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->ghost_renderer, cml_scene_renderer_free);
      if (sys)
        {
          self->ghost_renderer = cml_scene_view_renderer_for (sys);
        }
    }
  g_free (self->ghost_label);
  self->ghost_label = sys ? g_strdup (label ? label : "other") : NULL;
  cml_scene_view_update_faint_note (self);
  gtk_gl_area_queue_render (self->area);
}

void
cml_scene_view_set_ghost_frame (CmlSceneView *self, CmlFrame *frame)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (frame)
    cml_frame_ref (frame);
  g_clear_pointer (&self->ghost_frame, cml_frame_unref);
  self->ghost_frame = frame;
}

void
cml_scene_view_push_ghost_samples (CmlSceneView *self, const double *t, const double *rows, guint n,
                                   guint n_cols, guint n_obs)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (self->ghost_renderer == NULL || self->ghost_sys == NULL || n == 0)
    return;
  /* a time before the trail's newest starts the second run over */
  if (t && t[0] < self->ghost_last_t)
    cml_scene_renderer_clear_trails (self->ghost_renderer);
  self->ghost_last_t = t ? t[n - 1] : self->ghost_last_t;
  guint offset = cml_scene_values_are_observables (self->ghost_sys) ? 0 : n_obs;
  cml_scene_renderer_push_trail_samples_timed (self->ghost_renderer, t, rows, n, n_cols, offset);
}

void
cml_scene_view_clear_ghost_trails (CmlSceneView *self)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->ghost_last_t = -INFINITY;
  if (self->ghost_renderer)
    cml_scene_renderer_clear_trails (self->ghost_renderer);
}

const char *
cml_scene_view_get_ghost_note (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), NULL);
  return gtk_widget_get_visible (self->ghost_legend) ? gtk_label_get_text (GTK_LABEL (self->ghost_legend)) : NULL;
}

/* ---- the closed form, drawn faint ----------------------------------------------------------- */

/* The scene that the observables OBS make at time T, with those that have a closed form
 * replaced by it, into OUT (the renderer's values: scene values, or the observables for
 * the default picture). */
static void
reference_scene (CmlSceneView *self, double t, const double *obs, double *out)
{
  CmlModel *model = cml_system_get_model (self->sys);
  guint n_obs = cml_system_n_observables (self->sys);
  guint n_ref = cml_reference_get_n (self->reference);
  g_autofree double *values = g_new (double, MAX (n_ref, 1));
  g_autofree double *o = g_memdup2 (obs, n_obs * sizeof (double));

  cml_reference_eval (self->reference, t, values);
  for (guint i = 0; i < n_ref; i++)
    {
      int k = cml_reference_get_observable (self->reference, i);
      if (k >= 0 && (guint) k < n_obs)
        o[k] = values[i];
    }
  if (cml_scene_values_are_observables (self->sys))
    {
      memcpy (out, o, n_obs * sizeof (double));
      return;
    }
  /* every property of every scene object, evaluated again at those values */
  g_autofree double *vals = cml_scene_view_symbol_values (self->sys, self->frame, o, t);
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *so = g_ptr_array_index (model->scene, k);
      GHashTableIter it;
      gpointer key, exprs;
      g_hash_table_iter_init (&it, so->props);
      while (g_hash_table_iter_next (&it, &key, &exprs))
        {
          int off = cml_system_scene_offset (self->sys, k, key);
          GPtrArray *e = exprs;
          for (guint j = 0; off >= 0 && j < e->len; j++)
            out[off + j] = cml_expr_eval (e->pdata[j], vals);
        }
    }
}

/* The closed form starts where the run does: its first row. */
void
cml_scene_view_reference_feed (CmlSceneView *self, const double *t, const double *rows, guint n, guint n_cols, guint n_obs)
{
  if (self->reference == NULL || n == 0)
    return;
  CmlModel *model = cml_system_get_model (self->sys);
  guint ns = cml_scene_view_n_scene (self);
  g_autofree double *params = g_new (double, MAX (model->params->len, 1));
  CmlFrame *f = self->frame;
  for (guint k = 0; k < model->params->len; k++)
    params[k] = f && f->system == self->sys && k < f->n_params ? f->params[k]
                                                                : ((CmlParam *) model->params->pdata[k])->value;
  g_autofree double *out = g_new (double, (gsize) n * MAX (ns, 1));
  guint m = 0;
  for (guint i = 0; i < n; i++)
    {
      const double *row = rows + (gsize) i * n_cols;
      if (t[i] == 0 || t[i] < self->ref_last_t)
        {
          /* a new run: the closed form starts again, its trail too */
          cml_reference_start (self->reference, params, row);
          if (self->ref_renderer)
            cml_scene_renderer_clear_trails (self->ref_renderer);
          m = 0;
        }
      self->ref_last_t = t[i];
      if (!cml_reference_is_started (self->reference))
        continue;
      reference_scene (self, t[i], row, out + (gsize) m * ns);
      m++;
      /* (the rows before a restart in this batch were dropped with the trail) */
    }
  if (self->ref_renderer && m > 0)
    cml_scene_renderer_push_trail_samples_timed (self->ref_renderer, t + (n - m), out, m, ns, 0);
}

/* The closed form's scene at FRAME, for drawing. */
void
cml_scene_view_reference_now (CmlSceneView *self, CmlFrame *frame)
{
  g_clear_pointer (&self->ref_now, g_free);
  if (self->reference == NULL || frame == NULL || frame->system != self->sys
      || !cml_reference_is_started (self->reference) || frame->n_obs != cml_system_n_observables (self->sys))
    return;
  self->ref_now = g_new (double, MAX (cml_scene_view_n_scene (self), 1));
  reference_scene (self, frame->t, frame->obs, self->ref_now);
}

void
cml_scene_view_set_show_reference (CmlSceneView *self, gboolean show)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->show_reference = !!show;
  g_clear_pointer (&self->reference, cml_reference_free);
  g_clear_pointer (&self->ref_now, g_free);
  self->ref_last_t = INFINITY;
  if (show && self->sys)
    self->reference = cml_reference_new (self->sys, NULL);
  cml_scene_view_update_faint_note (self);
  if (gtk_widget_get_realized (GTK_WIDGET (self->area)) && self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->ref_renderer, cml_scene_renderer_free);
      if (self->reference)
        {
          self->ref_renderer = cml_scene_view_renderer_for (self->sys);
        }
    }
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_scene_view_get_reference_scene (CmlSceneView *self, const double **values, guint *n)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  if (self->ref_now == NULL)
    return FALSE;
  *values = self->ref_now;
  *n = cml_scene_view_n_scene (self);
  return TRUE;
}
