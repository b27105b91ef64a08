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
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-camera.h"
#include "cml-gl-probe.h"
#include "cml-plot.h"
#include "cml-reference.h"
#include "cml-scene-renderer.h"
#include "cml-scene-steer.h"

#define PENDING_MAX   30000  /* rows kept while there is no renderer */
#define LEGEND_MARGIN 8      /* logical pixels between the legend and the view's edges */
#define LEGEND_MAX_SHARE 0.25 /* of the view's height: a short view's legend gets smaller type … */
#define LEGEND_MIN_FONT 13.0  /* … down to this size (logical pixels), still read from a hall, … */
#define LEGEND_MIN_SHARE_PRESENTING 0.025 /* … in presentation mode 2.5 % of the window's height; … */
                              /* … else it is folded into a button */
#define GHOST_REACH   2.0    /* a second run is framed within this many half-sizes of the
                              * first run's box from its centre */

struct _CmlSceneView
{
  GtkWidget parent_instance;

  /* template children (the overlay is bound so that dispose_template unparents it) */
  GtkOverlay      *overlay;
  GtkGLArea       *area;
  GtkToggleButton *table_frame_button;
  GtkWidget       *corner_buttons;  /* the buttons over the view's top-right corner */
  GtkToggleButton *steer_button;
  GtkDrawingArea  *legend;
  double           legend_w, legend_h;  /* logical pixels; 0 when there is no legend */
  int              legend_room;         /* the view's width the legend was laid out for */
  int              legend_room_h;       /* … and its height */
  gboolean         legend_folded;       /* too tall for the view even in smaller type: a button shows it */
  GtkWidget       *legend_button;
  guint            legend_relayout;     /* idle source: lay the legend out for a new width */

  CmlSceneRenderer *renderer;        /* realized only */
  gboolean          renderer_failed; /* shaders failed in a working context: a bug */
  CmlSystem        *sys;
  CmlFrame         *frame;
  CmlCamera         camera;
  CmlSceneStyle     style;
  double            drag_x, drag_y;  /* offsets already applied in this drag */
  gint64            last_fit_time;   /* monotonic time of the last framing, µs (0: none) */
  int               fit_width, fit_height; /* the view's size (device pixels) at the last framing */
  double           *last_good;       /* the last finite values drawn (see current_values) */
  guint             n_last_good;

  /* trails: fed by push_samples, else by the frames */
  gboolean          samples_pushed;
  double            last_frame_t;
  guint             last_generation;
  /* rows waiting for a renderer: scene values only, n_scene per row, and their times */
  GArray           *pending_t;
  GArray           *pending_rows;

  /* a second run, drawn translucent over this one (comparing two runs) */
  CmlSystem        *ghost_sys;
  CmlSceneRenderer *ghost_renderer;  /* realized only */
  CmlFrame         *ghost_frame;
  GtkWidget        *ghost_legend;    /* "Faint: the vakonomic run" */
  double            ghost_last_t;    /* the newest time of its trail */
  char             *ghost_label;

  /* the model's closed form drawn faint (when the plots show it): its own renderer, fed
   * with the scene the closed-form values of the observables make */
  gboolean          show_reference;
  CmlReference     *reference;
  CmlSceneRenderer *ref_renderer;   /* realized only */
  double            ref_last_t;
  double           *ref_now;        /* the closed form's scene at the newest frame */

  /* dragging a body to where the run should start: the base coordinates its centre's
   * x and y are, and the height it moves at */
  gboolean          body_drag;
  double            text_scale;      /* the legend's size in presentation mode (1: as designed) */
  gboolean          arrow_drag;      /* the tip of a velocity arrow, not a body */
  char             *drag_names[2];
  double            drag_z;
  double            drag_from[2];    /* an arrow's foot: the velocity is tip − foot */

  /* steering to a target (cml-scene-shoot.h): a click while aiming emits ::steer-target;
   * the target and the conjugate points are marked over the scene, a card says what
   * they are or that the shooting runs (cml-scene-steer.h) */
  gboolean          aim_click;       /* this press may be a click that aims */
  CmlSceneSteer    *steer;
};

