/* cml-scene-steer.c — the 3-D view's layer for steering to a target: the point of a plane
 * under the pointer (Newton's method on the projection, a plane-to-screen homography, as
 * the view's body drag does), the markers of the target and the conjugate points drawn
 * over the scene, and the card saying what they are.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-steer"

#include "cml-scene-steer.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-plot.h"
#include "cml-scene-shoot.h"

gboolean
cml_scene_steer_plane_point (const CmlCamera *cam, int w, int h, double wx, double wy, const double o[3],
                             const double u[3], const double v[3], double out[3])
{
  if (w <= 0 || h <= 0)
    return FALSE;
  double aspect = (double) w / h;
  double target[2] = { 2 * wx / w - 1, 1 - 2 * wy / h };
  double a = 0, b = 0;
  double span = MAX (cml_camera_units_per_pixel (cam, cml_camera_depth (cam, o), h), 1e-9);
  /* the camera's matrices are single precision: a tenth of a pixel is as near as it gets */
  double tol = 0.1 * 2.0 / h;

  for (int it = 0; it < 40; it++)
    {
      double p[3], f[2], fa[2], fb[2], ndc[3];
      for (int j = 0; j < 3; j++)
        p[j] = o[j] + a * u[j] + b * v[j];
      cml_camera_project (cam, aspect, p, ndc);
      f[0] = ndc[0] - target[0], f[1] = ndc[1] - target[1];
      if (!isfinite (f[0]) || !isfinite (f[1]) || !(cml_camera_depth (cam, p) > 0))
        return FALSE;
      if (hypot (f[0], f[1]) < tol)
        {
          for (int j = 0; j < 3; j++)
            out[j] = p[j];
          return TRUE;
        }
      for (int j = 0; j < 3; j++)
        p[j] += span * u[j];
      cml_camera_project (cam, aspect, p, ndc);
      fa[0] = (ndc[0] - target[0] - f[0]) / span, fa[1] = (ndc[1] - target[1] - f[1]) / span;
      for (int j = 0; j < 3; j++)
        p[j] += span * (v[j] - u[j]);
      cml_camera_project (cam, aspect, p, ndc);
      fb[0] = (ndc[0] - target[0] - f[0]) / span, fb[1] = (ndc[1] - target[1] - f[1]) / span;
      double det = fa[0] * fb[1] - fa[1] * fb[0];
      if (!(fabs (det) > 0) || !isfinite (det))
        return FALSE;
      a -= (f[0] * fb[1] - f[1] * fb[0]) / det;
      b -= (fa[0] * f[1] - fa[1] * f[0]) / det;
    }
  return FALSE;
}

/* Where CAM shows P, in logical pixels; FALSE behind the eye. */
static gboolean
to_view (const CmlCamera *cam, int w, int h, const double p[3], double *x, double *y)
{
  double ndc[3];
  cml_camera_project (cam, (double) w / h, p, ndc);
  *x = 0.5 * (ndc[0] + 1) * w, *y = 0.5 * (1 - ndc[1]) * h;
  return isfinite (*x) && isfinite (*y) && cml_camera_depth (cam, p) > 0;
}

