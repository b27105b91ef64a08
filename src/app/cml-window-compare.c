/* cml-window-compare.c — two runs side by side: a second run drawn faint in the same
 * scene and plots.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The second run has a runner of its own and follows every run command of the first
 * (play, pause, step, seek, reversed time, speed, restart), so both move together from a
 * common t = 0.  What it is:
 *
 *   copy        this run as it is now — its parameters, initial values and integrator
 *               are frozen; change the first run and watch the two part;
 *   vakonomic   the same Lagrangian and constraints read by the vakonomic principle
 *               (cml-as-vakonomic.c), with the first run's parameters, initial values
 *               and integrator, the multipliers starting at zero;
 *   integrator  the same run with another integrator and tolerance (rkf45 at 10⁻⁶, or
 *               rk8pd at 10⁻¹⁰ when the first run already uses rkf45): the invariants'
 *               drift curves side by side.  A first run with a fixed-step method gets the
 *               classical Runge–Kutta method at the same step (rk4-fixed; the implicit
 *               midpoint rule when the first run is that one): what a structure-preserving
 *               method keeps, next to one that does not, step for step.  The plot against
 *               time shows both runs' drift of the invariants on a logarithmic scale
 *               (cml-plot-view-compare.c), each named by its method and step; a new
 *               choice of integrator starts the comparison again.
 *
 * The vakonomic reading is a second system to derive: that is done on a worker thread
 * (cml-window-derive.c, with the card over the view) while the first run goes on; a
 * change of model gives the wait up.
 *
 * The scene draws the second run translucent with its own trail, the plots draw its
 * quantities faint under the first run's (or their difference); the legends name it.
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include <math.h>

#include "cml-as-vakonomic.h"
#include "cml-error.h"

/* rows read per tick at most (as the first run's history buffer) */
#define GHOST_ROWS 4096

/* GIVEN as the second run takes it: the vakonomic reading has no initial values for the
 * constrained velocities (its graph gives them), so those are left out. */
static GHashTable *
given_for_ghost (CmlWindow *self, GHashTable *given)
{
  GHashTable *from = self->ghost_kind == CML_COMPARE_COPY ? self->ghost_given : given;
  GHashTable *copy = from ? cml_window_copy_values (from) : NULL;
  if (copy == NULL || self->ghost_kind != CML_COMPARE_VAKONOMIC)
    return copy;
  CmlModel *model = cml_system_get_model (self->ghost_system);
  for (guint j = 0; j < model->constraints->len; j++)
    g_hash_table_remove (copy, ((CmlNamedExpr *) g_ptr_array_index (model->constraints, j))->name);
  return copy;
}

static void
other_integrator (const CmlIntegratorOptions *first, CmlIntegratorOptions *other)
{
  *other = *first;
  if (first->kind == CML_INTEGRATOR_RK4_FIXED)
    other->kind = CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  else if (cml_integrator_kind_is_fixed_step (first->kind))
    other->kind = CML_INTEGRATOR_RK4_FIXED;
  else if (first->kind == CML_INTEGRATOR_RKF45)
    {
      other->kind = CML_INTEGRATOR_RK8PD;
      other->rtol = 1e-10;
      other->atol = 1e-12;
    }
  else
    {
      other->kind = CML_INTEGRATOR_RKF45;
      other->rtol = 1e-6;
      other->atol = 1e-8;
    }
}