G_DEFINE_FINAL_TYPE (CmlSceneView, cml_scene_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_TABLE_FRAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  DRAG_INITIAL,
  STEER_TARGET,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The renderer reads the scene values, or for a model without a scene the observables
 * (its default picture). */
static gboolean
uses_observables (CmlSceneView *self)
{
  return self->sys && cml_scene_values_are_observables (self->sys);
}

static guint
n_scene (CmlSceneView *self)
{
  if (self->sys == NULL)
    return 0;
  return uses_observables (self) ? cml_system_n_observables (self->sys)
                                 : cml_system_n_scene_values (self->sys);
}

/* The newest frame's values for the renderer, if the frame belongs to the system shown. */
static const double *
frame_values (CmlSceneView *self)
{
  CmlFrame *f = self->frame;
  if (f == NULL || self->sys == NULL || f->system != self->sys)
    return NULL;
  if (uses_observables (self))
    return f->n_obs == n_scene (self) ? f->obs : NULL;
  return f->n_scene == n_scene (self) ? f->scene : NULL;
}

/* The values drawn: the newest frame's, or — when the run failed there, or left values
 * that cannot be drawn — the last ones of this system that can (the last good state the
 * failure message speaks of), rather than an empty view: a run that runs away passes
 * through finite values of 10¹⁹ and more before it stops, which would frame the
 * picture down to a dot (CML_SCENE_FAR). */
static const double *
current_values (CmlSceneView *self)
{
  const double *v = frame_values (self);
  if (v == NULL)
    return v;
  if (self->last_good == NULL)
    /* (a run that failed before the window drew it: the paths it left, no bodies) */
    return cml_scene_values_drawable (v, n_scene (self)) ? v : NULL;
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
  guint n = n_scene (self);
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

static void reference_feed (CmlSceneView *self, const double *t, const double *rows, guint n, guint n_cols,
                            guint n_obs);
static void reference_now (CmlSceneView *self, CmlFrame *frame);

/* The note over the scene saying what is drawn faint: the second run, the closed form. */
static void
update_faint_note (CmlSceneView *self)
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
  guint ns = n_scene (self);
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

/* ---- legend ------------------------------------------------------------------------------ */

/* The style the legend is drawn in: Cairo units are logical pixels here. */
static CmlSceneStyle
legend_style (CmlSceneView *self)
{
  CmlSceneStyle style = self->style;
  style.scale = self->style.presentation ? self->text_scale : 1;
  /* the window's legend says what the pointer can move */
  style.interactive = TRUE;
  /* long lines wrap to the view's width, rather than the whole card shrinking */
  style.legend_width = self->legend_room > 2 * LEGEND_MARGIN ? self->legend_room - 2 * LEGEND_MARGIN : 0;
  return style;
}

static void update_legend (CmlSceneView *self);

static gboolean
legend_relayout (gpointer data)
{
  CmlSceneView *self = data;
  self->legend_relayout = 0;
  update_legend (self);
  return G_SOURCE_REMOVE;
}

/* Drawn smaller, all of it, when the view is narrower than the legend (a 4:3 projector
 * with the side panel open): never cut off at the view's edge. */
static void
legend_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSceneView *self = data;
  CmlSceneStyle style = legend_style (self);
  double s = 1.0;

  if (self->legend_w > width || self->legend_h > height)
    s = MIN (width / MAX (self->legend_w, 1.0), height / MAX (self->legend_h, 1.0));
  cairo_scale (cr, s, s);
  cml_scene_legend_draw (self->sys, cr, &style);
}

/* The smallest type the legend is drawn in, in logical pixels (see above). */
static double
legend_min_font (CmlSceneView *self)
{
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (self)));
  double least = LEGEND_MIN_FONT;

  if (self->style.presentation && root)
    least = MAX (least, LEGEND_MIN_SHARE_PRESENTING * gtk_widget_get_height (root));
  return least;
}

/* The scale the legend is shown at in a view OW × OH (logical pixels): 1, or less where
 * the view is narrower than the legend (all of it drawn smaller rather than cut off), or
 * short — 1024×768, a lesson's caption band taking its height — where it would take more
 * than LEGEND_MAX_SHARE of the height (or, in a view taller than wide, more than what is
 * below a square of its width) and push the body up: smaller type then, never
 * smaller than legend_min_font.  *FOLD (may be NULL) says whether even so it takes more:
 * then it is folded into a button (shown on demand, at that scale). */
