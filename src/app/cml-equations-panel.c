/* cml-equations-panel.c — what the system is and how well the run keeps its invariants.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The drift since t = 0 is shown for the monitors the conserved-quantity inspector
 * (cml-conserved.c) finds conserved, whatever the model declares; the inspector's list of
 * candidates, each with its verdict, follows the monitors.
 */
#define G_LOG_DOMAIN "cml-equations-panel"

#include "cml-equations-panel.h"

#include <glib/gi18n.h>

#include "cml-conserved.h"
#include "cml-equations-account.h"
#include "cml-simulation.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#define MAX_REG 16 /* regularity matrices up to 16×16 are checked live */

typedef struct
{
  char     *name;
  int       index;    /* observable index */
  GtkLabel *value;
  GtkLabel *drift;    /* NULL for a quantity that is not conserved: no drift to show */
} MonitorRow;

struct _CmlEquationsPanel
{
  GtkWidget          parent_instance;

  /* template */
  GtkScrolledWindow *scroller;
  GtkBox            *box;
  GtkLabel          *title_label;
  GtkBox            *about_box;
  GtkLabel          *about_label;
  GtkLabel          *citation_label;
  GtkLabel          *kind_label;
  GtkLabel          *algebroid_label;
  GtkLabel          *regularity_label;
  GtkLabel          *regularity_value_label;
  GtkLabel          *monitors_heading;
  GtkGrid           *monitor_grid;
  GtkLabel          *others_heading;
  GtkGrid           *others_grid;
  GtkLabel          *variables_heading;
  GtkGrid           *variables_grid;
  GtkBox            *steps_box;
  GtkLabel          *steps_label;
  GtkLabel          *warnings_label;
  GtkTextView       *equations_view;
  GtkLabel          *inspector_heading; /* the inspector's candidates (made in code) */
  GtkGrid           *inspector_grid;

  CmlSystem         *sys;
  CmlSimulation     *probe;     /* evaluates the regularity matrix at a frame's state */
  double            *probe_params;
  GPtrArray         *monitors;  /* MonitorRow* */
  double            *baseline;  /* observables at t = 0, or NULL */
  CmlConservedReport *report;   /* the inspector's verdicts, or NULL */
  CmlAccountJob     *report_job; /* the job REPORT came from (its candidates live in its context) */
  CmlAccountJob     *job;       /* the account being made on a worker (cml-equations-account.c) */
  CmlAccountJob     *rejob;     /* the verdicts judged again at new parameters */
  guint              reinspect_id; /* judges the candidates again at the new parameters */
  guint              n_obs;
  gboolean           built;     /* the account of sys is shown (see ensure_built) */
  guint              build_idle;
};

G_DEFINE_FINAL_TYPE (CmlEquationsPanel, cml_equations_panel, GTK_TYPE_WIDGET)

static void
monitor_row_free (MonitorRow *row)
{
  g_free (row->name);
  g_free (row);
}

/* The heading that starts a line of the account of the system (the message MSGID of
 * cml-describe.c, in the user's language): its text up to its first colon, with it. */
static char *
describe_heading (const char *msgid)
{
  const char *t = _(msgid);

  while (*t == '\n')
    t++;
  const char *colon = strchr (t, ':');
  return g_strndup (t, colon ? (gsize) (colon - t + 1) : strlen (t));
}

/* The rest of the line of TEXT that starts with the heading of MSGID, or NULL. */
static char *
describe_line (const char *text, const char *msgid)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *prefix = describe_heading (msgid);

  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strstrip (g_strdup (lines[i] + strlen (prefix)));
  return NULL;
}

static char *
capitalize (const char *s)
{
  char *c = g_strdup (s);

  if (*c)
    *c = g_ascii_toupper (*c);
  return c;
}

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))))
    gtk_grid_remove (grid, child);
}

static GtkLabel *
grid_label (GtkGrid *grid, const char *text, int col, int row, float xalign, const char *css)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  if (css)
    gtk_widget_add_css_class (label, css);
  gtk_grid_attach (grid, label, col, row, 1, 1);
  return GTK_LABEL (label);
}

