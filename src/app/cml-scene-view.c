/* cml-scene-view.c — the 3-D view: a GtkGLArea drawing with CmlSceneRenderer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The renderer (GL objects, trails) lives from the area's realize to its unrealize.
 * Samples that arrive while it does not exist wait in a bounded queue and are replayed
 * when it is made, so a view realized late still shows the whole trail.  Until someone
 * pushes history samples, the frames themselves feed the trails (one point per frame), so
 * the view also works on its own.
 *
 * The camera frames what the run shows (cml_camera_fit over the renderer's bounds, which
 * only grow) at every frame until the user turns or zooms the view; a new system, a new
 * run (clear_trails), a reset or a new size of the view frames it again.  The legend is a drawing area over the
 * bottom-left corner, drawn by the renderer's Cairo code (the exported videos show the same
 * card), and the framing keeps that corner free.
 *
 * This file: the values drawn, the GL area, the instance and the public API; the legend
 * (cml-scene-view-legend.c), the pointer (-pointer.c), steering (-steer.c) and what is
 * drawn faint (-faint.c) are files of their own, sharing cml-scene-view-private.h.
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-gl-probe.h"

G_DEFINE_FINAL_TYPE (CmlSceneView, cml_scene_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_TABLE_FRAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

guint cml_scene_view_signals[CML_SCENE_VIEW_N_SIGNALS];

/* The renderer reads the scene values, or for a model without a scene the observables
 * (its default picture). */
gboolean
cml_scene_view_uses_observables (CmlSceneView *self)
{
  return self->sys && cml_scene_values_are_observables (self->sys);
}

guint
cml_scene_view_n_scene (CmlSceneView *self)
{
  if (self->sys == NULL)
    return 0;
  return cml_scene_view_uses_observables (self) ? cml_system_n_observables (self->sys)
                                 : cml_system_n_scene_values (self->sys);
}

/* The newest frame's values for the renderer, if the frame belongs to the system shown. */
static const double *
frame_values (CmlSceneView *self)
{
  CmlFrame *f = self->frame;
  if (f == NULL || self->sys == NULL || f->system != self->sys)
    return NULL;
  if (cml_scene_view_uses_observables (self))
    return f->n_obs == cml_scene_view_n_scene (self) ? f->obs : NULL;
  return f->n_scene == cml_scene_view_n_scene (self) ? f->scene : NULL;
}

/* The values drawn: the newest frame's, or — when the run failed there, or left values
 * that cannot be drawn — the last ones of this system that can (the last good state the
 * failure message speaks of), rather than an empty view: a run that runs away passes
 * through finite values of 10¹⁹ and more before it stops, which would frame the
 * picture down to a dot (CML_SCENE_FAR). */
const double *
cml_scene_view_current_values (CmlSceneView *self)
{
  const double *v = frame_values (self);
  if (v == NULL)
    return v;
  if (self->last_good == NULL)
    /* (a run that failed before the window drew it: the paths it left, no bodies) */
    return cml_scene_values_drawable (v, cml_scene_view_n_scene (self)) ? v : NULL;
  if (self->frame && self->frame->state == CML_RUNNER_FAILED)
    return self->last_good;
  if (!cml_scene_values_drawable (v, self->n_last_good))
    return self->last_good;
  return v;
}

/* Keeps the newest frame's values when they can all be drawn. */
static void
keep_last_good (CmlSceneView *self)
{
  const double *v = frame_values (self);
  guint n = cml_scene_view_n_scene (self);
  if (v == NULL || n == 0 || (self->frame && self->frame->state == CML_RUNNER_FAILED)
      || !cml_scene_values_drawable (v, n))
    return;
  if (self->n_last_good != n)
    {
      g_free (self->last_good);
      self->last_good = g_new (double, n);
      self->n_last_good = n;
    }
  memcpy (self->last_good, v, n * sizeof (double));
}