static double
legend_scale (CmlSceneView *self, int ow, int oh, gboolean *fold)
{
  double w = ceil (self->legend_w), h = ceil (self->legend_h);
  double room = ow - 2.0 * LEGEND_MARGIN, s = 1.0, tall;

  if (fold)
    *fold = FALSE;
  if (w <= 0 || h <= 0 || ow <= 0 || oh <= 0)
    return 1.0;
  if (w > room)
    s = MAX (room, 1.0) / w;
  /* the height it may take: a share of a wide view; of a view taller than wide, what is
   * below a square of its width too (the body is framed in that square all the same) */
  tall = MAX (LEGEND_MAX_SHARE * oh, oh - ow - LEGEND_MARGIN);
  if (h * s > tall)
    {
      CmlSceneStyle style = legend_style (self);
      double font = cml_scene_legend_font_size (&style);
      double least = legend_min_font (self);
      /* (a hundredth of a pixel over: not under it by rounding) */
      double readable = font > least ? (least + 0.01) / font : 1.0;

      s = MIN (s, MAX (tall / h, readable));
      if (fold)
        *fold = h * s > tall + 1;
    }
  return s;
}

/* The legend's place in the overlay: bottom left, at the size legend_scale gives
 * (legend_draw scales it to the allocation). */
static gboolean
legend_position (GtkOverlay *overlay, GtkWidget *child, GdkRectangle *allocation, gpointer data)
{
  CmlSceneView *self = data;
  /* the view's size as it is being laid out: the GL area fills the overlay and is given its
   * new size before the overlay's children are placed (the overlay's own is the old one
   * until it is done — a legend placed by it lagged a layout behind: laid out for the
   * narrow view when presentation mode widened it) */
  int ow = gtk_widget_get_width (GTK_WIDGET (self->area)), oh = gtk_widget_get_height (GTK_WIDGET (self->area));
  double w = ceil (self->legend_w), h = ceil (self->legend_h), s;

  if (ow <= 0 || oh <= 0)
    {
      ow = gtk_widget_get_width (GTK_WIDGET (overlay));
      oh = gtk_widget_get_height (GTK_WIDGET (overlay));
    }

  if (child != GTK_WIDGET (self->legend) || ow <= 0)
    return FALSE;
  /* a new width: the legend is laid out for it once this layout is done (and folded or
   * unfolded for a new height) */
  if (ow != self->legend_room || oh != self->legend_room_h)
    {
      self->legend_room = ow;
      self->legend_room_h = oh;
      /* before the next frame is laid out: at the default idle priority, a view redrawn
       * every frame (a run playing) kept it waiting, the legend laid out for the old width */
      if (self->legend_relayout == 0)
        self->legend_relayout = g_idle_add_full (G_PRIORITY_HIGH_IDLE, legend_relayout, self, NULL);
    }
  if (w <= 0 || h <= 0)
    return FALSE;
  s = legend_scale (self, ow, oh, NULL);
  /* the allocation holds the legend's margins (start and bottom, LEGEND_MARGIN each) */
  allocation->width = (int) floor (w * s) + LEGEND_MARGIN;
  allocation->height = (int) floor (h * s) + LEGEND_MARGIN;
  allocation->x = 0;
  allocation->y = MAX (oh - allocation->height, 0);
  /* folded: shown above its button */
  if (self->legend_folded)
    {
      int bh = 0;

      gtk_widget_measure (self->legend_button, GTK_ORIENTATION_VERTICAL, -1, NULL, &bh, NULL, NULL);
      allocation->y = MAX (allocation->y - bh - LEGEND_MARGIN, 0);
    }
  return TRUE;
}

/* The legend follows the system, the frame the paths are shown in, light or dark and
 * the presentation size. */