/* "energy [J]": what a tooltip says first about NAME */
static char *
name_with_unit (CmlModel *model, const char *name)
{
  const char *unit = cml_model_unit (model, name);
  g_autofree char *shown = cml_expr_pretty_name (name, FALSE);

  if (*unit == '\0' || g_str_equal (unit, "1"))
    return g_steal_pointer (&shown);
  return g_strdup_printf ("%s [%s]", shown, unit);
}

/* A row of GRID for the observable NAME: its value, and with CONSERVED its drift. */
static void
add_monitor (CmlEquationsPanel *self, GtkGrid *grid, CmlModel *model, const char *name, gboolean conserved,
             const char *tip)
{
  MonitorRow *row;
  int k = cml_system_observable_index (self->sys, name);
  int r = 1;
  GtkLabel *name_label;
  g_autofree char *shown = NULL;
  const char *unit;

  if (k < 0)
    return;
  for (guint i = 0; i < self->monitors->len; i++)
    if ((((MonitorRow *) self->monitors->pdata[i])->drift != NULL) == conserved)
      r++;
  row = g_new0 (MonitorRow, 1);
  row->name = g_strdup (name);
  row->index = k;
  shown = g_str_equal (name, "residual") ? g_strdup (_("constraint residual")) : cml_expr_pretty_name (name, FALSE);
  name_label = grid_label (grid, shown, 0, r, 0, "monitor-name");
  if (tip)
    gtk_widget_set_tooltip_text (GTK_WIDGET (name_label), tip);
  row->value = grid_label (grid, "—", 1, r, 1, "numeric");
  unit = model ? cml_model_unit (model, name) : "";
  grid_label (grid, *unit && !g_str_equal (unit, "1") ? unit : "", 2, r, 0, "dim-label");
  if (conserved)
    row->drift = grid_label (grid, "—", 3, r, 1, "numeric");
  g_ptr_array_add (self->monitors, row);
}

static void
build_monitors (CmlEquationsPanel *self, CmlModel *model)
{
  GtkLabel *h;
  guint n_conserved = 0, n_other = 0;

  clear_grid (self->monitor_grid);
  clear_grid (self->others_grid);
  g_ptr_array_set_size (self->monitors, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->monitors_heading), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->monitor_grid), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->others_heading), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->others_grid), FALSE);
  if (self->sys == NULL)
    return;

  grid_label (self->monitor_grid, C_("column heading", "quantity"), 0, 0, 0, "dim-label");
  grid_label (self->monitor_grid, C_("column heading", "value"), 1, 0, 1, "dim-label");
  h = grid_label (self->monitor_grid, _("drift since t = 0"), 3, 0, 1, "dim-label");
  gtk_widget_set_tooltip_text (GTK_WIDGET (h),
                               _("value − value at t = 0 (and relative to it): a conserved quantity "
                               "should stay at round-off level"));
  grid_label (self->others_grid, C_("column heading", "quantity"), 0, 0, 0, "dim-label");
  grid_label (self->others_grid, C_("column heading", "value"), 1, 0, 1, "dim-label");

  for (guint i = 0; model->monitors && i < model->monitors->len; i++)
    {
      CmlNamedExpr *m = model->monitors->pdata[i];
      g_autofree char *expr = cml_expr_print_pretty (model->ctx, m->expr, 2000);
      g_autofree char *shown = name_with_unit (model, m->name);
      const char *meaning = cml_model_meaning (model, m->name);
      char *text = g_strdup_printf ("%s%s%s = %s", meaning ? meaning : "", meaning ? "\n\n" : "", shown, expr);

      const CmlConservedCandidate *c = cml_conserved_report_find (self->report, CML_CANDIDATE_MONITOR, m->name);
      /* the drift is shown for what the inspector finds conserved */
      gboolean conserved = c ? cml_conserved_verdict_is_conserved (c->verdict) : m->conserved;

      if (c && c->contradiction)
        {
          char *t = g_strdup_printf (_("%s\n\n⚠ Declared conserved by the model, but it is not: %s"), text, c->reason);
          g_free (text);
          text = t;
        }
      add_monitor (self, conserved ? self->monitor_grid : self->others_grid, model, m->name, conserved, text);
      if (conserved)
        n_conserved++;
      else
        n_other++;
      g_free (text);
    }
  if (cml_system_observable_index (self->sys, "residual") >= 0)
    {
      add_monitor (self, self->others_grid, model, "residual", FALSE,
                   _("norm of the constraint functions: how far the state is from the constraint set "
                   "(it should stay near 0)"));
      n_other++;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->monitors_heading), n_conserved > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->monitor_grid), n_conserved > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->others_heading), n_other > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->others_grid), n_other > 0);
}