/* A run's integrator as the legend names it, in words: "variational (h = 0.01)". */
static char *
integrator_label (const CmlIntegratorOptions *o)
{
  switch (o->kind)
    {
    case CML_INTEGRATOR_VARIATIONAL:
      /* TRANSLATORS: the discrete variational integrator (order 2) and its fixed time step */
      return g_strdup_printf (_("variational (h = %g)"), o->h_fixed);
    case CML_INTEGRATOR_VARIATIONAL4:
      /* TRANSLATORS: the fourth-order discrete variational integrator and its fixed time step */
      return g_strdup_printf (_("variational, order 4 (h = %g)"), o->h_fixed);
    case CML_INTEGRATOR_RK4_FIXED:
      /* TRANSLATORS: the classical fourth-order Runge–Kutta method and its fixed time step */
      return g_strdup_printf (_("classical Runge–Kutta (h = %g)"), o->h_fixed);
    case CML_INTEGRATOR_IMPLICIT_MIDPOINT:
      /* TRANSLATORS: the implicit midpoint rule and its fixed time step */
      return g_strdup_printf (_("implicit midpoint (h = %g)"), o->h_fixed);
    case CML_INTEGRATOR_RK8PD:
    case CML_INTEGRATOR_RKF45:
    case CML_INTEGRATOR_RKCK:
    case CML_INTEGRATOR_RK4:
    case CML_INTEGRATOR_MSADAMS:
    case CML_INTEGRATOR_MSBDF:
    case CML_INTEGRATOR_TAYLOR:
    case CML_INTEGRATOR_DOP853:
    case CML_INTEGRATOR_AUTO:
    case CML_INTEGRATOR_N_KINDS:
      break;
    }
  if (cml_integrator_kind_is_fixed_step (o->kind))
    /* TRANSLATORS: an integrator's name (not translated) and its fixed time step */
    return g_strdup_printf (_("%s, step %g"), cml_integrator_kind_to_string (o->kind), o->h_fixed);
  /* TRANSLATORS: an integrator's name (not translated) and its relative tolerance */
  return g_strdup_printf (_("%s, tolerance %.0e"), cml_integrator_kind_to_string (o->kind), o->rtol);
}

void
cml_window_compare_stop (CmlWindow *self)
{
  g_return_if_fail (CML_IS_WINDOW (self));

  cml_window_derive_compare_cancel (self);
  g_clear_pointer (&self->ghost_runner, cml_runner_free);
  g_clear_pointer (&self->ghost_system, cml_system_unref);
  g_clear_pointer (&self->ghost_label, g_free);
  g_clear_pointer (&self->ghost_given, g_hash_table_unref);
  g_clear_pointer (&self->ghost_t, g_free);
  g_clear_pointer (&self->ghost_rows, g_free);
  self->ghost_kind = CML_COMPARE_NONE;
  self->ghost_cursor = 0;
  self->ghost_cols = 0;
  cml_plot_view_set_show_drift (self->time_plot, FALSE, NULL);
  cml_plot_view_set_ghost (self->time_plot, NULL, NULL);
  cml_plot_view_set_ghost (self->phase_plot, NULL, NULL);
  cml_scene_view_set_ghost (self->scene_view, NULL, NULL);
  cml_window_compare_update_actions (self);
}

