/* cml-scene-renderer.c — drawing the 3-D scene with OpenGL: the shader programs and
 * meshes, bodies at a readable size, floors and grid, trail ribbons, translucent discs,
 * contact shadows, lighting and antialiasing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Software GL (llvmpipe) pays for every triangle and every shaded pixel, so the meshes
 * are few and small (a ball of 960 triangles, points of 224) and the markings that make
 * rotation visible are painted in the fragment shader.  Trails are ribbons widened in
 * screen space by the vertex shader; long ones are thinned to about a point per pixel
 * before they are uploaded.
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-private.h"

#include <math.h>
#include <string.h>

/* ---- lifecycle ------------------------------------------------------------------------ */

/* Uploads the shape DATA holds as a static mesh and empties DATA for the next shape (the
 * builders append, so one CmlMeshData serves every shape in turn). */
static CmlMesh *
upload_mesh (CmlMeshData *data)
{
  CmlMesh *mesh = cml_mesh_new (data);
  g_array_set_size (data->vertices, 0);
  g_array_set_size (data->indices, 0);
  return mesh;
}

CmlSceneRenderer *
cml_scene_renderer_new (GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  CmlSceneRenderer *r = g_new0 (CmlSceneRenderer, 1);
  r->ghost_alpha = 1.f;
  gboolean es = cml_gl_is_es ();
  for (int k = 0; k < N_PROGRAMS; k++)
    {
      Program *p = &r->programs[k];
      g_autofree char *defines = g_strdup_printf ("#define MODE %d\n#define PATTERN %d\n",
                                                  k == PROGRAM_LINES, k == PROGRAM_LINES ? -1 : k);
      p->id = cml_gl_program_from_resources_with_defines (
          es ? "/org/cmlab/Cmlab/shaders/scene-es.vert" : "/org/cmlab/Cmlab/shaders/scene.vert",
          es ? "/org/cmlab/Cmlab/shaders/scene-es.frag" : "/org/cmlab/Cmlab/shaders/scene.frag",
          defines, error);
      if (p->id == 0)
        {
          for (int j = 0; j < k; j++)
            glDeleteProgram (r->programs[j].id);
          g_free (r);
          return NULL;
        }
#define U(field, name) p->field = glGetUniformLocation (p->id, name)
      U (model, "u_model");
      U (view_proj, "u_view_proj");
      U (normal_matrix, "u_normal_matrix");
      U (viewport, "u_viewport");
      U (line_width, "u_line_width");
      U (tangent_scale, "u_tangent_scale");
      U (color, "u_color");
      U (color2, "u_color2");
      U (accent, "u_accent");
      U (eye, "u_eye");
      U (light_dir, "u_light_dir");
#undef U
    }

  {
    g_autoptr (CmlMeshData) data = cml_mesh_data_new ();

    /* the ball: 32 × 16 is round enough at full-screen size, 960 triangles */
    cml_mesh_data_add_sphere (data, 32, 16);
    r->ball = upload_mesh (data);
    cml_mesh_data_add_sphere (data, 16, 8);
    r->small_sphere = upload_mesh (data);
    cml_mesh_data_add_disc (data, 96, 0.03f);
    r->table = upload_mesh (data);
    cml_mesh_data_add_disc (data, 40, 0.f);
    r->disc = upload_mesh (data);
    cml_mesh_data_add_cylinder (data, 20);
    r->cylinder = upload_mesh (data);
    cml_mesh_data_add_tube (data, 40);
    r->tube = upload_mesh (data);
    cml_mesh_data_add_cone (data, 24);
    r->cone = upload_mesh (data);
    cml_mesh_data_add_quad (data);
    r->quad = upload_mesh (data);
  }

  r->grid_lines = cml_mesh_new_dynamic (GL_TRIANGLES);
  r->grid_axes = cml_mesh_new_dynamic (GL_TRIANGLES);
  r->objects = g_ptr_array_new ();
  r->xyz = g_array_new (FALSE, FALSE, sizeof (float));
  r->ages = g_array_new (FALSE, FALSE, sizeof (float));
  r->vertices = g_array_new (FALSE, FALSE, sizeof (CmlVertex));
  return r;
}

static void
scene_obj_free (SceneObj *o)
{
  g_free (o->label);
  if (o->points)
    g_array_unref (o->points);
  if (o->marks)
    g_array_unref (o->marks);
  cml_mesh_free (o->strip);
  g_free (o);
}

void
cml_scene_clear_objects (CmlSceneRenderer *r)
{
  for (guint i = 0; i < r->objects->len; i++)
    scene_obj_free (r->objects->pdata[i]);
  g_ptr_array_set_size (r->objects, 0);
}

static void
delete_target (GLuint *fbo, GLuint *color, GLuint *depth)
{
  if (*fbo)
    glDeleteFramebuffers (1, fbo);
  if (*color)
    glDeleteRenderbuffers (1, color);
  if (*depth)
    glDeleteRenderbuffers (1, depth);
  *fbo = *color = *depth = 0;
}

void
cml_scene_renderer_free (CmlSceneRenderer *r)
{
  if (r == NULL)
    return;
  cml_scene_clear_objects (r);
  g_ptr_array_unref (r->objects);
  g_clear_pointer (&r->sys, cml_system_unref);
  cml_mesh_free (r->ball);
  cml_mesh_free (r->small_sphere);
  cml_mesh_free (r->table);
  cml_mesh_free (r->disc);
  cml_mesh_free (r->cylinder);
  cml_mesh_free (r->tube);
  cml_mesh_free (r->cone);
  cml_mesh_free (r->quad);
  cml_mesh_free (r->grid_lines);
  cml_mesh_free (r->grid_axes);
  delete_target (&r->ms_fbo, &r->ms_color, &r->ms_depth);
  delete_target (&r->rb_fbo, &r->rb_color, &r->rb_depth);
  for (int k = 0; k < N_PROGRAMS; k++)
    glDeleteProgram (r->programs[k].id);
  g_array_unref (r->xyz);
  g_array_unref (r->ages);
  g_array_unref (r->vertices);
  g_free (r);
}