/* The inspector's candidates: name, formula and verdict, with what each is and why in
 * their tooltips. */
static void
build_inspector (CmlEquationsPanel *self)
{
  guint n = self->report ? self->report->candidates->len : 0;

  clear_grid (self->inspector_grid);
  for (guint i = 0; i < n; i++)
    {
      const CmlConservedCandidate *c = self->report->candidates->pdata[i];
      g_autofree char *name = cml_expr_pretty_name (c->name, FALSE);
      g_autofree char *formula = g_strdup_printf ("= %s", c->formula);
      g_autofree char *name_tip = g_strdup_printf ("%s = %s\n\n%s", name, c->formula, c->what);
      g_autofree char *verdict_tip = g_strdup_printf ("%s\n\n%s%s", cml_conserved_verdict_explain (c->verdict),
                                                      c->contradiction ? _("The model declares it conserved: "
                                                                         "this contradicts it.\n\n") : "",
                                                      c->reason);
      const char *verdict = cml_conserved_verdict_is_conserved (c->verdict)
                              ? (c->verdict == CML_CONSERVED_EXACTLY ? _("conserved (exactly)") : _("no change found (sampled)"))
                              : c->verdict == CML_CONSERVED_NOT ? (c->contradiction ? _("⚠ not conserved") : _("not conserved"))
                                                                : _("undecided");
      GtkLabel *nl = grid_label (self->inspector_grid, name, 0, (int) i, 0, "monitor-name");
      GtkLabel *fl = grid_label (self->inspector_grid, formula, 1, (int) i, 0, NULL);
      GtkLabel *vl = grid_label (self->inspector_grid, verdict, 2, (int) i, 0,
                                 cml_conserved_verdict_is_conserved (c->verdict) ? "success"
                                 : c->contradiction ? "error" : "dim-label");

      gtk_widget_set_tooltip_text (GTK_WIDGET (nl), name_tip);
      gtk_widget_set_tooltip_text (GTK_WIDGET (fl), name_tip);
      gtk_widget_set_tooltip_text (GTK_WIDGET (vl), verdict_tip);
      gtk_label_set_wrap (fl, TRUE);
      gtk_label_set_wrap_mode (fl, PANGO_WRAP_WORD_CHAR);
      gtk_widget_set_hexpand (GTK_WIDGET (fl), TRUE);
      gtk_widget_set_valign (GTK_WIDGET (nl), GTK_ALIGN_START);
      gtk_widget_set_valign (GTK_WIDGET (vl), GTK_ALIGN_START);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_heading), n > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->inspector_grid), n > 0);
}

/* The state variables, each with its meaning (also its tooltip). */
static void
build_variables (CmlEquationsPanel *self, CmlModel *model)
{
  guint dim = self->sys ? cml_system_dim (self->sys) : 0;

  clear_grid (self->variables_grid);
  for (guint i = 0; i < dim; i++)
    {
      const char *name = cml_system_state_name (self->sys, i);
      const char *meaning = cml_model_meaning (model, name);
      g_autofree char *shown = name_with_unit (model, name);
      g_autofree char *tip = g_strdup_printf ("%s: %s", shown, meaning ? meaning : _("no meaning given in the model file"));
      g_autofree char *pretty = cml_expr_pretty_name (name, FALSE);
      GtkLabel *label = grid_label (self->variables_grid, pretty, 0, (int) i, 0, "monitor-name");
      GtkLabel *text = grid_label (self->variables_grid, meaning ? meaning : "", 1, (int) i, 0, "dim-label");

      gtk_widget_set_tooltip_text (GTK_WIDGET (label), tip);
      gtk_widget_set_tooltip_text (GTK_WIDGET (text), tip);
      gtk_label_set_wrap (text, TRUE);
      gtk_label_set_wrap_mode (text, PANGO_WRAP_WORD_CHAR);
      gtk_widget_set_hexpand (GTK_WIDGET (text), TRUE);
      gtk_widget_set_valign (GTK_WIDGET (label), GTK_ALIGN_START);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->variables_heading), dim > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->variables_grid), dim > 0);
}