static void
update_legend (CmlSceneView *self)
{
  CmlSceneStyle style = legend_style (self);
  double w = 0, h = 0;
  gboolean any = cml_scene_legend_measure (self->sys, &style, &w, &h);
  self->legend_w = any ? w : 0;
  self->legend_h = any ? h : 0;
  gtk_drawing_area_set_content_width (self->legend, (int) ceil (w));
  gtk_drawing_area_set_content_height (self->legend, (int) ceil (h));
  /* too tall for a short view even in smaller type: folded into its button */
  legend_scale (self, self->legend_room, self->legend_room_h, &self->legend_folded);
  self->legend_folded = any && self->legend_folded;
  gtk_widget_set_visible (self->legend_button, self->legend_folded);
  gtk_widget_set_visible (GTK_WIDGET (self->legend),
                          any && (!self->legend_folded
                                  || gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->legend_button))));
  g_auto (GStrv) lines = cml_scene_legend_lines (self->sys, &style);
  g_autofree char *description = g_strjoinv ("; ", lines);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->legend), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
  gtk_widget_queue_draw (GTK_WIDGET (self->legend));
  gtk_gl_area_queue_render (self->area);
}

/* The folded legend's button: the legend shown above it, or not. */
static void
on_legend_toggled (CmlSceneView *self)
{
  update_legend (self);
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
static CmlSceneRenderer *
renderer_for (CmlSystem *sys)
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
      self->ref_renderer = renderer_for (self->sys);
    }
  if (self->ghost_sys)
    {
      self->ghost_renderer = renderer_for (self->ghost_sys);
    }
  if (self->pending_t->len)
    cml_scene_renderer_push_trail_samples_timed (self->renderer, (double *) self->pending_t->data,
                                                 (double *) self->pending_rows->data,
                                                 self->pending_t->len, n_scene (self), 0);
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
  /* clear of the legend's corner and the buttons' (sizes in logical pixels, the view's
   * in device ones) */
  if (self->legend_w > 0 && !self->legend_folded)
    {
      /* at the size it is shown at (smaller in a short view: the body comes down) */
      double ls = legend_scale (self, (int) (width / scale), (int) (height / scale), NULL);

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
  const double *values = current_values (self);
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
  /* the markers follow the camera this frame used */
  cml_scene_steer_queue_draw (self->steer, self->sys, values);
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
  const double *values = current_values (self);
  prepare (self, values, image->width, image->height, scale);
  image->rgba = g_malloc ((gsize) image->width * image->height * 4);
  if (!cml_scene_renderer_draw_to_pixels (self->renderer, values, &self->camera, image->width,
                                          image->height, &self->style, image->rgba))
    return CML_GL_PROBE_FAILED;
  cml_scene_style_get_background (&self->style, image->background);
  return CML_GL_PROBE_DRAWN;
}

/* ---- dragging a body: the run starts where it is put -------------------------------------- */

/* The values of the names of SYS's model, by symbol id, for evaluating scene
 * expressions: the parameters of frame F (their defaults when F is of another system or
 * NULL), the observables OBS (every one) and the time T. */
static double *
symbol_values (CmlSystem *sys, CmlFrame *f, const double *obs, double t)
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
  return symbol_values (sys, f, f->obs, f->t);
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

  const double *v = current_values (self);
  if (v == NULL || uses_observables (self))
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
  g_signal_emit (self, signals[DRAG_INITIAL], 0, self->drag_names[0], x, self->drag_names[1], y, done);
}

gboolean
cml_scene_view_drag_body (CmlSceneView *self, double x0, double y0, double x1, double y1)
{
  const char *names[2];
  double c[3], from[3];

  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  self->arrow_drag = arrow_at (self, x0, y0, names, from, c);
  if (!self->arrow_drag && !body_at (self, x0, y0, names, c))
    return FALSE;
  self->drag_from[0] = self->arrow_drag ? from[0] : 0;
  self->drag_from[1] = self->arrow_drag ? from[1] : 0;
  g_free (self->drag_names[0]);
  g_free (self->drag_names[1]);
  self->drag_names[0] = g_strdup (names[0]);
  self->drag_names[1] = g_strdup (names[1]);
  self->drag_x = c[0], self->drag_y = c[1], self->drag_z = c[2];
  drag_body_to (self, x1, y1, TRUE);
  return TRUE;
}

static gboolean steering (CmlSceneView *self);