/* The second run of KIND with SYS (taken), begun from t = 0 together with the first. */
static gboolean
compare_install (CmlWindow *self, CmlCompareKind kind, CmlSystem *sys, GError **error)
{
  CmlModel *model = cml_system_get_model (self->system);
  CmlIntegratorOptions integrator = self->integrator;
  g_autofree char *label = NULL;

  switch (kind)
    {
    case CML_COMPARE_VAKONOMIC:
      label = g_strdup ("vakonomic");
      break;
    case CML_COMPARE_INTEGRATOR:
      other_integrator (&self->integrator, &integrator);
      label = integrator_label (&integrator);
      break;
    case CML_COMPARE_COPY:
    case CML_COMPARE_NONE: /* (not asked for: install is called with a kind to compare) */
      label = g_strdup ("copy");
      break;
    }

  CmlFrame *frame = cml_runner_get_frame (self->runner);
  CmlRunnerOptions options = cml_runner_options_default ();
  options.speed = frame->speed;
  CmlRunner *ghost = cml_runner_new (sys, &options, error);
  if (ghost == NULL)
    {
      cml_frame_unref (frame);
      cml_system_unref (sys);
      return FALSE;
    }

  self->ghost_runner = ghost;
  self->ghost_system = sys;
  self->ghost_kind = kind;
  self->ghost_label = g_steal_pointer (&label);
  self->ghost_given = kind == CML_COMPARE_COPY && self->run_given ? cml_window_copy_values (self->run_given) : NULL;
  self->ghost_cols = cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
  self->ghost_t = g_new (double, GHOST_ROWS);
  self->ghost_rows = g_new (double, (gsize) GHOST_ROWS * MAX (self->ghost_cols, 1));
  self->ghost_cursor = 0;
  self->ghost_failures = 0;

  /* the first run's parameters, as they are now (the vakonomic reading has the same) */
  CmlModel *ghost_model = cml_system_get_model (sys);
  for (guint k = 0; k < frame->n_params && k < model->params->len; k++)
    {
      const CmlParam *p = g_ptr_array_index (model->params, k);
      if (cml_model_find_param (ghost_model, p->name))
        cml_runner_set_param (ghost, p->name, frame->params[k]);
    }
  cml_runner_set_integrator (ghost, &integrator);
  gboolean running = frame->state == CML_RUNNER_RUNNING;
  cml_frame_unref (frame);

  cml_plot_view_set_ghost (self->time_plot, sys, self->ghost_label);
  cml_plot_view_set_ghost (self->phase_plot, sys, self->ghost_label);
  /* another integrator: the plot against time shows how far each lets the invariants
   * drift, on a logarithmic scale (the quantities themselves differ by less than a line) */
  if (kind == CML_COMPARE_INTEGRATOR)
    {
      g_autofree char *mine = integrator_label (&self->integrator);
      cml_plot_view_set_show_drift (self->time_plot, TRUE, mine);
    }
  cml_scene_view_set_ghost (self->scene_view, sys, self->ghost_label);

  /* both from t = 0 together */
  cml_runner_reset (self->runner, self->run_given);
  g_autoptr (GHashTable) given = given_for_ghost (self, self->run_given);
  cml_runner_reset (ghost, given);
  if (running)
    cml_window_play (self);
  cml_window_compare_update_actions (self);
  return TRUE;
}

/* The vakonomic reading of MODEL (one per model, so that its system is derived once). */
static CmlModel *
vakonomic_of (CmlWindow *self, CmlModel *model, GError **error)
{
  CmlModel *vakonomic = g_hash_table_lookup (self->vakonomic_of, model);

  if (vakonomic)
    return vakonomic;
  vakonomic = cml_model_new_as_vakonomic (model, error);
  if (vakonomic)
    g_hash_table_insert (self->vakonomic_of, cml_model_ref (model), vakonomic);
  return vakonomic;
}

gboolean
cml_window_compare (CmlWindow *self, CmlCompareKind kind, GError **error)
{
  g_return_val_if_fail (CML_IS_WINDOW (self), FALSE);

  cml_window_compare_stop (self);
  if (kind == CML_COMPARE_NONE || self->runner == NULL || self->system == NULL)
    return TRUE;

  if (kind == CML_COMPARE_VAKONOMIC)
    {
      CmlModel *vakonomic = vakonomic_of (self, cml_system_get_model (self->system), error);
      CmlSystem *sys;

      if (vakonomic == NULL)
        return FALSE;
      sys = g_hash_table_lookup (self->systems, vakonomic);
      if (sys)
        return compare_install (self, kind, cml_system_ref (sys), error);
      /* a second system to derive: on a worker, while this run goes on */
      cml_window_derive_compare (self, vakonomic);
      return TRUE;
    }
  return compare_install (self, kind, cml_system_ref (self->system), error);
}

void
cml_window_compare_derived (CmlWindow *self, CmlSystem *system, const GError *error)
{
  g_autoptr (GError) install_error = NULL;

  g_return_if_fail (CML_IS_WINDOW (self));

  if (system && compare_install (self, CML_COMPARE_VAKONOMIC, cml_system_ref (system), &install_error))
    return;
  cml_window_show_error (self, _("Cannot compare these runs"), error ? error->message : install_error->message);
}