/* What the model says about itself: what to watch for, then its references, where it
 * comes from and what the printed formulas get wrong. */
static void
show_about (CmlEquationsPanel *self, CmlModel *model)
{
  g_autoptr (GString) refs = g_string_new (NULL);

  gtk_label_set_text (self->about_label, model && model->about ? model->about
                                         : model && model->description ? model->description : "");
  gtk_widget_set_visible (GTK_WIDGET (self->about_label), model && (model->about || model->description));
  if (model && model->citation)
    g_string_append_printf (refs, _("References:\n%s"), model->citation);
  if (model && model->source)
    g_string_append_printf (refs, _("%sSource: %s"), refs->len ? "\n\n" : "", model->source);
  if (model && model->errata)
    g_string_append_printf (refs, _("%sNote on the printed formulas: %s"), refs->len ? "\n\n" : "", model->errata);
  gtk_label_set_text (self->citation_label, refs->str);
  gtk_widget_set_visible (GTK_WIDGET (self->citation_label), refs->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->about_box), model != NULL);
}

static void ensure_built (CmlEquationsPanel *self);

/* The model's warnings and the inspector's contradictions. */
static void
show_warnings (CmlEquationsPanel *self, CmlModel *model)
{
  g_autoptr (GString) warnings = g_string_new (NULL);

  const GPtrArray *sys_warnings = self->sys ? cml_system_get_warnings (self->sys) : model->warnings;
  for (guint i = 0; sys_warnings && i < sys_warnings->len; i++)
    g_string_append_printf (warnings, "%s⚠ %s", i ? "\n" : "", (char *) sys_warnings->pdata[i]);
  for (guint i = 0; self->report && i < self->report->warnings->len; i++)
    g_string_append_printf (warnings, "%s⚠ %s", warnings->len ? "\n" : "", (char *) self->report->warnings->pdata[i]);
  gtk_label_set_text (self->warnings_label, warnings->str);
  gtk_widget_set_visible (GTK_WIDGET (self->warnings_label), warnings->len > 0);
}

/* The parameters changed (a slider, a preset, --set): the verdicts are judged again at
 * their values, once they have settled. */
/* The verdicts of JOB in place of the ones shown. */
static void
take_report (CmlEquationsPanel *self, CmlAccountJob *job)
{
  CmlModel *model = cml_system_get_model (self->sys);

  g_clear_pointer (&self->report, cml_conserved_report_free);
  g_clear_pointer (&self->report_job, cml_account_job_unref);
  self->report = cml_account_job_steal_report (job);
  self->report_job = cml_account_job_ref (job);
  build_monitors (self, model);
  build_inspector (self);
  show_warnings (self, model);
}

static void
on_reinspected (CmlAccountJob *job, gpointer owner)
{
  CmlEquationsPanel *self = owner;

  if (job != self->rejob || self->sys == NULL)
    return;
  take_report (self, job);
  g_clear_pointer (&self->rejob, cml_account_job_unref);
}

static gboolean
reinspect (gpointer data)
{
  CmlEquationsPanel *self = data;

  self->reinspect_id = 0;
  if (self->sys == NULL || self->probe_params == NULL)
    return G_SOURCE_REMOVE;
  /* on a worker, as the first verdicts: a large system takes seconds */
  g_clear_pointer (&self->rejob, cml_account_job_unref);
  self->rejob = cml_account_job_start (self->sys, self->probe_params, FALSE, G_OBJECT (self), on_reinspected);
  return G_SOURCE_REMOVE;
}