static void
on_motion (CmlSceneView *self, double x, double y, GtkEventControllerMotion *motion)
{
  const char *names[2];
  double c[3];
  double from[3];
  if (steering (self))
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
  const char *names[2];
  double c[3], from[3];

  self->drag_x = self->drag_y = 0;
  /* aiming (the toggle, or Shift held): a click sets the target, a drag turns the view */
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  self->aim_click = gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button))
                    && (steering (self) || (mods & GDK_SHIFT_MASK));
  if (self->aim_click)
    {
      self->body_drag = FALSE;
      return;
    }
  self->arrow_drag = arrow_at (self, x, y, names, from, c);
  self->body_drag = self->arrow_drag || body_at (self, x, y, names, c);
  if (self->body_drag)
    {
      self->drag_from[0] = self->arrow_drag ? from[0] : 0;
      self->drag_from[1] = self->arrow_drag ? from[1] : 0;
      g_free (self->drag_names[0]);
      g_free (self->drag_names[1]);
      self->drag_names[0] = g_strdup (names[0]);
      self->drag_names[1] = g_strdup (names[1]);
      self->drag_x = c[0], self->drag_y = c[1], self->drag_z = c[2];
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
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), steering (self) ? "crosshair" : "grab");
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

/* ---- steering to a target ------------------------------------------------------------------ */

static gboolean
steering (CmlSceneView *self)
{
  return gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button)) && gtk_toggle_button_get_active (self->steer_button);
}

static void
on_steer_toggled (CmlSceneView *self, GtkToggleButton *button)
{
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), steering (self) ? "crosshair" : "grab");
}

/* The toggle can aim where the scene draws something at plain coordinates (else its
 * tooltip says why not). */
static void
update_steer_button (CmlSceneView *self)
{
  gboolean ok;
  g_autofree char *tip = cml_scene_steer_button_tip (self->sys, &ok);

  gtk_widget_set_sensitive (GTK_WIDGET (self->steer_button), ok);
  /* the on-screen style does not grey out what cannot be used: faded, it says so */
  gtk_widget_set_opacity (GTK_WIDGET (self->steer_button), ok ? 1.0 : 0.5);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->steer_button), tip);
  /* steering is for extremals: a system of another kind does not show the button at all
   * (a vakonomic one whose scene has nothing to aim at shows it faded, with the reason) */
  gtk_widget_set_visible (GTK_WIDGET (self->steer_button),
                          self->sys != NULL && cml_system_get_formalism (self->sys) == CML_FORMALISM_VAKONOMIC);
  if (!ok)
    gtk_toggle_button_set_active (self->steer_button, FALSE);
}

gboolean
cml_scene_view_aim_at (CmlSceneView *self, double wx, double wy)
{
  double p[3];

  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  if (self->style.table_frame && gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button)))
    {
      cml_scene_steer_set_note (self->steer, CML_STEER_NOTE_NONE,
                                _("Targets are set in the lab frame: turn Table Frame off to aim."), NULL);
      return FALSE;
    }
  if (uses_observables (self)
      || !cml_scene_steer_point_at (self->steer, self->sys, current_values (self),
                                    gtk_widget_get_width (GTK_WIDGET (self->area)),
                                    gtk_widget_get_height (GTK_WIDGET (self->area)), wx, wy, p))
    return FALSE;
  g_signal_emit (self, signals[STEER_TARGET], 0, p[0], p[1], p[2]);
  return TRUE;
}

void
cml_scene_view_set_steering (CmlSceneView *self, gboolean on)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  gtk_toggle_button_set_active (self->steer_button, on && gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button)));
}

gboolean
cml_scene_view_get_can_steer (CmlSceneView *self, const char **why)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  if (why)
    *why = gtk_widget_get_tooltip_text (GTK_WIDGET (self->steer_button));
  return gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button));
}

void
cml_scene_view_set_steer_note (CmlSceneView *self, CmlSteerNote kind, const char *markup, const char *tooltip)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  cml_scene_steer_set_note (self->steer, kind, markup, tooltip);
}

void
cml_scene_view_set_steer_conjugate_note (CmlSceneView *self, const char *markup, gboolean symbol)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  cml_scene_steer_set_conjugate_note (self->steer, markup, symbol);
}

const char *
cml_scene_view_get_steer_note (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), NULL);
  return cml_scene_steer_get_note (self->steer);
}

const char *
cml_scene_view_get_steer_conjugate_note (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), NULL);
  return cml_scene_steer_get_conjugate_note (self->steer);
}

