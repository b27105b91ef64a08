/* cml-scene-draw.c — the scene's drawing primitives: the frame's sizes (bodies and
 * arrows never drawn smaller than a readable size on the screen), the shader program
 * and its uniforms, blending for see-through things, and spheres, arrows, discs and
 * wheel treads placed by model matrices (T · R · S, R taking +z to a direction).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-draw"

#include "cml-scene-draw-private.h"

#include <math.h>
#include <string.h>

/* The parts of a CmlSceneDrawCtx that sizes depend on. */
void
cml_scene_draw_ctx_init (CmlSceneDrawCtx *dc, const CmlCamera *cam, int width, int height, const CmlSceneStyle *style)
{
  double scale = style->scale > 0 ? style->scale : 1.0;
  dc->cam = cam;
  dc->width = width;
  dc->height = height;
  dc->dark = style->dark;
  dc->high_contrast = style->high_contrast;
  /* high contrast: trails and grid lines half as thick again */
  dc->line_px = (style->presentation ? 6.0 : 3.0) * scale * (style->high_contrast ? 1.5 : 1.0);
  dc->grid_px = (style->presentation ? 2.0 : 1.0) * scale * (style->high_contrast ? 1.5 : 1.0);
  dc->point_scale = style->presentation ? 1.5f : 1.f;
  dc->min_px = MIN_BODY_PX * scale * (style->presentation ? 1.5 : 1.0);
  dc->distance = cam->distance;
}

/* World units per device pixel at the point P. */
double
cml_scene_units_per_px (const CmlSceneDrawCtx *dc, const double p[3])
{
  return cml_camera_units_per_pixel (dc->cam, cml_camera_depth (dc->cam, p), dc->height);
}

/* A body's size is the model's, but never under MIN_BODY_PX across on the screen: a
 * small body at the end of a long path (the Chaplygin sleigh after a minute) would
 * otherwise vanish while it is what the eye should follow.  RADIUS at P, drawn. */
double
cml_scene_readable_radius (const CmlSceneDrawCtx *dc, const double p[3], double radius)
{
  return MAX (radius, 0.5 * dc->min_px * cml_scene_units_per_px (dc, p));
}

/* The radius a round body O (sphere, point, disc) is drawn with at V. */
double
cml_scene_body_drawn_radius (const CmlSceneDrawCtx *dc, const SceneObj *o, const double *v)
{
  switch (o->kind)
    {
    case OBJ_SPHERE:
      return cml_scene_readable_radius (dc, v + o->center, v[o->radius]);
    case OBJ_DISC:
      return cml_scene_readable_radius (dc, v + o->position, v[o->radius]);
    case OBJ_POINT:
      {
        /* never smaller than about a hundredth of the scene either: the moving point
         * is what the eye follows, also when a long path has made the view wide */
        double radius = o->radius >= 0 ? v[o->radius] : 0.02 * dc->extent;
        radius = MAX (radius, 0.012 * dc->extent) * dc->point_scale;
        return cml_scene_readable_radius (dc, v + o->position, radius);
      }
    case OBJ_TURNTABLE:
    case OBJ_PLANE:
    case OBJ_TRAIL:
    case OBJ_ARROW:
      return 0; /* not round bodies */
    }
  g_return_val_if_reached (0);
}

/* An arrow's drawn vector: the model's, lengthened from its foot when it would be
 * shorter than ARROW_MIN_BODIES × MIN_BODY_PX on the screen — unless it is shorter than
 * ARROW_VANISH of that: an arrow that stands for next to nothing (a force that has died
 * away) is not drawn, rather than shown as large as a real one.  Returns the length
 * (0: not drawn). */