void
cml_equations_panel_set_system (CmlEquationsPanel *self, CmlSystem *sys)
{
  g_return_if_fail (CML_IS_EQUATIONS_PANEL (self));
  g_clear_handle_id (&self->reinspect_id, g_source_remove);

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->probe, cml_simulation_free);
  g_clear_pointer (&self->probe_params, g_free);
  g_clear_pointer (&self->baseline, g_free);
  g_clear_pointer (&self->report, cml_conserved_report_free);
  g_clear_pointer (&self->report_job, cml_account_job_unref);
  g_clear_pointer (&self->job, cml_account_job_unref);
  g_clear_pointer (&self->rejob, cml_account_job_unref);
  g_clear_handle_id (&self->build_idle, g_source_remove);
  self->sys = sys;
  self->built = FALSE;

  if (sys == NULL)
    {
      gtk_label_set_text (self->title_label, "");
      gtk_label_set_text (self->kind_label, "");
      gtk_label_set_text (self->algebroid_label, "");
      gtk_label_set_text (self->regularity_label, "");
      gtk_label_set_text (self->regularity_value_label, "");
      gtk_widget_set_visible (GTK_WIDGET (self->steps_box), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->warnings_label), FALSE);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->equations_view), "", -1);
      build_monitors (self, NULL);
      build_inspector (self);
      build_variables (self, NULL);
      show_about (self, NULL);
      return;
    }

  self->n_obs = cml_system_n_observables (sys);
  self->built = FALSE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    ensure_built (self);
}

/* The account made by the worker (the equations typeset, the verdicts) in its place. */
static void
apply_account (CmlEquationsPanel *self)
{
  CmlAccountJob *job = self->job;
  CmlModel *model = cml_system_get_model (self->sys);
  const char *text = cml_account_job_get_text (job);
  g_autofree char *kind = NULL;
  g_autofree char *algebroid = NULL;
  g_autofree char *regularity = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->equations_view);

  self->job = NULL;
  if (text == NULL)
    {
      g_autofree char *why = g_strdup_printf (_("The equations could not be shown: %s"),
                                              cml_account_job_get_error (job));
      gtk_text_buffer_set_text (buffer, why, -1);
      take_report (self, job);
      cml_account_job_unref (job);
      return;
    }

  kind = describe_line (text, N_("\nKind: %s\n"));
  if (kind == NULL)
    kind = g_strdup (cml_formalism_to_string (cml_system_get_formalism (self->sys)));
  {
    g_autofree char *k = capitalize (kind);
    gtk_label_set_text (self->kind_label, k);
  }

  algebroid = describe_line (text, N_("\nLie algebroid: rank %u over a base of dimension %u%s\n"));
  if (algebroid)
    {
      g_autofree char *a = g_strdup_printf (_("Lie algebroid: %s"), algebroid);
      gtk_label_set_text (self->algebroid_label, a);
    }
  else
    gtk_label_set_text (self->algebroid_label, "");

  regularity = describe_line (text, N_("\nRegularity: "));
  gtk_label_set_text (self->regularity_label,
                      regularity ? regularity : _("No regularity condition to check."));

  /* the account from the algebroid on, up to the model's warnings (shown above, as the
   * inspector's section is: build_inspector) */
  {
    g_autofree char *heading = describe_heading (N_("\nLie algebroid: rank %u over a base of dimension %u%s\n"));
    g_autofree char *line = g_strconcat ("\n", heading, NULL);
    g_autofree char *warning = describe_heading (N_("\nWarning: %s\n"));
    g_autofree char *warning_line = g_strconcat ("\n", warning, NULL);
    const char *from = strstr (text, line);
    const char *to;

    from = from ? from + 1 : text;
    to = strstr (from, warning_line);
    gtk_text_buffer_set_text (buffer, from, to && to > from ? (int) (to - from + 1) : -1);
  }
  take_report (self, job);
  (void) model;
  cml_account_job_unref (job);
}

static void
on_account_done (CmlAccountJob *job, gpointer owner)
{
  CmlEquationsPanel *self = owner;

  if (job == self->job && self->sys != NULL)
    apply_account (self);
}

/* The account of the system, its inspector's verdicts and its variables, made when the
 * page is first shown, not when a model loads: for a 50-link pendulum they take longer
 * than deriving the system (the account prints 100 equations, the inspector expands the
 * momenta).  What is quick is shown at once; the equations and the verdicts follow from a
 * worker (cml-equations-account.c), and the window answers meanwhile. */