/* ---- drawing ---------------------------------------------------------------------------- */

typedef struct
{
  CmlMat4  view_proj;
  double   eye[3];
  double   distance;   /* eye to target */
  double   extent;     /* radius of the scene's bounds */
  double   min[3], max[3]; /* the scene's bounds */
  float    light[3];   /* towards the key light, world, unit */
  gboolean has_grid;   /* the floor asks for grid lines: */
  double   grid_lo[2], grid_hi[2], grid_z, grid_step;
  float    grid_line[3], grid_axis[3], grid_alpha;
  float    bg[4];
  gboolean dark;
  gboolean high_contrast;
  float    line_px;    /* trail width, device pixels */
  float    grid_px;    /* grid line width, device pixels */
  float    point_scale;/* points drawn larger for a projector */
  int      width, height;
  const CmlCamera *cam;
  double   min_px;     /* the least size of a body across, device pixels */
} DrawCtx;

/* The parts of a DrawCtx that sizes depend on. */
static void
draw_ctx_init (DrawCtx *dc, const CmlCamera *cam, int width, int height, const CmlSceneStyle *style)
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
static double
units_per_px (const DrawCtx *dc, const double p[3])
{
  return cml_camera_units_per_pixel (dc->cam, cml_camera_depth (dc->cam, p), dc->height);
}

/* A body's size is the model's, but never under MIN_BODY_PX across on the screen: a
 * small body at the end of a long path (the Chaplygin sleigh after a minute) would
 * otherwise vanish while it is what the eye should follow.  RADIUS at P, drawn. */
static double
readable_radius (const DrawCtx *dc, const double p[3], double radius)
{
  return MAX (radius, 0.5 * dc->min_px * units_per_px (dc, p));
}

/* The radius a round body O (sphere, point, disc) is drawn with at V. */
static double
body_drawn_radius (const DrawCtx *dc, const SceneObj *o, const double *v)
{
  switch (o->kind)
    {
    case OBJ_SPHERE:
      return readable_radius (dc, v + o->center, v[o->radius]);
    case OBJ_DISC:
      return readable_radius (dc, v + o->position, v[o->radius]);
    case OBJ_POINT:
      {
        /* never smaller than about a hundredth of the scene either: the moving point
         * is what the eye follows, also when a long path has made the view wide */
        double radius = o->radius >= 0 ? v[o->radius] : 0.02 * dc->extent;
        radius = MAX (radius, 0.012 * dc->extent) * dc->point_scale;
        return readable_radius (dc, v + o->position, radius);
      }
    default:
      return 0;
    }
}

/* An arrow's drawn vector: the model's, lengthened from its foot when it would be
 * shorter than ARROW_MIN_BODIES × MIN_BODY_PX on the screen — unless it is shorter than
 * ARROW_VANISH of that: an arrow that stands for next to nothing (a force that has died
 * away) is not drawn, rather than shown as large as a real one.  Returns the length
 * (0: not drawn). */
static double
arrow_drawn_vector (const DrawCtx *dc, const double from[3], const double vec[3], double out[3])
{
  double len = sqrt (vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
  double mid[3];
  for (int k = 0; k < 3; k++)
    mid[k] = from[k] + 0.5 * vec[k];
  double min_len = ARROW_MIN_BODIES * dc->min_px * units_per_px (dc, mid);
  double f = len > 0 && len < min_len ? min_len / len : 1.0;
  if (len < ARROW_VANISH * min_len)
    f = 0;
  for (int k = 0; k < 3; k++)
    out[k] = vec[k] * f;
  return len * f;
}

static void
use (CmlSceneRenderer *r, int program)
{
  if (r->cur != &r->programs[program])
    {
      r->cur = &r->programs[program];
      glUseProgram (r->cur->id);
    }
}

/* Blending only where something is see-through: it makes software GL read back every
 * pixel drawn.  Translucent things neither write depth (they would hide each other). */
static void
begin_translucent (CmlSceneRenderer *r)
{
  glDepthMask (GL_FALSE);
  glEnable (GL_BLEND);
}

static void
end_translucent (CmlSceneRenderer *r)
{
  glDepthMask (GL_TRUE);
  /* a second run is translucent throughout */
  if (r->ghost_alpha >= 1)
    glDisable (GL_BLEND);
}

static void
set_model (CmlSceneRenderer *r, const CmlMat4 *model)
{
  float nm[9];
  glUniformMatrix4fv (r->cur->model, 1, GL_FALSE, model->m);
  /* rotations and uniform scales only: the model matrix itself transforms normals */
  cml_mat4_to_mat3 (model, nm);
  glUniformMatrix3fv (r->cur->normal_matrix, 1, GL_FALSE, nm);
}

static void
set_colors (CmlSceneRenderer *r, const float c1[3], float alpha, const float c2[3], const float accent[3])
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

static void
draw_sphere_mesh (CmlSceneRenderer *r, CmlMesh *mesh, const double c[3], double radius,
                  const CmlMat4 *rot)
{
  CmlMat4 m, s;
  cml_mat4_translation (&m, c[0], c[1], c[2]);
  if (rot)
    cml_mat4_multiply (&m, &m, rot);
  cml_mat4_scale (&s, radius, radius, radius);
  cml_mat4_multiply (&m, &m, &s);
  set_model (r, &m);
  cml_mesh_draw (mesh);
}

static void
draw_arrow (CmlSceneRenderer *r, const DrawCtx *dc, const double from[3], const double vec0[3],
            const float rgb[3])
{
  double len0 = sqrt (vec0[0] * vec0[0] + vec0[1] * vec0[1] + vec0[2] * vec0[2]);
  if (!(len0 > 0) || !isfinite (len0))
    return;
  double vec[3];
  double len = arrow_drawn_vector (dc, from, vec0, vec);
  if (len == 0)
    return;
  double mid[3];
  for (int k = 0; k < 3; k++)
    mid[k] = from[k] + 0.5 * vec[k];
  double px = units_per_px (dc, mid);
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

  use (r, PATTERN_MARK);
  set_colors (r, rgb, 1.f, rgb, rgb);
  CmlMat4 m;
  model_along (&m, from, vec, shaft_r, shaft);
  set_model (r, &m);
  cml_mesh_draw (r->cylinder);
  model_along (&m, tip_base, vec, head_r, head);
  set_model (r, &m);
  cml_mesh_draw (r->cone);
}

/* A disc of RADIUS at P facing N (both sides drawn). */
static void
draw_disc (CmlSceneRenderer *r, const float p[3], const float n[3], float radius)
{
  double at[3] = { p[0], p[1], p[2] }, dir[3] = { n[0], n[1], n[2] };
  if (!(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2] > 0))
    dir[2] = 1;
  CmlMat4 m;
  model_along (&m, at, dir, radius, radius);
  set_model (r, &m);
  cml_mesh_draw (r->disc);
}

