/* cml-window-run-controls.c — the run's controls in the header bar: play, the speed, the
 * integrator and beside it its tolerance (adaptive methods) or its step (fixed-step ones).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include <math.h>

#include "cml-error.h"
#include "cml-integrator-for-system.h"

const double cml_window_speeds[CML_N_SPEEDS] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100 };
const double cml_window_tolerances[CML_N_TOLERANCES] = { 1e-6, 1e-8, 1e-10, 1e-12 };
const double cml_window_steps[CML_N_STEPS] = { 0.2, 0.1, 0.05, 0.01, 0.001 };

/* ---- run controls ---------------------------------------------------------------------- */

void
cml_window_play (CmlWindow *self)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  if (self->runner)
    cml_runner_play (self->runner);
  cml_window_compare_play (self, TRUE);
}

void
cml_window_set_speed_index (CmlWindow *self, guint index)
{
  index = MIN (index, CML_N_SPEEDS - 1);
  if (gtk_drop_down_get_selected (self->speed_dropdown) != index)
    {
      /* the dropdown's handler comes back here */
      gtk_drop_down_set_selected (self->speed_dropdown, index);
      return;
    }
  self->speed_index = index;
  if (self->runner)
    cml_runner_set_speed (self->runner, cml_window_speeds[index]);
  cml_window_compare_speed (self, cml_window_speeds[index]);
  cml_window_update_actions (self);
}

void
cml_window_on_speed_selected (CmlWindow *self)
{
  guint i = gtk_drop_down_get_selected (self->speed_dropdown);

  if (i < CML_N_SPEEDS)
    cml_window_set_speed_index (self, i);
}

double
cml_window_step_size (CmlWindow *self)
{
  /* what a tenth of a second shows at the current speed */
  return 0.1 * cml_window_speeds[self->speed_index];
}

gboolean
cml_window_set_integrator (CmlWindow *self, const char *name, double step, GError **error)
{
  CmlIntegratorKind kind;

  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);
  if (!cml_integrator_kind_from_string (name, &kind))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("there is no integrator “%s” (cmlab-cli list integrators)"),
                   name);
      return FALSE;
    }
  if (step > 0)
    {
      guint best = CML_DEFAULT_STEP_INDEX;
      for (guint k = 0; k < CML_N_STEPS; k++)
        if (fabs (log (step / cml_window_steps[k])) < fabs (log (step / cml_window_steps[best])))
          best = k;
      gtk_drop_down_set_selected (self->step_dropdown, best);
    }
  gtk_drop_down_set_selected (self->integrator_dropdown, kind);
  return TRUE;
}

/* Beside the integrator, its tolerance (adaptive methods) or its step (fixed-step ones);
 * neither in presentation mode. */
void
cml_window_show_integrator_choice (CmlWindow *self)
{
  gboolean fixed = cml_integrator_kind_is_fixed_step (self->integrator.kind);
  gboolean presentation = self->presentation;

  /* (not once the window's children are gone) */
  if (self->tolerance_dropdown == NULL || self->step_dropdown == NULL)
    return;
  gtk_widget_set_visible (GTK_WIDGET (self->tolerance_dropdown), !presentation && !fixed);
  gtk_widget_set_visible (GTK_WIDGET (self->step_dropdown), !presentation && fixed);
  /* "automatic" says which method it is for this system and tolerance, and why (the same
   * choice the run's simulation makes: it depends on nothing else) */
  if (self->integrator.kind == CML_INTEGRATOR_AUTO && self->system != NULL)
    {
      CmlIntegratorOptions chosen = self->integrator;
      cml_integrator_choose (self->system, &chosen);
      g_autofree char *what = cml_integrator_choice_describe (&chosen);
      /* TRANSLATORS: %s is an integrator's name and why it was chosen, e.g. "taylor (chosen: tolerance 1e-12, polynomial right-hand side)" */
      g_autofree char *tip = g_strdup_printf (_("Integrator chosen for this system and tolerance: %s"), what);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->integrator_dropdown), tip);
    }
  else
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->integrator_dropdown),
                                 _("Integrator: GSL steppers with error control; or, at a fixed step, the symmetric implicit midpoint rule (keeps quadratic invariants) and the variational integrators (for every model; they keep a symmetric model's Casimirs and momenta to rounding)"));
}

void
cml_window_on_integrator_selected (CmlWindow *self)
{
  guint kind = gtk_drop_down_get_selected (self->integrator_dropdown);
  guint tol = gtk_drop_down_get_selected (self->tolerance_dropdown);
  guint step = gtk_drop_down_get_selected (self->step_dropdown);

  if (kind >= CML_INTEGRATOR_N_KINDS || tol >= CML_N_TOLERANCES || step >= CML_N_STEPS)
    return;
  self->integrator.kind = kind;
  self->integrator.rtol = cml_window_tolerances[tol];
  self->integrator.atol = 1e-2 * cml_window_tolerances[tol];
  self->integrator.h_fixed = cml_window_steps[step];
  /* the fixed-step rules have a step instead of error control */
  cml_window_show_integrator_choice (self);
  if (self->runner)
    cml_runner_set_integrator (self->runner, &self->integrator);
  cml_window_compare_integrator (self, &self->integrator);
}