static void
ensure_built (CmlEquationsPanel *self)
{
  CmlSystem *sys = self->sys;
  CmlModel *model;
  const GPtrArray *steps;
  g_autoptr (GString) step_text = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  if (sys == NULL || self->built)
    return;
  self->built = TRUE;
  model = cml_system_get_model (sys);

  gtk_label_set_text (self->title_label, model->title ? model->title : model->name);
  show_about (self, model);
  gtk_label_set_text (self->kind_label, "");
  gtk_label_set_text (self->algebroid_label, "");
  gtk_label_set_text (self->regularity_label, "");
  gtk_label_set_text (self->regularity_value_label, "");

  steps = cml_system_algorithm_steps (sys);
  for (guint i = 0; steps && i < steps->len; i++)
    g_string_append_printf (step_text, "%s%u. %s", i ? "\n" : "", i + 1, (char *) steps->pdata[i]);
  gtk_label_set_text (self->steps_label, step_text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->steps_box), step_text->len > 0);

  show_warnings (self, model);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->equations_view),
                            _("Typesetting the equations and checking the conserved quantities…"), -1);
  build_monitors (self, model);
  build_inspector (self);
  build_variables (self, model);

  /* a simulation of our own, only to evaluate the regularity matrix at shown states */
  self->probe = cml_simulation_new (sys, &error);
  if (self->probe == NULL)
    gtk_label_set_text (self->regularity_value_label, error->message);
  else
    {
      self->probe_params = g_new (double, model->params->len);
      for (guint i = 0; i < model->params->len; i++)
        self->probe_params[i] = ((CmlParam *) model->params->pdata[i])->value;
    }

  self->job = cml_account_job_start (sys, NULL, TRUE, G_OBJECT (self), on_account_done);
}

/* Built, and the worker's account in place (waited for): for a reader that needs it now. */
static void
ensure_complete (CmlEquationsPanel *self)
{
  ensure_built (self);
  if (self->job)
    {
      cml_account_job_wait (self->job);
      apply_account (self);
    }
  if (self->rejob)
    {
      cml_account_job_wait (self->rejob);
      on_reinspected (self->rejob, self);
    }
}

gboolean
cml_equations_panel_is_busy (CmlEquationsPanel *self)
{
  g_return_val_if_fail (CML_IS_EQUATIONS_PANEL (self), FALSE);

  return self->job != NULL || self->rejob != NULL;
}