/* A disc without marks standing on its edge (its normal within 60° of the horizontal) is
 * a wheel, drawn solid: a tread WHEEL_WIDTH of its radius wide between two faces.  Drawn
 * as a thin translucent disc it is a dark sliver when seen near its edge or from its back. */
#define WHEEL_WIDTH 0.12

static gboolean
is_wheel (const SceneObj *o, const double *v)
{
  if (o->kind != OBJ_DISC || o->marks != NULL || v == NULL || !cml_scene_finite_n (v + o->normal, 3))
    return FALSE;
  const double *n = v + o->normal;
  double len = sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  return len > 0 && fabs (n[2]) < 0.5 * len;
}

/* The wheel O's tread at V (its faces are drawn with the translucent things). */
static void
draw_wheel_tread (CmlSceneRenderer *r, const DrawCtx *dc, const SceneObj *o, const double *v, double radius)
{
  const double *n = v + o->normal;
  double len = sqrt (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), width = WHEEL_WIDTH * radius, foot[3];
  float dark[3], black[3] = { 0, 0, 0 };
  for (int k = 0; k < 3; k++)
    foot[k] = v[o->position + k] - 0.5 * width * n[k] / len;
  cml_scene_mix3 (o->rgb, black, 0.25f, dark);
  use (r, PATTERN_MARK);
  set_colors (r, dark, 1.f, dark, dark);
  CmlMat4 m;
  model_along (&m, foot, n, radius, width);
  set_model (r, &m);
  glEnable (GL_CULL_FACE);
  cml_mesh_draw (r->tube);
  glDisable (GL_CULL_FACE);
}

