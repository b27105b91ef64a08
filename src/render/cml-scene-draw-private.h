/* cml-scene-draw-private.h — what the scene's drawing files share: the state of one
 * frame being drawn (CmlSceneDrawCtx), the drawing primitives (cml-scene-draw.c) and the
 * bodies (cml-scene-bodies.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-scene-private.h"

G_BEGIN_DECLS

/* One frame being drawn: the camera's matrices and the sizes that depend on the view. */
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
} CmlSceneDrawCtx;

/* A disc without marks standing on its edge (its normal within 60° of the horizontal) is
 * a wheel, drawn solid: a tread CML_SCENE_WHEEL_WIDTH of its radius wide between two
 * faces.  Drawn as a thin translucent disc it is a dark sliver when seen near its edge or
 * from its back. */
#define CML_SCENE_WHEEL_WIDTH 0.12

/* ---- primitives (cml-scene-draw.c) ----------------------------------------------------- */

void cml_scene_draw_ctx_init (CmlSceneDrawCtx *dc, const CmlCamera *cam, int width, int height,
                              const CmlSceneStyle *style);
double cml_scene_units_per_px (const CmlSceneDrawCtx *dc, const double p[3]);
double cml_scene_readable_radius (const CmlSceneDrawCtx *dc, const double p[3], double radius);
double cml_scene_body_drawn_radius (const CmlSceneDrawCtx *dc, const SceneObj *o, const double *v);
double cml_scene_arrow_drawn_vector (const CmlSceneDrawCtx *dc, const double from[3],
                                     const double vec[3], double out[3]);
void cml_scene_use_program (CmlSceneRenderer *r, int program);
void cml_scene_begin_translucent (CmlSceneRenderer *r);
void cml_scene_end_translucent (CmlSceneRenderer *r);
void cml_scene_set_model (CmlSceneRenderer *r, const CmlMat4 *model);
void cml_scene_set_colors (CmlSceneRenderer *r, const float c1[3], float alpha, const float c2[3],
                           const float accent[3]);
void cml_scene_draw_sphere_mesh (CmlSceneRenderer *r, CmlMesh *mesh, const double c[3],
                                 double radius, const CmlMat4 *rot);
void cml_scene_draw_arrow (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double from[3],
                           const double vec0[3], const float rgb[3]);
void cml_scene_draw_disc (CmlSceneRenderer *r, const float p[3], const float n[3], float radius);
gboolean cml_scene_is_wheel (const SceneObj *o, const double *v);
void cml_scene_draw_wheel_tread (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const SceneObj *o,
                                 const double *v, double radius);
double cml_scene_nice_step (double span);

/* ---- the bodies (cml-scene-bodies.c) --------------------------------------------------- */

void cml_scene_draw_translucent (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc, const double *v);
void cml_scene_draw_objects (CmlSceneRenderer *r, CmlSceneDrawCtx *dc, const double *v);
gboolean cml_scene_floor_height (CmlSceneRenderer *r, const double *v, double *z);
void cml_scene_draw_contact_shadows (CmlSceneRenderer *r, const CmlSceneDrawCtx *dc,
                                     const double *v);

G_END_DECLS
