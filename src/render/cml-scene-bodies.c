/* cml-scene-bodies.c — the bodies of the scene drawn: the objects of the [scene] section
 * (spheres, points, arrows, rods, discs, wheels, tables) at the current state, the
 * translucent things drawn last from far to near, and the contact shadows on the floor.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-bodies"

#include "cml-scene-draw-private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  float  dist2;
  const float *p, *n;
  float  radius;
  const float *rgb;
  float  alpha;
  gboolean face;  /* a wheel's face: one-sided, lit as seen from the outside */
} Translucent;

static int
cmp_far_first (gconstpointer a, gconstpointer b)
{
  const Translucent *x = a, *y = b;
  return (x->dist2 < y->dist2) - (x->dist2 > y->dist2);
}

void
cml_scene_draw_translucent (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double *v)
{
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (Translucent));
  /* per object: the current disc (7 floats), then wheel faces (12 floats) */
  g_autofree float *current = g_new0 (float, 19 * r->objects->len);

  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind != OBJ_DISC)
        continue;
      if (o->marks)
        for (guint j = o->marks_start; j < o->marks->len; j++)
          {
            const DiscMark *dm = &g_array_index (o->marks, DiscMark, j);
            Translucent it = { 0, dm->p, dm->n, dm->radius, o->rgb, 0.32f, FALSE };
            g_array_append_val (items, it);
          }
      if (v && cml_scene_finite_n (v + o->position, 3) && cml_scene_finite_n (v + o->normal, 3) && isfinite (v[o->radius]))
        {
          /* the disc at the current state is stronger than the ones left behind */
          float *c = current + 7 * i;
          for (int k = 0; k < 3; k++)
            {
              c[k] = v[o->position + k];
              c[3 + k] = v[o->normal + k];
            }
          c[6] = isfinite (v[o->radius]) ? cml_scene_body_drawn_radius (dc, o, v) : NAN;
          if (cml_scene_is_wheel (o, v))
            {
              /* both faces, at the sides of the tread, facing out (only the one towards
               * the eye is drawn): nearly opaque, in the legend's own colour, with the
               * marks on the wheel showing through */
              float *faces = current + 7 * r->objects->len + 12 * i;
              float len = sqrtf (c[3] * c[3] + c[4] * c[4] + c[5] * c[5]);
              for (int side = 0; side < 2; side++)
                {
                  float sign = side ? -1.f : 1.f;
                  for (int k = 0; k < 3; k++)
                    {
                      faces[6 * side + 3 + k] = sign * c[3 + k] / len;
                      /* just outside the tread's ends (its cap would fight the face) */
                      faces[6 * side + k] = c[k] + (0.5f * CML_SCENE_WHEEL_WIDTH + 0.01f) * c[6] * faces[6 * side + 3 + k];
                    }
                  Translucent it = { 0, faces + 6 * side, faces + 6 * side + 3, c[6], o->rgb, 0.72f, TRUE };
                  g_array_append_val (items, it);
                }
              continue;
            }
          /* a disc lying flat (the plate on the plate–ball) is see-through: what
           * it covers shows */
          Translucent it = { 0, c, c + 3, c[6], o->rgb, o->marks ? 0.55f : 0.45f, FALSE };
          g_array_append_val (items, it);
        }
    }
  if (items->len == 0)
    return;

  /* back to front, so that the blending is right where discs overlap */
  for (guint j = 0; j < items->len; j++)
    {
      Translucent *it = &g_array_index (items, Translucent, j);
      double d2 = 0;
      for (int k = 0; k < 3; k++)
        d2 += (it->p[k] - dc->eye[k]) * (it->p[k] - dc->eye[k]);
      it->dist2 = d2;
    }
  g_array_sort (items, cmp_far_first);

  cml_scene_begin_translucent (r);
  cml_scene_use_program (r, PATTERN_DISC);
  for (guint j = 0; j < items->len; j++)
    {
      const Translucent *it = &g_array_index (items, Translucent, j);
      float dark[3], black[3] = { 0, 0, 0 };
      if (it->face)
        {
          /* a wheel's face in the legend's colour, barely shaded: the scene's light
           * leaves an upright face at half its colour, and orange at half is brown */
          float lit[3], f = 0.85f + 0.2f * fabsf (it->n[0] * dc->light[0] + it->n[1] * dc->light[1]
                                                 + it->n[2] * dc->light[2]);
          for (int k = 0; k < 3; k++)
            lit[k] = MIN (it->rgb[k] * f, 1.f);
          cml_scene_use_program (r, PATTERN_FLOOR);
          cml_scene_set_colors (r, lit, it->alpha, lit, lit);
          glEnable (GL_CULL_FACE);
          cml_scene_draw_disc (r, it->p, it->n, it->radius);
          glDisable (GL_CULL_FACE);
          cml_scene_use_program (r, PATTERN_DISC);
          continue;
        }
      cml_scene_mix3 (it->rgb, black, 0.35f, dark);
      cml_scene_set_colors (r, it->rgb, it->alpha, dark, dark);
      cml_scene_draw_disc (r, it->p, it->n, it->radius);
    }
  cml_scene_end_translucent (r);
}