/* A "nice" grid spacing (1, 2 or 5 × 10^k) near SPAN / 10. */
static double
nice_step (double span)
{
  double raw = MAX (span, 1e-9) / 10;
  double p = pow (10, floor (log10 (raw)));
  double f = raw / p;
  return p * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

/* Grid lines every GRID_STEP over [GRID_LO, GRID_HI] at height GRID_Z, drawn as
 * screen-space lines (a procedural grid over the whole floor costs milliseconds in
 * software GL); the two axes wider.  Lines fade out with the distance from the eye,
 * before far lines crowd into moiré. */
static void
draw_grid (CmlSceneRenderer *r, DrawCtx *dc)
{
  if (!dc->has_grid)
    return;

  double step = dc->grid_step;
  /* at most about 80 lines each way */
  while ((dc->grid_hi[0] - dc->grid_lo[0]) / step > 80 || (dc->grid_hi[1] - dc->grid_lo[1]) / step > 80)
    step *= 2;
  double fade_near = 1.5 * dc->distance, fade_far = 5.0 * dc->distance;
  GArray *lines = r->vertices;  /* the trails' scratch, free between them */
  g_array_set_size (lines, 0);
  GArray *axis_vertices = g_array_new (FALSE, FALSE, sizeof (CmlVertex));

  for (int dir = 0; dir < 2; dir++)
    {
      /* lines of constant coordinate DIR, running along the other one */
      int along = 1 - dir;
      double len = dc->grid_hi[along] - dc->grid_lo[along];
      /* pieces short enough for the fade to look smooth; few, since long thin
       * triangles are dear in software GL */
      guint pieces = CLAMP ((guint) ceil (len / dc->distance), 1, 6);
      for (double c = ceil (dc->grid_lo[dir] / step - 1e-9) * step; c <= dc->grid_hi[dir] + 1e-9 * step; c += step)
        {
          gboolean is_axis = fabs (c) < 1e-6 * step;
          for (guint k = 0; k < pieces; k++)
            {
              float a[3], b[3], fade[2];
              double u0 = dc->grid_lo[along] + len * k / pieces, u1 = dc->grid_lo[along] + len * (k + 1) / pieces;
              a[dir] = b[dir] = c;
              a[along] = u0;
              b[along] = u1;
              a[2] = b[2] = dc->grid_z;
              for (int e = 0; e < 2; e++)
                {
                  const float *p = e ? b : a;
                  double d = sqrt ((p[0] - dc->eye[0]) * (p[0] - dc->eye[0]) + (p[1] - dc->eye[1]) * (p[1] - dc->eye[1])
                                   + (p[2] - dc->eye[2]) * (p[2] - dc->eye[2]));
                  double x = CLAMP ((d - fade_near) / (fade_far - fade_near), 0.0, 1.0);
                  fade[e] = (float) (x * x * (3 - 2 * x)) * 0.9f;
                }
              cml_mesh_segment_append (is_axis ? axis_vertices : lines, a, b, fade[0], fade[1]);
            }
        }
    }

  use (r, PROGRAM_LINES);
  CmlMat4 id;
  cml_mat4_identity (&id);
  set_model (r, &id);
  glUniform1f (r->cur->tangent_scale, dc->distance * 1e-3);
  begin_translucent (r);
  cml_mesh_set_vertices (r->grid_lines, (CmlVertex *) lines->data, lines->len);
  glUniform1f (r->cur->line_width, dc->grid_px);
  set_colors (r, dc->grid_line, dc->grid_alpha, dc->grid_line, dc->grid_line);
  cml_mesh_draw (r->grid_lines);
  cml_mesh_set_vertices (r->grid_axes, (CmlVertex *) axis_vertices->data, axis_vertices->len);
  glUniform1f (r->cur->line_width, 2 * dc->grid_px);
  set_colors (r, dc->grid_axis, dc->grid_alpha, dc->grid_axis, dc->grid_axis);
  cml_mesh_draw (r->grid_axes);
  glUniform1f (r->cur->line_width, dc->line_px);
  end_translucent (r);
  g_array_unref (axis_vertices);
}

/* Without a floor in the scene: faint lines at z = 0 (or under everything) so that
 * shapes in space stand on something and show their size. */
static void
plan_grid_overlay (DrawCtx *dc, const double min[3], const double max[3])
{
  double span = MAX (max[0] - min[0], max[1] - min[1]);
  double step = nice_step (span);
  double half = ceil ((0.6 * span + step) / step) * step;
  double cx = round (0.5 * (min[0] + max[0]) / step) * step;
  double cy = round (0.5 * (min[1] + max[1]) / step) * step;

  dc->has_grid = TRUE;
  dc->grid_lo[0] = cx - half;
  dc->grid_hi[0] = cx + half;
  dc->grid_lo[1] = cy - half;
  dc->grid_hi[1] = cy + half;
  dc->grid_z = MIN (0.0, min[2]);
  dc->grid_step = step;
  float fg[3] = { 0.45f, 0.45f, 0.48f };
  if (dc->dark)
    fg[0] = fg[1] = 0.55f, fg[2] = 0.6f;
  memcpy (dc->grid_line, fg, sizeof fg);
  cml_scene_mix3 (fg, dc->bg, -0.3f, dc->grid_axis);
  dc->grid_alpha = dc->dark ? 0.3f : 0.35f;
  if (dc->high_contrast)
    dc->grid_alpha = 0.7f;
}

/* Thins trail O to about a point per pixel and uploads it as a ribbon; the current point
 * CUR (may be NULL) closes the gap between the last sample and the object.  In the table
 * frame, points are turned back by their own angle (the model matrix turns them forward
 * by the current one). */
static void
upload_trail (CmlSceneRenderer *r, SceneObj *o, const DrawCtx *dc, const double *cur,
              gboolean table, double length)
{
  guint n = cml_scene_trail_n (o);
  g_array_set_size (r->xyz, 0);
  g_array_set_size (r->ages, 0);
  g_array_set_size (r->vertices, 0);

  double eps = dc->extent * 1.5e-3;
  double eps2 = eps * eps;
  float last[3] = { NAN, NAN, NAN };
  guint stride = n > TRAIL_MAX_DRAWN * 4 ? n / (TRAIL_MAX_DRAWN * 4) : 1;
  double now = n ? cml_scene_trail_at (o, n - 1)->t : NAN;  /* ages count from the newest sample */

  for (guint i = 0; i < n + (cur ? 1 : 0); i++)
    {
      float p[3], a, age;
      if (i < n)
        {
          if (i % stride != 0 && i != n - 1)
            continue;
          const TrailPoint *tp = cml_scene_trail_at (o, i);
          memcpy (p, tp->p, sizeof p);
          a = tp->angle;
          if (isfinite (tp->t) && isfinite (now))
            age = (now - tp->t) / length;
          else
            age = (float) (n - i) / MAX (n, 1);
        }
      else
        {
          for (int k = 0; k < 3; k++)
            p[k] = cur[k];
          a = cur[3];
          age = 0;
        }
      if (table)
        {
          float c = cosf (a), s = sinf (a);
          float x = c * p[0] + s * p[1], y = -s * p[0] + c * p[1];
          p[0] = x;
          p[1] = y;
        }
      /* skip points closer than EPS to the last one kept; the very end replaces it
       * then, so that no two points coincide (their tangent would be undefined) */
      float d2 = (p[0] - last[0]) * (p[0] - last[0]) + (p[1] - last[1]) * (p[1] - last[1])
                 + (p[2] - last[2]) * (p[2] - last[2]);
      gboolean end = (i + 1 == n + (cur ? 1 : 0));
      /* older points fade out, so the direction of the motion reads */
      age = CLAMP (age, 0.f, 1.f) * 0.75f;
      if (!(d2 >= eps2) && !isnan (last[0]))
        {
          if (!end || r->ages->len < 2)
            continue;
          g_array_set_size (r->xyz, r->xyz->len - 3);
          g_array_set_size (r->ages, r->ages->len - 1);
        }
      memcpy (last, p, sizeof p);
      g_array_append_vals (r->xyz, p, 3);
      g_array_append_val (r->ages, age);
    }

  guint kept = r->ages->len;
  if (kept > TRAIL_MAX_DRAWN)
    {
      /* still too many for one frame: an even stride over the thinned points */
      guint k = (kept + TRAIL_MAX_DRAWN - 1) / TRAIL_MAX_DRAWN, j = 0;
      float *xyz = (float *) r->xyz->data, *ages = (float *) r->ages->data;
      for (guint i = 0; i < kept; i++)
        if (i % k == 0 || i == kept - 1)
          {
            memmove (xyz + 3 * j, xyz + 3 * i, 3 * sizeof (float));
            ages[j++] = ages[i];
          }
      kept = j;
    }
  cml_mesh_ribbon_append (r->vertices, (float *) r->xyz->data, (float *) r->ages->data, kept);
  if (o->strip == NULL)
    o->strip = cml_mesh_new_dynamic (GL_TRIANGLE_STRIP);
  cml_mesh_set_vertices (o->strip, (CmlVertex *) r->vertices->data, r->vertices->len);
}

static void
draw_trails (CmlSceneRenderer *r, const DrawCtx *dc, const double *v, const CmlSceneStyle *style)
{
  use (r, PROGRAM_LINES);
  glUniform1f (r->cur->line_width, dc->line_px);
  glUniform1f (r->cur->tangent_scale, dc->distance * 1e-3);
  begin_translucent (r);

  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind != OBJ_TRAIL || cml_scene_trail_n (o) == 0)
        continue;
      gboolean table = style->table_frame && o->frame_angle >= 0;
      double cur[4];
      gboolean have_cur = v && cml_scene_finite_n (v + o->point, 3)
                          && (o->frame_angle < 0 || isfinite (v[o->frame_angle]));
      if (have_cur)
        {
          for (int k = 0; k < 3; k++)
            cur[k] = v[o->point + k];
          cur[3] = o->frame_angle >= 0 ? v[o->frame_angle] : 0;
        }
      double length = v ? cml_scene_obj_length (o, v) : DEFAULT_LENGTH;
      upload_trail (r, o, dc, have_cur ? cur : NULL, table, length);

      /* table frame: turn the whole trail with the table's current angle */
      CmlMat4 m;
      double a_now = have_cur ? cur[3] : cml_scene_trail_at (o, cml_scene_trail_n (o) - 1)->angle;
      if (table)
        cml_mat4_rotation (&m, a_now, (CmlVec3) { 0, 0, 1 });
      else
        cml_mat4_identity (&m);
      set_model (r, &m);

      float rgb[3];
      memcpy (rgb, o->rgb, sizeof rgb);
      if (dc->dark)
        {
          /* strong blues sink into a dark background: lift them */
          float white[3] = { 1, 1, 1 };
          cml_scene_mix3 (rgb, white, 0.25f, rgb);
        }
      set_colors (r, rgb, 1.f, rgb, rgb);
      cml_mesh_draw (o->strip);
    }

  end_translucent (r);
}

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

