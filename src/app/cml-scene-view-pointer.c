/* cml-scene-view-pointer.c — the 3-D view under the pointer: a body or a velocity
 * arrow dragged to where the run should start (::drag-initial), the camera turned by a
 * drag and zoomed by the wheel, the view's buttons.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-plot.h"

/* ---- dragging a body: the run starts where it is put -------------------------------------- */

/* The values of the names of SYS's model, by symbol id, for evaluating scene
 * expressions: the parameters of frame F (their defaults when F is of another system or
 * NULL), the observables OBS (every one) and the time T. */
double *
cml_scene_view_symbol_values (CmlSystem *sys, CmlFrame *f, const double *obs, double t)
{
  CmlModel *model = cml_system_get_model (sys);
  double *vals = g_new0 (double, cml_expr_ctx_n_symbols (model->ctx));
  gboolean of_sys = f && f->system == sys;
  for (guint k = 0; k < model->params->len; k++)
    {
      const CmlParam *p = g_ptr_array_index (model->params, k);
      vals[p->sym] = of_sys && k < f->n_params ? f->params[k] : p->value;
    }
  for (guint i = 0; i < cml_system_n_observables (sys); i++)
    {
      int id = cml_expr_ctx_lookup (model->ctx, cml_system_observable_name (sys, i));
      if (id >= 0)
        vals[id] = obs[i];
    }
  vals[model->t_sym] = t;
  return vals;
}

/* The same at frame F, NULL without a frame of SYS. */
static double *
frame_symbols (CmlSystem *sys, CmlFrame *f)
{
  if (sys == NULL || f == NULL || f->system != sys || f->n_obs != cml_system_n_observables (sys))
    return NULL;
  return cml_scene_view_symbol_values (sys, f, f->obs, f->t);
}

/* The base coordinate expression E is, or NULL. */
static const char *
base_name (CmlModel *model, CmlExpr *e)
{
  int id = cml_expr_symbol_id (e);
  for (guint i = 0; id >= 0 && i < model->m; i++)
    if (model->base_sym[i] == id)
      return model->base[i];
  return NULL;
}

/* What the scene shows now, for the pointer: the model, the view's size and the symbols'
 * values at the newest frame (free them); NULL when there is no scene to point at, or
 * (LAB_ONLY) when the paths are shown in the table's frame, where a drag has no meaning. */
static double *
scene_now (CmlSceneView *self, gboolean lab_only, CmlModel **model, int *w, int *h)
{
  double *vals;

  *w = gtk_widget_get_width (GTK_WIDGET (self->area)), *h = gtk_widget_get_height (GTK_WIDGET (self->area));
  if (self->sys == NULL || (lab_only && self->style.table_frame) || *w <= 0 || *h <= 0)
    return NULL;
  *model = cml_system_get_model (self->sys);
  if ((*model)->scene == NULL)
    return NULL;
  vals = frame_symbols (self->sys, self->frame);
  return vals;
}

/* Where scene object O is drawn when it is a body that can be dragged — a sphere, disc
 * or point whose centre's x and y are base coordinates: its names, its centre P and the
 * centre's widget point (PX, PY) in a W × H view; FALSE if O is no such body. */
static gboolean
draggable_body (CmlSceneView *self, CmlSceneObject *o, const double *vals, int w, int h,
                const char **names, double p[3], double *px, double *py)
{
  CmlModel *model = cml_system_get_model (self->sys);
  const char *key = g_str_equal (o->type, "sphere") ? "center" : "position";
  GPtrArray *c = g_hash_table_lookup (o->props, key);
  double ndc[3];

  if (c == NULL || c->len != 3 || !g_strv_contains ((const char *const[]) { "sphere", "disc", "point", NULL }, o->type))
    return FALSE;
  names[0] = base_name (model, c->pdata[0]);
  names[1] = base_name (model, c->pdata[1]);
  if (names[0] == NULL || names[1] == NULL)
    return FALSE;
  for (int j = 0; j < 3; j++)
    p[j] = cml_expr_eval (c->pdata[j], vals);
  if (!isfinite (p[0]) || !isfinite (p[1]) || !isfinite (p[2]))
    return FALSE;
  cml_camera_project (&self->camera, (double) w / h, p, ndc);
  *px = 0.5 * (ndc[0] + 1) * w, *py = 0.5 * (1 - ndc[1]) * h;
  return TRUE;
}

/* The body under widget point (WX, WY) that can be dragged, its names and centre; FALSE
 * if none. */
