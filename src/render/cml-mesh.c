/* cml-mesh.c — unit shapes, trail ribbons and their GL buffers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-mesh"

#include "cml-mesh.h"

#include <math.h>
#include <stddef.h>

CmlMeshData *
cml_mesh_data_new (void)
{
  CmlMeshData *data = g_new0 (CmlMeshData, 1);
  data->vertices = g_array_new (FALSE, FALSE, sizeof (CmlVertex));
  data->indices = g_array_new (FALSE, FALSE, sizeof (guint32));
  return data;
}

void
cml_mesh_data_free (CmlMeshData *data)
{
  if (data == NULL)
    return;
  g_array_unref (data->vertices);
  g_array_unref (data->indices);
  g_free (data);
}

guint
cml_mesh_data_n_triangles (const CmlMeshData *data)
{
  return data->indices->len / 3;
}

static guint32
add_vertex (CmlMeshData *data, float x, float y, float z, float nx, float ny, float nz, float mark)
{
  CmlVertex v = { { x, y, z }, { nx, ny, nz }, mark, 0.f };
  g_array_append_val (data->vertices, v);
  return data->vertices->len - 1;
}

static void
add_triangle (CmlMeshData *data, guint32 a, guint32 b, guint32 c)
{
  guint32 t[3] = { a, b, c };
  g_array_append_vals (data->indices, t, 3);
}

void
cml_mesh_data_add_sphere (CmlMeshData *data, guint slices, guint stacks)
{
  g_return_if_fail (slices >= 3 && stacks >= 2);

  guint32 first = data->vertices->len;
  /* a latitude–longitude grid with a seam column (slices + 1) so positions stay simple */
  for (guint i = 0; i <= stacks; i++)
    {
      double theta = G_PI * i / stacks;
      for (guint j = 0; j <= slices; j++)
        {
          double phi = 2 * G_PI * j / slices;
          float x = sin (theta) * cos (phi), y = sin (theta) * sin (phi), z = cos (theta);
          add_vertex (data, x, y, z, x, y, z, 1.f);
        }
    }
  for (guint i = 0; i < stacks; i++)
    for (guint j = 0; j < slices; j++)
      {
        guint32 a = first + i * (slices + 1) + j, b = a + 1;
        guint32 c = a + slices + 1, d = c + 1;
        /* the rows at the poles collapse to one point: one triangle each */
        if (i != 0)
          add_triangle (data, a, c, b);
        if (i != stacks - 1)
          add_triangle (data, b, c, d);
      }
}

static void
add_fan (CmlMeshData *data, guint segments, float z, float nz, float mark)
{
  guint32 centre = add_vertex (data, 0, 0, z, 0, 0, nz, mark);
  guint32 first = data->vertices->len;
  for (guint j = 0; j < segments; j++)
    {
      double phi = 2 * G_PI * j / segments;
      add_vertex (data, cos (phi), sin (phi), z, 0, 0, nz, mark);
    }
  for (guint j = 0; j < segments; j++)
    {
      guint32 a = first + j, b = first + (j + 1) % segments;
      /* counter-clockwise seen from the side the normal points to */
      if (nz > 0)
        add_triangle (data, centre, a, b);
      else
        add_triangle (data, centre, b, a);
    }
}

static void
add_tube (CmlMeshData *data, guint segments, float z0, float z1, float r0, float r1, float mark)
{
  guint32 first = data->vertices->len;
  /* the normal of a cone's side leans by the slope */
  double slope = (r0 - r1) / (z1 - z0);
  double nl = sqrt (1 + slope * slope);
  for (guint j = 0; j <= segments; j++)
    {
      double phi = 2 * G_PI * j / segments;
      float c = cos (phi), s = sin (phi);
      float nx = c / nl, ny = s / nl, nz = slope / nl;
      add_vertex (data, r0 * c, r0 * s, z0, nx, ny, nz, mark);
      add_vertex (data, r1 * c, r1 * s, z1, nx, ny, nz, mark);
    }
  for (guint j = 0; j < segments; j++)
    {
      guint32 a = first + 2 * j, b = a + 1, c = a + 2, d = a + 3;
      add_triangle (data, a, c, b);
      add_triangle (data, b, c, d);
    }
}