static void
draw_translucent (CmlSceneRenderer *r, const DrawCtx *dc, const double *v)
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
          c[6] = isfinite (v[o->radius]) ? body_drawn_radius (dc, o, v) : NAN;
          if (is_wheel (o, v))
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
                      faces[6 * side + k] = c[k] + (0.5f * WHEEL_WIDTH + 0.01f) * c[6] * faces[6 * side + 3 + k];
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

  begin_translucent (r);
  use (r, PATTERN_DISC);
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
          use (r, PATTERN_FLOOR);
          set_colors (r, lit, it->alpha, lit, lit);
          glEnable (GL_CULL_FACE);
          draw_disc (r, it->p, it->n, it->radius);
          glDisable (GL_CULL_FACE);
          use (r, PATTERN_DISC);
          continue;
        }
      cml_scene_mix3 (it->rgb, black, 0.35f, dark);
      set_colors (r, it->rgb, it->alpha, dark, dark);
      draw_disc (r, it->p, it->n, it->radius);
    }
  end_translucent (r);
}

static gboolean floor_height (CmlSceneRenderer *r, const double *v, double *z);

/* Where arrow O is drawn from at V: its foot, or — when the foot is a sphere's contact
 * point and the arrow lies flat (the table's force on the rolling ball) — the edge of the
 * sphere's footprint in the arrow's direction: drawn from the contact point itself it
 * would be hidden under the ball whenever it is shorter than the ball's radius. */
static void
arrow_foot (CmlSceneRenderer *r, const DrawCtx *dc, const SceneObj *o, const double *v, double from[3])
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
      double radius = v[s->radius], drawn = body_drawn_radius (dc, s, v);
      if (hypot (f[0] - c[0], f[1] - c[1]) > 0.05 * radius || fabs (f[2] - (c[2] - radius)) > 0.1 * radius)
        continue;
      from[0] = c[0] + drawn * vec[0] / flat;
      from[1] = c[1] + drawn * vec[1] / flat;
      return;
    }
}