/* The second run's newest values for its renderer, or NULL. */
static const double *
ghost_values (CmlSceneView *self)
{
  CmlFrame *f = self->ghost_frame;
  if (f == NULL || self->ghost_sys == NULL || f->system != self->ghost_sys)
    return NULL;
  if (cml_scene_values_are_observables (self->ghost_sys))
    return f->obs;
  return f->n_scene == cml_system_n_scene_values (self->ghost_sys) ? f->scene : NULL;
}


/* The note over the scene saying what is drawn faint: the second run, the closed form. */
void
cml_scene_view_update_faint_note (CmlSceneView *self)
{
  g_autoptr (GString) s = g_string_new (NULL);
  if (self->ghost_sys)
    /* TRANSLATORS: the second run drawn faint: "copy", "vakonomic" or an integrator's description */
    g_string_append_printf (s, _("Faint: the %s run"), self->ghost_label);
  if (self->reference)
    g_string_append_printf (s, _("%sFaint: where the closed form puts it"), s->len ? "\n" : "");
  gtk_label_set_text (GTK_LABEL (self->ghost_legend), s->str);
  gtk_widget_set_visible (self->ghost_legend, s->len > 0);
}

static void
clear_pending (CmlSceneView *self)
{
  g_array_set_size (self->pending_t, 0);
  g_array_set_size (self->pending_rows, 0);
}

/* Hands trail samples (scene values at SCENE_OFFSET of rows of N_COLS) to the renderer,
 * or queues them until there is one. */
static void
feed_trails (CmlSceneView *self, const double *t, const double *rows, guint n, guint n_cols,
             guint scene_offset)
{
  guint ns = cml_scene_view_n_scene (self);
  if (ns == 0 || n == 0)
    return;
  if (self->renderer)
    {
      cml_scene_renderer_push_trail_samples_timed (self->renderer, t, rows, n, n_cols, scene_offset);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      double ti = t ? t[i] : NAN;
      g_array_append_val (self->pending_t, ti);
      g_array_append_vals (self->pending_rows, rows + (gsize) i * n_cols + scene_offset, ns);
    }
  if (self->pending_t->len > PENDING_MAX)
    {
      guint drop = self->pending_t->len - PENDING_MAX;
      g_array_remove_range (self->pending_t, 0, drop);
      g_array_remove_range (self->pending_rows, 0, drop * ns);
    }
}

static void
update_table_frame_button (CmlSceneView *self)
{
  gboolean has = FALSE;
  if (self->sys)
    {
      CmlModel *model = cml_system_get_model (self->sys);
      for (guint i = 0; i < model->scene->len; i++)
        {
          const CmlSceneObject *so = model->scene->pdata[i];
          if (g_str_equal (so->type, "trail") && g_hash_table_contains (so->props, "frame-angle"))
            has = TRUE;
        }
    }
  gtk_widget_set_visible (GTK_WIDGET (self->table_frame_button), has);
}

/* ---- GL area ---------------------------------------------------------------------------- */

/* Whether GL on DISPLAY is OpenGL ES.  GTK 4.8's GtkGLArea asks for desktop GL unless
 * told otherwise, which fails where the driver (or GDK_DEBUG=gl-gles) offers only GLES;
 * so a throwaway context asks GDK once per display.  FALSE where there is no GL at all
 * (the area then reports that itself). */
static gboolean
display_uses_es (GdkDisplay *display)
{
  gpointer cached = g_object_get_data (G_OBJECT (display), "cml-gl-use-es");
  if (cached)
    return GPOINTER_TO_INT (cached) == 2;

  gboolean es = FALSE;
  g_autoptr (GdkGLContext) context = gdk_display_create_gl_context (display, NULL);
  if (context && gdk_gl_context_realize (context, NULL))
    es = gdk_gl_context_get_use_es (context);
  g_object_set_data (G_OBJECT (display), "cml-gl-use-es", GINT_TO_POINTER (es ? 2 : 1));
  return es;
}

/* A renderer showing SYS (a second run, the closed form), or NULL; the area's context is
 * current. */
CmlSceneRenderer *
cml_scene_view_renderer_for (CmlSystem *sys)
{
  CmlSceneRenderer *r = cml_scene_renderer_new (NULL);
  if (r)
    cml_scene_renderer_set_system (r, sys);
  return r;
}