/* Hands a slice of rows (times increasing) to the views. */
static void
push_ghost (CmlWindow *self, guint start, guint end)
{
  if (end <= start)
    return;
  const double *t = self->ghost_t + start;
  const double *rows = self->ghost_rows + (gsize) start * self->ghost_cols;
  guint n_obs = cml_system_n_observables (self->ghost_system);
  cml_plot_view_push_ghost_samples (self->time_plot, t, rows, end - start, self->ghost_cols);
  cml_plot_view_push_ghost_samples (self->phase_plot, t, rows, end - start, self->ghost_cols);
  cml_scene_view_push_ghost_samples (self->scene_view, t, rows, end - start, self->ghost_cols, n_obs);
}

void
cml_window_compare_tick (CmlWindow *self)
{
  if (self->ghost_runner == NULL)
    return;

  CmlFrame *frame = cml_runner_get_frame (self->ghost_runner);
  cml_scene_view_set_ghost_frame (self->scene_view, frame);
  if (frame->state == CML_RUNNER_FAILED && self->ghost_failures == 0 && frame->message)
    {
      g_autofree char *text = g_strdup_printf (_("The %s run stopped at t = %.6g: %s"), self->ghost_label,
                                               frame->t, frame->message);
      self->ghost_failures++;
      cml_window_show_toast (self, text);
    }
  else if (frame->state != CML_RUNNER_FAILED)
    self->ghost_failures = 0;

  /* the plots say in words why the other run's curves end before this run's: it stopped,
   * or it is slower to compute and behind (by more than half a second of the run's pace) */
  CmlFrame *mine = cml_runner_get_frame (self->runner);
  g_autofree char *time_unit = cml_plot_format_unit (cml_system_get_model (self->system)->time_unit);
  g_autofree char *at = g_strdup_printf ("t = %.1f%s%s", frame->t, time_unit[0] ? " " : "", time_unit);
  g_autofree char *note = NULL;
  double behind = mine->direction < 0 ? frame->t - mine->t : mine->t - frame->t;
  if (frame->state == CML_RUNNER_FAILED)
    /* TRANSLATORS: the other run's name ("vakonomic") and the time it stopped ("t = 38.7 s") */
    note = g_strdup_printf (_("The %s run: stopped at %s, it could not go on"), self->ghost_label, at);
  else if (behind > MAX (1.0, 0.5 * mine->speed))
    /* TRANSLATORS: the other run's name ("vakonomic") and how far it has got ("t = 35.0 s") */
    note = g_strdup_printf (_("The %s run: only at %s, slower to compute"), self->ghost_label, at);
  cml_plot_view_set_ghost_note (self->time_plot, note);
  cml_plot_view_set_ghost_note (self->phase_plot, note);
  cml_frame_unref (mine);
  cml_frame_unref (frame);

  for (guint round = 0; round < 16; round++)
    {
      guint n = cml_runner_read_history (self->ghost_runner, &self->ghost_cursor, self->ghost_cols,
                                         self->ghost_t, self->ghost_rows, GHOST_ROWS, NULL);
      guint start = 0;
      /* a time that does not increase starts the run over: the views clear there */
      for (guint i = 1; i < n; i++)
        if (self->ghost_t[i] <= self->ghost_t[i - 1])
          {
            push_ghost (self, start, i);
            start = i;
          }
      push_ghost (self, start, n);
      if (n < GHOST_ROWS)
        break;
    }
}

/* ---- run commands, passed on ------------------------------------------------------------ */

void
cml_window_compare_play (CmlWindow *self, gboolean play)
{
  if (self->ghost_runner == NULL)
    return;
  if (play)
    cml_runner_play (self->ghost_runner);
  else
    cml_runner_pause (self->ghost_runner);
}

void
cml_window_compare_step (CmlWindow *self, double dt)
{
  if (self->ghost_runner)
    cml_runner_step (self->ghost_runner, dt);
}

void
cml_window_compare_step_back (CmlWindow *self, double dt)
{
  if (self->ghost_runner)
    cml_runner_step_back (self->ghost_runner, dt);
}