static void
draw_objects (CmlSceneRenderer *r, DrawCtx *dc, const double *v)
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
            double step = nice_step (MIN (size, 4 * dc->extent));
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
            use (r, PATTERN_FLOOR);
            set_model (r, &m);
            set_colors (r, lit, 1.f, lit, lit);
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
            use (r, PATTERN_TABLE);
            set_model (r, &m);
            set_colors (r, top, 1.f, dark, ink);
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
            double drawn = body_drawn_radius (dc, o, v);
            if (drawn > radius && floor_height (r, v, &fz) && fabs (c[2] - radius - fz) < 0.25 * radius)
              c[2] = fz + drawn;
            CmlMat4 rot;
            const double *q = o->attitude >= 0 ? v + o->attitude : NULL;
            if (q && cml_scene_finite_n (q, 4))
              cml_mat4_from_quaternion (&rot, q[0], q[1], q[2], q[3]);
            else
              cml_mat4_identity (&rot);
            /* octants in the object's colour and white, ink seams: turning shows */
            use (r, PATTERN_BALL);
            set_colors (r, o->rgb, 1.f, white, ink);
            glEnable (GL_CULL_FACE);
            draw_sphere_mesh (r, r->ball, c, drawn, &rot);
            glDisable (GL_CULL_FACE);
            break;
          }
        case OBJ_POINT:
          {
            if (!cml_scene_finite_n (v + o->position, 3))
              break;
            double radius = body_drawn_radius (dc, o, v);
            if (!(radius > 0))
              break;
            use (r, PATTERN_MARK);
            set_colors (r, o->rgb, 1.f, o->rgb, o->rgb);
            glEnable (GL_CULL_FACE);
            draw_sphere_mesh (r, r->small_sphere, v + o->position, radius, NULL);
            glDisable (GL_CULL_FACE);
            break;
          }
        case OBJ_ARROW:
          if (cml_scene_finite_n (v + o->from, 3) && cml_scene_finite_n (v + o->vector, 3))
            {
              double from[3];
              arrow_foot (r, dc, o, v, from);
              glEnable (GL_CULL_FACE);
              draw_arrow (r, dc, from, v + o->vector, o->rgb);
              glDisable (GL_CULL_FACE);
            }
          break;
        case OBJ_DISC:
          /* a wheel's tread is solid; its faces and other discs are translucent (later) */
          if (is_wheel (o, v) && cml_scene_finite_n (v + o->position, 3) && isfinite (v[o->radius]))
            draw_wheel_tread (r, dc, o, v, body_drawn_radius (dc, o, v));
          break;
        case OBJ_TRAIL:
          break; /* later passes */
        }
    }
}

/* The height of the first floor (plane or turntable) at values V; FALSE if none. */
static gboolean
floor_height (CmlSceneRenderer *r, const double *v, double *z)
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
static void
draw_contact_shadows (CmlSceneRenderer *r, const DrawCtx *dc, const double *v)
{
  double fz;
  if (v == NULL || !floor_height (r, v, &fz))
    return;

  static const float black[3] = { 0, 0, 0 };
  begin_translucent (r);
  use (r, PATTERN_SHADOW);
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
      set_model (r, &m);
      set_colors (r, black, strength, black, black);
      cml_mesh_draw (r->quad);
    }
  end_translucent (r);
}

static void
draw_default (CmlSceneRenderer *r, const DrawCtx *dc)
{
  /* no scene in the model: axes x, y, z (red, green, blue) and a point at the origin */
  static const double origin[3] = { 0, 0, 0 };
  static const double axes[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
  float rgb[3][3], grey[3];
  cml_scene_hex_to_rgb (0xe01b24, rgb[0]);
  cml_scene_hex_to_rgb (0x26a269, rgb[1]);
  cml_scene_hex_to_rgb (0x1c71d8, rgb[2]);
  cml_scene_hex_to_rgb (0x77767b, grey);

  glEnable (GL_CULL_FACE);
  for (int k = 0; k < 3; k++)
    draw_arrow (r, dc, origin, axes[k], rgb[k]);
  use (r, PATTERN_MARK);
  set_colors (r, grey, 1.f, grey, grey);
  draw_sphere_mesh (r, r->small_sphere, origin, 0.06, NULL);
  glDisable (GL_CULL_FACE);
}

/* The axes of the default picture of a model without a scene, from the origin, two grid
 * steps long, in the colours the legend names them by: the picture is a graph of the
 * state, and the legend says what each axis measures. */
static void
draw_default_axes (CmlSceneRenderer *r, const DrawCtx *dc)
{
  static const guint32 hex[3] = { AXIS_HEX_X, AXIS_HEX_Y, AXIS_HEX_Z };
  static const double origin[3] = { 0, 0, 0 };
  double len = dc->has_grid ? 2 * dc->grid_step : 1.0;
  glEnable (GL_CULL_FACE);
  for (int k = 0; k < 3; k++)
    if (r->default_obs[k] >= 0)
      {
        double vec[3] = { 0, 0, 0 };
        float rgb[3];
        vec[k] = len;
        cml_scene_hex_to_rgb (hex[k], rgb);
        draw_arrow (r, dc, origin, vec, rgb);
      }
  glDisable (GL_CULL_FACE);
}

static gboolean
has_floor (CmlSceneRenderer *r)
{
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind == OBJ_PLANE || o->kind == OBJ_TURNTABLE)
        return TRUE;
    }
  return FALSE;
}

/* Makes *RB, a WIDTH × HEIGHT renderbuffer of FORMAT (multisampled when SAMPLES > 1), and
 * attaches it to the bound framebuffer at ATTACHMENT.  Leaves *RB bound. */