/* Where arrow O is drawn from at V: its foot, or — when the foot is a sphere's contact
 * point and the arrow lies flat (the table's force on the rolling ball) — the edge of the
 * sphere's footprint in the arrow's direction: drawn from the contact point itself it
 * would be hidden under the ball whenever it is shorter than the ball's radius. */
static void
arrow_foot (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const SceneObj *o, const double *v, double from[3])
{
  const double *f = v + o->from, *vec = v + o->vector;
  double flat = hypot (vec[0], vec[1]);
  memcpy (from, f, 3 * sizeof (double));
  if (!(flat > 0) || fabs (vec[2]) > 0.1 * flat)
    return;
  for (guint i = 0; i < r->objects->len; i++)
    {
      const SceneObj *s = r->objects->pdata[i];
      if (s->kind != OBJ_SPHERE || !cml_scene_finite_n (v + s->center, 3) || !(v[s->radius] > 0))
        continue;
      const double *c = v + s->center;
      double radius = v[s->radius], drawn = cml_scene_body_drawn_radius (dc, s, v);
      if (hypot (f[0] - c[0], f[1] - c[1]) > 0.05 * radius || fabs (f[2] - (c[2] - radius)) > 0.1 * radius)
        continue;
      from[0] = c[0] + drawn * vec[0] / flat;
      from[1] = c[1] + drawn * vec[1] / flat;
      return;
    }
}