char *
cml_equations_panel_get_first_equation (CmlEquationsPanel *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *text = NULL;
  g_autofree char *heading = NULL;
  const char *at, *eol;

  g_return_val_if_fail (CML_IS_EQUATIONS_PANEL (self), NULL);

  if (self->job != NULL || !self->built)
    return NULL;
  buffer = gtk_text_view_get_buffer (self->equations_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  heading = g_strstrip (g_strdup (_("\nEquations of motion (derived; a dot is d/dt):\n")));
  at = strstr (text, heading);
  if (at == NULL || (at = strchr (at, '\n')) == NULL)
    return NULL;
  at++;
  eol = strchr (at, '\n');
  return g_strstrip (g_strndup (at, eol ? (gsize) (eol - at) : strlen (at)));
}

void
cml_equations_panel_set_baseline (CmlEquationsPanel *self, CmlSystem *sys, const double *obs,
                                  guint n_obs)
{
  g_return_if_fail (CML_IS_EQUATIONS_PANEL (self));

  if (sys != self->sys || sys == NULL || n_obs != self->n_obs)
    return;
  g_free (self->baseline);
  self->baseline = g_memdup2 (obs, n_obs * sizeof (double));
}

static void
format_value (char *buf, gsize size, double v)
{
  if (!isfinite (v))
    g_snprintf (buf, size, "%s", isnan (v) ? "NaN" : (v > 0 ? "∞" : "−∞"));
  else
    g_snprintf (buf, size, "%.10g", v);
}

/* Determinant and whether the matrix is numerically invertible. */
static gboolean
check_matrix (double *a, guint n, double *det)
{
  gsl_matrix_view m = gsl_matrix_view_array (a, n, n);
  gsl_permutation *p = gsl_permutation_alloc (n);
  double norm = 0.0, min_pivot = INFINITY;
  int sign = 1;
  gboolean ok;

  for (guint i = 0; i < n * n; i++)
    norm = MAX (norm, fabs (a[i]));
  if (gsl_linalg_LU_decomp (&m.matrix, p, &sign) != 0)
    {
      gsl_permutation_free (p);
      *det = 0.0;
      return FALSE;
    }
  *det = gsl_linalg_LU_det (&m.matrix, sign);
  for (guint i = 0; i < n; i++)
    min_pivot = MIN (min_pivot, fabs (gsl_matrix_get (&m.matrix, i, i)));
  gsl_permutation_free (p);
  ok = isfinite (*det) && min_pivot > 1e-12 * MAX (norm, 1e-300);
  return ok;
}

static void
update_regularity (CmlEquationsPanel *self, CmlFrame *frame)
{
  CmlModel *model = cml_system_get_model (self->sys);
  double a[MAX_REG * MAX_REG], det;
  g_autofree char *text = NULL;
  guint n;

  if (self->probe == NULL || frame->dim != cml_system_dim (self->sys))
    return;
  for (guint i = 0; i < MIN (frame->n_params, model->params->len); i++)
    if (frame->params[i] != self->probe_params[i])
      {
        const CmlParam *p = model->params->pdata[i];

        if (cml_simulation_set_param (self->probe, p->name, frame->params[i], NULL))
          {
            self->probe_params[i] = frame->params[i];
            g_clear_handle_id (&self->reinspect_id, g_source_remove);
            self->reinspect_id = g_timeout_add (300, reinspect, self);
          }
      }
  cml_simulation_set_state (self->probe, frame->t, frame->state_values);
  n = cml_simulation_regularity_matrix (self->probe, a, G_N_ELEMENTS (a));
  if (n == 0)
    {
      gtk_label_set_text (self->regularity_value_label, "");
      return;
    }
  if (check_matrix (a, n, &det))
    text = g_strdup_printf (_("Regular at t = %.3g: det = %.6g"), frame->t, det);
  else
    text = g_strdup_printf (_("Singular at t = %.3g (det = %.3g): the equations break down here"),
                            frame->t, det);
  gtk_label_set_text (self->regularity_value_label, text);
}

void
cml_equations_panel_update (CmlEquationsPanel *self, CmlFrame *frame)
{
  g_return_if_fail (CML_IS_EQUATIONS_PANEL (self));

  if (frame == NULL || frame->system != self->sys || self->sys == NULL || frame->n_obs != self->n_obs)
    return;
  ensure_built (self);

  for (guint i = 0; i < self->monitors->len; i++)
    {
      MonitorRow *row = self->monitors->pdata[i];
      double v = frame->obs[row->index];
      char buf[64];

      format_value (buf, sizeof buf, v);
      gtk_label_set_text (row->value, buf);
      if (self->baseline && row->drift)
        {
          double v0 = self->baseline[row->index], d = v - v0;

          if (!isfinite (d))
            g_snprintf (buf, sizeof buf, "—");
          else if (fabs (v0) > 1e-12)
            g_snprintf (buf, sizeof buf, _("%+.2e (%.1e rel.)"), d, fabs (d / v0));
          else
            g_snprintf (buf, sizeof buf, "%+.2e", d);
          gtk_label_set_text (row->drift, buf);
        }
    }
  update_regularity (self, frame);
}

char *
cml_equations_panel_get_equations_text (CmlEquationsPanel *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->equations_view);
  GtkTextIter start, end;

  ensure_complete (self);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

const char *
cml_equations_panel_get_monitor_text (CmlEquationsPanel *self, const char *name)
{
  ensure_complete (self);
  for (guint i = 0; i < self->monitors->len; i++)
    {
      MonitorRow *row = self->monitors->pdata[i];

      if (g_strcmp0 (row->name, name) == 0)
        return gtk_label_get_text (row->value);
    }
  return NULL;
}

static void
cml_equations_panel_dispose (GObject *object)
{
  CmlEquationsPanel *self = CML_EQUATIONS_PANEL (object);

  g_clear_handle_id (&self->build_idle, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_EQUATIONS_PANEL);
  g_clear_handle_id (&self->reinspect_id, g_source_remove);
  g_clear_pointer (&self->monitors, g_ptr_array_unref);
  g_clear_pointer (&self->probe, cml_simulation_free);
  g_clear_pointer (&self->probe_params, g_free);
  g_clear_pointer (&self->baseline, g_free);
  g_clear_pointer (&self->report, cml_conserved_report_free);
  g_clear_pointer (&self->report_job, cml_account_job_unref);
  g_clear_pointer (&self->job, cml_account_job_unref);
  g_clear_pointer (&self->rejob, cml_account_job_unref);
  g_clear_pointer (&self->sys, cml_system_unref);

  G_OBJECT_CLASS (cml_equations_panel_parent_class)->dispose (object);
}

static gboolean
build_when_idle (gpointer data)
{
  CmlEquationsPanel *self = data;

  self->build_idle = 0;
  ensure_built (self);
  return G_SOURCE_REMOVE;
}

/* Shown: the account is made once the showing is done (not inside it: it fills grids). */
static void
cml_equations_panel_map (GtkWidget *widget)
{
  CmlEquationsPanel *self = CML_EQUATIONS_PANEL (widget);

  GTK_WIDGET_CLASS (cml_equations_panel_parent_class)->map (widget);
  if (!self->built && self->sys != NULL && self->build_idle == 0)
    self->build_idle = g_idle_add (build_when_idle, self);
}

static void
cml_equations_panel_class_init (CmlEquationsPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_equations_panel_dispose;
  widget_class->map = cml_equations_panel_map;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-equations-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cmlequationspanel");
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, box);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, title_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, about_box);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, about_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, citation_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, kind_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, algebroid_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, regularity_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, regularity_value_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, monitors_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, monitor_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, others_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, others_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, variables_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, variables_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, steps_box);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, steps_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, warnings_label);
  gtk_widget_class_bind_template_child (widget_class, CmlEquationsPanel, equations_view);
}