void
cml_scene_view_set_steer_markers (CmlSceneView *self, const double *target, const double *points, guint n)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  cml_scene_steer_set_markers (self->steer, target, points, n);
  cml_scene_view_frame_run (self);
}

gboolean
cml_scene_view_get_steer_markers (CmlSceneView *self, double target[3], guint *n)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  return cml_scene_steer_get_markers (self->steer, target, n);
}

void
cml_scene_view_set_steer_path (CmlSceneView *self, const double *points, guint n)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  cml_scene_steer_set_path (self->steer, points, n);
}

guint
cml_scene_view_get_steer_path_length (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), 0);
  return cml_scene_steer_get_path_length (self->steer);
}

gboolean
cml_scene_view_get_steer_target_hidden (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  return cml_scene_steer_get_target_hidden (self->steer);
}

const char *
cml_scene_view_get_steer_tooltip (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), NULL);
  return cml_scene_steer_get_tooltip (self->steer);
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
  signals[DRAG_INITIAL] = g_signal_new ("drag-initial", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 5, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_STRING,
                                        G_TYPE_DOUBLE, G_TYPE_BOOLEAN);
  /* ::steer-target (x, y, z): a click while aiming — the aimed scene object
   * (cml_scene_aim_find) should be there at the end of the run */
  signals[STEER_TARGET] = g_signal_new ("steer-target", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-scene-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, overlay);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, table_frame_button);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, corner_buttons);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, legend_button);
  gtk_widget_class_bind_template_callback (widget_class, on_legend_toggled);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, steer_button);
  gtk_widget_class_bind_template_child (widget_class, CmlSceneView, legend);
  gtk_widget_class_bind_template_callback (widget_class, on_area_realize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_unrealize);
  gtk_widget_class_bind_template_callback (widget_class, on_area_render);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_begin);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_update);
  gtk_widget_class_bind_template_callback (widget_class, on_drag_end);
  gtk_widget_class_bind_template_callback (widget_class, on_click_pressed);
  gtk_widget_class_bind_template_callback (widget_class, on_scroll);
  gtk_widget_class_bind_template_callback (widget_class, on_table_frame_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_steer_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_clicked);

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
  gtk_drawing_area_set_draw_func (self->legend, legend_draw, self, NULL);
  g_signal_connect (self->overlay, "get-child-position", G_CALLBACK (legend_position), self);
  self->ghost_legend = gtk_label_new (NULL);
  gtk_widget_set_halign (self->ghost_legend, GTK_ALIGN_START);
  gtk_widget_set_valign (self->ghost_legend, GTK_ALIGN_START);
  gtk_widget_set_margin_start (self->ghost_legend, LEGEND_MARGIN);
  gtk_widget_set_margin_top (self->ghost_legend, LEGEND_MARGIN);
  gtk_widget_add_css_class (self->ghost_legend, "ghost-legend");
  gtk_widget_set_can_target (self->ghost_legend, FALSE);
  gtk_widget_set_visible (self->ghost_legend, FALSE);
  GtkWidget *corner = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_halign (corner, GTK_ALIGN_START);
  gtk_widget_set_valign (corner, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (corner), self->ghost_legend);
  self->steer = cml_scene_steer_new (self->overlay, GTK_BOX (corner), LEGEND_MARGIN, &self->camera, &self->style);
  gtk_overlay_add_overlay (self->overlay, corner);
  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect_swapped (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
  update_steer_button (self);
  update_legend (self);
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
  update_steer_button (self);
  cml_scene_view_set_steer_markers (self, NULL, NULL, 0);
  cml_scene_view_set_steer_note (self, CML_STEER_NOTE_NONE, NULL, NULL);
  cml_scene_view_set_show_reference (self, self->show_reference);
  update_legend (self);
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
  reference_now (self, frame);
  keep_last_good (self);

  const double *values = current_values (self);
  if (values && !self->samples_pushed)
    {
      /* nobody pushes history: one trail point per new frame; a new run starts over */
      if (frame->generation != self->last_generation || frame->t < self->last_frame_t)
        cml_scene_view_clear_trails (self);
      if (frame->t > self->last_frame_t)
        feed_trails (self, &frame->t, values, 1, n_scene (self), 0);
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
  feed_trails (self, t, rows, n, n_cols, uses_observables (self) ? 0 : n_obs);
  if (t)
    reference_feed (self, t, rows, n, n_cols, n_obs);
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
  update_legend (self);
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
  update_legend (self);
}

void
cml_scene_view_set_text_scale (CmlSceneView *self, double scale)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  scale = MAX (scale, 1.0);
  if (scale == self->text_scale)
    return;
  self->text_scale = scale;
  update_legend (self);
}