static void
on_area_realize (CmlSceneView *self)
{
  g_autoptr (GError) error = NULL;

  gtk_gl_area_make_current (self->area);
  if (gtk_gl_area_get_error (self->area) != NULL)
    return;

  self->renderer = cml_scene_renderer_new (&error);
  if (self->renderer == NULL)
    {
      g_warning ("3-D view: %s", error->message);
      self->renderer_failed = TRUE;
      gtk_gl_area_set_error (self->area, error);
      return;
    }
  cml_scene_renderer_set_system (self->renderer, self->sys);
  if (self->reference)
    {
      self->ref_renderer = cml_scene_view_renderer_for (self->sys);
    }
  if (self->ghost_sys)
    {
      self->ghost_renderer = cml_scene_view_renderer_for (self->ghost_sys);
    }
  if (self->pending_t->len)
    cml_scene_renderer_push_trail_samples_timed (self->renderer, (double *) self->pending_t->data,
                                                 (double *) self->pending_rows->data,
                                                 self->pending_t->len, cml_scene_view_n_scene (self), 0);
  clear_pending (self);
}

static void
on_area_unrealize (CmlSceneView *self)
{
  /* the trails die with the renderer: a view realized again starts them afresh */
  if (self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->renderer, cml_scene_renderer_free);
      g_clear_pointer (&self->ghost_renderer, cml_scene_renderer_free);
      g_clear_pointer (&self->ref_renderer, cml_scene_renderer_free);
    }
}

/* Device pixels of the area. */
static void
area_size (CmlSceneView *self, int *width, int *height, int *scale)
{
  *scale = gtk_widget_get_scale_factor (GTK_WIDGET (self->area));
  *width = MAX (1, gtk_widget_get_width (GTK_WIDGET (self->area)) * *scale);
  *height = MAX (1, gtk_widget_get_height (GTK_WIDGET (self->area)) * *scale);
}

/* The part of the view (WIDTH × HEIGHT device pixels at SCALE) the overlay CORNER covers
 * from its top-right corner, as fractions of its width and height in SIZE: the buttons'
 * own size and their margins; 0, 0 while none is shown. */
static void
corner_size (GtkWidget *corner, int scale, int width, int height, double size[2])
{
  size[0] = size[1] = 0;
  if (!gtk_widget_get_visible (corner) || !gtk_widget_get_child_visible (corner))
    return;
  int w = gtk_widget_get_width (corner), h = gtk_widget_get_height (corner);
  if (w <= 0 || h <= 0)
    return;
  w += gtk_widget_get_margin_end (corner) + LEGEND_MARGIN;
  h += gtk_widget_get_margin_top (corner) + LEGEND_MARGIN;
  size[0] = (double) w * scale / width;
  size[1] = (double) h * scale / height;
}