void
cml_scene_steer_draw_conjugate_symbol (cairo_t *cr, double x, double y, double scale)
{
  cairo_save (cr);
  cairo_new_path (cr);
  cairo_arc (cr, x, y, 5 * scale, 0, 2 * G_PI);
  cairo_set_source_rgb (cr, CML_STEER_CONJUGATE_RGB);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 1.5 * scale);
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
cml_scene_steer_draw_target_symbol (cairo_t *cr, double x, double y, double scale)
{
  double r = 6 * scale;
  cairo_save (cr);
  /* a white halo under it keeps it visible on any background */
  for (int pass = 0; pass < 2; pass++)
    {
      cairo_new_path (cr);
      if (pass == 0)
        cairo_set_source_rgba (cr, 1, 1, 1, 0.85), cairo_set_line_width (cr, 4.5 * scale);
      else
        cairo_set_source_rgb (cr, CML_STEER_TARGET_RGB), cairo_set_line_width (cr, 2.2 * scale);
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      cairo_move_to (cr, x - 1.6 * r, y), cairo_line_to (cr, x - 0.4 * r, y);
      cairo_move_to (cr, x + 0.4 * r, y), cairo_line_to (cr, x + 1.6 * r, y);
      cairo_move_to (cr, x, y - 1.6 * r), cairo_line_to (cr, x, y - 0.4 * r);
      cairo_move_to (cr, x, y + 0.4 * r), cairo_line_to (cr, x, y + 1.6 * r);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
}

void
cml_scene_steer_draw_markers (cairo_t *cr, const CmlCamera *cam, int w, int h, const double *target,
                              const double *points, guint n, double scale)
{
  double x, y;
  if (w <= 0 || h <= 0)
    return;
  for (guint k = 0; k < n; k++)
    if (to_view (cam, w, h, points + 3 * k, &x, &y))
      cml_scene_steer_draw_conjugate_symbol (cr, x, y, scale);
  if (target && to_view (cam, w, h, target, &x, &y))
    cml_scene_steer_draw_target_symbol (cr, x, y, 1.5 * scale);
}

/* ---- the steering layer of the view: the markers, the card, the point clicked ------------ */

struct _CmlSceneSteer
{
  const CmlCamera     *camera;   /* the view's */
  const CmlSceneStyle *style;    /* the view's */
  GtkWidget           *markers;  /* a drawing area over the scene */
  GtkWidget           *card;
  GtkWidget           *spinner;
  GtkWidget           *icon;     /* the target's symbol */
  GtkWidget           *label;
  GtkWidget           *conj_row; /* the conjugate points' line */
  GtkWidget           *conj_icon;
  GtkWidget           *conj_label;
  gboolean             has_target;
  double               target[3];
  GArray              *points;   /* double triples: the conjugate points */
  GArray              *path;     /* double triples: the planned path (may be empty) */
  CmlSystem           *sys;      /* the system last drawn, and its scene values */
  GArray              *values;
};

/* Whether a sphere of the scene (its values as last drawn) lies between the eye and P. */
static gboolean
hidden (CmlSceneSteer *s, const double p[3])
{
  if (s->sys == NULL || s->values->len == 0)
    return FALSE;
  CmlModel *model = cml_system_get_model (s->sys);
  const double *v = (const double *) (gpointer) s->values->data;
  double eye[3], d[3], len = 0;
  cml_camera_get_eye (s->camera, eye);
  for (int j = 0; j < 3; j++)
    d[j] = p[j] - eye[j], len += d[j] * d[j];
  len = sqrt (len);
  if (!(len > 0))
    return FALSE;
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *o = model->scene->pdata[k];
      int c = cml_system_scene_offset (s->sys, k, "center"), r = cml_system_scene_offset (s->sys, k, "radius");
      if (!g_str_equal (o->type, "sphere") || c < 0 || r < 0 || (guint) MAX (c + 2, r) >= s->values->len)
        continue;
      /* the ray eye + τ d/len meets the sphere before P (a point on its surface facing
       * away from the eye counts as hidden) */
      double oc[3], b = 0, cc = 0, rad = v[r];
      for (int j = 0; j < 3; j++)
        oc[j] = eye[j] - v[c + j], b += oc[j] * d[j] / len, cc += oc[j] * oc[j];
      double disc = b * b - (cc - rad * rad);
      if (!(disc > 0) || !(rad > 0))
        continue;
      double tau = -b - sqrt (disc);
      if (tau > 0 && tau < len - 1e-6 * MAX (rad, 1.0))
        return TRUE;
    }
  return FALSE;
}