double
cml_scene_view_get_legend_font (CmlSceneView *self)
{
  CmlSceneStyle style;
  double w, h;

  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), 0);
  style = legend_style (self);
  if (!cml_scene_legend_measure (self->sys, &style, &w, &h))
    return 0;
  /* the legend as drawn (or, folded, as it shows when opened): smaller where the view is
   * narrower than it or short (legend_scale) */
  return cml_scene_legend_font_size (&style) * legend_scale (self, self->legend_room, self->legend_room_h, NULL);
}

void
cml_scene_view_set_dark (CmlSceneView *self, gboolean dark)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->style.dark = !!dark;
  update_legend (self);
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

/* ---- a second run ------------------------------------------------------------------------ */

void
cml_scene_view_set_ghost (CmlSceneView *self, CmlSystem *sys, const char *label)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->ghost_sys, cml_system_unref);
  self->ghost_sys = sys;
  g_clear_pointer (&self->ghost_frame, cml_frame_unref);
  self->ghost_last_t = -INFINITY;
  if (gtk_widget_get_realized (GTK_WIDGET (self->area)) && self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->ghost_renderer, cml_scene_renderer_free);
      if (sys)
        {
          self->ghost_renderer = renderer_for (sys);
        }
    }
  g_free (self->ghost_label);
  self->ghost_label = sys ? g_strdup (label ? label : "other") : NULL;
  update_faint_note (self);
  gtk_gl_area_queue_render (self->area);
}

void
cml_scene_view_set_ghost_frame (CmlSceneView *self, CmlFrame *frame)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (frame)
    cml_frame_ref (frame);
  g_clear_pointer (&self->ghost_frame, cml_frame_unref);
  self->ghost_frame = frame;
}

void
cml_scene_view_push_ghost_samples (CmlSceneView *self, const double *t, const double *rows, guint n,
                                   guint n_cols, guint n_obs)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  if (self->ghost_renderer == NULL || self->ghost_sys == NULL || n == 0)
    return;
  /* a time before the trail's newest starts the second run over */
  if (t && t[0] < self->ghost_last_t)
    cml_scene_renderer_clear_trails (self->ghost_renderer);
  self->ghost_last_t = t ? t[n - 1] : self->ghost_last_t;
  guint offset = cml_scene_values_are_observables (self->ghost_sys) ? 0 : n_obs;
  cml_scene_renderer_push_trail_samples_timed (self->ghost_renderer, t, rows, n, n_cols, offset);
}

void
cml_scene_view_clear_ghost_trails (CmlSceneView *self)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->ghost_last_t = -INFINITY;
  if (self->ghost_renderer)
    cml_scene_renderer_clear_trails (self->ghost_renderer);
}

const char *
cml_scene_view_get_ghost_note (CmlSceneView *self)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), NULL);
  return gtk_widget_get_visible (self->ghost_legend) ? gtk_label_get_text (GTK_LABEL (self->ghost_legend)) : NULL;
}

/* ---- the closed form, drawn faint ----------------------------------------------------------- */

/* The scene that the observables OBS make at time T, with those that have a closed form
 * replaced by it, into OUT (the renderer's values: scene values, or the observables for
 * the default picture). */