/* Style and camera for this frame; the camera follows the scene while it auto-fits. */
static void
prepare (CmlSceneView *self, const double *values, int width, int height, int scale)
{
  CmlCameraKeepOut keep_out = { { 0, 0 }, { 0, 0 } };
  g_autoptr (GArray) points = g_array_new (FALSE, FALSE, 3 * sizeof (double));
  g_autoptr (GArray) bodies = g_array_new (FALSE, FALSE, 3 * sizeof (double));

  self->style.scale = scale;
  /* what is shown now (the trails as kept): a body that travels stays in view */
  cml_scene_renderer_get_view_points (self->renderer, values, &self->style, points, bodies);
  /* the second run is framed too, as far as it stays near the first: one that runs away
   * (the vakonomic reading of the rolling ball) must not shrink the first run, which the
   * view is about, to a dot */
  if (self->ghost_renderer)
    {
      g_autoptr (GArray) more = g_array_new (FALSE, FALSE, 3 * sizeof (double));
      g_autoptr (GArray) more_bodies = g_array_new (FALSE, FALSE, 3 * sizeof (double));
      double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
      cml_scene_renderer_get_view_points (self->ghost_renderer, ghost_values (self), &self->style, more,
                                          more_bodies);
      g_array_append_vals (more, more_bodies->data, more_bodies->len);
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
      for (guint k = 0; k < more->len; k++)
        {
          const double *p = &g_array_index (more, double, 3 * k);
          gboolean near = TRUE;
          for (int i = 0; i < 3 && isfinite (lo[i]); i++)
            {
              double c = 0.5 * (lo[i] + hi[i]), half = MAX (0.5 * (hi[i] - lo[i]), 0.5);
              if (fabs (p[i] - c) > GHOST_REACH * half)
                near = FALSE;
            }
          if (near)
            g_array_append_vals (points, p, 1);
        }
    }
  /* the target and the conjugate points are framed too */
  cml_scene_steer_add_frame_points (self->steer, points);
  /* and the Geometry page's fan */
  cml_scene_fan_add_frame_points (self->fan, points);
  /* clear of the legend's corner and the buttons' (sizes in logical pixels, the view's
   * in device ones) */
  if (self->legend_w > 0 && !self->legend_folded)
    {
      /* at the size it is shown at (smaller in a short view: the body comes down) */
      double ls = cml_scene_view_legend_scale (self, (int) (width / scale), (int) (height / scale), NULL);

      keep_out.legend[0] = (self->legend_w * ls + LEGEND_MARGIN) * scale / width;
      keep_out.legend[1] = (self->legend_h * ls + LEGEND_MARGIN) * scale / height;
    }
  else if (self->legend_folded)
    /* folded: only its button (opened, the legend may cover the body: asked for) */
    corner_size (self->legend_button, scale, width, height, keep_out.legend);
  corner_size (self->corner_buttons, scale, width, height, keep_out.buttons);
  /* the camera glides over the (wall) time between two frames drawn */
  gint64 now = g_get_monotonic_time ();
  double dt = self->last_fit_time > 0 && now > self->last_fit_time ? (now - self->last_fit_time) * 1e-6 : 0;
  self->last_fit_time = now;
  /* a new size (the window resized, a lesson's caption band taking its height, the split
   * moved): framed again for it at once, not left as it was framed for the old one while
   * everything still fits */
  if (width != self->fit_width || height != self->fit_height)
    {
      self->camera.settled = FALSE;
      self->fit_width = width;
      self->fit_height = height;
    }
  /* while a body is dragged the camera holds still: framing the new place (a turntable
   * growing under the ball) would move the ground under the pointer, and the ball with it */
  if (!self->body_drag)
    cml_camera_follow (&self->camera, (double *) points->data, points->len, (double *) bodies->data, bodies->len,
                       (double) width / height, &keep_out, dt);
}

static gboolean
on_area_render (CmlSceneView *self, GdkGLContext *context)
{
  int width, height, scale;

  if (self->renderer == NULL)
    return FALSE;
  area_size (self, &width, &height, &scale);
  const double *values = cml_scene_view_current_values (self);
  prepare (self, values, width, height, scale);
  cml_scene_renderer_draw (self->renderer, values, &self->camera, width, height, &self->style);
  if (self->ref_renderer && self->ref_now)
    {
      CmlSceneStyle faint = self->style;
      faint.ghost = TRUE;
      cml_scene_renderer_draw (self->ref_renderer, self->ref_now, &self->camera, width, height, &faint);
    }
  if (self->ghost_renderer)
    {
      CmlSceneStyle ghost = self->style;
      ghost.ghost = TRUE;
      cml_scene_renderer_draw (self->ghost_renderer, ghost_values (self), &self->camera, width, height, &ghost);
    }
  /* the markers and the fan follow the camera this frame used */
  cml_scene_steer_queue_draw (self->steer, self->sys, values);
  cml_scene_fan_queue_draw (self->fan, self->frame ? self->frame->t : NAN);
  return TRUE;
}

/* The pixel probe's drawing (cml-gl-probe.h): the frame the area would show, through the
 * renderer's own off-screen buffer. */