double
cml_scene_arrow_drawn_vector (const CmlSceneDrawCtx *dc, const double from[3], const double vec[3], double out[3])
{
  double len = sqrt (vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
  double mid[3];
  for (int k = 0; k < 3; k++)
    mid[k] = from[k] + 0.5 * vec[k];
  double min_len = ARROW_MIN_BODIES * dc->min_px * cml_scene_units_per_px (dc, mid);
  double f = len > 0 && len < min_len ? min_len / len : 1.0;
  if (len < ARROW_VANISH * min_len)
    f = 0;
  for (int k = 0; k < 3; k++)
    out[k] = vec[k] * f;
  return len * f;
}

void
cml_scene_use_program (CmlSceneRenderer *r, int program)
{
  if (r->cur != &r->programs[program])
    {
      r->cur = &r->programs[program];
      glUseProgram (r->cur->id);
    }
}

/* Blending only where something is see-through: it makes software GL read back every
 * pixel drawn.  Translucent things neither write depth (they would hide each other). */
void
cml_scene_begin_translucent (CmlSceneRenderer *r)
{
  glDepthMask (GL_FALSE);
  glEnable (GL_BLEND);
}

void
cml_scene_end_translucent (CmlSceneRenderer *r)
{
  glDepthMask (GL_TRUE);
  /* a second run is translucent throughout */
  if (r->ghost_alpha >= 1)
    glDisable (GL_BLEND);
}

void
cml_scene_set_model (CmlSceneRenderer *r, const CmlMat4 *model)
{
  float nm[9];
  glUniformMatrix4fv (r->cur->model, 1, GL_FALSE, model->m);
  /* rotations and uniform scales only: the model matrix itself transforms normals */
  cml_mat4_to_mat3 (model, nm);
  glUniformMatrix3fv (r->cur->normal_matrix, 1, GL_FALSE, nm);
}

void
cml_scene_set_colors (CmlSceneRenderer *r, const float c1[3], float alpha, const float c2[3], const float accent[3])
{
  glUniform4f (r->cur->color, c1[0], c1[1], c1[2], alpha * r->ghost_alpha);
  glUniform4f (r->cur->color2, c2[0], c2[1], c2[2], 1.f);
  glUniform4f (r->cur->accent, accent[0], accent[1], accent[2], 1.f);
}

/* T · R · S with R from a unit vector: the rotation taking +z to DIR */
static void
model_along (CmlMat4 *out, const double at[3], const double dir[3], double sx, double sz)
{
  CmlMat4 t, rot, s;
  double len = sqrt (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
  cml_mat4_translation (&t, at[0], at[1], at[2]);
  cml_mat4_identity (&rot);
  if (len > 0)
    {
      double z[3] = { dir[0] / len, dir[1] / len, dir[2] / len };
      double angle = acos (CLAMP (z[2], -1.0, 1.0));
      CmlVec3 axis = { -z[1], z[0], 0 };  /* +z × dir */
      if (hypot (axis.x, axis.y) < 1e-9)
        axis = (CmlVec3) { 1, 0, 0 };
      cml_mat4_rotation (&rot, angle, axis);
    }
  cml_mat4_scale (&s, sx, sx, sz);
  cml_mat4_multiply (out, &t, &rot);
  cml_mat4_multiply (out, out, &s);
}

void
cml_scene_draw_sphere_mesh (CmlSceneRenderer *r, CmlMesh *mesh, const double c[3], double radius,
                  const CmlMat4 *rot)
{
  CmlMat4 m, s;
  cml_mat4_translation (&m, c[0], c[1], c[2]);
  if (rot)
    cml_mat4_multiply (&m, &m, rot);
  cml_mat4_scale (&s, radius, radius, radius);
  cml_mat4_multiply (&m, &m, &s);
  cml_scene_set_model (r, &m);
  cml_mesh_draw (mesh);
}

void
cml_scene_draw_arrow (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double from[3], const double vec0[3],
            const float rgb[3])
{
  double len0 = sqrt (vec0[0] * vec0[0] + vec0[1] * vec0[1] + vec0[2] * vec0[2]);
  if (!(len0 > 0) || !isfinite (len0))
    return;
  double vec[3];
  double len = cml_scene_arrow_drawn_vector (dc, from, vec0, vec);
  if (len == 0)
    return;
  double mid[3];
  for (int k = 0; k < 3; k++)
    mid[k] = from[k] + 0.5 * vec[k];
  double px = cml_scene_units_per_px (dc, mid);
  /* proportions of a drawn arrow, but never thicker than the scene can bear, nor so thin
   * or with so small a head that it does not read as an arrow */
  double head = MIN (0.25 * len, 0.12 * dc->extent);
  head = MAX (head, MIN (0.5 * len, 0.9 * dc->min_px * px));
  double head_r = MAX (0.4 * head, 0.3 * dc->min_px * px);
  double shaft_r = MAX (0.35 * head_r, 0.2 * dc->min_px * px);
  double shaft = len - head;
  double tip_base[3];
  for (int k = 0; k < 3; k++)
    tip_base[k] = from[k] + vec[k] * (shaft / len);

  cml_scene_use_program (r, PATTERN_MARK);
  cml_scene_set_colors (r, rgb, 1.f, rgb, rgb);
  CmlMat4 m;
  model_along (&m, from, vec, shaft_r, shaft);
  cml_scene_set_model (r, &m);
  cml_mesh_draw (r->cylinder);
  model_along (&m, tip_base, vec, head_r, head);
  cml_scene_set_model (r, &m);
  cml_mesh_draw (r->cone);
}

/* A disc of RADIUS at P facing N (both sides drawn). */
void
cml_scene_draw_disc (CmlSceneRenderer *r, const float p[3], const float n[3], float radius)
{
  double at[3] = { p[0], p[1], p[2] }, dir[3] = { n[0], n[1], n[2] };
  if (!(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2] > 0))
    dir[2] = 1;
  CmlMat4 m;
  model_along (&m, at, dir, radius, radius);
  cml_scene_set_model (r, &m);
  cml_mesh_draw (r->disc);
}

gboolean
cml_scene_is_wheel (const SceneObj *o, const double *v)
{
  if (o->kind != OBJ_DISC || o->marks != NULL || v == NULL || !cml_scene_finite_n (v + o->normal, 3))
    return FALSE;
  const double *n = v + o->normal;
  double len = sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  return len > 0 && fabs (n[2]) < 0.5 * len;
}

/* The wheel O's tread at V (its faces are drawn with the translucent things). */
void
cml_scene_draw_wheel_tread (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const SceneObj *o, const double *v, double radius)
{
  const double *n = v + o->normal;
  double len = sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), width = CML_SCENE_WHEEL_WIDTH * radius, foot[3];
  float dark[3], black[3] = { 0, 0, 0 };
  for (int k = 0; k < 3; k++)
    foot[k] = v[o->position + k] - 0.5 * width * n[k] / len;
  cml_scene_mix3 (o->rgb, black, 0.25f, dark);
  cml_scene_use_program (r, PATTERN_MARK);
  cml_scene_set_colors (r, dark, 1.f, dark, dark);
  CmlMat4 m;
  model_along (&m, foot, n, radius, width);
  cml_scene_set_model (r, &m);
  glEnable (GL_CULL_FACE);
  cml_mesh_draw (r->tube);
  glDisable (GL_CULL_FACE);
}

/* A "nice" grid spacing (1, 2 or 5 × 10^k) near SPAN / 10. */
double
cml_scene_nice_step (double span)
{
  double raw = MAX (span, 1e-9) / 10;
  double p = pow (10, floor (log10 (raw)));
  double f = raw / p;
  return p * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}