static void
reference_scene (CmlSceneView *self, double t, const double *obs, double *out)
{
  CmlModel *model = cml_system_get_model (self->sys);
  guint n_obs = cml_system_n_observables (self->sys);
  guint n_ref = cml_reference_get_n (self->reference);
  g_autofree double *values = g_new (double, MAX (n_ref, 1));
  g_autofree double *o = g_memdup2 (obs, n_obs * sizeof (double));

  cml_reference_eval (self->reference, t, values);
  for (guint i = 0; i < n_ref; i++)
    {
      int k = cml_reference_get_observable (self->reference, i);
      if (k >= 0 && (guint) k < n_obs)
        o[k] = values[i];
    }
  if (cml_scene_values_are_observables (self->sys))
    {
      memcpy (out, o, n_obs * sizeof (double));
      return;
    }
  /* every property of every scene object, evaluated again at those values */
  g_autofree double *vals = symbol_values (self->sys, self->frame, o, t);
  for (guint k = 0; k < model->scene->len; k++)
    {
      CmlSceneObject *so = g_ptr_array_index (model->scene, k);
      GHashTableIter it;
      gpointer key, exprs;
      g_hash_table_iter_init (&it, so->props);
      while (g_hash_table_iter_next (&it, &key, &exprs))
        {
          int off = cml_system_scene_offset (self->sys, k, key);
          GPtrArray *e = exprs;
          for (guint j = 0; off >= 0 && j < e->len; j++)
            out[off + j] = cml_expr_eval (e->pdata[j], vals);
        }
    }
}

/* The closed form starts where the run does: its first row. */
static void
reference_feed (CmlSceneView *self, const double *t, const double *rows, guint n, guint n_cols, guint n_obs)
{
  if (self->reference == NULL || n == 0)
    return;
  CmlModel *model = cml_system_get_model (self->sys);
  guint ns = n_scene (self);
  g_autofree double *params = g_new (double, MAX (model->params->len, 1));
  CmlFrame *f = self->frame;
  for (guint k = 0; k < model->params->len; k++)
    params[k] = f && f->system == self->sys && k < f->n_params ? f->params[k]
                                                                : ((CmlParam *) model->params->pdata[k])->value;
  g_autofree double *out = g_new (double, (gsize) n * MAX (ns, 1));
  guint m = 0;
  for (guint i = 0; i < n; i++)
    {
      const double *row = rows + (gsize) i * n_cols;
      if (t[i] == 0 || t[i] < self->ref_last_t)
        {
          /* a new run: the closed form starts again, its trail too */
          cml_reference_start (self->reference, params, row);
          if (self->ref_renderer)
            cml_scene_renderer_clear_trails (self->ref_renderer);
          m = 0;
        }
      self->ref_last_t = t[i];
      if (!cml_reference_is_started (self->reference))
        continue;
      reference_scene (self, t[i], row, out + (gsize) m * ns);
      m++;
      /* (the rows before a restart in this batch were dropped with the trail) */
    }
  if (self->ref_renderer && m > 0)
    cml_scene_renderer_push_trail_samples_timed (self->ref_renderer, t + (n - m), out, m, ns, 0);
}

/* The closed form's scene at FRAME, for drawing. */
static void
reference_now (CmlSceneView *self, CmlFrame *frame)
{
  g_clear_pointer (&self->ref_now, g_free);
  if (self->reference == NULL || frame == NULL || frame->system != self->sys
      || !cml_reference_is_started (self->reference) || frame->n_obs != cml_system_n_observables (self->sys))
    return;
  self->ref_now = g_new (double, MAX (n_scene (self), 1));
  reference_scene (self, frame->t, frame->obs, self->ref_now);
}

void
cml_scene_view_set_show_reference (CmlSceneView *self, gboolean show)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));

  self->show_reference = !!show;
  g_clear_pointer (&self->reference, cml_reference_free);
  g_clear_pointer (&self->ref_now, g_free);
  self->ref_last_t = INFINITY;
  if (show && self->sys)
    self->reference = cml_reference_new (self->sys, NULL);
  update_faint_note (self);
  if (gtk_widget_get_realized (GTK_WIDGET (self->area)) && self->renderer)
    {
      gtk_gl_area_make_current (self->area);
      g_clear_pointer (&self->ref_renderer, cml_scene_renderer_free);
      if (self->reference)
        {
          self->ref_renderer = renderer_for (self->sys);
        }
    }
  gtk_gl_area_queue_render (self->area);
}

gboolean
cml_scene_view_get_reference_scene (CmlSceneView *self, const double **values, guint *n)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), FALSE);
  if (self->ref_now == NULL)
    return FALSE;
  *values = self->ref_now;
  *n = n_scene (self);
  return TRUE;
}