void
cml_scene_draw_objects (CmlSceneRenderer *r, CmlSceneDrawCtx *dc, const double *v)
{
  static const float white[3] = { 0.965f, 0.961f, 0.953f };
  static const float ink[3] = { 0.14f, 0.12f, 0.19f };

  /* floors first, whatever the model's order: they are drawn without depth */
  for (guint j = 0; j < 2 * r->objects->len && v; j++)
    {
      gboolean floors = j < r->objects->len;
      SceneObj *o = r->objects->pdata[floors ? j : j - r->objects->len];
      if ((o->kind == OBJ_PLANE) != floors)
        continue;
      /* a second run drawn over the first shares its floor and table */
      if (r->ghost_alpha < 1 && (o->kind == OBJ_PLANE || o->kind == OBJ_TURNTABLE))
        continue;
      switch (o->kind)
        {
        case OBJ_PLANE:
          {
            double size = v[o->size];
            double c[3] = { 0, 0, 0 };
            if (o->center >= 0)
              memcpy (c, v + o->center, sizeof c);
            if (!(size > 0) || !cml_scene_finite_n (c, 3))
              break;
            /* at least SIZE across, and grown (in whole cells) to stay under everything
             * shown, so that nothing runs off the edge of the floor */
            double step = cml_scene_nice_step (MIN (size, 4 * dc->extent));
            double lo[2], hi[2];
            for (int k = 0; k < 2; k++)
              {
                double pad = 0.15 * (dc->max[k] - dc->min[k]) + step;
                lo[k] = MIN (c[k] - size / 2, floor ((dc->min[k] - pad) / step) * step);
                hi[k] = MAX (c[k] + size / 2, ceil ((dc->max[k] + pad) / step) * step);
              }
            /* a pale floor, lines in the object's colour (drawn after the objects);
             * just under its height so that whatever lies on it wins the depth test */
            float floor_rgb[3], lit[3];
            cml_scene_mix3 (o->rgb, dc->bg, 0.78f, floor_rgb);
            /* scene.vert's flat lighting, once: ambient + diffuse of a +z normal */
            float light = 0.48f + 0.62f * fabsf (dc->light[2]);
            for (int k = 0; k < 3; k++)
              lit[k] = MIN (floor_rgb[k] * light, 1.f);
            CmlMat4 m, s;
            cml_mat4_translation (&m, 0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), c[2] - 1e-3 * dc->extent);
            cml_mat4_scale (&s, 0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 1);
            cml_mat4_multiply (&m, &m, &s);
            cml_scene_use_program (r, PATTERN_FLOOR);
            cml_scene_set_model (r, &m);
            cml_scene_set_colors (r, lit, 1.f, lit, lit);
            /* the floor is under everything and drawn first: it needs no depth, and
             * skipping the depth test and write over most of the screen is a large
             * share of a frame in software GL */
            glDisable (GL_DEPTH_TEST);
            glDepthMask (GL_FALSE);
            cml_mesh_draw (r->quad);
            glEnable (GL_DEPTH_TEST);
            glDepthMask (GL_TRUE);
            if (!dc->has_grid)
              {
                dc->has_grid = TRUE;
                memcpy (dc->grid_lo, lo, sizeof lo);
                memcpy (dc->grid_hi, hi, sizeof hi);
                dc->grid_z = c[2];
                dc->grid_step = step;
                cml_scene_mix3 (o->rgb, dc->bg, 0.3f, dc->grid_line);
                cml_scene_mix3 (o->rgb, ink, dc->dark ? -0.4f : 0.5f, dc->grid_axis);
                dc->grid_alpha = 1.f;
              }
            break;
          }
        case OBJ_TURNTABLE:
          {
            double radius = cml_scene_table_drawn_radius (o, v), angle = v[o->angle];
            double c[3] = { 0, 0, 0 };
            if (o->center >= 0)
              memcpy (c, v + o->center, sizeof c);
            if (!(radius > 0) || !isfinite (angle) || !cml_scene_finite_n (c, 3))
              break;
            /* light sectors in the object's colour, darker ones, an ink reference radius */
            float top[3], dark[3];
            /* on a dark background a bright table would glare on a projector */
            cml_scene_mix3 (o->rgb, white, dc->dark ? 0.1f : 0.45f, top);
            cml_scene_mix3 (o->rgb, ink, 0.45f, dark);
            CmlMat4 m, rot, s;
            cml_mat4_translation (&m, c[0], c[1], c[2]);
            cml_mat4_rotation (&rot, angle, (CmlVec3) { 0, 0, 1 });
            cml_mat4_scale (&s, radius, radius, radius);
            cml_mat4_multiply (&m, &m, &rot);
            cml_mat4_multiply (&m, &m, &s);
            cml_scene_use_program (r, PATTERN_TABLE);
            cml_scene_set_model (r, &m);
            cml_scene_set_colors (r, top, 1.f, dark, ink);
            glEnable (GL_CULL_FACE);
            cml_mesh_draw (r->table);
            glDisable (GL_CULL_FACE);
            break;
          }
        case OBJ_SPHERE:
          {
            double radius = v[o->radius];
            if (!(radius > 0) || !cml_scene_finite_n (v + o->center, 3))
              break;
            /* drawn larger when small on the screen; one resting on the floor stays on it */
            double c[3] = { v[o->center], v[o->center + 1], v[o->center + 2] }, fz;
            double drawn = cml_scene_body_drawn_radius (dc, o, v);
            if (drawn > radius && cml_scene_floor_height (r, v, &fz) && fabs (c[2] - radius - fz) < 0.25 * radius)
              c[2] = fz + drawn;
            CmlMat4 rot;
            const double *q = o->attitude >= 0 ? v + o->attitude : NULL;
            if (q && cml_scene_finite_n (q, 4))
              cml_mat4_from_quaternion (&rot, q[0], q[1], q[2], q[3]);
            else
              cml_mat4_identity (&rot);
            /* octants in the object's colour and white, ink seams: turning shows */
            cml_scene_use_program (r, PATTERN_BALL);
            cml_scene_set_colors (r, o->rgb, 1.f, white, ink);
            glEnable (GL_CULL_FACE);
            cml_scene_draw_sphere_mesh (r, r->ball, c, drawn, &rot);
            glDisable (GL_CULL_FACE);
            break;
          }
        case OBJ_POINT:
          {
            if (!cml_scene_finite_n (v + o->position, 3))
              break;
            double radius = cml_scene_body_drawn_radius (dc, o, v);
            if (!(radius > 0))
              break;
            cml_scene_use_program (r, PATTERN_MARK);
            cml_scene_set_colors (r, o->rgb, 1.f, o->rgb, o->rgb);
            glEnable (GL_CULL_FACE);
            cml_scene_draw_sphere_mesh (r, r->small_sphere, v + o->position, radius, NULL);
            glDisable (GL_CULL_FACE);
            break;
          }
        case OBJ_ARROW:
          if (cml_scene_finite_n (v + o->from, 3) && cml_scene_finite_n (v + o->vector, 3))
            {
              double from[3];
              arrow_foot (r, dc, o, v, from);
              glEnable (GL_CULL_FACE);
              cml_scene_draw_arrow (r, dc, from, v + o->vector, o->rgb);
              glDisable (GL_CULL_FACE);
            }
          break;
        case OBJ_DISC:
          /* a wheel's tread is solid; its faces and other discs are translucent (later) */
          if (cml_scene_is_wheel (o, v) && cml_scene_finite_n (v + o->position, 3) && isfinite (v[o->radius]))
            cml_scene_draw_wheel_tread (r, dc, o, v, cml_scene_body_drawn_radius (dc, o, v));
          break;
        case OBJ_TRAIL:
          break; /* later passes */
        }
    }
}