static gboolean
body_at (CmlSceneView *self, double wx, double wy, const char **names, double center[3])
{
  int w, h;
  CmlModel *model;
  g_autofree double *vals = scene_now (self, TRUE, &model, &w, &h);
  if (vals == NULL)
    return FALSE;

  double best = INFINITY;
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *o = g_ptr_array_index (model->scene, k);
      const char *nm[2];
      double p[3], px, py;
      if (!draggable_body (self, o, vals, w, h, nm, p, &px, &py))
        continue;
      /* its drawn size, and at least a finger's width */
      GPtrArray *radius = g_hash_table_lookup (o->props, "radius");
      double reach = 16;
      if (radius && radius->len == 1)
        reach = MAX (reach, cml_expr_eval (radius->pdata[0], vals)
                              / cml_camera_units_per_pixel (&self->camera, cml_camera_depth (&self->camera, p), h));
      double d = hypot (px - wx, py - wy);
      if (d <= reach && d < best)
        {
          best = d;
          names[0] = nm[0];
          names[1] = nm[1];
          memcpy (center, p, sizeof p);
        }
    }
  return isfinite (best);
}

gboolean
cml_scene_view_get_body_point (CmlSceneView *self, double *wx, double *wy)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);

  int w, h;
  CmlModel *model;
  g_autofree double *vals = scene_now (self, FALSE, &model, &w, &h);
  if (vals == NULL)
    return FALSE;
  for (guint k = 0; k < model->scene->len; k++)
    {
      const char *nm[2];
      double p[3], px, py;
      graphene_point_t out;
      if (!draggable_body (self, g_ptr_array_index (model->scene, k), vals, w, h, nm, p, &px, &py))
        continue;
      if (!gtk_widget_compute_point (GTK_WIDGET (self->area), GTK_WIDGET (self),
                                     &GRAPHENE_POINT_INIT (px, py), &out))
        return FALSE;
      *wx = out.x, *wy = out.y;
      return TRUE;
    }
  return FALSE;
}

gboolean
cml_scene_view_project_point (CmlSceneView *self, const double p[3], double *wx, double *wy)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);

  int w = gtk_widget_get_width (GTK_WIDGET (self->area)), h = gtk_widget_get_height (GTK_WIDGET (self->area));
  double ndc[3];
  graphene_point_t out;
  if (w <= 0 || h <= 0)
    return FALSE;
  cml_camera_project (&self->camera, (double) w / h, p, ndc);
  if (!gtk_widget_compute_point (GTK_WIDGET (self->area), GTK_WIDGET (self),
                                 &GRAPHENE_POINT_INIT (0.5 * (ndc[0] + 1) * w, 0.5 * (1 - ndc[1]) * h), &out))
    return FALSE;
  *wx = out.x, *wy = out.y;
  return TRUE;
}

gboolean
cml_scene_view_get_moving_point (CmlSceneView *self, double *wx, double *wy)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);

  const double *v = cml_scene_view_current_values (self);
  if (v == NULL || cml_scene_view_uses_observables (self))
    return FALSE;
  CmlModel *model = cml_system_get_model (self->sys);
  for (guint k = 0; k < model->scene->len; k++)
    {
      const CmlSceneObject *o = g_ptr_array_index (model->scene, k);
      int at = g_str_equal (o->type, "sphere") ? cml_system_scene_offset (self->sys, k, "center")
               : g_str_equal (o->type, "point") || g_str_equal (o->type, "disc")
                 ? cml_system_scene_offset (self->sys, k, "position")
                 : -1;
      /* a fixed point (the heavy top's pivot) does not move */
      if (at < 0 || (g_str_equal (o->type, "point") && v[at] == 0 && v[at + 1] == 0 && v[at + 2] == 0))
        continue;
      return isfinite (v[at]) && isfinite (v[at + 1]) && isfinite (v[at + 2])
             && cml_scene_view_project_point (self, v + at, wx, wy);
    }
  return FALSE;
}

/* The starting quantity expression E is (a coordinate, a velocity or a vakonomic
 * system's momentum), or NULL. */
static const char *
starting_name (CmlModel *model, CmlExpr *e)
{
  int id = cml_expr_symbol_id (e);
  for (guint a = 0; id >= 0 && a < model->n; a++)
    if ((model->kind != CML_CONSTRAINTS_VAKONOMIC && model->fibre_sym[a] == id)
        || (model->kind == CML_CONSTRAINTS_VAKONOMIC && model->momenta_sym[a] == id))
      return model->fibre_sym[a] == id ? model->fibre[a] : model->momenta[a];
  return NULL;
}

/* The arrow whose tip is under widget point (WX, WY) and whose vector's x and y are
 * velocities (an arrow "vector = u, v, 0"): their names, the arrow's foot and tip. */