static void
attach_renderbuffer (GLuint *rb, GLenum attachment, GLenum format, int width, int height,
                     guint samples)
{
  glGenRenderbuffers (1, rb);
  glBindRenderbuffer (GL_RENDERBUFFER, *rb);
  if (samples > 1)
    glRenderbufferStorageMultisample (GL_RENDERBUFFER, samples, format, width, height);
  else
    glRenderbufferStorage (GL_RENDERBUFFER, format, width, height);
  glFramebufferRenderbuffer (GL_FRAMEBUFFER, attachment, GL_RENDERBUFFER, *rb);
}

/* (Re)makes a framebuffer of WIDTH × HEIGHT with SAMPLES (0: single-sampled). */
static gboolean
ensure_target (GLuint *fbo, GLuint *color, GLuint *depth, int *w, int *h, guint *have_samples,
               int width, int height, guint samples)
{
  if (*fbo && *w == width && *h == height && (!have_samples || *have_samples == samples))
    return TRUE;
  delete_target (fbo, color, depth);

  glGenFramebuffers (1, fbo);
  glBindFramebuffer (GL_FRAMEBUFFER, *fbo);
  attach_renderbuffer (color, GL_COLOR_ATTACHMENT0, GL_RGBA8, width, height, samples);
  attach_renderbuffer (depth, GL_DEPTH_ATTACHMENT, GL_DEPTH_COMPONENT24, width, height, samples);
  glBindRenderbuffer (GL_RENDERBUFFER, 0);

  gboolean ok = glCheckFramebufferStatus (GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (!ok)
    {
      glBindFramebuffer (GL_FRAMEBUFFER, 0);
      delete_target (fbo, color, depth);
      return FALSE;
    }
  *w = width;
  *h = height;
  if (have_samples)
    *have_samples = samples;
  return TRUE;
}

void
cml_scene_renderer_draw (CmlSceneRenderer *r, const double *scene_values, const CmlCamera *cam,
                         int width, int height, const CmlSceneStyle *style)
{
  g_return_if_fail (r != NULL && cam != NULL);

  CmlSceneStyle default_style = cml_scene_style_default ();
  if (style == NULL)
    style = &default_style;
  if (width <= 0 || height <= 0)
    return;
  double scratch[3];
  const double *v = cml_scene_object_values (r, r->n_scene > 0 ? scene_values : NULL, scratch);

  /* draw multisampled into our own buffer, then resolve into the caller's */
  GLint target = 0;
  glGetIntegerv (GL_DRAW_FRAMEBUFFER_BINDING, &target);
  guint samples = style->ghost ? 0 : style->samples;
  r->ghost_alpha = style->ghost ? GHOST_ALPHA : 1.f;
  if (samples > 1)
    {
      GLint max_samples = 0;
      glGetIntegerv (GL_MAX_SAMPLES, &max_samples);
      samples = MIN (samples, (guint) MAX (max_samples, 0));
    }
  gboolean ms = samples > 1
                && ensure_target (&r->ms_fbo, &r->ms_color, &r->ms_depth, &r->ms_width,
                                  &r->ms_height, &r->ms_samples, width, height, samples);
  glBindFramebuffer (GL_FRAMEBUFFER, ms ? r->ms_fbo : (GLuint) target);

  DrawCtx dc = { 0 };
  cml_scene_style_get_background (style, dc.bg);
  draw_ctx_init (&dc, cam, width, height, style);

  double *min = dc.min, *max = dc.max;
  cml_scene_renderer_get_bounds (r, r->n_scene > 0 ? scene_values : NULL, style, min, max);
  dc.extent = 0.5 * sqrt ((max[0] - min[0]) * (max[0] - min[0]) + (max[1] - min[1]) * (max[1] - min[1])
                          + (max[2] - min[2]) * (max[2] - min[2]));

  glViewport (0, 0, width, height);
  glClearColor (dc.bg[0], dc.bg[1], dc.bg[2], 1.f);
  glDepthMask (GL_TRUE);
  /* a second run goes over the first's picture: only its own depth starts afresh */
  glClear (style->ghost ? GL_DEPTH_BUFFER_BIT : GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable (GL_DEPTH_TEST);
  glDepthFunc (GL_LEQUAL);
  if (style->ghost)
    glEnable (GL_BLEND);
  else
    glDisable (GL_BLEND);
  /* keep the destination opaque: GTK composites the area's alpha */
  glBlendFuncSeparate (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glCullFace (GL_BACK);
  glFrontFace (GL_CCW);

  CmlMat4 view, proj;
  double aspect = (double) width / height;
  cml_camera_get_matrices (cam, aspect, &view, &proj);
  cml_mat4_multiply (&dc.view_proj, &proj, &view);
  cml_camera_get_eye (cam, dc.eye);

  /* the key light comes from over the viewer's left shoulder, whatever the direction of
   * view: the side of the scene one sees is always lit */
  float vl[3] = { -0.45f, 0.65f, 0.62f };
  float lw[3];
  for (int k = 0; k < 3; k++)
    lw[k] = view.m[k * 4 + 0] * vl[0] + view.m[k * 4 + 1] * vl[1] + view.m[k * 4 + 2] * vl[2];
  float ln = sqrtf (lw[0] * lw[0] + lw[1] * lw[1] + lw[2] * lw[2]);
  for (int k = 0; k < 3; k++)
    dc.light[k] = lw[k] / ln;

  /* what every variant shares, once per frame */
  for (int k = 0; k < N_PROGRAMS; k++)
    {
      const Program *p = &r->programs[k];
      glUseProgram (p->id);
      glUniformMatrix4fv (p->view_proj, 1, GL_FALSE, dc.view_proj.m);
      glUniform2f (p->viewport, width, height);
      glUniform3f (p->eye, dc.eye[0], dc.eye[1], dc.eye[2]);
      glUniform3f (p->light_dir, lw[0] / ln, lw[1] / ln, lw[2] / ln);
      glUniform1f (p->line_width, k == PROGRAM_LINES ? dc.line_px : dc.grid_px);
    }
  r->cur = &r->programs[N_PROGRAMS - 1];

  if (r->objects->len == 0)
    {
      draw_default (r, &dc);
      double lo[3] = { -1.5, -1.5, 0 }, hi[3] = { 1.5, 1.5, 0 };
      plan_grid_overlay (&dc, lo, hi);
      draw_grid (r, &dc);
    }
  else
    {
      draw_objects (r, &dc, v);
      if (!style->ghost)
        {
          if (!has_floor (r))
            plan_grid_overlay (&dc, min, max);
          draw_grid (r, &dc);
          draw_contact_shadows (r, &dc, v);
        }
      if (r->defaults && !style->ghost)
        draw_default_axes (r, &dc);
      draw_trails (r, &dc, v, style);
      draw_translucent (r, &dc, v);
    }

  glUseProgram (0);
  r->cur = NULL;
  r->ghost_alpha = 1.f;
  glBindVertexArray (0);
  glDisable (GL_DEPTH_TEST);
  glDisable (GL_BLEND);

  if (ms)
    {
      glBindFramebuffer (GL_READ_FRAMEBUFFER, r->ms_fbo);
      glBindFramebuffer (GL_DRAW_FRAMEBUFFER, target);
      glBlitFramebuffer (0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    }
  glBindFramebuffer (GL_FRAMEBUFFER, target);
}

gboolean
cml_scene_renderer_draw_to_pixels (CmlSceneRenderer *r, const double *scene_values,
                                   const CmlCamera *cam, int width, int height,
                                   const CmlSceneStyle *style, guint8 *rgba)
{
  g_return_val_if_fail (r != NULL && cam != NULL && rgba != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0, FALSE);

  GLint previous = 0;
  glGetIntegerv (GL_FRAMEBUFFER_BINDING, &previous);
  if (!ensure_target (&r->rb_fbo, &r->rb_color, &r->rb_depth, &r->rb_width, &r->rb_height, NULL,
                      width, height, 0))
    {
      glBindFramebuffer (GL_FRAMEBUFFER, previous);
      return FALSE;
    }
  glBindFramebuffer (GL_FRAMEBUFFER, r->rb_fbo);
  cml_scene_renderer_draw (r, scene_values, cam, width, height, style);

  glBindFramebuffer (GL_READ_FRAMEBUFFER, r->rb_fbo);
  glPixelStorei (GL_PACK_ALIGNMENT, 1);
  glReadPixels (0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glBindFramebuffer (GL_FRAMEBUFFER, previous);

  /* GL's rows run bottom to top */
  gsize stride = (gsize) width * 4;
  g_autofree guint8 *row = g_malloc (stride);
  for (int y = 0; y < height / 2; y++)
    {
      guint8 *a = rgba + y * stride, *b = rgba + (height - 1 - y) * stride;
      memcpy (row, a, stride);
      memcpy (a, b, stride);
      memcpy (b, row, stride);
    }
  return TRUE;
}

double
cml_scene_renderer_get_drawn_size (CmlSceneRenderer *r, guint object, const double *values,
                                   const CmlCamera *cam, int width, int height,
                                   const CmlSceneStyle *style)
{
  g_return_val_if_fail (r != NULL && cam != NULL, 0);
  g_return_val_if_fail (object < r->objects->len, 0);

  CmlSceneStyle default_style = cml_scene_style_default ();
  if (style == NULL)
    style = &default_style;
  if (values == NULL || width <= 0 || height <= 0)
    return 0;

  /* the sizes draw() would use: the same context, the same bounds */
  DrawCtx dc = { 0 };
  draw_ctx_init (&dc, cam, width, height, style);
  cml_scene_renderer_get_bounds (r, values, style, dc.min, dc.max);
  dc.extent = 0.5 * sqrt ((dc.max[0] - dc.min[0]) * (dc.max[0] - dc.min[0])
                          + (dc.max[1] - dc.min[1]) * (dc.max[1] - dc.min[1])
                          + (dc.max[2] - dc.min[2]) * (dc.max[2] - dc.min[2]));
  double scratch[3];
  const double *v = cml_scene_object_values (r, values, scratch);
  const SceneObj *o = r->objects->pdata[object];
  switch (o->kind)
    {
    case OBJ_SPHERE:
    case OBJ_POINT:
    case OBJ_DISC:
      {
        const double *p = v + (o->kind == OBJ_SPHERE ? o->center : o->position);
        if (!cml_scene_finite_n (p, 3))
          return 0;
        return 2 * body_drawn_radius (&dc, o, v) / units_per_px (&dc, p);
      }
    case OBJ_ARROW:
      {
        if (!cml_scene_finite_n (v + o->from, 3) || !cml_scene_finite_n (v + o->vector, 3))
          return 0;
        double vec[3], mid[3];
        double len = arrow_drawn_vector (&dc, v + o->from, v + o->vector, vec);
        for (int k = 0; k < 3; k++)
          mid[k] = v[o->from + k] + 0.5 * vec[k];
        return len / units_per_px (&dc, mid);
      }
    case OBJ_TURNTABLE:
      {
        double c[3] = { 0, 0, 0 };
        if (o->center >= 0)
          memcpy (c, v + o->center, sizeof c);
        return 2 * cml_scene_table_drawn_radius (o, v) / units_per_px (&dc, c);
      }
    case OBJ_PLANE:
    case OBJ_TRAIL:
      break;
    }
  return 0;
}
