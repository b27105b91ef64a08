/* cml-scene-objects.c — the scene's objects: what a model's [scene …] groups (or
 * the default picture of a model without them) make, the size a turntable is drawn with,
 * and the box around everything shown that the camera frames.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-renderer"

#include "cml-scene-private.h"

#include <math.h>
#include <string.h>

/* ---- the system's objects ------------------------------------------------------------ */

void
cml_scene_reset_bounds (CmlSceneRenderer *r)
{
  r->lab_valid = r->table_valid = r->body_valid = FALSE;
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      o->reach = 0;
      o->rim_radius = 0;
    }
}

gboolean
cml_scene_values_are_observables (CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, FALSE);

  return cml_system_get_model (sys)->scene->len == 0;
}

/* The default picture of a model without a scene: the state as a point in space, the
 * first three of its base coordinates (a point over the base is where the system is),
 * filled up with fibre coordinates when the base has fewer than two (a Lie algebra, or a
 * base of one: the velocity beside the position shows the motion as a phase portrait).
 * OBS gets their observable indices (-1: none, drawn at 0), NAMES their names. */
guint
cml_scene_default_coordinates (CmlSystem *sys, int obs[3], const char *names[3])
{
  CmlModel *model = cml_system_get_model (sys);
  guint n = 0;
  for (guint i = 0; i < model->m && n < 3; i++)
    names[n++] = model->base[i];
  for (guint a = 0; n < 2 && a < model->n; a++)
    names[n++] = model->fibre[a];
  if (model->m == 0)
    for (guint a = 2; n < 3 && a < model->n; a++)
      names[n++] = model->fibre[a];
  for (guint k = 0; k < 3; k++)
    {
      obs[k] = k < n ? cml_system_observable_index (sys, names[k]) : -1;
      if (k >= n)
        names[k] = NULL;
    }
  return n;
}

/* "x, y, theta" */
char *
cml_scene_default_names_joined (CmlSystem *sys)
{
  int obs[3];
  const char *names[4] = { NULL, NULL, NULL, NULL };
  cml_scene_default_coordinates (sys, obs, names);
  return g_strjoinv (", ", (char **) names);
}

/* The values the objects read: the scene values as given, or for the default picture
 * the point gathered from the observables V into SCRATCH (3). */
const double *
cml_scene_object_values (CmlSceneRenderer *r, const double *v, double *scratch)
{
  if (!r->defaults || v == NULL)
    return v;
  for (int k = 0; k < 3; k++)
    scratch[k] = r->default_obs[k] >= 0 ? v[r->default_obs[k]] : 0.0;
  return scratch;
}