void
cml_mesh_data_add_disc (CmlMeshData *data, guint segments, float thickness)
{
  g_return_if_fail (segments >= 3);

  add_fan (data, segments, 0, 1, 1.f);
  if (thickness > 0)
    {
      add_tube (data, segments, -thickness, 0, 1, 1, 0.f);
      add_fan (data, segments, -thickness, -1, 0.f);
    }
}

void
cml_mesh_data_add_cylinder (CmlMeshData *data, guint segments)
{
  g_return_if_fail (segments >= 3);

  add_tube (data, segments, 0, 1, 1, 1, 0.f);
  add_fan (data, segments, 0, -1, 0.f);
}

void
cml_mesh_data_add_tube (CmlMeshData *data, guint segments)
{
  g_return_if_fail (segments >= 3);

  add_tube (data, segments, 0, 1, 1, 1, 0.f);
}

void
cml_mesh_data_add_cone (CmlMeshData *data, guint segments)
{
  g_return_if_fail (segments >= 3);

  /* a sliver of a top ring keeps the apex normals from degenerating */
  add_tube (data, segments, 0, 1, 1, 1e-3f, 0.f);
  add_fan (data, segments, 0, -1, 0.f);
}

void
cml_mesh_data_add_quad (CmlMeshData *data)
{
  guint32 a = add_vertex (data, -1, -1, 0, 0, 0, 1, 0.f);
  guint32 b = add_vertex (data, 1, -1, 0, 0, 0, 1, 0.f);
  guint32 c = add_vertex (data, 1, 1, 0, 0, 0, 1, 0.f);
  guint32 d = add_vertex (data, -1, 1, 0, 0, 0, 1, 0.f);
  add_triangle (data, a, b, c);
  add_triangle (data, a, c, d);
}

void
cml_mesh_ribbon_append (GArray *vertices, const float *xyz, const float *ages, guint n)
{
  float t[3] = { 1, 0, 0 };
  for (guint i = 0; i < n; i++)
    {
      /* central difference, one-sided at the ends; where points coincide the previous
       * tangent stays */
      guint a = i > 0 ? i - 1 : i, b = i + 1 < n ? i + 1 : i;
      float d[3];
      double len = 0;
      for (int k = 0; k < 3; k++)
        {
          d[k] = xyz[3 * b + k] - xyz[3 * a + k];
          len += (double) d[k] * d[k];
        }
      len = sqrt (len);
      if (len > 0)
        for (int k = 0; k < 3; k++)
          t[k] = d[k] / len;

      for (int s = -1; s <= 1; s += 2)
        {
          CmlVertex v = {
            { xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2] },
            { t[0], t[1], t[2] },
            ages ? ages[i] : 0.f,
            (float) s,
          };
          g_array_append_val (vertices, v);
        }
    }
}

