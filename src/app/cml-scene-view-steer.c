/* cml-scene-view-steer.c — steering to a target in the 3-D view: while aiming, a
 * click emits ::steer-target; the target, the conjugate points and the path are marked
 * over the scene and a card says what they are (cml-scene-steer.h); and the Geometry
 * page's fan of extremals drawn over the scene (cml-scene-fan.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-scene-view"

#include "cml-scene-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

/* ---- steering to a target ------------------------------------------------------------------ */

gboolean
cml_scene_view_steering (CmlSceneView *self)
{
  return gtk_widget_get_sensitive (GTK_WIDGET (self->steer_button)) && gtk_toggle_button_get_active (self->steer_button);
}

static void
on_steer_toggled (CmlSceneView *self, GtkToggleButton *button)
{
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), cml_scene_view_steering (self) ? "crosshair" : "grab");
}

/* The toggle can aim where the scene draws something at plain coordinates (else its
 * tooltip says why not). */
void
cml_scene_view_update_steer_button (CmlSceneView *self)
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
  if (cml_scene_view_uses_observables (self)
      || !cml_scene_steer_point_at (self->steer, self->sys, cml_scene_view_current_values (self),
                                    gtk_widget_get_width (GTK_WIDGET (self->area)),
                                    gtk_widget_get_height (GTK_WIDGET (self->area)), wx, wy, p))
    return FALSE;
  g_signal_emit (self, cml_scene_view_signals[CML_SCENE_VIEW_STEER_TARGET], 0, p[0], p[1], p[2]);
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

void
cml_scene_view_set_fan (CmlSceneView *self, const double *points, guint n_curves, double t0, double t_end)
{
  g_return_if_fail (CML_IS_SCENE_VIEW (self));
  cml_scene_fan_set (self->fan, points, n_curves, t0, t_end);
  if (points && n_curves)
    cml_scene_view_frame_run (self);
}

guint
cml_scene_view_get_fan (CmlSceneView *self, guint *front_points)
{
  g_return_val_if_fail (CML_IS_SCENE_VIEW (self), 0);
  return cml_scene_fan_get_curves (self->fan, front_points);
}

void
cml_scene_view_steer_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_steer_toggled);
}