static gboolean
arrow_at (CmlSceneView *self, double wx, double wy, const char **names, double from[3], double tip[3])
{
  int w, h;
  CmlModel *model;
  g_autofree double *vals = scene_now (self, TRUE, &model, &w, &h);
  if (vals == NULL)
    return FALSE;
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *o = g_ptr_array_index (model->scene, k);
      GPtrArray *f = g_hash_table_lookup (o->props, "from"), *v = g_hash_table_lookup (o->props, "vector");
      if (!g_str_equal (o->type, "arrow") || f == NULL || v == NULL || f->len != 3 || v->len != 3)
        continue;
      const char *un = starting_name (model, v->pdata[0]), *vn = starting_name (model, v->pdata[1]);
      if (un == NULL || vn == NULL)
        continue;
      double p[3], ndc[3];
      for (int j = 0; j < 3; j++)
        {
          from[j] = cml_expr_eval (f->pdata[j], vals);
          tip[j] = from[j] + cml_expr_eval (v->pdata[j], vals);
          p[j] = tip[j];
        }
      cml_camera_project (&self->camera, (double) w / h, p, ndc);
      double px = 0.5 * (ndc[0] + 1) * w, py = 0.5 * (1 - ndc[1]) * h;
      if (hypot (px - wx, py - wy) <= 16 && isfinite (px) && isfinite (py))
        {
          names[0] = un;
          names[1] = vn;
          return TRUE;
        }
    }
  return FALSE;
}

/* The point at height Z under widget point (WX, WY): (X, Y, Z) that projects there,
 * by Newton's method on the projection (a plane-to-screen homography, smooth), from
 * (X0, Y0).  FALSE where the plane is seen edge-on or behind the eye. */
static gboolean
plane_point (CmlSceneView *self, double wx, double wy, double z, double *x, double *y)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self->area)), h = gtk_widget_get_height (GTK_WIDGET (self->area));
  double aspect = (double) w / h;
  double target[2] = { 2 * wx / w - 1, 1 - 2 * wy / h };
  double X = *x, Y = *y;
  double span = cml_camera_units_per_pixel (&self->camera, cml_camera_depth (&self->camera, (double[]) { X, Y, z }), h);

  /* the camera's matrices are single precision: a tenth of a pixel is as near as it gets */
  double tol = 0.1 * 2.0 / MAX (h, 1);
  for (int it = 0; it < 30; it++)
    {
      double f[2], fx[2], fy[2], ndc[3];
      double hstep = MAX (span, 1e-9);
      cml_camera_project (&self->camera, aspect, (double[]) { X, Y, z }, ndc);
      f[0] = ndc[0] - target[0], f[1] = ndc[1] - target[1];
      if (hypot (f[0], f[1]) < tol)
        {
          *x = X, *y = Y;
          return isfinite (X) && isfinite (Y);
        }
      cml_camera_project (&self->camera, aspect, (double[]) { X + hstep, Y, z }, ndc);
      fx[0] = (ndc[0] - target[0] - f[0]) / hstep, fx[1] = (ndc[1] - target[1] - f[1]) / hstep;
      cml_camera_project (&self->camera, aspect, (double[]) { X, Y + hstep, z }, ndc);
      fy[0] = (ndc[0] - target[0] - f[0]) / hstep, fy[1] = (ndc[1] - target[1] - f[1]) / hstep;
      double det = fx[0] * fy[1] - fx[1] * fy[0];
      if (!(fabs (det) > 0) || !isfinite (det))
        return FALSE;
      X -= (f[0] * fy[1] - f[1] * fy[0]) / det;
      Y -= (fx[0] * f[1] - fx[1] * f[0]) / det;
    }
  return FALSE;
}

/* Emits ::drag-initial for the body being dragged, put under (WX, WY). */
static void
drag_body_to (CmlSceneView *self, double wx, double wy, gboolean done)
{
  double x = self->drag_x, y = self->drag_y;
  if (!plane_point (self, wx, wy, self->drag_z, &x, &y))
    return;
  int h = gtk_widget_get_height (GTK_WIDGET (self->area));
  double res = cml_camera_units_per_pixel (&self->camera, cml_camera_depth (&self->camera, (double[]) { x, y, self->drag_z }), h);
  self->drag_x = x;
  self->drag_y = y;
  if (self->arrow_drag)
    {
      x -= self->drag_from[0];
      y -= self->drag_from[1];
    }
  x = cml_plot_round_to_resolution (x, res);
  y = cml_plot_round_to_resolution (y, res);
  g_signal_emit (self, cml_scene_view_signals[CML_SCENE_VIEW_DRAG_INITIAL], 0, self->drag_names[0], x, self->drag_names[1], y, done);
}

/* A drag begun at (X, Y) of the view: takes the velocity arrow's tip or the body there, if
 * any (what is dragged, from where), and says whether it took one. */