void
cml_mesh_segment_append (GArray *vertices, const float a[3], const float b[3],
                         float mark_a, float mark_b)
{
  float t[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
  double len = sqrt ((double) t[0] * t[0] + (double) t[1] * t[1] + (double) t[2] * t[2]);
  if (!(len > 0))
    return;
  for (int k = 0; k < 3; k++)
    t[k] /= len;

  /* (a,−) (a,+) (b,−) and (a,+) (b,+) (b,−) */
  static const int end[6] = { 0, 0, 1, 0, 1, 1 };
  static const float side[6] = { -1, 1, -1, 1, 1, -1 };
  for (int i = 0; i < 6; i++)
    {
      const float *p = end[i] ? b : a;
      CmlVertex v = { { p[0], p[1], p[2] }, { t[0], t[1], t[2] }, end[i] ? mark_b : mark_a, side[i] };
      g_array_append_val (vertices, v);
    }
}

/* ---- GL ---------------------------------------------------------------------------- */

struct _CmlMesh
{
  GLuint  vao, vbo, ibo;
  GLenum  mode;
  GLsizei count;      /* indices, or vertices when not indexed */
  gboolean indexed;
};

static void
set_attributes (void)
{
  glEnableVertexAttribArray (0);
  glVertexAttribPointer (0, 3, GL_FLOAT, GL_FALSE, sizeof (CmlVertex), (void *) offsetof (CmlVertex, pos));
  glEnableVertexAttribArray (1);
  glVertexAttribPointer (1, 3, GL_FLOAT, GL_FALSE, sizeof (CmlVertex), (void *) offsetof (CmlVertex, normal));
  glEnableVertexAttribArray (2);
  glVertexAttribPointer (2, 1, GL_FLOAT, GL_FALSE, sizeof (CmlVertex), (void *) offsetof (CmlVertex, mark));
  glEnableVertexAttribArray (3);
  glVertexAttribPointer (3, 1, GL_FLOAT, GL_FALSE, sizeof (CmlVertex), (void *) offsetof (CmlVertex, side));
}

CmlMesh *
cml_mesh_new (const CmlMeshData *data)
{
  g_return_val_if_fail (data != NULL, NULL);

  CmlMesh *mesh = g_new0 (CmlMesh, 1);
  mesh->mode = GL_TRIANGLES;
  mesh->indexed = TRUE;
  mesh->count = data->indices->len;

  glGenVertexArrays (1, &mesh->vao);
  glBindVertexArray (mesh->vao);
  glGenBuffers (1, &mesh->vbo);
  glBindBuffer (GL_ARRAY_BUFFER, mesh->vbo);
  glBufferData (GL_ARRAY_BUFFER, data->vertices->len * sizeof (CmlVertex), data->vertices->data, GL_STATIC_DRAW);
  glGenBuffers (1, &mesh->ibo);
  glBindBuffer (GL_ELEMENT_ARRAY_BUFFER, mesh->ibo);
  glBufferData (GL_ELEMENT_ARRAY_BUFFER, data->indices->len * sizeof (guint32), data->indices->data, GL_STATIC_DRAW);
  set_attributes ();
  glBindVertexArray (0);
  glBindBuffer (GL_ARRAY_BUFFER, 0);
  return mesh;
}

CmlMesh *
cml_mesh_new_dynamic (GLenum mode)
{
  CmlMesh *mesh = g_new0 (CmlMesh, 1);
  mesh->mode = mode;

  glGenVertexArrays (1, &mesh->vao);
  glBindVertexArray (mesh->vao);
  glGenBuffers (1, &mesh->vbo);
  glBindBuffer (GL_ARRAY_BUFFER, mesh->vbo);
  set_attributes ();
  glBindVertexArray (0);
  glBindBuffer (GL_ARRAY_BUFFER, 0);
  return mesh;
}

void
cml_mesh_set_vertices (CmlMesh *mesh, const CmlVertex *vertices, guint n)
{
  g_return_if_fail (mesh != NULL && !mesh->indexed);

  glBindBuffer (GL_ARRAY_BUFFER, mesh->vbo);
  /* orphan the old storage so the driver need not wait for a draw still using it */
  glBufferData (GL_ARRAY_BUFFER, n * sizeof (CmlVertex), vertices, GL_STREAM_DRAW);
  glBindBuffer (GL_ARRAY_BUFFER, 0);
  mesh->count = n;
}

void
cml_mesh_draw (const CmlMesh *mesh)
{
  if (mesh == NULL || mesh->count == 0)
    return;
  glBindVertexArray (mesh->vao);
  if (mesh->indexed)
    glDrawElements (mesh->mode, mesh->count, GL_UNSIGNED_INT, NULL);
  else
    glDrawArrays (mesh->mode, 0, mesh->count);
  glBindVertexArray (0);
}

guint
cml_mesh_n_triangles (const CmlMesh *mesh)
{
  if (mesh->mode == GL_TRIANGLES)
    return mesh->count / 3;
  return mesh->count >= 2 ? mesh->count - 2 : 0;
}

void
cml_mesh_free (CmlMesh *mesh)
{
  if (mesh == NULL)
    return;
  glDeleteVertexArrays (1, &mesh->vao);
  glDeleteBuffers (1, &mesh->vbo);
  if (mesh->ibo)
    glDeleteBuffers (1, &mesh->ibo);
  g_free (mesh);
}