/* The height of the first floor (plane or turntable) at values V; FALSE if none. */
gboolean
cml_scene_floor_height (CmlSceneRenderer *r, const double *v, double *z)
{
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind == OBJ_PLANE || o->kind == OBJ_TURNTABLE)
        {
          *z = o->center >= 0 ? v[o->center + 2] : 0.0;
          return isfinite (*z);
        }
    }
  return FALSE;
}

/* Soft shadows right under the spheres near the floor: without them a ball on a table
 * seems to float, since nothing else in the picture gives its height away. */
void
cml_scene_draw_contact_shadows (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double *v)
{
  double fz;
  if (v == NULL || !cml_scene_floor_height (r, v, &fz))
    return;

  static const float black[3] = { 0, 0, 0 };
  cml_scene_begin_translucent (r);
  cml_scene_use_program (r, PATTERN_SHADOW);
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind != OBJ_SPHERE || !cml_scene_finite_n (v + o->center, 3))
        continue;
      double radius = v[o->radius], height = v[o->center + 2] - radius - fz;
      if (!(radius > 0) || height < -radius || height > 2 * radius)
        continue;
      float strength = (dc->dark ? 0.55f : 0.35f) * (1.f - MAX (height, 0.0) / (2 * radius));
      CmlMat4 m, s;
      cml_mat4_translation (&m, v[o->center], v[o->center + 1], fz);
      cml_mat4_scale (&s, 1.1 * radius, 1.1 * radius, 1);
      cml_mat4_multiply (&m, &m, &s);
      cml_scene_set_model (r, &m);
      cml_scene_set_colors (r, black, strength, black, black);
      cml_mesh_draw (r->quad);
    }
  cml_scene_end_translucent (r);
}
