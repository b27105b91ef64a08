/* cml-scene-trails.c — the trails' history: the points each trail keeps (the last
 * `length` seconds, at most TRAIL_MAX_POINTS) with their frame-angles, and the discs a
 * `disc` with `every` leaves along its path.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-private.h"

#include <math.h>

/* ---- trails ---------------------------------------------------------------------------- */

guint
cml_scene_trail_n (const SceneObj *o)
{
  return o->points->len - o->start;
}

const TrailPoint *
cml_scene_trail_at (const SceneObj *o, guint i)
{
  return &g_array_index (o->points, TrailPoint, o->start + i);
}

/* Drops the points before FIRST (logical index); compacts when half the array is dead. */
static void
trail_drop (SceneObj *o, guint first)
{
  o->start += first;
  if (o->start > 4096 && o->start > o->points->len / 2)
    {
      g_array_remove_range (o->points, 0, o->start);
      o->start = 0;
    }
}

double
cml_scene_obj_length (const SceneObj *o, const double *v)
{
  double len = o->length >= 0 ? v[o->length] : DEFAULT_LENGTH;
  return isfinite (len) && len > 0 ? len : DEFAULT_LENGTH;
}

/* The largest trail length in seconds: how long the discs along a path stay. */
static double
longest_trail (CmlSceneRenderer *r, const double *v)
{
  double len = 0;
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind == OBJ_TRAIL)
        len = MAX (len, cml_scene_obj_length (o, v));
    }
  return len > 0 ? len : DEFAULT_LENGTH;
}

void
cml_scene_add_trail_bounds (CmlSceneRenderer *r, const float p[3], float angle, gboolean has_angle)
{
  double c[3] = { p[0], p[1], p[2] };
  cml_scene_lab_add (r, c, 0);
  if (has_angle)
    {
      /* in the table frame the point turns about z with the table: the circle through it */
      double rho = hypot (p[0], p[1]);
      double lo[3] = { -rho, -rho, p[2] }, hi[3] = { rho, rho, p[2] };
      cml_scene_box_add (r->table_min, r->table_max, &r->table_valid, lo, 0);
      cml_scene_box_add (r->table_min, r->table_max, &r->table_valid, hi, 0);
    }
}

void
cml_scene_renderer_push_trail_samples_timed (CmlSceneRenderer *r, const double *t,
                                             const double *rows, guint n, guint n_cols,
                                             guint scene_offset)
{
  g_return_if_fail (r != NULL);
  g_return_if_fail (n == 0 || rows != NULL);
  if (r->sys == NULL || n == 0)
    return;
  g_return_if_fail (scene_offset + r->n_scene <= n_cols);

  for (guint s = 0; s < n; s++)
    {
      double scratch[3];
      /* a sample beyond what a picture holds (a run running away) is left out whole */
      if (!cml_scene_values_drawable (rows + (gsize) s * n_cols + scene_offset, r->n_scene))
        continue;
      const double *v = cml_scene_object_values (r, rows + (gsize) s * n_cols + scene_offset, scratch);
      /* the bodies where they were join the bounds (and the tables' reach), not only the
       * trails: a camera framed on them holds the whole run */
      cml_scene_add_object_bounds (r, v);
      for (guint i = 0; i < r->objects->len; i++)
        {
          SceneObj *o = r->objects->pdata[i];
          if (o->kind == OBJ_TRAIL)
            {
              TrailPoint tp = { 0 };
              tp.t = t ? t[s] : NAN;
              for (int k = 0; k < 3; k++)
                tp.p[k] = (float) v[o->point + k];
              tp.angle = o->frame_angle >= 0 ? (float) v[o->frame_angle] : 0.f;
              if (!isfinite (tp.p[0]) || !isfinite (tp.p[1]) || !isfinite (tp.p[2])
                  || !isfinite (tp.angle))
                continue;
              /* times going back mean a new run that nobody announced: start over */
              if (t && cml_scene_trail_n (o) > 0 && t[s] < cml_scene_trail_at (o, cml_scene_trail_n (o) - 1)->t)
                trail_drop (o, cml_scene_trail_n (o));
              g_array_append_val (o->points, tp);
              cml_scene_add_trail_bounds (r, tp.p, tp.angle, o->frame_angle >= 0);

              /* keep LENGTH seconds and at most TRAIL_MAX_POINTS */
              guint drop = 0, count = cml_scene_trail_n (o);
              if (count > TRAIL_MAX_POINTS)
                drop = count - TRAIL_MAX_POINTS;
              if (t)
                {
                  double oldest = t[s] - cml_scene_obj_length (o, v);
                  while (drop < count && cml_scene_trail_at (o, drop)->t < oldest)
                    drop++;
                }
              if (drop)
                trail_drop (o, drop);
            }
          else if (o->kind == OBJ_DISC && o->marks)
            {
              /* a disc every `every` seconds (or samples at the assumed spacing) */
              double every = v[o->every];
              guint nm = o->marks->len - o->marks_start;
              const DiscMark *last = nm ? &g_array_index (o->marks, DiscMark, o->marks->len - 1) : NULL;
              o->samples_since_mark++;
              gboolean due;
              if (t)
                due = last == NULL || !isfinite (last->t) || t[s] - last->t >= every || t[s] < last->t;
              else
                due = last == NULL || o->samples_since_mark >= MAX (1.0, every * SAMPLES_PER_SECOND);
              if (!due)
                continue;
              DiscMark dm = { .t = t ? t[s] : NAN, .radius = (float) v[o->radius] };
              for (int k = 0; k < 3; k++)
                {
                  dm.p[k] = (float) v[o->position + k];
                  dm.n[k] = (float) v[o->normal + k];
                }
              if (!isfinite (dm.p[0] + dm.p[1] + dm.p[2] + dm.n[0] + dm.n[1] + dm.n[2] + dm.radius))
                continue;
              if (last && t && t[s] < last->t)
                o->marks_start = o->marks->len;
              g_array_append_val (o->marks, dm);
              o->samples_since_mark = 0;

              nm = o->marks->len - o->marks_start;
              guint drop = nm > DISC_MARKS_MAX ? nm - DISC_MARKS_MAX : 0;
              if (t)
                {
                  double oldest = t[s] - longest_trail (r, v);
                  while (drop < nm && g_array_index (o->marks, DiscMark, o->marks_start + drop).t < oldest)
                    drop++;
                }
              o->marks_start += drop;
              if (o->marks_start > 256 && o->marks_start > o->marks->len / 2)
                {
                  g_array_remove_range (o->marks, 0, o->marks_start);
                  o->marks_start = 0;
                }
            }
        }
    }
}

void
cml_scene_renderer_push_trail_samples (CmlSceneRenderer *r, const double *rows, guint n,
                                       guint n_cols, guint scene_offset)
{
  cml_scene_renderer_push_trail_samples_timed (r, NULL, rows, n, n_cols, scene_offset);
}

void
cml_scene_renderer_clear_trails (CmlSceneRenderer *r)
{
  g_return_if_fail (r != NULL);

  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->points)
        {
          g_array_set_size (o->points, 0);
          o->start = 0;
        }
      if (o->marks)
        {
          g_array_set_size (o->marks, 0);
          o->marks_start = 0;
          o->samples_since_mark = 0;
        }
    }
  cml_scene_reset_bounds (r);
}

guint
cml_scene_renderer_get_trail_length (CmlSceneRenderer *r, guint trail)
{
  g_return_val_if_fail (r != NULL, 0);

  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind == OBJ_TRAIL && trail-- == 0)
        return cml_scene_trail_n (o);
    }
  return 0;
}