void
cml_scene_renderer_set_system (CmlSceneRenderer *r, CmlSystem *sys)
{
  g_return_if_fail (r != NULL);

  cml_scene_clear_objects (r);
  cml_scene_reset_bounds (r);
  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&r->sys, cml_system_unref);
  r->sys = sys;
  r->n_scene = sys ? cml_system_n_scene_values (sys) : 0;
  r->defaults = FALSE;
  if (sys == NULL)
    return;
  if (cml_scene_values_are_observables (sys))
    {
      /* no [scene …]: a point where the state is and its path, over the observables */
      const char *names[3];
      cml_scene_default_coordinates (sys, r->default_obs, names);
      g_autofree char *joined = cml_scene_default_names_joined (sys);
      r->defaults = TRUE;
      r->n_scene = cml_system_n_observables (sys);
      SceneObj *trail = g_new0 (SceneObj, 1), *point = g_new0 (SceneObj, 1);
      *trail = (SceneObj) { .kind = OBJ_TRAIL, .point = 0, .frame_angle = -1, .length = -1,
                            .center = -1, .radius = -1, .attitude = -1, .angle = -1, .size = -1,
                            .position = -1, .normal = -1, .every = -1, .from = -1, .vector = -1 };
      *point = *trail;
      point->kind = OBJ_POINT;
      point->point = -1;
      point->position = 0;
      trail->points = g_array_new (FALSE, FALSE, sizeof (TrailPoint));
      cml_scene_hex_to_rgb (0x1c71d8, trail->rgb);
      cml_scene_hex_to_rgb (0xe01b24, point->rgb);
      trail->label = g_strdup_printf ("path of (%s)", joined);
      point->label = g_strdup_printf ("state (%s)", joined);
      g_ptr_array_add (r->objects, trail);
      g_ptr_array_add (r->objects, point);
      return;
    }

  static const struct
  {
    const char *type;
    ObjKind     kind;
    guint32     color; /* default */
  } types[] = {
    { "sphere", OBJ_SPHERE, 0xf57900 }, { "turntable", OBJ_TURNTABLE, 0x9a9996 },
    { "plane", OBJ_PLANE, 0x9a9996 },   { "point", OBJ_POINT, 0xe01b24 },
    { "trail", OBJ_TRAIL, 0x1c71d8 },   { "disc", OBJ_DISC, 0x26a269 },
    { "arrow", OBJ_ARROW, 0x813d9c },
  };

  CmlModel *model = cml_system_get_model (sys);
  for (guint i = 0; i < model->scene->len; i++)
    {
      const CmlSceneObject *so = model->scene->pdata[i];
      SceneObj *o = g_new0 (SceneObj, 1);
      guint k;
      for (k = 0; k < G_N_ELEMENTS (types); k++)
        if (g_str_equal (so->type, types[k].type))
          break;
      g_assert (k < G_N_ELEMENTS (types)); /* the model loader checked the type */
      o->kind = types[k].kind;
      o->label = g_strdup (so->label);
      cml_scene_parse_color (so->color, types[k].color, o->rgb);
#define OFF(field, key) o->field = cml_system_scene_offset (sys, i, key)
      OFF (center, "center");
      OFF (radius, "radius");
      OFF (attitude, "attitude");
      OFF (angle, "angle");
      OFF (size, "size");
      OFF (position, "position");
      OFF (point, "point");
      OFF (frame_angle, "frame-angle");
      OFF (length, "length");
      OFF (normal, "normal");
      OFF (every, "every");
      OFF (from, "from");
      OFF (vector, "vector");
#undef OFF
      if (o->kind == OBJ_TRAIL)
        o->points = g_array_new (FALSE, FALSE, sizeof (TrailPoint));
      if (o->kind == OBJ_DISC && o->every >= 0)
        o->marks = g_array_new (FALSE, FALSE, sizeof (DiscMark));
      g_ptr_array_add (r->objects, o);
    }
}

gboolean
cml_scene_renderer_has_frame_angle (CmlSceneRenderer *r)
{
  g_return_val_if_fail (r != NULL, FALSE);

  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind == OBJ_TRAIL && o->frame_angle >= 0)
        return TRUE;
    }
  return FALSE;
}

guint
cml_scene_renderer_get_n_objects (CmlSceneRenderer *r)
{
  g_return_val_if_fail (r != NULL, 0);

  return r->objects->len;
}

const char *
cml_scene_renderer_get_object_label (CmlSceneRenderer *r, guint object)
{
  g_return_val_if_fail (r != NULL && object < r->objects->len, NULL);

  return ((SceneObj *) r->objects->pdata[object])->label;
}

/* ---- the turntable's drawn size --------------------------------------------------------
 *
 * A model's table has a radius (the file's `radius`), but its physics has none: the
 * rolling constraint holds on the whole plane, and an orbit's size follows from the
 * initial data and Ω (the ball's centre circles at κΩ with a radius set by the initial
 * velocity), so with v = 1 the rolling ball leaves a table of radius 4.  Drawing it off
 * the table would show a ball in mid-air still obeying the rolling constraint: false.
 * Moving the table with the ball would falsify its rotation about the fixed vertical axis
 * (the turning of the table frame is the physics).  So the table keeps its centre and
 * axis and is drawn larger: at least the model's radius, and at least the farthest reach
 * of what rests on it since the run began — a body's contact point's distance from the
 * centre plus the body's radius, or a trail point on the table — grown in steps of an
 * eighth of the model's radius so that it does not creep every frame.  The headless
 * export sees the whole run before it draws, so its table has its final size throughout.
 */

/* How far from the centre C of a table at height C[2] the object O reaches at V, if it
 * rests on the table (-1 if not). */
