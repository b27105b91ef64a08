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

#include "cml-scene-draw-private.h"

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

/* Grid lines every GRID_STEP over [GRID_LO, GRID_HI] at height GRID_Z, drawn as
 * screen-space lines (a procedural grid over the whole floor costs milliseconds in
 * software GL); the two axes wider.  Lines fade out with the distance from the eye,
 * before far lines crowd into moiré. */
static void
draw_grid (CmlSceneRenderer *r, CmlSceneDrawCtx *dc)
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

  cml_scene_use_program (r, PROGRAM_LINES);
  CmlMat4 id;
  cml_mat4_identity (&id);
  cml_scene_set_model (r, &id);
  glUniform1f (r->cur->tangent_scale, dc->distance * 1e-3);
  cml_scene_begin_translucent (r);
  cml_mesh_set_vertices (r->grid_lines, (CmlVertex *) lines->data, lines->len);
  glUniform1f (r->cur->line_width, dc->grid_px);
  cml_scene_set_colors (r, dc->grid_line, dc->grid_alpha, dc->grid_line, dc->grid_line);
  cml_mesh_draw (r->grid_lines);
  cml_mesh_set_vertices (r->grid_axes, (CmlVertex *) axis_vertices->data, axis_vertices->len);
  glUniform1f (r->cur->line_width, 2 * dc->grid_px);
  cml_scene_set_colors (r, dc->grid_axis, dc->grid_alpha, dc->grid_axis, dc->grid_axis);
  cml_mesh_draw (r->grid_axes);
  glUniform1f (r->cur->line_width, dc->line_px);
  cml_scene_end_translucent (r);
  g_array_unref (axis_vertices);
}

/* Without a floor in the scene: faint lines at z = 0 (or under everything) so that
 * shapes in space stand on something and show their size. */
static void
plan_grid_overlay (CmlSceneDrawCtx *dc, const double min[3], const double max[3])
{
  double span = MAX (max[0] - min[0], max[1] - min[1]);
  double step = cml_scene_nice_step (span);
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
upload_trail (CmlSceneRenderer *r, SceneObj *o, const CmlSceneDrawCtx *dc, const double *cur,
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
draw_trails (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double *v, const CmlSceneStyle *style)
{
  cml_scene_use_program (r, PROGRAM_LINES);
  glUniform1f (r->cur->line_width, dc->line_px);
  glUniform1f (r->cur->tangent_scale, dc->distance * 1e-3);
  cml_scene_begin_translucent (r);

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
      cml_scene_set_model (r, &m);

      float rgb[3];
      memcpy (rgb, o->rgb, sizeof rgb);
      if (dc->dark)
        {
          /* strong blues sink into a dark background: lift them */
          float white[3] = { 1, 1, 1 };
          cml_scene_mix3 (rgb, white, 0.25f, rgb);
        }
      cml_scene_set_colors (r, rgb, 1.f, rgb, rgb);
      cml_mesh_draw (o->strip);
    }

  cml_scene_end_translucent (r);
}



static void
draw_default (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc)
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
    cml_scene_draw_arrow (r, dc, origin, axes[k], rgb[k]);
  cml_scene_use_program (r, PATTERN_MARK);
  cml_scene_set_colors (r, grey, 1.f, grey, grey);
  cml_scene_draw_sphere_mesh (r, r->small_sphere, origin, 0.06, NULL);
  glDisable (GL_CULL_FACE);
}

/* The axes of the default picture of a model without a scene, from the origin, two grid
 * steps long, in the colours the legend names them by: the picture is a graph of the
 * state, and the legend says what each axis measures. */
static void
draw_default_axes (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc)
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
        cml_scene_draw_arrow (r, dc, origin, vec, rgb);
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

  CmlSceneDrawCtx dc = { 0 };
  cml_scene_style_get_background (style, dc.bg);
  cml_scene_draw_ctx_init (&dc, cam, width, height, style);

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
      cml_scene_draw_objects (r, &dc, v);
      if (!style->ghost)
        {
          if (!has_floor (r))
            plan_grid_overlay (&dc, min, max);
          draw_grid (r, &dc);
          cml_scene_draw_contact_shadows (r, &dc, v);
        }
      if (r->defaults && !style->ghost)
        draw_default_axes (r, &dc);
      draw_trails (r, &dc, v, style);
      cml_scene_draw_translucent (r, &dc, v);
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
  CmlSceneDrawCtx dc = { 0 };
  cml_scene_draw_ctx_init (&dc, cam, width, height, style);
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
        return 2 * cml_scene_body_drawn_radius (&dc, o, v) / cml_scene_units_per_px (&dc, p);
      }
    case OBJ_ARROW:
      {
        if (!cml_scene_finite_n (v + o->from, 3) || !cml_scene_finite_n (v + o->vector, 3))
          return 0;
        double vec[3], mid[3];
        double len = cml_scene_arrow_drawn_vector (&dc, v + o->from, v + o->vector, vec);
        for (int k = 0; k < 3; k++)
          mid[k] = v[o->from + k] + 0.5 * vec[k];
        return len / cml_scene_units_per_px (&dc, mid);
      }
    case OBJ_TURNTABLE:
      {
        double c[3] = { 0, 0, 0 };
        if (o->center >= 0)
          memcpy (c, v + o->center, sizeof c);
        return 2 * cml_scene_table_drawn_radius (o, v) / cml_scene_units_per_px (&dc, c);
      }
    case OBJ_PLANE:
    case OBJ_TRAIL:
      break;
    }
  return 0;
}