static CmlGlProbeStatus
probe_draw (gpointer view, CmlGlProbeImage *image)
{
  CmlSceneView *self = view;
  int scale;

  if (self->renderer == NULL)
    return self->renderer_failed ? CML_GL_PROBE_FAILED : CML_GL_PROBE_NO_GL;

  area_size (self, &image->width, &image->height, &scale);
  gtk_gl_area_make_current (self->area);
  const double *values = cml_scene_view_current_values (self);
  prepare (self, values, image->width, image->height, scale);
  image->rgba = g_malloc ((gsize) image->width * image->height * 4);
  if (!cml_scene_renderer_draw_to_pixels (self->renderer, values, &self->camera, image->width,
                                          image->height, &self->style, image->rgba))
    return CML_GL_PROBE_FAILED;
  cml_scene_style_get_background (&self->style, image->background);
  return CML_GL_PROBE_DRAWN;
}

/* ---- GObject -------------------------------------------------------------------------------- */

static void
cml_scene_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlSceneView *self = CML_SCENE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TABLE_FRAME:
      g_value_set_boolean (value, self->style.table_frame);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_scene_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CmlSceneView *self = CML_SCENE_VIEW (object);

  switch (prop_id)
    {
    case PROP_TABLE_FRAME:
      cml_scene_view_set_table_frame (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_scene_view_dispose (GObject *object)
{
  CmlSceneView *self = CML_SCENE_VIEW (object);

  g_clear_handle_id (&self->legend_relayout, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_SCENE_VIEW);
  g_clear_pointer (&self->frame, cml_frame_unref);
  g_clear_pointer (&self->sys, cml_system_unref);

  G_OBJECT_CLASS (cml_scene_view_parent_class)->dispose (object);
}

static void
cml_scene_view_finalize (GObject *object)
{
  CmlSceneView *self = CML_SCENE_VIEW (object);

  g_array_unref (self->pending_t);
  g_array_unref (self->pending_rows);
  g_clear_pointer (&self->ghost_sys, cml_system_unref);
  g_clear_pointer (&self->ghost_frame, cml_frame_unref);
  g_free (self->drag_names[0]);
  g_free (self->drag_names[1]);
  g_clear_pointer (&self->reference, cml_reference_free);
  g_free (self->ref_now);
  g_free (self->ghost_label);
  g_free (self->last_good);
  cml_scene_steer_free (self->steer);
  cml_scene_fan_free (self->fan);

  G_OBJECT_CLASS (cml_scene_view_parent_class)->finalize (object);
}

static void
cml_scene_view_class_init (CmlSceneViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = cml_scene_view_get_property;
  object_class->set_property = cml_scene_view_set_property;
  object_class->dispose = cml_scene_view_dispose;
  object_class->finalize = cml_scene_view_finalize;

  /* the window's "table frame" action follows the on-screen toggle through this */
  properties[PROP_TABLE_FRAME] =
    g_param_spec_boolean ("table-frame", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* ::drag-initial (x name, x, y name, y, done): a body was dragged there — start the run
   * from that place (the base coordinates its centre is) */
  cml_scene_view_signals[CML_SCENE_VIEW_DRAG_INITIAL] = g_signal_new ("drag-initial", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 5, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
                                        G_TYPE_DOUBLE, G_TYPE_BOOLEAN);
  /* ::steer-target (x, y, z): a click while aiming — the aimed scene object
   * (cml_scene_aim_find) should be there at the end of the run */
  cml_scene_view_signals[CML_SCENE_VIEW_STEER_TARGET] = g_signal_new ("steer-target", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-scene-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, overlay);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, table_frame_button);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, corner_buttons);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, legend_button);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, steer_button);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, legend);
  gtk_widget_class_bind_template_callback (widget_class, on_area_realize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_unrealize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_render);
  cml_scene_view_legend_class_init (widget_class);
  cml_scene_view_pointer_class_init (widget_class);
  cml_scene_view_steer_class_init (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cmlsceneview");
}