static gboolean
grab_body (CmlSceneView *self, double x, double y)
{
  const char *names[2];
  double c[3], from[3];

  self->arrow_drag = arrow_at (self, x, y, names, from, c);
  if (!self->arrow_drag && !body_at (self, x, y, names, c))
    return FALSE;
  self->drag_from[0] = self->arrow_drag ? from[0] : 0;
  self->drag_from[1] = self->arrow_drag ? from[1] : 0;
  g_free (self->drag_names[0]);
  g_free (self->drag_names[1]);
  self->drag_names[0] = g_strdup (names[0]);
  self->drag_names[1] = g_strdup (names[1]);
  self->drag_x = c[0], self->drag_y = c[1], self->drag_z = c[2];
  return TRUE;
}

gboolean
cml_scene_view_drag_body (CmlSceneView *self, double x0, double y0, double x1, double y1)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  if (!grab_body (self, x0, y0))
    return FALSE;
  drag_body_to (self, x1, y1, TRUE);
  return TRUE;
}


static void
on_motion (CmlSceneView *self, double x, double y, GtkEventControllerMotion *motion)
{
  const char *names[2];
  double c[3];
  double from[3];
  if (cml_scene_view_steering (self))
    {
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "crosshair");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->area), _("Click where the system should be at the end of the run"));
      return;
    }
  gboolean tip = arrow_at (self, x, y, names, from, c);
  gboolean over = tip || body_at (self, x, y, names, c);

  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), over ? "move" : "grab");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->area),
                               tip    ? _("Drag to start the run with another velocity")
                               : over ? _("Drag to start the run from another place")
                                      : NULL);
}

/* ---- pointer ----------------------------------------------------------------------------- */

static void
on_drag_begin (CmlSceneView *self, double x, double y, GtkGestureDrag *gesture)
{
  self->drag_x = self->drag_y = 0;
  /* aiming (the toggle, or Shift held): a click sets the target, a drag turns the view */
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  self->aim_click = gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button))
                    && (cml_scene_view_steering (self) || (mods & GDK_SHIFT_MASK));
  if (self->aim_click)
    {
      self->body_drag = FALSE;
      return;
    }
  self->body_drag = grab_body (self, x, y);
  if (self->body_drag)
    {
      drag_body_to (self, x, y, FALSE);
      return;
    }
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "grabbing");
}

static void
on_drag_update (CmlSceneView *self, double dx, double dy, GtkGestureDrag *gesture)
{
  if (self->body_drag)
    {
      double x0, y0;
      if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
        drag_body_to (self, x0 + dx, y0 + dy, FALSE);
      return;
    }
  cml_camera_turn (&self->camera, dx - self->drag_x, dy - self->drag_y);
  self->drag_x = dx;
  self->drag_y = dy;
  gtk_gl_area_queue_render (self->area);
}

static void
on_drag_end (CmlSceneView *self, double dx, double dy, GtkGestureDrag *gesture)
{
  if (self->body_drag)
    {
      double x0, y0;
      if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
        drag_body_to (self, x0 + dx, y0 + dy, TRUE);
      self->body_drag = FALSE;
    }
  if (self->aim_click && hypot (dx, dy) < 5)
    {
      double x0, y0;
      if (gtk_gesture_drag_get_start_point (gesture, &x0, &y0))
        cml_scene_view_aim_at (self, x0, y0);
    }
  self->aim_click = FALSE;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), cml_scene_view_steering (self) ? "crosshair" : "grab");
}

static void
on_click_pressed (CmlSceneView *self, int n_press, double x, double y, GtkGestureClick *gesture)
{
  if (n_press == 2)
    cml_scene_view_reset_camera (self);
}

static gboolean
on_scroll (CmlSceneView *self, double dx, double dy, GtkEventControllerScroll *controller)
{
  cml_camera_zoom (&self->camera, dy);
  gtk_gl_area_queue_render (self->area);
  return TRUE;
}

static void
on_table_frame_toggled (CmlSceneView *self, GtkToggleButton *button)
{
  cml_scene_view_set_table_frame (self, gtk_toggle_button_get_active (button));
}

static void
on_reset_clicked (CmlSceneView *self, GtkButton *button)
{
  cml_scene_view_reset_camera (self);
}

void
cml_scene_view_pointer_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_drag_begin);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_update);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_end);
  gtk_widget_class_bind_template_callback (widget_class, on_click_pressed);
  gtk_widget_class_bind_template_callback (widget_class, on_scroll);
  gtk_widget_class_bind_template_callback (widget_class, on_table_frame_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_clicked);
}

void
cml_scene_view_pointer_init (CmlSceneView *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  g_signal_connect_swapped (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
}