static void
cml_equations_panel_init (CmlEquationsPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->inspector_heading = GTK_LABEL (gtk_label_new (_("Candidates, derived and checked")));
  gtk_label_set_xalign (self->inspector_heading, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->inspector_heading), "sidebar-heading");
  g_autofree char *inspector_tip = g_strdup_printf (
                               _("Quantities derived from the model — the energy, the moving energy for affine "
                               "constraints, the momenta, the Casimirs of a Lie algebra, the model's monitors — "
                               "each decided by differentiating it along the equations of motion: symbolically, "
                               "else at %d states on the constraint set (the initial state, states along a run "
                               "from it and near it, random ones), which is evidence, not a proof. "
                               "Hover a verdict for why."), CML_CONSERVED_N_STATES);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->inspector_heading), inspector_tip);
  self->inspector_grid = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->inspector_grid, 14);
  gtk_grid_set_row_spacing (self->inspector_grid, 3);
  gtk_widget_add_css_class (GTK_WIDGET (self->inspector_grid), "monitor-grid");
  gtk_box_insert_child_after (self->box, GTK_WIDGET (self->inspector_heading), GTK_WIDGET (self->others_grid));
  gtk_box_insert_child_after (self->box, GTK_WIDGET (self->inspector_grid), GTK_WIDGET (self->inspector_heading));
  self->monitors = g_ptr_array_new_with_free_func ((GDestroyNotify) monitor_row_free);
  cml_equations_panel_set_system (self, NULL);
}

GtkWidget *
cml_equations_panel_new (void)
{
  return g_object_new (CML_TYPE_EQUATIONS_PANEL, NULL);
}

const char *
cml_equations_panel_get_verdict (CmlEquationsPanel *self, const char *name)
{
  g_return_val_if_fail (CML_IS_EQUATIONS_PANEL (self), NULL);

  ensure_complete (self); /* (a verdict asked for is judged then, as when the page is shown) */
  for (guint i = 0; self->report && i < self->report->candidates->len; i++)
    {
      const CmlConservedCandidate *c = self->report->candidates->pdata[i];
      if (g_strcmp0 (c->name, name) == 0)
        return cml_conserved_verdict_to_string (c->verdict);
    }
  return NULL;
}