static double
reach_of (const SceneObj *o, const double *v, const double c[3], double table_radius)
{
  const double *p = NULL;
  double radius = 0, bottom;
  switch (o->kind)
    {
    case OBJ_SPHERE:
      p = v + o->center;
      radius = v[o->radius];
      break;
    case OBJ_DISC:
      p = v + o->position;
      radius = v[o->radius];
      break;
    case OBJ_POINT:
      p = v + o->position;
      radius = o->radius >= 0 ? v[o->radius] : 0;
      break;
    case OBJ_TRAIL:
      p = v + o->point;
      break;
    case OBJ_TURNTABLE:
    case OBJ_PLANE:
    case OBJ_ARROW:
      return -1;
    }
  if (!isfinite (p[0]) || !isfinite (p[1]) || !isfinite (p[2]) || !isfinite (radius) || radius < 0)
    return -1;
  /* resting on it: its lowest point (a sphere's or a standing disc's) at the table's
   * height, or its centre there (points and trails lie in the table's plane) */
  bottom = o->kind == OBJ_SPHERE || o->kind == OBJ_DISC ? p[2] - radius : p[2];
  double tol = 0.25 * radius + 1e-3 * table_radius;
  if (fabs (bottom - c[2]) > tol && fabs (p[2] - c[2]) > tol)
    return -1;
  return hypot (p[0] - c[0], p[1] - c[1]) + radius;
}

static void
update_reach (CmlSceneRenderer *r, const double *v)
{
  static const double origin[3] = { 0, 0, 0 };
  if (v == NULL)
    return;
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *t = r->objects->pdata[i];
      if (t->kind != OBJ_TURNTABLE)
        continue;
      const double *c = t->center >= 0 ? v + t->center : origin;
      if (!cml_scene_finite_n (c, 3))
        continue;
      for (guint j = 0; j < r->objects->len; j++)
        if (j != i)
          t->reach = MAX (t->reach, reach_of (r->objects->pdata[j], v, c, v[t->radius]));
    }
}

/* The radius the table O is drawn with at V (see above). */
double
cml_scene_table_drawn_radius (const SceneObj *o, const double *v)
{
  double r0 = v[o->radius];
  if (!(r0 > 0) || !isfinite (r0))
    return r0;
  /* a little beyond the farthest reach, so that a ball at the rim is on the table */
  double need = 1.02 * o->reach;
  if (need <= r0)
    return r0;
  double step = r0 / TABLE_STEPS;
  return ceil (need / step) * step;
}

double
cml_scene_renderer_get_table_radius (CmlSceneRenderer *r, guint object, const double *values)
{
  g_return_val_if_fail (r != NULL, NAN);
  g_return_val_if_fail (object < r->objects->len, NAN);

  SceneObj *o = r->objects->pdata[object];
  if (o->kind != OBJ_TURNTABLE || values == NULL)
    return NAN;
  double scratch[3];
  const double *v = cml_scene_object_values (r, values, scratch);
  update_reach (r, v);
  return cml_scene_table_drawn_radius (o, v);
}

/* ---- bounds ------------------------------------------------------------------------- */