static void
cml_scene_view_init (CmlSceneView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* GL 3.3 core or GLES 3.0, whichever GDK uses here: the shaders come in both */
  gboolean es = display_uses_es (gtk_widget_get_display (GTK_WIDGET (self)));
  gtk_gl_area_set_use_es (self->area, es);
  gtk_gl_area_set_required_version (self->area, 3, es ? 0 : 3);
  cml_camera_init (&self->camera);
  self->style = cml_scene_style_default ();
  /* multisampling costs 6–10× under software GL; the shaders smooth edges instead */
  self->style.samples = 0;
  self->last_frame_t = -INFINITY;
  self->text_scale = 1.0;
  self->pending_t = g_array_new (FALSE, FALSE, sizeof (double));
  self->pending_rows = g_array_new (FALSE, FALSE, sizeof (double));
  cml_scene_view_legend_init (self);
  self->ghost_legend = gtk_label_new (NULL);
  gtk_widget_set_halign (self->ghost_legend, GTK_ALIGN_START);
  gtk_widget_set_valign (self->ghost_legend, GTK_ALIGN_START);
  gtk_widget_set_margin_start (self->ghost_legend, LEGEND_MARGIN);
  gtk_widget_set_margin_top (self->ghost_legend, LEGEND_MARGIN);
  gtk_widget_add_css_class (self->ghost_legend, "ghost-legend");
  gtk_widget_set_can_target (self->ghost_legend, FALSE);
  /* a long name ("the classical Runge–Kutta (h = 0.1) run") wraps rather than running
   * under the buttons at the view's top right (Steer to a Target, on a projector) */
  gtk_label_set_wrap (GTK_LABEL (self->ghost_legend), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (self->ghost_legend), 22);
  gtk_widget_set_visible (self->ghost_legend, FALSE);
  GtkWidget *corner = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_halign (corner, GTK_ALIGN_START);
  gtk_widget_set_valign (corner, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (corner), self->ghost_legend);
  /* the fan under the steering markers */
  self->fan = cml_scene_fan_new (self->overlay, &self->camera, &self->style);
  self->steer = cml_scene_steer_new (self->overlay, GTK_BOX (corner), LEGEND_MARGIN, &self->camera, &self->style);
  gtk_overlay_add_overlay (self->overlay, corner);
  cml_scene_view_pointer_init (self);
  cml_scene_view_update_steer_button (self);
  cml_scene_view_update_legend (self);
}

/* ---- public API --------------------------------------------------------------------------------- */

GtkWidget *
cml_scene_view_new (void)
{
  return g_object_new (CML_TYPE_SCENE_VIEW, NULL);
}

void
cml_scene_view_set_system (CmlSceneView *self, CmlSystem *sys)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;

  clear_pending (self);
  g_clear_pointer (&self->last_good, g_free);
  self->n_last_good = 0;
  self->samples_pushed = FALSE;
  self->last_frame_t = -INFINITY;
  if (self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      cml_scene_renderer_set_system (self->renderer, sys);
    }
  update_table_frame_button (self);
  cml_scene_view_update_steer_button (self);
  cml_scene_view_set_steer_markers (self, NULL, NULL, 0);
  cml_scene_view_set_steer_note (self, CML_STEER_NOTE_NONE, NULL, NULL);
  cml_scene_fan_set (self->fan, NULL, 0, 0, 0);
  cml_scene_view_set_show_reference (self, self->show_reference);
  cml_scene_view_update_legend (self);
  cml_scene_view_reset_camera (self);
}

void
cml_scene_view_set_frame (CmlSceneView *self, CmlFrame *frame)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (frame)
    cml_frame_ref (frame);
  g_clear_pointer (&self->frame, cml_frame_unref);
  self->frame = frame;
  cml_scene_view_reference_now (self, frame);
  keep_last_good (self);

  const double *values = cml_scene_view_current_values (self);
  if (values && !self->samples_pushed)
    {
      /* nobody pushes history: one trail point per new frame; a new run starts over */
      if (frame->generation != self->last_generation || frame->t < self->last_frame_t)
        cml_scene_view_clear_trails (self);
      if (frame->t > self->last_frame_t)
        feed_trails (self, &frame->t, values, 1, cml_scene_view_n_scene (self), 0);
      self->last_frame_t = frame->t;
      self->last_generation = frame->generation;
    }
  gtk_gl_area_queue_render (self->area);
}