static void
markers_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSceneSteer *s = data;
  double scale = s->style->presentation ? 1.6 : 1.0, x, y;
  if (!s->has_target || s->style->table_frame || width <= 0 || height <= 0)
    return;

  /* the planned path, dashed in the target's colour; a piece hidden behind a sphere faint */
  cairo_save (cr);
  cairo_set_line_width (cr, 2.0 * scale);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  cairo_set_dash (cr, (const double[]) { 7 * scale, 5 * scale }, 2, 0);
  const double *path = (const double *) (gpointer) s->path->data;
  /* in runs of the same visibility, so that the dashes run on along the path */
  gboolean open = FALSE, run_hidden = FALSE;
  for (guint k = 0; k <= s->path->len / 3; k++)
    {
      gboolean seen = k < s->path->len / 3 && to_view (s->camera, width, height, path + 3 * k, &x, &y);
      gboolean h = seen && hidden (s, path + 3 * k);
      if (open && (!seen || h != run_hidden))
        {
          if (seen)
            cairo_line_to (cr, x, y);
          cairo_set_source_rgba (cr, CML_STEER_TARGET_RGB, run_hidden ? 0.25 : 0.9);
          cairo_stroke (cr);
          open = FALSE;
        }
      if (!seen)
        continue;
      if (!open)
        {
          cairo_move_to (cr, x, y);
          open = TRUE;
          run_hidden = h;
        }
      else
        cairo_line_to (cr, x, y);
    }
  cairo_restore (cr);

  for (guint k = 0; k < s->points->len / 3; k++)
    {
      const double *p = (const double *) (gpointer) s->points->data + 3 * k;
      if (!to_view (s->camera, width, height, p, &x, &y))
        continue;
      if (hidden (s, p))
        cairo_push_group (cr);
      cml_scene_steer_draw_conjugate_symbol (cr, x, y, scale);
      if (hidden (s, p))
        cairo_pop_group_to_source (cr), cairo_paint_with_alpha (cr, 0.3);
    }
  if (to_view (s->camera, width, height, s->target, &x, &y))
    {
      /* behind the ball: faint, so the ball stays in sight */
      gboolean h = hidden (s, s->target);
      if (h)
        cairo_push_group (cr);
      cml_scene_steer_draw_target_symbol (cr, x, y, 1.5 * scale);
      if (h)
        cairo_pop_group_to_source (cr), cairo_paint_with_alpha (cr, 0.3);
    }
}

/* The card's symbols: as large as a line of its text. */
static void
icon_size (GtkWidget *icon, gboolean presentation)
{
  int size = presentation ? 28 : 18;
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (icon), size);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (icon), size);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
}

static void
target_icon_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  cml_scene_steer_draw_target_symbol (cr, width / 2.0, height / 2.0, height / 18.0);
}

static void
conj_icon_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  cml_scene_steer_draw_conjugate_symbol (cr, width / 2.0, height / 2.0, height / 18.0);
}

static GtkWidget *
card_label (void)
{
  GtkWidget *label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 46);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  return label;
}

CmlSceneSteer *
cml_scene_steer_new (GtkOverlay *overlay, GtkBox *corner, int margin, const CmlCamera *camera,
                     const CmlSceneStyle *style)
{
  CmlSceneSteer *s = g_new0 (CmlSceneSteer, 1);
  s->camera = camera;
  s->style = style;
  s->points = g_array_new (FALSE, FALSE, sizeof (double));
  s->path = g_array_new (FALSE, FALSE, sizeof (double));
  s->values = g_array_new (FALSE, FALSE, sizeof (double));
  s->markers = gtk_drawing_area_new ();
  gtk_widget_set_can_target (s->markers, FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (s->markers), markers_draw, s, NULL);
  gtk_overlay_add_overlay (overlay, s->markers);

  s->card = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class (s->card, "osd");
  gtk_widget_add_css_class (s->card, "steer-card");
  gtk_widget_set_halign (s->card, GTK_ALIGN_START);
  gtk_widget_set_margin_start (s->card, margin);
  /* below the buttons of the top-right corner, which a narrow view brings over here */
  gtk_widget_set_margin_top (s->card, 48);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  s->spinner = gtk_spinner_new ();
  gtk_widget_set_valign (s->spinner, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (row), s->spinner);
  s->icon = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (s->icon), target_icon_draw, s, NULL);
  gtk_box_append (GTK_BOX (row), s->icon);
  s->label = card_label ();
  gtk_box_append (GTK_BOX (row), s->label);
  gtk_box_append (GTK_BOX (s->card), row);
  s->conj_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  s->conj_icon = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (s->conj_icon), conj_icon_draw, s, NULL);
  gtk_box_append (GTK_BOX (s->conj_row), s->conj_icon);
  s->conj_label = card_label ();
  gtk_box_append (GTK_BOX (s->conj_row), s->conj_label);
  gtk_box_append (GTK_BOX (s->card), s->conj_row);
  for (GtkWidget *r = row; r; r = r == row ? s->conj_row : NULL)
    {
      gtk_widget_set_margin_start (r, 8);
      gtk_widget_set_margin_end (r, 8);
    }
  gtk_widget_set_margin_top (row, 6);
  gtk_widget_set_margin_bottom (s->conj_row, 6);
  gtk_widget_set_visible (s->card, FALSE);
  gtk_box_append (corner, s->card);
  return s;
}