gboolean
cml_scene_finite_n (const double *v, int n)
{
  for (int i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return FALSE;
  return TRUE;
}

void
cml_scene_box_add (double min[3], double max[3], gboolean *valid, const double c[3], double r)
{
  for (int i = 0; i < 3; i++)
    if (!isfinite (c[i]))
      return;
  if (!isfinite (r))
    r = 0;
  for (int i = 0; i < 3; i++)
    {
      if (!*valid || c[i] - r < min[i])
        min[i] = c[i] - r;
      if (!*valid || c[i] + r > max[i])
        max[i] = c[i] + r;
    }
  *valid = TRUE;
}

/* Adds to the box of everything shown and to the one of everything but the tables. */
void
cml_scene_lab_add (CmlSceneRenderer *r, const double c[3], double radius)
{
  cml_scene_box_add (r->lab_min, r->lab_max, &r->lab_valid, c, radius);
  cml_scene_box_add (r->body_min, r->body_max, &r->body_valid, c, radius);
}

/* ---- bounds of the objects ----------------------------------------------------------- */

void
cml_scene_add_object_bounds (CmlSceneRenderer *r, const double *v)
{
  if (r->objects->len == 0)
    {
      /* the default axes */
      double c[3] = { 0, 0, 0.4 };
      cml_scene_lab_add (r, c, 1.2);
      return;
    }
  if (v == NULL)
    return;

  static const double origin[3] = { 0, 0, 0 };
  update_reach (r, v);
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      switch (o->kind)
        {
        case OBJ_SPHERE:
          cml_scene_lab_add (r, v + o->center, v[o->radius]);
          break;
        case OBJ_TURNTABLE:
          {
            /* flat: its rim in the plane of the top */
            const double *c = o->center >= 0 ? v + o->center : origin;
            double rad = cml_scene_table_drawn_radius (o, v);
            if (!cml_scene_finite_n (c, 3) || !isfinite (rad))
              break;
            double lo[3] = { c[0] - rad, c[1] - rad, c[2] }, hi[3] = { c[0] + rad, c[1] + rad, c[2] };
            cml_scene_box_add (r->lab_min, r->lab_max, &r->lab_valid, lo, 0);
            cml_scene_box_add (r->lab_min, r->lab_max, &r->lab_valid, hi, 0);
            /* for framing, the table is its rim (a box around it would frame its
             * empty corners) */
            for (int k = 0; k < 3; k++)
              o->rim_center[k] = c[k];
            o->rim_radius = MAX (o->rim_radius, rad);
            break;
          }
        case OBJ_POINT:
          cml_scene_lab_add (r, v + o->position,
                   o->radius >= 0 ? v[o->radius] : 0);
          break;
        case OBJ_DISC:
          cml_scene_lab_add (r, v + o->position, v[o->radius]);
          break;
        case OBJ_ARROW:
          if (cml_scene_finite_n (v + o->from, 3) && cml_scene_finite_n (v + o->vector, 3))
            {
              double tip[3];
              for (int k = 0; k < 3; k++)
                tip[k] = v[o->from + k] + v[o->vector + k];
              cml_scene_lab_add (r, v + o->from, 0);
              cml_scene_lab_add (r, tip, 0);
            }
          break;
        case OBJ_TRAIL:
          if (cml_scene_finite_n (v + o->point, 3))
            {
              float p[3] = { v[o->point], v[o->point + 1], v[o->point + 2] };
              cml_scene_add_trail_bounds (r, p, 0, o->frame_angle >= 0);
            }
          break;
        case OBJ_PLANE:
          /* a floor is a backdrop: framing it would make the actors tiny */
          break;
        }
    }
}

void
cml_scene_renderer_get_bounds (CmlSceneRenderer *r, const double *scene_values,
                               const CmlSceneStyle *style, double min[3], double max[3])
{
  g_return_if_fail (r != NULL && min != NULL && max != NULL);

  double scratch[3];
  cml_scene_add_object_bounds (r, cml_scene_object_values (r, scene_values, scratch));
  gboolean valid = FALSE;
  if (r->lab_valid)
    cml_scene_box_add (min, max, &valid, r->lab_min, 0), cml_scene_box_add (min, max, &valid, r->lab_max, 0);
  if (style && style->table_frame && r->table_valid)
    cml_scene_box_add (min, max, &valid, r->table_min, 0), cml_scene_box_add (min, max, &valid, r->table_max, 0);
  if (!valid)
    {
      double c[3] = { 0, 0, 0 };
      cml_scene_box_add (min, max, &valid, c, 1.0);
    }
  /* a lone point or a short trail must not fill the screen: at least a unit across */
  for (int k = 0; k < 3; k++)
    if (max[k] - min[k] < 1.0 && (k < 2 || r->objects->len == 0))
      {
        double c = 0.5 * (min[k] + max[k]);
        min[k] = c - 0.5;
        max[k] = c + 0.5;
      }
}

#define RIM_POINTS 32  /* a table's rim, for framing */

