/* cml-window-sweep.c — the window's Sweep page: the side stack's page "sweep", readied by a
 * parameter's "Sweep this parameter…", its sweeps started from the run's integrator and
 * initial values, a click on its curve setting the parameter as its slider does (one
 * step to undo).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-sweep.h"

#include "cml-window-private.h"

CmlSweepView *
cml_window_sweep_view (CmlWindow *self)
{
  GtkWidget *page = self->side_stack ? gtk_stack_get_child_by_name (self->side_stack, "sweep") : NULL;
  return page ? CML_SWEEP_VIEW (page) : NULL;
}

/* What a sweep starts from besides the parameters: the run's integrator and initial values. */
static GHashTable *
run_source (gpointer data, CmlIntegratorOptions *iopt)
{
  CmlWindow *self = data;
  *iopt = self->integrator;
  return cml_parameter_panel_get_given (self->parameter_panel);
}

/* "Sweep this parameter…": the page, readied for it */
static void
on_sweep_requested (CmlWindow *self, const char *name)
{
  if (cml_sweep_view_prepare (cml_window_sweep_view (self), name))
    gtk_stack_set_visible_child_name (self->side_stack, "sweep");
}

/* a click on the curve: the parameter set as its slider sets it */
static void
on_param_picked (CmlWindow *self, const char *name, double value)
{
  g_autoptr (GError) error = NULL;
  if (!cml_parameter_panel_set_param (self->parameter_panel, name, value, &error))
    cml_window_show_toast (self, error->message);
}

void
cml_window_sweep_init (CmlWindow *self)
{
  GtkWidget *page = cml_sweep_view_new ();

  gtk_stack_add_titled (self->side_stack, page, "sweep", "Sweep");
  cml_sweep_view_set_run_source (CML_SWEEP_VIEW (page), run_source, self);
  g_signal_connect_swapped (page, "param-picked", G_CALLBACK (on_param_picked), self);
  g_signal_connect_swapped (self->parameter_panel, "sweep-requested", G_CALLBACK (on_sweep_requested), self);
}

void
cml_window_sweep_stop (CmlWindow *self)
{
  CmlSweepView *view = cml_window_sweep_view (self);
  if (view)
    cml_sweep_view_set_system (view, NULL, NULL);
}
