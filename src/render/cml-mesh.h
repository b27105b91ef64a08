/* cml-mesh.h — vertex data for the 3-D scene and its GL buffers.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The builders (cml_mesh_data_*) make unit shapes on the CPU, with no GL, so tests can
 * count triangles: a sphere, a disc or turntable, a cylinder and a cone for arrows, a
 * quad for planes, and ribbons for trails.  Markings that show rotation (octants on the
 * ball, sectors on the table) are painted by the fragment shader from object-space
 * positions, so the meshes stay small: software GL pays per triangle.
 *
 * CmlMesh owns a vertex array and its buffers; making, drawing and freeing it need the
 * GL context it was made in.
 */
#pragma once

#include <epoxy/gl.h>
#include <glib.h>

G_BEGIN_DECLS

/* One vertex; the attribute locations of shaders/scene.vert follow this order. */
typedef struct
{
  float pos[3];
  float normal[3];  /* trails: the tangent */
  float mark;       /* mix weight of the second colour (0 = first); trails: age */
  float side;       /* trails: −1 / +1 across the ribbon; meshes: 0 */
} CmlVertex;

typedef struct
{
  GArray *vertices;  /* CmlVertex */
  GArray *indices;   /* guint32, triangles */
} CmlMeshData;

CmlMeshData *cml_mesh_data_new (void);
void         cml_mesh_data_free (CmlMeshData *data);
guint        cml_mesh_data_n_triangles (const CmlMeshData *data);

/* Unit sphere about the origin, SLICES around z and STACKS pole to pole
 * (2·slices·(stacks − 1) triangles); mark 1. */
void cml_mesh_data_add_sphere (CmlMeshData *data, guint slices, guint stacks);
/* Unit disc in z = 0 facing +z (mark 1 on the top face); with THICKNESS > 0 also a rim
 * down to z = −thickness and a bottom face (mark 0). */
void cml_mesh_data_add_disc (CmlMeshData *data, guint segments, float thickness);
/* Unit cylinder about z from z = 0 to 1, with the bottom cap. */
void cml_mesh_data_add_cylinder (CmlMeshData *data, guint segments);
/* The side of that cylinder only, open at both ends (a wheel's tread). */
void cml_mesh_data_add_tube (CmlMeshData *data, guint segments);
/* Unit cone: base of radius 1 at z = 0 (capped), apex at z = 1. */
void cml_mesh_data_add_cone (CmlMeshData *data, guint segments);
/* The square [−1, 1]² in z = 0 facing +z. */
void cml_mesh_data_add_quad (CmlMeshData *data);

/* Appends a trail ribbon as triangle-strip vertices: each point twice (side −1, +1) with
 * the tangent of the curve there (central differences) and its age AGES[i] (NULL: 0).
 * XYZ holds N points. */
void cml_mesh_ribbon_append (GArray *vertices, const float *xyz, const float *ages, guint n);

/* Appends one straight line from A to B as two triangles (6 vertices) of the same
 * screen-space line format, marks MARK_A and MARK_B at the ends. */
void cml_mesh_segment_append (GArray *vertices, const float a[3], const float b[3],
                              float mark_a, float mark_b);

typedef struct _CmlMesh CmlMesh;

/* Uploads DATA as indexed triangles (a static mesh). */
CmlMesh *cml_mesh_new (const CmlMeshData *data);
/* A mesh whose vertices change (trails): non-indexed, drawn as MODE. */
CmlMesh *cml_mesh_new_dynamic (GLenum mode);
/* Replaces the vertices of a dynamic mesh. */
void     cml_mesh_set_vertices (CmlMesh *mesh, const CmlVertex *vertices, guint n);
void     cml_mesh_draw (const CmlMesh *mesh);
guint    cml_mesh_n_triangles (const CmlMesh *mesh);
void     cml_mesh_free (CmlMesh *mesh);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CmlMeshData, cml_mesh_data_free)

G_END_DECLS