void
cml_scene_renderer_get_frame_points (CmlSceneRenderer *r, const double *scene_values,
                                     const CmlSceneStyle *style, GArray *points)
{
  g_return_if_fail (r != NULL && points != NULL);
  g_return_if_fail (g_array_get_element_size (points) == 3 * sizeof (double));

  double min[3], max[3];
  g_array_set_size (points, 0);
  /* brings the boxes up to date, and gives what to fall back on */
  cml_scene_renderer_get_bounds (r, scene_values, style, min, max);

  gboolean valid = FALSE;
  double lo[3], hi[3];
  if (r->body_valid)
    cml_scene_box_add (lo, hi, &valid, r->body_min, 0), cml_scene_box_add (lo, hi, &valid, r->body_max, 0);
  if (style && style->table_frame && r->table_valid)
    cml_scene_box_add (lo, hi, &valid, r->table_min, 0), cml_scene_box_add (lo, hi, &valid, r->table_max, 0);
  gboolean rims = FALSE;
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      if (o->kind != OBJ_TURNTABLE || !(o->rim_radius > 0))
        continue;
      /* a polygon around the rim: its corners at R / cos (π/N) */
      double rr = o->rim_radius / cos (G_PI / RIM_POINTS);
      for (int k = 0; k < RIM_POINTS; k++)
        {
          double a = 2 * G_PI * k / RIM_POINTS;
          double p[3] = { o->rim_center[0] + rr * cos (a), o->rim_center[1] + rr * sin (a), o->rim_center[2] };
          g_array_append_vals (points, p, 1);
        }
      rims = TRUE;
    }
  if (!valid && !rims)
    {
      /* nothing but planes, or nothing yet: the bounds' fallback */
      memcpy (lo, min, sizeof lo);
      memcpy (hi, max, sizeof hi);
      valid = TRUE;
    }
  if (valid)
    {
      /* a lone point or a short trail must not fill the screen (as get_bounds) */
      for (int k = 0; k < 2 && !rims; k++)
        if (hi[k] - lo[k] < 1.0)
          {
            double c = 0.5 * (lo[k] + hi[k]);
            lo[k] = c - 0.5;
            hi[k] = c + 0.5;
          }
      for (int c = 0; c < 8; c++)
        {
          double p[3] = { c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2] };
          g_array_append_vals (points, p, 1);
        }
    }
}

/* ---- what is shown now, for a camera that follows the run ------------------------------ */

#define VIEW_TRAIL_POINTS 400  /* of each trail, for framing */

static void
append_point (GArray *a, double x, double y, double z)
{
  double p[3] = { x, y, z };
  if (cml_scene_finite_n (p, 3))
    g_array_append_vals (a, p, 1);
}

/* A ball of RADIUS at C as the 26 corners of a solid around it, in the directions of
 * the axes and of the cube's edges and corners at BODY_HULL × RADIUS: the solid's faces
 * lie at least 0.8866 of the corners' distance from C (its least support, cos 27.5°), so
 * with 1 / 0.8866 < 1.13 the solid holds the ball, and a view that holds the corners
 * holds the ball's outline seen from any side (six points on the axes do not: seen
 * slanted, the outline passes them). */
#define BODY_HULL 1.13

static void
append_body (GArray *points, const double c[3], double radius)
{
  if (!(radius >= 0) || !isfinite (radius))
    radius = 0;
  for (int i = -1; i <= 1; i++)
    for (int j = -1; j <= 1; j++)
      for (int k = -1; k <= 1; k++)
        {
          double n = sqrt ((double) (i * i + j * j + k * k));
          if (n == 0)
            continue;
          double s = BODY_HULL * radius / n;
          append_point (points, c[0] + s * i, c[1] + s * j, c[2] + s * k);
        }
}