void
cml_scene_steer_free (CmlSceneSteer *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->points);
  g_array_unref (s->path);
  g_array_unref (s->values);
  g_clear_pointer (&s->sys, cml_system_unref);
  g_free (s);
}

char *
cml_scene_steer_button_tip (CmlSystem *sys, gboolean *ok)
{
  CmlSceneAim aim;
  g_autofree char *why = NULL;

  *ok = cml_scene_aim_find (sys, &aim, &why);
  if (!*ok)
    return g_strdup_printf (_("Steering to a target: %s"), why);
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint j = 0; j < 3; j++)
    if (aim.names[j])
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", aim.names[j]);
  CmlModel *model = cml_system_get_model (sys);
  const char *unit = model->time_unit;
  g_autofree char *tip = g_strdup_printf (
    _("Click where the system should be at the end of the run (or Shift+click): cmlab looks for the starting "
      "momenta that take it there, draws the path found (dashed) and starts the run from them.\nThe click sets "
      "%s (where the %s is drawn); the time to get there is the run's present time, or %g%s%s before it has run.  "
      "Conjugate points, after which the path is no longer the shortest, are marked."),
    names->str, ((CmlSceneObject *) model->scene->pdata[aim.object])->type, CML_SCENE_SHOOT_DEFAULT_T,
    unit ? " " : "", unit ? unit : "");
  if (aim.n < 3)
    return g_steal_pointer (&tip);
  return g_strdup_printf ("%s\n%s", tip, _("It moves in space: a click sets where it should be across, at the "
                                           "height it has now."));
}

gboolean
cml_scene_steer_point_at (CmlSceneSteer *s, CmlSystem *sys, const double *values, int w, int h, double wx,
                          double wy, double p[3])
{
  CmlSceneAim aim;
  int off;

  if (values == NULL || w <= 0 || h <= 0 || !cml_scene_aim_find (sys, &aim, NULL)
      || (off = cml_system_scene_offset (sys, aim.object, aim.key)) < 0)
    return FALSE;

  /* the plane clicks are taken in: where the fixed component keeps its value; with none
   * fixed (Martinet's point in space) the level plane through the object's present place
   * (the click sets where it goes across, at the height it has now: a point in space far
   * behind or below it, as on the floor's grid, is no target a person means), or, seen
   * nearly edge-on, the plane through it facing the camera */
  double o[3] = { values[off], values[off + 1], values[off + 2] }, u[3] = { 0 }, v[3] = { 0 };
  int fixed = -1;
  for (int j = 0; j < 3; j++)
    if (aim.names[j] == NULL)
      fixed = j;
  double eye0[3], dz = 0, dn = 0;
  cml_camera_get_eye (s->camera, eye0);
  for (int j = 0; j < 3; j++)
    dn += (o[j] - eye0[j]) * (o[j] - eye0[j]);
  dz = fabs (o[2] - eye0[2]);
  if (aim.n == 3 && dz > 0.25 * sqrt (dn))
    fixed = 2;
  if (fixed >= 0)
    {
      u[(fixed + 1) % 3] = 1;
      v[(fixed + 2) % 3] = 1;
    }
  else
    {
      double eye[3], d[3], up[3] = { 0, 0, 1 };
      cml_camera_get_eye (s->camera, eye);
      for (int j = 0; j < 3; j++)
        d[j] = o[j] - eye[j];
      if (fabs (d[2]) > 0.99 * sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]))
        up[2] = 0, up[1] = 1;
      u[0] = d[1] * up[2] - d[2] * up[1], u[1] = d[2] * up[0] - d[0] * up[2], u[2] = d[0] * up[1] - d[1] * up[0];
      v[0] = u[1] * d[2] - u[2] * d[1], v[1] = u[2] * d[0] - u[0] * d[2], v[2] = u[0] * d[1] - u[1] * d[0];
      double nu = sqrt (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), nv = sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (!(nu > 0) || !(nv > 0))
        return FALSE;
      for (int j = 0; j < 3; j++)
        u[j] /= nu, v[j] /= nv;
    }
  if (!cml_scene_steer_plane_point (s->camera, w, h, wx, wy, o, u, v, p))
    return FALSE;
  /* as fine as a pixel shows, no finer: round numbers to aim at */
  double res = cml_camera_units_per_pixel (s->camera, cml_camera_depth (s->camera, p), h);
  for (int j = 0; j < 3; j++)
    p[j] = aim.names[j] && j != fixed ? cml_plot_round_to_resolution (p[j], res) : o[j];
  return TRUE;
}

