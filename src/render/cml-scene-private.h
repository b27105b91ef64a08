/* cml-scene-private.h — the scene renderer's insides, shared by its files: the
 * objects made from a model's [scene …] groups, their trails, and the renderer's state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Only cml-scene-*.c include this; everything else uses cml-scene-renderer.h.
 */
#pragma once

#include "cml-scene-renderer.h"

#include "cml-gl.h"
#include "cml-mesh.h"

#define TRAIL_MAX_POINTS   20000  /* kept per trail */
#define TRAIL_MAX_DRAWN    6000   /* uploaded per trail and frame, after thinning */
#define DISC_MARKS_MAX     400    /* translucent discs kept per disc object */
#define DEFAULT_LENGTH     60.0   /* seconds of trail when the model gives no length */
#define SAMPLES_PER_SECOND 120.0  /* spacing assumed when sample times are not given */
#define GHOST_ALPHA        0.4f   /* opacity of a second run drawn over a first */
#define MIN_BODY_PX        12.0   /* bodies are drawn at least this wide, logical pixels */
#define TABLE_STEPS        8      /* a table grows in steps of 1/8 of its model radius */
#define ARROW_MIN_BODIES   3.5    /* an arrow is at least this many MIN_BODY_PX long, so that
                                   * it shows beside a point at its tip (the sleigh) */
#define ARROW_VANISH       0.1    /* an arrow shorter than this part of that is not drawn */

typedef enum
{
  OBJ_SPHERE,
  OBJ_TURNTABLE,
  OBJ_PLANE,
  OBJ_POINT,
  OBJ_TRAIL,
  OBJ_DISC,
  OBJ_ARROW,
} ObjKind;

/* the program variants: PATTERN of shaders/scene.frag, then lines (MODE 1) */
enum
{
  PATTERN_MARK = 0,
  PATTERN_BALL = 1,
  PATTERN_TABLE = 2,
  PATTERN_FLOOR = 3,
  PATTERN_DISC = 4,
  PATTERN_SHADOW = 5,
  PROGRAM_LINES = 6,
  N_PROGRAMS
};

typedef struct
{
  GLuint id;
  GLint  model, view_proj, normal_matrix, viewport, line_width, tangent_scale;
  GLint  color, color2, accent, eye, light_dir;
} Program;

typedef struct
{
  double t;
  float  p[3];
  float  angle;  /* frame-angle at this sample (0 without one) */
} TrailPoint;

typedef struct
{
  double t;
  float  p[3];
  float  n[3];
  float  radius;
} DiscMark;

typedef struct
{
  ObjKind kind;
  float   rgb[3];
  char   *label;   /* for the legend, or NULL */
  /* turntable: how far from its centre the bodies on it have reached since the last
   * clear (contact point plus body radius); the table is drawn at least that large */
  double  reach;
  /* turntable: its centre and largest drawn radius since the last clear, for framing */
  double  rim_center[3], rim_radius;
  /* offsets into the scene values, -1 where the model leaves a key out */
  int     center, radius, attitude, angle, size, position, point, frame_angle, length,
          normal, every, from, vector;
  /* trail: oldest first; grows at the end, dropped from the front by moving START */
  GArray *points;
  guint   start;
  CmlMesh *strip;
  /* disc with `every`: the discs left along the path */
  GArray *marks;
  guint   marks_start;
  guint64 samples_since_mark;
} SceneObj;

struct _CmlSceneRenderer
{
  Program  programs[N_PROGRAMS];
  Program *cur;  /* in use */
  float    ghost_alpha; /* 1, or the opacity of a second run drawn over a first (style->ghost) */

  CmlMesh *ball, *small_sphere, *table, *disc, *cylinder, *tube, *cone, *quad;
  CmlMesh *grid_lines, *grid_axes;  /* remade every frame */

  CmlSystem *sys;
  guint      n_scene;  /* values per row: the scene values, or the observables (defaults) */
  GPtrArray *objects;  /* SceneObj*, model order */
  /* a model without a scene: the default picture's point is built from these
   * observables (-1: 0), see cml_scene_values_are_observables() */
  gboolean   defaults;
  int        default_obs[3];
  double     default_values[3];  /* the current point, for draw and bounds */

  /* everything shown so far, for camera framing (lab and table-frame trails apart) */
  double   lab_min[3], lab_max[3];
  double   table_min[3], table_max[3];
  double   body_min[3], body_max[3];  /* the lab box without the turntables */
  gboolean lab_valid, table_valid, body_valid;

  /* multisampled target, resolved into the caller's framebuffer */
  GLuint   ms_fbo, ms_color, ms_depth;
  int      ms_width, ms_height;
  guint    ms_samples;

  /* offscreen target of draw_to_pixels */
  GLuint   rb_fbo, rb_color, rb_depth;
  int      rb_width, rb_height;

  /* scratch for trail ribbons */
  GArray  *xyz, *ages, *vertices;
};

/* cml-scene-style.c */
void cml_scene_hex_to_rgb (guint32 hex, float rgb[3]);
/* Named colours (the GNOME palette's strong tones); NULL or unknown: DEFAULT_HEX. */
void cml_scene_parse_color (const char *name, guint32 default_hex, float rgb[3]);
void cml_scene_mix3 (const float a[3], const float b[3], float t, float out[3]);

/* cml-scene-objects.c */
gboolean cml_scene_finite_n (const double *v, int n);
void cml_scene_box_add (double min[3], double max[3], gboolean *valid, const double c[3], double r);
/* Adds to the box of everything shown and to the one of everything but the tables. */
void cml_scene_lab_add (CmlSceneRenderer *r, const double c[3], double radius);
void cml_scene_reset_bounds (CmlSceneRenderer *r);
/* "x, y, theta" */
char *cml_scene_default_names_joined (CmlSystem *sys);
/* The default picture's coordinates: their observable indices OBS (-1: none) and NAMES
 * (NULL: none), along x, y and z; returns how many there are. */
guint cml_scene_default_coordinates (CmlSystem *sys, int obs[3], const char *names[3]);
/* The colours of the default picture's axes x, y, z. */
#define AXIS_HEX_X 0xe01b24
#define AXIS_HEX_Y 0x26a269
#define AXIS_HEX_Z 0x1c71d8
/* The values the objects read: the scene values as given, or for the default picture
 * the point gathered from the observables V into SCRATCH (3). */
const double *cml_scene_object_values (CmlSceneRenderer *r, const double *v, double *scratch);
/* The radius the table O is drawn with at V. */
double cml_scene_table_drawn_radius (const SceneObj *o, const double *v);
void cml_scene_add_object_bounds (CmlSceneRenderer *r, const double *v);

/* cml-scene-trails.c */
guint cml_scene_trail_n (const SceneObj *o);
const TrailPoint *cml_scene_trail_at (const SceneObj *o, guint i);
double cml_scene_obj_length (const SceneObj *o, const double *v);
void cml_scene_add_trail_bounds (CmlSceneRenderer *r, const float p[3], float angle, gboolean has_angle);

/* cml-scene-renderer.c */
void cml_scene_clear_objects (CmlSceneRenderer *r);