void
cml_scene_renderer_get_view_points (CmlSceneRenderer *r, const double *scene_values,
                                    const CmlSceneStyle *style, GArray *points, GArray *bodies)
{
  g_return_if_fail (r != NULL && points != NULL && bodies != NULL);
  g_return_if_fail (g_array_get_element_size (points) == 3 * sizeof (double));
  g_return_if_fail (g_array_get_element_size (bodies) == 3 * sizeof (double));

  static const double origin[3] = { 0, 0, 0 };
  double min[3], max[3], scratch[3];
  g_array_set_size (points, 0);
  g_array_set_size (bodies, 0);
  /* brings the tables' reach and rims up to date */
  cml_scene_renderer_get_bounds (r, scene_values, style, min, max);
  const double *v = cml_scene_object_values (r, scene_values, scratch);

  if (r->objects->len == 0)
    {
      /* the default axes */
      for (int c = 0; c < 8; c++)
        append_point (points, c & 1 ? 1.2 : -1.2, c & 2 ? 1.2 : -1.2, c & 4 ? 1.6 : -0.8);
      return;
    }
  for (guint i = 0; i < r->objects->len; i++)
    {
      SceneObj *o = r->objects->pdata[i];
      switch (o->kind)
        {
        case OBJ_SPHERE:
          if (v && cml_scene_finite_n (v + o->center, 3))
            {
              append_body (points, v + o->center, v[o->radius]);
              g_array_append_vals (bodies, v + o->center, 1);
            }
          break;
        case OBJ_POINT:
        case OBJ_DISC:
          if (v && cml_scene_finite_n (v + o->position, 3))
            {
              double radius = o->radius >= 0 ? v[o->radius] : 0;
              append_body (points, v + o->position, radius);
              g_array_append_vals (bodies, v + o->position, 1);
            }
          break;
        case OBJ_ARROW:
          if (v && cml_scene_finite_n (v + o->from, 3) && cml_scene_finite_n (v + o->vector, 3))
            {
              append_point (points, v[o->from], v[o->from + 1], v[o->from + 2]);
              append_point (points, v[o->from] + v[o->vector], v[o->from + 1] + v[o->vector + 1],
                            v[o->from + 2] + v[o->vector + 2]);
            }
          break;
        case OBJ_TURNTABLE:
          {
            /* its rim at the largest size drawn (it does not shrink back) */
            const double *c = o->rim_radius > 0 ? o->rim_center : v && o->center >= 0 ? v + o->center : origin;
            double rr = o->rim_radius > 0 ? o->rim_radius : v ? cml_scene_table_drawn_radius (o, v) : 0;
            if (!(rr > 0))
              break;
            rr /= cos (G_PI / RIM_POINTS);
            for (int k = 0; k < RIM_POINTS; k++)
              {
                double a = 2 * G_PI * k / RIM_POINTS;
                append_point (points, c[0] + rr * cos (a), c[1] + rr * sin (a), c[2]);
              }
            break;
          }
        case OBJ_TRAIL:
          {
            /* the points kept (as drawn: in the table frame, turned as draw_trails turns
             * them), a few hundred of them */
            guint n = cml_scene_trail_n (o);
            gboolean table = style && style->table_frame && o->frame_angle >= 0;
            double a_now = table && v && isfinite (v[o->frame_angle]) ? v[o->frame_angle]
                           : n ? cml_scene_trail_at (o, n - 1)->angle : 0;
            guint stride = MAX (1, n / VIEW_TRAIL_POINTS);
            for (guint j = 0; j < n; j++)
              {
                if (j % stride != 0 && j != n - 1)
                  continue;
                const TrailPoint *tp = cml_scene_trail_at (o, j);
                double x = tp->p[0], y = tp->p[1];
                if (table)
                  {
                    double a = a_now - tp->angle, c = cos (a), s = sin (a);
                    x = c * tp->p[0] - s * tp->p[1];
                    y = s * tp->p[0] + c * tp->p[1];
                  }
                append_point (points, x, y, tp->p[2]);
              }
            break;
          }
        case OBJ_PLANE:
          /* a backdrop */
          break;
        }
    }
  if (points->len == 0 && bodies->len == 0)
    {
      for (int c = 0; c < 8; c++)
        append_point (points, c & 1 ? max[0] : min[0], c & 2 ? max[1] : min[1], c & 4 ? max[2] : min[2]);
      return;
    }
  /* a lone point or a short trail must not fill the screen: at least a unit across */
  double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
  for (guint a = 0; a < 2; a++)
    {
      GArray *arr = a ? bodies : points;
      for (guint k = 0; k < arr->len; k++)
        for (int i = 0; i < 3; i++)
          {
            lo[i] = MIN (lo[i], g_array_index (arr, double, 3 * k + i));
            hi[i] = MAX (hi[i], g_array_index (arr, double, 3 * k + i));
          }
    }
  for (int k = 0; k < 2; k++)
    if (hi[k] - lo[k] < 1.0)
      {
        double c = 0.5 * (lo[k] + hi[k]);
        append_point (points, k == 0 ? c - 0.5 : 0.5 * (lo[0] + hi[0]), k == 1 ? c - 0.5 : 0.5 * (lo[1] + hi[1]), lo[2]);
        append_point (points, k == 0 ? c + 0.5 : 0.5 * (lo[0] + hi[0]), k == 1 ? c + 0.5 : 0.5 * (lo[1] + hi[1]), lo[2]);
      }
}