void
cml_scene_steer_set_note (CmlSceneSteer *s, CmlSteerNote kind, const char *markup, const char *tooltip)
{
  gboolean busy = kind == CML_STEER_NOTE_BUSY;
  gtk_label_set_markup (GTK_LABEL (s->label), markup ? markup : "");
  gtk_widget_set_tooltip_text (s->card, tooltip);
  gtk_widget_set_visible (s->spinner, busy);
  gtk_spinner_set_spinning (GTK_SPINNER (s->spinner), busy);
  icon_size (s->icon, s->style->presentation);
  gtk_widget_set_visible (s->icon, kind == CML_STEER_NOTE_TARGET);
  gtk_widget_set_visible (s->card, markup != NULL);
  gtk_widget_set_visible (s->conj_row, FALSE);
}

void
cml_scene_steer_set_conjugate_note (CmlSceneSteer *s, const char *markup, gboolean symbol)
{
  gtk_label_set_markup (GTK_LABEL (s->conj_label), markup ? markup : "");
  icon_size (s->conj_icon, s->style->presentation);
  gtk_widget_set_visible (s->conj_icon, symbol);
  gtk_widget_set_visible (s->conj_row, markup != NULL);
}

const char *
cml_scene_steer_get_note (CmlSceneSteer *s)
{
  return gtk_widget_get_visible (s->card) ? gtk_label_get_text (GTK_LABEL (s->label)) : NULL;
}

const char *
cml_scene_steer_get_conjugate_note (CmlSceneSteer *s)
{
  return gtk_widget_get_visible (s->card) && gtk_widget_get_visible (s->conj_row)
           ? gtk_label_get_text (GTK_LABEL (s->conj_label)) : NULL;
}

void
cml_scene_steer_set_markers (CmlSceneSteer *s, const double *target, const double *points, guint n)
{
  s->has_target = target != NULL;
  if (target)
    memcpy (s->target, target, sizeof s->target);
  g_array_set_size (s->points, 0);
  if (target == NULL)
    g_array_set_size (s->path, 0);
  if (target && n > 0)
    g_array_append_vals (s->points, points, 3 * n);
  gtk_widget_queue_draw (s->markers);
}

gboolean
cml_scene_steer_get_markers (CmlSceneSteer *s, double target[3], guint *n)
{
  if (!s->has_target)
    return FALSE;
  if (target)
    memcpy (target, s->target, sizeof s->target);
  if (n)
    *n = s->points->len / 3;
  return TRUE;
}

void
cml_scene_steer_add_frame_points (CmlSceneSteer *s, GArray *points)
{
  if (!s->has_target || s->style->table_frame)
    return;
  g_array_append_vals (points, s->target, 1);
  g_array_append_vals (points, s->points->data, s->points->len / 3);
}

void
cml_scene_steer_set_path (CmlSceneSteer *s, const double *points, guint n)
{
  g_array_set_size (s->path, 0);
  if (points && n > 0)
    g_array_append_vals (s->path, points, 3 * n);
  gtk_widget_queue_draw (s->markers);
}

guint
cml_scene_steer_get_path_length (CmlSceneSteer *s)
{
  return s->path->len / 3;
}

gboolean
cml_scene_steer_get_target_hidden (CmlSceneSteer *s)
{
  return s->has_target && hidden (s, s->target);
}

const char *
cml_scene_steer_get_tooltip (CmlSceneSteer *s)
{
  return gtk_widget_get_visible (s->card) ? gtk_widget_get_tooltip_text (s->card) : NULL;
}

void
cml_scene_steer_queue_draw (CmlSceneSteer *s, CmlSystem *sys, const double *values)
{
  if (sys != s->sys)
    {
      if (sys)
        cml_system_ref (sys);
      g_clear_pointer (&s->sys, cml_system_unref);
      s->sys = sys;
    }
  g_array_set_size (s->values, 0);
  if (sys && values)
    g_array_append_vals (s->values, values, cml_system_n_scene_values (sys));
  if (s->has_target)
    gtk_widget_queue_draw (s->markers);
}
