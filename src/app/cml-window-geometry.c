/* cml-window-geometry.c — the window's Geometry page: the side stack's page "geometry" (after
 * "sweep"), its fans started from the run's parameters, integrator and initial values, a
 * click on its wavefront starting the run on that extremal: the extremal's momenta given
 * as initial values through the parameter panel, as "Apply & restart" gives them (one step
 * to undo).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-geometry.h"

#include <glib/gi18n.h>

#include "cml-scene-fan.h"
#include "cml-scene-shoot.h"
#include "cml-window-private.h"

CmlGeometryView *
cml_window_geometry_view (CmlWindow *self)
{
  GtkWidget *page = self->side_stack ? gtk_stack_get_child_by_name (self->side_stack, "geometry") : NULL;
  return page ? CML_GEOMETRY_VIEW (page) : NULL;
}

/* What a fan starts from besides the parameters: the run's integrator and initial values. */
static GHashTable *
run_source (gpointer data, CmlIntegratorOptions *iopt)
{
  CmlWindow *self = data;
  *iopt = self->integrator;
  return cml_parameter_panel_get_given (self->parameter_panel);
}

/* a click on the wavefront: the run starts on that extremal */
static void
on_extremal_picked (CmlWindow *self, guint i, CmlGeometryView *view)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) values = cml_geometry_view_initial_values (view, i);
  if (values && !cml_parameter_panel_start_from (self->parameter_panel, values, &error))
    cml_window_show_toast (self, error->message);
}

/* the fan drawn changed: its paths over the 3-D scene, where the scene draws a point at three
 * of the fan's coordinates (as steering aims: a trail or point at plain coordinates) */
G_STATIC_ASSERT (CML_GEOMETRY_PATH_SAMPLES == CML_SCENE_FAN_SAMPLES);
G_STATIC_ASSERT (CML_GEOMETRY_MAX_PATHS <= CML_SCENE_FAN_MAX_CURVES);

static void
on_fan_changed (CmlWindow *self, CmlGeometryView *view)
{
  guint n = 0, S = CML_GEOMETRY_PATH_SAMPLES;
  double t0 = 0, t_end = 0;
  const double *paths = cml_geometry_view_get_paths (view, &n, &t0, &t_end);
  const CmlExploreResult *res = paths ? cml_geometry_view_get_result (view) : NULL;
  CmlSceneAim aim;
  int idx[3] = { -1, -1, -1 };
  if (res && self->system && cml_scene_aim_find (self->system, &aim, NULL) && aim.n == 3)
    for (guint j = 0; j < 3; j++)
      for (guint c = 0; c < res->n_coords; c++)
        if (g_strcmp0 (res->coord_names[c], aim.names[j]) == 0)
          idx[j] = c;
  if (idx[0] < 0 || idx[1] < 0 || idx[2] < 0)
    {
      cml_scene_view_set_fan (self->scene_view, NULL, 0, 0, 0);
      return;
    }
  g_autofree double *pts = g_new (double, (gsize) n * S * 3);
  for (gsize k = 0; k < (gsize) n * S; k++)
    for (guint j = 0; j < 3; j++)
      pts[3 * k + j] = paths[k * res->n_coords + idx[j]];
  cml_scene_view_set_fan (self->scene_view, pts, n, t0, t_end);
}

void
cml_window_geometry_init (CmlWindow *self)
{
  GtkWidget *page = cml_geometry_view_new ();

  gtk_stack_add_titled (self->side_stack, page, "geometry", _("Geometry"));
  cml_geometry_view_set_run_source (CML_GEOMETRY_VIEW (page), run_source, self);
  g_signal_connect_swapped (page, "extremal-picked", G_CALLBACK (on_extremal_picked), self);
  g_signal_connect_swapped (page, "fan-changed", G_CALLBACK (on_fan_changed), self);
  /* shown once a vakonomic model is */
  gtk_stack_page_set_visible (gtk_stack_get_page (self->side_stack, page), FALSE);
  gtk_widget_set_visible (page, FALSE);
}

typedef struct
{
  CmlWindow *win;
  int        tries;
} PendingFan;

static void
pending_fan_free (gpointer data)
{
  PendingFan *p = data;
  if (p->win)
    g_object_remove_weak_pointer (G_OBJECT (p->win), (gpointer *) &p->win);
  g_free (p);
}

/* Starts the fan once the runner shows the chosen system (a few frames after start). */
static gboolean
start_pending_fan (gpointer data)
{
  PendingFan *p = data;
  g_autoptr (GError) error = NULL;

  if (p->win == NULL)
    return G_SOURCE_REMOVE; /* the window is gone */
  if (p->win->shown_system != p->win->system && p->tries++ < 100)
    return G_SOURCE_CONTINUE;
  CmlGeometryView *view = cml_window_geometry_view (p->win);
  if (view == NULL || !cml_geometry_view_is_available (view))
    return G_SOURCE_REMOVE;
  /* (the page asked for could not be shown while the tab was hidden) */
  gtk_stack_set_visible_child_name (p->win->side_stack, "geometry");
  if (!cml_geometry_view_start (view, &error))
    g_printerr ("cmlab: %s\n", error->message);
  return G_SOURCE_REMOVE;
}

void
cml_window_geometry_run_when_ready (CmlWindow *self)
{
  PendingFan *p = g_new0 (PendingFan, 1);
  p->win = self;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &p->win);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 50, start_pending_fan, p, pending_fan_free);
}

/* The tab's tooltip: what the page shows (set again after each change of the page, which
 * rebuilds the switcher's button without it). */
static void
set_tab_tooltip (CmlWindow *self)
{
  /* the page's button: the last one, as the page is */
  GtkWidget *button = gtk_widget_get_last_child (GTK_WIDGET (self->side_switcher));
  if (button)
    gtk_widget_set_tooltip_text (button, _("The extremals from the start point: where they are at time T (the "
                                           "wavefront), and where they stop being optimal"));
}

void
cml_window_geometry_set_system (CmlWindow *self, CmlSystem *sys)
{
  CmlGeometryView *view = cml_window_geometry_view (self);
  if (view == NULL)
    return;
  cml_geometry_view_set_system (view, sys, self->runner);
  /* the tab only where the page applies: four tabs fit a 1024-pixel projector better */
  gboolean available = cml_geometry_view_is_available (view);
  GtkStackPage *page = gtk_stack_get_page (self->side_stack, GTK_WIDGET (view));
  gtk_stack_page_set_visible (page, available);
  /* (and the page itself: a hidden one takes no part in the stack's size) */
  gtk_widget_set_visible (GTK_WIDGET (view), available);
  set_tab_tooltip (self);
}

void
cml_window_geometry_stop (CmlWindow *self)
{
  CmlGeometryView *view = cml_window_geometry_view (self);
  if (view)
    cml_geometry_view_set_system (view, NULL, NULL);
}