void
cml_scene_view_push_samples (CmlSceneView *self, const double *t, const double *rows, guint n,
                             guint n_cols, guint n_obs)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  g_return_if_fail (n == 0 || rows != NULL);

  if (self->sys == NULL || n == 0)
    return;
  g_return_if_fail (n_obs + cml_system_n_scene_values (self->sys) <= n_cols);

  if (!self->samples_pushed)
    {
      /* from now on the history feeds the trails; drop what the frames drew */
      self->samples_pushed = TRUE;
      cml_scene_view_clear_trails (self);
    }
  /* rows are [observables…, scene values…]: the default picture reads the former */
  feed_trails (self, t, rows, n, n_cols, cml_scene_view_uses_observables (self) ? 0 : n_obs);
  if (t)
    cml_scene_view_reference_feed (self, t, rows, n, n_cols, n_obs);
  gtk_gl_area_queue_render (self->area);
}

void
cml_scene_view_clear_trails (CmlSceneView *self)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  clear_pending (self);
  self->last_frame_t = -INFINITY;
  if (self->renderer)
    cml_scene_renderer_clear_trails (self->renderer);
  if (self->ref_renderer)
    cml_scene_renderer_clear_trails (self->ref_renderer);
  cml_scene_view_frame_run (self);
}

void
cml_scene_view_frame_run (CmlSceneView *self)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  /* the user's direction of view stays; distance and target follow the run again, from
   * a fresh framing */
  self->camera.auto_fit = TRUE;
  self->camera.settled = FALSE;
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_scene_view_get_auto_frame (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);

  return self->camera.auto_fit;
}

void
cml_scene_view_reset_camera (CmlSceneView *self)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  cml_camera_reset (&self->camera);
  gtk_gl_area_queue_render (self->area);
}

void
cml_scene_view_set_table_frame (CmlSceneView *self, gboolean table_frame)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  table_frame = !!table_frame;
  if (self->style.table_frame == table_frame)
    return;
  self->style.table_frame = table_frame;
  gtk_toggle_button_set_active (self->table_frame_button, table_frame);
  cml_scene_view_update_legend (self);
  gtk_gl_area_queue_render (self->area);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TABLE_FRAME]);
}

gboolean
cml_scene_view_get_table_frame (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);

  return self->style.table_frame;
}

void
cml_scene_view_set_presentation (CmlSceneView *self, gboolean presentation)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->style.presentation = !!presentation;
  cml_scene_view_update_legend (self);
}

void
cml_scene_view_set_text_scale (CmlSceneView *self, double scale)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  scale = MAX (scale, 1.0);
  if (scale == self->text_scale)
    return;
  self->text_scale = scale;
  cml_scene_view_update_legend (self);
}

double
cml_scene_view_get_legend_font (CmlSceneView *self)
{
  CmlSceneStyle style;
  double w, h;

  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), 0);
  style = cml_scene_view_legend_style (self);
  if (!cml_scene_legend_measure (self->sys, &style, &w, &h))
    return 0;
  /* the legend as drawn (or, folded, as it shows when opened): smaller where the view is
   * narrower than it or short (legend_scale) */
  return cml_scene_legend_font_size (&style) * cml_scene_view_legend_scale (self, self->legend_room, self->legend_room_h, NULL);
}

void
cml_scene_view_set_dark (CmlSceneView *self, gboolean dark)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->style.dark = !!dark;
  cml_scene_view_update_legend (self);
}

void
cml_scene_view_set_style (CmlSceneView *self, gboolean dark, gboolean high_contrast)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->style.high_contrast = !!high_contrast;
  cml_scene_view_set_dark (self, dark);
}

gboolean
cml_scene_view_probe_pixels (CmlSceneView *self, double *fraction)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  g_return_val_if_fail (fraction != NULL, FALSE);

  return cml_gl_probe_pixels (self->area, probe_draw, self, fraction);
}