void
cml_window_compare_seek (CmlWindow *self, double t)
{
  if (self->ghost_runner)
    cml_runner_seek (self->ghost_runner, t);
}

void
cml_window_compare_reversed (CmlWindow *self, gboolean reversed)
{
  if (self->ghost_runner)
    cml_runner_set_reversed (self->ghost_runner, reversed);
}

void
cml_window_compare_speed (CmlWindow *self, double speed)
{
  if (self->ghost_runner)
    cml_runner_set_speed (self->ghost_runner, speed);
}

void
cml_window_compare_reset (CmlWindow *self, GHashTable *given)
{
  if (self->ghost_runner == NULL)
    return;
  g_autoptr (GHashTable) mine = given_for_ghost (self, given);
  cml_runner_reset (self->ghost_runner, mine);
  cml_scene_view_clear_ghost_trails (self->scene_view);
}

/* A copy keeps its parameters and integrator: that is what is compared.  The others
 * follow the first run's. */
void
cml_window_compare_param (CmlWindow *self, const char *name, double value)
{
  if (self->ghost_runner == NULL || self->ghost_kind == CML_COMPARE_COPY)
    return;
  if (cml_model_find_param (cml_system_get_model (self->ghost_system), name))
    cml_runner_set_param (self->ghost_runner, name, value);
}

/* The vakonomic reading follows the first run's integrator; another integrator is chosen
 * anew for it (the same step, for a fixed-step method), both runs again from t = 0. */
void
cml_window_compare_integrator (CmlWindow *self, const CmlIntegratorOptions *options)
{
  if (self->ghost_runner == NULL)
    return;
  if (self->ghost_kind == CML_COMPARE_VAKONOMIC)
    cml_runner_set_integrator (self->ghost_runner, options);
  else if (self->ghost_kind == CML_COMPARE_INTEGRATOR)
    {
      g_autoptr (GError) error = NULL;
      if (!cml_window_compare (self, CML_COMPARE_INTEGRATOR, &error))
        cml_window_show_error (self, _("Cannot compare these runs"), error->message);
    }
}

/* ---- actions ---------------------------------------------------------------------------- */

gboolean
cml_window_compare_with (CmlWindow *self, const char *what, GError **error)
{
  CmlCompareKind kind = g_str_equal (what, "copy")        ? CML_COMPARE_COPY
                        : g_str_equal (what, "vakonomic")  ? CML_COMPARE_VAKONOMIC
                        : g_str_equal (what, "integrator") ? CML_COMPARE_INTEGRATOR
                                                           : CML_COMPARE_NONE;

  if (kind == CML_COMPARE_NONE && !g_str_equal (what, "none"))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("compare with copy, vakonomic, integrator or none, not “%s”"), what);
      return FALSE;
    }
  return cml_window_compare (self, kind, error);
}

static void
compare_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  const char *what = g_variant_get_string (param, NULL);
  g_autoptr (GError) error = NULL;

  if (!cml_window_compare_with (self, what, &error))
    cml_window_show_error (self, _("Cannot compare these runs"), error->message);
  else if (g_str_equal (what, "copy"))
    cml_window_show_toast (self, _("A copy of this run is drawn faint: change a parameter or the initial "
                                 "values, and watch the two runs part"));
}

static void
difference_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  CmlWindow *self = CML_WINDOW (widget);
  gboolean show = !cml_plot_view_get_show_difference (self->time_plot);

  cml_plot_view_set_show_difference (self->time_plot, show);
  cml_plot_view_set_show_difference (self->phase_plot, show);
  cml_window_compare_update_actions (self);
}

void
cml_window_class_add_compare_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.compare", "s", compare_action);
  gtk_widget_class_install_action (widget_class, "win.compare-difference", NULL, difference_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, GDK_CONTROL_MASK, "win.compare", "s", "copy");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_k, GDK_CONTROL_MASK, "win.compare", "s", "vakonomic");
}

void
cml_window_compare_update_actions (CmlWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare-difference", self->ghost_runner != NULL);
}
